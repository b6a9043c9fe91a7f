//! The self-test's comparisons of the CUDA backend with the CPU backend on one scene, with the parity tests'
//! measures and tolerances ([`xpbd_cuda::parity`]).

use xpbd_core::backend::Backend;
use xpbd_core::scene::Built;
use xpbd_core::state::State;
use xpbd_cpu::CpuBackend;
use xpbd_cuda::{parity, CudaBackend, CudaOptions, Precision};

/// What a comparison measured: the difference it bounds, its tolerance, and every criterion that failed
/// (the difference's included).
pub struct Outcome {
    pub difference: f64,
    pub tolerance: f64,
    pub failures: Vec<String>,
}

/// The error of a backend that failed to start or to step, in words.
type Failed = String;

/// Whether `difference` is at most `tolerance` (false for NaN).
fn within(difference: f64, tolerance: f64) -> bool {
    difference <= tolerance
}

/// Both backends after one frame from the initial state.
struct OneFrame {
    cpu: CpuBackend,
    gpu: CudaBackend,
    s_cpu: State,
    s_gpu: State,
    residuals: (f64, f64),
}

fn one_frame(b: &Built, options: CudaOptions) -> Result<OneFrame, Failed> {
    let (model, config) = (&b.model, &b.config);
    let mut gpu = CudaBackend::new(model, config, options).map_err(|e| e.to_string())?;
    let mut cpu = CpuBackend::new(model, config);
    let (mut s_cpu, mut s_gpu) = (State::initial(model), State::initial(model));
    let r_cpu = cpu.step_frame(model, &mut s_cpu).map_err(|e| format!("the CPU backend failed: {e}"))?.residual;
    let r_gpu = gpu.step_frame(model, &mut s_gpu).map_err(|e| e.to_string())?.residual;
    Ok(OneFrame { cpu, gpu, s_cpu, s_gpu, residuals: (r_cpu, r_gpu) })
}

/// XPBD, one frame: the same schedule (colors), the largest position difference within
/// [`parity::xpbd_position_tolerance`] of the body size and, in double precision, the final residuals within
/// [`parity::xpbd_residual_tolerance`]. The CPU's frame must move the body (else the check proves nothing).
pub fn xpbd_frame(b: &Built, options: CudaOptions) -> Result<Outcome, Failed> {
    let f = one_frame(b, options)?;
    let size = parity::body_size(&b.model);
    let difference = parity::largest_distance(&f.s_cpu.x, &f.s_gpu.x) / size;
    let tolerance = parity::xpbd_position_tolerance(options.precision);
    let mut failures = Vec::new();
    if f.gpu.colors() != f.cpu.colors() {
        failures.push(format!("the GPU ran {:?} colors, the CPU {:?}", f.gpu.colors(), f.cpu.colors()));
    }
    if parity::largest_distance(&f.s_cpu.x, &b.model.rest) <= 1e-4 * size {
        failures.push("the scene did not move within the frame".to_owned());
    }
    if !within(difference, tolerance) {
        failures.push(format!("positions differ by {difference:.2e} of the body size, more than {tolerance:.0e}"));
    }
    let (r_cpu, r_gpu) = f.residuals;
    if options.precision == Precision::F64 && !within((r_gpu - r_cpu).abs(), parity::xpbd_residual_tolerance(r_cpu)) {
        failures.push(format!("final residual {r_gpu:.6e} on the GPU, {r_cpu:.6e} on the CPU"));
    }
    Ok(Outcome { difference, tolerance, failures })
}

/// The contact forces after one frame in double precision (`Backend::contact_forces`): per vertex within
/// [`parity::CONTACT_FORCE_TOLERANCE`] of the largest force, which must not be zero.
pub fn contact_forces(b: &Built, options: CudaOptions) -> Result<Outcome, Failed> {
    let f = one_frame(b, options)?;
    let f_cpu = f.cpu.contact_forces(&b.model, &f.s_cpu).map_err(|e| format!("the CPU backend failed: {e}"))?;
    let f_gpu = f.gpu.contact_forces(&b.model, &f.s_gpu).map_err(|e| e.to_string())?;
    let largest = f_cpu.force.iter().map(|f| f.norm()).fold(0.0, f64::max);
    let difference = parity::largest_distance(&f_cpu.force, &f_gpu.force) / largest;
    let tolerance = parity::CONTACT_FORCE_TOLERANCE;
    let mut failures = Vec::new();
    if largest == 0.0 {
        failures.push("no contact force within the frame".to_owned());
    } else if !within(difference, tolerance) {
        failures.push(format!("contact forces differ by {difference:.2e} of the largest ({largest:.3e} N), more than {tolerance:.0e}"));
    }
    Ok(Outcome { difference, tolerance, failures })
}

/// MGPBD, `frames` whole frames in double precision: per frame the same outer iterations, the linear iterations
/// within one per outer iteration ([`parity::mgpbd_iterations_agree`]), the final relative residual within
/// [`parity::mgpbd_residual_tolerance`] and the positions within [`parity::MGPBD_POSITION_TOLERANCE`] (the
/// difference reported is the largest over the frames).
pub fn mgpbd_frames(b: &Built, options: CudaOptions, frames: usize, from_r0: bool) -> Result<Outcome, Failed> {
    let (model, config) = (&b.model, &b.config);
    let mut gpu = CudaBackend::new(model, config, options).map_err(|e| e.to_string())?;
    let mut cpu = CpuBackend::new(model, config);
    let (mut s_cpu, mut s_gpu) = (State::initial(model), State::initial(model));
    let tolerance = parity::MGPBD_POSITION_TOLERANCE;
    let (mut difference, mut failures) = (0.0f64, Vec::new());
    for frame in 0..frames {
        let c = cpu.step_frame(model, &mut s_cpu).map_err(|e| format!("the CPU backend failed: {e}"))?;
        let g = gpu.step_frame(model, &mut s_gpu).map_err(|e| e.to_string())?;
        let (Some(cm), Some(gm)) = (c.mgpbd, g.mgpbd) else {
            return Err("a backend reported no MGPBD statistics".to_owned());
        };
        let dx = parity::relative_distance(&s_gpu.x, &s_cpu.x);
        difference = difference.max(dx);
        if !parity::mgpbd_iterations_agree((gm.outer_iterations, cm.outer_iterations), (gm.linear_iterations, cm.linear_iterations)) {
            failures.push(format!(
                "frame {frame}: {} outer and {} linear iterations on the GPU, {} and {} on the CPU",
                gm.outer_iterations, gm.linear_iterations, cm.outer_iterations, cm.linear_iterations
            ));
        }
        if !within((g.relative_residual - c.relative_residual).abs(), parity::mgpbd_residual_tolerance(from_r0, c.relative_residual)) {
            failures.push(format!("frame {frame}: relative residual {:.6e} on the GPU, {:.6e} on the CPU", g.relative_residual, c.relative_residual));
        }
        if !within(dx, tolerance) {
            failures.push(format!("frame {frame}: positions differ by {dx:.2e} (relative), more than {tolerance:.0e}"));
        }
    }
    Ok(Outcome { difference, tolerance, failures })
}
