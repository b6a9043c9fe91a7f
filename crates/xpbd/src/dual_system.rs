//! MGPBD's dual system at a scene's state (`xpbd export-system`, DESIGN.md §5): the scene runs on
//! the CPU with its own solver up to frame F; then frame F+1's first substep is predicted, λ = 0,
//! and its first outer iteration's `A = J M⁻¹ Jᵀ + α̃` and `b = −(C(x̃) + α̃λ) = −C(x̃)` are assembled.

use crate::converge::run_up;
use crate::device::Device;
use crate::simulation::Simulation;
use serde::Serialize;
use std::path::Path;
use xpbd_core::linear::Csr;
use xpbd_core::mgpbd::assemble;
use xpbd_core::mgpbd::assembly::Pattern;
use xpbd_core::mgpbd::rows::Rows;
use xpbd_core::Result;
use xpbd_cpu::CpuBackend;

/// What `system.json` records besides the matrix files.
#[derive(Clone, Debug, Serialize)]
pub struct SystemInfo {
    pub scene: String,
    pub frame: usize,
    /// Substep h (s).
    pub h: f64,
    pub rows: usize,
    pub nonzeros: usize,
    pub vertices: usize,
    pub free_vertices: usize,
    /// Rows per kind (arap, hydrostatic, deviatoric, edge, hinge).
    pub row_kinds: std::collections::BTreeMap<String, usize>,
    /// Per body: its material model and stiffness.
    pub bodies: Vec<BodyStiffness>,
    /// ‖b‖.
    pub rhs_norm: f64,
}

#[derive(Clone, Debug, Serialize)]
pub struct BodyStiffness {
    pub body: String,
    pub model: String,
    /// Constraint Lamé parameters (Pa) for tets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mu: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda: Option<f64>,
    /// Cloth compliances (m/N, 1/(N·m)).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stretch_compliance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bending_compliance: Option<f64>,
}

/// Runs `scene` to `frame` and assembles the next substep's first dual system.
pub fn dual_system(scene: &Path, frame: usize) -> Result<(Csr, Vec<f64>, SystemInfo)> {
    let mut sim = Simulation::load(scene, Some(Device::Cpu))?;
    let rows = Rows::new(&sim.model).map_err(|e| xpbd_core::Error::invalid(format!("{}: {e}", scene.display())))?;
    run_up(&mut sim, frame)?;
    let model = &sim.model;
    let (mut s, h) = (sim.state.clone(), model.h());
    let t_end = s.time + h;
    CpuBackend::new(model).begin_substep(model, &mut s, h, t_end);
    // Multipliers at zero, one per row (ARAP component rows have more rows than the state has multipliers).
    let pattern = Pattern::new(&rows, &model.inv_mass);
    let (a, b) = assemble(model, &rows, &pattern, &s.x, &vec![0.0; rows.len()], h);
    let bodies = model
        .tet_groups
        .iter()
        .map(|g| BodyStiffness {
            body: model.bodies[g.body].name.clone(),
            model: g.model.name().into(),
            mu: Some(g.lame.mu),
            lambda: Some(g.lame.lambda),
            stretch_compliance: None,
            bending_compliance: None,
        })
        .chain(model.cloth_groups.iter().map(|g| BodyStiffness {
            body: model.bodies[g.body].name.clone(),
            model: "cloth".into(),
            mu: None,
            lambda: None,
            stretch_compliance: Some(g.stretch_compliance),
            bending_compliance: Some(g.bending_compliance),
        }))
        .collect();
    let info = SystemInfo {
        scene: sim.scene.name.clone(),
        frame,
        h,
        rows: rows.len(),
        nonzeros: a.nnz(),
        vertices: model.vertex_count(),
        free_vertices: model.inv_mass.iter().filter(|&&w| w > 0.0).count(),
        row_kinds: rows.kind_counts().into_iter().map(|(k, n)| (k.name().to_string(), n)).collect(),
        bodies,
        rhs_norm: xpbd_core::linear::norm(&b),
    };
    Ok((a, b, info))
}
