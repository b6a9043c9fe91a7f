//! MGPBD on a device (issue 7): its operations as an extension of the linear algebra ([`MgpbdOps`], implemented
//! for [`crate::CudaOps`]), the device forms of its rows ([`rows`]), of the primal and dual matrices' patterns and
//! of the soft attachments, the primal solve ([`primal`]) and the plain-CG baseline ([`dual`]), one outer
//! iteration ([`outer`]) and the substep loop around it ([`device::MgpbdDevice`], which `CudaBackend` runs for
//! MGPBD scenes).

pub mod attachments;
mod cuda_impl;
pub mod device;
pub mod dual;
pub mod dual_pattern;
pub mod incidence;
pub mod ops;
pub mod outer;
pub mod primal;
pub mod primal_pattern;
pub mod rows;

pub use ops::MgpbdOps;
