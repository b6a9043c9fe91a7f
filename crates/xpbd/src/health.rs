//! Per-frame health checks of a run (issue 9): a non-finite state, a runaway vertex speed, too many
//! inverted tetrahedra, a stretched cloth edge, and the blow-ups that stay finite and slow: energy no
//! force in the scene put in, a tetrahedron turned inside out and grown, a stagnated solve. Settings come
//! from the scene's `[simulation]` table (`on_failure`, `max_speed`, `max_inverted_fraction`,
//! `max_edge_strain`, `max_energy_ratio`, `min_volume_ratio`, `stagnation_frames`,
//! docs/scene-format.md); what a failed check does is docs/robustness.md.

mod energy_budget;
mod stagnation;

use crate::final_state::FinalState;
use energy_budget::EnergyBudget;
use serde::Serialize;
use stagnation::Stagnation;
use xpbd_core::constraint::tet_model::{gather, volume_ratio};
use xpbd_core::model::Model;
use xpbd_core::scene::schema;
use xpbd_core::state::State;
use xpbd_core::{Error, Result};

/// What a failed speed or inversion check does. A non-finite state always stops the run: nothing
/// after it could be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OnFailure {
    Stop,
    Continue,
}

/// One failed check: the frame it was seen after (or, for `backend`, the frame whose step failed), a
/// machine-readable `kind` (`non_finite`, `max_speed`, `inverted`, `edge_strain`, `energy`,
/// `volume_ratio`, `stagnation`, `backend`: the backend reported an error, e.g. a device failure) and a
/// one-line cause naming the vertex, the tetrahedron, the count or the error.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Failure {
    pub frame: usize,
    pub kind: &'static str,
    pub cause: String,
}

#[derive(Clone, Debug)]
pub struct Health {
    pub on_failure: OnFailure,
    max_speed: f64,
    max_inverted_fraction: f64,
    max_edge_strain: f64,
    max_energy_ratio: f64,
    min_volume_ratio: f64,
    stagnation_frames: usize,
}

/// What the checks of one run remember between its frames.
#[derive(Clone, Debug)]
pub struct Watch {
    budget: EnergyBudget,
    stagnation: Stagnation,
}

impl Health {
    /// Checks and takes the settings; errors name the field (`simulation.max_speed`, ...).
    pub fn new(s: &schema::Simulation) -> Result<Self> {
        let on_failure = match s.on_failure.as_str() {
            "stop" => OnFailure::Stop,
            "continue" => OnFailure::Continue,
            other => return Err(Error::invalid(format!("simulation.on_failure: expected 'stop' or 'continue', got '{other}'"))),
        };
        if !(s.max_speed > 0.0) {
            return Err(Error::invalid(format!("simulation.max_speed: must be a positive speed in m/s (or inf), got {}", s.max_speed)));
        }
        if !(0.0..=1.0).contains(&s.max_inverted_fraction) {
            return Err(Error::invalid(format!("simulation.max_inverted_fraction: must lie in [0, 1], got {}", s.max_inverted_fraction)));
        }
        if !(s.max_edge_strain > 0.0) {
            return Err(Error::invalid(format!("simulation.max_edge_strain: must be a positive strain (or inf), got {}", s.max_edge_strain)));
        }
        if s.max_energy_ratio.is_nan() || s.max_energy_ratio < 1.0 {
            return Err(Error::invalid(format!("simulation.max_energy_ratio: must be a ratio of at least 1 (or inf), got {}", s.max_energy_ratio)));
        }
        if s.min_volume_ratio.is_nan() || s.min_volume_ratio >= 0.0 {
            return Err(Error::invalid(format!("simulation.min_volume_ratio: must be a negative det F (or -inf), got {}", s.min_volume_ratio)));
        }
        Ok(Health {
            on_failure,
            max_speed: s.max_speed,
            max_inverted_fraction: s.max_inverted_fraction,
            max_edge_strain: s.max_edge_strain,
            max_energy_ratio: s.max_energy_ratio,
            min_volume_ratio: s.min_volume_ratio,
            stagnation_frames: s.stagnation_frames,
        })
    }

    /// A fresh memory for a run of `model`.
    pub fn watch(&self, model: &Model) -> Watch {
        Watch { budget: EnergyBudget::of(model), stagnation: Stagnation::new(self.stagnation_frames) }
    }

