//! The implicit step's cost against the problem size, and what adaptive rigidification leaves of it once a
//! body is entirely rigid.
//!
//! Box beams 1 × 0.1 × 0.1 m scaled in cross-section cells, 5 tets per cell (neo-Hookean block, E = 1e7 Pa,
//! ν = 0.3, ρ = 1000, rayleigh [2, 0.002]), h = 10 ms (1 step per frame), at four sizes of about 1k, 4k, 16k
//! and 40k tets:
//!
//! - `implicit`: the cantilever pinned at x = 0 under gravity; 2 warm-up steps, then `STEPS` timed steps.
//! - `adaptive` (τ_R = 1e-2, τ_E = 1e-1): the same mesh, free, with no pin and no gravity, moving at
//!   (0.3, 0, 0) m/s and spinning at (0, 0.5, 1) rad/s: a pinned beam keeps its anchored elements elastic, so
//!   a free one is the body that can become one rigid body. Stepped until every element is rigid (one body),
//!   then the phases are reset and `STEPS` steps timed.
//!
//! Prints ms per step and each phase's share (`ImplicitBackend::phases`: assembly = element states,
//! factorisation = global scatter + Cholesky, solve, contact, oracle, bodies; "other" is the rest of the step:
//! prediction, position update (placing a rigid body's member vertices), strain recording). The log-log slopes
//! of ms/step against tets are fitted over the sizes run; for the rigid beam also without the oracle, and
//! without the oracle and contact (self-contact detection still scans the surface). Writes benches/results/implicit_scaling.txt.
//!
//! Run: `cargo bench -p xpbd-benches --bench implicit_scaling` (a few minutes on 2 cores; add `-- 3` to stop
//! after the first three sizes).

use std::path::Path;
use std::time::Instant;
use xpbd_core::backend::Backend;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;
use xpbd_cpu::implicit::{ImplicitBackend, Phases};

const STEPS: usize = 20;

/// One (adaptive?, ln tets, ln ms, ln ms − oracle, ln ms − oracle − contact) point and a value picked from it.
type Point = (bool, f64, f64, f64, f64);
type Pick = fn(&Point) -> f64;

fn scene(cells: [usize; 3], adaptive: bool) -> String {
    let (solver, gravity, extra) = if adaptive {
        (
            "kind = \"adaptive\"\nrigidify_threshold = 1e-2\nelastify_threshold = 1e-1",
            "0.0",
            "velocity = [0.3, 0.0, 0.0]\nangular_velocity = [0.0, 0.5, 1.0]\n".to_string(),
        )
    } else {
        ("kind = \"implicit\"", "-9.81", "pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]\n".to_string())
    };
    let [nx, ny, nz] = cells;
    format!(
        r#"name = "scaling"
[simulation]
dt = 0.01
frames = 1
substeps = 1
gravity = [0.0, {gravity}, 0.0]
[output]
formats = ["none"]
[solver]
{solver}
[[body]]
name = "beam"
mesh = {{ generator = "box", size = [1.0, 0.1, 0.1], cells = [{nx}, {ny}, {nz}] }}
material = {{ model = "neohookean_block", youngs = 1.0e7, poisson = 0.3, density = 1000.0 }}
rayleigh = [2.0, 0.002]
{extra}"#
    )
}

struct Timing {
    tets: usize,
    dofs: usize,
    ms: f64,
    phases: Phases,
    note: String,
}

