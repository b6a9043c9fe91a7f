//! Mesh readers and the VTU/PVD writers: every format on the same cube, Gmsh-written meshes, triangle
//! meshes, round trips, and malformed inputs that must fail with the file's name and never panic.
//!
//! Most fixtures in `tests/data/meshes/` were written by Gmsh 4.15, meshio 5.3 and VTK 9
//! (`make_fixtures.py`); the TetGen, MEDIT and OBJ ones by hand; big-endian and 4-byte `size_t` Gmsh
//! files are made below.

use nalgebra::Vector3;
use std::path::{Path, PathBuf};
use xpbd_core::mesh::io::{read_mesh, read_tet_mesh, read_tri_mesh, write_pvd, write_vtu, PointData};
use xpbd_core::mesh::{signed_tet_volume, Mesh, TetMesh, TriMesh};

type V = Vector3<f64>;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/meshes").join(name)
}

/// The cube every `cube*` fixture holds.
fn cube() -> TetMesh {
    let (x, y, z) = ([0.0, 0.5], [0.0, 1.25], [-1.0, 0.75]);
    let vertices = (0..8).map(|i| V::new(x[(i & 1) ^ (i >> 1 & 1)], y[i >> 1 & 1], z[i >> 2])).collect();
    let tets = vec![[0, 1, 3, 4], [1, 2, 3, 6], [1, 4, 5, 6], [3, 4, 6, 7], [1, 3, 4, 6]];
    TetMesh { vertices, tets }
}

fn abs_volume(m: &TetMesh) -> f64 {
    let v = |i: u32| m.vertices[i as usize];
    m.tets.iter().map(|t| signed_tet_volume(&v(t[0]), &v(t[1]), &v(t[2]), &v(t[3])).abs()).sum()
}

fn tri_area(m: &TriMesh) -> f64 {
    let v = |i: u32| m.vertices[i as usize];
    m.tris.iter().map(|t| (v(t[1]) - v(t[0])).cross(&(v(t[2]) - v(t[0]))).norm() / 2.0).sum()
}

/// Bytes in one byte order.
struct Bytes {
    big: bool,
    b: Vec<u8>,
}

impl Bytes {
    fn text(&mut self, t: &str) -> &mut Self {
        self.b.extend(t.as_bytes());
        self
    }
    fn i32s(&mut self, v: &[i32]) -> &mut Self {
        let big = self.big;
        v.iter().for_each(|x| self.b.extend(if big { x.to_be_bytes() } else { x.to_le_bytes() }));
        self
    }
    fn f64s(&mut self, v: &[f64]) -> &mut Self {
        let big = self.big;
        v.iter().for_each(|x| self.b.extend(if big { x.to_be_bytes() } else { x.to_le_bytes() }));
        self
    }
    /// Unsigned integers of `size` bytes.
    fn sizes(&mut self, size: usize, v: &[u64]) -> &mut Self {
        for x in v {
            let (be, le) = (x.to_be_bytes(), x.to_le_bytes());
            self.b.extend(if self.big { &be[8 - size..] } else { &le[..size] });
        }
        self
    }
}

/// Gmsh 2.2 binary cube with the given byte order (Gmsh itself writes only little-endian).
fn gmsh_v2_binary(big: bool) -> Vec<u8> {
    let c = cube();
    let mut w = Bytes { big, b: Vec::new() };
    w.text("$MeshFormat\n2.2 1 8\n").i32s(&[1]).text("\n$EndMeshFormat\n$Nodes\n8\n");
    for (k, p) in c.vertices.iter().enumerate() {
        w.i32s(&[k as i32 + 1]).f64s(p.as_slice());
    }
    w.text("\n$EndNodes\n$Elements\n7\n");
    w.i32s(&[15, 1, 2, 99, 7, 3, 1]); // one point: type, count, 2 tags; tag, tags, node
    w.i32s(&[1, 1, 0, 100, 1, 2]); // one line, no tags
    w.i32s(&[4, 5, 1]);
    for (k, t) in c.tets.iter().enumerate() {
        w.i32s(&[k as i32 + 1, 42]).i32s(&t.map(|n| n as i32 + 1));
    }
    w.text("\n$EndElements\n");
    w.b
}

