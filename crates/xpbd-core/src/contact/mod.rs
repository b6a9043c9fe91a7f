//! Contact: rows C ≥ 0 between a body and a collider, between bodies and within one body, detected once per
//! substep and solved inside the constraint iterations with Coulomb friction (docs/contact.md).

pub mod crossings;
pub mod detect;
pub mod distance;
pub mod forces;
pub mod friction;
pub mod model;
pub mod restitution;
pub mod rows;
pub mod set;
pub mod surface;
mod verlet;
mod wedge;

pub use forces::ContactForces;
pub use friction::Friction;
pub use model::ContactModel;
pub use rows::{ColliderRow, PairRow};
pub use set::ContactSet;
pub use surface::Surface;
pub use wedge::{WedgeCandidate, NO_TRIANGLE};
