//! Tentative prolongator (the MGPBD paper §4.1; PyAMG's `fit_candidates`): on each aggregate, the rows
//! of the near-kernel block B are factored `B_a = Q_a R_a` by Gram-Schmidt QR, the columns of
//! `Q_a` become that aggregate's columns of P, and the rows of `R_a` the coarse near-kernel
//! block, so `B = P B_c` exactly. Columns that are numerically dependent (an aggregate smaller
//! than k, or B rank-deficient on it) are dropped, so P has full column rank and the Galerkin
//! matrix stays positive definite.

use super::aggregation::Aggregates;
use crate::sparse::Csr;

/// A column of B_a is dependent when Gram-Schmidt leaves less than this fraction of its norm.
const DEPENDENT: f64 = 1e-10;

/// P, the coarse near-kernel block and where each aggregate's coarse columns start.
#[derive(Clone, Debug)]
pub struct Tentative {
    pub p: Csr,
    /// Coarse near-kernel block, `coarse rows × k`, column-major.
    pub coarse_b: Vec<f64>,
    /// Aggregate `a` owns coarse columns `col_start[a]..col_start[a + 1]`.
    pub col_start: Vec<usize>,
}

/// Nodes of each aggregate as CSR-like (`start`, `nodes`) arrays.
pub fn members(agg: &Aggregates) -> (Vec<usize>, Vec<usize>) {
    let mut start = vec![0usize; agg.count + 1];
    for a in agg.of_node.iter().flatten() {
        start[a + 1] += 1;
    }
    for a in 0..agg.count {
        start[a + 1] += start[a];
    }
    let mut fill = start.clone();
    let mut nodes = vec![0usize; start[agg.count]];
    for (i, a) in agg.of_node.iter().enumerate() {
        if let Some(a) = a {
            nodes[fill[*a]] = i;
            fill[*a] += 1;
        }
    }
    (start, nodes)
}

/// The tentative prolongator of `agg` for the `n × k` column-major near-kernel block `b`.
pub fn tentative(agg: &Aggregates, b: &[f64], k: usize) -> Tentative {
    let n = agg.of_node.len();
    let (start, nodes) = members(agg);
    let mut q_of_node: Vec<Vec<f64>> = vec![Vec::new(); n];
    let mut col_start = vec![0usize; agg.count + 1];
    let mut r_all: Vec<Vec<f64>> = Vec::with_capacity(agg.count);
    for a in 0..agg.count {
        let ids = &nodes[start[a]..start[a + 1]];
        let (q, r) = gram_schmidt(ids.len(), k, |c, li| b[c * n + ids[li]]);
        col_start[a + 1] = col_start[a] + q.len();
        for (li, &i) in ids.iter().enumerate() {
            q_of_node[i] = q.iter().map(|qc| qc[li]).collect();
        }
        r_all.push(r);
    }
    let nc = col_start[agg.count];
    let mut indptr = Vec::with_capacity(n + 1);
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    indptr.push(0);
    for i in 0..n {
        if let Some(a) = agg.of_node[i] {
            indices.extend(col_start[a]..col_start[a + 1]);
            data.extend_from_slice(&q_of_node[i]);
        }
        indptr.push(indices.len());
    }
    let mut coarse_b = vec![0.0; nc * k];
    for (a, r) in r_all.iter().enumerate() {
        for (row, vals) in r.chunks(k).enumerate() {
            for (c, v) in vals.iter().enumerate() {
                coarse_b[c * nc + col_start[a] + row] = *v;
            }
        }
    }
    Tentative { p: Csr::new((n, nc), indptr, indices, data), coarse_b, col_start }
}

