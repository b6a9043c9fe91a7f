//! Gauss-Seidel sweeps over every elastic constraint in a [`Schedule`]: serial (XPBD Algorithm 1),
//! colored (block paper, Algorithm 2) or clustered (Algorithm 3). Batches run in sequence; the items
//! of a batch in parallel with rayon; the elements of an item in sequence, each update seen by the next.

use crate::block_families::{build_blocks, copy_positions_in, padded_vertices, position, residual_through_blocks, GRAIN, VERTEX_GRAIN};
use crate::block_kernel::{Corrected, InPlace, Isa, Project, TetBlock};
use crate::elements::{for_each_family, gather, Family, FamilyVisitor, HingeAngles, Local};
use crate::real::{Padded, Real};
use crate::shared::SharedMut;
use crate::tet_blocks::{LaneBlocks, LaneVisitor, TetBlocks};
use rayon::prelude::*;
use xpbd_core::constraint::strain_limit;
use xpbd_core::graph::partition::partitions;
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::solver_config::Precision;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScheduleKind {
    Serial,
    Colored,
    Clustered { cluster_size: usize },
}

/// One schedule per family (see `elements::for_each_family` for the numbering). For colored and
/// clustered schedules the sweep runs on its own copy of the model whose elements are permuted into
/// execution order, so that element data streams through the cache as in the serial sweep; the
/// multipliers are mapped back to model order after each sweep.
pub struct GaussSeidel {
    pub schedules: Vec<Schedule>,
    /// The hinges' last angles, in the order of the model swept (the permuted one when there is one).
    angles: HingeAngles,
    permuted: Option<Permuted>,
    /// The lane blocks of every family the block kernel projects (`None` for the others), by family.
    blocks: Vec<Option<LaneBlocks>>,
    isa: Isa,
    /// `[x, y, z, w]` (w the inverse mass, set at construction) of every vertex in the blocks' precision: the
    /// block kernel's copy of the positions of the families it projects.
    padded: Padded,
    /// Sweeps per substep (the PBD bodies' k′).
    iterations: usize,
}

struct Permuted {
    model: Model,
    /// `lambda_of[i]`: the model-order multiplier of permuted multiplier `i`.
    lambda_of: Vec<u32>,
    /// `hinge_of[i]`: the model-order hinge (all cloth groups counted) of permuted hinge `i`.
    hinge_of: Vec<u32>,
    lambda: Vec<f64>,
}

impl GaussSeidel {
    /// Schedules for every family of `model`: index order, greedy colors, or clusters of up to
    /// `cluster_size` elements colored on the supernodal graph. Partitions come from the per-topology
    /// cache of `xpbd_core::graph::partition`. `h`: the substep (the families' parameters depend on it);
    /// `iterations`: sweeps per substep (PBD bodies scale their stiffness by it); `precision`: the block kernel's.
    pub fn new(model: &Model, h: f64, iterations: usize, kind: ScheduleKind, precision: Precision) -> Self {
        Self::with_isa(model, h, iterations, kind, precision, Isa::detect())
    }

    /// As [`GaussSeidel::new`], with the block kernel on instruction set `isa` (one [`Isa::available`]
    /// lists).
    pub fn with_isa(model: &Model, h: f64, iterations: usize, kind: ScheduleKind, precision: Precision, isa: Isa) -> Self {
        let padded = padded_vertices(&model.inv_mass, precision);
        let mut planner = Planner { kind, vertex_count: model.vertex_count(), schedules: Vec::new() };
        let angles = HingeAngles::new(model);
        for_each_family(model, h, iterations, &angles, &mut planner);
        if kind == ScheduleKind::Serial {
            let blocks = build_blocks(model, h, &planner.schedules, &angles, precision, 1);
            return GaussSeidel { schedules: planner.schedules, angles, permuted: None, blocks, isa, padded, iterations };
        }
        let orders: Vec<Vec<u32>> = planner.schedules.iter().map(Schedule::execution_order).collect();
        let (permuted_model, lambda_of, hinge_of) = permute(model, &orders);
        let schedules: Vec<Schedule> = planner.schedules.iter().map(Schedule::in_execution_order).collect();
        let angles = HingeAngles::new(&permuted_model);
        let blocks = build_blocks(&permuted_model, h, &schedules, &angles, precision, isa.lanes(precision));
        let permuted = Permuted { model: permuted_model, lambda_of, hinge_of, lambda: vec![0.0; model.rows] };
        GaussSeidel { schedules, angles, permuted: Some(permuted), blocks, isa, padded, iterations }
    }

