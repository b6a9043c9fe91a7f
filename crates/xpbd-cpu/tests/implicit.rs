//! The implicit FEM solver and adaptive rigidification (thesis "Adaptive methods for elastic deformation",
//! ch. 3) against closed forms: the static linear FEM deflection of a cantilever, energy decay with damping,
//! momentum of a free body, and resting contact forces that are the same whether the body is elastic or rigid.

mod common;

use nalgebra::{DMatrix, DVector};
use xpbd_core::backend::Backend;
use xpbd_core::constraint::tet_model::{gather, tet_energy};
use xpbd_core::fem::element::element_state;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::scene::schema::{Collider, Material, Solver};
use xpbd_core::scene::{BodyBuilder, Built, SceneBuilder};
use xpbd_core::state::State;
use xpbd_cpu::implicit::{energy_of, ImplicitBackend};

struct Run {
    model: Model,
    state: State,
    backend: ImplicitBackend,
}

impl Run {
    fn new(scene: SceneBuilder) -> Self {
        let Built { model, config, .. } = common::built(&scene.build());
        let state = State::initial(&model);
        let backend = ImplicitBackend::new(&model, &config);
        Run { model, state, backend }
    }

    fn frame(&mut self) {
        self.backend.step_frame(&self.model, &mut self.state).unwrap();
        assert!(self.state.first_non_finite().is_none(), "non-finite state at frame {}", self.state.frame);
    }

    fn momentum(&self) -> Vec3 {
        self.model.mass.iter().zip(&self.state.v).map(|(m, v)| v * *m).sum()
    }

    fn angular_momentum(&self) -> Vec3 {
        let m = &self.model.mass;
        let com = m.iter().zip(&self.state.x).map(|(m, x)| x * *m).sum::<Vec3>() / m.iter().sum::<f64>();
        m.iter().zip(self.state.x.iter().zip(&self.state.v)).map(|(m, (x, v))| (x - com).cross(&(v * *m))).sum()
    }

    fn energy(&self) -> f64 {
        let h = 1.0;
        let elastic: f64 = self
            .model
            .tet_groups
            .iter()
            .map(|g| g.tets.iter().zip(&g.rest).map(|(t, r)| tet_energy(&g.params(h), r, &gather(&self.state.x, t))).sum::<f64>())
            .sum();
        let kinetic: f64 = self.model.mass.iter().zip(&self.state.v).map(|(m, v)| 0.5 * m * v.norm_squared()).sum();
        elastic + kinetic
    }
}

fn header(solver: Solver, dt: f64, substeps: usize, gravity: [f64; 3]) -> SceneBuilder {
    SceneBuilder::new("implicit").dt(dt).frames(1).substeps(substeps).gravity(gravity).solver(solver).formats(&["none"])
}

const LENGTH: f64 = 1.0;

fn cantilever(model: &str, solver: Solver, alpha0: f64) -> SceneBuilder {
    let beam = BodyBuilder::new("beam")
        .box_mesh([LENGTH, 0.2, 0.2], [10, 2, 2])
        .material(Material::tet(model, 1e8, 0.3, 1000.0))
        .rayleigh(alpha0, 0.0)
        .pin_box([-0.01, -1.0, -1.0], [0.01, 1.0, 1.0]);
    header(solver, 0.01, 2, [0.0, -9.81, 0.0]).body(beam)
}

