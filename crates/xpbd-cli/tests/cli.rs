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
    case("every.toml", format!("{SMALL}[output]\nevery = 0\n"), &["output.every", "at least 1"]);
    case("no_format.toml", format!("{SMALL}[output]\nformats = []\n"), &["output.formats", "no format"]);
    case("none_and_vtu.toml", format!("{SMALL}[output]\nformats = [\"none\", \"vtu\"]\n"), &["output.formats", "'none' cannot be combined"]);
    case("twice.toml", format!("{SMALL}[output]\nformats = [\"vtu\", \"obj\", \"vtu\"]\n"), &["output.formats", "'vtu' is listed twice"]);
    expect_error(Path::new("."), &["run", d.join("absent.toml").to_str().unwrap()], &["absent.toml"]);
    expect_usage_error(Path::new("."), &["run", write(d, "dev.toml", SMALL).to_str().unwrap(), "--device", "gpu"], &["'gpu'"]);
}

/// The implicit and adaptive solvers' settings (docs/adaptive.md): each bad one is a one-line error naming the
/// field (or the body) before anything runs.
#[test]
fn bad_implicit_scenes_give_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let case = |name: &str, text: String, needles: &[&str]| {
        let p = write(d, name, &text);
        expect_error(Path::new("."), &["run", p.to_str().unwrap(), "--out", d.join("o").to_str().unwrap()], needles);
    };
    let solver = |kind: &str, extra: &str| format!("{SMALL}\n[solver]\nkind = \"{kind}\"\n{extra}");
    let body = |kind: &str, extra: &str| solver(kind, "").replace("density = 1000.0 }", &format!("density = 1000.0 }}\n{extra}"));
    case(
        "thresholds.toml",
        solver("adaptive", "rigidify_threshold = 1e-3\nelastify_threshold = 1e-4\n"),
        &["solver.elastify_threshold", "at least rigidify_threshold (0.001)", "0.0001"],
    );
    case("negative_rayleigh.toml", body("implicit", "rayleigh = [-1.0, 0.0]"), &["body[0].rayleigh", "≥ 0"]);
    case("xpbd_rayleigh.toml", body("xpbd", "rayleigh = [1.0, 0.0]"), &["body[0].rayleigh", "only for solver.kind = \"implicit\" or \"adaptive\""]);
    case("implicit_steps.toml", solver("implicit", "rigidify_steps = 2\n"), &["solver.rigidify_steps", "only for kind = \"adaptive\""]);
    case(
        "xpbd_corotational.toml",
        solver("xpbd", "").replace("model = \"neohookean_block\"", "model = \"corotational\""),
        &["body 'beam'", "corotational", "implicit"],
    );
    let cloth = r#"
name = "cloth"
[simulation]
dt = 0.01
frames = 3
[solver]
kind = "adaptive"
[[body]]
name = "sheet"
mesh = { generator = "grid2d", size = [1.0, 1.0], cells = [4, 4] }
material = { model = "cloth", areal_density = 0.2, stretch_compliance = 0.0, bending_compliance = 1.0 }
"#;
    case("adaptive_cloth.toml", cloth.to_string(), &["solver.kind", "tetrahedral and shell bodies", "body 'sheet' is cloth"]);
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
    let v = &v["bodies"][0];
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
    assert_eq!(summary["colors"], info["bodies"][0]["colors_clustered"], "the run's colors are the clustered coloring's");
}

