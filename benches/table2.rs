//! Table 2 of the block neo-Hookean paper on this machine's CPU: colors of the baseline and the
//! clustered partitions, and milliseconds per 10 ms time step for
//! - baseline: decoupled neo-Hookean, colored (Algorithm 2), 250 substeps (200 for the beam),
//! - C: decoupled, clustered (Algorithms 3–4), same substeps,
//! - B: block neo-Hookean, colored, 50 substeps (30 for the beam),
//! - B+C: block, clustered, same,
//! all with one iteration per substep, measured side by side in one run; then the scaling of B+C
//! from 1 to 2 rayon threads on the largest mesh.
//!
//! Run: `cargo bench -p xpbd-benches --bench table2` (prints a Markdown table; docs/block-neohookean.md).

use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::graph::partition::partitions;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;

struct Mesh {
    name: &'static str,
    source: String,
    youngs: f64,
    /// (baseline substeps, block substeps)
    substeps: (usize, usize),
}

fn scene(m: &Mesh, model: &str, ordering: &str, substeps: usize) -> String {
    format!(
        r#"name = "table2"
[simulation]
dt = 0.01
substeps = {substeps}
iterations = 1
[solver]
ordering = "{ordering}"
cluster_size = 5
[[body]]
name = "{}"
mesh = {}
material = {{ model = "{model}", youngs = {:e}, poisson = 0.45, density = 1000.0 }}
pin = [{{ indices = [0, 1, 2] }}]
"#,
        m.name, m.source, m.youngs
    )
}

/// Mean solver milliseconds per time step over `steps` steps after one warm-up step.
fn ms_per_step(text: &str, steps: usize) -> f64 {
    let built = build(&parse(text, Path::new("table2.toml")).unwrap(), Path::new(".")).unwrap();
    let model = built.model;
    let mut state = State::initial(&model);
    let mut backend = xpbd_cpu::CpuBackend::new(&model, &built.config);
    backend.step_frame(&model, &mut state).unwrap();
    let mut secs = 0.0;
    for _ in 0..steps {
        secs += backend.step_frame(&model, &mut state).unwrap().solve_seconds;
    }
    assert!(state.first_non_finite().is_none(), "the benchmark scene blew up");
    secs * 1e3 / steps as f64
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let armadillo = root.join("scenes/meshes/armadillo_4k.node");
    let bunny = root.join("../shared/meshes/bunny_31k.node");
    let mut meshes = vec![
        Mesh {
            name: "beam",
            source: r#"{ generator = "box", size = [4.0, 1.0, 1.0], cells = [30, 5, 5], split = 5 }"#.into(),
            youngs: 1e7,
            substeps: (200, 30),
        },
        Mesh { name: "armadillo", source: format!(r#"{{ file = "{}" }}"#, armadillo.display()), youngs: 1e6, substeps: (250, 50) },
        Mesh {
            name: "box_51k",
            source: r#"{ generator = "box", size = [4.0, 1.6, 1.6], cells = [40, 16, 16], split = 5 }"#.into(),
            youngs: 1e7,
            substeps: (250, 50),
        },
    ];
    if bunny.exists() {
        meshes.push(Mesh { name: "bunny_31k", source: format!(r#"{{ file = "{}" }}"#, bunny.display()), youngs: 1e6, substeps: (250, 50) });
    }
    let steps = 3;
    println!("threads: {} (rayon default pool); {steps} time steps of 10 ms after one warm-up, 1 iteration per substep\n", rayon::current_num_threads());
    println!("| mesh | tets | colors baseline | colors clustered | ratio | baseline ms | C ms | B ms | B+C ms | C× | B× | B+C× |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for m in &meshes {
        let probe = scene(m, "neohookean", "serial", 1);
        let model = build(&parse(&probe, Path::new("t.toml")).unwrap(), Path::new(".")).unwrap().model;
        let g = &model.tet_groups[0];
        let p = partitions(&g.tets, model.vertex_count(), 5);
        let (sb, sk) = m.substeps;
        let base = ms_per_step(&scene(m, "neohookean", "colored", sb), steps);
        let c = ms_per_step(&scene(m, "neohookean", "clustered", sb), steps);
        let b = ms_per_step(&scene(m, "neohookean_block", "colored", sk), steps);
        let bc = ms_per_step(&scene(m, "neohookean_block", "clustered", sk), steps);
        println!(
            "| {} | {} | {} | {} | {:.2} | {base:.1} | {c:.1} | {b:.1} | {bc:.1} | {:.2} | {:.2} | {:.2} |",
            m.name,
            g.tets.len(),
            p.colored.colors(),
            p.cluster_colors.colors(),
            p.cluster_colors.colors() as f64 / p.colored.colors() as f64,
            base / c,
            base / b,
            base / bc
        );
    }
    let largest = meshes.iter().max_by_key(|m| if m.name == "box_51k" { 1 } else { 0 }).unwrap();
    let text = scene(largest, "neohookean_block", "clustered", largest.substeps.1);
    let mut per_threads = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        per_threads.push(pool.install(|| ms_per_step(&text, steps)));
    }
    println!(
        "\nB+C on {}: {:.1} ms per step with 1 thread, {:.1} ms with 2 threads: scaling {:.2}×",
        largest.name,
        per_threads[0],
        per_threads[1],
        per_threads[0] / per_threads[1]
    );
}
