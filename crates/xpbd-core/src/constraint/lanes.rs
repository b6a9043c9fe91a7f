//! The block neo-Hookean projection (block paper Eq. 17–19, as in `tet_model::project_tet`) for four
//! independent tetrahedra at once, in structure-of-arrays form so the compiler maps each operation onto
//! one vector instruction. Elements of one color (or the k-th elements of four clusters of one color)
//! share no vertex, so projecting them together is the same Gauss-Seidel update as projecting them one
//! after the other. Undamped only; `project_tet` handles damping.

use super::tet::TetRest;
use crate::mesh::Vec3;
use std::ops::{Add, Mul, Neg, Sub};

/// Four lanes of f64.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct F4(pub [f64; 4]);

impl F4 {
    #[inline(always)]
    pub fn splat(v: f64) -> Self {
        F4([v; 4])
    }
    #[inline(always)]
    fn map(self, f: impl Fn(f64) -> f64) -> Self {
        let mut o = [0.0; 4];
        for l in 0..4 {
            o[l] = f(self.0[l]);
        }
        F4(o)
    }
    #[inline(always)]
    fn zip(self, other: Self, f: impl Fn(f64, f64) -> f64) -> Self {
        let mut o = [0.0; 4];
        for l in 0..4 {
            o[l] = f(self.0[l], other.0[l]);
        }
        F4(o)
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self.zip(o, |a, b| a / b)
    }
    /// `mask ? a : b` lane by lane.
    #[inline(always)]
    fn select(mask: [bool; 4], a: Self, b: Self) -> Self {
        let mut o = [0.0; 4];
        for l in 0..4 {
            o[l] = if mask[l] { a.0[l] } else { b.0[l] };
        }
        F4(o)
    }
}

impl Add for F4 {
    type Output = F4;
    #[inline(always)]
    fn add(self, o: F4) -> F4 {
        self.zip(o, |a, b| a + b)
    }
}
impl Sub for F4 {
    type Output = F4;
    #[inline(always)]
    fn sub(self, o: F4) -> F4 {
        self.zip(o, |a, b| a - b)
    }
}
impl Mul for F4 {
    type Output = F4;
    #[inline(always)]
    fn mul(self, o: F4) -> F4 {
        self.zip(o, |a, b| a * b)
    }
}
impl Neg for F4 {
    type Output = F4;
    #[inline(always)]
    fn neg(self) -> F4 {
        self.map(|a| -a)
    }
}

type M3 = [[F4; 3]; 3];

