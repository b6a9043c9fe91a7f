//! `xpbd render` from the command line: the scene's colliders are drawn, each body has its own
//! color, camera flags are checked as the scene's `[render]` is, and `--out` picks the folder.

mod common;

use common::{expect_usage_error, write, xpbd_in};
use std::path::Path;

/// Two cubes side by side, a ground plane below them and a sphere that moves along +x.
const SCENE: &str = r#"
name = "two"
[simulation]
frames = 2
substeps = 2
[[body]]
name = "left"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-1.0, -1.0, -1.0], max = [10.0, 10.0, 10.0] } }]
[[body]]
name = "right"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }
translate = [2.0, 0.0, 0.0]
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-1.0, -1.0, -1.0], max = [10.0, 10.0, 10.0] } }]
[[collider]]
kind = "plane"
point = [0.0, -0.5, 0.0]
normal = [0.0, 1.0, 0.0]
[[collider]]
kind = "sphere"
center = [-3.0, 3.0, 0.0]
radius = 0.5
velocity = [100.0, 0.0, 0.0]
"#;

/// The pixels of a PNG file.
fn pixels(path: &Path) -> Vec<[u8; 3]> {
    let mut reader = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap())).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    reader.next_frame(&mut buf).unwrap();
    buf.chunks(3).map(|p| [p[0], p[1], p[2]]).collect()
}

const BACKGROUND: [u8; 3] = [246, 246, 246];

/// A run of [`SCENE`] in `dir/r`, frames 0 to 2.
fn run(dir: &Path) {
    write(dir, "two.toml", SCENE);
    let (code, _, stderr) = xpbd_in(dir, &["run", "two.toml", "--out", "r", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn the_ground_and_a_moving_sphere_are_drawn_from_the_scene() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path());
    // Looking down at the ground beside the cubes: only the plane is in view.
    let down = ["--eye", "0,5,-6", "--target", "0,-0.5,-8", "--size", "40x30", "--frames", "0"];
    let (code, _, stderr) = xpbd_in(dir.path(), &[&["render", "r"][..], &down].concat());
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("colliders are not drawn"), "without a scene: {stderr}");
    assert!(pixels(&dir.path().join("r/render/frame_00000.png")).iter().all(|p| *p == BACKGROUND));
    let (code, _, stderr) = xpbd_in(dir.path(), &[&["render", "r", "--scene", "two.toml"][..], &down].concat());
    assert_eq!(code, 0, "{stderr}");
    let ground = pixels(&dir.path().join("r/render/frame_00000.png"));
    assert!(ground.iter().all(|p| *p != BACKGROUND && p[0] == p[1]), "grey ground everywhere: {:?}", &ground[..3]);

    // The sphere starts at x = -3 and moves at 100 m/s: in view at frame 0, gone by frame 1.
    let sphere = ["--eye", "-3,3,8", "--target", "-3,3,0", "--size", "40x30", "--scene", "two.toml", "--frames", "0-1"];
    let (code, _, stderr) = xpbd_in(dir.path(), &[&["render", "r"][..], &sphere].concat());
    assert_eq!(code, 0, "{stderr}");
    let at = |f: usize| pixels(&dir.path().join(format!("r/render/frame_{f:05}.png")))[15 * 40 + 20];
    assert_ne!(at(0), BACKGROUND, "the sphere at the centre at frame 0");
    assert_eq!(at(1), BACKGROUND, "the sphere gone at frame 1");
}

#[test]
fn each_body_has_its_own_color() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path());
    let (code, _, stderr) = xpbd_in(dir.path(), &["render", "r", "--size", "80x60", "--eye", "1.5,0.5,8", "--target", "1.5,0.5,0"]);
    assert_eq!(code, 0, "{stderr}");
    let image = pixels(&dir.path().join("r/render/frame_00002.png"));
    assert!(image.iter().any(|p| p[2] > p[0] + 40), "a blue body");
    assert!(image.iter().any(|p| p[0] > p[2] + 40), "an orange body");
}

