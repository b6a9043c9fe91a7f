use super::hinge::angle_hessian;
use super::*;
use crate::constraint::bending::dihedral_angle;
use crate::mesh::Vec3;
use nalgebra::{DMatrix, Matrix3, Quaternion, SMatrix, SVector, SymmetricEigen, UnitQuaternion};
use std::collections::HashMap;
use std::f64::consts::PI;

fn material(membrane: Membrane) -> ShellMaterial {
    ShellMaterial { membrane, bending: Bending::Hinge, youngs: 3.0, poisson: 0.3, thickness: 0.4 }
}

const MODELS: [Membrane; 2] = [Membrane::StVK, Membrane::NeoHookean];

fn rotation(rng: &mut fastrand::Rng) -> Matrix3<f64> {
    let q = Quaternion::new(rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5);
    UnitQuaternion::from_quaternion(q).to_rotation_matrix().into_inner()
}

fn point(rng: &mut fastrand::Rng, scale: f64) -> Vec3 {
    Vec3::new(rng.f64() - 0.5, rng.f64() - 0.5, rng.f64() - 0.5) * (2.0 * scale)
}

fn rigid<const N: usize>(x: &[Vec3; N], r: &Matrix3<f64>, t: &Vec3) -> [Vec3; N] {
    x.map(|p| r * p + t)
}

fn min_eigenvalue<const N: usize>(h: &SMatrix<f64, N, N>) -> f64 {
    let d = DMatrix::from_column_slice(N, N, h.as_slice());
    SymmetricEigen::new((&d + d.transpose()) * 0.5).eigenvalues.min()
}

fn min_side2<const N: usize>(x: &[Vec3; N]) -> f64 {
    (0..N).flat_map(|i| (i + 1..N).map(move |j| (i, j))).map(|(i, j)| (x[i] - x[j]).norm_squared()).fold(f64::INFINITY, f64::min)
}

/// A random triangle with area ≥ 0.15 × its longest side² (well shaped), in [−1, 1]³.
fn triangle(rng: &mut fastrand::Rng) -> [Vec3; 3] {
    loop {
        let x = [point(rng, 1.0), point(rng, 1.0), point(rng, 1.0)];
        let area = 0.5 * (x[1] - x[0]).cross(&(x[2] - x[0])).norm();
        let longest = (0..3).map(|i| (x[i] - x[(i + 1) % 3]).norm_squared()).fold(0.0, f64::max);
        if area > 0.15 * longest {
            return x;
        }
    }
}

/// Rest triangle and a deformed one: rest + perturbation of relative size `amp`, rotated and moved, with the
/// deformed area at least 0.3 × rest.
fn membrane_pair(rng: &mut fastrand::Rng, amp: f64) -> (TriangleRest, [Vec3; 3], [Vec3; 3]) {
    loop {
        let x0 = triangle(rng);
        let rest = TriangleRest::new(&x0).unwrap();
        let y = x0.map(|p| p + point(rng, amp));
        let y = rigid(&y, &rotation(rng), &point(rng, 2.0));
        let area = 0.5 * (y[1] - y[0]).cross(&(y[2] - y[0])).norm();
        if area > 0.3 * rest.area {
            return (rest, x0, y);
        }
    }
}

/// A hinge with edge (0,0,0)–(1,0,0), x2 above the edge and x3 turned about it by `opening` from the flat
/// position, each point perturbed by `jitter`, then rigidly moved.
fn hinge_points(rng: &mut fastrand::Rng, opening: f64, jitter: f64) -> [Vec3; 4] {
    let x = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.2 + 0.6 * rng.f64(), 0.6 + 0.6 * rng.f64(), 0.0), {
        let (s, r) = (0.2 + 0.6 * rng.f64(), 0.6 + 0.6 * rng.f64());
        Vec3::new(s, -r * opening.cos(), -r * opening.sin())
    }];
    let x = x.map(|p| p + point(rng, jitter));
    rigid(&x, &rotation(rng), &point(rng, 2.0))
}

fn flat<const N: usize, const D: usize>(x: &[Vec3; N]) -> SVector<f64, D> {
    SVector::from_fn(|i, _| x[i / 3][i % 3])
}

fn unflat<const N: usize, const D: usize>(v: &SVector<f64, D>) -> [Vec3; N] {
    std::array::from_fn(|a| Vec3::new(v[3 * a], v[3 * a + 1], v[3 * a + 2]))
}

