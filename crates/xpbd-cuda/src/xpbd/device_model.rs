//! The model and state on the device: every array of [`Layout`] and of the model's vertices, pins, soft
//! attachments and colliders, uploaded once, with the kernels that read them.

use std::sync::Arc;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use xpbd_core::contact::detect::Detector;
use xpbd_core::model::Model;

use crate::convert::{flat3, nonempty, to_t};
use crate::error::{CudaError, Result};
use crate::runtime::{GpuContext, KernelScalar};
use crate::xpbd::contact_rows::PairSlots;
use crate::xpbd::layout::{collider_table, Family, Layout};

/// Most blocks of one residual launch: its partial sums are read back per frame.
pub const RESIDUAL_BLOCKS: u32 = 64;

/// Pair-contact slots (and vertex–edge slots) the arrays start with; they grow with the candidates.
pub const PAIR_CAPACITY: usize = 1024;
pub const WEDGE_CAPACITY: usize = 256;

/// One element family on the device, elements in execution order.
pub struct DeviceFamily<T> {
    pub host: Family,
    pub count: u32,
    pub idx: CudaSlice<u32>,
    pub data0: CudaSlice<T>,
    pub data1: CudaSlice<T>,
    pub item_start: CudaSlice<u32>,
    /// The kernels' material constants ([`Family::c0`], [`Family::c1`]).
    pub c0: T,
    pub c1: T,
    pub project_items: CudaFunction,
    pub jacobi: CudaFunction,
    pub residual_sq: CudaFunction,
}

pub struct DeviceJacobi<T> {
    /// n_v w_v and 1 / n_v per vertex (`JacobiLayout`).
    pub split_inv_mass: CudaSlice<T>,
    pub inv_count: CudaSlice<T>,
    pub slots: CudaSlice<T>,
    /// Per family: its first slot.
    pub family_start: Vec<usize>,
    pub start: CudaSlice<u32>,
    pub adj: CudaSlice<u32>,
    pub omega: T,
    pub gather: CudaFunction,
}

/// Hard pins that move (placed each substep) or soft attachments (projected each iteration).
pub struct DeviceAttachments<T> {
    pub count: u32,
    pub vertex: CudaSlice<u32>,
    pub origin: CudaSlice<T>,
    pub velocity: CudaSlice<T>,
    /// Soft attachments only: compliance per attachment and 3 multipliers each.
    pub compliance: CudaSlice<T>,
    pub lambda: CudaSlice<T>,
    pub kernel: CudaFunction,
}

/// The collider contact rows (`kernels/boundary.cu`): one row per (surface vertex, collider) that detection
/// flags in a substep, indexed `s * count + c` for the `s`-th surface vertex and collider `c`.
pub struct DeviceColliders<T> {
    pub count: u32,
    /// [`collider_table`].
    pub table: CudaSlice<T>,
    /// The model's surface vertices (`model.contact.surface.vertices`) and their number.
    pub surface: CudaSlice<u32>,
    pub surface_count: u32,
    /// `model.contact.thickness`: detection's reach beyond the predicted move.
    pub thickness: T,
    /// Per surface vertex, one bit per collider it has a row with in this substep.
    pub rows: CudaSlice<u32>,
    /// Per row: the normal at its last projection (3), λ_n (1) and λ_t (3).
    pub normal: CudaSlice<T>,
    pub lambda_n: CudaSlice<T>,
    pub lambda_t: CudaSlice<T>,
    pub v_before: CudaSlice<T>,
    /// |gravity| for the restitution threshold.
    pub g: T,
    pub detect: CudaFunction,
    pub project: CudaFunction,
    pub restitution: CudaFunction,
}

