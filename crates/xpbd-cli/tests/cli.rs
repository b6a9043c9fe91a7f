//! The command line through the binary: the output contract of docs/output-format.md and one-line errors
//! for bad input (never a panic).

mod common;

use common::*;
use std::path::Path;

const SMALL: &str = r#"
name = "small"
[simulation]
dt = 0.01
frames = 3
substeps = 4
[[body]]
name = "beam"
mesh = { generator = "box", size = [1.0, 0.25, 0.25], cells = [4, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]
[[probe]]
name = "tip"
body = "beam"
point = [1.0, 0.25, 0.25]
"#;

#[test]
fn run_writes_the_contracted_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "s.toml", SMALL);
    let out = dir.path().join("out");
    let (code, stdout, stderr) = xpbd(&["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--device", "cpu"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("3 frames"), "{stdout}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for key in ["scene", "device", "device_reason", "solver", "vertices", "elements", "frames", "wall_time_s", "ms_per_frame", "ms_per_substep"] {
        assert!(summary.get(key).is_some(), "summary.json lacks {key}");
    }
    for key in ["relative_residual", "residual", "elastic_energy", "kinetic_energy", "min_volume_ratio", "inverted_elements", "nan"] {
        assert!(summary["final"].get(key).is_some(), "summary.json final lacks {key}");
    }
    assert_eq!(summary["frames"], 3);
    assert_eq!(summary["vertices"], 20);
    assert_eq!(summary["elements"], 20);
    assert!(summary.get("colors").is_none(), "a serial run has no colors");
    let metrics = std::fs::read_to_string(out.join("metrics.csv")).unwrap();
    let lines: Vec<&str> = metrics.lines().collect();
    assert_eq!(lines[0], "frame,time,ms,residual,relative_residual,elastic_energy,kinetic_energy,min_volume_ratio,inverted_elements,contacts");
    assert_eq!(lines.len(), 4);
    assert!(lines[3].starts_with("3,0.03"), "{}", lines[3]);
    let probes = std::fs::read_to_string(out.join("probes.csv")).unwrap();
    assert_eq!(probes.lines().next(), Some("frame,time,probe,x,y,z"));
    assert_eq!(probes.lines().count(), 5, "frames 0..=3 plus the header");
    for f in 0..=3 {
        assert!(out.join(format!("frames/frame_{f:05}.vtu")).is_file());
    }
    let pvd = std::fs::read_to_string(out.join("animation.pvd")).unwrap();
    assert_eq!(pvd.matches("<DataSet").count(), 4);
    // The written frame reads back as the same mesh.
    let mesh = xpbd_core::mesh::io::read_tet_mesh(&out.join("frames/frame_00000.vtu")).unwrap();
    assert_eq!((mesh.vertices.len(), mesh.tets.len()), (20, 20));
}

#[test]
fn explicit_cuda_request_without_a_gpu_fails_with_the_reason() {
    if xpbd_probe_has_gpu() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "s.toml", SMALL);
    let (code, _, stderr) = xpbd(&["run", scene.to_str().unwrap(), "--out", dir.path().join("o").to_str().unwrap(), "--device", "cuda"]);
    assert_ne!(code, 0);
    assert!(stderr.starts_with("error: device cuda:0 cannot be used: "), "{stderr}");
}

fn xpbd_probe_has_gpu() -> bool {
    std::path::Path::new("/dev/nvidia0").exists()
}

