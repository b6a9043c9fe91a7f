//! The implicit FEM solvers of `kind = "implicit"` and `kind = "adaptive"` (thesis "Adaptive methods for
//! elastic deformation", ch. 3; docs/adaptive.md). One step of length h = dt / substeps (Algorithm 1):
//! find contacts and warm-start them; under `adaptive`, ask the oracle which rigid elements must become
//! elastic, flag the elements whose strain rate stayed below τ_R and rebuild the rigid bodies when the flags
//! changed; assemble and factorise the reduced system (Eq. 3.11) and solve it; solve the contacts (Eq.
//! 3.13–3.15); update velocities and positions (Rodrigues for the bodies); record the strain rates (Eq. 3.17).
//! Shell bodies (ch. 4, docs/shells.md) add their membrane triangles and bending hinges to the same system; they
//! are always elastic (shell rigidification is not built yet).

mod contact;
mod elements;
mod linear_solve;
mod newton;
mod oracle;
mod rigid;
mod shells;
mod system;

use contact::Contacts;
use elements::Elements;
pub use linear_solve::PcgCounts;
use nalgebra::Matrix3;
use oracle::Oracle;
use rigid::Bodies;
use shells::Shells;
use std::time::Instant;
use system::{Inputs, Spring, System};
use xpbd_core::backend::{Backend, FrameStats, Unsupported};
pub use xpbd_core::constraint::tet_model::energy_of;
use xpbd_core::constraint::tet_model::gather;
use xpbd_core::fem::shell::membrane_strain;
use xpbd_core::implicit::bodies::{FaceAdjacency, RigidPattern};
use xpbd_core::implicit::dofs::{Dofs, VertexDof};
pub use xpbd_core::implicit::phases::Phases;
use xpbd_core::implicit::settings::{ImplicitSettings, LinearSolve, Rigidification};
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::named::Named;
use xpbd_core::solver_config::{Method, SolverConfig};
use xpbd_core::state::State;
use xpbd_core::{Error, Result};

/// Gauss–Seidel passes of the shells' strain limiting per step.
const STRAIN_LIMIT_PASSES: usize = 4;

/// Adaptive rigidification's per-element state, over the rigidifiable elements: the tets, then the shell
/// triangles (the model's cell order).
struct Adaptive {
    settings: Rigidification,
    adjacency: FaceAdjacency,
    /// τ_b of each element for rigidification and for elastification (1/(m·s); ∞ for tets): Eq. 4.20 from τ_R and
    /// τ_E with the element's body's rest diameter, or `bending_threshold` and its τ_E-scaled twin.
    bending_threshold: Vec<(f64, f64)>,
    /// Green strain of each element at the last step.
    strain: Vec<Matrix3<f64>>,
    /// Consecutive steps with ‖Ė‖² < τ_R (and, for a shell triangle, max κ̇ < τ_b).
    calm: Vec<u32>,
    /// The flags of the last rebuild.
    flags: Vec<bool>,
    /// Elements with a pinned or attached vertex: never rigid.
    anchored: Vec<bool>,
    /// Each vertex's velocity change over the last step, the oracle's start.
    velocity_change: Vec<Vec3>,
    oracle: Option<Oracle>,
}

pub struct ImplicitBackend {
    config: SolverConfig,
    settings: ImplicitSettings,
    elements: Elements,
    shells: Shells,
    /// Lumped vertex masses (the model's), for rebuilding bodies.
    mass: Vec<f64>,
    pinned: Vec<bool>,
    /// Prescribed velocity and path of each moving hard pin: x(t) = origin + velocity·t.
    paths: Vec<(u32, Vec3, Vec3)>,
    springs: Vec<Spring>,
    contacts: Contacts,
    pattern: RigidPattern,
    bodies: Bodies,
    system: System,
    adaptive: Option<Adaptive>,
    pub phases: Phases,
    /// PCG solves, iterations, setups and fallbacks to the Cholesky solve so far (`solver.linear_solver = "pcg"`).
    pub pcg: PcgCounts,
}

