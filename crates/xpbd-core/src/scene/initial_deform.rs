//! A body's initial positions as a deformation of its placed rest shape (`[body.initial_deform]`):
//! the scenes that start squashed or twisted and are released (MGPBD paper Figs. 8, 12, 13).

use super::schema::InitialDeform;
use crate::mesh::Vec3;
use crate::{Error, Result};
use nalgebra::{Rotation3, Unit};

/// The deformed positions of `rest` (one body, world frame). About the centre c of the bounding box:
/// `x = c + T(z) S (X − c)`, S the per-axis scale and T a rotation about the twist axis through c by
/// `θ (z − z_min)/(z_max − z_min) − θ/2`, z the rest coordinate along that axis (so the two ends turn
/// by ∓θ/2 and the middle stays). `what` names the body in errors.
pub fn deform(rest: &[Vec3], d: &InitialDeform, what: &str) -> Result<Vec<Vec3>> {
    let field = |f: &str| format!("{what}.initial_deform.{f}");
    if let Some(bad) = d.scale.iter().find(|s| !(s.is_finite() && **s > 0.0)) {
        return Err(Error::invalid(format!("{}: every factor must be positive (an inverted start is not a state), got {bad}", field("scale"))));
    }
    if !d.twist_degrees.is_finite() {
        return Err(Error::invalid(format!("{}: must be finite, got {}", field("twist_degrees"), d.twist_degrees)));
    }
    let axis = match d.twist_axis.as_deref() {
        None if d.twist_degrees != 0.0 => return Err(Error::invalid(format!("{}: required with twist_degrees", field("twist_axis")))),
        None => 0,
        Some("x") => 0,
        Some("y") => 1,
        Some("z") => 2,
        Some(other) => return Err(Error::invalid(format!("{}: '{other}' is not one of x, y, z", field("twist_axis")))),
    };
    let (lo, hi) = rest.iter().fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    let centre = (lo + hi) * 0.5;
    let extent = hi[axis] - lo[axis];
    let theta = d.twist_degrees.to_radians();
    let unit = Unit::new_unchecked(Vec3::ith(axis, 1.0));
    let scale = Vec3::from(d.scale);
    Ok(rest
        .iter()
        .map(|p| {
            let s = (p - centre).component_mul(&scale);
            let along = if extent > 0.0 { (p[axis] - lo[axis]) / extent - 0.5 } else { 0.0 };
            centre + Rotation3::from_axis_angle(&unit, theta * along) * s
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(scale: [f64; 3], axis: Option<&str>, degrees: f64) -> InitialDeform {
        InitialDeform { scale, twist_axis: axis.map(str::to_string), twist_degrees: degrees }
    }

    /// A bar along x from 0 to 2 with unit square section centred on the x axis.
    fn bar() -> Vec<Vec3> {
        let mut v = Vec::new();
        for i in 0..=4 {
            for (y, z) in [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)] {
                v.push(Vec3::new(0.5 * i as f64, y, z));
            }
        }
        v
    }

    #[test]
    fn identity_leaves_the_rest_shape() {
        let r = bar();
        assert_eq!(deform(&r, &spec([1.0; 3], None, 0.0), "body[0]").unwrap(), r);
    }

    /// Scaling about the box centre: the centre stays, extents scale.
    #[test]
    fn squash_scales_about_the_centre() {
        let r = bar();
        let x = deform(&r, &spec([1.0, 0.2, 1.0], None, 0.0), "body[0]").unwrap();
        for (p, q) in r.iter().zip(&x) {
            assert!((q.x - p.x).abs() < 1e-15 && (q.y - 0.2 * p.y).abs() < 1e-15 && (q.z - p.z).abs() < 1e-15);
        }
    }

    /// A 90° twist about x: the ends turn by ∓45° about the bar's axis (through the box centre
    /// (1, 0, 0)), the middle section stays, and every point keeps its distance to the axis.
    #[test]
    fn twist_turns_the_ends_by_half_the_angle() {
        let r = bar();
        let x = deform(&r, &spec([1.0; 3], Some("x"), 90.0), "body[0]").unwrap();
        let quarter = std::f64::consts::FRAC_PI_4;
        for (p, q) in r.iter().zip(&x) {
            let angle = quarter * (p.x - 1.0);
            let (c, s) = (angle.cos(), angle.sin());
            let expect = Vec3::new(p.x, c * p.y - s * p.z, s * p.y + c * p.z);
            assert!((q - expect).norm() < 1e-14, "{p:?} went to {q:?}, expected {expect:?}");
        }
        assert!(r.iter().zip(&x).filter(|(p, _)| p.x == 1.0).all(|(p, q)| (p - q).norm() < 1e-15));
    }

    #[test]
    fn bad_fields_are_named() {
        let r = bar();
        let e = deform(&r, &spec([1.0, 0.0, 1.0], None, 0.0), "body[2]").unwrap_err().to_string();
        assert!(e.contains("body[2].initial_deform.scale") && e.contains("positive"), "{e}");
        let e = deform(&r, &spec([1.0; 3], None, 30.0), "body[0]").unwrap_err().to_string();
        assert!(e.contains("twist_axis") && e.contains("required"), "{e}");
        let e = deform(&r, &spec([1.0; 3], Some("w"), 30.0), "body[0]").unwrap_err().to_string();
        assert!(e.contains("'w'"), "{e}");
    }
}
