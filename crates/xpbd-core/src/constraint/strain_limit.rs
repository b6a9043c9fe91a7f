//! Strain limiting of cloth triangles (docs/cloth.md): after each solver iteration, the singular values of
//! each triangle's in-plane deformation gradient F = [x₁ − x₀, x₂ − x₀]·D_m⁻¹ (3×2, D_m the rest edges in a
//! 2D frame of the rest triangle: [`crate::fem::shell::TriangleRest`]'s) are clamped to [min, max], and the triangle's vertices move, mass-weighted,
//! onto the triangle of gradient U·clamp(Σ)·Vᵀ with the same mass-weighted centroid (pinned vertices stay,
//! and the others follow their mean offset).

use crate::fem::shell::membrane::in_plane_gradient;
use crate::mesh::Vec3;
use nalgebra::{Matrix2, Matrix3x2, SymmetricEigen};

/// Bounds on the principal stretches of a triangle; `min = 0` or `max = ∞` turns a side off.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StrainLimit {
    pub min: f64,
    pub max: f64,
}

/// The singular values (σ₁ ≥ σ₂) of the triangle's F and its SVD factors, from FᵀF = V Σ² Vᵀ.
fn svd(f: &Matrix3x2<f64>) -> ([f64; 2], Matrix2<f64>) {
    let eig = SymmetricEigen::new(f.transpose() * f);
    let (i, j) = if eig.eigenvalues[0] >= eig.eigenvalues[1] { (0, 1) } else { (1, 0) };
    let v = Matrix2::from_columns(&[eig.eigenvectors.column(i).into_owned(), eig.eigenvectors.column(j).into_owned()]);
    ([eig.eigenvalues[i].max(0.0).sqrt(), eig.eigenvalues[j].max(0.0).sqrt()], v)
}

/// The singular values (σ₁ ≥ σ₂) of F for the triangle at positions `x` with rest frame `dm_inv`.
pub fn principal_stretches(x: &[Vec3; 3], dm_inv: &Matrix2<f64>) -> [f64; 2] {
    svd(&in_plane_gradient(dm_inv, x)).0
}

/// Projects the triangle at `x` (inverse masses `w`) onto the limit; no change when its stretches are
/// within it, or when a stretch is too small to give the in-plane directions.
pub fn project(limit: &StrainLimit, dm_inv: &Matrix2<f64>, w: &[f64; 3], x: &mut [Vec3; 3]) {
    let f = in_plane_gradient(dm_inv, x);
    let (sigma, v) = svd(&f);
    let clamped = sigma.map(|s| s.clamp(limit.min, limit.max));
    if clamped == sigma || sigma[1] < 1e-9 {
        return;
    }
    // U's columns F vᵢ/σᵢ, so U·clamp(Σ)·Vᵀ = F V diag(clamp(σ)/σ) Vᵀ.
    let scale = Matrix2::from_diagonal(&nalgebra::Vector2::new(clamped[0] / sigma[0], clamped[1] / sigma[1]));
    let target = f * v * scale * v.transpose() * dm_inv.try_inverse().expect("a rest frame is invertible");
    let shape = [Vec3::zeros(), target.column(0).into_owned(), target.column(1).into_owned()];
    let pinned = w.contains(&0.0);
    // The mass-weighted (or, with pins, the pinned vertices') mean offset from the target shape.
    let weight = |i: usize| if pinned { (w[i] == 0.0) as u8 as f64 } else { 1.0 / w[i] };
    let total: f64 = (0..3).map(weight).sum();
    let offset = (0..3).map(|i| (x[i] - shape[i]) * weight(i)).sum::<Vec3>() / total;
    for i in 0..3 {
        if w[i] > 0.0 {
            x[i] = shape[i] + offset;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fem::shell::TriangleRest;

    #[test]
    fn stretched_triangle_is_clamped_keeping_its_centroid() {
        let rest = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
        let dm_inv = TriangleRest::new(&rest).unwrap().dm_inv;
        let mut x = [Vec3::new(0.0, 0.0, 0.1), Vec3::new(1.5, 0.0, 0.1), Vec3::new(0.0, 0.8, 0.1)];
        let centroid = (x[0] + x[1] + x[2]) / 3.0;
        let limit = StrainLimit { min: 0.9, max: 1.1 };
        project(&limit, &dm_inv, &[1.0; 3], &mut x);
        let s = principal_stretches(&x, &dm_inv);
        assert!((s[0] - 1.1).abs() < 1e-12 && (s[1] - 0.9).abs() < 1e-12, "{s:?}");
        assert!(((x[0] + x[1] + x[2]) / 3.0 - centroid).norm() < 1e-12);
        let mut pinned = [Vec3::zeros(), Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
        project(&limit, &dm_inv, &[0.0, 1.0, 1.0], &mut pinned);
        assert_eq!(pinned[0], Vec3::zeros());
        assert!((principal_stretches(&pinned, &dm_inv)[0] - 1.1).abs() < 1e-12);
    }
}
