//! Bit-reproducibility through the public run path (`xpbd run --threads N`): for every CPU ordering,
//! two runs with the same thread count, and a run with another thread count, write byte-identical
//! frames and identical metrics except the timing column (docs/robustness.md).

mod common;

use common::*;
use std::path::Path;

const SCENE: &str = r#"
name = "det"
[simulation]
dt = 0.01
frames = 8
substeps = 5
iterations = 2
[solver]
ordering = "ORDERING"
[[body]]
name = "beam"
mesh = { generator = "box", size = [2.0, 0.5, 0.5], cells = [8, 2, 2], split = 5 }
angular_velocity = [0.5, 1.0, 0.0]
material = { model = "neohookean_block", youngs = 1.0e6, poisson = 0.4, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]
[[probe]]
name = "tip"
body = "beam"
point = [2.0, 0.5, 0.5]
[output]
every = 4
"#;

/// Runs `scene` with `threads` threads into `out`; returns every output that must not depend on the
/// run: the frames' bytes, probes.csv, and metrics.csv without its `ms` column.
fn outputs(scene: &Path, out: &Path, threads: &str) -> Vec<(String, Vec<u8>)> {
    let (code, _, stderr) = xpbd(&["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--device", "cpu", "--threads", threads, "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let metrics: String = std::fs::read_to_string(out.join("metrics.csv"))
        .unwrap()
        .lines()
        .map(|l| l.split(',').enumerate().filter(|&(i, _)| i != 2).map(|(_, f)| f).collect::<Vec<_>>().join(",") + "\n")
        .collect();
    let mut files = vec![("metrics.csv".to_string(), metrics.into_bytes()), ("probes.csv".to_string(), std::fs::read(out.join("probes.csv")).unwrap())];
    for f in 0..=8 {
        let name = format!("frames/frame_{f:05}.vtu");
        if let Ok(bytes) = std::fs::read(out.join(&name)) {
            files.push((name, bytes));
        }
    }
    assert_eq!(files.len(), 5, "metrics, probes and frames 0, 4, 8");
    files
}

#[test]
fn every_cpu_ordering_writes_the_same_bytes_twice_and_on_other_thread_counts() {
    let dir = tempfile::tempdir().unwrap();
    for ordering in ["serial", "colored", "clustered", "jacobi"] {
        let scene = write(dir.path(), &format!("{ordering}.toml"), &SCENE.replace("ORDERING", ordering));
        let run = |name: &str, threads: &str| outputs(&scene, &dir.path().join(format!("{ordering}-{name}")), threads);
        let first = run("a", "2");
        assert!(first == run("b", "2"), "{ordering}: two runs on 2 threads differ");
        assert!(first == run("c", "1"), "{ordering}: 1 and 2 threads differ");
        assert!(first == run("d", "3"), "{ordering}: 2 and 3 threads differ");
    }
}
