//! Thesis "Adaptive methods for elastic deformation", Table 3.1 in spirit: `implicit` against `adaptive`
//! (defaults τ_R = 1e-4, τ_E = 1e-3 1/s², 3 calm steps) on four scenes, each run side by side at the same step:
//!
//! - armadillo: the 3.7k-tet mesh of `scenes/meshes` scaled by 0.2 (0.5 × 0.6 × 0.46 m), neo-Hookean block,
//!   E = 1e6 Pa, ρ = 1000, rayleigh [2, 0.005]; the vertices at its top (y > 0.36 m: its ears) are pinned and
//!   those of its left claw (x < −0.22 m) follow a hard pin moving at (−0.05, −0.02, 0) m/s; 3 s.
//! - blob: a voxelized ball (radius 0.15 m, 8 voxels across), neo-Hookean block, E = 5e4 Pa, ν = 0.4,
//!   rayleigh [1, 0.01], dropped from 5 cm onto a ground plane (friction 0.5); it bounces, wobbles and settles; 3 s.
//! - wheel: a voxelized torus (major radius 0.2 m, minor 0.06 m, 16 voxels across) standing upright, neo-Hookean
//!   block, E = 1e7 Pa, rayleigh [1, 0.005], released on a 15° slope (a plane with friction 0.8); it rolls
//!   down; 3 s.
//! - pills: eight small boxes (0.12 × 0.05 × 0.05 m, 4 × 2 × 2 cells, 80 tets each) in two staggered rows,
//!   tilted by −25° … 45°, E = 1e6 Pa, rayleigh [1, 0.002], poured onto four capsule pegs (radius 3 cm,
//!   across z, friction 0.3) and the ground (friction 0.5); 3 s.
//!
//! dt = 10 ms, 1 implicit step per frame (h = 10 ms). For each scene it prints the total wall time of both
//! runs, the total speed-up, the mean over frames of the per-frame speed-up, the speed-up without the contact
//! phase (phases.contact taken off both totals), the oracle's share of the adaptive run, the frames whose adaptive
//! time exceeds the implicit frame plus that frame's oracle time (with the worst excess), the mean rigid element
//! fraction, the frames after which the rigid counts changed (rebuilds of the rigid pattern, each a new
//! symbolic factorisation), and the largest vertex distance between the two runs over all frames, divided by the size (rest
//! bounding-box diagonal) of the vertex's body. Writes benches/results/adaptive_scenes.txt.
//!
//! Run: `cargo bench -p xpbd-benches --bench adaptive_scenes` (add `-- blob` for one scene; a few minutes on
//! 2 cores).

#[path = "adaptive_common.rs"]
mod common;

use std::path::Path;

const FRAMES: usize = 300;

fn material(youngs: f64, poisson: f64, density: f64) -> String {
    format!("material = {{ model = \"neohookean_block\", youngs = {youngs:e}, poisson = {poisson}, density = {density} }}")
}

fn armadillo() -> String {
    let mesh = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenes/meshes/armadillo_4k.node");
    format!(
        r#"[[body]]
name = "armadillo"
mesh = {{ file = {:?}, scale = 0.2 }}
{}
rayleigh = [2.0, 0.005]
pin = [{{ box = {{ min = [-1.0, 0.36, -1.0], max = [1.0, 1.0, 1.0] }} }}, {{ box = {{ min = [-1.0, -1.0, -1.0], max = [-0.22, 1.0, 1.0] }}, velocity = [-0.05, -0.02, 0.0] }}]
"#,
        mesh.display(),
        material(1e6, 0.3, 1000.0)
    )
}

fn blob() -> String {
    format!(
        r#"[[body]]
name = "blob"
mesh = {{ generator = "sphere", radius = 0.15, cells = [8] }}
translate = [0.0, 0.2, 0.0]
{}
rayleigh = [1.0, 0.01]
[[collider]]
kind = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
friction = 0.5
"#,
        material(5e4, 0.4, 1000.0)
    )
}

fn wheel() -> String {
    let (s, c) = 15f64.to_radians().sin_cos();
    // The torus stands in the xy plane (its axis along z), touching the slope at its lowest point.
    let centre_y = 0.26 / c + 0.005;
    format!(
        r#"[[body]]
name = "wheel"
mesh = {{ generator = "torus", major_radius = 0.2, minor_radius = 0.06, cells = [16] }}
rotate = [90.0, 0.0, 0.0]
translate = [0.0, {centre_y}, 0.0]
{}
rayleigh = [1.0, 0.005]
[[collider]]
kind = "plane"
point = [0.0, 0.0, 0.0]
normal = [{s}, {c}, 0.0]
friction = 0.8
"#,
        material(1e7, 0.3, 1000.0)
    )
}

