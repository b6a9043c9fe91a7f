//! The V-cycle's relaxations (the MGPBD paper §4.2): weighted Jacobi with ω = 4 / (3 ρ(D⁻¹A)),
//! Jacobi-preconditioned Chebyshev of degree 3 on [ρ/30, 1.1 ρ] (Saad, *Iterative Methods*,
//! Alg. 12.1), and multicolour Gauss-Seidel. Jacobi and Chebyshev are fixed polynomials in D⁻¹A,
//! hence self-adjoint in the A inner product; Gauss-Seidel runs its colours forward before the
//! coarse correction and backward after it, so the V-cycle is a symmetric preconditioner for CG.
//!
//! ρ(D⁻¹A) is estimated by Lanczos on `D^{-1/2} A D^{-1/2}`, as PyAMG's `approximate_spectral_radius`.

use super::row_groups::RowGroups;
use super::Smoother;
use crate::graph::coloring::{greedy, Coloring};
use crate::graph::element_graph::Graph;
use crate::sparse::{diagonal_positions, spmv, Csr};

/// Lanczos steps of the spectral radius estimate.
const LANCZOS_STEPS: usize = 20;
/// Chebyshev degree and interval [ρ / LOWER, UPPER ρ] (public for the GPU's copy of the recurrence).
pub const CHEBYSHEV_DEGREE: usize = 3;
pub const CHEBYSHEV_LOWER: f64 = 30.0;
pub const CHEBYSHEV_UPPER: f64 = 1.1;

/// One level's relaxation with its parameters.
pub struct Relaxation {
    kind: Smoother,
    inv_diag: Vec<f64>,
    /// Position of each row's diagonal entry in A's values (A's pattern is that of the full setup).
    diagonal_at: Vec<Option<usize>>,
    /// Estimate of ρ(D⁻¹A) from the last full setup.
    pub rho: f64,
    colors: Option<Coloring>,
    /// A's row groups, for its products (A's pattern is that of the full setup).
    pub(super) groups: RowGroups,
    /// Jacobi's next iterate, computed beside the current one.
    next: Vec<f64>,
    d: Vec<f64>,
}

impl Relaxation {
    /// Full setup: diagonal, ρ(D⁻¹A), and for Gauss-Seidel a greedy colouring of A's graph.
    pub fn new(a: &Csr, kind: Smoother) -> Self {
        let n = a.rows();
        let (inv_diag, diagonal_at) = (vec![0.0; n], diagonal_positions(a));
        let mut s = Relaxation { kind, inv_diag, diagonal_at, rho: 0.0, colors: None, groups: RowGroups::new(a), next: vec![0.0; n], d: vec![0.0; n] };
        s.refresh(a);
        s.rho = spectral_radius_jacobi(a, &s.inv_diag);
        if kind == Smoother::Gs {
            s.colors = Some(greedy(&matrix_graph(a), &(0..n as u32).collect::<Vec<_>>()));
        }
        s
    }

    /// Which relaxation this is (read by the GPU hand-off, `xpbd-cuda`).
    pub fn kind(&self) -> Smoother {
        self.kind
    }

    /// The Gauss-Seidel colouring of the last full setup (`None` for Jacobi and Chebyshev).
    pub fn colors(&self) -> Option<&Coloring> {
        self.colors.as_ref()
    }

    /// Lazy refresh: new diagonal, same ρ and colouring.
    pub fn refresh(&mut self, a: &Csr) {
        for (inv, at) in self.inv_diag.iter_mut().zip(&self.diagonal_at) {
            let d = at.map_or(0.0, |k| a.data()[k]);
            *inv = if d != 0.0 { 1.0 / d } else { 0.0 };
        }
    }

    /// `sweeps` relaxations of `A x = b` before the coarse correction. With `x_is_zero` (x = 0 on
    /// entry, as in a preconditioner's V-cycle) the first Jacobi or Chebyshev sweep takes A x = 0
    /// instead of computing the product: the same values, one product fewer per level and cycle.
    pub fn pre(&mut self, a: &Csr, b: &[f64], x: &mut [f64], sweeps: usize, x_is_zero: bool) {
        for s in 0..sweeps {
            self.relax(a, b, x, true, x_is_zero && s == 0);
        }
    }

    /// `sweeps` relaxations after the coarse correction: the adjoint of `pre`.
    pub fn post(&mut self, a: &Csr, b: &[f64], x: &mut [f64], sweeps: usize) {
        for _ in 0..sweeps {
            self.sweep(a, b, x, false);
        }
    }

    /// One sweep; `forward` orders the Gauss-Seidel colours.
    pub fn sweep(&mut self, a: &Csr, b: &[f64], x: &mut [f64], forward: bool) {
        self.relax(a, b, x, forward, false);
    }

