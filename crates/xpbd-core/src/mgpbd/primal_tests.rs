//! The primal solve (`primal.rs`, `primal_solve.rs`) against the direct solve of A, and the
//! smoothed prolongator on K against the rigid-body modes.

use super::assembly::Pattern;
use super::primal::PINNED;
use super::primal_solve::PrimalSolver;
use super::rows::Rows;
use super::tests::{model, perturbed, rows_of};
use super::{alpha_tilde, assemble};
use crate::amg::aggregation::standard_aggregation;
use crate::amg::blocks::{block_strength, rigid_body_modes, unknown_aggregates};
use crate::amg::prolongation::tentative;
use crate::amg::smoothing::smooth_prolongator;
use crate::amg::AmgOptions;
use crate::linear::direct::Direct;
use crate::linear::{LinearSolver, Setup};
use crate::mesh::Vec3;
use crate::scene::schema::{Material, Solver};
use crate::scene::{BodyBuilder, Built, SceneBuilder};
use crate::sparse::{norm, spmv, Csr};

/// A pinned box of `cells` with a `model` of Young's modulus `youngs` (ν = 0.3, ρ = 1000 kg/m³), with
/// cone ARAP rows (the default `auto` would pick the components for the primal solve).
fn box_model(cells: [usize; 3], model_name: &str, youngs: f64) -> Built {
    let body = BodyBuilder::new("b")
        .box_mesh([2.0, 0.5, 0.5], cells)
        .material(Material::tet(model_name, youngs, 0.3, 1000.0))
        .pin_box([-0.1, -0.1, -0.1], [0.1, 0.6, 0.6]);
    model(Solver::mgpbd().arap_rows("cone"), [body])
}

fn cloth_model() -> Built {
    model(Solver::mgpbd(), [BodyBuilder::new("c").grid2d([1.0, 1.0], [8, 8]).material(Material::cloth(0.2, 1e-7, 1e-3)).pin_indices(&[0, 8])])
}

/// Rows, positions, gradients and `A`, `b` of a model at perturbed positions with nonzero λ.
fn system(b: &Built) -> (Rows, Vec<Vec3>, Vec<[Vec3; 4]>, Csr, Vec<f64>) {
    let (m, rows, h) = (&b.model, rows_of(b), b.config.h());
    let x = perturbed(m);
    let lambda: Vec<f64> = (0..rows.len()).map(|i| 1e-6 * (i as f64).cos()).collect();
    let (a, b) = assemble(m, &rows, &Pattern::new(&rows, &m.inv_mass), &x, &lambda, h);
    let grads = (0..rows.len()).map(|i| rows.evaluate(m, i, &x).1).collect();
    (rows, x, grads, a, b)
}

fn primal_solver(b: &Built, rows: &Rows, x: &[Vec3], grads: &[[Vec3; 4]]) -> PrimalSolver {
    let m = &b.model;
    let mut s = PrimalSolver::new(&rows.vertices, &m.inv_mass, AmgOptions { max_coarse: 30, ..Default::default() });
    s.set_alpha_tilde(&alpha_tilde(rows, b.config.h()));
    s.fill(grads, &m.inv_mass);
    s.setup(x, Setup::Full);
    s
}

/// ‖b − A x‖ / ‖b‖.
fn dual_residual(a: &Csr, b: &[f64], x: &[f64]) -> f64 {
    let mut ax = vec![0.0; b.len()];
    spmv(a, x, &mut ax);
    norm(&ax.iter().zip(b).map(|(p, q)| p - q).collect::<Vec<_>>()) / norm(b)
}

/// Δλ from K (SA-PCG to a dual tolerance of 1e-11) equals the sparse Cholesky solve of A to 1e-8
/// relative, on ARAP (soft and μ ≈ 3.8e8), neo-Hookean and cloth (edges and hinges) with pinned
/// vertices; the reported residual is the true dual residual, and the stiff hierarchies have several levels.
#[test]
fn primal_solve_matches_direct_solve_of_the_dual_system() {
    let models = [
        ("arap", box_model([8, 2, 2], "arap", 1e5)),
        ("arap stiff", box_model([8, 2, 2], "arap", 1e9)),
        ("neohookean", box_model([8, 2, 2], "neohookean", 1e6)),
        ("cloth", cloth_model()),
    ];
    for (name, m) in models {
        let (rows, x, grads, a, b) = system(&m);
        let mut direct = Direct::default();
        direct.setup(&a, Setup::Full);
        let mut want = vec![0.0; b.len()];
        direct.solve(&a, &b, &mut want, 0.0, 1);
        let mut s = primal_solver(&m, &rows, &x, &grads);
        // The soft box's K is mass-dominated (no strong connections): one level, CG alone.
        assert!(name == "arap" || s.info().levels >= 2, "{name}: {:?}", s.info());
        let mut got = vec![0.0; b.len()];
        // The stopping test reads the true dual residual (to 1 %) at an outer-loop tolerance …
        let st = s.solve(&grads, &m.model.inv_mass, &b, &mut got, 1e-6, 300);
        let true_residual = dual_residual(&a, &b, &got);
        assert!(st.converged && (true_residual - st.relative_residual).abs() < 0.01 * true_residual + 1e-14, "{name}: true {true_residual:e} vs {st:?}");
        // … and to 1e-11 the solution is the direct one (there, rounding in Δλ = α̃⁻¹(b − J y),
        // where b and J y nearly cancel, puts the true residual up to a few times above CG's own).
        let st = s.solve(&grads, &m.model.inv_mass, &b, &mut got, 1e-11, 300);
        let true_residual = dual_residual(&a, &b, &got);
        assert!(st.converged && true_residual < 1e-10, "{name}: true {true_residual:e} vs {st:?}");
        let diff = norm(&got.iter().zip(&want).map(|(p, q)| p - q).collect::<Vec<_>>()) / norm(&want);
        assert!(diff < 1e-8, "{name}: |Δλ − Δλ_direct| / |Δλ_direct| = {diff:e} after {st:?}");
    }
}