impl ImplicitBackend {
    pub fn new(model: &Model, config: &SolverConfig) -> Self {
        let Method::Implicit(settings) = &config.method else { panic!("ImplicitBackend needs solver.kind implicit or adaptive") };
        let elements = Elements::new(model);
        let shells = Shells::new(model, &model.initial_position);
        let pinned: Vec<bool> = model.inv_mass.iter().map(|&w| w == 0.0).collect();
        let mut paths = Vec::new();
        let mut springs = Vec::new();
        for a in &model.attachments {
            if a.compliance == 0.0 {
                paths.push((a.vertex, a.origin, a.velocity));
            } else {
                springs.push(Spring { vertex: a.vertex, stiffness: 1.0 / a.compliance, origin: a.origin, velocity: a.velocity });
            }
        }
        let count = elements.len() + shells.triangles.len();
        let pattern = RigidPattern::elastic(count, model.vertex_count());
        let system = System::new(&elements, &shells, Dofs::new(&pattern.vertex_body, |i| pinned[i], 0), &pattern, settings);
        let adaptive = settings.rigidification.map(|r| {
            let mut attached = pinned.clone();
            springs.iter().for_each(|s| attached[s.vertex as usize] = true);
            let nodes = element_nodes(&elements, &shells);
            let tau_b = |g: &shells::ShellGroup| r.bending_threshold.unwrap_or(4.0 / g.diameter * r.rigidify_threshold.sqrt());
            let scale = (r.elastify_threshold / r.rigidify_threshold).sqrt();
            Adaptive {
                settings: r,
                adjacency: FaceAdjacency::new(&nodes),
                bending_threshold: std::iter::repeat_n((f64::INFINITY, f64::INFINITY), elements.len())
                    .chain((0..shells.triangles.len()).map(|t| {
                        let b = tau_b(shells.triangle_material(t));
                        (b, b * scale)
                    }))
                    .collect(),
                strain: (0..count).map(|e| element_strain(&elements, &shells, e, &model.initial_position)).collect(),
                calm: vec![0; count],
                flags: vec![false; count],
                anchored: nodes.iter().map(|t| t.iter().any(|&v| attached[v as usize])).collect(),
                velocity_change: vec![Vec3::zeros(); model.vertex_count()],
                oracle: None,
            }
        });
        ImplicitBackend {
            config: config.clone(),
            settings: settings.clone(),
            elements,
            shells,
            mass: model.mass.clone(),
            pinned,
            paths,
            springs,
            contacts: Contacts::default(),
            pattern,
            bodies: Bodies::default(),
            system,
            adaptive,
            phases: Phases::default(),
            pcg: PcgCounts::default(),
        }
    }

    /// Rigid bodies and rigid elements now.
    pub fn rigid_counts(&self) -> (usize, usize) {
        (self.pattern.bodies, self.pattern.element_body.iter().filter(|b| b.is_some()).count())
    }

    /// The normal impulse (N·s) of each contact of the last step that pushed, by its first vertex.
    pub fn normal_impulses(&self) -> Vec<(u32, f64)> {
        self.contacts.list.iter().zip(self.contacts.lambda.chunks(3)).filter(|(_, l)| l[0] > 0.0).map(|(c, l)| (c.vertices[0], l[0])).collect()
    }

    /// The rigid body of each element (`None`: elastic), in the model's element order.
    pub fn element_bodies(&self) -> &[Option<u32>] {
        &self.pattern.element_body
    }

    /// The reduced system matrix A_A of the last assembly (read-only, for conditioning studies).
    pub fn system_matrix(&self) -> &xpbd_core::sparse::Csr {
        &self.system.pattern.matrix
    }

    /// The oracle's elastification and the rigidification flags; rebuilds the bodies when the flags changed.
    fn rigidify(&mut self, model: &Model, s: &mut State, h: f64) -> Result<()> {
        let Some(a) = &mut self.adaptive else { return Ok(()) };
        let start = Instant::now();
        let count = a.flags.len();
        let rigid: Vec<u32> = (0..count as u32).filter(|&e| self.pattern.element_body[e as usize].is_some()).collect();
        let mut elastify = vec![false; count];
        if !rigid.is_empty() {
            if a.oracle.is_none() {
                a.oracle = Some(Oracle::new(&self.elements, &self.shells, &model.mass, &self.pinned, h)?);
            }
            let oracle = a.oracle.as_ref().unwrap();
            let rates = oracle.strain_rates(
                &self.elements,
                &self.shells,
                &s.x,
                &s.v,
                &model.mass,
                model.gravity,
                &self.contacts,
                &self.settings,
                h,
                &a.velocity_change,
                &rigid,
            );
            for (&e, r) in rigid.iter().zip(rates) {
                if r.strain > a.settings.elastify_threshold || r.bending > a.bending_threshold[e as usize].1 {
                    elastify[e as usize] = true;
                    a.calm[e as usize] = 0;
                }
            }
        }
        self.phases.oracle += start.elapsed().as_secs_f64();
        let start = Instant::now();
        let steps = a.settings.rigidify_steps as u32;
        let flags: Vec<bool> = (0..count).map(|e| !a.anchored[e] && !elastify[e] && (self.pattern.element_body[e].is_some() || a.calm[e] >= steps)).collect();
        if flags != a.flags {
            a.flags = flags;
            self.rebuild(s);
        }
        self.phases.bodies += start.elapsed().as_secs_f64();
        Ok(())
    }

