//! Contact on the CPU (docs/contact.md): Coulomb friction on an incline against the analytic answer.

mod common;

use common::incline::{assert_coulomb, block_on_incline, on_incline, slide, small_block, G, SLOPE_DEGREES};
use common::intersections::crossings;
use common::{sim_header, Sim};
use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::schema::{Collider, Material, Solver};
use xpbd_core::scene::{BodyBuilder, Scene, SceneBuilder};

#[test]
fn a_block_on_a_20_degree_plane_sticks_at_mu_half_and_slides_as_coulomb_at_mu_0_2() {
    assert_coulomb("plane", &[0.5, 0.2, 0.0], |mu| slide(&block_on_incline(mu).build(), 1.0, |_| ()).centre);
}

/// The same under MGPBD (with an ARAP block: MGPBD has no StVK rows): its contact rows act after each outer iteration, and the pushes stay in the target x̃
/// of the next, so λ_n (the friction cone's radius) is the push once, not once per outer iteration.
#[test]
fn mgpbd_friction_on_the_incline_is_coulomb() {
    let block = || small_block().material(Material::tet("arap", 1e7, 0.3, 1000.0));
    let mgpbd = |mu| on_incline(block(), mu).solver(Solver::mgpbd()).build();
    assert_coulomb("mgpbd plane", &[0.5, 0.2, 0.0], |mu| slide(&mgpbd(mu), 1.0, |_| ()).centre);
}

/// A soft 0.2 m ARAP box (E = 1e6 Pa, 3 cells a side) with its lowest corner at `at`.
fn soft_box(name: &str, at: [f64; 3]) -> BodyBuilder {
    BodyBuilder::new(name).box_mesh([0.2, 0.2, 0.2], [3, 3, 3]).split(5).translate(at).material(Material::tet("arap", 1e6, 0.3, 1000.0))
}

/// Each body's mean vertex position.
fn centres(sim: &Sim) -> Vec<Vec3> {
    sim.model.bodies.iter().map(|b| sim.state.x[b.vertices.clone()].iter().sum::<Vec3>() / b.vertices.len() as f64).collect()
}

fn ground() -> Collider {
    Collider::plane([0.0; 3], [0.0, 1.0, 0.0]).friction(0.5)
}

/// Runs `frames` frames checking after each that no surface crosses another (the independent check of
/// `common::intersections`); returns the simulation.
fn run_without_crossings(scene: SceneBuilder, frames: usize) -> Sim {
    run_without_crossings_scene(scene.build(), frames)
}

/// [`run_without_crossings`] of a built scene.
fn run_without_crossings_scene(scene: Scene, frames: usize) -> Sim {
    let mut sim = Sim::new(&scene);
    for f in 0..frames {
        sim.frame();
        let (edges, vertices) = crossings(&sim.model, &sim.state.x);
        assert_eq!((edges, vertices), (0, 0), "frame {f}: {edges} edge–triangle crossings, {vertices} vertices inside tets");
    }
    sim
}

#[test]
fn the_crossing_check_sees_overlapping_boxes() {
    let apart = Sim::new(&sim_header(0.01, 1, 1, [0.0; 3], 0.0, "serial").body(soft_box("a", [0.0; 3])).body(soft_box("b", [0.3, 0.0, 0.0])).build());
    assert_eq!(crossings(&apart.model, &apart.state.x), (0, 0));
    let mut scene = sim_header(0.01, 1, 1, [0.0; 3], 0.0, "serial").body(soft_box("a", [0.0; 3])).body(soft_box("b", [0.1, 0.037, 0.043])).build();
    scene.contact.bodies = false;
    let overlap = Sim::new(&scene);
    let (edges, vertices) = crossings(&overlap.model, &overlap.state.x);
    assert!(edges > 0 && vertices > 0, "{edges} {vertices}");
}

/// Two soft boxes, the upper dropped from 2 cm onto the lower on the ground: they never cross, and the
/// upper one comes to rest on the lower one.
#[test]
fn a_soft_box_dropped_on_another_stays_on_top() {
    let scene = sim_header(1.0 / 60.0, 10, 5, [0.0, -G, 0.0], 2.0, "serial")
        .body(soft_box("lower", [0.0; 3]))
        .body(soft_box("upper", [0.01, 0.22, -0.01]))
        .collider(ground());
    let sim = run_without_crossings(scene, 60);
    let upper = sim.model.bodies[1].vertices.clone();
    let lowest = sim.state.x[upper].iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    assert!(lowest > 0.19 && lowest < 0.21, "the upper box rests on the lower one: its lowest point is at {lowest} m");
}

