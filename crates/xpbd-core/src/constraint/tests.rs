//! Gradients against central finite differences, zero residual at rest and at rigidly moved rest
//! states, and the neo-Hookean small-strain response.

use super::tet::{deformation_gradient, node_gradients, TetRest};
use super::tet_model::{tet_constraints, tet_energy, TetModel, TetParams};
use super::*;
use crate::material::Lame;
use crate::mesh::Vec3;
use nalgebra::{Matrix3, Rotation3};

/// A well-shaped, slightly irregular rest tet and a deformed copy of it.
fn rest_tet() -> [Vec3; 4] {
    [Vec3::new(0.1, -0.05, 0.0), Vec3::new(1.0, 0.1, 0.05), Vec3::new(0.05, 0.9, -0.1), Vec3::new(0.0, 0.15, 1.1)]
}

fn deformed(x: &[Vec3; 4]) -> [Vec3; 4] {
    let d = [Vec3::new(0.03, -0.1, 0.07), Vec3::new(0.2, 0.05, -0.12), Vec3::new(-0.15, 0.1, 0.04), Vec3::new(0.08, -0.2, 0.3)];
    [x[0] + d[0], x[1] + d[1], x[2] + d[2], x[3] + d[3]]
}

/// Checks analytic node gradients of `c` against central differences at `x`.
fn check_gradient<const N: usize>(name: &str, x: &[Vec3; N], c: impl Fn(&[Vec3; N]) -> (f64, [Vec3; N])) {
    let (_, g) = c(x);
    let eps = 1e-6;
    let scale = g.iter().map(|v| v.amax()).fold(0.0, f64::max).max(1e-3);
    for n in 0..N {
        for k in 0..3 {
            let (mut xp, mut xm) = (*x, *x);
            xp[n][k] += eps;
            xm[n][k] -= eps;
            let fd = (c(&xp).0 - c(&xm).0) / (2.0 * eps);
            assert!((fd - g[n][k]).abs() < 1e-6 * scale, "{name}: node {n} axis {k}: analytic {} vs finite difference {fd}", g[n][k]);
        }
    }
}

fn tet_gradient_of(x: &[Vec3; 4], rest: &TetRest, f_to_c: impl Fn(&Matrix3<f64>) -> (f64, Matrix3<f64>)) -> (f64, [Vec3; 4]) {
    let (c, p) = f_to_c(&deformation_gradient(x, &rest.dm_inv));
    (c, node_gradients(&p, &rest.dm_inv))
}

#[test]
fn tet_constraint_gradients_match_finite_differences() {
    let x0 = rest_tet();
    let rest = TetRest::new(&x0).unwrap();
    let x = deformed(&x0);
    let g = 1.3;
    check_gradient("hydrostatic", &x, |x| tet_gradient_of(x, &rest, |f| neohookean::hydrostatic(f, g)));
    check_gradient("deviatoric", &x, |x| tet_gradient_of(x, &rest, neohookean::deviatoric));
    check_gradient("volume", &x, |x| tet_gradient_of(x, &rest, |f| volume::volume_constraint(f, 1.0)));
    check_gradient("arap", &x, |x| tet_gradient_of(x, &rest, arap::arap));
    for i in 0..3 {
        check_gradient("stvk normal", &x, |x| {
            tet_gradient_of(x, &rest, |f| {
                let (c, g) = stvk::normal_rows(f);
                (c[i], g[i])
            })
        });
    }
    for ij in stvk::SHEAR {
        check_gradient("stvk shear", &x, |x| tet_gradient_of(x, &rest, |f| stvk::shear_row(f, ij)));
    }
}

#[test]
fn arap_gradient_is_right_for_an_inverted_element() {
    let x0 = rest_tet();
    let rest = TetRest::new(&x0).unwrap();
    let mut x = deformed(&x0);
    x[3] = Vec3::new(0.3, 0.2, -0.6); // pushed through the opposite face
    assert!(deformation_gradient(&x, &rest.dm_inv).determinant() < 0.0);
    check_gradient("arap inverted", &x, |x| tet_gradient_of(x, &rest, arap::arap));
}

#[test]
fn distance_and_bending_gradients_match_finite_differences() {
    let e = [Vec3::new(0.1, 0.2, -0.3), Vec3::new(1.2, -0.4, 0.5)];
    check_gradient("distance", &e, |x| distance::distance(x, 0.7));
    let hinge = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.1, 0.0), Vec3::new(0.4, 1.0, 0.2), Vec3::new(0.6, -0.9, 0.5)];
    check_gradient("bending", &hinge, |x| bending::bending(x, 0.2));
    let folded = [hinge[0], hinge[1], hinge[2], Vec3::new(0.5, 0.8, 0.9)];
    check_gradient("bending folded", &folded, |x| bending::bending(x, -0.4));
}

#[test]
fn bending_angle_is_zero_when_flat_and_signed() {
    let flat = [Vec3::zeros(), Vec3::x(), Vec3::new(0.5, 1.0, 0.0), Vec3::new(0.5, -1.0, 0.0)];
    assert!(bending::dihedral_angle(&flat).abs() < 1e-15);
    let up = [flat[0], flat[1], flat[2], Vec3::new(0.5, -1.0, 0.3)];
    let down = [flat[0], flat[1], flat[2], Vec3::new(0.5, -1.0, -0.3)];
    let (a, b) = (bending::dihedral_angle(&up), bending::dihedral_angle(&down));
    assert!(a * b < 0.0 && (a + b).abs() < 1e-12, "{a} {b}");
}

