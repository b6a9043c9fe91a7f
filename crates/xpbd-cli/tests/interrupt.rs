//! Interrupting and resuming `xpbd run` as a user does: a signal stops the run after its current frame
//! with exit 130 (SIGINT) or 143 (SIGTERM), `summary.json` says `interrupted` and gives the resume
//! command, which continues to the same bits as an uninterrupted run (CPU, XPBD); `--resume` refuses a
//! final frame at or before its checkpoint; a killed run (no summary) is still reported; a failed write
//! leaves no temporary file.

mod common;

use common::{expect_error, write, xpbd_in};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// About 30 ms a frame on one core, so a signal sent after the first frame arrives long before the 40th.
const SLOW: &str = r#"
name = "beam"
[simulation]
frames = 40
substeps = 100
iterations = 20
[[body]]
name = "beam"
mesh = { generator = "box", size = [2.0, 0.5, 0.5], cells = [8, 2, 2], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
[output]
every = 2
"#;

fn summary(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// Rows of `metrics.csv` without the `ms` column, which differs between runs.
fn rows_without_timing(dir: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(dir.join("metrics.csv")).unwrap();
    text.lines().map(|l| l.split(',').enumerate().filter(|(i, _)| *i != 2).map(|(_, f)| f).collect::<Vec<_>>().join(",")).collect()
}

/// The frame a checkpoint holds (after magic, version and fingerprint).
fn checkpoint_frame(dir: &Path) -> u64 {
    u64::from_le_bytes(std::fs::read(dir.join("checkpoint.bin")).unwrap()[20..28].try_into().unwrap())
}

/// Runs `xpbd args` in `dir`, sends `signal` once the first metrics row is written, and returns the
/// exit code and standard error.
fn interrupted(dir: &Path, args: &[&str], out: &str, signal: &str) -> (i32, String) {
    let child = Command::new(env!("CARGO_BIN_EXE_xpbd")).current_dir(dir).args(args).stderr(Stdio::piped()).spawn().unwrap();
    let metrics = dir.join(out).join("metrics.csv");
    let start = Instant::now();
    while std::fs::read_to_string(&metrics).map_or(0, |t| t.lines().count()) < 2 {
        assert!(start.elapsed() < Duration::from_secs(60), "no frame after a minute");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap().success());
    let done = child.wait_with_output().unwrap();
    (done.status.code().unwrap_or(-1), String::from_utf8_lossy(&done.stderr).into())
}

#[test]
fn an_interrupted_run_resumed_by_its_printed_command_ends_in_the_same_bits_as_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "beam.toml", SLOW);
    let (code, _, stderr) = xpbd_in(d, &["run", "beam.toml", "--out", "whole", "--device", "cpu", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    // With checkpoints every 7 frames, and without (the interruption writes one all the same).
    // The second also on one thread, which its resume command repeats.
    for (signal, name, exit, every, threads, out) in [("-INT", "SIGINT", 130, Some("7"), None, "int"), ("-TERM", "SIGTERM", 143, None, Some("1"), "term")] {
        let cut = d.join(out);
        let mut args = vec!["run", "beam.toml", "--out", out, "--device", "cpu", "--quiet"];
        args.extend(every.iter().flat_map(|n| ["--checkpoint-every", n]));
        args.extend(threads.iter().flat_map(|n| ["--threads", n]));
        let (code, stderr) = interrupted(d, &args, out, signal);
        assert_eq!(code, exit, "{name}: {stderr}");
        let line = stderr.trim_end();
        assert!(!line.contains('\n'), "{name}: one line: {stderr}");
        let s = summary(&cut);
        assert_eq!(s["status"], "interrupted");
        assert_eq!(s["interrupted"]["signal"], name);
        let frame = s["interrupted"]["frame"].as_u64().unwrap();
        assert!((1..40).contains(&frame), "{name}: stopped at frame {frame}");
        assert_eq!(s["frames"], frame);
        let resume = s["interrupted"]["resume"].as_str().unwrap();
        let threads = threads.map_or(String::new(), |n| format!(" --threads {n}"));
        assert!(resume.ends_with(&format!(" run beam.toml --resume {out} --frames 40 --device cpu{threads} --quiet")), "{resume}");
        assert!(line.starts_with(&format!("interrupted by {name} at frame {frame} of 40: ")) && line.ends_with(&format!("resume with: {resume}")), "{line}");
        // The last frame is written whatever output.every says, with the checkpoint it resumes from.
        assert!(cut.join(format!("frames/frame_{frame:05}.vtu")).is_file());
        assert_eq!(checkpoint_frame(&cut), frame);
        assert_eq!(rows_without_timing(&cut).len() as u64, frame + 1, "the header and one row a frame");
        // A partial run is reported and drawn.
        let (code, _, stderr) = xpbd_in(d, &["report", out]);
        assert_eq!(code, 0, "{stderr}");
        assert!(std::fs::read_to_string(cut.join("report.md")).unwrap().contains("| interrupted |"));
        let (code, _, stderr) = xpbd_in(d, &["render", out, "--size", "32x24"]);
        assert_eq!(code, 0, "{stderr}");
        assert!(cut.join(format!("render/frame_{frame:05}.png")).is_file());

        let done = Command::new("sh").current_dir(d).args(["-c", resume]).output().unwrap();
        assert_eq!(done.status.code(), Some(0), "{}", String::from_utf8_lossy(&done.stderr));
        let s = summary(&cut);
        assert_eq!((s["status"].as_str(), s["frames"].as_u64()), (Some("completed"), Some(40)));
        assert!(s.get("interrupted").is_none());
        let last = |run: &str| std::fs::read(d.join(run).join("frames/frame_00040.vtu")).unwrap();
        assert!(last("whole") == last(out), "{name}: the final frames differ");
        assert_eq!(rows_without_timing(&d.join("whole")), rows_without_timing(&cut), "{name}: metrics rows");
        // The resumed run kept the checkpoint interval of the interrupted one.
        assert_eq!(checkpoint_frame(&cut), if every.is_some() { 35 } else { frame });
    }
}

#[test]
fn a_killed_run_without_summary_is_reported_as_unfinished_and_drawn() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "beam.toml", SLOW);
    let (code, _) = interrupted(d, &["run", "beam.toml", "--out", "k", "--device", "cpu", "--quiet"], "k", "-KILL");
    assert_eq!(code, -1, "killed by a signal");
    assert!(!d.join("k/summary.json").exists());
    let (code, stdout, stderr) = xpbd_in(d, &["report", "k"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("1 runs: "), "{stdout}");
    assert!(std::fs::read_to_string(d.join("k/report.md")).unwrap().contains("| unfinished (no summary.json: the run was killed or is still running) |"));
    let (code, _, stderr) = xpbd_in(d, &["render", "k", "--size", "32x24"]);
    assert_eq!(code, 0, "{stderr}");
}

const CUBE: &str = r#"
name = "cube"
[simulation]
frames = 6
[[body]]
name = "cube"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [4, 4, 4], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
"#;

#[test]
fn resume_refuses_a_final_frame_not_after_its_checkpoint_and_leaves_the_folder_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "cube.toml", CUBE);
    let (code, _, stderr) = xpbd_in(d, &["run", "cube.toml", "--out", "r", "--checkpoint-every", "3", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let before = |f: &str| std::fs::read(d.join("r").join(f)).unwrap();
    let (metrics, summary_bytes) = (before("metrics.csv"), before("summary.json"));
    for frames in ["2", "6"] {
        expect_error(d, &["run", "cube.toml", "--resume", "r", "--frames", frames], &["r: its checkpoint is at frame 6", &format!("not {frames}")]);
    }
    assert_eq!(before("metrics.csv"), metrics, "metrics.csv is not truncated");
    assert_eq!(before("summary.json"), summary_bytes, "summary.json is not rewritten");
    let (code, _, stderr) = xpbd_in(d, &["run", "cube.toml", "--resume", "r", "--frames", "7", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(summary(&d.join("r"))["frames"], 7);
}

#[test]
fn a_write_that_fails_for_want_of_space_leaves_no_temporary_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "cube.toml", CUBE);
    // A 4 KiB file size limit (EFBIG, as ENOSPC for a full disk): the CSV headers fit, frame 0's VTU does not.
    let limited = "ulimit -f 4; trap '' XFSZ; exec \"$0\" \"$@\"";
    let out = Command::new("bash").current_dir(d).args(["-c", limited, env!("CARGO_BIN_EXE_xpbd"), "run", "cube.toml", "--out", "r"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.trim_end().lines().count() == 1 && stderr.starts_with("error: ") && stderr.contains("frame_00000.vtu"), "{stderr}");
    let mut left = vec![d.join("r")];
    while let Some(folder) = left.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(!name.ends_with(".tmp"), "{} left behind", entry.path().display());
            if entry.file_type().unwrap().is_dir() {
                left.push(entry.path());
            }
        }
    }
}

