//! The constraint graph 𝒢 of the block paper (§3.2, Eq. 11) in CSR form: one node per element
//! (a tet, a cloth edge, a hinge), and an edge between two elements iff they share a vertex.

use super::incidence::Incidence;

/// An undirected graph in compressed sparse row form: `neighbors(j)` is sorted ascending, holds no
/// `j` itself and no duplicates, and `k ∈ neighbors(j) ⇔ j ∈ neighbors(k)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    start: Vec<usize>,
    adj: Vec<u32>,
}

impl Graph {
    /// The element graph of Eq. 11: elements `j ≠ k` are adjacent iff they share a vertex. Runs in
    /// O(Σ_j Σ_{v ∈ j} valence(v)) time (plus sorting each neighbour list) with one marker array.
    pub fn from_elements<const N: usize>(elements: &[[u32; N]], vertex_count: usize) -> Graph {
        let inc = Incidence::new(elements, vertex_count);
        let n = elements.len();
        let mut start = Vec::with_capacity(n + 1);
        start.push(0usize);
        // An upper bound on the size: Σ_j Σ_{v ∈ j} (valence(v) − 1).
        let bound: usize = elements.iter().map(|el| el.iter().map(|&v| inc.elements_of(v).len().saturating_sub(1)).sum::<usize>()).sum();
        let mut adj: Vec<u32> = Vec::with_capacity(bound);
        // seen[k] == j + 1 marks k as already listed for element j.
        let mut seen = vec![0u32; n];
        for (j, el) in elements.iter().enumerate() {
            let mark = j as u32 + 1;
            seen[j] = mark; // no self loop
            let from = adj.len();
            for &v in el {
                for &k in inc.elements_of(v) {
                    if seen[k as usize] != mark {
                        seen[k as usize] = mark;
                        adj.push(k);
                    }
                }
            }
            adj[from..].sort_unstable();
            start.push(adj.len());
        }
        adj.shrink_to_fit();
        Graph { start, adj }
    }

    /// A graph from CSR arrays: node `j`'s neighbours are `adj[start[j]..start[j+1]]`. The lists are
    /// sorted here; duplicates and self loops must not be present, and the adjacency must be
    /// symmetric (checked in debug builds).
    pub fn from_adjacency(start: Vec<usize>, mut adj: Vec<u32>) -> Graph {
        assert!(!start.is_empty() && start[0] == 0, "start must begin with 0");
        assert_eq!(*start.last().unwrap(), adj.len(), "start must end at adj.len()");
        let n = start.len() - 1;
        for j in 0..n {
            assert!(start[j] <= start[j + 1], "start must be non-decreasing");
            let list = &mut adj[start[j]..start[j + 1]];
            list.sort_unstable();
            for w in list.windows(2) {
                assert!(w[0] != w[1], "duplicate neighbour {} of node {j}", w[0]);
            }
            for &k in list.iter() {
                assert!((k as usize) < n, "neighbour {k} of node {j} out of range");
                assert!(k as usize != j, "self loop on node {j}");
            }
        }
        let g = Graph { start, adj };
        debug_assert!(g.is_symmetric(), "adjacency is not symmetric");
        g
    }

    /// CSR arrays that are already sorted, loop-free, duplicate-free and symmetric (checked only in
    /// debug builds).
    pub(crate) fn from_sorted_csr(start: Vec<usize>, adj: Vec<u32>) -> Graph {
        debug_assert_eq!(*start.last().unwrap(), adj.len());
        let g = Graph { start, adj };
        debug_assert!((0..g.node_count() as u32).all(|j| g.neighbors(j).windows(2).all(|w| w[0] < w[1]) && !g.neighbors(j).contains(&j)));
        debug_assert!(g.is_symmetric(), "adjacency is not symmetric");
        g
    }

    /// Whether `k ∈ neighbors(j) ⇔ j ∈ neighbors(k)` for all pairs.
    pub fn is_symmetric(&self) -> bool {
        (0..self.node_count() as u32).all(|j| self.neighbors(j).iter().all(|&k| self.neighbors(k).binary_search(&j).is_ok()))
    }