/// (relative error of f vs −∂E/∂x, relative error of K vs −∂f/∂x), central differences with step h.
fn fd_errors<const N: usize, const D: usize>(x: &[Vec3; N], h: f64, eval: impl Fn(&[Vec3; N]) -> Stencil<D>) -> (f64, f64) {
    let s = eval(x);
    let v = flat::<N, D>(x);
    let mut f_fd = SVector::<f64, D>::zeros();
    let mut k_fd = SMatrix::<f64, D, D>::zeros();
    for i in 0..D {
        let mut vp = v;
        vp[i] += h;
        let mut vm = v;
        vm[i] -= h;
        let (sp, sm) = (eval(&unflat(&vp)), eval(&unflat(&vm)));
        f_fd[i] = -(sp.energy - sm.energy) / (2.0 * h);
        k_fd.set_column(i, &(-(sp.force - sm.force) / (2.0 * h)));
    }
    ((s.force - f_fd).norm() / s.force.norm().max(1e-300), (s.stiffness - k_fd).norm() / s.stiffness.norm().max(1e-300))
}

#[test]
fn membrane_forces_and_stiffness_match_finite_differences() {
    let mut rng = fastrand::Rng::with_seed(21);
    for model in MODELS {
        let m = material(model);
        let (mut worst_f, mut worst_k) = (0.0f64, 0.0f64);
        for _ in 0..30 {
            let (rest, _, y) = membrane_pair(&mut rng, 0.3);
            let (ef, ek) = fd_errors(&y, 1e-6, |x| membrane_state(&m, &rest, x, false));
            worst_f = worst_f.max(ef);
            worst_k = worst_k.max(ek);
        }
        println!("membrane {}: worst relative FD error of force {worst_f:.2e}, of stiffness {worst_k:.2e} (30 stencils)", model.name());
        assert!(worst_f < 1e-8 && worst_k < 1e-8, "{model:?}");
    }
}

#[test]
fn hinge_forces_and_stiffness_match_finite_differences() {
    let mut rng = fastrand::Rng::with_seed(22);
    let k = 0.7;
    // (label, opening of x3, rest opening, previous = the current raw angle (else θ̄)).
    let cases: [(&str, f64, f64); 5] =
        [("random", 0.0, 0.0), ("folded, θ → +π", PI - 0.02, 0.3), ("folded past π", PI + 0.05, 0.3), ("|θ − θ̄| large", 2.2, -1.0), ("bent rest", 0.8, 0.5)];
    for (label, opening, rest_opening) in cases {
        let (mut worst_f, mut worst_k, mut theta_seen, mut d_seen) = (0.0f64, 0.0f64, 0.0, 0.0);
        for _ in 0..20 {
            let jitter = if label == "random" { 0.4 } else { 0.01 };
            let opening = if label == "random" { 2.0 * rng.f64() - 1.0 } else { opening };
            let x_rest = hinge_points(&mut rng, rest_opening, 0.05);
            let rest = HingeRest::new(&x_rest).unwrap();
            let x = hinge_points(&mut rng, opening, jitter);
            if min_side2(&x) < 0.05 {
                continue;
            }
            // Continue the branch of the opening (folded past π: θ beyond ±π).
            let raw = dihedral_angle(&x);
            let sign = dihedral_angle(&hinge_points(&mut fastrand::Rng::with_seed(1), 0.1, 0.0)).signum();
            let previous = sign * opening;
            let theta = unwrap_angle(raw, previous);
            theta_seen = theta;
            d_seen = theta - rest.rest_angle;
            let (ef, ek) = fd_errors(&x, 1e-6, |y| hinge_state(k, &rest, y, previous, false));
            worst_f = worst_f.max(ef);
            worst_k = worst_k.max(ek);
        }
        println!("hinge {label} (last θ = {theta_seen:.4}, θ − θ̄ = {d_seen:.4}): worst relative FD error of force {worst_f:.2e}, stiffness {worst_k:.2e}");
        assert!(worst_f < 1e-8 && worst_k < 1e-8, "{label}");
    }
    // ∇²θ alone, against differences of bending()'s gradient.
    let mut worst = 0.0f64;
    for _ in 0..20 {
        let opening = 2.0 * rng.f64() - 1.0;
        let x = hinge_points(&mut rng, opening, 0.3);
        let h = 1e-6;
        let hess = angle_hessian(&x);
        let v = flat::<4, 12>(&x);
        let grad = |v: &SVector<f64, 12>| {
            let g = crate::constraint::bending::bending(&unflat(v), 0.0).1;
            flat::<4, 12>(&g)
        };
        let fd = SMatrix::<f64, 12, 12>::from_fn(|i, j| {
            let mut vp = v;
            vp[j] += h;
            let mut vm = v;
            vm[j] -= h;
            (grad(&vp)[i] - grad(&vm)[i]) / (2.0 * h)
        });
        worst = worst.max((hess - fd).norm() / hess.norm());
    }
    println!("∇²θ vs differences of Bridson's ∇θ: worst relative error {worst:.2e}");
    assert!(worst < 1e-8);
}

