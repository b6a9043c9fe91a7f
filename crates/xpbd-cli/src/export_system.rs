//! `xpbd export-system SCENE.toml --frame F --out DIR` (docs/output-format.md): MGPBD's dual system as
//! Matrix Market `A.mtx` (general, coordinate), `b.mtx` (an n×1 coordinate matrix listing every
//! entry) and `system.json`; and for the primal solve (`xpbd solve-system --method primal-amg`)
//! `J.mtx` (rows × 3·vertices), `inv_mass.mtx`, `alpha_tilde.mtx` and `x.mtx` (x̃, 3·vertices) as
//! array vectors. `--no-matrix` leaves A out (with ARAP component rows it has ~540 nonzeros per row,
//! gigabytes of text at 200k rows); `solve-system --matrix-free` applies it from J.

use clap::Args;
use std::path::PathBuf;
use xpbd::dual_system::dual_system;
use xpbd_core::Result;

#[derive(Args)]
pub struct ExportSystemArgs {
    /// The scene file (tets with arap, neohookean or neohookean_block material, or cloth).
    scene: PathBuf,
    /// Frame whose end state the system is assembled at (0: the initial state); the scene runs on
    /// the CPU with its own solver up to it.
    #[arg(long)]
    frame: usize,
    /// Output folder, created when missing.
    #[arg(long)]
    out: PathBuf,
    /// Neither assemble nor write A.mtx (`system.json`'s `nonzeros` is then null); the other files
    /// are written, and `xpbd solve-system --matrix-free` applies A as J W Jᵀ + α̃ from them.
    #[arg(long)]
    no_matrix: bool,
    /// No progress while the scene runs up to `--frame` (warnings still print).
    #[arg(long)]
    quiet: bool,
}

pub fn export_system(a: ExportSystemArgs) -> Result<()> {
    let (sys, info) = dual_system(&a.scene, a.frame, !a.no_matrix, &mut crate::progress::run_up(a.quiet))?;
    sys.write(&a.out, &info)?;
    let (nonzeros, a_file) = match info.nonzeros {
        Some(nnz) => (format!("{nnz} nonzeros"), "A.mtx, "),
        None => ("A not assembled (--no-matrix)".into(), ""),
    };
    println!(
        "{}: frame {}, {} rows, {nonzeros}, ‖b‖ = {:.3e}; {a_file}b.mtx, J.mtx, inv_mass.mtx, alpha_tilde.mtx, x.mtx, system.json in {}",
        info.scene,
        a.frame,
        info.rows,
        info.rhs_norm,
        a.out.display()
    );
    Ok(())
}
