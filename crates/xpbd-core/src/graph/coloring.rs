//! Greedy coloring of a graph (block paper §3.2, Algorithm 2's partitions): nodes of one color are
//! pairwise non-adjacent, so on the element graph they share no vertex and can be projected in any
//! order or in parallel.

use super::element_graph::Graph;
use super::groups::Groups;
use super::incidence::Incidence;

/// A partition of nodes (elements, or clusters) into colors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coloring {
    /// `color[e]` of every node.
    pub color: Vec<u32>,
    /// The color classes: the nodes of color c, ascending, are `classes.group(c)`.
    pub classes: Groups,
}

impl Coloring {
    pub fn colors(&self) -> usize {
        self.classes.len()
    }

    /// The nodes of color `c`, ascending.
    pub fn class(&self, c: usize) -> &[u32] {
        self.classes.group(c)
    }

    /// Groups nodes by their color (colors must be dense `0..k`; an unused color gives an empty class).
    pub fn from_colors(color: Vec<u32>) -> Self {
        let n_colors = color.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        Coloring { classes: Groups::from_labels(&color, n_colors), color }
    }

    /// Checks that no two elements of one color share a vertex; returns the first offending pair
    /// (by vertex, then by position in the vertex's element list).
    pub fn conflict<const N: usize>(&self, elements: &[[u32; N]], vertex_count: usize) -> Option<(u32, u32)> {
        self.conflict_at(elements, vertex_count).map(|(a, b, _)| (a, b))
    }

    /// The first two elements of one color that share a vertex, with that vertex.
    pub(crate) fn conflict_at<const N: usize>(&self, elements: &[[u32; N]], vertex_count: usize) -> Option<(u32, u32, u32)> {
        let inc = Incidence::new(elements, vertex_count);
        // owner[c] = (vertex stamp, element) of the element of color c last seen at that vertex.
        let mut owner: Vec<(u32, u32)> = vec![(u32::MAX, 0); self.colors()];
        for v in 0..vertex_count as u32 {
            for &e in inc.elements_of(v) {
                let c = self.color[e as usize] as usize;
                if owner[c].0 == v {
                    return Some((owner[c].1, e, v));
                }
                owner[c] = (v, e);
            }
        }
        None
    }
}

/// Greedy coloring: visits the nodes in `order` (a permutation of the nodes) and gives each the
/// smallest color not used by an already colored neighbour. O(V + E).
pub fn greedy(graph: &Graph, order: &[u32]) -> Coloring {
    let n = graph.node_count();
    assert_eq!(order.len(), n, "the order must list every node once");
    let mut color = vec![u32::MAX; n];
    // forbidden[c] == j + 1 marks color c as taken by a neighbour of node j.
    let mut forbidden: Vec<u32> = Vec::new();
    for &j in order {
        assert!(color[j as usize] == u32::MAX, "node {j} appears twice in the order");
        let mark = j + 1;
        for &k in graph.neighbors(j) {
            let c = color[k as usize];
            if c != u32::MAX {
                if c as usize >= forbidden.len() {
                    forbidden.resize(c as usize + 1, 0);
                }
                forbidden[c as usize] = mark;
            }
        }
        color[j as usize] = (0..).find(|&c| forbidden.get(c as usize).is_none_or(|&f| f != mark)).unwrap();
    }
    Coloring::from_colors(color)
}

