//! Wavefront OBJ: `v x y z` and `f` records (`a`, `a/b`, `a//c`, `a/b/c`, negative relative indices);
//! polygons are fan-triangulated, every other record is ignored.

use super::{shorten, Cursor};
use crate::mesh::{TriMesh, Vec3};
use crate::{Error, Result};
use std::path::Path;

pub(super) fn parse(path: &Path, data: &[u8]) -> Result<TriMesh> {
    let mut c = Cursor::new(path, data, Some(b'#'));
    let mut vertices: Vec<Vec3> = Vec::new();
    let mut tris: Vec<[u32; 3]> = Vec::new();
    let mut poly: Vec<u32> = Vec::new();
    // Largest positive index seen, with its line: faces may name vertices defined further down.
    let mut max_index: Option<(u32, usize)> = None;
    while let Some(kw) = c.token() {
        match kw {
            "v" => {
                let mut p = [0.0; 3];
                for x in p.iter_mut() {
                    let t = c.inline_token().ok_or_else(|| c.err("vertex has fewer than 3 coordinates"))?;
                    *x = t.parse::<f64>().ok().filter(|x| x.is_finite()).ok_or_else(|| c.err(format!("expected a coordinate, found `{}`", shorten(t))))?;
                }
                vertices.push(Vec3::from(p));
                c.rest_of_line();
            }
            "f" => {
                poly.clear();
                while let Some(t) = c.inline_token() {
                    let head = t.split('/').next().unwrap_or("");
                    let i: i64 = head.parse().map_err(|_| c.err(format!("expected a vertex index, found `{}`", shorten(t))))?;
                    let nv = vertices.len() as i64;
                    let idx = if (1..=u32::MAX as i64).contains(&i) {
                        (i - 1) as u32
                    } else if i < 0 && -i <= nv {
                        (nv + i) as u32
                    } else {
                        return Err(c.err(format!("vertex index {i} is out of range ({nv} vertices so far)")));
                    };
                    if i > 0 && max_index.is_none_or(|(m, _)| idx > m) {
                        max_index = Some((idx, c.line()));
                    }
                    poly.push(idx);
                }
                if poly.len() < 3 {
                    return Err(c.err(format!("face has {} vertices, at least 3 needed", poly.len())));
                }
                tris.extend((1..poly.len() - 1).map(|k| [poly[0], poly[k], poly[k + 1]]));
            }
            _ => {
                c.rest_of_line();
            }
        }
    }
    if let Some((m, line)) = max_index.filter(|&(m, _)| m as usize >= vertices.len()) {
        return Err(Error::parse(path, Some(line), format!("vertex index {} is out of range ({} vertices)", m as u64 + 1, vertices.len())));
    }
    if tris.is_empty() {
        return Err(Error::parse(path, None, "no faces found"));
    }
    Ok(TriMesh { vertices, tris })
}
