//! Bending energy of one hinge, the two triangles (x0, x1, x2) and (x1, x0, x3) sharing the edge x0–x1
//! (thesis "Adaptive methods for elastic deformation", Eq. 4.4; Grinspun et al. 2003, "Discrete Shells";
//! Tamstorf & Grinspun 2013, "Discrete bending forces and their Jacobians"):
//!
//! E = k · w · (θ − θ̄)²,  w = ‖ē‖² / Ā,  Ā = (Ā₁ + Ā₂)/3,
//!
//! θ the signed dihedral angle of [`crate::constraint::bending`] (0 when flat), θ̄ its rest value, ē the rest
//! edge and Ā₁, Ā₂ the rest areas of the two triangles (Ā is the third of their area that the edge stands for:
//! the Ā of all edges sum to the mesh's area). The thesis prints Eq. 4.4 without the square on θ − θ̄ and
//! without the constant; this is the Tamstorf–Grinspun form: w(θ − θ̄)² = ((θ − θ̄)/h̄)² Ā with h̄ = Ā/‖ē‖ the
//! width of the strip the edge stands for, i.e. a squared curvature (angle per width) integrated over Ā.
//!
//! # Calibration k = D/6
//!
//! A plate of modulus D = E t³/(12(1 − ν²)) bent onto a cylinder of curvature κ stores D/2 · κ² per unit area.
//! Take a regular grid of squares of side a, each split into two right triangles, bent onto that cylinder with
//! the axis along one family of grid lines. Every square stays planar (its corners lie on two rulings), so the
//! diagonals and the edges across the axis have θ = 0, and each edge parallel to the axis has θ = κa exactly
//! (the angle between neighbouring chord planes). Such an edge has Ā = (a²/2 + a²/2)/3 = a²/3, so w = 3, and
//! there is one per square: Σ w θ² = 3κ²a² per cell of area a², i.e. 3κ² per unit area. Equating
//! k · 3κ² = D/2 · κ² gives k = D/6 ([`super::ShellMaterial::hinge_stiffness`]). The same
//! holds with the axis along the other grid family, and along the diagonal that splits the squares (each
//! diagonal, w = 2a²/(a²/3) = 6, turns by κa/√2: 6 · κ²a²/2 = 3κ²a² per cell).
//!
//! The hinge energy depends on the mesh's edge directions, though (the dihedral-angle energies converge to the
//! smooth one only on suitably symmetric meshes; cf. Wardetzky et al. 2007, "Discrete quadratic curvature
//! energies"). Measured in the tests (energy density of the bent sheet over D/2 · κ², away from its border):
//! 1.000 on the right-triangle grid bent about either grid direction or the splitting diagonal, 1.000 on an
//! equilateral lattice bent about any direction, but 3.00 on the right-triangle grid bent about the *other*
//! diagonal, where every square twists out of its plane and all three edges of a cell bend. Meshes with a
//! preferred diagonal are therefore up to 3× stiffer in bending about that direction; near-equilateral meshes
//! are isotropic and calibrated by k = D/6. A finite open sheet also lacks the hinges of its border: on the
//! right-triangle grid bent about a grid direction its total is (1 − 1/n) of D/2 · κ² · area.
//!
//! # Hessian
//!
//! ∂θ/∂x is Bridson et al.'s closed form ([`crate::constraint::bending::bending`]), with e = x1 − x0,
//! n₁ = e × (x2 − x0), n₂ = (x3 − x0) × e, uᵢ = nᵢ/‖nᵢ‖², s_j = (x_j − x1)·ê, t_j = (x_j − x0)·ê:
//!
//! ∂θ/∂x0 = −(s₂u₁ + s₃u₂),  ∂θ/∂x1 = t₂u₁ + t₃u₂,  ∂θ/∂x2 = −‖e‖u₁,  ∂θ/∂x3 = −‖e‖u₂.
//!
//! [`angle_hessian`] differentiates these products term by term: ∂uᵢ = (I − 2n̂ᵢn̂ᵢᵀ)/‖nᵢ‖² ∂nᵢ with ∂nᵢ
//! cross-product matrices of the edge vectors, ∂‖e‖ = ±ê, ∂ê = (I − êêᵀ)/‖e‖ ∂e. Then
//! ∂²E/∂x² = 2kw(∇θ∇θᵀ + (θ − θ̄)∇²θ).

use super::Stencil;
use crate::constraint::bending::{bending, dihedral_angle};
use crate::fem::energy::project_psd;
use crate::mesh::Vec3;
use nalgebra::{Matrix3, SMatrix, SVector};
use std::f64::consts::TAU;

/// Rest data of one hinge (x0, x1 the shared edge; x2, x3 the opposite vertices, same order as
/// constraint/bending.rs): rest dihedral angle θ̄ and weight w = ‖ē‖²/Ā with Ā = (A₁ + A₂)/3.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HingeRest {
    /// θ̄, rad, in (−π, π].
    pub rest_angle: f64,
    /// w = ‖ē‖²/Ā, dimensionless.
    pub weight: f64,
}

