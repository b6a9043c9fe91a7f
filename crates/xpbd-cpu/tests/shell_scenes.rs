//! The shipped shell scenes (`scenes/shell_*.toml`, docs/shells-scenes.md) under the implicit solver, checked
//! against physics rather than only run: a shell sphere spinning on a frictionless floor keeps its spin and stays
//! put; a pile of shell spheres comes to rest above the ground; a sleeve on a moving arm travels with it.

mod common;

use common::implicit_run::ImplicitRun as Run;
use std::path::Path;
use xpbd_core::mesh::Vec3;

/// What the scene tests measure of a run.
trait Measures {
    fn centre(&self, body: usize) -> (f64, Vec3);
    fn spin_z(&self, body: usize) -> f64;
    fn kinetic_energy(&self) -> f64;
}

impl Measures for Run {
    /// Mass and mass-weighted centre of the vertices of body `body`.
    fn centre(&self, body: usize) -> (f64, Vec3) {
        let range = self.model.bodies[body].vertices.clone();
        let mass: f64 = self.model.mass[range.clone()].iter().sum();
        (mass, range.map(|v| self.state.x[v] * self.model.mass[v]).sum::<Vec3>() / mass)
    }

    /// Angular momentum of body `body` about the vertical axis through its centre of mass.
    fn spin_z(&self, body: usize) -> f64 {
        let (_, c) = self.centre(body);
        self.model.bodies[body].vertices.clone().map(|v| self.model.mass[v] * (self.state.x[v] - c).cross(&self.state.v[v]).z).sum()
    }

    /// Kinetic energy ½ Σ m v² of all vertices.
    fn kinetic_energy(&self) -> f64 {
        self.model.mass.iter().zip(&self.state.v).map(|(m, v)| 0.5 * m * v.norm_squared()).sum()
    }
}

/// `shell_sphere_roll`: a closed shell sphere spun at 10 rad/s about z on a frictionless floor, resting on one
/// vertex on the spin axis. Nothing exerts a torque about z or a horizontal force, so the spin may only decay
/// by the solver's numerical dissipation. The implicit solver makes one linearised backward-Euler solve per step
/// (no Newton iterations), which damps a rigid rotation of a stiff body far more than exact backward Euler
/// would ((ωh)²/2 = 5e-5 per step of h = 1 ms, 1 % over the second): measured, the same sphere spinning in
/// free space keeps 87 % of its spin over 1 s at h = 1 ms (25 % at h = 5 ms), and 79 % on the floor. The
/// bound, 75 %, is that measurement less a margin: a contact that passed tangential impulses to the
/// frictionless floor, or a larger numerical loss, fails it. The centre may drift horizontally by no more
/// than 1 % of the radius (measured: 1e-15 m).
#[test]
fn a_spinning_shell_sphere_on_a_frictionless_floor_keeps_its_spin_and_stays_put() {
    let mut run = Run::load("shell_sphere_roll");
    let (spin0, c0) = (run.spin_z(0), run.centre(0).1);
    run.frames(100);
    let (spin1, c1) = (run.spin_z(0), run.centre(0).1);
    let drift = ((c1.x - c0.x).powi(2) + (c1.y - c0.y).powi(2)).sqrt();
    println!("spin about z: {spin0:.6e} → {spin1:.6e} kg m²/s ({:.2} % kept); centre drift {drift:.3e} m", 100.0 * spin1 / spin0);
    assert!(spin0 > 0.0);
    assert!(spin1 / spin0 > 0.75 && spin1 / spin0 <= 1.0 + 1e-9, "spin kept {:.4}", spin1 / spin0);
    assert!(drift < 0.01 * 0.2, "the centre drifted {drift} m horizontally");
    let lowest = run.state.x.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
    assert!(lowest > -2e-3, "a vertex {lowest} m below the floor");
}

/// `shell_spheres_pile`: four shell spheres dropped on each other come to rest: after 1.5 s every vertex is above
/// the ground (within 2 mm, the contact solve's tolerance) and the kinetic energy is below 1e-3 of the potential
/// energy the drop released.
#[test]
fn piled_shell_spheres_come_to_rest_above_the_ground() {
    let mut run = Run::load("shell_spheres_pile");
    let g = run.model.gravity.norm();
    let potential = |run: &Run| run.model.mass.iter().zip(&run.state.x).map(|(m, x)| m * g * x.z).sum::<f64>();
    let before = potential(&run);
    run.frames(150);
    let released = before - potential(&run);
    let (kinetic, lowest) = (run.kinetic_energy(), run.state.x.iter().map(|p| p.z).fold(f64::INFINITY, f64::min));
    let tops: Vec<f64> = (0..4).map(|b| run.centre(b).1.z).collect();
    println!("released {released:.4e} J, kinetic {kinetic:.3e} J at rest, lowest vertex {lowest:.3e} m, centres at z = {tops:.3?}");
    assert!(lowest > -2e-3, "a vertex {lowest} m below the ground");
    assert!(kinetic < 1e-3 * released, "kinetic energy {kinetic} J of {released} J released");
    // Piled in contact: the highest ball rests on another, not on the ground.
    assert!(tops.iter().cloned().fold(f64::MIN, f64::max) > 0.25, "no ball rests on another: {tops:?}");
}