/// Thin QR of the `m × k` block `col(c, row)` by twice-iterated classical Gram-Schmidt: the kept
/// orthonormal columns of Q and R row-major (`kept × k`), with `block = Q R`.
fn gram_schmidt(m: usize, k: usize, col: impl Fn(usize, usize) -> f64) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut q: Vec<Vec<f64>> = Vec::new();
    let mut r: Vec<Vec<f64>> = Vec::new();
    for c in 0..k {
        let mut v: Vec<f64> = (0..m).map(|li| col(c, li)).collect();
        let orig_norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        for _ in 0..2 {
            for (qc, rrow) in q.iter().zip(r.iter_mut()) {
                let s: f64 = qc.iter().zip(&v).map(|(x, y)| x * y).sum();
                rrow[c] += s;
                v.iter_mut().zip(qc).for_each(|(vi, qv)| *vi -= s * qv);
            }
        }
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        if q.len() < m && norm > 0.0 && norm > DEPENDENT * orig_norm {
            v.iter_mut().for_each(|x| *x /= norm);
            q.push(v);
            let mut row = vec![0.0; k];
            row[c] = norm;
            r.push(row);
        }
    }
    (q, r.concat())
}

#[cfg(test)]
mod tests {
    use super::super::aggregation::standard_aggregation;
    use super::super::model_problems::poisson;
    use super::super::near_kernel::near_kernel;
    use super::super::strength::symmetric_strength;
    use super::super::{AmgOptions, NearKernel};
    use super::*;

    /// PᵀP = I (columns orthonormal; columns of different aggregates have disjoint support) and
    /// B = P B_c to rounding, for the constant vector and for 4 Gauss-Seidel vectors.
    #[test]
    fn orthonormal_and_reproduces_near_kernel() {
        let a = poisson(&[16, 16]);
        let n = a.rows();
        for nk in [NearKernel::Constant, NearKernel::Gs] {
            let o = AmgOptions { near_kernel: nk, near_kernel_vectors: 4, ..Default::default() };
            let (b, k) = near_kernel(&a, &o);
            let agg = standard_aggregation(&symmetric_strength(&a, o.theta));
            let t = tentative(&agg, &b, k);
            let nc = t.p.cols();
            let ptp = &t.p.transpose_view().to_csr() * &t.p;
            for (i, row) in ptp.outer_iterator().enumerate() {
                for (j, &v) in row.iter() {
                    let want = if i == j { 1.0 } else { 0.0 };
                    assert!((v - want).abs() < 1e-12, "PtP[{i},{j}] = {v}");
                }
                assert!(row.get(i).is_some());
            }
            for c in 0..k {
                let mut pb = vec![0.0; n];
                crate::sparse::spmv(&t.p, &t.coarse_b[c * nc..(c + 1) * nc], &mut pb);
                let err = pb.iter().zip(&b[c * n..(c + 1) * n]).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
                assert!(err < 1e-12, "column {c}: |P Bc - B| = {err}");
            }
        }
    }

    /// An aggregate of 2 nodes with 3 near-kernel vectors, and one whose 2 vectors are parallel,
    /// keep only as many columns as the rank: 2 and 1, not zero columns.
    #[test]
    fn drops_dependent_columns() {
        let agg = Aggregates { of_node: vec![Some(0), Some(0), Some(1), Some(1), Some(1)], count: 2 };
        let n = 5;
        // Column-major 5 × 3; on aggregate 1 (nodes 2..5) columns 0 and 1 are parallel, column 2 is zero.
        let b = [[1.0, 2.0, 1.0, 1.0, 1.0], [3.0, -1.0, 2.0, 2.0, 2.0], [0.5, 0.5, 0.0, 0.0, 0.0]].concat();
        let t = tentative(&agg, &b, 3);
        assert_eq!(t.col_start, vec![0, 2, 3]);
        assert_eq!(t.p.cols(), 3);
        for c in 0..3 {
            let mut pb = vec![0.0; n];
            crate::sparse::spmv(&t.p, &t.coarse_b[c * 3..(c + 1) * 3], &mut pb);
            for i in 0..n {
                assert!((pb[i] - b[c * n + i]).abs() < 1e-12, "B[{i},{c}]");
            }
        }
    }
}
