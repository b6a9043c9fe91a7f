//! A shell pulled over a box collider's edge with friction under the implicit solver (thesis "Adaptive methods
//! for elastic deformation", §3.3.3, Eq. 3.13–3.15): what holds it is the box's side face, not friction.
//! See docs/shells-scenes.md, solver behaviour.

mod common;

use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::scene::Built;
use xpbd_core::state::State;
use xpbd_cpu::implicit::ImplicitBackend;

/// The box's edge under the sheet: top face z = 0, side face x = 0.1 (outward normal −x).
const EDGE_X: f64 = 0.1;
/// The grid's spacing.
const CELL: f64 = 0.05;

/// A 0.4 × 0.4 m grid2d shell (8 × 8 cells, 0.048 kg) 1 mm above a box collider whose top edge is at
/// x = 0.1 m, so 0.1 m of it hangs over; its edge x = 0.4 m is pinned and pulled along +x at 0.8 m/s.
/// dt = 0.01 s, 2 substeps.
fn draped(mu: f64) -> (Model, State, ImplicitBackend) {
    let text = format!(
        "name = \"drape\"\n[simulation]\ndt = 0.01\nframes = 1\nsubsteps = 2\ngravity = [0.0, 0.0, -9.81]\n[solver]\nkind = \"implicit\"\n\
         [[body]]\nname = \"sheet\"\nmesh = {{ generator = \"grid2d\", size = [0.4, 0.4], cells = [8, 8] }}\ntranslate = [0.0, 0.0, 0.001]\n\
         material = {{ model = \"shell\", youngs = 1.0e6, poisson = 0.3, density = 300.0, thickness = 1.0e-3 }}\nrayleigh = [0.5, 0.0]\n\
         pin = [{{ box = {{ min = [0.39, -1.0, -1.0], max = [0.41, 1.0, 1.0] }}, velocity = [0.8, 0.0, 0.0] }}]\n\
         [[collider]]\nkind = \"box\"\nmin = [{EDGE_X}, -0.5, -0.5]\nmax = [1.5, 0.9, 0.0]\nfriction = {mu}\n"
    );
    let scene = xpbd_core::scene::parse(&text, Path::new("drape.toml")).unwrap();
    let Built { model, config, .. } = common::built(&scene);
    let state = State::initial(&model);
    let backend = ImplicitBackend::new(&model, &config);
    (model, state, backend)
}

/// The vertices that start in the middle of the overhang (x = 0.05 m), each with its neighbour one cell
/// towards the pins (the one that starts on the edge, x = 0.1 m).
fn overhang_column(model: &Model) -> Vec<(usize, usize)> {
    let x0 = &model.initial_position;
    let at = |x: f64, y: f64| x0.iter().position(|p| (p.x - x).abs() < 1e-9 && (p.y - y).abs() < 1e-9).unwrap();
    x0.iter().filter(|p| (p.x - (EDGE_X - CELL)).abs() < 1e-9).map(|p| (at(EDGE_X - CELL, p.y), at(EDGE_X, p.y))).collect()
}

/// With μ = 0.2 the overhang droops under gravity, and as the pins drag the sheet along +x the row of
/// vertices from the middle of the overhang (x = 0.05 m) reaches the box below its edge (z = −14.8 mm at
/// t = 0.06 s) and meets the side face. The next row is already on the top, so the straight triangles
/// between pass under the edge: the box's edge lies inside them, which the per-vertex collider contacts do
/// not see. The pull reaches a caught vertex along that row of triangles, within tan θ < μ of the side face's
/// normal, so Coulomb friction on the side face holds it (a self-locking wedge) and the side face carries the
/// whole pull as normal force, which grows with the stretch. With μ = 0 the same vertices slide up the side
/// face and over the edge.
#[test]
fn a_sheet_pulled_over_a_box_edge_is_caught_by_the_side_face_not_held_by_friction() {
    let h = 0.005;
    let mu = 0.2;
    let (model, mut state, mut backend) = draped(mu);
    let column = overhang_column(&model);
    assert_eq!(column.len(), 9);
    for _ in 0..20 {
        backend.step_frame(&model, &mut state).unwrap();
    }
    let impulses = backend.normal_impulses();
    let side = model.colliders.iter().position(|_| true).unwrap();
    let mut force = 0.0;
    for &(v, next) in &column {
        let (p, q) = (state.x[v], state.x[next]);
        let (gap, normal) = model.colliders[side].signed_distance(&p, state.time);
        let tan_theta = (q.z - p.z) / (q.x - p.x);
        let f = impulses.iter().filter(|(u, _)| *u as usize == v).map(|(_, l)| l / h).sum::<f64>();
        println!("vertex {v}: x = ({:.4}, {:.4}, {:.4}), gap {gap:.1e}, normal {normal:?}, tan θ {tan_theta:.3}, normal force {f:.2} N", p.x, p.y, p.z);
        assert!((p.x - EDGE_X).abs() < 1e-4 && p.z < -5e-3, "vertex {v} is not on the side face: {p:?}");
        assert!((normal - Vec3::new(-1.0, 0.0, 0.0)).norm() < 1e-9, "vertex {v}: normal {normal:?}");
        assert!(q.z > -1e-5 && q.x > EDGE_X + 0.5 * CELL, "its neighbour is on the top face, the edge inside their triangles: {q:?}");
        assert!(tan_theta < mu, "vertex {v}: tan θ = {tan_theta} is not self-locking");
        force += f;
    }
    let weight = model.mass.iter().sum::<f64>() * 9.81;
    let coulomb = mu * weight * (mu * std::f64::consts::FRAC_PI_2).exp();
    println!("side-face normal force {force:.1} N against μ m g e^(μπ/2) = {coulomb:.3} N");
    assert!(force > 100.0 * coulomb, "the side face carries {force} N");

    let (model, mut state, mut backend) = draped(0.0);
    for _ in 0..20 {
        backend.step_frame(&model, &mut state).unwrap();
    }
    for &(v, _) in &column {
        let p = state.x[v];
        println!("μ = 0: vertex {v} at ({:.4}, {:.4}, {:.4})", p.x, p.y, p.z);
        assert!(p.x > EDGE_X && p.z > -1e-3, "without friction vertex {v} is still caught: {p:?}");
    }
}
