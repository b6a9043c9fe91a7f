//! Mesh file readers and the simulation-output writers. Dispatch by extension; one format per file.
//!
//! Readers return zero-based `u32` indices exactly as the file orders them; orientation is fixed later by
//! [`orient_and_validate`](crate::mesh::orientation::orient_and_validate).

mod gmsh;
mod medit;
mod obj;
mod pvd;
mod stl;
mod tetgen;
mod vtk_legacy;
mod vtu;

pub use pvd::write_pvd;
pub use vtu::{read_vtu_cells, read_vtu_cells_and_point_ints, write_vtu, write_vtu_with_cells, PointData};

use super::{numbering::Numbering, Mesh, TetMesh, TriMesh, Vec3};
use crate::{Error, Result};
use std::path::Path;
use std::str::FromStr;

/// Extensions [`read_mesh`] understands.
pub const SUPPORTED_EXTENSIONS: &str = ".node/.ele (TetGen), .msh (Gmsh), .mesh (MEDIT), .vtk, .vtu, .obj, .stl";

/// Reads a mesh, choosing the format by the file's extension. A path without an extension is read by
/// its content when it is a file (Gmsh, MEDIT, VTK), and is otherwise taken as a TetGen stem
/// (`stem.node` + `stem.ele`).
pub fn read_mesh(path: &Path) -> Result<Mesh> {
    read_numbered(path).map(|(mesh, _)| mesh)
}

/// [`read_mesh`], with how the file numbers its tetrahedra (for messages).
pub fn read_numbered(path: &Path) -> Result<(Mesh, Numbering)> {
    if path.extension().is_none() && path.is_file() {
        let data = read_bytes(path)?;
        let unknown =
            || Error::parse(path, None, format!("has no extension and is not a mesh file this reader knows by content (supported: {SUPPORTED_EXTENSIONS})"));
        return Format::sniff(&data).ok_or_else(unknown)?.parse(path, &data);
    }
    match Format::of(path)? {
        Format::TetGen => tetgen::read(path).map(|m| (Mesh::Tet(m), Numbering::default())),
        format => format.parse(path, &read_bytes(path)?),
    }
}

/// Parses a one-file mesh held in memory (every format but TetGen, see [`parse_tetgen`]); `path` picks
/// the format by its extension and names the file in errors. The fuzz targets enter here.
pub fn parse_mesh(path: &Path, data: &[u8]) -> Result<Mesh> {
    Format::of(path)?.parse(path, data).map(|(mesh, _)| mesh)
}

/// Parses a TetGen `.node` text and `.ele` text held in memory; `path` names them in errors.
pub fn parse_tetgen(path: &Path, node: &[u8], ele: &[u8]) -> Result<TetMesh> {
    tetgen::parse(path, node, ele)
}

/// The kind of mesh file `path` is, by its extension or else its content (`a Gmsh mesh`), for messages
/// about a mesh given where something else is expected; `None` when it is not recognisably a mesh.
pub fn mesh_kind(path: &Path, data: &[u8]) -> Option<&'static str> {
    let ext = path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    ext.and_then(|e| Format::by_extension(&e)).or_else(|| Format::sniff(data)).map(Format::name)
}

/// Mesh file formats, told apart by extension (or, for a file without one, by content).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    TetGen,
    Gmsh,
    Medit,
    VtkLegacy,
    Vtu,
    Obj,
    Stl,
}