/// Gmsh 4.1 binary cube with `size` bytes per `size_t`, sparse node tags and a parametric block.
fn gmsh_v41_binary(size: usize, big: bool) -> Vec<u8> {
    let tag = |k: u32| 100 + 7 * k as u64;
    let c = cube();
    let mut w = Bytes { big, b: Vec::new() };
    w.text(&format!("$MeshFormat\n4.1 1 {size}\n")).i32s(&[1]);
    w.text("\n$EndMeshFormat\n$Nodes\n").sizes(size, &[2, 8, tag(0), tag(7)]);
    for (range, dim, parametric) in [(0..3u32, 3, 0), (3..8, 2, 1)] {
        w.i32s(&[dim, 1, parametric]).sizes(size, &[range.len() as u64]);
        w.sizes(size, &range.clone().map(tag).collect::<Vec<_>>());
        for k in range {
            w.f64s(c.vertices[k as usize].as_slice());
            w.f64s(&vec![0.25; (parametric * dim) as usize]);
        }
    }
    w.text("\n$EndNodes\n$Elements\n").sizes(size, &[2, 6, 1, 6]);
    w.i32s(&[1, 1, 1]).sizes(size, &[1, 6, tag(0), tag(1)]); // one line element, tag 6
    w.i32s(&[3, 1, 4]).sizes(size, &[5]);
    for (k, t) in c.tets.iter().enumerate() {
        w.sizes(size, &[k as u64 + 1]).sizes(size, &t.map(tag));
    }
    w.text("\n$EndElements\n");
    w.b
}

/// Fixtures that hold [`cube`] (the TetGen pair given by either file or the stem).
const CUBE_FILES: &str = "cube.node cube.ele cube cube1.ele cube.mesh
    cube_v22_ascii.msh cube_v22_bin.msh cube_v41_ascii.msh cube_v41_bin.msh
    cube_sparse_v22_ascii.msh cube_sparse_v22_bin.msh cube_sparse_v41_ascii.msh cube_sparse_v41_bin.msh
    cube_ascii42.vtk cube_binary42.vtk cube_ascii51.vtk cube_binary51.vtk
    cube_vtk_ascii42.vtk cube_vtk_binary42.vtk cube_vtk_ascii51.vtk cube_vtk_binary51.vtk
    cube_ascii.vtu cube_binary_meshio.vtu cube_vtk_ascii.vtu cube_vtk_binary.vtu";

#[test]
fn every_format_reads_the_same_cube() {
    let dir = tempfile::tempdir().unwrap();
    let mut files: Vec<PathBuf> = CUBE_FILES.split_whitespace().map(data).collect();
    let made: [(&str, Vec<u8>); 6] = [
        ("v2_le.msh", gmsh_v2_binary(false)),
        ("v2_be.msh", gmsh_v2_binary(true)),
        ("v41_s8_le.msh", gmsh_v41_binary(8, false)),
        ("v41_s8_be.msh", gmsh_v41_binary(8, true)),
        ("v41_s4_le.msh", gmsh_v41_binary(4, false)),
        ("v41_s4_be.msh", gmsh_v41_binary(4, true)),
    ];
    for (name, bytes) in made {
        std::fs::write(dir.path().join(name), bytes).unwrap();
        files.push(dir.path().join(name));
    }
    let c = cube();
    let written = dir.path().join("written.vtu");
    write_vtu(&written, &c.vertices, &c.tets, &[], &[]).unwrap();
    files.push(written);
    for f in &files {
        let m = read_tet_mesh(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert_eq!(m, c, "{}", f.display());
    }
    assert!((abs_volume(&c) - 0.5 * 1.25 * 1.75).abs() < 1e-12);
}

#[test]
fn crlf_line_endings_read_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let ascii = "cube.node cube.mesh cube_v22_ascii.msh cube_v41_ascii.msh cube_ascii42.vtk
        cube_vtk_ascii51.vtk cube_ascii.vtu";
    for name in ascii.split_whitespace().chain(["cube.ele", "cube.obj"]) {
        let text = std::fs::read_to_string(data(name)).unwrap();
        std::fs::write(dir.path().join(name), text.replace('\n', "\r\n")).unwrap();
    }
    for name in ascii.split_whitespace() {
        let m = read_tet_mesh(&dir.path().join(name)).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m, cube(), "{name}");
    }
    assert_eq!(read_tri_mesh(&dir.path().join("cube.obj")).unwrap(), read_tri_mesh(&data("cube.obj")).unwrap());
}

