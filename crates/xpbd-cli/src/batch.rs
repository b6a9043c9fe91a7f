//! `xpbd batch MANIFEST --out DIR [--jobs J] [--shard I/N] [--gpus all|none|N,M,...]` (docs/output-format.md,
//! docs/batch.md).

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
    /// CUDA devices to spread runs over, one run per device at a time, the CPU taking the runs no device is
    /// free for: `all` (every device `xpbd doctor` has validated under this driver with this build), `none`
    /// (every run follows its scene's device), or ordinals such as `0,2`.
    #[arg(long, default_value = "all", value_name = "all|none|N,M,...")]
    gpus: Gpus,
}

/// `--gpus`.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Gpus {
    All,
    Listed(Vec<usize>),
}

impl std::str::FromStr for Gpus {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "all" => Ok(Gpus::All),
            "none" => Ok(Gpus::Listed(Vec::new())),
            _ => s
                .split(',')
                .map(|n| n.trim().parse().map_err(|_| format!("'{n}' is not a CUDA device ordinal (or use all, none)")))
                .collect::<std::result::Result<_, _>>()
                .map(Gpus::Listed),
        }
    }
}

impl Gpus {
    /// The ordinals: for `all`, every device the validation cache holds a pass for (none without a driver).
    fn ordinals(&self) -> Vec<usize> {
        match self {
            Gpus::Listed(list) => list.clone(),
            Gpus::All => xpbd::validation::validated_devices(),
        }
    }
}

pub fn batch(a: BatchArgs) -> Result<()> {
    if a.jobs == 0 {
        return Err(Error::usage("--jobs: must be at least 1"));
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
    let gpus = a.gpus.ordinals();
    if !gpus.is_empty() && !a.quiet {
        eprintln!("spreading runs over CUDA devices {gpus:?}, one run each at a time; the CPU takes the rest");
    }
    let o = batch::run(&a.manifest, &Options { out: a.out.clone(), jobs: a.jobs, shard, gpus }, &log)?;
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
