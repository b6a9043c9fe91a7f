//! Gmsh `.msh`, versions 2.x and 4.1, ASCII and binary. Keeps 4-node tetrahedra (type 4), or
//! 3-node triangles (type 2) when there are no tetrahedra; every other element type is skipped, and a
//! file whose tetrahedra or triangles are all of higher order is refused with the `gmsh -order 1` hint.

use super::{ascii_bytes, shorten, tet_or_tri, Cursor, Endian};
use crate::mesh::numbering::Numbering;
use crate::mesh::{Mesh, Vec3};
use crate::{Error, Result};
use std::collections::HashMap;
use std::path::Path;

const TET: u64 = 4;
const TRI: u64 = 2;
/// Higher-order tetrahedra (10, 20, 35, 56 nodes) and triangles (6, 9, 10, 12, 15, 15, 21 nodes).
const HIGHER_ORDER: [u64; 11] = [11, 29, 30, 31, 9, 20, 21, 22, 23, 24, 25];

/// What `$MeshFormat` said.
#[derive(Clone, Copy)]
struct Format {
    v4: bool,
    /// `Some` for binary files.
    binary: Option<Endian>,
    /// Bytes of a `size_t` in v4 binary files.
    size_t: usize,
}

/// Node tags to dense indices: an offset when the tags are contiguous, else a map.
enum Tags {
    Offset(u64),
    Map(HashMap<u64, u32>),
}

struct Nodes {
    vertices: Vec<Vec3>,
    tags: Tags,
}

impl Nodes {
    fn new(c: &Cursor, vertices: Vec<Vec3>, tags: Vec<u64>) -> Result<Nodes> {
        let first = tags.first().copied().unwrap_or(0);
        let contiguous = tags.iter().enumerate().all(|(i, &t)| t == first.wrapping_add(i as u64));
        let tags = if contiguous {
            Tags::Offset(first)
        } else {
            let mut map = HashMap::with_capacity(tags.len());
            for (i, &t) in tags.iter().enumerate() {
                if map.insert(t, i as u32).is_some() {
                    return Err(c.err(format!("node tag {t} is defined twice")));
                }
            }
            Tags::Map(map)
        };
        Ok(Nodes { vertices, tags })
    }

    fn index(&self, c: &Cursor, tag: i64) -> Result<u32> {
        let found = u64::try_from(tag).ok().and_then(|t| match &self.tags {
            Tags::Offset(o) => t.checked_sub(*o).filter(|&i| i < self.vertices.len() as u64).map(|i| i as u32),
            Tags::Map(m) => m.get(&t).copied(),
        });
        found.ok_or_else(|| c.err(format!("element references node tag {tag}, which is not defined")))
    }
}

#[derive(Default)]
struct Elements {
    tets: Vec<[u32; 4]>,
    /// The element tag of each kept tetrahedron.
    tet_tags: Vec<i64>,
    tris: Vec<[u32; 3]>,
    /// The type of the first skipped higher-order tetrahedron or triangle.
    higher_order: Option<u64>,
}

impl Elements {
    /// Keeps a tetrahedron and its element tag.
    fn tet(&mut self, tag: i64, nodes: [u32; 4]) {
        self.tets.push(nodes);
        self.tet_tags.push(tag);
    }

    /// Notes a skipped element of type `ty`.
    fn skip(&mut self, ty: u64) {
        if HIGHER_ORDER.contains(&ty) {
            self.higher_order.get_or_insert(ty);
        }
    }
}

