//! The CUDA kernels' own source, compiled for the host, against the CPU backend: no GPU needed.
//!
//! `kernels/*.cu` is compiled as plain C++ into a shared library (`tests/host/cuda_shim.h` maps the CUDA keywords
//! to C++ and makes the grid one thread, so every grid-stride loop runs all its items in order; `-ffp-contract=off`
//! keeps the host from fusing multiply-adds). The test runs the launch sequence of `CudaBackend`'s substep
//! (`src/xpbd/runner.rs`) over the device layout (`src/xpbd/layout.rs`) with these functions and compares the frame with
//! `CpuBackend`. This checks the kernels' arithmetic, indexing, multiplier layout and boundary handling; what it
//! cannot check is the GPU itself (parallel execution within a color, fused multiply-adds, the driver), which
//! `tests/backend_parity.rs` covers where a GPU is present. Skipped (and reported) without a host C++ compiler.

mod common;

use common::host_library::{get, library_or_skip};
use common::*;
use libloading::Library;
use xpbd_core::backend::Backend;
use xpbd_core::contact::detect::Detector;
use xpbd_core::contact::{ContactSet, Friction};
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::Built;
use xpbd_core::state::State;
use xpbd_cpu::CpuBackend;
use xpbd_cuda::xpbd::contact_rows::PairSlots;
use xpbd_cuda::xpbd::layout::{collider_table, Layout};
use xpbd_cuda::KernelScalar;

type U = *const u32;
type Predict<T> = unsafe extern "C" fn(*mut T, *mut T, *mut T, *const T, T, T, T, T, T, u32);
type UpdateVelocity<T> = unsafe extern "C" fn(*const T, *const T, *mut T, T, u32);
type PlacePins<T> = unsafe extern "C" fn(*mut T, U, *const T, *const T, *const T, u32);
type SoftAttachments<T> = unsafe extern "C" fn(*mut T, *const T, U, *const T, *const T, *const T, *mut T, T, *const T, u32);
type DetectColliderRows<T> = unsafe extern "C" fn(*const T, *const T, *const T, U, u32, *const T, u32, T, *const T, *mut u32, *mut T, *mut T);
type ProjectColliderRows<T> = unsafe extern "C" fn(*mut T, *const T, *const T, U, u32, *const T, u32, U, *mut T, *mut T, *mut T, T, *const T);
type NarrowPhasePairs<T> = unsafe extern "C" fn(*const T, *const T, U, U, u32, u32, u32, T, *mut u32, *mut T, *mut T, *mut T, *mut T);
type ProjectPairRows<T> = unsafe extern "C" fn(*mut T, *const T, *const T, U, U, *const T, *mut T, *const T, *mut T, *mut T, T, u32);
type Restitution<T> = unsafe extern "C" fn(*mut T, *const T, U, u32, *const T, u32, U, *const T, *const T, T, T);
type ProjectItems<T> = unsafe extern "C" fn(*mut T, *const T, *const T, U, *const T, *const T, *mut T, U, u32, u32, T, T, T, T);
type JacobiElements<T> = unsafe extern "C" fn(*const T, *const T, *const T, U, *const T, *const T, *mut T, *const T, *mut T, T, u32, T, T, T, T);
type JacobiGather<T> = unsafe extern "C" fn(*mut T, *const T, U, U, u32);
type ResidualSq<T> = unsafe extern "C" fn(*const T, U, *const T, *const T, *const T, u32, T, T, T, *mut T);

fn to_t<T: KernelScalar>(a: impl IntoIterator<Item = f64>) -> Vec<T> {
    a.into_iter().map(T::from_f64).collect()
}

fn flat3<T: KernelScalar>(a: &[xpbd_core::mesh::Vec3]) -> Vec<T> {
    to_t(a.iter().flat_map(|p| [p.x, p.y, p.z]))
}