    /// How many families the block kernel projects.
    pub fn block_families(&self) -> usize {
        self.blocks.iter().flatten().count()
    }

    /// The hinges' last angles in model order (checkpoint state).
    pub fn hinge_angles(&self) -> Vec<f64> {
        let values = self.angles.values();
        match &self.permuted {
            None => values,
            Some(p) => {
                let mut out = vec![0.0; values.len()];
                p.hinge_of.iter().zip(&values).for_each(|(&i, &v)| out[i as usize] = v);
                out
            }
        }
    }

    /// Sets the hinges' last angles from model order (as [`GaussSeidel::hinge_angles`] gives them).
    pub fn restore_hinge_angles(&mut self, model_order: &[f64]) -> xpbd_core::Result<()> {
        match &self.permuted {
            Some(p) if model_order.len() == p.hinge_of.len() => self.angles.restore(&p.hinge_of.iter().map(|&i| model_order[i as usize]).collect::<Vec<_>>()),
            _ => self.angles.restore(model_order),
        }
    }

    /// Zeroes the multipliers at the start of a substep: `lambda` (model order) and, for permuted
    /// schedules, the sweep's own copy.
    pub fn reset(&mut self, lambda: &mut [f64]) {
        crate::zero(lambda);
        if let Some(p) = &mut self.permuted {
            crate::zero(&mut p.lambda);
        }
    }

    /// One sweep, then the cloth strain limits. With a permuted (colored or clustered) schedule the
    /// multipliers live in the sweep's own copy and `lambda` is left as it was: call [`GaussSeidel::export`]
    /// before reading them.
    pub fn iterate(&mut self, model: &Model, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64) {
        self.blocks.iter_mut().flatten().for_each(|b| b.set_substep(h));
        let (swept, lambda) = match &mut self.permuted {
            None => (model, lambda),
            Some(p) => (&p.model, &mut p.lambda[..]),
        };
        let mut sweep = Sweep {
            schedules: &self.schedules,
            blocks: &self.blocks,
            isa: self.isa,
            padded: &mut self.padded,
            rest: &swept.rest,
            x: SharedMut::new(x),
            x_prev,
            w: &swept.inv_mass,
            lambda: SharedMut::new(lambda),
        };
        for_each_family(swept, h, self.iterations, &self.angles, &mut sweep);
        limit_strain(model, x);
    }

    /// ‖C(x) + α̃λ‖ over every elastic row of `model` at `x`, with the multipliers this sweep holds (its own
    /// copy when permuted, else `lambda`): the block families through the block kernel (its groups in parallel,
    /// summed in group order, so the value does not depend on the thread count), the others as
    /// `xpbd_core::metrics::residual_norm` computes them, which this equals to round-off.
    pub fn residual(&mut self, model: &Model, x: &[Vec3], lambda: &[f64], h: f64) -> f64 {
        let (swept, lambda) = match &self.permuted {
            None => (model, lambda),
            Some(p) => (&p.model, &p.lambda[..]),
        };
        residual_through_blocks(swept, &mut self.blocks, self.isa, &mut self.padded, x, lambda, h)
    }

    /// Copies the multipliers into `lambda` in model order (nothing to do for the serial schedule).
    pub fn export(&self, lambda: &mut [f64]) {
        if let Some(p) = &self.permuted {
            let out = SharedMut::new(lambda);
            let pairs = p.lambda.par_iter().zip(&p.lambda_of).with_min_len(VERTEX_GRAIN);
            // SAFETY: `lambda_of` is a permutation (`permute`), so every entry has one writer.
            pairs.for_each(|(&l, &i)| unsafe { out.update(i as usize, |x| *x = l) });
        }
    }
}

