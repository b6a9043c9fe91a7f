//! Serial Gauss-Seidel tet projection throughput (issue: ≥ 15 million block neo-Hookean projections
//! per second on one core, f64) on a 51,200-tet box, one full sweep per criterion iteration, for every
//! tet model side by side.
//!
//! Run: `cargo bench -p xpbd-benches --bench projection`
//!
//! Also the colored sweep run on a one-thread pool, which projects same-color elements together in the
//! lanes of the block kernel (`crates/xpbd-cpu/src/block_kernel.rs`). The index-order row of
//! `neohookean_block` goes through the same kernel with one lane (the serial order).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::{build, parse};

fn box_scene(model: &str) -> String {
    format!(
        r#"name = "bench"
[simulation]
substeps = 50
[[body]]
name = "box"
mesh = {{ generator = "box", size = [4.0, 1.6, 1.6], cells = [40, 16, 16], split = 5 }}
material = {{ model = "{model}", youngs = 1.0e7, poisson = 0.45, density = 1000.0 }}
pin = [{{ box = {{ min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] }} }}]
"#
    )
}

fn projection(c: &mut Criterion) {
    let mut group = c.benchmark_group("gauss_seidel_sweep_51k_tets");
    for model in ["neohookean_block", "neohookean", "stvk", "arap"] {
        let built = build(&parse(&box_scene(model), Path::new("bench.toml")).unwrap(), Path::new(".")).unwrap();
        let (index_order, h) = (built.model, built.config.h());
        let n_tets = index_order.tet_groups[0].tets.len();
        group.throughput(Throughput::Elements(n_tets as u64));
        for (order, m) in [("index_order", index_order.clone()), ("color_order", in_color_order(index_order.clone()))] {
            // A sagged, non-rest state so every projection does real work.
            let x_prev: Vec<Vec3> = m.rest.clone();
            let x0: Vec<Vec3> = m.rest.iter().map(|p| p + Vec3::new(0.0, -0.01 * p.x * p.x, 0.002 * p.y)).collect();
            let mut sweep = xpbd_cpu::gauss_seidel::GaussSeidel::new(&m, h, 1, xpbd_cpu::gauss_seidel::ScheduleKind::Serial, Default::default());
            group.bench_function(format!("{model}/{order}"), |b| {
                let mut x = x0.clone();
                let mut lambda = vec![0.0; m.rows];
                b.iter(|| {
                    x.copy_from_slice(&x0);
                    lambda.fill(0.0);
                    sweep.iterate(&m, &mut x, &x_prev, &mut lambda, h);
                })
            });
        }
        if model == "neohookean_block" {
            // The colored sweep on one thread: elements of a color in the lanes of the block kernel.
            let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
            let m = &index_order;
            let mut sweep = xpbd_cpu::gauss_seidel::GaussSeidel::new(m, h, 1, xpbd_cpu::gauss_seidel::ScheduleKind::Colored, Default::default());
            let x_prev: Vec<Vec3> = m.rest.clone();
            let x0: Vec<Vec3> = m.rest.iter().map(|p| p + Vec3::new(0.0, -0.01 * p.x * p.x, 0.002 * p.y)).collect();
            group.bench_function(format!("{model}/colored_lanes_1_thread"), |b| {
                let mut x = x0.clone();
                let mut lambda = vec![0.0; m.rows];
                b.iter(|| {
                    x.copy_from_slice(&x0);
                    pool.install(|| {
                        sweep.reset(&mut lambda);
                        sweep.iterate(m, &mut x, &x_prev, &mut lambda, h)
                    });
                })
            });
        }
    }
    group.finish();
}

/// The same model with its tets permuted into smallest-last greedy color order: consecutive elements share no
/// vertex, so the processor can overlap their projections instead of waiting on the previous stores.
fn in_color_order(mut m: xpbd_core::model::Model) -> xpbd_core::model::Model {
    let g = &mut m.tet_groups[0];
    let c = xpbd_core::graph::partition::partitions(&g.tets, m.rest.len(), 1).colored.clone();
    g.tets = c.classes.members.iter().map(|&e| g.tets[e as usize]).collect();
    g.rest = c.classes.members.iter().map(|&e| g.rest[e as usize]).collect();
    m
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = projection
}
criterion_main!(benches);
