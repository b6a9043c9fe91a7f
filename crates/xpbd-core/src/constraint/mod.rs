//! Constraints (docs/equations.md): each concept in its own file, the shared XPBD block update in
//! `projection`, and the per-element dispatch of tet material models in `tet_model`.

pub mod arap;
pub mod bending;
pub mod block_solve;
pub mod distance;
pub mod mass_split;
pub mod neohookean;
pub mod pbd;
pub mod projection;
pub mod strain_limit;
pub mod stvk;
pub mod tet;
pub mod tet_model;
pub mod volume;

#[cfg(test)]
mod tests;
