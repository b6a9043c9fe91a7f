//! As-rigid-as-possible constraint (DESIGN.md §7, MGPBD): C = ‖F − R‖_F = sqrt(Σ(σ_i − 1)²) with R the
//! rotation of the polar decomposition, ∂C/∂F = (F − R)/C (zero when C < 1e-6), α = 1/(μV).

use nalgebra::{Matrix3, Vector3};

/// Below this sum of two signed singular values the rotation about their axis is held fixed in the
/// component rows' gradient. The exact Gauss–Newton stiffness of that rotation, (1 − 2/(σ_a + σ_b))²,
/// equals the fixed-rotation one (1) here and exceeds it below (R is not differentiable at 0).
pub const MIN_PAIR_SUM: f64 = 1.0;

/// F = U Σ Vᵀ with the reflection moved onto the smallest singular value, so that R = U Vᵀ has
/// det R = +1 even for inverted elements (then σ₃ < 0), and S = V Σ Vᵀ. Computed once per element
/// and shared by its nine component rows ([`Polar::component`]).
#[derive(Clone, Copy, Debug)]
pub struct Polar {
    u: Matrix3<f64>,
    sigma: Vector3<f64>,
    v: Matrix3<f64>,
}

impl Polar {
    pub fn new(f: &Matrix3<f64>) -> Self {
        let svd = f.svd(true, true);
        let (mut u, v_t, mut sigma) = (svd.u.unwrap(), svd.v_t.unwrap(), svd.singular_values);
        if (u * v_t).determinant() < 0.0 {
            // nalgebra sorts singular values in decreasing order: flip the last column.
            let c = -u.column(2);
            u.set_column(2, &c);
            sigma[2] = -sigma[2];
        }
        Polar { u, sigma, v: v_t.transpose() }
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

impl Polar {
    /// [`component`] from this decomposition of `f`.
    #[inline]
    pub fn component(&self, f: &Matrix3<f64>, k: usize, exact: bool) -> (f64, Matrix3<f64>) {
        let (r, c) = (k / 3, k % 3);
        let mut g = if exact { -self.rotation_derivative(r, c) } else { Matrix3::zeros() };
        g[(r, c)] += 1.0;
        (f[(r, c)] - self.u.row(r).dot(&self.v.row(c)), g)
    }
}

/// Ψ = μ/2 ‖F − R‖².
pub fn energy_density(f: &Matrix3<f64>, mu: f64) -> f64 {
    0.5 * mu * (f - rotation(f)).norm_squared()
}

#[cfg(test)]
#[path = "arap_tests.rs"]
mod tests;
