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
/// interior members (§3.5: against an infinite-mass contact point along the normal): boundary vertices
/// move at once, each body once from its accumulated Δx and Δθ, then the interior members follow.
pub fn solve(lb: &mut LayerBodies, x: &mut [Vec3], inv_mass: &[f64], contacts: &mut ContactRows) {
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
            let rd = rg.cross(&d);
            let w = n_c * (inv_m + rd.dot(&(inv_i * rd))) + inv_mass[i];
            let p = d * (-c / w);
            x[i] += p * inv_mass[i];
            dx -= p * inv_m;
            dtheta -= inv_i * rg.cross(&p);
        }
        for (k, row) in &touching {
            let rg = body.position(&lb.r[*k]) - centre;
            let rn = rg.cross(&row.normal);
            let p = row.normal * contacts.solve(row, n_c * (inv_m + rn.dot(&(inv_i * rn))));
            dx += p * inv_m;
            dtheta += inv_i * rg.cross(&p);
        }
        // Turn about the interior's centre and move it: com' = c + Δx + exp(Δθ)(com − c).
        let body = &mut lb.bodies[b];
        let q = rodrigues(dtheta);
        body.com = centre + dx + q * (body.com - centre);
        body.rotate(dtheta);
        lb.solve_rotation[b] += dtheta;
    }
    lb.place_interior(x);
}
