//! The studies of the multi-layer solver (the multi-layer paper §4; results in docs/reproductions/multilayer.md).
//! Each study runs XPBD (serial Gauss-Seidel) and multi-layer variants side by side in one process: a
//! reference run of the default multi-layer solver (5 layers, linear, doubling, strain-rate order, with
//! the budget) advances the scene, and at every sampled substep each variant solves that
//! same substep from the same state (the multi-layer variants also from the reference's strain rates)
//! with the same iteration budget, recording ‖C + α̃λ‖ / ‖r₀‖ (r₀ at the prediction x̃) and the solver
//! time after every iteration, the residual evaluation excluded from the time.
//!
//! A variant's layers take the iterations its profile gives `base` iterations; the last (elastic) layer
//! then runs on to the budget, which XPBD gets whole. Measures per variant, averaged over the samples:
//! the relative residual after the budget, and the iterations and solver time until the residual
//! first falls to 10 % of r₀ (the 90 % reduction of the paper's Fig. 9 and Table 1) in a layer with no
//! rigid group (see `Trace::fully_elastic_at`).
//!
//! Studies (argument): `ordering` (Fig. 5), `spacing` (Fig. 6), `layers` (Fig. 7), `iterations`
//! (Fig. 8), each on a pinned StVK cantilever (as in the paper) and on the free stretched box below
//! (1500 tets, where no rigid group holds a pin); `stretched` (Table 1): a 3 × 1 × 1 StVK box stretched
//! 10 % along x and released, at ≈ 650, 1550 and 3300 tets and E = 1e7, 1e8, 1e9 Pa; `spinning` (f): a
//! box spinning freely, volume and angular-momentum drift against XPBD at several costs, and the
//! residual after the 100 % rigid first layer; `examples` (Fig. 9): on the scene files of
//! `EXAMPLE_SCENES`, histograms of the solver time to a 90 % reduction of XPBD and the multi-layer
//! solver over 20 substeps sampled along the scene's own run (the scene's solver advances it);
//! `precision` (Fig. 10): on the octopus, the time to 90, 99 and 99.9 % reduction; `all`. The
//! scene-file studies compare XPBD's serial and colored sweeps with the multi-layer solver; every
//! parameter-study run includes XPBD and the multi-layer solver with one (elastic) layer as controls.
//! `--smoke` runs every study at its smallest (one sample, one run; the scene-file studies on 2
//! substeps of the first 2 frames with 40 iterations) to check the code path. Writes `NAME.csv` and
//! `NAME.svg` (the first sample's curves; the histograms and the time against the residual level for
//! the scene-file studies) to `--out DIR`, by default docs/reproductions/multilayer, and prints the Markdown
//! tables. The reproduction script `benches/reproduce/multilayer.sh` runs them all.
//!
//! Run: `cargo bench -p xpbd-benches --bench multilayer_studies -- STUDY [--smoke] [--out DIR]`

use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;
use xpbd::converge::substep_history;
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::metrics;
use xpbd_core::scene::Built;
use xpbd_core::solver_config::Method;
use xpbd_core::state::State;
use xpbd_cpu::multilayer::Multilayer;
use xpbd_cpu::CpuBackend;
use xpbd_tools::plot::{histogram, panels_svg, Panel, Series};

/// A scene and how it is sampled.
struct Setup {
    name: &'static str,
    /// The `[simulation]` fields but `iterations`, and the `[[body]]` tables.
    simulation: &'static str,
    body: String,
    /// Stretch factor along x about the centroid at the start (the stretched box).
    stretch: f64,
    /// Reference substeps before the first sample, and the number of samples (consecutive substeps).
    warmup: usize,
    samples: usize,
    budget: usize,
    /// Runs of each variant per sample (the shortest time of each iteration is kept).
    repeats: usize,
}

/// One solver of a study: `solver` is the body of the scene's `[solver]` table.
struct Variant {
    label: String,
    solver: String,
    /// Iterations the layer profile is computed for; the last layer runs on to the budget.
    base: usize,
}

fn variant(label: &str, solver: &str, base: usize) -> Variant {
    Variant { label: label.into(), solver: solver.into(), base }
}

fn cantilever() -> Setup {
    Setup {
        name: "cantilever",
        simulation: "dt = 0.01\nsubsteps = 1\ngravity = [0.0, -9.81, 0.0]\n",
        body: "[[body]]\nname = \"beam\"\nmesh = { generator = \"box\", size = [2.0, 0.5, 0.5], cells = [16, 4, 4], split = 5 }\n\
               material = { model = \"stvk\", youngs = 1e6, poisson = 0.3, density = 1000.0 }\n\
               pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 2.0, 2.0] } }]\n"
            .into(),
        stretch: 1.0,
        warmup: 10,
        samples: 8,
        budget: 60,
        repeats: 3,
    }
}

fn stretched_box(cells: [usize; 3], youngs: &str, budget: usize) -> Setup {
    Setup {
        name: "stretched",
        simulation: "dt = 0.01\nsubsteps = 2\ngravity = [0.0, 0.0, 0.0]\n",
        body: format!(
            "[[body]]\nname = \"box\"\nmesh = {{ generator = \"box\", size = [3.0, 1.0, 1.0], cells = [{}, {}, {}], split = 5 }}\n\
             material = {{ model = \"stvk\", youngs = {youngs}, poisson = 0.3, density = 1000.0 }}\n",
            cells[0], cells[1], cells[2]
        ),
        stretch: 1.1,
        warmup: 1,
        samples: 8,
        budget,
        repeats: 3,
    }
}