#[test]
fn bad_scenes_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let case = |name: &str, text: String, needles: &[&str]| {
        let p = write(d, name, &text);
        expect_error(Path::new("."), &["run", p.to_str().unwrap(), "--out", d.join("o").to_str().unwrap()], &[&[name][..], needles].concat());
    };
    case("unknown_key.toml", SMALL.replace("substeps = 4", "substeps = 4\nsubstep = 3"), &[":7:", "substep"]);
    case("wrong_type.toml", SMALL.replace("frames = 3", "frames = \"three\""), &[":5:"]);
    case("contact_forces.toml", format!("{SMALL}[output]\ncontact_forces = \"yes\"\n"), &[":17:"]);
    case("contact_force.toml", format!("{SMALL}[output]\ncontact_force = true\n"), &[":17:", "contact_force"]);
    case("negative_density.toml", SMALL.replace("density = 1000.0", "density = -1.0"), &["body[0].material.density"]);
    case("incompressible.toml", SMALL.replace("poisson = 0.3", "poisson = 0.5"), &["body[0].material.poisson"]);
    case("probe.toml", SMALL.replace("body = \"beam\"", "body = \"bean\""), &["probe[0]", "'bean'"]);
    case("solver.toml", format!("{SMALL}\n[solver]\nkind = \"magic\"\n"), &["solver.kind", "magic"]);
    case(
        "missing_mesh.toml",
        SMALL.replace("{ generator = \"box\", size = [1.0, 0.25, 0.25], cells = [4, 1, 1], split = 5 }", "{ file = \"nope.msh\" }"),
        &["nope.msh"],
    );
    case("pin.toml", SMALL.replace("min = [-0.01", "min = [5.0").replace("max = [0.01", "max = [6.0"), &["pin[0]", "selects no vertex"]);
    expect_error(Path::new("."), &["run", d.join("absent.toml").to_str().unwrap()], &["absent.toml"]);
    expect_error(Path::new("."), &["run", write(d, "dev.toml", SMALL).to_str().unwrap(), "--device", "gpu"], &["'gpu'"]);
}

#[test]
fn bad_meshes_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let files: &[(&str, &str)] = &[
        ("trunc.node", "4 3 0 0\n0 0 0 0\n1 1 0 0\n"),
        ("badnum.msh", "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n2\n1 0 0 zero\n"),
        ("bad.mesh", "MeshVersionFormatted 1\nDimension 3\nVertices\n2\n0 0 0 0\n"),
        ("bad.vtk", "# vtk DataFile Version 3.0\nx\nASCII\nDATASET UNSTRUCTURED_GRID\nPOINTS 1000000000000 float\n0 0 0\n"),
        ("bad.vtu", "<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"3\""),
        ("bad.obj", "v 0 0 0\nf 1 2 3\n"),
        ("missing.msh", ""),
    ];
    for (name, text) in files {
        if *name != "missing.msh" {
            write(d, name, text);
        }
        if name.ends_with(".node") {
            write(d, "trunc.ele", "1 4 0\n0 0 1 2 3\n");
        }
        expect_error(Path::new("."), &["info", d.join(name).to_str().unwrap()], &[name]);
    }
}

#[test]
fn info_describes_a_generated_scene() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "s.toml", SMALL);
    let (code, stdout, stderr) = xpbd(&["info", scene.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["vertices"], 20);
    assert_eq!(v["elements"], 20);
    assert!((v["measure"].as_f64().unwrap() - 0.0625).abs() < 1e-12);
    // The element graph's partitions (issue 3's keys).
    for key in ["max_valence", "lower_bound", "colors_greedy", "colors_smallest_last", "colors_clustered", "cluster_sizes"] {
        assert!(v.get(key).is_some(), "info --json lacks {key}");
    }
    let clustered = v["colors_clustered"].as_u64().unwrap();
    assert!(clustered >= 1 && clustered <= v["colors_smallest_last"].as_u64().unwrap());
    assert!(v["colors_smallest_last"].as_u64().unwrap() >= v["lower_bound"].as_u64().unwrap());
    let covered: u64 = v["cluster_sizes"].as_object().unwrap().iter().map(|(size, n)| size.parse::<u64>().unwrap() * n.as_u64().unwrap()).sum();
    assert_eq!(covered, 20, "every element in exactly one cluster");
}

#[test]
fn clustered_run_records_its_colors() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "s.toml", &format!("{SMALL}\n[solver]\nordering = \"clustered\"\n"));
    let out = dir.path().join("out");
    let (code, _, stderr) = xpbd(&["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let (code, stdout, stderr) = xpbd(&["info", scene.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let info: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(summary["colors"].as_u64().is_some(), "summary.json lacks colors: {summary}");
    assert_eq!(summary["colors"], info["colors_clustered"], "the run's colors are the clustered coloring's");
}