#[inline(always)]
fn cross(a: [F4; 3], b: [F4; 3]) -> [F4; 3] {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

#[inline(always)]
fn dot(a: [F4; 3], b: [F4; 3]) -> F4 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Node gradients of ∂C/∂F = P (row-major `p[r][c]`): g_{k+1} = column k of P D_m⁻ᵀ, g0 = −Σ.
#[inline(always)]
fn node_gradients(p: &M3, dm: &M3) -> [[F4; 3]; 4] {
    let mut g = [[F4::default(); 3]; 4];
    for k in 0..3 {
        for r in 0..3 {
            g[k + 1][r] = p[r][0] * dm[k][0] + p[r][1] * dm[k][1] + p[r][2] * dm[k][2];
        }
    }
    for r in 0..3 {
        g[0][r] = -(g[1][r] + g[2][r] + g[3][r]);
    }
    g
}

/// Inputs and outputs of four lanes. Inactive lanes are left untouched.
pub struct Block4<'a> {
    pub rest: [&'a TetRest; 4],
    /// Inverse masses per lane and vertex.
    pub w: [[f64; 4]; 4],
    /// Positions per lane and vertex; updated in place.
    pub x: [[Vec3; 4]; 4],
    /// (λ_H, λ_D) per lane; updated in place.
    pub lambda: [[f64; 2]; 4],
    pub active: [bool; 4],
}

/// Material constants of the block projection: μ, λ (constraint Lamé parameters), γ = 1 + μ/λ, and h.
#[derive(Clone, Copy, Debug)]
pub struct BlockMaterial {
    pub mu: f64,
    pub lambda: f64,
    pub gamma: f64,
    pub h: f64,
}

/// Projects the four lanes once (see the module doc). Dispatches to an AVX2+FMA build when the
/// processor has it.
pub fn project_block_neohookean_x4(m: &BlockMaterial, b: &mut Block4) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the features were just detected.
            return unsafe { project_avx2(m, b) };
        }
    }
    project_portable(m, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn project_avx2(m: &BlockMaterial, b: &mut Block4) {
    kernel(m, b)
}

fn project_portable(m: &BlockMaterial, b: &mut Block4) {
    kernel(m, b)
}

/// Four lanes from a per-lane function.
#[inline(always)]
fn lane(f: impl Fn(usize) -> f64) -> F4 {
    F4([f(0), f(1), f(2), f(3)])
}

#[inline(always)]
fn kernel(m: &BlockMaterial, b: &mut Block4) {
    // Positions, D_m⁻¹ and inverse masses in SoA.
    let mut px = [[F4::default(); 3]; 4];
    let mut w = [F4::default(); 4];
    for n in 0..4 {
        for c in 0..3 {
            px[n][c] = lane(|l| b.x[l][n][c]);
        }
        w[n] = lane(|l| if b.active[l] { b.w[l][n] } else { 0.0 });
    }
    let mut dm: M3 = [[F4::default(); 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            dm[r][c] = lane(|l| b.rest[l].dm_inv[(r, c)]);
        }
    }
    // F = D_s D_m⁻¹, D_s = [x1−x0, x2−x0, x3−x0].
    let mut f: M3 = [[F4::default(); 3]; 3];
    for r in 0..3 {
        let ds = [px[1][r] - px[0][r], px[2][r] - px[0][r], px[3][r] - px[0][r]];
        for c in 0..3 {
            f[r][c] = ds[0] * dm[0][c] + ds[1] * dm[1][c] + ds[2] * dm[2][c];
        }
    }
    let col = |i: usize| [f[0][i], f[1][i], f[2][i]];
    // Hydrostatic: C_H = det F − γ, ∂C_H/∂F = cofactor [f1×f2, f2×f0, f0×f1].
    let cof = [cross(col(1), col(2)), cross(col(2), col(0)), cross(col(0), col(1))];
    let c_h = dot(col(0), cof[0]) - F4::splat(m.gamma);
    let mut p_h: M3 = [[F4::default(); 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            p_h[r][c] = cof[c][r];
        }
    }
    // Deviatoric: C_D = ‖F‖, ∂C_D/∂F = F / C_D.
    let norm2 = (0..3).fold(F4::default(), |a, r| a + f[r][0] * f[r][0] + f[r][1] * f[r][1] + f[r][2] * f[r][2]);
    let c_d = norm2.map(f64::sqrt);
    let inv_cd = c_d.map(|c| if c > 1e-12 { 1.0 / c } else { 0.0 });
    let mut p_d: M3 = f;
    for row in &mut p_d {
        for v in row.iter_mut() {
            *v = *v * inv_cd;
        }
    }
    let g_h = node_gradients(&p_h, &dm);
    let g_d = node_gradients(&p_d, &dm);
    // S = G M⁻¹ Gᵀ.
    let (mut s_hh, mut s_hd, mut s_dd) = (F4::default(), F4::default(), F4::default());
    for n in 0..4 {
        s_hh = s_hh + w[n] * dot(g_h[n], g_h[n]);
        s_hd = s_hd + w[n] * dot(g_h[n], g_d[n]);
        s_dd = s_dd + w[n] * dot(g_d[n], g_d[n]);
    }
    // α̃ = 1/(k V h²) per row.
    let s = lane(|l| 1.0 / (b.rest[l].volume * m.h * m.h));
    let (at_h, at_d) = (s * F4::splat(1.0 / m.lambda), s * F4::splat(1.0 / m.mu));
    let lam_h = lane(|l| b.lambda[l][0]);
    let lam_d = lane(|l| b.lambda[l][1]);
    let rhs = [-(c_h + at_h * lam_h), -(c_d + at_d * lam_d)];
    let a = [[s_hh + at_h, s_hd], [s_hd, s_dd + at_d]];
    // 2×2 solve with partial pivoting, lane by lane without branches.
    let swap = [0, 1, 2, 3].map(|l| a[1][0].0[l].abs() > a[0][0].0[l].abs());
    let r0 = [F4::select(swap, a[1][0], a[0][0]), F4::select(swap, a[1][1], a[0][1])];
    let r1 = [F4::select(swap, a[0][0], a[1][0]), F4::select(swap, a[0][1], a[1][1])];
    let (b0, b1) = (F4::select(swap, rhs[1], rhs[0]), F4::select(swap, rhs[0], rhs[1]));
    let factor = r1[0].div(r0[0]);
    let a11 = r1[1] - factor * r0[1];
    let dl_d = (b1 - factor * b0).div(a11);
    let dl_h = (b0 - r0[1] * dl_d).div(r0[0]);
    for l in 0..4 {
        let ok = b.active[l] && r0[0].0[l] != 0.0 && a11.0[l] != 0.0 && dl_h.0[l].is_finite() && dl_d.0[l].is_finite();
        if !ok {
            continue;
        }
        b.lambda[l][0] += dl_h.0[l];
        b.lambda[l][1] += dl_d.0[l];
        for n in 0..4 {
            let k = w[n].0[l];
            for c in 0..3 {
                b.x[l][n][c] += k * (g_h[n][c].0[l] * dl_h.0[l] + g_d[n][c].0[l] * dl_d.0[l]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::constraint::neohookean::gamma;
    use crate::constraint::tet_model::{project_tet, TetModel, TetParams};
    use crate::material::Lame;

    /// Four different deformed tets, one lane each, against the scalar projection.
    #[test]
    fn four_lanes_match_the_scalar_block_projection() {
        let lame = Lame::from_youngs_poisson(1e6, 0.45, "m").unwrap().stable_neohookean();
        let h = 1e-3;
        let rest_x: [[Vec3; 4]; 4] = std::array::from_fn(|l| {
            let s = 1.0 + 0.3 * l as f64;
            [Vec3::new(0.0, 0.0, 0.1 * l as f64), Vec3::new(s, 0.1, 0.0), Vec3::new(0.05, s, -0.1), Vec3::new(0.1, 0.2, s)]
        });
        let rests: Vec<TetRest> = rest_x.iter().map(|x| TetRest::new(x).unwrap()).collect();
        let x0: [[Vec3; 4]; 4] = std::array::from_fn(|l| {
            let d = 0.05 * (l as f64 + 1.0);
            let r = rest_x[l];
            [r[0] + Vec3::new(d, -d, 0.0), r[1] + Vec3::new(0.0, d, d), r[2] - Vec3::new(d, 0.0, 0.5 * d), r[3] + Vec3::new(-d, 2.0 * d, 0.0)]
        });
        let w: [[f64; 4]; 4] = std::array::from_fn(|l| [1.0, 0.5 + l as f64, 0.0, 2.0]);
        let lambda0: [[f64; 2]; 4] = std::array::from_fn(|l| [1e-4 * l as f64, -2e-4]);
        let m = BlockMaterial { mu: lame.mu, lambda: lame.lambda, gamma: gamma(&lame), h };
        for active in [[true; 4], [true, false, true, false]] {
            let mut b = Block4 { rest: std::array::from_fn(|l| &rests[l]), w, x: x0, lambda: lambda0, active };
            project_block_neohookean_x4(&m, &mut b);
            let mut p = Block4 { rest: std::array::from_fn(|l| &rests[l]), w, x: x0, lambda: lambda0, active };
            project_portable(&m, &mut p);
            let params = TetParams::new(TetModel::NeoHookeanBlock, lame, 0.0, h);
            for l in 0..4 {
                let (mut x, mut lam) = (x0[l], lambda0[l]);
                if active[l] {
                    project_tet(&params, &rests[l], &w[l], &mut x, &x0[l], &mut lam);
                }
                for n in 0..4 {
                    let moved = (x0[l][n] - x[n]).norm().max(1e-12);
                    assert!((b.x[l][n] - x[n]).norm() <= 1e-9 * moved, "lane {l} vertex {n}: {} vs {}", b.x[l][n], x[n]);
                    assert!((p.x[l][n] - x[n]).norm() <= 1e-9 * moved, "portable lane {l} vertex {n}");
                }
                for k in 0..2 {
                    assert!((b.lambda[l][k] - lam[k]).abs() <= 1e-9 * lam[k].abs().max(1e-12), "lane {l} λ{k}: {} vs {}", b.lambda[l][k], lam[k]);
                }
                // The dispatched (AVX2 where available) and portable builds run the same operations
                // (Rust does not fuse multiply-adds by itself): bit-identical results.
                assert_eq!(b.x[l], p.x[l], "lane {l}: dispatched and portable builds differ");
                assert_eq!(b.lambda[l], p.lambda[l]);
            }
        }
    }
}
