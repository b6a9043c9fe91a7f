//! The Jacobi loop with relaxation and mass splitting: every element is visited from the same positions (in
//! parallel with rayon) and its corrections stored in its own slots; then each vertex moves by the sum of its
//! slots. A vertex touched by n_v constraints lends each of them an n_v-th of its mass: the element solves with
//! the inverse masses n_v w_v, its multipliers take ω Δλ, and vertex v's slot ω Δx_v / n_v, which is ω w_v ∇C Δλ:
//! the vertex moves by the sum of every constraint's correction at its own mass. So the motion matches the
//! multipliers (the fixed point is the Gauss-Seidel one, C = −α̃λ), linear momentum is kept (Σ_v ∇_v C = 0), and
//! compliant constraints add their forces as they should. The previous scheme, ω / n_max on each element's
//! correction and multipliers alike, divided the elastic forces by about n_max as well: a soft beam (E = 2.5e5
//! Pa, 56k tets, 24 tets per vertex) fell almost freely at any substep count. Deterministic: every slot and hinge
//! angle has one writer.

use crate::block_families::{build_blocks, copy_positions_in, padded_vertices, position, residual_through_blocks, GRAIN};
use crate::block_kernel::{Apply, Isa, Project, Solved, TetBlock};
use crate::elements::{for_each_family, gather, Family, FamilyVisitor, HingeAngles, Local};
use crate::real::{Padded, Real};
use crate::shared::SharedMut;
use crate::tet_blocks::{LaneBlocks, LaneVisitor, TetBlocks};
use rayon::prelude::*;
use xpbd_core::constraint::mass_split::MassSplit;
use xpbd_core::graph::groups::Groups;
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::solver_config::Precision;

/// Slot layout, mass splitting and vertex → slot adjacency, built once per model.
pub struct Jacobi {
    /// Correction slots: N per element of every family, in family order.
    slots: Vec<Vec3>,
    /// First slot of each family.
    family_slot: Vec<usize>,
    /// n_v w_v and 1 / n_v per vertex.
    split: MassSplit,
    /// The slots of each vertex.
    by_vertex: Groups,
    /// ω, on every multiplier increment and correction.
    relaxation: f64,
    /// The hinges' last angles, model order.
    pub angles: HingeAngles,
    /// The lane blocks of the families the block kernel projects (one batch of every element), by family.
    blocks: Vec<Option<LaneBlocks>>,
    isa: Isa,
    /// `[x, y, z, n_v w_v]` of every vertex in the blocks' precision, for the block kernel (the split masses set
    /// at construction).
    padded: Padded,
    /// Iterations per substep (the PBD bodies' k′).
    iterations: usize,
}

/// Collects every family's vertex indices in slot order.
struct Layout {
    owners: Vec<u32>,
    family_slot: Vec<usize>,
    schedules: Vec<Schedule>,
}

impl FamilyVisitor for Layout {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, _project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        self.family_slot.push(self.owners.len());
        self.owners.extend(f.elements.iter().flatten());
        self.schedules.push(Schedule::independent(f.elements.len()));
    }
}

impl Jacobi {
    /// The pass over `model`'s families at substep `h`, `iterations` per substep (PBD bodies scale their stiffness
    /// by it), with relaxation ω = `relaxation`, the block kernel in `precision`.
    pub fn new(model: &Model, h: f64, iterations: usize, relaxation: f64, precision: Precision) -> Self {
        let mut l = Layout { owners: vec![], family_slot: vec![], schedules: vec![] };
        let angles = HingeAngles::new(model);
        for_each_family(model, h, iterations, &angles, &mut l);
        let by_vertex = Groups::from_labels(&l.owners, model.vertex_count());
        let split = MassSplit::new(&by_vertex, &model.inv_mass);
        let isa = Isa::detect();
        let blocks = build_blocks(model, h, &l.schedules, &angles, precision, isa.lanes(precision));
        let padded = padded_vertices(&split.split_inv_mass, precision);
        Jacobi { slots: vec![Vec3::zeros(); l.owners.len()], family_slot: l.family_slot, split, by_vertex, relaxation, angles, blocks, isa, padded, iterations }
    }

    /// How many families the block kernel projects.
    pub fn block_families(&self) -> usize {
        self.blocks.iter().flatten().count()
    }

