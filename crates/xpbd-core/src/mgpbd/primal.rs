//! The primal form of MGPBD's dual system (docs/mgpbd.md, "The primal solve"). By the Woodbury
//! identity, `(J W Jᵀ + α̃) Δλ = b` (W = M⁻¹ on the free vertices) is solved by
//!
//!   `K y = Jᵀ α̃⁻¹ b`,  `K = M + Jᵀ α̃⁻¹ J`,  then  `Δλ = α̃⁻¹ (b − J y)`,
//!
//! where K (3 unknowns per free vertex) is an SPD elasticity-like matrix with no α̃ null-space
//! cluster, and `y = W Jᵀ Δλ` is the position correction. For any y, `A Δλ(y) − b = J W (Jᵀα̃⁻¹b − K y)`:
//! the dual residual is `J W` times the primal one, which is how the solve stops on the dual
//! tolerance. Pinned vertices are not unknowns. Rows need α̃ > 0 (an infinite α̃ gives α̃⁻¹ = 0).
//!
//! K is CSR with 3×3 blocks: block row u (free vertex u) has one block per free vertex v sharing a
//! row with u, columns sorted; the three scalar rows of u are consecutive and together hold
//! `data[9·block_start[u]..9·block_start[u + 1]]`, so a backend fills block rows in parallel.

use super::rows::{Rows, NO_VERTEX};
use crate::mesh::Vec3;
use crate::model::Model;
use crate::sparse::Csr;
use crate::{Error, Result};
use rayon::prelude::*;

/// Marks pinned vertices in [`PrimalPattern::free_index`].
pub const PINNED: u32 = u32::MAX;

/// Rows per parallel task of [`PrimalPattern::dual_residual`].
const DUAL_CHUNK_ROWS: usize = 512;

pub struct PrimalPattern {
    /// Free index of each vertex, [`PINNED`] for inverse mass 0.
    pub free_index: Vec<u32>,
    /// Vertex of each free index.
    pub free_vertices: Vec<u32>,
    /// Free index of each row's vertex slots, [`PINNED`] for a pinned vertex or an unused slot.
    pub row_free: Vec<[u32; 4]>,
    /// K with this pattern; values are the caller's to fill.
    pub matrix: Csr,
    /// Blocks of block row u: `block_col[block_start[u]..block_start[u + 1]]` (free indices, sorted).
    pub block_start: Vec<usize>,
    pub block_col: Vec<u32>,
    /// Terms of block b: `terms[term_start[b]..term_start[b + 1]]`, each (row, slot of u, slot of v).
    pub term_start: Vec<usize>,
    pub terms: Vec<(u32, u8, u8)>,
    /// Rows at free index u: `vertex_rows[vertex_start[u]..vertex_start[u + 1]]`, each (row, slot).
    pub vertex_start: Vec<usize>,
    pub vertex_rows: Vec<(u32, u8)>,
}

