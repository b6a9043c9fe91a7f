//! A simulation run: scene → model → backend, the frame loop with metrics and outputs, failure
//! detection, and the summary (DESIGN.md §5).

use crate::device::{select, Device, Selection};
use crate::output::{frame_formats, FrameMetrics, Writer};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;
use xpbd_core::metrics::{elastic_energy, kinetic_energy, volume_stats};
use xpbd_core::model::{Model, SolverSettings};
use xpbd_core::scene::{self, Scene};
use xpbd_core::state::State;
use xpbd_core::{Error, Result};

pub struct Simulation {
    pub scene: Scene,
    pub model: Model,
    pub state: State,
    pub selection: Selection,
    /// Load-time warnings (reoriented elements, dropped vertices).
    pub warnings: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub scene: String,
    pub status: &'static str,
    pub device: String,
    pub device_reason: String,
    pub backend: String,
    pub solver: SolverSettings,
    pub vertices: usize,
    pub elements: usize,
    /// Colors per sweep, for colored and clustered orderings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub colors: Option<usize>,
    pub frames: usize,
    pub wall_time_s: f64,
    pub ms_per_frame: f64,
    pub ms_per_substep: f64,
    #[serde(rename = "final")]
    pub last: FinalState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct FinalState {
    pub relative_residual: f64,
    pub residual: f64,
    pub elastic_energy: f64,
    pub kinetic_energy: f64,
    pub min_volume_ratio: f64,
    pub inverted_elements: usize,
    pub nan: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Failure {
    pub frame: usize,
    pub cause: String,
}

impl Simulation {
    /// Loads a scene file; `device` overrides the scene's `simulation.device`.
    pub fn load(path: &Path, device: Option<Device>) -> Result<Self> {
        let scene = scene::load(path)?;
        let base = path.parent().unwrap_or(Path::new("."));
        Self::from_scene(scene, base, device, path)
    }

    pub fn from_scene(scene: Scene, base_dir: &Path, device: Option<Device>, path: &Path) -> Result<Self> {
        let (model, warnings) = scene::build(&scene, base_dir).map_err(|e| prefix(path, e))?;
        let device = match device {
            Some(d) => d,
            None => scene.simulation.device.parse().map_err(|e| prefix(path, Error::invalid(format!("simulation.{e}"))))?,
        };
        frame_formats(&scene.output.formats).map_err(|e| prefix(path, e))?;
        let selection = select(device, &model)?;
        let state = State::initial(&model);
        Ok(Simulation { scene, model, state, selection, warnings })
    }

    /// Runs `frames` frames (the scene's count when `None`) writing into `out`. `progress(done, total)`
    /// is called after each frame. A run that blows up stops, keeps what it wrote, records the failure
    /// in `summary.json` and returns the error.
    pub fn run(&mut self, out: &Path, frames: Option<usize>, progress: &mut dyn FnMut(usize, usize)) -> Result<Summary> {
        let total = frames.unwrap_or(self.scene.simulation.frames);
        let formats = frame_formats(&self.scene.output.formats)?;
        let mut writer = Writer::create(out, &self.model, formats, self.scene.output.every)?;
        let start = Instant::now();
        writer.frame(&self.model, &self.state)?;
        let mut solve_s = 0.0;
        let mut last = self.final_state(0.0, 0.0);
        let mut failure = None;
        for _ in 0..total {
            let stats = self.selection.backend.step_frame(&self.model, &mut self.state);
            solve_s += stats.solve_seconds;
            if let Some(cause) = self.non_finite(stats.residual) {
                last.nan = true;
                failure = Some(Failure { frame: self.state.frame, cause });
                break;
            }
            last = self.final_state(stats.residual, stats.relative_residual);
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
                mgpbd: stats.mgpbd,
            })?;
            writer.frame(&self.model, &self.state)?;
            progress(self.state.frame, total);
        }
        let done = self.state.frame - failure.is_some() as usize;
        let ms_per_frame = if done > 0 { solve_s * 1e3 / done as f64 } else { 0.0 };
        let summary = Summary {
            scene: self.scene.name.clone(),
            status: if failure.is_some() { "failed" } else { "completed" },
            device: self.selection.device.clone(),
            device_reason: self.selection.reason.clone(),
            backend: self.selection.backend.describe(),
            solver: self.model.solver.clone(),
            vertices: self.model.vertex_count(),
            elements: self.model.element_count(),
            colors: self.selection.backend.colors(),
            frames: done,
            wall_time_s: start.elapsed().as_secs_f64(),
            ms_per_frame,
            ms_per_substep: ms_per_frame / self.model.solver.substeps as f64,
            last,
            failure: failure.clone(),
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
            nan: false,
        }
    }

    /// The cause when the state or its reported residual is not finite.
    fn non_finite(&self, residual: f64) -> Option<String> {
        if let Some(v) = self.state.first_non_finite() {
            let body = &self.model.bodies[self.model.body_of_vertex(v)];
            return Some(format!("non-finite position or velocity at vertex {} of body '{}'", v - body.vertices.start, body.name));
        }
        (!residual.is_finite()).then(|| "non-finite constraint residual".to_string())
    }
}

/// Default output folder: `out/<scene name>`.
pub fn default_out_dir(scene_name: &str) -> PathBuf {
    PathBuf::from("out").join(scene_name)
}

fn prefix(path: &Path, e: Error) -> Error {
    match e {
        Error::Invalid(msg) => Error::invalid(format!("{}: {msg}", path.display())),
        other => other,
    }
}
