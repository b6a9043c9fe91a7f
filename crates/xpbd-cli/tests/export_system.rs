//! `xpbd export-system`: the exported A is symmetric with one row per constraint row, and at frame 0
//! (λ = 0, at rest) b = −C(x̃) with x̃ = x + h² g for free vertices, computed here independently.

mod common;

use common::{expect_error, write, xpbd_in};
use std::path::Path;
use xpbd_core::mesh::Vec3;

const SCENE: &str = r#"name = "beam"
[simulation]
dt = 0.01
substeps = 4
[solver]
kind = "mgpbd"
[[body]]
name = "beam"
mesh = { generator = "box", size = [2.0, 0.5, 0.5], cells = [4, 1, 1] }
material = { model = "neohookean_block", youngs = 1.0e6, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
[output]
formats = ["none"]
"#;

fn read(path: &Path) -> sprs::CsMat<f64> {
    sprs::io::read_matrix_market::<f64, usize, _>(path).unwrap().to_csr()
}

#[test]
fn exported_system_is_symmetric_and_b_is_minus_c_of_the_prediction() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "beam.toml", SCENE);
    let (code, stdout, stderr) = xpbd_in(dir.path(), &["export-system", "beam.toml", "--frame", "0", "--out", "sys"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("A.mtx"), "{stdout}");
    let a = read(&dir.path().join("sys/A.mtx"));
    let b = read(&dir.path().join("sys/b.mtx")).to_dense();
    let info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("sys/system.json")).unwrap()).unwrap();

    let built = xpbd_core::scene::build(&xpbd_core::scene::load(&scene).unwrap(), dir.path()).unwrap();
    let model = &built.model;
    let n = model.rows;
    assert_eq!(n, 2 * 4 * 5, "two rows per tet of 4 cells split into 5");
    assert_eq!((a.rows(), a.cols(), b.shape()), (n, n, &[n, 1][..]));
    assert_eq!(info["rows"], n);
    assert_eq!(info["nonzeros"], a.nnz());
    assert_eq!(info["row_kinds"]["hydrostatic"], n / 2);
    let dense = a.to_dense();
    let scale = dense.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for i in 0..n {
        assert!(dense[[i, i]] > 0.0);
        for j in 0..n {
            assert!((dense[[i, j]] - dense[[j, i]]).abs() <= 1e-12 * scale, "A[{i},{j}] != A[{j},{i}]");
        }
    }

    let h = built.config.h();
    let x: Vec<Vec3> = model.rest.iter().zip(&model.inv_mass).map(|(x, &w)| if w > 0.0 { x + model.gravity * h * h } else { *x }).collect();
    let rows = built.config.method.mgpbd().expect("an MGPBD scene").rows(model).unwrap();
    let mut changed = 0;
    for i in 0..n {
        let c = rows.evaluate(model, i, &x).0;
        assert!((b[[i, 0]] + c).abs() <= 1e-12 * (1.0 + c.abs()), "row {i}: b = {} but C = {c}", b[[i, 0]]);
        changed += ((c - rows.evaluate(&model, i, &model.rest).0).abs() > 1e-12) as usize;
    }
    assert!(changed > 0 && changed < n, "only rows next to the pins change under the translation: {changed} of {n}");
}

#[test]
fn export_system_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.toml", &SCENE.replace("neohookean_block", "stvk"));
    expect_error(dir.path(), &["export-system", "s.toml", "--frame", "0", "--out", "o"], &["body 'beam'", "stvk"]);
    expect_error(dir.path(), &["export-system", "missing.toml", "--frame", "0", "--out", "o"], &["missing.toml"]);
}