#[test]
fn out_picks_the_folder_of_the_pictures() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path());
    let (code, stdout, stderr) = xpbd_in(dir.path(), &["render", "r", "--scene", "two.toml", "--size", "32x24", "--frames", "all", "--out", "pics/new"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout.lines().collect::<Vec<_>>(), ["pics/new/frame_00000.png", "pics/new/frame_00001.png", "pics/new/frame_00002.png"]);
    assert!(dir.path().join("pics/new/frame_00002.png").is_file());
    assert!(!dir.path().join("r/render").exists(), "nothing written to the default folder");
}

#[test]
fn camera_flags_are_checked_as_the_scene_camera_is() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path());
    let render = |flags: &[&str], needles: &[&str]| expect_usage_error(dir.path(), &[&["render", "r"][..], flags].concat(), needles);
    render(&["--eye", "1,1,1", "--target", "1,1,1"], &["--target: equals the eye"]);
    render(&["--eye", "nan,0,5", "--target", "0,0,0"], &["--eye: not finite"]);
    render(&["--eye", "0,5,0", "--target", "0,0,0"], &["--target: straight above or below --eye"]);
    render(&["--eye", "0,0,5", "--target", "0,0,0", "--fov", "180"], &["--fov: 180 is not between 0 and 180 degrees"]);
    render(&["--eye", "0,0,5", "--target", "0,0,0", "--fov", "0"], &["--fov: 0 is not between"]);
    render(&["--eye", "0,0,5"], &["--eye: needs --target"]);
    render(&["--target", "0,0,5"], &["--target: needs --eye"]);
    render(&["--fov", "20"], &["--fov: needs --eye and --target"]);
    render(&["--eye", "0,0", "--target", "0,0,0"], &["--eye: '0,0' is not X,Y,Z"]);
    assert!(!dir.path().join("r/render").exists(), "no picture for a refused camera");
}

#[test]
fn a_scene_that_cannot_be_built_here_leaves_out_the_colliders_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path());
    // As in a batch run folder: the scene's mesh file lies beside the original scene, not in RUN_DIR.
    write(
        &dir.path().join("r"),
        "scene.toml",
        &SCENE.replace("center = [-3.0, 3.0, 0.0]\nradius = 0.5", "file = \"elsewhere.obj\"").replace("\"sphere\"", "\"mesh\""),
    );
    let (code, stdout, stderr) = xpbd_in(dir.path(), &["render", "r", "--size", "32x24"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.starts_with("note: ") && stderr.contains("colliders are not drawn") && stderr.contains("elsewhere.obj"), "{stderr}");
    assert_eq!(stdout.trim(), "r/render/frame_00002.png");
}

/// A cube of side 1 centred at (-3, 3, 0), as a Wavefront OBJ.
const CUBE_OBJ: &str = "v -3.5 2.5 -0.5\nv -2.5 2.5 -0.5\nv -3.5 3.5 -0.5\nv -2.5 3.5 -0.5\nv -3.5 2.5 0.5\nv -2.5 2.5 0.5\nv -3.5 3.5 0.5\nv -2.5 3.5 0.5\n\
f 1 3 2\nf 2 3 4\nf 5 6 7\nf 6 8 7\nf 1 2 5\nf 2 6 5\nf 3 7 4\nf 4 7 8\nf 1 5 3\nf 3 5 7\nf 2 4 6\nf 4 8 6\n";

