//! Colliders: solids given by signed distance functions (plane, sphere, oriented box, infinite cylinder,
//! capsule, closed triangle mesh), with Coulomb friction and restitution parameters and a kinematic
//! [`Motion`]. The contact code asks [`Collider::signed_distance`] and [`Collider::velocity_at`] at a time.
//! `motion.rs` holds the pose over time, `mesh_sdf.rs` the mesh's exact distance (through `mesh::bvh`).

pub mod mesh_sdf;
pub mod motion;

pub use mesh_sdf::{MeshSdf, SurfaceError};
pub use motion::{Motion, PathKey};

use crate::contact::Friction;
use crate::mesh::Vec3;
use nalgebra::{Point3, Rotation3};
use std::sync::Arc;

/// A solid at its rest pose (time 0 without motion).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// Half-space {x : (x − point)·normal ≥ 0} is free; `normal` is unit length.
    Plane { point: Vec3, normal: Vec3 },
    /// Solid ball.
    Sphere { center: Vec3, radius: f64 },
    /// Solid box {center + rotation·p : |pₖ| ≤ half_extentsₖ}: its edges run along the rotated axes.
    Box { center: Vec3, half_extents: Vec3, rotation: Rotation3<f64> },
    /// Solid cylinder of infinite length around the line through `point` along the unit `axis`.
    Cylinder { point: Vec3, axis: Vec3, radius: f64 },
    /// The points within `radius` of the segment from `a` to `b` (`a ≠ b`).
    Capsule { a: Vec3, b: Vec3, radius: f64 },
    /// The solid bounded by a closed triangle surface (shared: the structure is built once at load).
    Mesh(Arc<MeshSdf>),
}

/// A collider: a solid shape, its contact parameters and its kinematic motion.
#[derive(Clone, Debug, PartialEq)]
pub struct Collider {
    pub shape: Shape,
    pub friction: Friction,
    pub restitution: f64,
    pub motion: Motion,
}

impl Collider {
    /// A collider that does not move.
    pub fn fixed(shape: Shape, friction: Friction, restitution: f64) -> Collider {
        Collider { shape, friction, restitution, motion: Motion::default() }
    }

    /// Signed distance of `x` at time `t` (negative inside) and the outward unit normal there: the rest
    /// shape's at the point pulled back through the pose, X = pose(t)⁻¹·x, with the normal turned by the pose.
    pub fn signed_distance(&self, x: &Vec3, t: f64) -> (f64, Vec3) {
        self.posed(x, t, |p| self.shape.signed_distance(p))
    }

    /// [`signed_distance`](Self::signed_distance) of the shape with its edges rounded by `radius`
    /// ([`Shape::rounded_signed_distance`]).
    pub fn rounded_signed_distance(&self, x: &Vec3, t: f64, radius: f64) -> (f64, Vec3) {
        self.posed(x, t, |p| self.shape.rounded_signed_distance(p, radius))
    }

    /// `f` of the rest shape at X = pose(t)⁻¹·x, its normal turned by the pose.
    fn posed(&self, x: &Vec3, t: f64, f: impl Fn(&Vec3) -> (f64, Vec3)) -> (f64, Vec3) {
        if self.motion.is_static() {
            return f(x);
        }
        let pose = self.motion.pose(&self.shape.reference_point(), t);
        let (d, n) = f(&pose.inverse_transform_point(&Point3::from(*x)).coords);
        (d, pose.rotation * n)
    }

    /// The velocity at time `t` of the collider's material point at `x` (friction acts on the motion
    /// relative to it): v + ω × (x − r(t)) + ṗ(t), r(t) the moved reference point ([`Motion::velocity_at`]).
    pub fn velocity_at(&self, x: &Vec3, t: f64) -> Vec3 {
        self.motion.velocity_at(&self.shape.reference_point(), x, t)
    }
}