/// The exported J, inverse masses, α̃ and x̃ reproduce A = J W Jᵀ + α̃ (so the primal files describe
/// the same system), and `solve-system --method primal-amg` solves it through them to the requested
/// dual residual, which it recomputes from A.
#[test]
fn primal_files_reproduce_a_and_primal_amg_solves_it() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "beam.toml", SCENE);
    let (code, _, stderr) = xpbd_in(dir.path(), &["export-system", "beam.toml", "--frame", "1", "--out", "sys"]);
    assert_eq!(code, 0, "{stderr}");
    let s = dir.path().join("sys");
    let (a, j) = (read(&s.join("A.mtx")).to_dense(), read(&s.join("J.mtx")).to_dense());
    let vector = |name: &str| xpbd_core::sparse::matrix_market::read_vector(&s.join(name)).unwrap();
    let (w, at) = (vector("inv_mass.mtx"), vector("alpha_tilde.mtx"));
    assert_eq!(vector("x.mtx").len(), 3 * w.len());
    let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for r in 0..a.shape()[0] {
        for c in 0..a.shape()[1] {
            let jwj: f64 = (0..j.shape()[1]).map(|k| j[[r, k]] * w[k / 3] * j[[c, k]]).sum();
            let want = jwj + if r == c { at[r] } else { 0.0 };
            assert!((a[[r, c]] - want).abs() <= 1e-10 * scale, "A[{r},{c}] = {} vs J W Jᵀ + α̃ = {want}", a[[r, c]]);
        }
    }
    let (code, stdout, stderr) = xpbd_in(dir.path(), &["solve-system", "sys/A.mtx", "sys/b.mtx", "--method", "primal-amg", "--tol", "1e-8", "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let residual = report["relative_residual"].as_f64().unwrap();
    assert!(report["converged"] == true && residual <= 1e-8, "{stdout}");
}

/// `--no-matrix` writes everything but A.mtx (the same bytes), and `solve-system --matrix-free`
/// takes the iterates of CG on A.mtx from J W Jᵀ + α̃ (residuals and solutions agree to rounding at
/// every cap) and gives primal-amg the same true residual as A does.
#[test]
fn no_matrix_export_and_matrix_free_solves_match_a() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "beam.toml", SCENE);
    for (out, extra) in [("full", None), ("free", Some("--no-matrix"))] {
        let mut args = vec!["export-system", "beam.toml", "--frame", "1", "--out", out];
        args.extend(extra);
        let (code, stdout, stderr) = xpbd_in(dir.path(), &args);
        assert_eq!(code, 0, "{stderr}");
        assert_eq!(stdout.contains("A.mtx"), extra.is_none(), "{stdout}");
    }
    let (full, free) = (dir.path().join("full"), dir.path().join("free"));
    assert!(full.join("A.mtx").exists() && !free.join("A.mtx").exists());
    for name in ["b.mtx", "J.mtx", "inv_mass.mtx", "alpha_tilde.mtx", "x.mtx"] {
        assert_eq!(std::fs::read(full.join(name)).unwrap(), std::fs::read(free.join(name)).unwrap(), "{name}");
    }
    let info: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(free.join("system.json")).unwrap()).unwrap();
    assert!(info["nonzeros"].is_null() && info["rows"] == 40, "{info}");

    let solve = |folder: &str, method: &str, matrix_free: bool| {
        let (a, b, x) = (format!("{folder}/A.mtx"), format!("{folder}/b.mtx"), format!("x_{folder}_{method}.mtx"));
        let mut args = vec!["solve-system", &a, &b, "--method", method, "--tol", "1e-14", "--caps", "1,2,4,8,12", "--json", "--out", &x];
        if matrix_free {
            args.push("--matrix-free");
        }
        let (code, stdout, stderr) = xpbd_in(dir.path(), &args);
        assert_eq!(code, 0, "{stderr}");
        let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(report["matrix_free"], matrix_free);
        let residuals: Vec<f64> = report["sweep"].as_array().unwrap().iter().map(|p| p["relative_residual"].as_f64().unwrap()).collect();
        (residuals, xpbd_core::sparse::matrix_market::read_vector(&dir.path().join(x)).unwrap())
    };
    for method in ["cg", "primal-amg"] {
        let (r_a, x_a) = solve("full", method, false);
        let (r_j, x_j) = solve("free", method, true);
        // CG's caps stop it at several residuals; primal-amg solves this small K on its coarse level.
        assert!(if method == "cg" { r_a[4] < r_a[0] * 1e-3 } else { r_a[0] < 1e-12 }, "{method}: {r_a:?}");
        for (p, q) in r_j.iter().zip(&r_a) {
            assert!((p - q).abs() <= 1e-6 * q + 1e-13, "{method}: matrix-free {r_j:?} vs A {r_a:?}");
        }
        let scale = x_a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(x_j.iter().zip(&x_a).all(|(p, q)| (p - q).abs() <= 1e-8 * scale), "{method}: solutions differ");
    }
}

/// Bad combinations of `--matrix-free` and missing files are one-line errors naming what is wrong.
#[test]
fn matrix_free_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "beam.toml", SCENE);
    assert_eq!(xpbd_in(d, &["export-system", "beam.toml", "--frame", "0", "--out", "sys", "--no-matrix"]).0, 0);
    expect_error(d, &["solve-system", "sys/A.mtx", "sys/b.mtx", "--method", "direct", "--matrix-free"], &["--matrix-free", "direct", "cg, primal-amg"]);
    expect_error(d, &["solve-system", "sys/A.mtx", "sys/b.mtx", "--method", "cg"], &["sys/A.mtx", "not found", "--matrix-free"]);
    write(d, "short.mtx", "%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
    expect_error(d, &["solve-system", "sys/A.mtx", "short.mtx", "--method", "cg", "--matrix-free"], &["J.mtx", "3 rows"]);
    std::fs::remove_file(d.join("sys/J.mtx")).unwrap();
    expect_error(d, &["solve-system", "sys/A.mtx", "sys/b.mtx", "--method", "primal-amg", "--matrix-free"], &["J.mtx"]);
}
