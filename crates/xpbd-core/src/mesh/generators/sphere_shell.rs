//! `sphere_shell`: a closed triangulated sphere surface (an icosphere), for shells.

use super::{check_length, MAX_ELEMENTS};
use crate::mesh::{TriMesh, Vec3};
use crate::{Error, Result};
use std::collections::HashMap;

/// An icosahedron of circumradius `radius` centred at the origin whose triangles are each split
/// into four `subdivisions` times, every new vertex pushed out onto the sphere: `20·4^s`
/// triangles, `10·4^s + 2` vertices. Triangles are counter-clockwise seen from outside, so their
/// normals `(b − a) × (c − a)` point outwards.
pub fn sphere_shell_mesh(radius: f64, subdivisions: usize) -> Result<TriMesh> {
    check_length("sphere_shell", "radius", radius)?;
    let tris_count = (0..subdivisions).try_fold(20usize, |n, _| n.checked_mul(4)).filter(|&n| n <= MAX_ELEMENTS);
    if tris_count.is_none() {
        return Err(Error::invalid(format!("sphere_shell: cells [{subdivisions}] would give more than {MAX_ELEMENTS} elements")));
    }
    let phi = (1.0 + 5f64.sqrt()) / 2.0;
    let corners = [
        [-1.0, phi, 0.0],
        [1.0, phi, 0.0],
        [-1.0, -phi, 0.0],
        [1.0, -phi, 0.0],
        [0.0, -1.0, phi],
        [0.0, 1.0, phi],
        [0.0, -1.0, -phi],
        [0.0, 1.0, -phi],
        [phi, 0.0, -1.0],
        [phi, 0.0, 1.0],
        [-phi, 0.0, -1.0],
        [-phi, 0.0, 1.0],
    ];
    let mut vertices: Vec<Vec3> = corners.iter().map(|c| Vec3::new(c[0], c[1], c[2]).normalize() * radius).collect();
    let mut tris: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
        let mut midpoint = |a: u32, b: u32, vertices: &mut Vec<Vec3>| -> u32 {
            *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                vertices.push((vertices[a as usize] + vertices[b as usize]).normalize() * radius);
                (vertices.len() - 1) as u32
            })
        };
        let mut finer = Vec::with_capacity(4 * tris.len());
        for [a, b, c] in tris {
            let (ab, bc, ca) = (midpoint(a, b, &mut vertices), midpoint(b, c, &mut vertices), midpoint(c, a, &mut vertices));
            finer.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        tris = finer;
    }
    Ok(TriMesh { vertices, tris })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::test_support::{area_and_volume, directed_edges};

    #[test]
    fn closed_oriented_outwards_and_round() {
        let radius = 0.7;
        for s in 0..4 {
            let m = sphere_shell_mesh(radius, s).unwrap();
            assert_eq!(m.tris.len(), 20 * 4usize.pow(s as u32));
            assert_eq!(m.vertices.len(), 10 * 4usize.pow(s as u32) + 2);
            let edges = directed_edges(&m);
            // Every edge is traversed once each way: closed, consistently oriented, manifold.
            assert!(edges.values().all(|&n| n == 1));
            assert!(edges.keys().all(|&(a, b)| edges.contains_key(&(b, a))));
            let (v, e, f) = (m.vertices.len() as i64, edges.len() as i64 / 2, m.tris.len() as i64);
            assert_eq!(v - e + f, 2, "Euler characteristic of a sphere");
            assert!(m.vertices.iter().all(|p| (p.norm() - radius).abs() < 1e-12));
            for t in &m.tris {
                let [a, b, c] = t.map(|i| m.vertices[i as usize]);
                assert!((b - a).cross(&(c - a)).dot(&(a + b + c)) > 0.0, "{t:?} points inwards");
            }
            let (area, volume) = area_and_volume(&m);
            let (exact_area, exact_volume) = (4.0 * std::f64::consts::PI * radius * radius, 4.0 / 3.0 * std::f64::consts::PI * radius.powi(3));
            // An inscribed polyhedron: slightly less than the sphere, converging as 4^-s.
            let (area_tolerance, volume_tolerance) = ([0.25, 0.08, 0.025, 0.007][s], [0.41, 0.14, 0.045, 0.012][s]);
            assert!(area < exact_area && area > (1.0 - area_tolerance) * exact_area, "s = {s}: area {area} vs {exact_area}");
            assert!(volume < exact_volume && volume > (1.0 - volume_tolerance) * exact_volume, "s = {s}: volume {volume} vs {exact_volume}");
        }
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let err = |r: Result<TriMesh>| r.unwrap_err().to_string();
        assert!(err(sphere_shell_mesh(0.0, 2)).starts_with("sphere_shell: radius"));
        assert!(err(sphere_shell_mesh(f64::NAN, 2)).starts_with("sphere_shell: radius"));
        assert!(err(sphere_shell_mesh(1.0, 40)).starts_with("sphere_shell: cells [40]"));
    }
}
