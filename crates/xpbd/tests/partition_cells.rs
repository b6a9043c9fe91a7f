//! `[output] partition` (`xpbd run --partition`; the block neo-Hookean paper's Fig. 4): the VTU frames' cell data
//! `partition_color` is a valid coloring of each body's tetrahedra, `partition_cluster` groups them in clusters
//! of at most `solver.cluster_size`, and `partition_cluster_color` colors the clusters so that no two clusters of
//! one color share a vertex; cloth triangles get −1. Without the option the arrays are not written, and the option
//! without VTU frames or with clusters of size 0 is refused in one line.

use base64::Engine;
use std::collections::HashMap;
use std::path::Path;
use xpbd::core::scene::schema::{Material, Scene, Solver};
use xpbd::core::scene::{BodyBuilder, SceneBuilder};
use xpbd::output::Frames;
use xpbd::{Device, Simulation};

const CLUSTER_SIZE: usize = 4;

/// Two boxes of tetrahedra and a cloth sheet, one frame, clustered sweeps with clusters of [`CLUSTER_SIZE`].
fn scene(partition: bool) -> SceneBuilder {
    let solver = Solver { cluster_size: CLUSTER_SIZE, ..Solver::xpbd("clustered") };
    let block = |name: &str, cells| BodyBuilder::new(name).box_mesh([1.0, 0.5, 0.5], cells).split(5).material(Material::neohookean_block(1e6, 0.45, 1000.0));
    SceneBuilder::new("partitions")
        .frames(1)
        .solver(solver)
        .partition(partition)
        .body(block("a", [6, 3, 3]))
        .body(block("b", [3, 2, 2]).translate([0.0, 2.0, 0.0]))
        .body(BodyBuilder::new("sheet").grid2d([1.0, 1.0], [4, 4]).material(Material::cloth(0.1, 0.0, 1e-3)).translate([0.0, 4.0, 0.0]))
}

/// The Int32 cell-data array `name` of a frame written by `write_vtu_with_cells` (one base64 stream: an 8-byte
/// length, then little-endian values), or `None` when the frame has no such array.
fn cell_ints(path: &Path, name: &str) -> Option<Vec<i32>> {
    let text = std::fs::read_to_string(path).unwrap();
    let start = text.find(&format!("Name=\"{name}\""))?;
    let body = &text[start..];
    let data = &body[body.find('>').unwrap() + 1..body.find("</DataArray>").unwrap()];
    let bytes = base64::engine::general_purpose::STANDARD.decode(data.trim()).unwrap();
    Some(bytes[8..].chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect())
}

/// Asserts that no two of `tets` with different `group` share a vertex and have the same `label`; returns how
/// many (vertex, label) pairs were checked.
fn no_shared_vertex(tets: &[[u32; 4]], group: &[i32], label: &[i32]) -> usize {
    let mut seen: HashMap<(u32, i32), i32> = HashMap::new();
    for (e, t) in tets.iter().enumerate() {
        for &v in t {
            let owner = *seen.entry((v, label[e])).or_insert(group[e]);
            assert_eq!(owner, group[e], "vertex {v}: two groups of label {} share it", label[e]);
        }
    }
    seen.len()
}

fn run(scene: Scene) -> (Simulation, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = Simulation::from_scene(scene, Path::new("."), Some(Device::Cpu), Path::new("partitions.toml")).unwrap();
    sim.run(dir.path(), None, &mut |_, _, _| {}).unwrap();
    (sim, dir)
}

#[test]
fn the_frames_carry_a_valid_coloring_and_clusters_within_the_cluster_size() {
    let (sim, dir) = run(scene(true).build());
    let frame = dir.path().join("frames/frame_00001.vtu");
    let [color, cluster, cluster_color] = ["partition_color", "partition_cluster", "partition_cluster_color"].map(|n| cell_ints(&frame, n).unwrap());
    let tets: Vec<[u32; 4]> = sim.model.bodies.iter().flat_map(|b| b.tets.iter().copied()).collect();
    let triangles = sim.model.bodies[2].surface.len();
    assert!(triangles > 0);
    for v in [&color, &cluster, &cluster_color] {
        assert_eq!(v.len(), tets.len() + triangles);
        assert!(v[tets.len()..].iter().all(|&x| x == -1), "cloth triangles are not partitioned here");
        assert!(v[..tets.len()].iter().all(|&x| x >= 0));
    }
    let n = tets.len();
    // Each tetrahedron its own group: no two tetrahedra sharing a vertex have the same color.
    let own: Vec<i32> = (0..n as i32).collect();
    no_shared_vertex(&tets, &own, &color[..n]);
    // No two clusters sharing a vertex have the same cluster color.
    no_shared_vertex(&tets, &cluster[..n], &cluster_color[..n]);
    // Clusters within the cluster size, of one body each, with one color each; ids unique in the file.
    let mut members: HashMap<i32, Vec<usize>> = HashMap::new();
    for (e, &c) in cluster[..n].iter().enumerate() {
        members.entry(c).or_default().push(e);
    }
    let body_a = sim.model.bodies[0].tets.len();
    for (c, m) in &members {
        assert!(m.len() <= CLUSTER_SIZE, "cluster {c} has {} elements", m.len());
        assert!(m.iter().all(|&e| (e < body_a) == (m[0] < body_a)), "cluster {c} spans two bodies");
        assert!(m.iter().all(|&e| cluster_color[e] == cluster_color[m[0]]));
    }
    assert!(members.values().any(|m| m.len() == CLUSTER_SIZE), "some cluster is full");
    // Clustering needs fewer colors than the element coloring (paper Table 2).
    let colors = |v: &[i32]| v.iter().max().unwrap() + 1;
    assert!(colors(&cluster_color[..body_a]) < colors(&color[..body_a]));
}

#[test]
fn without_the_option_there_are_no_partition_arrays_and_bad_options_are_refused() {
    let (_, dir) = run(scene(false).build());
    assert!(cell_ints(&dir.path().join("frames/frame_00001.vtu"), "partition_color").is_none());

    let err = Simulation::from_scene(scene(true).formats(&["obj"]).build(), Path::new("."), Some(Device::Cpu), Path::new("p.toml")).err().unwrap().to_string();
    assert!(err.starts_with("p.toml: output.partition: the partitions are VTU cell data") && !err.contains('\n'), "{err}");
    // The scene check refuses cluster_size = 0 first; the frames' own check for code that builds Frames itself.
    let err = Frames::of(&scene(true).build().output, 0).unwrap_err().to_string();
    assert_eq!(err, "output.partition: solver.cluster_size must be at least 1");
}
