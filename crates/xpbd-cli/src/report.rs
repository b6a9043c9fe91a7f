//! `xpbd report DIR [--render]`.

use clap::Args;
use std::path::PathBuf;
use xpbd_core::Result;

#[derive(Args)]
pub struct ReportArgs {
    /// A run folder (with summary.json, or metrics.csv alone for a killed run) or a batch folder (with results.jsonl).
    dir: PathBuf,
    /// First draw the last frame of every run that has VTU frames and no picture yet (320×240 PNG in
    /// its render/ folder), so the table shows one picture per run.
    #[arg(long)]
    render: bool,
}

pub fn report(a: ReportArgs) -> Result<()> {
    let r = xpbd_tools::report::write(&a.dir, a.render)?;
    println!("{} runs: {}, {}, {}", r.rows, r.markdown.display(), r.png.display(), r.svg.display());
    Ok(())
}