/// The static linear FEM deflection under gravity: K₀ u = f with K₀ the model's stiffness at rest.
fn linear_static(model: &Model) -> Vec<Vec3> {
    let n = model.vertex_count();
    let free: Vec<Option<usize>> = {
        let mut k = 0;
        model.inv_mass.iter().map(|&w| (w > 0.0).then(|| (k, k += 1).0)).collect()
    };
    let dofs = 3 * free.iter().flatten().count();
    let mut k = DMatrix::<f64>::zeros(dofs, dofs);
    for g in &model.tet_groups {
        for (t, rest) in g.tets.iter().zip(&g.rest) {
            let s = element_state(energy_of(g.model), g.lame, rest, &gather(&model.rest, t));
            for a in 0..4 {
                for b in 0..4 {
                    if let (Some(i), Some(j)) = (free[t[a] as usize], free[t[b] as usize]) {
                        for r in 0..3 {
                            for c in 0..3 {
                                k[(3 * i + r, 3 * j + c)] += s.stiffness[(3 * a + r, 3 * b + c)];
                            }
                        }
                    }
                }
            }
        }
    }
    let mut f = DVector::<f64>::zeros(dofs);
    for (v, i) in free.iter().enumerate() {
        if let Some(i) = *i {
            for r in 0..3 {
                f[3 * i + r] = model.mass[v] * model.gravity[r];
            }
        }
    }
    let u = k.cholesky().expect("K₀ with pins is positive definite").solve(&f);
    (0..n).map(|v| free[v].map_or(Vec3::zeros(), |i| Vec3::new(u[3 * i], u[3 * i + 1], u[3 * i + 2]))).collect()
}

/// Mean vertical displacement of the free end's vertices.
fn tip(model: &Model, x: &[Vec3]) -> f64 {
    let end: Vec<usize> = (0..model.vertex_count()).filter(|&v| (model.rest[v].x - LENGTH).abs() < 1e-9).collect();
    end.iter().map(|&v| x[v].y - model.rest[v].y).sum::<f64>() / end.len() as f64
}

/// A damped cantilever settles within 3 % of the static linear FEM deflection, for every energy.
#[test]
fn cantilever_settles_to_the_linear_static_deflection() {
    for model in ["neohookean_block", "stvk", "corotational", "arap"] {
        let mut run = Run::new(cantilever(model, Solver::implicit(), 60.0));
        for _ in 0..100 {
            run.frame();
        }
        let reference = linear_static(&run.model);
        let rest: Vec<Vec3> = run.model.rest.iter().zip(&reference).map(|(x, u)| x + u).collect();
        let (ours, linear) = (tip(&run.model, &run.state.x), tip(&run.model, &rest));
        println!("{model}: tip {ours:.6e} m, linear static {linear:.6e} m, ratio {:.4}", ours / linear);
        assert!(linear < -1e-4, "the load bends the beam ({linear})");
        assert!((ours / linear - 1.0).abs() < 0.03, "{model}: tip {ours} against linear FEM {linear}");
    }
}

/// Released from a stretch without gravity, a damped beam loses energy every frame.
#[test]
fn energy_decays_monotonically_with_damping() {
    let beam = BodyBuilder::new("beam")
        .box_mesh([LENGTH, 0.2, 0.2], [8, 2, 2])
        .material(Material::tet("neohookean_block", 1e6, 0.3, 1000.0))
        .rayleigh(0.5, 0.01)
        .initial_deform(xpbd_core::scene::schema::InitialDeform { scale: [1.1, 1.0, 1.0], twist_axis: Some("x".into()), twist_degrees: 30.0 })
        .pin_box([-0.01, -1.0, -1.0], [0.01, 1.0, 1.0]);
    let mut run = Run::new(header(Solver::implicit(), 0.01, 2, [0.0; 3]).body(beam));
    let mut last = run.energy();
    let first = last;
    for _ in 0..60 {
        run.frame();
        let e = run.energy();
        assert!(e <= last * (1.0 + 1e-12), "frame {}: energy rose from {last} to {e}", run.state.frame);
        last = e;
    }
    assert!(last < 0.5 * first, "damping removed little: {first} → {last}");
}

