//! Hyperelastic energy densities ψ(F), the first Piola stress P = ∂ψ/∂F and its exact derivative ∂P/∂F
//! (thesis "Adaptive methods for elastic deformation", ch. 3, Eq. 3.1–3.2). 9×9 matrices act on the
//! column-major vec(F): vec index 3·col + row, nalgebra's storage order.

use crate::constraint::arap;
use crate::material::Lame;
use nalgebra::{Matrix3, SMatrix, SVector, SymmetricEigen, Vector3};

/// A 9×9 matrix on vec(F).
pub type Mat9 = SMatrix<f64, 9, 9>;

/// Energy density models of the implicit solvers (thesis ch. 3, Eq. 3.1–3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Energy {
    /// St. Venant–Kirchhoff: ψ = μ‖E‖²_F + (λ/2) tr²(E), E = ½(FᵀF − I); P = F(2μE + λ tr(E) I).
    StVK,
    /// Stable neo-Hookean in the form of the XPBD constraints (Macklin & Müller 2021), with `lame` already
    /// reparametrised ([`Lame::stable_neohookean`]): ψ = (μ/2)(tr FᵀF − 3) + (λ/2)(J − γ)² − μ²/(2λ),
    /// γ = 1 + μ/λ, J = det F; P = μF + λ(J − γ) cof F, cof F = ∂J/∂F = [f₂×f₃, f₃×f₁, f₁×f₂]. The constant
    /// −μ²/(2λ) = −(λ/2)(1 − γ)² (not in the constraints' form) makes ψ(R) = 0. Needs λ ≠ 0.
    StableNeoHookean,
    /// Corotational: ψ = μ‖F − R‖²_F + (λ/2) tr²(RᵀF − I), F = RS the polar decomposition with det R = +1;
    /// P = 2μ(F − R) + λ tr(RᵀF − I) R.
    Corotational,
    /// As-rigid-as-possible: ψ = μ‖F − R‖²_F; P = 2μ(F − R). No λ term.
    Arap,
}

/// Green strain E = ½(FᵀF − I).
pub fn green_strain(f: &Matrix3<f64>) -> Matrix3<f64> {
    (f.transpose() * f - Matrix3::identity()) * 0.5
}

/// vec(M), column-major (index 3·col + row).
#[inline(always)]
pub(crate) fn vec9(m: &Matrix3<f64>) -> SVector<f64, 9> {
    SVector::<f64, 9>::from_column_slice(m.as_slice())
}

/// The unit matrix E_k with vec(E_k) = e_k: a one at row k % 3, column k / 3.
#[inline(always)]
fn unit(k: usize) -> Matrix3<f64> {
    let mut e = Matrix3::zeros();
    e[(k % 3, k / 3)] = 1.0;
    e
}

/// The polar decomposition F = RS, R from [`arap::rotation`] (det R = +1, a reflection kept in S).
struct Polar {
    r: Matrix3<f64>,
    s: Matrix3<f64>,
}

impl Polar {
    fn new(f: &Matrix3<f64>) -> Self {
        let r = arap::rotation(f);
        let s = r.transpose() * f;
        Polar { r, s: (s + s.transpose()) * 0.5 }
    }

    /// G⁻¹ with G = tr(S) I − S, whose eigenvalues are the pair sums σ_a + σ_b of the signed singular values.
    /// Where G is (nearly) singular — R is not differentiable there — a pseudo-inverse holds the rotation about
    /// the degenerate axes fixed.
    fn g_inverse(&self) -> Matrix3<f64> {
        let g = Matrix3::identity() * self.s.trace() - self.s;
        let scale = g.norm();
        let det = g.determinant();
        if det.abs() > 1e-12 * scale * scale * scale {
            // Adjugate / det (G symmetric).
            let adj = Matrix3::from_columns(&[g.column(1).cross(&g.column(2)), g.column(2).cross(&g.column(0)), g.column(0).cross(&g.column(1))]);
            adj.transpose() / det
        } else {
            let eig = SymmetricEigen::new(g);
            let inv = eig.eigenvalues.map(|x| if x.abs() > 1e-6 * scale { 1.0 / x } else { 0.0 });
            eig.eigenvectors * Matrix3::from_diagonal(&inv) * eig.eigenvectors.transpose()
        }
    }