#[test]
fn rest_and_rigid_motion_are_force_free() {
    let mut rng = fastrand::Rng::with_seed(23);
    let mut worst_m = 0.0f64;
    let mut worst_strain = 0.0f64;
    for model in MODELS {
        let m = material(model);
        for _ in 0..20 {
            let x = triangle(&mut rng);
            let rest = TriangleRest::new(&x).unwrap();
            let scale_len = (x[1] - x[0]).norm();
            for y in [x, rigid(&x, &rotation(&mut rng), &point(&mut rng, 3.0))] {
                let s = membrane_state(&m, &rest, &y, false);
                // Force per unit of strain: ‖K‖ × length.
                let rel = s.force.norm() / (s.stiffness.norm() * scale_len);
                worst_m = worst_m.max(rel).max(s.energy.abs() / (s.stiffness.norm() * scale_len * scale_len));
                worst_strain = worst_strain.max(membrane_strain(&rest, &y).norm());
                let f = deformation_gradient(&rest, &y);
                worst_strain = worst_strain.max((f.transpose() * f - Matrix3::identity()).norm());
            }
        }
    }
    let mut worst_h = 0.0f64;
    for opening in [0.0, 0.7, -1.3, 2.5] {
        for _ in 0..10 {
            let x = hinge_points(&mut rng, opening, 0.1);
            let rest = HingeRest::new(&x).unwrap();
            for y in [x, rigid(&x, &rotation(&mut rng), &point(&mut rng, 3.0))] {
                let s = hinge_state(1.3, &rest, &y, rest.rest_angle, false);
                let g = flat::<4, 12>(&crate::constraint::bending::bending(&y, 0.0).1);
                // Force per radian of θ − θ̄: 2kw‖∇θ‖.
                worst_h = worst_h.max(s.force.norm() / (2.0 * 1.3 * rest.weight * g.norm()));
            }
        }
    }
    println!(
        "rest / rigid motion: membrane ‖f‖/(‖K‖L) and E/(‖K‖L²) ≤ {worst_m:.2e}, ‖E‖ and ‖FᵀF − I‖ ≤ {worst_strain:.2e}; hinge ‖f‖/(2kw‖∇θ‖) ≤ {worst_h:.2e}"
    );
    assert!(worst_m < 1e-12 && worst_strain < 1e-12 && worst_h < 1e-12);
}

#[test]
fn fold_through_180_degrees_is_continuous_when_unwrapped() {
    let k = 1.0;
    let rng_hinge = |opening: f64| hinge_points(&mut fastrand::Rng::with_seed(5), opening, 0.0);
    let sign = dihedral_angle(&rng_hinge(0.1)).signum();
    let rest = HingeRest::new(&rng_hinge(0.3)).unwrap();
    let steps = 600;
    let step = 1.2 * PI / steps as f64;
    let (mut previous, mut theta_prev) = (rest.rest_angle, sign * 0.0);
    let (mut e_chain, mut e_rest, mut e_raw) = (Vec::new(), Vec::new(), Vec::new());
    let (mut max_dtheta, mut max_dtheta_rest) = (0.0f64, 0.0f64);
    let mut theta_rest_prev = 0.0;
    for i in 0..=steps {
        let x = rng_hinge(i as f64 * step);
        let raw = dihedral_angle(&x);
        let s = hinge_state(k, &rest, &x, previous, false);
        let theta = unwrap_angle(raw, previous);
        let theta_rest = unwrap_angle(raw, rest.rest_angle);
        if i > 0 {
            max_dtheta = max_dtheta.max((theta - theta_prev).abs());
            max_dtheta_rest = max_dtheta_rest.max((theta_rest - theta_rest_prev).abs());
        }
        (theta_prev, theta_rest_prev, previous) = (theta, theta_rest, theta);
        e_chain.push(s.energy);
        e_rest.push(hinge_state(k, &rest, &x, rest.rest_angle, false).energy);
        e_raw.push(k * rest.weight * (raw - rest.rest_angle).powi(2));
    }
    let max_jump = |e: &[f64]| e.windows(2).map(|w| (w[1] - w[0]).abs()).fold(0.0, f64::max);
    let decreases = |e: &[f64]| e.windows(2).skip(steps / 4).filter(|w| w[1] < w[0]).count();
    // dE/dstep ≤ 2kw|θ − θ̄|·step ≤ 2kw(1.2π)·step: the largest smooth change per step.
    let smooth = 2.0 * k * rest.weight * 1.2 * PI * step;
    println!(
        "fold to 1.2π in {steps} steps of {step:.4} (θ̄ = {:.4}, final θ = {theta_prev:.4} = {:.3}π): max |Δθ| per step {max_dtheta:.4} \
         (previous = θ̄: {max_dtheta_rest:.4}); max |ΔE| per step: unwrapped {:.4}, previous = θ̄ {:.4}, raw atan2 {:.4} (smooth bound {smooth:.4}); \
         energy decreases while folding on: unwrapped {}, previous = θ̄ {}",
        rest.rest_angle,
        theta_prev / PI,
        max_jump(&e_chain),
        max_jump(&e_rest),
        max_jump(&e_raw),
        decreases(&e_chain),
        decreases(&e_rest)
    );
    assert!(max_dtheta < 1.5 * step && (theta_prev.abs() - 1.2 * PI).abs() < 1e-9);
    assert!(max_jump(&e_chain) < smooth && decreases(&e_chain) == 0);
    // Without the chain, θ jumps by ≈ 2π at the fold and the energy stops growing; raw atan2 energy jumps.
    assert!(max_dtheta_rest > 6.0 && decreases(&e_rest) > 0 && max_jump(&e_raw) > 10.0 * smooth);
}

