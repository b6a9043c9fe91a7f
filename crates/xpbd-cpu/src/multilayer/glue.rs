//! The rigid–elastic glue constraints (the multi-layer paper §3.2, Eq. 13–19): each boundary vertex is
//! held to its place on the body, `C = ‖x_i − (R r_i + x_r)‖`, with α̃ = 0 (hard).
//!
//! Choices (docs/multilayer.md): C is the distance, not its square as printed in Eq. 13 (the square
//! has a zero gradient where the constraint holds, and Eq. 14–18 with a unit direction d are the
//! update of the distance). The body side is the body's interior (members without a glue
//! constraint, `LayerBodies::interior`) with mass m and inertia I about its own centre: the
//! boundary vertices already answer as elastic particles. Mass splitting [TBV12] divides the
//! interior into n_C parts of mass m/n_C and inertia I/n_C, so both terms of the generalized inverse
//! mass (Eq. 15) carry n_C; the Jacobi average of the n_C corrections then moves the interior by
//! Σ −p/m and turns it about its centre by Σ −I⁻¹(r × p) (Eq. 18–19 with Δθ = hΔω), once per
//! iteration. This conserves linear and angular momentum exactly.

use super::bodies::LayerBodies;
use super::contact::{ContactRows, Row};
use xpbd_core::layers::rigid_body::rodrigues;
use xpbd_core::mesh::Vec3;

