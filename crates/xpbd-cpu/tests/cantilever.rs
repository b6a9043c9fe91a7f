//! Cantilever under gravity (ARCHITECTURE.md, "Cross-cutting concerns"): the settled XPBD tip deflection against a static
//! linear-elasticity FEM solve on the same tetrahedral mesh, both printed against Euler–Bernoulli.

mod common;

use common::{sim_header, Sim};
use nalgebra::{DMatrix, DVector, Matrix3, SMatrix};
use std::time::Instant;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::scene::schema::{Material, Solver};
use xpbd_core::scene::{BodyBuilder, Scene, SceneBuilder};

const L: f64 = 4.0;
const E: f64 = 5.0e7;
const NU: f64 = 0.45;
const RHO: f64 = 1000.0;
const G: f64 = 9.81;
/// Velocity damping (1/s), about twice the first bending frequency (≈ 12–14 rad/s): near critical.
const DAMPING: f64 = 25.0;

/// The clamped beam of `cells` at `substeps` × `iterations`.
fn beam(substeps: usize, iterations: usize, cells: [usize; 3]) -> SceneBuilder {
    let body = BodyBuilder::new("beam")
        .box_mesh([L, 1.0, 1.0], cells)
        .split(5)
        .material(Material::neohookean_block(E, NU, RHO))
        .pin_box([-0.01, -1.0, -1.0], [0.01, 2.0, 2.0]);
    sim_header(0.01, substeps, iterations, [0.0, -G, 0.0], DAMPING, "serial").body(body)
}

fn scene(substeps: usize, ordering: &str, precision: &str) -> Scene {
    beam(substeps, 1, [16, 4, 4]).solver(Solver { precision: precision.into(), ..Solver::xpbd(ordering) }).build()
}

/// Vertices on the free end x = L.
fn tip_vertices(model: &Model) -> Vec<usize> {
    (0..model.vertex_count()).filter(|&i| (model.rest[i].x - L).abs() < 1e-9).collect()
}

/// Static linear FEM on the model's own tets: K_e = V Bᵀ D B (linear tets), lumped gravity loads
/// ρ g V / 4 per node, pinned vertices (inverse mass 0) clamped. Returns the displacement per vertex.
#[allow(clippy::needless_range_loop)]
fn linear_fem(model: &Model) -> Vec<Vec3> {
    let n = model.vertex_count();
    let mut dof = vec![usize::MAX; n];
    let mut free = 0;
    for i in 0..n {
        if model.inv_mass[i] > 0.0 {
            dof[i] = free;
            free += 1;
        }
    }
    let (mu, lambda) = (E / (2.0 * (1.0 + NU)), E * NU / ((1.0 + NU) * (1.0 - 2.0 * NU)));
    let mut d = SMatrix::<f64, 6, 6>::zeros();
    for i in 0..3 {
        for j in 0..3 {
            d[(i, j)] = lambda;
        }
        d[(i, i)] = lambda + 2.0 * mu;
        d[(i + 3, i + 3)] = mu;
    }
    let mut k = DMatrix::<f64>::zeros(3 * free, 3 * free);
    let mut f = DVector::<f64>::zeros(3 * free);
    let tets: Vec<[u32; 4]> = model.tet_groups.iter().flat_map(|g| g.tets.iter().copied()).collect();
    for t in &tets {
        let p = t.map(|i| model.rest[i as usize]);
        let dm = Matrix3::from_columns(&[p[1] - p[0], p[2] - p[0], p[3] - p[0]]);
        let vol = dm.determinant() / 6.0;
        assert!(vol > 0.0);
        let dm_inv = dm.try_inverse().unwrap();
        // ∇N_a for a = 1..3 is row a−1 of D_m⁻¹; ∇N_0 = −Σ.
        let mut grad = [Vec3::zeros(); 4];
        for a in 1..4 {
            grad[a] = dm_inv.row(a - 1).transpose();
        }
        grad[0] = -(grad[1] + grad[2] + grad[3]);
        // Voigt strain [εxx, εyy, εzz, γxy, γyz, γzx].
        let mut b = SMatrix::<f64, 6, 12>::zeros();
        for a in 0..4 {
            let (bx, by, bz) = (grad[a].x, grad[a].y, grad[a].z);
            let c = 3 * a;
            b[(0, c)] = bx;
            b[(1, c + 1)] = by;
            b[(2, c + 2)] = bz;
            b[(3, c)] = by;
            b[(3, c + 1)] = bx;
            b[(4, c + 1)] = bz;
            b[(4, c + 2)] = by;
            b[(5, c)] = bz;
            b[(5, c + 2)] = bx;
        }
        let ke = b.transpose() * d * b * vol;
        for a in 0..4 {
            let da = dof[t[a] as usize];
            if da == usize::MAX {
                continue;
            }
            f[3 * da + 1] -= RHO * G * vol / 4.0;
            for bb in 0..4 {
                let db = dof[t[bb] as usize];
                if db == usize::MAX {
                    continue;
                }
                for i in 0..3 {
                    for j in 0..3 {
                        k[(3 * da + i, 3 * db + j)] += ke[(3 * a + i, 3 * bb + j)];
                    }
                }
            }
        }
    }
    let u = k.cholesky().expect("K is symmetric positive definite once clamped").solve(&f);
    (0..n).map(|i| if dof[i] == usize::MAX { Vec3::zeros() } else { Vec3::new(u[3 * dof[i]], u[3 * dof[i] + 1], u[3 * dof[i] + 2]) }).collect()
}