fn time(cells: [usize; 3], adaptive: bool) -> Timing {
    let built = build(&parse(&scene(cells, adaptive), Path::new("s.toml")).unwrap(), Path::new(".")).unwrap();
    let model = built.model;
    let mut backend = ImplicitBackend::new(&model, &built.config);
    let mut state = State::initial(&model);
    let n = model.element_count();
    let mut note = String::new();
    let mut warm = 0;
    loop {
        backend.step_frame(&model, &mut state).unwrap();
        warm += 1;
        if !adaptive && warm == 2 {
            break;
        }
        if adaptive && backend.rigid_counts() == (1, n) {
            note = format!("one rigid body after {warm} steps");
            break;
        }
        if warm == 40 {
            note = format!("not fully rigid after {warm} steps: {:?}", backend.rigid_counts());
            break;
        }
    }
    backend.phases = Phases::default();
    let start = Instant::now();
    for _ in 0..STEPS {
        backend.step_frame(&model, &mut state).unwrap();
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / STEPS as f64;
    if let Some(v) = state.first_non_finite() {
        note += &format!("; vertex {v} not finite");
    }
    if adaptive && backend.rigid_counts() != (1, n) {
        note += &format!("; at the end {:?} rigid (bodies, elements)", backend.rigid_counts());
    }
    let dofs = 3 * model.inv_mass.iter().filter(|&&w| w > 0.0).count();
    let mut phases = backend.phases;
    for p in [&mut phases.assembly, &mut phases.factorisation, &mut phases.solve, &mut phases.contact, &mut phases.oracle, &mut phases.bodies] {
        *p *= 1e3 / STEPS as f64;
    }
    Timing { tets: n, dofs, ms, phases, note }
}

fn row(kind: &str, t: &Timing) -> String {
    let p = &t.phases;
    let share = |x: f64| 100.0 * x / t.ms;
    let other = t.ms - (p.assembly + p.factorisation + p.solve + p.contact + p.oracle + p.bodies);
    format!(
        "| {kind} | {} | {} | {:.2} | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {:.1} % | {} |\n",
        t.tets,
        t.dofs,
        t.ms,
        share(p.assembly),
        share(p.factorisation),
        share(p.solve),
        share(p.contact),
        share(p.oracle),
        share(p.bodies),
        share(other),
        t.note
    )
}

fn main() {
    let count: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(4);
    let sizes = [[20, 3, 3], [32, 5, 5], [50, 8, 8], [68, 11, 11]];
    let mut out = format!(
        "ms per implicit step (h = 10 ms) over {STEPS} steps, {} rayon threads; phase shares of the step\n\n\
         | solver | tets | free DOFs | ms/step | assembly | factorisation | solve | contact | oracle | bodies | other | note |\n\
         |---|---|---|---|---|---|---|---|---|---|---|---|\n",
        rayon::current_num_threads()
    );
    print!("{out}");
    let mut points = Vec::new();
    for cells in sizes.iter().take(count) {
        for adaptive in [false, true] {
            let t = time(*cells, adaptive);
            let line = row(if adaptive { "adaptive, rigid" } else { "implicit" }, &t);
            print!("{line}");
            out += &line;
            points.push((adaptive, (t.tets as f64).ln(), t.ms.ln(), (t.ms - t.phases.oracle).ln(), (t.ms - t.phases.oracle - t.phases.contact).ln()));
        }
    }
    let fits: [(bool, &str, Pick); 4] = [
        (false, "implicit: ms/step", |q| q.2),
        (true, "adaptive, rigid: ms/step", |q| q.2),
        (true, "adaptive, rigid: ms/step without the oracle", |q| q.3),
        (true, "adaptive, rigid: ms/step without the oracle and contact", |q| q.4),
    ];
    for (adaptive, what, y) in fits {
        let p: Vec<(f64, f64)> = points.iter().filter(|q| q.0 == adaptive).map(|q| (q.1, y(q))).collect();
        if p.len() > 1 {
            let n = p.len() as f64;
            let (mx, my) = (p.iter().map(|q| q.0).sum::<f64>() / n, p.iter().map(|q| q.1).sum::<f64>() / n);
            let slope = p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum::<f64>() / p.iter().map(|q| (q.0 - mx).powi(2)).sum::<f64>();
            let line = format!("\n{what}: log-log slope against tets {slope:.2}");
            print!("{line}");
            out += &line;
        }
    }
    out.push('\n');
    println!();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    std::fs::write(dir.join("implicit_scaling.txt"), &out).unwrap();
    println!("wrote benches/results/implicit_scaling.txt");
}
