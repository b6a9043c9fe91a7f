//! As-rigid-as-possible constraint (DESIGN.md §7, MGPBD): C = ‖F − R‖_F = sqrt(Σ(σ_i − 1)²) with R the
//! rotation of the polar decomposition, ∂C/∂F = (F − R)/C (zero when C < 1e-6), α = 1/(μV).

use nalgebra::Matrix3;

/// The rotation R of F = R S, from the SVD with the reflection moved onto the smallest singular value
/// so that det R = +1 even for inverted elements.
pub fn rotation(f: &Matrix3<f64>) -> Matrix3<f64> {
    let svd = f.svd(true, true);
    let (mut u, v_t) = (svd.u.unwrap(), svd.v_t.unwrap());
    if (u * v_t).determinant() < 0.0 {
        // nalgebra sorts singular values in decreasing order: flip the last column.
        let c = -u.column(2);
        u.set_column(2, &c);
    }
    u * v_t
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

/// (C_k, ∂C_k/∂F) of the smooth row C_k = (F − R)_k, entry k = 3·row + column, with R held fixed in
/// the gradient (a corotated Gauss–Newton linearisation): ∂C_k/∂F = E_k. Exact where it matters:
/// Σ_k (F − R)_k E_k = F − R = ∂(½‖F − R‖²)/∂F, since ∂R/∂F : (F − R) = 0 for the polar rotation.
#[inline]
pub fn component(f: &Matrix3<f64>, k: usize) -> (f64, Matrix3<f64>) {
    let (r, c) = (k / 3, k % 3);
    let mut e = Matrix3::zeros();
    e[(r, c)] = 1.0;
    (f[(r, c)] - rotation(f)[(r, c)], e)
}

/// Ψ = μ/2 ‖F − R‖².
pub fn energy_density(f: &Matrix3<f64>, mu: f64) -> f64 {
    0.5 * mu * (f - rotation(f)).norm_squared()
}
