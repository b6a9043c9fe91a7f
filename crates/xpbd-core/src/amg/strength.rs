//! Symmetric strength of connection: `j` is a strong neighbour of `i` when
//! `|a_ij| ≥ θ sqrt(|a_ii a_jj|)` (the MGPBD paper §4.1; PyAMG's `symmetric_strength_of_connection`).

use crate::graph::element_graph::Graph;
use crate::sparse::{diagonal, Csr};

/// The graph of strong off-diagonal connections of a symmetric `a` at threshold `theta`.
pub fn symmetric_strength(a: &Csr, theta: f64) -> Graph {
    let d = diagonal(a);
    let mut indptr = Vec::with_capacity(a.rows() + 1);
    let mut indices = Vec::with_capacity(a.nnz());
    indptr.push(0);
    for (i, row) in a.outer_iterator().enumerate() {
        for (j, &v) in row.iter() {
            if j != i && v != 0.0 && v.abs() >= theta * (d[i] * d[j]).abs().sqrt() {
                indices.push(j as u32);
            }
        }
        indptr.push(indices.len());
    }
    Graph::from_sorted_csr(indptr, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a 1-D Laplacian with one weak coupling, exactly that coupling is dropped, both ways.
    #[test]
    fn drops_weak_couplings_symmetrically() {
        let mut t = sprs::TriMat::new((4, 4));
        for i in 0..4 {
            t.add_triplet(i, i, 2.0);
        }
        for (i, j, v) in [(0, 1, -1.0), (1, 2, -0.1), (2, 3, -1.0)] {
            t.add_triplet(i, j, v);
            t.add_triplet(j, i, v);
        }
        let a: Csr = t.to_csr();
        // θ sqrt(a_ii a_jj) = 0.25 · 2: 0.1 is weak, 1 is strong.
        let s = symmetric_strength(&a, 0.25);
        assert_eq!(s.neighbors(0), &[1]);
        assert_eq!(s.neighbors(1), &[0]);
        assert_eq!(s.neighbors(2), &[3]);
        assert_eq!(s.neighbors(3), &[2]);
        // θ = 0 keeps every off-diagonal entry.
        assert_eq!(symmetric_strength(&a, 0.0).neighbors(1), &[0, 2]);
    }
}
