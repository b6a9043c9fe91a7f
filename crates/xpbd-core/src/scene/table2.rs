//! The scenes of the block neo-Hookean paper's Table 2 and how they are timed: one elastic body
//! (ν = 0.45, ρ = 1000 kg/m³), Δt = 10 ms, one iteration per substep, clusters of K_s = 5, in four
//! variants ([`VARIANTS`]). `benches/table2.rs` runs them on the CPU, `xpbd-cuda`'s `table2_gpu`
//! example on the GPU and the CPU side by side.

use super::{build, parse, Built};
use crate::backend::Backend;
use crate::model::Model;
use crate::state::State;
use std::path::Path;

/// One variant of Table 2: the constraint model and the element ordering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// The paper's column name.
    pub label: &'static str,
    pub material: &'static str,
    pub ordering: &'static str,
}

/// Baseline: decoupled neo-Hookean, colored (Algorithm 2); C: decoupled, clustered (Algorithms 3–4);
/// B: block neo-Hookean, colored; B+C: block, clustered.
pub const VARIANTS: [Variant; 4] = [
    Variant { label: "baseline", material: "neohookean", ordering: "colored" },
    Variant { label: "C", material: "neohookean", ordering: "clustered" },
    Variant { label: "B", material: "neohookean_block", ordering: "colored" },
    Variant { label: "B+C", material: "neohookean_block", ordering: "clustered" },
];

impl Variant {
    /// The paper's substeps per 10 ms step: 250 for the decoupled constraints and 50 for the block
    /// ones; 200 and 30 on the 3.7k-tet beam.
    pub fn substeps(&self, beam: bool) -> usize {
        match (self.material == "neohookean_block", beam) {
            (false, false) => 250,
            (false, true) => 200,
            (true, false) => 50,
            (true, true) => 30,
        }
    }
}

/// The body of a Table 2 scene; `mesh` and `pin` are TOML inline tables (a body's `mesh` and one
/// entry of its `pin` list).
#[derive(Clone, Debug)]
pub struct Body {
    pub name: String,
    pub mesh: String,
    pub youngs: f64,
    pub pin: String,
}

/// The Table 2 scene of `body` with the constraint `material`, the element `ordering` and
/// `substeps` per time step.
pub fn model(body: &Body, material: &str, ordering: &str, substeps: usize) -> crate::Result<Built> {
    let text = format!(
        r#"name = "table2"
[simulation]
dt = 0.01
substeps = {substeps}
iterations = 1
[solver]
ordering = "{ordering}"
cluster_size = 5
[contact]
self = false
[[body]]
name = "{}"
mesh = {}
material = {{ model = "{material}", youngs = {:e}, poisson = 0.45, density = 1000.0 }}
pin = [{}]
"#,
        body.name, body.mesh, body.youngs, body.pin
    );
    build(&parse(&text, Path::new("table2.toml"))?, Path::new("."))
}

/// The GPU Table 2's box meshes (`crates/xpbd-cuda/examples/table2_gpu.rs`): (label, box cells), 5 tets per cell.
pub const GPU_MESHES: [(&str, [usize; 3]); 4] = [("3.7k", [30, 5, 5]), ("20k", [40, 10, 10]), ("56k", [56, 10, 20]), ("160k", [80, 20, 20])];

/// The body of a GPU Table 2 scene: a box 4 m long with `cells`, E = 1e7 Pa, clamped at x = 0.
pub fn gpu_box(cells: [usize; 3]) -> Body {
    let size = [4.0, 4.0 * cells[1] as f64 / cells[0] as f64, 4.0 * cells[2] as f64 / cells[0] as f64];
    Body {
        name: "beam".into(),
        mesh: format!(
            r#"{{ generator = "box", size = [{}, {}, {}], cells = [{}, {}, {}], split = 5 }}"#,
            size[0], size[1], size[2], cells[0], cells[1], cells[2]
        ),
        youngs: 1e7,
        pin: "{ box = { min = [-0.01, -10.0, -10.0], max = [0.01, 10.0, 10.0] } }".into(),
    }
}

/// Mean solver milliseconds per time step (the backend's `solve_seconds`) over `steps` steps after
/// one warm-up step; `Err` if the scene blew up.
pub fn ms_per_step(model: &Model, backend: &mut dyn Backend, steps: usize) -> Result<f64, String> {
    let mut state = State::initial(model);
    backend.step_frame(model, &mut state).map_err(|e| e.to_string())?;
    let mut secs = 0.0;
    for _ in 0..steps {
        secs += backend.step_frame(model, &mut state).map_err(|e| e.to_string())?.solve_seconds;
    }
    if let Some(v) = state.first_non_finite() {
        return Err(format!("vertex {v} is not finite: the benchmark scene blew up"));
    }
    Ok(secs * 1e3 / steps as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variants_build_with_the_papers_settings() {
        let body = Body {
            name: "beam".into(),
            mesh: r#"{ generator = "box", size = [4.0, 1.0, 1.0], cells = [6, 1, 1], split = 5 }"#.into(),
            youngs: 1e7,
            pin: "{ indices = [0, 1, 2] }".into(),
        };
        for v in VARIANTS {
            let b = model(&body, v.material, v.ordering, v.substeps(true)).unwrap();
            assert_eq!(b.model.element_count(), 30);
            let s = &b.config;
            assert_eq!((s.dt, s.substeps, s.iterations), (0.01, v.substeps(true), 1));
            let ordering = s.method.ordering().unwrap();
            assert_eq!(ordering.name(), v.ordering);
            assert!(v.ordering != "clustered" || ordering == crate::solver_config::Ordering::Clustered { cluster_size: 5 });
        }
        assert_eq!(VARIANTS.map(|v| v.substeps(false)), [250, 250, 50, 50]);
    }
}