/// The smallest-last ordering of Matula & Beck (1983): repeatedly remove a node of smallest degree
/// in the remaining graph; the returned order (to color in) is the reverse of the removal order.
/// O(V + E) with doubly linked degree buckets. Ties: initially each bucket is in increasing index
/// order and the head of the lowest non-empty bucket is removed; a node whose degree drops is pushed
/// to the head of its new bucket. Deterministic.
pub fn smallest_last_order(graph: &Graph) -> Vec<u32> {
    const NIL: u32 = u32::MAX;
    let n = graph.node_count();
    if n == 0 {
        return Vec::new();
    }
    let mut deg: Vec<u32> = (0..n as u32).map(|j| graph.degree(j) as u32).collect();
    let max_deg = graph.max_degree();
    let mut head = vec![NIL; max_deg + 1];
    let mut next = vec![NIL; n];
    let mut prev = vec![NIL; n];
    // Push in decreasing index order so each bucket lists increasing indices from its head.
    for j in (0..n as u32).rev() {
        let d = deg[j as usize] as usize;
        next[j as usize] = head[d];
        if head[d] != NIL {
            prev[head[d] as usize] = j;
        }
        head[d] = j;
    }
    let mut removed = vec![false; n];
    let mut removal = Vec::with_capacity(n);
    let mut low = 0usize;
    for _ in 0..n {
        while head[low] == NIL {
            low += 1;
        }
        let v = head[low];
        // unlink v (the head)
        head[low] = next[v as usize];
        if head[low] != NIL {
            prev[head[low] as usize] = NIL;
        }
        removed[v as usize] = true;
        removal.push(v);
        for &u in graph.neighbors(v) {
            let u = u as usize;
            if removed[u] {
                continue;
            }
            let d = deg[u] as usize;
            // unlink u from bucket d
            if prev[u] != NIL {
                next[prev[u] as usize] = next[u];
            } else {
                head[d] = next[u];
            }
            if next[u] != NIL {
                prev[next[u] as usize] = prev[u];
            }
            // push u to the head of bucket d - 1
            let nd = d - 1;
            deg[u] = nd as u32;
            prev[u] = NIL;
            next[u] = head[nd];
            if head[nd] != NIL {
                prev[head[nd] as usize] = u as u32;
            }
            head[nd] = u as u32;
            low = low.min(nd);
        }
    }
    removal.reverse();
    removal
}

/// The node order a [`color`] call visits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorOrder {
    /// Index order 0, 1, 2, …
    Natural,
    /// [`smallest_last_order`].
    SmallestLast,
}

/// Greedy coloring in the given order.
pub fn color(graph: &Graph, order: ColorOrder) -> Coloring {
    match order {
        ColorOrder::Natural => {
            let natural: Vec<u32> = (0..graph.node_count() as u32).collect();
            greedy(graph, &natural)
        }
        ColorOrder::SmallestLast => greedy(graph, &smallest_last_order(graph)),
    }
}

