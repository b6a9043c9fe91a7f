//! Element partitions for the parallel solvers (block paper Algorithms 2 and 3), computed once per
//! mesh topology and cached in-process, with validity checks.

use super::clustering::{greedy_k_neighbour_ranked, jaccard_distances, ranks, Clustering};
use super::coloring::{color, greedy, smallest_last_order, ColorOrder, Coloring};
use super::element_graph::Graph;
use super::incidence::Incidence;
use super::supernodal::supernodal_graph;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};

/// Everything the solvers need to schedule the elements of one topology.
#[derive(Clone, Debug)]
pub struct Partitions {
    /// The most elements sharing one vertex: a lower bound on `colored.colors()` (Eq. 12 counts two
    /// constraints per tet; here a tet is one block, so the bound is the valence itself).
    pub max_valence: usize,
    /// Coloring of the elements: smallest-last greedy on the element graph 𝒢 (the paper's baseline,
    /// Algorithm 2).
    pub colored: Coloring,
    /// Number of colors of plain greedy (natural order) on 𝒢, for reporting.
    pub colors_greedy: usize,
    /// Algorithm 4 with the requested `k_s` ([`super::clustering::greedy_k_neighbour`]).
    pub clustering: Clustering,
    /// Coloring of the clusters: smallest-last greedy on the supernodal graph (Algorithm 3).
    pub cluster_colors: Coloring,
}

impl Partitions {
    /// Computes the partitions without the cache (and without the debug checks).
    pub fn compute<const N: usize>(elements: &[[u32; N]], vertex_count: usize, k_s: usize) -> Partitions {
        let max_valence = Incidence::new(elements, vertex_count).max_valence();
        let g = Graph::from_elements(elements, vertex_count);
        let sl = smallest_last_order(&g);
        let colored = greedy(&g, &sl);
        let colors_greedy = color(&g, ColorOrder::Natural).colors();
        assert!(k_s >= 1, "the maximum cluster size must be at least 1");
        if k_s == 1 {
            // Singleton clusters: the supernodal graph is 𝒢 itself, and so is its coloring.
            let clustering = Clustering::singletons(g.node_count());
            let cluster_colors = colored.clone();
            return Partitions { max_valence, colored, colors_greedy, clustering, cluster_colors };
        }
        // = greedy_k_neighbour(&g, k_s), sharing the smallest-last order
        let clustering = greedy_k_neighbour_ranked(&g, &jaccard_distances(&g), k_s, &ranks(&sl));
        let cluster_colors = color(&supernodal_graph(&g, &clustering), ColorOrder::SmallestLast);
        Partitions { max_valence, colored, colors_greedy, clustering, cluster_colors }
    }
}

/// Cache key: (hash of the element array, vertex count, N, k_s).
type Key = (u64, usize, usize, usize);

/// One slot per key, filled once (concurrent callers for the same key wait on it).
type Slot = Arc<OnceLock<Arc<Partitions>>>;

fn cache() -> &'static Mutex<HashMap<Key, Slot>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Slot>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// A 64-bit hash of the element array (SipHash with fixed keys: stable within a process).
fn element_hash<const N: usize>(elements: &[[u32; N]]) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    elements.as_flattened().hash(&mut h);
    h.finish()
}

/// The partitions of a topology, computed once and cached in-process: a later call with the same
/// elements, vertex count and `k_s` returns the same `Arc`. Concurrent first calls for one key
/// compute it once (the others wait); different keys do not block each other. In debug builds the
/// result is checked with [`check_colored`] and [`check_clustered`] (panics with their message).
pub fn partitions<const N: usize>(elements: &[[u32; N]], vertex_count: usize, k_s: usize) -> Arc<Partitions> {
    let key = (element_hash(elements), vertex_count, N, k_s);
    let cell = {
        let mut map = cache().lock().unwrap_or_else(|e| e.into_inner());
        map.entry(key).or_default().clone()
    };
    cell.get_or_init(|| {
        let p = Partitions::compute(elements, vertex_count, k_s);
        if cfg!(debug_assertions) {
            if let Err(msg) = check_colored(elements, vertex_count, &p.colored) {
                panic!("element coloring: {msg}");
            }
            if let Err(msg) = check_clustered(elements, vertex_count, &p.clustering, &p.cluster_colors) {
                panic!("cluster coloring: {msg}");
            }
        }
        Arc::new(p)
    })
    .clone()
}

/// Checks that every element is colored exactly once and that no two elements of one color share a
/// vertex; the message names the two elements and the vertex.
pub fn check_colored<const N: usize>(elements: &[[u32; N]], vertex_count: usize, c: &Coloring) -> Result<(), String> {
    c.classes.check_labels(&c.color, elements.len(), "element", "color")?;
    match c.conflict_at(elements, vertex_count) {
        Some((a, b, v)) => Err(format!("elements {a} and {b} share vertex {v} and both have color {}", c.color[b as usize])),
        None => Ok(()),
    }
}

