//! As-rigid-as-possible constraint (docs/equations.md, MGPBD): C = ‖F − R‖_F = sqrt(Σ(σ_i − 1)²) with R the
//! rotation of the polar decomposition, ∂C/∂F = (F − R)/C (zero when C < 1e-6), α = 1/(μV).

use nalgebra::{Matrix3, Vector3};

/// Below this sum of two signed singular values the rotation about their axis is held fixed in the
/// component rows' gradient. The exact Gauss–Newton stiffness of that rotation, (1 − 2/(σ_a + σ_b))²,
/// equals the fixed-rotation one (1) here and exceeds it below (R is not differentiable at 0).
pub const MIN_PAIR_SUM: f64 = 1.0;

/// F = U Σ Vᵀ with U and V rotations, so that R = U Vᵀ has det R = +1 and an inverted element keeps its
/// reflection in the smallest singular value (σ₃ < 0); S = V Σ Vᵀ. Computed once per element and shared by
/// its nine component rows ([`Polar::component`]).
///
/// V and Σ² come from cyclic Jacobi rotations on FᵀF, sorted by decreasing eigenvalue; U and Σ from a
/// Givens QR of F V (McAdams et al. 2011), which keeps U orthonormal and proper even for singular F and
/// leaves σ₁, σ₂ ≥ 0, sign σ₃ = sign det F. `kernels/polar.cuh` is the same algorithm, operation for
/// operation. (nalgebra's SVD missed R by up to 1e-11 near rest, where C = F − R is small: test
/// `rotation_matches_the_newton_polar_iteration`.)
#[derive(Clone, Copy, Debug)]
pub struct Polar {
    u: Matrix3<f64>,
    sigma: Vector3<f64>,
    v: Matrix3<f64>,
}

