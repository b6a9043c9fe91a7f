//! The AMG hierarchy on a device: the hand-off of a CPU [`Hierarchy`] (issue 7, deliverable 2), the Galerkin
//! refresh after each refill of the finest matrix, and the V-cycle (the MGPBD paper §4.2, Alg. 3;
//! `xpbd_core::amg::vcycle`).
//!
//! What the CPU builds at each full setup and uploads here: per level P, Pᵀ, the relaxation's kind, ρ(D⁻¹A) and
//! Gauss-Seidel colouring, and the patterns of A P and of the coarse matrix Pᵀ (A P) (the CPU's symbolic
//! products), on which `csr_product` recomputes both. Everything that depends on the finest values (the coarse values, the diagonals, the coarsest
//! Cholesky factor) is recomputed on the device by [`DeviceHierarchy::refresh`]; nothing crosses the bus for it,
//! unless the coarsest level is too large to factor densely ([`DeviceCoarsest::Host`]).

use xpbd_core::amg::hierarchy::{CoarseSolve, Hierarchy};
use xpbd_core::amg::smoothers::{Relaxation, CHEBYSHEV_DEGREE, CHEBYSHEV_LOWER, CHEBYSHEV_UPPER};
use xpbd_core::amg::Smoother;
use xpbd_core::sparse::Csr;

use xpbd_core::amg::product::ProductPlan;

use crate::convert::to_t;
use crate::error::{CudaError, Result};
use crate::linalg::{DeviceCsr, LinearOps};
use crate::runtime::KernelScalar;

/// One level's relaxation on the device, with the scalars of its polynomial computed on the host once.
pub enum DeviceRelaxation<O: LinearOps> {
    /// x += ω D⁻¹(b − A x), ω = 4 / (3 ρ).
    Jacobi { omega: O::T },
    /// The (c_d, c_r) of each of the `CHEBYSHEV_DEGREE` steps ([`chebyshev_coefficients`]) and the direction d.
    Chebyshev { steps: Vec<(O::T, O::T)>, d: O::Vector },
    /// Colour classes concatenated in `rows`; colour c is `rows[first[c]..first[c] + count[c]]`. The rows of a
    /// colour run in parallel. The CPU colours the graph of the entries nonzero at the full setup
    /// (`smoothers::matrix_graph`): entries zero then (K's cross-component entries with ARAP component rows, whose
    /// gradients are axis-aligned) may couple rows of one colour, harmlessly while they stay zero; one that a
    /// refill made nonzero would make the device's sweep differ from the CPU's sequential one within a colour.
    GaussSeidel { rows: O::Indices, classes: Vec<(u32, u32)> },
}

/// One level above the coarsest: its matrix's diagonal and relaxation, P and Pᵀ, A P and the coarse matrix (on
/// the patterns of the full setup), and the V-cycle's vectors.
pub struct DeviceLevel<O: LinearOps> {
    pub rows: usize,
    pub inv_diag: O::Vector,
    pub relax: DeviceRelaxation<O>,
    pub p: DeviceCsr<O>,
    pub pt: DeviceCsr<O>,
    /// A P, refreshed before the coarse matrix.
    pub ap: DeviceCsr<O>,
    /// The next coarser matrix Pᵀ A P.
    pub coarse: DeviceCsr<O>,
    /// A x (and the residual b − A x).
    pub work: O::Vector,
    pub coarse_b: O::Vector,
    pub coarse_x: O::Vector,
}

/// The coarsest level.
pub enum DeviceCoarsest<O: LinearOps> {
    /// Its dense Cholesky factor, refactored on the device.
    Dense { n: u32, factor: O::Vector, status: O::Indices },
    /// Where the CPU does not factor it densely (more than 500 rows: coarsening stalled, as on a mass-dominated
    /// K without strong connections, which stays a single level; or LU for a semi-definite one), the CPU's own
    /// solver on the host: each refresh reads the level's values back and factors them (`solve`, `None` until
    /// the first refresh), each V-cycle sends its right-hand side down and the solution up. The same arithmetic
    /// as the CPU, at the cost of those transfers.
    Host { matrix: Csr, solve: Option<Box<CoarseSolve>>, b: Vec<f64>, x: Vec<f64> },
}

