//! The scalar types the kernels are instantiated for.

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// `f32` or `f64`: a kernel `<name>` is exported as `<name>_f32` and `<name>_f64` (see `kernels/common.cuh`).
pub trait KernelScalar: sealed::Sealed + DeviceRepr + ValidAsZeroBits + Copy + Default + PartialOrd + std::fmt::Debug + Send + Sync + 'static {
    /// "f32" or "f64".
    const SUFFIX: &'static str;

    /// The exported name of kernel `name` for this scalar type: `<name>_f32` or `<name>_f64`.
    fn kernel_name(name: &str) -> String {
        format!("{name}_{}", Self::SUFFIX)
    }

    /// The model's f64 value in this precision (rounded to nearest for f32).
    fn from_f64(v: f64) -> Self;

    fn to_f64(self) -> f64;
}

impl KernelScalar for f32 {
    const SUFFIX: &'static str = "f32";
    fn from_f64(v: f64) -> Self {
        v as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}

impl KernelScalar for f64 {
    const SUFFIX: &'static str = "f64";
    fn from_f64(v: f64) -> Self {
        v
    }
    fn to_f64(self) -> f64 {
        self
    }
}