/// `xpbd info SCENE` says what the run would be: stepping, solver, the device and why, each pin's vertices, memory
/// and a lower bound on a frame's cost.
#[test]
fn info_previews_the_run_of_a_scene() {
    let dir = tempfile::tempdir().unwrap();
    let scene = write(dir.path(), "s.toml", &format!("{SMALL}\n[solver]\nordering = \"clustered\"\n"));
    let (code, stdout, stderr) = xpbd(&["info", scene.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let run = &v["scene"];
    assert_eq!((run["dt"].as_f64(), run["substeps"].as_u64(), run["frames"].as_u64()), (Some(0.01), Some(4), Some(3)));
    assert!((run["substep"].as_f64().unwrap() - 0.0025).abs() < 1e-15);
    assert_eq!(run["solver"], "xpbd clustered");
    // The pin box holds the 2 × 2 vertices of the face x = 0.
    assert_eq!(
        (run["pins"][0]["pin"].as_str(), run["pins"][0]["vertices"].as_u64(), run["pins"][0]["kind"].as_str()),
        (Some("body[0].pin[0]"), Some(4), Some("fixed"))
    );
    let iterations = run["iterations"].as_f64().unwrap();
    assert_eq!(run["element_updates_per_frame"].as_f64(), Some(4.0 * iterations * 20.0));
    assert_eq!(run["device_requested"], "auto");
    assert!(!run["device_reason"].as_str().unwrap().is_empty());
    let [f32, f64] = [0, 1].map(|i| run["gpu_bytes"][i].as_u64().unwrap());
    assert!(0 < f32 && f32 < f64, "{run}");
    assert!(run["host_bytes"].as_u64().unwrap() > 0);
    let (code, text, stderr) = xpbd(&["info", scene.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    for needle in
        ["run: 3 frames of dt = 0.01 s, 4 substeps", "device: ", "body[0].pin[0] (beam): 4 vertices, fixed", "memory: about", "element updates per frame"]
    {
        assert!(text.contains(needle), "{needle:?} not in:\n{text}");
    }
}

/// The frame files in `out/frames`, sorted.
fn frame_files(out: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(out.join("frames")).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

#[test]
fn scene_names_that_would_leave_out_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Run from d/a/b, so that a name climbing two folders would land in d.
    let cwd = d.join("a/b");
    std::fs::create_dir_all(&cwd).unwrap();
    let absolute = d.join("abs");
    for name in ["../../escape", absolute.to_str().unwrap(), "", ".", "..", "x/y", "x\\y", "out/.."] {
        let scene = write(&cwd, "s.toml", &SMALL.replace("name = \"small\"", &format!("name = {name:?}")));
        expect_error(&cwd, &["run", scene.to_str().unwrap(), "--quiet"], &["s.toml: name: ", "one plain path component", "--out"]);
    }
    assert!(!d.join("escape").exists() && !absolute.exists(), "nothing written outside out/");
    assert!(!cwd.join("out").join("summary.json").exists() && !cwd.join("summary.json").exists(), "nothing written into out/ itself");
    // An explicit --out is the user's choice, whatever the name.
    let scene = write(&cwd, "s.toml", &SMALL.replace("name = \"small\"", "name = \"../../escape\""));
    let (code, _, stderr) = xpbd_in(&cwd, &["run", scene.to_str().unwrap(), "--out", "mine", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(cwd.join("mine/summary.json").is_file());
    // A plain name goes to out/<name>.
    let scene = write(&cwd, "s.toml", &SMALL.replace("name = \"small\"", "name = \"beam-1.v2\""));
    let (code, _, stderr) = xpbd_in(&cwd, &["run", scene.to_str().unwrap(), "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(cwd.join("out/beam-1.v2/summary.json").is_file());
}

#[test]
fn a_fresh_run_replaces_the_earlier_runs_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "s.toml", SMALL);
    let run = |frames: &str, more: &[&str]| {
        let (code, _, stderr) = xpbd_in(d, &[&["run", "s.toml", "--out", "r", "--frames", frames, "--quiet"][..], more].concat());
        assert_eq!(code, 0, "{stderr}");
    };
    run("5", &["--checkpoint-every", "5"]);
    assert_eq!(xpbd_in(d, &["render", "r", "--frames", "5", "--size", "32x24"]).0, 0);
    assert_eq!(xpbd_in(d, &["report", "r"]).0, 0);
    write(&d.join("r"), "scene.toml", SMALL);
    write(&d.join("r"), "converge.csv", "kept\n");
    for name in ["render/frame_00005.png", "report.md", "checkpoint.bin", "frames/frame_00005.vtu"] {
        assert!(d.join("r").join(name).is_file(), "{name}");
    }
    // A shorter run into the same folder: nothing of the longer one is left to be taken for this one's.
    run("2", &[]);
    let out = d.join("r");
    assert_eq!(frame_files(&out), ["frame_00000.vtu", "frame_00001.vtu", "frame_00002.vtu"]);
    assert_eq!(std::fs::read_to_string(out.join("animation.pvd")).unwrap().matches("<DataSet").count(), 3);
    assert_eq!(std::fs::read_to_string(out.join("metrics.csv")).unwrap().lines().count(), 3, "header and frames 1, 2");
    assert_eq!(std::fs::read_to_string(out.join("probes.csv")).unwrap().lines().count(), 4, "header and frames 0..=2");
    for gone in ["render", "report.md", "report.png", "report.svg", "checkpoint.bin"] {
        assert!(!out.join(gone).exists(), "{gone} of the earlier run is left");
    }
    assert!(out.join("scene.toml").is_file() && out.join("converge.csv").is_file(), "files beside a run are kept");
    let (code, stdout, _) = xpbd_in(d, &["render", "r", "--size", "32x24"]);
    assert!(code == 0 && stdout.contains("frame_00002.png"), "render's last frame is this run's: {stdout}");
}

#[test]
fn a_fresh_run_refuses_a_folder_with_other_content() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "s.toml", SMALL);
    let args = ["run", "s.toml", "--out", "r", "--quiet"];
    assert_eq!(xpbd_in(d, &args).0, 0);
    write(&d.join("r"), "notes.txt", "mine");
    expect_error(d, &args, &["r: holds 'notes.txt'", "not an output of a run", "--out"]);
    assert!(d.join("r/notes.txt").is_file() && d.join("r/summary.json").is_file() && d.join("r/frames/frame_00003.vtu").is_file(), "nothing removed");
    std::fs::remove_file(d.join("r/notes.txt")).unwrap();
    write(&d.join("r/frames"), "keep.vtu", "mine");
    expect_error(d, &args, &["'frames/keep.vtu'", "not a frame file"]);
    assert!(d.join("r/frames/frame_00003.vtu").is_file(), "nothing removed");
    // Frame files without a run's summary.json or metrics.csv: maybe not a run folder.
    std::fs::create_dir_all(d.join("other/frames")).unwrap();
    write(&d.join("other/frames"), "frame_00000.vtu", "not ours");
    expect_error(d, &["run", "s.toml", "--out", "other", "--quiet"], &["other: holds 'frames'", "no summary.json or metrics.csv"]);
    assert!(d.join("other/frames/frame_00000.vtu").is_file());
    // An empty folder is fine.
    std::fs::create_dir(d.join("empty")).unwrap();
    assert_eq!(xpbd_in(d, &["run", "s.toml", "--out", "empty", "--quiet"]).0, 0);
}

#[test]
fn the_final_frame_is_written_whatever_every_says() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    write(d, "s.toml", &format!("{SMALL}[output]\nevery = 2\nformats = [\"vtu\", \"obj\"]\n"));
    let (code, _, stderr) = xpbd_in(d, &["run", "s.toml", "--out", "r", "--frames", "5", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let expect: Vec<String> = [0, 2, 4, 5].iter().flat_map(|f| [format!("frame_{f:05}.obj"), format!("frame_{f:05}.vtu")]).collect();
    assert_eq!(frame_files(&d.join("r")), expect);
    let pvd = std::fs::read_to_string(d.join("r/animation.pvd")).unwrap();
    assert!(pvd.matches("<DataSet").count() == 4 && pvd.contains("frame_00005.vtu"), "{pvd}");
    // A free fall past max_speed stops at frame 6 (g·t = 0.589 m/s): that frame ends the run and is written.
    let fall = SMALL.replace("pin = [", "# pin = [").replace("frames = 3", "frames = 20\nmax_speed = 0.5");
    write(d, "fall.toml", &format!("{fall}[output]\nevery = 4\n"));
    expect_error(d, &["run", "fall.toml", "--out", "f", "--quiet"], &["simulation failed at frame 6"]);
    assert_eq!(frame_files(&d.join("f")), ["frame_00000.vtu", "frame_00004.vtu", "frame_00006.vtu"]);
}

#[test]
fn solver_settings_the_solver_ignores_are_warned() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let stderr_of = |solver: &str| {
        write(d, "s.toml", &format!("{SMALL}[solver]\n{solver}\n"));
        let (code, _, stderr) = xpbd_in(d, &["run", "s.toml", "--out", "r", "--frames", "1", "--quiet"]);
        assert_eq!(code, 0, "{stderr}");
        stderr
    };
    let e = stderr_of("kind = \"mgpbd\"\nordering = \"jacobi\"\nrelaxation = 0.5");
    assert!(e.contains("warning: solver.ordering = \"jacobi\" is ignored: solver.kind = \"mgpbd\" does not use it"), "{e}");
    assert!(e.contains("warning: solver.relaxation = 0.5 is ignored"), "{e}");
    // MGPBD without line search steps by `relaxation`.
    let e = stderr_of("kind = \"mgpbd\"\nline_search = false\nrelaxation = 0.5");
    assert!(!e.contains("warning"), "{e}");
    let e = stderr_of("ordering = \"colored\"\ncluster_size = 8\nrelaxation = 0.5");
    assert!(e.contains("warning: solver.cluster_size = 8 is ignored: solver.ordering = \"colored\""), "{e}");
    assert!(e.contains("warning: solver.relaxation = 0.5 is ignored: solver.ordering = \"colored\""), "{e}");
    let e = stderr_of("ordering = \"jacobi\"\nrelaxation = 0.5");
    assert!(!e.contains("warning"), "{e}");
    let e = stderr_of("ordering = \"clustered\"\ncluster_size = 8");
    assert!(!e.contains("warning"), "{e}");
}

/// `xpbd --version` says what this build can run on a GPU: its CUDA kernels, the toolkit and PTX that built
/// them and the drivers they need, or why there are none.
#[test]
fn version_names_the_cuda_kernels_of_the_build() {
    let (code, stdout, stderr) = common::xpbd(&["--version"]);
    assert_eq!(code, 0, "{stderr}");
    let kernels = stdout.lines().find(|l| l.starts_with("CUDA kernels: ")).unwrap_or_else(|| panic!("{stdout}"));
    assert!(kernels.contains("modules built by nvcc") && kernels.contains("PTX ISA") || kernels.contains("none ("), "{kernels}");
}

/// For MGPBD, `solver.iterations` caps the outer iterations, which stop earlier at the tolerance: `xpbd info`
/// says its cost counts them all and is an upper bound, not the lower bound of the other solvers.
#[test]
fn info_calls_the_mgpbd_cost_an_upper_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mgpbd = write(dir.path(), "m.toml", &format!("{SMALL}\n[solver]\nkind = \"mgpbd\"\n"));
    let (code, text, stderr) = xpbd(&["info", mgpbd.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    let cost = text.lines().find(|l| l.starts_with("cost: ")).unwrap_or_else(|| panic!("no cost line in:\n{text}"));
    assert!(cost.starts_with("cost: at most ") && cost.contains("an upper bound") && cost.contains("MGPBD's cap") && !cost.contains("at least"), "{cost}");
    let (_, json, _) = xpbd(&["info", mgpbd.to_str().unwrap(), "--json"]);
    assert_eq!(serde_json::from_str::<serde_json::Value>(&json).unwrap()["scene"]["iterations_are_a_cap"], true);
    let xpbd_scene = write(dir.path(), "x.toml", SMALL);
    let (_, text, _) = xpbd(&["info", xpbd_scene.to_str().unwrap()]);
    assert!(text.contains(" element updates per frame, at least ") && !text.contains("upper bound"), "{text}");
}