/// The model of `v` on `setup`: `base` iterations shared by the layers, the last layer (or XPBD)
/// running on to the budget.
fn model(setup: &Setup, v: &Variant) -> Built {
    let text = format!(
        "name = \"{}\"\n[simulation]\n{}iterations = {}\n[solver]\n{}\n[output]\nformats = [\"none\"]\n{}",
        setup.name, setup.simulation, v.base, v.solver, setup.body
    );
    let scene = xpbd_core::scene::parse(&text, Path::new("study.toml")).unwrap_or_else(|e| panic!("{}: {e}", v.label));
    let built = xpbd_core::scene::build(&scene, Path::new(".")).unwrap_or_else(|e| panic!("{}: {e}", v.label));
    with_budget(built, setup.budget)
}

/// `built` (its layer profile computed for `built.config.iterations`) with `budget` iterations: the last
/// (elastic) layer, or XPBD, runs on to the budget.
fn with_budget(mut built: Built, budget: usize) -> Built {
    let extra = budget - built.config.iterations;
    if let Method::Multilayer(m) = &mut built.config.method {
        *m.layer_iterations.last_mut().unwrap() += extra;
    }
    built.config.iterations = budget;
    built
}

/// One variant's record of one substep.
struct Trace {
    /// (iteration, solver seconds, relative residual); iteration 0 at the prediction.
    points: Vec<(usize, f64, f64)>,
    /// Iterations run by each layer and its rigid element count (empty for XPBD).
    layer_iterations: Vec<usize>,
    rigid: Vec<usize>,
    /// Seconds spent ordering and merging (sort + union-find) in this substep.
    hierarchy: f64,
}

impl Trace {
    /// Whether iteration `k` (1-based) runs in a layer with no rigid element (always, for XPBD). In
    /// such a layer every vertex has taken its residual step; in a layer with rigid groups their
    /// vertices still hold residual velocities that later layers step, so a low residual there is not
    /// a solved substep (stopping in it would drop that motion).
    fn fully_elastic_at(&self, k: usize) -> bool {
        let mut end = 0;
        for (n, rigid) in self.layer_iterations.iter().zip(&self.rigid) {
            end += n;
            if k <= end {
                return *rigid == 0;
            }
        }
        true
    }

    /// The first (iterations, seconds) of a fully elastic layer at which the relative residual is ≤
    /// `level` (0.1: the 90 % reduction of Fig. 9 and Table 1; 0.01 and 0.001: Fig. 10).
    fn reach(&self, level: f64) -> Option<(usize, f64)> {
        self.points[1..].iter().find(|p| p.2 <= level && self.fully_elastic_at(p.0)).map(|p| (p.0, p.1))
    }

    fn to_90(&self) -> Option<(usize, f64)> {
        self.reach(0.1)
    }

    /// Whether the residual dips to 10 % in a layer with rigid groups.
    fn dips_early(&self) -> bool {
        self.points[1..].iter().any(|p| p.2 <= 0.1 && !self.fully_elastic_at(p.0))
    }

    /// The first (iterations, seconds) at which the relative residual is ≤ 0.1 in any layer: the stop the
    /// paper's Fig. 9 describes for rigid motions ("instantly terminates"), which leaves the residual
    /// velocities of the rigid groups unstepped.
    fn to_90_anywhere(&self) -> Option<(usize, f64)> {
        self.points[1..].iter().find(|p| p.2 <= 0.1).map(|p| (p.0, p.1))
    }
}

/// Runs one substep of `model` from `start`; `previous` holds the positions one substep earlier, from
/// which a multi-layer variant takes its ordering key, and `reference` (a multi-layer reference run)
/// its substep counter (the random order's seed).
fn run_substep(b: &Built, start: &State, previous: &[Vec3], reference: Option<&Multilayer>) -> Trace {
    let (model, config) = (&b.model, &b.config);
    if !matches!(config.method, Method::Multilayer(_)) {
        let curve = substep_history(model, config, start, config.iterations, "xpbd");
        let points = curve.samples.iter().map(|s| (s.iteration, s.wall_ms * 1e-3, s.relative_residual)).collect();
        return Trace { points, layer_iterations: vec![], rigid: vec![], hierarchy: 0.0 };
    }
    let mut backend = CpuBackend::new(model, config);
    let m = backend.multilayer().unwrap();
    if let Some(r) = reference {
        m.resume_from(r);
    }
    m.prime_key(previous, &start.x, config.h());
    m.record_iterations = true;
    let mut s = start.clone();
    let t_end = s.time + config.h();
    let r0 = m.substep(model, config.velocity_damping, &mut s, config.h(), t_end, true).unwrap().r0;
    let mut points = vec![(0, 0.0, 1.0)];
    points.extend(m.iteration_trace.iter().enumerate().map(|(k, &(t, r))| (k + 1, t, r / r0)));
    Trace { points, layer_iterations: m.iterations_run.clone(), rigid: m.rigid_elements.clone(), hierarchy: m.hierarchy_seconds }
}

/// Runs the substep `repeats` times: the work is the same each time (the residuals must agree), so
/// the time of each iteration is its shortest, which filters out the preemptions of a loaded machine.
fn run_repeated(model: &Built, start: &State, previous: &[Vec3], reference: Option<&Multilayer>, repeats: usize) -> Trace {
    let mut best = run_substep(model, start, previous, reference);
    let mut step: Vec<f64> = best.points.windows(2).map(|w| w[1].1 - w[0].1).collect();
    for _ in 1..repeats {
        let t = run_substep(model, start, previous, reference);
        assert!(t.points.iter().zip(&best.points).all(|(a, b)| a.2 == b.2), "repeated substeps differ");
        for (s, w) in step.iter_mut().zip(t.points.windows(2)) {
            *s = s.min(w[1].1 - w[0].1);
        }
        best.hierarchy = best.hierarchy.min(t.hierarchy);
    }
    let mut elapsed = 0.0;
    for (p, s) in best.points.iter_mut().skip(1).zip(step) {
        elapsed += s;
        p.1 = elapsed;
    }
    best
}

