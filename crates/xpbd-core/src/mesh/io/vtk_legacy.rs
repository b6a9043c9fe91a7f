//! Legacy VTK `.vtk`: ASCII or BINARY (big-endian) `DATASET UNSTRUCTURED_GRID`, with classic `CELLS` or
//! the VTK 5.1 `OFFSETS`/`CONNECTIVITY` form. Keeps tetrahedra (cell type 10), else triangles (5);
//! point and cell data are ignored.

use super::{ascii_bytes, shorten, tet_or_tri, Cursor, Endian};
use crate::mesh::{Mesh, Vec3};
use crate::Result;
use std::path::Path;

const VTK_TETRA: i64 = 10;
const VTK_TRIANGLE: i64 = 5;

pub(super) fn parse(path: &Path, data: &[u8]) -> Result<Mesh> {
    let mut c = Cursor::new(path, data, None);
    let head = c.rest_of_line();
    let version = head
        .to_ascii_lowercase()
        .strip_prefix("# vtk datafile version")
        .and_then(|v| v.trim().split('.').next()?.parse::<u32>().ok())
        .ok_or_else(|| c.err(format!("not a legacy VTK file: first line is `{}`", shorten(head))))?;
    c.rest_of_line(); // title
    let binary = match c.rest_of_line().to_ascii_uppercase().as_str() {
        "ASCII" => false,
        "BINARY" => true,
        other => return Err(c.err(format!("expected ASCII or BINARY, found `{}`", shorten(other)))),
    };
    c.keyword("DATASET")?;
    let kind = c.expect("a dataset type")?;
    if !kind.eq_ignore_ascii_case("UNSTRUCTURED_GRID") {
        return Err(c.err(format!("dataset `{}` is not supported (only UNSTRUCTURED_GRID)", shorten(kind))));
    }
    let r = Reader { binary };
    let mut points: Option<Vec<Vec3>> = None;
    let mut cells: Option<(Vec<usize>, Vec<i64>)> = None; // (offsets, connectivity)
    let mut types: Option<Vec<i64>> = None;
    while let Some(kw) = c.token() {
        match kw.to_ascii_uppercase().as_str() {
            "POINTS" => {
                let n: u64 = c.parse("the number of points")?;
                let ty = c.expect("the point data type")?;
                let xs = r.floats(&mut c, n.saturating_mul(3), ty, "point coordinates")?;
                points = Some(xs.chunks_exact(3).map(|p| Vec3::new(p[0], p[1], p[2])).collect());
            }
            "CELLS" if version >= 5 => {
                let no: u64 = c.parse("the number of offsets")?;
                let nc: u64 = c.parse("the connectivity size")?;
                c.keyword("OFFSETS")?;
                let ty = c.expect("the offsets data type")?;
                let offsets = r.ints(&mut c, no, ty, "offsets")?;
                c.keyword("CONNECTIVITY")?;
                let ty = c.expect("the connectivity data type")?;
                let conn = r.ints(&mut c, nc, ty, "connectivity")?;
                let off: Option<Vec<usize>> = offsets.iter().map(|&o| usize::try_from(o).ok()).collect();
                let off = off.unwrap_or_default();
                if off.first() != Some(&0) || off.last() != Some(&conn.len()) || off.windows(2).any(|w| w[1] < w[0]) {
                    return Err(c.err("offsets do not run from 0 up to the connectivity size"));
                }
                cells = Some((off, conn));
            }
            "CELLS" => {
                let n: u64 = c.parse("the number of cells")?;
                let size: u64 = c.parse("the cell list size")?;
                let list = r.ints(&mut c, size, "int", "the cell list")?;
                let n = c.check_count(n, 1, "cells")?;
                let (mut off, mut conn) = (Vec::with_capacity(n + 1), Vec::with_capacity(list.len()));
                let mut i = 0usize;
                for _ in 0..n {
                    off.push(conn.len());
                    let k = list.get(i).and_then(|&k| usize::try_from(k).ok());
                    let k = k.filter(|&k| i + 1 + k <= list.len());
                    let k = k.ok_or_else(|| c.err("cell list is shorter than its cells say"))?;
                    conn.extend_from_slice(&list[i + 1..i + 1 + k]);
                    i += 1 + k;
                }
                if i != list.len() {
                    return Err(c.err(format!("cell list size {size} does not match its {n} cells")));
                }
                off.push(conn.len());
                cells = Some((off, conn));
            }
            "CELL_TYPES" => {
                let n: u64 = c.parse("the number of cell types")?;
                types = Some(r.ints(&mut c, n, "int", "cell types")?);
            }
            "METADATA" => {
                c.rest_of_line();
                while !c.rest_of_line().is_empty() {}
            }
            "POINT_DATA" | "CELL_DATA" => break,
            "FIELD" => {
                c.expect("the field name")?;
                let arrays: u64 = c.parse("the number of field arrays")?;
                for _ in 0..arrays {
                    c.expect("an array name")?;
                    let comp: u64 = c.parse("the number of components")?;
                    let tuples: u64 = c.parse("the number of tuples")?;
                    let ty = c.expect("the array data type")?;
                    r.floats(&mut c, comp.saturating_mul(tuples), ty, "field data")?;
                }
            }
            other => return Err(c.err(format!("unexpected keyword `{}`", shorten(other)))),
        }
    }
    let points = points.ok_or_else(|| c.err("no POINTS section"))?;
    let (off, conn) = cells.ok_or_else(|| c.err("no CELLS section"))?;
    let types = types.ok_or_else(|| c.err("no CELL_TYPES section"))?;
    if types.len() + 1 != off.len() {
        return Err(c.err(format!("{} cell types for {} cells", types.len(), off.len() - 1)));
    }
    let (mut tets, mut tris) = (Vec::new(), Vec::new());
    let nv = points.len();
    for (i, &ty) in types.iter().enumerate() {
        let ids = &conn[off[i]..off[i + 1]];
        let want = match ty {
            VTK_TETRA => 4,
            VTK_TRIANGLE => 3,
            _ => continue,
        };
        if ids.len() != want {
            return Err(c.err(format!("cell {i} of type {ty} has {} points, expected {want}", ids.len())));
        }
        let mut v = [0u32; 4];
        for (d, &s) in v.iter_mut().zip(ids) {
            *d = super::to_index(s, nv).ok_or_else(|| c.err(format!("cell {i} references point {s}, but there are {nv} points")))?;
        }
        if want == 4 {
            tets.push(v);
        } else {
            tris.push([v[0], v[1], v[2]]);
        }
    }
    tet_or_tri(path, points, tets, tris)
}

