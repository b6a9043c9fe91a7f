//! The assembled `A` against a dense `J W Jᵀ + α̃` from finite-difference Jacobians, symmetry, the
//! right-hand side, and the position correction `M⁻¹ Jᵀ Δλ` against the dense product.

use super::assembly::Pattern;
use super::rows::{RowKind, Rows, NO_VERTEX};
use super::{alpha_tilde, assemble};
use crate::mesh::Vec3;
use crate::metrics::residual_norm;
use crate::model::Model;
use crate::named::Named;
use crate::scene::schema::{Material, Solver};
use crate::scene::{build, parse, BodyBuilder, Built, SceneBuilder};
use std::path::Path;

/// An MGPBD scene of `bodies` at 4 substeps, with `solver` (an MGPBD `[solver]` table), built.
pub(super) fn model(solver: Solver, bodies: impl IntoIterator<Item = BodyBuilder>) -> Built {
    bodies.into_iter().fold(SceneBuilder::new("t").substeps(4).solver(solver), SceneBuilder::body).built(Path::new(".")).unwrap()
}

/// The rows of a built MGPBD scene, under its resolved settings.
pub(super) fn rows_of(b: &Built) -> Rows {
    b.config.method.mgpbd().expect("an MGPBD scene").rows(&b.model).unwrap()
}

/// With cone ARAP rows, whatever `auto` would choose.
fn tet_model(material: &str) -> Built {
    tet_model_with(material, Solver::mgpbd().arap_rows("cone"))
}

fn tet_model_with(material: &str, solver: Solver) -> Built {
    let body = BodyBuilder::new("b")
        .box_mesh([1.0, 0.5, 0.5], [2, 1, 1])
        .material(Material::tet(material, 1e5, 0.3, 1000.0))
        .pin_box([-0.1, -0.1, -0.1], [0.1, 0.3, 0.3]);
    model(solver, [body])
}

fn cloth_model() -> Built {
    model(Solver::mgpbd(), [BodyBuilder::new("c").grid2d([1.0, 1.0], [3, 2]).material(Material::cloth(0.2, 1e-6, 1e-3)).pin_indices(&[0])])
}

/// A smooth, non-rigid perturbation of the rest positions.
pub(super) fn perturbed(m: &Model) -> Vec<Vec3> {
    m.rest.iter().enumerate().map(|(i, p)| p + Vec3::new((1.3 * i as f64).sin(), (0.7 * i as f64).cos(), (2.1 * i as f64).sin()) * 0.04).collect()
}

/// Dense J (rows × 3n) by central differences of every row's value.
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

fn check_against_dense(b: &Built) {
    let (m, rows, h) = (&b.model, &rows_of(b), b.config.h());
    let pattern = Pattern::new(rows, &m.inv_mass);
    let x = perturbed(m);
    let lambda: Vec<f64> = (0..rows.len()).map(|i| 1e-3 * (i as f64).cos()).collect();
    let (a, b) = assemble(m, rows, &pattern, &x, &lambda, h);
    let at = alpha_tilde(rows, h);
    let j = fd_jacobian(m, rows, &x);
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
    // Stored entries: exactly the diagonal and the pairs of rows on a shared free vertex (component
    // rows may not move every vertex of their tet, so some of those entries are zero).
    let stored = a.nnz();
    let shares = |r: usize, c: usize| rows.vertices[r].iter().any(|&v| v != NO_VERTEX && m.inv_mass[v as usize] > 0.0 && rows.vertices[c].contains(&v));
    let coupled = (0..rows.len()).map(|r| (0..rows.len()).filter(|&c| r == c || shares(r, c)).count()).sum::<usize>();
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
    assert!(m.model.inv_mass.iter().any(|&w| w == 0.0), "the test needs pinned vertices");
    check_against_dense(&m);
}

