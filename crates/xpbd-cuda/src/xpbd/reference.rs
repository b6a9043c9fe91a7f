//! CPU versions of the kernels' formulas, the reference the GPU parity tests compare against.
//! Same flat layout as the kernels: positions, velocities, previous positions are 3n scalars; inverse masses n.

use std::ops::{Add, Div, Mul, Sub};

/// `v = damp v + h g` for free vertices (inverse mass > 0), `x_prev = x`, `x += h v`: `kernels/predict.cu`'s
/// `predict` (and `crates/xpbd-core/src/substep/integrate.rs`: `damp = exp(-c h)` for velocity damping c, 1 without).
pub fn predict<T>(x: &mut [T], v: &mut [T], x_prev: &mut [T], inv_mass: &[T], gravity: [T; 3], damp: T, h: T)
where
    T: Copy + Default + PartialOrd + Add<Output = T> + Mul<Output = T>,
{
    assert!(x.len() == 3 * inv_mass.len() && v.len() == x.len() && x_prev.len() == x.len());
    for (i, &w) in inv_mass.iter().enumerate() {
        for (k, &g) in gravity.iter().enumerate() {
            let j = 3 * i + k;
            if w > T::default() {
                v[j] = v[j] * damp + g * h;
            }
            x_prev[j] = x[j];
            x[j] = x[j] + h * v[j];
        }
    }
}

/// `v = (x - x_prev) / h`: `kernels/predict.cu`'s `update_velocity`.
pub fn update_velocity<T>(x: &[T], x_prev: &[T], v: &mut [T], h: T)
where
    T: Copy + Sub<Output = T> + Div<Output = T>,
{
    assert!(x_prev.len() == x.len() && v.len() == x.len());
    for ((v, &x), &p) in v.iter_mut().zip(x).zip(x_prev) {
        *v = (x - p) / h;
    }
}
