//! When the broad phase's candidate list still holds. The list was found at positions y (a substep's
//! prediction) and holds every pair of primitives that came within the reach K = 2·thickness + 3δ. It stays
//! valid while no two vertices that could form a pair have moved relative to each other by more than δ since
//! then: a pair's distance then changes by at most δ, and so does its relative motion in any later substep
//! (at most 2δ), so every pair the narrow phase can accept (distance below 2·thickness plus that motion) was
//! within K at y.
//!
//! Relative motion is bounded per body: a body's surface vertices moved by its mean displacement T plus a
//! deviation of at most R. Within a body two vertices moved apart by at most 2R; across bodies a and b by at most
//! |T_a − T_b| + R_a + R_b. A falling or sliding body keeps its list however far it travels, as long as it
//! keeps its shape; two bodies that approach each other invalidate it only once their boxes at y are within
//! reach of their relative motion.

use super::ContactModel;
use crate::mesh::bvh::Aabb;
use crate::mesh::Vec3;

/// The surface where the candidates were found.
#[derive(Default)]
pub struct FoundAt {
    /// Every surface vertex's position at y (indexed like `Surface::vertices`; empty: nothing found yet).
    y: Vec<Vec3>,
    /// Each body's box around its surface vertices at y.
    boxes: Vec<Aabb>,
}

/// One body's motion since y, at the substep's start (`t0`) and prediction (`t1`): the mean displacements
/// of its surface vertices, and the largest distance of one vertex's displacement from them.
#[derive(Clone, Copy)]
struct BodyMotion {
    t0: Vec3,
    t1: Vec3,
    spread: f64,
}

impl FoundAt {
    /// The candidates were found with the surface at `y` (global positions).
    pub fn new(c: &ContactModel, y: &[Vec3]) -> FoundAt {
        let s = &c.surface;
        let y: Vec<Vec3> = s.vertices.iter().map(|&v| y[v as usize]).collect();
        let mut boxes = vec![Aabb::EMPTY; c.friction.len()];
        for (p, &b) in y.iter().zip(&s.vertex_body) {
            boxes[b as usize] = boxes[b as usize].union(&Aabb { min: *p, max: *p });
        }
        FoundAt { y, boxes }
    }

    /// Whether the list found at y holds for the substep from `x0` to `x1`, with margin δ.
    pub fn holds(&self, c: &ContactModel, x0: &[Vec3], x1: &[Vec3], margin: f64) -> bool {
        if self.y.is_empty() {
            return false;
        }
        let motion = self.body_motion(c, x0, x1);
        let bodies = motion.len();
        let reach = 2.0 * c.thickness;
        (0..bodies).all(|a| {
            let ma = motion[a];
            (!c.pair(a as u32, a as u32) || 2.0 * ma.spread <= margin)
                && (a + 1..bodies).all(|b| {
                    let mb = motion[b];
                    let rho0 = (ma.t0 - mb.t0).norm() + ma.spread + mb.spread;
                    let rho1 = (ma.t1 - mb.t1).norm() + ma.spread + mb.spread;
                    // Close bodies must move together; far ones must stay farther apart than the narrow phase
                    // can reach (their distance now exceeds 2·thickness plus the relative motion of a substep).
                    !c.pair(a as u32, b as u32) || (rho0 <= margin && rho1 <= margin) || self.boxes[a].gap(&self.boxes[b]) >= reach + 2.0 * rho0 + rho1
                })
        })
    }

    fn body_motion(&self, c: &ContactModel, x0: &[Vec3], x1: &[Vec3]) -> Vec<BodyMotion> {
        let s = &c.surface;
        let displacement = |k: usize| {
            let v = s.vertices[k] as usize;
            (x0[v] - self.y[k], x1[v] - self.y[k])
        };
        let mut sums = vec![(Vec3::zeros(), Vec3::zeros(), 0usize); self.boxes.len()];
        for k in 0..s.vertices.len() {
            let (d0, d1) = displacement(k);
            let sum = &mut sums[s.vertex_body[k] as usize];
            *sum = (sum.0 + d0, sum.1 + d1, sum.2 + 1);
        }
        let mut motion: Vec<BodyMotion> =
            sums.iter().map(|&(d0, d1, n)| BodyMotion { t0: d0 / n.max(1) as f64, t1: d1 / n.max(1) as f64, spread: 0.0 }).collect();
        for k in 0..s.vertices.len() {
            let (d0, d1) = displacement(k);
            let m = &mut motion[s.vertex_body[k] as usize];
            m.spread = m.spread.max((d0 - m.t0).norm()).max((d1 - m.t1).norm());
        }
        motion
    }
}
