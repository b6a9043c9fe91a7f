//! Meshes in flat arrays: vertex positions and element index tuples, ready to map onto GPU buffers.

pub mod bvh;
pub mod generators;
pub mod io;
pub mod numbering;
pub mod orientation;
pub mod surface;

use nalgebra::Vector3;

pub type Vec3 = Vector3<f64>;

/// A tetrahedral mesh: `tets[e]` holds four zero-based indices into `vertices`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TetMesh {
    pub vertices: Vec<Vec3>,
    pub tets: Vec<[u32; 4]>,
}

/// A triangle mesh (cloth, or a boundary surface for output).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    pub vertices: Vec<Vec3>,
    pub tris: Vec<[u32; 3]>,
}

/// A body's mesh: volumetric or a surface (cloth).
#[derive(Clone, Debug, PartialEq)]
pub enum Mesh {
    Tet(TetMesh),
    Tri(TriMesh),
}

impl Mesh {
    pub fn vertices(&self) -> &[Vec3] {
        match self {
            Mesh::Tet(m) => &m.vertices,
            Mesh::Tri(m) => &m.vertices,
        }
    }
    pub fn vertices_mut(&mut self) -> &mut Vec<Vec3> {
        match self {
            Mesh::Tet(m) => &mut m.vertices,
            Mesh::Tri(m) => &mut m.vertices,
        }
    }
    /// Number of elements (tets or triangles).
    pub fn element_count(&self) -> usize {
        match self {
            Mesh::Tet(m) => m.tets.len(),
            Mesh::Tri(m) => m.tris.len(),
        }
    }
}

/// Signed volume of the tetrahedron (a, b, c, d): positive when (b−a, c−a, d−a) is right-handed.
#[inline]
pub fn signed_tet_volume(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> f64 {
    (b - a).cross(&(c - a)).dot(&(d - a)) / 6.0
}
