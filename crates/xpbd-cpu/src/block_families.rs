//! What the Gauss-Seidel and Jacobi sweeps share about the families the block kernel projects: their lane
//! blocks built over a sweep's schedules, the padded position array and its copy-in, and the residual evaluated
//! through them.

use crate::block_kernel::{Isa, Project, ResidualSum, TetBlock};
use crate::elements::{for_each_family, Family, FamilyVisitor, HingeAngles, Local};
use crate::real::{Padded, Real};
use crate::shared::SharedMut;
use crate::tet_blocks::{LaneBlocks, LaneVisitor, Layout, TetBlocks};
use nalgebra::Matrix3;
use rayon::prelude::*;
use xpbd_core::constraint::tet::{shape_matrix, TetRest};
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::mesh::Vec3;
use xpbd_core::metrics;
use xpbd_core::model::Model;
use xpbd_core::solver_config::Precision;

/// Items per rayon task: enough elements to amortise scheduling.
pub(crate) const GRAIN: usize = 64;

/// Vertices per rayon task of the copies into and out of the padded array (and the multi-layer solver's
/// per-vertex loops): the substep's own.
pub(crate) use xpbd_core::substep::integrate::VERTEX_GRAIN;

/// ‖C(x) + α̃λ‖ over every elastic row of `model` (whose families `blocks` lists, at `lambda`'s layout): block
/// families through the kernel (in its precision), the others as `metrics` computes them. `padded` takes the
/// block families' positions; its fourth entries (the masses the owner's sweep solves with) are left as they are.
pub(crate) fn residual_through_blocks(
    model: &Model,
    blocks: &mut [Option<LaneBlocks>],
    isa: Isa,
    padded: &mut Padded,
    x: &[Vec3],
    lambda: &[f64],
    h: f64,
) -> f64 {
    blocks.iter_mut().flatten().for_each(|b| b.set_substep(h));
    let tets: f64 = model
        .tet_groups
        .iter()
        .zip(blocks.iter())
        .map(|(g, blocks)| match blocks {
            Some(b) => b.visit(BlockResidualSq { isa, padded: &mut *padded, x, rest: &model.rest, lambda }),
            None => metrics::tet_group_residual_sq(g, x, lambda, h),
        })
        .sum();
    let cloth: f64 = model.cloth_groups.iter().map(|g| metrics::cloth_group_residual_sq(g, x, lambda, h)).sum();
    (tets + cloth).sqrt()
}

/// Σ (r_H² + r_D²) over the elements of one block family at `x` (nothing is written but `padded`).
struct BlockResidualSq<'r> {
    isa: Isa,
    padded: &'r mut Padded,
    x: &'r [Vec3],
    rest: &'r [Vec3],
    lambda: &'r [f64],
}

impl LaneVisitor for BlockResidualSq<'_> {
    type Output = f64;
    fn visit<T: Real, const L: usize>(self, blocks: &TetBlocks<T, L>) -> f64
    where
        TetBlock<T, L>: Project<T, L>,
    {
        let BlockResidualSq { isa, padded, x, rest, lambda } = self;
        let padded = SharedMut::new(&mut T::padded(padded).0[..]);
        // SAFETY: nothing else reads or writes `padded` during the copy.
        unsafe { copy_positions_in(&blocks.vertices, |v| x[v], rest, &padded, None) };
        let gamma = T::of(blocks.material.gamma);
        let groups: Vec<f64> = (0..blocks.group_count())
            .into_par_iter()
            .with_min_len((GRAIN / L).max(1))
            .map(|g| {
                let out = ResidualSum::default();
                // SAFETY: `BlockBuilder` checked every index against these arrays' lengths (the copy above against the
                // padded array's, as it wrote every vertex the blocks name); `ResidualSum` writes nothing, so the
                // reads need no exclusivity; `isa` is one `Isa::available` lists.
                blocks.group(g).iter().for_each(|step| unsafe { step.project(isa, gamma, padded.ptr(), lambda.as_ptr(), &out) });
                out.sum.get()
            })
            .collect();
        groups.iter().sum()
    }
}