/// On K of a stiff pinned ARAP box, rows are rotation invariant, so the stiffness part annihilates
/// the rigid-body modes B and K B = M B on vertices away from the pins. The tentative P reproduces
/// B exactly; the smoothed P = (I − ω D⁻¹ K) P_tent reproduces it up to ω D⁻¹ M B, so K (P B_c)
/// stays as small as K B there, while K applied to a smoothed coarse basis function of the same
/// size (not a rigid motion) is of the stiffness' size. Their ratio is mass / stiffness: below 0.1
/// at youngs 1e9 and 100× smaller at youngs 1e11 (asserted: below 1/20 of it).
#[test]
fn smoothed_prolongator_keeps_the_rigid_modes() {
    let r9 = rigid_to_elastic_ratio(1e9);
    let r11 = rigid_to_elastic_ratio(1e11);
    assert!(r9 < 0.1 && r11 < 0.05 * r9, "|K P Bc| / |K P e|: {r9:e} at youngs 1e9, {r11:e} at 1e11");
}

/// The largest over the six modes of |K P B_c| / |K P e| on the interior (see above).
fn rigid_to_elastic_ratio(youngs: f64) -> f64 {
    let m = box_model([12, 3, 3], "arap", youngs);
    let (rows, x, grads, ..) = system(&m);
    let s = primal_solver(&m, &rows, &x, &grads);
    let (k, pattern) = (&s.k, &s.pattern);
    let nf = pattern.free_count();
    let node_start: Vec<usize> = (0..=nf).map(|u| 3 * u).collect();
    let b = rigid_body_modes(&pattern.free_positions(&x));
    let agg = unknown_aggregates(&standard_aggregation(&block_strength(k, &node_start, 0.1)), &node_start);
    let t = tentative(&agg, &b, 6);
    let p = smooth_prolongator(k, &t.p, crate::amg::smoothers::Relaxation::new(k, crate::amg::Smoother::Jacobi).rho);
    assert!(p.nnz() > 2 * t.p.nnz(), "smoothing widens P: {} vs {}", p.nnz(), t.p.nnz());
    // Interior: free vertices two blocks away from any row that touches a pinned vertex (P B_c − B
    // = −ω D⁻¹ K B is large next to the pins, where the stiffness does not annihilate B).
    let near_pin: Vec<bool> = (0..nf)
        .map(|u| {
            pattern.vertex_rows[pattern.vertex_start[u]..pattern.vertex_start[u + 1]]
                .iter()
                .any(|&(r, _)| rows.vertices[r as usize].iter().any(|&v| pattern.free_index[v as usize] == PINNED))
        })
        .collect();
    let neighbours = |u: usize| pattern.block_col[pattern.block_start[u]..pattern.block_start[u + 1]].iter().map(|&v| v as usize);
    let interior: Vec<usize> = (0..nf).filter(|&u| neighbours(u).all(|v| neighbours(v).all(|w| !near_pin[w]))).collect();
    assert!(interior.len() > nf / 2, "{} of {nf}", interior.len());
    let (n, nc) = (3 * nf, p.cols());
    let on_interior = |v: &[f64]| norm(&interior.iter().flat_map(|&u| v[3 * u..3 * u + 3].to_vec()).collect::<Vec<_>>());
    let k_times = |v: &[f64]| {
        let mut kv = vec![0.0; n];
        spmv(k, v, &mut kv);
        kv
    };
    let (mut pb, mut tb) = (vec![0.0; n], vec![0.0; n]);
    let mut worst = 0.0f64;
    for c in 0..6 {
        let (bc, col) = (&t.coarse_b[c * nc..(c + 1) * nc], &b[c * n..(c + 1) * n]);
        spmv(&t.p, bc, &mut tb);
        spmv(&p, bc, &mut pb);
        let exact = tb.iter().zip(col).map(|(p, q)| (p - q).abs()).fold(0.0, f64::max);
        assert!(exact < 1e-10, "mode {c}: tentative |P Bc − B| = {exact:e}");
        let (kb, kpb) = (on_interior(&k_times(col)), on_interior(&k_times(&pb)));
        // A smoothed coarse basis function of the same norm, which is not a rigid motion.
        let mut e = vec![0.0; nc];
        e[nc / 2] = 1.0;
        let mut pe = vec![0.0; n];
        spmv(&p, &e, &mut pe);
        let scale = norm(&pb) / norm(&pe);
        let kpe = on_interior(&k_times(&pe)) * scale;
        assert!(kpb < 3.0 * kb, "mode {c}: |K P Bc| = {kpb:e} vs |K B| = {kb:e}");
        worst = worst.max(kpb / kpe);
    }
    worst
}

