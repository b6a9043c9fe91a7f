//! `xpbd info MESH_OR_SCENE [--json]`: sizes, valence, volume and bounds of a mesh or of every body
//! of a scene.

use serde::Serialize;
use std::path::Path;
use xpbd_core::mesh::{io, orientation, surface, Mesh, Vec3};
use xpbd_core::scene;
use xpbd_core::Result;

#[derive(Serialize)]
struct MeshInfo {
    name: String,
    kind: &'static str,
    vertices: usize,
    elements: usize,
    /// Most elements sharing one vertex (a lower bound on the colors of the element graph).
    max_valence: usize,
    boundary_faces: usize,
    /// Total volume (tets) or area (triangles).
    measure: f64,
    bbox_min: [f64; 3],
    bbox_max: [f64; 3],
    /// Tets whose orientation the reader had to flip.
    reoriented: usize,
}

pub fn info(path: &Path, json: bool) -> Result<()> {
    let items = if path.extension().is_some_and(|e| e == "toml") {
        let sc = scene::load(path)?;
        let (model, _) = scene::build(&sc, path.parent().unwrap_or(Path::new(".")))?;
        model
            .bodies
            .iter()
            .map(|b| {
                let local = |i: u32| i - b.vertices.start as u32;
                let verts = model.rest[b.vertices.clone()].to_vec();
                let mesh = if b.tets.is_empty() {
                    Mesh::Tri(xpbd_core::mesh::TriMesh { vertices: verts, tris: b.surface.iter().map(|t| t.map(local)).collect() })
                } else {
                    Mesh::Tet(xpbd_core::mesh::TetMesh { vertices: verts, tets: b.tets.iter().map(|t| t.map(local)).collect() })
                };
                describe(&b.name, mesh)
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        vec![describe(&path.display().to_string(), io::read_mesh(path)?)?]
    };
    if json {
        let v = if items.len() == 1 { serde_json::to_value(&items[0]) } else { serde_json::to_value(&items) };
        println!("{}", serde_json::to_string_pretty(&v.expect("info serialises")).expect("json"));
    } else {
        for i in &items {
            println!("{} ({}): {} vertices, {} elements, max valence {}, {} boundary faces, {} {:.6e}, bbox [{:.4}, {:.4}, {:.4}]–[{:.4}, {:.4}, {:.4}]{}",
                i.name, i.kind, i.vertices, i.elements, i.max_valence, i.boundary_faces,
                if i.kind == "tet" { "volume" } else { "area" }, i.measure,
                i.bbox_min[0], i.bbox_min[1], i.bbox_min[2], i.bbox_max[0], i.bbox_max[1], i.bbox_max[2],
                if i.reoriented > 0 { format!(", {} tets reoriented", i.reoriented) } else { String::new() });
        }
    }
    Ok(())
}

fn describe(name: &str, mesh: Mesh) -> Result<MeshInfo> {
    let (kind, vertices, elements, valence, faces, measure, reoriented) = match mesh {
        Mesh::Tet(mut m) => {
            let r = orientation::orient_and_validate(&mut m, name)?;
            let vol = m.tets.iter().map(|t| {
                let [a, b, c, d] = t.map(|i| m.vertices[i as usize]);
                xpbd_core::mesh::signed_tet_volume(&a, &b, &c, &d)
            }).sum();
            let faces = surface::boundary_faces(&m.tets).len();
            ("tet", m.vertices, m.tets.len(), valence(m.tets.iter().flatten()), faces, vol, r.flipped)
        }
        Mesh::Tri(m) => {
            let area = m.tris.iter().map(|t| {
                let [a, b, c] = t.map(|i| m.vertices[i as usize]);
                0.5 * (b - a).cross(&(c - a)).norm()
            }).sum();
            ("tri", m.vertices, m.tris.len(), valence(m.tris.iter().flatten()), m.tris.len(), area, 0)
        }
    };
    let lo = vertices.iter().fold(Vec3::repeat(f64::INFINITY), |a, p| a.inf(p));
    let hi = vertices.iter().fold(Vec3::repeat(f64::NEG_INFINITY), |a, p| a.sup(p));
    Ok(MeshInfo {
        name: name.to_string(),
        kind,
        vertices: vertices.len(),
        elements,
        max_valence: valence,
        boundary_faces: faces,
        measure,
        bbox_min: lo.into(),
        bbox_max: hi.into(),
        reoriented,
    })
}

fn valence<'a>(indices: impl Iterator<Item = &'a u32>) -> usize {
    let mut count = std::collections::HashMap::<u32, usize>::new();
    for &i in indices {
        *count.entry(i).or_default() += 1;
    }
    count.values().copied().max().unwrap_or(0)
}
