//! Model problems for the AMG tests and benchmarks: finite-difference Poisson and the dual system
//! of a cloth's edge-distance constraints.

use crate::sparse::Csr;

/// The (2·dim)-point Laplacian on a grid with Dirichlet boundaries, `dims` points per axis.
pub fn poisson(dims: &[usize]) -> Csr {
    let n: usize = dims.iter().product();
    let mut t = sprs::TriMat::new((n, n));
    let mut stride = vec![1usize; dims.len()];
    for d in 1..dims.len() {
        stride[d] = stride[d - 1] * dims[d - 1];
    }
    for i in 0..n {
        t.add_triplet(i, i, 2.0 * dims.len() as f64);
        for d in 0..dims.len() {
            let c = (i / stride[d]) % dims[d];
            if c + 1 < dims[d] {
                t.add_triplet(i, i + stride[d], -1.0);
                t.add_triplet(i + stride[d], i, -1.0);
            }
        }
    }
    t.to_csr()
}

/// `A = J M⁻¹ Jᵀ + α̃ I` for the edges (structural and one diagonal per cell) of a flat
/// `n × n` cloth of unit masses with its top row pinned, `α̃ = 1 / (k h²)` with h = 0.01.
/// About a third of the rows lie in the null space of `J M⁻¹ Jᵀ` (issue 4).
pub fn cloth_dual(n: usize, k: f64) -> Csr {
    let pos = |i: usize| [(i % n) as f64, (i / n) as f64];
    let w = |i: usize| if i / n == n - 1 { 0.0 } else { 1.0 };
    let mut edges = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let i = y * n + x;
            if x + 1 < n {
                edges.push((i, i + 1));
            }
            if y + 1 < n {
                edges.push((i, i + n));
            }
            if x + 1 < n && y + 1 < n {
                edges.push((i, i + n + 1));
            }
        }
    }
    let dir = |(a, b): (usize, usize)| {
        let (pa, pb) = (pos(a), pos(b));
        let d = [pb[0] - pa[0], pb[1] - pa[1]];
        let l = (d[0] * d[0] + d[1] * d[1]).sqrt();
        [d[0] / l, d[1] / l]
    };
    let mut incident = vec![Vec::new(); n * n];
    for (e, &(a, b)) in edges.iter().enumerate() {
        incident[a].push((e, -1.0));
        incident[b].push((e, 1.0));
    }
    let alpha = 1.0 / (k * 1e-4);
    let m = edges.len();
    let mut t = sprs::TriMat::new((m, m));
    for e in 0..m {
        t.add_triplet(e, e, alpha);
    }
    for (v, inc) in incident.iter().enumerate() {
        for &(e, se) in inc {
            for &(f, sf) in inc {
                let (de, df) = (dir(edges[e]), dir(edges[f]));
                let val = w(v) * se * sf * (de[0] * df[0] + de[1] * df[1]);
                if val != 0.0 {
                    t.add_triplet(e, f, val);
                }
            }
        }
    }
    t.to_csr()
}
