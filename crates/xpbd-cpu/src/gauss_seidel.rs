//! Gauss-Seidel sweeps over every elastic constraint in a [`Schedule`]: serial (XPBD Algorithm 1),
//! colored (block paper, Algorithm 2) or clustered (Algorithm 3). Batches run in sequence; the items
//! of a batch in parallel with rayon; the elements of an item in sequence, each update seen by the next.

use crate::elements::{for_each_family, gather, Family, FamilyVisitor, HingeAngles, Lanes, Local};
use crate::shared::SharedMut;
use rayon::prelude::*;
use xpbd_core::constraint::lanes::{project_block_neohookean_x4, Block4};
use xpbd_core::constraint::strain_limit;
use xpbd_core::graph::partition::partitions;
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

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
    /// cache of `xpbd_core::graph::partition`. `h`: the substep (the families' parameters depend on it).
    pub fn new(model: &Model, h: f64, kind: ScheduleKind) -> Self {
        let mut planner = Planner { kind, vertex_count: model.vertex_count(), schedules: Vec::new() };
        let angles = HingeAngles::new(model);
        for_each_family(model, h, &angles, &mut planner);
        if kind == ScheduleKind::Serial {
            return GaussSeidel { schedules: planner.schedules, angles, permuted: None };
        }
        let orders: Vec<Vec<u32>> = planner.schedules.iter().map(Schedule::execution_order).collect();
        let (permuted_model, lambda_of, hinge_of) = permute(model, &orders);
        let schedules = planner.schedules.iter().map(Schedule::in_execution_order).collect();
        let angles = HingeAngles::new(&permuted_model);
        GaussSeidel { schedules, angles, permuted: Some(Permuted { model: permuted_model, lambda_of, hinge_of, lambda: vec![0.0; model.rows] }) }
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

    /// One sweep.
    /// Zeroes the multipliers at the start of a substep: `lambda` (model order) and, for permuted
    /// schedules, the sweep's own copy.
    pub fn reset(&mut self, lambda: &mut [f64]) {
        lambda.fill(0.0);
        if let Some(p) = &mut self.permuted {
            p.lambda.fill(0.0);
        }
    }

    /// One sweep, then the cloth strain limits. With a permuted (colored or clustered) schedule the
    /// multipliers live in the sweep's own copy and `lambda` is left as it was: call [`GaussSeidel::export`]
    /// before reading them.
    pub fn iterate(&mut self, model: &Model, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64) {
        match &mut self.permuted {
            None => sweep(&self.schedules, model, &self.angles, x, x_prev, lambda, h),
            Some(p) => sweep(&self.schedules, &p.model, &self.angles, x, x_prev, &mut p.lambda, h),
        }
        limit_strain(model, x);
    }

    /// Copies the multipliers into `lambda` in model order (nothing to do for the serial schedule).
    pub fn export(&self, lambda: &mut [f64]) {
        if let Some(p) = &self.permuted {
            for (&l, &i) in p.lambda.iter().zip(&p.lambda_of) {
                lambda[i as usize] = l;
            }
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

fn sweep(schedules: &[Schedule], model: &Model, angles: &HingeAngles, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64) {
    let mut sweep = Sweep { schedules, x: SharedMut::new(x), x_prev, w: &model.inv_mass, lambda: SharedMut::new(lambda) };
    for_each_family(model, h, angles, &mut sweep);
}

struct Sweep<'a> {
    schedules: &'a [Schedule],
    x: SharedMut<'a, Vec3>,
    x_prev: &'a [Vec3],
    w: &'a [f64],
    lambda: SharedMut<'a, f64>,
}

/// Items per rayon task: enough elements to amortise scheduling.
const GRAIN: usize = 64;

impl FamilyVisitor for Sweep<'_> {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        let Family { index: family, elements, damped, rows, lambda_offset, lanes } = f;
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
            match &lanes {
                _ if items.len() == 1 => item(items.start),
                None => items.into_par_iter().with_min_len(GRAIN).for_each(item),
                Some(lanes) => {
                    let quads = (items.len() + 3) / 4;
                    (0..quads).into_par_iter().with_min_len(GRAIN / 4).for_each(|q| {
                        let first = items.start + 4 * q;
                        // SAFETY: as above; the (up to) four items of a quad are items of one batch.
                        unsafe { four_items(s, first..(first + 4).min(items.end), lanes, x, lambda, w, lambda_offset) }
                    });
                }
            }
        }
    }
}

/// Projects up to four items of one batch in lockstep with the four-lane kernel: step k takes the k-th
/// element of each item, so every item's elements still run in their order.
///
/// # Safety
/// The items must belong to one batch of a valid schedule.
unsafe fn four_items(
    s: &Schedule,
    items: std::ops::Range<usize>,
    lanes: &Lanes,
    x: &SharedMut<Vec3>,
    lambda: &SharedMut<f64>,
    w: &[f64],
    lambda_offset: usize,
) {
    let mut members: [&[u32]; 4] = [&[]; 4];
    for (l, i) in items.enumerate() {
        members[l] = s.item(i);
    }
    let steps = members.iter().map(|m| m.len()).max().unwrap_or(0);
    let r0 = &lanes.rest[0];
    let mut b = Block4 { rest: [r0; 4], w: [[0.0; 4]; 4], x: [[Vec3::zeros(); 4]; 4], lambda: [[0.0; 2]; 4], active: [false; 4] };
    let mut e = [0usize; 4];
    for k in 0..steps {
        for l in 0..4 {
            b.active[l] = k < members[l].len();
            if !b.active[l] {
                continue;
            }
            e[l] = members[l][k] as usize;
            let tet = &lanes.tets[e[l]];
            b.rest[l] = &lanes.rest[e[l]];
            for n in 0..4 {
                b.w[l][n] = w[tet[n] as usize];
                b.x[l][n] = x.get(tet[n] as usize);
            }
            let off = lambda_offset + 2 * e[l];
            b.lambda[l] = [lambda.get(off), lambda.get(off + 1)];
        }
        project_block_neohookean_x4(&lanes.material, &mut b);
        for l in 0..4 {
            if !b.active[l] {
                continue;
            }
            let tet = &lanes.tets[e[l]];
            for n in 0..4 {
                x.update(tet[n] as usize, |p| *p = b.x[l][n]);
            }
            let off = lambda_offset + 2 * e[l];
            lambda.update(off, |v| *v = b.lambda[l][0]);
            lambda.update(off + 1, |v| *v = b.lambda[l][1]);
        }
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
