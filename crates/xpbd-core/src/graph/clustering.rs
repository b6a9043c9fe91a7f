//! Greedy K-neighbour clustering of the constraint graph (block paper §4.3, Algorithm 4): groups of
//! at most `K_s` mutually close elements become the supernodes of the supernodal graph (Eq. 13–14),
//! whose coloring needs far fewer colors than the element graph's.

use super::coloring::smallest_last_order;
use super::element_graph::Graph;
use super::groups::Groups;

/// Unassigned parent.
const NONE: u32 = u32::MAX;

/// A partition of the nodes of a graph into clusters: `π(j) = parent[j]`, and the members
/// `χ(r) = chi.group(r)` of cluster `r`, in the order they were added.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clustering {
    /// π(j): the cluster of node `j`.
    pub parent: Vec<u32>,
    /// χ: the members of every cluster.
    pub chi: Groups,
}

impl Clustering {
    pub fn clusters(&self) -> usize {
        self.chi.len()
    }

    /// χ(r): the nodes of cluster `r`, in the order they were added.
    pub fn members_of(&self, r: usize) -> &[u32] {
        self.chi.group(r)
    }

    /// `h[s]` = number of clusters of size `s` (`h.len()` = largest size + 1).
    pub fn size_histogram(&self) -> Vec<usize> {
        let mut h = Vec::new();
        for s in self.chi.sizes() {
            if s >= h.len() {
                h.resize(s + 1, 0);
            }
            h[s] += 1;
        }
        h
    }

    /// Every node its own cluster, in index order.
    pub fn singletons(n: usize) -> Clustering {
        Clustering { parent: (0..n as u32).collect(), chi: Groups::singletons(n) }
    }
}

/// The distance of Eq. 15 for every directed edge, parallel to [`Graph::adjacency`]:
/// `d(j, k) = 1 − |N_j ∩ N_k| / |N_j ∪ N_k|`, where `N_j` is the open neighbourhood of `j` (its
/// neighbours, without `j` itself — the paper's 𝓔_j read as the nodes `j` shares an edge with). For
/// adjacent `j, k` this counts the common neighbours over `deg j + deg k − common` (the union holds
/// `j` and `k` themselves, so it is never empty and `0 < d ≤ 1`). Each intersection is computed once
/// per undirected edge, by testing `N_k` against a bitset of `N_j` (n bits, small enough to stay in
/// cache): O(Σ_j deg(j)²) time, O(E) memory.
pub fn jaccard_distances(graph: &Graph) -> Vec<f32> {
    let start = graph.row_starts();
    let adj = graph.adjacency();
    let n = graph.node_count();
    let mut dist = vec![0f32; adj.len()];
    let mut bits = vec![0u64; n.div_ceil(64)];
    // cursor[k]: the slot in k's row for its next lower neighbour; lower neighbours j < k come first
    // in k's sorted row and are met in increasing j below.
    let mut cursor: Vec<usize> = start[..n].to_vec();
    for j in 0..n as u32 {
        let nj = graph.neighbors(j);
        let upper = nj.partition_point(|&k| k < j);
        if upper == nj.len() {
            continue;
        }
        for &l in nj {
            bits[l as usize >> 6] |= 1u64 << (l & 63);
        }
        for (idx, &k) in nj.iter().enumerate().skip(upper) {
            let nk = graph.neighbors(k);
            let inter: u32 = nk.iter().map(|&l| ((bits[l as usize >> 6] >> (l & 63)) & 1) as u32).sum();
            let union = (nj.len() + nk.len()) as u32 - inter;
            let d = 1.0 - inter as f32 / union as f32;
            dist[start[j as usize] + idx] = d;
            let rev = cursor[k as usize];
            cursor[k as usize] += 1;
            debug_assert_eq!(adj[rev], j);
            dist[rev] = d;
        }
        for &l in nj {
            bits[l as usize >> 6] = 0;
        }
    }
    dist
}

