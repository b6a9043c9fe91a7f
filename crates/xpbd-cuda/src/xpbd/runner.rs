//! The XPBD substep loop on the device (`CudaBackend`'s XPBD runner): the model and state stay on the device; a
//! frame's only transfers are the substep end times up (one scalar per substep) and, after the frame, positions,
//! velocities, multipliers, the residual partial sums and the collider rows' λ_n down (what output and reporting
//! need). The substep follows `xpbd_core::substep::SubstepBoundary`: prediction, pins, collider row detection;
//! per iteration the sweep, the soft attachments, the pair rows, the collider rows; the velocity update and
//! restitution. A frame's launches run either one by one or as one CUDA graph captured on the first frame and
//! replayed. Contact between or within bodies is the exception: its rows are detected on the host every substep
//! (positions x_prev and x̃ down, rows up) and projected by one device thread, in the CPU's order, so such a frame
//! synchronises every substep and cannot be a graph.

use std::sync::Arc;
use std::time::Instant;

use cudarc::driver::{sys, CudaGraph, LaunchConfig, PushKernelArg};
use xpbd_core::backend::FrameStats;
use xpbd_core::contact::ContactForces;
use xpbd_core::model::Model;
use xpbd_core::solver_config::SolverConfig;
use xpbd_core::state::State;

use crate::convert::{flat3, to_f64, vectors};
use crate::error::{CudaError, Result};
use crate::runtime::launch::{blocks, grid, spread, BLOCK};
use crate::runtime::{GpuContext, KernelScalar};
use crate::xpbd::contact_rows::collider_rows;
use crate::xpbd::device_model::{DeviceModel, RESIDUAL_BLOCKS};
use crate::xpbd::layout::{Layout, NO_GRAPH_WITH_PAIRS};

/// The device model of one precision, the host layout, and the captured graph.
pub struct Gpu<T> {
    config: SolverConfig,
    gpu: Arc<GpuContext>,
    layout: Layout,
    dev: DeviceModel<T>,
    use_graph: bool,
    graph: Option<CudaGraph>,
    /// The state as last downloaded: a state changed by the caller since (a checkpoint) is uploaded again.
    host_x: Vec<f64>,
    host_v: Vec<f64>,
}

impl<T: KernelScalar> Gpu<T> {
    pub fn new(gpu: Arc<GpuContext>, model: &Model, config: &SolverConfig, layout: Layout, use_graph: bool) -> Result<Self> {
        if use_graph && model.contact.has_pairs() {
            return Err(CudaError::Unsupported(NO_GRAPH_WITH_PAIRS.into()));
        }
        let dev = DeviceModel::upload(&gpu, model, &layout, config.substeps)?;
        Ok(Gpu {
            config: config.clone(),
            gpu,
            layout,
            dev,
            use_graph,
            graph: None,
            host_x: flat3(model.rest.iter().copied()),
            host_v: flat3(model.initial_velocity.iter().copied()),
        })
    }

    /// The device arrays' bytes by family ([`DeviceModel::allocated`]).
    pub fn allocated(&self) -> Vec<(&'static str, usize)> {
        self.dev.allocated()
    }