/// What one frame on the host-compiled kernels leaves: positions and velocities (3n each), multipliers in model
/// order, (‖r₀‖, ‖r‖) of the last substep, the colliders touched (bit c: a row of collider c pushed, λ_n > 0, at
/// the end of some substep) and the contact rows (pairs and colliders) that pushed in the last substep.
struct HostFrame {
    x: Vec<f64>,
    v: Vec<f64>,
    lambda: Vec<f64>,
    residuals: (f64, f64),
    touched: u32,
    contacts: usize,
}

/// One frame of `CudaBackend`'s launch sequence on the host-compiled kernels.
fn host_frame<T: KernelScalar>(lib: &Library, b: &Built) -> HostFrame {
    let (model, config) = (&b.model, &b.config);
    let k = |name: &str| format!("{name}_{}", T::SUFFIX);
    let l = Layout::new(model, config).unwrap();
    let n = model.vertex_count() as u32;
    let h = config.h();
    let ht = T::from_f64(h);
    let (mut x, mut v): (Vec<T>, Vec<T>) = (flat3(&model.rest), flat3(&model.initial_velocity));
    let mut x_prev = vec![T::default(); x.len()];
    let mut v_before = x_prev.clone();
    let inv_mass: Vec<T> = to_t(model.inv_mass.iter().copied());
    let mut lambda = vec![T::default(); model.rows];
    let fam: Vec<_> = l.families.iter().map(|f| (to_t::<T>(f.data0.iter().copied()), to_t::<T>(f.data1.iter().copied()))).collect();
    let pins: Vec<_> = model.attachments.iter().filter(|a| a.compliance == 0.0).collect();
    let soft: Vec<_> = model.attachments.iter().filter(|a| a.compliance > 0.0).collect();
    let (pin_v, pin_o, pin_vel): (Vec<u32>, Vec<T>, Vec<T>) = (
        pins.iter().map(|a| a.vertex).collect(),
        flat3(&pins.iter().map(|a| a.origin).collect::<Vec<_>>()),
        flat3(&pins.iter().map(|a| a.velocity).collect::<Vec<_>>()),
    );
    let (soft_v, soft_o, soft_vel, soft_c): (Vec<u32>, Vec<T>, Vec<T>, Vec<T>) = (
        soft.iter().map(|a| a.vertex).collect(),
        flat3(&soft.iter().map(|a| a.origin).collect::<Vec<_>>()),
        flat3(&soft.iter().map(|a| a.velocity).collect::<Vec<_>>()),
        to_t(soft.iter().map(|a| a.compliance)),
    );
    let mut soft_lambda = vec![T::default(); 3 * soft.len()];
    let colliders: Vec<T> = to_t(collider_table(model));
    let collider_count = model.colliders.len() as u32;
    let surface = &model.contact.surface.vertices;
    let surface_count = surface.len() as u32;
    let thickness = T::from_f64(model.contact.thickness);
    let with_colliders = collider_count > 0 && surface_count > 0;
    let mut rows = vec![0u32; surface.len()];
    let mut normal = vec![T::default(); 3 * surface.len() * model.colliders.len()];
    let mut lambda_n = vec![T::default(); surface.len() * model.colliders.len()];
    let mut lambda_t = vec![T::default(); 3 * surface.len() * model.colliders.len()];
    let mut contacts = 0;
    // Pair rows: candidates kept on the host from the kernels' x_prev and x̃ and the narrow phase in the kernels,
    // as `CudaBackend` does.
    let mut detector = Detector::default();
    let mut pairs = PairSlots::default();
    let (mut pair_friction, mut pair_active, mut pair_weights, mut pair_normal) = (Vec::<T>::new(), Vec::<u32>::new(), Vec::<T>::new(), Vec::<T>::new());
    let (mut pair_lambda_n, mut pair_lambda_t) = (Vec::<T>::new(), Vec::<T>::new());
    let vectors = |a: &[T]| -> Vec<Vec3> { a.chunks_exact(3).map(|p| Vec3::new(p[0].to_f64(), p[1].to_f64(), p[2].to_f64())).collect() };
    let mut slots = vec![T::default(); l.jacobi.as_ref().map_or(0, |j| 3 * j.adj.len())];
    let inv_count: Vec<T> = l.jacobi.as_ref().map_or(Vec::new(), |j| to_t(j.inv_count.iter().copied()));
    let split_inv_mass: Vec<T> = l.jacobi.as_ref().map_or(Vec::new(), |j| to_t(j.split_inv_mass.iter().copied()));
    let mut residuals = (0.0, 0.0);
    let mut touched = 0u32;
    let residual = |x: &[T], lambda: &[T]| -> f64 {
        let mut sum = 0.0;
        for (f, (dm, vol)) in l.families.iter().zip(&fam) {
            let r: ResidualSq<T> = get(lib, &k(&format!("residual_sq_{}", f.kind.kernel_suffix())));
            let mut partial = T::default();
            // SAFETY: arrays of the family's sizes; one thread writes partial[0].
            unsafe {
                r(
                    x.as_ptr(),
                    f.idx.as_ptr(),
                    dm.as_ptr(),
                    vol.as_ptr(),
                    lambda[f.lambda_offset..].as_ptr(),
                    f.elements() as u32,
                    T::from_f64(f.c0),
                    T::from_f64(f.c1),
                    ht,
                    &mut partial,
                )
            };
            sum += partial.to_f64();
        }
        sum.sqrt()
    };
    let substeps = config.substeps;
    let dv = [model.gravity.x * h, model.gravity.y * h, model.gravity.z * h].map(T::from_f64);
    let damp = T::from_f64((-config.velocity_damping * h).exp());
    // SAFETY (every call below): the pointers are to live vectors of the sizes the kernels index (3n positions,
    // n inverse masses, the layout's arrays), as in `CudaBackend`.
    unsafe {
        for s in 0..substeps {
            let t = [T::from_f64(config.dt * (s + 1) as f64 / substeps as f64)];
            let report = s + 1 == substeps;
            if with_colliders {
                v_before.copy_from_slice(&v);
            }
            get::<Predict<T>>(lib, &k("predict"))(x.as_mut_ptr(), v.as_mut_ptr(), x_prev.as_mut_ptr(), inv_mass.as_ptr(), dv[0], dv[1], dv[2], damp, ht, n);
            if !pins.is_empty() {
                get::<PlacePins<T>>(lib, &k("place_pins"))(x.as_mut_ptr(), pin_v.as_ptr(), pin_o.as_ptr(), pin_vel.as_ptr(), t.as_ptr(), pins.len() as u32);
            }
            if with_colliders {
                get::<DetectColliderRows<T>>(lib, &k("detect_collider_rows"))(
                    x.as_ptr(),
                    x_prev.as_ptr(),
                    inv_mass.as_ptr(),
                    surface.as_ptr(),
                    surface_count,
                    colliders.as_ptr(),
                    collider_count,
                    thickness,
                    t.as_ptr(),
                    rows.as_mut_ptr(),
                    lambda_n.as_mut_ptr(),
                    lambda_t.as_mut_ptr(),
                );
            }
            if model.contact.has_pairs() {
                if detector.update(&model.contact, &model.rest, &model.inv_mass, &vectors(&x_prev), &vectors(&x)) {
                    pairs = PairSlots::of(&model.contact, &detector);
                    let n = pairs.len();
                    pair_friction = to_t(pairs.friction.iter().flat_map(|f| [f.mu_s, f.mu_k]));
                    (pair_active, pair_weights, pair_normal) = (vec![0; n], vec![T::default(); 4 * n], vec![T::default(); 3 * n]);
                    (pair_lambda_n, pair_lambda_t) = (vec![T::default(); n], vec![T::default(); 3 * n]);
                }
                let [vt, ee, ve] = pairs.counts;
                get::<NarrowPhasePairs<T>>(lib, &k("narrow_phase_pairs"))(
                    x.as_ptr(),
                    x_prev.as_ptr(),
                    pairs.vertices.as_ptr(),
                    pairs.wedge_triangles.as_ptr(),
                    vt,
                    ee,
                    ve,
                    thickness,
                    pair_active.as_mut_ptr(),
                    pair_weights.as_mut_ptr(),
                    pair_normal.as_mut_ptr(),
                    pair_lambda_n.as_mut_ptr(),
                    pair_lambda_t.as_mut_ptr(),
                );
            }
            lambda.fill(T::default());
            soft_lambda.fill(T::default());
            if report {
                residuals.0 = residual(&x, &lambda);
            }
            for _ in 0..config.iterations {
                for (i, (f, (dm, vol))) in l.families.iter().zip(&fam).enumerate() {
                    let suffix = f.kind.kernel_suffix();
                    let beta_h = T::from_f64(f.damping * h);
                    let (mu, lame) = (T::from_f64(f.c0), T::from_f64(f.c1));
                    let lam = lambda[f.lambda_offset..].as_mut_ptr();
                    match &l.jacobi {
                        None => {
                            let project: ProjectItems<T> = get(lib, &k(&format!("project_items_{suffix}")));
                            for b in 0..f.batches() {
                                let (fi, count) = f.batch(b);
                                project(
                                    x.as_mut_ptr(),
                                    x_prev.as_ptr(),
                                    inv_mass.as_ptr(),
                                    f.idx.as_ptr(),
                                    dm.as_ptr(),
                                    vol.as_ptr(),
                                    lam,
                                    f.item_start.as_ptr(),
                                    fi,
                                    count,
                                    mu,
                                    lame,
                                    ht,
                                    beta_h,
                                );
                            }
                        }
                        Some(j) => {
                            let first_slot = j.family_start[i];
                            let jacobi: JacobiElements<T> = get(lib, &k(&format!("jacobi_{suffix}")));
                            let omega = T::from_f64(j.relaxation);
                            let count = f.elements() as u32;
                            jacobi(
                                x.as_ptr(),
                                x_prev.as_ptr(),
                                split_inv_mass.as_ptr(),
                                f.idx.as_ptr(),
                                dm.as_ptr(),
                                vol.as_ptr(),
                                lam,
                                inv_count.as_ptr(),
                                slots[3 * first_slot..].as_mut_ptr(),
                                omega,
                                count,
                                mu,
                                lame,
                                ht,
                                beta_h,
                            );
                        }
                    }
                }
                if let Some(j) = &l.jacobi {
                    get::<JacobiGather<T>>(lib, &k("jacobi_gather"))(x.as_mut_ptr(), slots.as_ptr(), j.start.as_ptr(), j.adj.as_ptr(), n);
                }
                if !soft.is_empty() {
                    let f: SoftAttachments<T> = get(lib, &k("soft_attachments"));
                    f(
                        x.as_mut_ptr(),
                        inv_mass.as_ptr(),
                        soft_v.as_ptr(),
                        soft_o.as_ptr(),
                        soft_vel.as_ptr(),
                        soft_c.as_ptr(),
                        soft_lambda.as_mut_ptr(),
                        ht,
                        t.as_ptr(),
                        soft.len() as u32,
                    );
                }
                if !pairs.is_empty() {
                    get::<ProjectPairRows<T>>(lib, &k("project_pair_rows"))(
                        x.as_mut_ptr(),
                        x_prev.as_ptr(),
                        inv_mass.as_ptr(),
                        pairs.vertices.as_ptr(),
                        pair_active.as_ptr(),
                        pair_weights.as_ptr(),
                        pair_normal.as_mut_ptr(),
                        pair_friction.as_ptr(),
                        pair_lambda_n.as_mut_ptr(),
                        pair_lambda_t.as_mut_ptr(),
                        thickness,
                        pairs.len() as u32,
                    );
                }
                if with_colliders {
                    get::<ProjectColliderRows<T>>(lib, &k("project_collider_rows"))(
                        x.as_mut_ptr(),
                        x_prev.as_ptr(),
                        inv_mass.as_ptr(),
                        surface.as_ptr(),
                        surface_count,
                        colliders.as_ptr(),
                        collider_count,
                        rows.as_ptr(),
                        normal.as_mut_ptr(),
                        lambda_n.as_mut_ptr(),
                        lambda_t.as_mut_ptr(),
                        ht,
                        t.as_ptr(),
                    );
                }
            }
            get::<UpdateVelocity<T>>(lib, &k("update_velocity"))(x.as_ptr(), x_prev.as_ptr(), v.as_mut_ptr(), ht, n);
            if with_colliders {
                let g = T::from_f64(model.gravity.norm());
                get::<Restitution<T>>(lib, &k("restitution"))(
                    v.as_mut_ptr(),
                    v_before.as_ptr(),
                    surface.as_ptr(),
                    surface_count,
                    colliders.as_ptr(),
                    collider_count,
                    rows.as_ptr(),
                    normal.as_ptr(),
                    lambda_n.as_ptr(),
                    g,
                    ht,
                );
                let pushed = |r: usize| lambda_n[r] > T::default();
                touched |= (0..lambda_n.len()).filter(|&r| pushed(r)).fold(0, |a, r| a | 1u32 << (r % model.colliders.len()));
                if report {
                    contacts = (0..lambda_n.len()).filter(|&r| pushed(r)).count();
                }
            }
            if report {
                contacts += pair_lambda_n.iter().filter(|&&l| l > T::default()).count();
                residuals.1 = residual(&x, &lambda);
            }
        }
    }
    let mut model_lambda = vec![f64::NAN; model.rows];
    l.export_multipliers(&lambda.iter().map(|l| l.to_f64()).collect::<Vec<_>>(), &mut model_lambda);
    HostFrame { x: x.iter().map(|s| s.to_f64()).collect(), v: v.iter().map(|s| s.to_f64()).collect(), lambda: model_lambda, residuals, touched, contacts }
}