    /// ‖C(x) + α̃λ‖ over every elastic row (`lambda` in model order), the block families through the block
    /// kernel ([`crate::gauss_seidel::GaussSeidel::residual`]).
    pub fn residual(&mut self, model: &Model, x: &[Vec3], lambda: &[f64], h: f64) -> f64 {
        residual_through_blocks(model, &mut self.blocks, self.isa, &mut self.padded, x, lambda, h)
    }

    /// One Jacobi iteration over every elastic constraint.
    pub fn iterate(&mut self, model: &Model, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64) {
        let omega = self.relaxation;
        self.blocks.iter_mut().flatten().for_each(|b| b.set_substep(h));
        let Jacobi { slots, family_slot, split, angles, blocks, isa, padded, iterations, .. } = self;
        let mut pass = Pass { slots, family_slot, split, x, rest: &model.rest, x_prev, lambda, omega, blocks, isa: *isa, padded };
        for_each_family(model, h, *iterations, angles, &mut pass);
        let (by_vertex, slots) = (&self.by_vertex, &self.slots);
        x.par_iter_mut().enumerate().for_each(|(v, xv)| {
            *xv += by_vertex.group(v).iter().map(|&s| slots[s as usize]).sum::<Vec3>();
        });
    }
}

struct Pass<'a> {
    slots: &'a mut [Vec3],
    family_slot: &'a [usize],
    split: &'a MassSplit,
    x: &'a [Vec3],
    /// The rest positions an f32 pass's displacements are taken from.
    rest: &'a [Vec3],
    x_prev: &'a [Vec3],
    lambda: &'a mut [f64],
    omega: f64,
    blocks: &'a [Option<LaneBlocks>],
    isa: Isa,
    padded: &'a mut Padded,
}

impl FamilyVisitor for Pass<'_> {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        let Family { index: family, elements, damped, rows, lambda_offset, .. } = f;
        if let Some(b) = &self.blocks[family] {
            return b.visit(BlockFamily { pass: self, family, lambda_offset });
        }
        let first = self.family_slot[family];
        let slots = &mut self.slots[first..first + N * elements.len()];
        let MassSplit { split_inv_mass: split_w, inv_count } = self.split;
        let lam = &mut self.lambda[lambda_offset..lambda_offset + rows * elements.len()];
        let (x, x_prev, omega) = (self.x, self.x_prev, self.omega);
        slots.par_chunks_exact_mut(N).zip(lam.par_chunks_exact_mut(rows)).enumerate().for_each(|(e, (s, l))| {
            let mut old = [0.0; 6];
            old[..rows].copy_from_slice(l);
            let dx = project(e, &gather(&elements[e], |v| x[v], x_prev, split_w, damped), l);
            for ((slot, d), &v) in s.iter_mut().zip(dx).zip(&elements[e]) {
                *slot = d * (omega * inv_count[v as usize]);
            }
            for (l, o) in l.iter_mut().zip(&old) {
                *l = o + (*l - o) * omega;
            }
        });
    }
}

/// One family of the pass through the block kernel: its vertices' positions copied into the padded array (whose
/// fourth entries hold their split inverse masses), every group in parallel, corrections into the slots.
struct BlockFamily<'p, 'a> {
    pass: &'p mut Pass<'a>,
    family: usize,
    lambda_offset: usize,
}

impl LaneVisitor for BlockFamily<'_, '_> {
    type Output = ();
    fn visit<T: Real, const L: usize>(self, blocks: &TetBlocks<T, L>)
    where
        TetBlock<T, L>: Project<T, L>,
    {
        let BlockFamily { pass, family, lambda_offset } = self;
        let (x, padded) = (pass.x, T::padded(pass.padded).0);
        // SAFETY: nothing else accesses the padded array during the copy.
        unsafe { copy_positions_in(&blocks.vertices, |v| x[v], pass.rest, &SharedMut::new(padded), None) };
        let padded = &*padded;
        let (slots, lambda) = (SharedMut::new(pass.slots), SharedMut::new(pass.lambda));
        let out = Corrections {
            x: padded.as_ptr(),
            slots: slots.ptr(),
            lambda: lambda.ptr(),
            first_slot: pass.family_slot[family],
            lambda_offset,
            omega: pass.omega,
            inv_count: &pass.split.inv_count,
        };
        let (isa, gamma) = (pass.isa, T::of(blocks.material.gamma));
        let group = |g: usize| {
            for step in blocks.group(g) {
                // SAFETY: `build_blocks` checked every index against these arrays; each element owns its
                // slots and multipliers, and the positions are only read.
                unsafe { step.project(isa, gamma, padded.as_ptr(), out.lambda, &out) }
            }
        };
        for b in 0..blocks.batches() {
            blocks.batch(b).into_par_iter().with_min_len((GRAIN / L).max(1)).for_each(group);
        }
    }
}