    /// The 9×9 ∂vec(R)/∂vec(F). For F = RS, Ω = RᵀdR is skew and skew(RᵀdF) = ½(ΩS + SΩ); with Ω = [ω]×,
    /// ΩS + SΩ = [Gω]×, G = tr(S) I − S, so ω = G⁻¹ axial(RᵀdF − dFᵀR) and dR = R[ω]× (the SVD formula
    /// dR = U((UᵀdF V − VᵀdFᵀU) ⊘ (σ_a + σ_b))Vᵀ written without U, V). For dF = E_k = e_r e_cᵀ:
    /// axial = e_c × R_rowᵣᵀ.
    fn rotation_derivative(&self) -> Mat9 {
        let g_inv = self.g_inverse();
        let mut d = Mat9::zeros();
        for k in 0..9 {
            let (row, col) = (k % 3, k / 3);
            let a = self.r.row(row).transpose();
            let w = g_inv * Vector3::ith(col, 1.0).cross(&a);
            d.set_column(k, &vec9(&(self.r * w.cross_matrix())));
        }
        d
    }
}

impl Energy {
    /// ψ(F), J/m³.
    pub fn density(self, f: &Matrix3<f64>, lame: Lame) -> f64 {
        let Lame { mu, lambda } = lame;
        match self {
            Energy::StVK => {
                let e = green_strain(f);
                mu * e.norm_squared() + 0.5 * lambda * e.trace().powi(2)
            }
            Energy::StableNeoHookean => {
                let gamma = 1.0 + mu / lambda;
                0.5 * mu * (f.norm_squared() - 3.0) + 0.5 * lambda * (f.determinant() - gamma).powi(2) - 0.5 * mu * mu / lambda
            }
            Energy::Corotational | Energy::Arap => self.rotated_density(f, &Polar::new(f), lame),
        }
    }

    /// First Piola stress P = ∂ψ/∂F.
    pub fn stress(self, f: &Matrix3<f64>, lame: Lame) -> Matrix3<f64> {
        let Lame { mu, lambda } = lame;
        match self {
            Energy::StVK => {
                let e = green_strain(f);
                f * (e * (2.0 * mu) + Matrix3::identity() * (lambda * e.trace()))
            }
            Energy::StableNeoHookean => {
                let gamma = 1.0 + mu / lambda;
                f * mu + cofactor(f) * (lambda * (f.determinant() - gamma))
            }
            Energy::Corotational | Energy::Arap => self.rotated_stress(f, &Polar::new(f), lame),
        }
    }

    /// ∂P/∂F as a 9×9 matrix on column-major vec(F) (vec index = 3*col + row), the exact second derivative
    /// of ψ (not projected; see [`project_psd`]).
    pub fn stress_derivative(self, f: &Matrix3<f64>, lame: Lame) -> SMatrix<f64, 9, 9> {
        match self {
            Energy::StVK => stvk_derivative(f, lame),
            Energy::StableNeoHookean => snh_derivative(f, lame),
            Energy::Corotational | Energy::Arap => self.rotated_derivative(&Polar::new(f), lame),
        }
    }

