use super::element::{element_forces, element_state, element_state_unprojected, shape_map, stiffness_product};
use super::energy::{project_psd, vec9, Energy, Mat9};
use crate::constraint::tet::{deformation_gradient, TetRest};
use crate::material::Lame;
use crate::mesh::Vec3;
use nalgebra::{DMatrix, Matrix3, Quaternion, SMatrix, SVector, SymmetricEigen, UnitQuaternion, Vector3};

const ALL: [Energy; 4] = [Energy::StVK, Energy::StableNeoHookean, Energy::Corotational, Energy::Arap];

/// Lamé parameters per model: stable neo-Hookean gets the reparametrised pair.
fn lame(energy: Energy) -> Lame {
    let lin = Lame { mu: 1.3, lambda: 2.1 };
    match energy {
        Energy::StableNeoHookean => lin.stable_neohookean(),
        _ => lin,
    }
}

fn rotation(rng: &mut fastrand::Rng) -> Matrix3<f64> {
    let q = Quaternion::new(rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5);
    UnitQuaternion::from_quaternion(q).to_rotation_matrix().into_inner()
}

fn near_identity(rng: &mut fastrand::Rng) -> Matrix3<f64> {
    Matrix3::identity() + Matrix3::from_fn(|_, _| 0.1 * (rng.f64() - 0.5))
}

/// Q₁ diag(σ) Q₂ᵀ with distinct singular values in [0.4, 2.2] (gaps ≥ 0.1), det > 0.
fn large(rng: &mut fastrand::Rng) -> Matrix3<f64> {
    let s0 = 0.4 + 0.4 * rng.f64();
    let s1 = s0 + 0.1 + 0.5 * rng.f64();
    let s2 = s1 + 0.1 + 0.5 * rng.f64();
    let mut sigma = [s0, s1, s2];
    rng.shuffle(&mut sigma);
    rotation(rng) * Matrix3::from_diagonal(&Vector3::from(sigma)) * rotation(rng).transpose()
}

/// Twenty samples: ten near the identity, ten large deformations.
fn samples(seed: u64) -> Vec<Matrix3<f64>> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..20).map(|i| if i < 10 { near_identity(&mut rng) } else { large(&mut rng) }).collect()
}

fn rel<const R: usize, const C: usize>(a: &SMatrix<f64, R, C>, b: &SMatrix<f64, R, C>) -> f64 {
    (a - b).norm() / b.norm().max(1e-12)
}

fn basis(k: usize) -> Matrix3<f64> {
    let mut e = Matrix3::zeros();
    e[(k % 3, k / 3)] = 1.0;
    e
}

fn min_eigenvalue<const N: usize>(h: &SMatrix<f64, N, N>) -> f64 {
    let d = DMatrix::from_column_slice(N, N, h.as_slice());
    SymmetricEigen::new((&d + d.transpose()) * 0.5).eigenvalues.min()
}

#[test]
fn stress_matches_energy_differences() {
    let eps = 1e-6;
    for energy in ALL {
        let l = lame(energy);
        for f in samples(1) {
            let fd = Matrix3::from_fn(|i, j| {
                let mut d = Matrix3::zeros();
                d[(i, j)] = eps;
                (energy.density(&(f + d), l) - energy.density(&(f - d), l)) / (2.0 * eps)
            });
            let p = energy.stress(&f, l);
            assert!(rel(&p, &fd) < 1e-6, "{energy:?}: P {p} vs differences {fd}");
        }
    }
}

#[test]
fn stress_derivative_matches_stress_differences() {
    let eps = 1e-6;
    for energy in ALL {
        let l = lame(energy);
        for f in samples(2) {
            let h = energy.stress_derivative(&f, l);
            let mut fd = Mat9::zeros();
            for k in 0..9 {
                let d = basis(k) * eps;
                fd.set_column(k, &vec9(&((energy.stress(&(f + d), l) - energy.stress(&(f - d), l)) / (2.0 * eps))));
            }
            assert!(rel(&h, &fd) < 1e-6, "{energy:?} at {f}: {}", rel(&h, &fd));
            assert!(rel(&h.transpose(), &h) < 1e-12, "{energy:?}: ∂P/∂F not symmetric");
        }
    }
}

#[test]
fn stable_neohookean_derivative_holds_through_inversion() {
    let mut rng = fastrand::Rng::with_seed(3);
    let l = lame(Energy::StableNeoHookean);
    let eps = 1e-6;
    for _ in 0..10 {
        let f = rotation(&mut rng) * Matrix3::from_diagonal(&Vector3::new(1.3, 0.8, -0.4)) * rotation(&mut rng);
        let h = Energy::StableNeoHookean.stress_derivative(&f, l);
        let mut fd = Mat9::zeros();
        for k in 0..9 {
            let d = basis(k) * eps;
            let s = Energy::StableNeoHookean;
            fd.set_column(k, &vec9(&((s.stress(&(f + d), l) - s.stress(&(f - d), l)) / (2.0 * eps))));
        }
        assert!(rel(&h, &fd) < 1e-6);
    }
}

