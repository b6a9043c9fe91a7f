//! The supernodal graph 𝒢̄ of the block paper (§4.2, Eq. 13–14): one node per cluster, and an edge
//! between clusters `r ≠ s` iff some `j ∈ χ(r)` and `k ∈ χ(s)` are adjacent in 𝒢.

use super::clustering::Clustering;
use super::element_graph::Graph;

/// Ē = {(π(j), π(k)) | (j, k) ∈ E, π(j) ≠ π(k)} (Eq. 14). O(E) plus sorting each row.
pub fn supernodal_graph(graph: &Graph, clustering: &Clustering) -> Graph {
    let nr = clustering.clusters();
    assert_eq!(clustering.parent.len(), graph.node_count(), "the clustering must cover the graph");
    let mut start = Vec::with_capacity(nr + 1);
    start.push(0usize);
    let mut adj: Vec<u32> = Vec::new();
    // seen[s] == r marks cluster s as already listed for cluster r.
    let mut seen = vec![u32::MAX; nr];
    for r in 0..nr {
        let r32 = r as u32;
        seen[r] = r32;
        let from = adj.len();
        for &j in clustering.members_of(r) {
            for &k in graph.neighbors(j) {
                let s = clustering.parent[k as usize];
                if seen[s as usize] != r32 {
                    seen[s as usize] = r32;
                    adj.push(s);
                }
            }
        }
        adj[from..].sort_unstable();
        start.push(adj.len());
    }
    Graph::from_sorted_csr(start, adj)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::clustering::greedy_k_neighbour;
    use crate::mesh::generators::box_mesh;

    #[test]
    fn singleton_clusters_give_the_same_graph() {
        let m = box_mesh([1.0, 1.0, 1.0], [3, 2, 2], 6).unwrap();
        let g = Graph::from_elements(&m.tets, m.vertices.len());
        assert_eq!(supernodal_graph(&g, &Clustering::singletons(g.node_count())), g);
    }

    #[test]
    fn supernodal_edges_follow_eq14() {
        let m = box_mesh([2.0, 1.0, 1.0], [5, 3, 3], 5).unwrap();
        let g = Graph::from_elements(&m.tets, m.vertices.len());
        let cl = greedy_k_neighbour(&g, 5);
        let sg = supernodal_graph(&g, &cl);
        assert_eq!(sg.node_count(), cl.clusters());
        assert!(sg.is_symmetric());
        // brute force Eq. 14
        let mut expect: Vec<(u32, u32)> = Vec::new();
        for j in 0..g.node_count() as u32 {
            for &k in g.neighbors(j) {
                let (r, s) = (cl.parent[j as usize], cl.parent[k as usize]);
                if r != s {
                    expect.push((r, s));
                }
            }
        }
        expect.sort_unstable();
        expect.dedup();
        let got: Vec<(u32, u32)> = (0..sg.node_count() as u32).flat_map(|r| sg.neighbors(r).iter().map(move |&s| (r, s))).collect();
        assert_eq!(got, expect);
        assert!(sg.edge_count() < g.edge_count());
    }
}
