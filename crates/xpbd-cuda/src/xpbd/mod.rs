//! XPBD on a device: the model flattened for the kernels ([`layout`]), its device memory known in advance
//! ([`footprint`]), uploaded once ([`device_model`]), the
//! substep loop that runs on it ([`runner`]), its contact rows read back for output ([`contact_rows`]), and the
//! prediction kernels on host arrays ([`predict`]) with their CPU reference ([`reference`]).

pub mod contact_rows;
pub mod device_model;
pub mod footprint;
pub mod layout;
pub mod predict;
pub mod reference;
pub mod runner;
