//! The model in the flat arrays the kernels read (`kernels/sweeps.cu`, `kernels/boundary.cu`), built on the
//! host once per model and uploaded once. Pure host code: it is unit-tested without a GPU.
//!
//! Gauss-Seidel schedules are the CPU backend's own (`xpbd_core::graph::schedule::Schedule` from the cached
//! partitions of `xpbd_core::graph::partition`), flattened into CSR arrays: the items of batch (color) `b` are
//! `batch_start[b]..batch_start[b+1]`, the elements of item `i` are `item_start[i]..item_start[i+1]`. Element data
//! is permuted into execution order, so an item's elements are contiguous; `lambda_of` maps the device's
//! multipliers back to model order.

use nalgebra::Rotation3;
use xpbd_core::collider::{Collider, Shape};
use xpbd_core::constraint::mass_split::MassSplit;
use xpbd_core::constraint::tet_model::TetModel;
use xpbd_core::graph::groups::Groups;
use xpbd_core::graph::partition::partitions;
use xpbd_core::graph::schedule::Schedule;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

use crate::boundary::soft_attachments_distinct;
use crate::convert::narrow;
use crate::error::{CudaError, Result};
use xpbd_core::solver_config::{Ordering, SolverConfig};

/// The element kinds of `kernels/sweeps.cu`: tets of one model, cloth edges (distance), cloth hinges (bending).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ElementKind {
    Tet(TetModel),
    Distance,
    Bending,
}

impl ElementKind {
    /// The kernels' suffix (`project_items_<suffix>` etc.).
    pub fn kernel_suffix(self) -> &'static str {
        match self {
            ElementKind::Tet(TetModel::NeoHookeanBlock) => "neohookean_block",
            ElementKind::Tet(TetModel::NeoHookean) => "neohookean",
            ElementKind::Tet(TetModel::StVK) => "stvk",
            ElementKind::Tet(TetModel::Arap) => "arap",
            ElementKind::Tet(TetModel::Corotational) => unreachable!("SolverConfig::requirements refuses corotational outside the implicit solvers"),
            ElementKind::Distance => "distance",
            ElementKind::Bending => "bending",
        }
    }

    /// Vertices per element.
    pub fn vertices(self) -> usize {
        match self {
            ElementKind::Distance => 2,
            _ => 4,
        }
    }

    /// Multipliers per element.
    pub fn rows(self) -> usize {
        match self {
            ElementKind::Tet(m) => m.rows(),
            _ => 1,
        }
    }
}

/// Most colliders the contact kernels handle (one bit each in a `u32` per surface vertex).
pub const MAX_COLLIDERS: usize = 32;

/// Scalars per collider in the contact kernels' table (`kernels/boundary.cu`): kind (0 plane, 1 sphere, 2 box,
/// 3 cylinder), a (3), b (3), r, μ_s, μ_k, restitution; plane: a = point, b = normal; sphere: a = center, r =
/// radius; box: a = min, b = max; cylinder: a = point, b = axis, r = radius.
pub const COLLIDER_STRIDE: usize = 11;

/// The colliders as the contact kernels' flat table; [`check_supported`] has refused any collider without a row.
pub fn collider_table(model: &Model) -> Vec<f64> {
    model.colliders.iter().flat_map(|c| kernel_row(c).expect("check_supported refuses colliders the kernels do not handle")).collect()
}

