//! OBJ and PLY surface frames: read back, they hold the bodies' surfaces at the frame's positions.

use std::path::Path;
use xpbd::core::mesh::io::read_tri_mesh;
use xpbd::core::scene::schema::Material;
use xpbd::core::scene::{BodyBuilder, Scene, SceneBuilder};
use xpbd::surface_frames::Surface;
use xpbd::{Device, Simulation};

/// A cube and a cloth above it, 2 frames written as VTU, OBJ and PLY.
fn scene() -> Scene {
    let cube = BodyBuilder::new("cube").box_mesh([1.0; 3], [2, 2, 2]).split(5).material(Material::neohookean_block(1.0e5, 0.3, 1000.0));
    let cloth_material = Material { model: "cloth".into(), areal_density: Some(0.2), ..Default::default() };
    let cloth = BodyBuilder::new("cloth").grid2d([1.0, 1.0], [3, 3]).translate([0.0, 2.0, 0.0]).material(cloth_material);
    SceneBuilder::new("surf").frames(2).substeps(2).body(cube).body(cloth).formats(&["vtu", "obj", "ply"]).build()
}

/// (vertices, triangles) of an ASCII PLY written by `Surface::write_ply`.
fn read_ply(path: &Path) -> (Vec<[f64; 3]>, Vec<[u32; 3]>) {
    let text = std::fs::read_to_string(path).unwrap();
    let (header, body) = text.split_once("end_header\n").unwrap();
    let count = |what: &str| header.lines().find_map(|l| l.strip_prefix(&format!("element {what} "))).unwrap().parse::<usize>().unwrap();
    let mut lines = body.lines();
    let v = (0..count("vertex")).map(|_| {
        let c: Vec<f64> = lines.next().unwrap().split(' ').map(|t| t.parse().unwrap()).collect();
        [c[0], c[1], c[2]]
    });
    let v = v.collect();
    let f = (0..count("face"))
        .map(|_| {
            let c: Vec<u32> = lines.next().unwrap().split(' ').map(|t| t.parse().unwrap()).collect();
            assert_eq!(c[0], 3);
            [c[1], c[2], c[3]]
        })
        .collect();
    (v, f)
}

#[test]
fn obj_and_ply_frames_round_trip_the_surfaces() {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = Simulation::from_scene(scene(), Path::new("."), Some(Device::Cpu), Path::new("surf.toml")).unwrap();
    sim.run(dir.path(), None, &mut |_, _, _| {}).unwrap();
    let surface = Surface::of(&sim.model);
    let tri_count: usize = sim.model.bodies.iter().map(|b| b.surface.len()).sum();
    assert_eq!(surface.tris.len(), tri_count);
    // 2×2×2 cells: a 3×3×3 grid's 26 boundary vertices, plus the cloth's 4×4.
    assert_eq!(surface.vertices.len(), 26 + 16);
    let expected: Vec<[f64; 3]> = surface.vertices.iter().map(|&v| sim.state.x[v as usize].into()).collect();
    // Each triangle maps back to the model's global indices.
    let global: Vec<[u32; 3]> = sim.model.bodies.iter().flat_map(|b| b.surface.iter().copied()).collect();
    let back = |t: &[u32; 3]| t.map(|i| surface.vertices[i as usize]);

    let obj = read_tri_mesh(&dir.path().join("frames/frame_00002.obj")).unwrap();
    let obj_vertices: Vec<[f64; 3]> = obj.vertices.iter().map(|p| (*p).into()).collect();
    assert_eq!(obj_vertices, expected, "OBJ positions are exact (shortest round-trip decimal)");
    assert_eq!(obj.tris.iter().map(back).collect::<Vec<_>>(), global);

    let (ply_vertices, ply_tris) = read_ply(&dir.path().join("frames/frame_00002.ply"));
    assert_eq!(ply_vertices, expected);
    assert_eq!(ply_tris.iter().map(back).collect::<Vec<_>>(), global);
    assert!(dir.path().join("frames/frame_00000.obj").is_file() && dir.path().join("frames/frame_00001.ply").is_file());
}