/// Host kernels against `CpuBackend` over one frame: positions within `tolerance` of the body size; in double
/// precision also velocities, multipliers and the residuals. (Single-precision velocities are not compared: a
/// rounding of x near 1.5 m is 1e-7 m, i.e. 1e-3 m/s after division by h = 1.25e-4 s, and more on slivers.)
fn check<T: KernelScalar>(lib: &Library, name: &str, b: &Built, tolerance: f64) -> u32 {
    let model = &b.model;
    let mut cpu = CpuBackend::new(model, &b.config);
    let mut s = State::initial(model);
    let stats = cpu.step_frame(model, &mut s).unwrap();
    let HostFrame { x, v, lambda, residuals: (r0, r), touched, contacts } = host_frame::<T>(lib, b);
    let scale = size(model);
    let dx = (0..model.vertex_count()).map(|i| (0..3).map(|c| (x[3 * i + c] - s.x[i][c]).powi(2)).sum::<f64>().sqrt()).fold(0.0, f64::max);
    let dv = (0..model.vertex_count()).map(|i| (0..3).map(|c| (v[3 * i + c] - s.v[i][c]).powi(2)).sum::<f64>().sqrt()).fold(0.0, f64::max);
    let moved = s.x.iter().zip(&model.rest).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
    println!(
        "{name} ({}): |dx| = {dx:e} m, |dv| = {dv:e} m/s, moved {moved:e} m; residual host {r:e} cpu {:e}; contacts host {contacts} cpu {}",
        T::SUFFIX,
        stats.residual,
        stats.contacts
    );
    assert!(moved > 1e-4 * scale, "{name}: the scene moves");
    assert!(dx <= tolerance * scale, "{name} ({}): positions differ by {dx:e} m (tolerance {tolerance:e} of {scale} m)", T::SUFFIX);
    if T::SUFFIX == "f64" {
        // v = (x − x_prev)/h turns a position difference into one 1/h larger.
        assert!(dv <= tolerance * scale / b.config.h(), "{name}: velocities differ by {dv:e} m/s");
        let lmax = s.lambda.iter().fold(0.0f64, |m, l| m.max(l.abs()));
        let dl = s.lambda.iter().zip(&lambda).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
        assert!(dl <= 1e-8 * lmax, "{name}: multipliers differ by {dl:e} (largest {lmax:e})");
        assert!((r - stats.residual).abs() <= 1e-8 * stats.residual, "{name}: residual host {r:e}, cpu {:e}", stats.residual);
        assert!(r0 > 0.0 && (r / r0 - stats.relative_residual).abs() <= 1e-8 * stats.relative_residual.max(1e-300));
        assert_eq!(contacts, stats.contacts, "{name}: collider rows that pushed in the last substep");
    }
    touched
}