#[test]
fn gmsh_box_reads_the_same_from_all_four_encodings() {
    let names = ["box_v22_ascii.msh", "box_v22_bin.msh", "box_v41_ascii.msh", "box_v41_bin.msh"];
    let meshes: Vec<TetMesh> = names.iter().map(|n| read_tet_mesh(&data(n)).unwrap()).collect();
    let m = &meshes[0];
    assert!(m.tets.len() > 20 && m.vertices.len() > 8, "{} tets", m.tets.len());
    assert!((abs_volume(m) - 0.125).abs() < 1e-12, "volume {}", abs_volume(m));
    // Gmsh's binary writers group elements by type, so compare the tetrahedra as sets.
    let sorted = |m: &TetMesh| {
        let mut t = m.tets.clone();
        t.sort();
        t
    };
    for (other, name) in meshes.iter().zip(names).skip(1) {
        // ASCII files print 16 significant digits.
        let close = other.vertices.iter().zip(&m.vertices).all(|(a, b)| (a - b).norm() < 1e-15);
        assert!(other.vertices.len() == m.vertices.len() && close, "{name}: vertices differ");
        assert!(sorted(other) == sorted(m), "{name}: tetrahedra differ");
    }
}

#[test]
fn triangle_only_files_give_triangle_meshes() {
    let sq = read_tri_mesh(&data("square_tri_v41.msh")).unwrap();
    assert!((tri_area(&sq) - 1.0).abs() < 1e-12);
    for name in ["square_tri.vtk", "square.mesh"] {
        let m = read_tri_mesh(&data(name)).unwrap();
        assert_eq!(m.tris.len(), 2, "{name}");
    }
    let obj = read_tri_mesh(&data("cube.obj")).unwrap();
    assert_eq!(obj.vertices, cube().vertices);
    assert_eq!(obj.tris.len(), 12);
    assert_eq!(&obj.tris[..2], &[[0, 3, 2], [0, 2, 1]]);
    assert_eq!((obj.tris[6], obj.tris[8]), ([2, 3, 7], [1, 2, 6]));
    let (a, b, h) = (0.5, 1.25, 1.75);
    assert!((tri_area(&obj) - 2.0 * (a * b + a * h + b * h)).abs() < 1e-12);
    // A mixed Gmsh file keeps its tetrahedra.
    assert!(matches!(read_mesh(&data("cube_v41_ascii.msh")).unwrap(), Mesh::Tet(_)));
    let e = read_tet_mesh(&data("cube.obj")).unwrap_err().to_string();
    assert!(e.contains("cube.obj"), "{e}");
    let e = read_tri_mesh(&data("cube.node")).unwrap_err().to_string();
    assert!(e.contains("cube.node"), "{e}");
}

#[test]
fn armadillo_from_shared_meshes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/meshes");
    let path = dir.join("armadillo_4k.node");
    if !path.exists() {
        eprintln!("skipped: {} not found", path.display());
        return;
    }
    let m = read_tet_mesh(&path).unwrap();
    assert_eq!((m.vertices.len(), m.tets.len()), (1180, 3717));
    assert!(abs_volume(&m) > 0.0);
}

#[test]
fn vtu_round_trip_with_point_data_and_mixed_cells() {
    let dir = tempfile::tempdir().unwrap();
    let c = cube();
    let tris = [[0u32, 1, 2], [0, 2, 3]];
    let ids: Vec<i32> = (0..8).collect();
    let s: Vec<f64> = (0..8).map(|i| i as f64 * 0.1).collect();
    let v: Vec<V> = c.vertices.iter().map(|p| p * 2.0).collect();
    let pd = [("body id", PointData::Int(&ids)), ("s<&>", PointData::Scalar(&s)), ("v", PointData::Vector(&v))];
    let path = dir.path().join("frame_00001.vtu");
    write_vtu(&path, &c.vertices, &c.tets, &tris, &pd).unwrap();
    assert_eq!(read_tet_mesh(&path).unwrap(), c);
    assert!(!dir.path().join("frame_00001.vtu.tmp").exists());
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("Name=\"s&lt;&amp;&gt;\"") && text.contains("header_type=\"UInt64\""));
    write_vtu(&path, &c.vertices, &[], &tris, &[]).unwrap();
    assert_eq!(read_tri_mesh(&path).unwrap(), TriMesh { vertices: c.vertices.clone(), tris: tris.to_vec() });
    // Bad input to the writer is an error, not a panic.
    assert!(write_vtu(&path, &c.vertices, &[[0, 1, 2, 8]], &[], &[]).is_err());
    assert!(write_vtu(&path, &c.vertices, &c.tets, &[], &[("x", PointData::Scalar(&s[..3]))]).is_err());
}