/// Checks that every element is in exactly one non-empty cluster (π and χ agree), that `cc` colors
/// every cluster exactly once, and that no two clusters of one color share a vertex.
pub fn check_clustered<const N: usize>(elements: &[[u32; N]], vertex_count: usize, cl: &Clustering, cc: &Coloring) -> Result<(), String> {
    cl.chi.check_labels(&cl.parent, elements.len(), "element", "cluster")?;
    if let Some(r) = cl.chi.iter().position(<[u32]>::is_empty) {
        return Err(format!("cluster {r} is empty"));
    }
    cc.classes.check_labels(&cc.color, cl.clusters(), "cluster", "color")?;
    let inc = Incidence::new(elements, vertex_count);
    // owner[c] = (vertex, element) of an element whose cluster has color c, last seen at that vertex.
    let mut owner: Vec<(u32, u32)> = vec![(u32::MAX, 0); cc.colors()];
    for v in 0..vertex_count as u32 {
        for &e in inc.elements_of(v) {
            let r = cl.parent[e as usize];
            let col = cc.color[r as usize] as usize;
            let (ov, oe) = owner[col];
            if ov == v && cl.parent[oe as usize] != r {
                return Err(format!(
                    "elements {oe} (cluster {}) and {e} (cluster {r}) share vertex {v} and both clusters have color {col}",
                    cl.parent[oe as usize]
                ));
            }
            owner[col] = (v, e);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::box_mesh;

    #[test]
    fn checks_accept_the_partitions_and_reject_conflicts() {
        let m = box_mesh([1.0, 1.0, 1.0], [3, 3, 3], 5).unwrap();
        let n = m.vertices.len();
        let p = Partitions::compute(&m.tets, n, 5);
        check_colored(&m.tets, n, &p.colored).unwrap();
        check_clustered(&m.tets, n, &p.clustering, &p.cluster_colors).unwrap();
        assert!(p.colored.colors() >= p.max_valence);

        // everything in one color: names two elements and a vertex
        let bad = Coloring::from_colors(vec![0; m.tets.len()]);
        let msg = check_colored(&m.tets, n, &bad).unwrap_err();
        assert!(msg.contains("share vertex"), "{msg}");
        // all clusters in one color
        let bad = Coloring::from_colors(vec![0; p.clustering.clusters()]);
        let msg = check_clustered(&m.tets, n, &p.clustering, &bad).unwrap_err();
        assert!(msg.contains("share vertex"), "{msg}");
        // an element missing from the coloring
        let short = Coloring::from_colors(p.colored.color[1..].to_vec());
        assert!(check_colored(&m.tets, n, &short).is_err());
        // π disagrees with χ
        let mut cl = p.clustering.clone();
        let (a, b) = (cl.members_of(0)[0] as usize, cl.members_of(1)[0] as usize);
        cl.parent.swap(a, b);
        assert!(check_clustered(&m.tets, n, &cl, &p.cluster_colors).is_err());
        // an element in two clusters
        let mut cl = p.clustering.clone();
        cl.chi.members[1] = cl.chi.members[0];
        assert!(check_clustered(&m.tets, n, &cl, &p.cluster_colors).is_err());
    }

    #[test]
    fn cloth_edges_and_empty_meshes() {
        use crate::mesh::generators::{grid2d_mesh, GridPattern};
        let m = grid2d_mesh([1.0, 1.0], [8, 6], GridPattern::Alternating).unwrap();
        let mut edges: Vec<[u32; 2]> = m.tris.iter().flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]]).map(|[a, b]| [a.min(b), a.max(b)]).collect();
        edges.sort_unstable();
        edges.dedup();
        let n = m.vertices.len();
        let p = Partitions::compute(&edges, n, 3);
        check_colored(&edges, n, &p.colored).unwrap();
        check_clustered(&edges, n, &p.clustering, &p.cluster_colors).unwrap();
        assert!(p.colored.colors() >= p.max_valence);
        assert!(p.cluster_colors.colors() <= p.colored.colors());

        let none: [[u32; 4]; 0] = [];
        let p = partitions(&none, 0, 5);
        assert_eq!((p.colored.colors(), p.clustering.clusters(), p.cluster_colors.colors(), p.max_valence), (0, 0, 0, 0));
        check_colored(&none, 0, &p.colored).unwrap();
        check_clustered(&none, 0, &p.clustering, &p.cluster_colors).unwrap();
    }

    #[test]
    fn k_s_one_gives_singletons_and_the_element_coloring() {
        let m = box_mesh([1.0, 1.0, 1.0], [3, 2, 2], 5).unwrap();
        let n = m.vertices.len();
        let p = Partitions::compute(&m.tets, n, 1);
        assert_eq!(p.clustering, Clustering::singletons(m.tets.len()));
        assert_eq!(p.cluster_colors, p.colored);
        // the same as clustering with k_s = 1 and coloring the supernodal graph
        let g = Graph::from_elements(&m.tets, n);
        let cl = super::super::clustering::greedy_k_neighbour(&g, 1);
        assert_eq!(cl, p.clustering);
        assert_eq!(color(&supernodal_graph(&g, &cl), ColorOrder::SmallestLast), p.colored);
        check_clustered(&m.tets, n, &p.clustering, &p.cluster_colors).unwrap();
    }

    #[test]
    fn the_cache_returns_the_same_arc() {
        let m = box_mesh([1.0, 1.0, 1.0], [2, 3, 2], 6).unwrap();
        let a = partitions(&m.tets, m.vertices.len(), 4);
        let b = partitions(&m.tets, m.vertices.len(), 4);
        assert!(Arc::ptr_eq(&a, &b));
        let c = partitions(&m.tets, m.vertices.len(), 3);
        assert!(!Arc::ptr_eq(&a, &c));
    }
}