#[test]
fn a_mesh_collider_is_drawn_as_its_surface_where_it_moves() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path());
    // The sphere of SCENE replaced by a mesh cube at the same place, moving the same way.
    write(dir.path(), "cube.obj", CUBE_OBJ);
    write(dir.path(), "cube.toml", &SCENE.replace("center = [-3.0, 3.0, 0.0]\nradius = 0.5", "file = \"cube.obj\"").replace("\"sphere\"", "\"mesh\""));
    let view = ["render", "r", "--eye", "-3,3,8", "--target", "-3,3,0", "--size", "40x30", "--scene", "cube.toml", "--frames", "0-1"];
    let (code, _, stderr) = xpbd_in(dir.path(), &view);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("not drawn"), "{stderr}");
    let at = |f: usize| pixels(&dir.path().join(format!("r/render/frame_{f:05}.png")))[15 * 40 + 20];
    let cube = at(0);
    assert!(cube != BACKGROUND && cube[0] == cube[1], "a grey cube at the centre at frame 0: {cube:?}");
    assert_eq!(at(1), BACKGROUND, "the cube gone at frame 1");
}

/// The default camera frames the bodies and the finite colliders of every drawn frame, not the ground plane:
/// a sphere well beside a cube is in the picture, with the cube.
#[test]
fn the_default_camera_frames_the_finite_colliders_with_the_bodies() {
    let dir = tempfile::tempdir().unwrap();
    let scene = r#"
name = "beside"
[simulation]
frames = 1
substeps = 1
[[body]]
name = "cube"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-1.0, -1.0, -1.0], max = [10.0, 10.0, 10.0] } }]
[[collider]]
kind = "plane"
point = [0.0, -0.5, 0.0]
normal = [0.0, 1.0, 0.0]
[[collider]]
kind = "sphere"
center = [-6.0, 0.5, 0.0]
radius = 0.5
"#;
    write(dir.path(), "beside.toml", scene);
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", "beside.toml", "--out", "r", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["render", "r", "--scene", "beside.toml", "--size", "80x60"]);
    assert_eq!(code, 0, "{stderr}");
    let image = pixels(&dir.path().join("r/render/frame_00001.png"));
    // The sphere is plain grey (r = g = b); the plane's checkers are a little yellow, the cube blue.
    let sphere = image.iter().filter(|p| **p != BACKGROUND && p[0] == p[1] && p[1] == p[2]).count();
    assert!(sphere > 10, "the sphere is in the picture: {sphere} grey pixels");
    assert!(image.iter().any(|p| p[2] > p[0] + 40), "the cube is in the picture");
}

/// Colors follow the frames' `body` point data: a body made of two separate tetrahedra is one color (blue),
/// the next body the second (orange), and no third color appears.
#[test]
fn a_body_of_two_pieces_has_one_color() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "two.node", "8 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 3 0 0\n6 4 0 0\n7 3 1 0\n8 3 0 1\n");
    write(dir.path(), "two.ele", "2 4 0\n1 1 2 3 4\n2 5 6 7 8\n");
    let pinned = r#"material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-1.0, -1.0, -1.0], max = [10.0, 10.0, 10.0] } }]"#;
    let scene = format!(
        "name = \"pieces\"\n[simulation]\nframes = 1\nsubsteps = 1\n[[body]]\nname = \"split\"\nmesh = {{ file = \"two.node\" }}\n{pinned}\n\
[[body]]\nname = \"cube\"\nmesh = {{ generator = \"box\", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }}\ntranslate = [6.0, 0.0, 0.0]\n{pinned}\n"
    );
    write(dir.path(), "pieces.toml", &scene);
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", "pieces.toml", "--out", "r", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["render", "r", "--size", "120x60", "--eye", "3.5,0.5,10", "--target", "3.5,0.5,0"]);
    assert_eq!(code, 0, "{stderr}");
    let image = pixels(&dir.path().join("r/render/frame_00001.png"));
    // The pixels whose strongest channel is red, green, blue: orange, green, blue bodies.
    let mut dominant = [0; 3];
    for p in image.iter().filter(|p| !(p[0] == p[1] && p[1] == p[2])) {
        dominant[(0..3).max_by_key(|&c| p[c]).unwrap()] += 1;
    }
    assert!(dominant[2] > 0 && dominant[0] > 0, "a blue and an orange body: {dominant:?}");
    assert_eq!(dominant[1], 0, "no third (green) color: the two pieces are one body");
}
