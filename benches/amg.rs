//! The AMG-PCG kernels (issue 4) side by side on one matrix: SpMV, one sweep of each smoother,
//! one V-cycle per smoother, the full AMG setup, the lazy refresh, and one PCG iteration's worth
//! of work for CG. Matrices: 3-D Poisson 40³ (64,000 rows) and the stiff (k = 1e9) dual system of
//! a 120 × 120 cloth (42,841 rows), both from `xpbd_core::amg::model_problems`.
//!
//! Run: `cargo bench -p xpbd-benches --bench amg`; results in docs/amg.md.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use xpbd_core::amg::model_problems::{cloth_dual, poisson};
use xpbd_core::amg::smoothers::Relaxation;
use xpbd_core::amg::{AmgOptions, Hierarchy, Smoother};
use xpbd_core::sparse::{spmv, Csr};

fn kernels(c: &mut Criterion) {
    for (name, a) in [("poisson_40^3", poisson(&[40, 40, 40])), ("cloth_120_k1e9", cloth_dual(120, 1e9))] {
        bench_matrix(c, name, &a);
    }
}

fn bench_matrix(c: &mut Criterion, name: &str, a: &Csr) {
    let n = a.rows();
    let b: Vec<f64> = (0..n).map(|i| ((i * 7919) % 101) as f64 / 50.0 - 1.0).collect();
    let mut x = vec![0.0; n];
    let mut group = c.benchmark_group(format!("amg_{name}"));
    group.sample_size(20);
    group.throughput(Throughput::Elements(a.nnz() as u64));
    group.bench_function("spmv", |bch| bch.iter(|| spmv(a, &b, &mut x)));
    for smoother in [Smoother::Jacobi, Smoother::Chebyshev, Smoother::Gs] {
        let mut relax = Relaxation::new(a, smoother);
        group.bench_function(format!("sweep_{smoother:?}"), |bch| bch.iter(|| relax.sweep(a, &b, &mut x, true)));
        let options = AmgOptions { smoother, ..Default::default() };
        let mut h = Hierarchy::new(a, &options);
        group.bench_function(format!("vcycle_{smoother:?}"), |bch| {
            bch.iter(|| {
                x.fill(0.0);
                h.vcycle(a, &b, &mut x)
            })
        });
    }
    let options = AmgOptions::default();
    group.bench_function("setup_full", |bch| bch.iter(|| Hierarchy::new(a, &options)));
    let mut h = Hierarchy::new(a, &options);
    group.bench_function("setup_refresh", |bch| bch.iter(|| h.refresh(a)));
    group.finish();
}

criterion_group!(benches, kernels);
criterion_main!(benches);
