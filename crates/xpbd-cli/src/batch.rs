//! `xpbd batch MANIFEST --out DIR [--jobs J] [--shard I/N]` (docs/output-format.md, docs/batch.md).

use clap::Args;
use std::path::PathBuf;
use xpbd_core::{Error, Result};
use xpbd_tools::batch::{self, Options, Shard};

#[derive(Args)]
pub struct BatchArgs {
    /// The manifest (TOML: [[sweep]] tables with scene, set and vary; see docs/batch.md).
    manifest: PathBuf,
    /// The batch folder: one folder per run and results.jsonl.
    #[arg(long)]
    out: PathBuf,
    /// Runs at a time.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Run only the runs with index % N == I (default: from SLURM_ARRAY_TASK_ID/COUNT when set).
    #[arg(long, value_name = "I/N")]
    shard: Option<Shard>,
    /// No `[i/N]` line per started and finished run.
    #[arg(long)]
    quiet: bool,
}

pub fn batch(a: BatchArgs) -> Result<()> {
    if a.jobs == 0 {
        return Err(Error::invalid("--jobs: must be at least 1"));
    }
    let shard = match a.shard {
        Some(s) => Some(s),
        None => Shard::from_slurm(|k| std::env::var(k).ok()).map_err(Error::invalid)?,
    };
    let quiet = a.quiet;
    let log = move |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let o = batch::run(&a.manifest, &Options { out: a.out.clone(), jobs: a.jobs, shard }, &log)?;
    println!(
        "{} runs{}: {} already done, {} completed, {} failed (simulation blew up), {} errors; results in {}",
        o.selected,
        shard.map(|s| format!(" in shard {}/{}", s.index, s.count)).unwrap_or_default(),
        o.skipped,
        o.completed,
        o.failed,
        o.errors,
        a.out.display()
    );
    if o.errors > 0 {
        return Err(Error::invalid(format!("{} runs could not start; their errors are in the results file in {}", o.errors, a.out.display())));
    }
    Ok(())
}
