//! What `xpbd info SCENE` says of the run a scene describes, before running it: the stepping and solver, the
//! device the dispatcher would pick and why (`xpbd::device::preview`, no backend started), the vertices each pin
//! holds, the memory it needs, and the cost of a frame (`xpbd_core::budget`): a lower bound, except for MGPBD,
//! whose iterations are counted at their cap.

use serde::Serialize;
use std::path::Path;
use xpbd::device::{self, Decision, Device};
use xpbd_core::human::{count, duration};
use xpbd_core::scene::{pin, schema::Scene, Built};
use xpbd_core::{budget, resources, Error, Result};

/// One pin of one body.
#[derive(Serialize)]
pub struct PinInfo {
    /// `body[B].pin[P]`.
    pub pin: String,
    pub body: String,
    pub vertices: usize,
    /// `fixed` (held in place), `moving` (held, moving at its velocity) or `soft` (pulled by a compliant attachment).
    pub kind: &'static str,
}

#[derive(Serialize)]
pub struct ScenePreview {
    pub dt: f64,
    pub frames: usize,
    pub substeps: usize,
    /// The substep h = dt / substeps (s).
    pub substep: f64,
    pub iterations: usize,
    /// `solver.kind`, with the ordering for `xpbd` (e.g. `xpbd clustered`).
    pub solver: String,
    /// `simulation.device` as written.
    pub device_requested: String,
    /// What `xpbd run` would pick: `cpu`, `cuda:N`, or `none` when an explicit CUDA request cannot be honoured.
    pub device: String,
    pub device_reason: String,
    pub pins: Vec<PinInfo>,
    /// The host's estimate for the model and its solver structures (the one `XPBD_MEMORY_LIMIT_MB` is held to).
    pub host_bytes: u64,
    /// The XPBD path's device arrays in f32 and f64, when the CUDA backend can run the scene with XPBD.
    pub gpu_bytes: Option<[usize; 2]>,
    /// substeps × iterations × elements.
    pub element_updates_per_frame: f64,
    /// At `budget::UPDATES_PER_SECOND` element updates a second: a lower bound on a frame's time, unless
    /// `iterations_are_a_cap`.
    pub min_ms_per_frame: f64,
    /// MGPBD: `iterations` is the cap on a substep's outer iterations, which stop earlier at `mgpbd.tolerance`,
    /// so `element_updates_per_frame` is an upper bound and `min_ms_per_frame` not a lower bound.
    pub iterations_are_a_cap: bool,
}

/// The preview of `sc` (loaded from `path`) as built into `built`.
pub fn preview(sc: &Scene, path: &Path, built: &Built) -> Result<ScenePreview> {
    let (model, config) = (&built.model, &built.config);
    let requested: Device = sc.simulation.device.parse().map_err(|e| Error::invalid(format!("{}: simulation.{e}", path.display())))?;
    let (device, device_reason) = match device::preview(requested, model, config, sc.simulation.gpu_min_elements) {
        Ok(Decision::Cpu(reason)) => ("cpu".to_string(), reason),
        Ok(Decision::Cuda { ordinal, reason }) => (format!("cuda:{ordinal}"), reason),
        Err(reason) => ("none".to_string(), reason),
    };
    let mut pins = Vec::new();
    for (bi, (spec, body)) in sc.bodies.iter().zip(&model.bodies).enumerate() {
        for (pi, p) in spec.pin.iter().enumerate() {
            let what = format!("body[{bi}].pin[{pi}]");
            let vertices = pin::selected(p, &model.rest[body.vertices.clone()], &what)?.len();
            let kind = match (p.compliance > 0.0, p.velocity != [0.0; 3]) {
                (true, _) => "soft",
                (false, true) => "moving",
                (false, false) => "fixed",
            };
            pins.push(PinInfo { pin: what, body: body.name.clone(), vertices, kind });
        }
    }
    let updates = budget::updates_per_frame(config, model);
    Ok(ScenePreview {
        dt: config.dt,
        frames: sc.simulation.frames,
        substeps: config.substeps,
        substep: config.h(),
        iterations: config.iterations,
        solver: match config.method.ordering() {
            Some(o) => format!("{} {}", config.method.kind(), o.name()),
            None => config.method.kind().to_string(),
        },
        device_requested: sc.simulation.device.clone(),
        device,
        device_reason,
        pins,
        host_bytes: resources::model_bytes(model.vertex_count() as u64, model.element_count() as u64),
        gpu_bytes: device::gpu_bytes(model, config),
        element_updates_per_frame: updates,
        min_ms_per_frame: 1e3 * updates / budget::UPDATES_PER_SECOND,
        iterations_are_a_cap: config.method.mgpbd().is_some(),
    })
}

/// The preview as lines of text.
pub fn print(p: &ScenePreview) {
    println!(
        "run: {} frames of dt = {} s, {} substeps of {:.4e} s, {} iterations per substep; solver {}",
        p.frames, p.dt, p.substeps, p.substep, p.iterations, p.solver
    );
    println!("device: {} (simulation.device = \"{}\"): {}", p.device, p.device_requested, p.device_reason);
    for pin in &p.pins {
        println!("{} ({}): {} vertices, {}", pin.pin, pin.body, pin.vertices, pin.kind);
    }
    let mib = |b: f64| format!("{:.1} MiB", b / (1u64 << 20) as f64);
    let gpu = p
        .gpu_bytes
        .map_or("no XPBD GPU path for this scene".to_string(), |[f32, f64]| format!("GPU arrays {} (f32) or {} (f64)", mib(f32 as f64), mib(f64 as f64)));
    println!("memory: about {} on the host; {gpu}", mib(p.host_bytes as f64));
    let run_seconds = p.min_ms_per_frame / 1e3 * p.frames as f64;
    let run = if run_seconds < 1.0 { format!("{:.0} ms", 1e3 * run_seconds) } else { duration(run_seconds) };
    let rate = count(budget::UPDATES_PER_SECOND);
    let updates = count(p.element_updates_per_frame);
    if p.iterations_are_a_cap {
        println!(
            "cost: at most {updates} element updates per frame, an upper bound: it counts all {} outer iterations of every substep (solver.iterations, MGPBD's cap), \
which stop earlier at mgpbd.tolerance; {:.3} ms per frame and {run} for the run at {rate} a second with every iteration run",
            p.iterations, p.min_ms_per_frame
        );
    } else {
        println!("cost: {updates} element updates per frame, at least {:.3} ms per frame and {run} for the run at {rate} a second", p.min_ms_per_frame);
    }
}
