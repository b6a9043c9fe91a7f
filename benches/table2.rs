//! Table 2 of the block neo-Hookean paper on this machine's CPU: colors of the baseline and the
//! clustered partitions, and milliseconds per 10 ms time step for
//! - baseline: decoupled neo-Hookean, colored (Algorithm 2), 250 substeps (200 for the beam),
//! - C: decoupled, clustered (Algorithms 3–4), same substeps,
//! - B: block neo-Hookean, colored, 50 substeps (30 for the beam),
//! - B+C: block, clustered, same.
//!
//! All with one iteration per substep, measured side by side in one run; then the scaling of B+C
//! from 1 to 2 rayon threads on the largest mesh.
//!
//! Run: `cargo bench -p xpbd-benches --bench table2` (prints a Markdown table; docs/reproductions/block-neohookean.md).
//! `TABLE2_MESHES=beam,armadillo` keeps only the named meshes (the reproduction script's smoke run); the thread
//! scaling then runs on the largest one kept.

use std::path::Path;
use xpbd_core::graph::partition::partitions;
use xpbd_core::scene::table2::{self, Body, VARIANTS};

/// Mean solver milliseconds per time step of `body` in variant `v`, over `steps` steps after one warm-up step.
fn ms_per_step(body: &Body, v: &table2::Variant, steps: usize) -> f64 {
    let b = table2::model(body, v.material, v.ordering, v.substeps(body.name == "beam")).unwrap();
    table2::ms_per_step(&b.model, &mut xpbd_cpu::CpuBackend::new(&b.model, &b.config), steps).unwrap()
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let armadillo = root.join("scenes/meshes/armadillo_4k.node");
    let bunny = root.join("scenes/meshes/bunny_31k.node");
    let body = |name: &str, mesh: String, youngs: f64| Body { name: name.into(), mesh, youngs, pin: "{ indices = [0, 1, 2] }".into() };
    let mut meshes = vec![
        body("beam", r#"{ generator = "box", size = [4.0, 1.0, 1.0], cells = [30, 5, 5], split = 5 }"#.into(), 1e7),
        body("armadillo", format!(r#"{{ file = "{}" }}"#, armadillo.display()), 1e6),
        body("box_51k", r#"{ generator = "box", size = [4.0, 1.6, 1.6], cells = [40, 16, 16], split = 5 }"#.into(), 1e7),
    ];
    if bunny.exists() {
        meshes.push(body("bunny_31k", format!(r#"{{ file = "{}" }}"#, bunny.display()), 1e6));
    }
    if let Ok(keep) = std::env::var("TABLE2_MESHES") {
        meshes.retain(|m| keep.split(',').any(|k| k.trim() == m.name));
        if meshes.is_empty() {
            eprintln!("TABLE2_MESHES={keep}: names none of beam, armadillo, box_51k, bunny_31k");
            std::process::exit(2);
        }
    }
    let steps = 3;
    println!("threads: {} (rayon default pool); {steps} time steps of 10 ms after one warm-up, 1 iteration per substep\n", rayon::current_num_threads());
    println!("| mesh | tets | colors baseline | colors clustered | ratio | baseline ms | C ms | B ms | B+C ms | C× | B× | B+C× |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for m in &meshes {
        let model = table2::model(m, "neohookean", "serial", 1).unwrap().model;
        let g = &model.tet_groups[0];
        let p = partitions(&g.tets, model.vertex_count(), 5);
        let [base, c, b, bc] = VARIANTS.map(|v| ms_per_step(m, &v, steps));
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
    let largest = meshes.iter().max_by_key(|m| table2::model(m, "neohookean", "serial", 1).map_or(0, |b| b.model.element_count())).unwrap();
    let mut per_threads = Vec::new();
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        per_threads.push(pool.install(|| ms_per_step(largest, &VARIANTS[3], steps)));
    }
    println!(
        "\nB+C on {}: {:.1} ms per step with 1 thread, {:.1} ms with 2 threads: scaling {:.2}×",
        largest.name,
        per_threads[0],
        per_threads[1],
        per_threads[0] / per_threads[1]
    );
}