    /// Every check of a finite frame, `last` its measures: [`limits`](Self::limits), then the volume,
    /// energy and stagnation checks; the first that fails.
    pub fn check(&self, watch: &mut Watch, model: &Model, state: &State, last: &FinalState) -> Option<Failure> {
        let failure = |kind, cause| Some(Failure { frame: state.frame, kind, cause });
        let stagnated = watch.stagnation.push(last.relative_residual, last.inverted_elements);
        if let Some(f) = self.limits(model, state, last.inverted_elements, last.max_edge_strain) {
            return Some(f);
        }
        if last.min_volume_ratio < self.min_volume_ratio {
            let (j, tet) = most_inverted(model, state);
            return failure("volume_ratio", format!("det F = {j:.4e} at {tet}: turned inside out (simulation.min_volume_ratio = {})", self.min_volume_ratio));
        }
        let energy = last.elastic_energy + last.kinetic_energy;
        let budget = watch.budget.at(model, state);
        if energy > self.max_energy_ratio * budget {
            let cause = format!(
                "elastic + kinetic energy {energy:.4e} J is {:.3e} times the {budget:.4e} J the scene can hold (simulation.max_energy_ratio = {})",
                energy / budget,
                self.max_energy_ratio
            );
            return failure("energy", cause);
        }
        stagnated.and_then(|cause| failure("stagnation", cause))
    }

    /// A non-finite position or velocity, or a non-finite reported residual.
    pub fn non_finite(model: &Model, state: &State, residual: f64) -> Option<Failure> {
        let cause = match state.first_non_finite() {
            Some(v) => format!("non-finite position or velocity at {}", vertex_name(model, v)),
            None if !residual.is_finite() => "non-finite constraint residual".to_string(),
            None => return None,
        };
        Some(Failure { frame: state.frame, kind: "non_finite", cause })
    }

    /// The speed, inversion and edge-strain checks of a finite state; `inverted` is the frame's count of
    /// inverted tetrahedra (from `metrics::volume_stats`), `edge_strain` its largest cloth edge strain
    /// (`metrics::max_edge_strain`, `None` without cloth).
    pub fn limits(&self, model: &Model, state: &State, inverted: usize, edge_strain: Option<f64>) -> Option<Failure> {
        let fastest = state.v.iter().map(|v| v.norm()).enumerate().max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((v, speed)) = fastest.filter(|&(_, s)| s > self.max_speed) {
            let cause = format!("runaway speed {speed:.4e} m/s at {} (simulation.max_speed = {})", vertex_name(model, v), self.max_speed);
            return Some(Failure { frame: state.frame, kind: "max_speed", cause });
        }
        let tets = model.tet_groups.iter().map(|g| g.tets.len()).sum::<usize>();
        if tets > 0 && inverted as f64 > self.max_inverted_fraction * tets as f64 {
            let cause = format!("{inverted} of {tets} tetrahedra inverted (simulation.max_inverted_fraction = {})", self.max_inverted_fraction);
            return Some(Failure { frame: state.frame, kind: "inverted", cause });
        }
        if let Some(strain) = edge_strain.filter(|&s| s > self.max_edge_strain) {
            let cause = format!("cloth edge strain {strain:.4e} (simulation.max_edge_strain = {})", self.max_edge_strain);
            return Some(Failure { frame: state.frame, kind: "edge_strain", cause });
        }
        None
    }
}

/// The smallest det F and "tetrahedron T of body 'B'", `T` counted within its body.
fn most_inverted(model: &Model, state: &State) -> (f64, String) {
    let mut seen = vec![0; model.bodies.len()];
    let (mut min, mut at) = (f64::INFINITY, (0, 0));
    for g in &model.tet_groups {
        for (e, (t, r)) in g.tets.iter().zip(&g.rest).enumerate() {
            let j = volume_ratio(r, &gather(&state.x, t));
            if j < min {
                (min, at) = (j, (g.body, seen[g.body] + e));
            }
        }
        seen[g.body] += g.tets.len();
    }
    (min, format!("tetrahedron {} of body '{}'", at.1, model.bodies[at.0].name))
}