/// The mesh and its tetrahedra's element tags.
pub(super) fn parse(path: &Path, data: &[u8]) -> Result<(Mesh, Numbering)> {
    let mut c = Cursor::new(path, data, None);
    let mut format: Option<Format> = None;
    let mut nodes: Option<Nodes> = None;
    let mut elems = Elements::default();
    while let Some(tok) = c.token() {
        match tok {
            "$MeshFormat" => format = Some(read_format(&mut c)?),
            "$Nodes" | "$Elements" => {
                let f = format.ok_or_else(|| c.err(format!("{tok} before $MeshFormat")))?;
                if tok == "$Nodes" {
                    if nodes.is_some() {
                        return Err(c.err("a second $Nodes section (elements already refer to the first)"));
                    }
                    nodes = Some(match (f.v4, f.binary) {
                        (false, None) => nodes_v2_ascii(&mut c)?,
                        (false, Some(e)) => nodes_v2_binary(&mut c, e)?,
                        (true, None) => nodes_v4_ascii(&mut c)?,
                        (true, Some(e)) => nodes_v4_binary(&mut c, Bin { e, size_t: f.size_t })?,
                    });
                } else {
                    let n = nodes.as_ref().ok_or_else(|| c.err("$Elements before $Nodes"))?;
                    match (f.v4, f.binary) {
                        (false, None) => elements_v2_ascii(&mut c, n, &mut elems)?,
                        (false, Some(e)) => elements_v2_binary(&mut c, n, e, &mut elems)?,
                        (true, None) => elements_v4_ascii(&mut c, n, &mut elems)?,
                        (true, Some(e)) => elements_v4_binary(&mut c, n, Bin { e, size_t: f.size_t }, &mut elems)?,
                    }
                }
                c.keyword(&format!("$End{}", &tok[1..]))?;
            }
            s if s.starts_with('$') && !s.starts_with("$End") => {
                let end = format!("$End{}", &s[1..]);
                if !c.skip_past(end.as_bytes()) {
                    return Err(c.err(format!("section {s} has no {end}")));
                }
            }
            s => return Err(c.err(format!("expected a section such as `$Nodes`, found `{}`", shorten(s)))),
        }
    }
    let nodes = nodes.ok_or_else(|| Error::parse(path, None, "no $Nodes section"))?;
    if let (true, Some(ty)) = (elems.tets.is_empty(), elems.higher_order) {
        let nodes = nodes_per_type(ty).unwrap_or(0);
        return Err(Error::parse(
            path,
            None,
            format!("holds second- or higher-order elements (Gmsh type {ty}, {nodes} nodes), which are not supported: mesh it with `gmsh -order 1` (linear 4-node tetrahedra)"),
        ));
    }
    let numbering = Numbering::gmsh(elems.tet_tags);
    Ok((tet_or_tri(path, nodes.vertices, elems.tets, elems.tris)?, numbering))
}

fn read_format(c: &mut Cursor) -> Result<Format> {
    let version = c.expect("the format version")?;
    let v4 = match version {
        "4.1" => true,
        v if v.starts_with("2.") || v == "2" => false,
        v => return Err(c.err(format!("Gmsh format version {} is not supported (2.2 or 4.1)", shorten(v)))),
    };
    let file_type: u32 = c.parse("the file type (0 ASCII, 1 binary)")?;
    let size_t: usize = c.parse("the data size")?;
    if size_t != 4 && size_t != 8 {
        return Err(c.err(format!("data size {size_t} is not supported (4 or 8)")));
    }
    let binary = match file_type {
        0 => None,
        1 => {
            c.skip_line();
            let one = c.bytes(4, "the binary endianness marker")?;
            Some(match (Endian::Little.int(one), Endian::Big.int(one)) {
                (1, _) => Endian::Little,
                (_, 1) => Endian::Big,
                _ => return Err(c.err("bad binary endianness marker (expected the integer 1)")),
            })
        }
        t => return Err(c.err(format!("file type {t}, expected 0 (ASCII) or 1 (binary)"))),
    };
    c.keyword("$EndMeshFormat")?;
    Ok(Format { v4, binary, size_t })
}

/// Nodes per element of each Gmsh element type (enough to skip what is not kept in binary files).
fn nodes_per_type(t: u64) -> Option<usize> {
    const N: [usize; 32] = [0, 2, 3, 4, 4, 8, 6, 5, 3, 6, 9, 10, 27, 18, 14, 1, 8, 20, 15, 13, 9, 10, 12, 15, 15, 21, 4, 5, 6, 20, 35, 56];
    match t {
        1..=31 => Some(N[t as usize]),
        92 => Some(64),
        93 => Some(125),
        _ => None,
    }
}

fn nodes_v2_ascii(c: &mut Cursor) -> Result<Nodes> {
    let n = c.parse("the number of nodes")?;
    let n = c.check_count(n, ascii_bytes(4), "nodes")?;
    let (mut vertices, mut tags) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for _ in 0..n {
        tags.push(c.parse("a node tag")?);
        vertices.push(c.vec3("a node coordinate")?);
    }
    Nodes::new(c, vertices, tags)
}

fn nodes_v2_binary(c: &mut Cursor, e: Endian) -> Result<Nodes> {
    let n = c.parse("the number of nodes")?;
    let n = c.check_count(n, 28, "nodes")?;
    c.skip_line();
    let (mut vertices, mut tags) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for b in c.bytes(28 * n, "the node data")?.chunks_exact(28) {
        tags.push(e.int(&b[..4]) as u64);
        vertices.push(vec3(e, &b[4..]));
    }
    check_finite(c, &vertices)?;
    Nodes::new(c, vertices, tags)
}

/// Reads one v2 ASCII element's nodes into `elems` if it is kept; skips it otherwise.
fn element_nodes(c: &mut Cursor, n: &Nodes, ty: u64, tag: i64, elems: &mut Elements) -> Result<()> {
    match ty {
        TET => elems.tet(tag, node_list(c, n)?),
        TRI => elems.tris.push(node_list(c, n)?),
        _ => {
            elems.skip(ty);
            c.rest_of_line();
            return Ok(());
        }
    }
    match c.inline_token() {
        Some(t) => Err(c.err(format!("unexpected `{}` after the nodes of a type-{ty} element", shorten(t)))),
        None => Ok(()),
    }
}

