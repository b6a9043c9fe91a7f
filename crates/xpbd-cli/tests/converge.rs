//! `xpbd converge` through the binary (docs/output-format.md): the CSV contract, a shared start state, a
//! converging serial solve, the plot, and one-line errors.

mod common;

use common::*;
use std::path::Path;

/// A small clamped beam, stiff enough to bend visibly in a few frames.
const BEAM: &str = r#"
name = "tiny"
[simulation]
dt = 0.01
frames = 5
substeps = 4
[solver]
ordering = "clustered"
[[body]]
name = "beam"
mesh = { generator = "box", size = [1.0, 0.25, 0.25], cells = [8, 2, 2], split = 5 }
material = { model = "neohookean", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]
[output]
formats = ["none"]
"#;

struct Row {
    solver: String,
    iteration: usize,
    wall_ms: f64,
    residual: f64,
    relative_residual: f64,
    energy: f64,
}

fn read_csv(path: &Path) -> (String, Vec<Row>) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap().to_string();
    let rows = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 6, "{l}");
            Row {
                solver: f[0].into(),
                iteration: f[1].parse().unwrap(),
                wall_ms: f[2].parse().unwrap(),
                residual: f[3].parse().unwrap(),
                relative_residual: f[4].parse().unwrap(),
                energy: f[5].parse().unwrap(),
            }
        })
        .collect();
    (header, rows)
}

#[test]
fn writes_one_row_per_solver_and_iteration_from_one_start_state() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "tiny.toml", BEAM);
    let out = dir.path().join("c");
    let solvers = "serial,colored,neohookean_block/clustered,jacobi,neohookean_block/serial,mgpbd";
    let k = 12;
    let (code, stdout, stderr) = xpbd_in(
        dir.path(),
        &["converge", scene.to_str().unwrap(), "--frame", "3", "--iterations", &k.to_string(), "--solvers", solvers, "--out", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("neohookean_block/clustered"), "{stdout}");
    let (header, rows) = read_csv(&out.join("converge.csv"));
    assert_eq!(header, "solver,iteration,wall_ms,residual,relative_residual,energy");
    let names: Vec<&str> = solvers.split(',').collect();
    assert_eq!(rows.len(), names.len() * (k + 1));
    for (i, name) in names.iter().enumerate() {
        let block = &rows[i * (k + 1)..(i + 1) * (k + 1)];
        assert!(block.iter().all(|r| r.solver == *name));
        assert_eq!(block.iter().map(|r| r.iteration).collect::<Vec<_>>(), (0..=k).collect::<Vec<_>>());
        // Iteration 0 is the shared prediction: the same residual and energy for every solver.
        assert_eq!(block[0].relative_residual, 1.0);
        assert_eq!(block[0].wall_ms, 0.0);
        assert!(block[0].residual > 0.0);
        assert_eq!(block[0].residual, rows[0].residual, "{name}");
        assert_eq!(block[0].energy, rows[0].energy, "{name}");
        assert!(block.windows(2).all(|w| w[1].wall_ms >= w[0].wall_ms), "{name}: cumulative time");
        assert!(block.iter().all(|r| r.residual.is_finite() && r.energy.is_finite() && r.energy >= 0.0));
    }
    let svg = std::fs::read_to_string(out.join("converge.svg")).unwrap();
    assert!(svg.starts_with("<svg") || svg.starts_with("<?xml"), "{}", &svg[..svg.len().min(80)]);
    for name in names {
        assert!(svg.contains(name), "legend lacks {name}");
    }
}

/// MGPBD in `converge`: one outer iteration per iteration, with default settings on this XPBD scene.
#[test]
fn mgpbd_reduces_the_residual() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "tiny.toml", BEAM);
    let out = dir.path().join("c");
    let (code, stdout, stderr) =
        xpbd_in(dir.path(), &["converge", scene.to_str().unwrap(), "--frame", "2", "--iterations", "5", "--solvers", "mgpbd", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("MGPBD"), "{stdout}");
    let (_, rows) = read_csv(&out.join("converge.csv"));
    let rel: Vec<f64> = rows.iter().map(|r| r.relative_residual).collect();
    assert!(rel[1] < 1e-2 && rel[5] < 1e-8, "{rel:?}");
}

#[test]
fn serial_gauss_seidel_reduces_the_residual() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "tiny.toml", BEAM);
    let out = dir.path().join("c");
    let (code, _, stderr) = xpbd_in(
        dir.path(),
        &["converge", scene.to_str().unwrap(), "--frame", "2", "--iterations", "30", "--solvers", "serial", "--out", out.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{stderr}");
    let (_, rows) = read_csv(&out.join("converge.csv"));
    let rel: Vec<f64> = rows.iter().map(|r| r.relative_residual).collect();
    assert_eq!(rel.len(), 31);
    assert!(rel[1] < 0.5, "{rel:?}");
    // Decreasing until it reaches round-off.
    for k in 1..rel.len() {
        assert!(rel[k] < rel[k - 1] || rel[k] < 1e-12, "iteration {k}: {rel:?}");
    }
    assert!(rel[30] < 1e-8, "{rel:?}");
}

#[test]
fn frame_zero_starts_from_the_initial_state_and_the_default_folder_is_out_name_converge_frame() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "tiny.toml", BEAM);
    let (code, _, stderr) = xpbd_in(dir.path(), &["converge", "tiny.toml", "--frame", "0", "--iterations", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let out = dir.path().join("out/tiny_converge_0");
    let (_, rows) = read_csv(&out.join("converge.csv"));
    assert_eq!(rows.len(), 4 * 3, "default solvers: serial, colored, clustered, jacobi");
    assert_eq!(rows.iter().map(|r| r.solver.as_str()).step_by(3).collect::<Vec<_>>(), ["serial", "colored", "clustered", "jacobi"]);
    assert!(out.join("converge.svg").is_file());
    assert!(out.join("converge.png").is_file());
    assert!(!dir.path().join("out/tiny").exists(), "the run's own folder is left alone");
}

#[test]
fn bad_arguments_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "tiny.toml", BEAM);
    write(d, "stvk.toml", &BEAM.replace("model = \"neohookean\"", "model = \"stvk\""));
    let base = ["converge", "tiny.toml", "--frame", "1", "--iterations", "3"];
    expect_error(d, &[&base[..], &["--solvers", "serial,gauss"]].concat(), &["'gauss'"]);
    expect_error(d, &[&base[..], &["--solvers", "arap/serial"]].concat(), &["'arap/serial'"]);
    expect_error(d, &[&base[..], &["--solvers", "serial,serial"]].concat(), &["'serial'", "twice"]);
    expect_error(
        d,
        &["converge", "stvk.toml", "--frame", "1", "--iterations", "3", "--solvers", "colored,neohookean/colored"],
        &["'neohookean/colored'", "stvk"],
    );
    expect_error(d, &["converge", "tiny.toml", "--frame", "1", "--iterations", "0"], &["--iterations"]);
    expect_error(d, &["converge", "absent.toml", "--frame", "1", "--iterations", "3"], &["absent.toml"]);
    assert!(!d.join("out").exists(), "no output for a failed command");
}
