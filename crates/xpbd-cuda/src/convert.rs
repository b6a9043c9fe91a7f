//! The conversions between the model's host arrays and the kernels' flat ones: `f64` to the kernel scalar and
//! back, vectors to 3 scalars each and back, `usize` offsets to the kernels' 32-bit indices, and the one element
//! that stands for an empty array (a device allocation cannot be empty).

use xpbd_core::mesh::Vec3;

use crate::runtime::KernelScalar;

/// The model's `f64` values in the kernel scalar.
pub fn to_t<T: KernelScalar>(a: &[f64]) -> Vec<T> {
    a.iter().map(|&v| T::from_f64(v)).collect()
}

/// Kernel scalars read back, as `f64`.
pub fn to_f64<T: KernelScalar>(a: &[T]) -> Vec<f64> {
    a.iter().map(|v| v.to_f64()).collect()
}

/// Three scalars of type `T` per vector.
pub fn flat3<T: KernelScalar>(a: impl IntoIterator<Item = Vec3>) -> Vec<T> {
    a.into_iter().flat_map(|p| [p.x, p.y, p.z]).map(T::from_f64).collect()
}

/// One vector per three scalars (the inverse of [`flat3`]).
pub fn vectors(a: &[f64]) -> Vec<Vec3> {
    a.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])).collect()
}

/// Offsets or indices as the kernels' 32-bit indices (the support checks bound them).
pub fn narrow(a: &[usize]) -> Vec<u32> {
    a.iter().map(|&i| i as u32).collect()
}

/// `a`, or one default element when empty (a device allocation cannot be empty).
pub fn nonempty<T: Copy + Default>(a: &[T]) -> Vec<T> {
    if a.is_empty() {
        vec![T::default()]
    } else {
        a.to_vec()
    }
}
