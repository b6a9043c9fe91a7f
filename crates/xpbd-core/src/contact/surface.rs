//! The contact surfaces of all bodies in flat arrays: the surface vertices, edges and triangles of every
//! tet body (its boundary faces) and cloth (its triangles), each tagged with its body, and for tet bodies
//! which tets touch each vertex, so that pairs within one element are never contacts.

use crate::model::Body;

#[derive(Clone, Debug, Default)]
pub struct Surface {
    /// Global vertex indices, body by body, ascending within a body.
    pub vertices: Vec<u32>,
    pub vertex_body: Vec<u32>,
    /// Each edge (lower index first) once, body by body.
    pub edges: Vec<[u32; 2]>,
    pub edge_body: Vec<u32>,
    /// Outward for tet bodies.
    pub triangles: Vec<[u32; 3]>,
    pub triangle_body: Vec<u32>,
    /// The tets of every body (global vertex indices) and, CSR over global vertices, the tets touching each:
    /// `vertex_tets[tet_start[v]..tet_start[v + 1]]`.
    tets: Vec<[u32; 4]>,
    tet_start: Vec<u32>,
    vertex_tets: Vec<u32>,
}

impl Surface {
    /// The surfaces of `bodies` over `vertex_count` global vertices.
    pub fn new(bodies: &[Body], vertex_count: usize) -> Surface {
        let mut s = Surface::default();
        for (b, body) in bodies.iter().enumerate() {
            let tag = b as u32;
            let vertices = crate::mesh::surface::surface_vertices(&body.surface);
            s.vertex_body.extend(std::iter::repeat_n(tag, vertices.len()));
            s.vertices.extend(vertices);
            let edges = crate::mesh::surface::surface_edges(&body.surface);
            s.edge_body.extend(std::iter::repeat_n(tag, edges.len()));
            s.edges.extend(edges);
            s.triangle_body.extend(std::iter::repeat_n(tag, body.surface.len()));
            s.triangles.extend(&body.surface);
            s.tets.extend(&body.tets);
        }
        let mut count = vec![0u32; vertex_count + 1];
        for t in &s.tets {
            t.iter().for_each(|&v| count[v as usize + 1] += 1);
        }
        for i in 0..vertex_count {
            count[i + 1] += count[i];
        }
        let mut fill = count.clone();
        s.vertex_tets = vec![0; s.tets.len() * 4];
        for (e, t) in s.tets.iter().enumerate() {
            for &v in t {
                s.vertex_tets[fill[v as usize] as usize] = e as u32;
                fill[v as usize] += 1;
            }
        }
        s.tet_start = count;
        s
    }

    /// Whether one tet holds every vertex of `a` and of `b` (two primitives of one element never touch).
    pub fn share_element(&self, a: &[u32], b: &[u32]) -> bool {
        let v = a[0] as usize;
        let (lo, hi) = (self.tet_start[v] as usize, self.tet_start[v + 1] as usize);
        self.vertex_tets[lo..hi].iter().any(|&e| {
            let t = &self.tets[e as usize];
            a.iter().chain(b).all(|u| t.contains(u))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_tet_has_four_vertices_six_edges_four_triangles_and_one_element() {
        let s = Surface::new(&[tet_body()], 4);
        assert_eq!((s.vertices.len(), s.edges.len(), s.triangles.len()), (4, 6, 4));
        assert!(s.share_element(&[0], &[1, 2, 3]) && s.share_element(&[0, 1], &[2, 3]));
        let cloth = Body { name: "c".into(), vertices: 4..8, surface: vec![[4, 5, 6], [5, 7, 6]], tets: vec![] };
        let s = Surface::new(&[tet_body(), cloth], 8);
        assert_eq!(s.edges.len(), 6 + 5);
        assert_eq!(s.vertex_body, vec![0, 0, 0, 0, 1, 1, 1, 1]);
        assert!(!s.share_element(&[4], &[5, 7, 6]), "cloth has no elements to share");
    }

    fn tet_body() -> Body {
        let tets = vec![[0, 1, 2, 3]];
        Body { name: "t".into(), vertices: 0..4, surface: crate::mesh::surface::boundary_faces(&tets), tets }
    }
}
