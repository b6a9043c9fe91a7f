//! The default health checks through the binary (docs/robustness.md): a blown-up run that stays finite
//! and slow is refused with `status = "failed"`, one line naming the check and the frame, exit 1 and its
//! frames kept; the checks can be turned off, and bad settings name their field.

mod common;

use common::*;
use std::path::Path;

/// A stiff neo-Hookean bar, pinned at one end, solved by MGPBD with one 0.1 s substep per frame (129
/// would be stable): it folds inside out from frame 3 and its energy grows thirtyfold in the next three frames,
/// while every speed stays below `max_speed` until frame 20. 160 tets, well under a second.
const BLOWN_UP: &str = r#"
name = "blown_up"
[simulation]
dt = 0.1
frames = 20
substeps = 1
iterations = 5
[solver]
kind = "mgpbd"
[[body]]
name = "bracket"
mesh = { generator = "box", size = [2.0, 0.5, 0.5], cells = [8, 2, 2], split = 5 }
material = { model = "neohookean", youngs = 1.0e8, poisson = 0.45, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
"#;

/// Runs `scene` (the blown-up bar with `settings` added to `[simulation]`) into `out`.
fn run(dir: &Path, settings: &str, out: &Path) -> (i32, String, String) {
    let scene = write(dir, "s.toml", &BLOWN_UP.replace("iterations = 5", &format!("iterations = 5\n{settings}")));
    xpbd_in(dir, &["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--device", "cpu", "--quiet"])
}

fn summary(out: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap()
}

/// Exit 1 and a last line of standard error `error: simulation failed at frame N: ...` holding every
/// `needle` (the lines before it are load warnings: the substep is far above the stability estimate).
fn expect_failure(code: i32, stderr: &str, frame: usize, needles: &[&str]) {
    assert_eq!(code, 1, "{stderr}");
    let last = stderr.trim_end().lines().last().unwrap_or_default();
    assert!(last.starts_with(&format!("error: simulation failed at frame {frame}: ")), "{stderr}");
    assert!(stderr.lines().filter(|l| l.starts_with("error")).count() == 1 && !stderr.contains("panicked"), "{stderr}");
    for n in needles {
        assert!(last.contains(n), "expected '{n}' in: {last}");
    }
}

/// Frames 0..=`last` on disk and no later one; `metrics.csv` has their rows.
fn expect_frames(out: &Path, last: usize) {
    for f in 0..=last {
        assert!(out.join(format!("frames/frame_{f:05}.vtu")).is_file(), "frame {f}");
    }
    assert!(!out.join(format!("frames/frame_{:05}.vtu", last + 1)).exists());
    assert_eq!(std::fs::read_to_string(out.join("metrics.csv")).unwrap().lines().count(), last + 1);
    assert_eq!(std::fs::read_to_string(out.join("animation.pvd")).unwrap().matches("<DataSet").count(), last + 1);
}

#[test]
fn a_blown_up_mgpbd_run_is_refused_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let (code, _, stderr) = run(dir.path(), "", &out);
    expect_failure(code, &stderr, 4, &["det F = -", "of body 'bracket': turned inside out", "(simulation.min_volume_ratio = -1)", "frames 0–4"]);
    let s = summary(&out);
    assert_eq!(s["status"], "failed");
    assert_eq!(s["failure"]["kind"], "volume_ratio");
    assert_eq!(s["failure"]["frame"], 4);
    assert_eq!(s["frames"], 4);
    assert!(s["final"]["min_volume_ratio"].as_f64().unwrap() < -1.0);
    expect_frames(&out, 4);
}

#[test]
fn its_energy_fails_the_run_where_det_f_is_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let (code, _, stderr) = run(dir.path(), "min_volume_ratio = -inf", &out);
    expect_failure(code, &stderr, 6, &["elastic + kinetic energy ", " J the scene can hold (simulation.max_energy_ratio = 10)"]);
    let s = summary(&out);
    assert_eq!((s["status"].as_str(), s["failure"]["kind"].as_str(), s["frames"].as_u64()), (Some("failed"), Some("energy"), Some(6)));
    expect_frames(&out, 6);

    // Continuing records every failed frame and exits 0 with one warning.
    let out = dir.path().join("continue");
    let (code, _, stderr) = run(dir.path(), "min_volume_ratio = -inf\non_failure = \"continue\"\nmax_speed = inf", &out);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.lines().last().unwrap().starts_with("warning: 15 frames failed a health check (first at frame 6: elastic + kinetic energy"), "{stderr}");
    let s = summary(&out);
    assert_eq!((s["status"].as_str(), s["frames"].as_u64(), s["failed_check_count"].as_u64()), (Some("completed_with_failures"), Some(20), Some(15)));
}

/// With the new checks off the run is the issue's: it exits 0 `completed` with det F below −800 and an
/// elastic energy of 7e11 J.
#[test]
fn with_the_checks_off_the_blown_up_run_completes_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let off = "min_volume_ratio = -inf\nmax_energy_ratio = inf\nstagnation_frames = 0";
    let scene = write(dir.path(), "s.toml", &BLOWN_UP.replace("iterations = 5", &format!("iterations = 5\n{off}")).replace("frames = 20", "frames = 12"));
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--device", "cpu", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let s = summary(&out);
    assert_eq!(s["status"], "completed");
    assert!(s["final"]["min_volume_ratio"].as_f64().unwrap() < -100.0);
    assert!(s["final"]["elastic_energy"].as_f64().unwrap() > 1e10);
}

#[test]
fn bad_health_settings_name_their_field() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for (setting, needle) in [
        ("max_energy_ratio = 0.5", "simulation.max_energy_ratio: must be a ratio of at least 1"),
        ("max_energy_ratio = nan", "simulation.max_energy_ratio"),
        ("min_volume_ratio = 0.5", "simulation.min_volume_ratio: must be a negative det F"),
        ("stagnation_frames = -1", "s.toml:8: simulation.stagnation_frames: invalid value: integer `-1`, expected a whole number ≥ 0"),
    ] {
        let scene = write(d, "s.toml", &BLOWN_UP.replace("iterations = 5", &format!("iterations = 5\n{setting}")));
        expect_error(d, &["run", scene.to_str().unwrap(), "--out", d.join("o").to_str().unwrap(), "--device", "cpu", "--quiet"], &["s.toml", needle]);
    }
}

/// The shipped scenes that run in a few seconds pass the default checks over their first frames
/// (every shipped scene was run to its end by hand: docs/robustness.md).
#[test]
fn shipped_scenes_pass_the_default_checks() {
    let dir = tempfile::tempdir().unwrap();
    let scenes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes");
    for name in ["mgpbd_ball_drop", "contact_stack", "spinning_box", "cloth_hanging", "mgpbd_bar_twist"] {
        let out = dir.path().join(name);
        let scene = scenes.join(format!("{name}.toml"));
        let (code, _, stderr) = xpbd(&["run", scene.to_str().unwrap(), "--frames", "10", "--out", out.to_str().unwrap(), "--device", "cpu", "--quiet"]);
        assert_eq!(code, 0, "{name}: {stderr}");
        assert_eq!(summary(&out)["status"], "completed", "{name}");
    }
}