/// A collider as its row of the contact kernels' table, or why the kernels cannot handle it: they know
/// planes, spheres, axis-aligned boxes and cylinders at rest.
fn kernel_row(c: &Collider) -> std::result::Result<[f64; COLLIDER_STRIDE], &'static str> {
    if !c.motion.is_static() {
        return Err("moving colliders (velocity, angular_velocity, path) have no GPU path yet");
    }
    let zero = Vec3::zeros();
    let (kind, a, b, r) = match &c.shape {
        Shape::Plane { point, normal } => (0.0, *point, *normal, 0.0),
        Shape::Sphere { center, radius } => (1.0, *center, zero, *radius),
        Shape::Box { center, half_extents, rotation } if *rotation == Rotation3::identity() => (2.0, center - half_extents, center + half_extents, 0.0),
        Shape::Box { .. } => return Err("rotated box colliders have no GPU path yet"),
        Shape::Cylinder { point, axis, radius } => (3.0, *point, *axis, *radius),
        Shape::Capsule { .. } => return Err("capsule colliders have no GPU path yet"),
        Shape::Mesh(_) => return Err("mesh colliders have no GPU path yet"),
    };
    Ok([kind, a.x, a.y, a.z, b.x, b.y, b.z, r, c.friction.mu_s, c.friction.mu_k, c.restitution])
}

/// Why a frame with contact between or within bodies cannot be a CUDA graph: its rows are detected on the host.
pub const NO_GRAPH_WITH_PAIRS: &str = "XPBD_CUDA_GRAPH=1: contact between or within bodies is detected on the host every substep, which a captured graph cannot do; set [contact] bodies = false and self = false, or use plain launches";

/// Why the XPBD kernels cannot run `model` under the XPBD `config`, or `Ok` when they can (asked through
/// `CudaBackend::supports`). Everything they do not cover is named here, so that nothing runs silently wrong.
pub fn check_supported(model: &Model, config: &SolverConfig) -> Result<()> {
    match config.method.ordering() {
        None => return Err(CudaError::Unsupported(format!("solver.kind = \"{}\" is not xpbd", config.method.kind()))),
        Some(Ordering::Serial) => {
            return Err(CudaError::Unsupported(
                "solver.ordering = \"serial\" has no GPU path (it is one thread); colored, clustered and jacobi have one".into(),
            ))
        }
        Some(_) => {}
    }
    if model.colliders.len() > MAX_COLLIDERS {
        return Err(CudaError::Unsupported(format!("{} colliders: the GPU path handles at most {MAX_COLLIDERS}", model.colliders.len())));
    }
    for (i, c) in model.colliders.iter().enumerate() {
        kernel_row(c).map_err(|why| CudaError::Unsupported(format!("collider[{i}]: {why}")))?;
    }
    soft_attachments_distinct(model)?;
    if let Some(g) = model.cloth_groups.iter().find(|g| g.strain_limit.is_some()) {
        return Err(CudaError::Unsupported(format!(
            "body '{}': material.strain_min/strain_max have no GPU path (the CPU Gauss-Seidel sweeps project them)",
            model.bodies[g.body].name
        )));
    }
    if let Some(g) = model.cloth_groups.iter().find(|g| g.pbd.is_some()) {
        return Err(CudaError::Unsupported(format!(
            "body '{}': material.pbd_stretch/pbd_bending (the PBD baseline) have no GPU path (the CPU sweeps project them)",
            model.bodies[g.body].name
        )));
    }
    let slots = 4 * model.tet_groups.iter().map(|g| g.tets.len()).sum::<usize>()
        + model.cloth_groups.iter().map(|g| 2 * g.edges.len() + 4 * g.hinges.len()).sum::<usize>();
    if u32::try_from(3 * model.vertex_count().max(slots)).is_err() || u32::try_from(model.rows).is_err() {
        return Err(CudaError::Unsupported(format!("{} vertices, {} rows: the kernels index with 32-bit counts", model.vertex_count(), model.rows)));
    }
    Ok(())
}

/// One element family in device layout (a tet group, a cloth's edges, a cloth's hinges), elements in execution
/// order.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    pub kind: ElementKind,
    /// The kernels' material constants: tets (μ, λ) constraint Lamé parameters; cloth (0, 0) (its compliance is data1).
    pub c0: f64,
    pub c1: f64,
    /// XPBD damping β (s).
    pub damping: f64,
    /// `kind.vertices()` vertex indices per element.
    pub idx: Vec<u32>,
    /// Per-element data: tets D_m⁻¹ row-major (9) and rest volume (1); cloth the rest length or angle (1) and the
    /// compliance (1; per hinge under `bending_stiffness`).
    pub data0: Vec<f64>,
    pub data1: Vec<f64>,
    /// The family's first multiplier (same offset on the device and in the model; rows are permuted within).
    pub lambda_offset: usize,
    /// Gauss-Seidel batches (colors): items `batch_start[b]..batch_start[b+1]`; empty for Jacobi.
    pub batch_start: Vec<u32>,
    /// Elements of item i: `item_start[i]..item_start[i+1]`; empty for Jacobi.
    pub item_start: Vec<u32>,
}

