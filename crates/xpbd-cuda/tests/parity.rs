//! GPU kernels against the CPU formulas of `xpbd_cuda::reference`. Skipped (and reported) without a usable GPU.

use xpbd_cuda::{reference, GpuPredict};

/// splitmix64: a small deterministic generator, enough for test data.
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi).
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

struct Scene {
    x: Vec<f64>,
    v: Vec<f64>,
    inv_mass: Vec<f64>,
}

/// n vertices at random positions with random velocities; about one in eight pinned (inverse mass 0, at rest).
fn scene(n: usize, seed: u64) -> Scene {
    let mut rng = Rng(seed);
    let mut x = Vec::with_capacity(3 * n);
    let mut v = Vec::with_capacity(3 * n);
    let mut inv_mass = Vec::with_capacity(n);
    for _ in 0..n {
        let pinned = rng.next_u64() % 8 == 0;
        inv_mass.push(if pinned { 0.0 } else { rng.uniform(0.1, 10.0) });
        for _ in 0..3 {
            x.push(rng.uniform(-5.0, 5.0));
            v.push(if pinned { 0.0 } else { rng.uniform(-2.0, 2.0) });
        }
    }
    Scene { x, v, inv_mass }
}

fn gpu_or_skip() -> Option<GpuPredict> {
    match GpuPredict::new(0) {
        Ok(gpu) => {
            println!("running on {:?}", gpu.device());
            Some(gpu)
        }
        Err(reason) => {
            println!("skipped: {reason}");
            None
        }
    }
}

/// |a - b| within a few ulps: the GPU contracts `a + h * b` into one fused multiply-add (nvcc's default, no
/// fast-math), the CPU rounds twice.
fn assert_close<T: Into<f64> + Copy>(what: &str, gpu: &[T], cpu: &[T], ulps: f64, eps: f64) {
    assert_eq!(gpu.len(), cpu.len());
    for (i, (&g, &c)) in gpu.iter().zip(cpu).enumerate() {
        let (g, c): (f64, f64) = (g.into(), c.into());
        let tol = ulps * eps * c.abs().max(1.0);
        assert!((g - c).abs() <= tol, "{what}[{i}]: gpu {g:e} vs cpu {c:e} (tolerance {tol:e})");
    }
}

#[test]
fn predict_f64_matches_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1000;
    let Scene { x, v, inv_mass } = scene(n, 42);
    let (gravity, h) = ([0.0, -9.81, 0.0], 1.0 / 600.0);
    // Velocity damping c = 3/s: damp = exp(-c h).
    let damp = (-3.0f64 * h).exp();

    let (mut x_gpu, mut v_gpu, mut x_prev_gpu) = (x.clone(), v.clone(), vec![f64::NAN; 3 * n]);
    gpu.predict(&mut x_gpu, &mut v_gpu, &mut x_prev_gpu, &inv_mass, gravity, damp, h).unwrap();
    let (mut x_cpu, mut v_cpu, mut x_prev_cpu) = (x.clone(), v.clone(), vec![f64::NAN; 3 * n]);
    reference::predict(&mut x_cpu, &mut v_cpu, &mut x_prev_cpu, &inv_mass, gravity, damp, h);

    assert_eq!(x_prev_gpu, x, "x_prev is the old x, exactly");
    assert_close("v", &v_gpu, &v_cpu, 4.0, f64::EPSILON);
    assert_close("x", &x_gpu, &x_cpu, 4.0, f64::EPSILON);
    for (i, &w) in inv_mass.iter().enumerate() {
        if w == 0.0 {
            assert_eq!(&x_gpu[3 * i..3 * i + 3], &x[3 * i..3 * i + 3], "pinned vertex {i} moved");
            assert_eq!(&v_gpu[3 * i..3 * i + 3], &[0.0; 3], "pinned vertex {i} gained velocity");
        }
    }
    assert!(inv_mass.iter().filter(|&&w| w == 0.0).count() > 50, "the scene has pinned vertices");

    // The velocity update recovers the velocities that moved the vertices.
    let mut v_back_gpu = vec![f64::NAN; 3 * n];
    gpu.update_velocity(&x_gpu, &x_prev_gpu, &mut v_back_gpu, h).unwrap();
    let mut v_back_cpu = vec![f64::NAN; 3 * n];
    reference::update_velocity(&x_gpu, &x_prev_gpu, &mut v_back_cpu, h);
    assert_eq!(v_back_gpu, v_back_cpu, "division is correctly rounded on both sides");
    assert_close("v round trip", &v_back_gpu, &v_gpu, 1e4, f64::EPSILON);
}