/// Every variant's traces at the sampled substeps of `setup` (outer: variant, inner: sample).
fn run_study(setup: &Setup, variants: &[Variant]) -> (usize, Vec<Vec<Trace>>) {
    let models: Vec<Built> = variants.iter().map(|v| model(setup, v)).collect();
    let reference_built = model(setup, &variant("reference", "kind = \"multilayer\"", 30));
    let reference_model = &reference_built.model;
    let mut state = State::initial(reference_model);
    let n = state.x.len() as f64;
    let cx = state.x.iter().map(|x| x.x).sum::<f64>() / n;
    state.x.iter_mut().for_each(|x| x.x = cx + setup.stretch * (x.x - cx));
    let mut reference = CpuBackend::new(reference_model, &reference_built.config);
    let h = reference_built.config.h();
    let mut traces: Vec<Vec<Trace>> = variants.iter().map(|_| Vec::new()).collect();
    let mut previous = state.x.clone();
    for k in 0..setup.warmup + setup.samples {
        if k >= setup.warmup {
            let r = reference.multilayer().map(|r| &*r);
            for (t, m) in traces.iter_mut().zip(&models) {
                t.push(run_repeated(m, &state, &previous, r, setup.repeats));
            }
        }
        previous.clone_from(&state.x);
        let t_end = state.time + h;
        reference.substep(reference_model, &mut state, h, t_end, false);
    }
    (reference_model.element_count(), traces)
}

fn mean(v: impl Iterator<Item = f64>) -> f64 {
    let (s, n) = v.fold((0.0, 0), |(s, n), x| (s + x, n + 1));
    if n == 0 {
        f64::NAN
    } else {
        s / n as f64
    }
}

/// Appends the CSV rows of one study (`size`: the tet count, for the stretched box).
fn csv_rows(out: &mut String, tets: usize, variants: &[Variant], traces: &[Vec<Trace>]) {
    for (v, ts) in variants.iter().zip(traces) {
        for (sample, t) in ts.iter().enumerate() {
            let mut layer_end = t.layer_iterations.iter().scan(0, |acc, &n| {
                *acc += n;
                Some(*acc)
            });
            let (mut layer, mut end) = (0, layer_end.next().unwrap_or(usize::MAX));
            for &(k, secs, rel) in &t.points {
                let _ = writeln!(out, "{},{tets},{sample},{k},{layer},{:.4},{rel:.5e}", v.label, secs * 1e3);
                if k == end {
                    layer += 1;
                    end = layer_end.next().unwrap_or(usize::MAX);
                }
            }
        }
    }
}

/// The samples at which every variant reaches the 90 % reduction (times are compared on these only).
fn common_reached(traces: &[Vec<Trace>]) -> Vec<usize> {
    (0..traces[0].len()).filter(|&k| traces.iter().all(|t| t[k].to_90().is_some())).collect()
}

/// The Markdown table of a parameter study.
fn parameter_table(tets: usize, budget: usize, variants: &[Variant], traces: &[Vec<Trace>]) -> String {
    let reached = common_reached(traces);
    let mut out = format!(
        "| solver ({tets} tets, {budget} iterations) | iterations per layer | rigid % per layer after dissolving pinned groups | relative residual after {budget} | iterations to 90 % | ms to 90 % ({}/{} samples) | ms per substep |\n|---|---|---|---|---|---|---|\n",
        reached.len(),
        traces[0].len()
    );
    for (v, ts) in variants.iter().zip(traces) {
        let to_90: Vec<(usize, f64)> = reached.iter().map(|&k| ts[k].to_90().unwrap()).collect();
        let per_layer = |t: &Trace| t.layer_iterations.iter().map(|n| n.to_string()).collect::<Vec<_>>().join(", ");
        let rigid = if ts[0].rigid.is_empty() {
            "—".to_string()
        } else {
            (0..ts[0].rigid.len()).map(|l| format!("{:.0}", 100.0 * mean(ts.iter().map(|t| t.rigid[l] as f64)) / tets as f64)).collect::<Vec<_>>().join(", ")
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {:.3e} | {:.1} | {:.2} | {:.2} |",
            v.label,
            if ts[0].layer_iterations.is_empty() { budget.to_string() } else { per_layer(&ts[0]) },
            rigid,
            mean(ts.iter().map(|t| t.points.last().unwrap().2)),
            mean(to_90.iter().map(|r| r.0 as f64)),
            mean(to_90.iter().map(|r| r.1 * 1e3)),
            mean(ts.iter().map(|t| t.points.last().unwrap().1 * 1e3)),
        );
    }
    out
}

/// The residual against iteration and against time of the first sample, one panel each (or one
/// panel against time per entry of `groups` for the stretched box).
fn panel(title: &str, x_label: &str, series: Vec<Series>) -> Panel {
    Panel { title: title.into(), x_label: x_label.into(), y_label: "‖C + α̃λ‖ / ‖r₀‖".into(), log_y: true, series }
}

fn first_sample_series(variants: &[Variant], traces: &[Vec<Trace>], x: fn(&(usize, f64, f64)) -> f64) -> Vec<Series> {
    variants.iter().zip(traces).map(|(v, ts)| Series { name: v.label.clone(), points: ts[0].points.iter().map(|p| (x(p), p.2)).collect() }).collect()
}

/// The multi-layer solver of the parameter, Table 1 and spinning studies: its elastic layers sweep in
/// index order on one thread, as the XPBD they are compared with (`layer_sweep = "serial"`), so that
/// the one-layer control is XPBD bit for bit and the studies measure the layers alone. The default
/// colored sweep is compared on the scene files (`file_variants`).
const MULTILAYER: &str = "kind = \"multilayer\"\nlayer_sweep = \"serial\"";

const CSV_HEADER: &str = "solver,tets,sample,iteration,layer,solver_ms,relative_residual\n";

