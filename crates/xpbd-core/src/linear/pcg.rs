//! Preconditioned conjugate gradients (Saad, *Iterative Methods*, Alg. 9.1) with a symmetric
//! preconditioner: one AMG V-cycle (MGPBD, the MGPBD paper §4.2) or the Jacobi diagonal.

use super::{LinearSolver, Setup, SetupInfo, SolveStats};
use crate::amg::{AmgOptions, Hierarchy};
use crate::sparse::incomplete_cholesky::IncompleteCholesky;
use crate::sparse::{diagonal, dot, norm, spmv, Csr};

/// `z ≈ A⁻¹ r`, symmetric positive definite as an operator.
pub trait Preconditioner: Send {
    fn setup(&mut self, a: &Csr, setup: Setup);
    fn apply(&mut self, a: &Csr, r: &[f64], z: &mut [f64]);
    fn info(&self) -> SetupInfo {
        SetupInfo::default()
    }
    /// `y = A x` for the Krylov iteration, through whatever this preconditioner's setup keeps of A.
    fn product(&self, a: &Csr, x: &[f64], y: &mut [f64]) {
        spmv(a, x, y)
    }
}

/// One V-cycle from a zero start.
pub struct AmgPreconditioner {
    options: AmgOptions,
    hierarchy: Option<Hierarchy>,
    info: SetupInfo,
    /// For smoothed aggregation of a block system: the unknowns of each node and the near kernel.
    blocks: Option<NodeBlocks>,
}

/// Node structure and near kernel of a block system (`Hierarchy::smoothed_aggregation`).
pub struct NodeBlocks {
    /// Node v owns unknowns `node_start[v]..node_start[v + 1]`.
    pub node_start: Vec<usize>,
    /// Near-kernel block, `rows × k`, column-major.
    pub b: Vec<f64>,
    pub k: usize,
}

impl AmgPreconditioner {
    /// Unsmoothed aggregation on scalar unknowns with the near kernel of `options`.
    pub fn new(options: AmgOptions) -> Self {
        AmgPreconditioner { options, hierarchy: None, info: SetupInfo::default(), blocks: None }
    }

    /// Smoothed aggregation of a block system; the near kernel is set by [`Self::set_blocks`]
    /// before each full setup.
    pub fn smoothed(options: AmgOptions) -> Self {
        let blocks = NodeBlocks { node_start: vec![0], b: Vec::new(), k: 0 };
        AmgPreconditioner { blocks: Some(blocks), ..Self::new(options) }
    }

    /// The nodes and near kernel the next full setup of a smoothed hierarchy uses.
    pub fn set_blocks(&mut self, blocks: NodeBlocks) {
        assert!(self.blocks.is_some(), "set_blocks on an unsmoothed AMG preconditioner");
        self.blocks = Some(blocks);
    }
}

impl Preconditioner for AmgPreconditioner {
    fn setup(&mut self, a: &Csr, setup: Setup) {
        match (&mut self.hierarchy, setup) {
            (Some(h), Setup::Refresh) => h.refresh(a),
            (Some(h), Setup::Smoother) => h.refresh_smoother(a),
            _ => {
                self.hierarchy = Some(match &self.blocks {
                    None => Hierarchy::new(a, &self.options),
                    Some(n) => Hierarchy::smoothed_aggregation(a, &self.options, n.node_start.clone(), n.b.clone(), n.k),
                })
            }
        }
        let h = self.hierarchy.as_ref().expect("set up above");
        self.info = SetupInfo { levels: h.level_count(), operator_complexity: h.operator_complexity(a), level_rows: h.level_rows(a) };
    }

    fn apply(&mut self, a: &Csr, r: &[f64], z: &mut [f64]) {
        self.hierarchy.as_mut().expect("AMG preconditioner used before setup").precondition(a, r, z);
    }

    fn info(&self) -> SetupInfo {
        self.info.clone()
    }

    /// The hierarchy's product (`Hierarchy::product`).
    fn product(&self, a: &Csr, x: &[f64], y: &mut [f64]) {
        match &self.hierarchy {
            Some(h) => h.product(a, x, y),
            None => spmv(a, x, y),
        }
    }
}

/// `z = D⁻¹ r`.
#[derive(Default)]
pub struct JacobiPreconditioner {
    inv_diag: Vec<f64>,
}

impl Preconditioner for JacobiPreconditioner {
    fn setup(&mut self, a: &Csr, _setup: Setup) {
        self.inv_diag = diagonal(a).iter().map(|&d| if d != 0.0 { 1.0 / d } else { 1.0 }).collect();
    }