#[test]
fn predict_f32_matches_cpu() {
    let Some(gpu) = gpu_or_skip() else { return };
    let n = 1000;
    let Scene { x, v, inv_mass } = scene(n, 7);
    let to32 = |a: &[f64]| a.iter().map(|&s| s as f32).collect::<Vec<f32>>();
    let (x, v, inv_mass) = (to32(&x), to32(&v), to32(&inv_mass));
    let (gravity, h) = ([0.0f32, -9.81, 0.0], 1.0f32 / 600.0);

    let (mut x_gpu, mut v_gpu, mut x_prev_gpu) = (x.clone(), v.clone(), vec![0.0f32; 3 * n]);
    gpu.predict(&mut x_gpu, &mut v_gpu, &mut x_prev_gpu, &inv_mass, gravity, 1.0, h).unwrap();
    let (mut x_cpu, mut v_cpu, mut x_prev_cpu) = (x.clone(), v.clone(), vec![0.0f32; 3 * n]);
    reference::predict(&mut x_cpu, &mut v_cpu, &mut x_prev_cpu, &inv_mass, gravity, 1.0, h);

    assert_eq!(x_prev_gpu, x);
    assert_close("v", &v_gpu, &v_cpu, 4.0, f32::EPSILON as f64);
    assert_close("x", &x_gpu, &x_cpu, 4.0, f32::EPSILON as f64);

    let mut v_back_gpu = vec![0.0f32; 3 * n];
    gpu.update_velocity(&x_gpu, &x_prev_gpu, &mut v_back_gpu, h).unwrap();
    let mut v_back_cpu = vec![0.0f32; 3 * n];
    reference::update_velocity(&x_gpu, &x_prev_gpu, &mut v_back_cpu, h);
    assert_eq!(v_back_gpu, v_back_cpu);
}

#[test]
fn bad_lengths_are_errors_not_panics() {
    let Some(gpu) = gpu_or_skip() else { return };
    let mut x = vec![0.0f64; 6];
    let mut v = vec![0.0f64; 6];
    let mut p = vec![0.0f64; 6];
    let err = gpu.predict(&mut x, &mut v, &mut p, &[1.0], [0.0; 3], 1.0, 0.01).unwrap_err().to_string();
    assert!(err.contains("3n"), "{err}");
    // Zero vertices is a no-op.
    gpu.predict::<f64>(&mut [], &mut [], &mut [], &[], [0.0; 3], 1.0, 0.01).unwrap();
}

#[test]
fn reference_keeps_pinned_vertices() {
    // The CPU side of the parity test, checked on its own (runs everywhere).
    let mut x = vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut v = vec![0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
    let mut p = vec![0.0; 6];
    reference::predict(&mut x, &mut v, &mut p, &[0.0, 1.0], [0.0, -10.0, 0.0], 0.5, 0.5);
    // v = 0.5 (1, 0, 0) + 0.5 (0, -10, 0); x += 0.5 v.
    assert_eq!(x, [1.0, 2.0, 3.0, 4.25, 2.5, 6.0]);
    assert_eq!(v, [0.0, 0.0, 0.0, 0.5, -5.0, 0.0]);
    assert_eq!(p, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let mut v2 = vec![0.0; 6];
    reference::update_velocity(&x, &p, &mut v2, 0.5);
    assert_eq!(v2, [0.0, 0.0, 0.0, 0.5, -5.0, 0.0]);
}