/// A hinge of a grid: vertex ids and rest positions.
type GridHinge = ([usize; 4], [Vec3; 4]);

/// A regular grid of n × n unit-sheet squares split along (i, j)–(i+1, j+1), periodic in u and/or v (vertex
/// ids wrap). Returns the hinges as (vertex ids, rest positions from the flat sheet) and the vertices' flat
/// (u, v) in [0, 1)² (wrapped) or [0, 1]².
fn grid_hinges(n: usize, periodic_u: bool, periodic_v: bool) -> (Vec<GridHinge>, Vec<(f64, f64)>) {
    let a = 1.0 / n as f64;
    let (nu, nv) = (if periodic_u { n } else { n + 1 }, if periodic_v { n } else { n + 1 });
    let id = |i: usize, j: usize| (i % nu) + (j % nv) * nu;
    let pos = |i: usize, j: usize| Vec3::new(i as f64 * a, j as f64 * a, 0.0);
    let mut tris: Vec<[(usize, Vec3); 3]> = Vec::new();
    for j in 0..n {
        for i in 0..n {
            let c = |di: usize, dj: usize| (id(i + di, j + dj), pos(i + di, j + dj));
            tris.push([c(0, 0), c(1, 0), c(1, 1)]);
            tris.push([c(0, 0), c(1, 1), c(0, 1)]);
        }
    }
    let mut edges: HashMap<(usize, usize), Vec<(usize, usize)>> = HashMap::new();
    for (t, tri) in tris.iter().enumerate() {
        for k in 0..3 {
            let (p, q) = (tri[k].0, tri[(k + 1) % 3].0);
            edges.entry((p.min(q), p.max(q))).or_default().push((t, k));
        }
    }
    let mut hinges = Vec::new();
    for list in edges.values().filter(|l| l.len() == 2) {
        let ((ta, ka), (tb, kb)) = (list[0], list[1]);
        let (tri_a, tri_b) = (&tris[ta], &tris[tb]);
        let (p, q, r) = (tri_a[ka], tri_a[(ka + 1) % 3], tri_a[(ka + 2) % 3]);
        let (p_b, s) = (tri_b[(kb + 1) % 3], tri_b[(kb + 2) % 3]);
        assert_eq!(p_b.0, p.0);
        hinges.push(([p.0, q.0, r.0, s.0], [p.1, q.1, r.1, s.1 + (p.1 - p_b.1)]));
    }
    let uv = (0..nu * nv).map(|v| ((v % nu) as f64 * a, (v / nu) as f64 * a)).collect();
    (hinges, uv)
}

/// The flat point (u, v) bent isometrically onto a cylinder of radius r whose axis has in-plane direction
/// (cos α, sin α), through the sheet's centre.
fn cylinder(u: f64, v: f64, r: f64, alpha: f64) -> Vec3 {
    let (axis, dir) = (Vec3::new(alpha.cos(), alpha.sin(), 0.0), Vec3::new(-alpha.sin(), alpha.cos(), 0.0));
    let p = Vec3::new(u - 0.5, v - 0.5, 0.0);
    let (s, y) = (p.dot(&dir), p.dot(&axis));
    dir * (r * (s / r).sin()) + axis * y + Vec3::z() * (r * (1.0 - (s / r).cos()))
}

fn bending_energy(k: f64, hinges: &[GridHinge], deformed: &[Vec3]) -> f64 {
    hinges
        .iter()
        .map(|(ids, rest_x)| {
            let rest = HingeRest::new(rest_x).unwrap();
            hinge_state(k, &rest, &ids.map(|i| deformed[i]), rest.rest_angle, false).energy
        })
        .sum()
}

