//! A simulation run: scene → model → backend, the frame loop with metrics and outputs, failure
//! detection, and the summary (docs/output-format.md).

use crate::checkpoint;
use crate::device::{select, Device, Selection};
pub use crate::final_state::FinalState;
use crate::health::{Failure, Health, OnFailure};
use crate::interrupt::{Interrupt, Interrupted};
use crate::output::{FrameMetrics, Frames, Writer};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xpbd_core::metrics::{elastic_energy, kinetic_energy, max_edge_strain, volume_stats};
use xpbd_core::model::Model;
use xpbd_core::scene::{self, Scene};
use xpbd_core::solver_config::SolverConfig;
use xpbd_core::state::State;
use xpbd_core::{Error, Result};

pub struct Simulation {
    pub scene: Scene,
    /// What is simulated.
    pub model: Model,
    /// How it is solved.
    pub config: SolverConfig,
    pub state: State,
    pub selection: Selection,
    /// The per-frame checks of `[simulation]` (`on_failure`, `max_speed`, `max_inverted_fraction`, `max_edge_strain`,
    /// `max_energy_ratio`, `min_volume_ratio`, `stagnation_frames`).
    pub health: Health,
    /// Load-time warnings (reoriented elements, dropped vertices).
    pub warnings: Vec<String>,
    /// Write a checkpoint every this many frames (0: never).
    pub checkpoint_every: usize,
    /// Stop between frames when a signal asks to ([`crate::interrupt`]); `None`: run to the end.
    pub interrupt: Option<Interrupt>,
    /// The checkpoint's frame after [`resume`](Self::resume), until the next run continues from it.
    resumed_at: Option<usize>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scene: String,
    pub status: &'static str,
    pub device: String,
    pub device_reason: String,
    pub backend: String,
    pub solver: SolverConfig,
    pub vertices: usize,
    pub elements: usize,
    /// Contact settings and surface sizes.
    pub contact: xpbd_core::contact::model::ContactSummary,
    /// Colors per sweep, for colored and clustered orderings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colors: Option<usize>,
    pub frames: usize,
    pub wall_time_s: f64,
    pub ms_per_frame: f64,
    pub ms_per_substep: f64,
    #[serde(rename = "final")]
    pub last: FinalState,
    /// The failed check that stopped the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    /// With `on_failure = "continue"`: the checks that failed while the run went on (the first
    /// [`MAX_FAILED_CHECKS`]), and how many failed in all.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed_checks: Vec<Failure>,
    #[serde(skip_serializing_if = "is_zero")]
    pub failed_check_count: usize,
    /// A run stopped by a signal: which, at what frame, and how to resume it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interrupted>,
}