/// Angular momentum lost by a free, spinning, slightly deformed body over 1 s at `substeps` implicit steps
/// per 10 ms frame; linear momentum is checked to round-off on the way.
fn angular_momentum_loss(substeps: usize) -> f64 {
    let body = BodyBuilder::new("block")
        .box_mesh([0.6, 0.3, 0.2], [6, 3, 2])
        .material(Material::tet("neohookean_block", 1e6, 0.3, 1000.0))
        .velocity([1.0, -0.5, 0.25])
        .angular_velocity([0.0, 0.5, 2.0])
        .initial_deform(xpbd_core::scene::schema::InitialDeform { scale: [1.01, 0.995, 1.0], twist_axis: None, twist_degrees: 0.0 });
    let mut run = Run::new(header(Solver::implicit(), 0.01, substeps, [0.0; 3]).body(body));
    let (p0, l0) = (run.momentum(), run.angular_momentum());
    for _ in 0..100 {
        run.frame();
    }
    let (p, l) = (run.momentum(), run.angular_momentum());
    assert!((p - p0).norm() < 1e-12 * p0.norm(), "{p0} → {p}");
    (l - l0).norm() / l0.norm()
}

/// A free body keeps its linear momentum to round-off and loses under 1 % of its angular momentum in 1 s at
/// h = 1 ms; the loss is backward Euler's own, first order in h (about h ω² per second for a spin ω: the
/// −h²K ẋ term of Eq. 3.5 acting on the rotation), so halving h halves it.
#[test]
fn free_body_keeps_its_momentum() {
    let (coarse, fine) = (angular_momentum_loss(5), angular_momentum_loss(10));
    println!("angular momentum lost in 1 s: {coarse:.3e} at h = 2 ms, {fine:.3e} at h = 1 ms");
    assert!(fine < 0.01, "{fine}");
    assert!((1.6..2.4).contains(&(coarse / fine)), "first order in h: {coarse} / {fine}");
}

/// Under `adaptive`, a free body that spins undeformed becomes one rigid body holding every element, and keeps
/// its linear momentum to round-off through the switch.
#[test]
fn a_spinning_free_body_becomes_one_rigid_body() {
    let body = BodyBuilder::new("block")
        .box_mesh([0.6, 0.3, 0.2], [6, 3, 2])
        .material(Material::tet("neohookean_block", 1e6, 0.3, 1000.0))
        .velocity([1.0, -0.5, 0.25])
        .angular_velocity([0.0, 0.5, 2.0]);
    let mut run = Run::new(header(Solver::adaptive().rigidify_threshold(1e-2), 0.01, 2, [0.0; 3]).body(body));
    let p0 = run.momentum();
    for _ in 0..10 {
        run.frame();
    }
    let elements = run.model.element_count();
    assert_eq!(run.backend.rigid_counts(), (1, elements));
    assert!((run.momentum() - p0).norm() < 1e-10 * p0.norm());
}

/// A block resting on the ground carries λ_n = (k_b/γ)·depth at each contact, elastic or rigid: the two runs'
/// contact impulses agree within 1 %, and they sum to the weight times the step.
#[test]
fn resting_contact_forces_match_rigid_and_elastic() {
    let block = |solver: Solver| {
        let b =
            BodyBuilder::new("block").box_mesh([0.2, 0.2, 0.2], [2, 2, 2]).material(Material::tet("neohookean_block", 1e9, 0.3, 1000.0)).rayleigh(20.0, 0.0);
        header(solver, 0.01, 1, [0.0, -9.81, 0.0]).body(b).collider(Collider::plane([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]))
    };
    let mut elastic = Run::new(block(Solver::implicit()));
    let mut rigid = Run::new(block(Solver::adaptive().rigidify_threshold(1e-3)));
    for _ in 0..150 {
        elastic.frame();
        rigid.frame();
    }
    assert_eq!(rigid.backend.rigid_counts().0, 1, "the resting block rigidified");
    let weight_impulse = elastic.model.mass.iter().sum::<f64>() * 9.81 * 0.01;
    let (a, b) = (elastic.backend.normal_impulses(), rigid.backend.normal_impulses());
    let total = |l: &[(u32, f64)]| l.iter().map(|p| p.1).sum::<f64>();
    println!("elastic {a:?}\nrigid {b:?}\nweight × h {weight_impulse}");
    assert!((total(&a) / weight_impulse - 1.0).abs() < 0.01);
    assert!((total(&b) / weight_impulse - 1.0).abs() < 0.01);
    for run in [&elastic, &rigid] {
        let forces = run.backend.contact_forces(&run.model, &run.state).unwrap();
        let lift: f64 = forces.force.iter().map(|f| f.y).sum();
        assert!((lift * 0.01 / weight_impulse - 1.0).abs() < 0.01, "contact forces {lift} N against the weight");
    }
    assert_eq!(a.len(), b.len());
    for ((va, la), (vb, lb)) in a.iter().zip(&b) {
        assert_eq!(va, vb);
        assert!((la / lb - 1.0).abs() < 0.01, "vertex {va}: elastic {la}, rigid {lb}");
    }
}

