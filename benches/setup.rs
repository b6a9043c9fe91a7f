//! Coloring and clustering setup on a 51,200-tet box (40×16×16 cells, 5-tet split): the element graph
//! of the block paper's Eq. 11, greedy coloring in natural and smallest-last order (Algorithm 2),
//! Jaccard distances and greedy k-neighbour clustering (Algorithm 3), the supernodal graph and its
//! coloring, and the whole `Partitions::compute` the clustered ordering runs once per topology.
//!
//! Run: `cargo bench -p xpbd-benches --bench setup`

use criterion::{criterion_group, criterion_main, Criterion};
use xpbd_core::graph::clustering::{greedy_k_neighbour, jaccard_distances};
use xpbd_core::graph::coloring::{color, smallest_last_order, ColorOrder};
use xpbd_core::graph::element_graph::Graph;
use xpbd_core::graph::partition::Partitions;
use xpbd_core::graph::supernodal::supernodal_graph;
use xpbd_core::mesh::generators::box_mesh;

fn setup(c: &mut Criterion) {
    let m = box_mesh([4.0, 1.6, 1.6], [40, 16, 16], 5).unwrap();
    let n = m.vertices.len();
    let g = Graph::from_elements(&m.tets, n);
    let clustering = greedy_k_neighbour(&g, 5);
    let mut group = c.benchmark_group("setup_51k_tets");
    group.sample_size(10);
    group.bench_function("element_graph", |b| b.iter(|| Graph::from_elements(&m.tets, n)));
    group.bench_function("color_natural", |b| b.iter(|| color(&g, ColorOrder::Natural)));
    group.bench_function("smallest_last_order", |b| b.iter(|| smallest_last_order(&g)));
    group.bench_function("color_smallest_last", |b| b.iter(|| color(&g, ColorOrder::SmallestLast)));
    group.bench_function("jaccard_distances", |b| b.iter(|| jaccard_distances(&g)));
    group.bench_function("cluster_greedy_k5", |b| b.iter(|| greedy_k_neighbour(&g, 5)));
    group.bench_function("supernodal_graph_and_coloring", |b| b.iter(|| color(&supernodal_graph(&g, &clustering), ColorOrder::SmallestLast)));
    group.bench_function("partitions_compute_k5", |b| b.iter(|| Partitions::compute(&m.tets, n, 5)));
    group.finish();
}

criterion_group!(benches, setup);
criterion_main!(benches);