impl Shape {
    /// The point the angular velocity turns the shape about: a plane's `point`, a sphere's or box's centre, a
    /// cylinder's `point`, a capsule's midpoint, a mesh's centroid.
    pub fn reference_point(&self) -> Vec3 {
        match self {
            Shape::Plane { point, .. } | Shape::Cylinder { point, .. } => *point,
            Shape::Sphere { center, .. } | Shape::Box { center, .. } => *center,
            Shape::Capsule { a, b, .. } => (a + b) * 0.5,
            Shape::Mesh(m) => m.centroid(),
        }
    }

    /// [`signed_distance`](Self::signed_distance) with a box's edges and corners rounded by `radius`: the
    /// box shrunk by `radius` (each half extent at most to zero) and grown back by it, so that within `radius`
    /// of an edge the normal turns smoothly from one face's to the other's instead of jumping by 90°. The
    /// other shapes are returned unchanged.
    pub fn rounded_signed_distance(&self, x: &Vec3, radius: f64) -> (f64, Vec3) {
        match self {
            Shape::Box { center, half_extents, rotation } => {
                let r = radius.min(half_extents.min());
                let (d, n) = Shape::Box { center: *center, half_extents: half_extents.add_scalar(-r), rotation: *rotation }.signed_distance(x);
                (d - r, n)
            }
            _ => self.signed_distance(x),
        }
    }

    /// Signed distance (negative inside the solid) and the outward unit normal at the closest surface point.
    pub fn signed_distance(&self, x: &Vec3) -> (f64, Vec3) {
        match self {
            Shape::Plane { point, normal } => ((x - point).dot(normal), *normal),
            Shape::Sphere { center, radius } => {
                let d = x - center;
                let len = d.norm();
                let n = if len > 1e-15 { d / len } else { Vec3::y() };
                (len - radius, n)
            }
            Shape::Box { center, half_extents, rotation } => {
                let p = rotation.inverse_transform_vector(&(x - center));
                let q = p.abs() - half_extents;
                let (d, n) = if q.max() > 0.0 {
                    // Outside: distance to the box, normal along the clamped offset.
                    let outside = q.map(|v| v.max(0.0));
                    let dist = outside.norm();
                    (dist, Vec3::new(outside.x * p.x.signum(), outside.y * p.y.signum(), outside.z * p.z.signum()) / dist)
                } else {
                    // Inside: the nearest face.
                    let axis = q.imax();
                    let mut n = Vec3::zeros();
                    n[axis] = p[axis].signum();
                    (q[axis], n)
                };
                (d, rotation * n)
            }
            Shape::Cylinder { point, axis, radius } => {
                let d = x - point;
                away_from_axis(&(d - axis * d.dot(axis)), axis, *radius)
            }
            Shape::Capsule { a, b, radius } => {
                let ab = b - a;
                let s = ((x - a).dot(&ab) / ab.norm_squared()).clamp(0.0, 1.0);
                away_from_axis(&(x - a - ab * s), &ab, *radius)
            }
            Shape::Mesh(m) => m.signed_distance(x),
        }
    }
}

