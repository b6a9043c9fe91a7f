//! `xpbd report DIR`.

use clap::Args;
use std::path::PathBuf;
use xpbd_core::Result;

#[derive(Args)]
pub struct ReportArgs {
    /// A run folder (with summary.json) or a batch folder (with results.jsonl).
    dir: PathBuf,
}

pub fn report(a: ReportArgs) -> Result<()> {
    let r = xpbd::report::write(&a.dir)?;
    println!("{} runs: {}, {}, {}", r.rows, r.markdown.display(), r.png.display(), r.svg.display());
    Ok(())
}
