//! A pile: armadillos (the 3.7k-tet mesh of `scenes/meshes`, scaled to 0.5 m, ARAP, E = 1e6 Pa) dropped in
//! layers of four into a 1.4 m box (a ground plane and four walls), 60 frames of 1/60 s with 5 substeps of 4
//! clustered iterations. For 5, 10, 20 and 40 armadillos it prints the frame time, the share spent detecting
//! and projecting contacts, the rows that pushed in the last frame, and the broad phase's time per call against
//! the surface size (the slope of log time over log size: 1 is linear).
//!
//! Run: `cargo bench -p xpbd-benches --bench contact_pile` (add `-- 20` for one size).

use std::path::Path;
use std::time::Instant;
use xpbd_core::backend::Backend;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;

const FRAMES: usize = 60;

fn scene(count: usize, mesh: &Path) -> String {
    let mut s = format!(
        r#"name = "pile"
[simulation]
dt = 0.016666666666666666
frames = {FRAMES}
substeps = 5
iterations = 4
gravity = [0.0, -9.81, 0.0]
velocity_damping = 1.0
[solver]
ordering = "clustered"
"#
    );
    for (k, (point, normal)) in [
        ([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([-0.7, 0.0, 0.0], [1.0, 0.0, 0.0]),
        ([0.7, 0.0, 0.0], [-1.0, 0.0, 0.0]),
        ([0.0, 0.0, -0.7], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 0.7], [0.0, 0.0, -1.0]),
    ]
    .iter()
    .enumerate()
    {
        s += &format!("[[collider]]\nkind = \"plane\"\npoint = {point:?}\nnormal = {normal:?}\nfriction = {}\n", if k == 0 { 0.5 } else { 0.1 });
    }
    for i in 0..count {
        let (layer, slot) = (i / 4, i % 4);
        let (x, z) = (if slot % 2 == 0 { -0.3 } else { 0.3 }, if slot < 2 { -0.3 } else { 0.3 });
        s += &format!(
            "[[body]]\nname = \"a{i}\"\nmesh = {{ file = {:?}, scale = 0.2 }}\ntranslate = [{x}, {}, {z}]\nrotate = [0.0, {}, 0.0]\nmaterial = {{ model = \"arap\", youngs = 1.0e6, poisson = 0.3, density = 1000.0 }}\n",
            mesh.display(),
            0.25 + 0.75 * layer as f64,
            90.0 * i as f64
        );
    }
    s
}

fn main() {
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/meshes/armadillo_4k.node");
    let sizes: Vec<usize> = match std::env::args().nth(1).and_then(|a| a.parse().ok()) {
        Some(n) => vec![n],
        None => vec![5, 10, 20, 40],
    };
    let mut points = Vec::new();
    for n in sizes {
        let built = build(&parse(&scene(n, &mesh), Path::new("pile.toml")).unwrap(), Path::new(".")).unwrap();
        for w in &built.warnings {
            eprintln!("warning: {w}");
        }
        let model = built.model;
        let mut backend = xpbd_cpu::CpuBackend::new(&model, &built.config);
        let mut state = State::initial(&model);
        let start = Instant::now();
        let mut pushed = 0;
        for _ in 0..FRAMES {
            pushed = backend.step_frame(&model, &mut state).unwrap().contacts;
        }
        if let Some(v) = state.first_non_finite() {
            panic!("vertex {v} is not finite: the pile blew up");
        }
        let total = start.elapsed().as_secs_f64();
        let c = backend.contacts();
        let triangles = model.contact.surface.triangles.len();
        let per_call = c.detector.broad_phase_seconds / c.detector.broad_phases.max(1) as f64;
        println!(
            "{n} armadillos ({} tets, {triangles} surface triangles), {} threads: {:.1} ms/frame; contact {:.1} % (detection {:.1} %, projection {:.1} %); {} broad phases, {:.2} ms each; {pushed} rows pushed in the last frame",
            model.element_count(),
            rayon::current_num_threads(),
            total * 1e3 / FRAMES as f64,
            100.0 * (c.detect_seconds + c.project_seconds) / total,
            100.0 * c.detect_seconds / total,
            100.0 * c.project_seconds / total,
            c.detector.broad_phases,
            per_call * 1e3
        );
        points.push(((triangles as f64).ln(), per_call.ln()));
    }
    if points.len() > 1 {
        let n = points.len() as f64;
        let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
        let slope = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum::<f64>() / points.iter().map(|p| (p.0 - mx).powi(2)).sum::<f64>();
        println!("broad phase time against surface size: log-log slope {slope:.2}");
    }
}