/// Reads arrays of values, ASCII or big-endian binary.
struct Reader {
    binary: bool,
}

/// Byte size and kind (`i` signed, `u` unsigned, `f` float) of a legacy VTK data type.
fn data_type(c: &Cursor, ty: &str) -> Result<(usize, char)> {
    Ok(match ty.to_ascii_lowercase().as_str() {
        "char" | "vtktypeint8" => (1, 'i'),
        "unsigned_char" | "vtktypeuint8" => (1, 'u'),
        "short" | "vtktypeint16" => (2, 'i'),
        "unsigned_short" | "vtktypeuint16" => (2, 'u'),
        "int" | "vtktypeint32" => (4, 'i'),
        "unsigned_int" | "vtktypeuint32" => (4, 'u'),
        "long" | "vtktypeint64" | "vtkidtype" => (8, 'i'),
        "unsigned_long" | "vtktypeuint64" => (8, 'u'),
        "float" => (4, 'f'),
        "double" => (8, 'f'),
        _ => return Err(c.err(format!("data type `{}` is not supported", shorten(ty)))),
    })
}

impl Reader {
    fn raw<'a>(&self, c: &mut Cursor<'a>, n: u64, ty: &str, what: &str) -> Result<(&'a [u8], usize, char)> {
        let (size, kind) = data_type(c, ty)?;
        let n = c.check_count(n, size as u64, what)?;
        c.skip_line();
        Ok((c.bytes(n * size, what)?, size, kind))
    }

    fn floats(&self, c: &mut Cursor, n: u64, ty: &str, what: &str) -> Result<Vec<f64>> {
        if !self.binary {
            data_type(c, ty)?;
            let n = c.check_count(n, ascii_bytes(1), what)?;
            return (0..n).map(|_| c.f64(what)).collect();
        }
        let (b, size, kind) = self.raw(c, n, ty, what)?;
        let e = Endian::Big;
        let v: Vec<f64> = b
            .chunks_exact(size)
            .map(|x| match (kind, size) {
                ('f', 4) => e.f32(x) as f64,
                ('f', _) => e.f64(x),
                ('u', _) => e.uint(x) as f64,
                _ => e.int(x) as f64,
            })
            .collect();
        match v.iter().position(|x| !x.is_finite()) {
            Some(i) => Err(c.err(format!("{what}: value {i} is not finite"))),
            None => Ok(v),
        }
    }

    fn ints(&self, c: &mut Cursor, n: u64, ty: &str, what: &str) -> Result<Vec<i64>> {
        if !self.binary {
            let (_, kind) = data_type(c, ty)?;
            if kind == 'f' {
                return Err(c.err(format!("{what} must be integers, not `{ty}`")));
            }
            let n = c.check_count(n, ascii_bytes(1), what)?;
            return (0..n).map(|_| c.parse::<i64>(what)).collect();
        }
        let (b, size, kind) = self.raw(c, n, ty, what)?;
        let e = Endian::Big;
        match kind {
            'i' => Ok(b.chunks_exact(size).map(|x| e.int(x)).collect()),
            'u' => Ok(b.chunks_exact(size).map(|x| e.uint(x).min(i64::MAX as u64) as i64).collect()),
            _ => Err(c.err(format!("{what} must be integers, not `{ty}`"))),
        }
    }
}
