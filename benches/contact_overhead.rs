//! What contact costs when nothing touches: frames of the Table 2 56k-tet beam (4 × 0.71 × 1.43 m, cells
//! 56 × 10 × 20 split in five, clamped at x = 0, block neo-Hookean, Table 2's 50 substeps of 1 iteration per
//! 10 ms; with 10 substeps this beam is unstable and flails at tens of m/s) with contact
//! on (self contact: detection every substep, no row ever pushes) and off, timed alternately in one run, and
//! their ratio. The issue's bound is 1.25.
//!
//! Run: `RAYON_NUM_THREADS=1 cargo bench -p xpbd-benches --bench contact_overhead` (one thread; drop the
//! variable for all cores). Prints the median ms per frame of each and the ratio on / off, and the contact work
//! timed inside the frame (detection and projection, per frame, warm-up included).

use std::path::Path;
use std::time::Instant;
use xpbd_core::backend::Backend;
use xpbd_core::scene::{build, parse};
use xpbd_core::state::State;

fn scene(self_contact: bool, ordering: &str) -> String {
    format!(
        r#"name = "beam56k"
[simulation]
dt = 0.01
substeps = 50
iterations = 1
[solver]
ordering = "{ordering}"
[contact]
self = {self_contact}
[[body]]
name = "beam"
mesh = {{ generator = "box", size = [4.0, 0.7142857142857143, 1.4285714285714286], cells = [56, 10, 20], split = 5 }}
material = {{ model = "neohookean_block", youngs = 1.0e7, poisson = 0.45, density = 1000.0 }}
pin = [{{ box = {{ min = [-0.01, -10.0, -10.0], max = [0.01, 10.0, 10.0] }} }}]
"#
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds = 7;
    for ordering in ["serial", "clustered"] {
        let mut runs = [true, false].map(|on| {
            let built = build(&parse(&scene(on, ordering), Path::new("beam56k.toml")).unwrap(), Path::new(".")).unwrap();
            let backend = xpbd_cpu::CpuBackend::new(&built.model, &built.config);
            let state = State::initial(&built.model);
            (built.model, backend, state, Vec::new(), 0usize)
        });
        for round in 0..rounds + 1 {
            for (model, backend, state, times, contacts) in runs.iter_mut() {
                let t = Instant::now();
                let stats = backend.step_frame(model, state).unwrap();
                // The first frame of each is a warm-up.
                if round > 0 {
                    times.push(t.elapsed().as_secs_f64() * 1e3);
                }
                *contacts += stats.contacts;
            }
        }
        let [on, off] = runs.map(|(model, backend, _, times, contacts)| {
            let set = backend.contacts();
            let work = (set.detect_seconds + set.project_seconds) * 1e3 / (rounds + 1) as f64;
            (median(times), contacts, model.element_count(), model.contact.summary(), set.detector.broad_phases, set.detector.broad_phase_seconds, work)
        });
        println!(
            "beam {} tets, {ordering}, {} rayon threads: contact on {:.2} ms/frame ({} surface triangles, {} rows pushed, {} broad phases of {:.1} ms, contact work {:.1} ms/frame), off {:.2} ms/frame; on/off = {:.3}",
            on.2,
            rayon::current_num_threads(),
            on.0,
            on.3.surface_triangles,
            on.1,
            on.4,
            on.5 * 1e3 / on.4.max(1) as f64,
            on.6,
            off.0,
            on.0 / off.0
        );
    }
}
