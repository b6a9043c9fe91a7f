//! `xpbd solve-system A.mtx b.mtx`: solves a symmetric positive definite Matrix Market system
//! with one of the linear solvers (AMG-PCG by default, as MGPBD's global step uses it) and
//! reports iterations, the true residual ‖b − A x‖/‖b‖, setup and solve times and the AMG
//! hierarchy (docs/amg.md). `--method primal-amg` solves through the primal matrix and reads J,
//! the inverse masses, α̃ and x̃ that `xpbd export-system` writes next to A.mtx. `--matrix-free`
//! applies A as `J W Jᵀ + α̃` from those files instead of reading A.mtx (for `cg` and `primal-amg`;
//! the residual is then computed with that product too). `--caps` solves again from zero for each
//! iteration cap, for residual-against-time comparisons.

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::Args;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xpbd::dual_system::{DualSystem, JacobianForm, Parts};
use xpbd_core::amg::{AmgOptions, NearKernel, Smoother};
use xpbd_core::linear::cg::Cg;
use xpbd_core::linear::dual_operator::DualOperator;
use xpbd_core::linear::{self, LinearSolver, Setup, SetupInfo};
use xpbd_core::mesh::Vec3;
use xpbd_core::mgpbd::primal_solve::PrimalSolver;
use xpbd_core::mgpbd::rows::NO_VERTEX;
use xpbd_core::mgpbd::settings::{default_theta, GlobalSolve};
use xpbd_core::named::Named;
use xpbd_core::sparse::matrix_market::write_vector;
use xpbd_core::sparse::{norm, spmv, Csr};
use xpbd_core::{Error, Result};

#[derive(Args)]
pub struct SolveSystemArgs {
    /// The matrix: real, square, symmetric, coordinate Matrix Market (general or symmetric). Its
    /// folder holds the J.mtx, inv_mass.mtx, alpha_tilde.mtx, x.mtx that primal-amg and
    /// --matrix-free read; with --matrix-free it is not read and may be absent.
    a: PathBuf,
    /// The right-hand side: an n × 1 Matrix Market vector (array or coordinate).
    b: PathBuf,
    /// Linear solver.
    #[arg(long, default_value = "amg-pcg", value_parser = by_name::<GlobalSolve>())]
    method: GlobalSolve,
    /// Stop when ‖b − A x‖ ≤ tol ‖b‖.
    #[arg(long, default_value_t = 1e-8)]
    tol: f64,
    /// Most iterations (PCG or CG).
    #[arg(long, default_value_t = 1000)]
    max_iter: usize,
    /// AMG near-kernel vectors: the constant vector, or Gauss-Seidel-smoothed random vectors.
    #[arg(long, default_value = "constant", value_parser = by_name::<NearKernel>())]
    near_kernel: NearKernel,
    /// Number of Gauss-Seidel near-kernel vectors.
    #[arg(long, default_value_t = 6)]
    near_kernel_vectors: usize,
    /// AMG smoother.
    #[arg(long, default_value = "jacobi", value_parser = by_name::<Smoother>())]
    smoother: Smoother,
    /// Strength-of-connection threshold θ [default: 0 for primal-amg, 0.1 otherwise: the MGPBD defaults]
    #[arg(long)]
    theta: Option<f64>,
    /// Coarsening stops at this many rows.
    #[arg(long, default_value_t = 400)]
    max_coarse: usize,
    /// primal-amg: smooth the prolongators of this many finest levels (the coarser ones stay tentative).
    #[arg(long, default_value_t = AmgOptions::default().smoothed_levels)]
    smoothed_levels: usize,
    /// Iteration caps: solve from zero once per cap after one setup (e.g. `10,20,40`); default: `--max-iter`.
    #[arg(long, value_delimiter = ',')]
    caps: Vec<usize>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Write the solution x as a Matrix Market array vector.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Apply A as J W Jᵀ + α̃ from the exported J.mtx, inv_mass.mtx, alpha_tilde.mtx in A's folder
    /// instead of reading A.mtx (`export-system --no-matrix`); for --method cg or primal-amg.
    #[arg(long)]
    matrix_free: bool,
}

/// A parser of `T`'s names, which `--help` lists.
fn by_name<T: Named + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::names()).try_map(|name| T::from_name(&name).ok_or("not a name"))
}

/// The methods that run without A stored.
const MATRIX_FREE_METHODS: [GlobalSolve; 2] = [GlobalSolve::Dual(linear::Method::Cg), GlobalSolve::Primal];

#[derive(Serialize)]
struct Report {
    method: GlobalSolve,
    rows: usize,
    /// Nonzeros of A; `None` with `--matrix-free`.
    nnz: Option<usize>,
    matrix_free: bool,
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
    /// One entry per `--caps` value.
    sweep: Vec<SweepPoint>,
}

