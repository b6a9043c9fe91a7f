//! `xpbd`: the facade. Load a scene, let the dispatcher pick a backend (DESIGN.md §3), run it and
//! write the outputs of DESIGN.md §5.

pub mod converge;
pub mod device;
pub mod dual_system;
pub mod output;
pub mod plot;
pub mod simulation;

pub use device::Device;
pub use simulation::{Simulation, Summary};
pub use xpbd_core as core;
