//! Contact rows and their projection inside the constraint iterations. A row is an inequality C(x) ≥ 0 with
//! a multiplier λ_n ≥ 0 accumulated over the substep's iterations (XPBD with zero compliance, clamped as in
//! projected Gauss-Seidel so that a contact can let go), and a tangential multiplier λ_t limited by the
//! friction cone ([`Friction::limit`]): Müller et al. 2020, "Detailed rigid body simulation with extended
//! position based dynamics", Eqs. 2–5 and §3.5.

use super::distance::line_parameter;
use super::Friction;
use crate::collider::Collider;
use crate::mesh::Vec3;

/// A surface vertex against a collider: C = d(x), the collider's signed distance, whose gradient is the
/// collider's normal at x.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ColliderRow {
    pub vertex: u32,
    pub collider: u32,
    /// The normal at the last projection.
    pub normal: Vec3,
    pub lambda_n: f64,
    pub lambda_t: Vec3,
}

/// Two surface primitives of bodies: a vertex against a triangle, an edge against an edge, or a vertex against
/// an edge. The gap is C(x) = n·Σₖ wₖ xₖ − thickness. A vertex–triangle or edge–edge row is linearised at the
/// start of the substep: the normal n and the weights (1, −b₀, −b₁, −b₂) of the closest point (vertex–triangle)
/// or (1 − s, s, −(1 − t), −t) (edge–edge) are fixed for the substep. A vertex–edge row (vertices [p, a, b, b],
/// weights (1, s − 1, −s, 0)) finds its closest point and normal again at every projection
/// ([`PairRow::follows_edge`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairRow {
    pub vertices: [u32; 4],
    pub weights: [f64; 4],
    pub normal: Vec3,
    pub friction: Friction,
    pub lambda_n: f64,
    pub lambda_t: Vec3,
}

/// The positions and inverse masses a projection reads: the current iterate `x`, the substep's start
/// `x_prev` (for the tangential motion friction acts on) and the time `t` at the substep's end.
pub struct Iterate<'a> {
    pub x: &'a mut [Vec3],
    pub x_prev: &'a [Vec3],
    pub inv_mass: &'a [f64],
    pub t: f64,
    pub h: f64,
}

/// The normal then the friction update of one row with generalised inverse mass `w` = Σ wₖ² mₖ⁻¹, gap `c`
/// and relative motion `motion` in the substep: returns the position multipliers to apply along n and
/// tangentially (Δλ_n, Δλ_t).
fn update(lambda_n: &mut f64, lambda_t: &mut Vec3, friction: Friction, n: &Vec3, w: f64, c: f64, motion: Vec3) -> (f64, Vec3) {
    let dn = (-c / w).max(-*lambda_n);
    *lambda_n += dn;
    (dn, friction.project(lambda_t, *lambda_n, n, &(motion + n * (w * dn)), |_| w))
}

impl ColliderRow {
    /// Whether the row pushed in this substep (λ_n > 0).
    pub fn pushes(&self) -> bool {
        self.lambda_n > 0.0
    }

    pub fn new(vertex: u32, collider: u32) -> Self {
        ColliderRow { vertex, collider, normal: Vec3::zeros(), lambda_n: 0.0, lambda_t: Vec3::zeros() }
    }

    /// One projection against `collider` (a no-op while the vertex is clear and the row holds nothing).
    pub fn project(&mut self, collider: &Collider, it: &mut Iterate) {
        let i = self.vertex as usize;
        let w = it.inv_mass[i];
        let (d, n) = collider.signed_distance(&it.x[i], it.t);
        // Clear and holding nothing; or a non-finite vertex, left alone for the health check to name.
        if (d >= 0.0 && self.lambda_n == 0.0) || !d.is_finite() {
            return;
        }
        self.normal = n;
        let surface_motion = collider.velocity_at(&it.x[i], it.t) * it.h;
        let motion = it.x[i] - it.x_prev[i] - surface_motion;
        let (dn, dt) = update(&mut self.lambda_n, &mut self.lambda_t, collider.friction, &n, w, d, motion);
        it.x[i] += (n * dn + dt) * w;
    }
}

impl PairRow {
    /// Whether the row pushed in this substep (λ_n > 0).
    pub fn pushes(&self) -> bool {
        self.lambda_n > 0.0
    }

    /// Whether this is a vertex–edge row (vertices [p, a, b, b]: p against the edge a–b), whose closest point
    /// and normal follow the positions.
    pub fn follows_edge(&self) -> bool {
        self.vertices[2] == self.vertices[3]
    }

    /// A vertex–edge row's closest point s (clamped to the edge) and normal (p − q)/|p − q| at positions `x`;
    /// the normal is kept while p lies on the edge's line.
    fn follow_edge(&mut self, x: &[Vec3]) {
        let [p, a, b, _] = self.vertices.map(|v| x[v as usize]);
        let t = line_parameter(&p, &a, &b);
        let s = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
        let gap = p - a - (b - a) * s;
        let d = gap.norm();
        if d > 0.0 {
            self.normal = gap / d;
        }
        self.weights = [1.0, s - 1.0, -s, 0.0];
    }

