//! `xpbd solve-system A.mtx b.mtx`: solves a symmetric positive definite Matrix Market system
//! with one of the linear solvers (AMG-PCG by default, as MGPBD's global step uses it) and
//! reports iterations, residual, setup and solve times and the AMG hierarchy (docs/amg.md).

use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xpbd_core::amg::{AmgOptions, NearKernel, Smoother};
use xpbd_core::linear::matrix_market::{read_matrix, read_vector, write_vector};
use xpbd_core::linear::{solver_by_name, Csr, Setup, SOLVER_NAMES};
use xpbd_core::{Error, Result};

#[derive(Args)]
pub struct SolveSystemArgs {
    /// The matrix: real, square, symmetric, coordinate Matrix Market (general or symmetric).
    a: PathBuf,
    /// The right-hand side: an n × 1 Matrix Market vector (array or coordinate).
    b: PathBuf,
    /// Linear solver.
    #[arg(long, default_value = "amg-pcg", value_parser = SOLVER_NAMES)]
    method: String,
    /// Stop when ‖b − A x‖ ≤ tol ‖b‖.
    #[arg(long, default_value_t = 1e-8)]
    tol: f64,
    /// Most iterations (PCG or CG).
    #[arg(long, default_value_t = 1000)]
    max_iter: usize,
    /// AMG near-kernel vectors: the constant vector, or Gauss-Seidel-smoothed random vectors.
    #[arg(long, default_value = "constant", value_parser = NearKernel::NAMES)]
    near_kernel: String,
    /// Number of Gauss-Seidel near-kernel vectors.
    #[arg(long, default_value_t = 6)]
    near_kernel_vectors: usize,
    /// AMG smoother.
    #[arg(long, default_value = "jacobi", value_parser = Smoother::NAMES)]
    smoother: String,
    /// Strength-of-connection threshold θ.
    #[arg(long, default_value_t = 0.1)]
    theta: f64,
    /// Coarsening stops at this many rows.
    #[arg(long, default_value_t = 400)]
    max_coarse: usize,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Write the solution x as a Matrix Market array vector.
    #[arg(long)]
    out: Option<PathBuf>,
}

#[derive(Serialize)]
struct Report {
    method: String,
    rows: usize,
    nnz: usize,
    iterations: usize,
    relative_residual: f64,
    converged: bool,
    setup_s: f64,
    solve_s: f64,
    levels: usize,
    level_rows: Vec<usize>,
    operator_complexity: f64,
    /// Mean residual reduction per iteration, (relative_residual)^(1/iterations).
    convergence_factor: f64,
}

pub fn solve_system(args: SolveSystemArgs) -> Result<()> {
    let a = read_matrix(&args.a)?;
    check_symmetric(&a, &args.a)?;
    let b = read_vector(&args.b)?;
    if b.len() != a.rows() {
        return Err(Error::invalid(format!("{}: {} rows, but {} has {}", args.b.display(), b.len(), args.a.display(), a.rows())));
    }
    if !(args.tol > 0.0) {
        return Err(Error::invalid(format!("--tol must be positive, got {}", args.tol)));
    }
    let options = AmgOptions {
        theta: args.theta,
        max_coarse: args.max_coarse,
        near_kernel: NearKernel::from_name(&args.near_kernel).expect("clap checked --near-kernel"),
        near_kernel_vectors: args.near_kernel_vectors,
        smoother: Smoother::from_name(&args.smoother).expect("clap checked --smoother"),
        ..Default::default()
    };
    let mut solver = solver_by_name(&args.method, &options)?;
    let t0 = Instant::now();
    solver.setup(&a, Setup::Full);
    let setup_s = t0.elapsed().as_secs_f64();
    let mut x = vec![0.0; a.rows()];
    let t1 = Instant::now();
    let stats = solver.solve(&a, &b, &mut x, args.tol, args.max_iter);
    let solve_s = t1.elapsed().as_secs_f64();
    if !stats.relative_residual.is_finite() {
        return Err(Error::invalid(format!("{}: the {} solve failed (matrix not positive definite?)", args.a.display(), args.method)));
    }
    if let Some(out) = &args.out {
        write_vector(out, &x)?;
    }
    let info = solver.info();
    let report = Report {
        method: args.method.clone(),
        rows: a.rows(),
        nnz: a.nnz(),
        iterations: stats.iterations,
        relative_residual: stats.relative_residual,
        converged: stats.converged,
        setup_s,
        solve_s,
        levels: info.levels,
        level_rows: info.level_rows,
        operator_complexity: info.operator_complexity,
        convergence_factor: if stats.iterations > 0 { stats.relative_residual.powf(1.0 / stats.iterations as f64) } else { 0.0 },
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report).expect("report serialises"));
    } else {
        println!("method               {}", report.method);
        println!("rows, nnz            {}, {}", report.rows, report.nnz);
        println!("iterations           {}", report.iterations);
        println!("relative_residual    {:.3e} ({})", report.relative_residual, if report.converged { "converged" } else { "not converged" });
        println!("convergence_factor   {:.4}", report.convergence_factor);
        println!("setup_s, solve_s     {:.4}, {:.4}", report.setup_s, report.solve_s);
        println!("levels               {} (rows {:?})", report.levels, report.level_rows);
        println!("operator_complexity  {:.3}", report.operator_complexity);
    }
    Ok(())
}

/// Square, finite and symmetric to rounding (|a_ij − a_ji| ≤ 1e-10 max |a|), naming the first offending entry.
fn check_symmetric(a: &Csr, path: &Path) -> Result<()> {
    if a.rows() != a.cols() {
        return Err(Error::invalid(format!("{}: the matrix is {} × {}, not square", path.display(), a.rows(), a.cols())));
    }
    let scale = a.data().iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let at = a.transpose_view().to_csr();
    if a.nnz() != at.nnz() {
        return Err(Error::invalid(format!("{}: the pattern is not symmetric", path.display())));
    }
    for ((v, (i, j)), (w, pos)) in a.iter().zip(at.iter()) {
        if !v.is_finite() {
            return Err(Error::invalid(format!("{}: entry ({}, {}) is not finite", path.display(), i + 1, j + 1)));
        }
        if (i, j) != pos || (v - w).abs() > 1e-10 * scale {
            return Err(Error::invalid(format!("{}: not symmetric at ({}, {}): {v} vs {w}", path.display(), i + 1, j + 1)));
        }
    }
    Ok(())
}
