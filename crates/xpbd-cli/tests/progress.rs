//! Progress on standard error when it is not a terminal (docs/output-format.md, "Progress"): a line when
//! the first frame ends, then at most one every few seconds; none with `--quiet`; a warning when
//! `--frame` is beyond the scene's frames.

mod common;

use common::*;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SMALL: &str = r#"
name = "small"
[simulation]
dt = 0.01
frames = 3
substeps = 2
[[body]]
name = "beam"
mesh = { generator = "box", size = [1.0, 0.25, 0.25], cells = [2, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]
"#;

#[test]
fn a_piped_run_prints_progress_within_seconds() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.toml", SMALL);
    // A long run (far more frames than the test waits for), killed after its first progress lines.
    let mut child = Command::new(env!("CARGO_BIN_EXE_xpbd"))
        .current_dir(dir.path())
        .args(["run", "s.toml", "--out", "r", "--device", "cpu", "--frames", "1000000"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().expect("a progress line").unwrap();
    let first_at = start.elapsed();
    assert!(first_at < Duration::from_secs(10), "first line after {first_at:?}: {first}");
    assert!(first.starts_with("small: frame 1/1000000, ") && first.contains("s elapsed, eta ") && first.contains(", residual "), "{first}");
    // The next line comes about one interval (5 s) later, not at every frame.
    let second = lines.next().expect("a second progress line").unwrap();
    let gap = start.elapsed() - first_at;
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(second.starts_with("small: frame ") && !second.starts_with("small: frame 2/"), "{second}");
    assert!(gap >= Duration::from_millis(4900), "second line {gap:?} after the first: {second}");
}

#[test]
fn quiet_prints_nothing() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.toml", SMALL);
    let (code, stdout, stderr) = xpbd_in(dir.path(), &["run", "s.toml", "--out", "r", "--device", "cpu", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty() && stderr.is_empty(), "{stdout}{stderr}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", "s.toml", "--out", "r", "--device", "cpu"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("small: frame 1/3, "), "{stderr}");
}

#[test]
fn a_frame_beyond_the_scene_warns_before_the_run_up() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.toml", SMALL);
    let (code, _, stderr) = xpbd_in(dir.path(), &["converge", "s.toml", "--frame", "5", "--iterations", "2", "--solvers", "serial", "--out", "c"]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines[0].starts_with("warning: --frame 5 is beyond the scene's 3 frames"), "{stderr}");
    assert!(lines[1].starts_with("small: frame 1/5, "), "{stderr}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["converge", "s.toml", "--frame", "5", "--iterations", "2", "--solvers", "serial", "--out", "c", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("warning: --frame 5 is beyond the scene's 3 frames") && !stderr.contains("small: frame"), "{stderr}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["export-system", "s.toml", "--frame", "4", "--out", "e", "--no-matrix"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("warning: --frame 4 is beyond the scene's 3 frames"), "{stderr}");
    assert!(stderr.contains("small: frame 1/4, "), "{stderr}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["export-system", "s.toml", "--frame", "0", "--out", "e", "--no-matrix"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    // --quiet keeps the warning and drops the progress.
    let (code, _, stderr) = xpbd_in(dir.path(), &["export-system", "s.toml", "--frame", "4", "--out", "e", "--no-matrix", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("warning: --frame 4 is beyond the scene's 3 frames") && !stderr.contains("small: frame"), "{stderr}");
}

/// On a terminal (a pseudo-terminal from `script`), the bar is redrawn during a slow frame: the elapsed time
/// counts up while no frame has ended.
#[test]
fn on_a_terminal_the_bar_ticks_during_a_slow_frame() {
    let dir = tempfile::tempdir().unwrap();
    // One frame of about two seconds here.
    let slow = SMALL.replace("substeps = 2", "substeps = 1500000").replace("frames = 3", "frames = 1");
    write(dir.path(), "s.toml", &slow);
    let command = format!("{} run s.toml --out r --device cpu", env!("CARGO_BIN_EXE_xpbd"));
    let out = Command::new("script")
        .current_dir(dir.path())
        .args(["-qefc", &command, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("`script` (util-linux) runs the binary on a pseudo-terminal");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    // Without ticks the bar is drawn at 0/1 once, when it starts, and next, with the residual beside the name,
    // when the frame ends; ticks (every 0.5 s, a new spinner character each) draw it at 0/1 again. The frame
    // lasts about 2 s here, so a machine several times faster still sees a tick.
    let draws = text.split("small [").skip(1).filter(|bar| bar.contains("] 0/1 frames,")).count();
    assert!(draws >= 2, "redrawn during the frame ({draws} draws at 0/1):\n{text}");
}