/// The pair rows (contact between and within bodies): the broad phase's candidates, kept on the host
/// (`xpbd_core::contact::detect::Detector`, rerun only when its Verlet list no longer holds) and uploaded as
/// slots ([`PairSlots`]); each substep `narrow_phase_pairs` decides on the device which slots are rows and with
/// what weights and normals, and `project_pair_rows` projects those. Per slot: 4 vertices, (μ_s, μ_k), the
/// active flag, 4 weights, the normal (3), λ_n and λ_t (3); per vertex–edge slot 6 triangle corners. The
/// arrays hold `capacity` slots and grow when the candidates are more.
pub struct DevicePairs<T> {
    pub detector: Detector,
    /// The slots on the device, as uploaded.
    pub slots: PairSlots,
    /// `detector.broad_phases` when the slots were uploaded.
    uploaded_at: Option<usize>,
    pub count: u32,
    capacity: usize,
    wedge_capacity: usize,
    pub vertices: CudaSlice<u32>,
    pub wedge_triangles: CudaSlice<u32>,
    pub friction: CudaSlice<T>,
    pub active: CudaSlice<u32>,
    pub weights: CudaSlice<T>,
    pub normal: CudaSlice<T>,
    pub lambda_n: CudaSlice<T>,
    pub lambda_t: CudaSlice<T>,
    pub thickness: T,
    pub narrow: CudaFunction,
    pub project: CudaFunction,
}

impl<T: KernelScalar> DevicePairs<T> {
    fn new(gpu: &GpuContext, model: &Model, capacity: usize, wedge_capacity: usize) -> Result<Self> {
        let (s, e) = (gpu.stream(), CudaError::on_gpu("allocating pair rows"));
        Ok(DevicePairs {
            detector: Detector::default(),
            slots: PairSlots::default(),
            uploaded_at: None,
            count: 0,
            capacity,
            wedge_capacity,
            vertices: s.alloc_zeros(4 * capacity).map_err(&e)?,
            wedge_triangles: s.alloc_zeros(6 * wedge_capacity).map_err(&e)?,
            friction: s.alloc_zeros(2 * capacity).map_err(&e)?,
            active: s.alloc_zeros(capacity).map_err(&e)?,
            weights: s.alloc_zeros(4 * capacity).map_err(&e)?,
            normal: s.alloc_zeros(3 * capacity).map_err(&e)?,
            lambda_n: s.alloc_zeros(capacity).map_err(&e)?,
            lambda_t: s.alloc_zeros(3 * capacity).map_err(&e)?,
            thickness: T::from_f64(model.contact.thickness),
            narrow: gpu.function::<T>("boundary", "narrow_phase_pairs")?,
            project: gpu.function::<T>("boundary", "project_pair_rows")?,
        })
    }

    /// Uploads the detector's candidates as slots when its broad phase has run since the last upload, growing
    /// the arrays when needed.
    pub fn upload(&mut self, gpu: &GpuContext, model: &Model) -> Result<()> {
        if self.uploaded_at == Some(self.detector.broad_phases) {
            return Ok(());
        }
        let slots = PairSlots::of(&model.contact, &self.detector);
        let (n, wedges) = (slots.len(), slots.counts[2] as usize);
        if n > self.capacity || wedges > self.wedge_capacity {
            *self = DevicePairs {
                detector: std::mem::take(&mut self.detector),
                ..Self::new(gpu, model, n.max(2 * self.capacity), wedges.max(2 * self.wedge_capacity))?
            };
        }
        self.count = u32::try_from(n).map_err(|_| CudaError::Unsupported(format!("{n} pair candidates: the kernels index with 32-bit counts")))?;
        self.uploaded_at = Some(self.detector.broad_phases);
        if n > 0 {
            let (s, e) = (gpu.stream(), CudaError::on_gpu("uploading pair candidates"));
            let friction: Vec<T> = slots.friction.iter().flat_map(|f| [f.mu_s, f.mu_k]).map(T::from_f64).collect();
            s.memcpy_htod(&slots.vertices, &mut self.vertices.slice_mut(0..4 * n)).map_err(&e)?;
            s.memcpy_htod(&friction, &mut self.friction.slice_mut(0..2 * n)).map_err(&e)?;
            if wedges > 0 {
                s.memcpy_htod(&slots.wedge_triangles, &mut self.wedge_triangles.slice_mut(0..6 * wedges)).map_err(&e)?;
            }
            // The host vectors are dropped on return: wait for the copies.
            s.synchronize().map_err(&e)?;
        }
        self.slots = slots;
        Ok(())
    }
}

