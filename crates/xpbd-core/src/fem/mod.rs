//! Hyperelastic finite elements for the implicit integrator (thesis "Adaptive methods for elastic
//! deformation", ch. 3): energy densities with their stress and stress derivative ([`energy`]) and the
//! linear tetrahedron's energy, forces and projected stiffness ([`element`]); the discrete shell's membrane and
//! hinge stencils (ch. 4, [`shell`]).

pub mod element;
pub mod energy;
pub mod neohookean_projection;
pub mod shell;

pub use element::{element_state, element_state_unprojected, shape_map, ElementState};
pub use energy::{green_strain, project_psd, Energy};

#[cfg(test)]
mod tests;
