//! The stable neo-Hookean Hessian projected to positive semi-definite in closed form (Smith et al. 2018,
//! "Stable Neo-Hookean Flesh Simulation", §4.4 and Smith et al. 2019, "Analytic Eigensystems for Isotropic
//! Distortion Energies"), instead of a 9×9 eigendecomposition per element.
//!
//! ∂P/∂F = μI + λ g gᵀ + λ(J − γ) H_J with g = vec(cof F) and H_J the Hessian of J = det F. In the frame of the
//! SVD F = U Σ Vᵀ (vec(dF) = (V ⊗ U) vec(dF̃)), J's Hessian splits into the scaling block on the diagonal
//! entries of dF̃, [[0, σ₂, σ₁], [σ₂, 0, σ₀], [σ₁, σ₀, 0]] (times s = det U det V), and one 2×2 block
//! [[0, −sσ_c], [−sσ_c, 0]] per off-diagonal pair (dF̃_ab, dF̃_ba), c the third index; g lies in the scaling block.
//! So the six twist and flip eigenpairs are μ ± λ(J − γ)sσ_c on (E_ab ∓ E_ba)/√2, the other three come from a
//! 3×3 symmetric eigenproblem, and the projection clamps each eigenvalue at zero.

use super::energy::{positive_definite, Mat9};
use crate::material::Lame;
use nalgebra::{Matrix3, SVector, SymmetricEigen, Vector3};

/// F's rotated frame F = U Σ Vᵀ (signs folded into s = det U det V) and stable neo-Hookean's scalar
/// λ(J − γ), γ = 1 + μ/λ, there.
struct Frame {
    u: Matrix3<f64>,
    vt: Matrix3<f64>,
    sigma: Vector3<f64>,
    s: f64,
    stress: f64,
}

impl Frame {
    fn new(f: &Matrix3<f64>, lame: Lame) -> Self {
        let svd = f.svd(true, true);
        let (u, vt) = (svd.u.expect("asked for U"), svd.v_t.expect("asked for Vᵀ"));
        let sigma = svd.singular_values;
        let s = (u.determinant() * vt.determinant()).signum();
        let j = s * sigma[0] * sigma[1] * sigma[2];
        Frame { u, vt, sigma, s, stress: lame.lambda * (j - 1.0 - lame.mu / lame.lambda) }
    }

    /// vec(U X Vᵀ) for an eigenvector given as the 3×3 matrix X.
    fn world(&self, x: &Matrix3<f64>) -> SVector<f64, 9> {
        SVector::<f64, 9>::from_column_slice((self.u * x * self.vt).as_slice())
    }

    /// The six flip and twist pairs: μ ∓ λ(J − γ)sσ_c on (E_ab ± E_ba)/√2.
    fn flips_and_twists(&self, mu: f64) -> [(f64, Matrix3<f64>); 6] {
        let r = std::f64::consts::FRAC_1_SQRT_2;
        let mut pairs = [(0.0, Matrix3::zeros()); 6];
        for (k, (a, b, c)) in [(0, 1, 2), (0, 2, 1), (1, 2, 0)].into_iter().enumerate() {
            let (mut flip, mut twist) = (Matrix3::zeros(), Matrix3::zeros());
            (flip[(a, b)], flip[(b, a)]) = (r, r);
            (twist[(a, b)], twist[(b, a)]) = (r, -r);
            pairs[2 * k] = (mu - self.stress * self.s * self.sigma[c], flip);
            pairs[2 * k + 1] = (mu + self.stress * self.s * self.sigma[c], twist);
        }
        pairs
    }

    /// The scaling block μI + λ g gᵀ + λ(J − γ) s H_Σ on the diagonal entries of dF̃.
    fn scaling_block(&self, lame: Lame) -> Matrix3<f64> {
        let (sg, s) = (&self.sigma, self.s);
        let g = Vector3::new(sg[1] * sg[2], sg[0] * sg[2], sg[0] * sg[1]) * s;
        let hj = Matrix3::new(0.0, sg[2], sg[1], sg[2], 0.0, sg[0], sg[1], sg[0], 0.0) * s;
        Matrix3::identity() * lame.mu + g * g.transpose() * lame.lambda + hj * self.stress
    }
}