fn pills() -> String {
    let mut s = String::new();
    for i in 0..8 {
        let (x, y) = (-0.3 + 0.16 * (i % 4) as f64 + 0.05 * (i / 4) as f64, 0.45 + 0.12 * (i / 4) as f64);
        s += &format!(
            "[[body]]\nname = \"pill{i}\"\nmesh = {{ generator = \"box\", size = [0.12, 0.05, 0.05], cells = [4, 2, 2] }}\ntranslate = [{x}, {y}, -0.025]\nrotate = [0.0, 0.0, {}]\n{}\nrayleigh = [1.0, 0.002]\n",
            10.0 * i as f64 - 25.0,
            material(1e6, 0.3, 1000.0)
        );
    }
    for (x, y) in [(-0.15, 0.3), (0.05, 0.3), (-0.05, 0.15), (0.15, 0.15)] {
        s += &format!("[[collider]]\nkind = \"capsule\"\na = [{x}, {y}, -0.2]\nb = [{x}, {y}, 0.2]\nradius = 0.03\nfriction = 0.3\n");
    }
    s + "[[collider]]\nkind = \"plane\"\npoint = [0.0, 0.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\nfriction = 0.5\n"
}

fn main() {
    let only = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    type Scene = (&'static str, fn() -> String);
    let scenes: [Scene; 4] = [("armadillo", armadillo), ("blob", blob), ("wheel", wheel), ("pills", pills)];
    let mut out = format!(
        "implicit vs adaptive (τ_R = 1e-4, τ_E = 1e-3), {FRAMES} frames of h = 10 ms, {} rayon threads\n\n\
         | scene | tets | implicit (s) | adaptive (s) | speed-up | mean per-frame speed-up | no-contact speed-up | oracle share | frames over implicit + oracle (worst excess) | mean rigid fraction | pattern changes | max error / body size | failure |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
        rayon::current_num_threads()
    );
    print!("{out}");
    for (name, body) in scenes {
        if only.as_deref().is_some_and(|o| o != name) {
            continue;
        }
        let implicit = common::run(&(common::header(name, 0.01, 1, FRAMES, &common::solver(None)) + &body()), FRAMES, true);
        let adaptive = common::run(&(common::header(name, 0.01, 1, FRAMES, "kind = \"adaptive\"") + &body()), FRAMES, true);
        let model = &implicit.model;
        let mut error: f64 = 0.0;
        for b in &model.bodies {
            let size = {
                let (mut lo, mut hi) = (model.rest[b.vertices.start], model.rest[b.vertices.start]);
                for x in &model.rest[b.vertices.clone()] {
                    lo = lo.inf(x);
                    hi = hi.sup(x);
                }
                (hi - lo).norm()
            };
            for (fa, fb) in implicit.frames.iter().zip(&adaptive.frames) {
                for v in b.vertices.clone() {
                    error = error.max((fa[v] - fb[v]).norm() / size);
                }
            }
        }
        let (ti, ta) = (implicit.total(), adaptive.total());
        let n = implicit.frame_seconds.len().min(adaptive.frame_seconds.len());
        let per_frame = (0..n).map(|k| implicit.frame_seconds[k] / adaptive.frame_seconds[k]).sum::<f64>() / n.max(1) as f64;
        // The issue's bound: an adaptive frame should cost at most the implicit frame plus its own oracle time.
        let excess: Vec<f64> = (0..n).map(|k| adaptive.frame_seconds[k] - implicit.frame_seconds[k] - adaptive.oracle_seconds[k]).collect();
        let over = excess.iter().filter(|&&e| e > 0.0).count();
        let worst = excess.iter().copied().fold(0.0, f64::max);
        let failure = [("implicit", &implicit.failure), ("adaptive", &adaptive.failure)]
            .iter()
            .filter_map(|(k, f)| f.as_ref().map(|f| format!("{k}: {f}")))
            .collect::<Vec<_>>()
            .join("; ");
        let line = format!(
            "| {name} | {} | {ti:.2} | {ta:.2} | {:.2} | {per_frame:.2} | {:.2} | {:.1} % | {over} ({:.1} ms) | {:.3} | {} | {error:.2e} | {failure} |\n",
            model.element_count(),
            ti / ta,
            (ti - implicit.phases.contact) / (ta - adaptive.phases.contact),
            100.0 * adaptive.phases.oracle / ta,
            1e3 * worst,
            adaptive.mean_rigid(),
            adaptive.switches,
        );
        print!("{line}");
        out += &line;
        eprintln!("{name}: implicit phases {:?}\n{name}: adaptive phases {:?}", implicit.phases, adaptive.phases);
        out += &format!("<!-- {name}: implicit phases {:?}; adaptive phases {:?} -->\n", implicit.phases, adaptive.phases);
    }
    if only.is_none() {
        common::save("adaptive_scenes", &out);
    }
}