/// A hard row (compliance 0) has no primal form: `primal-amg` rejects it naming the body.
#[test]
fn primal_solver_rejects_zero_compliance() {
    let sheet = BodyBuilder::new("sheet").grid2d([1.0, 1.0], [2, 2]).material(Material::cloth(0.2, 0.0, 1e-3));
    let err =
        SceneBuilder::new("t").solver(Solver::mgpbd().linear_solver("primal-amg")).body(sheet).built(std::path::Path::new(".")).err().unwrap().to_string();
    assert!(err.contains("body 'sheet'") && err.contains("primal-amg"), "{err}");
}

/// `smoothed_levels`: the prolongators of that many finest levels are smoothed (wider than one block
/// row per unknown), the coarser ones tentative (at most k = 6 entries per row); each variant's V-cycle
/// still preconditions CG on K to the direct solve of the dual system.
#[test]
fn smoothed_levels_pick_which_prolongators_are_smoothed() {
    let m = box_model([12, 3, 3], "arap", 1e9);
    let (rows, x, grads, a, b) = system(&m);
    let mut direct = Direct::default();
    direct.setup(&a, Setup::Full);
    let mut want = vec![0.0; b.len()];
    direct.solve(&a, &b, &mut want, 0.0, 1);
    let widest_row = |p: &Csr| p.outer_iterator().map(|r| r.nnz()).max().unwrap_or(0);
    for smoothed in [0, 1, usize::MAX] {
        let options = AmgOptions { max_coarse: 30, smoothed_levels: smoothed, ..Default::default() };
        let mut s = PrimalSolver::new(&rows.vertices, &m.model.inv_mass, options.clone());
        s.set_alpha_tilde(&alpha_tilde(&rows, m.config.h()));
        s.fill(&grads, &m.model.inv_mass);
        s.setup(&x, Setup::Full);
        let nf = s.pattern.free_count();
        let h = crate::amg::hierarchy::Hierarchy::smoothed_aggregation(
            &s.k,
            &options,
            (0..=nf).map(|u| 3 * u).collect(),
            rigid_body_modes(&s.pattern.free_positions(&x)),
            6,
        );
        assert!(h.levels.len() >= 2, "{smoothed}: {} levels", h.levels.len());
        for (l, level) in h.levels.iter().enumerate() {
            let w = widest_row(&level.p);
            assert_eq!(w > 6, l < smoothed, "smoothed_levels {smoothed}, level {l}: widest row of P has {w} entries");
        }
        let mut got = vec![0.0; b.len()];
        let st = s.solve(&grads, &m.model.inv_mass, &b, &mut got, 1e-11, 300);
        let diff = norm(&got.iter().zip(&want).map(|(p, q)| p - q).collect::<Vec<_>>()) / norm(&want);
        assert!(st.converged && diff < 1e-8, "smoothed_levels {smoothed}: |Δλ − Δλ_direct| / |Δλ_direct| = {diff:e} after {st:?}");
    }
}

/// The dual residual ‖J W y‖ of the solve's stopping test, over rows in chunks (1440 component rows of a box
/// with pinned vertices: three chunks), equals the row-by-row sum of the squared row products to round-off, and
/// is the same on one and on two threads.
#[test]
fn dual_residual_sums_every_row_on_any_thread_count() {
    let m = box_model([8, 2, 2], "arap", 1e6);
    let rows = Rows::new(&m.model, crate::mgpbd::rows::ArapShape { components: true, exact_rotation: true }).unwrap();
    let x = perturbed(&m.model);
    let grads: Vec<[Vec3; 4]> = (0..rows.len()).map(|i| rows.evaluate(&m.model, i, &x).1).collect();
    assert!(rows.len() > 1024, "{} rows", rows.len());
    let s = PrimalSolver::new(&rows.vertices, &m.model.inv_mass, AmgOptions::default());
    let p = &s.pattern;
    assert!(p.row_free.iter().flatten().any(|&u| u == PINNED));
    let w: Vec<f64> = p.free_vertices.iter().map(|&v| m.model.inv_mass[v as usize]).collect();
    let y: Vec<f64> = (0..3 * p.free_count()).map(|i| (0.37 * i as f64).sin()).collect();
    let want = (0..rows.len()).map(|r| p.row_product(r, &grads, |u| w[u], &y).powi(2)).sum::<f64>().sqrt();
    let dual = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| p.dual_residual(&grads, &w, &y, &mut Vec::new()))
    };
    let got = dual(1);
    assert!((got - want).abs() <= 1e-13 * want, "{got} vs {want}");
    assert_eq!(got.to_bits(), dual(2).to_bits());
}
