//! Linear algebra on a device: the operations ([`LinearOps`], [`DeviceCsr`]), their CUDA implementation, the AMG
//! hierarchy ([`amg`]) and preconditioned conjugate gradients ([`pcg`]) written once against them.

pub mod amg;
mod cuda_impl;
pub mod ops;
pub mod pcg;

pub use ops::{DeviceCsr, LinearOps};