/// C[3j + i, 3l + k] = ∂P_ij/∂F_kl = μ(δ_ik δ_jl + δ_il δ_jk) + λ δ_ij δ_kl.
fn linear_elasticity(l: Lame) -> Mat9 {
    let d = |a: usize, b: usize| if a == b { 1.0 } else { 0.0 };
    Mat9::from_fn(|p, q| {
        let (i, j, k, m) = (p % 3, p / 3, q % 3, q / 3);
        l.mu * (d(i, k) * d(j, m) + d(i, m) * d(j, k)) + l.lambda * d(i, j) * d(k, m)
    })
}

#[test]
fn linearisation_at_identity_is_linear_elasticity() {
    let lin = Lame { mu: 1.3, lambda: 2.1 };
    let id = Matrix3::identity();
    for energy in [Energy::StVK, Energy::Corotational] {
        assert!(rel(&energy.stress_derivative(&id, lin), &linear_elasticity(lin)) < 1e-12, "{energy:?}");
    }
    let arap = Energy::Arap.stress_derivative(&id, lin);
    assert!(rel(&arap, &linear_elasticity(Lame { lambda: 0.0, ..lin })) < 1e-12);
    // Stable neo-Hookean with λ_snh = λ + μ linearises to λ_lin = λ_snh − μ = λ.
    let snh = Energy::StableNeoHookean.stress_derivative(&id, lin.stable_neohookean());
    assert!(rel(&snh, &linear_elasticity(lin)) < 1e-12);
    // ... and not to the unreparametrised one.
    assert!(rel(&Energy::StableNeoHookean.stress_derivative(&id, lin), &linear_elasticity(lin)) > 1e-3);
}

#[test]
fn rest_and_rotations_are_stress_and_energy_free() {
    let mut rng = fastrand::Rng::with_seed(4);
    for energy in ALL {
        let l = lame(energy);
        for i in 0..10 {
            let r = if i == 0 { Matrix3::identity() } else { rotation(&mut rng) };
            assert!(energy.stress(&r, l).norm() < 1e-12, "{energy:?}: P(R) = {}", energy.stress(&r, l));
            assert!(energy.density(&r, l).abs() < 1e-12, "{energy:?}: ψ(R) = {}", energy.density(&r, l));
        }
    }
}

#[test]
fn energy_is_rotation_invariant() {
    let mut rng = fastrand::Rng::with_seed(5);
    for energy in ALL {
        let l = lame(energy);
        for f in samples(6) {
            let q = rotation(&mut rng);
            let (a, b) = (energy.density(&(q * f), l), energy.density(&f, l));
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{energy:?}: {a} vs {b}");
            // P(QF) = Q P(F).
            assert!((energy.stress(&(q * f), l) - q * energy.stress(&f, l)).norm() < 1e-10);
        }
    }
}

fn random_symmetric(rng: &mut fastrand::Rng) -> Mat9 {
    let a = Mat9::from_fn(|_, _| rng.f64() - 0.5);
    a + a.transpose()
}

#[test]
fn project_psd_clamps_negative_eigenvalues() {
    let mut rng = fastrand::Rng::with_seed(7);
    for _ in 0..20 {
        let h = random_symmetric(&mut rng);
        assert!(min_eigenvalue(&h) < -1e-3);
        let p = project_psd(&h);
        assert!(min_eigenvalue(&p) > -1e-12);
        // Nearest: the positive part keeps its eigenpairs, H − P is negative semi-definite.
        assert!(SymmetricEigen::new(h - p).eigenvalues.max() < 1e-12);
        assert!(rel(&p.transpose(), &p) < 1e-14);
    }
}

#[test]
fn project_psd_keeps_psd_input_and_is_idempotent() {
    let mut rng = fastrand::Rng::with_seed(8);
    for _ in 0..20 {
        let a = Mat9::from_fn(|_, _| rng.f64() - 0.5);
        let psd = a * a.transpose();
        assert_eq!(project_psd(&psd), (psd + psd.transpose()) * 0.5);
        let once = project_psd(&random_symmetric(&mut rng));
        assert!(rel(&project_psd(&once), &once) < 1e-13);
    }
}