impl PrimalPattern {
    /// The pattern for rows with `vertices` (unused slots [`NO_VERTEX`]), free where `inv_mass > 0`.
    pub fn new(vertices: &[[u32; 4]], inv_mass: &[f64]) -> Self {
        let mut free_index = vec![PINNED; inv_mass.len()];
        let mut free_vertices = Vec::new();
        for (v, &w) in inv_mass.iter().enumerate() {
            if w > 0.0 {
                free_index[v] = free_vertices.len() as u32;
                free_vertices.push(v as u32);
            }
        }
        let nf = free_vertices.len();
        let free = |v: u32| if v == NO_VERTEX { PINNED } else { free_index[v as usize] };
        let mut vertex_start = vec![0usize; nf + 1];
        for vs in vertices {
            for u in vs.iter().map(|&v| free(v)).filter(|&u| u != PINNED) {
                vertex_start[u as usize + 1] += 1;
            }
        }
        for u in 0..nf {
            vertex_start[u + 1] += vertex_start[u];
        }
        let mut fill = vertex_start.clone();
        let mut vertex_rows = vec![(0u32, 0u8); vertex_start[nf]];
        for (r, vs) in vertices.iter().enumerate() {
            for (a, u) in vs.iter().map(|&v| free(v)).enumerate().filter(|&(_, u)| u != PINNED) {
                vertex_rows[fill[u as usize]] = (r as u32, a as u8);
                fill[u as usize] += 1;
            }
        }
        let (mut block_start, mut block_col, mut term_start, mut terms) = (vec![0usize], Vec::new(), vec![0usize], Vec::new());
        let mut coupled: Vec<(u32, u32, u8, u8)> = Vec::new();
        for u in 0..nf {
            coupled.clear();
            coupled.push((u as u32, u32::MAX, 0, 0)); // the diagonal block (mass) exists without rows
            for &(r, a) in &vertex_rows[vertex_start[u]..vertex_start[u + 1]] {
                for (b, v) in vertices[r as usize].iter().map(|&v| free(v)).enumerate().filter(|&(_, v)| v != PINNED) {
                    coupled.push((v, r, a, b as u8));
                }
            }
            coupled.sort_unstable();
            for (k, &(v, r, a, b)) in coupled.iter().enumerate() {
                if k > 0 && coupled[k - 1].0 != v {
                    term_start.push(terms.len());
                }
                if k == 0 || coupled[k - 1].0 != v {
                    block_col.push(v);
                }
                if r != u32::MAX {
                    terms.push((r, a, b));
                }
            }
            term_start.push(terms.len());
            block_start.push(block_col.len());
        }
        let (mut indptr, mut indices) = (vec![0usize], Vec::with_capacity(9 * block_col.len()));
        for u in 0..nf {
            for _ in 0..3 {
                indices.extend(block_col[block_start[u]..block_start[u + 1]].iter().flat_map(|&v| 3 * v as usize..3 * v as usize + 3));
                indptr.push(indices.len());
            }
        }
        let data = vec![0.0; indices.len()];
        let matrix = Csr::new((3 * nf, 3 * nf), indptr, indices, data);
        let row_free = vertices.iter().map(|vs| vs.map(free)).collect();
        PrimalPattern { free_index, free_vertices, row_free, matrix, block_start, block_col, term_start, terms, vertex_start, vertex_rows }
    }

    /// Number of free vertices (K has three times as many rows).
    pub fn free_count(&self) -> usize {
        self.free_vertices.len()
    }

    /// Fills block row u of K into `values` (its `9 · blocks` entries, scalar row by scalar row):
    /// `K_uv = δ_uv m_u I + Σ_r α̃_r⁻¹ ∇_u C_r ∇_v C_rᵀ`.
    pub fn fill_block_row(&self, u: usize, grads: &[[Vec3; 4]], inv_mass: &[f64], inv_alpha: &[f64], values: &mut [f64]) {
        let (first, count) = (self.block_start[u], self.block_start[u + 1] - self.block_start[u]);
        for local in 0..count {
            let b = first + local;
            let mut k = nalgebra::Matrix3::<f64>::zeros();
            if self.block_col[b] as usize == u {
                k += nalgebra::Matrix3::identity() / inv_mass[self.free_vertices[u] as usize];
            }
            for &(r, a, c) in &self.terms[self.term_start[b]..self.term_start[b + 1]] {
                let g = &grads[r as usize];
                k += g[a as usize] * g[c as usize].transpose() * inv_alpha[r as usize];
            }
            for row in 0..3 {
                values[row * 3 * count + 3 * local..row * 3 * count + 3 * local + 3].copy_from_slice(&[k[(row, 0)], k[(row, 1)], k[(row, 2)]]);
            }
        }
    }

    /// The range of K's data array that block row u fills.
    pub fn block_row_range(&self, u: usize) -> std::ops::Range<usize> {
        9 * self.block_start[u]..9 * self.block_start[u + 1]
    }

    /// Fills all of K's values serially; backends do the same per block row in parallel.
    pub fn fill(&self, grads: &[[Vec3; 4]], inv_mass: &[f64], inv_alpha: &[f64], values: &mut [f64]) {
        for u in 0..self.free_count() {
            self.fill_block_row(u, grads, inv_mass, inv_alpha, &mut values[self.block_row_range(u)]);
        }
    }