/// The Jacobi target of the block kernel, as the scalar pass computes it (and the CUDA `jacobi` kernel): element
/// e's slot of node n takes Δx_n ω / n_v with Δx_n = x_n' − x_n, x_n' the moved position (in f32 the kernel's Δx
/// itself, which keeps the digits a displacement would round away), zero when the block is singular; its
/// multipliers λ + (λ' − λ) ω with λ' = λ + Δλ.
struct Corrections<'a, T> {
    /// The coordinates the pass started from (the padded copy, only read).
    x: *const [T; 4],
    slots: *mut Vec3,
    lambda: *mut f64,
    first_slot: usize,
    lambda_offset: usize,
    omega: f64,
    inv_count: &'a [f64],
}

// SAFETY: the pointers are written only at the entries of the element a kernel call projects (one writer).
unsafe impl<T> Sync for Corrections<'_, T> {}

impl<T: Real, const L: usize> Apply<T, L> for Corrections<'_, T> {
    const MOVES: bool = !T::COARSE;
    #[inline(always)]
    unsafe fn apply(&self, b: &TetBlock<T, L>, s: &Solved<T, L>) {
        for l in 0..b.live.min(L) {
            let at = b.lambda_at[l] as usize;
            let slot = self.first_slot + 2 * (at - self.lambda_offset);
            let ok = s.ok(l);
            for n in 0..4 {
                let v = b.nodes[n][l] as usize;
                let k = self.omega * self.inv_count[v];
                let dx = if T::COARSE { position(s.rows[n][l]) } else { position(s.rows[n][l]) - position(*self.x.add(v)) };
                *self.slots.add(slot + n) = if ok { dx * k } else { Vec3::zeros() };
            }
            if ok {
                for r in 0..2 {
                    let old = s.lambda[r][l];
                    *self.lambda.add(at + r) = old + (s.new_lambda(r, l) - old) * self.omega;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block_families::test_bar as bar;
    use xpbd_core::metrics;

    /// The Jacobi pass's residual through its blocks equals `residual_norm` after a few iterations, and the padded
    /// array still holds the split masses; in f32 the positions follow the f64 pass's (largest differences
    /// measured: 6.7e-4 of a vertex's motion, 1.1e-6 of the residual; bounds about twice these).
    #[test]
    fn jacobi_residual_through_blocks_matches_the_scalar_residual() {
        let (m, h, x0) = bar();
        let run = |precision| {
            let mut j = Jacobi::new(&m, h, 1, 1.0, precision);
            let (mut x, mut lambda) = (x0.clone(), vec![0.0; m.rows]);
            for _ in 0..3 {
                j.iterate(&m, &mut x, &m.rest, &mut lambda, h);
            }
            let (through_blocks, scalar) = (j.residual(&m, &x, &lambda, h), metrics::residual_norm(&m, &x, &lambda, h));
            (j, x, through_blocks, scalar)
        };
        let (j, x64, through_blocks, scalar) = run(Precision::F64);
        assert!(scalar > 0.0 && (through_blocks - scalar).abs() <= 1e-10 * scalar, "residual {through_blocks} vs {scalar}");
        // The copies into the padded array leave its fourth entries, the split masses, as construction set them.
        assert!(j.padded.f64.iter().zip(&j.split.split_inv_mass).all(|(p, &w)| p[3] == w), "padded masses changed");
        let (_, x32, through_blocks, scalar) = run(Precision::F32);
        assert!((through_blocks - scalar).abs() <= 3e-6 * scalar, "f32 residual {through_blocks} vs {scalar}");
        for (v, (a, b)) in x32.iter().zip(&x64).enumerate() {
            let moved = (b - x0[v]).norm().max(1e-9);
            assert!((a - b).norm() <= 1.5e-3 * moved, "f32 vertex {v}: {a} vs f64 {b}");
        }
    }
}
