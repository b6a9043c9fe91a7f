//! Constraint families and one visit of one element. A family is a homogeneous element array (one
//! body's tets, a cloth's edges, a cloth's hinges) with its projection; the sweep loops (Gauss-Seidel in
//! any schedule, Jacobi) iterate families through [`for_each_family`] and apply or accumulate the
//! corrections a visit returns.

use crate::tet_blocks::BlockMaterial;
use std::sync::atomic::{AtomicU64, Ordering};
use xpbd_core::constraint::projection::{project_block, BlockParams};
use xpbd_core::constraint::tet::TetRest;
use xpbd_core::constraint::tet_model::{project_tet, TetModel};
use xpbd_core::constraint::{bending, distance, pbd};
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// Every hinge's last angle θ (cloth groups in model order, then hinges in the order of the model swept),
/// onto whose branch the next atan2 angle is unwrapped ([`bending::bending_near`]), so that a fold through
/// ±π does not flip the sign of its constraint. Written by the one visit of a hinge at a time (schedule
/// validity, one Jacobi task per element), hence relaxed atomics.
pub struct HingeAngles(Vec<AtomicU64>);

impl HingeAngles {
    /// The rest angles of `model`'s hinges.
    pub fn new(model: &Model) -> Self {
        HingeAngles(model.cloth_groups.iter().flat_map(|g| &g.rest_angle).map(|a| AtomicU64::new(a.to_bits())).collect())
    }
    fn get(&self, i: usize) -> f64 {
        f64::from_bits(self.0[i].load(Ordering::Relaxed))
    }
    fn set(&self, i: usize, theta: f64) {
        self.0[i].store(theta.to_bits(), Ordering::Relaxed);
    }
    /// The angles, in this object's order.
    pub fn values(&self) -> Vec<f64> {
        (0..self.0.len()).map(|i| self.get(i)).collect()
    }
    /// Replaces the angles with `values` (this object's order); none (a checkpoint from before the angles were
    /// carried) keeps them; an error when the count differs.
    pub fn restore(&self, values: &[f64]) -> xpbd_core::Result<()> {
        if !values.is_empty() && values.len() != self.0.len() {
            return Err(xpbd_core::Error::invalid(format!("the checkpoint carries {} hinge angles, the model has {} hinges", values.len(), self.0.len())));
        }
        values.iter().enumerate().for_each(|(i, &v)| self.set(i, v));
        Ok(())
    }
}

/// The gathered inputs of one element visit. `xp` (positions at the start of the substep) is only
/// read by damping; without damping it holds `x`.
pub struct Local<const N: usize> {
    pub x: [Vec3; N],
    pub xp: [Vec3; N],
    pub w: [f64; N],
}

/// A family that the block kernel (`crate::block_kernel`) can project: undamped block neo-Hookean
/// tetrahedra.
pub struct Lanes<'a> {
    pub material: BlockMaterial,
    pub tets: &'a [[u32; 4]],
    pub rest: &'a [TetRest],
}

/// One family as a sweep sees it.
pub struct Family<'a, const N: usize> {
    /// Its place in model order: tet groups, then per cloth its edges and its hinges.
    pub index: usize,
    pub elements: &'a [[u32; N]],
    /// Damped constraints read the positions at the start of the substep.
    pub damped: bool,
    /// Element `e` owns the multipliers `lambda_offset + e*rows ..+rows`.
    pub rows: usize,
    pub lambda_offset: usize,
    /// Given when the block kernel applies.
    pub lanes: Option<Lanes<'a>>,
}

