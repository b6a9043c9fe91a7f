//! Robustness through the binary (issue 9, docs/robustness.md): no user error prints a backtrace,
//! failed health checks stop or continue as the scene says, the memory estimate refuses scenes too
//! large, and a run killed with SIGKILL at random moments leaves only complete files.

mod common;

use common::*;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// A cube falling freely: 8 vertices, every frame written, so a run is many small writes.
const FALLING: &str = r#"
name = "falling"
[simulation]
dt = 0.01
frames = 20
substeps = 2
[[body]]
name = "cube"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
[[probe]]
name = "corner"
body = "cube"
point = [0.0, 0.0, 0.0]
"#;

fn run_args<'a>(scene: &'a Path, out: &'a Path) -> Vec<&'a str> {
    vec!["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--device", "cpu", "--quiet"]
}

#[test]
fn malformed_meshes_of_every_format_fail_in_one_line_through_run() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let kept = Path::new(env!("CARGO_MANIFEST_DIR")).join("../xpbd-core/tests/fuzz_regressions");
    let files: &[(&str, &[u8])] = &[
        ("m.node", b"4 3 0 0\n1 0 0 0\n2 1 0 0\n"),
        ("ascii.msh", b"$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Nodes\n1 4 1 4\n3 1 0 4\n"),
        ("binary.msh", b"$MeshFormat\n2.2 1 8\n\x01\x00\x00\x00\n$EndMeshFormat\n$Nodes\n4\n\x01\x00"),
        ("m.mesh", b"MeshVersionFormatted 1\nDimension 3\nVertices\n99999999999\n0 0 0 0\n"),
        ("m.vtk", b"# vtk DataFile Version 3.0\nx\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 4 double\n\x00\x00"),
        ("m.vtu", b"<VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid><Piece NumberOfPoints=\"1\"><Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"binary\">@@@@</DataArray></Points></Piece></UnstructuredGrid></VTKFile>"),
        ("m.obj", b"v 0 0 0\nv 1 0 0\nf 1 2 9\n"),
    ];
    let mut cases: Vec<(String, Vec<u8>)> = files.iter().map(|(n, b)| (n.to_string(), b.to_vec())).collect();
    cases.push(("second_nodes.msh".into(), std::fs::read(kept.join("gmsh/second_nodes_section.msh")).unwrap()));
    cases.push(("second_vertices.mesh".into(), std::fs::read(kept.join("medit/second_vertices_section.mesh")).unwrap()));
    for (name, bytes) in &cases {
        std::fs::write(d.join(name), bytes).unwrap();
        if name == "m.node" {
            write(d, "m.ele", "1 4 0\n1 1 2 3 4\n");
        }
        let scene = FALLING.replace(r#"{ generator = "box", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }"#, &format!("{{ file = \"{name}\" }}"));
        let scene = if name.ends_with(".obj") {
            scene.replace("model = \"neohookean_block\", youngs = 1.0e5, poisson = 0.3, density = 1000.0", "model = \"cloth\", areal_density = 0.1")
        } else {
            scene
        };
        let s = write(d, "s.toml", &scene);
        expect_error(d, &run_args(&s, &d.join("o")), &["body[0].mesh.file", name]);
    }
}

#[test]
fn bad_robustness_fields_and_unwritable_output_fail_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("o");
    for (field, needle) in [
        ("on_failure = \"retry\"", "simulation.on_failure"),
        ("max_speed = -1.0", "simulation.max_speed"),
        ("max_inverted_fraction = 2.0", "simulation.max_inverted_fraction"),
    ] {
        let s = write(d, "s.toml", &FALLING.replace("substeps = 2", &format!("substeps = 2\n{field}")));
        expect_error(d, &run_args(&s, &out), &["s.toml", needle]);
    }
    // 1e-320 kg/m³ times a tet's volume underflows to a mass whose inverse is infinite.
    let s = write(d, "light.toml", &FALLING.replace("density = 1000.0", "density = 1.0e-320"));
    expect_error(d, &run_args(&s, &out), &["light.toml", "body[0] 'cube': 8 vertices have zero mass (vertices 0, 1, 2, 3, 4, 5, 6, 7)"]);
    let s = write(d, "ok.toml", FALLING);
    write(d, "file", "not a folder");
    expect_error(d, &run_args(&s, &d.join("file/out")), &["file/out"]);
    expect_error(d, &run_args(&d.join("absent.toml"), &out), &["absent.toml"]);
    expect_error(d, &["info", d.join("absent.vtu").to_str().unwrap()], &["absent.vtu"]);
}

#[test]
fn memory_estimate_refuses_a_scene_too_large_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = write(d, "big.toml", &FALLING.replace("cells = [1, 1, 1]", "cells = [200, 200, 200]"));
    let out = Command::new(env!("CARGO_BIN_EXE_xpbd")).args(run_args(&s, &d.join("o"))).env("XPBD_MEMORY_LIMIT_MB", "100").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: ") && stderr.contains("body[0].mesh: needs about") && stderr.contains("than the 100 MB"), "{stderr}");
    // The same scene at a size that fits runs.
    let s = write(d, "fits.toml", &FALLING.replace("frames = 20", "frames = 1"));
    let out = Command::new(env!("CARGO_BIN_EXE_xpbd")).args(run_args(&s, &d.join("o"))).env("XPBD_MEMORY_LIMIT_MB", "100").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Free fall passes 0.5 m/s after the 6th frame (g t = 9.81 · 0.06 > 0.5).
