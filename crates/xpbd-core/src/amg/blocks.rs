//! Block (node) structure for smoothed aggregation of vector problems (Vaněk, Mandel & Brezina
//! 1996 §4; PyAMG's BSR path): the unknowns of one node (a vertex's 3 coordinates, or one coarse
//! aggregate's columns) are aggregated together, strength is measured between nodes on the
//! Frobenius norms of A's blocks, and the near kernel of 3-D elasticity is the six rigid-body modes.

use super::aggregation::Aggregates;
use crate::graph::element_graph::Graph;
use crate::mesh::Vec3;
use crate::sparse::Csr;

/// Node of each unknown, for nodes owning unknowns `node_start[a]..node_start[a + 1]`.
pub fn node_of_unknown(node_start: &[usize]) -> Vec<usize> {
    (0..node_start.len() - 1).flat_map(|a| std::iter::repeat_n(a, node_start[a + 1] - node_start[a])).collect()
}

/// The node graph of strong connections: nodes I ≠ J are strong neighbours when
/// `‖A_IJ‖_F ≥ θ sqrt(‖A_II‖_F ‖A_JJ‖_F)` (symmetric strength on the amalgamated matrix).
pub fn block_strength(a: &Csr, node_start: &[usize], theta: f64) -> Graph {
    let nodes = node_start.len() - 1;
    let node_of = node_of_unknown(node_start);
    let mut norm2 = vec![0.0; nodes];
    let mut seen = vec![false; nodes];
    let mut touched: Vec<usize> = Vec::new();
    // Amalgamated matrix as (neighbour, ‖A_IJ‖_F) per node.
    let mut amalgamated: Vec<Vec<(usize, f64)>> = Vec::with_capacity(nodes);
    for node in 0..nodes {
        for i in node_start[node]..node_start[node + 1] {
            for (j, &v) in a.outer_view(i).expect("row in range").iter() {
                let nj = node_of[j];
                if !std::mem::replace(&mut seen[nj], true) {
                    touched.push(nj);
                }
                norm2[nj] += v * v;
            }
        }
        touched.sort_unstable();
        amalgamated.push(touched.iter().map(|&nj| (nj, norm2[nj].sqrt())).collect());
        for &nj in &touched {
            (norm2[nj], seen[nj]) = (0.0, false);
        }
        touched.clear();
    }
    let diag: Vec<f64> = amalgamated.iter().enumerate().map(|(i, r)| r.iter().find(|e| e.0 == i).map_or(0.0, |e| e.1)).collect();
    let mut indptr = vec![0];
    let mut indices = Vec::new();
    for (i, row) in amalgamated.iter().enumerate() {
        indices.extend(row.iter().filter(|&&(j, v)| j != i && v >= theta * (diag[i] * diag[j]).sqrt()).map(|&(j, _)| j as u32));
        indptr.push(indices.len());
    }
    Graph::from_sorted_csr(indptr, indices)
}

/// Aggregates of unknowns from aggregates of nodes: every unknown joins its node's aggregate.
pub fn unknown_aggregates(node_agg: &Aggregates, node_start: &[usize]) -> Aggregates {
    let of_node = node_of_unknown(node_start).iter().map(|&n| node_agg.of_node[n]).collect();
    Aggregates { of_node, count: node_agg.count }
}

/// The six rigid-body modes of points `x` (3 unknowns per point, x-y-z interleaved), `3n × 6`
/// column-major: translations along x, y, z, then rotations about z, x, y (`ω × x`), measured
/// from the points' centroid so that the columns are well conditioned.
pub fn rigid_body_modes(x: &[Vec3]) -> Vec<f64> {
    let n = 3 * x.len();
    let c = x.iter().sum::<Vec3>() / (x.len().max(1) as f64);
    let mut b = vec![0.0; 6 * n];
    for (v, p) in x.iter().enumerate() {
        let p = p - c;
        for d in 0..3 {
            b[d * n + 3 * v + d] = 1.0;
        }
        for (col, axis) in [(3, Vec3::z()), (4, Vec3::x()), (5, Vec3::y())] {
            let r = axis.cross(&p);
            for d in 0..3 {
                b[col * n + 3 * v + d] = r[d];
            }
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 2×2-block nodes coupled by a block of Frobenius norm 1 against diagonal blocks of norm
    /// 4: the threshold is 4θ, so they are strong neighbours at θ = 0.2 and not at θ = 0.3;
    /// unknowns inherit their node's aggregate.
    #[test]
    fn strength_on_block_norms() {
        let mut t = sprs::TriMat::new((4, 4));
        for i in 0..4 {
            t.add_triplet(i, i, 2.0 * 2f64.sqrt()); // ‖diag block‖_F = sqrt(2 · 8) = 4
        }
        t.add_triplet(0, 2, 0.6);
        t.add_triplet(2, 0, 0.6);
        t.add_triplet(1, 3, 0.8);
        t.add_triplet(3, 1, 0.8); // ‖A_01‖_F = 1
        let a: Csr = t.to_csr();
        let start = [0, 2, 4];
        assert_eq!(block_strength(&a, &start, 0.2).neighbors(0), &[1]);
        assert!(block_strength(&a, &start, 0.3).neighbors(0).is_empty());
        let agg = Aggregates { of_node: vec![Some(0), None], count: 1 };
        assert_eq!(unknown_aggregates(&agg, &start).of_node, vec![Some(0), Some(0), None, None]);
    }

    /// A coupling block whose first stored entry is an explicit zero (smoothed-aggregation
    /// products keep them) counts once: the neighbour is listed once, with the block's norm.
    #[test]
    fn explicit_zeros_do_not_repeat_neighbours() {
        let mut t = sprs::TriMat::new((4, 4));
        for i in 0..4 {
            t.add_triplet(i, i, 2.0 * 2f64.sqrt());
        }
        for (i, j, v) in [(0, 2, 0.0), (0, 3, 0.0), (1, 2, 1.0), (2, 0, 0.0), (2, 1, 1.0)] {
            t.add_triplet(i, j, v);
        }
        let a: Csr = t.to_csr();
        assert_eq!(block_strength(&a, &[0, 2, 4], 0.2).neighbors(0), &[1]);
        assert_eq!(block_strength(&a, &[0, 2, 4], 0.2).neighbors(1), &[0]);
    }

    /// The rotation columns are the velocities ω × (x − c): orthogonal to x − c at every point.
    #[test]
    fn rotations_are_tangent() {
        let x = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 2.0, 0.5), Vec3::new(-1.0, 0.3, 2.0)];
        let b = rigid_body_modes(&x);
        let c = x.iter().sum::<Vec3>() / 3.0;
        for col in 3..6 {
            for (v, p) in x.iter().enumerate() {
                let r = Vec3::new(b[col * 9 + 3 * v], b[col * 9 + 3 * v + 1], b[col * 9 + 3 * v + 2]);
                assert!(r.dot(&(p - c)).abs() < 1e-14 && r.norm() > 0.0);
            }
        }
    }
}