impl Format {
    /// The format of `path`; a path without an extension is a TetGen stem.
    fn of(path: &Path) -> Result<Format> {
        match path.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase) {
            None => Ok(Format::TetGen),
            Some(ext) => Format::by_extension(&ext)
                .ok_or_else(|| Error::parse(path, None, format!("unknown mesh extension `.{ext}` (supported: {SUPPORTED_EXTENSIONS})"))),
        }
    }

    fn by_extension(ext: &str) -> Option<Format> {
        Some(match ext {
            "node" | "ele" => Format::TetGen,
            "msh" => Format::Gmsh,
            "mesh" => Format::Medit,
            "vtk" => Format::VtkLegacy,
            "vtu" => Format::Vtu,
            "obj" => Format::Obj,
            "stl" => Format::Stl,
            _ => return None,
        })
    }

    /// The format whose header `data` starts with, for the formats that have an unambiguous one.
    fn sniff(data: &[u8]) -> Option<Format> {
        let head = &data[data.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(data.len())..];
        let head = &head[..head.len().min(1024)];
        let has = |needle: &[u8]| head.windows(needle.len()).any(|w| w == needle);
        [(b"$MeshFormat".as_slice(), Format::Gmsh), (b"MeshVersionFormatted", Format::Medit), (b"# vtk DataFile", Format::VtkLegacy)]
            .into_iter()
            .find(|(magic, _)| head.starts_with(magic))
            .map(|(_, f)| f)
            .or_else(|| (head.starts_with(b"<") && has(b"<VTKFile")).then_some(Format::Vtu))
    }

    fn name(self) -> &'static str {
        match self {
            Format::TetGen => "a TetGen mesh",
            Format::Gmsh => "a Gmsh mesh",
            Format::Medit => "a MEDIT mesh",
            Format::VtkLegacy => "a legacy VTK mesh",
            Format::Vtu => "a VTU mesh",
            Format::Obj => "an OBJ surface",
            Format::Stl => "an STL surface",
        }
    }

    /// Parses a one-file mesh of this format, with its element numbering.
    fn parse(self, path: &Path, data: &[u8]) -> Result<(Mesh, Numbering)> {
        let positional = |mesh: Result<Mesh>| mesh.map(|m| (m, Numbering::default()));
        match self {
            Format::TetGen => Err(Error::parse(path, None, "a TetGen mesh is two files: parse it with parse_tetgen")),
            Format::Gmsh => gmsh::parse(path, data),
            Format::Medit => positional(medit::parse(path, data)),
            Format::VtkLegacy => positional(vtk_legacy::parse(path, data)),
            Format::Vtu => positional(vtu::parse(path, data)),
            Format::Obj => positional(obj::parse(path, data).map(Mesh::Tri)),
            Format::Stl => positional(stl::parse(path, data).map(Mesh::Tri)),
        }
    }
}

/// Reads a tetrahedral mesh; a file that holds only triangles is an error.
pub fn read_tet_mesh(path: &Path) -> Result<TetMesh> {
    match read_mesh(path)? {
        Mesh::Tet(m) => Ok(m),
        Mesh::Tri(_) => Err(Error::parse(path, None, "holds a triangle mesh, but tetrahedra are needed")),
    }
}

/// Reads a triangle mesh; a file that holds tetrahedra is an error.
pub fn read_tri_mesh(path: &Path) -> Result<TriMesh> {
    match read_mesh(path)? {
        Mesh::Tri(m) => Ok(m),
        Mesh::Tet(_) => Err(Error::parse(path, None, "holds a tetrahedral mesh, but triangles are needed")),
    }
}

/// Reads a whole file into memory.
pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io(path, e))
}

/// Writes `bytes` to `path` through a temporary sibling (`path` + `.tmp`) and a rename, so a killed run
/// never leaves a truncated file behind; a failed write or rename (a full disk) removes the temporary.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    let failed = |e: std::io::Error| {
        let _ = std::fs::remove_file(&tmp);
        Error::io(path, e)
    };
    std::fs::write(&tmp, bytes).map_err(failed)?;
    std::fs::rename(&tmp, path).map_err(failed)
}

/// Picks the mesh to return from a file that held both kinds: tetrahedra win, else triangles.
pub(crate) fn tet_or_tri(path: &Path, vertices: Vec<Vec3>, tets: Vec<[u32; 4]>, tris: Vec<[u32; 3]>) -> Result<Mesh> {
    if !tets.is_empty() {
        Ok(Mesh::Tet(TetMesh { vertices, tets }))
    } else if !tris.is_empty() {
        Ok(Mesh::Tri(TriMesh { vertices, tris }))
    } else {
        Err(Error::parse(path, None, "no tetrahedra or triangles found"))
    }
}

/// A cursor over a file's bytes: whitespace-separated tokens with 1-based line tracking, plus raw reads
/// for the binary sections of Gmsh and VTK files. Every error it makes names the file and the line.
pub(crate) struct Cursor<'a> {
    pub path: &'a Path,
    data: &'a [u8],
    pos: usize,
    line: usize,
    comment: Option<u8>,
}

impl<'a> Cursor<'a> {
    /// `comment`: a byte that starts a comment running to the end of its line, if the format has one.
    pub fn new(path: &'a Path, data: &'a [u8], comment: Option<u8>) -> Self {
        Cursor { path, data, pos: 0, line: 1, comment }
    }

    pub fn line(&self) -> usize {
        self.line
    }