#[derive(Serialize)]
struct SweepPoint {
    max_iter: usize,
    iterations: usize,
    solve_s: f64,
    /// The true ‖b − A x‖ / ‖b‖.
    relative_residual: f64,
}

/// A: read from A.mtx, or applied from the exported J.
enum Dual {
    Matrix(Csr),
    Jacobian(DualOperator),
}

impl Dual {
    /// `y = A v`.
    fn apply(&mut self, v: &[f64], y: &mut [f64]) {
        match self {
            Dual::Matrix(a) => spmv(a, v, y),
            Dual::Jacobian(op) => op.apply(v, y),
        }
    }
}

/// A solver of the system: of the stored A, plain CG on the matrix-free A, or through K from the exported J.
enum Method {
    Matrix(Box<dyn LinearSolver>),
    MatrixFreeCg(Cg),
    Primal(Box<PrimalSolver>, PrimalInputs),
}

/// J's gradients per row (its vertices are the solver's pattern), with the inverse masses and x̃.
struct PrimalInputs {
    grads: Vec<[Vec3; 4]>,
    inv_mass: Vec<f64>,
    x: Vec<Vec3>,
}

/// The primal solver from the exported J, W, α̃ and x̃ (`xs`) read from `dir`.
fn primal(dir: &Path, e: &JacobianForm, xs: &[f64], options: AmgOptions) -> Result<Method> {
    let (j, rows) = (&e.j, e.j.rows());
    if let Some(r) = e.alpha_tilde.iter().position(|&a| a.is_nan() || a <= 0.0) {
        return Err(Error::invalid(format!("{}: alpha_tilde.mtx row {}: α̃ = {} has no primal form", dir.display(), r + 1, e.alpha_tilde[r])));
    }
    let (mut vertices, mut grads) = (vec![[NO_VERTEX; 4]; rows], vec![[Vec3::zeros(); 4]; rows]);
    for (r, row) in j.outer_iterator().enumerate() {
        for (c, &v) in row.iter() {
            let slots = &mut vertices[r];
            let slot = match slots.iter().position(|&s| s == (c / 3) as u32 || s == NO_VERTEX) {
                Some(k) => k,
                None => return Err(Error::invalid(format!("{}: J.mtx row {} touches more than 4 vertices", dir.display(), r + 1))),
            };
            slots[slot] = (c / 3) as u32;
            grads[r][slot][c % 3] = v;
        }
    }
    let mut solver = Box::new(PrimalSolver::new(&vertices, &e.inv_mass, options));
    solver.set_alpha_tilde(&e.alpha_tilde);
    let x = xs.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    Ok(Method::Primal(solver, PrimalInputs { grads, inv_mass: e.inv_mass.clone(), x }))
}

