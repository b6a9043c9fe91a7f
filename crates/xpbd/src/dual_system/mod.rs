//! MGPBD's dual system at a scene's state (`xpbd export-system`, docs/output-format.md): the scene runs on
//! the CPU with its own solver up to frame F; then frame F+1's first substep is predicted, λ = 0,
//! and its first outer iteration's `A = J M⁻¹ Jᵀ + α̃` and `b = −(C(x̃) + α̃λ) = −C(x̃)` are assembled
//! (A only on request: with ARAP component rows it has ~540 nonzeros per row). Its files are
//! written and read in `files`.

mod files;

pub use files::Parts;

use crate::converge::{loaded, run_up, RunUp};
use crate::device::Device;
use crate::simulation::Simulation;
use serde::Serialize;
use std::path::Path;
use xpbd_core::mgpbd::assemble;
use xpbd_core::mgpbd::assembly::Pattern;
use xpbd_core::mgpbd::rows::{ArapShape, Rows};
use xpbd_core::sparse::Csr;
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
    /// Nonzeros of A; `None` when A was not assembled.
    pub nonzeros: Option<usize>,
    pub vertices: usize,
    pub free_vertices: usize,
    /// Rows per kind (arap, hydrostatic, deviatoric, edge, hinge).
    pub row_kinds: std::collections::BTreeMap<String, usize>,
    /// Per tet group (a body, or each material region of one) and per cloth body: its material model and stiffness.
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
    /// Cloth compliances (m/N; 1/(N·m) as [min, max] over the hinges, which differ under `bending_stiffness`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stretch_compliance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bending_compliance: Option<[f64; 2]>,
}

/// A's factors, `A = J W Jᵀ + α̃` with W = M⁻¹: from them the primal solve (`primal-amg`) and the
/// matrix-free product work.
pub struct JacobianForm {
    /// J = ∂C/∂x at x̃, rows × 3·vertices (pinned vertices' columns included).
    pub j: Csr,
    /// W's diagonal, one entry per vertex.
    pub inv_mass: Vec<f64>,
    pub alpha_tilde: Vec<f64>,
}

/// The system `A Δλ = b` of one outer iteration. Assembled from a scene, every part is there but
/// `a` without the matrix; read back, only the parts asked for.
pub struct DualSystem {
    pub a: Option<Csr>,
    pub b: Vec<f64>,
    pub jacobian: Option<JacobianForm>,
    /// x̃, 3·vertices.
    pub x: Option<Vec<f64>>,
}

/// Runs `scene` to `frame` and assembles the next substep's first dual system; A only when `matrix`.
/// `progress` as in [`run_up`] (the scene's warnings come with [`RunUp::Loaded`]).
pub fn dual_system(scene: &Path, frame: usize, matrix: bool, progress: &mut dyn FnMut(RunUp)) -> Result<(DualSystem, SystemInfo)> {
    let mut sim = Simulation::load(scene, Some(Device::Cpu))?;
    let rows = match sim.config.method.mgpbd() {
        Some(settings) => settings.rows(&sim.model),
        None => Rows::new(&sim.model, ArapShape::CONE),
    }
    .map_err(|e| xpbd_core::Error::invalid(format!("{}: {e}", scene.display())))?;
    loaded(&mut sim, frame, progress);
    run_up(&mut sim, frame, progress)?;
    let model = &sim.model;
    let (mut s, h) = (sim.state.clone(), sim.config.h());
    let t_end = s.time + h;
    // The prediction of the XPBD family; an implicit scene's state is predicted the same way.
    let predicting = match sim.config.method {
        xpbd_core::solver_config::Method::Implicit(_) => sim
            .config
            .with_method(xpbd_core::solver_config::Method::Xpbd { ordering: xpbd_core::solver_config::Ordering::Serial, precision: Default::default() }),
        _ => sim.config.clone(),
    };
    CpuBackend::new(model, &predicting).begin_substep(model, &mut s, h, t_end);
    // Multipliers at zero, one per row (ARAP component rows have more rows than the state has multipliers).
    // Without A, an empty pattern: `assemble` then computes b only.
    let pattern = if matrix { Pattern::new(&rows, &model.inv_mass) } else { Pattern::incidence_only(&rows, &model.inv_mass) };
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
            bending_compliance:
                (!g.hinges.is_empty()).then(|| g.bending_compliance.iter().fold([f64::INFINITY, f64::NEG_INFINITY], |[lo, hi], &a| [lo.min(a), hi.max(a)])),
        }))
        .collect();
    let info = SystemInfo {
        scene: sim.scene.name.clone(),
        frame,
        h,
        rows: rows.len(),
        nonzeros: matrix.then(|| a.nnz()),
        vertices: model.vertex_count(),
        free_vertices: model.inv_mass.iter().filter(|&&w| w > 0.0).count(),
        row_kinds: rows.kind_counts().into_iter().map(|(k, n)| (k.name().to_string(), n)).collect(),
        bodies,
        rhs_norm: xpbd_core::sparse::norm(&b),
    };
    let (mut indptr, mut indices, mut data) = (vec![0], Vec::new(), Vec::new());
    for r in 0..rows.len() {
        let (_, g) = rows.evaluate(model, r, &s.x);
        let mut entries: Vec<(usize, f64)> = rows.vertices[r]
            .iter()
            .zip(&g)
            .filter(|(&v, _)| v != xpbd_core::mgpbd::rows::NO_VERTEX)
            .flat_map(|(&v, gv)| (0..3).map(move |d| (3 * v as usize + d, gv[d])))
            .collect();
        entries.sort_by_key(|e| e.0);
        indices.extend(entries.iter().map(|e| e.0));
        data.extend(entries.iter().map(|e| e.1));
        indptr.push(indices.len());
    }
    let jacobian = Csr::new((rows.len(), 3 * model.vertex_count()), indptr, indices, data);
    let jacobian = JacobianForm { j: jacobian, inv_mass: model.inv_mass.clone(), alpha_tilde: xpbd_core::mgpbd::alpha_tilde(&rows, h) };
    let x = s.x.iter().flat_map(|p| [p.x, p.y, p.z]).collect();
    Ok((DualSystem { a: matrix.then_some(a), b, jacobian: Some(jacobian), x: Some(x) }, info))
}