    /// The rigid bodies of the current flags (Algorithm 2) from the state, and the reduced system's pattern.
    /// When the bodies hold the same vertices as before (only elements wholly inside a body changed their flag:
    /// they move with it either way), the bodies, the DOFs and the factorisation's pattern stand, and only the list
    /// of elements assembled changes.
    fn rebuild(&mut self, s: &mut State) {
        let Some(a) = &self.adaptive else { return };
        let pattern = RigidPattern::find(&element_nodes(&self.elements, &self.shells), &a.adjacency, &a.flags, s.x.len());
        if pattern.bodies > 0 && pattern.vertex_body == self.pattern.vertex_body {
            self.system.elastic = System::elastic_tets(&self.elements, &pattern);
            self.pattern = pattern;
            return;
        }
        self.pattern = pattern;
        self.bodies = Bodies::build(&self.pattern, &s.x, &s.v, &self.mass, &self.elements.mass_damping);
        self.bodies.place_members(&mut s.x, &mut s.v);
        let pinned = &self.pinned;
        let dofs = Dofs::new(&self.pattern.vertex_body, |i| pinned[i], self.pattern.bodies);
        self.system = System::new(&self.elements, &self.shells, dofs, &self.pattern, &self.settings);
    }

    /// One implicit step ending at `t_end`.
    fn step(&mut self, model: &Model, s: &mut State, h: f64, t_end: f64) -> Result<()> {
        let start = Instant::now();
        let x_pred: Vec<Vec3> = (0..s.x.len()).map(|i| s.x[i] + (s.v[i] + if self.pinned[i] { Vec3::zeros() } else { model.gravity * h }) * h).collect();
        self.contacts.detect(model, &s.x, &x_pred, t_end, h);
        self.phases.contact += start.elapsed().as_secs_f64();
        self.rigidify(model, s, h)?;

        let mut va = if self.settings.newton_iterations > 1 && self.pattern.bodies == 0 {
            self.newton(model, s, h, t_end)?
        } else {
            self.linearised(model, s, h, t_end)?
        };

        if !self.contacts.list.is_empty() {
            let start = Instant::now();
            self.system.factor_for_columns().map_err(|why| unfactorisable(t_end, why))?;
            self.phases.factorisation += start.elapsed().as_secs_f64();
        }
        let start = Instant::now();
        self.contacts.solve(&self.system, &s.x, &self.bodies, &mut va, &self.settings, h);
        self.phases.contact += start.elapsed().as_secs_f64();

        let before = self.adaptive.is_some().then(|| (s.v.clone(), self.bodies.motions()));
        self.update(s, &va, h, t_end);
        self.limit_strain(model, s, h);
        if let (Some(a), Some((v, motions))) = (&mut self.adaptive, before) {
            a.velocity_change = self.bodies.velocity_change(&motions, &v, &s.x, &s.v);
        }
        self.record_strain(s, h);
        self.shells.record_angles(&s.x);
        Ok(())
    }

    /// The semi-implicit step (Eq. 3.5, 3.11): one solve linearised at the step's start; returns ẋ_A before contact.
    fn linearised(&mut self, model: &Model, s: &State, h: f64, t_end: f64) -> Result<Vec<f64>> {
        let start = Instant::now();
        let states = self.elements.states(&self.system.elastic, &s.x);
        let shell_states = self.shells.states(&self.system.shell_active, &s.x, true);
        let inputs = Inputs { x: &s.x, v: &s.v, mass: &model.mass, gravity: model.gravity, springs: &self.springs, t_end, h, start_velocity: None };
        let rhs = self.system.assemble(&self.elements, &states, &self.shells, &shell_states, &self.bodies, &inputs);
        self.phases.assembly += start.elapsed().as_secs_f64();
        self.factor(t_end)?;
        let mut va = self.system.reduced(&s.v, &self.bodies);
        let dv = self.solve(&rhs, t_end)?;
        va.iter_mut().zip(&dv).for_each(|(a, d)| *a += d);
        Ok(va)
    }

    /// Factorises the assembled system (for `pcg`: scales it and builds the preconditioner); a failure names the
    /// step.
    fn factor(&mut self, t_end: f64) -> Result<()> {
        let start = Instant::now();
        self.system.factor(&mut self.pcg).map_err(|why| unfactorisable(t_end, why))?;
        self.phases.factorisation += start.elapsed().as_secs_f64();
        Ok(())
    }

