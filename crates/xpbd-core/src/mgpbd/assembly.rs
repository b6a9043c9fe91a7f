//! The global dual matrix `A = J M⁻¹ Jᵀ + α̃` of MGPBD (docs/equations.md; MGPBD paper Sec. 4.2):
//! `A_ij = Σ_{v shared by rows i and j} w_v ⟨∇_v C_i, ∇_v C_j⟩`, plus `α̃_i` on the diagonal. The CSR
//! pattern (rows coupled when they share a free vertex) and, per nonzero, the list of vertex-slot
//! pairs that contribute to it are built once per topology; [`Pattern::value`] recomputes one
//! nonzero from the current gradients, so a backend refills the values in place (in parallel, one
//! nonzero per thread) without reallocation. All arrays are flat and map onto GPU buffers.

use super::rows::{Rows, NO_VERTEX};
use crate::mesh::Vec3;
use crate::sparse::Csr;

pub struct Pattern {
    /// `A` with this pattern (sorted column indices, a diagonal entry in every row); values are the
    /// caller's to fill.
    pub matrix: Csr,
    /// Row of each nonzero.
    pub nz_row: Vec<u32>,
    /// Index of the diagonal nonzero of each row.
    pub diagonal: Vec<usize>,
    /// Contributions of nonzero k: `pairs[pair_start[k]..pair_start[k+1]]`, each (slot in row i,
    /// slot in row j) of a shared free vertex.
    pub pair_start: Vec<usize>,
    pub pairs: Vec<[u8; 2]>,
    /// Rows at free vertex v: `vertex_rows[vertex_start[v]..vertex_start[v+1]]`, each (row, slot).
    pub vertex_start: Vec<usize>,
    pub vertex_rows: Vec<(u32, u8)>,
}

impl Pattern {
    /// The pattern of `rows` with the free vertices those of `inv_mass > 0`.
    pub fn new(rows: &Rows, inv_mass: &[f64]) -> Self {
        let free = |v: u32| v != NO_VERTEX && inv_mass[v as usize] > 0.0;
        let (vertex_start, vertex_rows) = vertex_incidence(rows, inv_mass);

        let n = rows.len();
        let (mut indptr, mut indices, mut nz_row, mut diagonal) = (vec![0usize], Vec::new(), Vec::new(), Vec::with_capacity(n));
        let (mut pair_start, mut pairs) = (vec![0usize], Vec::new());
        let mut coupled: Vec<(u32, u8, u8)> = Vec::new();
        for (i, vs) in rows.vertices.iter().enumerate() {
            coupled.clear();
            coupled.push((i as u32, u8::MAX, u8::MAX)); // the diagonal exists even without free vertices
            for (a, &v) in vs.iter().enumerate().filter(|&(_, &v)| free(v)) {
                let v = v as usize;
                coupled.extend(vertex_rows[vertex_start[v]..vertex_start[v + 1]].iter().map(|&(j, b)| (j, a as u8, b)));
            }
            coupled.sort_unstable();
            for (k, &(j, a, b)) in coupled.iter().enumerate() {
                if k == 0 || coupled[k - 1].0 != j {
                    if k > 0 {
                        pair_start.push(pairs.len());
                    }
                    if j as usize == i {
                        diagonal.push(indices.len());
                    }
                    indices.push(j as usize);
                    nz_row.push(i as u32);
                }
                if a != u8::MAX {
                    pairs.push([a, b]);
                }
            }
            pair_start.push(pairs.len());
            indptr.push(indices.len());
        }
        let data = vec![0.0; indices.len()];
        let matrix = Csr::new((n, n), indptr, indices, data);
        Pattern { matrix, nz_row, diagonal, pair_start, pairs, vertex_start, vertex_rows }
    }

