//! Colliders (plane, sphere, solid box, solid infinite cylinder) as signed distance functions, with Coulomb friction
//! and restitution parameters. The contact rows against them are `contact::collider_rows`.

use crate::contact::Friction;
use crate::mesh::Vec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Half-space {x : (x − point)·normal ≥ 0} is free; `normal` is unit length.
    Plane { point: Vec3, normal: Vec3 },
    /// Solid ball.
    Sphere { center: Vec3, radius: f64 },
    /// Solid axis-aligned box.
    Box { min: Vec3, max: Vec3 },
    /// Solid cylinder of infinite length around the line through `point` along the unit `axis`.
    Cylinder { point: Vec3, axis: Vec3, radius: f64 },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collider {
    pub shape: Shape,
    pub friction: Friction,
    pub restitution: f64,
}

impl Collider {
    /// Signed distance of `x` at time `t` (negative inside) and the outward unit normal there.
    pub fn signed_distance(&self, x: &Vec3, _t: f64) -> (f64, Vec3) {
        self.shape.signed_distance(x)
    }

    /// The velocity at time `t` of the collider's material point at `x` (friction acts on the motion
    /// relative to it).
    pub fn velocity_at(&self, _x: &Vec3, _t: f64) -> Vec3 {
        Vec3::zeros()
    }
}

impl Shape {
    /// Signed distance (negative inside the solid) and the outward unit normal at the closest surface point.
    pub fn signed_distance(&self, x: &Vec3) -> (f64, Vec3) {
        match *self {
            Shape::Plane { point, normal } => ((x - point).dot(&normal), normal),
            Shape::Sphere { center, radius } => {
                let d = x - center;
                let len = d.norm();
                let n = if len > 1e-15 { d / len } else { Vec3::y() };
                (len - radius, n)
            }
            Shape::Box { min, max } => {
                let c = (min + max) * 0.5;
                let half = (max - min) * 0.5;
                let p = x - c;
                let q = p.abs() - half;
                if q.max() > 0.0 {
                    // Outside: distance to the box, normal along the clamped offset.
                    let outside = q.map(|v| v.max(0.0));
                    let dist = outside.norm();
                    let n = Vec3::new(outside.x * p.x.signum(), outside.y * p.y.signum(), outside.z * p.z.signum()) / dist;
                    (dist, n)
                } else {
                    // Inside: the nearest face.
                    let axis = q.imax();
                    let mut n = Vec3::zeros();
                    n[axis] = p[axis].signum();
                    (q[axis], n)
                }
            }
            Shape::Cylinder { point, axis, radius } => {
                let d = x - point;
                let radial = d - axis * d.dot(&axis);
                let len = radial.norm();
                let n =
                    if len > 1e-15 { radial / len } else { axis.cross(&Vec3::x()).try_normalize(1e-12).unwrap_or_else(|| axis.cross(&Vec3::y()).normalize()) };
                (len - radius, n)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_distances() {
        let plane = Shape::Plane { point: Vec3::zeros(), normal: Vec3::y() };
        assert_eq!(plane.signed_distance(&Vec3::new(3.0, -0.5, 1.0)).0, -0.5);
        let ball = Shape::Sphere { center: Vec3::new(0.0, 1.0, 0.0), radius: 0.5 };
        let (d, n) = ball.signed_distance(&Vec3::new(0.0, 1.2, 0.0));
        assert!((d + 0.3).abs() < 1e-15 && (n - Vec3::y()).norm() < 1e-15);
        let b = Shape::Box { min: Vec3::new(-1.0, -1.0, -1.0), max: Vec3::new(1.0, 1.0, 1.0) };
        let (d, n) = b.signed_distance(&Vec3::new(0.2, 0.9, 0.0));
        assert!((d + 0.1).abs() < 1e-15 && n == Vec3::y());
        let (d, n) = b.signed_distance(&Vec3::new(2.0, 2.0, 0.0));
        assert!((d - 2f64.sqrt()).abs() < 1e-15 && (n - Vec3::new(1.0, 1.0, 0.0).normalize()).norm() < 1e-15);
    }

    /// A cylinder along z through (1, 2, ·) of radius 0.5: the distance ignores the axial coordinate, the
    /// normal is radial, and a point on the axis still gets a unit normal perpendicular to it.
    #[test]
    fn cylinder_distance_is_radial() {
        let c = Shape::Cylinder { point: Vec3::new(1.0, 2.0, 0.0), axis: Vec3::z(), radius: 0.5 };
        for z in [-100.0, 0.0, 7.5] {
            let (d, n) = c.signed_distance(&Vec3::new(1.0, 3.0, z));
            assert!((d - 0.5).abs() < 1e-15 && (n - Vec3::y()).norm() < 1e-15, "{d} {n:?}");
        }
        let (d, n) = c.signed_distance(&Vec3::new(1.3, 2.4, 1.0));
        assert!((d - 0.0).abs() < 1e-15 && (n - Vec3::new(0.6, 0.8, 0.0)).norm() < 1e-15);
        let (d, n) = c.signed_distance(&Vec3::new(1.0, 2.0, 4.0));
        assert!(d == -0.5 && (n.norm() - 1.0).abs() < 1e-15 && n.z == 0.0);
        // Finite differences of the distance give the normal.
        let tilted = Shape::Cylinder { point: Vec3::zeros(), axis: Vec3::new(1.0, 1.0, 1.0).normalize(), radius: 0.2 };
        let p = Vec3::new(0.3, -0.4, 0.9);
        let (_, n) = tilted.signed_distance(&p);
        let e = 1e-6;
        let fd = Vec3::from_fn(|k, _| {
            let mut dp = Vec3::zeros();
            dp[k] = e;
            (tilted.signed_distance(&(p + dp)).0 - tilted.signed_distance(&(p - dp)).0) / (2.0 * e)
        });
        assert!((fd - n).norm() < 1e-8, "{fd:?} {n:?}");
    }
}