pub fn solve_system(args: SolveSystemArgs) -> Result<()> {
    if args.matrix_free && !MATRIX_FREE_METHODS.contains(&args.method) {
        return Err(Error::invalid(format!(
            "--matrix-free: --method {} needs A stored; matrix-free methods are {}",
            args.method.name(),
            MATRIX_FREE_METHODS.map(GlobalSolve::name).join(", ")
        )));
    }
    let dir = args.a.parent().unwrap_or(Path::new("."));
    let is_primal = args.method == GlobalSolve::Primal;
    let sys = DualSystem::read(&args.a, &args.b, Parts { matrix: !args.matrix_free, jacobian: args.matrix_free || is_primal, x: is_primal })?;
    let what = if args.matrix_free { format!("{} (J.mtx)", dir.join("J.mtx").display()) } else { args.a.display().to_string() };
    if !(args.tol > 0.0) {
        return Err(Error::usage(format!("--tol must be positive, got {}", args.tol)));
    }
    let options = AmgOptions {
        theta: args.theta.unwrap_or_else(|| default_theta(args.method)),
        max_coarse: args.max_coarse,
        smoothed_levels: args.smoothed_levels,
        near_kernel: args.near_kernel,
        near_kernel_vectors: args.near_kernel_vectors,
        smoother: args.smoother,
        ..Default::default()
    };
    let mut method = match args.method {
        GlobalSolve::Primal => primal(dir, sys.jacobian.as_ref().expect("J read for primal-amg"), sys.x.as_deref().expect("x̃ read for primal-amg"), options)?,
        _ if args.matrix_free => Method::MatrixFreeCg(Cg::default()),
        GlobalSolve::Dual(m) => {
            if m == linear::Method::AmgPcg {
                options.validate()?;
            }
            Method::Matrix(m.build(&options))
        }
    };
    let b = sys.b;
    let mut dual = match (sys.a, sys.jacobian) {
        (Some(a), _) => Dual::Matrix(a),
        (None, Some(f)) => Dual::Jacobian(DualOperator::new(f.j, &f.inv_mass, &f.alpha_tilde)),
        (None, None) => unreachable!("read with A or J"),
    };
    // For primal-amg the setup includes filling K (the outer loop fills K instead of A).
    let t0 = Instant::now();
    match (&mut method, &dual) {
        (Method::Matrix(s), Dual::Matrix(a)) => s.setup(a, Setup::Full),
        (Method::Primal(s, p), _) => {
            s.fill(&p.grads, &p.inv_mass);
            s.setup(&p.x, Setup::Full);
        }
        _ => {}
    }
    let setup_s = t0.elapsed().as_secs_f64();
    let caps = if args.caps.is_empty() { vec![args.max_iter] } else { args.caps.clone() };
    let (mut x, mut ax) = (vec![0.0; b.len()], vec![0.0; b.len()]);
    let mut sweep = Vec::new();
    let mut stats = Default::default();
    for &cap in &caps {
        x.fill(0.0);
        let t1 = Instant::now();
        stats = match (&mut method, &mut dual) {
            (Method::Matrix(s), Dual::Matrix(a)) => s.solve(a, &b, &mut x, args.tol, cap),
            (Method::MatrixFreeCg(s), dual) => s.solve_operator(|v, y| dual.apply(v, y), &b, &mut x, args.tol, cap),
            (Method::Primal(s, p), _) => s.solve(&p.grads, &p.inv_mass, &b, &mut x, args.tol, cap),
            (Method::Matrix(_), Dual::Jacobian(_)) => unreachable!("--matrix-free methods are checked above"),
        };
        let solve_s = t1.elapsed().as_secs_f64();
        dual.apply(&x, &mut ax);
        let relative_residual = norm(&ax.iter().zip(&b).map(|(p, q)| p - q).collect::<Vec<_>>()) / norm(&b).max(f64::MIN_POSITIVE);
        if !(stats.relative_residual.is_finite() && relative_residual.is_finite()) {
            return Err(Error::invalid(format!("{what}: the {} solve failed (matrix not positive definite?)", args.method.name())));
        }
        sweep.push(SweepPoint { max_iter: cap, iterations: stats.iterations, solve_s, relative_residual });
    }
    if let Some(out) = &args.out {
        write_vector(out, &x)?;
    }
    let info = match &method {
        Method::Matrix(s) => s.info(),
        Method::MatrixFreeCg(_) => SetupInfo::default(),
        Method::Primal(s, _) => s.info(),
    };
    let last = sweep.last().expect("at least one cap");
    let report = Report {
        method: args.method,
        rows: b.len(),
        nnz: match &dual {
            Dual::Matrix(a) => Some(a.nnz()),
            Dual::Jacobian(_) => None,
        },
        matrix_free: args.matrix_free,
        iterations: last.iterations,
        relative_residual: last.relative_residual,
        converged: stats.converged,
        setup_s,
        solve_s: last.solve_s,
        levels: info.levels,
        level_rows: info.level_rows,
        operator_complexity: info.operator_complexity,
        convergence_factor: if last.iterations > 0 { last.relative_residual.powf(1.0 / last.iterations as f64) } else { 0.0 },
        sweep,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report).expect("report serialises"));
    } else {
        println!("method               {}", report.method.name());
        let nnz = match &dual {
            Dual::Matrix(a) => a.nnz().to_string(),
            Dual::Jacobian(op) => format!("matrix-free (A = J W Jᵀ + α̃, J has {} nonzeros)", op.jacobian_nonzeros()),
        };
        println!("rows, nnz            {}, {nnz}", report.rows);
        println!("iterations           {}", report.iterations);
        println!("relative_residual    {:.3e} ({})", report.relative_residual, if report.converged { "converged" } else { "not converged" });
        println!("convergence_factor   {:.4}", report.convergence_factor);
        println!("setup_s, solve_s     {:.4}, {:.4}", report.setup_s, report.solve_s);
        println!("levels               {} (rows {:?})", report.levels, report.level_rows);
        println!("operator_complexity  {:.3}", report.operator_complexity);
        if report.sweep.len() > 1 {
            for p in &report.sweep {
                println!(
                    "cap {:6}: {:6} iterations, setup + solve {:.4} s, relative residual {:.3e}",
                    p.max_iter,
                    p.iterations,
                    setup_s + p.solve_s,
                    p.relative_residual
                );
            }
        }
    }
    Ok(())
}
