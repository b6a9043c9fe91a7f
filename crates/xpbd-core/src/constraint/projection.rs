//! The XPBD update of one constraint block (docs/equations.md; block form of the block neo-Hookean
//! paper, Eq. 19; damping of the XPBD paper, Eq. 26, generalised to blocks):
//!
//! ((I + γ) G M⁻¹ Gᵀ + α̃) Δλ = −(C + α̃ λ + γ G (x − xⁿ)),   Δx = M⁻¹ Gᵀ Δλ,
//!
//! with G the K×3N block Jacobian, α̃ = α / h² and γ = α β / h (β the XPBD damping, s).

use super::block_solve::solve_in_place;
use crate::mesh::Vec3;

/// Per-block inputs that do not change during a substep.
#[derive(Clone, Copy, Debug)]
pub struct BlockParams<const K: usize> {
    /// α̃ = α / h², a K×K symmetric matrix (diagonal for most models).
    pub alpha_tilde: [[f64; K]; K],
    /// γ = α β / h, K×K; all zero without damping.
    pub gamma: [[f64; K]; K],
    pub damped: bool,
}

impl<const K: usize> BlockParams<K> {
    /// From a compliance matrix α (inverse stiffness), damping β and substep h.
    pub fn new(alpha: [[f64; K]; K], beta: f64, h: f64) -> Self {
        let inv_h2 = 1.0 / (h * h);
        Self::from_tilde(alpha.map(|row| row.map(|a| a * inv_h2)), beta * h)
    }

    /// From α̃ = α/h² and β·h (so that γ = α β / h = α̃ β h); no division, for per-element use.
    #[inline(always)]
    pub fn from_tilde(alpha_tilde: [[f64; K]; K], beta_h: f64) -> Self {
        BlockParams { alpha_tilde, gamma: alpha_tilde.map(|row| row.map(|a| a * beta_h)), damped: beta_h > 0.0 }
    }

    /// Diagonal compliance.
    pub fn diagonal(alpha: [f64; K], beta: f64, h: f64) -> Self {
        Self::new(diagonal(alpha), beta, h)
    }

    /// Diagonal α̃ (see [`BlockParams::from_tilde`]).
    #[inline(always)]
    pub fn diagonal_tilde(alpha_tilde: [f64; K], beta_h: f64) -> Self {
        Self::from_tilde(diagonal(alpha_tilde), beta_h)
    }

    /// r = C + α̃ λ, the XPBD residual rows of this block.
    #[inline(always)]
    pub fn residual(&self, c: &[f64; K], lambda: &[f64; K]) -> [f64; K] {
        let mut r = *c;
        for a in 0..K {
            for b in 0..K {
                r[a] += self.alpha_tilde[a][b] * lambda[b];
            }
        }
        r
    }
}

#[inline(always)]
fn diagonal<const K: usize>(d: [f64; K]) -> [[f64; K]; K] {
    let mut m = [[0.0; K]; K];
    for i in 0..K {
        m[i][i] = d[i];
    }
    m
}

/// Computes Δλ for one block, adds it to `lambda` and returns Δx for its N vertices.
/// `disp` is x − xⁿ (only read when damped). Returns `None` (and changes nothing) when the block
/// is singular, e.g. all its vertices pinned.
#[inline(always)]
pub fn project_block<const K: usize, const N: usize>(
    c: &[f64; K],
    grads: &[[Vec3; N]; K],
    inv_mass: &[f64; N],
    params: &BlockParams<K>,
    disp: &[Vec3; N],
    lambda: &mut [f64; K],
) -> Option<[Vec3; N]> {
    // S = G M⁻¹ Gᵀ
    let mut s = [[0.0; K]; K];
    for a in 0..K {
        for b in a..K {
            let mut acc = 0.0;
            for n in 0..N {
                acc += inv_mass[n] * grads[a][n].dot(&grads[b][n]);
            }
            s[a][b] = acc;
            s[b][a] = acc;
        }
    }
    let mut rhs = params.residual(c, lambda);
    let mut a_mat = s;
    for a in 0..K {
        for b in 0..K {
            a_mat[a][b] += params.alpha_tilde[a][b];
        }
    }
    if params.damped {
        let mut gdx = [0.0; K];
        for a in 0..K {
            for n in 0..N {
                gdx[a] += grads[a][n].dot(&disp[n]);
            }
        }
        for a in 0..K {
            for b in 0..K {
                rhs[a] += params.gamma[a][b] * gdx[b];
                for k in 0..K {
                    a_mat[a][k] += params.gamma[a][b] * s[b][k];
                }
            }
        }
    }
    for r in rhs.iter_mut() {
        *r = -*r;
    }
    if !solve_in_place(&mut a_mat, &mut rhs) {
        return None;
    }
    let mut dx = [Vec3::zeros(); N];
    for a in 0..K {
        lambda[a] += rhs[a];
        for n in 0..N {
            dx[n] += grads[a][n] * (inv_mass[n] * rhs[a]);
        }
    }
    Some(dx)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_distance_row_is_satisfied_in_one_step_when_rigid() {
        // Two unit masses 2 apart, rest length 1: one hard projection closes the gap exactly.
        let (x0, x1) = (Vec3::zeros(), Vec3::new(2.0, 0.0, 0.0));
        let n = (x1 - x0).normalize();
        let c = [(x1 - x0).norm() - 1.0];
        let grads = [[-n, n]];
        let p = BlockParams::diagonal([0.0], 0.0, 0.01);
        let mut lambda = [0.0];
        let dx = project_block(&c, &grads, &[1.0, 1.0], &p, &[Vec3::zeros(); 2], &mut lambda).unwrap();
        assert!((((x1 + dx[1]) - (x0 + dx[0])).norm() - 1.0).abs() < 1e-15);
    }

    #[test]
    fn compliant_row_reaches_the_spring_equilibrium_under_iteration() {
        // A vertex of mass 1 tied to a pinned one: XPBD iterations converge to C = −α̃ λ (DESIGN §7).
        let h = 0.1;
        let alpha = 0.5;
        let p = BlockParams::diagonal([alpha], 0.0, h);
        let mut x1 = Vec3::new(2.0, 0.0, 0.0);
        let mut lambda = [0.0];
        for _ in 0..200 {
            let c = [x1.norm() - 1.0];
            let grads = [[-x1.normalize(), x1.normalize()]];
            let dx = project_block(&c, &grads, &[0.0, 1.0], &p, &[Vec3::zeros(); 2], &mut lambda).unwrap();
            x1 += dx[1];
        }
        let r = p.residual(&[x1.norm() - 1.0], &lambda);
        assert!(r[0].abs() < 1e-12, "residual {r:?}");
    }

    #[test]
    fn all_pinned_block_is_skipped() {
        let p = BlockParams::diagonal([0.0], 0.0, 0.01);
        let mut lambda = [0.0];
        let grads = [[Vec3::x(), -Vec3::x()]];
        assert!(project_block(&[1.0], &grads, &[0.0, 0.0], &p, &[Vec3::zeros(); 2], &mut lambda).is_none());
    }
}