    /// Only the rows at each free vertex, for [`Pattern::correction`], and an `A` without nonzeros: what a
    /// solve that never forms `A` needs (the primal solve). With smooth ARAP rows the full pattern has
    /// 81× the cone rows' nonzeros, gigabytes at 30k tets, and building it took most of a short run.
    pub fn incidence_only(rows: &Rows, inv_mass: &[f64]) -> Self {
        let n = rows.len();
        let (vertex_start, vertex_rows) = vertex_incidence(rows, inv_mass);
        let matrix = Csr::new((n, n), vec![0; n + 1], vec![], vec![]);
        Pattern { matrix, nz_row: vec![], diagonal: vec![], pair_start: vec![0], pairs: vec![], vertex_start, vertex_rows }
    }

    pub fn nonzeros(&self) -> usize {
        self.nz_row.len()
    }

    /// Nonzero `k` of `A` from the rows' gradients `grads`, inverse masses and α̃ = `alpha_tilde`
    /// (per row). A row with no free vertex and α̃ = 0 gets 1 on its diagonal so that `A` stays
    /// invertible; its multiplier then moves no vertex.
    #[inline]
    pub fn value(&self, k: usize, rows: &Rows, grads: &[[Vec3; 4]], inv_mass: &[f64], alpha_tilde: &[f64]) -> f64 {
        let i = self.nz_row[k] as usize;
        let j = self.matrix.indices()[k];
        let (gi, gj, vi) = (&grads[i], &grads[j], &rows.vertices[i]);
        let mut a: f64 = self.pairs[self.pair_start[k]..self.pair_start[k + 1]]
            .iter()
            .map(|&[s, t]| inv_mass[vi[s as usize] as usize] * gi[s as usize].dot(&gj[t as usize]))
            .sum();
        if i == j {
            a += alpha_tilde[i];
            if a == 0.0 && self.pair_start[k] == self.pair_start[k + 1] {
                a = 1.0;
            }
        }
        a
    }

    /// Fills `values` (the matrix's data array) serially; backends do the same per nonzero in parallel.
    pub fn fill(&self, rows: &Rows, grads: &[[Vec3; 4]], inv_mass: &[f64], alpha_tilde: &[f64], values: &mut [f64]) {
        for (k, a) in values.iter_mut().enumerate() {
            *a = self.value(k, rows, grads, inv_mass, alpha_tilde);
        }
    }

    /// The position correction of free vertex `v`: `(M⁻¹ Jᵀ Δλ)_v = w_v Σ_rows ∇_v C_r Δλ_r`.
    #[inline]
    pub fn correction(&self, v: usize, grads: &[[Vec3; 4]], inv_mass: &[f64], dlambda: &[f64]) -> Vec3 {
        let s: Vec3 =
            self.vertex_rows[self.vertex_start[v]..self.vertex_start[v + 1]].iter().map(|&(r, a)| grads[r as usize][a as usize] * dlambda[r as usize]).sum();
        s * inv_mass[v]
    }
}

/// Rows at each free vertex (`inv_mass > 0`): `vertex_rows[vertex_start[v]..vertex_start[v + 1]]`, each
/// (row, slot), in row order.
fn vertex_incidence(rows: &Rows, inv_mass: &[f64]) -> (Vec<usize>, Vec<(u32, u8)>) {
    let n_v = inv_mass.len();
    let free = |v: u32| v != NO_VERTEX && inv_mass[v as usize] > 0.0;
    let mut vertex_start = vec![0usize; n_v + 1];
    for vs in &rows.vertices {
        for &v in vs.iter().filter(|&&v| free(v)) {
            vertex_start[v as usize + 1] += 1;
        }
    }
    for v in 0..n_v {
        vertex_start[v + 1] += vertex_start[v];
    }
    let mut fill = vertex_start.clone();
    let mut vertex_rows = vec![(0u32, 0u8); vertex_start[n_v]];
    for (r, vs) in rows.vertices.iter().enumerate() {
        for (a, &v) in vs.iter().enumerate().filter(|&(_, &v)| free(v)) {
            vertex_rows[fill[v as usize]] = (r as u32, a as u8);
            fill[v as usize] += 1;
        }
    }
    (vertex_start, vertex_rows)
}
