//! `xpbd-core`: the math of the workspace. Meshes, materials, constraints, the model, scenes and
//! metrics, the solver configuration and the host half of a substep shared by every backend. No backend and
//! no GPU here; threads (rayon) only inside MGPBD's linear algebra and row evaluation. The backends
//! (`xpbd-cpu`, `xpbd-cuda`) drive these pieces.

#[macro_use]
pub mod named;

pub mod error;
pub mod mesh;

pub use error::{Error, Result};
pub mod amg;
pub mod backend;
pub mod budget;
pub mod collider;
pub mod constraint;
pub mod contact;
pub mod fem;
pub mod fnv;
pub mod fuzzing;
pub mod graph;
pub mod human;
pub mod implicit;
pub mod layers;
pub mod linear;
pub mod material;
pub mod metrics;
pub mod mgpbd;
pub mod model;
pub mod resources;
pub mod scene;
pub mod solver_config;
pub mod sparse;
pub mod stability;
pub mod state;
pub mod substep;
