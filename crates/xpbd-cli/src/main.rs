//! The `xpbd` command (docs/output-format.md). User errors print one line on standard error and exit 1;
//! usage errors (clap's, and [`Error::Usage`](xpbd_core::Error::Usage) for a flag's value) exit 2; a panic (a bug)
//! prints one line and exits 101, without a backtrace; a `run` or `batch` stopped by SIGINT or SIGTERM prints
//! the command that continues it and exits 130 or 143.

mod batch;
mod converge;
mod doctor;
mod export_system;
mod info;
mod progress;
mod render;
mod report;
mod run;
mod scene_preview;
mod shell;
mod solve_system;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "xpbd", version, about = "Soft-body simulation with XPBD and its accelerated solvers")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene and write summary.json, metrics.csv, probes.csv and frames into DIR.
    Run(run::RunArgs),
    /// Run a scene to frame F, then solve the next substep with each solver from that state and
    /// write converge.csv (residual and elastic energy per iteration), converge.svg and converge.png into DIR.
    Converge(converge::ConvergeArgs),
    /// Run a manifest's parameter sweeps, J at a time, resumably, into DIR (one folder per run and
    /// results.jsonl).
    Batch(batch::BatchArgs),
    /// Write report.md and plots (PNG and SVG) of time per frame, residual and energy for a run or
    /// batch folder.
    Report(report::ReportArgs),
    /// Draw shaded PNG pictures of a run's body surfaces from its VTU frames, headlessly.
    Render(render::RenderArgs),
    /// Solve a symmetric positive definite Matrix Market system A x = b (AMG-PCG by default) and
    /// report iterations, residual, setup/solve times and the AMG hierarchy.
    SolveSystem(solve_system::SolveSystemArgs),
    /// Run a scene to frame F and write MGPBD's dual system of the next substep's first outer
    /// iteration, A = J M⁻¹ Jᵀ + α̃ and b = −C(x̃), as Matrix Market A.mtx, b.mtx and system.json.
    ExportSystem(export_system::ExportSystemArgs),
    /// Check the CUDA driver, devices and kernels, run the self-test of every GPU path against the
    /// CPU backend, and record a pass (which lets `--device auto` pick the GPU); exit 1 on a problem.
    Doctor(doctor::DoctorArgs),
    /// Describe a mesh file or a scene.
    Info {
        /// A mesh (.node/.ele, .msh, .mesh, .vtk, .vtu, .obj) or a scene (.toml).
        path: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn main() {
    std::panic::set_hook(Box::new(|p| {
        let msg = xpbd_core::error::panic_message(p.payload()).unwrap_or_default();
        let at = p.location().map(|l| format!(" at {}:{}", l.file(), l.line())).unwrap_or_default();
        eprintln!("internal error (please report): {msg}{at}");
    }));
    // `--version` also says what this build can run on a GPU.
    let version = format!("{}\n{}", env!("CARGO_PKG_VERSION"), xpbd::doctor::kernels_line());
    let matches = Cli::command().version(&*Box::leak(version.into_boxed_str())).get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.command {
        Command::Run(args) => run::run(args),
        Command::Converge(args) => converge::converge(args),
        Command::ExportSystem(args) => export_system::export_system(args),
        Command::Info { path, json } => info::info(&path, json),
        Command::Doctor(args) => doctor::doctor(args),
        Command::Batch(args) => batch::batch(args),
        Command::Report(args) => report::report(args),
        Command::Render(args) => render::render(args),
        Command::SolveSystem(args) => solve_system::solve_system(args),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(if matches!(e, xpbd_core::Error::Usage(_)) { 2 } else { 1 });
    }
}
