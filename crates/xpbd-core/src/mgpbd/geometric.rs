//! The block-diagonal geometric stiffness of MGPBD's outer loop (docs/mgpbd.md, "Why the outer loop
//! stalls"). The Newton system of XPBD (XPBD paper Eq. 8–9) has the primal matrix
//! `K = M − Σ_i λ_i ∇²C_i`; MGPBD (and the paper) drop the second term, `K = M`. For the cone rows
//! `C = ‖F − R‖` (ARAP) and `C = ‖x₁ − x₀‖ − L` (cloth edges) that term is not small: at a solution
//! `−λ_i = C_i / α̃_i`, so `−λ_i ∇²C_i` is of the order of the material stiffness `1/α̃` in every
//! direction orthogonal to `∇C_i`, against the rank-one `∇C_i ∇C_iᵀ / α̃` that the dual matrix sees.
//! Here each row adds the per-vertex 3×3 diagonal blocks of `max(−λ_i, 0) ∇²C_i` to `M` (positive
//! semi-definite, so `K` stays positive definite); neo-Hookean and hinge rows add nothing.

use super::rows::{RowKind, Rows};
use crate::constraint::tet::node_gradients;
use crate::mesh::Vec3;
use crate::model::Model;
use nalgebra::Matrix3;

/// The (slot `a`, slot `a`) block of `∇²C_i` at gradient `grad` = ∇_a C_i and value `c`:
/// `(‖g_a‖² I − ∇_aC ∇_aCᵀ) / C` for ARAP with the rotation held fixed (g_a: the node's shape-function
/// gradient, `∂F/∂x_a = I ⊗ g_a`), `(I − n nᵀ) / ℓ` for an edge of length ℓ; zero otherwise and where
/// the row's gradient vanishes (ARAP at rest).
pub fn hessian_block(model: &Model, rows: &Rows, i: usize, a: usize, c: f64, grad: &Vec3) -> Matrix3<f64> {
    let (g, e) = (rows.group[i] as usize, rows.element[i] as usize);
    let (shape, length) = match rows.kind[i] {
        RowKind::Arap => (node_gradients(&Matrix3::identity(), &model.tet_groups[g].rest[e].dm_inv)[a].norm_squared(), c),
        RowKind::Edge => (1.0, c + model.cloth_groups[g].rest_length[e]),
        _ => return Matrix3::zeros(),
    };
    if *grad == Vec3::zeros() || length <= 0.0 {
        return Matrix3::zeros();
    }
    (Matrix3::identity() * shape - grad * grad.transpose()) / length
}

/// `K_v⁻¹ = (m_v I + Σ_{rows at v} max(−λ_i, 0) ∇²_{vv} C_i)⁻¹` for the free vertex `v`, whose rows
/// are `(row, slot)` pairs, at row values `c`, gradients `grads` and multipliers `lambda`.
pub fn inverse_block(model: &Model, rows: &Rows, v: usize, at_vertex: &[(u32, u8)], c: &[f64], grads: &[[Vec3; 4]], lambda: &[f64]) -> Matrix3<f64> {
    let mut k = Matrix3::identity() / model.inv_mass[v];
    for &(r, a) in at_vertex {
        let (r, a) = (r as usize, a as usize);
        if lambda[r] < 0.0 {
            k -= hessian_block(model, rows, r, a, c[r], &grads[r][a]) * lambda[r];
        }
    }
    k.try_inverse().expect("m I plus a positive semi-definite block is invertible")
}