pub struct DeviceHierarchy<O: LinearOps> {
    pub levels: Vec<DeviceLevel<O>>,
    pub coarsest: DeviceCoarsest<O>,
    pub pre_sweeps: usize,
    pub post_sweeps: usize,
}

/// (c_d, c_r) of each Chebyshev step for ρ(D⁻¹A) = `rho` (Relaxation::chebyshev in `amg/smoothers.rs`).
pub fn chebyshev_coefficients(rho: f64) -> Vec<(f64, f64)> {
    let (lo, hi) = (rho / CHEBYSHEV_LOWER, CHEBYSHEV_UPPER * rho);
    let (theta, delta) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
    let sigma = theta / delta;
    let mut rho_k = 1.0 / sigma;
    let mut steps = vec![(0.0, 1.0 / theta)];
    for _ in 1..CHEBYSHEV_DEGREE {
        let rho_next = 1.0 / (2.0 * sigma - rho_k);
        steps.push((rho_next * rho_k, 2.0 * rho_next / delta));
        rho_k = rho_next;
    }
    steps
}

/// The relaxation of the level whose matrix is `a`.
fn upload_relaxation<O: LinearOps>(ops: &O, relax: &Relaxation, a: &Csr) -> Result<DeviceRelaxation<O>> {
    let rows = a.rows();
    let t = <O::T as KernelScalar>::from_f64;
    Ok(match relax.kind() {
        Smoother::Jacobi => DeviceRelaxation::Jacobi { omega: t(4.0 / (3.0 * relax.rho)) },
        Smoother::Chebyshev => {
            DeviceRelaxation::Chebyshev { steps: chebyshev_coefficients(relax.rho).into_iter().map(|(a, b)| (t(a), t(b))).collect(), d: ops.zeros(rows)? }
        }
        Smoother::Gs => {
            let colors = relax.colors().ok_or_else(|| CudaError::Check("a Gauss-Seidel relaxation without a colouring".into()))?;
            let (mut all, mut classes) = (Vec::with_capacity(rows), Vec::new());
            for c in 0..colors.colors() {
                classes.push((all.len() as u32, colors.class(c).len() as u32));
                all.extend_from_slice(colors.class(c));
            }
            DeviceRelaxation::GaussSeidel { rows: ops.upload_indices(&all)?, classes }
        }
    })
}

impl<O: LinearOps> DeviceHierarchy<O> {
    /// The hand-off: uploads the setup of `h`, built for the finest matrix `a` (whose pattern the device's finest
    /// matrix shares), and computes the coarse values on the device from `fine` (the device's finest matrix).
    pub fn upload(ops: &mut O, a: &Csr, h: &Hierarchy, fine: &DeviceCsr<O>) -> Result<Self> {
        let last = h.levels.last().map_or(a, |l| &l.galerkin.coarse);
        let mut levels = Vec::with_capacity(h.levels.len());
        let mut cur = a;
        for level in &h.levels {
            let rows = cur.rows();
            // The pattern of A P: the CPU's own for a smoothed P; formed here (in parallel) for a tentative one.
            let formed;
            let ap = match level.galerkin.ap() {
                Some(ap) => ap,
                None => {
                    formed = ProductPlan::multiply(cur, &level.p).0;
                    &formed
                }
            };
            let coarse = &level.galerkin.coarse;
            levels.push(DeviceLevel {
                rows,
                inv_diag: ops.zeros(rows)?,
                relax: upload_relaxation(ops, &level.relax, cur)?,
                p: DeviceCsr::upload(ops, &level.p)?,
                pt: DeviceCsr::upload(ops, &level.pt)?,
                ap: DeviceCsr::pattern_of(ops, ap)?,
                coarse: DeviceCsr::pattern_of(ops, coarse)?,
                work: ops.zeros(rows)?,
                coarse_b: ops.zeros(coarse.rows())?,
                coarse_x: ops.zeros(coarse.rows())?,
            });
            cur = &level.galerkin.coarse;
        }
        let n = last.rows();
        let coarsest = match h.coarsest {
            CoarseSolve::Cholesky(_) => DeviceCoarsest::Dense { n: n as u32, factor: ops.zeros((n * n).max(1))?, status: ops.upload_indices(&[0])? },
            _ => DeviceCoarsest::Host { matrix: last.clone(), solve: None, b: vec![0.0; n], x: vec![0.0; n] },
        };
        let mut d = DeviceHierarchy { levels, coarsest, pre_sweeps: h.options.pre_sweeps, post_sweeps: h.options.post_sweeps };
        d.refresh(ops, fine)?;
        Ok(d)
    }