impl Family {
    pub fn elements(&self) -> usize {
        self.idx.len() / self.kind.vertices()
    }
    pub fn rows(&self) -> usize {
        self.kind.rows()
    }
    pub fn batches(&self) -> usize {
        self.batch_start.len().saturating_sub(1)
    }
    /// (first item, item count) of batch `b`.
    pub fn batch(&self, b: usize) -> (u32, u32) {
        (self.batch_start[b], self.batch_start[b + 1] - self.batch_start[b])
    }
}

/// The Jacobi pass's slots, per-vertex adjacency and mass splitting (as the CPU backend's `jacobi.rs`): the families'
/// vertex slots one after the other, N per element; the slots of vertex v are `adj[start[v]..start[v+1]]`, and its
/// n_v constraints each see the inverse mass n_v w_v.
#[derive(Clone, Debug, PartialEq)]
pub struct JacobiLayout {
    /// n_v w_v per vertex.
    pub split_inv_mass: Vec<f64>,
    /// 1 / n_v per vertex (0 where no constraint touches it).
    pub inv_count: Vec<f64>,
    /// Per family: its first slot.
    pub family_start: Vec<usize>,
    pub start: Vec<u32>,
    pub adj: Vec<u32>,
    /// ω: x += ω Σ Δx / n_v.
    pub relaxation: f64,
}

impl JacobiLayout {
    fn new(families: &[Family], inv_mass: &[f64], relaxation: f64) -> Self {
        let owners: Vec<u32> = families.iter().flat_map(|f| f.idx.iter().copied()).collect();
        let slots = Groups::from_labels(&owners, inv_mass.len());
        let MassSplit { split_inv_mass, inv_count } = MassSplit::new(&slots, inv_mass);
        let family_start = families.iter().scan(0, |slot, f| Some(std::mem::replace(slot, *slot + f.idx.len()))).collect();
        JacobiLayout { split_inv_mass, inv_count, family_start, start: narrow(&slots.offsets), adj: slots.members, relaxation }
    }
}

/// Everything the kernels read about the elastic constraints.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub families: Vec<Family>,
    /// `lambda_of[i]`: the model-order multiplier of device multiplier `i`.
    pub lambda_of: Vec<u32>,
    /// Present for `ordering = "jacobi"`.
    pub jacobi: Option<JacobiLayout>,
}

