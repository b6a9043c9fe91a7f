//! MEDIT `.mesh` (ASCII): `Vertices`, `Tetrahedra` and `Triangles` with one-based indices and a reference
//! id after each record; other keywords (`Edges`, `Corners`, ...) are skipped, `End` ends the file.

use super::{ascii_bytes, shorten, tet_or_tri, Cursor};
use crate::mesh::{Mesh, Vec3};
use crate::Result;
use std::path::Path;

pub(super) fn parse(path: &Path, data: &[u8]) -> Result<Mesh> {
    let mut c = Cursor::new(path, data, Some(b'#'));
    let mut vertices: Option<Vec<Vec3>> = None;
    let (mut tets, mut tris) = (Vec::new(), Vec::new());
    let mut tok = c.token();
    while let Some(kw) = tok {
        match kw.to_ascii_lowercase().as_str() {
            "meshversionformatted" => {
                c.parse::<u32>("the format version")?;
            }
            "dimension" => {
                let d: u32 = c.parse("the dimension")?;
                if d != 3 {
                    return Err(c.err(format!("dimension {d} is not supported (only 3)")));
                }
            }
            "vertices" => {
                if vertices.is_some() {
                    return Err(c.err("a second Vertices section (elements already refer to the first)"));
                }
                let n = c.parse("the number of vertices")?;
                let n = c.check_count(n, ascii_bytes(4), "vertices")?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(c.vec3("a vertex coordinate")?);
                    c.parse::<i64>("a vertex reference")?;
                }
                vertices = Some(v);
            }
            "tetrahedra" => read_elements::<4>(&mut c, vertices.as_deref(), &mut tets)?,
            "triangles" => read_elements::<3>(&mut c, vertices.as_deref(), &mut tris)?,
            "end" => break,
            _ if kw.starts_with(|ch: char| ch.is_ascii_alphabetic()) => {
                // Unknown keyword: skip its numbers up to the next keyword.
                tok = c.token();
                while tok.is_some_and(|t| !t.starts_with(|ch: char| ch.is_ascii_alphabetic())) {
                    tok = c.token();
                }
                continue;
            }
            _ => return Err(c.err(format!("expected a keyword, found `{}`", shorten(kw)))),
        }
        tok = c.token();
    }
    let vertices = vertices.ok_or_else(|| c.err("no Vertices section"))?;
    tet_or_tri(path, vertices, tets, tris)
}

fn read_elements<const K: usize>(c: &mut Cursor, v: Option<&[Vec3]>, out: &mut Vec<[u32; K]>) -> Result<()> {
    let nv = v.ok_or_else(|| c.err("elements before the Vertices section"))?.len();
    let m = c.parse("the number of elements")?;
    let m = c.check_count(m, ascii_bytes(K as u64 + 1), "elements")?;
    out.reserve(m);
    for _ in 0..m {
        let mut e = [0u32; K];
        for i in e.iter_mut() {
            *i = c.index(1, nv, "vertex index")?;
        }
        c.parse::<i64>("an element reference")?;
        out.push(e);
    }
    Ok(())
}