/// Runs the XPBD beam for `frames` frames of dt = 0.01.
fn xpbd_tip(substeps: usize, frames: usize, ordering: &str, precision: &str) -> (f64, f64, f64) {
    tip_after(&scene(substeps, ordering, precision), frames)
}

/// Runs the beam `scene` for `frames` frames; returns (mean tip deflection, max |v| at the end, seconds).
fn tip_after(scene: &Scene, frames: usize) -> (f64, f64, f64) {
    let mut sim = Sim::new(scene);
    let tip = tip_vertices(&sim.model);
    let start = Instant::now();
    sim.frames(frames);
    let secs = start.elapsed().as_secs_f64();
    let defl = tip.iter().map(|&i| sim.state.x[i].y - sim.model.rest[i].y).sum::<f64>() / tip.len() as f64;
    let vmax = sim.state.v.iter().map(|v| v.norm()).fold(0.0, f64::max);
    (defl, vmax, secs)
}

/// Euler–Bernoulli q L⁴ / (8 E I) for the 1 × 1 section.
fn euler_bernoulli() -> f64 {
    let (q, i) = (RHO * G * 1.0, 1.0 / 12.0);
    -q * L.powi(4) / (8.0 * E * i)
}

#[test]
fn cantilever_matches_linear_fem() {
    let model = Sim::new(&scene(200, "serial", "f64")).model;
    let tip = tip_vertices(&model);
    assert_eq!(tip.len(), 25);
    assert_eq!(model.inv_mass.iter().filter(|&&w| w == 0.0).count(), 25, "the x = 0 face is clamped");
    let t = Instant::now();
    let u = linear_fem(&model);
    let fem = tip.iter().map(|&i| u[i].y).sum::<f64>() / tip.len() as f64;
    let fem_secs = t.elapsed().as_secs_f64();

    // 200 substeps of h = 5e-5 s, one iteration each: see `cantilever_substep_convergence` (ignored,
    // slow) for the study behind this choice. 120 frames = 1.2 s ≈ 15 time constants of the damping.
    for (ordering, precision) in [("serial", "f64"), ("clustered", "f64"), ("clustered", "f32")] {
        let (xpbd, vmax, secs) = xpbd_tip(200, 120, ordering, precision);
        let eb = euler_bernoulli();
        println!("cantilever: E = {E:e}, ν = {NU}, 16×4×4 cells × 5 tets, velocity damping {DAMPING}/s, 200 substeps × 1 iteration, 120 frames");
        println!("  Euler–Bernoulli tip deflection {eb:.5} m ({:.2} % of L)", 100.0 * eb.abs() / L);
        println!("  linear FEM      tip deflection {fem:.5} m  (FEM / EB = {:.4}), solved in {fem_secs:.2} s", fem / eb);
        println!("  XPBD {ordering:10} {precision} tip deflection {xpbd:.5} m  (XPBD / EB = {:.4}), XPBD / FEM = {:.4}, in {secs:.1} s", xpbd / eb, xpbd / fem);
        println!("  max |v| at the end {vmax:.3e} m/s");
        // Settled: the remaining speed is below 0.1 % of (tip deflection × first bending frequency).
        let omega1 = 1.875f64.powi(2) / (L * L) * (E / 12.0 / RHO).sqrt();
        assert!(vmax < 1e-3 * fem.abs() * omega1, "not settled: max |v| = {vmax:e} m/s");
        assert!((xpbd / fem - 1.0).abs() <= 0.03, "XPBD ({ordering}, {precision}) tip deflection {xpbd} vs FEM {fem}: ratio {}", xpbd / fem);
    }
}

