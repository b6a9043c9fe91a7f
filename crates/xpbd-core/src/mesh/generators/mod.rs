//! Procedural meshes: `box`, `sphere`, `torus`, `capsule` (voxelized signed distance), `grid2d` (cloth and
//! flat shells), `sphere_shell` (closed icosphere) and `cylinder_shell` (open tube).
//!
//! Every generator validates its parameters and refuses requests above [`MAX_ELEMENTS`] before
//! allocating. Tetrahedra come out positively oriented (`signed_tet_volume > 0`) and conforming.

mod box_grid;
mod cylinder_shell;
mod grid2d;
mod sphere_shell;
mod voxel;

pub use box_grid::box_mesh;
pub use cylinder_shell::cylinder_shell_mesh;
pub use grid2d::{grid2d_mesh, GridPattern};
pub use sphere_shell::sphere_shell_mesh;
pub use voxel::{capsule_mesh, sphere_mesh, torus_mesh};

use crate::{Error, Result};

/// Largest number of elements (tets or triangles) a generator will produce.
pub const MAX_ELEMENTS: usize = 50_000_000;

/// Rejects any split other than 5 or 6.
fn check_split(shape: &str, split: u8) -> Result<()> {
    match split {
        5 | 6 => Ok(()),
        _ => Err(Error::invalid(format!("{shape}: split must be 5 or 6, got {split}"))),
    }
}

/// Rejects a length that is not finite and strictly positive.
fn check_length(shape: &str, field: &str, value: f64) -> Result<()> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::invalid(format!("{shape}: {field} must be finite and > 0, got {value}")))
    }
}

/// Rejects zero cell counts in any axis.
fn check_cells(shape: &str, cells: &[usize]) -> Result<()> {
    if cells.iter().all(|&n| n >= 1) {
        Ok(())
    } else {
        Err(Error::invalid(format!("{shape}: cells must be ≥ 1 in every axis, got {cells:?}")))
    }
}

/// Rejects grids whose element count `product(cells) · per_cell` would exceed [`MAX_ELEMENTS`].
fn check_element_cap(shape: &str, cells: &[usize], per_cell: usize) -> Result<()> {
    let total = cells.iter().try_fold(per_cell, |acc, &n| acc.checked_mul(n)).filter(|&t| t <= MAX_ELEMENTS);
    match total {
        Some(_) => Ok(()),
        None => Err(Error::invalid(format!("{shape}: cells {cells:?} would give more than {MAX_ELEMENTS} elements"))),
    }
}

/// Helpers for the triangle generators' tests.
#[cfg(test)]
mod test_support {
    use crate::mesh::TriMesh;
    use std::collections::HashMap;

    /// How many times each directed edge `(a, b)` is traversed by the triangles' boundaries.
    pub fn directed_edges(m: &TriMesh) -> HashMap<(u32, u32), usize> {
        let mut directed = HashMap::new();
        for t in &m.tris {
            for e in 0..3 {
                *directed.entry((t[e], t[(e + 1) % 3])).or_default() += 1;
            }
        }
        directed
    }

    /// Total area, and the signed volume Σ a·(b × c)/6 (the enclosed volume for a closed surface
    /// with outward normals).
    pub fn area_and_volume(m: &TriMesh) -> (f64, f64) {
        m.tris.iter().fold((0.0, 0.0), |(area, volume), t| {
            let [a, b, c] = t.map(|i| m.vertices[i as usize]);
            (area + 0.5 * (b - a).cross(&(c - a)).norm(), volume + a.dot(&b.cross(&c)) / 6.0)
        })
    }
}
