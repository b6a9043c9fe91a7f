//! Edge distance constraint C = ‖x1 − x0‖ − L (XPBD cloth report §3.2), gradients ∓n.

use crate::mesh::Vec3;

/// (C, [∂C/∂x0, ∂C/∂x1]). The gradient is zero when the two points coincide.
#[inline(always)]
pub fn distance(x: &[Vec3; 2], rest_length: f64) -> (f64, [Vec3; 2]) {
    let d = x[1] - x[0];
    let len = d.norm();
    let n = if len > 1e-15 { d * (1.0 / len) } else { Vec3::zeros() };
    (len - rest_length, [-n, n])
}
