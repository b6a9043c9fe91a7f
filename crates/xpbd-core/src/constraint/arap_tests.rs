//! The component rows' exact gradient against central finite differences of (F − R(F))_k, their
//! response to rigid rotations of a tet's vertices (against the fixed-R gradient), and the energy
//! gradient they keep.

use super::*;
use crate::constraint::tet::{deformation_gradient, node_gradients, TetRest};
use crate::mesh::Vec3;
use nalgebra::Rotation3;

fn random_matrix(rng: &mut fastrand::Rng, scale: f64) -> Matrix3<f64> {
    Matrix3::from_fn(|_, _| scale * (2.0 * rng.f64() - 1.0))
}

fn random_rotation(rng: &mut fastrand::Rng) -> Matrix3<f64> {
    Rotation3::from_scaled_axis(Vector3::from_fn(|_, _| 3.0 * (2.0 * rng.f64() - 1.0))).into_inner()
}

/// Deformation gradients: general, near a rotation, strongly stretched (each rotated on both sides).
fn test_gradients() -> Vec<(&'static str, Matrix3<f64>)> {
    let mut rng = fastrand::Rng::with_seed(7);
    let mut fs = vec![];
    for _ in 0..4 {
        fs.push(("random", Matrix3::identity() + random_matrix(&mut rng, 0.4)));
        fs.push(("near a rotation", random_rotation(&mut rng) * (Matrix3::identity() + random_matrix(&mut rng, 1e-3))));
        let stretch = Matrix3::from_diagonal(&Vector3::new(3.0, 0.7, 1.6));
        fs.push(("strongly stretched", random_rotation(&mut rng) * stretch * random_rotation(&mut rng)));
    }
    fs
}

#[test]
fn component_gradients_match_finite_differences_of_f_minus_r() {
    let eps = 1e-6;
    for (name, f) in test_gradients() {
        for k in 0..9 {
            let (c, g) = component(&f, k, true);
            assert!((c - (f - rotation(&f))[(k / 3, k % 3)]).abs() < 1e-14, "{name}: C_{k}");
            for (a, b) in (0..9).map(|e| (e / 3, e % 3)) {
                let (mut fp, mut fm) = (f, f);
                fp[(a, b)] += eps;
                fm[(a, b)] -= eps;
                let fd = (component(&fp, k, true).0 - component(&fm, k, true).0) / (2.0 * eps);
                assert!((g[(a, b)] - fd).abs() < 1e-7 * (1.0 + fd.abs()), "{name}: ∂C_{k}/∂F_{a}{b} = {} vs {fd}", g[(a, b)]);
            }
        }
    }
}

/// The directional derivative of the nine rows along `dx` of the tet's vertices (node gradients).
fn row_change(x: &[Vec3; 4], rest: &TetRest, dx: &[Vec3; 4], exact: bool) -> Matrix3<f64> {
    let f = deformation_gradient(x, &rest.dm_inv);
    Matrix3::from_fn(|r, c| {
        let g = node_gradients(&component(&f, 3 * r + c, exact).1, &rest.dm_inv);
        (0..4).map(|n| g[n].dot(&dx[n])).sum()
    })
}

#[test]
fn rigid_rotation_of_the_vertices_rotates_the_rows() {
    let rest_x = [Vec3::new(0.1, -0.05, 0.0), Vec3::new(1.0, 0.1, 0.05), Vec3::new(0.05, 0.9, -0.1), Vec3::new(0.0, 0.15, 1.1)];
    let rest = TetRest::new(&rest_x).unwrap();
    let turn = Rotation3::from_scaled_axis(Vec3::new(0.4, -1.2, 2.0));
    let theta = Vec3::new(0.3, 0.5, -0.2);
    let spin = |x: &[Vec3; 4]| x.map(|p| theta.cross(&p));
    // At a rotated rest state a rotation changes no row; the fixed-R gradient E_k would give [θ]× R.
    let x = rest_x.map(|p| turn * p + Vec3::new(1.0, 2.0, 3.0));
    let at_rest = row_change(&x, &rest, &spin(&x), true);
    assert!(at_rest.norm() < 1e-12, "rows change by {at_rest} under a rotation at rest");
    let held = row_change(&x, &rest, &spin(&x), false) - theta.cross_matrix() * turn.matrix();
    assert!(held.norm() < 1e-12, "fixed R: {held}");
    // Deformed: dF = [θ]× F, so d(F − R) = [θ]× (F − R), of the size of the strain, not of F.
    let mut x = x;
    x[3] += Vec3::new(0.3, -0.2, 0.25);
    let f = deformation_gradient(&x, &rest.dm_inv);
    let expected = theta.cross_matrix() * (f - rotation(&f));
    let change = row_change(&x, &rest, &spin(&x), true);
    assert!((change - expected).norm() < 1e-12 * (1.0 + expected.norm()) && expected.norm() > 0.05, "{change} vs {expected}");
    // Translations change nothing.
    let shift = row_change(&x, &rest, &[Vec3::new(0.2, -1.0, 0.5); 4], true);
    assert!(shift.norm() < 1e-12, "{shift}");
}