/// Algorithm 4, greedy K-neighbour clustering, with initial maximum cluster size `k_s ≥ 1`, on the
/// smallest-last numbering of the nodes: as in the paper's §6.2 ("prior to assembling 𝒢, we reorder
/// [...] based on the smallest degree last ordering"), node `j` is numbered by its position in
/// [`smallest_last_order`] (the coloring order: the last node removed comes first), and every
/// "by index" rule of [`greedy_k_neighbour_ranked`] uses that number (walk order, distance ties,
/// seed ties). It changes the clusters' shapes a lot: on a 5-split box beam [20,6,6] with K_s = 5,
/// 343 of 729 clusters are whole grid cells, against 81 of 724 with the plain index numbering, and
/// the supernodal graph needs fewer colors (smallest-last greedy): box beam 13 instead of 16,
/// 51k-tet box 13 instead of 18, armadillo 17 instead of 18 (the element graphs need 35, 36, 60).
pub fn greedy_k_neighbour(graph: &Graph, k_s: usize) -> Clustering {
    if k_s == 1 {
        return Clustering::singletons(graph.node_count());
    }
    let rank = ranks(&smallest_last_order(graph));
    greedy_k_neighbour_ranked(graph, &jaccard_distances(graph), k_s, &rank)
}

/// `rank[order[i]] = i`: the number of each node in a node order.
pub fn ranks(order: &[u32]) -> Vec<u32> {
    let mut rank = vec![NONE; order.len()];
    for (i, &j) in order.iter().enumerate() {
        rank[j as usize] = i as u32;
    }
    debug_assert!(rank.iter().all(|&r| r != NONE), "not a permutation");
    rank
}

