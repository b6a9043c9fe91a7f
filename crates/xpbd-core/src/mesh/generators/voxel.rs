//! `sphere`, `torus` and `capsule`: voxelized signed-distance shapes centred at the origin.
//!
//! A grid of cubic voxels covers the shape's bounding box; voxels whose centre has negative signed
//! distance are kept and split like the `box` cells, then unused grid vertices are dropped.

use super::box_grid::{cell_corners, split_cell};
use super::{check_element_cap, check_length, check_split};
use crate::mesh::{TetMesh, Vec3};
use crate::{Error, Result};

/// A ball of `radius` with `cells` voxels across its diameter, each split into `split` (5 or 6) tets.
pub fn sphere_mesh(radius: f64, cells: usize, split: u8) -> Result<TetMesh> {
    check_length("sphere", "radius", radius)?;
    voxelize("sphere", [radius; 3], voxel_size("sphere", 2.0 * radius, cells)?, split, |p| p.norm() - radius)
}

/// A capsule (a pill): the points within `radius` of the segment of `length` along the x axis centred at
/// the origin, with `cells` voxels across its diameter, each split into `split` (5 or 6) tets.
pub fn capsule_mesh(radius: f64, length: f64, cells: usize, split: u8) -> Result<TetMesh> {
    check_length("capsule", "radius", radius)?;
    check_length("capsule", "length", length)?;
    let half = 0.5 * length;
    voxelize("capsule", [half + radius, radius, radius], voxel_size("capsule", 2.0 * radius, cells)?, split, |p| {
        Vec3::new(p.x - p.x.clamp(-half, half), p.y, p.z).norm() - radius
    })
}

/// A torus around the y axis (its ring in the x–z plane) with `cells` voxels across its outer
/// diameter `2·(major_radius + minor_radius)`, each split into `split` (5 or 6) tets.
pub fn torus_mesh(major_radius: f64, minor_radius: f64, cells: usize, split: u8) -> Result<TetMesh> {
    check_length("torus", "major_radius", major_radius)?;
    check_length("torus", "minor_radius", minor_radius)?;
    if minor_radius >= major_radius {
        return Err(Error::invalid(format!(
            "torus: minor_radius must be < major_radius, got minor_radius = {minor_radius}, \
             major_radius = {major_radius}"
        )));
    }
    let outer = major_radius + minor_radius;
    voxelize("torus", [outer, minor_radius, outer], voxel_size("torus", 2.0 * outer, cells)?, split, |p| {
        let ring = (p.x * p.x + p.z * p.z).sqrt() - major_radius;
        (ring * ring + p.y * p.y).sqrt() - minor_radius
    })
}

/// The edge of `cells` cubic voxels across `width`.
fn voxel_size(shape: &str, width: f64, cells: usize) -> Result<f64> {
    if cells == 0 {
        return Err(Error::invalid(format!("{shape}: cells must be ≥ 1, got 0")));
    }
    Ok(width / cells as f64)
}

