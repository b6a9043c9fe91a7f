//! The normal contact forces of one substep's rows per vertex, for output (`[output] contact_forces`,
//! docs/output-format.md). A row's multiplier λ_n is a positional impulse accumulated over the substep; the
//! force it stands for is λ_n/h² along the row's gradient (Macklin, Müller and Chentanez 2016, "XPBD:
//! position-based simulation of compliant constrained dynamics": the constraint force estimate f = ∇Cᵀλ/Δt²).

use super::rows::{ColliderRow, PairRow};
use crate::mesh::Vec3;

/// Per vertex: the summed normal contact force (N) and whether a row that pushed (λ_n > 0) touches it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ContactForces {
    pub force: Vec<Vec3>,
    pub active: Vec<bool>,
}

impl ContactForces {
    /// The forces of a substep of length `h` over `vertex_count` vertices: f_k = w_k λ_n n / h² on each vertex
    /// of a pair row (the weights sum to zero, so the two sides get equal and opposite totals) and λ_n n / h² on
    /// a collider row's vertex, summed over the rows that pushed, pairs first.
    pub fn of(pairs: &[PairRow], colliders: &[ColliderRow], vertex_count: usize, h: f64) -> Self {
        let pairs = pairs.iter().map(|r| (r.vertices, r.weights, r.normal, r.lambda_n));
        let colliders = colliders.iter().map(|r| ([r.vertex; 4], [1.0, 0.0, 0.0, 0.0], r.normal, r.lambda_n));
        Self::of_rows(pairs.chain(colliders), vertex_count, 1.0 / (h * h))
    }

    /// The forces of rows given as (vertices, weights, normal, normal multiplier λ_n): f_k = w_k λ_n n · `scale`
    /// on each vertex of the rows with λ_n > 0, in the given order. XPBD's position multipliers take 1/h²
    /// ([`ContactForces::of`]), the implicit solvers' impulses (N·s) 1/h.
    pub fn of_rows(rows: impl Iterator<Item = ([u32; 4], [f64; 4], Vec3, f64)>, vertex_count: usize, scale: f64) -> Self {
        let mut out = ContactForces { force: vec![Vec3::zeros(); vertex_count], active: vec![false; vertex_count] };
        for (vertices, weights, normal, lambda) in rows.filter(|r| r.3 > 0.0) {
            for (&v, &w) in vertices.iter().zip(&weights) {
                out.add(v, normal * (w * lambda * scale));
            }
        }
        out
    }

    fn add(&mut self, vertex: u32, f: Vec3) {
        self.force[vertex as usize] += f;
        self.active[vertex as usize] = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collider::{Collider, Shape};
    use crate::contact::rows::Iterate;
    use crate::contact::Friction;

    /// A vertex of mass m resting on a plane for ten substeps (prediction under gravity, three projections, the
    /// velocity update): every substep's row pushes it back by g h², so its force is m g. The plane's C is
    /// linear, so each projection is exact and only rounding is left: x ≈ 0.3 m and g h² ≈ 1e-3 m differ in the
    /// 13th digit at most, hence the relative tolerance 1e-9.
    #[test]
    fn a_vertex_resting_on_a_plane_carries_its_weight() {
        let (m, g, h) = (0.25, 9.81, 0.01);
        let plane = Collider::fixed(Shape::Plane { point: Vec3::new(0.0, 0.3, 0.0), normal: Vec3::y() }, Friction::coulomb(0.5), 0.0);
        let mut x = [Vec3::new(0.1, 0.3, -0.2)];
        let mut v = Vec3::zeros();
        for _ in 0..10 {
            let x_prev = x;
            v.y -= g * h;
            x[0] += v * h;
            let mut row = ColliderRow::new(0, 0);
            let mut it = Iterate { x: &mut x, x_prev: &x_prev, inv_mass: &[1.0 / m], t: 0.0, h };
            (0..3).for_each(|_| row.project(&plane, &mut it));
            v = (x[0] - x_prev[0]) / h;
            let f = ContactForces::of(&[], &[row], 1, h);
            assert!((f.force[0] - Vec3::new(0.0, m * g, 0.0)).norm() < 1e-9 * m * g, "{:?} against m g = {}", f.force[0], m * g);
            assert_eq!(f.active, [true]);
        }
    }

    /// A vertex pushed out of a triangle by a pair row, and a row that holds nothing: the vertex gets λ_n n/h²,
    /// the triangle's vertices the opposite in total, split by the barycentric weights; untouched vertices stay
    /// inactive.
    #[test]
    fn a_pair_row_gives_equal_and_opposite_totals() {
        let h = 0.01;
        let x_prev = [Vec3::new(0.2, 0.0, 0.2), Vec3::zeros(), Vec3::x(), Vec3::z(), Vec3::y()];
        let mut x = x_prev;
        x[0].y = -0.01;
        let row = |vertices| PairRow {
            vertices,
            weights: [1.0, -0.6, -0.2, -0.2],
            normal: Vec3::y(),
            friction: Friction::NONE,
            lambda_n: 0.0,
            lambda_t: Vec3::zeros(),
        };
        let (mut pushed, idle) = (row([0, 1, 2, 3]), row([4, 1, 2, 3]));
        pushed.project(0.001, &mut Iterate { x: &mut x, x_prev: &x_prev, inv_mass: &[1.0; 5], t: 0.0, h });
        assert!(pushed.lambda_n > 0.0);
        let f = ContactForces::of(&[pushed, idle], &[], 5, h);
        let expected = Vec3::y() * (pushed.lambda_n / (h * h));
        assert!((f.force[0] - expected).norm() < 1e-12 * expected.norm());
        let triangle: Vec3 = f.force[1..4].iter().sum();
        assert!((triangle + f.force[0]).norm() < 1e-12 * expected.norm(), "{triangle:?} against {:?}", f.force[0]);
        assert!((f.force[1] - expected * -0.6).norm() < 1e-12 * expected.norm());
        assert_eq!(f.active, [true, true, true, true, false]);
        assert_eq!(f.force[4], Vec3::zeros());
    }
}