    /// The lazy setup on the device (Hierarchy::refresh) for new values of `fine` on the same pattern: per level
    /// the inverse diagonal and Pᵀ A P from the plans, then the coarsest Cholesky factor.
    pub fn refresh(&mut self, ops: &mut O, fine: &DeviceCsr<O>) -> Result<()> {
        for l in 0..self.levels.len() {
            let (done, rest) = self.levels.split_at_mut(l);
            let cur = done.last().map_or(fine, |d| &d.coarse);
            let level = &mut rest[0];
            ops.inverse_diagonal(cur, &mut level.inv_diag)?;
            ops.csr_product(cur, &level.p, &mut level.ap)?;
            ops.csr_product(&level.pt, &level.ap, &mut level.coarse)?;
        }
        let last = self.levels.last().map_or(fine, |l| &l.coarse);
        match &mut self.coarsest {
            DeviceCoarsest::Dense { n, factor, status } => {
                ops.dense_scatter(last, factor)?;
                if !ops.dense_cholesky(factor, *n, status)? {
                    return Err(CudaError::Check(format!("the coarsest AMG matrix ({n} rows) is not positive definite on the device")));
                }
            }
            DeviceCoarsest::Host { matrix, solve, .. } => {
                let values = ops.download(&last.val)?;
                let nnz = matrix.nnz();
                matrix.data_mut().iter_mut().zip(&values[..nnz]).for_each(|(m, v)| *m = v.to_f64());
                *solve = Some(Box::new(CoarseSolve::new(matrix)));
            }
        }
        Ok(())
    }

    /// New values of `fine` for the finest smoother only, its inverse diagonal (Hierarchy::refresh_smoother); a
    /// hierarchy of one level refreshes.
    pub fn refresh_smoother(&mut self, ops: &mut O, fine: &DeviceCsr<O>) -> Result<()> {
        match self.levels.first_mut() {
            Some(finest) => ops.inverse_diagonal(fine, &mut finest.inv_diag),
            None => self.refresh(ops, fine),
        }
    }

    /// One V-cycle on `fine x = b`, improving `x` in place (Hierarchy::vcycle).
    pub fn vcycle(&mut self, ops: &mut O, fine: &DeviceCsr<O>, b: &O::Vector, x: &mut O::Vector) -> Result<()> {
        self.cycle(ops, fine, b, x, false)
    }

    /// One V-cycle from x = 0, overwriting `x`, without each level's first relaxation product
    /// (Hierarchy::precondition).
    pub fn precondition(&mut self, ops: &mut O, fine: &DeviceCsr<O>, b: &O::Vector, x: &mut O::Vector) -> Result<()> {
        ops.set_zero(x)?;
        self.cycle(ops, fine, b, x, true)
    }