    /// (ψ, P, ∂P/∂F, known PSD) at one F, sharing the polar decomposition. `known PSD` is a cheap
    /// sufficient test from the analytic eigenvalues of Smith et al. 2019 (§5): the scaling and flip modes of
    /// ARAP and corotation are ≥ 0 for μ, λ ≥ 0 (Hessian 2μI + λ11ᵀ in σ, flip eigenvalue 2μ), and the twist
    /// eigenvalue of the pair (a, b) is (ψ_a + ψ_b)/(σ_a + σ_b) = 2μ + (2λ(tr S − 3) − 4μ)/(σ_a + σ_b), ≥ 0
    /// when every pair sum is ≥ c = max(0, 2 − (λ/μ)(tr S − 3)) (c = 2 for ARAP), i.e. G − cI positive
    /// definite (leading minors). StVK and stable neo-Hookean report `false` (always projected).
    pub(crate) fn evaluate(self, f: &Matrix3<f64>, lame: Lame) -> (f64, Matrix3<f64>, Mat9, bool) {
        match self {
            Energy::StVK | Energy::StableNeoHookean => (self.density(f, lame), self.stress(f, lame), self.stress_derivative(f, lame), false),
            Energy::Corotational | Energy::Arap => {
                let polar = Polar::new(f);
                let Lame { mu, lambda } = lame;
                let tr = polar.s.trace();
                let c = match self {
                    Energy::Arap => 2.0,
                    _ => (2.0 - lambda / mu * (tr - 3.0)).max(0.0),
                };
                let lambda_ok = self == Energy::Arap || lambda >= 0.0;
                let psd = mu > 0.0 && lambda_ok && positive_definite(&(Matrix3::identity() * (tr - c) - polar.s));
                (self.rotated_density(f, &polar, lame), self.rotated_stress(f, &polar, lame), self.rotated_derivative(&polar, lame), psd)
            }
        }
    }

    fn rotated_density(self, f: &Matrix3<f64>, polar: &Polar, lame: Lame) -> f64 {
        let shear = lame.mu * (f - polar.r).norm_squared();
        match self {
            Energy::Arap => shear,
            _ => shear + 0.5 * lame.lambda * (polar.s.trace() - 3.0).powi(2),
        }
    }

    fn rotated_stress(self, f: &Matrix3<f64>, polar: &Polar, lame: Lame) -> Matrix3<f64> {
        let shear = (f - polar.r) * (2.0 * lame.mu);
        match self {
            Energy::Arap => shear,
            _ => shear + polar.r * (lame.lambda * (polar.s.trace() - 3.0)),
        }
    }

    /// ARAP: ∂P = 2μ(I − ∂R). Corotational adds λ vec(R)vec(R)ᵀ + λ(tr S − 3)∂R, using
    /// d tr(RᵀF) = R : dF (tr(dRᵀF) = −tr([ω]×S) = 0 for symmetric S). ∂R from [`Polar::rotation_derivative`].
    fn rotated_derivative(self, polar: &Polar, lame: Lame) -> Mat9 {
        let Lame { mu, lambda } = lame;
        let dr = polar.rotation_derivative();
        let mut h = Mat9::identity() * (2.0 * mu);
        match self {
            Energy::Arap => h -= dr * (2.0 * mu),
            _ => {
                let r = vec9(&polar.r);
                h += r * r.transpose() * lambda + dr * (lambda * (polar.s.trace() - 3.0) - 2.0 * mu);
            }
        }
        (h + h.transpose()) * 0.5
    }
}

/// cof F = ∂(det F)/∂F, columns [f₂×f₃, f₃×f₁, f₁×f₂].
pub(crate) fn cofactor(f: &Matrix3<f64>) -> Matrix3<f64> {
    let (f1, f2, f3) = (f.column(0), f.column(1), f.column(2));
    Matrix3::from_columns(&[f2.cross(&f3), f3.cross(&f1), f1.cross(&f2)])
}

/// StVK: dP = dF S + F dS with S = 2μE + λ tr(E) I, dS = 2μ dE + λ tr(dE) I, dE = sym(FᵀdF).
fn stvk_derivative(f: &Matrix3<f64>, lame: Lame) -> Mat9 {
    let Lame { mu, lambda } = lame;
    let e = green_strain(f);
    let s = e * (2.0 * mu) + Matrix3::identity() * (lambda * e.trace());
    let ft = f.transpose();
    let mut h = Mat9::zeros();
    for k in 0..9 {
        let df = unit(k);
        let ftdf = ft * df;
        let de = (ftdf + ftdf.transpose()) * 0.5;
        let ds = de * (2.0 * mu) + Matrix3::identity() * (lambda * de.trace());
        h.set_column(k, &vec9(&(df * s + f * ds)));
    }
    h
}

