//! What a `[[body.pin]]` selects (docs/scene-format.md): the body's vertices inside its `box` and those it lists
//! by `indices`. The scene builder holds them; `xpbd info` counts them.

use super::finite::finite3;
use super::schema::Pin;
use crate::mesh::Vec3;
use crate::{Error, Result};

/// The body-local indices of the vertices `pin` selects among the body's rest positions `rest`, sorted and
/// distinct; `what` names the pin in errors (`body[0].pin[1]`). A pin that selects nothing is an error.
pub fn selected(pin: &Pin, rest: &[Vec3], what: &str) -> Result<Vec<usize>> {
    let mut selected: Vec<usize> = Vec::new();
    if let Some(b) = &pin.region {
        let (lo, hi) = (finite3(b.min, &format!("{what}.box.min"))?, finite3(b.max, &format!("{what}.box.max"))?);
        selected.extend((0..rest.len()).filter(|&i| (0..3).all(|k| rest[i][k] >= lo[k] && rest[i][k] <= hi[k])));
    }
    if let Some(ix) = &pin.indices {
        if let Some(bad) = ix.iter().find(|&&i| i as usize >= rest.len()) {
            return Err(Error::invalid(format!("{what}.indices: vertex {bad} is beyond the body's {} vertices", rest.len())));
        }
        selected.extend(ix.iter().map(|&i| i as usize));
    }
    if pin.region.is_none() && pin.indices.is_none() {
        return Err(Error::invalid(format!("{what}: needs `box` or `indices`")));
    }
    selected.sort_unstable();
    selected.dedup();
    if selected.is_empty() {
        return Err(Error::invalid(format!("{what}: selects no vertex of the body")));
    }
    Ok(selected)
}