/// Where the studies write and how big they are.
struct Options {
    /// The CSV and SVG folder: `--out DIR`, else docs/reproductions/multilayer.
    out: std::path::PathBuf,
    /// `--smoke`: every study at its smallest (one sample, one run, a few frames), to check the code path.
    smoke: bool,
}

impl Options {
    fn from_args() -> Options {
        let args: Vec<String> = std::env::args().skip(1).collect();
        let out = args.iter().position(|a| a == "--out").and_then(|k| args.get(k + 1)).map(std::path::PathBuf::from);
        Options {
            out: out.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/reproductions/multilayer")),
            smoke: args.iter().any(|a| a == "--smoke"),
        }
    }

    /// `setup` as sampled: with `--smoke` one sample after at most two warm-up substeps, one run each.
    fn sampled(&self, setup: Setup) -> Setup {
        match self.smoke {
            true => Setup { warmup: setup.warmup.min(2), samples: 1, repeats: 1, ..setup },
            false => setup,
        }
    }

    fn write(&self, study: &str, csv: &str, svg: &str) {
        std::fs::create_dir_all(&self.out).unwrap();
        std::fs::write(self.out.join(format!("{study}.csv")), csv).unwrap();
        std::fs::write(self.out.join(format!("{study}.svg")), svg).unwrap();
    }
}

/// A parameter study (a)–(d): on the pinned cantilever of the paper, and on the free stretched box
/// (1500 tets, E = 1e9 Pa, 120 iterations), where no group is dissolved for holding a pin.
fn parameter_study(study: &str, title: &str, variants: Vec<Variant>, o: &Options) {
    let mut free_box = stretched_box([15, 5, 4], "1e9", 120);
    free_box.name = "box";
    for setup in [cantilever(), free_box].map(|s| o.sampled(s)) {
        let mut all = controls(setup.budget);
        all.extend(variants.iter().map(|v| variant(&v.label, &v.solver, v.base)));
        let (tets, traces) = run_study(&setup, &all);
        let mut csv = CSV_HEADER.to_string();
        csv_rows(&mut csv, tets, &all, &traces);
        let panels = [
            panel("against iteration", "iteration", first_sample_series(&all, &traces, |p| p.0 as f64)),
            panel("against solver time", "solver time (ms)", first_sample_series(&all, &traces, |p| p.1 * 1e3)),
        ];
        let name = format!("{study}_{}", setup.name);
        o.write(&name, &csv, &panels_svg(&format!("{title}, {}", setup.name), &panels).unwrap());
        println!("## {name}\n\n{}", parameter_table(tets, setup.budget, &all, &traces));
    }
}

/// XPBD, and the multi-layer solver with one (elastic) layer: the same projections as XPBD through the
/// multi-layer code path, which separates the method's gain from the two loops' implementations.
fn controls(budget: usize) -> Vec<Variant> {
    vec![variant("xpbd", "kind = \"xpbd\"", budget), variant("1 layer", &format!("{MULTILAYER}\nlayers = 1"), budget)]
}

/// Table 1: time to 90 % reduction of XPBD, the one-layer control and the default multi-layer solver
/// (5 layers, linear, doubling) at three sizes, for each (stiffness, iteration budget) in `youngs`.
fn stretched_study(youngs: &[(&str, usize)], o: &Options) {
    let mut table = "| E (Pa), budget | tets | ms to 90 %: XPBD / 1 layer / 5 layers | improvement of 5 layers over XPBD | over 1 layer | iterations to 90 %: XPBD / 5 layers | relative residual after 15 iterations (end of the rigid layers): XPBD / 5 layers | samples reaching 90 % (5 layers dipping to 10 % in a layer with rigid groups) | sort + union-find / 5-layer time to 90 % |\n|---|---|---|---|---|---|---|---|---|\n".to_string();
    for &(e, budget) in youngs {
        let mut variants = controls(budget);
        variants.push(variant("5 layers", MULTILAYER, 30));
        let mut csv = CSV_HEADER.to_string();
        let mut panels = Vec::new();
        for cells in [[11, 4, 3], [15, 5, 4], [22, 6, 5]].into_iter().take(if o.smoke { 1 } else { 3 }) {
            let setup = o.sampled(stretched_box(cells, e, budget));
            let (tets, traces) = run_study(&setup, &variants);
            csv_rows(&mut csv, tets, &variants, &traces);
            panels.push(panel(&format!("{tets} tets"), "solver time (ms)", first_sample_series(&variants, &traces, |p| p.1 * 1e3)));
            // The improvements compare the summed times of the samples where every variant reaches 90 %.
            let reached = common_reached(&traces);
            let total = |v: usize, f: fn((usize, f64)) -> f64| reached.iter().map(|&k| f(traces[v][k].to_90().unwrap())).sum::<f64>();
            let secs: Vec<f64> = (0..3).map(|v| total(v, |r| r.1)).collect();
            let its: Vec<f64> = (0..3).map(|v| total(v, |r| r.0 as f64) / reached.len() as f64).collect();
            let at_15 = |v: usize| mean(traces[v].iter().map(|t| t.points[15].2));
            let hierarchy: f64 = reached.iter().map(|&k| traces[2][k].hierarchy).sum();
            let ms = |v: usize| secs[v] * 1e3 / reached.len() as f64;
            let _ = writeln!(
                table,
                "| {e}, {budget} | {tets} | {:.2} / {:.2} / {:.2} | {:.1} % | {:.1} % | {:.1} / {:.1} | {:.3} / {:.3} | {}/{} ({}) | {:.2} % |",
                ms(0),
                ms(1),
                ms(2),
                100.0 * (1.0 - secs[2] / secs[0]),
                100.0 * (1.0 - secs[2] / secs[1]),
                its[0],
                its[2],
                at_15(0),
                at_15(2),
                reached.len(),
                setup.samples,
                traces[2].iter().filter(|t| t.dips_early()).count(),
                100.0 * hierarchy / secs[2],
            );
        }
        let title = format!("Stretched box, E = {e} Pa: relative residual against solver time (first sample)");
        o.write(&format!("stretched_e{e}"), &csv, &panels_svg(&title, &panels).unwrap());
    }
    println!("## stretched\n\n{table}");
}

