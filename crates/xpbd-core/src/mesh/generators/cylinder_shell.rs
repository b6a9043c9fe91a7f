//! `cylinder_shell`: an open tube (a cylinder surface without caps), for shells.

use super::grid2d::split_cell;
use super::{check_cells, check_element_cap, check_length};
use crate::mesh::{TriMesh, Vec3};
use crate::Result;

/// A tube of `radius` around the z axis from z = 0 to z = `length`, with `around` vertices on
/// each ring and `along` cells between its `along + 1` rings; two triangles per cell with
/// diagonals alternating by the parity of `i+j`. Vertex `i` of ring `j` (angle 2π·i/around) has
/// index `i + around·j`. Triangles are counter-clockwise seen from outside (normals point away
/// from the axis); the two end rings are open boundaries.
pub fn cylinder_shell_mesh(radius: f64, length: f64, cells: [usize; 2]) -> Result<TriMesh> {
    check_length("cylinder_shell", "radius", radius)?;
    check_length("cylinder_shell", "size[0]", length)?;
    check_cells("cylinder_shell", &cells)?;
    if cells[0] < 3 {
        return Err(crate::Error::invalid(format!("cylinder_shell: cells[0] (around) must be ≥ 3, got {}", cells[0])));
    }
    check_element_cap("cylinder_shell", &cells, 2)?;
    let [around, along] = cells;
    let mut vertices = Vec::with_capacity(around * (along + 1));
    for j in 0..=along {
        for i in 0..around {
            let angle = std::f64::consts::TAU * i as f64 / around as f64;
            vertices.push(Vec3::new(radius * angle.cos(), radius * angle.sin(), length * j as f64 / along as f64));
        }
    }
    let index = |i: usize, j: usize| (i % around + around * j) as u32;
    let mut tris = Vec::with_capacity(2 * around * along);
    for j in 0..along {
        for i in 0..around {
            tris.extend(split_cell([index(i, j), index(i + 1, j), index(i, j + 1), index(i + 1, j + 1)], i + j));
        }
    }
    Ok(TriMesh { vertices, tris })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::test_support::{area_and_volume, directed_edges};
    use std::f64::consts::{PI, TAU};

    #[test]
    fn open_tube_oriented_outwards() {
        let (radius, length) = (0.3, 1.2);
        for cells in [[3, 1], [16, 5], [48, 20]] {
            let m = cylinder_shell_mesh(radius, length, cells).unwrap();
            let [around, along] = cells;
            assert_eq!(m.vertices.len(), around * (along + 1));
            assert_eq!(m.tris.len(), 2 * around * along);
            let edges = directed_edges(&m);
            assert!(edges.values().all(|&n| n == 1), "no edge traversed twice the same way");
            let boundary: Vec<_> = edges.keys().filter(|&&(a, b)| !edges.contains_key(&(b, a))).collect();
            // Only the two end rings are open.
            assert_eq!(boundary.len(), 2 * around);
            assert!(boundary.iter().all(|&&(a, b)| {
                let (za, zb) = (m.vertices[a as usize].z, m.vertices[b as usize].z);
                za == zb && (za == 0.0 || za == length)
            }));
            let e = (edges.len() + boundary.len()) as i64 / 2;
            assert_eq!(m.vertices.len() as i64 - e + m.tris.len() as i64, 0, "Euler characteristic of an annulus");
            for t in &m.tris {
                let [a, b, c] = t.map(|i| m.vertices[i as usize]);
                let centre = (a + b + c) / 3.0;
                assert!((b - a).cross(&(c - a)).dot(&Vec3::new(centre.x, centre.y, 0.0)) > 0.0, "{t:?} points inwards");
            }
            // The inscribed prism: area 2 n r sin(π/n) L, against 2π r L.
            let (area, _) = area_and_volume(&m);
            let prism = 2.0 * around as f64 * radius * (PI / around as f64).sin() * length;
            assert!((area - prism).abs() < 1e-12 * area, "{cells:?}: area {area} vs {prism}");
            assert!(area < TAU * radius * length);
        }
        let fine = area_and_volume(&cylinder_shell_mesh(radius, length, [64, 4]).unwrap()).0;
        assert!((fine / (TAU * radius * length) - 1.0).abs() < 2e-3);
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let err = |r: Result<TriMesh>| r.unwrap_err().to_string();
        assert!(err(cylinder_shell_mesh(0.0, 1.0, [8, 2])).starts_with("cylinder_shell: radius"));
        assert!(err(cylinder_shell_mesh(1.0, -1.0, [8, 2])).starts_with("cylinder_shell: size[0]"));
        assert_eq!(err(cylinder_shell_mesh(1.0, 1.0, [8, 0])), "cylinder_shell: cells must be ≥ 1 in every axis, got [8, 0]");
        assert!(err(cylinder_shell_mesh(1.0, 1.0, [2, 4])).starts_with("cylinder_shell: cells[0]"));
        assert!(err(cylinder_shell_mesh(1.0, 1.0, [100_000, 100_000])).contains("cells"));
    }
}