    fn apply(&mut self, _a: &Csr, r: &[f64], z: &mut [f64]) {
        for ((zi, ri), di) in z.iter_mut().zip(r).zip(&self.inv_diag) {
            *zi = ri * di;
        }
    }
}

/// `z = (P L Lᵀ Pᵀ)⁻¹ r` with the threshold incomplete Cholesky factor of A
/// (`sparse::incomplete_cholesky`), refactorised on every setup; Jacobi while the factorisation fails.
pub struct IctPreconditioner {
    drop_tolerance: f64,
    factor: crate::Result<IncompleteCholesky>,
    jacobi: JacobiPreconditioner,
}

impl IctPreconditioner {
    pub fn new(drop_tolerance: f64) -> Self {
        let factor = Err(crate::Error::invalid("incomplete Cholesky preconditioner used before setup"));
        IctPreconditioner { drop_tolerance, factor, jacobi: JacobiPreconditioner::default() }
    }

    /// The factor of the last setup, or why there is none.
    pub fn factor(&self) -> &crate::Result<IncompleteCholesky> {
        &self.factor
    }
}

impl Preconditioner for IctPreconditioner {
    fn setup(&mut self, a: &Csr, setup: Setup) {
        self.factor = IncompleteCholesky::new(a, self.drop_tolerance);
        if self.factor.is_err() {
            self.jacobi.setup(a, setup);
        }
    }

    fn apply(&mut self, a: &Csr, r: &[f64], z: &mut [f64]) {
        match &self.factor {
            Ok(f) => f.apply(r, z),
            Err(_) => self.jacobi.apply(a, r, z),
        }
    }
}

pub struct Pcg<P> {
    name: &'static str,
    precond: P,
    krylov: Krylov,
}

/// The work vectors of one (P)CG solve.
#[derive(Default)]
pub(super) struct Krylov {
    r: Vec<f64>,
    z: Vec<f64>,
    p: Vec<f64>,
    ap: Vec<f64>,
}

impl Krylov {
    pub(super) fn resize(&mut self, n: usize) {
        for v in [&mut self.r, &mut self.z, &mut self.p, &mut self.ap] {
            v.resize(n, 0.0);
        }
    }

    /// Alg. 9.1 with `A` and the preconditioner given by their action, `apply(p, A p)` and
    /// `precond(r, z)`, so that A need not be stored; see [`Pcg::iterate`].
    pub(super) fn iterate(
        &mut self,
        mut apply: impl FnMut(&[f64], &mut [f64]),
        mut precond: impl FnMut(&[f64], &mut [f64]),
        b: &[f64],
        x: &mut [f64],
        max_iter: usize,
        mut done: impl FnMut(&[f64], &[f64]) -> bool,
    ) -> (usize, bool) {
        let Krylov { r, z, p, ap } = self;
        // From x = 0 (every MGPBD solve) r = b exactly, without a product.
        if x.iter().all(|&v| v == 0.0) {
            r.copy_from_slice(b);
        } else {
            apply(x, ap);
            for i in 0..r.len() {
                r[i] = b[i] - ap[i];
            }
        }
        precond(r, z);
        p.copy_from_slice(z);
        let mut rz = dot(r, z);
        let mut iterations = 0;
        loop {
            if done(r, x) {
                return (iterations, true);
            }
            if iterations == max_iter {
                return (iterations, false);
            }
            apply(p, ap);
            let pap = dot(p, ap);
            if !(pap > 0.0 && rz > 0.0) {
                return (iterations, false);
            }
            let alpha = rz / pap;
            for i in 0..r.len() {
                x[i] += alpha * p[i];
                r[i] -= alpha * ap[i];
            }
            precond(r, z);
            let rz_new = dot(r, z);
            let beta = rz_new / rz;
            for i in 0..p.len() {
                p[i] = z[i] + beta * p[i];
            }
            rz = rz_new;
            iterations += 1;
        }
    }
}

/// Runs `iterate` (from `x`, with a stopping rule on the residual r and the iterate) until
/// `‖r‖ ≤ tol ‖b‖`; x = 0 when b = 0.
pub(super) fn solve_to_tolerance(
    b: &[f64],
    x: &mut [f64],
    tol: f64,
    iterate: impl FnOnce(&mut [f64], &mut dyn FnMut(&[f64], &[f64]) -> bool) -> usize,
) -> SolveStats {
    let b_norm = norm(b);
    if b_norm == 0.0 {
        x.fill(0.0);
        return SolveStats { iterations: 0, relative_residual: 0.0, converged: true };
    }
    let mut r_norm = 0.0;
    let iterations = iterate(x, &mut |r, _| {
        r_norm = norm(r);
        r_norm <= tol * b_norm
    });
    let relative_residual = r_norm / b_norm;
    SolveStats { iterations, relative_residual, converged: relative_residual <= tol }
}

