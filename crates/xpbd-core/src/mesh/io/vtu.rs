//! VTK XML unstructured grids (`.vtu`): the reader (inline `ascii` or `binary` arrays) and the writer used
//! for simulation frames (base64 binary with a UInt64 header, tetrahedra and triangles mixed as cells).
//! The reader accepts the header and data base64-encoded as one stream (VTK, meshio) or as two.

use super::{read_bytes, shorten, tet_or_tri, write_atomic, Endian};
use crate::mesh::{Mesh, Vec3};
use crate::{Error, Result};
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig, STANDARD};
use base64::engine::DecodePaddingMode;
use base64::Engine;
use quick_xml::events::{BytesStart, Event};
use std::fmt::Write as _;
use std::path::Path;

const VTK_TETRA: i64 = 10;
const VTK_TRIANGLE: i64 = 5;

/// Decoder that accepts base64 with or without padding.
const B64_LENIENT: GeneralPurpose =
    GeneralPurpose::new(&base64::alphabet::STANDARD, GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent));

/// One data array of [`write_vtu`]: one value per point (point data) or per cell (cell data).
#[derive(Clone, Copy, Debug)]
pub enum PointData<'a> {
    Scalar(&'a [f64]),
    Int(&'a [i32]),
    Vector(&'a [Vec3]),
}

impl PointData<'_> {
    fn len(&self) -> usize {
        match self {
            PointData::Scalar(v) => v.len(),
            PointData::Int(v) => v.len(),
            PointData::Vector(v) => v.len(),
        }
    }
}

/// Writes one `.vtu` file (through a temporary file and a rename) holding `points`, the tetrahedra and
/// triangles as cells, and the named point-data arrays.
pub fn write_vtu(path: &Path, points: &[Vec3], tets: &[[u32; 4]], tris: &[[u32; 3]], point_data: &[(&str, PointData)]) -> Result<()> {
    write_vtu_with_cells(path, points, tets, tris, point_data, &[])
}

/// [`write_vtu`] with cell-data arrays too, one value per cell (tetrahedra first, then triangles).
pub fn write_vtu_with_cells(
    path: &Path,
    points: &[Vec3],
    tets: &[[u32; 4]],
    tris: &[[u32; 3]],
    point_data: &[(&str, PointData)],
    cell_data: &[(&str, PointData)],
) -> Result<()> {
    let n = points.len();
    let bad = |msg: String| Error::invalid(format!("{}: {msg}", path.display()));
    for (name, d) in point_data {
        if d.len() != n {
            return Err(bad(format!("point data `{name}` has {} values for {n} points", d.len())));
        }
    }
    for (name, d) in cell_data {
        if d.len() != tets.len() + tris.len() {
            return Err(bad(format!("cell data `{name}` has {} values for {} cells", d.len(), tets.len() + tris.len())));
        }
    }
    let flat = tets.iter().flat_map(|t| t.iter()).chain(tris.iter().flat_map(|t| t.iter()));
    if let Some(i) = flat.clone().find(|&&i| i as usize >= n) {
        return Err(bad(format!("a cell references point {i}, but there are {n} points")));
    }
    let cells = tets.len() + tris.len();
    let mut s = String::with_capacity(64 * n + 48 * cells + 1024);
    s.push_str("<?xml version=\"1.0\"?>\n");
    s.push_str("<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n");
    let _ = writeln!(s, "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"{n}\" NumberOfCells=\"{cells}\">");
    let mut buf: Vec<u8> = Vec::with_capacity(24 * n.max(cells) + 8);
    s.push_str("      <PointData>\n");
    named_arrays(&mut s, &mut buf, point_data);
    s.push_str("      </PointData>\n");
    if !cell_data.is_empty() {
        s.push_str("      <CellData>\n");
        named_arrays(&mut s, &mut buf, cell_data);
        s.push_str("      </CellData>\n");
    }
    s.push_str("      <Points>\n");
    start(&mut buf);
    push_vec3(&mut buf, points);
    data_array(&mut s, "Float64", None, 3, &mut buf);
    s.push_str("      </Points>\n      <Cells>\n");
    // Int32 cell arrays unless the offsets outgrow them (halves the largest part of a frame).
    let wide = 4 * tets.len() + 3 * tris.len() > i32::MAX as usize;
    let int_ty = if wide { "Int64" } else { "Int32" };
    let push_int = |buf: &mut Vec<u8>, v: usize| match wide {
        true => buf.extend((v as i64).to_le_bytes()),
        false => buf.extend((v as i32).to_le_bytes()),
    };
    start(&mut buf);
    flat.for_each(|&i| push_int(&mut buf, i as usize));
    data_array(&mut s, int_ty, Some("connectivity"), 1, &mut buf);
    start(&mut buf);
    let ends = (1..=tets.len()).map(|k| 4 * k).chain((1..=tris.len()).map(|k| 4 * tets.len() + 3 * k));
    ends.for_each(|o| push_int(&mut buf, o));
    data_array(&mut s, int_ty, Some("offsets"), 1, &mut buf);
    start(&mut buf);
    buf.extend(std::iter::repeat_n(VTK_TETRA as u8, tets.len()));
    buf.extend(std::iter::repeat_n(VTK_TRIANGLE as u8, tris.len()));
    data_array(&mut s, "UInt8", Some("types"), 1, &mut buf);
    s.push_str("      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    write_atomic(path, s.as_bytes())
}

/// The named arrays of a `PointData` or `CellData` section.
fn named_arrays(s: &mut String, buf: &mut Vec<u8>, arrays: &[(&str, PointData)]) {
    for (name, d) in arrays {
        start(buf);
        let (ty, comps) = match d {
            PointData::Scalar(v) => {
                v.iter().for_each(|x| buf.extend(x.to_le_bytes()));
                ("Float64", 1)
            }
            PointData::Int(v) => {
                v.iter().for_each(|x| buf.extend(x.to_le_bytes()));
                ("Int32", 1)
            }
            PointData::Vector(v) => {
                push_vec3(buf, v);
                ("Float64", 3)
            }
        };
        data_array(s, ty, Some(name), comps, buf);
    }
}

fn push_vec3(buf: &mut Vec<u8>, v: &[Vec3]) {
    for p in v {
        for x in p.iter() {
            buf.extend(x.to_le_bytes());
        }
    }
}

/// Empties `buf` and reserves the 8-byte header of a binary array.
fn start(buf: &mut Vec<u8>) {
    buf.clear();
    buf.extend([0u8; 8]);
}

/// Appends a binary `DataArray` holding `buf` (made by [`start`] then the data): the UInt64 byte count
/// and the bytes, base64-encoded as one stream, as VTK writes it.
fn data_array(s: &mut String, ty: &str, name: Option<&str>, comps: usize, buf: &mut [u8]) {
    let len = (buf.len() - 8) as u64;
    buf[..8].copy_from_slice(&len.to_le_bytes());
    let _ = write!(s, "        <DataArray type=\"{ty}\"");
    if let Some(name) = name {
        let _ = write!(s, " Name=\"{}\"", quick_xml::escape::escape(name));
    }
    let _ = write!(s, " NumberOfComponents=\"{comps}\" format=\"binary\">\n          ");
    STANDARD.encode_string(&buf, s);
    s.push_str("\n        </DataArray>\n");
}

/// Which array of a piece a `DataArray` is.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Role {
    Points,
    /// The integer point-data array asked for by [`read_vtu_cells_and_point_ints`].
    PointInts,
    Connectivity,
    Offsets,
    Types,
}

/// A `DataArray` being read.
struct Array {
    role: Role,
    ty: String,
    binary: bool,
    /// Byte position of its start tag, for error lines.
    pos: u64,
}

#[derive(Default)]
struct Piece {
    points: Option<Vec<f64>>,
    connectivity: Option<Vec<i64>>,
    offsets: Option<Vec<i64>>,
    types: Option<Vec<i64>>,
    point_ints: Option<Vec<i64>>,
    declared_points: Option<usize>,
}

#[derive(Default)]
struct Out {
    vertices: Vec<Vec3>,
    tets: Vec<[u32; 4]>,
    tris: Vec<[u32; 3]>,
    pieces: usize,
    /// The asked-for point-data array of every piece so far; `None` once a piece lacks it.
    point_ints: Option<Vec<i64>>,
}

pub(super) fn parse(path: &Path, data: &[u8]) -> Result<Mesh> {
    let ((vertices, tets, tris), _) = parse_cells(path, data, None)?;
    tet_or_tri(path, vertices, tets, tris)
}

/// Points, tetrahedra and triangles.
pub type Cells = (Vec<Vec3>, Vec<[u32; 4]>, Vec<[u32; 3]>);

/// The points, tetrahedra and triangles of a `.vtu` file, both kinds of cells kept (the frames of a
/// run with solids and cloth hold both).
pub fn read_vtu_cells(path: &Path) -> Result<Cells> {
    Ok(parse_cells(path, &read_bytes(path)?, None)?.0)
}

/// [`read_vtu_cells`] with the integer point-data array `name` (one value per point, such as a frame's
/// `body`), or `None` when a piece of the file has no such array.
pub fn read_vtu_cells_and_point_ints(path: &Path, name: &str) -> Result<(Cells, Option<Vec<i64>>)> {
    parse_cells(path, &read_bytes(path)?, Some(name))
}

/// The cells of the file, and the integer point-data array `point_ints` when it is named and every piece
/// has it.
fn parse_cells(path: &Path, data: &[u8], point_ints: Option<&str>) -> Result<(Cells, Option<Vec<i64>>)> {
    let line_at = |pos: u64| 1 + data[..(pos as usize).min(data.len())].iter().filter(|&&b| b == b'\n').count();
    let err = |pos: u64, msg: String| Error::parse(path, Some(line_at(pos)), msg);
    let mut xml = quick_xml::Reader::from_reader(data);
    xml.config_mut().expand_empty_elements = true;
    let (mut header, mut endian, mut seen_root) = (4usize, Endian::Little, false);
    let mut stack: Vec<Vec<u8>> = Vec::new();
    let mut current: Option<Array> = None;
    let mut text = String::new();
    let mut piece = Piece::default();
    let mut out = Out { point_ints: point_ints.map(|_| Vec::new()), ..Out::default() };
    loop {
        let pos = xml.buffer_position();
        let event = xml.read_event().map_err(|e| err(xml.error_position(), format!("malformed XML: {e}")))?;
        match event {
            Event::Eof => match stack.last() {
                Some(open) => {
                    let open = String::from_utf8_lossy(open);
                    return Err(err(pos, format!("file ends inside the <{open}> element")));
                }
                None => break,
            },
            Event::Start(e) => {
                let name = e.local_name().as_ref().to_vec();
                match &name[..] {
                    b"VTKFile" => {
                        seen_root = true;
                        if let Some(c) = attr(&e, "compressor").filter(|c| !c.is_empty()) {
                            return Err(err(pos, format!("compressed data ({}) is not supported", shorten(&c))));
                        }
                        let ty = attr(&e, "type").unwrap_or_default();
                        if ty != "UnstructuredGrid" {
                            return Err(err(pos, format!("VTK file type `{}` is not UnstructuredGrid", shorten(&ty))));
                        }
                        header = match attr(&e, "header_type").as_deref() {
                            None | Some("UInt32") => 4,
                            Some("UInt64") => 8,
                            Some(h) => return Err(err(pos, format!("header_type `{}` is not supported", shorten(h)))),
                        };
                        endian = match attr(&e, "byte_order").as_deref() {
                            None | Some("LittleEndian") => Endian::Little,
                            Some("BigEndian") => Endian::Big,
                            Some(b) => return Err(err(pos, format!("byte_order `{}` is not supported", shorten(b)))),
                        };
                    }
                    _ if !seen_root => return Err(err(pos, "not a VTK XML file (no VTKFile element)".into())),
                    b"AppendedData" => break,
                    b"Piece" => {
                        piece = Piece::default();
                        piece.declared_points = attr(&e, "NumberOfPoints").and_then(|v| v.trim().parse().ok());
                    }
                    b"DataArray" => {
                        let parent = stack.last().map(|p| &p[..]);
                        let role = match (parent, attr(&e, "Name").as_deref()) {
                            (Some(b"Points"), _) => Some(Role::Points),
                            (Some(b"Cells"), Some("connectivity")) => Some(Role::Connectivity),
                            (Some(b"Cells"), Some("offsets")) => Some(Role::Offsets),
                            (Some(b"Cells"), Some("types")) => Some(Role::Types),
                            (Some(b"PointData"), name) if name.is_some() && name == point_ints => Some(Role::PointInts),
                            _ => None,
                        };
                        if let Some(role) = role {
                            current = Some(open_array(&e, role, pos).map_err(|m| err(pos, m))?);
                            text.clear();
                        }
                    }
                    _ => {}
                }
                stack.push(name);
            }
            Event::End(e) => {
                stack.pop();
                match e.local_name().as_ref() {
                    b"DataArray" => {
                        if let Some(a) = current.take() {
                            let at = a.pos;
                            store(&mut piece, &a, &text, header, endian).map_err(|m| err(at, m))?;
                        }
                    }
                    b"Piece" => finish(&mut out, std::mem::take(&mut piece)).map_err(|m| err(pos, m))?,
                    _ => {}
                }
            }
            // Only the array's own text: VTK nests `InformationKey` elements inside arrays.
            Event::Text(t) if current.is_some() && stack.last().is_some_and(|n| n == b"DataArray") => text.push_str(&String::from_utf8_lossy(&t)),
            Event::CData(t) if current.is_some() && stack.last().is_some_and(|n| n == b"DataArray") => text.push_str(&String::from_utf8_lossy(&t)),
            _ => {}
        }
    }
    if out.pieces == 0 {
        return Err(Error::parse(path, None, "no complete UnstructuredGrid Piece found"));
    }
    Ok(((out.vertices, out.tets, out.tris), out.point_ints))
}

fn attr(e: &BytesStart, key: &str) -> Option<String> {
    let a = e.try_get_attribute(key).ok()??;
    Some(a.unescape_value().ok()?.into_owned())
}

fn open_array(e: &BytesStart, role: Role, pos: u64) -> std::result::Result<Array, String> {
    let ty = attr(e, "type").ok_or("DataArray without a type")?;
    let binary = match attr(e, "format").as_deref() {
        Some("ascii") => false,
        Some("binary") => true,
        Some("appended") => return Err("appended data (format=\"appended\") is not supported".into()),
        f => return Err(format!("DataArray format {f:?} is not supported (ascii or binary)")),
    };
    if role == Role::Points && attr(e, "NumberOfComponents").as_deref().map(str::trim) != Some("3") {
        return Err("Points DataArray must have NumberOfComponents=\"3\"".into());
    }
    Ok(Array { role, ty, binary, pos })
}

/// Byte size and kind (`i`, `u`, `f`) of a VTK XML data type.
fn type_info(ty: &str) -> Option<(usize, char)> {
    Some(match ty {
        "Int8" => (1, 'i'),
        "UInt8" => (1, 'u'),
        "Int16" => (2, 'i'),
        "UInt16" => (2, 'u'),
        "Int32" => (4, 'i'),
        "UInt32" => (4, 'u'),
        "Int64" => (8, 'i'),
        "UInt64" => (8, 'u'),
        "Float32" => (4, 'f'),
        "Float64" => (8, 'f'),
        _ => return None,
    })
}

/// Decodes an inline binary array: a byte-count header then the bytes, base64 encoded either as one
/// stream or as two (header and data padded separately, as VTK writes them).
fn decode_base64(text: &str, header: usize) -> std::result::Result<Vec<u8>, String> {
    let t: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    let bad = |e: base64::DecodeError| format!("bad base64 data: {e}");
    let hc = header.div_ceil(3) * 4;
    let (head, mut body) = if t.len() >= hc && t[..hc].ends_with(b"=") {
        (B64_LENIENT.decode(&t[..hc]).map_err(bad)?, B64_LENIENT.decode(&t[hc..]).map_err(bad)?)
    } else {
        let mut all = B64_LENIENT.decode(&t).map_err(bad)?;
        if all.len() < header {
            return Err("binary data is shorter than its header".into());
        }
        let body = all.split_off(header);
        (all, body)
    };
    let n = Endian::Little.uint(&head[..header.min(head.len())]);
    if head.len() != header || n > body.len() as u64 {
        return Err(format!("binary header announces {n} bytes, but {} follow", body.len()));
    }
    body.truncate(n as usize);
    Ok(body)
}

/// Decodes a `DataArray` into numbers (as `f64` for points, `i64` for cells).
fn values<T>(
    a: &Array,
    text: &str,
    header: usize,
    endian: Endian,
    conv: impl Fn(char, &[u8], Endian) -> Option<T>,
    parse: impl Fn(&str) -> Option<T>,
) -> std::result::Result<Vec<T>, String> {
    let (size, kind) = type_info(&a.ty).ok_or_else(|| format!("data type `{}` is not supported", shorten(&a.ty)))?;
    if !a.binary {
        return text.split_ascii_whitespace().map(|t| parse(t).ok_or_else(|| format!("bad number `{}` in the {:?} array", shorten(t), a.role))).collect();
    }
    let bytes = decode_base64(text, header)?;
    if bytes.len() % size != 0 {
        return Err(format!("{} bytes is not a whole number of {} values", bytes.len(), a.ty));
    }
    bytes.chunks_exact(size).map(|b| conv(kind, b, endian).ok_or_else(|| format!("bad value in the {:?} array", a.role))).collect()
}

fn store(p: &mut Piece, a: &Array, text: &str, header: usize, e: Endian) -> std::result::Result<(), String> {
    if a.role == Role::Points {
        let f = |k: char, b: &[u8], e: Endian| {
            let x = match (k, b.len()) {
                ('f', 4) => e.f32(b) as f64,
                ('f', _) => e.f64(b),
                ('u', _) => e.uint(b) as f64,
                _ => e.int(b) as f64,
            };
            x.is_finite().then_some(x)
        };
        let v = values(a, text, header, e, f, |t| t.parse::<f64>().ok().filter(|x| x.is_finite()))?;
        if v.len() % 3 != 0 {
            return Err(format!("{} point coordinates is not a multiple of 3", v.len()));
        }
        p.points = Some(v);
        return Ok(());
    }
    let f = |k: char, b: &[u8], e: Endian| match k {
        'i' => Some(e.int(b)),
        'u' => i64::try_from(e.uint(b)).ok(),
        _ => None,
    };
    let v = values(a, text, header, e, f, |t| t.parse::<i64>().ok())?;
    match a.role {
        Role::Connectivity => p.connectivity = Some(v),
        Role::Offsets => p.offsets = Some(v),
        Role::PointInts => p.point_ints = Some(v),
        _ => p.types = Some(v),
    }
    Ok(())
}

/// Appends a finished piece's points and kept cells to `out`.
fn finish(out: &mut Out, p: Piece) -> std::result::Result<(), String> {
    let points = p.points.ok_or("Piece has no Points array")?;
    let nv = points.len() / 3;
    if p.declared_points.is_some_and(|d| d != nv) {
        return Err(format!("NumberOfPoints is {} but {nv} points were read", p.declared_points.unwrap_or(0)));
    }
    let conn = p.connectivity.ok_or("Piece has no connectivity array")?;
    let offsets = p.offsets.ok_or("Piece has no offsets array")?;
    let types = p.types.ok_or("Piece has no types array")?;
    if offsets.len() != types.len() {
        return Err(format!("{} offsets but {} cell types", offsets.len(), types.len()));
    }
    let base = out.vertices.len() as u64;
    if base + nv as u64 > u32::MAX as u64 {
        return Err("too many points".into());
    }
    let mut start = 0usize;
    for (i, (&end, &ty)) in offsets.iter().zip(&types).enumerate() {
        let end = usize::try_from(end).ok().filter(|&e| e >= start && e <= conn.len());
        let end = end.ok_or_else(|| format!("offset of cell {i} is out of order or past the connectivity"))?;
        let ids = &conn[start..end];
        start = end;
        let want = match ty {
            VTK_TETRA => 4,
            VTK_TRIANGLE => 3,
            _ => continue,
        };
        if ids.len() != want {
            return Err(format!("cell {i} of type {ty} has {} points, expected {want}", ids.len()));
        }
        let mut v = [0u32; 4];
        for (d, &s) in v.iter_mut().zip(ids) {
            let k = super::to_index(s, nv).ok_or_else(|| format!("cell {i} references point {s} of {nv}"))?;
            *d = k + base as u32;
        }
        if want == 4 {
            out.tets.push(v);
        } else {
            out.tris.push([v[0], v[1], v[2]]);
        }
    }
    if let Some(v) = &p.point_ints {
        if v.len() != nv {
            return Err(format!("point data array has {} values for {nv} points", v.len()));
        }
    }
    out.point_ints = out.point_ints.take().zip(p.point_ints).map(|(mut all, v)| {
        all.extend(v);
        all
    });
    out.vertices.extend(points.chunks_exact(3).map(|c| Vec3::new(c[0], c[1], c[2])));
    out.pieces += 1;
    Ok(())
}