    /// Δẋ_A = A_A⁻¹ `rhs` for the factorised system (a PCG fallback's factorisation counts as solve time).
    fn solve(&mut self, rhs: &[f64], t_end: f64) -> Result<Vec<f64>> {
        let start = Instant::now();
        let dv = self.system.solve(rhs, &mut self.pcg).map_err(|why| unfactorisable(t_end, why))?;
        self.phases.solve += start.elapsed().as_secs_f64();
        Ok(dv)
    }

    /// Velocities from ẋ_A, then positions: x += h ẋ for elastic vertices, the prescribed path for pins,
    /// p += h v and R ← exp(hω)R for bodies.
    fn update(&mut self, s: &mut State, va: &[f64], h: f64, t_end: f64) {
        let dofs = &self.system.dofs;
        for (i, d) in dofs.vertex.iter().enumerate() {
            match *d {
                VertexDof::Elastic(k) => {
                    let st = dofs.node_start[k as usize];
                    s.v[i] = Vec3::new(va[st], va[st + 1], va[st + 2]);
                    s.x[i] += s.v[i] * h;
                }
                VertexDof::Fixed => s.v[i] = Vec3::zeros(),
                VertexDof::Rigid(_) => {}
            }
        }
        for &(v, origin, velocity) in &self.paths {
            s.v[v as usize] = velocity;
            s.x[v as usize] = origin + velocity * t_end;
        }
        for (b, body) in self.bodies.bodies.iter_mut().enumerate() {
            let st = dofs.node_start[dofs.body_node(b) as usize];
            body.velocity = Vec3::new(va[st], va[st + 1], va[st + 2]);
            body.omega = Vec3::new(va[st + 3], va[st + 4], va[st + 5]);
        }
        self.bodies.advance(h);
        self.bodies.place_members(&mut s.x, &mut s.v);
    }

    /// Shell strain limiting after the update: the projection's displacement over h is added to the velocities.
    /// Rigid bodies' members and pins stay in place.
    fn limit_strain(&self, model: &Model, s: &mut State, h: f64) {
        let w: Vec<f64> = (0..s.x.len()).map(|i| if self.pinned[i] || self.pattern.vertex_body[i].is_some() { 0.0 } else { 1.0 / model.mass[i] }).collect();
        let before = s.x.clone();
        if self.shells.limit_strain(&w, &mut s.x, STRAIN_LIMIT_PASSES) {
            for ((v, x), x0) in s.v.iter_mut().zip(&s.x).zip(&before) {
                *v += (x - x0) / h;
            }
        }
    }

    /// Eq. 3.17 (and 4.9–4.11 for shell triangles) for the elastic elements: Ė = (E_k − E_{k−1})/h, and for a
    /// triangle the largest κ̇ of its hinges; their calm-step counts. Runs before the angles are recorded.
    fn record_strain(&mut self, s: &State, h: f64) {
        let Some(a) = &mut self.adaptive else { return };
        let tau = a.settings.rigidify_threshold;
        let tets = self.elements.len();
        for e in (0..a.flags.len()).filter(|&e| self.pattern.element_body[e].is_none()) {
            let strain = element_strain(&self.elements, &self.shells, e, &s.x);
            let rate = ((strain - a.strain[e]) / h).norm_squared();
            let bending = if e < tets { 0.0 } else { self.shells.curvature_rate(e - tets, None, &s.x, h) };
            a.calm[e] = if rate < tau && bending < a.bending_threshold[e].0 { a.calm[e] + 1 } else { 0 };
            a.strain[e] = strain;
        }
    }
}

/// The error of a step whose system could not be factorised.
fn unfactorisable(t_end: f64, why: String) -> Error {
    Error::invalid(format!("implicit step ending at t = {t_end:.6} s: the system could not be factorised: {why}"))
}

/// The rigidifiable elements' vertices: the tets, then the shell triangles.
fn element_nodes<'a>(elements: &'a Elements, shells: &'a Shells) -> Vec<&'a [u32]> {
    elements.tets.iter().map(|t| &t[..]).chain(shells.triangles.iter().map(|t| &t[..])).collect()
}

/// Green strain of rigidifiable element `e` at `x`: a tet's, or a shell triangle's with its 3×3 F (Eq. 4.1–4.2).
fn element_strain(elements: &Elements, shells: &Shells, e: usize, x: &[Vec3]) -> Matrix3<f64> {
    match e.checked_sub(elements.len()) {
        None => elements.strain(e, &gather(x, &elements.tets[e])),
        Some(t) => membrane_strain(&shells.triangle_rest[t], &gather(x, &shells.triangles[t])),
    }
}