/// The most slab elements that are elastic at once after a ball dropped from `height` (m) above a slab that
/// rigidified while resting on the ground (thesis Figure 3.7), with the slab's element count.
fn elastified_by_drop(height: f64) -> (usize, usize) {
    let slab = BodyBuilder::new("slab").box_mesh([1.0, 0.1, 1.0], [8, 1, 8]).material(Material::tet("neohookean_block", 1e7, 0.3, 500.0)).rayleigh(2.0, 0.002);
    let ball = BodyBuilder::new("ball")
        .mesh(xpbd_core::scene::schema::MeshSource { generator: Some("sphere".into()), radius: Some(0.1), cells: Some(vec![5]), ..Default::default() })
        .translate([0.5, 0.1 + 0.1 + height, 0.5])
        .material(Material::tet("neohookean_block", 1e6, 0.3, 1000.0))
        .rayleigh(2.0, 0.002);
    let scene = header(Solver::adaptive().rigidify_threshold(1e-3).elastify_threshold(1e-1), 0.01, 2, [0.0, -9.81, 0.0])
        .body(slab)
        .body(ball)
        .collider(Collider::plane([0.0, 0.0, 0.0], [0.0, 1.0, 0.0]));
    let mut run = Run::new(scene);
    let slab_elements = run.model.tet_groups[0].tets.len();
    let (mut rigid_before_impact, mut most) = (false, 0);
    for _ in 0..80 {
        run.frame();
        let bodies = run.backend.element_bodies();
        let elastic = bodies[..slab_elements].iter().filter(|b| b.is_none()).count();
        let touching = run.backend.normal_impulses().iter().any(|&(v, _)| run.model.bodies[1].vertices.contains(&(v as usize)));
        rigid_before_impact |= elastic == 0 && !touching;
        if rigid_before_impact {
            most = most.max(elastic);
        }
    }
    assert!(rigid_before_impact, "the slab rigidified before the ball arrived (drop {height} m)");
    (most, slab_elements)
}

/// The oracle flags an impact: the higher the drop, the larger the region of the slab made elastic again.
#[test]
fn higher_drops_elastify_larger_regions() {
    let regions: Vec<(usize, usize)> = [0.05, 0.2, 0.6].iter().map(|&h| elastified_by_drop(h)).collect();
    println!("elastified slab elements (of {}): {:?}", regions[0].1, regions.iter().map(|r| r.0).collect::<Vec<_>>());
    assert!(regions[0].0 > 0, "even the lowest drop elastifies part of the slab");
    assert!(regions[0].0 < regions[1].0 && regions[1].0 < regions[2].0, "{regions:?}");
    assert!(regions[2].0 < regions[2].1, "the highest drop leaves part of the slab rigid");
}

