//! `xpbd-core`: the math of the workspace. Meshes, materials, constraints, the model, scenes and
//! metrics. No threads and no GPU here; backends (`xpbd-cpu`, `xpbd-cuda`) drive these pieces.

pub mod error;
pub mod mesh;

pub use error::{Error, Result};
pub mod constraint;
pub mod material;
pub mod collider;
pub mod model;
pub mod scene;
pub mod backend;
pub mod metrics;
pub mod state;
pub mod graph;
pub mod stability;