impl Layout {
    /// The layout of a model and an XPBD configuration that [`check_supported`] accepts.
    pub fn new(model: &Model, config: &SolverConfig) -> Result<Self> {
        check_supported(model, config)?;
        let ordering = config.method.ordering().ok_or_else(|| CudaError::Unsupported("the XPBD layout needs an XPBD ordering".into()))?;
        let mut lambda_of: Vec<u32> = (0..model.rows as u32).collect();
        let mut families = Vec::new();
        for g in &model.tet_groups {
            let (c0, c1) = (g.lame.mu, g.lame.lambda);
            let mut f = Family::new(ElementKind::Tet(g.model), c0, c1, g.damping, g.lambda_offset);
            let order = f.schedule(model, ordering, &g.tets);
            f.idx = order.iter().flat_map(|&e| g.tets[e as usize]).collect();
            f.data0 = order.iter().flat_map(|&e| row_major(&g.rest[e as usize].dm_inv)).collect();
            f.data1 = order.iter().map(|&e| g.rest[e as usize].volume).collect();
            f.permute_multipliers(&order, &mut lambda_of);
            families.push(f);
        }
        for g in &model.cloth_groups {
            let mut f = Family::new(ElementKind::Distance, 0.0, 0.0, g.damping, g.lambda_offset);
            let order = f.schedule(model, ordering, &g.edges);
            f.idx = order.iter().flat_map(|&e| g.edges[e as usize]).collect();
            f.data0 = order.iter().map(|&e| g.rest_length[e as usize]).collect();
            f.data1 = vec![g.stretch_compliance; order.len()];
            f.permute_multipliers(&order, &mut lambda_of);
            families.push(f);
            let mut f = Family::new(ElementKind::Bending, 0.0, 0.0, g.damping, g.lambda_offset + g.edges.len());
            let order = f.schedule(model, ordering, &g.hinges);
            f.idx = order.iter().flat_map(|&e| g.hinges[e as usize]).collect();
            f.data0 = order.iter().map(|&e| g.rest_angle[e as usize]).collect();
            f.data1 = order.iter().map(|&e| g.bending_compliance[e as usize]).collect();
            f.permute_multipliers(&order, &mut lambda_of);
            families.push(f);
        }
        let jacobi = match ordering {
            Ordering::Jacobi { relaxation } => Some(JacobiLayout::new(&families, &model.inv_mass, relaxation)),
            _ => None,
        };
        Ok(Layout { families, lambda_of, jacobi })
    }

    /// Sequential batches (colors) per sweep over all families; `None` for Jacobi.
    pub fn colors(&self) -> Option<usize> {
        self.jacobi.is_none().then(|| self.families.iter().map(Family::batches).sum())
    }

    /// Device multipliers (execution order) into model order.
    pub fn export_multipliers(&self, device: &[f64], model_order: &mut [f64]) {
        for (&l, &i) in device.iter().zip(&self.lambda_of) {
            model_order[i as usize] = l;
        }
    }
}

impl Family {
    fn new(kind: ElementKind, c0: f64, c1: f64, damping: f64, lambda_offset: usize) -> Self {
        Family { kind, c0, c1, damping, idx: Vec::new(), data0: Vec::new(), data1: Vec::new(), lambda_offset, batch_start: Vec::new(), item_start: Vec::new() }
    }

    /// Sets the family's schedule for `elements` of `model` in `ordering` (the CPU backend's partitions); returns the
    /// execution order (model element indices).
    fn schedule<const N: usize>(&mut self, model: &Model, ordering: Ordering, elements: &[[u32; N]]) -> Vec<u32> {
        let n = model.vertex_count();
        let schedule = match ordering {
            Ordering::Colored => Schedule::colored(&partitions(elements, n, 1).colored),
            Ordering::Clustered { cluster_size } => {
                let p = partitions(elements, n, cluster_size);
                Schedule::clustered(&p.clustering, &p.cluster_colors)
            }
            Ordering::Jacobi { .. } => return (0..elements.len() as u32).collect(),
            Ordering::Serial => unreachable!("rejected by check_supported"),
        };
        let order;
        (order, self.batch_start, self.item_start) = flatten(&schedule);
        order
    }

    /// `lambda_of` for this family's rows after permuting its elements into `order`.
    fn permute_multipliers(&self, order: &[u32], lambda_of: &mut [u32]) {
        let rows = self.rows();
        for (new, &old) in order.iter().enumerate() {
            for k in 0..rows {
                lambda_of[self.lambda_offset + new * rows + k] = (self.lambda_offset + old as usize * rows + k) as u32;
            }
        }
    }
}

/// A schedule as (execution order, batch_start, item_start).
fn flatten(s: &Schedule) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    (s.execution_order(), narrow(s.batch_starts()), narrow(&s.items().offsets))
}

fn row_major(m: &nalgebra::Matrix3<f64>) -> [f64; 9] {
    [m[(0, 0)], m[(0, 1)], m[(0, 2)], m[(1, 0)], m[(1, 1)], m[(1, 2)], m[(2, 0)], m[(2, 1)], m[(2, 2)]]
}

#[cfg(test)]
#[path = "layout_tests.rs"]
mod tests;