/// Everything the substep loop touches on the device.
pub struct DeviceModel<T> {
    pub n: u32,
    pub x: CudaSlice<T>,
    pub v: CudaSlice<T>,
    pub x_prev: CudaSlice<T>,
    pub inv_mass: CudaSlice<T>,
    pub lambda: CudaSlice<T>,
    pub families: Vec<DeviceFamily<T>>,
    pub jacobi: Option<DeviceJacobi<T>>,
    pub pins: Option<DeviceAttachments<T>>,
    pub soft: Option<DeviceAttachments<T>>,
    pub colliders: Option<DeviceColliders<T>>,
    /// Present when the model has contact between or within bodies (`ContactModel::has_pairs`).
    pub pairs: Option<DevicePairs<T>>,
    /// End time of each substep of the frame, written by the host before each frame.
    pub times: CudaSlice<T>,
    /// Residual partial sums: `RESIDUAL_BLOCKS` per family for r₀, then as many for r.
    pub partials: CudaSlice<T>,
    pub predict: CudaFunction,
    pub update_velocity: CudaFunction,
}

impl<T> DeviceModel<T> {
    /// The bytes allocated, by the families of [`Footprint`](crate::xpbd::footprint::Footprint), read from the
    /// arrays themselves (what the footprint is tested against on a GPU).
    pub fn allocated(&self) -> Vec<(&'static str, usize)> {
        let b = |s: &CudaSlice<T>| s.num_bytes();
        let u = |s: &CudaSlice<u32>| s.num_bytes();
        let mut out = vec![("state", b(&self.x) + b(&self.v) + b(&self.x_prev) + b(&self.inv_mass) + b(&self.lambda) + b(&self.times) + b(&self.partials))];
        out.push(("elements", self.families.iter().map(|f| u(&f.idx) + b(&f.data0) + b(&f.data1) + u(&f.item_start)).sum()));
        if let Some(j) = &self.jacobi {
            out.push(("jacobi", b(&j.split_inv_mass) + b(&j.inv_count) + b(&j.slots) + u(&j.start) + u(&j.adj)));
        }
        let attachments: usize =
            [&self.pins, &self.soft].into_iter().flatten().map(|a| u(&a.vertex) + b(&a.origin) + b(&a.velocity) + b(&a.compliance) + b(&a.lambda)).sum();
        if attachments > 0 {
            out.push(("attachments", attachments));
        }
        if let Some(c) = &self.colliders {
            out.push(("colliders", b(&c.table) + u(&c.surface) + u(&c.rows) + b(&c.normal) + b(&c.lambda_n) + b(&c.lambda_t) + b(&c.v_before)));
        }
        if let Some(p) = &self.pairs {
            let scalars = b(&p.friction) + b(&p.weights) + b(&p.normal) + b(&p.lambda_n) + b(&p.lambda_t);
            out.push(("pair contact", u(&p.vertices) + u(&p.wedge_triangles) + u(&p.active) + scalars));
        }
        out
    }
}

