//! `xpbd batch`: a sweep killed with SIGKILL mid-way and restarted lists every run exactly once;
//! shards split the runs; bad overrides are one-line errors naming the manifest, sweep and path.

mod common;

use common::{expect_error, write, xpbd_in};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// A cube that takes a few hundred milliseconds per run, so a batch can be killed mid-way.
const SCENE: &str = r#"
name = "cube"
[simulation]
frames = 60
substeps = 40
[[body]]
name = "cube"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [5, 5, 5], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
[output]
formats = ["none"]
"#;

const MANIFEST: &str = r#"
checkpoint_every = 10
[[sweep]]
scene = "cube.toml"
[sweep.vary]
"solver.ordering" = ["serial", "clustered"]
"body.0.material.youngs" = [1e4, 1e5, 1e6]
"#;

/// Run name → number of lines naming it, over all results files in `out`.
fn listed(out: &Path) -> BTreeMap<String, usize> {
    let mut n = BTreeMap::new();
    for f in std::fs::read_dir(out).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "jsonl")) {
        for line in std::fs::read_to_string(&f).unwrap().lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: bad line {line}: {e}", f.display()));
            *n.entry(v["run"].as_str().unwrap().to_string()).or_insert(0) += 1;
        }
    }
    n
}

#[test]
fn killed_batch_restarts_without_lost_or_duplicated_results() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cube.toml", SCENE);
    write(dir.path(), "sweep.toml", MANIFEST);
    let out = dir.path().join("out");
    let mut child = Command::new(env!("CARGO_BIN_EXE_xpbd"))
        .current_dir(dir.path())
        .args(["batch", "sweep.toml", "--out", "out", "--jobs", "2", "--quiet"])
        .spawn()
        .unwrap();
    // Kill it (SIGKILL) once at least two runs are listed, before all six are.
    let start = Instant::now();
    while std::fs::read_to_string(out.join("results.jsonl")).map(|t| t.lines().count()).unwrap_or(0) < 2 {
        assert!(start.elapsed() < Duration::from_secs(60), "no results after 60 s");
        assert!(child.try_wait().unwrap().is_none(), "the batch ended before it was killed");
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = listed(&out);
    assert!(before.len() >= 2 && before.len() < 6, "killed too late to test a restart: {before:?}");
    assert!(before.values().all(|&n| n == 1), "{before:?}");

    // A torn last line (as a kill during a write would leave) is dropped on restart.
    let mut f = std::fs::OpenOptions::new().append(true).open(out.join("results.jsonl")).unwrap();
    std::io::Write::write_all(&mut f, b"{\"run\":\"cube-body.0.mat").unwrap();

    let (code, stdout, stderr) = xpbd_in(dir.path(), &["batch", "sweep.toml", "--out", "out", "--jobs", "2"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains(&format!("6 runs: {} already done", before.len())), "{stdout}");
    let left = 6 - before.len();
    assert!(stderr.contains(&format!("[1/{left}] ")) && stderr.contains(&format!("[{left}/{left}] ")) && stderr.contains(": completed"), "{stderr}");
    let after = listed(&out);
    assert_eq!(after.len(), 6, "{after:?}");
    assert!(after.values().all(|&n| n == 1), "each run exactly once: {after:?}");
    for line in std::fs::read_to_string(out.join("results.jsonl")).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["status"], "completed", "{line}");
        assert_eq!(v["frames"], 60, "{line}");
    }
    // A third start has nothing left to do.
    let (code, stdout, _) = xpbd_in(dir.path(), &["batch", "sweep.toml", "--out", "out"]);
    assert_eq!(code, 0);
    assert!(stdout.contains("6 runs: 6 already done, 0 completed"), "{stdout}");
}