#[test]
fn cylinder_calibrates_hinge_stiffness() {
    let m = ShellMaterial { membrane: Membrane::StVK, bending: Bending::Hinge, youngs: 1e6, poisson: 0.3, thickness: 0.01 };
    let (k, d) = (m.hinge_stiffness(), m.plate_modulus());
    // Closed cylinder: the 1 m sheet wraps once around, R = 1/(2π), every edge is interior.
    let r = 1.0 / (2.0 * PI);
    let plate = 0.5 * d / (r * r);
    for n in [20, 40] {
        for (label, periodic_u, alpha) in [("axis ∥ y", true, PI / 2.0), ("axis ∥ x", false, 0.0)] {
            let (hinges, uv) = grid_hinges(n, periodic_u, !periodic_u);
            let x: Vec<Vec3> = uv.iter().map(|&(u, v)| cylinder(u, v, r, alpha)).collect();
            let e = bending_energy(k, &hinges, &x);
            println!("closed cylinder R = 1/2π, n = {n}, {label}: Σ k w θ² = {e:.6e}, D/2·κ²·A = {plate:.6e}, ratio {:.6}", e / plate);
            assert!((e / plate - 1.0).abs() < 0.02, "{label} n = {n}");
        }
    }
    // Open sheet, R = 1: the per-cell energy density in the interior (one edge of each of the three directions
    // per cell, Ā = a²/3 each), for axes along the grid lines and along the diagonals.
    let r = 1.0;
    for n in [20, 40] {
        let a = 1.0 / n as f64;
        let (hinges, uv) = grid_hinges(n, false, false);
        let mut open_totals = Vec::new();
        for (label, alpha) in [("axis ∥ y", PI / 2.0), ("axis ∥ x", 0.0), ("axis ∥ split diagonal", PI / 4.0), ("axis ∥ other diagonal", -PI / 4.0)] {
            let x: Vec<Vec3> = uv.iter().map(|&(u, v)| cylinder(u, v, r, alpha)).collect();
            // Per edge direction, the hinge nearest the sheet's centre.
            let mut best: [(f64, f64); 3] = [(f64::INFINITY, 0.0); 3];
            for (ids, rest_x) in &hinges {
                let e = rest_x[1] - rest_x[0];
                let kind = if e.x.abs() < 1e-12 {
                    0
                } else if e.y.abs() < 1e-12 {
                    1
                } else {
                    2
                };
                let mid = (rest_x[0] + rest_x[1]) * 0.5 - Vec3::new(0.5, 0.5, 0.0);
                let rest = HingeRest::new(rest_x).unwrap();
                let energy = hinge_state(k, &rest, &ids.map(|i| x[i]), 0.0, false).energy;
                if mid.norm() < best[kind].0 {
                    best[kind] = (mid.norm(), energy);
                }
            }
            let density = best.iter().map(|b| b.1).sum::<f64>() / (a * a);
            let plate = 0.5 * d / (r * r);
            let total = bending_energy(k, &hinges, &x);
            open_totals.push(total / plate);
            println!(
                "open sheet R = 1, n = {n}, {label}: interior density / (D/2·κ²) = {:.4} (vertical {:.3}, horizontal {:.3}, diagonal {:.3} of it); whole sheet Σ/(D/2·κ²·A) = {:.4}",
                density / plate,
                best[0].1 / (a * a) / density,
                best[1].1 / (a * a) / density,
                best[2].1 / (a * a) / density,
                total / plate
            );
            // Bending about the diagonal that does not split the squares: every square is twisted out of plane,
            // all three edge directions carry a third each and the density is 3× the plate's (documented in
            // the hinge module).
            if alpha == -PI / 4.0 {
                assert!((density / plate - 3.0).abs() < 0.02, "{label}");
            } else {
                assert!((density / plate - 1.0).abs() < 0.02, "{label}");
            }
            if alpha == 0.0 || alpha == PI / 2.0 {
                // The open sheet lacks one column of the carrying edges: 1 − 1/n.
                assert!((total / plate - (1.0 - 1.0 / n as f64)).abs() < 0.01, "{label}");
            }
        }
    }
}

/// The same density on an equilateral lattice of side a (one hinge of each of the three edge directions at the
/// centre, Ā = √3a²/6 each), for several axis directions: k = D/6 is exact there too, in every direction.
#[test]
fn cylinder_density_on_equilateral_lattice() {
    let m = ShellMaterial { membrane: Membrane::StVK, bending: Bending::Hinge, youngs: 1e6, poisson: 0.3, thickness: 0.01 };
    let (k, d, r) = (m.hinge_stiffness(), m.plate_modulus(), 1.0);
    let plate = 0.5 * d / (r * r);
    for n in [20.0, 40.0] {
        let a = 1.0 / n;
        let mut ratios = Vec::new();
        for alpha in [0.0, 0.3, PI / 4.0, PI / 2.0, 2.0] {
            let mut sum = 0.0;
            for dir in 0..3 {
                let phi = dir as f64 * PI / 3.0;
                let (t, nrm) = (Vec3::new(phi.cos(), phi.sin(), 0.0), Vec3::new(-phi.sin(), phi.cos(), 0.0));
                let c = Vec3::new(0.5, 0.5, 0.0);
                let rest_x = [c - t * (0.5 * a), c + t * (0.5 * a), c + nrm * (0.75f64.sqrt() * a), c - nrm * (0.75f64.sqrt() * a)];
                let rest = HingeRest::new(&rest_x).unwrap();
                let x = rest_x.map(|p| cylinder(p.x, p.y, r, alpha));
                sum += hinge_state(k, &rest, &x, 0.0, false).energy;
            }
            let area_per_edge = 3.0f64.sqrt() * a * a / 6.0;
            ratios.push(sum / (3.0 * area_per_edge) / plate);
        }
        println!("equilateral lattice n = {n}, R = 1, axis at 0, 0.3, π/4, π/2, 2.0 rad: density / (D/2·κ²) = {ratios:.4?}");
        assert!(ratios.iter().all(|q| (q - 1.0).abs() < 0.02));
    }
}