/// The spinning box of study (f): the soft StVK block of `crates/xpbd-cpu/tests/multilayer.rs`
/// (1 × 0.5 × 0.5 m, 4 × 2 × 2 cells, ρ = 1000 kg/m³, spinning at 6 rad/s about z, no gravity, 2 substeps
/// per 10 ms frame) with `solver` lines, `iterations` and Young's modulus `youngs`.
fn spinning_box(solver: &str, iterations: usize, youngs: &str, density: &str) -> (Built, State) {
    let text = format!(
        "name = \"spinning\"\n[simulation]\ndt = 0.01\nsubsteps = 2\niterations = {iterations}\ngravity = [0.0, 0.0, 0.0]\n[solver]\n{solver}\n\
         [output]\nformats = [\"none\"]\n[[body]]\nname = \"b\"\nmesh = {{ generator = \"box\", size = [1.0, 0.5, 0.5], cells = [4, 2, 2], split = 5 }}\n\
         angular_velocity = [0.0, 0.0, 6.0]\nmaterial = {{ model = \"stvk\", youngs = {youngs}, poisson = 0.3, density = {density} }}\n"
    );
    let scene = xpbd_core::scene::parse(&text, Path::new("spinning.toml")).unwrap();
    let built = xpbd_core::scene::build(&scene, Path::new(".")).unwrap();
    let state = State::initial(&built.model);
    (built, state)
}

/// Study (f): over 100 frames of the spinning box, the volume and angular-momentum drift of the
/// multi-layer solver (10 iterations) and of XPBD at 5, 10 and 20 iterations with each run's solver
/// time (the shortest of 3 runs), so that XPBD at the multi-layer solver's cost can be read off; and on
/// the same box made of steel (E = 2e11 Pa, 7800 kg/m³), the relative residual after the first,
/// 100 % rigid layer at frame 6 against XPBD's after all 10 iterations.
fn spinning_study(o: &Options) {
    let (frames, runs_each) = if o.smoke { (6, 1) } else { (100, 3) };
    let runs = [("multi-layer", MULTILAYER, 10), ("xpbd", "kind = \"xpbd\"", 5), ("xpbd", "kind = \"xpbd\"", 10), ("xpbd", "kind = \"xpbd\"", 20)];
    let mut table =
        format!("| solver | iterations | solver ms for {frames} frames | max \\|ΔV\\|/V | max \\|ΔL\\|/\\|L\\| | final relative residual |\n|---|---|---|---|---|---|\n");
    let mut csv = "solver,iterations,frame,volume_drift,angular_momentum_drift\n".to_string();
    let (mut volume, mut momentum) = (Vec::new(), Vec::new());
    for (label, solver, iterations) in runs {
        let mut best = f64::INFINITY;
        let mut drifts = Vec::new();
        let mut residual = 0.0;
        for _ in 0..runs_each {
            let (Built { model, config, .. }, mut s) = spinning_box(solver, iterations, "1e6", "1000.0");
            let mut backend = CpuBackend::new(&model, &config);
            let (v0, l0) = (metrics::body_volume(&model, 0, &s.x), metrics::angular_momentum(&model, &s.x, &s.v));
            let mut seconds = 0.0;
            drifts.clear();
            for _ in 0..frames {
                let stats = backend.step_frame(&model, &mut s).unwrap();
                seconds += stats.solve_seconds;
                residual = stats.relative_residual;
                let dv = (metrics::body_volume(&model, 0, &s.x) / v0 - 1.0).abs();
                let dl = (metrics::angular_momentum(&model, &s.x, &s.v) - l0).norm() / l0.norm();
                drifts.push((s.frame as f64, dv, dl));
            }
            best = best.min(seconds);
        }
        let name = format!("{label}, {iterations} iterations");
        for &(f, dv, dl) in &drifts {
            let _ = writeln!(csv, "{label},{iterations},{f},{dv:e},{dl:e}");
        }
        volume.push(Series { name: name.clone(), points: drifts.iter().map(|p| (p.0, p.1.max(1e-12))).collect() });
        momentum.push(Series { name, points: drifts.iter().map(|p| (p.0, p.2.max(1e-12))).collect() });
        let max = |k: fn(&(f64, f64, f64)) -> f64| drifts.iter().map(k).fold(0.0, f64::max);
        let _ = writeln!(table, "| {label} | {iterations} | {:.1} | {:.2e} | {:.2e} | {residual:.2e} |", best * 1e3, max(|p| p.1), max(|p| p.2));
    }
    let drift_panel = |title: &str, y: &str, series| Panel { title: title.into(), x_label: "frame".into(), y_label: y.into(), log_y: true, series };
    let panels = [drift_panel("volume", "|V/V₀ − 1|", volume), drift_panel("angular momentum", "|L − L₀| / |L₀|", momentum)];
    o.write("spinning", &csv, &panels_svg("Spinning box (StVK, E = 1e6 Pa, 6 rad/s): drift against frame", &panels).unwrap());

    // The first layer on the steel box: residual after each layer at frame 6, and XPBD's after 10 iterations.
    let steel = |solver| {
        let (Built { model, config, .. }, mut s) = spinning_box(solver, 10, "2e11", "7800.0");
        let mut backend = CpuBackend::new(&model, &config);
        for _ in 0..5 {
            backend.step_frame(&model, &mut s).unwrap();
        }
        if let Some(m) = backend.multilayer() {
            m.record_layers = true;
        }
        let stats = backend.step_frame(&model, &mut s).unwrap();
        let r0 = stats.residual / stats.relative_residual;
        let layers = backend.multilayer().map(|m| m.layer_residuals.iter().map(|r| r / r0).collect::<Vec<f64>>()).unwrap_or_default();
        (stats.relative_residual, layers)
    };
    let ((_, layers), (xpbd, _)) = (steel(MULTILAYER), steel("kind = \"xpbd\""));
    let _ = writeln!(
        table,
        "\nSteel box, frame 6: relative residual after the first (100 % rigid) layer {:.2e} ({:.4} % reduction); after each layer {}; XPBD after 10 iterations {xpbd:.2e}",
        layers[0],
        100.0 * (1.0 - layers[0]),
        layers.iter().map(|r| format!("{r:.2e}")).collect::<Vec<_>>().join(", ")
    );
    println!("## spinning\n\n{table}");
}

