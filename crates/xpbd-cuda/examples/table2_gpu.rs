//! Table 2 of the block neo-Hookean paper on the GPU against the CPU, side by side in one run: milliseconds per
//! 10 ms time step on box meshes of ≈3.7k, 20k, 56k and 160k tetrahedra for
//! - baseline: decoupled neo-Hookean, colored (Algorithm 2), 250 substeps (200 for the 3.7k beam),
//! - C: decoupled, clustered (Algorithms 3–4, K_s = 5), same substeps,
//! - B: block neo-Hookean, colored, 50 substeps (30 for the beam),
//! - B+C: block, clustered, same,
//!
//! one iteration per substep (the paper's settings, as `benches/table2.rs` on the CPU). Each row runs the CPU
//! backend (f64, rayon), the CUDA backend in single precision with plain launches, and with a CUDA graph per
//! frame. Without a usable GPU it prints `skipped: <reason>` and exits 0.
//!
//! Run: `bash benches/gpu/run.sh` (or `cargo run --release -p xpbd-cuda --example table2_gpu -- [--steps N]
//! [--meshes 3.7k,20k] [--variants B,B+C] [--no-cpu] [--no-graph]`; the last three narrow a run down for a
//! profiler, e.g. `ncu --kernel-name regex:project_items ... table2_gpu --meshes 160k --variants B --no-cpu --no-graph`).

use xpbd_core::backend::Backend;
use xpbd_core::scene::table2::{self, GPU_MESHES as MESHES, VARIANTS};
use xpbd_core::scene::Built;
use xpbd_cuda::{CudaBackend, CudaOptions, Precision};

/// The GPU Table 2 scene on a box of `cells` (`table2::gpu_box`).
fn model(cells: [usize; 3], material: &str, ordering: &str, substeps: usize) -> Result<Built, String> {
    table2::model(&table2::gpu_box(cells), material, ordering, substeps).map_err(|e| e.to_string())
}

struct Args {
    steps: usize,
    meshes: Vec<String>,
    variants: Vec<String>,
    cpu: bool,
    graph: bool,
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        steps: 5,
        meshes: MESHES.iter().map(|m| m.0.to_string()).collect(),
        variants: VARIANTS.iter().map(|v| v.label.to_string()).collect(),
        cpu: true,
        graph: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--steps" => a.steps = it.next().and_then(|s| s.parse().ok()).filter(|&n| n > 0).ok_or("--steps: a positive integer")?,
            "--meshes" => a.meshes = it.next().ok_or("--meshes: a comma-separated list of 3.7k, 20k, 56k, 160k")?.split(',').map(String::from).collect(),
            "--variants" => a.variants = it.next().ok_or("--variants: a comma-separated list of baseline, C, B, B+C")?.split(',').map(String::from).collect(),
            "--no-cpu" => a.cpu = false,
            "--no-graph" => a.graph = false,
            other => return Err(format!("unknown argument '{other}' (--steps N, --meshes LIST, --variants LIST, --no-cpu, --no-graph)")),
        }
    }
    if let Some(bad) = a.variants.iter().find(|v| !VARIANTS.iter().any(|known| known.label == v.as_str())) {
        return Err(format!("--variants: '{bad}' is not one of baseline, C, B, B+C"));
    }
    if let Some(bad) = a.meshes.iter().find(|m| !MESHES.iter().any(|(l, _)| l == m)) {
        return Err(format!("--meshes: '{bad}' is not one of 3.7k, 20k, 56k, 160k"));
    }
    Ok(a)
}

fn run() -> Result<(), String> {
    let args = args()?;
    // The smallest scene builds everywhere (checks the scene text without a GPU).
    model(MESHES[0].1, "neohookean_block", "clustered", 1)?;
    let info = match xpbd_cuda::probe() {
        Ok(info) => info,
        Err(reason) => {
            println!("skipped: {reason}");
            return Ok(());
        }
    };
    println!(
        "GPU: {} (compute {}.{}, driver CUDA {}.{}); CPU: {} hardware threads (rayon's default pool); {} steps of 10 ms after one warm-up step\n",
        info.name,
        info.compute_capability.0,
        info.compute_capability.1,
        info.driver_version.0,
        info.driver_version.1,
        rayon_threads(),
        args.steps
    );
    println!("| mesh | tets | variant | ordering | substeps | colors | CPU f64 ms/step | GPU f32 plain ms/step | GPU f32 graph ms/step | CPU/GPU (graph) |");
    println!("|---|---|---|---|---|---|---|---|---|---|");
    for (label, cells) in MESHES.iter().filter(|(l, _)| args.meshes.iter().any(|m| m == l)) {
        for v in VARIANTS.iter().filter(|v| args.variants.iter().any(|a| a == v.label)) {
            let (variant, ordering, substeps) = (v.label, v.ordering, v.substeps(*label == "3.7k"));
            let Built { model: m, config, .. } = model(*cells, v.material, ordering, substeps)?;
            let cpu_ms = if args.cpu { Some(table2::ms_per_step(&m, &mut xpbd_cpu::CpuBackend::new(&m, &config), args.steps)?) } else { None };
            let gpu = |graph| -> Result<(f64, Option<usize>), String> {
                let mut b = CudaBackend::new(&m, &config, CudaOptions { ordinal: 0, precision: Precision::F32, graph }).map_err(|e| e.to_string())?;
                Ok((table2::ms_per_step(&m, &mut b, args.steps)?, b.colors()))
            };
            let (plain, colors) = gpu(false)?;
            let graph = if args.graph { Some(gpu(true)?.0) } else { None };
            let cpu_text = cpu_ms.map_or("-".into(), |c| format!("{c:.2}"));
            let ratio = match (cpu_ms, graph) {
                (Some(c), Some(g)) => format!("{:.1}", c / g),
                _ => "-".into(),
            };
            let graph = graph.map_or("-".into(), |g| format!("{g:.2}"));
            println!(
                "| {label} | {} | {variant} | {ordering} | {substeps} | {} | {cpu_text} | {plain:.2} | {graph} | {ratio} |",
                m.element_count(),
                colors.map_or("-".into(), |c| c.to_string())
            );
        }
    }
    println!("\nms/step: the backends' solve_seconds (CPU: excludes the residual evaluation for reporting; GPU: the");
    println!("frame's launches to the stream's completion, including the two residual reductions of its last substep,");
    println!("excluding the state download after the frame).");
    Ok(())
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