#[test]
fn membrane_uniform_stretch_matches_closed_form() {
    let x = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.3, 0.8, 0.0)];
    let rest = TriangleRest::new(&x).unwrap();
    let rot = rotation(&mut fastrand::Rng::with_seed(9));
    for model in MODELS {
        let m = material(model);
        let (mu, lambda) = m.plane_stress();
        for s in [1.2, 0.7, 1.05] {
            let y = rigid(&x.map(|p| Vec3::new(s * p.x, p.y, p.z)), &rot, &Vec3::new(0.1, -2.0, 0.5));
            let st = membrane_state(&m, &rest, &y, false);
            let e = 0.5 * (s * s - 1.0);
            let psi = match model {
                Membrane::StVK => mu * e * e + 0.5 * lambda * e * e,
                Membrane::NeoHookean => 0.5 * mu * (s * s - 1.0) - mu * s.ln() + 0.5 * lambda * s.ln().powi(2),
            };
            let expected = m.thickness * rest.area * psi;
            let strain = membrane_strain(&rest, &y);
            let mut e_expected = Matrix3::zeros();
            e_expected[(0, 0)] = e;
            let projected = membrane_state(&m, &rest, &y, true).stiffness;
            let (min_raw, min_proj) = (min_eigenvalue(&st.stiffness), min_eigenvalue(&projected));
            let norm = st.stiffness.norm();
            let change = (projected - st.stiffness).norm() / norm;
            println!(
                "{} stretch s = {s}: E = {:.12e}, t·A·ψ = {expected:.12e} (rel {:.1e}); ‖E_green − closed form‖ = {:.1e}; \
                 min eig of K {:.3e}, of projected {:.3e} (‖K‖ {norm:.3e}); projection changed K by {change:.1e}",
                model.name(),
                st.energy,
                (st.energy - expected).abs() / expected,
                (strain - e_expected).norm(),
                min_raw,
                min_proj
            );
            assert!((st.energy - expected).abs() < 1e-12 * expected && (strain - e_expected).norm() < 1e-12);
            assert!(min_proj > -1e-9 * norm);
            if min_raw > -1e-12 * norm {
                assert!(change < 1e-12, "a convex state's stiffness must come back unchanged");
            }
            if s < 1.0 {
                // Compression makes the membrane unstable out of plane: K has negative eigenvalues.
                assert!(min_raw < -1e-6 * norm && change > 1e-6);
            }
        }
    }
}

#[test]
fn projected_stiffness_is_positive_semidefinite() {
    let mut rng = fastrand::Rng::with_seed(31);
    let (mut worst_m, mut worst_raw_m) = (f64::INFINITY, f64::INFINITY);
    for model in MODELS {
        let m = material(model);
        for _ in 0..50 {
            let (rest, _, y) = membrane_pair(&mut rng, 0.5);
            let (raw, proj) = (membrane_state(&m, &rest, &y, false).stiffness, membrane_state(&m, &rest, &y, true).stiffness);
            worst_m = worst_m.min(min_eigenvalue(&proj) / proj.norm());
            worst_raw_m = worst_raw_m.min(min_eigenvalue(&raw) / raw.norm());
        }
    }
    let (mut worst_h, mut worst_raw_h) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..100 {
        let (rest_opening, opening) = (2.0 * rng.f64() - 1.0, 6.0 * rng.f64() - 3.0);
        let rest = HingeRest::new(&hinge_points(&mut rng, rest_opening, 0.2)).unwrap();
        let x = hinge_points(&mut rng, opening, 0.3);
        let (raw, proj) = (hinge_state(2.0, &rest, &x, rest.rest_angle, false).stiffness, hinge_state(2.0, &rest, &x, rest.rest_angle, true).stiffness);
        worst_h = worst_h.min(min_eigenvalue(&proj) / proj.norm());
        worst_raw_h = worst_raw_h.min(min_eigenvalue(&raw) / raw.norm());
    }
    println!(
        "min eigenvalue / ‖K‖: membrane projected {worst_m:.2e} (unprojected {worst_raw_m:.2e}), hinge projected {worst_h:.2e} (unprojected {worst_raw_h:.2e})"
    );
    assert!(worst_m > -1e-9 && worst_h > -1e-9 && worst_raw_m < 0.0 && worst_raw_h < 0.0);
}

