//! Per-element Green strain rate by finite differences, Ė = (Eᵗ − Eᵗ⁻¹)/h (the multi-layer paper
//! Eq. 20), the ordering key of the strain-rate layers.

use super::element_history::ElementHistory;
use crate::constraint::tet::{deformation_gradient, TetRest};
use crate::mesh::Vec3;
use nalgebra::Matrix3;

/// Green strain `E = ½(FᵀF − I)` of one tetrahedron.
pub fn green_strain(x: &[Vec3; 4], rest: &TetRest) -> Matrix3<f64> {
    crate::fem::energy::green_strain(&deformation_gradient(x, &rest.dm_inv))
}

/// The strains of the previous step, and the rates `‖Ė‖_F` they give.
pub type StrainRate = ElementHistory<Matrix3<f64>>;

impl StrainRate {
    /// Records the strains of the tets at positions `x` and sets `rate` from the change since the
    /// previous call, `h` seconds earlier (Eq. 20), the elements in parallel.
    pub fn update(&mut self, tets: &[[u32; 4]], rest: &[TetRest], x: &[Vec3], h: f64) {
        self.record(tets, rest, x, green_strain, |_, now, last| ((now - last) / h).norm());
    }

    /// Resumes from a checkpoint: the strains of the tets at `x` and the saved `rate`.
    pub fn restore(&mut self, tets: &[[u32; 4]], rest: &[TetRest], x: &[Vec3], rate: &[f64]) {
        self.resume(tets, rest, x, rate, green_strain);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Rotation3;

    fn rest_tet() -> ([Vec3; 4], TetRest) {
        let x = [Vec3::new(0.1, 0.0, 0.0), Vec3::new(1.0, 0.2, 0.0), Vec3::new(0.0, 1.1, 0.1), Vec3::new(0.2, 0.1, 0.9)];
        (x, TetRest::new(&x).unwrap())
    }

    #[test]
    fn affine_motion_has_the_analytic_rate() {
        // x(t) = (I + tG) X: F = I + tG, E(t) = ½(t(G + Gᵀ) + t² GᵀG), so over [t0, t0+h] the finite
        // difference is ½(G + Gᵀ) + ½(2 t0 + h) GᵀG exactly.
        let (x0, rest) = rest_tet();
        let g = Matrix3::new(0.1, -0.3, 0.2, 0.05, 0.4, -0.1, 0.3, 0.0, -0.2);
        let (t0, h) = (0.3, 0.01);
        let at = |t: f64| -> Vec<Vec3> { x0.iter().map(|p| (Matrix3::identity() + g * t) * p).collect() };
        let mut s = StrainRate::default();
        s.update(&[[0, 1, 2, 3]], &[rest], &at(t0), h);
        assert_eq!(s.rate[0], 0.0);
        s.update(&[[0, 1, 2, 3]], &[rest], &at(t0 + h), h);
        let expect = 0.5 * (g + g.transpose()) + 0.5 * (2.0 * t0 + h) * g.transpose() * g;
        assert!((s.rate[0] - expect.norm()).abs() < 1e-10, "{} vs {}", s.rate[0], expect.norm());
    }

    #[test]
    fn rigid_motion_has_zero_rate() {
        let (x0, rest) = rest_tet();
        let q = Rotation3::from_scaled_axis(Vec3::new(0.3, 1.0, -0.7));
        let moved: Vec<Vec3> = x0.iter().map(|p| q * p + Vec3::new(1.0, 2.0, 3.0)).collect();
        let mut s = StrainRate::default();
        s.update(&[[0, 1, 2, 3]], &[rest], &x0, 0.01);
        s.update(&[[0, 1, 2, 3]], &[rest], &moved, 0.01);
        assert!(s.rate[0] < 1e-12);
    }
}