#[test]
fn host_compiled_kernels_match_the_cpu_backend_f64() {
    let Some(lib) = library_or_skip() else { return };
    for ordering in [COLORED, CLUSTERED, JACOBI] {
        assert_eq!(check::<f64>(lib, &format!("armadillo {ordering:?}"), &with_ordering(armadillo(), ordering), 1e-10), 0b1, "the plane is hit");
        let touched = check::<f64>(lib, &format!("armadillo on shapes {ordering:?}"), &with_ordering(armadillo_on_shapes(), ordering), 1e-10);
        assert_eq!(touched, 0b1111, "plane, sphere, box and cylinder are hit");
        for stretch in [0.0, 1e-5] {
            check::<f64>(lib, &format!("cloth stretch {stretch:e} {ordering:?}"), &with_ordering(cloth(stretch), ordering), 1e-10);
        }
        check::<f64>(lib, &format!("cloth bending_stiffness {ordering:?}"), &with_ordering(cloth_plate(), ordering), 1e-10);
        for (material, damping) in
            [("neohookean_block", 0.0), ("neohookean_block", 0.002), ("neohookean", 0.002), ("stvk", 0.002), ("arap", 0.0), ("arap", 0.002)]
        {
            check::<f64>(lib, &format!("beam {material} {damping} {ordering:?}"), &with_ordering(beam(material, damping), ordering), 1e-10);
        }
    }
}