#[test]
fn vtu_round_trip_of_a_large_grid_is_exact() {
    // 100k vertices with coordinates that do not print exactly in decimal.
    let n = 47;
    let idx = |i: usize, j: usize, k: usize| (i + n * (j + n * k)) as u32;
    let mut m = TetMesh::default();
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                m.vertices.push(V::new(i as f64 / 3.0, (j as f64).sqrt(), 1e-7 * k as f64 + 0.1));
            }
        }
    }
    for k in 0..n - 1 {
        for j in 0..n - 1 {
            for i in 0..n - 1 {
                m.tets.push([idx(i, j, k), idx(i + 1, j, k), idx(i, j + 1, k), idx(i, j, k + 1)]);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.vtu");
    write_vtu(&path, &m.vertices, &m.tets, &[], &[]).unwrap();
    assert_eq!(read_tet_mesh(&path).unwrap(), m);
}

#[test]
fn pvd_lists_the_frames() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("animation.pvd");
    let entries = vec![(0.0, "frames/frame_00000.vtu".to_string()), (0.01, "frames/frame_00001.vtu".to_string())];
    write_pvd(&path, &entries).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("type=\"Collection\""));
    assert_eq!(text.matches("<DataSet ").count(), 2);
    assert!(text.contains("file=\"frames/frame_00001.vtu\""));
    assert!(!dir.path().join("animation.pvd.tmp").exists());
    assert!(write_pvd(&path, &[(f64::NAN, "x.vtu".into())]).is_err());
}

/// Malformed text files: (file name, content, what the message must say).
#[rustfmt::skip]
const MALFORMED: &[(&str, &str, &str)] = &[
    ("huge.node", "1000000000000 3 0 0\n0 0 0 0\n", "claims 1000000000000 points"),
    ("bad.node", "2 3 0 0\n0 0 0 0\n1 0 zero 0\n", ":3: expected a coordinate, found `zero`"),
    ("short.node", "3 3 0 0\n0 0 0 0\n1 0 0 0\n", "claims 3 points"),
    ("short2.node", "3 3 0 0\n0 0 0 0\n1 0 0 0\n2 0 0\n", "end of file"),
    ("seq.node", "2 3 0 0\n0 0 0 0\n5 0 0 0\n", "out of sequence"),
    ("dim2.node", "2 2 0 0\n0 0 0\n1 0 0\n", "dimension 2"),
    ("noele.node", "1 3 0 0\n0 0 0 0\n", "noele.ele"),
    ("empty.node", "", "end of file"),
    ("huge.mesh", "MeshVersionFormatted 1\nDimension 3\nVertices 99999999999\n0 0 0 0\n", "claims"),
    ("range.mesh", "Dimension 3\nVertices 1\n0 0 0 0\nTriangles 1\n1 1 2 0\n", ":5: vertex index 2 is out of range"),
    ("zero.mesh", "Dimension 3\nVertices 1\n0 0 0 0\nTriangles 1\n0 1 1 0\n", "vertex index 0 is out of range"),
    ("order.mesh", "Dimension 3\nTetrahedra 1\n1 2 3 4 0\n", "before the vertices"),
    ("nan.mesh", "Dimension 3\nVertices 1\nnan 0 0 0\nEnd\n", "not finite"),
    ("empty.mesh", "MeshVersionFormatted 1\nDimension 3\nVertices 1\n0 0 0 0\nEnd\n", "no tetrahedra"),
    ("num.mesh", "Dimension 3\n12 Vertices\n", "expected a keyword"),
    ("x.ply", "solid\n", "unknown mesh extension `.ply`"),
    ("empty.stl", "solid x\nendsolid x\n", "no facets found"),
    ("short.stl", "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nendloop\n", ":5: facet has 1 vertices"),
    ("ver.msh", "$MeshFormat\n3.0 0 8\n$EndMeshFormat\n", "version 3.0"),
    ("noformat.msh", "$Nodes\n1\n1 0 0 0\n$EndNodes\n", "before $MeshFormat"),
    ("junk.msh", "hello\n", "expected a section"),
    ("head.vtk", "# not vtk\n", "not a legacy vtk file"),
    ("enc.vtk", "# vtk DataFile Version 3.0\nt\nUTF8\n", "ascii or binary"),
    ("poly.vtk", "# vtk DataFile Version 3.0\nt\nASCII\nDATASET POLYDATA\n", "not supported"),
    ("notxml.vtu", "hello", "no complete unstructuredgrid piece"),
    ("range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", ":4: vertex index 4 is out of range"),
    ("rel.obj", "v 0 0 0\nf -1 -2 -3\n", "out of range"),
    ("zero.obj", "v 0 0 0\nf 0 1 1\n", "vertex index 0"),
    ("word.obj", "v 0 zero 0\n", "expected a coordinate"),
    ("two.obj", "v 0 0\n", "fewer than 3"),
    ("faceless.obj", "v 0 0 0\n", "no faces"),
    ("edge.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n", "at least 3"),
];