/// How many failed checks of a continued run `summary.json` lists.
pub const MAX_FAILED_CHECKS: usize = 100;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Simulation {
    /// Loads a scene file; `device` overrides the scene's `simulation.device`.
    pub fn load(path: &Path, device: Option<Device>) -> Result<Self> {
        let scene = scene::load(path)?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_scene(scene, base, device, path)
    }

    pub fn from_scene(scene: Scene, base_dir: &Path, device: Option<Device>, path: &Path) -> Result<Self> {
        let scene::Built { model, config, warnings } = scene::build(&scene, base_dir).map_err(|e| prefix(path, e))?;
        let device = match device {
            Some(d) => d,
            None => scene.simulation.device.parse().map_err(|e| prefix(path, Error::invalid(format!("simulation.{e}"))))?,
        };
        Frames::of(&scene.output, scene.solver.cluster_size).map_err(|e| prefix(path, e))?;
        let selection = select(device, &model, &config, scene.simulation.gpu_min_elements)?;
        let state = State::initial(&model);
        if scene.output.contact_forces {
            // Refused at load when the backend cannot report them (it would fail writing frame 0).
            let refused = |e: Error| prefix(path, Error::invalid(format!("output.contact_forces: {e}")));
            selection.backend.contact_forces(&model, &state).map_err(refused)?;
        }
        let health = Health::new(&scene.simulation).map_err(|e| prefix(path, e))?;
        Ok(Simulation { scene, model, config, state, selection, health, warnings, checkpoint_every: 0, interrupt: None, resumed_at: None })
    }

    /// Continues from the checkpoint in the run folder `dir`, at its checkpoint interval (when it records
    /// one; set [`checkpoint_every`](Self::checkpoint_every) afterwards to change it); the next
    /// [`run`](Self::run) into `dir` appends to its outputs.
    pub fn resume(&mut self, dir: &Path) -> Result<()> {
        let file = dir.join(checkpoint::FILE);
        let c = checkpoint::read(&file, checkpoint::fingerprint(&self.scene), &self.state)?;
        self.selection.backend.restore_carried(&c.state, &c.carried).map_err(|e| Error::parse(&file, None, e.to_string()))?;
        self.checkpoint_every = c.every.unwrap_or(self.checkpoint_every);
        self.state = c.state;
        self.resumed_at = Some(self.state.frame);
        Ok(())
    }

    /// Runs `frames` frames (the scene's count when `None`) writing into `out`; after
    /// [`resume`](Self::resume), runs up to frame `frames` continuing the outputs in `out`.
    /// `progress(done, total, last)` is called after each frame, with the frame's measures. A run that blows up stops, keeps what it wrote, records the failure
    /// in `summary.json` and returns the error. A run stopped by [`interrupt`](Self::interrupt) writes its
    /// last frame, a checkpoint and `summary.json` with `status = "interrupted"`, and returns the summary.
    /// A resumed run must end after its checkpoint's frame: an earlier end is refused, nothing touched.
    pub fn run(&mut self, out: &Path, frames: Option<usize>, progress: &mut dyn FnMut(usize, usize, &FinalState)) -> Result<Summary> {
        let total = frames.unwrap_or(self.scene.simulation.frames);
        let frames = Frames::of(&self.scene.output, self.scene.solver.cluster_size)?;
        let resumed_at = self.resumed_at.take();
        if let Some(frame) = resumed_at.filter(|&f| total <= f) {
            return Err(Error::invalid(format!(
                "{}: its checkpoint is at frame {frame}, so the resumed run must end after it: ask for more than {frame} frames (--frames), not {total}",
                out.display()
            )));
        }
        let mut writer = match resumed_at {
            Some(frame) => Writer::resume(out, &self.model, frames, frame)?,
            None => Writer::create(out, &self.model, &self.config, frames)?,
        };
        let start = Instant::now();
        let fingerprint = checkpoint::fingerprint(&self.scene);
        let first = self.state.frame;
        let count = total.saturating_sub(resumed_at.unwrap_or(0));
        // The final frame is written whatever `output.every` says.
        let end = first + count;
        if resumed_at.is_none() {
            writer.frame(&self.model, &self.state, &*self.selection.backend, count == 0)?;
        }
        // The last frame written (a frame whose step failed or left a non-finite state is not).
        let mut done = first;
        let mut solve_s = 0.0;
        let mut last = self.final_state(0.0, 0.0);
        let (mut failure, mut failed_checks, mut failed_check_count, mut interrupted) = (None, Vec::new(), 0, None);
        let mut watch = self.health.watch(&self.model);
        for _ in 0..count {
            let stats = match self.selection.backend.step_frame(&self.model, &mut self.state) {
                Ok(stats) => stats,
                Err(e) => {
                    failure = Some(Failure { frame: done + 1, kind: "backend", cause: e.to_string() });
                    break;
                }
            };
            solve_s += stats.solve_seconds;
            if let Some(f) = Health::non_finite(&self.model, &self.state, stats.residual) {
                last.nan = true;
                failure = Some(f);
                break;
            }
            last = self.final_state(stats.residual, stats.relative_residual);
            let check = self.health.check(&mut watch, &self.model, &self.state, &last);
            writer.metrics(&FrameMetrics {
                frame: self.state.frame,
                time: self.state.time,
                ms: stats.solve_seconds * 1e3,
                residual: last.residual,
                relative_residual: last.relative_residual,
                elastic_energy: last.elastic_energy,
                kinetic_energy: last.kinetic_energy,
                min_volume_ratio: last.min_volume_ratio,
                inverted_elements: last.inverted_elements,
                contacts: stats.contacts,
                max_edge_strain: last.max_edge_strain,
                mgpbd: stats.mgpbd,
                rigid: stats.rigid,
                phases: stats.phases,
            })?;
            // A frame that fails a check under `on_failure = "stop"` ends the run: it is the last one.
            let stops = check.is_some() && matches!(self.health.on_failure, OnFailure::Stop);
            // An interruption after the final frame changes nothing; before it, this frame is the last one.
            interrupted = self.interrupt.as_ref().and_then(|i| i.requested(self.state.frame)).filter(|_| self.state.frame < end && !stops);
            writer.frame(&self.model, &self.state, &*self.selection.backend, self.state.frame == end || stops || interrupted.is_some())?;
            done = self.state.frame;
            let due = self.checkpoint_every > 0 && self.state.frame % self.checkpoint_every == 0;
            if due || interrupted.is_some() {
                checkpoint::write(&out.join(checkpoint::FILE), fingerprint, &self.state, &self.selection.backend.carried(), self.checkpoint_every)?;
            }
            progress(self.state.frame, total, &last);
            match (check, self.health.on_failure) {
                (None, _) => {}
                (Some(f), OnFailure::Stop) => {
                    failure = Some(f);
                    break;
                }
                (Some(f), OnFailure::Continue) => {
                    failed_check_count += 1;
                    if failed_checks.len() < MAX_FAILED_CHECKS {
                        failed_checks.push(f);
                    }
                }
            }
            if interrupted.is_some() {
                break;
            }
        }
        // A non-finite frame is not written; a frame that failed a limit is (its state is finite).
        let ms_per_frame = if done > first { solve_s * 1e3 / (done - first) as f64 } else { 0.0 };
        let summary = Summary {
            scene: self.scene.name.clone(),
            status: match (&failure, &interrupted, failed_check_count) {
                (Some(_), _, _) => "failed",
                (None, Some(_), _) => "interrupted",
                (None, None, 0) => "completed",
                (None, None, _) => "completed_with_failures",
            },
            device: self.selection.device.clone(),
            device_reason: self.selection.reason.clone(),
            backend: self.selection.backend.describe(),
            solver: self.config.clone(),
            vertices: self.model.vertex_count(),
            elements: self.model.element_count(),
            contact: self.model.contact.summary(),
            colors: self.selection.backend.colors(),
            frames: done,
            wall_time_s: start.elapsed().as_secs_f64(),
            ms_per_frame,
            ms_per_substep: ms_per_frame / self.config.substeps as f64,
            last,
            failure: failure.clone(),
            failed_checks,
            failed_check_count,
            interrupted,
        };
        writer.summary(&summary)?;
        match failure {
            None => Ok(summary),
            Some(f) => {
                Err(Error::invalid(format!("simulation failed at frame {}: {}; frames 0–{} and summary.json are in {}", f.frame, f.cause, done, out.display())))
            }
        }
    }

    fn final_state(&self, residual: f64, relative_residual: f64) -> FinalState {
        let (min_volume_ratio, inverted_elements) = volume_stats(&self.model, &self.state.x);
        FinalState {
            relative_residual,
            residual,
            elastic_energy: elastic_energy(&self.model, &self.state.x),
            kinetic_energy: kinetic_energy(&self.model, &self.state.v),
            min_volume_ratio,
            inverted_elements,
            max_edge_strain: max_edge_strain(&self.model, &self.state.x),
            nan: false,
        }
    }
}

/// Default output folder: `out/<scene name>`, for the scene file `scene`. The name must be one plain path
/// component (not empty, `.` or `..`, no separator), so that the folder stays inside `out/`; any other
/// name is refused in one line naming the scene's `name`.
pub fn default_out_dir(scene: &Path, scene_name: &str) -> Result<PathBuf> {
    let mut parts = Path::new(scene_name).components();
    let plain = matches!((parts.next(), parts.next()), (Some(std::path::Component::Normal(c)), None) if c == scene_name) && !scene_name.contains(['/', '\\']);
    if !plain {
        return Err(Error::invalid(format!(
            "{}: name: {scene_name:?} cannot name the output folder out/<name>: it must be one plain path component (not empty, '.' or '..', without '/' or '\\'); rename the scene or choose the folder with --out",
            scene.display()
        )));
    }
    Ok(PathBuf::from("out").join(scene_name))
}

fn prefix(path: &Path, e: Error) -> Error {
    match e {
        Error::Invalid(msg) => Error::invalid(format!("{}: {msg}", path.display())),
        other => other,
    }
}