/// Σ_k C_k ∂C_k/∂F = F − R for every F, with the exact and the fixed-R gradient, also where pairs of
/// singular values sum below [`MIN_PAIR_SUM`] and the rotation about their axis is held fixed.
#[test]
fn component_rows_keep_the_energy_gradient() {
    let mut fs = test_gradients();
    fs.push(("compressed", Matrix3::from_diagonal(&Vector3::new(1.8, 0.5, 0.3)) * random_rotation(&mut fastrand::Rng::with_seed(3))));
    fs.push(("inverted", Matrix3::from_diagonal(&Vector3::new(1.1, 0.9, -0.4))));
    fs.push(("flat", Matrix3::from_diagonal(&Vector3::new(1.2, 0.8, 0.0))));
    for ((name, f), exact) in fs.into_iter().flat_map(|f| [(f, true), (f, false)]) {
        let d = f - rotation(&f);
        let sum: Matrix3<f64> = (0..9).map(|k| component(&f, k, exact)).map(|(c, g)| g * c).sum();
        assert!((sum - d).norm() < 1e-12 * (1.0 + d.norm()), "{name}, exact {exact}: Σ C_k ∇C_k = {sum} vs F − R = {d}");
        assert!(sum.iter().all(|v| v.is_finite()));
    }
}

/// R of the polar decomposition against Newton's iteration R ← (R + R⁻ᵀ)/2 (quadratically convergent, and
/// accurate to rounding), near rest (C = F − R small, nearly equal singular values: where nalgebra's SVD
/// missed R by up to 1e-11), near a rotation, stretched and random; and the reflection convention:
/// det R = +1 and σ₃ carries det F's sign.
#[test]
fn rotation_matches_the_newton_polar_iteration() {
    let newton = |f: &Matrix3<f64>| (0..60).fold(*f, |r, _| (r + r.try_inverse().unwrap().transpose()) * 0.5);
    let mut rng = fastrand::Rng::with_seed(11);
    let mut fs = test_gradients();
    for _ in 0..500 {
        fs.push(("near rest", Matrix3::identity() + random_matrix(&mut rng, 0.01)));
        fs.push(("equal stretches", random_rotation(&mut rng) * (Matrix3::identity() * 1.2 + random_matrix(&mut rng, 1e-7))));
    }
    for (name, f) in &fs {
        let (r, want) = (rotation(f), newton(f));
        assert!((r - want).norm() < 2e-15, "{name}: |R − R_newton| = {:e}", (r - want).norm());
        let p = Polar::new(f);
        assert!((r.determinant() - 1.0).abs() < 1e-14 && (p.u * Matrix3::from_diagonal(&p.sigma) * p.v.transpose() - f).norm() < 1e-14 * f.norm(), "{name}");
    }
    let inverted = Matrix3::from_diagonal(&Vector3::new(1.1, 0.9, -0.4)) * random_rotation(&mut rng);
    let p = Polar::new(&inverted);
    assert!(p.sigma[2] < 0.0 && p.sigma[0] >= p.sigma[1] && p.sigma[1] >= p.sigma[2].abs() && (p.rotation().determinant() - 1.0).abs() < 1e-14);
}
