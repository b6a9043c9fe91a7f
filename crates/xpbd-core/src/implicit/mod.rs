//! The pieces of the implicit FEM solvers (thesis "Adaptive methods for elastic deformation", ch. 3):
//! settings, the reduced rigid–elastic coordinates, the block pattern of their system, rigid bodies found by
//! breadth-first search, strain rates, the compliant projected Gauss-Seidel contact solve and the
//! elastification oracle, and the step's phase timers. The step itself is the CPU backend's (`xpbd-cpu/src/implicit/`).

pub mod bodies;
pub mod dofs;
pub mod pattern;
pub mod pgs;
pub mod phases;
pub mod settings;