/// The substep study behind the choice of 200 substeps: XPBD with few substeps is artificially soft
/// (effective compliance α + h² ∇C M⁻¹ ∇Cᵀ), so the settled deflection grows with the substep count
/// until it converges. Run with `--ignored --nocapture`.
#[test]
#[ignore = "slow substep study (minutes); run on demand"]
fn cantilever_substep_convergence() {
    let fem = {
        let model = Sim::new(&scene(1, "serial", "f64")).model;
        let u = linear_fem(&model);
        let tip = tip_vertices(&model);
        tip.iter().map(|&i| u[i].y).sum::<f64>() / tip.len() as f64
    };
    for substeps in [25, 50, 100, 200, 400] {
        let (d, v, s) = xpbd_tip(substeps, 120, "serial", "f64");
        println!("substeps {substeps:4}: tip {d:.6} m, XPBD / FEM {:.5}, max |v| {v:.2e} m/s, {s:.1} s", d / fem);
    }
}

/// MGPBD solves each substep's implicit step to its tolerance, so it needs neither the 200 substeps
/// XPBD does here nor many iterations: 10 substeps (the stability estimate of the stable neo-Hookean
/// rows on this mesh asks for ≥ 5; with 1 substep the dropped geometric stiffness of those rows,
/// which are not zero at rest, makes the outer loop diverge), outer iterations to 1e-6 relative
/// residual (at most 20), linear solves to 1e-8. An 8×2×2-cell beam keeps the test fast; the FEM
/// reference is solved on the same mesh.
#[test]
fn mgpbd_cantilever_matches_linear_fem() {
    let scene = beam(10, 20, [8, 2, 2]).solver(Solver::mgpbd().tolerance(1e-6).pcg_tol(1e-8).pcg_max_iter(1000)).build();
    let Sim { model, config, .. } = Sim::new(&scene);
    assert!(config.method.mgpbd().is_some());
    let tip = tip_vertices(&model);
    assert_eq!(tip.len(), 9);
    let u = linear_fem(&model);
    let fem = tip.iter().map(|&i| u[i].y).sum::<f64>() / tip.len() as f64;
    let (mgpbd, vmax, secs) = tip_after(&scene, 120);
    println!("cantilever 8×2×2 cells: linear FEM tip {fem:.5} m; MGPBD {mgpbd:.5} m, MGPBD / FEM = {:.4}, max |v| {vmax:.2e} m/s, in {secs:.1} s", mgpbd / fem);
    let omega1 = 1.875f64.powi(2) / (L * L) * (E / 12.0 / RHO).sqrt();
    assert!(vmax < 1e-3 * fem.abs() * omega1, "not settled: max |v| = {vmax:e} m/s");
    assert!((mgpbd / fem - 1.0).abs() <= 0.03, "MGPBD tip deflection {mgpbd} vs FEM {fem}: ratio {}", mgpbd / fem);
}
