//! Discrete thin shells (thesis "Adaptive methods for elastic deformation", ch. 4; Grinspun et al. 2003,
//! "Discrete Shells"; Tamstorf & Grinspun 2013, "Discrete bending forces and their Jacobians"): the energy,
//! nodal forces and stiffness of the two stencils of a triangle-mesh shell, for the implicit integrator.
//!
//! - [`membrane`]: one triangle's in-plane (stretch and shear) energy t·A·ψ(F), Eq. 4.1–4.3, with the 3×3
//!   deformation gradient of Eq. 4.1–4.2 and StVK or neo-Hookean plane-stress densities.
//! - [`hinge`]: one interior edge's bending energy k·w·(θ − θ̄)² (Eq. 4.4 in the Tamstorf–Grinspun form), with
//!   the exact Hessian of the dihedral angle.
//! - [`shape_operator`]: one triangle's bending through its discrete shape operator from its three hinge angles,
//!   with the plate's μ and λ (the default: the hinge energy fixes its own Poisson coupling).
//!
//! Both return a [`Stencil`]: energy, forces f = −∂E/∂x and a (optionally PSD-projected) stiffness K = ∂²E/∂x².

pub mod hinge;
pub mod membrane;
pub mod shape_operator;

pub use hinge::{hinge_state, unwrap_angle, HingeRest};
pub use membrane::{deformation_gradient, membrane_state, membrane_strain, TriangleRest};
pub use shape_operator::{shape_operator_state, stencil_nodes, ShapeOperatorRest, TriangleHinge};

use nalgebra::{SMatrix, SVector};

/// Energy, nodal forces f = −∂E/∂x (node a at 3a..3a+3) and stiffness of one shell stencil of D = 3·nodes DOFs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stencil<const D: usize> {
    /// E, J.
    pub energy: f64,
    /// f = −∂E/∂x, N.
    pub force: SVector<f64, D>,
    /// K = ∂²E/∂x² (symmetric; PSD when projected), N/m.
    pub stiffness: SMatrix<f64, D, D>,
}

/// In-plane elasticity of a shell: plane-stress Lamé parameters and thickness.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShellMaterial {
    /// The membrane energy density.
    pub membrane: Membrane,
    /// The bending energy.
    pub bending: Bending,
    /// Young's modulus E, Pa.
    pub youngs: f64,
    /// Poisson's ratio ν, in (−1, 1) for plane stress.
    pub poisson: f64,
    /// Thickness t, m.
    pub thickness: f64,
}

impl ShellMaterial {
    /// μ = E/(2(1+ν)), plane-stress λ = Eν/(1−ν²): the 3-D λ = Eν/((1+ν)(1−2ν)) with the normal stress σ₃₃ = 0
    /// eliminated (λ_ps = 2μλ/(λ + 2μ)).
    pub fn plane_stress(&self) -> (f64, f64) {
        let (e, nu) = (self.youngs, self.poisson);
        (e / (2.0 * (1.0 + nu)), e * nu / (1.0 - nu * nu))
    }

    /// Plate modulus (flexural rigidity) D = E t³ / (12(1 − ν²)) (N·m).
    pub fn plate_modulus(&self) -> f64 {
        let (e, nu, t) = (self.youngs, self.poisson, self.thickness);
        e * t * t * t / (12.0 * (1.0 - nu * nu))
    }

    /// Hinge stiffness k = D/6 for [`hinge_state`]'s k·w·(θ − θ̄)² (the calibration is derived in [`hinge`]).
    pub fn hinge_stiffness(&self) -> f64 {
        self.plate_modulus() / 6.0
    }
}

/// Membrane energy densities ψ of the 3×2 in-plane deformation gradient F₂ (see [`membrane`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Membrane {
    /// St. Venant–Kirchhoff: ψ = μ‖E‖²_F + (λ/2)(tr E)², E = ½(F₂ᵀF₂ − I₂).
    StVK,
    /// Neo-Hookean: ψ = (μ/2)(tr(F₂ᵀF₂) − 2) − μ ln J + (λ/2)(ln J)², J = √det(F₂ᵀF₂) (area ratio).
    NeoHookean,
}

impl Membrane {
    /// "stvk" or "neohookean".
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "stvk" => Some(Membrane::StVK),
            "neohookean" => Some(Membrane::NeoHookean),
            _ => None,
        }
    }

    /// The name [`Membrane::from_name`] reads.
    pub fn name(self) -> &'static str {
        match self {
            Membrane::StVK => "stvk",
            Membrane::NeoHookean => "neohookean",
        }
    }
}

/// A shell's bending energy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bending {
    /// Each triangle's discrete shape operator with the plate's μ and λ ([`shape_operator`]).
    ShapeOperator,
    /// k·w·(θ − θ̄)² on each interior edge, k = D/6 ([`hinge`]; the thesis's Eq. 4.4).
    Hinge,
}

impl Bending {
    /// The scene name: `shape_operator` or `hinge`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "shape_operator" => Some(Bending::ShapeOperator),
            "hinge" => Some(Bending::Hinge),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
