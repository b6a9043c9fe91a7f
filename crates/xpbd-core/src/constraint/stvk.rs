//! St. Venant–Kirchhoff in Voigt form (docs/equations.md): C = [E11, E22, E33, E12, E13, E23] with
//! E = ½(FᵀF − I). The normal rows form one 3×3 block with α⁻¹ = V [[λ+2μ, λ, λ], …]; each shear row
//! is a scalar constraint with α⁻¹ = 4μV. Then ½ Cᵀ α⁻¹ C = V Ψ, Ψ = μ‖E‖² + λ/2 tr²E.

use crate::material::Lame;
use nalgebra::Matrix3;

/// The (row, column) pairs of the shear rows E12, E13, E23.
pub const SHEAR: [(usize, usize); 3] = [(0, 1), (0, 2), (1, 2)];

/// Normal rows (E11, E22, E33) and their ∂/∂F: column i of ∂E_ii/∂F is f_i.
#[inline(always)]
pub fn normal_rows(f: &Matrix3<f64>) -> ([f64; 3], [Matrix3<f64>; 3]) {
    let mut c = [0.0; 3];
    let mut g = [Matrix3::zeros(); 3];
    for i in 0..3 {
        let fi = f.column(i);
        c[i] = 0.5 * (fi.dot(&fi) - 1.0);
        g[i].set_column(i, &fi);
    }
    (c, g)
}

/// Shear row E_ij = ½ f_i·f_j and its ∂/∂F: column i is ½ f_j, column j is ½ f_i.
#[inline(always)]
pub fn shear_row(f: &Matrix3<f64>, (i, j): (usize, usize)) -> (f64, Matrix3<f64>) {
    let (fi, fj) = (f.column(i), f.column(j));
    let mut g = Matrix3::zeros();
    g.set_column(i, &(fj * 0.5));
    g.set_column(j, &(fi * 0.5));
    (0.5 * fi.dot(&fj), g)
}

/// Compliance of the normal block, (V K)⁻¹ with K = 2μ I + λ 11ᵀ, in closed form:
/// K⁻¹ = I/(2μ) − λ 11ᵀ / (2μ (2μ + 3λ)).
pub fn normal_compliance(l: &Lame, v: f64) -> [[f64; 3]; 3] {
    let off = -l.lambda / (2.0 * l.mu * (2.0 * l.mu + 3.0 * l.lambda)) / v;
    let diag = 1.0 / (2.0 * l.mu * v) + off;
    [[diag, off, off], [off, diag, off], [off, off, diag]]
}

/// Compliance of one shear row, 1/(4μV).
pub fn shear_compliance(l: &Lame, v: f64) -> f64 {
    1.0 / (4.0 * l.mu * v)
}

/// Ψ = μ‖E‖² + λ/2 tr²E.
pub fn energy_density(f: &Matrix3<f64>, l: &Lame) -> f64 {
    let e = (f.transpose() * f - Matrix3::identity()) * 0.5;
    l.mu * e.norm_squared() + 0.5 * l.lambda * e.trace().powi(2)
}