/// Projects every triangle of the strain-limited cloth groups onto its limit, one after the other
/// (`xpbd_core::constraint::strain_limit`).
fn limit_strain(model: &Model, x: &mut [Vec3]) {
    for g in model.cloth_groups.iter() {
        let Some(limit) = &g.strain_limit else { continue };
        for (t, dm_inv) in g.tris.iter().zip(&g.tri_rest) {
            let mut p = t.map(|i| x[i as usize]);
            strain_limit::project(limit, dm_inv, &t.map(|i| model.inv_mass[i as usize]), &mut p);
            for (&i, p) in t.iter().zip(p) {
                x[i as usize] = p;
            }
        }
    }
}

struct Sweep<'a> {
    schedules: &'a [Schedule],
    blocks: &'a [Option<LaneBlocks>],
    isa: Isa,
    padded: &'a mut Padded,
    x: SharedMut<'a, Vec3>,
    /// The rest positions an f32 sweep's displacements are taken from.
    rest: &'a [Vec3],
    x_prev: &'a [Vec3],
    w: &'a [f64],
    lambda: SharedMut<'a, f64>,
}

impl FamilyVisitor for Sweep<'_> {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        let Family { index: family, elements, damped, rows, lambda_offset, .. } = f;
        if let Some(b) = &self.blocks[family] {
            return b.visit(self);
        }
        let (x, lambda, x_prev, w) = (&self.x, &self.lambda, self.x_prev, self.w);
        let s = &self.schedules[family];
        let item = |i: usize| {
            for &e in s.item(i) {
                let e = e as usize;
                let idx = &elements[e];
                // SAFETY: within a batch, items share no vertex and no element (schedule validity),
                // and the elements of one item run in sequence on one thread.
                unsafe {
                    let local = gather(idx, |v| x.get(v), x_prev, w, damped);
                    let dx = project(e, &local, lambda.slice(lambda_offset + e * rows, rows));
                    for n in 0..N {
                        x.update(idx[n] as usize, |p| *p += dx[n]);
                    }
                }
            }
        };
        for b in 0..s.batches() {
            let items = s.batch(b);
            if items.len() == 1 {
                item(items.start)
            } else {
                items.into_par_iter().with_min_len(GRAIN).for_each(item)
            }
        }
    }
}

/// Runs one family through the block kernel: its vertices' coordinates are copied into the padded array, swept
/// batch by batch (the groups of a batch in parallel, the steps of a group in order) and copied back (f64), or
/// the positions moved by each vertex's sum of corrections (f32: [`Corrected`]).
impl LaneVisitor for &mut Sweep<'_> {
    type Output = ();
    fn visit<T: Real, const L: usize>(self, blocks: &TetBlocks<T, L>)
    where
        TetBlock<T, L>: Project<T, L>,
    {
        let (x, lambda, rest) = (&self.x, &self.lambda, self.rest);
        let (padded, sums) = T::padded(self.padded);
        let (padded, sums) = (&SharedMut::new(&mut padded[..]), &SharedMut::new(&mut sums[..]));
        // SAFETY (copies): `blocks.vertices` lists each vertex once, so every entry has one writer, and no
        // other family runs meanwhile.
        unsafe { copy_positions_in(&blocks.vertices, |v| x.get(v), rest, padded, T::COARSE.then_some(sums)) };
        let (isa, gamma) = (self.isa, T::of(blocks.material.gamma));
        let group = |g: usize| {
            for step in blocks.group(g) {
                // SAFETY: `BlockBuilder` checked every index against these arrays' lengths (the copy above against
                // the padded array's, as it wrote every vertex the blocks name); the groups of
                // a batch share no vertex and no multiplier (schedule validity); idle lanes repeat lane 0,
                // which only this call writes, after reading; `isa` is one `Isa::available` lists. The copy zeroed
                // the sums at every vertex the blocks name, and they have the same owners.
                if T::COARSE {
                    let out = Corrected { x: padded.ptr(), sums: sums.ptr(), lambda: lambda.ptr() };
                    unsafe { step.project(isa, gamma, out.x, out.lambda, &out) }
                } else {
                    let out = InPlace { x: padded.ptr(), lambda: lambda.ptr() };
                    unsafe { step.project(isa, gamma, out.x, out.lambda, &out) }
                }
            }
        };
        for b in 0..blocks.batches() {
            let groups = blocks.batch(b);
            if groups.len() == 1 {
                group(groups.start)
            } else {
                groups.into_par_iter().with_min_len((GRAIN / L).max(1)).for_each(group)
            }
        }
        blocks.vertices.par_iter().with_min_len(VERTEX_GRAIN).for_each(|&v| {
            let v = v as usize;
            // SAFETY: as the copy in.
            unsafe {
                match T::COARSE {
                    true => x.update(v, |q| *q += position(sums.get(v))),
                    false => x.update(v, |q| *q = position(padded.get(v))),
                }
            }
        });
    }
}