/// The scenes of the paper's Fig. 9 as scene files (paths from the repository root), in its order:
/// (a) spinning box, (b) wheel, (c) pills, (d) octopus, (e) stretched box, (f) I-shape.
const EXAMPLE_SCENES: &[&str] = &[
    "scenes/spinning_box.toml",
    "scenes/multilayer_wheel.toml",
    "scenes/multilayer_pills.toml",
    "scenes/multilayer_octopus.toml",
    "scenes/multilayer_stretched_box.toml",
    "scenes/multilayer_ishape.toml",
];

/// The sampling of `--smoke`: 2 substeps in the first 2 frames, 40 iterations.
const SMOKE: Sampling = Sampling { samples: 2, budget: 40, repeats: 1, frames: Some(2) };

/// The octopus of Fig. 10.
const PRECISION_SCENE: &str = "scenes/multilayer_octopus.toml";

/// Residual levels of Fig. 10: 90, 99 and 99.9 % reduction.
const PRECISION_LEVELS: [f64; 3] = [1e-1, 1e-2, 1e-3];

/// The solvers compared on scene files, in pairs of an XPBD sweep and the default multi-layer solver
/// (5 layers, linear, doubling, strain-rate order; its profile computed for 30 iterations) whose
/// elastic layers run that sweep: XPBD's serial Gauss-Seidel (the reference ordering, one thread) with
/// `layer_sweep = "serial"`, and XPBD's colored Gauss-Seidel with the multi-layer default (colored).
/// The multi-layer solvers among `file_variants` (serial sweep, colored).
const MULTILAYER_VARIANTS: [usize; 2] = [1, 3];

fn file_variants() -> [Variant; 4] {
    [
        variant("xpbd", "kind = \"xpbd\"", 1),
        variant("multi-layer serial", MULTILAYER, 30),
        variant("xpbd colored", "kind = \"xpbd\"\nordering = \"colored\"", 1),
        variant("multi-layer", "kind = \"multilayer\"", 30),
    ]
}

/// How the substeps of a scene file are sampled: `samples` substeps spread evenly over the scene's
/// run (its first `frames` frames when set), each solved by every variant `repeats` times with up to
/// `budget` iterations.
struct Sampling {
    samples: usize,
    budget: usize,
    repeats: usize,
    frames: Option<usize>,
}

/// The scene file at `path` (from the repository root) with its `[solver]` table replaced by `solver`
/// and `iterations` iterations per substep (`None`: the scene's own solver and iterations); every
/// other field (stepping, gravity, pins, colliders, contact) is the scene's. With its frame count.
fn scene_file(path: &str, solver: Option<(&str, usize)>) -> (Built, usize) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    let mut scene = xpbd_core::scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    if let Some((solver, iterations)) = solver {
        let table = format!("name = \"solver\"\n[solver]\n{solver}\n");
        scene.solver = xpbd_core::scene::parse(&table, Path::new("solver.toml")).unwrap().solver;
        scene.simulation.iterations = iterations;
    }
    let built = xpbd_core::scene::build(&scene, path.parent().unwrap()).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (built, scene.simulation.frames)
}

/// Every variant's traces (outer: variant, inner: sample) on the scene file `path`, and its tet count:
/// the scene's own solver advances the reference trajectory, and at each sampled substep every
/// variant solves that substep from the reference's state with the sampling's budget.
fn run_scene_file(path: &str, variants: &[Variant], sampling: &Sampling) -> (usize, Vec<Vec<Trace>>) {
    let models: Vec<Built> = variants.iter().map(|v| with_budget(scene_file(path, Some((&v.solver, v.base))).0, sampling.budget)).collect();
    let (reference_built, frames) = scene_file(path, None);
    let (model, config) = (&reference_built.model, &reference_built.config);
    let mut state = State::initial(model);
    let mut reference = CpuBackend::new(model, config);
    let h = config.h();
    let total = sampling.frames.unwrap_or(frames).min(frames) * config.substeps;
    let every = (total / sampling.samples).max(1);
    let mut traces: Vec<Vec<Trace>> = variants.iter().map(|_| Vec::new()).collect();
    let mut previous = state.x.clone();
    for k in 0..every * sampling.samples {
        if k % every == every / 2 {
            let r = reference.multilayer().map(|r| &*r);
            for (t, m) in traces.iter_mut().zip(&models) {
                t.push(run_repeated(m, &state, &previous, r, sampling.repeats));
            }
        }
        previous.clone_from(&state.x);
        let t_end = config.substep_end(state.time, 1);
        reference.substep(model, &mut state, h, t_end, false);
    }
    (model.element_count(), traces)
}

fn scene_name(path: &str) -> &str {
    Path::new(path).file_stem().unwrap().to_str().unwrap()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => 0.5 * (v[n / 2 - 1] + v[n / 2]),
    }
}

