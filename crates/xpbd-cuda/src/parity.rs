//! How close the CUDA backend must come to the CPU backend (the reference, ARCHITECTURE.md): the measures and
//! tolerances of the parity tests (`tests/backend_parity.rs`, `tests/amg_parity.rs`), shared with the self-test
//! of `xpbd doctor` so that a device validated there passed the same comparisons.

use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

use crate::Precision;

/// XPBD, one frame: how far the device's positions may be from the CPU's, as a fraction of the body's size
/// ([`body_size`]): 1e-9 in double precision (the same arithmetic in another order), 1e-3 in single.
pub fn xpbd_position_tolerance(precision: Precision) -> f64 {
    match precision {
        Precision::F64 => 1e-9,
        Precision::F32 => 1e-3,
    }
}

/// XPBD in double precision: how far the device's final residual may be from the CPU's `cpu` (1e-6 of it, at
/// least 1e-18). In single precision residuals are not compared: the round-off of C near 1 is 1e-7 per row.
pub fn xpbd_residual_tolerance(cpu: f64) -> f64 {
    1e-6 * cpu.abs().max(1e-12)
}

/// Contact forces after one frame: per vertex within this fraction of the largest force. Positions agree to
/// 1e-9 of the body size and a force is m Δx/h², the largest an impact's.
pub const CONTACT_FORCE_TOLERANCE: f64 = 1e-4;

/// MGPBD, whole frames: the device's positions within this fraction of the CPU's ([`relative_distance`]).
pub const MGPBD_POSITION_TOLERANCE: f64 = 1e-6;

/// MGPBD, whole frames: how far the device's final relative residual may be from the CPU's `cpu`. Where
/// `from_r0` (runs whose outer loop ends where C + α̃λ has cancelled most digits, or whose linear solves stop at
/// their cap), 1e-6 of the substep's starting residual r0; else 1e-6 of itself plus 1e-12, the round-off floor of
/// a residual computed from terms of r0's size (about 1e4 ε), which matters only where a run converges to
/// round-off (the dropped ball's first frame ends at 3.3e-16 r0, and an H200's summation order moved it by 2 %).
pub fn mgpbd_residual_tolerance(from_r0: bool, cpu: f64) -> f64 {
    if from_r0 {
        1e-6
    } else {
        1e-6 * cpu + 1e-12
    }
}

/// MGPBD, whole frames: the same outer iterations, and the linear iterations (summed over them) within one per
/// outer iteration: rounding in another summation order may move a PCG stop by one iteration.
pub fn mgpbd_iterations_agree(outer: (usize, usize), linear: (usize, usize)) -> bool {
    outer.0 == outer.1 && linear.0.abs_diff(linear.1) <= outer.0
}

/// The diagonal of the bounding box of `model`'s rest positions, in m.
pub fn body_size(model: &Model) -> f64 {
    let (lo, hi) = model.rest.iter().fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    (hi - lo).norm()
}

/// The largest distance between corresponding points of `a` and `b`, in m.
pub fn largest_distance(a: &[Vec3], b: &[Vec3]) -> f64 {
    a.iter().zip(b).map(|(p, q)| (p - q).norm()).fold(0.0, f64::max)
}

/// ‖x − reference‖ / ‖reference‖ over all coordinates.
pub fn relative_distance(x: &[Vec3], reference: &[Vec3]) -> f64 {
    let dx: f64 = x.iter().zip(reference).map(|(a, b)| (a - b).norm_squared()).sum::<f64>().sqrt();
    dx / reference.iter().map(|a| a.norm_squared()).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerances_are_those_of_the_parity_tests() {
        assert_eq!((xpbd_position_tolerance(Precision::F64), xpbd_position_tolerance(Precision::F32)), (1e-9, 1e-3));
        assert_eq!(mgpbd_residual_tolerance(true, 1e-3), 1e-6);
        assert!((mgpbd_residual_tolerance(false, 1e-3) - (1e-9 + 1e-12)).abs() < 1e-20);
        assert!(mgpbd_iterations_agree((3, 3), (20, 23)) && !mgpbd_iterations_agree((3, 3), (20, 24)) && !mgpbd_iterations_agree((3, 4), (20, 20)));
    }

    #[test]
    fn distances() {
        let a = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(3.0, 4.0, 0.0)];
        let b = [Vec3::new(0.0, 0.0, 1.0), Vec3::new(3.0, 4.0, 0.0)];
        assert_eq!(largest_distance(&a, &b), 1.0);
        assert!((relative_distance(&b, &a) - 0.2).abs() < 1e-15);
    }
}