impl Polar {
    pub fn new(f: &Matrix3<f64>) -> Self {
        // Products written out in the kernel's order, so that both round alike.
        let mut a = Matrix3::from_fn(|i, j| f[(0, i)] * f[(0, j)] + f[(1, i)] * f[(1, j)] + f[(2, i)] * f[(2, j)]);
        let mut v = Matrix3::identity();
        for _sweep in 0..20 {
            let mut rotated = false;
            for (p, q, r) in [(0, 1, 2), (0, 2, 1), (1, 2, 0)] {
                let apq = a[(p, q)];
                if apq.abs() <= f64::EPSILON * (a[(p, p)].abs() + a[(q, q)].abs()) || apq == 0.0 {
                    continue;
                }
                rotated = true;
                // t = tan of the angle that zeroes a_pq (the smaller root).
                let theta = (a[(q, q)] - a[(p, p)]) / (2.0 * apq);
                let t = 1.0f64.copysign(theta) / (theta.abs() + (theta * theta + 1.0).sqrt());
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                a[(p, p)] -= t * apq;
                a[(q, q)] += t * apq;
                (a[(p, q)], a[(q, p)]) = (0.0, 0.0);
                let (arp, arq) = (a[(r, p)], a[(r, q)]);
                a[(r, p)] = c * arp - s * arq;
                a[(p, r)] = a[(r, p)];
                a[(r, q)] = s * arp + c * arq;
                a[(q, r)] = a[(r, q)];
                for k in 0..3 {
                    let (vp, vq) = (v[(k, p)], v[(k, q)]);
                    v[(k, p)] = c * vp - s * vq;
                    v[(k, q)] = s * vp + c * vq;
                }
            }
            if !rotated {
                break;
            }
        }
        // Eigenvalues in decreasing order with V's columns, then det V = +1.
        let mut w = [a[(0, 0)], a[(1, 1)], a[(2, 2)]];
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            if w[i] < w[j] {
                w.swap(i, j);
                v.swap_columns(i, j);
            }
        }
        if v.determinant() < 0.0 {
            v.column_mut(2).neg_mut();
        }
        // B = F V = U Σ: Givens rotations G zero B₁₀, B₂₀, B₂₁ from the left (B ← G B, U ← U Gᵀ).
        let mut b = Matrix3::from_fn(|i, j| f[(i, 0)] * v[(0, j)] + f[(i, 1)] * v[(1, j)] + f[(i, 2)] * v[(2, j)]);
        let mut u = Matrix3::identity();
        for (i, j, col) in [(0, 1, 0), (0, 2, 0), (1, 2, 1)] {
            let (x, y): (f64, f64) = (b[(i, col)], b[(j, col)]);
            let h = (x * x + y * y).sqrt();
            if h == 0.0 {
                continue;
            }
            let (c, s) = (x / h, y / h);
            for m in 0..3 {
                let (bi, bj) = (b[(i, m)], b[(j, m)]);
                b[(i, m)] = c * bi + s * bj;
                b[(j, m)] = c * bj - s * bi;
                let (ui, uj) = (u[(m, i)], u[(m, j)]);
                u[(m, i)] = c * ui + s * uj;
                u[(m, j)] = c * uj - s * ui;
            }
        }
        Polar { u, sigma: Vector3::new(b[(0, 0)], b[(1, 1)], b[(2, 2)]), v }
    }

    fn rotation(&self) -> Matrix3<f64> {
        self.u * self.v.transpose()
    }

    /// ∂R_rc/∂F from `dR = U Ω Vᵀ`, `Ω_ab = ((UᵀdF V)_ab − (UᵀdF V)_ba)/(σ_a + σ_b)`:
    /// Σ_{a<b} (U_ra V_cb − U_rb V_ca)/(σ_a + σ_b) (u_a v_bᵀ − u_b v_aᵀ), over the pairs with
    /// σ_a + σ_b ≥ [`MIN_PAIR_SUM`] (the others' rotation held fixed).
    fn rotation_derivative(&self, r: usize, c: usize) -> Matrix3<f64> {
        let (u, v) = (&self.u, &self.v);
        let mut d = Matrix3::zeros();
        for (a, b) in [(0, 1), (0, 2), (1, 2)] {
            let s = self.sigma[a] + self.sigma[b];
            if s >= MIN_PAIR_SUM {
                let w = (u[(r, a)] * v[(c, b)] - u[(r, b)] * v[(c, a)]) / s;
                d += (u.column(a) * v.column(b).transpose() - u.column(b) * v.column(a).transpose()) * w;
            }
        }
        d
    }

    /// [`component`] from this decomposition of `f`.
    #[inline]
    pub fn component(&self, f: &Matrix3<f64>, k: usize, exact: bool) -> (f64, Matrix3<f64>) {
        let (r, c) = (k / 3, k % 3);
        let mut g = if exact { -self.rotation_derivative(r, c) } else { Matrix3::zeros() };
        g[(r, c)] += 1.0;
        (f[(r, c)] - self.u.row(r).dot(&self.v.row(c)), g)
    }
}

/// The rotation R of F = R S.
pub fn rotation(f: &Matrix3<f64>) -> Matrix3<f64> {
    Polar::new(f).rotation()
}

/// (C, ∂C/∂F).
#[inline]
pub fn arap(f: &Matrix3<f64>) -> (f64, Matrix3<f64>) {
    let d = f - rotation(f);
    let c = d.norm();
    if c < 1e-6 {
        (c, Matrix3::zeros())
    } else {
        (c, d * (1.0 / c))
    }
}

/// (C_k, ∂C_k/∂F) of the smooth row C_k = (F − R)_k, entry k = 3·row + column. With `exact` the
/// gradient is E_k − ∂R_k/∂F of the polar rotation (held fixed only about axes whose pair of singular
/// values sums below [`MIN_PAIR_SUM`]): a rigid rotation of the vertices, dF = [θ]× F, changes the
/// nine rows by [θ]× (F − R), nothing at a rotated rest state. Otherwise R is held fixed, E_k (a
/// corotated linearisation that counts rotation increments as strain). Σ_k (F − R)_k ∂R_k/∂F = 0, so
/// Σ_k C_k ∂C_k/∂F = F − R = ∂(½‖F − R‖²)/∂F either way.
#[inline]
pub fn component(f: &Matrix3<f64>, k: usize, exact: bool) -> (f64, Matrix3<f64>) {
    Polar::new(f).component(f, k, exact)
}

/// Ψ = μ/2 ‖F − R‖².
pub fn energy_density(f: &Matrix3<f64>, mu: f64) -> f64 {
    0.5 * mu * (f - rotation(f)).norm_squared()
}

#[cfg(test)]
#[path = "arap_tests.rs"]
mod tests;