/// Stable neo-Hookean (Smith et al. 2018, Eq. 21–22): ∂P = μI + λ vec(cof F)vec(cof F)ᵀ + λ(J − γ) H_J, the
/// Hessian of J made of cross-product matrices of F's columns: blocks (col-block i, col-block j)
/// H_J = [[0, −[f₃]×, [f₂]×], [[f₃]×, 0, −[f₁]×], [−[f₂]×, [f₁]×, 0]].
fn snh_derivative(f: &Matrix3<f64>, lame: Lame) -> Mat9 {
    let Lame { mu, lambda } = lame;
    let gamma = 1.0 + mu / lambda;
    let g = vec9(&cofactor(f));
    let mut h = Mat9::identity() * mu + g * g.transpose() * lambda;
    let w = lambda * (f.determinant() - gamma);
    let x: [Matrix3<f64>; 3] = std::array::from_fn(|i| f.column(i).into_owned().cross_matrix() * w);
    for (i, j, m, sign) in [(0, 1, 2, -1.0), (0, 2, 1, 1.0), (1, 0, 2, 1.0), (1, 2, 0, -1.0), (2, 0, 1, -1.0), (2, 1, 0, 1.0)] {
        let mut block = h.fixed_view_mut::<3, 3>(3 * i, 3 * j);
        block += x[m] * sign;
    }
    h
}

/// Strict positive definiteness of a symmetric 3×3 by its leading principal minors (Sylvester).
pub(crate) fn positive_definite(a: &Matrix3<f64>) -> bool {
    a[(0, 0)] > 0.0 && a[(0, 0)] * a[(1, 1)] - a[(0, 1)] * a[(1, 0)] > 0.0 && a.determinant() > 0.0
}

/// The nearest positive semi-definite matrix in the Frobenius norm (Higham 1988) of a D × D matrix (an
/// element's 9 × 9 ∂P/∂F, a shell hinge's 12 × 12 or shape-operator stencil's 18 × 18 Hessian): the symmetric
/// part ½(H + Hᵀ) with its negative eigenvalues clamped to 0. A symmetric PSD input comes back unchanged: a
/// Cholesky factorisation of ½(H + Hᵀ) + δI, δ = 1e-12·max|Hᵢᵢ|, tells it cheaply (eigenvalues above −δ count as
/// non-negative, so the exactly zero rotation modes at rest cost no eigendecomposition). The eigensolver is
/// faer's: nalgebra's 9×9 SymmetricEigen returned eigenvectors of the small eigenvalues with residuals of 1e4
/// on nearly rotated stable neo-Hookean elements (see `neohookean_projection`'s test).
pub fn project_psd<const D: usize>(h: &SMatrix<f64, D, D>) -> SMatrix<f64, D, D> {
    let sym = (h + h.transpose()) * 0.5;
    let shift = 1e-12 * sym.diagonal().amax();
    if (sym + SMatrix::<f64, D, D>::identity() * shift).cholesky().is_some() {
        return sym;
    }
    let m = faer::Mat::<f64>::from_fn(D, D, |i, j| sym[(i, j)]);
    let Ok(eig) = m.self_adjoint_eigen(faer::Side::Lower) else { return sym };
    let (values, vectors) = (eig.S().column_vector(), eig.U());
    if (0..D).all(|i| values[i] >= 0.0) {
        return sym;
    }
    let mut out = SMatrix::<f64, D, D>::zeros();
    for i in (0..D).filter(|&i| values[i] > 0.0) {
        let v = SVector::<f64, D>::from_fn(|r, _| vectors[(r, i)]);
        out += v * v.transpose() * values[i];
    }
    (out + out.transpose()) * 0.5
}