    pub fn step_frame(&mut self, model: &Model, state: &mut State) -> Result<FrameStats> {
        let stream = self.gpu.stream().clone();
        let (x, v): (Vec<f64>, Vec<f64>) = (flat3(state.x.iter().copied()), flat3(state.v.iter().copied()));
        if x != self.host_x || v != self.host_v {
            stream.memcpy_htod(&x.iter().map(|&s| T::from_f64(s)).collect::<Vec<T>>(), &mut self.dev.x).map_err(CudaError::on_gpu("uploading positions"))?;
            stream.memcpy_htod(&v.iter().map(|&s| T::from_f64(s)).collect::<Vec<T>>(), &mut self.dev.v).map_err(CudaError::on_gpu("uploading velocities"))?;
        }
        let n = self.config.substeps;
        let t0 = state.time;
        let times: Vec<T> = (1..=n).map(|k| T::from_f64(self.config.substep_end(t0, k))).collect();
        let start = Instant::now();
        stream.memcpy_htod(&times, &mut self.dev.times).map_err(CudaError::on_gpu("uploading substep times"))?;
        if self.use_graph {
            if self.graph.is_none() {
                stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL).map_err(CudaError::on_gpu("beginning graph capture"))?;
                let recorded = self.record_frame(model);
                let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0)).map_err(CudaError::on_gpu("capturing the frame's graph"));
                recorded?;
                self.graph = Some(graph?.ok_or_else(|| CudaError::Check("the captured CUDA graph is empty".into()))?);
            }
            self.graph.as_ref().expect("captured above").launch().map_err(CudaError::on_gpu("launching the frame's graph"))?;
        } else {
            self.record_frame(model)?;
        }
        stream.synchronize().map_err(CudaError::on_gpu("running the frame"))?;
        let solve_seconds = start.elapsed().as_secs_f64();
        self.download(model, state)?;
        // The CPU's end time of the last substep, to the bit.
        state.time = self.config.substep_end(t0, n);
        state.frame += 1;
        let (r0, r) = self.residuals()?;
        let contacts = self.contacts()?;
        Ok(FrameStats { residual: r, relative_residual: if r0 > 0.0 { r / r0 } else { 0.0 }, solve_seconds, mgpbd: None, contacts, rigid: None, phases: None })
    }

    /// Collider rows that pushed (λ_n > 0) in the frame's last substep, as the CPU's `ContactSet::active`
    /// (λ_n of rows not detected is 0).
    fn contacts(&self) -> Result<usize> {
        let e = CudaError::on_gpu("downloading contact multipliers");
        let pushing = |l: Vec<T>| l.iter().filter(|l| l.to_f64() > 0.0).count();
        let mut count = 0;
        if let Some(c) = &self.dev.colliders {
            count += pushing(self.gpu.stream().clone_dtoh(&c.lambda_n).map_err(&e)?);
        }
        if let Some(p) = self.dev.pairs.as_ref().filter(|p| p.count > 0) {
            count += pushing(self.gpu.stream().clone_dtoh(&p.lambda_n.slice(0..p.count as usize)).map_err(&e)?);
        }
        Ok(count)
    }

    /// The normal contact forces of the frame's last substep (`Backend::contact_forces`): the rows' normals and
    /// λ_n down, summed by core as on the CPU. Asked only for frames that write them.
    pub fn contact_forces(&self, model: &Model) -> Result<ContactForces> {
        let stream = self.gpu.stream();
        let e = CudaError::on_gpu("downloading contact rows");
        let mut colliders = Vec::new();
        if let Some(c) = &self.dev.colliders {
            let normal = to_f64(&stream.clone_dtoh(&c.normal).map_err(&e)?);
            let lambda_n = to_f64(&stream.clone_dtoh(&c.lambda_n).map_err(&e)?);
            colliders = collider_rows(&model.contact.surface.vertices, c.count as usize, &normal, &lambda_n);
        }
        let mut pairs = Vec::new();
        if let Some(p) = self.dev.pairs.as_ref().filter(|p| p.count > 0) {
            let n = p.count as usize;
            let active = stream.clone_dtoh(&p.active.slice(0..n)).map_err(&e)?;
            let weights = to_f64(&stream.clone_dtoh(&p.weights.slice(0..4 * n)).map_err(&e)?);
            let normal = to_f64(&stream.clone_dtoh(&p.normal.slice(0..3 * n)).map_err(&e)?);
            let lambda_n = to_f64(&stream.clone_dtoh(&p.lambda_n.slice(0..n)).map_err(&e)?);
            pairs = p.slots.rows(&active, &weights, &normal, &lambda_n);
        }
        Ok(ContactForces::of(&pairs, &colliders, model.vertex_count(), self.config.h()))
    }

    /// Positions, velocities and multipliers (in model order) into `state`.
    fn download(&mut self, model: &Model, state: &mut State) -> Result<()> {
        let stream = self.gpu.stream();
        let e = CudaError::on_gpu("downloading the state");
        let n = model.vertex_count();
        self.host_x = to_f64(&stream.clone_dtoh(&self.dev.x).map_err(&e)?);
        self.host_v = to_f64(&stream.clone_dtoh(&self.dev.v).map_err(&e)?);
        let lambda = to_f64(&stream.clone_dtoh(&self.dev.lambda).map_err(&e)?);
        state.x.copy_from_slice(&vectors(&self.host_x[..3 * n]));
        state.v.copy_from_slice(&vectors(&self.host_v[..3 * n]));
        self.layout.export_multipliers(&lambda[..model.rows], &mut state.lambda);
        Ok(())
    }

    /// (‖r₀‖, ‖r‖) of the frame's last substep from the partial sums.
    fn residuals(&self) -> Result<(f64, f64)> {
        let partials = self.gpu.stream().clone_dtoh(&self.dev.partials).map_err(CudaError::on_gpu("downloading residuals"))?;
        let per = RESIDUAL_BLOCKS as usize * self.dev.families.len().max(1);
        let mut sums = [0.0f64; 2];
        for (which, sum) in sums.iter_mut().enumerate() {
            for (i, f) in self.dev.families.iter().enumerate() {
                let used = residual_blocks(f.count) as usize;
                let base = which * per + i * RESIDUAL_BLOCKS as usize;
                *sum += partials[base..base + used].iter().map(|p| p.to_f64()).sum::<f64>();
            }
        }
        Ok((sums[0].sqrt(), sums[1].sqrt()))
    }

    /// Issues every launch of one frame on the stream (recorded into the graph when capturing).
    fn record_frame(&mut self, model: &Model) -> Result<()> {
        let substeps = self.config.substeps;
        for k in 0..substeps {
            self.substep(model, k, k + 1 == substeps)?;
        }
        Ok(())
    }

    /// One substep (crates/xpbd-cpu/src/lib.rs: begin_substep, the iterations, end_substep); with `report`, the
    /// residual after the prediction and at the end into the partial sums.
    fn substep(&mut self, model: &Model, k: usize, report: bool) -> Result<()> {
        let stream = self.gpu.stream().clone();
        let e = CudaError::on_gpu("a substep");
        let h = self.config.h();
        let (ht, n) = (T::from_f64(h), self.dev.n);
        let d = &mut self.dev;
        if let Some(c) = &mut d.colliders {
            stream.memcpy_dtod(&d.v, &mut c.v_before).map_err(&e)?;
        }
        let dv = [model.gravity.x * h, model.gravity.y * h, model.gravity.z * h].map(T::from_f64);
        let damp = T::from_f64((-self.config.velocity_damping * h).exp());
        let mut l = stream.launch_builder(&d.predict);
        l.arg(&mut d.x).arg(&mut d.v).arg(&mut d.x_prev).arg(&d.inv_mass).arg(&dv[0]).arg(&dv[1]).arg(&dv[2]).arg(&damp).arg(&ht).arg(&n);
        // SAFETY: predict_<T>(x, v, x_prev, inv_mass, dvx, dvy, dvz, damp, h, n) of kernels/predict.cu; arrays of
        // 3n and n scalars.
        unsafe { l.launch(grid(n)) }.map_err(&e)?;
        if let Some(p) = &d.pins {
            let t = d.times.slice(k..k + 1);
            let mut l = stream.launch_builder(&p.kernel);
            l.arg(&mut d.x).arg(&p.vertex).arg(&p.origin).arg(&p.velocity).arg(&t).arg(&p.count);
            // SAFETY: place_pins_<T>(x, vertex, origin, velocity, t, count) of kernels/boundary.cu.
            unsafe { l.launch(grid(p.count)) }.map_err(&e)?;
        }
        if let Some(c) = &mut d.colliders {
            let t = d.times.slice(k..k + 1);
            let mut l = stream.launch_builder(&c.detect);
            l.arg(&d.x).arg(&d.x_prev).arg(&d.inv_mass).arg(&c.surface).arg(&c.surface_count).arg(&c.table).arg(&c.count);
            l.arg(&c.thickness).arg(&t).arg(&mut c.rows).arg(&mut c.lambda_n).arg(&mut c.lambda_t);
            // SAFETY: detect_collider_rows_<T>(x, x_prev, inv_mass, surface, surface_count, colliders,
            // collider_count, thickness, t, rows, lambda_n, lambda_t) of kernels/boundary.cu; surface indices are
            // vertices, rows has surface_count entries and lambda_n, lambda_t 1 and 3 per (surface vertex, collider).
            unsafe { l.launch(grid(c.surface_count)) }.map_err(&e)?;
        }
        if let Some(p) = &mut d.pairs {
            // Pair rows: the candidates kept on the host from x_prev and x̃ (Detector::update, the broad phase when its
            // Verlet list no longer holds) and uploaded when they change; the narrow phase on the device.
            let x0 = vectors(&to_f64(&stream.clone_dtoh(&d.x_prev).map_err(&e)?)[..3 * model.vertex_count()]);
            let x1 = vectors(&to_f64(&stream.clone_dtoh(&d.x).map_err(&e)?)[..3 * model.vertex_count()]);
            p.detector.update(&model.contact, &model.rest, &model.inv_mass, &x0, &x1);
            p.upload(&self.gpu, model)?;
            if p.count > 0 {
                let [vt, ee, ve] = p.slots.counts;
                let mut l = stream.launch_builder(&p.narrow);
                l.arg(&d.x).arg(&d.x_prev).arg(&p.vertices).arg(&p.wedge_triangles).arg(&vt).arg(&ee).arg(&ve).arg(&p.thickness);
                l.arg(&mut p.active).arg(&mut p.weights).arg(&mut p.normal).arg(&mut p.lambda_n).arg(&mut p.lambda_t);
                // SAFETY: narrow_phase_pairs_<T>(x, x_prev, vertices, wedge_triangles, vertex_triangles, edge_edges,
                // vertex_edges, thickness, active, weights, normals, lambda_n, lambda_t) of kernels/boundary.cu over
                // the count = vt + ee + ve uploaded slots; one thread per slot writes only its own outputs.
                unsafe { l.launch(grid(p.count)) }.map_err(&e)?;
            }
        }
        stream.memset_zeros(&mut d.lambda).map_err(&e)?;
        if let Some(s) = &mut d.soft {
            stream.memset_zeros(&mut s.lambda).map_err(&e)?;
        }
        if report {
            residual(&stream, d, ht, 0)?;
        }
        for _ in 0..self.config.iterations {
            sweep(&stream, d, ht, self.gpu.info().multiprocessors)?;
            if let Some(s) = &mut d.soft {
                let t = d.times.slice(k..k + 1);
                let mut l = stream.launch_builder(&s.kernel);
                l.arg(&mut d.x)
                    .arg(&d.inv_mass)
                    .arg(&s.vertex)
                    .arg(&s.origin)
                    .arg(&s.velocity)
                    .arg(&s.compliance)
                    .arg(&mut s.lambda)
                    .arg(&ht)
                    .arg(&t)
                    .arg(&s.count);
                // SAFETY: soft_attachments_<T>(x, inv_mass, vertex, origin, velocity, compliance, lambda, h, t, count);
                // check_supported guarantees distinct vertices.
                unsafe { l.launch(grid(s.count)) }.map_err(&e)?;
            }
            if let Some(p) = d.pairs.as_mut().filter(|p| p.count > 0) {
                let mut l = stream.launch_builder(&p.project);
                l.arg(&mut d.x).arg(&d.x_prev).arg(&d.inv_mass).arg(&p.vertices).arg(&p.active).arg(&p.weights).arg(&mut p.normal).arg(&p.friction);
                l.arg(&mut p.lambda_n).arg(&mut p.lambda_t).arg(&p.thickness).arg(&p.count);
                let one = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 };
                // SAFETY: project_pair_rows_<T>(x, x_prev, inv_mass, vertices, active, weights, normals, friction,
                // lambda_n, lambda_t, thickness, count) of kernels/boundary.cu over the count slots of this
                // substep's narrow phase; one thread, since rows share vertices.
                unsafe { l.launch(one) }.map_err(&e)?;
            }
            if let Some(c) = &mut d.colliders {
                let t = d.times.slice(k..k + 1);
                let mut l = stream.launch_builder(&c.project);
                l.arg(&mut d.x).arg(&d.x_prev).arg(&d.inv_mass).arg(&c.surface).arg(&c.surface_count).arg(&c.table).arg(&c.count);
                l.arg(&c.rows).arg(&mut c.normal).arg(&mut c.lambda_n).arg(&mut c.lambda_t).arg(&ht).arg(&t);
                // SAFETY: project_collider_rows_<T>(x, x_prev, inv_mass, surface, surface_count, colliders,
                // collider_count, rows, normal, lambda_n, lambda_t, h, t) of kernels/boundary.cu; the surface vertices
                // are distinct, so each thread owns its vertex's position and rows.
                unsafe { l.launch(grid(c.surface_count)) }.map_err(&e)?;
            }
        }
        let mut l = stream.launch_builder(&d.update_velocity);
        l.arg(&d.x).arg(&d.x_prev).arg(&mut d.v).arg(&ht).arg(&n);
        // SAFETY: update_velocity_<T>(x, x_prev, v, h, n) of kernels/predict.cu.
        unsafe { l.launch(grid(n)) }.map_err(&e)?;
        if let Some(c) = &mut d.colliders {
            let mut l = stream.launch_builder(&c.restitution);
            l.arg(&mut d.v).arg(&c.v_before).arg(&c.surface).arg(&c.surface_count).arg(&c.table).arg(&c.count);
            l.arg(&c.rows).arg(&c.normal).arg(&c.lambda_n).arg(&c.g).arg(&ht);
            // SAFETY: restitution_<T>(v, v_before, surface, surface_count, colliders, collider_count, rows, normal,
            // lambda_n, g, h) of kernels/boundary.cu.
            unsafe { l.launch(grid(c.surface_count)) }.map_err(&e)?;
        }
        if report {
            residual(&stream, d, ht, 1)?;
        }
        Ok(())
    }
}

