//! The constraint graph, colorings, greedy clustering (block paper Algorithm 4) and the supernodal
//! coloring on box meshes, the armadillo and a two-body mesh; the paper's target ratio of clustered
//! to element colors; the partition cache; timings.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use xpbd_core::graph::{check_clustered, check_colored, color, partitions, ColorOrder, Graph, Partitions};
use xpbd_core::mesh::generators::box_mesh;
use xpbd_core::mesh::io::read_tet_mesh;
use xpbd_core::mesh::TetMesh;

const K_S: usize = 5;

fn armadillo() -> TetMesh {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenes/meshes/armadillo_4k.node");
    read_tet_mesh(&p).unwrap()
}

/// Two disjoint boxes: the second's vertex ids follow the first's.
fn two_bodies() -> TetMesh {
    let a = box_mesh([2.0, 1.0, 1.0], [8, 4, 4], 5).unwrap();
    let b = box_mesh([1.0, 1.0, 1.0], [5, 5, 5], 6).unwrap();
    let off = a.vertices.len() as u32;
    let mut m = a.clone();
    m.vertices.extend(b.vertices.iter().copied());
    m.tets.extend(b.tets.iter().map(|t| t.map(|v| v + off)));
    m
}

/// Validates the partitions of `m` and prints one table row; returns the clustered/element ratio.
fn report(name: &str, m: &TetMesh, p: &Partitions) -> f64 {
    let n = m.vertices.len();
    check_colored(&m.tets, n, &p.colored).unwrap();
    check_clustered(&m.tets, n, &p.clustering, &p.cluster_colors).unwrap();
    // every element in exactly one cluster of at most K_S elements
    let mut count = vec![0u32; m.tets.len()];
    for r in 0..p.clustering.clusters() {
        let mem = p.clustering.members_of(r);
        assert!(!mem.is_empty() && mem.len() <= K_S);
        for &e in mem {
            count[e as usize] += 1;
        }
    }
    assert!(count.iter().all(|&c| c == 1), "{name}: every element exactly once");
    assert!(p.colored.colors() >= p.max_valence);
    let ratio = p.cluster_colors.colors() as f64 / p.colored.colors() as f64;
    println!(
        "{name:>22} | {:>7} tets | greedy {:>3} | smallest-last {:>3} | clustered {:>3} | ratio {:.3} | max valence {:>3} | clusters {:>6} sizes {:?}",
        m.tets.len(),
        p.colors_greedy,
        p.colored.colors(),
        p.cluster_colors.colors(),
        ratio,
        p.max_valence,
        p.clustering.clusters(),
        p.clustering.size_histogram(),
    );
    ratio
}

#[test]
fn greedy_colorings_are_valid_on_boxes_and_the_armadillo() {
    let meshes = [
        ("box 5-split", box_mesh([2.0, 1.0, 1.0], [10, 5, 5], 5).unwrap()),
        ("box 6-split", box_mesh([2.0, 1.0, 1.0], [10, 5, 5], 6).unwrap()),
        ("armadillo", armadillo()),
    ];
    for (name, m) in &meshes {
        let n = m.vertices.len();
        let g = Graph::from_elements(&m.tets, n);
        let nat = color(&g, ColorOrder::Natural);
        let sl = color(&g, ColorOrder::SmallestLast);
        check_colored(&m.tets, n, &nat).unwrap_or_else(|e| panic!("{name} natural: {e}"));
        check_colored(&m.tets, n, &sl).unwrap_or_else(|e| panic!("{name} smallest-last: {e}"));
        assert_eq!(sl.conflict(&m.tets, n), None);
        println!("{name}: natural {} smallest-last {} max degree {}", nat.colors(), sl.colors(), g.max_degree());
    }
}

#[test]
fn box_graph_degrees_and_edges() {
    // One cell split in 5 is K5; a 2×1×1 box: 10 tets.
    let m = box_mesh([2.0, 1.0, 1.0], [2, 1, 1], 5).unwrap();
    let g = Graph::from_elements(&m.tets, m.vertices.len());
    assert_eq!(g.node_count(), 10);
    let share = |a: &[u32; 4], b: &[u32; 4]| a.iter().any(|v| b.contains(v));
    let mut e = 0;
    for j in 0..10 {
        let d = (0..10).filter(|&k| k != j && share(&m.tets[j], &m.tets[k])).count();
        assert_eq!(g.degree(j as u32), d);
        e += d;
    }
    assert_eq!(g.edge_count(), e / 2);
    let m = box_mesh([4.0, 2.0, 2.0], [8, 4, 4], 5).unwrap();
    let g = Graph::from_elements(&m.tets, m.vertices.len());
    assert_eq!(g.node_count(), 8 * 4 * 4 * 5);
    let sum: usize = (0..g.node_count() as u32).map(|j| g.degree(j)).sum();
    assert_eq!(sum, 2 * g.edge_count());
    assert!(g.max_degree() < 100 && g.max_degree() > 30, "max degree {}", g.max_degree());
}

