//! One frame (10 substeps, 1 iteration) of the CPU backend on a 6,400-tet pinned box, for each
//! ordering side by side: the whole substep loop (prediction, the constraint sweep, velocity update)
//! that `xpbd run` repeats, on the global rayon pool.
//!
//! Run: `cargo bench -p xpbd-benches --bench frame`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;

fn scene(ordering: &str) -> String {
    format!(
        r#"name = "bench"
[simulation]
substeps = 10
[solver]
ordering = "{ordering}"
[[body]]
name = "box"
mesh = {{ generator = "box", size = [4.0, 1.0, 1.0], cells = [32, 8, 5], split = 5 }}
material = {{ model = "neohookean_block", youngs = 1.0e6, poisson = 0.45, density = 1000.0 }}
pin = [{{ box = {{ min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] }} }}]
"#
    )
}

fn frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("frame_6400_tets");
    group.sample_size(10);
    for ordering in ["serial", "colored", "clustered", "jacobi"] {
        let built = build(&parse(&scene(ordering), Path::new("bench.toml")).unwrap(), Path::new(".")).unwrap();
        let m = built.model;
        group.throughput(Throughput::Elements(m.element_count() as u64));
        let mut backend = xpbd_cpu::CpuBackend::new(&m, &built.config);
        let mut s = State::initial(&m);
        // Start from a sagging state rather than rest, so every projection does real work.
        for _ in 0..5 {
            backend.step_frame(&m, &mut s).unwrap();
        }
        group.bench_function(ordering, |b| b.iter(|| backend.step_frame(&m, &mut s).unwrap()));
    }
    group.finish();
}

criterion_group!(benches, frame);
criterion_main!(benches);
