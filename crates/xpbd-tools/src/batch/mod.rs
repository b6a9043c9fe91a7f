//! `xpbd batch`: parameter sweeps run in parallel, resumable, shardable over a cluster
//! (DESIGN.md §5, `docs/batch.md`, `docs/cluster.md`).

pub mod manifest;
pub mod results;
mod runner;

pub use runner::{run, Options, Outcome, Shard};
