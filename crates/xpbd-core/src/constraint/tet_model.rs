//! One tetrahedral element under each material model: its XPBD projection (one Gauss-Seidel visit),
//! its residual rows r = C + α̃λ and its energy. Backends call these per element; the loop order
//! (serial, Jacobi, colored, clustered) is theirs.

use super::projection::{project_block, BlockParams};
use super::tet::{deformation_gradient, node_gradients, TetRest};
use super::{arap, neohookean, stvk};
use crate::fem::energy::Energy;
use crate::material::Lame;
use crate::mesh::Vec3;

/// The tet material models of docs/scene-format.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TetModel {
    /// Stable neo-Hookean, hydrostatic then deviatoric as two scalar updates (Macklin & Müller 2021).
    NeoHookean,
    /// Stable neo-Hookean as one coupled 2×2 block (block paper Eq. 17–19).
    NeoHookeanBlock,
    /// StVK, 3×3 normal block then three scalar shear rows.
    StVK,
    /// ARAP, one row.
    Arap,
    /// Corotational linear elasticity: the implicit solvers only (no XPBD rows).
    Corotational,
}

impl TetModel {
    /// Multipliers (constraint rows) per element.
    pub const fn rows(self) -> usize {
        match self {
            TetModel::NeoHookean | TetModel::NeoHookeanBlock => 2,
            TetModel::StVK => 6,
            TetModel::Arap => 1,
            TetModel::Corotational => 0,
        }
    }

    /// The scene's material model names, tetrahedral ones only (`cloth` is not a tet model).
    pub fn from_name(name: &str) -> Option<Self> {
        [TetModel::NeoHookean, TetModel::NeoHookeanBlock, TetModel::StVK, TetModel::Arap, TetModel::Corotational].into_iter().find(|m| m.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            TetModel::NeoHookean => "neohookean",
            TetModel::NeoHookeanBlock => "neohookean_block",
            TetModel::StVK => "stvk",
            TetModel::Arap => "arap",
            TetModel::Corotational => "corotational",
        }
    }

    /// The Lamé parameters the constraints use: reparametrised for stable neo-Hookean.
    pub fn constraint_lame(self, linear: Lame) -> Lame {
        match self {
            TetModel::NeoHookean | TetModel::NeoHookeanBlock => linear.stable_neohookean(),
            _ => linear,
        }
    }
}

/// Everything an element projection needs besides positions.
#[derive(Clone, Copy, Debug)]
pub struct TetParams {
    pub model: TetModel,
    /// Constraint Lamé parameters (see [`TetModel::constraint_lame`]).
    pub lame: Lame,
    /// XPBD damping β (s).
    pub damping: f64,
    /// Substep h.
    pub h: f64,
    /// 1/μ and 1/λ, so that per-element compliances need no division.
    inv_mu: f64,
    inv_lambda: f64,
}

impl TetParams {
    pub fn new(model: TetModel, lame: Lame, damping: f64, h: f64) -> Self {
        TetParams { model, lame, damping, h, inv_mu: 1.0 / lame.mu, inv_lambda: 1.0 / lame.lambda }
    }

    /// 1 / (V h²): α̃ of a row with compliance 1/(k V) is this times 1/k.
    #[inline(always)]
    fn tilde(&self, rest: &TetRest) -> f64 {
        1.0 / (rest.volume * self.h * self.h)
    }
}

/// Visits one element once: updates `x` in place and its multipliers `lambda` (length `model.rows()`).
/// `x_prev` are the positions at the start of the substep (for damping).
#[inline(always)]
pub fn project_tet(p: &TetParams, rest: &TetRest, w: &[f64; 4], x: &mut [Vec3; 4], x_prev: &[Vec3; 4], lambda: &mut [f64]) {
    match p.model {
        TetModel::NeoHookeanBlock => {
            let f = deformation_gradient(x, &rest.dm_inv);
            let (ch, ph) = neohookean::hydrostatic(&f, neohookean::gamma(&p.lame));
            let (cd, pd) = neohookean::deviatoric(&f);
            let s = p.tilde(rest);
            let bp = BlockParams::diagonal_tilde([s * p.inv_lambda, s * p.inv_mu], p.damping * p.h);
            let grads = [node_gradients(&ph, &rest.dm_inv), node_gradients(&pd, &rest.dm_inv)];
            apply(&[ch, cd], &grads, w, &bp, x, x_prev, &mut lambda[0..2]);
        }
        TetModel::NeoHookean => {
            let s = p.tilde(rest);
            let f = deformation_gradient(x, &rest.dm_inv);
            let (ch, ph) = neohookean::hydrostatic(&f, neohookean::gamma(&p.lame));
            let bp = BlockParams::diagonal_tilde([s * p.inv_lambda], p.damping * p.h);
            apply(&[ch], &[node_gradients(&ph, &rest.dm_inv)], w, &bp, x, x_prev, &mut lambda[0..1]);
            let f = deformation_gradient(x, &rest.dm_inv);
            let (cd, pd) = neohookean::deviatoric(&f);
            let bp = BlockParams::diagonal_tilde([s * p.inv_mu], p.damping * p.h);
            apply(&[cd], &[node_gradients(&pd, &rest.dm_inv)], w, &bp, x, x_prev, &mut lambda[1..2]);
        }
        TetModel::StVK => {
            let f = deformation_gradient(x, &rest.dm_inv);
            let (c, g) = stvk::normal_rows(&f);
            let grads = g.map(|gi| node_gradients(&gi, &rest.dm_inv));
            let bp = BlockParams::new(stvk::normal_compliance(&p.lame, rest.volume), p.damping, p.h);
            apply(&c, &grads, w, &bp, x, x_prev, &mut lambda[0..3]);
            let bp = BlockParams::diagonal([stvk::shear_compliance(&p.lame, rest.volume)], p.damping, p.h);
            for (k, ij) in stvk::SHEAR.iter().enumerate() {
                let f = deformation_gradient(x, &rest.dm_inv);
                let (c, g) = stvk::shear_row(&f, *ij);
                apply(&[c], &[node_gradients(&g, &rest.dm_inv)], w, &bp, x, x_prev, &mut lambda[3 + k..4 + k]);
            }
        }
        TetModel::Arap => {
            let f = deformation_gradient(x, &rest.dm_inv);
            let (c, g) = arap::arap(&f);
            let bp = BlockParams::diagonal([1.0 / (p.lame.mu * rest.volume)], p.damping, p.h);
            apply(&[c], &[node_gradients(&g, &rest.dm_inv)], w, &bp, x, x_prev, &mut lambda[0..1]);
        }
        TetModel::Corotational => {}
    }
}