/// Distance `|radial| − radius` and normal `radial/|radial|` of a point at offset `radial` from the closest
/// point of an axis (a cylinder's line, a capsule's segment); a point on the axis gets a unit normal
/// perpendicular to `axis`.
fn away_from_axis(radial: &Vec3, axis: &Vec3, radius: f64) -> (f64, Vec3) {
    let len = radial.norm();
    let n = if len > 1e-15 { radial / len } else { axis.cross(&Vec3::x()).try_normalize(1e-12).unwrap_or_else(|| axis.cross(&Vec3::y()).normalize()) };
    (len - radius, n)
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
        let b = Shape::Box { center: Vec3::zeros(), half_extents: Vec3::repeat(1.0), rotation: Rotation3::identity() };
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
    }

    /// The central difference of `f` at `x` (step 1e-6).
    fn gradient(f: impl Fn(&Vec3) -> f64, x: &Vec3) -> Vec3 {
        let e = 1e-6;
        Vec3::from_fn(|k, _| {
            let dx = Vec3::ith(k, e);
            (f(&(x + dx)) - f(&(x - dx))) / (2.0 * e)
        })
    }

    /// A tilted box, a capsule and a sphere, a tilted cylinder, a plane and the tessellated unit cube as a mesh.
    fn shapes() -> Vec<Shape> {
        let cube = mesh_sdf::tests::cube();
        vec![
            Shape::Plane { point: Vec3::new(0.0, 0.1, 0.0), normal: Vec3::new(1.0, 2.0, -0.5).normalize() },
            Shape::Sphere { center: Vec3::new(0.1, 0.2, -0.1), radius: 0.4 },
            Shape::Box { center: Vec3::new(0.2, 0.0, 0.1), half_extents: Vec3::new(0.5, 0.3, 0.2), rotation: Rotation3::from_euler_angles(0.3, -0.7, 1.1) },
            Shape::Cylinder { point: Vec3::zeros(), axis: Vec3::new(1.0, 1.0, 1.0).normalize(), radius: 0.2 },
            Shape::Capsule { a: Vec3::new(-0.4, -0.1, 0.0), b: Vec3::new(0.3, 0.4, 0.2), radius: 0.25 },
            Shape::Mesh(Arc::new(MeshSdf::new(cube.vertices, cube.tris).unwrap())),
        ]
    }

    /// For every shape, inside and outside: the normal is the gradient of the distance (finite differences),
    /// of unit length, and a step of d back along it lands on the surface (the closest point).
    #[test]
    fn normal_is_the_gradient_of_the_distance() {
        for shape in shapes() {
            let mut checked = 0;
            for x in mesh_sdf::tests::points(300, Vec3::repeat(0.25), 1.2) {
                let (d, n) = shape.signed_distance(&x);
                let fd = gradient(|y| shape.signed_distance(y).0, &x);
                if (fd.norm() - 1.0).abs() > 1e-6 {
                    // A kink of the distance (the medial axis) lies within the step: no gradient there.
                    continue;
                }
                assert!((fd - n).norm() < 1e-6, "{shape:?} at {x:?}: {fd:?} vs {n:?}");
                assert!(shape.signed_distance(&(x - n * d)).0.abs() < 1e-12, "{shape:?} at {x:?}");
                checked += 1;
            }
            assert!(checked > 290, "{shape:?}: only {checked} of 300 points away from kinks");
        }
    }

    /// A box rounded by r: the faces are where they were; beside an edge, within r of it, the normal points
    /// from the edge's rounding centre, halfway between the faces' at the bisector; other shapes unchanged.
    #[test]
    fn rounded_box() {
        let b = Shape::Box { center: Vec3::zeros(), half_extents: Vec3::repeat(1.0), rotation: Rotation3::identity() };
        let (d, n) = b.rounded_signed_distance(&Vec3::new(0.0, 0.0, 1.5), 0.1);
        assert!((d - 0.5).abs() < 1e-12 && (n - Vec3::z()).norm() < 1e-12);
        // Just beside the edge x = z = 1, a micrometre below the top: the sharp box gives the side face's +x.
        let p = Vec3::new(1.0 + 1e-6, 0.0, 1.0 - 1e-6);
        assert_eq!(b.signed_distance(&p).1, Vec3::x());
        let (d, n) = b.rounded_signed_distance(&p, 0.1);
        assert!((n - Vec3::new(1.0, 0.0, 1.0).normalize()).norm() < 1e-4, "{n:?}");
        assert!((d - ((0.1f64 + 1e-6).hypot(0.1 - 1e-6) - 0.1)).abs() < 1e-12, "{d}");
        let ball = Shape::Sphere { center: Vec3::zeros(), radius: 1.0 };
        assert_eq!(ball.rounded_signed_distance(&Vec3::new(0.0, 2.0, 0.0), 0.1), ball.signed_distance(&Vec3::new(0.0, 2.0, 0.0)));
    }

    /// An oriented box is the axis-aligned one seen in its own frame; a capsule's distance is that to its
    /// segment less the radius, round past its ends.
    #[test]
    fn oriented_box_and_capsule() {
        let rotation = Rotation3::from_axis_angle(&Vec3::z_axis(), std::f64::consts::FRAC_PI_4);
        let b = Shape::Box { center: Vec3::new(1.0, 0.0, 0.0), half_extents: Vec3::new(1.0, 0.5, 0.5), rotation };
        // The box's long axis runs along (1, 1, 0)/√2: its end face is 1 from the centre that way.
        let (d, n) = b.signed_distance(&(Vec3::new(1.0, 0.0, 0.0) + Vec3::new(1.0, 1.0, 0.0).normalize() * 1.5));
        assert!((d - 0.5).abs() < 1e-15 && (n - Vec3::new(1.0, 1.0, 0.0).normalize()).norm() < 1e-15);
        assert!((b.signed_distance(&Vec3::new(1.0, 0.0, 0.0)).0 + 0.5).abs() < 1e-15);
        let c = Shape::Capsule { a: Vec3::zeros(), b: Vec3::new(0.0, 2.0, 0.0), radius: 0.5 };
        let (d, n) = c.signed_distance(&Vec3::new(0.0, 3.0, 0.0));
        assert!((d - 0.5).abs() < 1e-15 && n == Vec3::y());
        let (d, n) = c.signed_distance(&Vec3::new(0.0, 1.0, -0.2));
        assert!((d + 0.3).abs() < 1e-15 && n == -Vec3::z());
        let (d, n) = c.signed_distance(&Vec3::new(3.0, -4.0, 0.0));
        assert!((d - 4.5).abs() < 1e-15 && (n - Vec3::new(0.6, -0.8, 0.0)).norm() < 1e-15);
        let (d, n) = c.signed_distance(&Vec3::new(0.0, 1.0, 0.0));
        assert!(d == -0.5 && (n.norm() - 1.0).abs() < 1e-15 && n.y == 0.0);
        assert_eq!(c.reference_point(), Vec3::y());
    }

    /// A collider that translates along a path and spins: a material point carried by the pose keeps its rest
    /// distance, the normal turns with the pose, and `velocity_at` is the central difference of its track.
    #[test]
    fn moving_collider_follows_its_pose() {
        let motion = Motion {
            velocity: Vec3::new(0.2, 0.0, -0.1),
            angular_velocity: Vec3::new(0.5, 1.5, -1.0),
            path: vec![PathKey { t: 0.0, translate: Vec3::zeros() }, PathKey { t: 1.0, translate: Vec3::new(0.0, -0.5, 0.3) }],
        };
        for shape in shapes() {
            let c = Collider { shape: shape.clone(), friction: Friction::default(), restitution: 0.0, motion: motion.clone() };
            let r0 = shape.reference_point();
            for rest in mesh_sdf::tests::points(20, Vec3::repeat(0.25), 1.0) {
                let (d0, n0) = shape.signed_distance(&rest);
                // Away from the path's keys, where its velocity jumps.
                for t in [0.05, 0.3, 0.8, 1.7] {
                    let at = |t: f64| (c.motion.pose(&r0, t) * Point3::from(rest)).coords;
                    let (d, n) = c.signed_distance(&at(t), t);
                    assert!((d - d0).abs() < 1e-12, "{shape:?} t = {t}: {d} vs {d0}");
                    assert!((n - c.motion.pose(&r0, t).rotation * n0).norm() < 1e-9);
                    let e = 1e-6;
                    let fd = (at(t + e) - at(t - e)) / (2.0 * e);
                    assert!((c.velocity_at(&at(t), t) - fd).norm() < 1e-6, "{shape:?} t = {t}");
                }
            }
        }
        let still = Collider::fixed(shapes()[1].clone(), Friction::default(), 0.0);
        assert_eq!(still.velocity_at(&Vec3::x(), 3.0), Vec3::zeros());
        assert_eq!(still.signed_distance(&Vec3::x(), 3.0), still.shape.signed_distance(&Vec3::x()));
    }
}