/// "vertex V of body 'B'", with `V` counted within its body.
fn vertex_name(model: &Model, v: usize) -> String {
    let body = &model.bodies[model.body_of_vertex(v)];
    format!("vertex {} of body '{}'", v - body.vertices.start, body.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use xpbd_core::scene::schema::Material;
    use xpbd_core::scene::{BodyBuilder, SceneBuilder};

    fn settings(on_failure: &str, max_speed: f64, max_inverted_fraction: f64) -> schema::Simulation {
        schema::Simulation { on_failure: on_failure.into(), max_speed, max_inverted_fraction, ..Default::default() }
    }

    fn cube() -> (Model, State) {
        let cube = BodyBuilder::new("cube").box_mesh([1.0; 3], [2, 1, 1]).split(5).material(Material::tet("neohookean", 1.0e5, 0.3, 1000.0));
        let model = SceneBuilder::new("h").body(cube).built(Path::new(".")).unwrap().model;
        let state = State::initial(&model);
        (model, state)
    }

    #[test]
    fn runaway_speed_names_the_fastest_vertex() {
        let (model, mut state) = cube();
        let h = Health::new(&settings("stop", 10.0, 1.0)).unwrap();
        assert_eq!(h.limits(&model, &state, 0, None), None);
        state.v[3].y = -10.5;
        state.v[4].x = 10.2;
        state.frame = 7;
        let f = h.limits(&model, &state, 0, None).unwrap();
        assert_eq!((f.frame, f.kind), (7, "max_speed"));
        assert!(f.cause.contains("1.0500e1 m/s at vertex 3 of body 'cube'"), "{}", f.cause);
        assert_eq!(Health::new(&settings("stop", f64::INFINITY, 1.0)).unwrap().limits(&model, &state, 0, None), None);
    }

    #[test]
    fn inverted_fraction_above_the_bound_fails() {
        let (model, mut state) = cube();
        // Mirroring every vertex inverts every tetrahedron.
        state.x.iter_mut().for_each(|p| p.x = -p.x);
        let (_, inverted) = xpbd_core::metrics::volume_stats(&model, &state.x);
        assert_eq!(inverted, 10);
        assert_eq!(Health::new(&settings("stop", 1e3, 1.0)).unwrap().limits(&model, &state, inverted, None), None, "the default only counts");
        let f = Health::new(&settings("stop", 1e3, 0.5)).unwrap().limits(&model, &state, inverted, None).unwrap();
        assert_eq!(f.kind, "inverted");
        assert!(f.cause.starts_with("10 of 10 tetrahedra inverted"), "{}", f.cause);
        assert_eq!(Health::new(&settings("stop", 1e3, 0.5)).unwrap().limits(&model, &state, 5, None), None, "5 of 10 is not above 0.5");
    }

    /// A stretched cloth edge: measured by `metrics::max_edge_strain` on a sheet with one vertex pulled
    /// away, it fails the check above the bound and names the setting; the default (10) passes 1.
    #[test]
    fn cloth_edge_strain_above_the_bound_fails() {
        let sheet = BodyBuilder::new("sheet").grid2d([1.0, 1.0], [2, 2]).material(Material::cloth(0.2, 1e-7, 1.0));
        let model = SceneBuilder::new("c").body(sheet).built(Path::new(".")).unwrap().model;
        let mut state = State::initial(&model);
        let rest = xpbd_core::metrics::max_edge_strain(&model, &state.x);
        assert!(rest.is_some_and(|s| s < 1e-12), "{rest:?}");
        state.x[0].x -= 3.0;
        let strain = xpbd_core::metrics::max_edge_strain(&model, &state.x).unwrap();
        assert!(strain > 5.0, "{strain}");
        let mut s = settings("stop", 1e3, 1.0);
        assert_eq!(Health::new(&s).unwrap().limits(&model, &state, 0, Some(strain)), None, "default 10");
        s.max_edge_strain = 5.0;
        let f = Health::new(&s).unwrap().limits(&model, &state, 0, Some(strain)).unwrap();
        assert_eq!(f.kind, "edge_strain");
        assert!(f.cause.contains("simulation.max_edge_strain = 5"), "{}", f.cause);
        s.max_edge_strain = 0.0;
        assert!(Health::new(&s).err().unwrap().to_string().contains("simulation.max_edge_strain"));
    }

    #[test]
    fn non_finite_state_or_residual_is_reported() {
        let (model, mut state) = cube();
        assert_eq!(Health::non_finite(&model, &state, 0.0), None);
        assert_eq!(Health::non_finite(&model, &state, f64::NAN).unwrap().cause, "non-finite constraint residual");
        state.x[2].z = f64::INFINITY;
        assert!(Health::non_finite(&model, &state, 0.0).unwrap().cause.contains("vertex 2 of body 'cube'"));
    }

    #[test]
    fn bad_settings_name_their_field() {
        let e = |s| Health::new(&s).unwrap_err().to_string();
        assert!(e(settings("retry", 1.0, 1.0)).starts_with("simulation.on_failure:"));
        assert!(e(settings("stop", 0.0, 1.0)).starts_with("simulation.max_speed:"));
        assert!(e(settings("stop", f64::NAN, 1.0)).starts_with("simulation.max_speed:"));
        assert!(e(settings("stop", 1.0, 1.5)).starts_with("simulation.max_inverted_fraction:"));
        assert!(e(schema::Simulation { max_energy_ratio: 0.5, ..Default::default() }).starts_with("simulation.max_energy_ratio:"));
        assert!(e(schema::Simulation { max_energy_ratio: f64::NAN, ..Default::default() }).starts_with("simulation.max_energy_ratio:"));
        assert!(e(schema::Simulation { min_volume_ratio: 0.0, ..Default::default() }).starts_with("simulation.min_volume_ratio:"));
        assert_eq!(Health::new(&settings("continue", f64::INFINITY, 0.0)).unwrap().on_failure, OnFailure::Continue);
    }

    /// The measures `Simulation` reports for `state`.
    fn measured(model: &Model, state: &State, relative_residual: f64) -> FinalState {
        let (min_volume_ratio, inverted_elements) = xpbd_core::metrics::volume_stats(model, &state.x);
        FinalState {
            relative_residual,
            elastic_energy: xpbd_core::metrics::elastic_energy(model, &state.x),
            kinetic_energy: xpbd_core::metrics::kinetic_energy(model, &state.v),
            min_volume_ratio,
            inverted_elements,
            ..Default::default()
        }
    }

    /// Mirrored, every tetrahedron has det F = −1: the default bound (−1) passes it; mirrored and stretched,
    /// det F = −2 fails, naming a tetrahedron; `-inf` turns the check off.
    #[test]
    fn a_tetrahedron_inside_out_and_grown_fails() {
        let (model, mut state) = cube();
        // Inside out, the whole cube holds more than ten times its energy at unit strain: energy is not checked here.
        let h = Health::new(&schema::Simulation { max_energy_ratio: f64::INFINITY, ..Default::default() }).unwrap();
        state.x.iter_mut().for_each(|p| p.x = -p.x);
        assert_eq!(h.check(&mut h.watch(&model), &model, &state, &measured(&model, &state, 0.5)), None);
        state.x.iter_mut().for_each(|p| p.x *= 2.0);
        let f = h.check(&mut h.watch(&model), &model, &state, &measured(&model, &state, 0.5)).unwrap();
        assert_eq!(f.kind, "volume_ratio");
        assert!(f.cause.starts_with("det F = -2.0000e0 at tetrahedron ") && f.cause.contains("of body 'cube'"), "{}", f.cause);
        assert!(f.cause.ends_with("(simulation.min_volume_ratio = -1)"), "{}", f.cause);
        let off = Health::new(&schema::Simulation { min_volume_ratio: f64::NEG_INFINITY, ..Default::default() }).unwrap();
        assert_eq!(off.check(&mut off.watch(&model), &model, &state, &measured(&model, &state, 0.5)), None);
    }

    /// Falling 1000 m, the cube's kinetic energy is gravity's work and passes; the same speed with no
    /// fall behind it is energy nothing put in, and fails; `inf` turns the check off.
    #[test]
    fn energy_nothing_put_in_fails() {
        let (model, mut state) = cube();
        let h = Health::new(&schema::Simulation { max_speed: f64::INFINITY, ..Default::default() }).unwrap();
        let fall = (2.0 * 9.81 * 1000.0_f64).sqrt();
        state.v.iter_mut().for_each(|v| v.y = -fall);
        state.x.iter_mut().for_each(|p| p.y -= 1000.0);
        let mut watch = h.watch(&model);
        assert_eq!(h.check(&mut watch, &model, &state, &measured(&model, &state, 0.5)), None);
        state.x = model.initial_position.clone();
        let f = h.check(&mut watch, &model, &state, &measured(&model, &state, 0.5)).unwrap();
        assert_eq!(f.kind, "energy");
        assert!(f.cause.starts_with("elastic + kinetic energy 9.8100e6 J is "), "{}", f.cause);
        assert!(f.cause.ends_with("(simulation.max_energy_ratio = 10)"), "{}", f.cause);
        let off = Health::new(&schema::Simulation { max_speed: f64::INFINITY, max_energy_ratio: f64::INFINITY, ..Default::default() }).unwrap();
        assert_eq!(off.check(&mut off.watch(&model), &model, &state, &measured(&model, &state, 0.5)), None);
    }

    /// A relative residual still to 1e-3 for 5 frames while the inverted count grows fails on the 6th
    /// frame; a moving residual, a count that did not grow, a zero residual or `stagnation_frames = 0` do not.
    #[test]
    fn a_still_residual_while_inversions_grow_fails() {
        let run = |frames: usize, residuals: &[f64], inverted: &[usize]| {
            let mut s = Stagnation::new(frames);
            residuals.iter().zip(inverted).map(|(&r, &n)| s.push(r, n)).collect::<Vec<_>>()
        };
        let growing = [3, 3, 4, 5, 5, 6, 7];
        let stuck = run(5, &[0.5, 1.0, 1.0004, 1.0, 0.9999, 1.0, 1.0], &growing);
        assert!(stuck[..6].iter().all(Option::is_none), "{stuck:?}");
        let cause = stuck[6].as_deref().unwrap();
        assert_eq!(cause, "relative residual stuck at 1.0000e0 for 5 frames while inverted tetrahedra grew from 3 to 7 (simulation.stagnation_frames = 5)");
        assert!(run(5, &[1.0, 1.0, 1.0, 1.01, 1.0, 1.0, 1.0], &growing).iter().all(Option::is_none));
        assert!(run(5, &[1.0; 7], &[4, 5, 6, 6, 5, 4, 4]).iter().all(Option::is_none));
        assert!(run(5, &[0.0; 7], &growing).iter().all(Option::is_none));
        assert!(run(0, &[1.0; 7], &growing).iter().all(Option::is_none));
    }

    /// A body with a region holds its tetrahedra group by group (the region's first), and the health message
    /// counts them in that order: the most inverted tetrahedron, in the body's second group, is named by its
    /// place in `Body::tets` (the order of the VTU cells).
    #[test]
    fn the_most_inverted_tetrahedron_is_counted_in_body_order_across_regions() {
        let stiff = xpbd_core::scene::schema::Region::in_box([1.0, -1.0, -1.0], [3.0, 2.0, 2.0], Material::tet("stvk", 1.0e7, 0.3, 1000.0));
        let bar = BodyBuilder::new("bar").box_mesh([2.0, 1.0, 1.0], [2, 1, 1]).split(5).material(Material::tet("stvk", 1.0e5, 0.3, 1000.0)).region(stiff);
        let model = SceneBuilder::new("h").body(bar).built(Path::new(".")).unwrap().model;
        let mut state = State::initial(&model);
        // The corner (0, 1, 1) of the soft cell pushed through it.
        let corner = (0..model.vertex_count()).find(|&i| (model.rest[i] - xpbd_core::mesh::Vec3::new(0.0, 1.0, 1.0)).norm() < 1e-12).unwrap();
        state.x[corner] = xpbd_core::mesh::Vec3::new(0.8, 0.2, 0.2);
        let six_volume = |x: &[xpbd_core::mesh::Vec3], t: &[u32; 4]| {
            let [a, b, c, d] = t.map(|i| x[i as usize]);
            (b - a).cross(&(c - a)).dot(&(d - a))
        };
        let ratio = |t: &[u32; 4]| six_volume(&state.x, t) / six_volume(&model.rest, t);
        let tets = &model.bodies[0].tets;
        let k = (0..tets.len()).min_by(|&a, &b| ratio(&tets[a]).total_cmp(&ratio(&tets[b]))).unwrap();
        let (j, name) = most_inverted(&model, &state);
        assert!(j < 0.0 && k >= model.tet_groups[0].tets.len(), "det F {j} at body tetrahedron {k}");
        assert_eq!(name, format!("tetrahedron {k} of body 'bar'"));
    }
}
