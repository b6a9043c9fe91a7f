//! `xpbd`: the facade. Load a scene, let the dispatcher pick a backend (ARCHITECTURE.md), run it and
//! write the outputs of docs/output-format.md. A library without rendering: pictures, plots, reports and
//! the batch runner are in `xpbd-tools`.

pub mod checkpoint;
pub mod converge;
pub mod device;
pub mod doctor;
pub mod dual_system;
pub mod final_state;
pub use xpbd_core::fnv;
pub mod health;
pub mod interrupt;
pub mod output;
pub mod partition_cells;
pub mod selftest;
pub mod simulation;
pub mod surface_frames;
pub mod validation;

pub use device::Device;
pub use simulation::{Simulation, Summary};
pub use xpbd_core as core;
