//! The assembled `A` against a dense `J W Jᵀ + α̃` from finite-difference Jacobians, symmetry, the
//! right-hand side, and the position correction `M⁻¹ Jᵀ Δλ` against the dense product.

use super::assembly::Pattern;
use super::rows::{RowKind, Rows};
use super::{alpha_tilde, assemble};
use crate::mesh::Vec3;
use crate::model::Model;
use crate::scene::{build, parse};
use std::path::Path;

fn model(body: &str) -> Model {
    let text = format!("name = \"t\"\n[simulation]\nsubsteps = 4\n[solver]\nkind = \"mgpbd\"\n{body}");
    build(&parse(&text, Path::new("t.toml")).unwrap(), Path::new(".")).unwrap().0
}

fn tet_model(material: &str) -> Model {
    model(&format!(
        "[[body]]\nname = \"b\"\nmesh = {{ generator = \"box\", size = [1.0, 0.5, 0.5], cells = [2, 1, 1] }}\n\
         material = {{ model = \"{material}\", youngs = 1e5, poisson = 0.3, density = 1000.0 }}\n\
         pin = [{{ box = {{ min = [-0.1, -0.1, -0.1], max = [0.1, 0.3, 0.3] }} }}]\n"
    ))
}

fn cloth_model() -> Model {
    model(
        "[[body]]\nname = \"c\"\nmesh = { generator = \"grid2d\", size = [1.0, 1.0], cells = [3, 2] }\n\
         material = { model = \"cloth\", areal_density = 0.2, stretch_compliance = 1e-6, bending_compliance = 1e-3 }\n\
         pin = [{ indices = [0] }]\n",
    )
}

/// A smooth, non-rigid perturbation of the rest positions.
fn perturbed(m: &Model) -> Vec<Vec3> {
    m.rest.iter().enumerate().map(|(i, p)| p + Vec3::new((1.3 * i as f64).sin(), (0.7 * i as f64).cos(), (2.1 * i as f64).sin()) * 0.04).collect()
}

/// Dense J (rows × 3n) by central differences of every row's C.
fn fd_jacobian(m: &Model, rows: &Rows, x: &[Vec3]) -> Vec<Vec<f64>> {
    let eps = 1e-6;
    let mut j = vec![vec![0.0; 3 * x.len()]; rows.len()];
    for v in 0..x.len() {
        for k in 0..3 {
            let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
            xp[v][k] += eps;
            xm[v][k] -= eps;
            for (r, jr) in j.iter_mut().enumerate() {
                jr[3 * v + k] = (rows.evaluate(m, r, &xp).0 - rows.evaluate(m, r, &xm).0) / (2.0 * eps);
            }
        }
    }
    j
}

fn check_against_dense(m: &Model) {
    let rows = Rows::new(m).unwrap();
    let pattern = Pattern::new(&rows, &m.inv_mass);
    let x = perturbed(m);
    let h = m.h();
    let lambda: Vec<f64> = (0..rows.len()).map(|i| 1e-3 * (i as f64).cos()).collect();
    let (a, b) = assemble(m, &rows, &pattern, &x, &lambda, h);
    let at = alpha_tilde(&rows, h);
    let j = fd_jacobian(m, &rows, &x);
    let w: Vec<f64> = m.inv_mass.iter().flat_map(|&w| [w; 3]).collect();
    let dense = a.to_dense();
    let scale = dense.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    for r in 0..rows.len() {
        for c in 0..rows.len() {
            let mut e: f64 = (0..w.len()).map(|k| j[r][k] * w[k] * j[c][k]).sum();
            if r == c {
                e += at[r];
            }
            assert!((dense[[r, c]] - e).abs() < 1e-6 * scale, "A[{r},{c}] = {} vs dense {e}", dense[[r, c]]);
            assert!((dense[[r, c]] - dense[[c, r]]).abs() <= 1e-13 * scale, "A not symmetric at ({r},{c})");
        }
        let c_r = rows.evaluate(m, r, &x).0;
        assert_eq!(b[r], -(c_r + at[r] * lambda[r]));
    }
    // Every stored entry couples rows that share a free vertex: no structural zeros beyond the diagonal.
    let stored = a.nnz();
    let coupled = (0..rows.len())
        .map(|r| (0..rows.len()).filter(|&c| r == c || (0..w.len()).any(|k| w[k] > 0.0 && j[r][k] != 0.0 && j[c][k] != 0.0)).count())
        .sum::<usize>();
    assert_eq!(stored, coupled);
    // M⁻¹ Jᵀ Δλ per free vertex against the dense product.
    let grads: Vec<[Vec3; 4]> = (0..rows.len()).map(|i| rows.evaluate(m, i, &x).1).collect();
    for v in 0..x.len() {
        let dx = pattern.correction(v, &grads, &m.inv_mass, &lambda);
        for k in 0..3 {
            let e: f64 = (0..rows.len()).map(|r| w[3 * v + k] * j[r][3 * v + k] * lambda[r]).sum();
            assert!((dx[k] - e).abs() < 1e-6 * (1.0 + e.abs()) * m.inv_mass[v].max(1.0), "vertex {v} axis {k}: {} vs {e}", dx[k]);
        }
    }
}