#[inline(always)]
fn apply<const K: usize>(c: &[f64; K], grads: &[[Vec3; 4]; K], w: &[f64; 4], bp: &BlockParams<K>, x: &mut [Vec3; 4], x_prev: &[Vec3; 4], lambda: &mut [f64]) {
    let mut l: [f64; K] = lambda.try_into().expect("multiplier slice of the block's size");
    let disp = if bp.damped { [x[0] - x_prev[0], x[1] - x_prev[1], x[2] - x_prev[2], x[3] - x_prev[3]] } else { [Vec3::zeros(); 4] };
    if let Some(dx) = project_block(c, grads, w, bp, &disp, &mut l) {
        for n in 0..4 {
            x[n] += dx[n];
        }
        lambda.copy_from_slice(&l);
    }
}

/// Constraint values C(x) of one element's rows, in the order of its multipliers.
pub fn tet_constraints(p: &TetParams, rest: &TetRest, x: &[Vec3; 4], out: &mut [f64]) {
    let f = deformation_gradient(x, &rest.dm_inv);
    match p.model {
        TetModel::NeoHookean | TetModel::NeoHookeanBlock => {
            out[0] = neohookean::hydrostatic(&f, neohookean::gamma(&p.lame)).0;
            out[1] = neohookean::deviatoric(&f).0;
        }
        TetModel::StVK => {
            out[0..3].copy_from_slice(&stvk::normal_rows(&f).0);
            for (k, ij) in stvk::SHEAR.iter().enumerate() {
                out[3 + k] = stvk::shear_row(&f, *ij).0;
            }
        }
        TetModel::Arap => out[0] = arap::arap(&f).0,
        TetModel::Corotational => {}
    }
}

/// Residual rows r = C(x) + α̃ λ of one element (docs/equations.md), written into `out`.
pub fn tet_residual(p: &TetParams, rest: &TetRest, x: &[Vec3; 4], lambda: &[f64], out: &mut [f64]) {
    tet_constraints(p, rest, x, out);
    let inv_h2 = 1.0 / (p.h * p.h);
    match p.model {
        TetModel::NeoHookean | TetModel::NeoHookeanBlock => {
            let a = neohookean::compliances(&p.lame, rest.volume);
            out[0] += a[0] * inv_h2 * lambda[0];
            out[1] += a[1] * inv_h2 * lambda[1];
        }
        TetModel::StVK => {
            let a = stvk::normal_compliance(&p.lame, rest.volume);
            for i in 0..3 {
                for j in 0..3 {
                    out[i] += a[i][j] * inv_h2 * lambda[j];
                }
            }
            let s = stvk::shear_compliance(&p.lame, rest.volume) * inv_h2;
            for k in 3..6 {
                out[k] += s * lambda[k];
            }
        }
        TetModel::Arap => out[0] += inv_h2 / (p.lame.mu * rest.volume) * lambda[0],
        TetModel::Corotational => {}
    }
}

/// The energy (of the implicit solvers' FEM) an XPBD material model names: both stable neo-Hookean variants are one energy.
pub fn energy_of(model: TetModel) -> Energy {
    match model {
        TetModel::NeoHookean | TetModel::NeoHookeanBlock => Energy::StableNeoHookean,
        TetModel::StVK => Energy::StVK,
        TetModel::Arap => Energy::Arap,
        TetModel::Corotational => Energy::Corotational,
    }
}

/// Elastic energy V Ψ(F) of one element (zero at rest).
pub fn tet_energy(p: &TetParams, rest: &TetRest, x: &[Vec3; 4]) -> f64 {
    let f = deformation_gradient(x, &rest.dm_inv);
    rest.volume
        * match p.model {
            TetModel::NeoHookean | TetModel::NeoHookeanBlock => neohookean::energy_density(&f, &p.lame),
            TetModel::StVK => stvk::energy_density(&f, &p.lame),
            TetModel::Arap => arap::energy_density(&f, p.lame.mu),
            TetModel::Corotational => Energy::Corotational.density(&f, p.lame),
        }
}

/// det F of one element (its volume ratio).
#[inline]
pub fn volume_ratio(rest: &TetRest, x: &[Vec3; 4]) -> f64 {
    deformation_gradient(x, &rest.dm_inv).determinant()
}

/// Gathers the vertices of an element (a tet's four, a triangle's three, a hinge's four).
#[inline(always)]
pub fn gather<T: Copy, const N: usize>(a: &[T], t: &[u32; N]) -> [T; N] {
    t.map(|i| a[i as usize])
}
