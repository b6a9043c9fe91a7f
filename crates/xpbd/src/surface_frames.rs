//! Surface sequences for other tools (Blender, Houdini, MeshLab): each frame's body surfaces as
//! Wavefront OBJ or ASCII PLY, only the vertices the surfaces use, renumbered in order.

use std::fmt::Write;
use std::path::Path;
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::Result;

/// Every body's boundary triangles (cloth: its triangles) over the vertices they use.
#[derive(Clone, Debug, Default)]
pub struct Surface {
    /// Global index of each surface vertex.
    pub vertices: Vec<u32>,
    /// Triangles in surface-vertex indices, outward.
    pub tris: Vec<[u32; 3]>,
}

impl Surface {
    pub fn of(model: &Model) -> Self {
        let mut local = vec![u32::MAX; model.vertex_count()];
        let mut s = Surface::default();
        for t in model.bodies.iter().flat_map(|b| &b.surface) {
            s.tris.push(t.map(|v| {
                if local[v as usize] == u32::MAX {
                    local[v as usize] = s.vertices.len() as u32;
                    s.vertices.push(v);
                }
                local[v as usize]
            }));
        }
        s
    }

    fn points<'a>(&'a self, x: &'a [Vec3]) -> impl Iterator<Item = &'a Vec3> {
        self.vertices.iter().map(move |&v| &x[v as usize])
    }

    /// Writes the surface at positions `x` as OBJ (1-based faces).
    pub fn write_obj(&self, path: &Path, x: &[Vec3]) -> Result<()> {
        let mut s = String::from("# xpbd surface frame\n");
        for p in self.points(x) {
            let _ = writeln!(s, "v {} {} {}", p.x, p.y, p.z);
        }
        for t in &self.tris {
            let _ = writeln!(s, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1);
        }
        write_atomic(path, s.as_bytes())
    }

    /// Writes the surface at positions `x` as ASCII PLY with double-precision vertices.
    pub fn write_ply(&self, path: &Path, x: &[Vec3]) -> Result<()> {
        let mut s = format!(
            "ply\nformat ascii 1.0\ncomment xpbd surface frame\nelement vertex {}\nproperty double x\nproperty double y\nproperty double z\n\
             element face {}\nproperty list uchar uint vertex_indices\nend_header\n",
            self.vertices.len(),
            self.tris.len()
        );
        for p in self.points(x) {
            let _ = writeln!(s, "{} {} {}", p.x, p.y, p.z);
        }
        for t in &self.tris {
            let _ = writeln!(s, "3 {} {} {}", t[0], t[1], t[2]);
        }
        write_atomic(path, s.as_bytes())
    }
}
