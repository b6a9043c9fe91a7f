//! Convergence of one substep under several solvers (docs/output-format.md, `xpbd converge`): run a scene on
//! the CPU up to frame F, then, from that same state, start frame F+1's first substep with each
//! solver (prediction and multiplier reset) and record after every iteration the residual
//! ‖C(x) + α̃λ‖ of docs/equations.md, its ratio to the residual right after the prediction, and the
//! elastic energy. Output: `converge.csv` (`csv`); `xpbd-tools` draws the plot `converge.svg` and `converge.png`.

use crate::device::Device;
use crate::simulation::Simulation;
use std::fmt::Write as _;
use std::path::Path;
use std::time::Instant;
use xpbd_core::backend::Backend;
use xpbd_core::constraint::tet_model::TetModel;
use xpbd_core::metrics::{elastic_energy, residual_norm};
use xpbd_core::mgpbd::settings::MgpbdSettings;
use xpbd_core::model::Model;
use xpbd_core::scene::schema;
use xpbd_core::solver_config::{Method, Ordering, SolverConfig};
use xpbd_core::state::State;
use xpbd_core::{Error, Result};
use xpbd_cpu::CpuBackend;

/// The solvers compared when `--solvers` is not given (with the scene's material model).
pub const DEFAULT_SOLVERS: &str = "serial,colored,clustered,jacobi";

/// Header of `converge.csv`.
pub const CSV_HEADER: &str = "solver,iteration,wall_ms,residual,relative_residual,energy";

/// One item of `--solvers`: `ORDERING` or `MODEL/ORDERING`, optionally followed by `:N`, its own
/// iteration count (so that solvers of very different cost per iteration cover about the same wall time).
#[derive(Clone, Debug, PartialEq)]
pub struct SolverSpec {
    /// The item as written (trimmed): the `solver` column and the legend entry.
    pub label: String,
    /// Material model that replaces every tet group's model (only between the two neo-Hookean forms).
    pub model: Option<TetModel>,
    /// The XPBD ordering, with the default Jacobi relaxation and cluster size (the scene's replace them in
    /// [`solver_config`]).
    pub ordering: Ordering,
    /// MGPBD's outer loop with the scene's `[solver]` settings (or their defaults) instead of an
    /// XPBD ordering.
    pub mgpbd: bool,
    /// The item's `:N`, replacing `--iterations` for it.
    pub iterations: Option<usize>,
}

const MODELS: &str = "neohookean, neohookean_block";

/// Only the two neo-Hookean forms may replace each other: they share Lamé parameters.
fn parse_model(s: &str) -> Option<TetModel> {
    TetModel::from_name(s).filter(|m| matches!(m, TetModel::NeoHookean | TetModel::NeoHookeanBlock))
}

/// Parses a comma-separated `--solvers` list. Errors name the offending item.
pub fn parse_solvers(list: &str) -> Result<Vec<SolverSpec>> {
    let mut out: Vec<SolverSpec> = Vec::new();
    for item in list.split(',').map(str::trim) {
        if item.is_empty() {
            return Err(Error::invalid(format!("--solvers: empty item in '{list}'")));
        }
        let (item, iterations) = match item.split_once(':') {
            None => (item, None),
            Some((name, n)) => match n.trim().parse::<usize>() {
                Ok(n) if n >= 1 => (name.trim(), Some(n)),
                _ => return Err(Error::invalid(format!("--solvers: '{item}': the iteration count after ':' must be an integer ≥ 1"))),
            },
        };
        let ordering = |name: &str| {
            let d = schema::Solver::default();
            Ordering::named(name, d.relaxation, d.cluster_size)
        };
        let spec = match item.split_once('/') {
            None if item == "mgpbd" => Some(SolverSpec { label: item.into(), model: None, ordering: Ordering::Serial, mgpbd: true, iterations }),
            None => ordering(item).map(|ordering| SolverSpec { label: item.into(), model: None, ordering, mgpbd: false, iterations }),
            Some((m, o)) => match (parse_model(m.trim()), ordering(o.trim())) {
                (Some(model), Some(ordering)) => Some(SolverSpec { label: item.into(), model: Some(model), ordering, mgpbd: false, iterations }),
                _ => None,
            },
        };
        let spec = spec.ok_or_else(|| {
            Error::invalid(format!(
                "--solvers: unknown solver '{item}' (expected mgpbd, ORDERING or MODEL/ORDERING with ORDERING one of {} and MODEL one of {MODELS})",
                Ordering::NAMES
            ))
        })?;
        if out.iter().any(|s| s.label == spec.label) {
            return Err(Error::invalid(format!("--solvers: solver '{item}' is listed twice")));
        }
        out.push(spec);
    }
    Ok(out)
}

