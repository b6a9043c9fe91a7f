//! Shared by the `adaptive_*` and `implicit_scaling` benches: build a TOML scene, run it under the implicit
//! backend while timing every frame, and compare trajectories.
#![allow(dead_code)]

use std::path::Path;
use std::time::Instant;
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;
use xpbd_cpu::implicit::{ImplicitBackend, Phases};

/// One run's record.
pub struct Run {
    pub model: Model,
    /// Positions after each frame.
    pub frames: Vec<Vec<Vec3>>,
    /// Wall seconds of each frame.
    pub frame_seconds: Vec<f64>,
    /// Seconds of each frame spent in the oracle.
    pub oracle_seconds: Vec<f64>,
    /// Rigid element fraction after each frame.
    pub rigid_fraction: Vec<f64>,
    pub phases: Phases,
    /// Frames after which the (rigid bodies, rigid elements) counts differ from the frame before: a lower
    /// bound on the rebuilds of the rigid pattern (each a new symbolic factorisation).
    pub switches: usize,
    /// Set when the run stopped early: "frame k: message".
    pub failure: Option<String>,
}

impl Run {
    pub fn total(&self) -> f64 {
        self.frame_seconds.iter().sum()
    }

    pub fn mean_rigid(&self) -> f64 {
        self.rigid_fraction.iter().sum::<f64>() / self.rigid_fraction.len().max(1) as f64
    }
}

/// Parses and builds `toml`, then runs `frames` frames (stops at an error or a non-finite state and
/// records it in `failure`).
pub fn run(toml: &str, frames: usize, keep_positions: bool) -> Run {
    let built = build(&parse(toml, Path::new("bench.toml")).expect("scene parses"), Path::new(".")).expect("scene builds");
    for w in &built.warnings {
        eprintln!("warning: {w}");
    }
    let model = built.model;
    let mut backend = ImplicitBackend::new(&model, &built.config);
    let mut state = State::initial(&model);
    let elements = model.element_count().max(1) as f64;
    let (mut out, mut secs, mut rigid, mut oracle) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut failure = None;
    let (mut switches, mut last) = (0, (0, 0));
    // ADBENCH_TRACE=1 prints each frame's rigid counts and time to stderr.
    let trace = std::env::var_os("ADBENCH_TRACE").is_some();
    for k in 0..frames {
        let (start, oracle_before) = (Instant::now(), backend.phases.oracle);
        let r = backend.step_frame(&model, &mut state);
        secs.push(start.elapsed().as_secs_f64());
        oracle.push(backend.phases.oracle - oracle_before);
        if let Err(e) = r {
            failure = Some(format!("frame {k}: {e}"));
            break;
        }
        if let Some(v) = state.first_non_finite() {
            failure = Some(format!("frame {k}: vertex {v} is not finite"));
            break;
        }
        let counts = backend.rigid_counts();
        switches += usize::from(counts != last);
        if trace {
            eprintln!("frame {k}: {counts:?} (rigid bodies, rigid elements), {:.2} ms", 1e3 * secs[k]);
        }
        last = counts;
        rigid.push(counts.1 as f64 / elements);
        if keep_positions {
            out.push(state.x.clone());
        }
    }
    Run { model, frames: out, frame_seconds: secs, oracle_seconds: oracle, rigid_fraction: rigid, phases: backend.phases, switches, failure }
}

/// Max over frames and vertices of |x_a − x_b|, over the frames both runs reached.
pub fn max_error(a: &Run, b: &Run) -> f64 {
    a.frames.iter().zip(&b.frames).flat_map(|(fa, fb)| fa.iter().zip(fb).map(|(x, y)| (x - y).norm())).fold(0.0, f64::max)
}

/// The diagonal of the model's rest bounding box.
pub fn size(model: &Model) -> f64 {
    let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
    for x in &model.rest {
        lo = lo.inf(x);
        hi = hi.sup(x);
    }
    (hi - lo).norm()
}

/// The scene header: `dt`, `substeps`, gravity −9.81 y, no output, and the `[solver]` table `solver`.
pub fn header(name: &str, dt: f64, substeps: usize, frames: usize, solver: &str) -> String {
    format!(
        "name = \"{name}\"\n[simulation]\ndt = {dt}\nframes = {frames}\nsubsteps = {substeps}\ngravity = [0.0, -9.81, 0.0]\n[output]\nformats = [\"none\"]\n[solver]\n{solver}\n"
    )
}

/// The `[solver]` table of `implicit`, or of `adaptive` with τ_E and τ_R.
pub fn solver(adaptive: Option<(f64, f64)>) -> String {
    match adaptive {
        None => "kind = \"implicit\"".into(),
        Some((tau_e, tau_r)) => format!("kind = \"adaptive\"\nelastify_threshold = {tau_e:e}\nrigidify_threshold = {tau_r:e}"),
    }
}

/// Writes `text` to `benches/results/<name>.txt`.
pub fn save(name: &str, text: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(format!("{name}.txt")), text).unwrap();
    println!("wrote benches/results/{name}.txt");
}