#[test]
fn material_constants() {
    let m = ShellMaterial { membrane: Membrane::NeoHookean, bending: Bending::Hinge, youngs: 2.0e6, poisson: 0.25, thickness: 0.002 };
    let (mu, lambda) = m.plane_stress();
    assert!((mu - 0.8e6).abs() < 1e-6 && (lambda - 2.0e6 * 0.25 / (1.0 - 0.0625)).abs() < 1e-6);
    let d = 2.0e6 * 8e-9 / (12.0 * 0.9375);
    assert!((m.plate_modulus() - d).abs() < 1e-15 && (m.hinge_stiffness() - d / 6.0).abs() < 1e-15);
    for model in MODELS {
        assert_eq!(Membrane::from_name(model.name()), Some(model));
    }
    assert_eq!(Membrane::from_name("corotational"), None);
    assert!(TriangleRest::new(&[Vec3::zeros(), Vec3::x(), Vec3::x() * 2.0]).is_none());
    assert!(HingeRest::new(&[Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::x() * 0.5]).is_none());
}

/// A triangle (0, 1, 2) with a neighbour across each edge (far vertices 3, 4, 5), flat at rest, its far vertices
/// lifted by `lift` (a curved rest); the hinges in the order of the triangle's edges (edge i opposite vertex i).
fn plate_patch(rng: &mut fastrand::Rng, lift: f64) -> ([Vec3; 6], [[u32; 4]; 3]) {
    let x0 = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.1, 0.0), Vec3::new(0.3, 0.9, 0.0)];
    let mut x = [x0[0], x0[1], x0[2], Vec3::zeros(), Vec3::zeros(), Vec3::zeros()];
    let mut hinges = [[0u32; 4]; 3];
    for i in 0..3 {
        let (a, b) = ((i + 1) % 3, (i + 2) % 3);
        // The far vertex: the triangle's own vertex reflected through the edge, jittered and lifted.
        let mid = (x0[a] + x0[b]) * 0.5;
        x[3 + i] = mid * 2.0 - x0[i] + point(rng, 0.1) + Vec3::z() * lift;
        hinges[i] = [a as u32, b as u32, i as u32, 3 + i as u32];
    }
    (x, hinges)
}

fn plate_hinges(hinges: &[[u32; 4]; 3], rest: &[Vec3; 6], previous: &[Vec3; 6]) -> [Option<TriangleHinge>; 3] {
    hinges.map(|h| {
        let at = |x: &[Vec3; 6]| dihedral_angle(&h.map(|v| x[v as usize]));
        let rest_angle = at(rest);
        Some(TriangleHinge { vertices: h, rest_angle, previous: unwrap_angle(at(previous), rest_angle) })
    })
}

/// The shape-operator bending's forces and stiffness against central differences of its energy and forces,
/// on random deformations of flat and curved patches.
#[test]
fn shape_operator_forces_and_stiffness_match_finite_differences() {
    let mut rng = fastrand::Rng::with_seed(11);
    let m = ShellMaterial { membrane: Membrane::StVK, bending: Bending::ShapeOperator, youngs: 3.0, poisson: 0.3, thickness: 0.4 };
    let mut worst = (0.0f64, 0.0f64);
    for case in 0..12 {
        let (rest_x, hinges) = plate_patch(&mut rng, if case % 2 == 0 { 0.0 } else { 0.3 });
        let rest = ShapeOperatorRest::new(&m, &[rest_x[0], rest_x[1], rest_x[2]]);
        let x = rigid(&rest_x.map(|p| p + point(&mut rng, 0.25)), &rotation(&mut rng), &point(&mut rng, 1.0));
        let th = plate_hinges(&hinges, &rest_x, &x);
        let (ef, ek) = fd_errors::<6, 18>(&x, 1e-6, |y| shape_operator_state(&rest, &[0, 1, 2], &th, y, false));
        worst = (worst.0.max(ef), worst.1.max(ek));
    }
    println!("shape operator: worst relative FD error, force {:.1e}, stiffness {:.1e}", worst.0, worst.1);
    assert!(worst.0 < 1e-7 && worst.1 < 1e-7, "{worst:?}");
}