#[test]
fn cheap_psd_test_is_sound_and_fires() {
    let mut rng = fastrand::Rng::with_seed(9);
    for energy in [Energy::Arap, Energy::Corotational] {
        let l = lame(energy);
        let (mut yes, mut no) = (0, 0);
        for i in 0..200 {
            // Stretched (PSD) and compressed (twist modes negative) states.
            let s = if i % 2 == 0 { 1.6 } else { 0.5 };
            let f = large(&mut rng) * s;
            let (_, _, h, psd) = energy.evaluate(&f, l);
            let exact_psd = min_eigenvalue(&h) >= -1e-10 * h.norm();
            if psd {
                yes += 1;
                assert!(exact_psd, "{energy:?}: claimed PSD at {f}, min eigenvalue {}", min_eigenvalue(&h));
            } else {
                no += 1;
            }
        }
        assert!(yes > 10 && no > 10, "{energy:?}: {yes} PSD, {no} not");
    }
}

fn rest_positions() -> [Vec3; 4] {
    [Vec3::new(0.1, -0.2, 0.0), Vec3::new(1.1, 0.1, 0.05), Vec3::new(0.2, 0.9, 0.1), Vec3::new(0.15, 0.3, 1.2)]
}

/// The rest positions under F (about node 0), translated and jittered.
fn deformed(f: &Matrix3<f64>, rng: &mut fastrand::Rng) -> [Vec3; 4] {
    let x = rest_positions();
    let t = Vec3::new(0.3, -1.0, 2.0);
    std::array::from_fn(|i| f * (x[i] - x[0]) + t + Vec3::from_fn(|_, _| 0.02 * (rng.f64() - 0.5)))
}

fn flat(x: &[Vec3; 4]) -> SVector<f64, 12> {
    SVector::from_fn(|i, _| x[i / 3][i % 3])
}

fn unflat(v: &SVector<f64, 12>) -> [Vec3; 4] {
    std::array::from_fn(|a| Vec3::new(v[3 * a], v[3 * a + 1], v[3 * a + 2]))
}

#[test]
fn shape_map_gives_deformation_gradient() {
    let rest = TetRest::new(&rest_positions()).unwrap();
    let mut rng = fastrand::Rng::with_seed(10);
    let x = deformed(&large(&mut rng), &mut rng);
    let f = deformation_gradient(&x, &rest.dm_inv);
    assert!((shape_map(&rest.dm_inv) * flat(&x) - vec9(&f)).norm() < 1e-12 * f.norm());
}

#[test]
fn element_force_is_minus_energy_gradient() {
    let rest = TetRest::new(&rest_positions()).unwrap();
    let mut rng = fastrand::Rng::with_seed(11);
    let eps = 1e-6;
    for energy in ALL {
        let l = lame(energy);
        for f in samples(12) {
            let x = flat(&deformed(&f, &mut rng));
            let e = |x: SVector<f64, 12>| element_state(energy, l, &rest, &unflat(&x)).energy;
            let fd = SVector::<f64, 12>::from_fn(|i, _| {
                let d = SVector::<f64, 12>::ith(i, eps);
                -(e(x + d) - e(x - d)) / (2.0 * eps)
            });
            let force = element_state(energy, l, &rest, &unflat(&x)).force;
            assert!(rel(&force, &fd) < 1e-6, "{energy:?}: {}", rel(&force, &fd));
        }
    }
}

/// The matrix-free pieces agree with the element state: the forces alone, and K·d by a central difference of
/// the stress against the exact unprojected stiffness times d.
#[test]
fn matrix_free_forces_and_stiffness_products_match_the_element_state() {
    let rest = TetRest::new(&rest_positions()).unwrap();
    let mut rng = fastrand::Rng::with_seed(17);
    for energy in ALL {
        let l = lame(energy);
        for f in samples(18) {
            let x = deformed(&f, &mut rng);
            let d: [Vec3; 4] = std::array::from_fn(|_| Vec3::new(rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5));
            let state = element_state_unprojected(energy, l, &rest, &x);
            let forces = flat(&element_forces(energy, l, &rest, &x));
            assert!(rel(&forces, &state.force) < 1e-12, "{energy:?}: forces {}", rel(&forces, &state.force));
            let product = flat(&stiffness_product(energy, l, &rest, &x, &d));
            let exact = state.stiffness * flat(&d);
            assert!(rel(&product, &exact) < 1e-6, "{energy:?}: K·d {}", rel(&product, &exact));
        }
    }
}

