//! `xpbd converge SCENE.toml --frame F --iterations K [--solvers LIST] [--out DIR] [--quiet]` (docs/output-format.md).

use clap::Args;
use std::path::PathBuf;
use xpbd::converge::{converge as run_converge, parse_solvers, DEFAULT_SOLVERS};
use xpbd::simulation::default_out_dir;
use xpbd_core::Result;
use xpbd_tools::converge_plot::write_outputs;

#[derive(Args)]
pub struct ConvergeArgs {
    /// The scene file.
    scene: PathBuf,
    /// Frame whose end state every solver starts from (0: the initial state); the scene runs on
    /// the CPU up to it.
    #[arg(long)]
    frame: usize,
    /// Solver iterations of the substep (at least 1).
    #[arg(long)]
    iterations: usize,
    /// Comma-separated `mgpbd` (one outer iteration per iteration), ORDERING or MODEL/ORDERING
    /// items; ORDERING: serial, jacobi, colored,
    /// clustered; MODEL: neohookean, neohookean_block (overrides every tet body's model). An item may
    /// end in `:N`, its own iteration count instead of --iterations (e.g. `mgpbd:30,clustered:3000`).
    #[arg(long, default_value = DEFAULT_SOLVERS)]
    solvers: String,
    /// Output folder (default out/<scene name>_converge_<F>, beside the run's out/<scene name>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress while the scene runs up to `--frame` (warnings still print).
    #[arg(long)]
    quiet: bool,
}

pub fn converge(a: ConvergeArgs) -> Result<()> {
    let solvers = parse_solvers(&a.solvers)?;
    let (sim, curves) = run_converge(&a.scene, a.frame, a.iterations, &solvers, &mut crate::progress::run_up(a.quiet))?;
    let out = match a.out {
        Some(dir) => dir,
        None => default_out_dir(&a.scene, &sim.scene.name)?.with_file_name(format!("{}_converge_{}", sim.scene.name, a.frame)),
    };
    let counts = if solvers.iter().any(|s| s.iterations.is_some()) {
        solvers.iter().map(|s| format!("{} {}", s.label, s.iterations.unwrap_or(a.iterations))).collect::<Vec<_>>().join(", ")
    } else {
        a.iterations.to_string()
    };
    let title = format!("{}: frame {} + first substep, {counts} iterations", sim.scene.name, a.frame);
    write_outputs(&out, &title, &curves)?;
    println!("{title} ({} elements, h = {:.3e} s)", sim.model.element_count(), sim.config.h());
    for c in &curves {
        let (first, last) = (c.samples[0], c.samples[c.samples.len() - 1]);
        println!(
            "  {:<28} relative residual {:.3e}, energy {:.4e} -> {:.4e} J, {:.3} ms ({})",
            c.solver, last.relative_residual, first.energy, last.energy, last.wall_ms, c.backend
        );
    }
    println!("output in {}", out.display());
    Ok(())
}
