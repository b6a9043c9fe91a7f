//! Standard aggregation (the MGPBD paper §4.1; Vaněk et al. 1996; PyAMG's `standard_aggregation`).
//!
//! Pass 1 makes an aggregate of every node whose strong neighbours are all still free, together
//! with those neighbours. Pass 2 attaches each remaining node to an aggregate of a neighbour made
//! in pass 1. Pass 3 makes new aggregates of what is left, each with its free neighbours. Nodes
//! without strong neighbours belong to no aggregate: the coarse space leaves them to the smoother,
//! as PyAMG does.

use crate::graph::element_graph::Graph;

/// The node → aggregate map of one level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aggregates {
    /// Aggregate of each node, `None` for isolated nodes.
    pub of_node: Vec<Option<usize>>,
    pub count: usize,
}

/// Aggregates of the strength graph `s`.
pub fn standard_aggregation(s: &Graph) -> Aggregates {
    let n = s.node_count();
    let neighbours = |i: usize| s.neighbors(i as u32).iter().map(|&j| j as usize);
    // 0 = free, -1 = isolated, k > 0 = aggregate k − 1 from pass 1, k < −1 = aggregate −k − 2 joined in pass 2.
    let mut x = vec![0i64; n];
    let mut next = 0i64;
    for i in 0..n {
        if x[i] != 0 {
            continue;
        }
        if s.degree(i as u32) == 0 {
            x[i] = -1;
        } else if neighbours(i).all(|j| x[j] == 0) {
            next += 1;
            x[i] = next;
            for j in neighbours(i) {
                x[j] = next;
            }
        }
    }
    for i in 0..n {
        if x[i] == 0 {
            if let Some(j) = neighbours(i).find(|&j| x[j] > 0) {
                x[i] = -x[j] - 1;
            }
        }
    }
    let mut of_node: Vec<Option<usize>> = x
        .iter()
        .map(|&v| match v {
            v if v > 0 => Some(v as usize - 1),
            v if v < -1 => Some((-v - 2) as usize),
            _ => None,
        })
        .collect();
    let mut count = next as usize;
    for i in 0..n {
        if x[i] != 0 || of_node[i].is_some() {
            continue;
        }
        of_node[i] = Some(count);
        x[i] = 1;
        for j in neighbours(i) {
            if x[j] == 0 && of_node[j].is_none() {
                of_node[j] = Some(count);
                x[j] = 1;
            }
        }
        count += 1;
    }
    Aggregates { of_node, count }
}

#[cfg(test)]
mod tests {
    use super::super::model_problems::{cloth_dual, poisson};
    use super::super::strength::symmetric_strength;
    use super::*;

    fn check_cover(s: &Graph, agg: &Aggregates) {
        let mut size = vec![0usize; agg.count];
        for (i, a) in agg.of_node.iter().enumerate() {
            match a {
                Some(a) => size[*a] += 1,
                None => assert_eq!(s.degree(i as u32), 0, "node {i} has strong neighbours but no aggregate"),
            }
        }
        assert!(size.iter().all(|&k| k > 0), "empty aggregate");
    }

    /// Every node with a strong neighbour is in exactly one aggregate (the map is a function, so
    /// "at most one" holds by construction), every aggregate is non-empty, and on the 5-point
    /// Laplacian the pass-1 aggregates are the 5-point stars, so aggregates have about 5 nodes.
    #[test]
    fn covers_every_connected_node_once() {
        let a = poisson(&[30, 30]);
        let s = symmetric_strength(&a, 0.1);
        let agg = standard_aggregation(&s);
        check_cover(&s, &agg);
        let mean = 900.0 / agg.count as f64;
        assert!((3.0..=6.0).contains(&mean), "mean aggregate size {mean}");
        let a = cloth_dual(12, 1e6);
        let s = symmetric_strength(&a, 0.1);
        check_cover(&s, &standard_aggregation(&s));
    }

    /// A node without strong neighbours stays out of every aggregate.
    #[test]
    fn isolated_nodes_are_not_aggregated() {
        let s = Graph::from_adjacency(vec![0, 1, 2, 2], vec![1, 0]);
        let agg = standard_aggregation(&s);
        assert_eq!(agg.of_node, vec![Some(0), Some(0), None]);
        assert_eq!(agg.count, 1);
    }
}