/// Voxelizes `sdf` over the box `[-half, half]` with cubic voxels of edge `h`.
fn voxelize(shape: &str, half: [f64; 3], h: f64, split: u8, sdf: impl Fn(&Vec3) -> f64) -> Result<TetMesh> {
    check_split(shape, split)?;
    // Per-axis voxel counts: enough to cover each axis (ceil with a little slack so an exact multiple
    // does not round up).
    let n: [usize; 3] = half.map(|e| {
        let span = (2.0 * e / h - 1e-9).ceil();
        if span.is_finite() && span >= 1.0 {
            span.min(usize::MAX as f64) as usize
        } else {
            1
        }
    });
    check_element_cap(shape, &n, split as usize)?;
    let [nx, ny, nz] = n;
    let origin = Vec3::new(nx as f64, ny as f64, nz as f64) * (-0.5 * h);
    let point = |i: usize, j: usize, k: usize, off: f64| origin + Vec3::new(i as f64 + off, j as f64 + off, k as f64 + off) * h;

    // Kept voxels in grid order, and which grid vertices they use.
    let mut kept = Vec::new();
    let mut id = vec![u32::MAX; (nx + 1) * (ny + 1) * (nz + 1)];
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                if sdf(&point(i, j, k, 0.5)) < 0.0 {
                    kept.push([i, j, k]);
                    for c in cell_corners(i, j, k, nx, ny) {
                        id[c] = 0;
                    }
                }
            }
        }
    }
    if kept.is_empty() {
        return Err(Error::invalid(format!("{shape}: cells is too coarse, no voxel centre lies inside the shape")));
    }

    // Compact renumbering in grid order.
    let mut vertices = Vec::new();
    for (g, slot) in id.iter_mut().enumerate() {
        if *slot == 0 {
            *slot = vertices.len() as u32;
            let (i, rest) = (g % (nx + 1), g / (nx + 1));
            vertices.push(point(i, rest % (ny + 1), rest / (ny + 1), 0.0));
        }
    }
    let mut tets = Vec::with_capacity(kept.len() * split as usize);
    for [i, j, k] in kept {
        let c = cell_corners(i, j, k, nx, ny).map(|g| id[g]);
        split_cell(c, (i + j + k) % 2 == 1, split, &mut tets);
    }
    Ok(TetMesh { vertices, tets })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::box_grid::tests::checked_volumes;
    use crate::mesh::surface::{boundary_faces, surface_vertices};
    use std::collections::HashMap;
    use std::f64::consts::PI;

    /// Checks every tet is positive and at least a sixth of a voxel; returns the total volume.
    fn volume(m: &TetMesh, h: f64) -> f64 {
        checked_volumes(m, h * h * h / 6.0 * (1.0 - 1e-9)).iter().sum()
    }

    /// Directed edge counts of a face set: a closed, consistently oriented, edge-manifold surface
    /// uses every directed edge once and its reverse once.
    fn assert_closed(faces: &[[u32; 3]], manifold: bool) {
        let mut count: HashMap<(u32, u32), i32> = HashMap::new();
        for f in faces {
            for e in 0..3 {
                *count.entry((f[e], f[(e + 1) % 3])).or_default() += 1;
            }
        }
        for (&(a, b), &n) in &count {
            let back = count.get(&(b, a)).copied().unwrap_or(0);
            assert_eq!(n, back, "edge {a}-{b} used {n} times, reverse {back} times");
            if manifold {
                assert_eq!(n, 1, "edge {a}-{b} is shared by more than two faces");
            }
        }
    }

    #[test]
    fn sphere_volume_converges() {
        let r = 0.8;
        let exact = 4.0 / 3.0 * PI * r * r * r;
        let mut errors = Vec::new();
        for cells in [6, 20, 40] {
            for split in [5u8, 6] {
                let m = sphere_mesh(r, cells, split).unwrap();
                let err = (volume(&m, 2.0 * r / cells as f64) - exact).abs() / exact;
                if split == 5 {
                    errors.push(err);
                }
                if cells == 20 {
                    assert!(err < 0.10, "cells 20: relative error {err}");
                }
            }
        }
        assert!(errors[2] < errors[0] && errors[2] < 0.03, "{errors:?}");
    }

    #[test]
    fn sphere_is_centred_and_compact() {
        let m = sphere_mesh(1.0, 11, 6).unwrap();
        let mut used = vec![false; m.vertices.len()];
        m.tets.iter().flatten().for_each(|&i| used[i as usize] = true);
        assert!(used.iter().all(|&u| u), "unused vertex left in the mesh");
        let centroid = m.vertices.iter().sum::<Vec3>() / m.vertices.len() as f64;
        assert!(centroid.norm() < 1e-12, "{centroid}");
        assert!(m.vertices.iter().all(|v| v.norm() < 1.0 + 2.0 * 3f64.sqrt() / 11.0));
    }

    #[test]
    fn sphere_boundary_is_closed() {
        for (cells, split) in [(1, 5), (7, 5), (20, 6), (23, 5)] {
            let m = sphere_mesh(1.0, cells, split).unwrap();
            let faces = boundary_faces(&m.tets);
            assert!(!faces.is_empty());
            assert_closed(&faces, true);
            let on_surface = surface_vertices(&faces).len();
            if cells == 1 {
                assert_eq!((faces.len(), on_surface), (12, 8));
            } else {
                assert!(on_surface < m.vertices.len(), "no interior vertex at {cells} cells");
            }
        }
    }

    #[test]
    fn torus_volume_converges() {
        let (big, small) = (1.0, 0.4);
        let exact = 2.0 * PI * PI * big * small * small;
        let mut errors = Vec::new();
        for cells in [10, 20, 40, 80] {
            let m = torus_mesh(big, small, cells, 5).unwrap();
            let h = 2.0 * (big + small) / cells as f64;
            errors.push((volume(&m, h) - exact).abs() / exact);
            assert_closed(&boundary_faces(&m.tets), false);
            let y_max = m.vertices.iter().fold(0.0f64, |a, v| a.max(v.y.abs()));
            assert!(y_max <= small + h, "{y_max}");
        }
        assert!(errors[1] < 0.10 && errors[3] < 0.02, "{errors:?}");
        let m6 = torus_mesh(big, small, 40, 6).unwrap();
        let err6 = (volume(&m6, 2.0 * (big + small) / 40.0) - exact).abs() / exact;
        assert!(err6 < 0.05, "{err6}");
    }

    #[test]
    fn torus_has_a_hole() {
        let m = torus_mesh(1.0, 0.3, 30, 6).unwrap();
        // No tet touches the axis region well inside the hole.
        assert!(m.vertices.iter().all(|v| (v.x * v.x + v.z * v.z).sqrt() > 0.5));
    }

    #[test]
    fn capsule_volume_and_bounds() {
        let (r, length) = (0.5, 2.0);
        let exact = PI * r * r * length + 4.0 / 3.0 * PI * r * r * r;
        for (cells, tolerance) in [(8, 0.08), (40, 0.015)] {
            let m = capsule_mesh(r, length, cells, 5).unwrap();
            let h = 2.0 * r / cells as f64;
            // Every tet positive and at least a sixth of a voxel: none has zero volume.
            let err = (volume(&m, h) - exact).abs() / exact;
            assert!(err < tolerance, "cells {cells}: relative error {err}");
            assert_closed(&boundary_faces(&m.tets), true);
            let (lo, hi) = m.vertices.iter().fold((Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY)), |(lo, hi), v| (lo.inf(v), hi.sup(v)));
            for k in 0..3 {
                let extent = if k == 0 { 0.5 * length + r } else { r };
                assert!((hi[k] - extent).abs() <= h && (lo[k] + extent).abs() <= h, "axis {k}: [{}, {}] for ±{extent}", lo[k], hi[k]);
                assert!((hi[k] + lo[k]).abs() < 1e-12, "axis {k} not centred");
            }
        }
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let err = |r: Result<TetMesh>| r.unwrap_err().to_string();
        assert!(err(sphere_mesh(-1.0, 10, 5)).starts_with("sphere: radius"));
        assert!(err(sphere_mesh(f64::NAN, 10, 5)).starts_with("sphere: radius"));
        assert_eq!(err(sphere_mesh(1.0, 0, 5)), "sphere: cells must be ≥ 1, got 0");
        assert_eq!(err(sphere_mesh(1.0, 10, 7)), "sphere: split must be 5 or 6, got 7");
        assert!(err(sphere_mesh(1.0, 1000, 6)).contains("cells"));
        assert!(err(torus_mesh(0.0, 0.1, 10, 5)).starts_with("torus: major_radius"));
        assert!(err(torus_mesh(1.0, -0.1, 10, 5)).starts_with("torus: minor_radius"));
        assert!(err(torus_mesh(1.0, 1.0, 10, 5)).contains("minor_radius must be < major_radius"));
        assert!(err(torus_mesh(1.0, 0.5, 1, 5)).contains("cells"));
        assert_eq!(err(torus_mesh(1.0, 0.5, 10, 0)), "torus: split must be 5 or 6, got 0");
        assert!(err(capsule_mesh(0.0, 1.0, 4, 5)).starts_with("capsule: radius"));
        assert!(err(capsule_mesh(0.5, -1.0, 4, 5)).starts_with("capsule: length"));
        assert_eq!(err(capsule_mesh(0.5, 1.0, 0, 5)), "capsule: cells must be ≥ 1, got 0");
        assert_eq!(err(capsule_mesh(0.5, 1.0, 4, 4)), "capsule: split must be 5 or 6, got 4");
    }
}
