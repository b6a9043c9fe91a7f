//! The device's contact rows: the pair candidates as the slots `narrow_phase_pairs` (kernels/boundary.cu)
//! reads, and the rows read back as core's rows, so that `Backend::contact_forces` sums them with
//! `xpbd_core::contact::ContactForces::of` as the CPU does (only for frames that write contact forces).

use xpbd_core::contact::detect::Detector;
use xpbd_core::contact::{ColliderRow, ContactModel, Friction, PairRow, NO_TRIANGLE};

use crate::convert::vectors;

/// The collider rows that pushed: row `s · colliders + c` is surface vertex `surface[s]` against collider `c`
/// (`DeviceColliders`), with its last normal (3 per row) and λ_n; in the CPU's order (by surface vertex, then
/// collider). λ_t is not read back (0).
pub fn collider_rows(surface: &[u32], colliders: usize, normal: &[f64], lambda_n: &[f64]) -> Vec<ColliderRow> {
    let normal = vectors(normal);
    let pushed = lambda_n.iter().enumerate().filter(|&(_, &l)| l > 0.0);
    let row = |(r, &lambda_n): (usize, &f64)| ColliderRow {
        vertex: surface[r / colliders],
        collider: (r % colliders) as u32,
        normal: normal[r],
        lambda_n,
        lambda_t: Default::default(),
    };
    pushed.map(row).collect()
}

/// The broad phase's candidates as device slots, in the CPU's row order: vertex–triangle, edge–edge, then
/// vertex–edge candidates, each with its four vertices and its pair's friction; a vertex–edge slot also has
/// the corners of its one or two bordering triangles (`NO_TRIANGLE` for none).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairSlots {
    /// (vertex–triangle, edge–edge, vertex–edge) slot counts.
    pub counts: [u32; 3],
    pub vertices: Vec<u32>,
    pub wedge_triangles: Vec<u32>,
    pub friction: Vec<Friction>,
}

impl PairSlots {
    pub fn of(c: &ContactModel, detector: &Detector) -> PairSlots {
        let s = &c.surface;
        let (vt, ee, ve) = detector.candidates();
        let mut slots = PairSlots::default();
        let mut push = |vertices: [u32; 4], a: u32, b: u32| {
            slots.vertices.extend(vertices);
            slots.friction.push(Friction::mean(c.friction[a as usize], c.friction[b as usize]));
        };
        for &(i, t) in vt {
            let tri = s.triangles[t as usize];
            push([s.vertices[i as usize], tri[0], tri[1], tri[2]], s.vertex_body[i as usize], s.triangle_body[t as usize]);
        }
        for &(e, f) in ee {
            let (e0, f0) = (s.edges[e as usize], s.edges[f as usize]);
            push([e0[0], e0[1], f0[0], f0[1]], s.edge_body[e as usize], s.edge_body[f as usize]);
        }
        for w in ve {
            let [a, b] = w.edge;
            push([s.vertices[w.vertex as usize], a, b, b], s.vertex_body[w.vertex as usize], s.triangle_body[w.triangles[0] as usize]);
        }
        slots.wedge_triangles =
            ve.iter().flat_map(|w| w.triangles.map(|t| if t == NO_TRIANGLE { [NO_TRIANGLE; 3] } else { s.triangles[t as usize] })).flatten().collect();
        slots.counts = [vt.len(), ee.len(), ve.len()].map(|n| n as u32);
        slots
    }

    pub fn len(&self) -> usize {
        self.friction.len()
    }

    pub fn is_empty(&self) -> bool {
        self.friction.is_empty()
    }

    /// The slots that were rows in the last substep (`active`), with the device's weights (4 per slot),
    /// normals (3) and λ_n; λ_t is not read back (0).
    pub fn rows(&self, active: &[u32], weights: &[f64], normal: &[f64], lambda_n: &[f64]) -> Vec<PairRow> {
        let normal = vectors(normal);
        let row = |r: usize| PairRow {
            vertices: std::array::from_fn(|k| self.vertices[4 * r + k]),
            weights: std::array::from_fn(|k| weights[4 * r + k]),
            normal: normal[r],
            friction: self.friction[r],
            lambda_n: lambda_n[r],
            lambda_t: Default::default(),
        };
        (0..self.len()).filter(|&r| active[r] != 0).map(row).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpbd_core::mesh::Vec3;

    /// Two surface vertices (5 and 7) against two colliders: the rows that pushed, with their own normals.
    #[test]
    fn collider_rows_follow_the_device_indexing() {
        let normal: Vec<f64> = (0..12).map(f64::from).collect();
        let rows = collider_rows(&[5, 7], 2, &normal, &[0.0, 0.5, 0.25, 0.0]);
        let expected = |vertex, collider, n: [f64; 3], lambda_n| ColliderRow { vertex, collider, normal: n.into(), lambda_n, lambda_t: Vec3::zeros() };
        assert_eq!(rows, [expected(5, 1, [3.0, 4.0, 5.0], 0.5), expected(7, 0, [6.0, 7.0, 8.0], 0.25)]);
    }

    /// Two slots, the second active: one row with the device's weights, normal and λ_n.
    #[test]
    fn pair_rows_are_the_active_slots_with_the_device_values() {
        let slots = PairSlots { counts: [2, 0, 0], vertices: vec![0, 1, 2, 3, 4, 5, 6, 7], wedge_triangles: vec![], friction: vec![Friction::NONE; 2] };
        let weights = [0.0, 0.0, 0.0, 0.0, 1.0, -0.5, -0.25, -0.25];
        let rows = slots.rows(&[0, 1], &weights, &[0.0, 0.0, 0.0, 0.6, 0.8, 0.0], &[0.0, 2.0]);
        let expected = PairRow {
            vertices: [4, 5, 6, 7],
            weights: [1.0, -0.5, -0.25, -0.25],
            normal: Vec3::new(0.6, 0.8, 0.0),
            friction: Friction::NONE,
            lambda_n: 2.0,
            lambda_t: Vec3::zeros(),
        };
        assert_eq!(rows, [expected]);
    }
}
