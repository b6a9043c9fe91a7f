//! `box`: an axis-aligned hex grid with each cell split into 5 or 6 tetrahedra.
//!
//! The cell splitting here is shared with the voxelized shapes in [`super::voxel`].

use super::{check_cells, check_element_cap, check_length, check_split};
use crate::mesh::{TetMesh, Vec3};
use crate::Result;

/// Cell corner `c` sits at offset `(c & 1, (c >> 1) & 1, (c >> 2) & 1)` from the cell's min corner.
/// Five-tet split for even `i+j+k`: four corner tets around the centre tet on corners {1, 2, 4, 7}.
const FIVE_EVEN: [[usize; 4]; 5] = [[0, 1, 2, 4], [3, 1, 7, 2], [5, 1, 4, 7], [6, 2, 7, 4], [1, 2, 4, 7]];
/// Five-tet split for odd `i+j+k`: the mirror image, centre tet on corners {0, 3, 5, 6}. Alternating
/// the two makes every face diagonal join grid vertices of odd `i+j+k`, so neighbouring cells conform.
const FIVE_ODD: [[usize; 4]; 5] = [[1, 0, 5, 3], [2, 0, 3, 6], [4, 0, 6, 5], [7, 3, 5, 6], [0, 3, 6, 5]];
/// Freudenthal/Kuhn split: six tets around the main diagonal 0–7, one per axis permutation.
const SIX: [[usize; 4]; 6] = [[0, 1, 3, 7], [0, 2, 6, 7], [0, 4, 5, 7], [0, 1, 7, 5], [0, 2, 7, 3], [0, 4, 7, 6]];

/// Grid indices of the 8 corners of cell `(i, j, k)` in a grid of `nx × ny × ·` cells, in the
/// corner order above; vertex `(i, j, k)` has index `i + (nx+1)·(j + (ny+1)·k)`.
pub(super) fn cell_corners(i: usize, j: usize, k: usize, nx: usize, ny: usize) -> [usize; 8] {
    std::array::from_fn(|c| {
        let (di, dj, dk) = (c & 1, (c >> 1) & 1, (c >> 2) & 1);
        (i + di) + (nx + 1) * ((j + dj) + (ny + 1) * (k + dk))
    })
}

/// Appends the tets of one axis-aligned cell with corner vertex ids `c` (corner order above).
/// `odd` is the parity of the cell's grid index `i+j+k`; `split` must be 5 or 6. All tets are
/// positively oriented when the cell has positive extent in every axis.
pub(super) fn split_cell(c: [u32; 8], odd: bool, split: u8, out: &mut Vec<[u32; 4]>) {
    let table: &[[usize; 4]] = match (split, odd) {
        (5, false) => &FIVE_EVEN,
        (5, true) => &FIVE_ODD,
        _ => &SIX,
    };
    out.extend(table.iter().map(|t| t.map(|l| c[l])));
}