#[test]
fn arap_component_rows_keep_the_cone_energy_and_force() {
    let (cone, m) = (tet_model("arap"), tet_model_with("arap", Solver::mgpbd().arap_rows("components")));
    let (rc, rows) = (rows_of(&cone), rows_of(&m));
    let (cone, m) = (&cone.model, &m.model);
    assert_eq!(rows.kind_counts(), vec![(RowKind::ArapComponent, 9 * rc.len())]);
    let x = perturbed(&m);
    for (i, &mi) in rows.multiplier.iter().enumerate() {
        assert_eq!(rows.compliance[i], rc.compliance[mi as usize]);
    }
    // Per tet: Σ_k C_k² = C_cone², and Σ_k C_k ∇C_k = ∇(½ C_cone²) by central differences of the cone row.
    let (eps, mut checked) = (1e-6, 0);
    for t in 0..rc.len() {
        let (c, _) = rc.evaluate(&cone, t, &x);
        let comp: Vec<(f64, [Vec3; 4])> = (9 * t..9 * t + 9).map(|i| rows.evaluate(&m, i, &x)).collect();
        let sum_sq: f64 = comp.iter().map(|(ck, _)| ck * ck).sum();
        assert!((sum_sq - c * c).abs() < 1e-12 * (1.0 + c * c), "tet {t}: Σ C_k² = {sum_sq} vs C² = {}", c * c);
        for (a, &v) in rc.vertices[t].iter().enumerate() {
            for d in 0..3 {
                let (mut xp, mut xm) = (x.clone(), x.clone());
                xp[v as usize][d] += eps;
                xm[v as usize][d] -= eps;
                let fd = (rc.evaluate(&cone, t, &xp).0.powi(2) - rc.evaluate(&cone, t, &xm).0.powi(2)) / (4.0 * eps);
                let analytic: f64 = comp.iter().map(|(ck, g)| ck * g[a][d]).sum();
                assert!((analytic - fd).abs() < 1e-6 * (1.0 + fd.abs()), "tet {t} slot {a} axis {d}: {analytic} vs {fd}");
                checked += 1;
            }
        }
    }
    assert!(checked > 0 && rc.len() > 1);
}

/// `evaluate_all` (one polar decomposition per element, shared by its nine rows) gives every row
/// exactly what `evaluate` gives it alone, on a model mixing component, neo-Hookean and cloth rows.
#[test]
fn evaluate_all_matches_the_rows_one_by_one() {
    let m = model(
        Solver::mgpbd().arap_rows("components"),
        [
            BodyBuilder::new("a").box_mesh([1.0, 0.5, 0.5], [2, 1, 1]).material(Material::tet("arap", 1e5, 0.3, 1000.0)),
            BodyBuilder::new("n").box_mesh([0.5, 0.5, 0.5], [1, 1, 1]).material(Material::tet("neohookean", 1e5, 0.3, 1000.0)),
            BodyBuilder::new("c").grid2d([1.0, 1.0], [2, 2]).material(Material::cloth(0.2, 1e-6, 1e-3)),
        ],
    );
    let (rows, m) = (rows_of(&m), m.model);
    let kinds: Vec<RowKind> = rows.kind_counts().into_iter().map(|(k, _)| k).collect();
    assert_eq!(kinds, [RowKind::ArapComponent, RowKind::Hydrostatic, RowKind::Deviatoric, RowKind::Edge, RowKind::Hinge]);
    assert_eq!(9 * rows.slot_row.len(), rows.kind_counts()[0].1);
    let x = perturbed(&m);
    let (mut c, mut grads, mut polars) = (vec![f64::NAN; rows.len()], vec![[Vec3::zeros(); 4]; rows.len()], Vec::new());
    rows.evaluate_all(&m, &x, &mut polars, &mut c, Some(&mut grads));
    let mut values = vec![f64::NAN; rows.len()];
    rows.evaluate_all(&m, &x, &mut polars, &mut values, None);
    for i in 0..rows.len() {
        let (ci, gi) = rows.evaluate(&m, i, &x);
        assert_eq!((c[i], grads[i], values[i]), (ci, gi, ci), "row {i} ({:?})", rows.kind[i]);
    }
}

/// The component rows' gradients carry ∂R/∂F (`arap::component`): A against the dense product of the
/// finite-difference Jacobian of (F(x) − R(F(x)))_k, rotation included.
#[test]
fn arap_component_matrix_matches_dense_finite_difference_product() {
    let m = tet_model_with("arap", Solver::mgpbd().arap_rows("components"));
    assert_eq!(rows_of(&m).kind_counts()[0].0, RowKind::ArapComponent);
    check_against_dense(&m);
}

/// `arap_rotation = "fixed"` holds R fixed: the rows' gradients do not depend on the positions
/// (J is constant), unlike the exact ones.
#[test]
fn fixed_rotation_component_rows_have_a_constant_jacobian() {
    let constant = |solver: Solver| {
        let b = tet_model_with("arap", solver);
        let (m, rows) = (&b.model, rows_of(&b));
        let (x0, x1) = (m.rest.clone(), perturbed(&m));
        (0..rows.len()).all(|i| rows.evaluate(&m, i, &x0).1 == rows.evaluate(&m, i, &x1).1)
    };
    assert!(constant(Solver::mgpbd().arap_rows("components").arap_rotation("fixed")));
    assert!(!constant(Solver::mgpbd().arap_rows("components")));
}