/// Algorithm 4 with per-edge distances `dist` (parallel to [`Graph::adjacency`], e.g.
/// [`jaccard_distances`]) and a node numbering `rank` (a permutation; the identity gives the plain
/// index rules). Every tie below goes to the smaller `rank`.
///
/// * Distances: Eq. 15 as in [`jaccard_distances`] (open neighbourhoods: `j ∉ N_j`).
/// * Seed: Eq. 16, the unassigned node with the smallest sum of distances to its unassigned
///   neighbours. The sums are exact (f64 over f32 distances), so ties are real ties.
/// * Each round walks 𝒢 breadth first from the seed (each node's newly reached neighbours are
///   queued in increasing rank; assigned nodes are traversed too). An unassigned node `j` starts
///   `χ(r) = {j}` and takes its unassigned neighbours in increasing distance (ties by rank) while
///   `|χ(r)| < K_s`; a cluster that stays smaller than `K_s` is undone. Then `K_s ← K_s − 1`; the
///   round with `K_s = 1` turns every node left into its own cluster (in the same walk order).
/// * Deviation from the paper: a breadth-first walk only reaches the seed's connected component, so
///   when it is exhausted and unvisited unassigned nodes remain (several bodies, disconnected
///   parts), the round re-seeds by Eq. 16 among those and walks again, until every component has
///   been walked; only then does `K_s` decrease. Eq. 16 sums depend only on a node's own
///   component, so they are computed once per round and the components are walked in the order of
///   their best seeds (sum, then rank) — the same seeds as re-evaluating Eq. 16 each time.
///
/// Cluster ids follow creation order; each cluster lists its members in the order they were added.
/// With `k_s = 1` there is nothing to cluster: the result is [`Clustering::singletons`] (cluster
/// `r` = node `r`) without computing anything. Deterministic; O(Σ deg log deg) to sort the rows once, then O(k_s · (V + E)).
pub fn greedy_k_neighbour_ranked(graph: &Graph, dist: &[f32], k_s: usize, rank: &[u32]) -> Clustering {
    assert!(k_s >= 1, "the maximum cluster size must be at least 1");
    let n = graph.node_count();
    if k_s == 1 {
        return Clustering::singletons(n);
    }
    let start = graph.row_starts();
    let adj = graph.adjacency();
    assert_eq!(dist.len(), adj.len(), "one distance per directed edge");
    assert_eq!(rank.len(), n, "one rank per node");

    // Each row's neighbours sorted by (distance, rank): the order in which a new cluster takes them.
    // Key: the distance's bits (monotone for non-negative floats) above the rank.
    let mut by_dist: Vec<u32> = adj.to_vec();
    {
        let mut node_of = vec![0u32; n];
        for (j, &r) in rank.iter().enumerate() {
            node_of[r as usize] = j as u32;
        }
        let mut row: Vec<u64> = Vec::new();
        for j in 0..n {
            let (a, b) = (start[j], start[j + 1]);
            row.clear();
            row.extend((a..b).map(|e| {
                debug_assert!(dist[e] >= 0.0);
                ((dist[e].to_bits() as u64) << 32) | rank[adj[e] as usize] as u64
            }));
            row.sort_unstable();
            for (slot, &key) in by_dist[a..b].iter_mut().zip(row.iter()) {
                *slot = node_of[(key & 0xffff_ffff) as usize];
            }
        }
    }

    // Connected components (static).
    let mut comp = vec![NONE; n];
    let mut queue: Vec<u32> = Vec::with_capacity(n);
    let mut n_comp = 0u32;
    for s in 0..n as u32 {
        if comp[s as usize] != NONE {
            continue;
        }
        comp[s as usize] = n_comp;
        queue.clear();
        queue.push(s);
        let mut head = 0;
        while head < queue.len() {
            let v = queue[head];
            head += 1;
            for &k in graph.neighbors(v) {
                if comp[k as usize] == NONE {
                    comp[k as usize] = n_comp;
                    queue.push(k);
                }
            }
        }
        n_comp += 1;
    }

    let mut parent = vec![NONE; n];
    let mut members: Vec<u32> = Vec::with_capacity(n);
    let mut offsets: Vec<usize> = vec![0];
    let mut assigned = 0usize;
    let mut visited = vec![0u32; n]; // round stamp
    let mut best: Vec<(f64, u32)> = vec![(f64::INFINITY, NONE); n_comp as usize];
    let mut fresh: Vec<(u32, u32)> = Vec::new(); // (rank, node) reached from the current node
    let mut round = 0u32;
    let mut ks = k_s;
    while ks >= 1 && assigned < n {
        round += 1;
        // Eq. 16 per component: (sum, rank of the node) minimal.
        best.iter_mut().for_each(|b| *b = (f64::INFINITY, NONE));
        for j in 0..n {
            if parent[j] != NONE {
                continue;
            }
            let mut s = 0f64;
            for e in start[j]..start[j + 1] {
                if parent[adj[e] as usize] == NONE {
                    s += dist[e] as f64;
                }
            }
            let b = &mut best[comp[j] as usize];
            if s < b.0 || (s == b.0 && rank[j] < rank[b.1 as usize]) {
                *b = (s, j as u32);
            }
        }
        let mut seeds: Vec<(f64, u32, u32)> = best.iter().filter(|b| b.1 != NONE).map(|b| (b.0, rank[b.1 as usize], b.1)).collect();
        seeds.sort_unstable_by(|x, y| x.0.total_cmp(&y.0).then(x.1.cmp(&y.1)));

        for &(_, _, u0) in &seeds {
            // Breadth-first walk of u0's component.
            queue.clear();
            queue.push(u0);
            visited[u0 as usize] = round;
            let mut head = 0;
            while head < queue.len() {
                let j = queue[head];
                head += 1;
                fresh.clear();
                for &k in graph.neighbors(j) {
                    if visited[k as usize] != round {
                        visited[k as usize] = round;
                        fresh.push((rank[k as usize], k));
                    }
                }
                fresh.sort_unstable();
                queue.extend(fresh.iter().map(|&(_, k)| k));
                if parent[j as usize] != NONE {
                    continue;
                }
                let r = (offsets.len() - 1) as u32;
                let from = members.len();
                members.push(j);
                parent[j as usize] = r;
                for &k in &by_dist[start[j as usize]..start[j as usize + 1]] {
                    if members.len() - from >= ks {
                        break;
                    }
                    if parent[k as usize] == NONE {
                        parent[k as usize] = r;
                        members.push(k);
                    }
                }
                if members.len() - from == ks {
                    offsets.push(members.len());
                    assigned += ks;
                } else {
                    for &k in &members[from..] {
                        parent[k as usize] = NONE;
                    }
                    members.truncate(from);
                }
            }
        }
        ks -= 1;
    }
    debug_assert_eq!(assigned, n);
    Clustering { parent, chi: Groups { offsets, members } }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::box_mesh;

    fn graph_of(n: usize, edges: &[(u32, u32)]) -> Graph {
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

    fn assert_partition(cl: &Clustering, n: usize, k_s: usize) {
        assert_eq!(cl.parent.len(), n);
        assert_eq!(cl.chi.members.len(), n);
        assert_eq!(*cl.chi.offsets.last().unwrap(), n);
        let mut seen = vec![false; n];
        for r in 0..cl.clusters() {
            let m = cl.members_of(r);
            assert!(!m.is_empty() && m.len() <= k_s, "cluster {r} has {} members", m.len());
            for &j in m {
                assert!(!seen[j as usize], "node {j} twice");
                seen[j as usize] = true;
                assert_eq!(cl.parent[j as usize], r as u32);
            }
        }
        assert!(seen.iter().all(|&s| s));
        let h = cl.size_histogram();
        assert_eq!(h.iter().sum::<usize>(), cl.clusters());
        assert_eq!(h.iter().enumerate().map(|(s, c)| s * c).sum::<usize>(), n);
    }

    /// The paper's Fig. 3, nodes 1..8 renumbered 0..7: node 1 touches 2, 4, 5; node 3 touches all
    /// but 1; the breadth-first order from node 1 is [1, 2, 4, 5, 3, 6, 8, 7].
    fn figure3() -> Graph {
        let e = |a: u32, b: u32| (a - 1, b - 1);
        graph_of(
            8,
            &[
                e(1, 2),
                e(1, 4),
                e(1, 5),
                e(2, 3),
                e(2, 4),
                e(2, 5),
                e(2, 6),
                e(4, 3),
                e(4, 5),
                e(4, 8),
                e(5, 3),
                e(5, 7),
                e(3, 6),
                e(3, 7),
                e(3, 8),
                e(6, 7),
                e(6, 8),
                e(7, 8),
            ],
        )
    }

    #[test]
    fn figure3_breadth_first_order_and_clusters() {
        let g = figure3();
        // breadth-first order from node 1
        let mut order = vec![0u32];
        let mut seen = [false; 8];
        seen[0] = true;
        let mut h = 0;
        while h < order.len() {
            let j = order[h];
            h += 1;
            for &k in g.neighbors(j) {
                if !seen[k as usize] {
                    seen[k as usize] = true;
                    order.push(k);
                }
            }
        }
        let one_based: Vec<u32> = order.iter().map(|j| j + 1).collect();
        assert_eq!(one_based, [1, 2, 4, 5, 3, 6, 8, 7]);
        assert_eq!(g.neighbors(2), &[1, 3, 4, 5, 6, 7], "node 3 touches all but node 1");

        // With the plain index numbering the walk is the figure's [1, 2, 4, 5, 3, 6, 8, 7].
        let identity: Vec<u32> = (0..8).collect();
        let cl = greedy_k_neighbour_ranked(&g, &jaccard_distances(&g), 4, &identity);
        assert_partition(&cl, 8, 4);
        assert_eq!(cl.clusters(), 2);
        let one_based = |r: usize| {
            let mut m: Vec<u32> = cl.members_of(r).iter().map(|j| j + 1).collect();
            m.sort_unstable();
            m
        };
        assert_eq!(one_based(0), [1, 2, 4, 5]);
        assert_eq!(one_based(1), [3, 6, 7, 8]);
        assert_eq!(cl.members_of(0)[0], 0, "seeded at node 1 (Eq. 16)");
        assert_eq!(cl.members_of(1)[0], 2, "second cluster started at node 3");
        assert_eq!(cl.members_of(1)[1..], [5, 6, 7], "then 6, 7, 8 (distance ties by index)");

        // The smallest-last numbering gives the same two clusters.
        let cl2 = greedy_k_neighbour(&g, 4);
        assert_partition(&cl2, 8, 4);
        assert_eq!(cl2.clusters(), 2);
        let sets = |c: &Clustering| {
            let mut v: Vec<Vec<u32>> = (0..2)
                .map(|r| {
                    let mut m = c.members_of(r).to_vec();
                    m.sort_unstable();
                    m
                })
                .collect();
            v.sort();
            v
        };
        assert_eq!(sets(&cl), sets(&cl2));
    }

    #[test]
    fn distances_follow_eq15() {
        let g = figure3();
        let d = jaccard_distances(&g);
        let at = |j: u32, k: u32| {
            let row = g.neighbors(j);
            d[g.row_starts()[j as usize] + row.binary_search(&k).unwrap()]
        };
        // N1 = {2,4,5}, N2 = {1,3,4,5,6}: ∩ = {4,5}, ∪ = {1,...,6}
        assert!((at(0, 1) - (1.0 - 2.0 / 6.0)).abs() < 1e-6);
        for j in 0..8u32 {
            for &k in g.neighbors(j) {
                assert_eq!(at(j, k), at(k, j));
                assert!(at(j, k) > 0.0 && at(j, k) <= 1.0);
            }
        }
    }

    #[test]
    fn leftovers_shrink_to_singletons() {
        // A path of 7 nodes with K_s = 3: two triples from the end, then the leftover.
        let edges: Vec<(u32, u32)> = (0..6).map(|i| (i, i + 1)).collect();
        let g = graph_of(7, &edges);
        let cl = greedy_k_neighbour(&g, 3);
        assert_partition(&cl, 7, 3);
        assert_eq!(cl.chi.members.len(), 7);
        // isolated nodes and K_s = 1
        let g = Graph::from_adjacency(vec![0, 0, 0, 0], vec![]);
        let cl = greedy_k_neighbour(&g, 4);
        assert_partition(&cl, 3, 4);
        assert_eq!(cl.clusters(), 3);
        let cl = greedy_k_neighbour(&figure3(), 1);
        assert_partition(&cl, 8, 1);
        assert_eq!(cl.size_histogram(), vec![0, 8]);
    }

    #[test]
    fn disconnected_components_are_all_clustered_before_k_shrinks() {
        // Two disjoint copies of Fig. 3: both split into two 4-clusters.
        let g1 = figure3();
        let mut edges = Vec::new();
        for j in 0..8u32 {
            for &k in g1.neighbors(j) {
                if j < k {
                    edges.push((j, k));
                    edges.push((j + 8, k + 8));
                }
            }
        }
        let g = graph_of(16, &edges);
        let cl = greedy_k_neighbour(&g, 4);
        assert_partition(&cl, 16, 4);
        assert_eq!(cl.size_histogram(), vec![0, 0, 0, 0, 4]);
    }

    #[test]
    fn box_clusters_cover_every_element_with_bounded_sizes() {
        let m = box_mesh([2.0, 1.0, 1.0], [8, 4, 4], 5).unwrap();
        let g = Graph::from_elements(&m.tets, m.vertices.len());
        for k_s in [1usize, 2, 5, 8] {
            let cl = greedy_k_neighbour(&g, k_s);
            assert_partition(&cl, m.tets.len(), k_s);
            assert_eq!(cl, greedy_k_neighbour(&g, k_s), "deterministic");
            // most clusters are full
            let h = cl.size_histogram();
            assert!(h[k_s] * k_s * 10 >= m.tets.len() * 7, "k_s {k_s}: {h:?}");
        }
    }
}
