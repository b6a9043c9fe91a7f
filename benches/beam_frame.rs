//! One frame (10 substeps × 1 iteration) of the CPU backend on one thread, on the 56,250-tet beam of the
//! CPU-speed issue (box 5 × 1.5 × 1.5 m, 50 × 15 × 15 cells, 5 tets per cell, μ = λ = 1e5 Pa, pinned at
//! x = 0; the same scene as `benches/peers/`, where Newton's CPU XPBD runs beside it): every ordering, and
//! for the block kernel's orderings every instruction set this processor has (`XPBD_CPU_ISA`, read when a
//! backend is built).
//!
//! Run: `cargo bench -p xpbd-benches --bench beam_frame`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;

fn scene(ordering: &str) -> String {
    format!(
        r#"name = "beam56k"
[simulation]
substeps = 10
iterations = 1
[solver]
ordering = "{ordering}"
[contact]
self = false
bodies = false
[[body]]
name = "beam"
mesh = {{ generator = "box", size = [5.0, 1.5, 1.5], cells = [50, 15, 15], split = 5 }}
material = {{ model = "neohookean_block", youngs = 2.5e5, poisson = 0.25, density = 1000.0 }}
pin = [{{ box = {{ min = [-0.01, -10.0, -10.0], max = [0.01, 10.0, 10.0] }} }}]
"#
    )
}

fn beam_frame(c: &mut Criterion) {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    let mut group = c.benchmark_group("beam_56k_frame_1_thread");
    group.sample_size(10);
    let isas = xpbd_cpu::Isa::available();
    let runs =
        [("serial", None), ("jacobi", None)].into_iter().chain(["colored", "clustered"].into_iter().flat_map(|o| isas.iter().map(move |i| (o, Some(*i)))));
    for (ordering, isa) in runs {
        // SAFETY (set_var): criterion runs one benchmark at a time; no other thread reads the environment.
        unsafe { std::env::set_var("XPBD_CPU_ISA", isa.map_or("auto", |i| i.name())) };
        let built = build(&parse(&scene(ordering), Path::new("beam56k.toml")).unwrap(), Path::new(".")).unwrap();
        let m = built.model;
        group.throughput(Throughput::Elements(m.element_count() as u64));
        let mut backend = xpbd_cpu::CpuBackend::new(&m, &built.config);
        let mut s = State::initial(&m);
        // Start from a sagging state rather than rest, so every projection does real work.
        pool.install(|| {
            for _ in 0..5 {
                backend.step_frame(&m, &mut s).unwrap();
            }
        });
        let name = isa.map_or(ordering.to_string(), |i| format!("{ordering}/{}", i.name()));
        group.bench_function(name, |b| b.iter(|| pool.install(|| backend.step_frame(&m, &mut s).unwrap())));
    }
    unsafe { std::env::remove_var("XPBD_CPU_ISA") };
    group.finish();
}

criterion_group!(benches, beam_frame);
criterion_main!(benches);
