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
