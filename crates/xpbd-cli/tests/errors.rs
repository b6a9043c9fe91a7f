//! Errors and warnings as a user meets them (the binary's exit code and message): type and range errors
//! name the file, line and field path in words rather than Rust types; a mesh given where a scene is
//! expected, a mesh file without an extension and second-order Gmsh elements are explained; numbers in
//! warnings are readable and an absurd budget is warned with its estimate; usage errors exit 2.

mod common;

use common::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

const SCENE: &str = r#"
name = "small"
[simulation]
dt = 0.01
frames = 3
substeps = 4
[[body]]
name = "beam"
mesh = { generator = "box", size = [1.0, 0.25, 0.25], cells = [4, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
[[body]]
name = "block"
mesh = { generator = "box", size = [0.25, 0.25, 0.25], cells = [1, 1, 1] }
translate = [0.0, 1.0, 0.0]
material = { model = "stvk", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
[[probe]]
name = "tip"
body = "beam"
point = [1.0, 0.25, 0.25]
"#;

/// A linear tetrahedron and a 10-node (second-order) one, Gmsh 2.2 ASCII.
fn gmsh(order2: bool) -> String {
    let element = if order2 { "1 11 2 0 1 1 2 3 4 1 2 3 4 1 2" } else { "1 4 2 0 1 1 2 3 4" };
    format!("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n4\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n$EndNodes\n$Elements\n1\n{element}\n$EndElements\n")
}

/// Writes `text` as `name` in `dir` and runs it; expects exit 1 and one line with every needle.
fn run_error(dir: &Path, name: &str, text: &str, needles: &[&str]) -> String {
    let scene = write(dir, name, text);
    expect_error(Path::new("."), &["run", scene.to_str().unwrap(), "--out", dir.join("o").to_str().unwrap(), "--quiet"], needles)
}

/// Runs a scene that succeeds; returns its warnings (standard error).
fn run_warnings(dir: &Path, text: &str) -> String {
    let scene = write(dir, "w.toml", text);
    let (code, _, stderr) = xpbd(&["run", scene.to_str().unwrap(), "--out", dir.join("o").to_str().unwrap(), "--quiet", "--device", "cpu"]);
    assert_eq!(code, 0, "{stderr}");
    stderr
}

#[test]
fn type_and_range_errors_name_line_and_field_path_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let e = run_error(
        d,
        "wrongtype.toml",
        &SCENE.replace("frames = 3", "frames = \"3\""),
        &["wrongtype.toml:5: simulation.frames: ", "expected a whole number ≥ 0"],
    );
    assert!(!e.contains("usize"), "{e}");
    let youngs = SCENE.replace("model = \"stvk\", youngs = 1.0e5", "model = \"stvk\", youngs = \"1e5\"");
    run_error(d, "youngs.toml", &youngs, &["youngs.toml:15: body[1].material.youngs: ", "string \"1e5\", expected a number"]);
    run_error(d, "negative.toml", &SCENE.replace("substeps = 4", "substeps = -4"), &[":6: simulation.substeps: ", "integer `-4`"]);
    let e = run_error(d, "split.toml", &SCENE.replace("split = 5", "split = 500"), &[":9: body[0].mesh.split: ", "from 0 to 255"]);
    assert!(!e.contains("u8"), "{e}");
    let e = run_error(d, "big.toml", &SCENE.replace("frames = 3", "frames = 99999999999999999999"), &["big.toml:5: simulation.frames: integer too large"]);
    assert!(!e.contains("target type"), "{e}");
    run_error(d, "pin.toml", &SCENE.replace("translate = [0.0, 1.0, 0.0]", "pin = [{ indices = [1, \"2\"] }]"), &[":14: body[1].pin[0].indices[1]: "]);
}

#[test]
fn generator_errors_name_the_mesh_field() {
    let dir = tempfile::tempdir().unwrap();
    run_error(dir.path(), "cells.toml", &SCENE.replace("cells = [1, 1, 1]", "cells = [1, 0, 1]"), &["body[1].mesh: ", "cells must be ≥ 1"]);
}

#[test]
fn second_order_gmsh_elements_are_named_with_the_hint() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "bracket.msh", &gmsh(true));
    expect_error(d, &["info", "bracket.msh"], &["bracket.msh", "Gmsh type 11, 10 nodes", "gmsh -order 1"]);
    let scene = SCENE.replace("{ generator = \"box\", size = [0.25, 0.25, 0.25], cells = [1, 1, 1] }", "{ file = \"bracket.msh\" }");
    let e = run_error(d, "s.toml", &scene, &["body[1].mesh.file", "gmsh -order 1"]);
    assert!(!e.contains("no tetrahedra"), "{e}");
}

/// A mesh whose second tetrahedron is flat: Gmsh messages give its element tag, other formats its
/// 1-based position in the file.
#[test]
fn elements_are_named_by_gmsh_tag_or_one_based_position() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let nodes = "1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 0.5 0.5 0\n";
    write(
        d,
        "flat.msh",
        &format!("$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n5\n{nodes}$EndNodes\n$Elements\n2\n17 4 2 0 1 1 2 3 4\n40 4 2 0 1 1 2 3 5\n$EndElements\n"),
    );
    let e = expect_error(d, &["info", "flat.msh"], &["tetrahedron with Gmsh element tag 40 has zero rest volume"]);
    assert!(!e.contains("tetrahedron 1 "), "{e}");
    let medit = "MeshVersionFormatted 1\nDimension 3\nVertices\n5\n0 0 0 0\n1 0 0 0\n0 1 0 0\n0 0 1 0\n0.5 0.5 0 0\nTetrahedra\n2\n1 2 3 4 0\n1 2 3 5 0\nEnd\n";
    write(d, "flat.mesh", medit);
    expect_error(d, &["info", "flat.mesh"], &["tetrahedron 2 has zero rest volume"]);
    let scene = SCENE.replace("{ generator = \"box\", size = [0.25, 0.25, 0.25], cells = [1, 1, 1] }", "{ file = \"flat.msh\" }");
    run_error(d, "s.toml", &scene, &["body[1] 'block'", "Gmsh element tag 40"]);
}