impl<P: Preconditioner> Pcg<P> {
    pub fn new(name: &'static str, precond: P) -> Self {
        Pcg { name, precond, krylov: Krylov::default() }
    }

    pub fn preconditioner_mut(&mut self) -> &mut P {
        &mut self.precond
    }

    /// The work vectors, for a solve whose operator is not a stored matrix (`cg::Cg::solve_operator`).
    pub(super) fn krylov_mut(&mut self) -> &mut Krylov {
        &mut self.krylov
    }

    /// PCG on `a x = b` from `x` until `done(r, x)` holds for the residual `r = b − A x` and the
    /// iterate (tested before every iteration) or `max_iter` iterations; returns the iterations and whether it
    /// stopped on `done`. A stopping rule other than ‖r‖ (e.g. the dual residual of the primal
    /// solve, `mgpbd::primal`) is the reason this is separate from [`LinearSolver::solve`].
    pub fn iterate(&mut self, a: &Csr, b: &[f64], x: &mut [f64], max_iter: usize, done: impl FnMut(&[f64], &[f64]) -> bool) -> (usize, bool) {
        let Pcg { precond, krylov, .. } = self;
        // The product and the preconditioner take turns on `precond`, never at once.
        let precond = std::cell::RefCell::new(precond);
        krylov.iterate(|p, ap| precond.borrow().product(a, p, ap), |r, z| precond.borrow_mut().apply(a, r, z), b, x, max_iter, done)
    }
}

impl<P: Preconditioner> LinearSolver for Pcg<P> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn setup(&mut self, a: &Csr, setup: Setup) {
        self.krylov.resize(a.rows());
        self.precond.setup(a, setup);
    }

    fn solve(&mut self, a: &Csr, b: &[f64], x: &mut [f64], tol: f64, max_iter: usize) -> SolveStats {
        solve_to_tolerance(b, x, tol, |x, done| self.iterate(a, b, x, max_iter, done).0)
    }

    fn info(&self) -> SetupInfo {
        self.precond.info()
    }
}

#[cfg(test)]
mod tests {
    use super::super::direct::Direct;
    use super::*;
    use crate::amg::model_problems::{cloth_dual, poisson};
    use crate::amg::{NearKernel, Smoother};

    fn rel_diff(x: &[f64], y: &[f64]) -> f64 {
        let d: Vec<f64> = x.iter().zip(y).map(|(a, b)| a - b).collect();
        norm(&d) / norm(y)
    }

    /// AMG-PCG (every smoother and near kernel) and Jacobi-PCG run to 1e-10 agree with the sparse
    /// direct solve to 1e-7 on a cloth dual system and 3-D Poisson; AMG needs far fewer
    /// iterations than Jacobi on Poisson.
    #[test]
    fn pcg_matches_direct_solve() {
        for a in [cloth_dual(16, 1e5), poisson(&[14, 14, 14])] {
            let n = a.rows();
            let b: Vec<f64> = (0..n).map(|i| ((i * 31) % 17) as f64 - 8.0).collect();
            let mut direct = Direct::default();
            direct.setup(&a, Setup::Full);
            let mut x_ref = vec![0.0; n];
            assert!(direct.solve(&a, &b, &mut x_ref, 1e-12, 1).converged);
            let mut jac = Pcg::new("jacobi-pcg", JacobiPreconditioner::default());
            jac.setup(&a, Setup::Full);
            let mut x = vec![0.0; n];
            let sj = jac.solve(&a, &b, &mut x, 1e-10, 5000);
            assert!(sj.converged && rel_diff(&x, &x_ref) < 1e-7, "jacobi {sj:?}");
            for smoother in [Smoother::Jacobi, Smoother::Chebyshev, Smoother::Gs] {
                for near_kernel in [NearKernel::Constant, NearKernel::Gs] {
                    let o = AmgOptions { smoother, near_kernel, max_coarse: 60, ..Default::default() };
                    let mut s = Pcg::new("amg-pcg", AmgPreconditioner::new(o));
                    s.setup(&a, Setup::Full);
                    let mut x = vec![0.0; n];
                    let st = s.solve(&a, &b, &mut x, 1e-10, 500);
                    assert!(st.converged && rel_diff(&x, &x_ref) < 1e-7, "{smoother:?} {near_kernel:?}: {st:?}");
                    assert!(s.info().levels >= 2);
                    if a.rows() == 14 * 14 * 14 {
                        assert!(st.iterations * 2 < sj.iterations, "{smoother:?} {near_kernel:?}: {st:?} vs {sj:?}");
                    }
                }
            }
        }
    }
}