#[test]
fn a_block_on_a_pinned_tilted_slab_sticks_at_mu_half_and_slides_as_coulomb_at_mu_0_2() {
    let (s, c) = SLOPE_DEGREES.to_radians().sin_cos();
    let on_slab = |mu: f64| {
        // A 2 m slab 0.1 m thick, tilted like the plane, its top face through the origin, every vertex pinned.
        let slab = BodyBuilder::new("slab")
            .box_mesh([2.0, 0.1, 0.4], [10, 1, 2])
            .split(5)
            .rotate([0.0, 0.0, SLOPE_DEGREES])
            .translate([0.1 * s - 1.0 * c, -0.1 * c - 1.0 * s, -0.1])
            .material(Material::tet("stvk", 1e6, 0.3, 1000.0))
            .pin_box([-10.0; 3], [10.0; 3]);
        let mut scene = block_on_incline(mu).body(slab).build();
        scene.colliders.clear();
        scene.contact.friction = mu;
        scene.contact.thickness = Some(1e-3);
        scene.bodies[0].translate = [-s * 1e-3, c * 1e-3, 0.0];
        scene
    };
    assert_coulomb("slab", &[0.5, 0.2], |mu| slide(&on_slab(mu), 1.0, |_| ()).centre);
}

/// Three soft boxes stacked straight with 1 cm gaps, settled for 2 s (velocity damping 2/s), then watched for 5 s:
/// no crossings, each box's centre moves less than 1 mm, and the kinetic energy ends below 1e-6 of the
/// potential energy m g y.
#[test]
fn a_stack_of_three_soft_boxes_stays_at_rest() {
    let mut scene = sim_header(1.0 / 60.0, 10, 5, [0.0, -G, 0.0], 2.0, "serial").collider(ground());
    for (k, name) in ["bottom", "middle", "top"].iter().enumerate() {
        scene = scene.body(soft_box(name, [0.0, 0.01 + 0.21 * k as f64, 0.0]));
    }
    let mut sim = run_without_crossings(scene, 120);
    let settled = centres(&sim);
    for f in 0..300 {
        sim.frame();
        if f % 30 == 29 {
            assert_eq!(crossings(&sim.model, &sim.state.x), (0, 0), "frame {}", sim.state.frame);
        }
    }
    let drift = centres(&sim).iter().zip(&settled).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
    let kinetic: f64 = sim.model.mass.iter().zip(&sim.state.v).map(|(m, v)| 0.5 * m * v.norm_squared()).sum();
    let potential: f64 = sim.model.mass.iter().zip(&sim.state.x).map(|(m, x)| m * G * x.y).sum();
    println!("drift {drift:e} m, kinetic / potential {:e}", kinetic / potential);
    assert!(drift < 1e-3, "the stack drifted {drift} m in 5 s");
    assert!(kinetic < 1e-6 * potential, "kinetic energy {kinetic} J against potential {potential} J");
    let tops: Vec<f64> = sim.model.bodies.iter().map(|b| sim.state.x[b.vertices.clone()].iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max)).collect();
    assert!(tops[2] > 0.55, "the top box is still on top: {tops:?}");
}

/// Contact generation and projection keep a fixed order: two runs give the same bits, with the parallel
/// detection on every rayon thread.
#[test]
fn contact_runs_repeat_bit_for_bit() {
    let run = || {
        let scene = sim_header(1.0 / 60.0, 10, 5, [0.0, -G, 0.0], 0.0, "colored")
            .body(soft_box("lower", [0.0; 3]))
            .body(soft_box("upper", [0.05, 0.22, 0.02]))
            .collider(ground());
        let mut sim = Sim::new(&scene.build());
        sim.frames(30);
        sim.state.x
    };
    let (a, b) = (run(), run());
    assert!(a.iter().zip(&b).all(|(p, q)| p.iter().zip(q.iter()).all(|(s, t)| s.to_bits() == t.to_bits())));
}

/// Total signed volume of the body's tets.
fn volume(sim: &Sim, body: usize) -> f64 {
    let x = &sim.state.x;
    sim.model.bodies[body]
        .tets
        .iter()
        .map(|t| xpbd_core::mesh::signed_tet_volume(&x[t[0] as usize], &x[t[1] as usize], &x[t[2] as usize], &x[t[3] as usize]))
        .sum()
}