#[test]
fn a_mesh_file_is_recognised_by_content_and_extension() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A mesh without an extension is read by its content, not taken for a TetGen stem.
    write(d, "bracket", &gmsh(false));
    let (code, stdout, stderr) = xpbd_in(d, &["info", "bracket"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("4 vertices, 1 elements"), "{stdout}");
    write(d, "notes", "just some text\n");
    expect_error(d, &["info", "notes"], &["notes: has no extension", ".msh (Gmsh)"]);
    // A mesh given to `run` is named as a mesh, text or binary; so is a scene that is not text.
    write(d, "bracket.msh", &gmsh(false));
    std::fs::write(d.join("binary.msh"), b"$MeshFormat\n4.1 1 8\n\x01\x00\x00\x00\xff\xfe\n").unwrap();
    std::fs::write(d.join("bytes.toml"), b"name = \"\xff\xfe\"\n").unwrap();
    for (file, needles) in [
        ("bracket.msh", &["bracket.msh: is a Gmsh mesh, not a scene", "mesh = { file = \"bracket.msh\" }"][..]),
        ("binary.msh", &["binary.msh: is a Gmsh mesh, not a scene"]),
        ("bracket", &["bracket: is a Gmsh mesh, not a scene"]),
        ("bytes.toml", &["bytes.toml: is not a scene: not UTF-8 text"]),
    ] {
        let line = expect_error(d, &["run", file, "--out", "o"], needles);
        assert!(!line.contains("stream did not contain valid UTF-8"), "{line}");
    }
}

#[test]
fn the_stability_warning_gives_a_readable_substep_count() {
    let dir = tempfile::tempdir().unwrap();
    // At E = 1e300 the 2×2 block of each tet is singular to round-off (at rest the hydrostatic and deviatoric
    // gradients are parallel and α̃ ≈ 1e-293), so the run turns tets inside out, as the warning says it may: what
    // is checked here is the warning, so the run goes on past its failed health checks.
    let w = run_warnings(
        dir.path(),
        &SCENE
            .replace("substeps = 4", "substeps = 1\non_failure = \"continue\"")
            .replace("youngs = 1.0e5, poisson = 0.3, density = 1000.0 }\n[[body]]", "youngs = 1e300, poisson = 0.3, density = 1000.0 }\n[[body]]"),
    );
    let line = w.lines().find(|l| l.contains("stability estimate")).unwrap_or_else(|| panic!("no stability warning in: {w}"));
    assert!(line.contains("substeps ≥ 1.4e147"), "{line}");
    let longest_digits = line.split(|c: char| !c.is_ascii_digit()).map(str::len).max().unwrap_or(0);
    assert!(longest_digits < 10, "{line}");
}

#[test]
fn an_absurd_substep_budget_is_warned_with_its_estimate() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "huge.toml", &SCENE.replace("frames = 3", "frames = 1000").replace("substeps = 4", "substeps = 1000000000"));
    // The run would take days: read the first line of standard error, then stop it.
    let mut child = Command::new(env!("CARGO_BIN_EXE_xpbd"))
        .args(["run", scene.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap(), "--quiet", "--device", "cpu"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let first = BufReader::new(child.stderr.take().unwrap()).lines().next().expect("a warning line").unwrap();
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(first.starts_with("warning: simulation: frames × substeps × iterations × elements = 1,000 × 1,000,000,000 × 1 × 25"), "{first}");
    assert!(first.contains("= 25,000,000,000,000 element updates, at least 2.9 days"), "{first}");
    // An ordinary budget is not warned.
    assert!(!run_warnings(dir.path(), SCENE).contains("element updates"));
}

#[test]
fn usage_errors_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "s.toml", SCENE);
    expect_usage_error(d, &["run", "s.toml", "--threads", "0"], &["--threads: must be at least 1"]);
    expect_usage_error(d, &["run", "s.toml", "--frames", "0"], &["--frames: must be at least 1"]);
    expect_usage_error(d, &["run", "s.toml", "--device", "gpu"], &["--device", "'gpu'"]);
    expect_usage_error(d, &["batch", "s.toml", "--out", "b", "--jobs", "0"], &["--jobs: must be at least 1"]);
}

#[test]
fn a_malformed_memory_limit_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "s.toml", SCENE);
    let out = Command::new(env!("CARGO_BIN_EXE_xpbd"))
        .current_dir(dir.path())
        .args(["run", "s.toml", "--out", "o", "--quiet"])
        .env("XPBD_MEMORY_LIMIT_MB", "abc")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.trim_end(), "error: s.toml: XPBD_MEMORY_LIMIT_MB: 'abc' is not a whole number of megabytes (e.g. 4096)");
}

#[test]
fn a_probe_far_from_its_body_is_warned() {
    let dir = tempfile::tempdir().unwrap();
    assert!(!run_warnings(dir.path(), SCENE).contains("probe"), "a probe on its body is not warned");
    let w = run_warnings(dir.path(), &SCENE.replace("point = [1.0, 0.25, 0.25]", "point = [101.0, 0.25, 0.25]"));
    assert!(w.contains("warning: probe[0] 'tip': point is 100.000 m from body 'beam'"), "{w}");
    assert!(w.contains("nearest vertex"), "{w}");
}