/// Gmsh bodies after a `$MeshFormat` of version 2.2 (`2`) or 4.1 (`4`), ASCII.
#[rustfmt::skip]
const MALFORMED_GMSH: &[(&str, u8, &str, &str)] = &[
    ("huge.msh", 2, "$Nodes\n1000000000000\n1 0 0 0\n$EndNodes\n", "claims"),
    ("word.msh", 2, "$Nodes\n1\n1 0 x 0\n$EndNodes\n", ":6: expected a node coordinate"),
    ("tag.msh", 2, "NODES$Elements\n1\n1 4 0 1 2 3 9\n$EndElements\n", "node tag 9"),
    ("noend.msh", 2, "NODES$Elements\n1\n1 4 0 1 2 3 4\n", "$EndElements"),
    ("extra.msh", 2, "NODES$Elements\n1\n1 4 0 1 2 3 4 4\n$EndElements\n", "unexpected `4`"),
    ("notets.msh", 2, "NODES$Elements\n1\n1 15 0 1\n$EndElements\n", "no tetrahedra"),
    ("order.msh", 2, "$Elements\n1\n1 15 0 1\n$EndElements\n", "$Elements before $Nodes"),
    ("dup.msh", 2, "$Nodes\n2\n1 0 0 0\n1 0 0 0\n$EndNodes\n", "defined twice"),
    ("unclosed.msh", 2, "$PhysicalNames\n1\n3 1 \"a\"\n", "$EndPhysicalNames"),
    ("v4count.msh", 4, "$Nodes\n1 3 1 3\n3 1 0 2\n1\n2\n0 0 0\n1 1 1\n$EndNodes\n", "announced 3"),
    ("v4block.msh", 4, "$Nodes\n1 1 1 1\n3 1 0 5\n1\n0 0 0\n$EndNodes\n", "exceeds"),
    ("v4huge.msh", 4, "$Nodes\n1 99999999999 1 1\n3 1 0 1\n1\n0 0 0\n$EndNodes\n", "claims"),
    ("v4elem.msh", 4, "$Nodes\n1 1 1 1\n3 1 0 1\n1\n0 0 0\n$EndNodes\n$Elements\n1 1 1 1\n3 1 4 2\n1 1 1 1 1\n$EndElements\n", "exceeds"),
];

/// Legacy VTK bodies after an ASCII unstructured-grid header.
#[rustfmt::skip]
const MALFORMED_VTK: &[(&str, &str, &str)] = &[
    ("huge.vtk", "POINTS 1000000000000 float\n0 0 0\n", "claims"),
    ("word.vtk", "POINTS 1 float\n0 a 0\n", ":6: expected point coordinates"),
    ("range.vtk", "PTSCELLS 1 5\n4 0 1 2 4\nCELL_TYPES 1\n10\n", "references point 4"),
    ("size.vtk", "PTSCELLS 1 6\n4 0 1 2 3 3\nCELL_TYPES 1\n10\n", "does not match"),
    ("types.vtk", "PTSCELLS 1 5\n4 0 1 2 3\nCELL_TYPES 2\n10 10\n", "2 cell types for 1 cells"),
    ("count.vtk", "PTSCELLS 1 4\n3 0 1 2\nCELL_TYPES 1\n10\n", "3 points, expected 4"),
    ("nocells.vtk", "PTS", "no cells"),
    ("float.vtk", "PTSCELLS 1 5\n4 0 1 2 3\nCELL_TYPES 1\n10.5\n", "expected cell types"),
];