/// Pair rows (contact between and within bodies): candidates kept on the host, rows decided by
/// `narrow_phase_pairs` and projected by `project_pair_rows` in one thread, against `CpuBackend`: the block
/// dropped onto the slab, the hanging cloth with its self contact, and a cube's corner on a ridge (vertex–edge).
#[test]
fn host_compiled_pair_rows_match_the_cpu_backend() {
    let Some(lib) = library_or_skip() else { return };
    for ordering in [COLORED, CLUSTERED, JACOBI] {
        let b = with_ordering(stack(), ordering);
        assert!(b.model.contact.has_pairs() && b.model.colliders.is_empty());
        check::<f64>(lib, &format!("stack {ordering:?}"), &b, 1e-10);
        let mut cpu = CpuBackend::new(&b.model, &b.config);
        let stats = cpu.step_frame(&b.model, &mut State::initial(&b.model)).unwrap();
        assert!(stats.contacts >= 5, "{ordering:?}: pair rows push ({})", stats.contacts);
        check::<f32>(lib, &format!("stack {ordering:?}"), &b, 1e-3);
    }
    let mut cloth = with_ordering(cloth(1e-5), CLUSTERED);
    cloth.model.contact.self_contact = true;
    check::<f64>(lib, "cloth with self contact", &cloth, 1e-10);
    let b = with_ordering(ridge(), CLUSTERED);
    let mut cpu = CpuBackend::new(&b.model, &b.config);
    cpu.step_frame(&b.model, &mut State::initial(&b.model)).unwrap();
    assert!(cpu.contacts().pairs.iter().any(|r| r.follows_edge() && r.pushes()), "a vertex–edge row pushes the cube's corner");
    check::<f64>(lib, "cube corner on a ridge", &b, 1e-10);
}

