//! Membrane (stretch and shear) energy of one triangle (thesis "Adaptive methods for elastic deformation",
//! Eq. 4.1–4.3): the triangle's deformation gradient, its Green strain, and the energy t·A·ψ with forces and
//! stiffness in closed form.
//!
//! With Dm the rest edges [x̄1 − x̄0, x̄2 − x̄0] written in an orthonormal frame (t̄₁, t̄₂) of the rest plane
//! (2×2), the in-plane gradient is the 3×2 F₂ = [x1 − x0, x2 − x0] Dm⁻¹: it maps the rest tangents t̄₁, t̄₂ to
//! their deformed images. Eq. 4.1–4.2 complete it to a 3×3 F = [F₂ | n] by sending the rest normal to the
//! deformed unit normal n. Because n is a unit vector orthogonal to both columns of F₂ (they are combinations
//! of the deformed edges, which span the deformed plane),
//!
//! FᵀF = [[F₂ᵀF₂, 0], [0, 1]],  so  E = ½(FᵀF − I) = [[E₂, 0], [0, 0]],  E₂ = ½(F₂ᵀF₂ − I₂):
//!
//! the 3×3 Green strain is the 2×2 one padded with zeros, zero under any rotation of the triangle, and the
//! membrane energy depends on F₂ alone. We therefore differentiate ψ(F₂): P = ∂ψ/∂F₂ (3×2) and ∂P/∂F₂ (6×6 on
//! column-major vec(F₂), index 3·col + row), and map them to the nodes with the 6×9 B of vec(F₂) = B·[x0; x1; x2]
//! (the triangle's analogue of the tetrahedron's 9×12 [`crate::fem::shape_map`]):
//!
//! E = t A ψ(F₂),  f = −t A Bᵀ vec(P),  K = t A Bᵀ (∂P/∂F₂) B.

use super::{Membrane, ShellMaterial, Stencil};
use crate::fem::energy::project_psd;
use crate::mesh::Vec3;
use nalgebra::{Matrix2, Matrix3, Matrix3x2, SMatrix, SVector};

/// A 6×6 matrix on vec(F₂) (column-major, index 3·col + row).
type Mat6 = SMatrix<f64, 6, 6>;

/// Rest data of one triangle: Dm⁻¹ (2×2) in an orthonormal frame of the rest triangle's plane, and rest area.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleRest {
    /// Dm⁻¹, Dm = [x̄1 − x̄0, x̄2 − x̄0] in the frame t̄₁ = (x̄1 − x̄0)/‖x̄1 − x̄0‖, t̄₂ = n̄ × t̄₁ (upper triangular).
    pub dm_inv: Matrix2<f64>,
    /// Rest area A, m².
    pub area: f64,
}

impl TriangleRest {
    /// The rest data of the triangle (x0, x1, x2); `None` if degenerate (area ≤ 10⁻¹² × the longer edge², or
    /// not finite).
    pub fn new(x: &[Vec3; 3]) -> Option<Self> {
        let (e1, e2) = (x[1] - x[0], x[2] - x[0]);
        let normal = e1.cross(&e2);
        let double_area = normal.norm();
        let scale = e1.norm_squared().max(e2.norm_squared());
        if !(double_area.is_finite() && double_area > 1e-12 * scale) {
            return None;
        }
        let t1 = e1 / e1.norm();
        let t2 = (normal / double_area).cross(&t1);
        let dm = Matrix2::new(e1.norm(), e2.dot(&t1), 0.0, e2.dot(&t2));
        Some(TriangleRest { dm_inv: dm.try_inverse()?, area: 0.5 * double_area })
    }
}

/// F₂ = [x1 − x0, x2 − x0] Dm⁻¹, the 3×2 in-plane deformation gradient (also the strain limit's).
pub fn in_plane_gradient(dm_inv: &Matrix2<f64>, x: &[Vec3; 3]) -> Matrix3x2<f64> {
    Matrix3x2::from_columns(&[x[1] - x[0], x[2] - x[0]]) * dm_inv
}

/// The 3×3 deformation gradient F = [B x | n] of Eq. 4.1–4.2 (maps the rest frame's two tangents and normal to
/// the deformed edges' images and the deformed unit normal): zero Green strain under rotation, same shape as a
/// tet's F. The third column is zero for a collapsed deformed triangle.
pub fn deformation_gradient(rest: &TriangleRest, x: &[Vec3; 3]) -> Matrix3<f64> {
    let f2 = in_plane_gradient(&rest.dm_inv, x);
    let n = (x[1] - x[0]).cross(&(x[2] - x[0]));
    let len = n.norm();
    let n = if len > 0.0 { n / len } else { Vec3::zeros() };
    Matrix3::from_columns(&[f2.column(0).into_owned(), f2.column(1).into_owned(), n])
}

/// Green strain E = ½(FᵀF − I) of the 3×3 F above (its third row and column are zero: see the module docs).
pub fn membrane_strain(rest: &TriangleRest, x: &[Vec3; 3]) -> Matrix3<f64> {
    let e2 = green_strain_2(&in_plane_gradient(&rest.dm_inv, x));
    let mut e = Matrix3::zeros();
    e.fixed_view_mut::<2, 2>(0, 0).copy_from(&e2);
    e
}

/// E₂ = ½(F₂ᵀF₂ − I₂).
fn green_strain_2(f: &Matrix3x2<f64>) -> Matrix2<f64> {
    (f.transpose() * f - Matrix2::identity()) * 0.5
}

/// The unit 3×2 matrix with vec index k (row k % 3, column k / 3).
fn unit(k: usize) -> Matrix3x2<f64> {
    let mut e = Matrix3x2::zeros();
    e[(k % 3, k / 3)] = 1.0;
    e
}

