//! `xpbd render`: a box drawn headlessly covers the image centre, leaves the corners background,
//! and shows its three visible faces in different shades.

use xpbd::core::mesh::generators;
use xpbd::core::mesh::io::write_vtu;
use xpbd_tools::render::{available_frames, render_frames, BACKGROUND};

fn decode(path: &std::path::Path) -> (u32, u32, Vec<u8>) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    (info.width, info.height, buf)
}

#[test]
fn a_rendered_box_fills_the_centre_with_shaded_faces_and_leaves_the_corners() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("frames")).unwrap();
    let m = generators::box_mesh([2.0, 1.0, 1.0], [2, 1, 1], 5).unwrap();
    write_vtu(&dir.path().join("frames/frame_00003.vtu"), &m.vertices, &m.tets, &[], &[]).unwrap();
    assert_eq!(available_frames(dir.path()).unwrap(), vec![3]);
    let files = render_frames(dir.path(), &[3], None, 160, 120).unwrap();
    assert_eq!(files, vec![dir.path().join("render/frame_00003.png")]);
    let (w, h, rgb) = decode(&files[0]);
    assert_eq!((w, h), (160, 120));
    let px = |x: u32, y: u32| -> [u8; 3] {
        let i = 3 * (y * w + x) as usize;
        [rgb[i], rgb[i + 1], rgb[i + 2]]
    };
    assert_ne!(px(w / 2, h / 2), BACKGROUND, "the box covers the centre");
    for (x, y) in [(0, 0), (w - 1, 0), (0, h - 1), (w - 1, h - 1)] {
        assert_eq!(px(x, y), BACKGROUND, "corner ({x}, {y})");
    }
    let mut shades: Vec<[u8; 3]> = rgb.chunks(3).map(|p| [p[0], p[1], p[2]]).filter(|p| *p != BACKGROUND).collect();
    shades.sort();
    shades.dedup();
    assert_eq!(shades.len(), 3, "three flat faces in view, each its own shade: {shades:?}");
}

#[test]
fn frames_with_solids_and_cloth_draw_both() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("frames")).unwrap();
    // A unit cube at the origin and, beside it, a cloth square of its own vertices.
    let cube = generators::box_mesh([1.0, 1.0, 1.0], [1, 1, 1], 5).unwrap();
    let cloth = generators::grid2d_mesh([1.0, 1.0], [1, 1], generators::GridPattern::Alternating).unwrap();
    let offset = cube.vertices.len() as u32;
    let mut points = cube.vertices.clone();
    points.extend(cloth.vertices.iter().map(|p| p + xpbd::core::mesh::Vec3::new(3.0, 0.0, 0.0)));
    let tris: Vec<[u32; 3]> = cloth.tris.iter().map(|t| t.map(|i| i + offset)).collect();
    write_vtu(&dir.path().join("frames/frame_00000.vtu"), &points, &cube.tets, &tris, &[]).unwrap();
    let surface = xpbd_tools::render::read_surface(&dir.path().join("frames/frame_00000.vtu")).unwrap();
    assert!(surface.body.is_none(), "no body point data");
    assert_eq!(surface.tris.len(), 12 + 2, "the cube's 12 boundary triangles and the cloth's 2");
}

#[test]
fn a_scene_camera_is_checked_and_used() {
    use xpbd::core::scene::schema::Render;
    use xpbd_tools::render::{body_colors, Camera};
    let r = |eye: [f64; 3], up: [f64; 3], fov: f64| Render { eye, target: [0.0; 3], up, fov };
    let err = |x: Render| Camera::from_scene(&x, "s.toml").unwrap_err().to_string();
    assert!(err(r([0.0; 3], [0.0, 1.0, 0.0], 35.0)).contains("s.toml: render.target: equals the eye"));
    assert!(err(r([0.0, 5.0, 0.0], [0.0, 1.0, 0.0], 35.0)).contains("render.up"));
    assert!(err(r([0.0, 0.0, 5.0], [0.0, 1.0, 0.0], 180.0)).contains("render.fov: 180"));
    assert!(err(r([f64::NAN, 0.0, 5.0], [0.0, 1.0, 0.0], 35.0)).contains("render.eye: not finite"));

    // Looking at the unit box from far away along +z, it covers the centre only; looking away, nothing.
    let m = generators::box_mesh([1.0, 1.0, 1.0], [1, 1, 1], 5).unwrap();
    let tris = xpbd::core::mesh::surface::boundary_faces(&m.tets);
    let toward = Camera::from_scene(&Render { eye: [0.5, 0.5, 20.0], target: [0.5, 0.5, 0.5], up: [0.0, 1.0, 0.0], fov: 35.0 }, "s").unwrap();
    let img = xpbd_tools::render::draw(&body_colors(&m.vertices, &tris, None), &toward, 101, 101);
    assert_ne!(img.pixel(50, 50), BACKGROUND);
    assert_eq!(img.pixel(20, 50), BACKGROUND, "the box spans about 0.5 / 19.5 · 50.5 / tan(17.5°) ≈ 4 pixels either side of the centre");
    let away = Camera::from_scene(&Render { eye: [0.5, 0.5, 20.0], target: [0.5, 0.5, 40.0], up: [0.0, 1.0, 0.0], fov: 35.0 }, "s").unwrap();
    assert!(xpbd_tools::render::draw(&body_colors(&m.vertices, &tris, None), &away, 101, 101).rgb.chunks(3).all(|p| p == BACKGROUND));
}

