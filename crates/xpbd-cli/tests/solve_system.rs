//! `xpbd solve-system`: every method solves a known system; bad files give one-line errors.

mod common;
use common::{expect_error, write, xpbd_in};
use std::fmt::Write;

/// The 2-D 5-point Laplacian on an m × m grid as coordinate Matrix Market text, and `b = A x`
/// for `x_i = sin(0.1 i)`.
fn laplacian(m: usize) -> (String, String, Vec<f64>) {
    let n = m * m;
    let mut entries = Vec::new();
    for i in 0..n {
        entries.push((i, i, 4.0));
        if i % m + 1 < m {
            entries.push((i, i + 1, -1.0));
            entries.push((i + 1, i, -1.0));
        }
        if i + m < n {
            entries.push((i, i + m, -1.0));
            entries.push((i + m, i, -1.0));
        }
    }
    let x: Vec<f64> = (0..n).map(|i| (0.1 * i as f64).sin()).collect();
    let mut b = vec![0.0; n];
    let mut a = format!("%%MatrixMarket matrix coordinate real general\n{n} {n} {}\n", entries.len());
    for &(i, j, v) in &entries {
        b[i] += v * x[j];
        writeln!(a, "{} {} {v}", i + 1, j + 1).unwrap();
    }
    let mut bs = format!("%%MatrixMarket matrix array real general\n{n} 1\n");
    for v in &b {
        writeln!(bs, "{v:e}").unwrap();
    }
    (a, bs, x)
}

#[test]
fn every_method_solves_a_laplacian() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b, x_true) = laplacian(40);
    write(dir.path(), "A.mtx", &a);
    write(dir.path(), "b.mtx", &b);
    for method in ["amg-pcg", "cg", "jacobi-pcg", "direct"] {
        let args = ["solve-system", "A.mtx", "b.mtx", "--method", method, "--max-coarse", "100", "--json", "--out", "x.mtx"];
        let (code, out, err) = xpbd_in(dir.path(), &args);
        assert_eq!(code, 0, "{method}: {err}");
        let r: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(r["relative_residual"].as_f64().unwrap() <= 1e-8, "{method}: {out}");
        assert!(r["setup_s"].as_f64().unwrap() >= 0.0 && r["solve_s"].as_f64().unwrap() >= 0.0);
        let levels = r["levels"].as_u64().unwrap();
        assert!(if method == "amg-pcg" { levels >= 2 && r["operator_complexity"].as_f64().unwrap() > 1.0 } else { levels == 1 }, "{out}");
        let x: Vec<f64> = std::fs::read_to_string(dir.path().join("x.mtx")).unwrap().lines().skip(2).map(|l| l.parse().unwrap()).collect();
        let err = x.iter().zip(&x_true).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(err < 1e-6, "{method}: max error {err}");
    }
    let (code, out, _) = xpbd_in(dir.path(), &["solve-system", "A.mtx", "b.mtx", "--smoother", "chebyshev", "--near-kernel", "gs"]);
    assert!(code == 0 && out.contains("operator_complexity") && out.contains("converged"), "{out}");
}

#[test]
fn bad_systems_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (a, b, _) = laplacian(3);
    write(d, "A.mtx", &a);
    write(d, "b.mtx", &b);
    expect_error(d, &["solve-system", "missing.mtx", "b.mtx"], &["missing.mtx"]);
    write(d, "rect.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 1 1.0\n");
    expect_error(d, &["solve-system", "rect.mtx", "b.mtx"], &["rect.mtx", "not square"]);
    write(d, "unsym.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 2.0\n2 2 2.0\n1 2 1.0\n");
    expect_error(d, &["solve-system", "unsym.mtx", "b.mtx"], &["unsym.mtx", "not symmetric"]);
    write(d, "skew.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 4\n1 1 2.0\n2 2 2.0\n1 2 1.0\n2 1 0.5\n");
    expect_error(d, &["solve-system", "skew.mtx", "b.mtx"], &["skew.mtx", "not symmetric at (1, 2)"]);
    write(d, "short.mtx", "%%MatrixMarket matrix array real general\n4 1\n1\n2\n3\n4\n");
    expect_error(d, &["solve-system", "A.mtx", "short.mtx"], &["short.mtx", "4 rows", "9"]);
    write(d, "garbage.mtx", "hello\n");
    expect_error(d, &["solve-system", "garbage.mtx", "b.mtx"], &["garbage.mtx"]);
    write(d, "indef.mtx", "%%MatrixMarket matrix coordinate real general\n9 9 9\n1 1 -1\n2 2 -1\n3 3 -1\n4 4 -1\n5 5 -1\n6 6 -1\n7 7 -1\n8 8 -1\n9 9 -1\n");
    expect_error(d, &["solve-system", "indef.mtx", "b.mtx", "--method", "direct"], &["indef.mtx", "not positive definite"]);
}
