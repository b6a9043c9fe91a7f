//! The measures of a frame's end state that `summary.json` reports as `final` and the health checks read
//! (docs/output-format.md).

use serde::Serialize;

#[derive(Clone, Debug, Default, Serialize)]
pub struct FinalState {
    pub relative_residual: f64,
    pub residual: f64,
    pub elastic_energy: f64,
    pub kinetic_energy: f64,
    pub min_volume_ratio: f64,
    pub inverted_elements: usize,
    /// Scenes with cloth only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_edge_strain: Option<f64>,
    pub nan: bool,
}