#[test]
fn arap_component_multipliers_at_the_solution_zero_the_cone_residual() {
    let b = tet_model_with("arap", Solver::mgpbd().arap_rows("components"));
    let (m, rows, h) = (&b.model, rows_of(&b), b.config.h());
    let x = perturbed(m);
    let at = alpha_tilde(&rows, h);
    let lambda: Vec<f64> = (0..rows.len()).map(|i| -rows.evaluate(&m, i, &x).0 / at[i]).collect();
    let mut state = vec![f64::NAN; m.rows];
    rows.cone_multipliers(&lambda, &mut state);
    let r0 = residual_norm(&m, &x, &vec![0.0; m.rows], h);
    let r = residual_norm(&m, &x, &state, h);
    assert!(r0 > 1e-3 && r < 1e-12 * r0, "cone residual {r} against {r0} at λ = 0");
}

#[test]
fn neohookean_matrix_matches_dense_finite_difference_product() {
    let m = tet_model("neohookean_block");
    let rows = rows_of(&m);
    assert_eq!(rows.kind_counts(), vec![(RowKind::Hydrostatic, m.model.rows / 2), (RowKind::Deviatoric, m.model.rows / 2)]);
    check_against_dense(&m);
}

#[test]
fn cloth_matrix_matches_dense_finite_difference_product() {
    let m = cloth_model();
    let rows = rows_of(&m);
    assert!(rows.kind_counts().iter().any(|&(k, _)| k == RowKind::Hinge));
    check_against_dense(&m);
}

#[test]
fn stvk_and_damping_are_rejected_naming_the_body() {
    for (material, damping) in [("stvk", 0.0), ("arap", 0.1)] {
        let body = BodyBuilder::new("beam").damping(damping).box_mesh([1.0; 3], [1, 1, 1]).material(Material::tet(material, 1e5, 0.3, 1000.0));
        let err = SceneBuilder::new("t").solver(Solver::mgpbd()).body(body).built(Path::new(".")).err().unwrap().to_string();
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
    assert!(err("kind = \"mgpbd\"\narap_rows = \"nine\"").starts_with("solver.arap_rows: unknown 'nine'"));
    assert!(err("kind = \"xpbd\"\narap_rows = \"cone\"").contains("solver.arap_rows: only for kind = \"mgpbd\""));
    assert!(err("kind = \"mgpbd\"\narap_rotation = \"polar\"").starts_with("solver.arap_rotation: unknown 'polar'"));
    assert!(err("kind = \"xpbd\"\narap_rotation = \"fixed\"").contains("solver.arap_rotation: only for kind = \"mgpbd\""));
}

/// The `auto` defaults: the primal solve with smooth ARAP rows where every row is compliant, plain CG
/// with cone rows where a cloth row is hard; a value the scene sets is kept. θ follows the linear solver
/// unless the scene sets it.
#[test]
fn auto_defaults_follow_the_rows() {
    let resolved = |b: Built| {
        let s = b.config.method.mgpbd().unwrap().clone();
        (s.linear_solver.name().to_string(), s.arap_rows.name().to_string())
    };
    assert_eq!(resolved(tet_model_with("arap", Solver::mgpbd())), ("primal-amg".to_string(), "components".to_string()));
    assert_eq!(resolved(tet_model_with("neohookean", Solver::mgpbd())), ("primal-amg".to_string(), "components".to_string()));
    assert_eq!(resolved(tet_model_with("arap", Solver::mgpbd().linear_solver("cg"))), ("cg".to_string(), "cone".to_string()));
    assert_eq!(resolved(tet_model_with("arap", Solver::mgpbd().arap_rows("cone"))), ("primal-amg".to_string(), "cone".to_string()));
    let cloth = |stretch: f64| model(Solver::mgpbd(), [BodyBuilder::new("c").grid2d([1.0, 1.0], [2, 2]).material(Material::cloth(0.2, stretch, 1.0))]);
    assert_eq!(resolved(cloth(1e-7)), ("direct".to_string(), "cone".to_string()));
    assert_eq!(resolved(cloth(0.0)), ("cg".to_string(), "cone".to_string()));
    let theta = |b: Built| b.config.method.mgpbd().unwrap().theta;
    assert_eq!(theta(tet_model_with("arap", Solver::mgpbd())), Some(0.0));
    assert_eq!(theta(tet_model_with("arap", Solver::mgpbd().linear_solver("amg-pcg"))), Some(0.1));
    assert_eq!(theta(tet_model_with("arap", Solver::mgpbd().theta(0.25))), Some(0.25));
    assert_eq!(theta(tet_model_with("arap", Solver::mgpbd().linear_solver("amg-pcg").theta(0.0))), Some(0.0));
}