/// How `spec` solves `model` (from [`solver_model`]): the scene's stepping (`base`) with MGPBD (the scene's
/// settings when its solver is MGPBD, else the defaults) or the spec's XPBD ordering with the scene's
/// `relaxation` and `cluster_size` (`scene`) and XPBD precision. The multi-layer solver is not one of them: converge steps
/// iteration by iteration, which it does not.
pub fn solver_config(base: &SolverConfig, scene: &schema::Solver, model: &Model, spec: &SolverSpec) -> Result<SolverConfig> {
    if !spec.mgpbd {
        let ordering = Ordering::named(spec.ordering.name(), scene.relaxation, scene.cluster_size).expect("a parsed ordering");
        return Ok(base.with_method(Method::Xpbd { ordering, precision: base.method.precision() }));
    }
    let refused = |e: Error| Error::invalid(format!("--solvers: solver 'mgpbd': {e}"));
    let settings = match &base.method {
        Method::Mgpbd(settings) => settings.clone(),
        _ => {
            let mut settings = MgpbdSettings::from_scene(&schema::Solver::default())?;
            settings.resolve(model).map_err(refused)?;
            settings
        }
    };
    settings.rows(model).map_err(refused)?;
    Ok(base.with_method(Method::Mgpbd(settings)))
}

/// The model `spec` solves when it is not the scene's: a copy of `base` with the spec's material model in every
/// tet group (`None`: the scene's model serves). The override is only allowed between `neohookean` and
/// `neohookean_block`, which share their constraints, Lamé parameters and multiplier layout.
pub fn solver_model(base: &Model, spec: &SolverSpec) -> Result<Option<Model>> {
    let Some(m) = spec.model else { return Ok(None) };
    if base.tet_groups.is_empty() {
        return Err(Error::invalid(format!("--solvers: solver '{}' overrides the material model, but the scene has no tetrahedral body", spec.label)));
    }
    let mut model = base.clone();
    for g in &mut model.tet_groups {
        if !matches!(g.model, TetModel::NeoHookean | TetModel::NeoHookeanBlock) {
            return Err(Error::invalid(format!(
                "--solvers: solver '{}' overrides the material model, which works only between {MODELS}, but body '{}' is {}",
                spec.label,
                base.bodies[g.body].name,
                g.model.name()
            )));
        }
        g.model = m;
    }
    Ok(Some(model))
}

/// The record after one iteration (iteration 0: right after the prediction).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub iteration: usize,
    /// Cumulative solver time of iterations 1..=iteration (the evaluation excluded), ms.
    pub wall_ms: f64,
    pub residual: f64,
    /// residual / residual at iteration 0 (0 when that is 0).
    pub relative_residual: f64,
    pub energy: f64,
}

/// One solver's convergence history.
#[derive(Clone, Debug)]
pub struct Curve {
    pub solver: String,
    /// What the backend reports about its loop (e.g. the number of parallel batches).
    pub backend: String,
    pub samples: Vec<Sample>,
}

/// What [`run_up`] (through [`converge`] and `dual_system`) reports while the scene runs up to the
/// requested frame, so that a caller can show it before and during a long run-up.
pub enum RunUp<'a> {
    /// The scene is loaded and about to run up to frame `frame`: its name and warnings (including one
    /// when `frame` is beyond the scene's `simulation.frames`).
    Loaded { scene: &'a str, warnings: &'a [String], frame: usize },
    /// Frame `done` of `total` is finished.
    Frame { done: usize, total: usize },
}

/// Adds a warning to `sim.warnings` when `frame` is beyond the scene's `simulation.frames`, then reports
/// [`RunUp::Loaded`].
pub fn loaded(sim: &mut Simulation, frame: usize, progress: &mut dyn FnMut(RunUp)) {
    let frames = sim.scene.simulation.frames;
    if frame > frames {
        sim.warnings
            .push(format!("--frame {frame} is beyond the scene's {frames} frames (simulation.frames); the scene runs on past its end to frame {frame}"));
    }
    progress(RunUp::Loaded { scene: &sim.scene.name, warnings: &sim.warnings, frame });
}

/// Advances `sim` (whose backend is the scene's own) to frame `frame`, failing on a non-finite state;
/// reports [`RunUp::Frame`] after each frame.
pub fn run_up(sim: &mut Simulation, frame: usize, progress: &mut dyn FnMut(RunUp)) -> Result<()> {
    while sim.state.frame < frame {
        let stats = sim.selection.backend.step_frame(&sim.model, &mut sim.state)?;
        progress(RunUp::Frame { done: sim.state.frame, total: frame });
        if let Some(v) = sim.state.first_non_finite() {
            let body = &sim.model.bodies[sim.model.body_of_vertex(v)];
            return Err(Error::invalid(format!(
                "simulation failed at frame {} before the requested frame {frame}: non-finite position or velocity at vertex {} of body '{}'",
                sim.state.frame,
                v - body.vertices.start,
                body.name
            )));
        }
        if !stats.residual.is_finite() {
            return Err(Error::invalid(format!(
                "simulation failed at frame {} before the requested frame {frame}: non-finite constraint residual",
                sim.state.frame
            )));
        }
    }
    Ok(())
}