/// A hex grid over `[0, size.x] × [0, size.y] × [0, size.z]` with `cells[a]` cells per axis, each
/// split into `split` (5 or 6) tetrahedra. Vertex `(i, j, k)` has index `i + (nx+1)·(j + (ny+1)·k)`.
pub fn box_mesh(size: [f64; 3], cells: [usize; 3], split: u8) -> Result<TetMesh> {
    for (a, name) in ["size[0]", "size[1]", "size[2]"].iter().enumerate() {
        check_length("box", name, size[a])?;
    }
    check_cells("box", &cells)?;
    check_split("box", split)?;
    check_element_cap("box", &cells, split as usize)?;
    let [nx, ny, nz] = cells;
    let coord = |a: usize, i: usize| size[a] * i as f64 / cells[a] as f64;
    let mut vertices = Vec::with_capacity((nx + 1) * (ny + 1) * (nz + 1));
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                vertices.push(Vec3::new(coord(0, i), coord(1, j), coord(2, k)));
            }
        }
    }
    let mut tets = Vec::with_capacity(nx * ny * nz * split as usize);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let c = cell_corners(i, j, k, nx, ny).map(|v| v as u32);
                split_cell(c, (i + j + k) % 2 == 1, split, &mut tets);
            }
        }
    }
    Ok(TetMesh { vertices, tets })
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::mesh::signed_tet_volume;
    use crate::mesh::surface::boundary_faces;
    use std::collections::HashMap;

    /// Volumes of all tets; panics unless each is at least `min_volume`.
    pub(crate) fn checked_volumes(m: &TetMesh, min_volume: f64) -> Vec<f64> {
        m.tets
            .iter()
            .enumerate()
            .map(|(e, t)| {
                let [a, b, c, d] = t.map(|i| m.vertices[i as usize]);
                let v = signed_tet_volume(&a, &b, &c, &d);
                assert!(v >= min_volume, "tet {e} {t:?} has volume {v} < {min_volume}");
                v
            })
            .collect()
    }

    fn face_normal(m: &TetMesh, f: &[u32; 3]) -> Vec3 {
        let [a, b, c] = f.map(|i| m.vertices[i as usize]);
        (b - a).cross(&(c - a))
    }

    #[test]
    fn cell_tables_are_positive_on_the_unit_cube() {
        let corners: Vec<Vec3> = (0..8).map(|c| Vec3::new((c & 1) as f64, ((c >> 1) & 1) as f64, ((c >> 2) & 1) as f64)).collect();
        for table in [&FIVE_EVEN[..], &FIVE_ODD[..], &SIX[..]] {
            let total: f64 = table
                .iter()
                .map(|t| {
                    let [a, b, c, d] = t.map(|l| corners[l]);
                    let v = signed_tet_volume(&a, &b, &c, &d);
                    assert!(v > 0.1, "{t:?}: {v}");
                    v
                })
                .sum();
            assert!((total - 1.0).abs() < 1e-15);
        }
    }

    #[test]
    fn counts_volume_and_orientation() {
        let size = [2.0, 0.7, 1.3];
        let cells = [5, 3, 4];
        let cell_volume = size.iter().zip(&cells).map(|(s, &n)| s / n as f64).product::<f64>();
        for split in [5u8, 6] {
            let m = box_mesh(size, cells, split).unwrap();
            assert_eq!(m.vertices.len(), 6 * 4 * 5);
            assert_eq!(m.tets.len(), split as usize * 5 * 3 * 4);
            let vols = checked_volumes(&m, cell_volume / 6.0 * (1.0 - 1e-9));
            let total: f64 = vols.iter().sum();
            let exact = size.iter().product::<f64>();
            assert!((total - exact).abs() <= 1e-12 * exact, "split {split}: {total} vs {exact}");
        }
    }

    #[test]
    fn vertex_index_layout() {
        let m = box_mesh([3.0, 2.0, 1.0], [3, 2, 1], 6).unwrap();
        let (nx, ny) = (3, 2);
        for k in 0..=1 {
            for j in 0..=2 {
                for i in 0..=3 {
                    let v = m.vertices[i + (nx + 1) * (j + (ny + 1) * k)];
                    assert_eq!(v, Vec3::new(i as f64, j as f64, k as f64));
                }
            }
        }
    }

    #[test]
    fn conforming_with_outward_boundary() {
        let cells = [4, 3, 5];
        let [nx, ny, nz] = cells;
        for split in [5u8, 6] {
            let m = box_mesh([1.0, 2.0, 3.0], cells, split).unwrap();
            let faces = boundary_faces(&m.tets);
            assert_eq!(faces.len(), 2 * 2 * (nx * ny + ny * nz + nx * nz), "split {split}");
            // Every face is used by one or two tets.
            let mut uses: HashMap<[u32; 3], Vec<usize>> = HashMap::new();
            for (e, t) in m.tets.iter().enumerate() {
                for skip in 0..4 {
                    let mut f: Vec<u32> = (0..4).filter(|&l| l != skip).map(|l| t[l]).collect();
                    f.sort_unstable();
                    uses.entry([f[0], f[1], f[2]]).or_default().push(e);
                }
            }
            assert!(uses.values().all(|u| u.len() <= 2));
            for f in &faces {
                let mut key = *f;
                key.sort_unstable();
                let owner = &uses[&key];
                assert_eq!(owner.len(), 1);
                let t = m.tets[owner[0]];
                let tet_c = t.iter().map(|&i| m.vertices[i as usize]).sum::<Vec3>() / 4.0;
                let face_c = f.iter().map(|&i| m.vertices[i as usize]).sum::<Vec3>() / 3.0;
                assert!(face_normal(&m, f).dot(&(face_c - tet_c)) > 0.0, "face {f:?} points inward");
            }
        }
    }

    #[test]
    fn bad_parameters_name_the_field() {
        let err = |r: Result<TetMesh>| r.unwrap_err().to_string();
        let e = err(box_mesh([1.0; 3], [0, 4, 4], 5));
        assert_eq!(e, "box: cells must be ≥ 1 in every axis, got [0, 4, 4]");
        assert_eq!(err(box_mesh([1.0; 3], [1; 3], 4)), "box: split must be 5 or 6, got 4");
        assert!(err(box_mesh([1.0, -1.0, 1.0], [1; 3], 5)).contains("size[1]"));
        assert!(err(box_mesh([f64::NAN, 1.0, 1.0], [1; 3], 5)).contains("size[0]"));
        assert!(err(box_mesh([1.0, 1.0, f64::INFINITY], [1; 3], 5)).contains("size[2]"));
        assert!(err(box_mesh([1.0; 3], [1000, 1000, 1000], 6)).contains("cells"));
        assert!(err(box_mesh([1.0; 3], [usize::MAX, 2, 2], 6)).contains("cells"));
    }
}
