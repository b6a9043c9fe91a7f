//! Dihedral bending constraint for cloth (XPBD cloth report §3.3): C = θ − θ₀ with θ the signed
//! angle between the normals of the triangles (x0, x1, x2) and (x1, x0, x3) sharing the edge x0–x1.
//! Gradients in the closed form of Bridson et al. 2003; the signed atan2 angle avoids the
//! arccos singularity of the flat state. atan2 wraps at ±π; [`bending_near`] unwraps it onto the branch
//! nearest a hinge's previous angle, so that a fold through 180° keeps the sign of its constraint.

use crate::mesh::Vec3;

/// θ, the signed dihedral angle (0 when flat), of the hinge (x0, x1; x2, x3).
#[inline]
pub fn dihedral_angle(x: &[Vec3; 4]) -> f64 {
    let e = x[1] - x[0];
    let n1 = e.cross(&(x[2] - x[0]));
    let n2 = (x[3] - x[0]).cross(&e);
    let le = e.norm();
    n1.cross(&n2).dot(&e).atan2(n1.dot(&n2) * le)
}

/// The compliance α_e of hinge `x` (rest positions) for a plate of bending modulus `d` (N·m), so that
/// its XPBD energy ½ α_e⁻¹ (θ − θ̄)² is the discrete-shells energy k w_e (θ − θ̄)² ("Discrete Shells",
/// Grinspun et al. 2003; the ‖ē‖/h̄ form of "Discrete bending forces and their Jacobians", Tamstorf and
/// Grinspun 2013) with
///
///   w_e = ‖ē‖² / Ā_e,  Ā_e = (A₁ + A₂)/3,  k = D/6,  hence  α_e = 1/(2 k w_e) = 3 / (D w_e),
///
/// A₁, A₂ the rest areas of the two triangles. Ā_e is a third of their sum, so ‖ē‖²/Ā_e = ‖ē‖/h̄ with h̄
/// a sixth of the sum of the two heights over ē. Calibration of k: a regular right-triangle grid of
/// spacing a bent onto a cylinder of curvature κ has dihedral angle κa on the edges parallel to the axis
/// (one per cell of area a², between two triangles of area a²/2: w = a²/(a²/3) = 3) and 0 on the others
/// (the four corners of a cell are coplanar), so Σ w_e θ_e² = 3κ² per unit area; the plate energy is
/// D/2 κ² per unit area (Kirchhoff, ν = 0), hence 3k = D/2 and k = D/6. D = E t³/12 for ν = 0.
pub fn plate_compliance(d: f64, x: &[Vec3; 4]) -> f64 {
    let e = x[1] - x[0];
    let twice_areas = e.cross(&(x[2] - x[0])).norm() + (x[3] - x[0]).cross(&e).norm();
    let w = e.norm_squared() / (twice_areas / 6.0);
    3.0 / (d * w)
}

/// The angle θ_raw + 2π n (θ_raw in (−π, π] from atan2) nearest `previous`:
/// θ = θ_raw + 2π·round((θ_prev − θ_raw)/2π), continuous as a hinge folds through ±π.
#[inline]
pub fn unwrap_angle(raw: f64, previous: f64) -> f64 {
    let turn = std::f64::consts::TAU;
    raw + turn * ((previous - raw) / turn).round()
}

/// (θ − θ₀, ∂θ/∂x, θ) with θ [unwrapped](unwrap_angle) onto the branch nearest `previous`, the hinge's
/// last angle (the gradient does not depend on the branch), as long as |θ| ≤ [`UNWRAP_LIMIT`]; beyond it
/// the raw angle.
#[inline]
pub fn bending_near(x: &[Vec3; 4], rest_angle: f64, previous: f64) -> (f64, [Vec3; 4], f64) {
    let (c, g) = bending(x, rest_angle);
    let raw = c + rest_angle;
    let theta = Some(unwrap_angle(raw, previous)).filter(|t| t.abs() <= UNWRAP_LIMIT).unwrap_or(raw);
    (theta - rest_angle, g, theta)
}

/// 3π/2: past it a hinge's wings have gone through each other by more than a right angle (contact does not
/// act between the two triangles of a hinge), and the fold is taken as flipped, as the raw atan2 angle
/// has it. Unwrapping without a limit left a hinge of the cloth-over-sphere scene driven to 1.56π by contact
/// stuck on the crossed branch, its wings crossing for the rest of the run.
pub const UNWRAP_LIMIT: f64 = 1.5 * std::f64::consts::PI;

/// (θ − θ₀, ∂θ/∂x) with θ in (−π, π]. The gradient is zero for a degenerate hinge.
#[inline]
pub fn bending(x: &[Vec3; 4], rest_angle: f64) -> (f64, [Vec3; 4]) {
    let e = x[1] - x[0];
    let n1 = e.cross(&(x[2] - x[0]));
    let n2 = (x[3] - x[0]).cross(&e);
    let (le, a1, a2) = (e.norm(), n1.norm_squared(), n2.norm_squared());
    let theta = n1.cross(&n2).dot(&e).atan2(n1.dot(&n2) * le);
    if le < 1e-15 || a1 < 1e-30 || a2 < 1e-30 {
        return (theta - rest_angle, [Vec3::zeros(); 4]);
    }
    let (u1, u2) = (n1 * (1.0 / a1), n2 * (1.0 / a2));
    let g2 = -u1 * le;
    let g3 = -u2 * le;
    let inv_le = 1.0 / le;
    let s2 = (x[2] - x[1]).dot(&e) * inv_le;
    let s3 = (x[3] - x[1]).dot(&e) * inv_le;
    let t2 = (x[2] - x[0]).dot(&e) * inv_le;
    let t3 = (x[3] - x[0]).dot(&e) * inv_le;
    let g0 = -(u1 * s2 + u2 * s3);
    let g1 = u1 * t2 + u2 * t3;
    (theta - rest_angle, [g0, g1, g2, g3])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    /// The hinge (x0, x1) on the y axis with its wings at fold angle `phi`: x2 at +x, x3 rotated by π − phi
    /// about the edge, so the dihedral angle is ±phi.
    fn hinge(phi: f64) -> [Vec3; 4] {
        let w = Vec3::new((PI - phi).cos(), 0.5, (PI - phi).sin());
        [Vec3::new(0.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0), Vec3::new(1.0, 0.5, 0.0), w]
    }

    #[test]
    fn angle_unwraps_through_pi() {
        assert!((unwrap_angle(-0.9 * PI, 0.95 * PI) - 1.1 * PI).abs() < 1e-12);
        assert_eq!(unwrap_angle(0.3, 0.2), 0.3);
        let sign = dihedral_angle(&hinge(0.1)).signum();
        let (mut previous, mut last_energy) = (0.0, 0.0);
        let steps = 240;
        for k in 1..=steps {
            let phi = 1.2 * PI * k as f64 / steps as f64;
            let (c, _, theta) = bending_near(&hinge(phi), 0.0, previous);
            assert!((theta - sign * phi).abs() < 1e-9, "fold {phi}: θ = {theta}");
            let energy = 0.5 * c * c;
            assert!((energy - last_energy).abs() < 0.1, "energy jumps from {last_energy} to {energy} at fold {phi}");
            (previous, last_energy) = (theta, energy);
        }
        let raw = dihedral_angle(&hinge(1.2 * PI));
        assert!((raw + sign * 0.8 * PI).abs() < 1e-9, "atan2 wraps: {raw}");
    }
}
