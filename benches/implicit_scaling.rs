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
//!
//! `-- linear` instead times `solver.linear_solver = "ldlt"` against `"pcg"` with `pcg_preconditioner = "ict"` and
//! `"cholesky"` (thesis §4.4.2: "LDLᵀ or PCG to 1e-4") per implicit step as the mesh grows, on the pinned beams above and on square shell sheets (1 m, 16² to
//! 128² cells, E = 1e8 Pa, ν = 0.3, t = 1 mm, ρ = 1000, pinned along two opposite edges, sagging under gravity,
//! h = 10 ms): the three backends of a mesh step in turn, 2 warm-up steps then `LINEAR_STEPS` timed ones, so
//! that the machine's load falls on all alike; PCG's preconditioner is rebuilt only when its iterations grow
//! (`setups`: how many times in the timed steps). Writes benches/results/implicit_linear_solve.txt (docs/shells.md,
//! "LDLᵀ or PCG").

use std::path::Path;
use std::time::Instant;
use xpbd_core::backend::Backend;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;
use xpbd_cpu::implicit::{ImplicitBackend, PcgCounts, Phases};

const STEPS: usize = 20;
/// Timed steps per mesh and solver of the `linear` study.
const LINEAR_STEPS: usize = 10;

/// One (adaptive?, ln tets, ln ms, ln ms − oracle, ln ms − oracle − contact) point and a value picked from it.
type Point = (bool, f64, f64, f64, f64);
type Pick = fn(&Point) -> f64;