    /// Σₖ wₖ vₖ over the row's vertices.
    fn combine(&self, v: impl Fn(usize) -> Vec3) -> Vec3 {
        (0..4).map(|k| v(self.vertices[k] as usize) * self.weights[k]).sum()
    }

    /// Σₖ wₖ² mₖ⁻¹.
    pub fn generalised_inverse_mass(&self, inv_mass: &[f64]) -> f64 {
        (0..4).map(|k| self.weights[k] * self.weights[k] * inv_mass[self.vertices[k] as usize]).sum()
    }

    /// The gap C(x).
    pub fn gap(&self, x: &[Vec3], thickness: f64) -> f64 {
        self.normal.dot(&self.combine(|v| x[v])) - thickness
    }

    /// One projection (a no-op while the gap is open and the row holds nothing).
    pub fn project(&mut self, thickness: f64, it: &mut Iterate) {
        if self.follows_edge() {
            self.follow_edge(it.x);
        }
        let c = self.gap(it.x, thickness);
        // Open and holding nothing; or a non-finite vertex, whose NaN must not spread to the others.
        if (c >= 0.0 && self.lambda_n == 0.0) || !c.is_finite() {
            return;
        }
        let w = self.generalised_inverse_mass(it.inv_mass);
        if w == 0.0 {
            return;
        }
        let n = self.normal;
        let motion = self.combine(|v| it.x[v] - it.x_prev[v]);
        let (dn, dt) = update(&mut self.lambda_n, &mut self.lambda_t, self.friction, &n, w, c, motion);
        let step = n * dn + dt;
        for k in 0..4 {
            let v = self.vertices[k] as usize;
            it.x[v] += step * (self.weights[k] * it.inv_mass[v]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collider::Shape;

    fn plane(friction: Friction) -> Collider {
        Collider::fixed(Shape::Plane { point: Vec3::zeros(), normal: Vec3::y() }, friction, 0.0)
    }

    /// A vertex that sinks into the ground while moving sideways: pushed out, and the sideways motion kept
    /// (frictionless), cancelled (inside the static cone) or reduced by μ_k·λ_n·w (sliding).
    #[test]
    fn collider_row_projects_onto_the_surface_with_coulomb_friction() {
        let x_prev = [Vec3::new(0.0, 0.0, 0.0)];
        for (friction, expected_x) in [(Friction::NONE, 0.1), (Friction::coulomb(20.0), 0.0), (Friction { mu_s: 1.0, mu_k: 0.5 }, 0.1 - 0.5 * 0.01)] {
            let mut x = [Vec3::new(0.1, -0.01, 0.0)];
            let mut row = ColliderRow::new(0, 0);
            let mut it = Iterate { x: &mut x, x_prev: &x_prev, inv_mass: &[2.0], t: 0.0, h: 0.01 };
            for _ in 0..3 {
                row.project(&plane(friction), &mut it);
            }
            assert!(x[0].y.abs() < 1e-15 && (x[0].x - expected_x).abs() < 1e-15, "{friction:?}: {:?}", x[0]);
            assert!((row.lambda_n - 0.01 / 2.0).abs() < 1e-15);
        }
    }

    /// A row that holds a vertex lets go once the vertex is pulled away (λ_n back to 0, not negative).
    #[test]
    fn collider_row_releases() {
        let x_prev = [Vec3::zeros()];
        let mut x = [Vec3::new(0.0, -0.01, 0.0)];
        let mut row = ColliderRow::new(0, 0);
        let c = plane(Friction::coulomb(0.5));
        row.project(&c, &mut Iterate { x: &mut x, x_prev: &x_prev, inv_mass: &[1.0], t: 0.0, h: 0.01 });
        x[0].y = 0.05;
        row.project(&c, &mut Iterate { x: &mut x, x_prev: &x_prev, inv_mass: &[1.0], t: 0.0, h: 0.01 });
        assert_eq!(row.lambda_n, 0.0);
        assert!((x[0].y - 0.04).abs() < 1e-15, "the push of the first projection is taken back: {}", x[0].y);
    }

    /// A vertex under a triangle of equal masses: the gap opens to the thickness, momentum is conserved
    /// (Σ m Δx = 0) and the triangle moves by a third of the vertex's push in total.
    #[test]
    fn pair_row_conserves_momentum() {
        let x_prev = [Vec3::new(0.2, 0.0, 0.2), Vec3::zeros(), Vec3::x(), Vec3::z()];
        let mut x = x_prev;
        x[0].y = -0.01;
        let before: Vec3 = x.iter().sum();
        let mut row = PairRow {
            vertices: [0, 1, 2, 3],
            weights: [1.0, -0.6, -0.2, -0.2],
            normal: Vec3::y(),
            friction: Friction::NONE,
            lambda_n: 0.0,
            lambda_t: Vec3::zeros(),
        };
        row.project(0.001, &mut Iterate { x: &mut x, x_prev: &x_prev, inv_mass: &[1.0; 4], t: 0.0, h: 0.01 });
        assert!(row.gap(&x, 0.001).abs() < 1e-15);
        assert!((x.iter().sum::<Vec3>() - before).norm() < 1e-15);
    }
}
