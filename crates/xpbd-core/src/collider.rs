//! Static colliders (plane, sphere, solid box) as signed distance functions, with Coulomb friction
//! and restitution parameters. The contact projection itself is the backends'.

use crate::mesh::Vec3;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Half-space {x : (x − point)·normal ≥ 0} is free; `normal` is unit length.
    Plane { point: Vec3, normal: Vec3 },
    /// Solid ball.
    Sphere { center: Vec3, radius: f64 },
    /// Solid axis-aligned box.
    Box { min: Vec3, max: Vec3 },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Collider {
    pub shape: Shape,
    pub friction: f64,
    pub restitution: f64,
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
}
