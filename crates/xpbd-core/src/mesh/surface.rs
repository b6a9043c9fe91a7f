//! Boundary surface extraction: the faces of a tetrahedral mesh that belong to exactly one tet.

use super::{TriMesh, Vec3};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The three faces of tet `(a, b, c, d)` as local indices, outward for a positively oriented tet
/// (`signed_tet_volume(a, b, c, d) > 0`); face `f` is opposite local vertex `3 - f`.
const OUTWARD_FACES: [[usize; 3]; 4] = [[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]];

/// Faces used by exactly one tet, oriented outward (counter-clockwise seen from outside) assuming
/// positively oriented tets. Output order follows the tets, then the faces in [`OUTWARD_FACES`]
/// order, so it does not depend on hashing. Faces used by three or more tets (a non-manifold
/// input) are not boundary.
pub fn boundary_faces(tets: &[[u32; 4]]) -> Vec<[u32; 3]> {
    // Sorted face, packed -> (first occurrence as 4·tet + local face, number of uses).
    let mut seen: HashMap<u128, (usize, u32), FaceHash> = HashMap::with_capacity_and_hasher(2 * tets.len() + 4, FaceHash::default());
    for (e, t) in tets.iter().enumerate() {
        for (l, f) in OUTWARD_FACES.iter().enumerate() {
            let mut v = f.map(|i| t[i]);
            v.sort_unstable();
            let key = v[0] as u128 | (v[1] as u128) << 32 | (v[2] as u128) << 64;
            seen.entry(key).or_insert((4 * e + l, 0)).1 += 1;
        }
    }
    let mut first: Vec<usize> = seen.into_values().filter(|&(_, n)| n == 1).map(|(i, _)| i).collect();
    first.sort_unstable();
    first.into_iter().map(|i| OUTWARD_FACES[i % 4].map(|l| tets[i / 4][l])).collect()
}

/// A fast multiplicative hasher for face keys (the default SipHash is several times slower here).
type FaceHash = BuildHasherDefault<FxHasher>;

#[derive(Default)]
struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, i: u32) {
        self.write_u64(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0 = (self.0.rotate_left(5) ^ i).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_u128(&mut self, i: u128) {
        self.write_u64(i as u64);
        self.write_u64((i >> 64) as u64);
    }
    fn write_usize(&mut self, i: usize) {
        self.write_u64(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The vertices used by `faces`, sorted and unique.
pub fn surface_vertices(faces: &[[u32; 3]]) -> Vec<u32> {
    let mut v: Vec<u32> = faces.iter().flatten().copied().collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// The edges of `faces`, each once with its lower index first, sorted.
pub fn surface_edges(faces: &[[u32; 3]]) -> Vec<[u32; 2]> {
    let mut edges: Vec<[u32; 2]> = faces.iter().flat_map(|t| [[t[0], t[1]], [t[1], t[2]], [t[2], t[0]]]).map(|[a, b]| [a.min(b), a.max(b)]).collect();
    edges.sort_unstable();
    edges.dedup();
    edges
}

/// Merges vertices with identical coordinates (`-0.0` equals `0.0`) and renumbers `tris` onto the kept ones,
/// in order of first use; a triangle soup (STL) or a surface split at seams becomes one indexed surface.
pub fn weld(vertices: &[Vec3], tris: &[[u32; 3]]) -> TriMesh {
    let mut index: HashMap<[u64; 3], u32> = HashMap::with_capacity(vertices.len());
    let mut kept = Vec::new();
    let tris = tris
        .iter()
        .map(|t| {
            t.map(|i| {
                let p = vertices[i as usize];
                *index.entry(p.map(|x| (x + 0.0).to_bits()).into()).or_insert_with(|| {
                    kept.push(p);
                    kept.len() as u32 - 1
                })
            })
        })
        .collect();
    TriMesh { vertices: kept, tris }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::signed_tet_volume;

    fn normal(p: &[Vec3], f: &[u32; 3]) -> Vec3 {
        let [a, b, c] = f.map(|i| p[i as usize]);
        (b - a).cross(&(c - a))
    }

    #[test]
    fn single_tet_has_four_outward_faces() {
        let p = vec![Vec3::new(0.1, -0.2, 0.0), Vec3::new(1.3, 0.1, 0.2), Vec3::new(0.2, 0.9, -0.1), Vec3::new(0.3, 0.2, 1.1)];
        assert!(signed_tet_volume(&p[0], &p[1], &p[2], &p[3]) > 0.0);
        let faces = boundary_faces(&[[0, 1, 2, 3]]);
        assert_eq!(faces.len(), 4);
        let centroid = p.iter().sum::<Vec3>() / 4.0;
        for (i, f) in faces.iter().enumerate() {
            let fc = f.iter().map(|&v| p[v as usize]).sum::<Vec3>() / 3.0;
            assert!(normal(&p, f).dot(&(fc - centroid)) > 0.0, "face {f:?} points inward");
            // Face i is opposite local vertex 3 - i.
            assert!(!f.contains(&(3 - i as u32)));
        }
        assert_eq!(surface_vertices(&faces), vec![0, 1, 2, 3]);
    }

    #[test]
    fn shared_face_is_interior() {
        // Two positive tets glued on face (0, 1, 2): apex 3 above, apex 4 below.
        let p = vec![Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z(), Vec3::new(0.2, 0.2, -1.0)];
        let tets = [[0, 1, 2, 3], [0, 2, 1, 4]];
        for t in &tets {
            let [a, b, c, d] = t.map(|i| p[i as usize]);
            assert!(signed_tet_volume(&a, &b, &c, &d) > 0.0);
        }
        let faces = boundary_faces(&tets);
        assert_eq!(faces.len(), 6);
        assert!(faces.iter().all(|f| !(f.contains(&0) && f.contains(&1) && f.contains(&2))));
        let centre = p.iter().sum::<Vec3>() / 5.0;
        for f in &faces {
            let fc = f.iter().map(|&v| p[v as usize]).sum::<Vec3>() / 3.0;
            assert!(normal(&p, f).dot(&(fc - centre)) > 0.0);
        }
        assert_eq!(surface_vertices(&faces), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn output_is_deterministic_and_ordered_by_tet() {
        let tets = [[0, 1, 2, 3], [0, 2, 1, 4], [5, 6, 7, 8]];
        let a = boundary_faces(&tets);
        for _ in 0..5 {
            assert_eq!(boundary_faces(&tets), a);
        }
        assert_eq!(&a[6..], &[[5, 7, 6], [5, 6, 8], [5, 8, 7], [6, 7, 8]]);
        assert!(boundary_faces(&[]).is_empty());
        assert!(surface_vertices(&[]).is_empty());
    }

    /// Two triangles given as a soup of six corners share the edge whose corners repeat (one as −0.0).
    #[test]
    fn weld_merges_equal_corners() {
        let p = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.0], [-0.0, 1.0, 0.0]].map(Vec3::from);
        let m = weld(&p, &[[0, 1, 2], [3, 4, 5]]);
        assert_eq!(m.tris, [[0, 1, 2], [1, 3, 2]]);
        assert_eq!(m.vertices.len(), 4);
    }
}
