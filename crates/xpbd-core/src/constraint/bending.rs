//! Dihedral bending constraint for cloth (XPBD cloth report §3.3): C = θ − θ₀ with θ the signed
//! angle between the normals of the triangles (x0, x1, x2) and (x1, x0, x3) sharing the edge x0–x1.
//! Gradients in the closed form of Bridson et al. 2003; the signed atan2 angle avoids the
//! arccos singularity of the flat state.

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

/// (θ − θ₀, ∂θ/∂x). The gradient is zero for a degenerate hinge.
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
