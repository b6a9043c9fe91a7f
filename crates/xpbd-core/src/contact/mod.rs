//! Contact: rows C ≥ 0 between a body and a collider, between bodies and within one body, solved inside
//! the constraint iterations with Coulomb friction (docs/contact.md).

pub mod friction;

pub use friction::Friction;
