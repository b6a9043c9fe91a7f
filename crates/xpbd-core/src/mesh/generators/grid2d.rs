//! `grid2d`: a rectangular triangle grid in the x–y plane, for cloth.

use super::{check_cells, check_element_cap, check_length};
use crate::mesh::{TriMesh, Vec3};
use crate::Result;

/// How `grid2d` splits each cell into two triangles (scene key `mesh.pattern`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GridPattern {
    /// Diagonals alternating with the parity of `i + j`: neighbouring cells mirror each other (the default).
    #[default]
    Alternating,
    /// Every diagonal from corner (i, j) to (i+1, j+1): one direction everywhere, so the sheet is stiffer
    /// folding across that diagonal than along the other (the cloth report's "dependence on the mesh structure").
    Uniform,
}

impl GridPattern {
    /// The scene's names, for messages.
    pub const NAMES: &'static str = "alternating, uniform";

    /// The pattern called `name`; `None` for an unknown name.
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "alternating" => Some(GridPattern::Alternating),
            "uniform" => Some(GridPattern::Uniform),
            _ => None,
        }
    }
}

/// A grid over `[0, size[0]] × [0, size[1]]` at z = 0 with `cells[a]` cells per axis, two
/// triangles per cell split by `pattern`, counter-clockwise seen from +z. Vertex `(i, j)` has index
/// `i + (nx+1)·j`.
pub fn grid2d_mesh(size: [f64; 2], cells: [usize; 2], pattern: GridPattern) -> Result<TriMesh> {
    check_length("grid2d", "size[0]", size[0])?;
    check_length("grid2d", "size[1]", size[1])?;
    check_cells("grid2d", &cells)?;
    check_element_cap("grid2d", &cells, 2)?;
    let [nx, ny] = cells;
    let mut vertices = Vec::with_capacity((nx + 1) * (ny + 1));
    for j in 0..=ny {
        for i in 0..=nx {
            let x = size[0] * i as f64 / nx as f64;
            let y = size[1] * j as f64 / ny as f64;
            vertices.push(Vec3::new(x, y, 0.0));
        }
    }
    let mut tris = Vec::with_capacity(2 * nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let v00 = (i + (nx + 1) * j) as u32;
            let (v10, v01) = (v00 + 1, v00 + nx as u32 + 1);
            let parity = match pattern {
                GridPattern::Alternating => i + j,
                GridPattern::Uniform => 0,
            };
            tris.extend(split_cell([v00, v10, v01, v01 + 1], parity));
        }
    }
    Ok(TriMesh { vertices, tris })
}

/// The two counter-clockwise triangles of the grid cell with corners [v00, v10, v01, v11] (u first, then v), its
/// diagonal alternating with the parity of `i + j` so that neighbouring cells mirror each other.
pub(super) fn split_cell([v00, v10, v01, v11]: [u32; 4], parity: usize) -> [[u32; 3]; 2] {
    if parity.is_multiple_of(2) {
        [[v00, v10, v11], [v00, v11, v01]]
    } else {
        [[v00, v10, v01], [v10, v11, v01]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn counts_normals_and_area() {
        let (size, cells) = ([1.5, 0.75], [6, 4]);
        let m = grid2d_mesh(size, cells, GridPattern::Alternating).unwrap();
        assert_eq!(m.vertices.len(), 7 * 5);
        assert_eq!(m.tris.len(), 2 * 6 * 4);
        assert!(m.vertices.iter().all(|v| v.z == 0.0));
        let cell_area = size[0] / 6.0 * size[1] / 4.0;
        let mut area = 0.0;
        for t in &m.tris {
            let [a, b, c] = t.map(|i| m.vertices[i as usize]);
            let n = (b - a).cross(&(c - a));
            assert!(n.x == 0.0 && n.y == 0.0 && n.z > 0.0, "{t:?}: {n}");
            assert!((n.z / 2.0 - cell_area / 2.0).abs() < 1e-12);
            area += n.z / 2.0;
        }
        assert!((area - size[0] * size[1]).abs() < 1e-12 * area);
        assert_eq!(m.vertices[6 + 7 * 4], Vec3::new(1.5, 0.75, 0.0));
    }

    #[test]
    fn diagonals_alternate_and_edges_match() {
        let m = grid2d_mesh([1.0, 1.0], [3, 3], GridPattern::Alternating).unwrap();
        // Cell (0,0) uses diagonal 0–5, cell (1,0) uses diagonal 2–5 (vertex indices in a 4×4 grid).
        assert!(m.tris[0].contains(&0) && m.tris[0].contains(&5));
        assert!(m.tris[2].contains(&2) && m.tris[2].contains(&5) && m.tris[3].contains(&2));
        // Interior edges are shared by two triangles with opposite directions.
        let mut directed: HashMap<(u32, u32), usize> = HashMap::new();
        for t in &m.tris {
            for e in 0..3 {
                *directed.entry((t[e], t[(e + 1) % 3])).or_default() += 1;
            }
        }
        assert!(directed.values().all(|&n| n == 1));
        let boundary = directed.keys().filter(|&&(a, b)| !directed.contains_key(&(b, a))).count();
        assert_eq!(boundary, 4 * 3);
    }

    #[test]
    fn the_uniform_pattern_cuts_every_cell_along_the_same_diagonal() {
        let (size, cells) = ([1.0, 0.5], [4, 3]);
        let (a, u) = (grid2d_mesh(size, cells, GridPattern::Alternating).unwrap(), grid2d_mesh(size, cells, GridPattern::Uniform).unwrap());
        assert_eq!(a.vertices, u.vertices);
        assert_eq!(u.tris.len(), a.tris.len());
        for (c, pair) in u.tris.chunks(2).enumerate() {
            let (i, j) = (c % 4, c / 4);
            let (v00, v11) = ((i + 5 * j) as u32, (i + 1 + 5 * (j + 1)) as u32);
            assert!(pair.iter().all(|t| t.contains(&v00) && t.contains(&v11)), "cell {c}: {pair:?}");
            for t in pair {
                let [p, q, r] = t.map(|k| u.vertices[k as usize]);
                assert!((q - p).cross(&(r - p)).z > 0.0, "{t:?} is clockwise");
            }
        }
        // The alternating pattern differs from it in every other cell.
        let differing = a.tris.chunks(2).zip(u.tris.chunks(2)).filter(|(x, y)| x != y).count();
        assert_eq!(differing, 6);
        assert_eq!(GridPattern::named("uniform"), Some(GridPattern::Uniform));
        assert_eq!(GridPattern::named("crossed"), None);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let err = |r: Result<TriMesh>| r.unwrap_err().to_string();
        assert_eq!(err(grid2d_mesh([1.0, 1.0], [3, 0], GridPattern::Alternating)), "grid2d: cells must be ≥ 1 in every axis, got [3, 0]");
        assert!(err(grid2d_mesh([0.0, 1.0], [3, 3], GridPattern::Alternating)).starts_with("grid2d: size[0]"));
        assert!(err(grid2d_mesh([1.0, f64::NAN], [3, 3], GridPattern::Alternating)).starts_with("grid2d: size[1]"));
        assert!(err(grid2d_mesh([1.0, 1.0], [100_000, 100_000], GridPattern::Alternating)).contains("cells"));
    }
}