/// (iterations, milliseconds) to `level` of the samples that reach it.
fn reached(traces: &[Trace], level: f64) -> Vec<(usize, f64)> {
    traces.iter().filter_map(|t| t.reach(level)).map(|r| (r.0, r.1 * 1e3)).collect()
}

/// (median ms, mean ms, mean iterations) of the (iterations, ms) pairs `r`; `None` when empty.
fn summary(r: &[(usize, f64)]) -> Option<(f64, f64, f64)> {
    let ms: Vec<f64> = r.iter().map(|r| r.1).collect();
    (!r.is_empty()).then(|| (median(ms.clone()), mean(ms.into_iter()), mean(r.iter().map(|r| r.0 as f64))))
}

/// "median / mean (mean iterations)" of `r`, or "not reached" when empty.
fn spread(r: &[(usize, f64)]) -> String {
    summary(r).map_or("not reached".into(), |(m, a, i)| format!("{m:.2} / {a:.2} ({i:.1})"))
}

/// The scene-file tables' columns after the first ones, for `file_variants`' pairs (an XPBD sweep, then
/// the multi-layer solver on it): per variant its ms "median / mean (mean iterations)", per pair the
/// XPBD median over the multi-layer median ("—" where one never reached the level), and the samples
/// reaching the level, "a / b / c / d of n".
fn level_columns(r: &[Vec<(usize, f64)>], samples: usize) -> String {
    let median_ms = |r: &[(usize, f64)]| median(r.iter().map(|r| r.1).collect());
    let ratio = |p: &[Vec<(usize, f64)>]| match p[0].is_empty() || p[1].is_empty() {
        true => "—".to_string(),
        false => format!("{:.2}", median_ms(&p[0]) / median_ms(&p[1])),
    };
    let spreads: Vec<String> = r.iter().map(|r| spread(r)).collect();
    let ratios: Vec<String> = r.chunks(2).map(ratio).collect();
    let counts: Vec<String> = r.iter().map(|r| r.len().to_string()).collect();
    format!("{} | {} | {} of {samples}", spreads.join(" | "), ratios.join(" | "), counts.join(" / "))
}

/// The header cells of [`level_columns`] and their number.
fn level_header(variants: &[Variant]) -> (String, usize) {
    let mut cells: Vec<String> = variants.iter().map(|v| format!("{} ms: median / mean (iterations)", v.label)).collect();
    cells.extend(variants.chunks(2).map(|p| format!("{} / {} (medians)", p[0].label, p[1].label)));
    cells.push(format!("samples reaching it: {}", variants.iter().map(|v| v.label.as_str()).collect::<Vec<_>>().join(" / ")));
    let n = cells.len();
    (cells.join(" | "), n)
}

/// Fig. 9: per scene file, the histograms of the solver time to a 90 % residual reduction of every
/// variant over sampled substeps (`examples_NAME.svg`, `.csv`), and one Markdown table.
fn examples_study(scenes: &[&str], sampling: &Sampling, o: &Options) {
    let variants = file_variants();
    let (header, n) = level_header(&variants);
    let mut table = format!(
        "| scene | tets | substep (dt / substeps) | {header} | multi-layer samples already at 90 % inside a layer with rigid groups: serial / colored | multi-layer ms to 90 % in any layer (the paper's stop): serial / colored, median (iterations) |\n|{}\n",
        "---|".repeat(n + 5)
    );
    for &path in scenes {
        let (tets, traces) = run_scene_file(path, &variants, sampling);
        let name = scene_name(path);
        let mut csv = "solver,sample,iterations_to_90,ms_to_90,relative_residual_after_budget\n".to_string();
        for (v, ts) in variants.iter().zip(&traces) {
            for (k, t) in ts.iter().enumerate() {
                let (its, ms) = t.to_90().map_or((String::new(), String::new()), |r| (r.0.to_string(), format!("{:.4}", r.1 * 1e3)));
                let _ = writeln!(csv, "{},{k},{its},{ms},{:.5e}", v.label, t.points.last().unwrap().2);
            }
        }
        let r: Vec<Vec<(usize, f64)>> = traces.iter().map(|ts| reached(ts, 0.1)).collect();
        let ms: Vec<Vec<f64>> = r.iter().map(|r| r.iter().map(|p| p.1).collect()).collect();
        let top = ms.iter().flatten().copied().fold(0.0, f64::max);
        let edges: Vec<f64> = (0..=HISTOGRAM_BINS).map(|b| top * b as f64 / HISTOGRAM_BINS as f64).collect();
        let series = variants.iter().zip(&ms).map(|(v, ms)| histogram(&v.label, ms, &edges)).collect();
        let panels = [Panel { title: name.into(), x_label: "solver ms to 90 %".into(), y_label: "substeps".into(), log_y: false, series }];
        let title = format!("{name}: solver time to a 90 % residual reduction ({} sampled substeps)", sampling.samples);
        o.write(&format!("examples_{name}"), &csv, &panels_svg(&title, &panels).unwrap());
        // The multi-layer variants' samples that reach 90 % inside a layer with rigid groups, and their
        // times to 90 % in any layer.
        let [serial, colored] = MULTILAYER_VARIANTS.map(|v| {
            let anywhere: Vec<(usize, f64)> = traces[v].iter().filter_map(|t| t.to_90_anywhere()).map(|r| (r.0, r.1 * 1e3)).collect();
            let time = summary(&anywhere).map_or("not reached".into(), |(m, _, i)| format!("{m:.2} ({i:.1})"));
            (traces[v].iter().filter(|t| t.dips_early()).count(), time)
        });
        let columns = level_columns(&r, traces[0].len());
        let _ = writeln!(table, "| {name} | {tets} | {} | {columns} | {} / {} | {} / {} |", reference_stepping(path), serial.0, colored.0, serial.1, colored.1);
    }
    println!("## examples (budget {} iterations)\n\n{table}", sampling.budget);
}