/// A kinematic sphere on a keyframed path presses a soft ball settled on the ground (1.5 s, velocity damping
/// 2/s) to about 80 % of its height and withdraws: the ball is squashed while pressed and recovers its height and volume (as settled before the press)
/// within 1 % afterwards.
#[test]
fn a_ball_pressed_by_a_moving_sphere_recovers_its_volume() {
    let ball = BodyBuilder::new("ball")
        .mesh(xpbd_core::scene::schema::MeshSource { generator: Some("sphere".into()), radius: Some(0.5), cells: Some(vec![6]), ..Default::default() })
        .translate([0.0, 0.5, 0.0])
        .material(Material::tet("arap", 3e5, 0.3, 1000.0));
    let press =
        Collider::sphere([0.0, 1.5, 0.0], 0.4).path_key(1.5, [0.0; 3]).path_key(1.8, [0.0, -0.3, 0.0]).path_key(2.0, [0.0, -0.3, 0.0]).path_key(2.3, [0.0; 3]);
    let scene = sim_header(1.0 / 60.0, 10, 10, [0.0, -G, 0.0], 2.0, "serial").body(ball).collider(ground()).collider(press);
    let mut sim = Sim::new(&scene.build());
    let top = |sim: &Sim| sim.state.x.iter().map(|p| p.y).fold(f64::NEG_INFINITY, f64::max);
    sim.frames(90);
    let (before, v_before) = (top(&sim), volume(&sim, 0));
    sim.frames(30);
    let (pressed, v_pressed) = (top(&sim), volume(&sim, 0));
    assert!(v_pressed < 0.97 * v_before && pressed < before - 0.02, "the press squashes the ball: top {pressed} m, volume {}", v_pressed / v_before);
    sim.frames(150);
    let (after, v_after) = (top(&sim), volume(&sim, 0));
    println!("top {before} m, pressed {pressed} m, after {after} m; volume pressed {} and after {} of before", v_pressed / v_before, v_after / v_before);
    assert!((after - before).abs() < 0.01, "the ball springs back: top at {after} m, {before} m before");
    assert!((v_after / v_before - 1.0).abs() < 0.01, "volume {} of before", v_after / v_before);
}

/// `scenes/cloth_over_sphere.toml`: a 40 × 40 cloth slides off a frictionless sphere and folds onto itself on
/// the ground. With self contact no surface crosses at any frame; without it, some frames cross (so the check
/// sees what it is for). `benches/contact_crossings/run.sh` checks the same frames with ipctk.
#[test]
fn a_cloth_sliding_off_a_sphere_folds_without_crossing_itself() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/cloth_over_sphere.toml");
    let scene = xpbd_core::scene::load(&path).unwrap();
    let frames = scene.simulation.frames;
    let mut without_self = scene.clone();
    without_self.contact.self_contact = false;
    let mut sim = Sim::new(&without_self);
    let mut crossed = 0;
    for _ in 0..frames {
        sim.frame();
        crossed += (crossings(&sim.model, &sim.state.x).0 > 0) as usize;
    }
    assert!(crossed > 0, "without self contact the folding cloth crosses itself in some frame");
    run_without_crossings_scene(scene, frames);
}

/// A soft torus (ARAP, E = 1e5 Pa) dropped onto a stiffer L-shaped bracket (two blocks, E = 1e7 Pa, the upright
/// one standing on the base) with a soft 0.2 m cube dropped onto it, which slips through the torus's hole: no
/// surface crosses another at any frame, both rest on the base, and no tet of the torus ends inverted; without
/// contact between bodies they fall through each other (the check sees it). (A 0.3 m cube landing on the ring
/// or a 0.2 m cube landing on the ring still crosses it near a convex edge: docs/contact.md, known limits.)
#[test]
fn a_torus_on_an_l_bracket_under_a_cube_does_not_cross() {
    torus_on_bracket_under(soft_box("cube", [0.25, 0.6, 0.2]));
}

/// The same torus and bracket with a 0.3 m cube that lands on the torus's ring, across its hole.
#[test]
fn a_cube_landing_on_the_ring_of_a_torus_does_not_cross_it() {
    let cube = BodyBuilder::new("cube").box_mesh([0.3; 3], [3, 3, 3]).split(5).translate([0.3, 0.6, 0.15]).material(Material::tet("arap", 1e6, 0.3, 300.0));
    let sim = torus_on_bracket_under(cube);
    let lowest = sim.state.x[sim.model.bodies[3].vertices.clone()].iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    println!("the cube's lowest point: {lowest} m");
    assert!(lowest > 0.2, "the cube rests on the ring (its top is 0.24 m high): {lowest}");
}

