//! Bending of one triangle through its discrete shape operator (Grinspun, Gingold, Reisman & Zorin 2006,
//! "Computing discrete shape operators on general meshes"; the plate energy of Kirchhoff–Love theory on it):
//!
//! S = Σᵢ θᵢ cᵢ,  cᵢ = ‖ēᵢ‖/(2Ā) t̄ᵢ t̄ᵢᵀ,   E = Ā · t³/12 · [μ ‖S − S̄‖²_F + (λ/2) tr²(S − S̄)],
//!
//! over the triangle's three edges i (edge i opposite vertex i), θᵢ the dihedral angle of the hinge on edge i
//! (0 on a border edge, which has none), ēᵢ the rest edge, t̄ᵢ the unit in-plane normal of the rest edge, Ā the
//! rest area and (μ, λ) the plane-stress Lamé parameters. The plate's energy density is
//! D/2·[(1 − ν)‖S‖² + ν tr² S] = t³/12·[μ‖S‖² + (λ/2)tr² S] with D = E t³/(12(1 − ν²)). Since S − S̄ = Σᵢ Δθᵢ cᵢ,
//! E = Δθᵀ Q Δθ with the constant 3×3
//!
//! Q_ij = Ā t³/12 · [μ cᵢ : c_j + (λ/2) tr cᵢ tr c_j] = t³ ‖ēᵢ‖‖ē_j‖ / (48 Ā) · [μ (êᵢ·ê_j)² + λ/2],
//!
//! which is positive definite (the three cᵢ span the symmetric 2×2 tensors), so no combination of the edges'
//! folds is free. The hinge energy k·w·Δθ² ([`super::hinge`]) is the diagonal of such a form with a fixed
//! coupling: on a narrow clamped strip its cells fold along their diagonals and bend anticlastically, which
//! leaves it about 25 % softer than beam theory (docs/shells.md); this element gives the plate's own ν.
//!
//! A cylinder of curvature κ on a right-triangle grid bends only the edges along its axis, θ = κa on an edge of
//! length a, one per triangle of area a²/2: E = t³/12 · μ κ² a²/2 = D/2·κ²·A for ν = 0.

use super::hinge::angle_hessian;
use super::{ShellMaterial, Stencil};
use crate::constraint::bending::bending;
use crate::fem::energy::project_psd;
use crate::mesh::Vec3;
use nalgebra::{Matrix3, SMatrix, SVector, Vector3};

/// One of a triangle's hinges as its bending stencil reads it: the hinge's vertices (x0, x1 the shared edge, x2,
/// x3 the wings, as in [`crate::constraint::bending`]), its rest angle θ̄ and its angle at the last step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHinge {
    pub vertices: [u32; 4],
    pub rest_angle: f64,
    pub previous: f64,
}

/// The constant Q of one triangle (rows and columns: its edges, edge i opposite vertex i).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeOperatorRest {
    pub q: Matrix3<f64>,
}

impl ShapeOperatorRest {
    /// Q of the triangle with rest positions `x` (module docs).
    pub fn new(material: &ShellMaterial, x: &[Vec3; 3]) -> Self {
        let (mu, lambda) = material.plane_stress();
        let e: [Vec3; 3] = std::array::from_fn(|i| x[(i + 2) % 3] - x[(i + 1) % 3]);
        let area = 0.5 * e[1].cross(&e[2]).norm();
        let t3 = material.thickness.powi(3);
        let q = Matrix3::from_fn(|i, j| {
            let (li, lj) = (e[i].norm(), e[j].norm());
            let cos = e[i].dot(&e[j]) / (li * lj);
            t3 * li * lj / (48.0 * area) * (mu * cos * cos + 0.5 * lambda)
        });
        ShapeOperatorRest { q }
    }
}

/// The stencil's nodes: the triangle's three vertices, then the far wing of each hinge present, in edge order.
/// Returns the nodes and how many of the six are used.
pub fn stencil_nodes(triangle: &[u32; 3], hinges: &[Option<TriangleHinge>; 3]) -> ([u32; 6], usize) {
    let mut nodes = [triangle[0], triangle[1], triangle[2], 0, 0, 0];
    let mut n = 3;
    for h in hinges.iter().flatten() {
        let far = if triangle.contains(&h.vertices[2]) { h.vertices[3] } else { h.vertices[2] };
        nodes[n] = far;
        n += 1;
    }
    (nodes, n)
}

/// Energy Δθᵀ Q Δθ of the triangle `triangle` with its `hinges` (edge i's hinge, `None` on the border) at `x`, its
/// forces and stiffness over [`stencil_nodes`] (node a at 3a..3a+3; the rows of unused nodes are zero). Each
/// θᵢ is unwrapped next to its hinge's `previous`. Stiffness: Σ 2Q_ij ∇θᵢ∇θ_jᵀ + Σ 2(QΔθ)ᵢ ∇²θᵢ; `project`:
/// projected to PSD by clamping its negative eigenvalues.
pub fn shape_operator_state(rest: &ShapeOperatorRest, triangle: &[u32; 3], hinges: &[Option<TriangleHinge>; 3], x: &[Vec3], project: bool) -> Stencil<18> {
    let (nodes, _) = stencil_nodes(triangle, hinges);
    let slot = |v: u32| nodes.iter().position(|&n| n == v).expect("a hinge vertex is a stencil node");
    let mut delta = Vector3::zeros();
    let mut gradients = [SVector::<f64, 18>::zeros(); 3];
    let mut curvatures: [Option<(SMatrix<f64, 12, 12>, [usize; 4])>; 3] = [None; 3];
    for (i, h) in hinges.iter().enumerate() {
        let Some(h) = h else { continue };
        let xh = h.vertices.map(|v| x[v as usize]);
        let (raw, grad) = bending(&xh, 0.0);
        delta[i] = super::unwrap_angle(raw, h.previous) - h.rest_angle;
        let slots = h.vertices.map(slot);
        for (a, &s) in slots.iter().enumerate() {
            gradients[i].fixed_rows_mut::<3>(3 * s).copy_from(&grad[a]);
        }
        curvatures[i] = Some((angle_hessian(&xh), slots));
    }
    let q_delta = rest.q * delta;
    let mut force = SVector::<f64, 18>::zeros();
    let mut stiffness = SMatrix::<f64, 18, 18>::zeros();
    for i in 0..3 {
        force -= gradients[i] * (2.0 * q_delta[i]);
        for j in 0..3 {
            stiffness += gradients[i] * gradients[j].transpose() * (2.0 * rest.q[(i, j)]);
        }
        if let Some((h, slots)) = &curvatures[i] {
            for (a, &sa) in slots.iter().enumerate() {
                for (b, &sb) in slots.iter().enumerate() {
                    let block = h.fixed_view::<3, 3>(3 * a, 3 * b) * (2.0 * q_delta[i]);
                    let mut target = stiffness.fixed_view_mut::<3, 3>(3 * sa, 3 * sb);
                    target += block;
                }
            }
        }
    }
    let stiffness = if project { project_psd(&stiffness) } else { stiffness };
    Stencil { energy: delta.dot(&q_delta), force, stiffness }
}