struct Planner {
    kind: ScheduleKind,
    vertex_count: usize,
    schedules: Vec<Schedule>,
}

impl FamilyVisitor for Planner {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, _project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        let elements = f.elements;
        self.schedules.push(match self.kind {
            ScheduleKind::Serial => Schedule::serial(elements.len()),
            ScheduleKind::Colored => Schedule::colored(&partitions(elements, self.vertex_count, 1).colored),
            ScheduleKind::Clustered { cluster_size } => {
                let p = partitions(elements, self.vertex_count, cluster_size);
                Schedule::clustered(&p.clustering, &p.cluster_colors)
            }
        });
    }
}

/// A copy of `model` whose families list their elements in `orders[family]` (with their rest data), the
/// model-order index of every permuted multiplier, and of every permuted hinge.
fn permute(model: &Model, orders: &[Vec<u32>]) -> (Model, Vec<u32>, Vec<u32>) {
    fn take<T: Clone>(v: &[T], order: &[u32]) -> Vec<T> {
        order.iter().map(|&e| v[e as usize].clone()).collect()
    }
    let mut m = model.clone();
    let mut lambda_of: Vec<u32> = (0..model.rows as u32).collect();
    let mut remap = |offset: usize, rows: usize, order: &[u32]| {
        for (new, &old) in order.iter().enumerate() {
            for k in 0..rows {
                lambda_of[offset + new * rows + k] = (offset + old as usize * rows + k) as u32;
            }
        }
    };
    let mut hinge_of = Vec::new();
    let mut family = 0;
    for g in &mut m.tet_groups {
        let o = &orders[family];
        (g.tets, g.rest) = (take(&g.tets, o), take(&g.rest, o));
        remap(g.lambda_offset, g.model.rows(), o);
        family += 1;
    }
    for g in &mut m.cloth_groups {
        let (oe, oh) = (&orders[family], &orders[family + 1]);
        (g.edges, g.rest_length) = (take(&g.edges, oe), take(&g.rest_length, oe));
        (g.hinges, g.rest_angle, g.bending_compliance) = (take(&g.hinges, oh), take(&g.rest_angle, oh), take(&g.bending_compliance, oh));
        remap(g.lambda_offset, 1, oe);
        remap(g.lambda_offset + g.edges.len(), 1, oh);
        let first = hinge_of.len() as u32;
        hinge_of.extend(oh.iter().map(|&e| first + e));
        family += 2;
    }
    (m, lambda_of, hinge_of)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_families::test_bar as bar;
    use xpbd_core::constraint::tet_model::project_tet;
    use xpbd_core::metrics;

    /// Three sweeps of every schedule on every instruction set against the scalar projection
    /// (`project_tet`) applied element by element in the schedule's execution order: equal to round-off in f64,
    /// and the instruction sets equal to the bit; the residual through the blocks equals `residual_norm`; the
    /// padded array still holds the inverse masses. In f32 the largest differences measured were 9.6e-4 of a
    /// vertex's motion, 6.2e-6 of a multiplier and 1.1e-5 of the residual (f32's ε = 6e-8, amplified by three
    /// sweeps of a stiff, ill-conditioned bar); the bounds are about twice these.
    #[test]
    fn block_sweeps_match_the_scalar_projection_in_schedule_order() {
        sweeps_match_the_scalar_projection(Precision::F64, [1e-8, 1e-8, 1e-10]);
        sweeps_match_the_scalar_projection(Precision::F32, [2e-3, 2e-5, 3e-5]);
    }

    /// `tol`: of each vertex's motion, of each multiplier, of the residual.
    fn sweeps_match_the_scalar_projection(precision: Precision, [x_tol, lambda_tol, residual_tol]: [f64; 3]) {
        let (m, h, x0) = bar();
        let g = &m.tet_groups[0];
        let params = g.params(h);
        for kind in [ScheduleKind::Serial, ScheduleKind::Colored, ScheduleKind::Clustered { cluster_size: 5 }] {
            let order = GaussSeidel::new(&m, h, 1, kind, precision).permuted.as_ref().map_or_else(
                || (0..g.tets.len() as u32).collect(),
                |_| {
                    let mut planner = Planner { kind, vertex_count: m.vertex_count(), schedules: Vec::new() };
                    for_each_family(&m, h, 1, &HingeAngles::new(&m), &mut planner);
                    planner.schedules[0].execution_order()
                },
            );
            let (mut x_ref, mut lambda_ref) = (x0.clone(), vec![0.0; m.rows]);
            for _ in 0..3 {
                for &e in &order {
                    let (t, e) = (g.tets[e as usize], e as usize);
                    let (mut x, w) = (t.map(|v| x_ref[v as usize]), t.map(|v| m.inv_mass[v as usize]));
                    let x_start = x;
                    project_tet(&params, &g.rest[e], &w, &mut x, &x_start, &mut lambda_ref[g.lambda_offset + 2 * e..][..2]);
                    t.iter().zip(x).for_each(|(&v, p)| x_ref[v as usize] = p);
                }
            }
            let mut first: Option<(Vec<Vec3>, Vec<f64>)> = None;
            for isa in Isa::available() {
                let mut gs = GaussSeidel::with_isa(&m, h, 1, kind, precision, isa);
                let (mut x, mut lambda) = (x0.clone(), vec![0.0; m.rows]);
                gs.reset(&mut lambda);
                for _ in 0..3 {
                    gs.iterate(&m, &mut x, &m.rest, &mut lambda, h);
                }
                let through_blocks = gs.residual(&m, &x, &lambda, h);
                gs.export(&mut lambda);
                let scalar = metrics::residual_norm(&m, &x, &lambda, h);
                assert!((through_blocks - scalar).abs() <= residual_tol * scalar, "{kind:?} {isa:?}: residual {through_blocks} vs {scalar}");
                let masses = match precision {
                    Precision::F64 => gs.padded.f64.iter().zip(&m.inv_mass).all(|(p, &w)| p[3] == w),
                    Precision::F32 => gs.padded.f32.iter().zip(&m.inv_mass).all(|(p, &w)| p[3] == w as f32) && gs.padded.f32_sums.iter().all(|s| s[3] == 0.0),
                };
                assert!(masses, "{kind:?} {isa:?}: padded masses changed");
                for (v, (a, b)) in x.iter().zip(&x_ref).enumerate() {
                    let moved = (b - x0[v]).norm().max(1e-9);
                    assert!((a - b).norm() <= x_tol * moved, "{kind:?} {isa:?} vertex {v}: {a} vs {b}");
                }
                for (i, (a, b)) in lambda.iter().zip(&lambda_ref).enumerate() {
                    assert!((a - b).abs() <= lambda_tol * b.abs().max(1e-9), "{kind:?} {isa:?} multiplier {i}: {a} vs {b}");
                }
                match &first {
                    None => first = Some((x, lambda)),
                    Some((x1, l1)) => assert!(x1 == &x && l1 == &lambda, "{kind:?}: {isa:?} differs from the portable build"),
                }
            }
        }
    }
}
