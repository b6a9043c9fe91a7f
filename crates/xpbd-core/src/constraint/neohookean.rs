//! Stable neo-Hookean constraints (Macklin & Müller 2021; block paper Eq. 7–9):
//! hydrostatic C_H = det F − γ with α_H = 1/(λV), deviatoric C_D = sqrt(tr FᵀF) with α_D = 1/(μV),
//! γ = 1 + μ/λ. Solved as two scalar updates (`neohookean`) or as one 2×2 block (`neohookean_block`).

use super::volume::volume_constraint;
use crate::material::Lame;
use nalgebra::Matrix3;

/// γ = 1 + μ/λ: the rest value of det F that makes the rest state stress-free.
#[inline(always)]
pub fn gamma(l: &Lame) -> f64 {
    1.0 + l.mu / l.lambda
}

/// (C_H, ∂C_H/∂F).
#[inline(always)]
pub fn hydrostatic(f: &Matrix3<f64>, gamma: f64) -> (f64, Matrix3<f64>) {
    volume_constraint(f, gamma)
}

/// (C_D, ∂C_D/∂F) = (sqrt(tr FᵀF), F / C_D). C_D ≥ 0 vanishes only at F = 0 (gradient then zero).
#[inline(always)]
pub fn deviatoric(f: &Matrix3<f64>) -> (f64, Matrix3<f64>) {
    let c = f.norm();
    let g = if c > 1e-12 { f * (1.0 / c) } else { Matrix3::zeros() };
    (c, g)
}

/// Compliances (α_H, α_D) of an element of rest volume `v`.
#[inline(always)]
pub fn compliances(l: &Lame, v: f64) -> [f64; 2] {
    [1.0 / (l.lambda * v), 1.0 / (l.mu * v)]
}

/// Strain energy density Ψ = μ/2 (tr FᵀF − 3) + λ/2 (det F − γ)², shifted so that Ψ(I) = 0.
pub fn energy_density(f: &Matrix3<f64>, l: &Lame) -> f64 {
    let g = gamma(l);
    let (ch, _) = hydrostatic(f, g);
    0.5 * l.mu * (f.norm_squared() - 3.0) + 0.5 * l.lambda * (ch * ch - (1.0 - g) * (1.0 - g))
}

/// First Piola–Kirchhoff stress P = ∂Ψ/∂F = μ F + λ (det F − γ) cof F.
pub fn stress(f: &Matrix3<f64>, l: &Lame) -> Matrix3<f64> {
    let (ch, cof) = hydrostatic(f, gamma(l));
    f * l.mu + cof * (l.lambda * ch)
}