impl Backend for ImplicitBackend {
    /// The normal impulses of the last step's contacts over its length.
    fn contact_forces(&self, model: &Model, _state: &State) -> Result<xpbd_core::contact::ContactForces> {
        let rows = self.contacts.list.iter().zip(self.contacts.lambda.chunks(3)).map(|(c, l)| (c.vertices, c.weights, c.normal, l[0]));
        Ok(xpbd_core::contact::ContactForces::of_rows(rows, model.vertex_count(), 1.0 / self.config.h()))
    }

    fn element_bodies(&self) -> Option<Vec<i32>> {
        self.adaptive.is_some().then(|| self.pattern.element_body.iter().map(|b| b.map_or(-1, |b| b as i32)).collect())
    }

    fn supports(model: &Model, config: &SolverConfig) -> std::result::Result<(), Unsupported> {
        config.requirements(model)
    }

    /// Adaptive runs: each element's last Green strain (9 values), its calm-step count and its rigid flag, then
    /// each vertex's last velocity change (3 values, the oracle's start); the bodies are rebuilt from the flags
    /// and the checkpoint's state on restore. Then each shell hinge's unwrapped angle (its branch beyond ±π is
    /// not in the positions). Contact warm starts are not kept.
    fn carried(&self) -> Vec<f64> {
        let mut out = Vec::new();
        if let Some(a) = &self.adaptive {
            out.extend(a.strain.iter().flat_map(|e| e.iter().copied()));
            out.extend(a.calm.iter().map(|&c| c as f64));
            out.extend(a.flags.iter().map(|&f| f as u8 as f64));
            out.extend(a.velocity_change.iter().flat_map(|d| d.iter().copied()));
        }
        out.extend_from_slice(&self.shells.angle);
        out
    }

    fn restore_carried(&mut self, state: &State, carried: &[f64]) -> Result<()> {
        let hinges = self.shells.angle.len();
        let Some(split) = carried.len().checked_sub(hinges) else {
            return Err(Error::invalid(format!("the checkpoint carries {} solver values; this run's {hinges} shell hinges need as many", carried.len())));
        };
        let (carried, angles) = carried.split_at(split);
        self.shells.angle.copy_from_slice(angles);
        let Some(a) = &mut self.adaptive else { return xpbd_core::backend::nothing_carried(carried) };
        let (n, vertices) = (a.strain.len(), a.velocity_change.len());
        if carried.len() != 11 * n + 3 * vertices {
            return Err(Error::invalid(format!(
                "the checkpoint carries {} solver values; an adaptive run of {n} elements and {vertices} vertices needs {}",
                carried.len(),
                11 * n + 3 * vertices
            )));
        }
        for (e, chunk) in carried[..9 * n].chunks(9).enumerate() {
            a.strain[e] = Matrix3::from_column_slice(chunk);
        }
        a.calm = carried[9 * n..10 * n].iter().map(|&c| c as u32).collect();
        a.flags = carried[10 * n..11 * n].iter().map(|&f| f != 0.0).collect();
        a.velocity_change = carried[11 * n..].chunks(3).map(Vec3::from_column_slice).collect();
        // The members' velocities in the state are their bodies' rigid field, so rebuilding keeps them.
        self.rebuild(&mut state.clone());
        Ok(())
    }

    fn describe(&self) -> String {
        let what = if self.adaptive.is_some() { "adaptive rigidification" } else { "implicit FEM" };
        let solve = match self.settings.linear_solver {
            LinearSolve::Ldlt => "sparse Cholesky".to_string(),
            LinearSolve::Pcg => format!("PCG ({}) to {:e} (Cholesky fallback)", self.settings.pcg_preconditioner.name(), self.settings.pcg_tol),
        };
        format!("cpu: {what}, {solve}, {} rayon threads", rayon::current_num_threads())
    }

    fn step_frame(&mut self, model: &Model, s: &mut State) -> Result<FrameStats> {
        let (start, phases) = (Instant::now(), self.phases);
        let (h, t0) = (self.config.h(), s.time);
        for k in 1..=self.config.substeps {
            let t_end = self.config.substep_end(t0, k);
            self.step(model, s, h, t_end)?;
            s.time = t_end;
        }
        s.frame += 1;
        let (bodies, elements) = self.rigid_counts();
        Ok(FrameStats {
            solve_seconds: start.elapsed().as_secs_f64(),
            contacts: self.contacts.active(),
            rigid: self.adaptive.is_some().then_some(xpbd_core::backend::RigidStats { bodies, elements }),
            phases: Some(self.phases.since(&phases)),
            ..FrameStats::default()
        })
    }
}
