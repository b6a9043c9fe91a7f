//! `xpbd run SCENE.toml [--out DIR] [--device auto|cpu|cuda[:N]] [--frames N] [--threads N] [--quiet]
//! [--checkpoint-every N] [--resume DIR] [--partition]`. SIGINT or SIGTERM stops the run after the current frame
//! ([`xpbd::interrupt`]): it prints the resume command and exits 130 or 143.

use crate::progress::Progress;
use clap::Args;
use std::path::PathBuf;
use xpbd::interrupt::Interrupt;
use xpbd::simulation::default_out_dir;
use xpbd::{Device, Simulation};
use xpbd_core::{Error, Result};

#[derive(Args)]
#[command(after_help = "Environment: XPBD_MEMORY_LIMIT_MB caps the memory estimate checked before meshes and solver structures \
are built (default: MemAvailable of /proc/meminfo). XPBD_CPU_ISA = portable, avx2 or avx512 picks the instruction set of the CPU's \
block neo-Hookean kernel (default: the widest this processor has; every choice gives the same bits). A failed health check (simulation.max_speed, \
simulation.max_inverted_fraction, simulation.max_edge_strain, a non-finite state) stops the run with exit 1 unless simulation.on_failure = \"continue\"; \
see docs/robustness.md.")]
pub struct RunArgs {
    /// The scene file.
    scene: PathBuf,
    /// Output folder (default out/<scene name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// auto, cpu, cuda or cuda:N (overrides the scene's simulation.device).
    #[arg(long)]
    device: Option<String>,
    /// Number of frames (overrides simulation.frames).
    #[arg(long)]
    frames: Option<usize>,
    /// Worker threads for parallel solvers (default: all cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Write DIR/checkpoint.bin every N frames (the full state, for --resume; default: never, or with
    /// --resume the checkpoint's interval). An interrupted run always writes one.
    #[arg(long, value_name = "N")]
    checkpoint_every: Option<usize>,
    /// Continue the run in DIR from its checkpoint.bin (bit-exact on the CPU backend for the XPBD family;
    /// the implicit solvers restart their contact warm starts), appending to its outputs; --frames is then
    /// the final frame count, which must be after the checkpoint's frame.
    #[arg(long, value_name = "DIR", conflicts_with = "out")]
    resume: Option<PathBuf>,
    /// No progress (bar or lines) and no final report.
    #[arg(long)]
    quiet: bool,
    /// VTU frames also carry each tetrahedron's color, cluster and cluster color of the parallel sweeps
    /// (cell data, as output.partition = true; the block neo-Hookean paper's Fig. 4).
    #[arg(long)]
    partition: bool,
}

pub fn run(a: RunArgs) -> Result<()> {
    if a.threads == Some(0) {
        return Err(Error::usage("--threads: must be at least 1"));
    }
    // This thread is one of the pool's (with --threads 1, the only one), so that the solvers' parallel
    // loops start here instead of handing every batch to the pool and sleeping until it is done.
    rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads.unwrap_or(0))
        .use_current_thread()
        .build_global()
        .map_err(|e| Error::invalid(format!("--threads: {e}")))?;
    if a.frames == Some(0) {
        return Err(Error::usage("--frames: must be at least 1"));
    }
    let device = a.device.as_deref().map(str::parse::<Device>).transpose().map_err(|e| Error::usage(format!("--{e}")))?;
    let mut sim = Simulation::load(&a.scene, device)?;
    for w in &sim.warnings {
        eprintln!("warning: {w}");
    }
    if let Some(dir) = &a.resume {
        sim.resume(dir)?;
    }
    if let Some(n) = a.checkpoint_every {
        sim.checkpoint_every = n;
    }
    sim.scene.output.partition |= a.partition;
    let out = match a.resume.or(a.out) {
        Some(dir) => dir,
        None => default_out_dir(&a.scene, &sim.scene.name)?,
    };
    let total = a.frames.unwrap_or(sim.scene.simulation.frames);
    let mut resume = vec![crate::shell::program(), "run".into()];
    resume.extend([a.scene.display().to_string(), "--resume".into(), out.display().to_string(), "--frames".into(), total.to_string()]);
    resume.extend(a.device.iter().flat_map(|d| ["--device".to_string(), d.clone()]));
    resume.extend(a.threads.iter().flat_map(|n| ["--threads".to_string(), n.to_string()]));
    resume.extend(a.quiet.then(|| "--quiet".to_string()));
    resume.extend(a.partition.then(|| "--partition".to_string()));
    sim.interrupt = Some(Interrupt::install(crate::shell::line(&resume))?);
    let mut progress = Progress::new(&sim.scene.name, sim.state.frame, total, a.quiet);
    let result = sim.run(&out, Some(total), &mut |done, _, last| progress.frame(done, Some(last.relative_residual)));
    progress.finish();
    let s = result?;
    if let Some(first) = s.failed_checks.first() {
        eprintln!(
            "warning: {} frames failed a health check (first at frame {}: {}); the run went on (on_failure = \"continue\"), see summary.json",
            s.failed_check_count, first.frame, first.cause
        );
    }
    if let Some(i) = &s.interrupted {
        eprintln!(
            "interrupted by {} at frame {} of {total}: frames 0–{}, checkpoint.bin and summary.json are in {}; resume with: {}",
            i.signal,
            i.frame,
            i.frame,
            out.display(),
            i.resume
        );
        std::process::exit(i.exit_code);
    }
    if !a.quiet {
        // The implicit solvers solve each step directly: they have no constraint residual to report.
        let residual = match sim.config.method {
            xpbd_core::solver_config::Method::Implicit(_) => String::new(),
            _ => format!("final relative residual {:.3e}, ", s.last.relative_residual),
        };
        println!(
            "{}: {} frames on {} in {:.2} s ({:.3} ms/frame solve); {residual}min det F {:.4}; output in {}",
            s.scene,
            s.frames,
            s.device,
            s.wall_time_s,
            s.ms_per_frame,
            s.last.min_volume_ratio,
            out.display()
        );
    }
    Ok(())
}
