//! Tetrahedral kinematics (docs/equations.md): D_m, F = D_s D_m⁻¹, and node gradients from ∂C/∂F.

use crate::mesh::Vec3;
use nalgebra::Matrix3;

/// Rest data of one tetrahedron: the inverse rest shape matrix and the rest volume.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TetRest {
    pub dm_inv: Matrix3<f64>,
    pub volume: f64,
}

impl TetRest {
    /// From rest positions of a positively oriented tet. `None` when degenerate.
    pub fn new(x: &[Vec3; 4]) -> Option<Self> {
        let dm = shape_matrix(x);
        let volume = dm.determinant() / 6.0;
        let dm_inv = dm.try_inverse()?;
        (volume > 0.0).then_some(TetRest { dm_inv, volume })
    }
}

/// D = [x1−x0, x2−x0, x3−x0].
#[inline(always)]
pub fn shape_matrix(x: &[Vec3; 4]) -> Matrix3<f64> {
    Matrix3::from_columns(&[x[1] - x[0], x[2] - x[0], x[3] - x[0]])
}

/// Deformation gradient F = D_s D_m⁻¹.
#[inline(always)]
pub fn deformation_gradient(x: &[Vec3; 4], dm_inv: &Matrix3<f64>) -> Matrix3<f64> {
    shape_matrix(x) * dm_inv
}

/// Node gradients of a constraint with ∂C/∂F = P: [g1 g2 g3] = P D_m⁻ᵀ, g0 = −(g1 + g2 + g3).
#[inline(always)]
pub fn node_gradients(p: &Matrix3<f64>, dm_inv: &Matrix3<f64>) -> [Vec3; 4] {
    let g = p * dm_inv.transpose();
    let (g1, g2, g3) = (g.column(0).into_owned(), g.column(1).into_owned(), g.column(2).into_owned());
    [-(g1 + g2 + g3), g1, g2, g3]
}