    /// The V-cycle; `x_is_zero` when the finest x is zero on entry (every coarser level's is).
    fn cycle(&mut self, ops: &mut O, fine: &DeviceCsr<O>, b: &O::Vector, x: &mut O::Vector, x_is_zero: bool) -> Result<()> {
        let depth = self.levels.len();
        // Down: level l's system is fine (l = 0) or level l−1's coarse matrix, b and x.
        for l in 0..depth {
            let (done, rest) = self.levels.split_at_mut(l);
            let level = &mut rest[0];
            let (a, b, x) = match done.last_mut() {
                None => (fine, b, &mut *x),
                Some(up) => (&up.coarse, &up.coarse_b, &mut up.coarse_x),
            };
            relax(ops, level, a, b, x, self.pre_sweeps, true, x_is_zero || l > 0)?;
            ops.residual(a, b, x, &mut level.work)?;
            ops.spmv(&level.pt, &level.work, &mut level.coarse_b)?;
            ops.set_zero(&mut level.coarse_x)?;
        }
        let (cb, cx) = match self.levels.last_mut() {
            None => (b, &mut *x),
            Some(l) => (&l.coarse_b, &mut l.coarse_x),
        };
        match &mut self.coarsest {
            DeviceCoarsest::Dense { n, factor, .. } => ops.cholesky_solve(factor, *n, cb, cx)?,
            DeviceCoarsest::Host { solve, b: hb, x: hx, .. } => {
                let solve = solve.as_mut().ok_or_else(|| CudaError::Check("the coarsest AMG level was not factored (no refresh after the upload)".into()))?;
                let down = ops.download(cb)?;
                hb.iter_mut().zip(&down).for_each(|(h, d)| *h = d.to_f64());
                solve.solve(hb, hx);
                ops.write(&to_t(hx), cx)?;
            }
        }
        // Up: prolongate the correction, post-smooth.
        for l in (0..depth).rev() {
            let (done, rest) = self.levels.split_at_mut(l);
            let level = &mut rest[0];
            let (a, b, x) = match done.last_mut() {
                None => (fine, b, &mut *x),
                Some(up) => (&up.coarse, &up.coarse_b, &mut up.coarse_x),
            };
            ops.spmv_add(&level.p, &level.coarse_x, x)?;
            relax(ops, level, a, b, x, self.post_sweeps, false, false)?;
        }
        Ok(())
    }
}

/// `sweeps` relaxations of `a x = b` on `level` (Relaxation::pre / post; `forward` orders the colours); with
/// `x_is_zero` the first Jacobi or Chebyshev product is taken as zero instead of computed.
#[allow(clippy::too_many_arguments)]
pub fn relax<O: LinearOps>(
    ops: &mut O,
    level: &mut DeviceLevel<O>,
    a: &DeviceCsr<O>,
    b: &O::Vector,
    x: &mut O::Vector,
    sweeps: usize,
    forward: bool,
    x_is_zero: bool,
) -> Result<()> {
    let DeviceLevel { inv_diag, relax, work, .. } = level;
    let product = |ops: &mut O, x: &O::Vector, work: &mut O::Vector, zero: bool| if zero { ops.set_zero(work) } else { ops.spmv(a, x, work) };
    for sweep in 0..sweeps {
        match relax {
            DeviceRelaxation::Jacobi { omega } => {
                product(ops, x, work, x_is_zero && sweep == 0)?;
                ops.jacobi_sweep(x, work, b, inv_diag, *omega)?;
            }
            DeviceRelaxation::Chebyshev { steps, d } => {
                for (step, &(c_d, c_r)) in steps.iter().enumerate() {
                    product(ops, x, work, x_is_zero && sweep == 0 && step == 0)?;
                    ops.chebyshev_step(x, d, work, b, inv_diag, c_d, c_r)?;
                }
            }
            DeviceRelaxation::GaussSeidel { rows, classes } => {
                let n = classes.len();
                for c in 0..n {
                    let (first, count) = classes[if forward { c } else { n - 1 - c }];
                    ops.gauss_seidel_color(a, b, inv_diag, rows, first, count, x)?;
                }
            }
        }
    }
    Ok(())
}
