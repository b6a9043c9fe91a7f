//! `xpbd run --checkpoint-every/--resume`, `xpbd render` and `xpbd report` from the command line.

mod common;

use common::{expect_error, expect_usage_error, write, xpbd_in};

const SCENE: &str = r#"
name = "cube"
[simulation]
frames = 6
substeps = 4
[[body]]
name = "cube"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [2, 2, 2], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
[output]
every = 2
"#;

#[test]
fn resume_continues_the_run_folder_and_render_and_report_draw_it() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cube.toml", SCENE);
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", "cube.toml", "--out", "r", "--frames", "3", "--checkpoint-every", "2", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    // A row cut by a kill (docs/output-format.md) is dropped on resume.
    let mut metrics = std::fs::OpenOptions::new().append(true).open(dir.path().join("r/metrics.csv")).unwrap();
    std::io::Write::write_all(&mut metrics, b"4,0.0").unwrap();
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", "cube.toml", "--resume", "r", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let metrics = std::fs::read_to_string(dir.path().join("r/metrics.csv")).unwrap();
    let frames: Vec<&str> = metrics.lines().skip(1).map(|l| l.split(',').next().unwrap()).collect();
    assert_eq!(frames, ["1", "2", "3", "4", "5", "6"], "frame 3 from before the resume is not repeated");
    let summary: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("r/summary.json")).unwrap()).unwrap();
    assert_eq!(summary["frames"], 6);

    let (code, stdout, stderr) = xpbd_in(dir.path(), &["render", "r", "--frames", "0,4-6", "--size", "64x48"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().count(), 3, "frames 0, 4 and 6: {stdout}");
    assert!(dir.path().join("r/render/frame_00006.png").is_file());
    let (code, stdout, stderr) = xpbd_in(dir.path(), &["report", "r"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("1 runs: "), "{stdout}");
    assert!(std::fs::read_to_string(dir.path().join("r/report.md")).unwrap().contains("render/frame_00006.png"));

    expect_usage_error(dir.path(), &["render", "r", "--frames", "7"], &["--frames", "no frame file for '7'"]);
    expect_usage_error(dir.path(), &["render", "r", "--size", "64"], &["--size", "'64'"]);
    expect_error(dir.path(), &["render", "nowhere"], &["nowhere"]);
    expect_error(dir.path(), &["run", "cube.toml", "--resume", "nowhere"], &["checkpoint.bin"]);
}

#[test]
fn resume_into_a_folder_without_run_files_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "cube.toml", SCENE);
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", "cube.toml", "--out", "r", "--frames", "2", "--checkpoint-every", "2", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    std::fs::write(dir.path().join("r/metrics.csv"), "something else\n1,2\n").unwrap();
    expect_error(dir.path(), &["run", "cube.toml", "--resume", "r"], &["metrics.csv:1", "not the header of a run's file"]);
}

/// Whether every pixel of a PNG file has the color of its corner.
fn uniform(path: &std::path::Path) -> bool {
    let mut reader = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap())).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut buf).unwrap();
    buf.chunks(3).all(|p| p == &buf[..3])
}

#[test]
fn the_scene_render_camera_is_used_and_the_command_line_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    // The scene's camera looks away from the cube.
    write(dir.path(), "cube.toml", &format!("{SCENE}[render]\neye = [0.5, 0.5, 10.0]\ntarget = [0.5, 0.5, 20.0]\n"));
    assert_eq!(xpbd_in(dir.path(), &["run", "cube.toml", "--out", "r", "--frames", "2", "--quiet"]).0, 0);
    let png = dir.path().join("r/render/frame_00000.png");
    assert_eq!(xpbd_in(dir.path(), &["render", "r", "--frames", "0", "--size", "40x30"]).0, 0);
    assert!(!uniform(&png), "without --scene (and no r/scene.toml) the default camera frames the cube");
    assert_eq!(xpbd_in(dir.path(), &["render", "r", "--frames", "0", "--size", "40x30", "--scene", "cube.toml"]).0, 0);
    assert!(uniform(&png), "the scene's camera looks away");
    std::fs::copy(dir.path().join("cube.toml"), dir.path().join("r/scene.toml")).unwrap();
    assert_eq!(xpbd_in(dir.path(), &["render", "r", "--frames", "0", "--size", "40x30"]).0, 0);
    assert!(uniform(&png), "a run folder's scene.toml is used by default");
    assert_eq!(xpbd_in(dir.path(), &["render", "r", "--frames", "0", "--size", "40x30", "--eye", "0.5,0.5,10", "--target", "0.5,0.5,0"]).0, 0);
    assert!(!uniform(&png), "--eye/--target override the scene");
    write(dir.path(), "bad.toml", &format!("{SCENE}[render]\neye = [0.0, 0.0, 0.0]\ntarget = [0.0, 0.0, 0.0]\n"));
    expect_error(dir.path(), &["render", "r", "--scene", "bad.toml"], &["bad.toml: render.target: equals the eye"]);
}