/// The file names of a run folder's `frames/`, sorted.
fn frame_files(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("frames")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// An interrupted run writes its last frame off the `output.every` grid; resumed, it ends with the frame files
/// and the `animation.pvd` of an uninterrupted run: that frame's file is gone and listed nowhere, no frame twice.
#[test]
fn a_resumed_run_ends_with_the_frame_files_and_animation_pvd_of_an_uninterrupted_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Frames 0 and 40 only: any frame an interruption stops at is off the grid.
    write(d, "beam.toml", &SLOW.replace("every = 2", "every = 40"));
    let (code, _, stderr) = xpbd_in(d, &["run", "beam.toml", "--out", "whole", "--device", "cpu", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, stderr) = interrupted(d, &["run", "beam.toml", "--out", "cut", "--device", "cpu", "--quiet"], "cut", "-INT");
    assert_eq!(code, 130, "{stderr}");
    let frame = summary(&d.join("cut"))["frames"].as_u64().unwrap();
    let pvd = |run: &str| std::fs::read_to_string(d.join(run).join("animation.pvd")).unwrap();
    assert!(pvd("cut").contains(&format!("frames/frame_{frame:05}.vtu")), "the interrupted run lists its last frame");
    let (code, _, stderr) = xpbd_in(d, &["run", "beam.toml", "--resume", "cut", "--frames", "40", "--device", "cpu", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(frame_files(&d.join("cut")), frame_files(&d.join("whole")));
    assert_eq!(frame_files(&d.join("cut")), ["frame_00000.vtu", "frame_00040.vtu"]);
    assert_eq!(pvd("cut"), pvd("whole"), "animation.pvd lists frames 0 and 40, once each");
}