#[test]
fn runaway_speed_stops_the_run_or_is_recorded_when_continuing() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = d.join("stop");
    let s = write(d, "stop.toml", &FALLING.replace("substeps = 2", "substeps = 2\nmax_speed = 0.5"));
    expect_error(d, &run_args(&s, &out), &["simulation failed at frame 6", "runaway speed", "max_speed = 0.5"]);
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "failed");
    assert_eq!(summary["failure"]["kind"], "max_speed");
    assert_eq!(summary["failure"]["frame"], 6);
    assert_eq!(summary["frames"], 6);
    assert!(out.join("frames/frame_00006.vtu").is_file(), "the failing frame is finite and kept");
    assert!(!out.join("frames/frame_00007.vtu").exists());
    assert_eq!(std::fs::read_to_string(out.join("metrics.csv")).unwrap().lines().count(), 7);

    let out = d.join("continue");
    let s = write(d, "continue.toml", &FALLING.replace("substeps = 2", "substeps = 2\nmax_speed = 0.5\non_failure = \"continue\""));
    let (code, _, stderr) = xpbd_in(d, &run_args(&s, &out));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("warning: 15 frames failed a health check (first at frame 6: runaway speed"), "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "completed_with_failures");
    assert_eq!(summary["frames"], 20);
    assert_eq!(summary["failed_check_count"], 15, "frames 6 to 20");
    assert_eq!(summary["failed_checks"][0]["frame"], 6);
    assert!(summary.get("failure").is_none());
}

/// Checks that every file a (possibly killed) run left in `out` is complete.
fn check_complete(out: &Path, trial: &str) {
    if let Ok(text) = std::fs::read_to_string(out.join("summary.json")) {
        serde_json::from_str::<serde_json::Value>(&text).unwrap_or_else(|e| panic!("{trial}: summary.json does not parse: {e}"));
    }
    for (name, fields) in [("metrics.csv", 10), ("probes.csv", 6)] {
        let Ok(text) = std::fs::read_to_string(out.join(name)) else { continue };
        // The one cut the kernel can make: a row straddling a 4 KiB page, cut at the page boundary.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        if whole < text.len() {
            assert!(text.len() % 4096 == 0, "{trial}: {name} ends inside a line at byte {}, not at a page boundary", text.len());
            assert!(text.len() - whole < 4096 && text[whole..].split(',').count() <= fields, "{trial}: {name} cut row `{}`", &text[whole..]);
        }
        for line in text[..whole].lines() {
            assert_eq!(line.split(',').count(), fields, "{trial}: {name} line `{line}`");
        }
    }
    if let Ok(pvd) = std::fs::read_to_string(out.join("animation.pvd")) {
        assert!(pvd.ends_with("</VTKFile>\n"), "{trial}: animation.pvd is cut");
        for f in pvd.split("file=\"").skip(1).map(|s| &s[..s.find('"').unwrap()]) {
            assert!(out.join(f).is_file(), "{trial}: animation.pvd lists {f}, which is missing");
        }
    }
    if let Ok(frames) = std::fs::read_dir(out.join("frames")) {
        for f in frames.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "vtu")) {
            let m = xpbd_core::mesh::io::read_tet_mesh(&f).unwrap_or_else(|e| panic!("{trial}: {e}"));
            assert_eq!((m.vertices.len(), m.tets.len()), (8, 5), "{trial}: {}", f.display());
        }
    }
}

#[test]
fn runs_killed_at_random_moments_leave_only_complete_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let s = write(d, "s.toml", &FALLING.replace("frames = 20", "frames = 150"));
    let start = |out: &Path| Command::new(env!("CARGO_BIN_EXE_xpbd")).args(run_args(&s, out)).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    // One whole run sets the time scale of the kills.
    let t0 = Instant::now();
    assert!(start(&d.join("whole")).wait().unwrap().success());
    let mut whole = t0.elapsed();
    check_complete(&d.join("whole"), "whole run");
    let mut seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos() as u64 | 1;
    // Kill until 20 kills have landed during a run (one that already finished does not count).
    let (mut killed_mid_run, mut trial) = (0, 0);
    while killed_mid_run < 20 {
        assert!(trial < 60, "only {killed_mid_run} of {trial} kills landed during a run of {whole:?}");
        trial += 1;
        // xorshift: a kill moment uniform in [0, 0.9 × the whole run).
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let at = whole.mul_f64((seed % 1000) as f64 / 1000.0 * 0.9);
        let out = d.join(format!("t{trial}"));
        let mut child = start(&out);
        std::thread::sleep(at);
        let running = child.try_wait().unwrap().is_none();
        killed_mid_run += running as usize;
        if !running {
            // Runs got faster than the first (a less loaded machine): aim earlier.
            whole = whole.mul_f64(0.8);
        }
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        check_complete(&out, &format!("trial {trial} (seed {seed}, killed after {at:?})"));
    }
}