impl<T: KernelScalar> DeviceModel<T> {
    /// Uploads `model` in `layout`, with room for the substep end times of a frame of `substeps`.
    pub fn upload(gpu: &GpuContext, model: &Model, layout: &Layout, substeps: usize) -> Result<Self> {
        let s: &Arc<CudaStream> = gpu.stream();
        let e = CudaError::on_gpu("uploading the model");
        let up_t = |a: Vec<T>| s.clone_htod(&a).map_err(&e);
        let up_u = |a: &[u32]| s.clone_htod(a).map_err(&e);
        // cudarc refuses zero-length allocations; keep one element where an array may be empty (`nonempty`).
        let n = model.vertex_count();
        let mut families = Vec::with_capacity(layout.families.len());
        for f in &layout.families {
            let suffix = f.kind.kernel_suffix();
            families.push(DeviceFamily {
                count: f.elements() as u32,
                idx: up_u(&nonempty(&f.idx))?,
                data0: up_t(nonempty(&to_t(&f.data0)))?,
                data1: up_t(nonempty(&to_t(&f.data1)))?,
                item_start: up_u(&nonempty(&f.item_start))?,
                c0: T::from_f64(f.c0),
                c1: T::from_f64(f.c1),
                project_items: gpu.function::<T>("sweeps", &format!("project_items_{suffix}"))?,
                jacobi: gpu.function::<T>("sweeps", &format!("jacobi_{suffix}"))?,
                residual_sq: gpu.function::<T>("sweeps", &format!("residual_sq_{suffix}"))?,
                host: f.clone(),
            });
        }
        let jacobi = match &layout.jacobi {
            None => None,
            Some(j) => Some(DeviceJacobi {
                split_inv_mass: up_t(nonempty(&to_t(&j.split_inv_mass)))?,
                inv_count: up_t(nonempty(&to_t(&j.inv_count)))?,
                slots: s.alloc_zeros(3 * j.adj.len().max(1)).map_err(&e)?,
                family_start: j.family_start.clone(),
                start: up_u(&j.start)?,
                adj: up_u(&nonempty(&j.adj))?,
                omega: T::from_f64(j.relaxation),
                gather: gpu.function::<T>("sweeps", "jacobi_gather")?,
            }),
        };
        let attachments = |soft: bool, kernel: &str| -> Result<Option<DeviceAttachments<T>>> {
            // The model lists only hard pins that move; resting pins keep their place by inverse mass 0.
            let list: Vec<_> = model.attachments.iter().filter(|a| if soft { a.compliance > 0.0 } else { a.compliance == 0.0 }).collect();
            if list.is_empty() {
                return Ok(None);
            }
            let vertex: Vec<u32> = list.iter().map(|a| a.vertex).collect();
            Ok(Some(DeviceAttachments {
                count: list.len() as u32,
                vertex: up_u(&vertex)?,
                origin: up_t(flat3(list.iter().map(|a| a.origin)))?,
                velocity: up_t(flat3(list.iter().map(|a| a.velocity)))?,
                compliance: up_t(to_t(&list.iter().map(|a| a.compliance).collect::<Vec<_>>()))?,
                lambda: s.alloc_zeros(3 * list.len()).map_err(&e)?,
                kernel: gpu.function::<T>("boundary", kernel)?,
            }))
        };
        let surface = &model.contact.surface.vertices;
        let colliders = if model.colliders.is_empty() || surface.is_empty() {
            None
        } else {
            let rows = surface.len() * model.colliders.len();
            Some(DeviceColliders {
                count: model.colliders.len() as u32,
                table: up_t(to_t(&collider_table(model)))?,
                surface: up_u(surface)?,
                surface_count: surface.len() as u32,
                thickness: T::from_f64(model.contact.thickness),
                rows: s.alloc_zeros(surface.len()).map_err(&e)?,
                normal: s.alloc_zeros(3 * rows).map_err(&e)?,
                lambda_n: s.alloc_zeros(rows).map_err(&e)?,
                lambda_t: s.alloc_zeros(3 * rows).map_err(&e)?,
                v_before: s.alloc_zeros(3 * n.max(1)).map_err(&e)?,
                g: T::from_f64(model.gravity.norm()),
                detect: gpu.function::<T>("boundary", "detect_collider_rows")?,
                project: gpu.function::<T>("boundary", "project_collider_rows")?,
                restitution: gpu.function::<T>("boundary", "restitution")?,
            })
        };
        Ok(DeviceModel {
            n: n as u32,
            x: up_t(nonempty(&flat3(model.rest.iter().copied())))?,
            v: up_t(nonempty(&flat3(model.initial_velocity.iter().copied())))?,
            x_prev: s.alloc_zeros(3 * n.max(1)).map_err(&e)?,
            inv_mass: up_t(nonempty(&to_t(&model.inv_mass)))?,
            lambda: s.alloc_zeros(model.rows.max(1)).map_err(&e)?,
            pins: attachments(false, "place_pins")?,
            soft: attachments(true, "soft_attachments")?,
            colliders,
            pairs: if model.contact.has_pairs() { Some(DevicePairs::new(gpu, model, PAIR_CAPACITY, WEDGE_CAPACITY)?) } else { None },
            jacobi,
            times: s.alloc_zeros(substeps.max(1)).map_err(&e)?,
            partials: s.alloc_zeros(2 * RESIDUAL_BLOCKS as usize * families.len().max(1)).map_err(&e)?,
            families,
            predict: gpu.function::<T>("predict", "predict")?,
            update_velocity: gpu.function::<T>("predict", "update_velocity")?,
        })
    }
}