    /// `out = Jᵀ (s ∘ λ)` restricted to the free vertices, 3 entries per free vertex.
    pub fn transpose_product(&self, grads: &[[Vec3; 4]], s: &[f64], lambda: &[f64], out: &mut [f64]) {
        out[..3 * self.free_count()].par_chunks_mut(3).enumerate().for_each(|(u, out)| {
            let g: Vec3 = self.vertex_rows[self.vertex_start[u]..self.vertex_start[u + 1]]
                .iter()
                .map(|&(r, a)| grads[r as usize][a as usize] * (s[r as usize] * lambda[r as usize]))
                .sum();
            out.copy_from_slice(g.as_slice());
        });
    }

    /// `(J (s ∘ y))_r = Σ_a ∇_a C_r · s_{v_a} y_{v_a}` over the row's free vertices, for a per-free-vertex
    /// scale `s` (W for the dual residual, 1 for the recovery of Δλ).
    pub fn row_product(&self, r: usize, grads: &[[Vec3; 4]], scale: impl Fn(usize) -> f64, y: &[f64]) -> f64 {
        self.row_free[r]
            .iter()
            .zip(&grads[r])
            .filter(|(&u, _)| u != PINNED)
            .map(|(&u, g)| {
                let u = u as usize;
                scale(u) * g.dot(&Vec3::new(y[3 * u], y[3 * u + 1], y[3 * u + 2]))
            })
            .sum()
    }

    /// `‖J W y‖`: the dual residual for K's residual `y` and W per free vertex (`w`). Rows in parallel chunks of
    /// [`DUAL_CHUNK_ROWS`], each entry a [`PrimalPattern::row_product`], the squares summed in row
    /// order within a chunk and the chunks' sums (`chunk_sums`, a buffer) in chunk order: the same value on any
    /// number of threads.
    pub fn dual_residual(&self, grads: &[[Vec3; 4]], w: &[f64], y: &[f64], chunk_sums: &mut Vec<f64>) -> f64 {
        let rows = self.row_free.len();
        (0..rows.div_ceil(DUAL_CHUNK_ROWS))
            .into_par_iter()
            .map(|c| {
                let mut squares = 0.0;
                for r in c * DUAL_CHUNK_ROWS..((c + 1) * DUAL_CHUNK_ROWS).min(rows) {
                    squares += self.row_product(r, grads, |u| w[u], y).powi(2);
                }
                squares
            })
            .collect_into_vec(chunk_sums);
        chunk_sums.iter().sum::<f64>().sqrt()
    }

    /// Positions of the free vertices, in free-index order (for the rigid-body near kernel).
    pub fn free_positions(&self, x: &[Vec3]) -> Vec<Vec3> {
        self.free_vertices.iter().map(|&v| x[v as usize]).collect()
    }
}

/// `1 / α̃` per row (0 for an infinite α̃, e.g. the hydrostatic row of a material with λ = 0).
pub fn inverse_alpha(alpha_tilde: &[f64]) -> Vec<f64> {
    alpha_tilde.iter().map(|&a| 1.0 / a).collect()
}

/// The first row with no primal form: compliance 0 (a hard constraint) or not a number.
pub fn hard_row(rows: &Rows) -> Option<usize> {
    rows.compliance.iter().position(|&a| a.is_nan() || a <= 0.0)
}

/// The primal solve needs every row compliant: a row with α = 0 (a hard constraint) has no primal
/// form. Names the first such row's body.
pub fn check_compliance(rows: &Rows, model: &Model) -> Result<()> {
    match hard_row(rows) {
        None => Ok(()),
        Some(r) => {
            let g = rows.group[r] as usize;
            let body = match rows.kind[r] {
                super::rows::RowKind::Edge | super::rows::RowKind::Hinge => model.cloth_groups[g].body,
                _ => model.tet_groups[g].body,
            };
            Err(Error::invalid(format!(
                "body '{}': a {} row with compliance {} has no primal form; solver.linear_solver = \"primal-amg\" needs every compliance > 0",
                model.bodies[body].name,
                rows.kind[r].name(),
                rows.compliance[r]
            )))
        }
    }
}