/// The beam of `cells`, pinned and under `kind = "implicit"` with the `[solver]` lines `linear`, or free and adaptive.
fn beam(cells: [usize; 3], adaptive: bool, linear: &str) -> String {
    let (solver, gravity, extra) = if adaptive {
        (
            "kind = \"adaptive\"\nrigidify_threshold = 1e-2\nelastify_threshold = 1e-1".to_string(),
            "0.0",
            "velocity = [0.3, 0.0, 0.0]\nangular_velocity = [0.0, 0.5, 1.0]\n".to_string(),
        )
    } else {
        (format!("kind = \"implicit\"\n{linear}"), "-9.81", "pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]\n".to_string())
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
    let built = build(&parse(&beam(cells, adaptive, ""), Path::new("s.toml")).unwrap(), Path::new(".")).unwrap();
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

/// The shell sheet of the `linear` study: `cells`² cells, with the `[solver]` lines `linear`.
fn sheet(cells: usize, linear: &str) -> String {
    format!(
        r#"name = "sheet"
[simulation]
dt = 0.01
frames = 1
substeps = 1
gravity = [0.0, 0.0, -9.81]
[output]
formats = ["none"]
[solver]
kind = "implicit"
{linear}
[[body]]
name = "sheet"
mesh = {{ generator = "grid2d", size = [1.0, 1.0], cells = [{cells}, {cells}] }}
material = {{ model = "shell", youngs = 1.0e8, poisson = 0.3, density = 1000.0, thickness = 1.0e-3 }}
rayleigh = [2.0, 0.0]
pin = [{{ box = {{ min = [-1.0, -1.0, -1.0], max = [1e-6, 2.0, 1.0] }} }}, {{ box = {{ min = [0.999999, -1.0, -1.0], max = [2.0, 2.0, 1.0] }} }}]
"#
    )
}

/// The solvers of the `linear` study: name and `[solver]` lines.
const LINEAR_SOLVERS: [(&str, &str); 3] = [
    ("ldlt", "linear_solver = \"ldlt\""),
    ("pcg, ict", "linear_solver = \"pcg\"\npcg_preconditioner = \"ict\""),
    ("pcg, cholesky", "linear_solver = \"pcg\"\npcg_preconditioner = \"cholesky\""),
];

/// One solver's run of a mesh in the `linear` study: ms per step, of which factorisation and solve (for `pcg`:
/// preconditioner setups, the iterations and any fallback), and what PCG did.
#[derive(Default)]
struct PerStep {
    ms: f64,
    linear_ms: f64,
    pcg: PcgCounts,
}

/// [`LINEAR_SOLVERS`] on the mesh of `scene(lines)`, stepped in turn: the rows and each solver's timed steps.
fn linear_runs(scene: &dyn Fn(&str) -> String) -> (usize, Vec<PerStep>) {
    let mut runs: Vec<_> = LINEAR_SOLVERS
        .iter()
        .map(|(_, lines)| {
            let built = build(&parse(&scene(lines), Path::new("s.toml")).unwrap(), Path::new(".")).unwrap();
            let backend = ImplicitBackend::new(&built.model, &built.config);
            let state = State::initial(&built.model);
            (built.model, backend, state, PerStep::default())
        })
        .collect();
    for step in 0..2 + LINEAR_STEPS {
        for (model, backend, state, per) in runs.iter_mut() {
            if step == 2 {
                backend.phases = Phases::default();
                backend.pcg = PcgCounts::default();
            }
            let start = Instant::now();
            backend.step_frame(model, state).unwrap();
            if step >= 2 {
                per.ms += start.elapsed().as_secs_f64() * 1e3 / LINEAR_STEPS as f64;
            }
            assert!(state.first_non_finite().is_none(), "a non-finite state");
        }
    }
    let rows = runs[0].1.system_matrix().rows();
    let per = runs
        .into_iter()
        .map(|(_, backend, _, per)| PerStep {
            linear_ms: (backend.phases.factorisation + backend.phases.solve) * 1e3 / LINEAR_STEPS as f64,
            pcg: backend.pcg,
            ..per
        })
        .collect();
    (rows, per)
}

/// `-- linear`: the table of docs/shells.md, "LDLᵀ or PCG".
fn linear_study(count: usize) {
    let mut out = format!(
        "ms per implicit step (h = 10 ms), ldlt against pcg (1e-4) with either preconditioner, {LINEAR_STEPS} steps each \
         after 2, stepped in turn; {} rayon threads\n\n\
         | mesh | rows | solver | ms/step | factor + solve | PCG iterations/solve | setups | fallbacks | step / ldlt | solve / ldlt |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
        rayon::current_num_threads()
    );
    print!("{out}");
    let beams = [[20, 3, 3], [32, 5, 5], [50, 8, 8], [68, 11, 11]];
    let meshes = [16, 32, 64, 96, 128]
        .into_iter()
        .take(count + 1)
        .map(|c| (format!("sheet {c}²"), Box::new(move |k: &str| sheet(c, k)) as Box<dyn Fn(&str) -> String>))
        .chain(
            beams
                .into_iter()
                .take(count)
                .map(|c| (format!("beam {} tets", 5 * c[0] * c[1] * c[2]), Box::new(move |k: &str| beam(c, false, k)) as Box<dyn Fn(&str) -> String>)),
        );
    for (name, scene) in meshes {
        let (rows, runs) = linear_runs(&*scene);
        for ((solver, _), run) in LINEAR_SOLVERS.iter().zip(&runs) {
            let c = run.pcg;
            let line = format!(
                "| {name} | {rows} | {solver} | {:.2} | {:.2} | {:.1} | {} | {} | {:.2} | {:.2} |\n",
                run.ms,
                run.linear_ms,
                c.iterations as f64 / c.solves.max(1) as f64,
                c.setups,
                c.fallbacks,
                run.ms / runs[0].ms,
                run.linear_ms / runs[0].linear_ms
            );
            print!("{line}");
            out += &line;
        }
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    std::fs::write(dir.join("implicit_linear_solve.txt"), &out).unwrap();
    println!("wrote benches/results/implicit_linear_solve.txt");
}

fn main() {
    let count: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(4);
    if std::env::args().any(|a| a == "linear") {
        linear_study(count);
        return;
    }
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
