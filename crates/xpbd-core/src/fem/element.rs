//! Linear tetrahedron (thesis Eq. 3.1–3.4): F = D_s D_m⁻¹ = B x per element, energy V ψ(F), forces and a
//! positive semi-definite stiffness for the implicit integrator.

use super::energy::{project_psd, Energy, Mat9};
use crate::constraint::tet::{deformation_gradient, node_gradients, shape_matrix, TetRest};
use crate::material::Lame;
use crate::mesh::Vec3;
use nalgebra::{Matrix3, Matrix4x3, SMatrix, SVector};

/// D̃ (4×3) with F = Σ_a x_a D̃_aᵀ: rows 1–3 are D_m⁻¹'s rows, row 0 minus their sum. B = D̃ᵀ ⊗ I₃.
#[inline(always)]
fn node_weights(dm_inv: &Matrix3<f64>) -> Matrix4x3<f64> {
    let mut d = Matrix4x3::zeros();
    d.fixed_view_mut::<3, 3>(1, 0).copy_from(dm_inv);
    for c in 0..3 {
        d[(0, c)] = -(dm_inv[(0, c)] + dm_inv[(1, c)] + dm_inv[(2, c)]);
    }
    d
}

/// The 9×12 matrix B with vec(F) = B · [x0; x1; x2; x3] (thesis Eq. 3.1–3.4, F = Bx per element):
/// B[3c + r, 3a + r] = D̃[a, c], D̃ as in `node_weights` (each column of F depends on one column of D_m⁻¹).
pub fn shape_map(dm_inv: &Matrix3<f64>) -> SMatrix<f64, 9, 12> {
    let d = node_weights(dm_inv);
    let mut b = SMatrix::<f64, 9, 12>::zeros();
    for a in 0..4 {
        for c in 0..3 {
            for r in 0..3 {
                b[(3 * c + r, 3 * a + r)] = d[(a, c)];
            }
        }
    }
    b
}

/// Energy, nodal forces and stiffness of one element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ElementState {
    /// V ψ(F), J.
    pub energy: f64,
    /// f = −∂(Vψ)/∂x, node a at 3a..3a+3.
    pub force: SVector<f64, 12>,
    /// K = V Bᵀ (∂P/∂F) B, symmetric.
    pub stiffness: SMatrix<f64, 12, 12>,
}

/// Elastic energy V ψ, nodal forces f = −V Bᵀ vec(P), and stiffness K = V Bᵀ (∂P/∂F)₊ B with (∂P/∂F)₊ projected
/// to positive semi-definite, so that M + h²K stays positive definite where the energy is not convex.
/// The eigen-projection is skipped where [`Energy`]'s analytic eigenvalues show ∂P/∂F is already PSD
/// (ARAP and corotational, see `Energy::evaluate`); StVK and stable neo-Hookean are always projected.
pub fn element_state(energy: Energy, lame: Lame, rest: &TetRest, x: &[Vec3; 4]) -> ElementState {
    state(energy, lame, rest, x, true)
}

/// [`element_state`] with the exact, unprojected stiffness K = V Bᵀ (∂P/∂F) B = ∂²(Vψ)/∂x².
pub fn element_state_unprojected(energy: Energy, lame: Lame, rest: &TetRest, x: &[Vec3; 4]) -> ElementState {
    state(energy, lame, rest, x, false)
}

fn state(energy: Energy, lame: Lame, rest: &TetRest, x: &[Vec3; 4], project: bool) -> ElementState {
    let f = deformation_gradient(x, &rest.dm_inv);
    let (psi, p, mut h, psd) = energy.evaluate(&f, lame);
    if project && !psd {
        h = match energy {
            Energy::StableNeoHookean => super::neohookean_projection::projected_hessian(&f, lame, &h),
            _ => project_psd(&h),
        };
    }
    let d = node_weights(&rest.dm_inv);
    let v = rest.volume;
    // f_a = −V P D̃_aᵀ (the columns of −V P D̃ᵀ).
    let g = p * d.transpose() * -v;
    let force = SVector::<f64, 12>::from_column_slice(g.as_slice());
    ElementState { energy: v * psi, force, stiffness: bt_h_b(&h, &d, v) }
}

/// The nodal forces f = −V Bᵀ vec(P) alone, without the stiffness (matrix-free passes).
pub fn element_forces(energy: Energy, lame: Lame, rest: &TetRest, x: &[Vec3; 4]) -> [Vec3; 4] {
    let p = energy.stress(&deformation_gradient(x, &rest.dm_inv), lame);
    node_gradients(&p, &rest.dm_inv).map(|g| -g * rest.volume)
}

/// K·d without K: the nodal forces' directional derivative −∂f/∂x · d = V Bᵀ vec(∂P/∂F[δF]), δF = D(d) D_m⁻¹,
/// with ∂P/∂F[δF] by a central difference of the stress (step 10⁻⁶ max(‖F‖, 1)/‖δF‖). The exact, unprojected K.
pub fn stiffness_product(energy: Energy, lame: Lame, rest: &TetRest, x: &[Vec3; 4], d: &[Vec3; 4]) -> [Vec3; 4] {
    let f = deformation_gradient(x, &rest.dm_inv);
    let df: Matrix3<f64> = shape_matrix(d) * rest.dm_inv;
    let size = df.norm();
    if size == 0.0 {
        return [Vec3::zeros(); 4];
    }
    let eps = 1e-6 * f.norm().max(1.0) / size;
    let dp = (energy.stress(&(f + df * eps), lame) - energy.stress(&(f - df * eps), lame)) / (2.0 * eps);
    node_gradients(&dp, &rest.dm_inv).map(|g| g * rest.volume)
}

/// V Bᵀ H B with B = D̃ᵀ ⊗ I₃: K[3a + r, 3b + s] = V Σ_{c,d} D̃[a,c] H[3c + r, 3d + s] D̃[b,d], as two
/// 3-term contractions (H B, then Bᵀ(HB)) instead of dense 9×12 products.
#[inline]
fn bt_h_b(h: &Mat9, d: &Matrix4x3<f64>, v: f64) -> SMatrix<f64, 12, 12> {
    let mut hb = SMatrix::<f64, 9, 12>::zeros();
    for b in 0..4 {
        let (w0, w1, w2) = (d[(b, 0)] * v, d[(b, 1)] * v, d[(b, 2)] * v);
        for s in 0..3 {
            let col = w0 * h.column(s) + w1 * h.column(3 + s) + w2 * h.column(6 + s);
            hb.set_column(3 * b + s, &col);
        }
    }
    let mut k = SMatrix::<f64, 12, 12>::zeros();
    for a in 0..4 {
        let (w0, w1, w2) = (d[(a, 0)], d[(a, 1)], d[(a, 2)]);
        for j in 0..12 {
            for r in 0..3 {
                k[(3 * a + r, j)] = w0 * hb[(r, j)] + w1 * hb[(3 + r, j)] + w2 * hb[(6 + r, j)];
            }
        }
    }
    (k + k.transpose()) * 0.5
}