/// Natural-order greedy coloring of the elements straight from the element list (builds the
/// element graph of Eq. 11 first).
pub fn greedy_elements<const N: usize>(elements: &[[u32; N]], vertex_count: usize) -> Coloring {
    color(&Graph::from_elements(elements, vertex_count), ColorOrder::Natural)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::box_mesh;

    /// Builds an undirected graph from an edge list.
    pub(crate) fn graph_of(n: usize, edges: &[(u32, u32)]) -> Graph {
        let mut rows: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &(a, b) in edges {
            rows[a as usize].push(b);
            rows[b as usize].push(a);
        }
        let mut start = vec![0];
        let mut adj = Vec::new();
        for r in rows {
            adj.extend(r);
            start.push(adj.len());
        }
        Graph::from_adjacency(start, adj)
    }

    fn assert_proper(g: &Graph, c: &Coloring) {
        for j in 0..g.node_count() as u32 {
            for &k in g.neighbors(j) {
                assert_ne!(c.color[j as usize], c.color[k as usize], "{j} and {k}");
            }
        }
        let mut seen = c.classes.members.clone();
        seen.sort_unstable();
        assert!(seen.iter().enumerate().all(|(i, &e)| i as u32 == e), "every node once");
        for col in 0..c.colors() {
            assert!(c.class(col).iter().all(|&e| c.color[e as usize] == col as u32));
        }
    }

    fn is_permutation(order: &[u32], n: usize) -> bool {
        let mut s = order.to_vec();
        s.sort_unstable();
        s.len() == n && s.iter().enumerate().all(|(i, &e)| i as u32 == e)
    }

    #[test]
    fn greedy_coloring_of_a_box_is_valid_and_near_the_valence_bound() {
        let m = box_mesh([3.0, 2.0, 2.0], [6, 4, 4], 5).unwrap();
        let g = Graph::from_elements(&m.tets, m.vertices.len());
        let bound = Incidence::new(&m.tets, m.vertices.len()).max_valence();
        for order in [ColorOrder::Natural, ColorOrder::SmallestLast] {
            let c = color(&g, order);
            assert_eq!(c.conflict(&m.tets, m.vertices.len()), None);
            assert_proper(&g, &c);
            assert!(c.colors() >= bound && c.colors() <= 2 * bound, "{order:?}: {} colors, valence {bound}", c.colors());
        }
        assert_eq!(greedy_elements(&m.tets, m.vertices.len()), color(&g, ColorOrder::Natural));
    }

    #[test]
    fn conflicts_are_found() {
        let tets = [[0, 1, 2, 3], [1, 2, 3, 4]];
        let bad = Coloring::from_colors(vec![0, 0]);
        assert_eq!(bad.conflict(&tets, 5), Some((0, 1)));
        assert_eq!(greedy_elements(&tets, 5).colors(), 2);
    }

    #[test]
    fn smallest_last_on_a_path_uses_two_colors() {
        let n = 10;
        let edges: Vec<(u32, u32)> = (0..n - 1).map(|i| (i, i + 1)).collect();
        let g = graph_of(n as usize, &edges);
        let order = smallest_last_order(&g);
        assert!(is_permutation(&order, n as usize));
        let c = greedy(&g, &order);
        assert_proper(&g, &c);
        assert_eq!(c.colors(), 2);
    }

    #[test]
    fn smallest_last_on_a_star_colors_the_centre_first() {
        let edges: Vec<(u32, u32)> = (1..8).map(|i| (0, i)).collect();
        let g = graph_of(8, &edges);
        let order = smallest_last_order(&g);
        assert!(is_permutation(&order, 8));
        // the leaves go first (degree 1); once the last-but-one leaf is gone the centre has degree 1
        // and ties with the last leaf, so the centre is among the last two removed.
        assert!(order[..2].contains(&0), "{order:?}");
        let c = greedy(&g, &order);
        assert_proper(&g, &c);
        assert_eq!(c.colors(), 2);
    }

    #[test]
    fn smallest_last_on_a_clique_uses_as_many_colors_as_nodes() {
        for n in [1u32, 2, 5, 9] {
            let mut edges = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    edges.push((a, b));
                }
            }
            let g = graph_of(n as usize, &edges);
            let c = color(&g, ColorOrder::SmallestLast);
            assert_proper(&g, &c);
            assert_eq!(c.colors(), n as usize);
        }
    }

    #[test]
    fn smallest_last_colors_a_tree_with_two_colors() {
        // A tree is 1-degenerate: each node is removed with degree ≤ 1, so it meets at most one
        // colored neighbour when colored in reverse removal order.
        let edges: Vec<(u32, u32)> = (1..31).map(|i| ((i - 1) / 2, i)).collect();
        let g = graph_of(31, &edges);
        assert_eq!(color(&g, ColorOrder::SmallestLast).colors(), 2);
    }

    #[test]
    fn smallest_last_uses_no_more_colors_than_natural_on_a_box() {
        for split in [5u8, 6] {
            let m = box_mesh([3.0, 1.0, 1.0], [12, 4, 4], split).unwrap();
            let g = Graph::from_elements(&m.tets, m.vertices.len());
            let nat = color(&g, ColorOrder::Natural);
            let sl = color(&g, ColorOrder::SmallestLast);
            assert_proper(&g, &nat);
            assert_proper(&g, &sl);
            assert_eq!(sl.conflict(&m.tets, m.vertices.len()), None);
            assert!(sl.colors() <= nat.colors(), "split {split}: smallest-last {} vs natural {}", sl.colors(), nat.colors());
        }
    }

    #[test]
    fn empty_graph() {
        let g = Graph::from_adjacency(vec![0], vec![]);
        assert!(smallest_last_order(&g).is_empty());
        assert_eq!(color(&g, ColorOrder::SmallestLast).colors(), 0);
    }
}
