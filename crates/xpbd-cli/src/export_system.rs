//! `xpbd export-system SCENE.toml --frame F --out DIR` (DESIGN.md §5): MGPBD's dual system as
//! Matrix Market `A.mtx` (general, coordinate), `b.mtx` (an n×1 coordinate matrix listing every
//! entry) and `system.json`.

use clap::Args;
use std::path::PathBuf;
use xpbd::dual_system::dual_system;
use xpbd_core::linear::Csr;
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::{Error, Result};

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
}

pub fn export_system(a: ExportSystemArgs) -> Result<()> {
    let (m, b, info) = dual_system(&a.scene, a.frame)?;
    std::fs::create_dir_all(&a.out).map_err(|e| Error::io(&a.out, e))?;
    let n = b.len();
    let b_col = Csr::new_csc((n, 1), vec![0, n], (0..n).collect(), b).to_csr();
    for (name, mat) in [("A.mtx", &m), ("b.mtx", &b_col)] {
        let path = a.out.join(name);
        sprs::io::write_matrix_market(&path, mat).map_err(|e| Error::io(&path, e))?;
    }
    let json = serde_json::to_string_pretty(&info).map_err(|e| Error::invalid(format!("system.json: {e}")))?;
    write_atomic(&a.out.join("system.json"), json.as_bytes())?;
    println!(
        "{}: frame {}, {} rows, {} nonzeros, ‖b‖ = {:.3e}; A.mtx, b.mtx, system.json in {}",
        info.scene,
        a.frame,
        info.rows,
        info.nonzeros,
        info.rhs_norm,
        a.out.display()
    );
    Ok(())
}
