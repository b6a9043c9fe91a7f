//! Lane-blocked (array-of-structures-of-arrays) element data of one undamped block neo-Hookean family,
//! built once with its schedule so that a sweep streams it without repacking.
//!
//! A batch's items (elements for the colored schedule, clusters for the clustered one) are taken `L`
//! at a time, longest first, into a *group*; step k of a group is one [`TetBlock`] holding the k-th
//! element of each of its items, one per lane. Items of a batch share no vertex, so the lanes of a step
//! are independent and every item's elements still run in their own order: the same Gauss-Seidel update
//! as the scalar sweep. Sorting the items of a group by length makes the live lanes of every step a
//! prefix; idle lanes repeat lane 0 (read by the same kernel call that writes lane 0, before it writes,
//! and never written for the idle lane).
//!
//! The serial schedule (one item) is built with `L = 1`: the reference order, through the same kernel.

use crate::block_kernel::{Project, TetBlock};
use crate::real::Real;
use xpbd_core::constraint::tet::TetRest;
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::solver_config::Precision;

/// Material constants of a family: γ = 1 + μ/λ (block paper Eq. 7–9), 1/λ and 1/μ for α̃ = 1/(k V h²).
#[derive(Clone, Copy, Debug)]
pub struct BlockMaterial {
    pub gamma: f64,
    pub inv_lambda: f64,
    pub inv_mu: f64,
}

/// The blocks of one family for lane count `L`, solved in `T`.
pub struct TetBlocks<T, const L: usize> {
    pub material: BlockMaterial,
    steps: Vec<TetBlock<T, L>>,
    /// 1/V per step and lane, kept to recompute α̃ when the substep changes.
    inv_volume: Vec<[f64; L]>,
    /// Group g runs `steps[group_start[g]..group_start[g + 1]]`.
    group_start: Vec<usize>,
    /// Batch b runs groups `batch_start[b]..batch_start[b + 1]`.
    batch_start: Vec<usize>,
    /// The substep α̃ was computed for.
    h: f64,
    /// Every vertex an element of the family names, ascending.
    pub vertices: Vec<u32>,
}

/// Where an element's nodes and multipliers live: `tets` (vertex indices), the multipliers of element
/// `e` at `lambda_offset + 2e` and `+ 1`.
pub struct Layout<'a> {
    pub tets: &'a [[u32; 4]],
    pub rest: &'a [TetRest],
    pub lambda_offset: usize,
}

impl<T: Real, const L: usize> TetBlocks<T, L> {
    /// Blocks for `schedule` (over the elements of `layout`) at substep `h`.
    pub fn new(schedule: &Schedule, layout: &Layout, material: BlockMaterial, h: f64) -> Self {
        let mut out = TetBlocks { material, steps: Vec::new(), inv_volume: Vec::new(), group_start: vec![0], batch_start: vec![0], h, vertices: Vec::new() };
        for b in 0..schedule.batches() {
            let mut items: Vec<&[u32]> = schedule.batch(b).map(|i| schedule.item(i)).collect();
            items.sort_by_key(|m| std::cmp::Reverse(m.len()));
            for group in items.chunks(L) {
                for k in 0..group[0].len() {
                    let (block, inv_volume) = out.step(group, k, layout);
                    out.steps.push(block);
                    out.inv_volume.push(inv_volume);
                }
                out.group_start.push(out.steps.len());
            }
            out.batch_start.push(out.group_start.len() - 1);
        }
        out.vertices = layout.tets.iter().flatten().copied().collect();
        out.vertices.sort_unstable();
        out.vertices.dedup();
        out.refresh_alpha();
        out
    }

    /// Step `k` of `group` (items sorted longest first).
    fn step(&self, group: &[&[u32]], k: usize, layout: &Layout) -> (TetBlock<T, L>, [f64; L]) {
        let mut b = TetBlock { nodes: [[0; L]; 4], dm_inv: [[T::ZERO; L]; 9], alpha: [[T::ZERO; L]; 2], lambda_at: [0; L], live: 0 };
        let mut inv_volume = [1.0; L];
        for (l, item) in group.iter().enumerate().take_while(|(_, item)| k < item.len()) {
            let e = item[k] as usize;
            let rest = &layout.rest[e];
            for n in 0..4 {
                b.nodes[n][l] = layout.tets[e][n];
            }
            for r in 0..3 {
                for c in 0..3 {
                    b.dm_inv[3 * r + c][l] = T::of(rest.dm_inv[(r, c)]);
                }
            }
            b.lambda_at[l] = (layout.lambda_offset + 2 * e) as u32;
            inv_volume[l] = 1.0 / rest.volume;
            b.live = l + 1;
        }
        for l in b.live..L {
            b.nodes.iter_mut().chain(std::slice::from_mut(&mut b.lambda_at)).for_each(|a| a[l] = a[0]);
            b.dm_inv.iter_mut().for_each(|a| a[l] = a[0]);
            inv_volume[l] = inv_volume[0];
        }
        (b, inv_volume)
    }