#[test]
fn bodies_are_colored_in_order_whatever_their_interior_vertices() {
    use xpbd_tools::render::{body_colors, PALETTE};
    // Two boxes with an interior vertex each (cells 2): the pieces are the boxes, in vertex order.
    let m = generators::box_mesh([1.0, 1.0, 1.0], [2, 2, 2], 5).unwrap();
    let mut points = m.vertices.clone();
    points.extend(m.vertices.iter().map(|p| p + xpbd::core::mesh::Vec3::new(3.0, 0.0, 0.0)));
    let faces = xpbd::core::mesh::surface::boundary_faces(&m.tets);
    let n = m.vertices.len() as u32;
    let tris: Vec<[u32; 3]> = faces.iter().copied().chain(faces.iter().map(|t| t.map(|i| i + n))).collect();
    let colored = body_colors(&points, &tris, None);
    assert!(colored.colors[..faces.len()].iter().all(|c| *c == PALETTE[0]));
    assert!(colored.colors[faces.len()..].iter().all(|c| *c == PALETTE[1]));
}

/// A frame's `body` point data is read back with its surface, from binary and ascii arrays and over pieces;
/// a file where a piece lacks it has none.
#[test]
fn the_body_point_data_is_read_with_the_surface() {
    use xpbd::core::mesh::io::PointData;
    let dir = tempfile::tempdir().unwrap();
    let m = generators::box_mesh([1.0, 1.0, 1.0], [1, 1, 1], 5).unwrap();
    let body: Vec<i32> = (0..m.vertices.len() as i32).map(|i| i % 2).collect();
    let path = dir.path().join("f.vtu");
    write_vtu(&path, &m.vertices, &m.tets, &[], &[("velocity", PointData::Vector(&m.vertices)), ("body", PointData::Int(&body))]).unwrap();
    let s = xpbd_tools::render::read_surface(&path).unwrap();
    assert_eq!(s.body, Some(body.iter().map(|&b| b as i64).collect()));
    // Two ascii pieces of one triangle each: body 7 and 9; without the second piece's array, none.
    let piece = |b: &str| {
        format!(
            "<Piece NumberOfPoints=\"3\" NumberOfCells=\"1\"><PointData>{b}</PointData><Points><DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">0 0 0 1 0 0 0 1 0</DataArray></Points>\
<Cells><DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">0 1 2</DataArray><DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">3</DataArray>\
<DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">5</DataArray></Cells></Piece>"
        )
    };
    let body_of = |v: i32| format!("<DataArray type=\"Int32\" Name=\"body\" format=\"ascii\">{v} {v} {v}</DataArray>");
    let file = |pieces: String| format!("<?xml version=\"1.0\"?><VTKFile type=\"UnstructuredGrid\"><UnstructuredGrid>{pieces}</UnstructuredGrid></VTKFile>");
    std::fs::write(&path, file(piece(&body_of(7)) + &piece(&body_of(9)))).unwrap();
    assert_eq!(xpbd_tools::render::read_surface(&path).unwrap().body, Some(vec![7, 7, 7, 9, 9, 9]));
    std::fs::write(&path, file(piece(&body_of(7)) + &piece(""))).unwrap();
    let s = xpbd_tools::render::read_surface(&path).unwrap();
    assert_eq!((s.points.len(), s.tris.len(), s.body), (6, 2, None));
}
