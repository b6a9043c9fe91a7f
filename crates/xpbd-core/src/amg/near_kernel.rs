//! Near-kernel vectors B, the low-energy modes the tentative prolongator must reproduce
//! (the MGPBD paper §4.1): the constant vector, or k random vectors in [−1, 1] relaxed by s forward
//! Gauss-Seidel sweeps on `A x = 0`, which leaves what Gauss-Seidel cannot reduce.
//!
//! B is stored column-major: column c is `b[c * n..(c + 1) * n]`.

use super::{AmgOptions, NearKernel};
use crate::sparse::Csr;

/// The near-kernel block of `a` for `options` (`n × k`, column-major) and its column count k.
pub fn near_kernel(a: &Csr, options: &AmgOptions) -> (Vec<f64>, usize) {
    let n = a.rows();
    match options.near_kernel {
        NearKernel::Constant => (vec![1.0; n], 1),
        NearKernel::Gs => {
            let k = options.near_kernel_vectors;
            let mut rng = fastrand::Rng::with_seed(options.seed);
            let mut b: Vec<f64> = (0..n * k).map(|_| 2.0 * rng.f64() - 1.0).collect();
            for col in b.chunks_mut(n) {
                for _ in 0..options.near_kernel_sweeps {
                    gauss_seidel_homogeneous(a, col);
                }
            }
            (b, k)
        }
    }
}

/// One forward Gauss-Seidel sweep on `A x = 0`.
fn gauss_seidel_homogeneous(a: &Csr, x: &mut [f64]) {
    for (i, row) in a.outer_iterator().enumerate() {
        let (mut off, mut diag) = (0.0, 0.0);
        for (j, &v) in row.iter() {
            if j == i {
                diag = v;
            } else {
                off += v * x[j];
            }
        }
        if diag != 0.0 {
            x[i] = -off / diag;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::model_problems::poisson;
    use super::*;
    use crate::sparse::{dot, spmv};

    /// Gauss-Seidel vectors have a much lower Rayleigh quotient `xᵀAx / xᵀx` than their random
    /// starts (they are near-kernel), are reproducible for a seed and differ across seeds.
    #[test]
    fn gs_vectors_are_smooth_and_seeded() {
        let a = poisson(&[20, 20]);
        let n = a.rows();
        let mut o = AmgOptions { near_kernel: NearKernel::Gs, near_kernel_vectors: 3, ..Default::default() };
        let rayleigh = |x: &[f64]| {
            let mut ax = vec![0.0; n];
            spmv(&a, x, &mut ax);
            dot(x, &ax) / dot(x, x)
        };
        let (b, k) = near_kernel(&a, &o);
        assert_eq!((b.len(), k), (3 * n, 3));
        o.near_kernel_sweeps = 0;
        let (raw, _) = near_kernel(&a, &o);
        assert!(raw.iter().all(|v| (-1.0..1.0).contains(v)));
        for c in 0..3 {
            let (smooth, rough) = (rayleigh(&b[c * n..(c + 1) * n]), rayleigh(&raw[c * n..(c + 1) * n]));
            assert!(smooth < 0.1 * rough, "column {c}: {smooth} vs {rough}");
        }
        o.near_kernel_sweeps = 20;
        assert_eq!(near_kernel(&a, &o).0, b);
        o.seed = 7;
        assert_ne!(near_kernel(&a, &o).0, b);
    }
}