    /// α̃_H = 1/(λ V h²) and α̃_D = 1/(μ V h²) of every lane for the current `h`.
    fn refresh_alpha(&mut self) {
        let s = 1.0 / (self.h * self.h);
        let m = self.material;
        for (b, inv_v) in self.steps.iter_mut().zip(&self.inv_volume) {
            b.alpha = [inv_v.map(|v| T::of(v * s * m.inv_lambda)), inv_v.map(|v| T::of(v * s * m.inv_mu))];
        }
    }

    /// Recomputes α̃ when the substep differs from the one the blocks hold.
    pub fn set_substep(&mut self, h: f64) {
        if h != self.h {
            self.h = h;
            self.refresh_alpha();
        }
    }

    /// True when every node and multiplier a block names lies below `vertex_len` and `lambda_len` (the
    /// invariant the sweep's unchecked accesses rely on).
    pub fn fits(&self, vertex_len: usize, lambda_len: usize) -> bool {
        self.steps.iter().all(|b| b.nodes.iter().flatten().all(|&v| (v as usize) < vertex_len) && b.lambda_at.iter().all(|&a| (a as usize) + 1 < lambda_len))
    }

    pub fn batches(&self) -> usize {
        self.batch_start.len() - 1
    }

    /// Groups in all batches (batch b's are `batch(b)`).
    pub fn group_count(&self) -> usize {
        self.group_start.len() - 1
    }

    /// Group indices of batch `b`.
    pub fn batch(&self, b: usize) -> std::ops::Range<usize> {
        self.batch_start[b]..self.batch_start[b + 1]
    }

    /// The steps of group `g`, in order.
    pub fn group(&self, g: usize) -> &[TetBlock<T, L>] {
        &self.steps[self.group_start[g]..self.group_start[g + 1]]
    }
}

/// A family's blocks at the precision and lane count of the sweep: one lane for the serial order, else the
/// vector width.
pub enum LaneBlocks {
    F64x1(TetBlocks<f64, 1>),
    F64x4(TetBlocks<f64, 4>),
    F64x8(TetBlocks<f64, 8>),
    F32x1(TetBlocks<f32, 1>),
    F32x8(TetBlocks<f32, 8>),
    F32x16(TetBlocks<f32, 16>),
}

/// Work done on a family's blocks at whatever precision and lane count they hold ([`LaneBlocks::visit`]).
pub trait LaneVisitor {
    type Output;
    fn visit<T: Real, const L: usize>(self, blocks: &TetBlocks<T, L>) -> Self::Output
    where
        TetBlock<T, L>: Project<T, L>;
}

/// `$body` with `$b` bound to the blocks of whichever variant `$blocks` is.
macro_rules! each_variant {
    ($blocks:expr, $b:ident => $body:expr) => {
        match $blocks {
            LaneBlocks::F64x1($b) => $body,
            LaneBlocks::F64x4($b) => $body,
            LaneBlocks::F64x8($b) => $body,
            LaneBlocks::F32x1($b) => $body,
            LaneBlocks::F32x8($b) => $body,
            LaneBlocks::F32x16($b) => $body,
        }
    };
}

impl LaneBlocks {
    /// Blocks for `schedule` over `layout` in `precision`, `lanes` wide (1, or [`Isa::lanes`](crate::block_kernel::Isa::lanes)).
    pub fn new(precision: Precision, lanes: usize, schedule: &Schedule, layout: &Layout, material: BlockMaterial, h: f64) -> Self {
        match (precision, lanes) {
            (Precision::F64, 1) => LaneBlocks::F64x1(TetBlocks::new(schedule, layout, material, h)),
            (Precision::F64, 4) => LaneBlocks::F64x4(TetBlocks::new(schedule, layout, material, h)),
            (Precision::F64, 8) => LaneBlocks::F64x8(TetBlocks::new(schedule, layout, material, h)),
            (Precision::F32, 1) => LaneBlocks::F32x1(TetBlocks::new(schedule, layout, material, h)),
            (Precision::F32, 8) => LaneBlocks::F32x8(TetBlocks::new(schedule, layout, material, h)),
            (Precision::F32, 16) => LaneBlocks::F32x16(TetBlocks::new(schedule, layout, material, h)),
            (p, l) => unreachable!("no {} block of {l} lanes", p.name()),
        }
    }

    /// `v` on the blocks at their precision and lane count: the one place that tells them apart for reading.
    pub fn visit<V: LaneVisitor>(&self, v: V) -> V::Output {
        each_variant!(self, b => v.visit(b))
    }

    /// As [`TetBlocks::set_substep`] (the one mutation, so not through [`LaneBlocks::visit`]).
    pub fn set_substep(&mut self, h: f64) {
        each_variant!(self, b => b.set_substep(h))
    }

    /// As [`TetBlocks::fits`].
    pub fn fits(&self, vertex_len: usize, lambda_len: usize) -> bool {
        each_variant!(self, b => b.fits(vertex_len, lambda_len))
    }
}
