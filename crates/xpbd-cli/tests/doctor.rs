//! `xpbd doctor` through the binary (docs/doctor.md), and the dispatcher's `auto` without a validated device:
//! without a CUDA driver the doctor reports "no CUDA driver found" on its screen and in its JSON and exits 1 with
//! that line on standard error, never a panic; `auto` runs on the CPU and records why in `summary.json`. Each test
//! uses a cache directory of its own (`XPBD_CACHE_DIR`), so nothing it does is validated.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;

/// Runs `xpbd args` with the validation cache in `cache`; returns (exit code, stdout, stderr).
fn xpbd_with_cache(cache: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xpbd")).env("XPBD_CACHE_DIR", cache).args(args).output().expect("run xpbd");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// Whether this machine has an NVIDIA driver (as `cli.rs` asks).
fn has_driver() -> bool {
    Path::new("/dev/nvidia0").exists()
}

fn assert_one_error_line(stderr: &str, needle: &str) {
    let line = stderr.trim_end();
    assert!(!line.contains('\n') && line.starts_with("error: ") && line.contains(needle), "{stderr}");
    assert!(!line.contains("panicked") && !line.contains("internal error"), "{stderr}");
}

#[test]
fn without_a_driver_the_doctor_says_so_and_fails() {
    if has_driver() {
        return;
    }
    let cache = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = xpbd_with_cache(cache.path(), &["doctor"]);
    assert_eq!(code, 1, "{stdout}{stderr}");
    assert_one_error_line(&stderr, "no CUDA driver found");
    for needle in
        ["kernels", "driver    no CUDA driver found", "devices   none", "validation.json: 0 pass(es) recorded", "result    FAILED: no CUDA driver found"]
    {
        assert!(stdout.contains(needle), "expected {needle:?} in:\n{stdout}");
    }
    assert!(!cache.path().join("validation.json").exists(), "nothing is recorded");

    let (code, stdout, stderr) = xpbd_with_cache(cache.path(), &["doctor", "--json", "--device", "cuda:1"]);
    assert_eq!(code, 1, "{stderr}");
    assert_one_error_line(&stderr, "no CUDA driver found");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert!(report["driver"]["error"].as_str().unwrap().contains("no CUDA driver found"), "{report}");
    assert!(report["problems"][0].as_str().unwrap().contains("no CUDA driver found"), "{report}");
    assert_eq!(report["devices"], serde_json::json!([]));
    assert_eq!(report["cache"]["passes"], 0);
    assert_eq!(report["cache"]["path"].as_str().unwrap(), cache.path().join("validation.json").to_str().unwrap());
    assert!(report["kernels"]["modules"].is_array() && report["kernels"].get("hash").is_some(), "{report}");
}

#[test]
fn doctor_rejects_a_device_that_is_not_cuda() {
    let cache = tempfile::tempdir().unwrap();
    for (device, needle) in [("cpu", "cuda:N"), ("gpu", "'gpu'")] {
        let (code, _, stderr) = xpbd_with_cache(cache.path(), &["doctor", "--device", device, "--no-self-test"]);
        assert_eq!(code, 2, "a usage error: {stderr}");
        assert_one_error_line(&stderr, needle);
    }
}

/// `auto` with an empty validation cache runs on the CPU and records why: without a driver, that there is none;
/// with a GPU and kernels, that this device, driver and kernel build have not been validated (a build without
/// kernels says so first).
#[test]
fn auto_falls_back_to_the_cpu_with_the_reason_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(
        dir.path(),
        "s.toml",
        r#"
name = "small"
[simulation]
dt = 0.01
frames = 1
substeps = 4
gpu_min_elements = 0
[solver]
ordering = "colored"
[[body]]
name = "beam"
mesh = { generator = "box", size = [1.0, 0.25, 0.25], cells = [4, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]
"#,
    );
    let out = dir.path().join("out");
    let (code, _, stderr) = xpbd_with_cache(&dir.path().join("cache"), &["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--device", "auto"]);
    assert_eq!(code, 0, "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["device"], "cpu");
    let reason = summary["device_reason"].as_str().unwrap();
    if has_driver() {
        let unvalidated = reason.starts_with("cpu: the CUDA backend has not been validated on ") && reason.ends_with("run `xpbd doctor`");
        assert!(unvalidated || reason.starts_with("cpu: built without kernels"), "{reason}");
    } else {
        assert_eq!(reason, "cpu: no CUDA driver found (libcuda.so could not be loaded)");
    }
}
