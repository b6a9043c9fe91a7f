//! TetGen `.node` + `.ele` pairs. Attributes and boundary markers are skipped; `#` starts a comment;
//! indexing is zero- or one-based, as the first point index of the `.node` file says.

use super::{ascii_bytes, read_bytes, Cursor};
use crate::mesh::TetMesh;
use crate::Result;
use std::path::{Path, PathBuf};

/// Reads `stem.node` and `stem.ele`, given either file or the stem.
pub(super) fn read(path: &Path) -> Result<TetMesh> {
    let (node_path, ele_path) = pair(path);
    let (vertices, base) = read_node(&node_path, &read_bytes(&node_path)?)?;
    let tets = read_ele(&ele_path, &read_bytes(&ele_path)?, base, vertices.len())?;
    Ok(TetMesh { vertices, tets })
}

/// Parses a `.node` text and an `.ele` text held in memory; `path` (either file or the stem) names them in errors.
pub(super) fn parse(path: &Path, node: &[u8], ele: &[u8]) -> Result<TetMesh> {
    let (node_path, ele_path) = pair(path);
    let (vertices, base) = read_node(&node_path, node)?;
    let tets = read_ele(&ele_path, ele, base, vertices.len())?;
    Ok(TetMesh { vertices, tets })
}

fn pair(path: &Path) -> (PathBuf, PathBuf) {
    let has_ext = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("node") || e.eq_ignore_ascii_case("ele"));
    if has_ext {
        (path.with_extension("node"), path.with_extension("ele"))
    } else {
        let mut node = path.as_os_str().to_owned();
        let mut ele = node.clone();
        node.push(".node");
        ele.push(".ele");
        (node.into(), ele.into())
    }
}

/// Returns the points and the index base (the first point's index).
fn read_node(path: &Path, data: &[u8]) -> Result<(Vec<crate::mesh::Vec3>, i64)> {
    let mut c = Cursor::new(path, data, Some(b'#'));
    let n: u64 = c.parse("the number of points")?;
    let dim: u64 = c.parse("the dimension")?;
    let nattr: u64 = c.parse("the number of attributes")?;
    let nmark: u64 = c.parse("the boundary-marker flag (0 or 1)")?;
    if dim != 3 {
        return Err(c.err(format!("dimension {dim} is not supported (only 3)")));
    }
    if nmark > 1 {
        return Err(c.err(format!("boundary-marker flag is {nmark}, expected 0 or 1")));
    }
    if n == 0 {
        return Err(c.err("no points (points kept in a .poly file are not supported)"));
    }
    let per = 4 + nattr.min(1 << 20) + nmark;
    let n = c.check_count(n, ascii_bytes(per), "points")?;
    let mut vertices = Vec::with_capacity(n);
    let mut base = 0i64;
    for i in 0..n {
        let id: i64 = c.parse("a point index")?;
        if i == 0 {
            base = id;
            if base != 0 && base != 1 {
                return Err(c.err(format!("first point index is {id}, expected 0 or 1")));
            }
        } else if id != base + i as i64 {
            return Err(c.err(format!("point index {id} out of sequence, expected {}", base + i as i64)));
        }
        vertices.push(c.vec3("a coordinate")?);
        for _ in 0..nattr.saturating_add(nmark) {
            c.parse::<f64>("a point attribute or marker")?;
        }
    }
    Ok((vertices, base))
}

fn read_ele(path: &Path, data: &[u8], base: i64, nv: usize) -> Result<Vec<[u32; 4]>> {
    let mut c = Cursor::new(path, data, Some(b'#'));
    let m: u64 = c.parse("the number of tetrahedra")?;
    let npt: u64 = c.parse("the number of nodes per tetrahedron")?;
    let nattr: u64 = c.parse("the number of region attributes")?;
    if npt != 4 && npt != 10 {
        return Err(c.err(format!("{npt} nodes per tetrahedron, expected 4 or 10")));
    }
    if m == 0 {
        return Err(c.err("no tetrahedra"));
    }
    let m = c.check_count(m, ascii_bytes(1 + npt + nattr.min(1 << 20)), "tetrahedra")?;
    let mut tets = Vec::with_capacity(m);
    for _ in 0..m {
        c.parse::<i64>("a tetrahedron index")?;
        let mut t = [0u32; 4];
        for v in t.iter_mut() {
            *v = c.index(base, nv, "point index")?;
        }
        for _ in 4..npt {
            c.index(base, nv, "point index")?;
        }
        for _ in 0..nattr {
            c.parse::<f64>("a region attribute")?;
        }
        tets.push(t);
    }
    Ok(tets)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stem_and_either_file_name_the_same_pair() {
        let want = (PathBuf::from("a/b.node"), PathBuf::from("a/b.ele"));
        assert_eq!(pair(Path::new("a/b.node")), want);
        assert_eq!(pair(Path::new("a/b.ele")), want);
        assert_eq!(pair(Path::new("a/b")), want);
    }

    #[test]
    fn one_based_with_attributes_and_markers() {
        let p = Path::new("t.node");
        let node = b"# c\n4 3 1 1\n1 0 0 0 9 1\n2 1 0 0 9 0\n3 0 1 0 9 0 # x\n4 0 0 1 9 1\n";
        let (v, base) = read_node(p, node).unwrap();
        assert_eq!((v.len(), base), (4, 1));
        let tets = read_ele(Path::new("t.ele"), b"1 4 1\n1 1 2 3 4 7\n", base, 4).unwrap();
        assert_eq!(tets, vec![[0, 1, 2, 3]]);
        let err = read_ele(Path::new("t.ele"), b"1 4 0\n1 1 2 3 5\n", base, 4).unwrap_err();
        assert!(err.to_string().contains("t.ele:2"), "{err}");
    }
}