/// `shell_sleeve`: the sleeve settles on the arm (a capsule with friction 0.8) for 0.5 s; then the arm lifts by
/// 0.15 m and slides 0.3 m along its own axis. The sleeve follows: from its settled position its centre rises
/// with the arm (within 2 cm) and travels at least 80 % of the arm's 0.3 m (friction drags it; some slip on the
/// 0.7 s slide is allowed) and no further, without drifting sideways, still around the arm and not inside it.
#[test]
fn a_sleeve_travels_with_the_moving_arm() {
    let mut run = Run::load("shell_sleeve");
    run.frames(50);
    let settled = run.centre(0).1;
    run.frames(100);
    let moved = run.centre(0).1 - settled;
    println!("sleeve centre moved by {moved:.4?} m from its settled position (arm: [0.3, 0, 0.15])");
    assert!(moved.x > 0.8 * 0.3 && moved.x < 0.3 + 0.02, "the sleeve slid {} m along the arm's 0.3 m", moved.x);
    assert!((moved.z - 0.15).abs() < 0.02, "the sleeve rose {} m with the arm's 0.15 m", moved.z);
    assert!(moved.y.abs() < 0.02, "the sleeve moved sideways by {} m", moved.y);
    // The arm's axis ends at z = 0.16 from x = −0.1 to 0.7; no sleeve vertex is inside its 5 cm radius, and the
    // sleeve still goes around it (vertices above and below the axis over its length).
    let axis_distance = |p: &Vec3| (p.y.powi(2) + (p.z - 0.16).powi(2)).sqrt();
    let sleeve = &run.state.x[run.model.bodies[0].vertices.clone()];
    let closest = sleeve.iter().map(axis_distance).fold(f64::INFINITY, f64::min);
    let (above, below) = (sleeve.iter().filter(|p| p.z > 0.16).count(), sleeve.iter().filter(|p| p.z < 0.16).count());
    println!("closest sleeve vertex {closest:.4} m from the arm's axis (radius 0.05 m); {above} vertices above it, {below} below");
    assert!(sleeve.iter().all(|p| p.x > -0.1 && p.x < 0.7), "the sleeve slid off the arm's ends");
    assert!(closest > 0.05 - 2e-3, "a sleeve vertex {closest} m from the axis is inside the arm");
    assert!(above > 0 && below > 0, "the sleeve no longer goes around the arm");
}

/// `shell_hat_drop`: the crown dropped from 0.2 m has settled on the ground by 0.6 s (kinetic energy below 1 %
/// of the 0.2 m drop's potential energy, no vertex below the ground); the capsule sweeping through from 0.6 s
/// then pushes it at least 0.2 m along +x, and it stays above the ground.
#[test]
fn a_dropped_hat_settles_and_is_flicked_away() {
    let mut run = Run::load("shell_hat_drop");
    let (mass, start) = run.centre(0);
    let lowest = |run: &Run| run.state.x.iter().map(|p| p.z).fold(f64::INFINITY, f64::min);
    run.frames(60);
    let (settled, kinetic, low) = (run.centre(0).1, run.kinetic_energy(), lowest(&run));
    let drop_energy = mass * run.model.gravity.norm() * 0.2;
    run.frames(90);
    let flicked = run.centre(0).1 - settled;
    println!("settled at {settled:.4?} (from {start:.4?}), kinetic {kinetic:.3e} J of {drop_energy:.3e} J, lowest {low:.2e} m; flicked by {flicked:.4?} m");
    assert!(kinetic < 0.01 * drop_energy, "still moving at 0.6 s: {kinetic} J");
    assert!(low > -2e-3 && lowest(&run) > -2e-3, "a vertex below the ground: {low} m, then {} m", lowest(&run));
    assert!(flicked.x > 0.2, "the capsule pushed the hat only {} m", flicked.x);
}

/// The shell generators' mistakes are one-line errors naming the body's mesh field.
#[test]
fn shell_generator_errors_name_the_field() {
    let error = |mesh: &str| {
        let text = format!(
            "name = \"e\"\n[simulation]\ndt = 0.01\nframes = 1\n[solver]\nkind = \"implicit\"\n[[body]]\nname = \"b\"\nmesh = {mesh}\nmaterial = {{ model = \"shell\", youngs = 1.0e6, poisson = 0.3, density = 100.0, thickness = 1.0e-3 }}\n"
        );
        let scene = xpbd_core::scene::parse(&text, Path::new("e.toml")).unwrap();
        let message = match xpbd_core::scene::build(&scene, Path::new(".")) {
            Ok(_) => panic!("{mesh} is accepted"),
            Err(e) => e.to_string(),
        };
        println!("{mesh}: {message}");
        assert!(!message.contains('\n'), "one line: {message}");
        message
    };
    assert!(error("{ generator = \"sphere_shell\", cells = [2] }").contains("radius"));
    assert!(error("{ generator = \"sphere_shell\", radius = 1.0, cells = [2], size = [1.0] }").contains("size"));
    assert!(error("{ generator = \"sphere_shell\", radius = -1.0, cells = [2] }").contains("radius"));
    assert!(error("{ generator = \"sphere_shell\", radius = 1.0, cells = [2, 2] }").contains("cells"));
    assert!(error("{ generator = \"cylinder_shell\", radius = 1.0, cells = [8, 2] }").contains("size"));
    assert!(error("{ generator = \"cylinder_shell\", radius = 1.0, size = [1.0], cells = [2, 2] }").contains("cells[0]"));
    assert!(error("{ generator = \"cylinder_shell\", radius = 1.0, size = [0.0], cells = [8, 2] }").contains("size[0]"));
    assert!(error("{ generator = \"cylinder_shell\", radius = 1.0, size = [1.0], cells = [8, 2], split = 5 }").contains("split"));
    assert!(error("{ generator = \"cone_shell\", radius = 1.0 }").contains("cylinder_shell"));
}