fn vec6(m: &Matrix3x2<f64>) -> SVector<f64, 6> {
    SVector::<f64, 6>::from_column_slice(m.as_slice())
}

/// (ψ, P = ∂ψ/∂F₂, ∂P/∂F₂) of the membrane density at F₂ with plane-stress (μ, λ).
///
/// StVK: ψ = μ‖E₂‖² + (λ/2) tr²E₂, P = F₂S with S = 2μE₂ + λ tr(E₂) I₂; dP = dF S + F₂ dS,
/// dS = 2μ dE + λ tr(dE) I₂, dE = sym(F₂ᵀ dF).
///
/// Neo-Hookean: with C = F₂ᵀF₂, J = √det C and Q = ∂ln J/∂F₂ = F₂C⁻¹ (from d ln J = ½ tr(C⁻¹dC)),
/// ψ = (μ/2)(tr C − 2) − μ ln J + (λ/2) ln²J, P = μF₂ + (λ ln J − μ) Q, and
/// dP = μ dF + λ (Q : dF) Q + (λ ln J − μ)(dF C⁻¹ − Q dC C⁻¹), dC = dFᵀF₂ + F₂ᵀdF.
/// A collapsed deformed triangle (J = 0) has ψ = +∞ (no finite forces there).
fn density(model: Membrane, f: &Matrix3x2<f64>, mu: f64, lambda: f64) -> (f64, Matrix3x2<f64>, Mat6) {
    let mut h = Mat6::zeros();
    match model {
        Membrane::StVK => {
            let e = green_strain_2(f);
            let s = e * (2.0 * mu) + Matrix2::identity() * (lambda * e.trace());
            for k in 0..6 {
                let df = unit(k);
                let ftdf = f.transpose() * df;
                let de = (ftdf + ftdf.transpose()) * 0.5;
                let ds = de * (2.0 * mu) + Matrix2::identity() * (lambda * de.trace());
                h.set_column(k, &vec6(&(df * s + f * ds)));
            }
            (mu * e.norm_squared() + 0.5 * lambda * e.trace().powi(2), f * s, h)
        }
        Membrane::NeoHookean => {
            let c = f.transpose() * f;
            let det = c.determinant();
            let ln_j = 0.5 * det.ln();
            let c_inv = Matrix2::new(c[(1, 1)], -c[(0, 1)], -c[(1, 0)], c[(0, 0)]) / det;
            let q = f * c_inv;
            let a = lambda * ln_j - mu;
            for k in 0..6 {
                let df = unit(k);
                let dc = df.transpose() * f + f.transpose() * df;
                let dq = df * c_inv - q * dc * c_inv;
                h.set_column(k, &vec6(&(df * mu + q * (lambda * q.dot(&df)) + dq * a)));
            }
            let psi = 0.5 * mu * (c.trace() - 2.0) - mu * ln_j + 0.5 * lambda * ln_j * ln_j;
            (psi, f * mu + q * a, (h + h.transpose()) * 0.5)
        }
    }
}

/// D̃ (3×2) with F₂ = Σ_a x_a D̃_aᵀ: rows 1, 2 are Dm⁻¹'s rows, row 0 minus their sum.
fn node_weights(dm_inv: &Matrix2<f64>) -> Matrix3x2<f64> {
    let mut d = Matrix3x2::zeros();
    d.fixed_view_mut::<2, 2>(1, 0).copy_from(dm_inv);
    for c in 0..2 {
        d[(0, c)] = -(dm_inv[(0, c)] + dm_inv[(1, c)]);
    }
    d
}

/// The 6×9 B with vec(F₂) = B·[x0; x1; x2]: B[3c + r, 3a + r] = D̃[a, c].
fn shape_map_2(dm_inv: &Matrix2<f64>) -> SMatrix<f64, 6, 9> {
    let d = node_weights(dm_inv);
    let mut b = SMatrix::<f64, 6, 9>::zeros();
    for a in 0..3 {
        for c in 0..2 {
            for r in 0..3 {
                b[(3 * c + r, 3 * a + r)] = d[(a, c)];
            }
        }
    }
    b
}

/// Membrane energy t·A·ψ(F), forces, and stiffness; `project` = true gives the stiffness projected to PSD.
///
/// ψ is the material's [`Membrane`] density of F₂ with the plane-stress (μ, λ) of
/// [`ShellMaterial::plane_stress`] (see the module docs for why ψ(F) = ψ(F₂)). The unprojected stiffness is the
/// exact Hessian t A Bᵀ (∂P/∂F₂) B. The projection clamps the negative eigenvalues of that 9×9 K to zero
/// ([`project_psd`], the nearest PSD matrix in the Frobenius norm; a K that is already PSD comes back as is):
/// StVK under compression and neo-Hookean under large stretch are not convex, and M + h²K must stay positive
/// definite for the Newton step.
pub fn membrane_state(material: &ShellMaterial, rest: &TriangleRest, x: &[Vec3; 3], project: bool) -> Stencil<9> {
    let (mu, lambda) = material.plane_stress();
    let f2 = in_plane_gradient(&rest.dm_inv, x);
    let (psi, p, h) = density(material.membrane, &f2, mu, lambda);
    let scale = material.thickness * rest.area;
    // ∂E/∂x_a = t A P D̃_aᵀ: the columns of t A P D̃ᵀ.
    let g = p * node_weights(&rest.dm_inv).transpose() * -scale;
    let force = SVector::<f64, 9>::from_column_slice(g.as_slice());
    let b = shape_map_2(&rest.dm_inv);
    let k = b.transpose() * h * b * scale;
    let mut stiffness = (k + k.transpose()) * 0.5;
    if project {
        stiffness = project_psd(&stiffness);
    }
    Stencil { energy: scale * psi, force, stiffness }
}
