//! The check every vector of a scene passes once parsed: finite components, or an error naming the field.

use crate::mesh::Vec3;
use crate::{Error, Result};

/// `v` as a vector when every component is finite; else an error naming the field `what`.
pub fn finite3(v: [f64; 3], what: &str) -> Result<Vec3> {
    if v.iter().all(|x| x.is_finite()) {
        Ok(Vec3::from(v))
    } else {
        Err(Error::invalid(format!("{what}: must be finite, got {v:?}")))
    }
}