/// Copies x(v), or for a [`Real::COARSE`] precision the displacement x(v) − rest[v], rounded to `T` into the first
/// three entries of `padded[v]` for every vertex of `vertices` (each listed once), in parallel; the fourth
/// entries, the inverse masses [`padded_vertices`] set, stay as they are; `sums`, when given, are zeroed at these
/// vertices. Every index is checked, so that afterwards the kernel may access the vertices of `vertices` unchecked.
///
/// # Safety
/// No other thread may access `padded` or `sums` at these vertices during the copy, nor write what `x` reads.
pub(crate) unsafe fn copy_positions_in<T: Real>(
    vertices: &[u32],
    x: impl Fn(usize) -> Vec3 + Sync,
    rest: &[Vec3],
    padded: &SharedMut<[T; 4]>,
    sums: Option<&SharedMut<[T; 4]>>,
) {
    vertices.par_iter().with_min_len(VERTEX_GRAIN).for_each(|&v| {
        let v = v as usize;
        // f64 reads no rest position: this copy runs before every sweep of a family.
        let p = if T::COARSE { x(v) - rest[v] } else { x(v) };
        let u = [T::of(p.x), T::of(p.y), T::of(p.z)];
        // SAFETY: `vertices` lists each vertex once, so every entry has one writer.
        unsafe {
            padded.update(v, |q| (q[0], q[1], q[2]) = (u[0], u[1], u[2]));
            if let Some(sums) = sums {
                sums.update(v, |s| *s = [T::ZERO; 4]);
            }
        }
    });
}

/// The first three entries of a padded vertex in f64.
#[inline(always)]
pub(crate) fn position<T: Real>(p: [T; 4]) -> Vec3 {
    Vec3::new(p[0].to_f64(), p[1].to_f64(), p[2].to_f64())
}

/// `[·, ·, ·, w_v]` for every vertex in `precision`, `w` the inverse masses the owner's sweep solves with: set
/// once here, the coordinates copied in by [`copy_positions_in`] before each use; f32's correction sums.
pub(crate) fn padded_vertices(w: &[f64], precision: Precision) -> Padded {
    match precision {
        Precision::F64 => Padded { f64: w.iter().map(|&w| [0.0, 0.0, 0.0, w]).collect(), ..Padded::default() },
        Precision::F32 => Padded { f32: w.iter().map(|&w| [0.0, 0.0, 0.0, w as f32]).collect(), f32_sums: vec![[0.0; 4]; w.len()], ..Padded::default() },
    }
}

/// Blocks in `precision`, `lanes` lanes wide, for every family of `model` the block kernel projects, over
/// `schedules` (the model's own element order).
pub(crate) fn build_blocks(model: &Model, h: f64, schedules: &[Schedule], angles: &HingeAngles, precision: Precision, lanes: usize) -> Vec<Option<LaneBlocks>> {
    let mut builder = BlockBuilder { schedules, precision, lanes, rest: &model.rest, lambda_len: model.rows, h, blocks: Vec::new() };
    // The blocks hold neo-Hookean tets only, which have no PBD stiffness: any iteration count will do.
    for_each_family(model, h, 1, angles, &mut builder);
    builder.blocks
}

struct BlockBuilder<'a> {
    schedules: &'a [Schedule],
    precision: Precision,
    lanes: usize,
    rest: &'a [Vec3],
    lambda_len: usize,
    h: f64,
    blocks: Vec<Option<LaneBlocks>>,
}

impl FamilyVisitor for BlockBuilder<'_> {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, _project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        let blocks = f.lanes.map(|lanes| {
            let s = &self.schedules[f.index];
            let layout = Layout { tets: lanes.tets, rest: lanes.rest, lambda_offset: f.lambda_offset };
            let blocks = LaneBlocks::new(self.precision, self.lanes, s, &layout, lanes.material, self.h);
            // The invariant of the sweeps' unchecked accesses.
            assert!(blocks.fits(self.rest.len(), self.lambda_len), "lane blocks name a vertex or multiplier out of range");
            // f32's F = I + D_u D_m⁻¹ holds only for D_m⁻¹ taken from the rest positions u is measured from.
            let at_rest = |(t, r): (&[u32; 4], &TetRest)| (shape_matrix(&t.map(|v| self.rest[v as usize])) * r.dm_inv - Matrix3::identity()).amax() <= 1e-9;
            let displacements = self.precision == Precision::F32;
            assert!(!displacements || lanes.tets.iter().zip(lanes.rest).all(at_rest), "a block element's D_m⁻¹ is not that of the model's rest positions");
            blocks
        });
        self.blocks.push(blocks);
    }
}

/// A pinned 1,280-tet block neo-Hookean bar, deformed: the sweeps' tests' scene.
#[cfg(test)]
pub(crate) fn test_bar() -> (Model, f64, Vec<Vec3>) {
    use std::path::Path;
    use xpbd_core::scene::{build, parse};
    let scene = r#"name = "bar"
[simulation]
substeps = 10
[[body]]
name = "bar"
mesh = { generator = "box", size = [2.0, 0.5, 0.5], cells = [16, 4, 4], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e6, poisson = 0.45, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
"#;
    let built = build(&parse(scene, Path::new("bar.toml")).unwrap(), Path::new(".")).unwrap();
    let m = built.model;
    let x0 = m.rest.iter().map(|p| p + Vec3::new(0.01 * p.y, -0.05 * p.x * p.x, 0.02 * p.y * p.z)).collect();
    (m, built.config.h(), x0)
}