/// The nine eigenpairs (value, unit eigenvector on vec(F)) of stable neo-Hookean's ∂P/∂F at `f`.
pub fn eigensystem(f: &Matrix3<f64>, lame: Lame) -> [(f64, SVector<f64, 9>); 9] {
    let frame = Frame::new(f, lame);
    let mut pairs = [(0.0, SVector::<f64, 9>::zeros()); 9];
    for (k, (value, x)) in frame.flips_and_twists(lame.mu).iter().enumerate() {
        pairs[k] = (*value, frame.world(x));
    }
    let eig = SymmetricEigen::new(frame.scaling_block(lame));
    for k in 0..3 {
        pairs[6 + k] = (eig.eigenvalues[k], frame.world(&Matrix3::from_diagonal(&eig.eigenvectors.column(k).into_owned())));
    }
    pairs
}

/// (∂P/∂F)₊ of stable neo-Hookean at `f` from the exact derivative `exact`: its negative eigenpairs taken off.
/// The flip and twist eigenvalues are closed-form; the scaling block's 3×3 eigenproblem is solved only when
/// the block is not positive definite (its leading minors): near rest it is (eigenvalues 2μ, 2μ and 3λ − μ at
/// F = I), so there an element pays an SVD and no eigensolver.
pub fn projected_hessian(f: &Matrix3<f64>, lame: Lame, exact: &Mat9) -> Mat9 {
    let frame = Frame::new(f, lame);
    let mut out = *exact;
    let mut take_off = |value: f64, x: &Matrix3<f64>| {
        let w = frame.world(x);
        out -= w * w.transpose() * value;
    };
    for (value, x) in frame.flips_and_twists(lame.mu).iter().filter(|(v, _)| *v < 0.0) {
        take_off(*value, x);
    }
    let a = frame.scaling_block(lame);
    if !positive_definite(&a) {
        let eig = SymmetricEigen::new(a);
        for k in (0..3).filter(|&k| eig.eigenvalues[k] < 0.0) {
            take_off(eig.eigenvalues[k], &Matrix3::from_diagonal(&eig.eigenvectors.column(k).into_owned()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::energy::{project_psd, Energy};
    use super::*;

    /// The closed-form eigensystem is the exact derivative's: orthonormal vectors that rebuild ∂P/∂F to
    /// round-off, stretched, compressed and inverted; the projection (the negative modes taken off the exact
    /// derivative: 242 of the 300 samples have some, 119 of them in the scaling block) is PSD, changes only the
    /// negative modes, and equals the numerical projection [`project_psd`] (whose eigensolver is faer's: nalgebra's 9×9
    /// SymmetricEigen gave eigenvectors of the small eigenvalues with residuals of 1e4 on nearly rotated
    /// elements, while the eigenvalues were right).
    #[test]
    fn the_closed_form_eigensystem_is_exact() {
        let lame = Lame { mu: 3.0e5, lambda: 1.1e6 };
        let mut rng = fastrand::Rng::with_seed(11);
        let mut r = |scale: f64| (rng.f64() * 2.0 - 1.0) * scale;
        let (mut clamped, mut scaling_clamped) = (0, 0);
        for k in 0..300 {
            let scale = [0.05, 0.4, 1.2][k % 3];
            let mut f = Matrix3::identity() + Matrix3::from_fn(|_, _| r(scale));
            if k % 7 == 0 {
                f.set_column(0, &(-f.column(0)));
            }
            let h = Energy::StableNeoHookean.stress_derivative(&f, lame);
            let pairs = eigensystem(&f, lame);
            let rebuilt: Mat9 = pairs.iter().map(|(v, w)| w * w.transpose() * *v).sum();
            assert!((rebuilt - h).norm() < 1e-10 * h.norm(), "F = {f}: {}", (rebuilt - h).norm() / h.norm());
            for (a, (_, wa)) in pairs.iter().enumerate() {
                for (b, (_, wb)) in pairs.iter().enumerate() {
                    assert!((wa.dot(wb) - (a == b) as u8 as f64).abs() < 1e-12);
                }
            }
            let p = projected_hessian(&f, lame, &h);
            let negative: Mat9 = pairs.iter().filter(|(v, _)| *v < 0.0).map(|(v, w)| w * w.transpose() * *v).sum();
            assert!((p - (h - negative)).norm() < 1e-10 * h.norm());
            assert!(SymmetricEigen::new(p).eigenvalues.min() > -1e-9 * h.norm());
            assert!((project_psd(&h) - p).norm() < 1e-9 * h.norm(), "F = {f}: numerical projection differs");
            clamped += pairs.iter().any(|(v, _)| *v < 0.0) as usize;
            scaling_clamped += pairs[6..].iter().any(|(v, _)| *v < 0.0) as usize;
        }
        assert!(clamped > 50, "the samples include indefinite derivatives ({clamped})");
        assert!(scaling_clamped > 50, "the samples include indefinite scaling blocks ({scaling_clamped})");
    }
}