/// Runs the first substep after `start` with `config`'s solver for `iterations` iterations on a fresh CPU
/// backend, recording a sample at iteration 0 and after each iteration.
pub fn substep_history(model: &Model, config: &SolverConfig, start: &State, iterations: usize, label: &str) -> Curve {
    let mut backend = CpuBackend::new(model, config);
    let mut s = start.clone();
    let h = config.h();
    let t_end = config.substep_end(s.time, 1);
    backend.begin_substep(model, &mut s, h, t_end);
    let r0 = residual_norm(model, &s.x, &s.lambda, h);
    let sample = |iteration: usize, wall_s: f64, s: &State| {
        let residual = residual_norm(model, &s.x, &s.lambda, h);
        Sample {
            iteration,
            wall_ms: wall_s * 1e3,
            residual,
            relative_residual: if r0 > 0.0 { residual / r0 } else { 0.0 },
            energy: elastic_energy(model, &s.x),
        }
    };
    let mut samples = Vec::with_capacity(iterations + 1);
    samples.push(sample(0, 0.0, &s));
    let mut wall_s = 0.0;
    for k in 1..=iterations {
        let t = Instant::now();
        backend.iterate(model, &mut s, h, t_end);
        wall_s += t.elapsed().as_secs_f64();
        samples.push(sample(k, wall_s, &s));
    }
    Curve { solver: label.into(), backend: backend.describe(), samples }
}

/// Loads `scene` for the CPU, runs it to frame `frame` and records every solver's history from there;
/// `progress` as in [`run_up`] (the scene's warnings come with [`RunUp::Loaded`]).
pub fn converge(scene: &Path, frame: usize, iterations: usize, solvers: &[SolverSpec], progress: &mut dyn FnMut(RunUp)) -> Result<(Simulation, Vec<Curve>)> {
    if iterations == 0 {
        return Err(Error::invalid("--iterations: must be at least 1"));
    }
    let mut sim = Simulation::load(scene, Some(Device::Cpu))?;
    // Check every solver against the scene before spending time on the run-up.
    let setups = solvers
        .iter()
        .map(|s| {
            let model = solver_model(&sim.model, s)?;
            let config = solver_config(&sim.config, &sim.scene.solver, model.as_ref().unwrap_or(&sim.model), s)?;
            Ok((model, config))
        })
        .collect::<Result<Vec<_>>>()?;
    loaded(&mut sim, frame, progress);
    run_up(&mut sim, frame, progress)?;
    let curves = solvers
        .iter()
        .zip(&setups)
        .map(|(s, (m, config))| substep_history(m.as_ref().unwrap_or(&sim.model), config, &sim.state, s.iterations.unwrap_or(iterations), &s.label))
        .collect();
    Ok((sim, curves))
}

/// The text of `converge.csv`.
pub fn csv(curves: &[Curve]) -> String {
    let mut out = String::from(CSV_HEADER);
    out.push('\n');
    for c in curves {
        for s in &c.samples {
            let _ = writeln!(out, "{},{},{},{},{},{}", c.solver, s.iteration, s.wall_ms, s.residual, s.relative_residual, s.energy);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_solver_lists() {
        let s = parse_solvers("serial, neohookean_block/clustered,neohookean/jacobi").unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s[0], SolverSpec { label: "serial".into(), model: None, ordering: Ordering::Serial, mgpbd: false, iterations: None });
        assert!(parse_solvers("serial,mgpbd").unwrap()[1].mgpbd);
        assert_eq!(s[1].model, Some(TetModel::NeoHookeanBlock));
        assert_eq!(s[1].ordering, Ordering::Clustered { cluster_size: 5 });
        assert_eq!(s[2].label, "neohookean/jacobi");
        assert_eq!(parse_solvers(DEFAULT_SOLVERS).unwrap().len(), 4);
        let own = parse_solvers("mgpbd:30, clustered : 3000,serial").unwrap();
        assert_eq!(
            own.iter().map(|s| (s.label.as_str(), s.iterations)).collect::<Vec<_>>(),
            [("mgpbd", Some(30)), ("clustered", Some(3000)), ("serial", None)]
        );
        for bad in ["gauss", "stvk/serial", "neohookean/", "serial,,jacobi", "neohookean/serial/x", "serial,serial", "serial:0", "serial:x", "mgpbd:3,mgpbd:4"]
        {
            let e = parse_solvers(bad).unwrap_err().to_string();
            assert!(e.starts_with("--solvers: "), "{bad}: {e}");
        }
        assert!(parse_solvers("serial,stvk/colored").unwrap_err().to_string().contains("'stvk/colored'"));
    }

    #[test]
    fn csv_has_one_row_per_sample() {
        let c = Curve {
            solver: "serial".into(),
            backend: String::new(),
            samples: vec![Sample { iteration: 0, wall_ms: 0.0, residual: 2.0, relative_residual: 1.0, energy: 3.5 }],
        };
        assert_eq!(csv(&[c]), format!("{CSV_HEADER}\nserial,0,0,2,1,3.5\n"));
    }
}