#[test]
fn shards_split_the_runs_and_slurm_variables_pick_the_shard() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cube.toml", &SCENE.replace("frames = 60", "frames = 1").replace("cells = [5, 5, 5]", "cells = [1, 1, 1]"));
    write(dir.path(), "sweep.toml", MANIFEST);
    let (code, _, stderr) = xpbd_in(dir.path(), &["batch", "sweep.toml", "--out", "out", "--shard", "0/4"]);
    assert_eq!(code, 0, "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_xpbd"))
        .current_dir(dir.path())
        .args(["batch", "sweep.toml", "--out", "out"])
        .envs([("SLURM_ARRAY_TASK_ID", "2"), ("SLURM_ARRAY_TASK_MIN", "1"), ("SLURM_ARRAY_TASK_MAX", "4")])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("in shard 1/4"));
    for i in [2, 3] {
        assert_eq!(xpbd_in(dir.path(), &["batch", "sweep.toml", "--out", "out", "--shard", &format!("{i}/4")]).0, 0);
    }
    let shard_sizes: Vec<usize> =
        (0..4).map(|i| std::fs::read_to_string(dir.path().join(format!("out/results.shard-{i}-of-4.jsonl"))).unwrap().lines().count()).collect();
    assert_eq!(shard_sizes, vec![2, 2, 1, 1], "runs i with i % 4 == shard");
    let all = listed(&dir.path().join("out"));
    assert_eq!(all.len(), 6);
    assert!(all.values().all(|&n| n == 1), "shards are disjoint: {all:?}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["batch", "sweep.toml", "--out", "out", "--shard", "4/4"]);
    assert!(code == 2 && stderr.contains("'4/4': need 0 ≤ I < N"), "usage error: {stderr}");
}

#[test]
fn overrides_of_missing_paths_and_bad_values_name_manifest_sweep_and_path() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cube.toml", SCENE);
    write(dir.path(), "a.toml", "[[sweep]]\nscene = \"cube.toml\"\n[sweep.vary]\n\"body.3.material.youngs\" = [1.0]\n");
    expect_error(dir.path(), &["batch", "a.toml", "--out", "o"], &["a.toml: sweep 1", "body.3.material.youngs", "index 3 is past"]);
    write(dir.path(), "b.toml", "[[sweep]]\nscene = \"cube.toml\"\n[sweep.vary]\n\"simulation.substepz\" = [1]\n");
    expect_error(dir.path(), &["batch", "b.toml", "--out", "o"], &["b.toml: sweep 1", "simulation.substepz = 1", "substepz"]);
    write(dir.path(), "c.toml", "[[sweep]]\nscene = \"cube.toml\"\n[sweep.vary]\n\"solver.ordering\" = [\"sideways\"]\n");
    // Values the scene parser accepts but the model builder rejects fail that run only.
    expect_error(dir.path(), &["batch", "c.toml", "--out", "o", "--quiet"], &["1 runs could not start"]);
    let line = std::fs::read_to_string(dir.path().join("o/results.jsonl")).unwrap();
    let v: serde_json::Value = serde_json::from_str(line.trim()).unwrap();
    assert_eq!(v["status"], "error");
    assert!(v["error"].as_str().unwrap().contains("unknown ordering 'sideways'"), "{line}");
}

/// `--gpus`: listed ordinals spread the `auto` runs over those devices, one run each at a time, the CPU taking
/// the rest; here device 0 has no driver behind it, so `auto:0` falls back to the CPU with the reason, and each
/// results line names the device that ran it. A bad list is a usage error.
#[test]
fn gpus_spread_auto_runs_and_results_name_the_device() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cube.toml", &SCENE.replace("frames = 60", "frames = 2"));
    write(dir.path(), "sweep.toml", "[[sweep]]\nscene = \"cube.toml\"\n[sweep.vary]\n\"body.0.material.youngs\" = [1e4, 1e5, 1e6]\n");
    let (code, _, stderr) = xpbd_in(dir.path(), &["batch", "sweep.toml", "--out", "out", "--jobs", "2", "--gpus", "0"]);
    assert_eq!(code, 0, "{stderr}");
    // Which runs find device 0 free depends on timing; the first run always does.
    assert!(stderr.contains("started (auto:0)"), "{stderr}");
    let results = std::fs::read_to_string(dir.path().join("out/results.jsonl")).unwrap();
    let mut reasons = Vec::new();
    for line in results.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["device"], "cpu", "{line}");
        let summary: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.path().join("out").join(v["dir"].as_str().unwrap()).join("summary.json")).unwrap()).unwrap();
        reasons.push(summary["device_reason"].as_str().unwrap().to_owned());
    }
    assert_eq!(reasons.len(), 3);
    // auto:0 fell back with the dispatcher's reason (no driver here); a run without a free device asked for the CPU.
    assert!(reasons.iter().all(|r| r.starts_with("cpu: ")) && reasons.iter().any(|r| r != "cpu: requested"), "{reasons:?}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["batch", "sweep.toml", "--out", "o2", "--gpus", "0,x"]);
    assert!(code == 2 && stderr.contains("'x' is not a CUDA device ordinal"), "usage error: {stderr}");
}

