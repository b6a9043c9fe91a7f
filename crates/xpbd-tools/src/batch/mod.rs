//! `xpbd batch`: parameter sweeps run in parallel, resumable, shardable over a cluster
//! (docs/output-format.md, `docs/batch.md`, `docs/cluster.md`).

pub mod manifest;
pub mod results;
mod runner;

pub use runner::{run, Options, Outcome, Shard};