/// Zero force at rest and after a rigid motion of a curved rest patch; the projected stiffness is PSD.
#[test]
fn shape_operator_is_force_free_under_rigid_motion() {
    let mut rng = fastrand::Rng::with_seed(5);
    let m = ShellMaterial { membrane: Membrane::StVK, bending: Bending::ShapeOperator, youngs: 2e6, poisson: 0.3, thickness: 0.01 };
    for _ in 0..8 {
        let (rest_x, hinges) = plate_patch(&mut rng, 0.2);
        let rest = ShapeOperatorRest::new(&m, &[rest_x[0], rest_x[1], rest_x[2]]);
        let x = rigid(&rest_x, &rotation(&mut rng), &point(&mut rng, 1.0));
        let th = plate_hinges(&hinges, &rest_x, &x);
        let s = shape_operator_state(&rest, &[0, 1, 2], &th, &x, false);
        let scale = rest.q.norm();
        assert!(s.force.norm() < 1e-12 * scale && s.energy.abs() < 1e-20 * scale, "force {} energy {}", s.force.norm(), s.energy);
        let y = x.map(|p| p + point(&mut rng, 0.3));
        let th = plate_hinges(&hinges, &rest_x, &y);
        let k = shape_operator_state(&rest, &[0, 1, 2], &th, &y, true).stiffness;
        assert!(min_eigenvalue(&k) > -1e-9 * k.norm(), "{}", min_eigenvalue(&k));
    }
}

/// The energy density of a bent grid's interior over the plate's D/2·[(1 − ν)‖S‖² + ν tr² S]: a cylinder about each
/// grid direction and about both diagonals, and a saddle, at ν = 0 and 0.3. Every one is 1 within 1 %, where the
/// hinge energy gives 3 about one diagonal and nothing like the plate on the saddle.
#[test]
fn shape_operator_calibrates_on_cylinders_and_saddles() {
    let n = 40;
    let a = 1.0 / n as f64;
    let id = |i: usize, j: usize| (i + (n + 1) * j) as u32;
    let rest: Vec<Vec3> = (0..=n).flat_map(|j| (0..=n).map(move |i| Vec3::new(i as f64 * a - 0.5, j as f64 * a - 0.5, 0.0))).collect();
    let tris: Vec<[u32; 3]> =
        (0..n).flat_map(|j| (0..n).flat_map(move |i| [[id(i, j), id(i + 1, j), id(i + 1, j + 1)], [id(i, j), id(i + 1, j + 1), id(i, j + 1)]])).collect();
    let (_, hinges) = crate::scene::cloth_topology::edges_and_hinges(&tris);
    let by_edge: HashMap<[u32; 2], [u32; 4]> = hinges.iter().map(|h| ([h[0].min(h[1]), h[0].max(h[1])], *h)).collect();
    // Curvature tensors (κ_xx, κ_yy, κ_xy) and the surfaces z = ½(κ_xx x² + κ_yy y²) + κ_xy x y, small enough that
    // the angles are linear in them.
    let c = 0.02;
    let shapes: [(&str, [f64; 3]); 5] = [
        ("cylinder ∥ y", [c, 0.0, 0.0]),
        ("cylinder ∥ x", [0.0, c, 0.0]),
        ("cylinder ∥ diagonal", [c / 2.0, c / 2.0, -c / 2.0]),
        ("cylinder ∥ other diagonal", [c / 2.0, c / 2.0, c / 2.0]),
        ("saddle", [c, -c, 0.0]),
    ];
    for nu in [0.0, 0.3] {
        let m = ShellMaterial { membrane: Membrane::StVK, bending: Bending::ShapeOperator, youngs: 1e6, poisson: nu, thickness: 0.01 };
        let d = m.plate_modulus();
        for (name, [kxx, kyy, kxy]) in shapes {
            let x: Vec<Vec3> = rest.iter().map(|p| Vec3::new(p.x, p.y, 0.5 * (kxx * p.x * p.x + kyy * p.y * p.y) + kxy * p.x * p.y)).collect();
            let (mut energy, mut area) = (0.0, 0.0);
            for t in &tris {
                let th: [Option<TriangleHinge>; 3] = std::array::from_fn(|i| {
                    let (p, q) = (t[(i + 1) % 3], t[(i + 2) % 3]);
                    by_edge.get(&[p.min(q), p.max(q)]).map(|&h| TriangleHinge { vertices: h, rest_angle: 0.0, previous: 0.0 })
                });
                if th.iter().any(Option::is_none) {
                    continue;
                }
                let tr = [rest[t[0] as usize], rest[t[1] as usize], rest[t[2] as usize]];
                energy += shape_operator_state(&ShapeOperatorRest::new(&m, &tr), t, &th, &x, false).energy;
                area += 0.5 * (tr[1] - tr[0]).cross(&(tr[2] - tr[0])).norm();
            }
            let (trace, norm2) = (kxx + kyy, kxx * kxx + kyy * kyy + 2.0 * kxy * kxy);
            let plate = 0.5 * d * ((1.0 - nu) * norm2 + nu * trace * trace);
            let ratio = energy / area / plate;
            println!("ν = {nu}, {name}: interior energy density / plate {ratio:.4}");
            assert!((ratio - 1.0).abs() < 0.01, "ν = {nu}, {name}: {ratio}");
        }
    }
}