    /// One sweep, from x = 0 when `x_is_zero` (Gauss-Seidel reads x as it goes and ignores it).
    fn relax(&mut self, a: &Csr, b: &[f64], x: &mut [f64], forward: bool, x_is_zero: bool) {
        match self.kind {
            Smoother::Jacobi => self.jacobi(a, b, x, x_is_zero),
            Smoother::Chebyshev => self.chebyshev(a, b, x, x_is_zero),
            Smoother::Gs => self.gauss_seidel(a, b, x, forward),
        }
    }

    /// `y_i = f(i, y_i, (A x)_i)` in the product's pass, or `f(i, y_i, 0)` without the product when x is known
    /// to be zero.
    fn update(groups: &RowGroups, a: &Csr, x: &[f64], y: &mut [f64], x_is_zero: bool, f: impl Fn(usize, f64, f64) -> f64 + Sync) {
        if x_is_zero {
            for (i, yi) in y.iter_mut().enumerate() {
                *yi = f(i, *yi, 0.0);
            }
        } else {
            groups.spmv_update(a, x, y, f);
        }
    }

    /// `x ← x + ω D⁻¹ (b − A x)`, computed into the scratch vector in the product's pass.
    fn jacobi(&mut self, a: &Csr, b: &[f64], x: &mut [f64], x_is_zero: bool) {
        let omega = 4.0 / (3.0 * self.rho);
        let inv_diag = &self.inv_diag;
        Self::update(&self.groups, a, x, &mut self.next, x_is_zero, |i, _, ax| x[i] + omega * inv_diag[i] * (b[i] - ax));
        x.copy_from_slice(&self.next);
    }

    fn chebyshev(&mut self, a: &Csr, b: &[f64], x: &mut [f64], x_is_zero: bool) {
        let (lo, hi) = (self.rho / CHEBYSHEV_LOWER, CHEBYSHEV_UPPER * self.rho);
        let (theta, delta) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
        let sigma = theta / delta;
        let mut rho_k = 1.0 / sigma;
        let (d, groups, inv_diag) = (&mut self.d, &self.groups, &self.inv_diag);
        Self::update(groups, a, x, d, x_is_zero, |i, _, ax| inv_diag[i] * (b[i] - ax) / theta);
        for step in 0..CHEBYSHEV_DEGREE {
            for i in 0..x.len() {
                x[i] += d[i];
            }
            if step + 1 == CHEBYSHEV_DEGREE {
                break;
            }
            let rho_next = 1.0 / (2.0 * sigma - rho_k);
            groups.spmv_update(a, x, d, |i, di, ax| rho_next * rho_k * di + 2.0 * rho_next / delta * inv_diag[i] * (b[i] - ax));
            rho_k = rho_next;
        }
    }

    fn gauss_seidel(&mut self, a: &Csr, b: &[f64], x: &mut [f64], forward: bool) {
        let colors = self.colors.as_ref().expect("Gauss-Seidel relaxation has a colouring");
        let (indptr, indices, data) = (a.indptr(), a.indices(), a.data());
        let indptr = indptr.raw_storage();
        let nc = colors.colors();
        for c in 0..nc {
            let c = if forward { c } else { nc - 1 - c };
            for &i in colors.class(c) {
                let i = i as usize;
                let mut s = b[i];
                for k in indptr[i]..indptr[i + 1] {
                    if indices[k] != i {
                        s -= data[k] * x[indices[k]];
                    }
                }
                x[i] = s * self.inv_diag[i];
            }
        }
    }
}

/// The graph of A's off-diagonal nonzeros.
fn matrix_graph(a: &Csr) -> Graph {
    let mut start = vec![0];
    let mut adj = Vec::with_capacity(a.nnz());
    for (i, row) in a.outer_iterator().enumerate() {
        adj.extend(row.iter().filter(|&(j, &v)| j != i && v != 0.0).map(|(j, _)| j as u32));
        start.push(adj.len());
    }
    Graph::from_adjacency(start, adj)
}

