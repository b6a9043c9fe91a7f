//! STL, ASCII (`solid … facet normal … outer loop vertex x y z ×3 endloop endfacet … endsolid`) and binary (an
//! 80-byte header, a little-endian `u32` triangle count, then per triangle a normal, three corners (12 `f32`)
//! and a 2-byte attribute). A file whose length is exactly 84 + 50·count is binary, whatever its header says
//! (binary headers often start with `solid` too). The stored normals are ignored; corners with identical
//! coordinates are merged ([`weld`]), so the triangles come back as one indexed surface.

use super::{shorten, Cursor, Endian};
use crate::mesh::surface::weld;
use crate::mesh::{TriMesh, Vec3};
use crate::{Error, Result};
use std::path::Path;

pub(super) fn parse(path: &Path, data: &[u8]) -> Result<TriMesh> {
    let corners = if is_binary(data) { binary(path, data)? } else { ascii(path, data)? };
    if corners.is_empty() {
        return Err(Error::parse(path, None, "no facets found"));
    }
    let tris: Vec<[u32; 3]> = (0..corners.len() as u32 / 3).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
    Ok(weld(&corners, &tris))
}

/// Binary when the length matches the count in the header.
fn is_binary(data: &[u8]) -> bool {
    data.len() >= 84 && 84 + 50 * Endian::Little.uint(&data[80..84]) == data.len() as u64
}

fn binary(path: &Path, data: &[u8]) -> Result<Vec<Vec3>> {
    let mut corners = Vec::with_capacity(3 * (data.len() - 84) / 50);
    for (t, record) in data[84..].chunks_exact(50).enumerate() {
        for k in 0..3 {
            let at = 12 + 12 * k;
            let p = Vec3::from_fn(|i, _| Endian::Little.f32(&record[at + 4 * i..at + 4 * i + 4]) as f64);
            if !p.iter().all(|x| x.is_finite()) {
                return Err(Error::parse(path, None, format!("triangle {t} has a coordinate that is not finite")));
            }
            corners.push(p);
        }
    }
    Ok(corners)
}

fn ascii(path: &Path, data: &[u8]) -> Result<Vec<Vec3>> {
    let mut c = Cursor::new(path, data, None);
    c.keyword("solid").map_err(|_| Error::parse(path, Some(1), "neither ASCII STL (`solid …`) nor binary STL (84 + 50·count bytes)"))?;
    c.rest_of_line();
    let mut corners = Vec::new();
    // Corners since the current `outer loop`.
    let mut in_loop = 0;
    while let Some(kw) = c.token() {
        match kw {
            "facet" | "solid" | "endsolid" => {
                c.rest_of_line();
            }
            "outer" => {
                c.keyword("loop")?;
                in_loop = 0;
            }
            "vertex" => {
                corners.push(c.vec3("a vertex coordinate")?);
                in_loop += 1;
            }
            "endloop" if in_loop == 3 => {}
            "endloop" => return Err(c.err(format!("facet has {in_loop} vertices, STL facets have 3"))),
            "endfacet" => {}
            other => return Err(c.err(format!("unexpected `{}` in an ASCII STL", shorten(other)))),
        }
    }
    if corners.len() % 3 != 0 {
        return Err(c.err("file ends inside a facet"));
    }
    Ok(corners)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tetrahedron (0,0,0), (1,0,0), (0,1,0), (0,0,1) as four outward facets.
    const TET: [[[f32; 3]; 3]; 4] = [
        [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
        [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]],
        [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
    ];

    fn check(m: &TriMesh) {
        assert_eq!(m.vertices.len(), 4);
        assert_eq!(m.tris, [[0, 1, 2], [0, 2, 3], [0, 3, 1], [2, 1, 3]]);
        assert_eq!(m.vertices[3], Vec3::z());
    }

    #[test]
    fn ascii_and_binary_give_the_same_surface() {
        let mut text = String::from("solid tet\n");
        for f in TET {
            text += "  facet normal 0 0 0\n    outer loop\n";
            for p in f {
                text += &format!("      vertex {} {} {}\n", p[0], p[1], p[2]);
            }
            text += "    endloop\n  endfacet\n";
        }
        text += "endsolid tet\n";
        check(&parse(Path::new("t.stl"), text.as_bytes()).unwrap());
        // A binary header that starts with "solid", as many exporters write.
        let mut bin = b"solid binary".to_vec();
        bin.resize(80, b' ');
        bin.extend(4u32.to_le_bytes());
        for f in TET {
            bin.extend([0u8; 12]);
            f.iter().flatten().for_each(|x| bin.extend(x.to_le_bytes()));
            bin.extend([0u8; 2]);
        }
        check(&parse(Path::new("t.stl"), &bin).unwrap());
    }

    #[test]
    fn malformed_files_name_the_problem() {
        let e = |s: &str| parse(Path::new("b.stl"), s.as_bytes()).unwrap_err().to_string();
        assert_eq!(e("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\n"), "b.stl:6: facet has 2 vertices, STL facets have 3");
        assert_eq!(e("solid x\nendsolid x\n"), "b.stl: no facets found");
        assert!(e("hello").contains("neither ASCII STL"));
        assert_eq!(e("solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 zz\n"), "b.stl:4: expected a vertex coordinate, found `zz`");
    }
}