fn rigid_motions() -> Vec<(Rotation3<f64>, Vec3)> {
    vec![
        (Rotation3::identity(), Vec3::zeros()),
        (Rotation3::from_scaled_axis(Vec3::new(0.3, -1.1, 0.7)), Vec3::new(2.0, -3.0, 0.5)),
        (Rotation3::from_scaled_axis(Vec3::new(2.5, 0.4, -0.2)), Vec3::new(-1.0, 0.0, 7.0)),
    ]
}

#[test]
fn rest_and_rigidly_moved_rest_states_have_zero_residual() {
    let x0 = rest_tet();
    let rest = TetRest::new(&x0).unwrap();
    let lame = Lame::from_youngs_poisson(1e6, 0.3, "m").unwrap();
    for (r, t) in rigid_motions() {
        let x = x0.map(|p| r * p + t);
        for model in [TetModel::StVK, TetModel::Arap] {
            let p = TetParams::new(model, lame, 0.0, 0.01);
            let mut c = vec![0.0; model.rows()];
            tet_constraints(&p, &rest, &x, &mut c);
            assert!(c.iter().all(|v| v.abs() < 1e-12), "{model:?}: {c:?}");
            assert!(tet_energy(&p, &rest, &x).abs() < 1e-9);
        }
        // The decoupled neo-Hookean rows are not zero at rest (C_D = √3); what vanishes is the
        // stress, and with it the energy (docs/equations.md).
        let snh = lame.stable_neohookean();
        let f = deformation_gradient(&x, &rest.dm_inv);
        assert!(neohookean::stress(&f, &snh).norm() < 1e-6 * snh.mu, "stress at rest");
        let p = TetParams::new(TetModel::NeoHookeanBlock, snh, 0.0, 0.01);
        assert!(tet_energy(&p, &rest, &x).abs() < 1e-9 * snh.mu);
        // Edge lengths and hinge angles are rigid invariants too.
        let e = [x[0], x[1]];
        assert!(distance::distance(&e, (x0[1] - x0[0]).norm()).0.abs() < 1e-12);
        let a0 = bending::dihedral_angle(&x0);
        assert!(bending::bending(&x, a0).0.abs() < 1e-12);
    }
}

#[test]
fn neohookean_stress_is_the_gradient_of_its_energy() {
    let lame = Lame::from_youngs_poisson(1e6, 0.4, "m").unwrap().stable_neohookean();
    let f = Matrix3::new(1.1, 0.05, -0.02, 0.03, 0.92, 0.1, -0.04, 0.02, 1.05);
    let p = neohookean::stress(&f, &lame);
    let eps = 1e-7;
    for i in 0..3 {
        for j in 0..3 {
            let (mut fp, mut fm) = (f, f);
            fp[(i, j)] += eps;
            fm[(i, j)] -= eps;
            let fd = (neohookean::energy_density(&fp, &lame) - neohookean::energy_density(&fm, &lame)) / (2.0 * eps);
            assert!((fd - p[(i, j)]).abs() < 1e-6 * lame.mu, "P[{i}{j}] {} vs {fd}", p[(i, j)]);
        }
    }
}

#[test]
fn stvk_compliance_inverts_the_voigt_stiffness() {
    let l = Lame::from_youngs_poisson(3e5, 0.35, "m").unwrap();
    let v = 0.7;
    let a = stvk::normal_compliance(&l, v);
    for i in 0..3 {
        for j in 0..3 {
            let mut s = 0.0;
            for k in 0..3 {
                let kik = v * (l.lambda + if i == k { 2.0 * l.mu } else { 0.0 });
                s += kik * a[k][j];
            }
            assert!((s - if i == j { 1.0 } else { 0.0 }).abs() < 1e-12, "({i},{j}) = {s}");
        }
    }
}

/// Uniaxial stretch ε along x with free lateral faces: the reparametrised stable neo-Hookean must give
/// σ_xx / ε → E and −ε_lateral / ε → ν, like linear elasticity with the scene's E and ν.
#[test]
fn stable_neohookean_small_uniaxial_stretch_matches_youngs_and_poisson() {
    let (youngs, poisson) = (2.5e6, 0.4);
    let snh = Lame::from_youngs_poisson(youngs, poisson, "m").unwrap().stable_neohookean();
    let eps = 1e-5;
    let lateral_stress = |d: f64| neohookean::stress(&Matrix3::from_diagonal(&Vec3::new(1.0 + eps, 1.0 + d, 1.0 + d)), &snh)[(1, 1)];
    // Bisection for the lateral strain that leaves the lateral faces traction-free.
    let (mut lo, mut hi) = (-eps, 0.0);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if lateral_stress(mid) > 0.0 {
            hi = mid
        } else {
            lo = mid
        }
    }
    let d = 0.5 * (lo + hi);
    let p = neohookean::stress(&Matrix3::from_diagonal(&Vec3::new(1.0 + eps, 1.0 + d, 1.0 + d)), &snh);
    let e_measured = p[(0, 0)] / eps;
    let nu_measured = -d / eps;
    println!("E {e_measured:.6e} (expected {youngs:.6e}), nu {nu_measured:.6} (expected {poisson})");
    assert!((e_measured / youngs - 1.0).abs() < 1e-4);
    assert!((nu_measured - poisson).abs() < 1e-4);
}