/// Writes `content` as `name` in a fresh folder and checks that reading fails with a one-line message
/// that names the file (or its `.ele` partner) and contains `expect`.
fn must_fail(name: &str, content: &[u8], expect: &str) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, content).unwrap();
    let msg = match std::panic::catch_unwind(|| read_mesh(&path)) {
        Ok(Ok(m)) => panic!("{name}: read {} elements from malformed input", m.element_count()),
        Ok(Err(e)) => e.to_string(),
        Err(_) => panic!("{name}: reader panicked"),
    };
    let ele = format!("{}.ele", &name[..name.rfind('.').unwrap_or(name.len())]);
    assert!(msg.contains(name) || msg.contains(&ele), "{name}: file not named: {msg}");
    let found = msg.to_lowercase().contains(&expect.to_lowercase());
    assert!(found && !msg.contains('\n'), "{name}: expected `{expect}` in: {msg}");
}

#[test]
fn malformed_text_files_fail_cleanly() {
    for (name, content, expect) in MALFORMED {
        must_fail(name, content.as_bytes(), expect);
    }
    let nodes = "$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n";
    for (name, v, body, expect) in MALFORMED_GMSH {
        let head = format!("$MeshFormat\n{}\n$EndMeshFormat\n", if *v == 2 { "2.2 0 8" } else { "4.1 0 8" });
        must_fail(name, (head + &body.replace("NODES", nodes)).as_bytes(), expect);
    }
    let head = "# vtk DataFile Version 4.2\ntitle\nASCII\nDATASET UNSTRUCTURED_GRID\n";
    let pts = "POINTS 4 double\n0 0 0 1 0 0 0 1 0 0 0 1\n";
    for (name, body, expect) in MALFORMED_VTK {
        must_fail(name, (head.to_string() + &body.replace("PTS", pts)).as_bytes(), expect);
    }
    let dir = tempfile::tempdir().unwrap();
    let node = dir.path().join("t.node");
    std::fs::write(&node, b"4 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n3 0 0 1\n").unwrap();
    for (ele, expect) in [
        ("1 4 0\n0 0 1 2 4\n", "t.ele:2: point index 4 is out of range"),
        ("1 4 0\n0 0 1 2\n", "end of file"),
        ("1 3 0\n0 0 1 2\n", "nodes per tetrahedron"),
        ("99999999999 4 0\n0 0 1 2 3\n", "claims"),
    ] {
        std::fs::write(dir.path().join("t.ele"), ele).unwrap();
        let e = read_mesh(&node).unwrap_err().to_string();
        assert!(e.contains(expect), "{e}");
    }
    let e = read_mesh(&dir.path().join("absent.msh")).unwrap_err().to_string();
    assert!(e.contains("absent.msh"), "{e}");
}