/// Blocks of a residual launch over `count` elements.
fn residual_blocks(count: u32) -> u32 {
    blocks(count).min(RESIDUAL_BLOCKS)
}

/// One iteration over every element family: batch by batch (Gauss-Seidel), or Jacobi slots and the gather; each
/// launch [`spread`] over the device's `multiprocessors`.
fn sweep<T: KernelScalar>(stream: &Arc<cudarc::driver::CudaStream>, d: &mut DeviceModel<T>, h: T, multiprocessors: u32) -> Result<()> {
    let e = CudaError::on_gpu("a sweep");
    for (i, f) in d.families.iter().enumerate() {
        let beta_h = T::from_f64(f.host.damping * h.to_f64());
        let mut lambda_view = d.lambda.slice_mut(f.host.lambda_offset..f.host.lambda_offset + f.host.rows() * f.count as usize);
        match &mut d.jacobi {
            None => {
                for b in 0..f.host.batches() {
                    let (first, count) = f.host.batch(b);
                    let mut l = stream.launch_builder(&f.project_items);
                    l.arg(&mut d.x).arg(&d.x_prev).arg(&d.inv_mass).arg(&f.idx).arg(&f.data0).arg(&f.data1).arg(&mut lambda_view);
                    l.arg(&f.item_start).arg(&first).arg(&count).arg(&f.c0).arg(&f.c1).arg(&h).arg(&beta_h);
                    // SAFETY: project_items_<kind>_<T>(x, x_prev, inv_mass, idx, data0, data1, lambda, item_start,
                    // first_item, item_count, c0, c1, h, beta_h) of kernels/sweeps.cu; the items of a batch share no
                    // vertex (the CPU's schedule, checked by the layout tests).
                    unsafe { l.launch(spread(count, multiprocessors)) }.map_err(&e)?;
                }
            }
            Some(j) => {
                let first_slot = j.family_start[i];
                let n_vertices = f.host.kind.vertices();
                let mut slots = j.slots.slice_mut(3 * first_slot..3 * (first_slot + n_vertices * f.count as usize));
                let mut l = stream.launch_builder(&f.jacobi);
                l.arg(&d.x).arg(&d.x_prev).arg(&j.split_inv_mass).arg(&f.idx).arg(&f.data0).arg(&f.data1).arg(&mut lambda_view);
                l.arg(&j.inv_count).arg(&mut slots).arg(&j.omega).arg(&f.count).arg(&f.c0).arg(&f.c1).arg(&h).arg(&beta_h);
                // SAFETY: jacobi_<kind>_<T>(x, x_prev, split_inv_mass, idx, data0, data1, lambda, inv_count, slots,
                // omega, count, c0, c1, h, beta_h), the last two per vertex; every element writes only its own slots
                // and multipliers.
                unsafe { l.launch(spread(f.count, multiprocessors)) }.map_err(&e)?;
            }
        }
    }
    if let Some(j) = &mut d.jacobi {
        let mut l = stream.launch_builder(&j.gather);
        l.arg(&mut d.x).arg(&j.slots).arg(&j.start).arg(&j.adj).arg(&d.n);
        // SAFETY: jacobi_gather_<T>(x, slots, start, adj, n); start has n + 1 entries.
        unsafe { l.launch(grid(d.n)) }.map_err(&e)?;
    }
    Ok(())
}