/// Largest eigenvalue of D⁻¹A (= of the symmetric `D^{-1/2} A D^{-1/2}`) by Lanczos from a fixed start.
pub fn spectral_radius_jacobi(a: &Csr, inv_diag: &[f64]) -> f64 {
    let n = a.rows();
    if n == 0 {
        return 1.0;
    }
    let s: Vec<f64> = inv_diag.iter().map(|d| d.abs().sqrt()).collect();
    let mut v: Vec<f64> = (0..n).map(|i| ((i as u64).wrapping_mul(2_654_435_761) % 1000) as f64 / 1000.0 + 0.1).collect();
    let nv = crate::sparse::norm(&v);
    v.iter_mut().for_each(|x| *x /= nv);
    let (mut v_prev, mut w, mut t) = (vec![0.0; n], vec![0.0; n], vec![0.0; n]);
    let (mut alphas, mut betas) = (Vec::new(), Vec::new());
    let mut beta = 0.0;
    for _ in 0..LANCZOS_STEPS.min(n) {
        for i in 0..n {
            t[i] = s[i] * v[i];
        }
        spmv(a, &t, &mut w);
        for i in 0..n {
            w[i] = s[i] * w[i] - beta * v_prev[i];
        }
        let alpha = crate::sparse::dot(&w, &v);
        for i in 0..n {
            w[i] -= alpha * v[i];
        }
        alphas.push(alpha);
        beta = crate::sparse::norm(&w);
        if beta <= 1e-12 * alpha.abs() {
            break;
        }
        betas.push(beta);
        for i in 0..n {
            v_prev[i] = v[i];
            v[i] = w[i] / beta;
        }
    }
    let m = alphas.len();
    let tri = nalgebra::DMatrix::from_fn(m, m, |i, j| match i.abs_diff(j) {
        0 => alphas[i],
        1 => betas[i.min(j)],
        _ => 0.0,
    });
    tri.symmetric_eigenvalues().iter().fold(0.0f64, |acc, &e| acc.max(e.abs()))
}

#[cfg(test)]
mod tests {
    use super::super::model_problems::{cloth_dual, poisson};
    use super::*;
    use crate::sparse::dot;

    fn a_norm(a: &Csr, e: &[f64]) -> f64 {
        let mut ae = vec![0.0; e.len()];
        spmv(a, e, &mut ae);
        dot(e, &ae).sqrt()
    }

    /// ρ(D⁻¹A) of the 1-D Laplacian is 1 + cos(π/(n+1)) (analytic); 20 Lanczos steps come within
    /// 1 % from below (Ritz values lie inside the spectrum), enough for ω and Chebyshev's 1.1 margin.
    #[test]
    fn spectral_radius_of_laplacian() {
        let a = poisson(&[200]);
        let want = 1.0 + (std::f64::consts::PI / 201.0).cos();
        let rho = spectral_radius_jacobi(&a, &vec![0.5; 200]);
        assert!(rho > 0.99 * want && rho <= want + 1e-12, "{rho} vs {want}");
    }

    /// On `A x = 0` (error = x), every smoother reduces the A-norm of a random error on 2-D
    /// Poisson and on a cloth dual system, and the high-frequency part much more than the rest.
    #[test]
    fn each_smoother_reduces_a_norm_error() {
        for a in [poisson(&[24, 24]), cloth_dual(10, 1e6)] {
            let n = a.rows();
            let zero = vec![0.0; n];
            for kind in [Smoother::Jacobi, Smoother::Chebyshev, Smoother::Gs] {
                let mut s = Relaxation::new(&a, kind);
                let mut x: Vec<f64> = (0..n).map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0).collect();
                let before = a_norm(&a, &x);
                s.pre(&a, &zero, &mut x, 2, false);
                let after = a_norm(&a, &x);
                assert!(after < 0.7 * before, "{kind:?}: {after} vs {before}");
            }
        }
    }

    /// Jacobi and Chebyshev sweeps are A-self-adjoint (`⟨S u, A v⟩ = ⟨u, A S v⟩` for the error
    /// propagator S), and the Gauss-Seidel backward sweep is the A-adjoint of the forward one.
    #[test]
    fn sweeps_are_a_symmetric() {
        let a = poisson(&[9, 9]);
        let n = a.rows();
        let zero = vec![0.0; n];
        let u: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let v: Vec<f64> = (0..n).map(|i| (i as f64 * 1.91).cos()).collect();
        let a_dot = |x: &[f64], y: &[f64]| {
            let mut ay = vec![0.0; n];
            spmv(&a, y, &mut ay);
            dot(x, &ay)
        };
        for kind in [Smoother::Jacobi, Smoother::Chebyshev, Smoother::Gs] {
            let mut s = Relaxation::new(&a, kind);
            let (mut su, mut sv) = (u.clone(), v.clone());
            s.sweep(&a, &zero, &mut su, true);
            s.sweep(&a, &zero, &mut sv, kind != Smoother::Gs);
            let (l, r) = (a_dot(&su, &v), a_dot(&u, &sv));
            assert!((l - r).abs() < 1e-10 * l.abs().max(1.0), "{kind:?}: {l} vs {r}");
        }
    }
}
