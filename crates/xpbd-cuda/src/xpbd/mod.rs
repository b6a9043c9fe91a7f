//! XPBD on a device: the model flattened for the kernels ([`layout`]), uploaded once ([`device_model`]), the
//! substep loop that runs on it ([`runner`]), its contact rows read back for output ([`contact_rows`]), and the
//! prediction kernels on host arrays ([`predict`]) with their CPU reference ([`reference`]).

pub mod contact_rows;
pub mod device_model;
pub mod layout;
pub mod predict;
pub mod reference;
pub mod runner;