/// A 0.2 m cube dropped onto one side of the ring, which it hits on its convex curve. (2.4 kg: at 8 kg the
/// torus, E = 1e5 Pa with 8 iterations, folds locally under it after a second, a surface vertex ending inside
/// a tet of its own: an elastic failure between neighbours that contact leaves alone.)
#[test]
fn a_small_cube_dropped_on_one_side_of_the_ring_does_not_cross_it() {
    torus_on_bracket_under(soft_box("cube", [0.15, 0.6, 0.2]).material(Material::tet("arap", 1e6, 0.3, 300.0)));
}

/// A cube dropped corner first onto the middle of a pinned ridge (a long box turned 45° about its axis, one cell
/// long): the corner meets the ridge's edge from outside both of its faces, where no vertex–triangle row and no
/// edge–edge row with both closest points inside the edges holds it.
#[test]
fn a_cube_dropped_corner_first_onto_a_ridge_does_not_cross_it() {
    let ridge = BodyBuilder::new("ridge")
        .box_mesh([0.6, 0.2, 0.2], [1, 1, 1])
        .split(5)
        .rotate([45.0, 0.0, 0.0])
        .translate([0.0, 0.3 - 0.2 * FRAC_1_SQRT_2, -0.2 * FRAC_1_SQRT_2])
        .material(Material::tet("arap", 1e7, 0.3, 1000.0))
        .pin_box([-1.0; 3], [1.0; 3]);
    // Turned so that one corner points straight down, that corner 0.1 m above the ridge's middle.
    let cube = BodyBuilder::new("cube")
        .box_mesh([0.1; 3], [1, 1, 1])
        .split(5)
        .rotate([45.0, 0.0, -35.264389682754654])
        .translate([0.3 - 0.1 * (1.0 / 6.0f64).sqrt(), 0.4 + 0.2 / 3.0f64.sqrt(), -0.05 * SQRT_2])
        .material(Material::tet("arap", 1e6, 0.3, 1000.0));
    let sim = run_without_crossings(sim_header(1.0 / 60.0, 10, 8, [0.0, -G, 0.0], 0.0, "serial").body(ridge).body(cube), 60);
    let lowest = sim.state.x[sim.model.bodies[1].vertices.clone()].iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    println!("the cube's lowest point: {lowest} m (the ridge at 0.3 m)");
    assert!(lowest > 0.3, "the cube's corner rests on the ridge: {lowest}");
}

/// [`a_torus_on_an_l_bracket_under_a_cube_does_not_cross`] with `cube` dropped from above.
fn torus_on_bracket_under(cube: BodyBuilder) -> Sim {
    let stiff = |name: &str, size: [f64; 3], cells: [usize; 3], at: [f64; 3]| {
        BodyBuilder::new(name).box_mesh(size, cells).split(5).translate(at).material(Material::tet("arap", 1e7, 0.3, 1000.0))
    };
    let torus = BodyBuilder::new("torus")
        .mesh(xpbd_core::scene::schema::MeshSource {
            generator: Some("torus".into()),
            major_radius: Some(0.2),
            minor_radius: Some(0.07),
            cells: Some(vec![12]),
            ..Default::default()
        })
        .translate([0.45, 0.25, 0.3])
        .material(Material::tet("arap", 1e5, 0.3, 1000.0));
    let scene = sim_header(1.0 / 60.0, 10, 8, [0.0, -G, 0.0], 1.0, "serial")
        .body(stiff("base", [0.8, 0.1, 0.6], [8, 1, 6], [0.0; 3]))
        .body(stiff("upright", [0.1, 0.5, 0.6], [1, 5, 6], [0.0, 0.101, 0.0]))
        .body(torus)
        .body(cube)
        .collider(ground())
        .build();
    // Without contact between bodies the torus falls into the base and the cube into the torus.
    let mut apart = scene.clone();
    apart.contact.bodies = false;
    let mut control = Sim::new(&apart);
    control.frames(90);
    assert!(crossings(&control.model, &control.state.x).0 > 0);
    let sim = run_without_crossings_scene(scene, 90);
    let lowest = |b: usize| sim.state.x[sim.model.bodies[b].vertices.clone()].iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    assert!(lowest(2) > 0.1 && lowest(3) > 0.1, "the torus and the cube rest on the base: {} {}", lowest(2), lowest(3));
    let x = &sim.state.x;
    let inverted = sim.model.bodies[2]
        .tets
        .iter()
        .filter(|t| xpbd_core::mesh::signed_tet_volume(&x[t[0] as usize], &x[t[1] as usize], &x[t[2] as usize], &x[t[3] as usize]) <= 0.0)
        .count();
    assert_eq!(inverted, 0, "inverted torus tets");
    sim
}