/// A checkpoint of an adaptive run (state plus the carried strains, calm counts and rigid flags) resumes where
/// the uninterrupted run goes: same rigid pattern, same positions to round-off.
#[test]
fn adaptive_runs_resume_from_a_checkpoint() {
    let body = BodyBuilder::new("block")
        .box_mesh([0.6, 0.3, 0.2], [6, 3, 2])
        .material(Material::tet("neohookean_block", 1e6, 0.3, 1000.0))
        .velocity([1.0, -0.5, 0.25])
        .angular_velocity([0.0, 0.5, 2.0])
        .pin_indices(&[0]);
    let scene = || header(Solver::adaptive().rigidify_threshold(1e-2), 0.01, 2, [0.0, -9.81, 0.0]).body(body.clone());
    let mut whole = Run::new(scene());
    for _ in 0..6 {
        whole.frame();
    }
    let (state, carried) = (whole.state.clone(), whole.backend.carried());
    assert!(!carried.is_empty());
    for _ in 0..6 {
        whole.frame();
    }
    let mut resumed = Run::new(scene());
    resumed.state = state.clone();
    resumed.backend.restore_carried(&state, &carried).unwrap();
    for _ in 0..6 {
        resumed.frame();
    }
    assert_eq!(resumed.backend.rigid_counts(), whole.backend.rigid_counts());
    assert!(whole.backend.rigid_counts().0 > 0, "part of the swinging block is rigid");
    let gap = resumed.state.x.iter().zip(&whole.state.x).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
    assert!(gap < 1e-9, "resumed run drifts {gap} m from the uninterrupted one");
    assert!(resumed.backend.restore_carried(&state, &carried[1..]).is_err());
}

/// A damped cantilever under `adaptive` settles into one rigid pattern that then holds: the oracle does not
/// elastify a body at rest in equilibrium (no rigid/elastic flip-flop at the clamp).
#[test]
fn a_settled_cantilever_keeps_its_rigid_pattern() {
    let mut run = Run::new(cantilever("neohookean_block", Solver::adaptive(), 20.0));
    let mut history = Vec::new();
    for _ in 0..150 {
        run.frame();
        history.push(run.backend.rigid_counts());
    }
    println!("rigid (bodies, elements) every 10 frames: {:?}", history.iter().step_by(10).collect::<Vec<_>>());
    let last = history[history.len() - 1];
    assert!(last.1 > run.model.element_count() / 2, "most of the beam is rigid: {last:?}");
    assert!(history[100..].iter().all(|&c| c == last), "the pattern keeps changing: {:?}", &history[100..]);
}

/// A soft ball (E = 5e4 Pa, ν = 0.4) dropped on frictional ground settles and becomes almost wholly rigid, and stays
/// so: once resting, at least 85 % of its elements are rigid in every frame. Its Poisson bulge is held by
/// tangential contact impulses of up to a third of the normal ones; the rigid body's contact solve keeps them
/// (warm start, no compliance on the tangent rows), so the oracle sees the forces balanced. With compliant tangent
/// rows a rigid body's tangential impulses relaxed to ≈ 0, the oracle elastified the bottom of the ball at once,
/// and the pattern alternated between 59 % and 92 % rigid.
#[test]
fn a_resting_soft_ball_stays_rigid() {
    let ball = BodyBuilder::new("ball")
        .mesh(xpbd_core::scene::schema::MeshSource { generator: Some("sphere".into()), radius: Some(0.15), cells: Some(vec![6]), ..Default::default() })
        .translate([0.0, 0.2, 0.0])
        .material(Material::tet("neohookean_block", 5e4, 0.4, 1000.0))
        .rayleigh(1.0, 0.01);
    let ground = Collider::plane([0.0; 3], [0.0, 1.0, 0.0]).friction(0.5);
    let mut run = Run::new(header(Solver::adaptive(), 0.01, 1, [0.0, -9.81, 0.0]).body(ball).collider(ground));
    let elements = run.model.element_count();
    let mut rigid = Vec::new();
    for _ in 0..200 {
        run.frame();
        rigid.push(run.backend.rigid_counts().1);
    }
    println!("rigid elements (of {elements}) every 10 frames: {:?}", rigid.iter().step_by(10).collect::<Vec<_>>());
    let least = *rigid[150..].iter().min().unwrap();
    assert!(least * 100 >= 85 * elements, "at rest only {least} of {elements} elements stay rigid: {:?}", &rigid[150..]);
}