/// SIGTERM to a batch: the running run stops after its current frame with an `interrupted` summary and is not
/// listed, no later run starts, the batch says so in one line with the command that continues, and exits 143;
/// that command resumes the interrupted run from its checkpoint and runs the rest.
#[test]
fn a_signal_stops_the_batch_after_the_current_frame_and_its_command_continues_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "cube.toml", &SCENE.replace("substeps = 40", "substeps = 200"));
    write(d, "sweep.toml", "[[sweep]]\nscene = \"cube.toml\"\n[sweep.vary]\n\"body.0.material.youngs\" = [1e4, 1e5, 1e6]\n");
    let child = Command::new(env!("CARGO_BIN_EXE_xpbd"))
        .current_dir(d)
        .args(["batch", "sweep.toml", "--out", "out", "--jobs", "1"])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = d.join("out");
    // The run folders that have written a metrics row.
    let started = || -> Vec<String> {
        let Ok(entries) = std::fs::read_dir(&out) else { return Vec::new() };
        let rows = |p: &Path| std::fs::read_to_string(p.join("metrics.csv")).map_or(0, |t| t.lines().count());
        entries.flatten().filter(|e| rows(&e.path()) >= 2).map(|e| e.file_name().to_string_lossy().into_owned()).collect()
    };
    let start = Instant::now();
    while started().is_empty() {
        assert!(start.elapsed() < Duration::from_secs(60), "no frame after a minute");
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success());
    let done = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr);
    assert_eq!(done.status.code(), Some(143), "{stderr}");
    let first = started();
    assert_eq!(first.len(), 1, "no later run started: {first:?}");
    let first = &first[0];
    let last = stderr.trim_end().lines().last().unwrap();
    assert!(last.starts_with(&format!("interrupted by SIGTERM: 0 runs listed, 1 interrupted ({first}: ")), "{stderr}");
    assert!(last.contains(", 2 not started; continue with: ") && last.ends_with(" batch sweep.toml --out out --jobs 1"), "{last}");
    assert!(!stderr.contains("[2/3]"), "{stderr}");
    assert!(listed(&out).is_empty(), "an interrupted run is not listed");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join(first).join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "interrupted");
    let frame = summary["frames"].as_u64().unwrap();
    assert!((1..60).contains(&frame), "stopped at frame {frame}");

    let resume = last.split_once("continue with: ").unwrap().1;
    let again = Command::new("sh").current_dir(d).args(["-c", resume]).output().unwrap();
    assert_eq!(again.status.code(), Some(0), "{}", String::from_utf8_lossy(&again.stderr));
    assert!(String::from_utf8_lossy(&again.stdout).contains("3 runs: 0 already done, 3 completed"));
    let after = listed(&out);
    assert!(after.len() == 3 && after.values().all(|&n| n == 1), "{after:?}");
    // The interrupted run continued from its checkpoint: one metrics row a frame, none repeated.
    let rows = std::fs::read_to_string(out.join(first).join("metrics.csv")).unwrap().lines().count();
    assert_eq!(rows, 61, "the header and one row a frame");
}