#[test]
fn element_stiffness_is_minus_force_derivative() {
    let rest = TetRest::new(&rest_positions()).unwrap();
    let mut rng = fastrand::Rng::with_seed(13);
    let eps = 1e-6;
    for energy in ALL {
        let l = lame(energy);
        for f in samples(14) {
            let x = flat(&deformed(&f, &mut rng));
            let force = |x: SVector<f64, 12>| element_state(energy, l, &rest, &unflat(&x)).force;
            let mut fd = SMatrix::<f64, 12, 12>::zeros();
            for i in 0..12 {
                let d = SVector::<f64, 12>::ith(i, eps);
                fd.set_column(i, &(-(force(x + d) - force(x - d)) / (2.0 * eps)));
            }
            let exact = element_state_unprojected(energy, l, &rest, &unflat(&x));
            assert!(rel(&exact.stiffness, &fd) < 1e-6, "{energy:?}: {}", rel(&exact.stiffness, &fd));
            // Where ∂P/∂F is PSD already, the projection changes nothing.
            let projected = element_state(energy, l, &rest, &unflat(&x));
            let h = energy.stress_derivative(&deformation_gradient(&unflat(&x), &rest.dm_inv), l);
            if min_eigenvalue(&h) > 1e-9 * h.norm() {
                assert!(rel(&projected.stiffness, &exact.stiffness) < 1e-12, "{energy:?}");
            }
            assert!(min_eigenvalue(&projected.stiffness) > -1e-10 * projected.stiffness.norm());
            assert_eq!(projected.force, exact.force);
        }
    }
}

#[test]
fn projection_is_used_under_compression() {
    let rest = TetRest::new(&rest_positions()).unwrap();
    let mut rng = fastrand::Rng::with_seed(15);
    for energy in ALL {
        let l = lame(energy);
        let x = deformed(&(Matrix3::from_diagonal(&Vector3::new(0.9, 0.7, 0.5)) * rotation(&mut rng)), &mut rng);
        let exact = element_state_unprojected(energy, l, &rest, &x).stiffness;
        let projected = element_state(energy, l, &rest, &x).stiffness;
        assert!(min_eigenvalue(&exact) < -1e-6 * exact.norm(), "{energy:?} convex here");
        assert!(projected.norm() > 1e-3 * exact.norm());
        assert!(min_eigenvalue(&projected) > -1e-10 * projected.norm(), "{energy:?}");
    }
}

#[test]
fn element_forces_balance_and_have_no_torque() {
    let rest = TetRest::new(&rest_positions()).unwrap();
    let mut rng = fastrand::Rng::with_seed(16);
    for energy in ALL {
        let l = lame(energy);
        for f in samples(17) {
            let x = deformed(&f, &mut rng);
            let force = unflat(&element_state(energy, l, &rest, &x).force);
            let scale: f64 = force.iter().map(|g| g.norm()).sum::<f64>() * x.iter().map(|p| p.norm()).fold(0.0, f64::max);
            let sum: Vec3 = force.iter().sum();
            let torque: Vec3 = x.iter().zip(&force).map(|(p, g)| p.cross(g)).sum();
            assert!(sum.norm() < 1e-12 * scale.max(1e-12), "{energy:?}: Σf = {sum}");
            assert!(torque.norm() < 1e-12 * scale.max(1e-12), "{energy:?}: Σx×f = {torque}");
        }
    }
}

#[test]
fn stiffness_has_rigid_null_space_at_rest() {
    let rest = TetRest::new(&rest_positions()).unwrap();
    let mut rng = fastrand::Rng::with_seed(18);
    for energy in ALL {
        let l = lame(energy);
        for i in 0..5 {
            let r = if i == 0 { Matrix3::identity() } else { rotation(&mut rng) };
            let x0 = rest_positions();
            let x: [Vec3; 4] = std::array::from_fn(|a| r * x0[a] + Vec3::new(1.0, 2.0, -0.5));
            let k = element_state(energy, l, &rest, &x).stiffness;
            let mut modes = Vec::new();
            for axis in 0..3 {
                let e = Vec3::ith(axis, 1.0);
                modes.push(flat(&[e; 4]));
                modes.push(flat(&std::array::from_fn(|a| e.cross(&x[a]))));
            }
            for m in modes {
                assert!((k * m).norm() < 1e-10 * k.norm() * m.norm(), "{energy:?}: ‖K m‖ = {}", (k * m).norm());
            }
            // The other six modes are stiff.
            let eig = SymmetricEigen::new(k).eigenvalues;
            assert_eq!(eig.iter().filter(|&&v| v > 1e-6 * k.norm()).count(), 6, "{energy:?}: {eig}");
        }
    }
}

#[test]
fn rotation_derivative_stays_finite_where_r_is_not_differentiable() {
    // σ₂ + σ₃ = 0: G = tr(S) I − S is singular, the pseudo-inverse holds that rotation fixed.
    let f = Matrix3::from_diagonal(&Vector3::new(1.2, 0.5, -0.5));
    for energy in [Energy::Corotational, Energy::Arap] {
        let h = energy.stress_derivative(&f, lame(energy));
        assert!(h.iter().all(|v| v.is_finite()), "{energy:?}: {h}");
        assert!(project_psd(&h).iter().all(|v| v.is_finite()));
    }
}