    /// A parse error at the current line.
    pub fn err(&self, msg: impl Into<String>) -> Error {
        Error::parse(self.path, Some(self.line), msg)
    }

    /// Bytes left after the cursor.
    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn skip_comment(&mut self) {
        while self.pos < self.data.len() && self.data[self.pos] != b'\n' {
            self.pos += 1;
        }
    }

    /// Skips whitespace (newlines included) and comments.
    pub fn skip_ws(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' | b'\x0c' | b'\x0b' => {}
                _ if Some(b) == self.comment => {
                    self.skip_comment();
                    continue;
                }
                _ => return,
            }
            self.pos += 1;
        }
    }

    fn take_token(&mut self) -> &'a str {
        let start = self.pos;
        while self.pos < self.data.len() && !self.data[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
        std::str::from_utf8(&self.data[start..self.pos]).unwrap_or("<non-text bytes>")
    }

    /// The next token, or `None` at the end of the file.
    pub fn token(&mut self) -> Option<&'a str> {
        self.skip_ws();
        (self.pos < self.data.len()).then(|| self.take_token())
    }

    /// The next token on the current line, or `None` at its end (the newline is left in place).
    pub fn inline_token(&mut self) -> Option<&'a str> {
        while let Some(&b) = self.data.get(self.pos) {
            match b {
                b' ' | b'\t' | b'\r' => self.pos += 1,
                b'\n' => return None,
                _ if Some(b) == self.comment => {
                    self.skip_comment();
                    return None;
                }
                _ => return Some(self.take_token()),
            }
        }
        None
    }

    /// The rest of the current line (trimmed); the cursor moves to the start of the next line.
    pub fn rest_of_line(&mut self) -> &'a str {
        let start = self.pos;
        self.skip_comment();
        let s = std::str::from_utf8(&self.data[start..self.pos]).unwrap_or("<non-text bytes>");
        if self.pos < self.data.len() {
            self.pos += 1;
            self.line += 1;
        }
        s.trim()
    }

    /// The next token, or an error saying that `what` was expected.
    pub fn expect(&mut self, what: &str) -> Result<&'a str> {
        self.token().ok_or_else(|| self.err(format!("unexpected end of file, expected {what}")))
    }

    /// Checks that the next token is `keyword` (ASCII case-insensitive).
    pub fn keyword(&mut self, keyword: &str) -> Result<()> {
        let t = self.expect(keyword)?;
        if t.eq_ignore_ascii_case(keyword) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{keyword}`, found `{}`", shorten(t))))
        }
    }

    /// Parses the next token as a `T`; `what` names it in errors.
    pub fn parse<T: FromStr>(&mut self, what: &str) -> Result<T> {
        let t = self.expect(what)?;
        parse_token(t).ok_or_else(|| self.err(format!("expected {what}, found `{}`", shorten(t))))
    }

    /// Parses a finite floating-point number.
    pub fn f64(&mut self, what: &str) -> Result<f64> {
        let v: f64 = self.parse(what)?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.err(format!("{what} is not finite")))
        }
    }

    /// Parses three coordinates.
    pub fn vec3(&mut self, what: &str) -> Result<Vec3> {
        Ok(Vec3::new(self.f64(what)?, self.f64(what)?, self.f64(what)?))
    }

    /// Parses a (possibly one-based) index and shifts it by `-base` into `0..len`.
    pub fn index(&mut self, base: i64, len: usize, what: &str) -> Result<u32> {
        let raw: i64 = self.parse(what)?;
        to_index(raw - base, len).ok_or_else(|| self.err(format!("{what} {raw} is out of range ({len} vertices, first index {base})")))
    }

    /// Takes `n` raw bytes (binary data); `what` names them in errors.
    pub fn bytes(&mut self, n: usize, what: &str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.err(format!("file ends inside {what}: {n} bytes expected, {} left", self.remaining())));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Moves past the end of the current line (used before binary data that follows a header line).
    pub fn skip_line(&mut self) {
        self.rest_of_line();
    }

    /// Moves just past the next occurrence of `needle`; `false` (cursor unmoved) if there is none.
    pub fn skip_past(&mut self, needle: &[u8]) -> bool {
        let rest = &self.data[self.pos..];
        match rest.windows(needle.len()).position(|w| w == needle) {
            Some(i) => {
                let skipped = &rest[..i + needle.len()];
                self.line += skipped.iter().filter(|&&b| b == b'\n').count();
                self.pos += i + needle.len();
                true
            }
            None => false,
        }
    }

    /// Checks that `count` items of at least `min_bytes` bytes each can fit in the rest of the file,
    /// so a lying header cannot make us allocate; returns the count as `usize`.
    pub fn check_count(&self, count: u64, min_bytes: u64, what: &str) -> Result<usize> {
        let need = count.saturating_mul(min_bytes);
        if need > self.remaining() as u64 + 1 || count > u32::MAX as u64 {
            return Err(self.err(format!("header claims {count} {what}, more than the {} bytes left in the file can hold", self.remaining())));
        }
        Ok(count as usize)
    }
}

/// Minimum bytes of `k` whitespace-separated ASCII tokens.
pub(crate) const fn ascii_bytes(k: u64) -> u64 {
    2 * k
}

pub(crate) fn parse_token<T: FromStr>(t: &str) -> Option<T> {
    t.parse().ok()
}

/// `i` as a vertex index if `0 <= i < len`.
pub(crate) fn to_index(i: i64, len: usize) -> Option<u32> {
    (i >= 0 && (i as u64) < len as u64).then_some(i as u32)
}

/// A token cut to a length fit for an error message.
pub(crate) fn shorten(t: &str) -> String {
    if t.chars().count() > 32 {
        format!("{}...", t.chars().take(32).collect::<String>())
    } else {
        t.to_string()
    }
}

/// Byte order of a binary section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Endian {
    Little,
    Big,
}

impl Endian {
    /// Reads an unsigned integer of `b.len()` (1, 2, 4 or 8) bytes.
    pub fn uint(self, b: &[u8]) -> u64 {
        let mut v = 0u64;
        match self {
            Endian::Big => b.iter().for_each(|&x| v = (v << 8) | x as u64),
            Endian::Little => b.iter().rev().for_each(|&x| v = (v << 8) | x as u64),
        }
        v
    }
    /// Reads a signed integer of `b.len()` (1, 2, 4 or 8) bytes.
    pub fn int(self, b: &[u8]) -> i64 {
        let shift = 64 - 8 * b.len() as u32;
        ((self.uint(b) << shift) as i64) >> shift
    }
    pub fn f32(self, b: &[u8]) -> f32 {
        f32::from_bits(self.uint(b) as u32)
    }
    pub fn f64(self, b: &[u8]) -> f64 {
        f64::from_bits(self.uint(b))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endian_reads_signed_unsigned_and_floats() {
        assert_eq!(Endian::Little.int(&(-5i32).to_le_bytes()), -5);
        assert_eq!(Endian::Big.int(&(-5i16).to_be_bytes()), -5);
        assert_eq!(Endian::Big.uint(&0xfffe_u16.to_be_bytes()), 0xfffe);
        assert_eq!(Endian::Little.uint(&u64::MAX.to_le_bytes()), u64::MAX);
        assert_eq!(Endian::Big.f32(&1.5f32.to_be_bytes()), 1.5);
        assert_eq!(Endian::Little.f64(&(-0.1f64).to_le_bytes()), -0.1);
    }

    #[test]
    fn cursor_tracks_lines_comments_and_counts() {
        let p = Path::new("x.txt");
        let mut c = Cursor::new(p, b"a # note\r\n\n b 7\nlast", Some(b'#'));
        assert_eq!(c.token(), Some("a"));
        assert_eq!(c.inline_token(), None);
        assert_eq!(c.token(), Some("b"));
        assert_eq!(c.line(), 3);
        assert_eq!(c.parse::<u32>("n").unwrap(), 7);
        let e = c.parse::<u32>("a count").unwrap_err().to_string();
        assert_eq!(e, "x.txt:4: expected a count, found `last`");
        let e = c.expect("more").unwrap_err().to_string();
        assert_eq!(e, "x.txt:4: unexpected end of file, expected more");
        let c = Cursor::new(p, b"1 2 3 4 5 6", None);
        assert!(c.check_count(3, 4, "pairs").is_ok());
        assert!(c.check_count(1 << 40, 2, "pairs").is_err());
        assert!(c.check_count(u64::MAX, u64::MAX, "pairs").is_err());
    }

    #[test]
    fn unknown_extension_lists_the_supported_ones() {
        let e = read_mesh(Path::new("m.ply")).unwrap_err().to_string();
        assert!(e.starts_with("m.ply: unknown mesh extension `.ply`") && e.contains(".msh"), "{e}");
    }
}
