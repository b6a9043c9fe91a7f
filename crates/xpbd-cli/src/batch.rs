//! `xpbd batch MANIFEST --out DIR [--jobs J] [--shard I/N] [--gpus all|none|N,M,...]` (docs/output-format.md,
//! docs/batch.md). SIGINT or SIGTERM stops the batch: no run starts after it, the running ones stop after
//! their current frame ([`xpbd::interrupt`]); it prints what was done and the command that continues, and
//! exits 130 or 143.

use clap::Args;
use std::path::PathBuf;
use xpbd::interrupt::Interrupt;
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
    // The same command continues the batch: listed runs are skipped, interrupted ones resume.
    let resume = crate::shell::line(std::iter::once(crate::shell::program()).chain(std::env::args().skip(1)));
    let interrupt = Some(Interrupt::install(resume.clone())?);
    let o = batch::run(&a.manifest, &Options { out: a.out.clone(), jobs: a.jobs, shard, gpus, interrupt }, &log)?;
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
    if let Some((signal, exit_code)) = o.signal {
        let interrupted = match o.interrupted.is_empty() {
            true => String::new(),
            false => format!(" ({}: each continues from its checkpoint)", o.interrupted.join(" ")),
        };
        eprintln!(
            "interrupted by {signal}: {} runs listed, {} interrupted{interrupted}, {} not started; continue with: {resume}",
            o.skipped + o.completed + o.failed + o.errors,
            o.interrupted.len(),
            o.not_started
        );
        std::process::exit(exit_code);
    }
    if o.errors > 0 {
        return Err(Error::invalid(format!("{} runs could not start; their errors are in the results file in {}", o.errors, a.out.display())));
    }
    Ok(())
}
