//! `xpbd render`: a box drawn headlessly covers the image centre, leaves the corners background,
//! and shows its three visible faces in different shades.

use xpbd::core::mesh::generators;
use xpbd::core::mesh::io::write_vtu;
use xpbd::render::{available_frames, render_frames, BACKGROUND};

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
    let cloth = generators::grid2d_mesh([1.0, 1.0], [1, 1]).unwrap();
    let offset = cube.vertices.len() as u32;
    let mut points = cube.vertices.clone();
    points.extend(cloth.vertices.iter().map(|p| p + xpbd::core::mesh::Vec3::new(3.0, 0.0, 0.0)));
    let tris: Vec<[u32; 3]> = cloth.tris.iter().map(|t| t.map(|i| i + offset)).collect();
    write_vtu(&dir.path().join("frames/frame_00000.vtu"), &points, &cube.tets, &tris, &[]).unwrap();
    let (_, surface) = xpbd::render::read_surface(&dir.path().join("frames/frame_00000.vtu")).unwrap();
    assert_eq!(surface.len(), 12 + 2, "the cube's 12 boundary triangles and the cloth's 2");
}