fn node_list<const K: usize>(c: &mut Cursor, n: &Nodes) -> Result<[u32; K]> {
    let mut out = [0u32; K];
    for v in out.iter_mut() {
        let tag = c.parse("a node tag")?;
        *v = n.index(c, tag)?;
    }
    Ok(out)
}

fn elements_v2_ascii(c: &mut Cursor, n: &Nodes, elems: &mut Elements) -> Result<()> {
    let m = c.parse("the number of elements")?;
    let m = c.check_count(m, ascii_bytes(4), "elements")?;
    for _ in 0..m {
        let tag = c.parse("an element tag")?;
        let ty: u64 = c.parse("an element type")?;
        let ntags: u64 = c.parse("the number of element tags")?;
        for _ in 0..ntags {
            c.parse::<i64>("an element tag value")?;
        }
        element_nodes(c, n, ty, tag, elems)?;
    }
    Ok(())
}

fn elements_v2_binary(c: &mut Cursor, n: &Nodes, e: Endian, elems: &mut Elements) -> Result<()> {
    let m: u64 = c.parse("the number of elements")?;
    c.check_count(m, 12, "elements")?;
    c.skip_line();
    let mut read = 0u64;
    while read < m {
        let h = c.bytes(12, "an element block header")?;
        let (ty, count, ntags) = (e.int(&h[..4]), e.int(&h[4..8]), e.int(&h[8..]));
        let nn = u64::try_from(ty).ok().and_then(nodes_per_type);
        let (Some(nn), Ok(count), Ok(ntags)) = (nn, u64::try_from(count), usize::try_from(ntags)) else {
            return Err(c.err(format!("bad element block header (type {ty}, {count} elements, {ntags} tags)")));
        };
        if count == 0 || count > m - read || ntags > 1 << 16 {
            return Err(c.err(format!("element block of {count} elements does not fit the {m} announced")));
        }
        let per = 4 * (1 + ntags + nn);
        let count = c.check_count(count, per as u64, "elements")?;
        for b in c.bytes(count * per, "the element data")?.chunks_exact(per) {
            let nodes = &b[4 * (1 + ntags)..];
            let idx = |k: usize| n.index(c, e.int(&nodes[4 * k..4 * k + 4]));
            match ty as u64 {
                TET => elems.tet(e.int(&b[..4]), [idx(0)?, idx(1)?, idx(2)?, idx(3)?]),
                TRI => elems.tris.push([idx(0)?, idx(1)?, idx(2)?]),
                other => elems.skip(other),
            }
        }
        read += count as u64;
    }
    Ok(())
}

fn nodes_v4_ascii(c: &mut Cursor) -> Result<Nodes> {
    let blocks: u64 = c.parse("the number of node blocks")?;
    let total = c.parse("the number of nodes")?;
    c.parse::<u64>("the minimum node tag")?;
    c.parse::<u64>("the maximum node tag")?;
    let total = c.check_count(total, ascii_bytes(4), "nodes")?;
    c.check_count(blocks, ascii_bytes(4), "node blocks")?;
    let (mut vertices, mut tags) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for _ in 0..blocks {
        let dim: usize = c.parse("an entity dimension")?;
        c.parse::<i64>("an entity tag")?;
        let parametric: u32 = c.parse("the parametric flag")?;
        let k: usize = c.parse("the number of nodes in the block")?;
        if k > total - tags.len() || dim > 3 {
            return Err(c.err(format!("node block of {k} nodes exceeds the {total} announced")));
        }
        for _ in 0..k {
            tags.push(c.parse("a node tag")?);
        }
        for _ in 0..k {
            vertices.push(c.vec3("a node coordinate")?);
            for _ in 0..if parametric == 1 { dim } else { 0 } {
                c.f64("a parametric coordinate")?;
            }
        }
    }
    if tags.len() != total {
        return Err(c.err(format!("{} nodes in the blocks, but the header announced {total}", tags.len())));
    }
    Nodes::new(c, vertices, tags)
}

fn elements_v4_ascii(c: &mut Cursor, n: &Nodes, elems: &mut Elements) -> Result<()> {
    let blocks: u64 = c.parse("the number of element blocks")?;
    let total: u64 = c.parse("the number of elements")?;
    c.parse::<u64>("the minimum element tag")?;
    c.parse::<u64>("the maximum element tag")?;
    c.check_count(total, ascii_bytes(2), "elements")?;
    c.check_count(blocks, ascii_bytes(4), "element blocks")?;
    let mut read = 0u64;
    for _ in 0..blocks {
        c.parse::<u32>("an entity dimension")?;
        c.parse::<i64>("an entity tag")?;
        let ty: u64 = c.parse("an element type")?;
        let k: u64 = c.parse("the number of elements in the block")?;
        if k > total - read {
            return Err(c.err(format!("element block of {k} elements exceeds the {total} announced")));
        }
        for _ in 0..k {
            let tag = c.parse("an element tag")?;
            element_nodes(c, n, ty, tag, elems)?;
        }
        read += k;
    }
    Ok(())
}