#[test]
fn malformed_binary_and_xml_files_fail_cleanly() {
    let mut marker = gmsh_v2_binary(false);
    marker[20..24].copy_from_slice(&7i32.to_le_bytes());
    must_fail("marker.msh", &marker, "endianness");
    let mut huge = gmsh_v41_binary(8, false);
    let at = huge.windows(7).position(|w| w == b"$Nodes\n").unwrap() + 7 + 8;
    huge[at..at + 8].copy_from_slice(&(1u64 << 40).to_le_bytes());
    must_fail("v4binhuge.msh", &huge, "claims 1099511627776 nodes");
    let good = gmsh_v2_binary(false);
    must_fail("cut.msh", &good[..good.len() - 60], "claims 5 elements");
    let nodes = good.windows(9).position(|w| w == b"$Nodes\n8\n").unwrap() + 9;
    let cut = &good[..nodes + 8 * 28 - 1]; // passes the size check, then runs out
    must_fail("cut2.msh", cut, "file ends inside the node data");
    let bin = std::fs::read(data("cube_binary42.vtk")).unwrap();
    must_fail("cut.vtk", &bin[..bin.len() - 100], "claims 25");
    let points = bin.windows(7).position(|w| w == b"double\n").unwrap() + 7;
    let cut = &bin[..points + 24 * 8 - 1];
    must_fail("cut2.vtk", cut, "file ends inside point coordinates");
    let zlib = std::fs::read(data("cube_zlib.vtu")).unwrap();
    must_fail("zlib.vtu", &zlib, "compressed data");
    let good = std::fs::read_to_string(data("cube_ascii.vtu")).unwrap();
    #[rustfmt::skip]
    let vtu_cases = [
        ("appended.vtu", good.replacen("format=\"ascii\"", "format=\"appended\"", 1), "appended"),
        ("word.vtu", good.replacen("7.50000000000e-01", "7.5x", 1), "bad number `7.5x`"),
        ("cut.vtu", good[..good.len() / 2].to_string(), "file ends inside the <DataArray>"),
        ("tag.vtu", good.replacen("</Points>", "</Point>", 1), "malformed xml"),
        ("poly.vtu", good.replace("UnstructuredGrid", "PolyData"), "not unstructuredgrid"),
        ("comp.vtu", good.replacen("NumberOfComponents=\"3\"", "NumberOfComponents=\"2\"", 1), "NumberOfComponents"),
        ("off.vtu", good.replacen(">\n4\n", ">\n99\n", 1), "offset of cell 0"),
    ];
    for (name, content, expect) in vtu_cases {
        must_fail(name, content.as_bytes(), expect);
    }
    // A byte-count header that claims 2^60 bytes, and a bad base64 character.
    let bin = std::fs::read_to_string(data("cube_binary_meshio.vtu")).unwrap();
    let lie = bin.replacen("wAAAAAAAAAAA", "AAAAEAAAAAAA", 1);
    let lie = lie.replace("version=\"0.1\"", "version=\"1.0\" header_type=\"UInt64\"");
    must_fail("lie.vtu", lie.as_bytes(), "binary header announces");
    let b64 = bin.replacen("wAAAAAAAAAAA", "wAA*AAAAAAAA", 1);
    must_fail("b64.vtu", b64.as_bytes(), "bad base64");
}

/// About 100 prefixes and 100 corruptions of every fixture: never a panic, and each error names
/// the file. Short prefixes (at most half the file) must fail.
#[test]
fn truncated_and_corrupted_fixtures_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for entry in std::fs::read_dir(data("")).unwrap() {
        let src = entry.unwrap().path();
        let ext = src.extension().and_then(|e| e.to_str()).unwrap_or("").to_string();
        if ext == "py" || ext == "node" || ext == "ele" {
            continue; // .node/.ele pairs are covered by the tests above
        }
        let bytes = std::fs::read(&src).unwrap();
        let path = dir.path().join(format!("f.{ext}"));
        let step = (bytes.len() / 100).max(1);
        let check = |content: &[u8], must_err: bool| {
            std::fs::write(&path, content).unwrap();
            match std::panic::catch_unwind(|| read_mesh(&path)) {
                Err(_) => panic!("{}: panicked on a damaged copy", src.display()),
                Ok(Err(e)) => assert!(e.to_string().contains("f."), "{e}"),
                Ok(Ok(_)) => assert!(!must_err, "{}: read {} of {} bytes", src.display(), content.len(), bytes.len()),
            }
        };
        for cut in (0..bytes.len()).step_by(step) {
            check(&bytes[..cut], cut <= bytes.len() / 2 && ext != "obj");
        }
        for _ in 0..100 {
            let mut b = bytes.clone();
            for _ in 0..1 + rand() % 3 {
                let at = (rand() % b.len() as u64) as usize;
                b[at] = rand() as u8;
            }
            check(&b, false);
        }
    }
}

/// The meshes the scenes ship (`scenes/meshes/`) are positively oriented as stored: loading one reorients
/// nothing, so no run warns about it (the bunny's file once had every tetrahedron inside out).
#[test]
fn shipped_meshes_need_no_reorientation() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes/meshes");
    let mut checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "node") {
            let m = read_tet_mesh(&path).unwrap();
            let corner = |t: &[u32; 4], k: usize| m.vertices[t[k] as usize];
            let inverted = m.tets.iter().filter(|t| signed_tet_volume(&corner(t, 0), &corner(t, 1), &corner(t, 2), &corner(t, 3)) <= 0.0).count();
            assert_eq!(inverted, 0, "{}: {inverted} of {} tetrahedra are inside out", path.display(), m.tets.len());
            checked += 1;
        }
    }
    assert!(checked >= 2, "no meshes found in {}", dir.display());
}
