//! Rest-state checks of tetrahedral meshes: negative elements are reoriented, degenerate ones rejected.

use super::{numbering::Numbering, signed_tet_volume, TetMesh};
use crate::{Error, Result};

/// What [`orient_and_validate`] changed.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct OrientationReport {
    /// Elements whose vertex order was swapped to make their rest volume positive.
    pub flipped: usize,
}

/// Makes every rest tetrahedron positively oriented (swapping its last two vertices) and rejects
/// elements whose volume is below `1e-12` of the mean element volume, or whose indices are out of range.
/// `source` names the mesh in error messages, and `numbers` its elements as the file does.
pub fn orient_and_validate(mesh: &mut TetMesh, source: &str, numbers: &Numbering) -> Result<OrientationReport> {
    let n = mesh.vertices.len();
    if mesh.tets.is_empty() {
        return Err(Error::invalid(format!("{source}: mesh has no tetrahedra")));
    }
    for (v, p) in mesh.vertices.iter().enumerate() {
        if !(p.x.is_finite() && p.y.is_finite() && p.z.is_finite()) {
            return Err(Error::invalid(format!("{source}: vertex {v} has a non-finite coordinate")));
        }
    }
    let mut volumes = Vec::with_capacity(mesh.tets.len());
    for (e, t) in mesh.tets.iter().enumerate() {
        if let Some(&bad) = t.iter().find(|&&i| i as usize >= n) {
            return Err(Error::invalid(format!("{source}: {} references vertex {bad}, but the mesh has {n} vertices", numbers.tet(e))));
        }
        let [a, b, c, d] = t.map(|i| mesh.vertices[i as usize]);
        volumes.push(signed_tet_volume(&a, &b, &c, &d));
    }
    let mean = volumes.iter().map(|v| v.abs()).sum::<f64>() / volumes.len() as f64;
    let mut report = OrientationReport::default();
    for (e, (t, v)) in mesh.tets.iter_mut().zip(&volumes).enumerate() {
        if !(v.abs() > 1e-12 * mean) {
            return Err(Error::invalid(format!("{source}: {} has zero rest volume", numbers.tet(e))));
        }
        if *v < 0.0 {
            t.swap(2, 3);
            report.flipped += 1;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::Vec3;

    fn unit_tet() -> TetMesh {
        TetMesh { vertices: vec![Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()], tets: vec![[0, 1, 2, 3]] }
    }

    #[test]
    fn negative_tet_is_flipped() {
        let mut m = unit_tet();
        m.tets[0] = [0, 2, 1, 3];
        let r = orient_and_validate(&mut m, "t", &Numbering::default()).unwrap();
        assert_eq!(r.flipped, 1);
        let [a, b, c, d] = m.tets[0].map(|i| m.vertices[i as usize]);
        assert!(signed_tet_volume(&a, &b, &c, &d) > 0.0);
    }

    #[test]
    fn degenerate_tet_is_rejected_by_index() {
        let mut m = unit_tet();
        m.vertices.push(Vec3::new(0.5, 0.5, 0.0));
        m.tets.push([0, 1, 2, 4]);
        let err = orient_and_validate(&mut m, "t", &Numbering::default()).unwrap_err().to_string();
        assert!(err.contains("tetrahedron 2 has zero rest volume"), "1-based: {err}");
        let err = orient_and_validate(&mut m, "t", &Numbering::gmsh(vec![7, 9])).unwrap_err().to_string();
        assert!(err.contains("tetrahedron with Gmsh element tag 9 has zero rest volume"), "{err}");
    }

    #[test]
    fn out_of_range_index_is_rejected() {
        let mut m = unit_tet();
        m.tets[0][3] = 9;
        let err = orient_and_validate(&mut m, "t", &Numbering::default()).unwrap_err().to_string();
        assert!(err.contains("vertex 9"), "{err}");
    }
}