/// A system that cannot be factorised (here a negative lumped mass, which no scene can produce: A is positive
/// definite by construction) stops the step with an error naming the time and faer's reason, not a panic.
#[test]
fn an_unfactorisable_system_is_a_one_line_error() {
    let mut run = Run::new(cantilever("neohookean_block", Solver::implicit(), 0.0));
    run.model.mass.iter_mut().for_each(|m| *m = -*m);
    run.backend = ImplicitBackend::new(
        &run.model,
        &xpbd_core::solver_config::SolverConfig {
            dt: 0.01,
            substeps: 2,
            iterations: 1,
            velocity_damping: 0.0,
            method: xpbd_core::solver_config::Method::Implicit(Default::default()),
        },
    );
    let err = run.backend.step_frame(&run.model, &mut run.state).unwrap_err().to_string();
    println!("{err}");
    assert!(err.contains("implicit step ending at t = 0.005000 s: the system could not be factorised: the matrix is not positive definite"), "{err}");
    assert!(!err.contains('\n'));
}

/// ‖M(ẋ₁ − ẋ₀) − h(f(x₁) + M g)‖ / ‖h M g‖ over the free vertices after one step of h from (x₀, ẋ₀): the residual
/// of backward Euler's nonlinear equations (no damping).
fn backward_euler_residual(run: &Run, v0: &[Vec3], h: f64) -> f64 {
    let (model, x1, v1) = (&run.model, &run.state.x, &run.state.v);
    let mut force = vec![Vec3::zeros(); model.vertex_count()];
    for g in &model.tet_groups {
        for (t, rest) in g.tets.iter().zip(&g.rest) {
            let s = element_state(energy_of(g.model), g.lame, rest, &gather(x1, t));
            for (a, &v) in t.iter().enumerate() {
                force[v as usize] += s.force.fixed_rows::<3>(3 * a);
            }
        }
    }
    let (mut residual, mut load) = (0.0, 0.0);
    for v in (0..model.vertex_count()).filter(|&v| model.inv_mass[v] > 0.0) {
        let m = model.mass[v];
        residual += ((v1[v] - v0[v]) * m - (force[v] + model.gravity * m) * h).norm_squared();
        load += (model.gravity * (m * h)).norm_squared();
    }
    (residual / load).sqrt()
}

/// Newton iterations with the line search solve backward Euler's nonlinear equations of a twisted, stretched beam
/// released in one large step (residual below 1e-6 of the gravity load; the elastic forces are four orders larger),
/// where the semi-implicit linearised step leaves a residual many times the load. Convergence is linear, not
/// quadratic, near the end: the stiffness is projected to PSD per element.
#[test]
fn newton_iterations_solve_backward_euler() {
    let mut residuals = Vec::new();
    for iterations in [1, 20] {
        let beam = BodyBuilder::new("beam")
            .box_mesh([LENGTH, 0.2, 0.2], [8, 2, 2])
            .material(Material::tet("stvk", 1e6, 0.3, 1000.0))
            .initial_deform(xpbd_core::scene::schema::InitialDeform { scale: [1.2, 1.0, 1.0], twist_axis: Some("x".into()), twist_degrees: 60.0 })
            .pin_box([-0.01, -1.0, -1.0], [0.01, 1.0, 1.0]);
        let mut run = Run::new(header(Solver::implicit().newton_iterations(iterations), 0.02, 1, [0.0, -9.81, 0.0]).body(beam));
        let v0 = run.state.v.clone();
        run.frame();
        let r = backward_euler_residual(&run, &v0, 0.02);
        println!("{iterations} Newton iteration(s): backward Euler residual / load {r:.3e}");
        residuals.push(r);
    }
    assert!(residuals[1] < 1e-6, "Newton left {residuals:?}");
    assert!(residuals[0] > 1e-2, "the linearised step is not that far off here: {residuals:?}");
}