#[test]
fn arap_matrix_matches_dense_finite_difference_product() {
    let m = tet_model("arap");
    assert!(m.inv_mass.iter().any(|&w| w == 0.0), "the test needs pinned vertices");
    check_against_dense(&m);
}

#[test]
fn neohookean_matrix_matches_dense_finite_difference_product() {
    let m = tet_model("neohookean_block");
    let rows = Rows::new(&m).unwrap();
    assert_eq!(rows.kind_counts(), vec![(RowKind::Hydrostatic, m.rows / 2), (RowKind::Deviatoric, m.rows / 2)]);
    check_against_dense(&m);
}

#[test]
fn cloth_matrix_matches_dense_finite_difference_product() {
    let m = cloth_model();
    let rows = Rows::new(&m).unwrap();
    assert!(rows.kind_counts().iter().any(|&(k, _)| k == RowKind::Hinge));
    check_against_dense(&m);
}

#[test]
fn stvk_and_damping_are_rejected_naming_the_body() {
    for (material, extra) in [("stvk", ""), ("arap", "damping = 0.1\n")] {
        let text = format!(
            "name = \"t\"\n[solver]\nkind = \"mgpbd\"\n[[body]]\nname = \"beam\"\n{extra}\
             mesh = {{ generator = \"box\", size = [1.0, 1.0, 1.0], cells = [1, 1, 1] }}\n\
             material = {{ model = \"{material}\", youngs = 1e5, poisson = 0.3, density = 1000.0 }}\n"
        );
        let err = build(&parse(&text, Path::new("t.toml")).unwrap(), Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("body 'beam'") && err.contains("mgpbd") && !err.contains('\n'), "{err}");
    }
}

#[test]
fn mgpbd_fields_are_validated_and_rejected_for_xpbd() {
    let err = |solver: &str| {
        let text = format!("name = \"t\"\n[solver]\n{solver}\n");
        build(&parse(&text, Path::new("t.toml")).unwrap(), Path::new(".")).unwrap_err().to_string()
    };
    assert!(err("kind = \"xpbd\"\npcg_tol = 1e-5").contains("solver.pcg_tol: only for kind = \"mgpbd\""));
    assert!(err("kind = \"mgpbd\"\npcg_tol = 2.0").starts_with("solver.pcg_tol:"));
    assert!(err("kind = \"mgpbd\"\nsetup_interval = 0").starts_with("solver.setup_interval:"));
    assert!(err("kind = \"mgpbd\"\nsmoother = \"sor\"").starts_with("solver.smoother: unknown 'sor'"));
    assert!(err("kind = \"mgpbd\"\nlinear_solver = \"lu\"").starts_with("solver.linear_solver: unknown 'lu'"));
}