/// One Jacobi pass over every body's rigid constraints, the glue constraints and the contacts of its
/// interior members (§3.5: against an infinite-mass contact point along the normal, Eq. 28, and with
/// Coulomb friction on the contact point's motion since `x_start`, the substep's start positions):
/// boundary vertices move at once, each body once from its accumulated Δx and Δθ, then the interior
/// members follow. Returns the number of contact rows solved.
pub fn solve(lb: &mut LayerBodies, x: &mut [Vec3], x_start: &[Vec3], inv_mass: &[f64], contacts: &mut ContactRows) -> usize {
    let mut solved = 0;
    for b in 0..lb.bodies.len() {
        let range = lb.start[b]..lb.start[b + 1];
        let touching: Vec<(usize, Row)> = range
            .clone()
            .filter(|&k| !lb.boundary[k])
            .flat_map(|k| contacts.rows(lb.members[k] as usize, &x[lb.members[k] as usize]).map(move |r| (k, r)))
            .collect();
        // A body that is all boundary has nothing to answer with, and an interior of one member or
        // members on one line cannot take up the glue's torques (they would vanish, creating angular
        // momentum): the boundary members of such a body stay elastic only.
        let Some(interior) = lb.interior[b].as_ref() else {
            continue;
        };
        let glued = interior.turns_about_every_axis();
        let n_c = (if glued { lb.boundary[range.clone()].iter().filter(|&&s| s).count() } else { 0 } + touching.len()) as f64;
        if n_c == 0.0 {
            continue;
        }
        let body = &lb.bodies[b];
        let centre = body.position(&lb.interior_offset[b]);
        let (inv_i, inv_m) = (body.rotation * interior.inertia0_inv * body.rotation.transpose(), 1.0 / interior.mass);
        // The generalised inverse mass of one of the n_C parts at offset `rg` from the centre along `d` (Eq. 15).
        let split = |rg: &Vec3, d: &Vec3| {
            let rd = rg.cross(d);
            n_c * (inv_m + rd.dot(&(inv_i * rd)))
        };
        let (mut dx, mut dtheta) = (Vec3::zeros(), Vec3::zeros());
        for k in range.filter(|&k| glued && lb.boundary[k]) {
            let i = lb.members[k] as usize;
            let target = body.position(&lb.r[k]);
            let diff = x[i] - target;
            let c = diff.norm();
            if c < 1e-300 {
                continue;
            }
            let (d, rg) = (diff / c, target - centre);
            let w = split(&rg, &d) + inv_mass[i];
            let p = d * (-c / w);
            x[i] += p * inv_mass[i];
            dx -= p * inv_m;
            dtheta -= inv_i * rg.cross(&p);
        }
        // The contact point's motion is read at the pass's start, as its depth is (Jacobi): the turn the
        // normal correction gives the body is not in it.
        for (k, row) in &touching {
            let (i, rg) = (lb.members[*k] as usize, body.position(&lb.r[*k]) - centre);
            let dn = contacts.solve(row, split(&rg, &row.normal));
            let p = row.normal * dn + contacts.friction(row, &(x[i] - x_start[i]), |t| split(&rg, t));
            dx += p * inv_m;
            dtheta += inv_i * rg.cross(&p);
        }
        solved += touching.len();
        // Turn about the interior's centre and move it: com' = c + Δx + exp(Δθ)(com − c).
        let body = &mut lb.bodies[b];
        let q = rodrigues(dtheta);
        body.com = centre + dx + q * (body.com - centre);
        body.rotate(dtheta);
        lb.solve_rotation[b] += dtheta;
    }
    lb.place_interior(x);
    solved
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpbd_core::collider::{Collider, Motion, Shape};
    use xpbd_core::contact::Friction;
    use xpbd_core::layers::hierarchy::Layer;

    /// A rigid square of four unit masses 1 m wide, lying 1 mm into the ground y = 0 (so that the
    /// contacts' friction turns it about no horizontal axis), that moved by `motion` in a substep of
    /// 10 ms, after `passes` glue passes against the ground with `friction`, the ground moving at
    /// `ground` m/s: the positions at the substep's start and now.
    fn on_ground(friction: Friction, ground: Vec3, motion: Vec3, passes: usize) -> (Vec<Vec3>, Vec<Vec3>) {
        let mut x: Vec<Vec3> = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)].iter().map(|&(a, b)| Vec3::new(a, -1e-3, b)).collect();
        let x_start: Vec<Vec3> = x.iter().map(|p| p - motion).collect();
        let layer = Layer { rigid_fraction: 1.0, element_body: vec![Some(0)], bodies: 1 };
        let mut lb = LayerBodies::build(&layer, &[[0, 1, 2, 3]], &x, &[Vec3::zeros(); 4], &[1.0; 4]);
        let plane = Collider::fixed(Shape::Plane { point: Vec3::zeros(), normal: Vec3::y() }, friction, 0.0);
        let mut contacts = ContactRows::new(&[Collider { motion: Motion { velocity: ground, ..Default::default() }, ..plane }], 4);
        contacts.reset(0.01, 0.01);
        for _ in 0..passes {
            assert_eq!(solve(&mut lb, &mut x, &x_start, &[1.0; 4], &mut contacts), 4, "every vertex stays in contact");
        }
        (x_start, x)
    }

    fn centre(x: &[Vec3]) -> Vec3 {
        x.iter().sum::<Vec3>() / x.len() as f64
    }

    /// Sliding at 1 m/s: the friction moves the body back by μ_k times what the normal rows push it
    /// out (every row at the cone, all impulses through the body's centre of mass).
    #[test]
    fn a_sliding_rigid_body_is_slowed_by_mu_k_lambda_n() {
        let before = centre(&on_ground(Friction::NONE, Vec3::zeros(), Vec3::new(0.01, 0.0, 0.0), 0).1);
        let moved = centre(&on_ground(Friction { mu_s: 0.8, mu_k: 0.5 }, Vec3::zeros(), Vec3::new(0.01, 0.0, 0.0), 20).1) - before;
        assert!(moved.y > 1e-4, "pushed out by {}", moved.y);
        assert!((moved.x + 0.5 * moved.y).abs() < 1e-12 * moved.y && moved.z.abs() < 1e-15, "{moved:?}");
    }

    /// A body at rest on ground moving at 1 m/s along x sticks (μ_s large): its contact points move
    /// with the ground's surface (the motion friction cancels is relative to the collider's).
    #[test]
    fn a_rigid_body_sticks_to_a_moving_ground() {
        let (x_start, x) = on_ground(Friction::coulomb(100.0), Vec3::new(1.0, 0.0, 0.0), Vec3::zeros(), 20);
        for i in 0..4 {
            let slip = x[i] - x_start[i] - Vec3::new(0.01, 0.0, 0.0);
            assert!(slip.x.hypot(slip.z) < 1e-9, "vertex {i} slips by {slip:?}");
        }
    }
}