/// Partial sums of ‖C + α̃λ‖² into `partials` block `which` (0: r₀, 1: r).
fn residual<T: KernelScalar>(stream: &Arc<cudarc::driver::CudaStream>, d: &mut DeviceModel<T>, h: T, which: usize) -> Result<()> {
    let e = CudaError::on_gpu("the residual");
    let per = RESIDUAL_BLOCKS as usize * d.families.len().max(1);
    for (i, f) in d.families.iter().enumerate() {
        let base = which * per + i * RESIDUAL_BLOCKS as usize;
        let mut partial = d.partials.slice_mut(base..base + RESIDUAL_BLOCKS as usize);
        let lambda = d.lambda.slice(f.host.lambda_offset..f.host.lambda_offset + f.host.rows() * f.count as usize);
        let mut l = stream.launch_builder(&f.residual_sq);
        l.arg(&d.x).arg(&f.idx).arg(&f.data0).arg(&f.data1).arg(&lambda).arg(&f.count).arg(&f.c0).arg(&f.c1).arg(&h).arg(&mut partial);
        let grid = LaunchConfig { grid_dim: (residual_blocks(f.count), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };
        // SAFETY: residual_sq_<kind>_<T>(x, idx, data0, data1, lambda, count, c0, c1, h, partial); blocks of
        // exactly BLOCK threads (the kernel's shared array), at most RESIDUAL_BLOCKS partials.
        unsafe { l.launch(grid) }.map_err(&e)?;
    }
    Ok(())
}