/// Bins of the Fig. 9 histograms.
const HISTOGRAM_BINS: usize = 15;

/// The scene's substep as `dt / substeps` for the tables.
fn reference_stepping(path: &str) -> String {
    let c = scene_file(path, None).0.config;
    format!("{} s / {}", c.dt, c.substeps)
}

/// Fig. 10: on the octopus, the solver time of every variant to each residual level of
/// `PRECISION_LEVELS` (`precision.svg`, `.csv`), and a Markdown table with the samples reaching each.
fn precision_study(sampling: &Sampling, o: &Options) {
    let variants = file_variants();
    let (tets, traces) = run_scene_file(PRECISION_SCENE, &variants, sampling);
    let mut csv = "solver,sample,level,iterations,solver_ms\n".to_string();
    let (header, n) = level_header(&variants);
    let mut table = format!("| reduction ({tets} tets, budget {} iterations) | {header} |\n|{}\n", sampling.budget, "---|".repeat(n + 1));
    let mut series: Vec<Series> = variants.iter().map(|v| Series { name: v.label.clone(), points: Vec::new() }).collect();
    for level in PRECISION_LEVELS {
        let r: Vec<Vec<(usize, f64)>> = traces.iter().map(|ts| reached(ts, level)).collect();
        for ((v, ts), s) in variants.iter().zip(&traces).zip(&mut series) {
            for (k, t) in ts.iter().enumerate() {
                let (its, ms) = t.reach(level).map_or((String::new(), String::new()), |r| (r.0.to_string(), format!("{:.4}", r.1 * 1e3)));
                let _ = writeln!(csv, "{},{k},{level:e},{its},{ms}", v.label);
            }
            s.points.push((100.0 * (1.0 - level), median(reached(ts, level).iter().map(|r| r.1).collect())));
        }
        let _ = writeln!(table, "| {} % | {} |", 100.0 * (1.0 - level), level_columns(&r, traces[0].len()));
    }
    let panels = [Panel {
        title: format!("{} sampled substeps; median over the samples reaching each level", sampling.samples),
        x_label: "residual reduction (%)".into(),
        y_label: "solver ms".into(),
        log_y: true,
        series,
    }];
    o.write("precision", &csv, &panels_svg("Octopus: solver time to a residual reduction", &panels).unwrap());
    println!("## precision\n\n{table}");
}

/// The parameter studies (a)–(d): name, title, and per variant its label, its `[solver]` lines after
/// `kind = "multilayer"`, and the iterations its layer profile is computed for.
type Study = (&'static str, &'static str, &'static [(&'static str, &'static str, usize)]);
const PARAMETER_STUDIES: &[Study] = &[
    (
        "ordering",
        "Element order (5 layers, linear, doubling)",
        &[
            ("strain rate", "layer_order = \"strain_rate\"", 30),
            ("stretch", "layer_order = \"stretch\"", 30),
            ("random", "layer_order = \"random\"", 30),
            ("stripes x", "layer_order = \"stripes\"\nstripe_axis = \"x\"", 30),
            ("stripes y", "layer_order = \"stripes\"\nstripe_axis = \"y\"", 30),
        ],
    ),
    ("spacing", "Group sizes (5 layers, doubling)", &[("linear", "layer_spacing = \"linear\"", 30), ("logarithmic", "layer_spacing = \"logarithmic\"", 30)]),
    (
        "layers",
        "Number of layers (linear)",
        &[
            ("3 layers (50 % steps)", "layers = 3", 30),
            ("4 layers (33 % steps)", "layers = 4", 30),
            ("5 layers (25 % steps)", "layers = 5", 30),
            ("11 layers (10 % steps; equal)", "layers = 11\nlayer_iterations = \"equal\"", 22),
        ],
    ),
    (
        "iterations",
        "Iterations per layer (5 layers, linear)",
        &[
            ("doubling", "layer_iterations = \"doubling\"", 30),
            ("equal", "layer_iterations = \"equal\"", 30),
            ("halving", "layer_iterations = \"halving\"", 30),
        ],
    ),
];

fn main() {
    let o = Options::from_args();
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The study is the first argument that is neither an option nor the folder after `--out`.
    let study = (0..args.len()).find(|&k| !args[k].starts_with('-') && (k == 0 || args[k - 1] != "--out")).map_or("all".into(), |k| args[k].clone());
    let names: Vec<&str> = PARAMETER_STUDIES.iter().map(|s| s.0).chain(["stretched", "spinning", "examples", "precision", "all"]).collect();
    if !names.contains(&study.as_str()) {
        eprintln!("multilayer_studies: unknown study '{study}' (expected one of {})", names.join(", "));
        std::process::exit(2);
    }
    let t = Instant::now();
    let run = |name: &str| study == name || study == "all";
    for &(name, title, variants) in PARAMETER_STUDIES.iter().filter(|s| run(s.0)) {
        let variants = variants.iter().map(|&(label, extra, base)| variant(label, &format!("{MULTILAYER}\n{extra}"), base)).collect();
        parameter_study(name, title, variants, &o);
    }
    if run("stretched") {
        stretched_study(&[("1e7", 100), ("1e8", 200), ("1e9", 400)], &o);
    }
    if run("spinning") {
        spinning_study(&o);
    }
    if run("examples") {
        let sampling = if o.smoke { SMOKE } else { Sampling { samples: 20, budget: 200, repeats: 2, frames: None } };
        examples_study(EXAMPLE_SCENES, &sampling, &o);
    }
    if run("precision") {
        let sampling = if o.smoke { SMOKE } else { Sampling { samples: 20, budget: 1000, repeats: 2, frames: None } };
        precision_study(&sampling, &o);
    }
    eprintln!("{study}: {:.1} s", t.elapsed().as_secs_f64());
}
