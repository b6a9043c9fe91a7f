//! Fill-reducing orders for sparse Cholesky factorisations: approximate minimum degree (AMD, faer's) of a
//! symmetric matrix's pattern, either over its scalar rows or over its nodes — runs of rows that share one
//! column pattern, such as a vertex's 3 DOFs or a rigid body's 6 in the implicit solvers' reduced systems.
//! The node order keeps each node's rows together and runs AMD on a graph a node's size squared smaller.

use super::Csr;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::amd;
use faer::sparse::SymbolicSparseColMatRef;

/// AMD order of the pattern of symmetric `a` (its CSR arrays read as CSC): `perm[k]` is the k-th pivot.
pub fn scalar_amd(a: &Csr) -> Result<Vec<usize>, String> {
    let indptr = a.proper_indptr();
    amd_of(a.rows(), &indptr, a.indices())
}

/// AMD order of the node graph of symmetric `a`, whose node k holds rows `node_start[k]..node_start[k + 1]`
/// (`node_start` ends with the row count), expanded to rows: `perm[k]` is the k-th pivot row.
pub fn node_amd(a: &Csr, node_start: &[usize]) -> Result<Vec<usize>, String> {
    let nodes = node_start.len() - 1;
    assert_eq!(node_start[nodes], a.rows(), "the nodes cover the matrix's rows");
    let mut node_of = vec![0usize; a.rows()];
    for (k, w) in node_start.windows(2).enumerate() {
        node_of[w[0]..w[1]].fill(k);
    }
    // A node's columns are its first row's, mapped to nodes (sorted rows map to sorted, repeated nodes).
    let (mut indptr, mut indices) = (vec![0usize], Vec::new());
    for &first in &node_start[..nodes] {
        let row = a.outer_view(first).expect("a row of the matrix");
        let start = indices.len();
        for &c in row.indices() {
            if indices.len() == start || indices.last() != Some(&node_of[c]) {
                indices.push(node_of[c]);
            }
        }
        indptr.push(indices.len());
    }
    let order = amd_of(nodes, &indptr, &indices)?;
    Ok(order.iter().flat_map(|&k| node_start[k]..node_start[k + 1]).collect())
}

/// The inverse of permutation `perm`.
pub fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (k, &i) in perm.iter().enumerate() {
        inv[i] = k;
    }
    inv
}

fn amd_of(n: usize, indptr: &[usize], indices: &[usize]) -> Result<Vec<usize>, String> {
    let fail = |e: &dyn std::fmt::Debug| format!("the AMD ordering failed: {e:?}");
    let pattern = SymbolicSparseColMatRef::new_unsorted_checked(n, n, indptr, None, indices);
    let (mut perm, mut perm_inv) = (vec![0usize; n], vec![0usize; n]);
    let mut mem = MemBuffer::try_new(amd::order_maybe_unsorted_scratch::<usize>(n, indices.len())).map_err(|e| fail(&e))?;
    amd::order_maybe_unsorted(&mut perm, &mut perm_inv, pattern, amd::Control::default(), MemStack::new(&mut mem)).map_err(|e| fail(&e))?;
    Ok(perm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sprs::TriMat;

    /// A path of `nodes` blocks of `size` rows, each block dense and coupled densely to the next.
    fn block_path(nodes: usize, size: usize) -> Csr {
        let mut t = TriMat::new((nodes * size, nodes * size));
        for k in 0..nodes {
            for j in k.saturating_sub(1)..(k + 2).min(nodes) {
                for r in 0..size {
                    for c in 0..size {
                        t.add_triplet(k * size + r, j * size + c, if k == j && r == c { 4.0 } else { -0.1 });
                    }
                }
            }
        }
        t.to_csr()
    }

    /// The node order is a permutation of the rows that keeps each node's rows together and in order.
    #[test]
    fn node_order_keeps_nodes_together() {
        let (nodes, size) = (40, 3);
        let a = block_path(nodes, size);
        let starts: Vec<usize> = (0..=nodes).map(|k| k * size).collect();
        let perm = node_amd(&a, &starts).unwrap();
        let mut sorted = perm.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..nodes * size).collect::<Vec<_>>());
        for chunk in perm.chunks(size) {
            assert_eq!(chunk[0] % size, 0);
            assert!(chunk.windows(2).all(|w| w[1] == w[0] + 1), "node rows stay together: {chunk:?}");
        }
        let inv = inverse(&perm);
        assert!((0..perm.len()).all(|k| inv[perm[k]] == k));
    }
}