impl HingeRest {
    /// The rest data of the hinge; `None` if the edge or either triangle is degenerate (area ≤ 10⁻¹² ‖ē‖² · the
    /// triangle's longer side², i.e. relative, or not finite).
    pub fn new(x: &[Vec3; 4]) -> Option<Self> {
        let e = x[1] - x[0];
        let le2 = e.norm_squared();
        let a1 = 0.5 * e.cross(&(x[2] - x[0])).norm();
        let a2 = 0.5 * (x[3] - x[0]).cross(&e).norm();
        let s1 = (x[2] - x[0]).norm_squared().max(le2);
        let s2 = (x[3] - x[0]).norm_squared().max(le2);
        if !(le2.is_finite() && le2 > 0.0 && a1 > 1e-12 * s1 && a2 > 1e-12 * s2 && a1.is_finite() && a2.is_finite()) {
            return None;
        }
        Some(HingeRest { rest_angle: dihedral_angle(x), weight: 3.0 * le2 / (a1 + a2) })
    }
}

/// θ unwrapped to the branch nearest `previous` (θ_raw + 2π·round((previous − θ_raw)/2π)): continuous through ±π.
pub fn unwrap_angle(raw: f64, previous: f64) -> f64 {
    raw + TAU * ((previous - raw) / TAU).round()
}

/// [u]× with [u]× v = u × v.
fn cross(u: &Vec3) -> Matrix3<f64> {
    u.cross_matrix()
}

/// ∇²θ, the exact 12×12 Hessian of the dihedral angle of [`dihedral_angle`] (node a at 3a..3a+3), by
/// differentiating Bridson's gradient (module docs). Zero for a degenerate hinge (where [`bending`]'s gradient
/// is zero too).
pub fn angle_hessian(x: &[Vec3; 4]) -> SMatrix<f64, 12, 12> {
    let e = x[1] - x[0];
    let (d2, d3) = (x[2] - x[0], x[3] - x[0]);
    let n1 = e.cross(&d2);
    let n2 = d3.cross(&e);
    let (le, a1, a2) = (e.norm(), n1.norm_squared(), n2.norm_squared());
    let mut h = SMatrix::<f64, 12, 12>::zeros();
    if le < 1e-15 || a1 < 1e-30 || a2 < 1e-30 {
        return h;
    }
    let id = Matrix3::identity();
    let eh = e / le;
    let proj = id - eh * eh.transpose();
    let (u1, u2) = (n1 / a1, n2 / a2);
    let m1 = (id - n1 * n1.transpose() * (2.0 / a1)) / a1;
    let m2 = (id - n2 * n2.transpose() * (2.0 / a2)) / a2;
    let zero = Matrix3::zeros();
    // ∂n₁/∂x_b, ∂n₂/∂x_b.
    let dn1 = [cross(&d2) - cross(&e), -cross(&d2), cross(&e), zero];
    let dn2 = [cross(&e) - cross(&d3), cross(&d3), zero, -cross(&e)];
    // ∂‖e‖/∂x_b, ∂t₂/∂x_b, ∂t₃/∂x_b (as column vectors; s_j = t_j − ‖e‖).
    let z = Vec3::zeros();
    let dle = [-eh, eh, z, z];
    let (p2, p3) = (proj * d2 / le, proj * d3 / le);
    let dt2 = [-eh - p2, p2, eh, z];
    let dt3 = [-eh - p3, p3, z, eh];
    let (t2, t3) = (d2.dot(&eh), d3.dot(&eh));
    let (s2, s3) = (t2 - le, t3 - le);
    for b in 0..4 {
        let du1 = m1 * dn1[b];
        let du2 = m2 * dn2[b];
        let (ds2, ds3) = (dt2[b] - dle[b], dt3[b] - dle[b]);
        let blocks = [
            -(u1 * ds2.transpose() + du1 * s2 + u2 * ds3.transpose() + du2 * s3),
            u1 * dt2[b].transpose() + du1 * t2 + u2 * dt3[b].transpose() + du2 * t3,
            -(u1 * dle[b].transpose() + du1 * le),
            -(u2 * dle[b].transpose() + du2 * le),
        ];
        for (a, block) in blocks.iter().enumerate() {
            h.fixed_view_mut::<3, 3>(3 * a, 3 * b).copy_from(block);
        }
    }
    (h + h.transpose()) * 0.5
}

/// Bending energy k·w·(θ − θ̄)² with θ the dihedral angle unwrapped next to `previous` (pass θ̄ or the last
/// step's angle), its forces and stiffness (exact Hessian 2kw(∇θ∇θᵀ + (θ − θ̄)∇²θ); `project` = true: projected
/// to PSD by clamping the negative eigenvalues of the 12×12 to zero). The term 2kw∇θ∇θᵀ alone is PSD but drops
/// the curvature of θ, which is not PSD in general, so the whole matrix is projected.
///
/// With `previous` = θ̄ the hinge resists folding up to θ − θ̄ = ±π and then flips branch (the energy peaks at
/// k·w·π² and the force reverses); passing the last step's angle lets a fold continue past π with growing energy.
pub fn hinge_state(k: f64, rest: &HingeRest, x: &[Vec3; 4], previous: f64, project: bool) -> Stencil<12> {
    let (raw, g) = bending(x, 0.0);
    let theta = unwrap_angle(raw, previous);
    let d = theta - rest.rest_angle;
    let c = k * rest.weight;
    let grad = SVector::<f64, 12>::from_fn(|i, _| g[i / 3][i % 3]);
    let hess = (grad * grad.transpose() + angle_hessian(x) * d) * (2.0 * c);
    let stiffness = if project { project_psd(&hess) } else { hess };
    Stencil { energy: c * d * d, force: grad * (-2.0 * c * d), stiffness }
}