    #[inline]
    pub fn node_count(&self) -> usize {
        self.start.len() - 1
    }

    #[inline]
    pub fn neighbors(&self, j: u32) -> &[u32] {
        &self.adj[self.start[j as usize]..self.start[j as usize + 1]]
    }

    #[inline]
    pub fn degree(&self, j: u32) -> usize {
        self.start[j as usize + 1] - self.start[j as usize]
    }

    pub fn max_degree(&self) -> usize {
        self.start.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0)
    }

    /// Number of undirected edges (each stored twice).
    pub fn edge_count(&self) -> usize {
        self.adj.len() / 2
    }

    /// The CSR row starts (`node_count() + 1` entries); directed edge `e` of node `j` lies in
    /// `row_start(j)..row_start(j+1)` and points to `adjacency()[e]`.
    #[inline]
    pub fn row_starts(&self) -> &[usize] {
        &self.start
    }

    /// All neighbour lists back to back (length `2 · edge_count()`).
    #[inline]
    pub fn adjacency(&self) -> &[u32] {
        &self.adj
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::box_mesh;

    #[test]
    fn two_tets_sharing_a_face_have_one_edge() {
        let g = Graph::from_elements(&[[0, 1, 2, 3], [1, 2, 3, 4]], 5);
        assert_eq!(g.node_count(), 2);
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.neighbors(0), &[1]);
        assert_eq!(g.neighbors(1), &[0]);
        assert_eq!(g.max_degree(), 1);
    }

    #[test]
    fn disjoint_elements_have_no_edge() {
        let g = Graph::from_elements(&[[0, 1], [2, 3], [1, 4]], 5);
        assert_eq!(g.edge_count(), 1);
        assert_eq!(g.neighbors(0), &[2]);
        assert!(g.neighbors(1).is_empty());
        assert_eq!(g.degree(1), 0);
    }

    #[test]
    fn the_five_tets_of_a_cube_form_k5() {
        let m = box_mesh([1.0, 1.0, 1.0], [1, 1, 1], 5).unwrap();
        assert_eq!(m.tets.len(), 5);
        let g = Graph::from_elements(&m.tets, m.vertices.len());
        assert_eq!(g.edge_count(), 10);
        for j in 0..5u32 {
            let expect: Vec<u32> = (0..5).filter(|&k| k != j).collect();
            assert_eq!(g.neighbors(j), &expect[..]);
        }
        assert!(g.is_symmetric());
    }

    #[test]
    fn box_degrees_match_a_brute_force_count() {
        let m = box_mesh([2.0, 1.0, 1.0], [4, 3, 2], 5).unwrap();
        let n = m.vertices.len();
        let g = Graph::from_elements(&m.tets, n);
        assert_eq!(g.node_count(), m.tets.len());
        let share = |a: &[u32; 4], b: &[u32; 4]| a.iter().any(|v| b.contains(v));
        let mut edges = 0;
        let mut max_deg = 0;
        for (j, a) in m.tets.iter().enumerate() {
            let nb: Vec<u32> = (0..m.tets.len() as u32).filter(|&k| k as usize != j && share(a, &m.tets[k as usize])).collect();
            assert_eq!(g.neighbors(j as u32), &nb[..]);
            assert_eq!(g.degree(j as u32), nb.len());
            edges += nb.len();
            max_deg = max_deg.max(nb.len());
        }
        assert_eq!(g.edge_count() * 2, edges);
        assert_eq!(g.max_degree(), max_deg);
        assert!(g.is_symmetric());
    }

    #[test]
    fn from_adjacency_sorts_rows() {
        let g = Graph::from_adjacency(vec![0, 2, 3, 4], vec![2, 1, 0, 0]);
        assert_eq!(g.neighbors(0), &[1, 2]);
        assert_eq!(g.edge_count(), 2);
    }
}
