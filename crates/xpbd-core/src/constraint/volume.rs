//! Tetrahedral volume constraint C = det F − target, with ∂C/∂F the cofactor matrix
//! [f2×f3, f3×f1, f1×f2] (docs/equations.md). The stable neo-Hookean hydrostatic constraint is this with
//! target γ; a pure volume constraint uses target 1.

use nalgebra::Matrix3;

/// Returns (det F − target, ∂ det F / ∂F).
#[inline(always)]
pub fn volume_constraint(f: &Matrix3<f64>, target: f64) -> (f64, Matrix3<f64>) {
    let (f1, f2, f3) = (f.column(0), f.column(1), f.column(2));
    let cof = Matrix3::from_columns(&[f2.cross(&f3), f3.cross(&f1), f1.cross(&f2)]);
    (f1.dot(&cof.column(0)) - target, cof)
}