/// What a sweep does with each family; `project(e, local, lambda)` returns element `e`'s corrections.
pub trait FamilyVisitor {
    fn visit<const N: usize, P>(&mut self, family: Family<N>, project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync;
}

/// Calls `v.visit` for every family of `model` at substep `h` with `iterations` per substep (the PBD
/// bodies' k′), numbering them 0, 1, ... in the order tet groups, then per cloth group its edges and its
/// hinges. Hinges unwrap their angle onto `angles` (those of `model`) and record it there.
pub fn for_each_family(model: &Model, h: f64, iterations: usize, angles: &HingeAngles, v: &mut impl FamilyVisitor) {
    let (mut family, mut first_hinge) = (0, 0);
    for g in &model.tet_groups {
        let p = g.params(h);
        let lanes = (g.model == TetModel::NeoHookeanBlock && g.damping == 0.0).then(|| Lanes {
            material: BlockMaterial { gamma: xpbd_core::constraint::neohookean::gamma(&g.lame), inv_lambda: 1.0 / g.lame.lambda, inv_mu: 1.0 / g.lame.mu },
            tets: &g.tets,
            rest: &g.rest,
        });
        let project = |e, l: &Local<4>, lam: &mut [f64]| {
            let mut x = l.x;
            project_tet(&p, &g.rest[e], &l.w, &mut x, &l.xp, lam);
            [x[0] - l.x[0], x[1] - l.x[1], x[2] - l.x[2], x[3] - l.x[3]]
        };
        v.visit(Family { index: family, elements: &g.tets, damped: g.damping > 0.0, rows: g.model.rows(), lambda_offset: g.lambda_offset, lanes }, project);
        family += 1;
    }
    for g in &model.cloth_groups {
        let stretch = BlockParams::diagonal([g.stretch_compliance], g.damping, h);
        let pbd = g.pbd.map(|k| (pbd::per_iteration(k.stretch, iterations), pbd::per_iteration(k.bending, iterations)));
        let damped = g.damping > 0.0;
        let edges = Family { index: family, elements: &g.edges, damped, rows: 1, lambda_offset: g.lambda_offset, lanes: None };
        v.visit(edges, |i, l: &Local<2>, lam| {
            let (c, grad) = distance::distance(&l.x, g.rest_length[i]);
            cloth_row(c, grad, l, &stretch, pbd.map(|k| k.0), lam)
        });
        let hinges = Family { index: family + 1, elements: &g.hinges, damped, rows: 1, lambda_offset: g.lambda_offset + g.edges.len(), lanes: None };
        v.visit(hinges, |i, l: &Local<4>, lam| {
            let (c, grad, theta) = bending::bending_near(&l.x, g.rest_angle[i], angles.get(first_hinge + i));
            angles.set(first_hinge + i, theta);
            cloth_row(c, grad, l, &BlockParams::diagonal([g.bending_compliance[i]], g.damping, h), pbd.map(|k| k.1), lam)
        });
        family += 2;
        first_hinge += g.hinges.len();
    }
}

/// A cloth row: XPBD with `bp`, or for a PBD body (`pbd_k`: its k′; compliance and damping 0) k′ times the
/// full projection with the multiplier left at 0 (PBD §3.3).
#[inline(always)]
fn cloth_row<const N: usize>(c: f64, grad: [Vec3; N], l: &Local<N>, bp: &BlockParams<1>, pbd_k: Option<f64>, lam: &mut [f64]) -> [Vec3; N] {
    match pbd_k {
        None => scalar_row(c, grad, l, bp, lam),
        Some(k) => scalar_row(c, grad, l, bp, &mut [0.0]).map(|d| d * k),
    }
}

/// One cloth row's XPBD update, skipped (no correction, multiplier kept) when its free vertices barely move
/// it: Σ w|∇C|² ≤ 1e-12 · max w · Σ |∇C|². A flat hinge whose one free vertex sits where ∂θ/∂x vanishes (an
/// edge end whose both opposite vertices project onto the other end, as at the degree-4 vertices of an
/// alternating grid) would otherwise divide round-off by round-off: a pinned sheet with rigid hinges (compliance
/// 0) blew up in its first substep. Mirrored in kernels/cloth_constraints.cuh.
#[inline(always)]
fn scalar_row<const N: usize>(c: f64, grad: [Vec3; N], l: &Local<N>, bp: &BlockParams<1>, lam: &mut [f64]) -> [Vec3; N] {
    let (mut free, mut all, mut w_max) = (0.0, 0.0, 0.0f64);
    for (g, &w) in grad.iter().zip(&l.w) {
        let g2 = g.norm_squared();
        free += w * g2;
        all += g2;
        w_max = w_max.max(w);
    }
    if free.is_nan() || free <= 1e-12 * w_max * all {
        return [Vec3::zeros(); N];
    }
    let disp = std::array::from_fn(|n| l.x[n] - l.xp[n]);
    let mut m = [lam[0]];
    match project_block(&[c], &[grad], &l.w, bp, &disp, &mut m) {
        Some(dx) => {
            lam[0] = m[0];
            dx
        }
        None => [Vec3::zeros(); N],
    }
}

/// Gathers an element's inputs with `load` (x) from its indices.
#[inline(always)]
pub fn gather<const N: usize>(idx: &[u32; N], load: impl Fn(usize) -> Vec3, x_prev: &[Vec3], w: &[f64], damped: bool) -> Local<N> {
    let x = idx.map(|i| load(i as usize));
    let xp = if damped { idx.map(|i| x_prev[i as usize]) } else { x };
    Local { x, xp, w: idx.map(|i| w[i as usize]) }
}