#[test]
fn host_compiled_kernels_in_f32_stay_within_1e_3_of_the_body_size() {
    let Some(lib) = library_or_skip() else { return };
    for ordering in [COLORED, CLUSTERED, JACOBI] {
        check::<f32>(lib, &format!("armadillo {ordering:?}"), &with_ordering(armadillo(), ordering), 1e-3);
        check::<f32>(lib, &format!("beam stvk {ordering:?}"), &with_ordering(beam("stvk", 0.002), ordering), 1e-3);
        check::<f32>(lib, &format!("beam arap {ordering:?}"), &with_ordering(beam("arap", 0.002), ordering), 1e-3);
        check::<f32>(lib, &format!("cloth {ordering:?}"), &with_ordering(cloth(1e-5), ordering), 1e-3);
    }
}

/// splitmix64, for test positions.
struct Rng(u64);

impl Rng {
    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        lo + (hi - lo) * ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn vector(&mut self, lo: [f64; 3], hi: [f64; 3]) -> Vec3 {
        Vec3::new(self.uniform(lo[0], hi[0]), self.uniform(lo[1], hi[1]), self.uniform(lo[2], hi[2]))
    }
}

/// The collider rows alone, host-compiled `detect_collider_rows`, `project_collider_rows` and `restitution`
/// against `xpbd_core::contact::ContactSet` from the same positions: the armadillo's surface scattered by a few
/// centimetres around and into the plane, sphere, box and cylinder, four passes, then restitution. With
/// `-ffp-contract=off` both round alike, so rows, multipliers, normals, positions and velocities agree bit for
/// bit. The coefficients are set so that rows stick (inside μ_s) and slide (μ_k), with μ_s > μ_k and μ_s < μ_k.
#[test]
fn collider_rows_match_the_cpu_contact_set_bit_for_bit() {
    type T = f64;
    let Some(lib) = library_or_skip() else { return };
    let mut b = armadillo_on_shapes();
    let frictions = [Friction { mu_s: 0.8, mu_k: 0.4 }, Friction { mu_s: 0.3, mu_k: 0.6 }, Friction::NONE, Friction { mu_s: 0.5, mu_k: 0.1 }];
    b.model.colliders.iter_mut().zip(frictions).for_each(|(c, f)| c.friction = f);
    let model = &b.model;
    let (h, t_end) = (b.config.h(), 0.5 * b.config.dt);
    let mut rng = Rng(7);
    let x_prev: Vec<Vec3> = model.rest.iter().map(|p| p + rng.vector([-0.01, -0.02, -0.01], [0.01, 0.0, 0.01])).collect();
    let x1: Vec<Vec3> = x_prev.iter().map(|p| p + rng.vector([-0.03, -0.05, -0.03], [0.03, 0.01, 0.03])).collect();
    let v_before: Vec<Vec3> = x_prev.iter().map(|_| rng.vector([-3.0; 3], [3.0; 3])).collect();
    let passes = 4;

    let mut set = ContactSet::default();
    set.detect(model, &x_prev, &x1, t_end);
    let mut x = x1.clone();
    for _ in 0..passes {
        set.project(model, &mut x, &x_prev, h, t_end);
    }
    let v_of = |x: &[Vec3]| -> Vec<Vec3> { x.iter().zip(&x_prev).map(|(a, b)| (a - b) / h).collect() };
    let mut v = v_of(&x);
    set.restitute(model, &mut v, &v_before, h);

    let surface = &model.contact.surface.vertices;
    let (cc, sc) = (model.colliders.len(), surface.len());
    let table: Vec<T> = collider_table(model);
    let (inv_mass, x_prev_d, t) = (model.inv_mass.clone(), flat3::<T>(&x_prev), [t_end]);
    let mut xd = flat3::<T>(&x1);
    let (mut rows, mut normal, mut lambda_n, mut lambda_t) = (vec![0u32; sc], vec![0.0; 3 * sc * cc], vec![1.0; sc * cc], vec![1.0; 3 * sc * cc]);
    let k = |name: &str| format!("{name}_f64");
    // SAFETY: arrays of the sizes the kernels index: 3n positions, n inverse masses, one flag per surface vertex,
    // 1 or 3 scalars per (surface vertex, collider).
    unsafe {
        get::<DetectColliderRows<T>>(lib, &k("detect_collider_rows"))(
            xd.as_ptr(),
            x_prev_d.as_ptr(),
            inv_mass.as_ptr(),
            surface.as_ptr(),
            sc as u32,
            table.as_ptr(),
            cc as u32,
            model.contact.thickness,
            t.as_ptr(),
            rows.as_mut_ptr(),
            lambda_n.as_mut_ptr(),
            lambda_t.as_mut_ptr(),
        );
        for _ in 0..passes {
            get::<ProjectColliderRows<T>>(lib, &k("project_collider_rows"))(
                xd.as_mut_ptr(),
                x_prev_d.as_ptr(),
                inv_mass.as_ptr(),
                surface.as_ptr(),
                sc as u32,
                table.as_ptr(),
                cc as u32,
                rows.as_ptr(),
                normal.as_mut_ptr(),
                lambda_n.as_mut_ptr(),
                lambda_t.as_mut_ptr(),
                h,
                t.as_ptr(),
            );
        }
    }
    let x_host: Vec<Vec3> = xd.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])).collect();
    let mut vd = flat3::<T>(&v_of(&x_host));
    // SAFETY: as above; 3n velocities.
    unsafe {
        get::<Restitution<T>>(lib, &k("restitution"))(
            vd.as_mut_ptr(),
            flat3::<T>(&v_before).as_ptr(),
            surface.as_ptr(),
            sc as u32,
            table.as_ptr(),
            cc as u32,
            rows.as_ptr(),
            normal.as_ptr(),
            lambda_n.as_ptr(),
            model.gravity.norm(),
            h,
        )
    };

    let rows = &rows;
    let device_rows: Vec<(u32, u32, usize)> =
        (0..sc).flat_map(|s| (0..cc).filter(move |&c| rows[s] & (1 << c) != 0).map(move |c| (surface[s], c as u32, s * cc + c))).collect();
    assert_eq!(device_rows.iter().map(|&(v, c, _)| (v, c)).collect::<Vec<_>>(), set.colliders.iter().map(|r| (r.vertex, r.collider)).collect::<Vec<_>>());
    let (mut sticking, mut sliding) = (0, 0);
    for (&(_, _, r), row) in device_rows.iter().zip(&set.colliders) {
        assert_eq!(lambda_n[r], row.lambda_n, "{row:?}");
        assert_eq!([lambda_t[3 * r], lambda_t[3 * r + 1], lambda_t[3 * r + 2]], [row.lambda_t.x, row.lambda_t.y, row.lambda_t.z], "{row:?}");
        assert_eq!([normal[3 * r], normal[3 * r + 1], normal[3 * r + 2]], [row.normal.x, row.normal.y, row.normal.z], "{row:?}");
        let f = model.colliders[row.collider as usize].friction;
        if row.lambda_n > 0.0 && row.lambda_t.norm() > 0.0 {
            if (row.lambda_t.norm() - f.mu_k * row.lambda_n).abs() <= 1e-12 * row.lambda_n && f.mu_s != f.mu_k {
                sliding += 1;
            } else if row.lambda_t.norm() < f.mu_s * row.lambda_n {
                sticking += 1;
            }
        }
    }
    assert_eq!(xd, flat3::<T>(&x), "positions");
    assert_eq!(vd, flat3::<T>(&v), "velocities after restitution");
    let pushed = set.colliders.iter().filter(|r| r.pushes()).count();
    let bounced = (0..v.len()).filter(|&i| v[i] != v_of(&x)[i]).count();
    println!("{} rows, {pushed} pushing ({sticking} sticking, {sliding} sliding), {bounced} bounced", set.colliders.len());
    assert!(sticking > 0 && sliding > 0 && bounced > 0 && pushed < set.colliders.len(), "every branch is taken");
}
