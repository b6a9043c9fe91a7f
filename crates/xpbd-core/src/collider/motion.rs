//! Kinematic motion of a collider: a constant velocity, a constant angular velocity about the collider's
//! reference point, and a keyframed translation path. The pose at time t maps a rest-frame point X to
//! x(t) = r₀ + R(t)(X − r₀) + v·t + p(t), with R(t) the rotation by the angle |ω|·t about ω, r₀ the reference
//! point at rest and p(t) the piecewise-linear path offset.

use crate::mesh::Vec3;
use nalgebra::{Isometry3, Translation3, UnitQuaternion};

/// One key of a path: the offset `translate` (m) reached at time `t` (s).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathKey {
    pub t: f64,
    pub translate: Vec3,
}

/// How a collider moves; the default is at rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Motion {
    /// m/s.
    pub velocity: Vec3,
    /// rad/s about the reference point.
    pub angular_velocity: Vec3,
    /// Keys with strictly increasing times; empty: no path. Between keys the offset is interpolated
    /// linearly, before the first and after the last it holds the end value.
    pub path: Vec<PathKey>,
}

impl Motion {
    /// No velocity, no angular velocity and no path: the collider stays at its rest pose.
    pub fn is_static(&self) -> bool {
        self.velocity == Vec3::zeros() && self.angular_velocity == Vec3::zeros() && self.path.is_empty()
    }

    /// The rigid map from the rest frame to the world at time `t` for reference point `reference`:
    /// X ↦ reference + R(t)(X − reference) + v·t + p(t).
    pub fn pose(&self, reference: &Vec3, t: f64) -> Isometry3<f64> {
        let rotation = UnitQuaternion::from_scaled_axis(self.angular_velocity * t);
        let shift = reference - rotation * reference + self.velocity * t + self.path_offset(t);
        Isometry3::from_parts(Translation3::from(shift), rotation)
    }

    /// The world velocity at time `t` of the material point at `x`: v + ω × (x − r(t)) + ṗ(t), with
    /// r(t) = `reference` + v·t + p(t) the moved reference point.
    pub fn velocity_at(&self, reference: &Vec3, x: &Vec3, t: f64) -> Vec3 {
        let r = reference + self.velocity * t + self.path_offset(t);
        self.velocity + self.angular_velocity.cross(&(x - r)) + self.path_velocity(t)
    }

    /// The segment of the path that governs time `t`: `Some(i)` for keys i and i + 1 with
    /// tᵢ ≤ t < tᵢ₊₁, `None` before the first key, after the last, or for a path of fewer than two keys.
    fn segment(&self, t: f64) -> Option<usize> {
        let after = self.path.partition_point(|k| k.t <= t);
        (after >= 1 && after < self.path.len()).then(|| after - 1)
    }

    /// p(t): the path's offset, linear between keys and clamped to the end keys outside them (zero
    /// without a path).
    pub fn path_offset(&self, t: f64) -> Vec3 {
        match (self.segment(t), self.path.first(), self.path.last()) {
            (Some(i), _, _) => {
                let (a, b) = (&self.path[i], &self.path[i + 1]);
                let s = (t - a.t) / (b.t - a.t);
                a.translate + (b.translate - a.translate) * s
            }
            (None, Some(first), Some(last)) => if t < first.t { first } else { last }.translate,
            _ => Vec3::zeros(),
        }
    }

    /// ṗ(t): the slope of the segment that holds t (the later one at a key), zero outside the keys.
    pub fn path_velocity(&self, t: f64) -> Vec3 {
        self.segment(t).map_or_else(Vec3::zeros, |i| {
            let (a, b) = (&self.path[i], &self.path[i + 1]);
            (b.translate - a.translate) / (b.t - a.t)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path() -> Motion {
        let key = |t, x: f64| PathKey { t, translate: Vec3::new(x, 2.0 * x, 0.0) };
        Motion { path: vec![key(0.5, 1.0), key(1.0, 3.0), key(2.0, 1.0)], ..Default::default() }
    }

    /// Between keys the offset is the linear interpolant; outside it holds the end keys, where the
    /// path does not move.
    #[test]
    fn path_interpolates_and_clamps() {
        let m = path();
        let x = |t| m.path_offset(t).x;
        assert_eq!([x(-3.0), x(0.5), x(0.75), x(1.0), x(1.5), x(2.0), x(9.0)], [1.0, 1.0, 2.0, 3.0, 2.0, 1.0, 1.0]);
        assert_eq!(m.path_offset(0.75), Vec3::new(2.0, 4.0, 0.0));
        assert_eq!([m.path_velocity(0.0).x, m.path_velocity(0.7).x, m.path_velocity(1.0).x, m.path_velocity(2.5).x], [0.0, 4.0, -2.0, 0.0]);
        let one = Motion { path: vec![PathKey { t: 1.0, translate: Vec3::x() }], ..Default::default() };
        assert_eq!((one.path_offset(0.0), one.path_offset(5.0), one.path_velocity(1.0)), (Vec3::x(), Vec3::x(), Vec3::zeros()));
        assert!(!one.is_static() && Motion::default().is_static());
    }

    /// The pose keeps the reference point on the translated track, and `velocity_at` is the central
    /// difference of a moving material point's pose.
    #[test]
    fn velocity_is_the_derivative_of_the_pose() {
        let m = Motion { velocity: Vec3::new(0.3, -0.2, 0.1), angular_velocity: Vec3::new(1.0, -2.0, 0.5), ..path() };
        let r0 = Vec3::new(0.5, 1.0, -1.0);
        let material = Vec3::new(1.2, 0.4, -0.3);
        for t in [0.1, 0.6, 1.3, 2.4] {
            let at = |t: f64| m.pose(&r0, t) * nalgebra::Point3::from(material);
            let reference = m.pose(&r0, t) * nalgebra::Point3::from(r0);
            assert!((reference.coords - (r0 + m.velocity * t + m.path_offset(t))).norm() < 1e-14);
            let e = 1e-6;
            let fd = (at(t + e) - at(t - e)) / (2.0 * e);
            let v = m.velocity_at(&r0, &at(t).coords, t);
            assert!((fd - v).norm() < 1e-7 * (1.0 + v.norm()), "t = {t}: {fd:?} vs {v:?}");
        }
    }
}