/// Binary number reader of Gmsh v4 files.
#[derive(Clone, Copy)]
struct Bin {
    e: Endian,
    size_t: usize,
}

impl Bin {
    fn size(self, c: &mut Cursor, what: &str) -> Result<u64> {
        Ok(self.e.uint(c.bytes(self.size_t, what)?))
    }
    fn int(self, c: &mut Cursor, what: &str) -> Result<i64> {
        Ok(self.e.int(c.bytes(4, what)?))
    }
}

fn nodes_v4_binary(c: &mut Cursor, b: Bin) -> Result<Nodes> {
    c.skip_line();
    let blocks = b.size(c, "the node section header")?;
    let total = b.size(c, "the node section header")?;
    b.size(c, "the node section header")?;
    b.size(c, "the node section header")?;
    let total = c.check_count(total, (b.size_t + 24) as u64, "nodes")?;
    c.check_count(blocks, 12 + b.size_t as u64, "node blocks")?;
    let (mut vertices, mut tags) = (Vec::with_capacity(total), Vec::with_capacity(total));
    for _ in 0..blocks {
        let dim = b.int(c, "a node block header")?;
        b.int(c, "a node block header")?;
        let parametric = b.int(c, "a node block header")?;
        let k = b.size(c, "a node block header")?;
        if k > (total - tags.len()) as u64 || !(0..=3).contains(&dim) {
            return Err(c.err(format!("node block of {k} nodes exceeds the {total} announced")));
        }
        let k = k as usize;
        for t in c.bytes(k * b.size_t, "the node tags")?.chunks_exact(b.size_t) {
            tags.push(b.e.uint(t));
        }
        let per = 8 * (3 + if parametric == 1 { dim as usize } else { 0 });
        for x in c.bytes(k * per, "the node coordinates")?.chunks_exact(per) {
            vertices.push(vec3(b.e, x));
        }
    }
    if tags.len() != total {
        return Err(c.err(format!("{} nodes in the blocks, but the header announced {total}", tags.len())));
    }
    check_finite(c, &vertices)?;
    Nodes::new(c, vertices, tags)
}

fn elements_v4_binary(c: &mut Cursor, n: &Nodes, b: Bin, elems: &mut Elements) -> Result<()> {
    c.skip_line();
    let blocks = b.size(c, "the element section header")?;
    let total = b.size(c, "the element section header")?;
    b.size(c, "the element section header")?;
    b.size(c, "the element section header")?;
    c.check_count(total, 2 * b.size_t as u64, "elements")?;
    c.check_count(blocks, 12 + b.size_t as u64, "element blocks")?;
    let mut read = 0u64;
    for _ in 0..blocks {
        b.int(c, "an element block header")?;
        b.int(c, "an element block header")?;
        let ty = b.int(c, "an element block header")?;
        let k = b.size(c, "an element block header")?;
        let nn = u64::try_from(ty).ok().and_then(nodes_per_type);
        let Some(nn) = nn else {
            return Err(c.err(format!("unknown element type {ty}")));
        };
        if k > total - read {
            return Err(c.err(format!("element block of {k} elements exceeds the {total} announced")));
        }
        let per = b.size_t * (1 + nn);
        let k = c.check_count(k, per as u64, "elements")?;
        for el in c.bytes(k * per, "the element data")?.chunks_exact(per) {
            let idx = |j: usize| {
                let s = b.size_t * (1 + j);
                n.index(c, b.e.uint(&el[s..s + b.size_t]).min(i64::MAX as u64) as i64)
            };
            match ty as u64 {
                TET => elems.tet(b.e.uint(&el[..b.size_t]).min(i64::MAX as u64) as i64, [idx(0)?, idx(1)?, idx(2)?, idx(3)?]),
                TRI => elems.tris.push([idx(0)?, idx(1)?, idx(2)?]),
                other => elems.skip(other),
            }
        }
        read += k as u64;
    }
    Ok(())
}

fn vec3(e: Endian, b: &[u8]) -> Vec3 {
    Vec3::new(e.f64(&b[..8]), e.f64(&b[8..16]), e.f64(&b[16..24]))
}

fn check_finite(c: &Cursor, v: &[Vec3]) -> Result<()> {
    match v.iter().position(|p| !p.iter().all(|x| x.is_finite())) {
        Some(i) => Err(c.err(format!("node {i} has a non-finite coordinate"))),
        None => Ok(()),
    }
}
