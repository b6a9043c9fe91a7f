//! Multi-layer XPBD (the multi-layer paper; thesis ch. 5): rigid bodies inside XPBD, strain rates, the
//! incremental union-find merging and the layer schedules. The solver loop lives in the backends.

pub mod element_history;
pub mod hierarchy;
pub mod modal_stretch;
pub mod order_key;
pub mod rigid_body;
pub mod schedule;
pub mod settings;
pub mod strain_rate;
pub mod union_find;