#[test]
fn clustered_coloring_meets_the_paper_target() {
    let meshes = [
        ("box beam [20,6,6] 5-split", box_mesh([4.0, 1.0, 1.0], [20, 6, 6], 5).unwrap()),
        ("armadillo", armadillo()),
        ("box [40,16,16] 5-split", box_mesh([2.5, 1.0, 1.0], [40, 16, 16], 5).unwrap()),
    ];
    let mut failures = Vec::new();
    for (name, m) in &meshes {
        let t = Instant::now();
        let p = partitions(&m.tets, m.vertices.len(), K_S);
        let dt = t.elapsed();
        let ratio = report(name, m, &p);
        println!("{name:>22} | partitions in {:.3} s", dt.as_secs_f64());
        if ratio > 0.45 {
            failures.push(format!("{name}: ratio {ratio:.3}"));
        }
    }
    assert!(failures.is_empty(), "clustered/element colors above 0.45: {failures:?}");
}

#[test]
fn two_bodies_are_clustered_completely() {
    let m = two_bodies();
    let p = partitions(&m.tets, m.vertices.len(), K_S);
    report("two boxes", &m, &p);
    // K_s applies per component: both boxes get full clusters.
    let h = p.clustering.size_histogram();
    assert!(h[K_S] * K_S * 10 >= m.tets.len() * 7, "{h:?}");
}

#[test]
fn the_cache_returns_the_same_partitions() {
    let m = box_mesh([1.0, 1.0, 1.0], [6, 5, 4], 5).unwrap();
    let a = partitions(&m.tets, m.vertices.len(), K_S);
    let t = Instant::now();
    let b = partitions(&m.tets, m.vertices.len(), K_S);
    assert!(Arc::ptr_eq(&a, &b));
    assert!(t.elapsed().as_secs_f64() < 0.5);
    let mut moved = m.tets.clone();
    moved.swap(0, 1);
    let c = partitions(&moved, m.vertices.len(), K_S);
    assert!(!Arc::ptr_eq(&a, &c), "a different element array is a different topology");
}

#[test]
#[ignore = "688k tets: run with --ignored"]
fn bunny_688k_timing() {
    // The shared meshes sit beside the repository (../shared/meshes); not shipped with it.
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/meshes/bunny_688k.node");
    let p = p.as_path();
    if !p.exists() {
        println!("{} not found, skipped", p.display());
        return;
    }
    let t = Instant::now();
    let m = read_tet_mesh(p).unwrap();
    println!("read in {:.2} s", t.elapsed().as_secs_f64());
    let t = Instant::now();
    let part = partitions(&m.tets, m.vertices.len(), K_S);
    println!("partitions in {:.2} s", t.elapsed().as_secs_f64());
    report("bunny_688k", &m, &part);
}

/// The investigation behind numbering the nodes by smallest-last in Algorithm 4 (paper §6.2): the
/// clustered colors with the plain index numbering and with the smallest-last one. Prints only.
#[test]
#[ignore = "prints a comparison"]
fn algorithm4_numbering_comparison() {
    use xpbd_core::graph::clustering::{greedy_k_neighbour_ranked, jaccard_distances, ranks};
    use xpbd_core::graph::{smallest_last_order, supernodal_graph};
    let meshes = [
        ("box beam [20,6,6] 5-split", box_mesh([4.0, 1.0, 1.0], [20, 6, 6], 5).unwrap()),
        ("armadillo", armadillo()),
        ("box [40,16,16] 5-split", box_mesh([2.5, 1.0, 1.0], [40, 16, 16], 5).unwrap()),
        ("box [20,6,6] 6-split", box_mesh([4.0, 1.0, 1.0], [20, 6, 6], 6).unwrap()),
        ("two boxes", two_bodies()),
    ];
    for (name, m) in &meshes {
        let g = Graph::from_elements(&m.tets, m.vertices.len());
        let sl = smallest_last_order(&g);
        let base = color(&g, ColorOrder::SmallestLast).colors();
        let d = jaccard_distances(&g);
        let identity: Vec<u32> = (0..g.node_count() as u32).collect();
        let mut row = format!("{name:>26}: smallest-last on G {base:>3}");
        for (label, rank) in [("index", identity), ("smallest-last", ranks(&sl))] {
            let cl = greedy_k_neighbour_ranked(&g, &d, K_S, &rank);
            let c = color(&supernodal_graph(&g, &cl), ColorOrder::SmallestLast).colors();
            row += &format!(" | {label} numbering {c:>3} ({:.3})", c as f64 / base as f64);
        }
        println!("{row}");
    }
}
