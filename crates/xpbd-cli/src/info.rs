//! `xpbd info MESH_OR_SCENE [--json]`: sizes, volume and bounds of a mesh or of every body of a scene,
//! and the partitions of its element graph (block paper §3–4): colors of plain greedy, smallest-last
//! and clustered (K_s from the scene, else 5) colorings, and the cluster-size histogram; for a scene also the run
//! it describes (`scene_preview`). `--json`: a mesh's object, or for a scene `{"scene": ..., "bodies": [...]}`.

use crate::scene_preview;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use xpbd_core::graph::partition::partitions;
use xpbd_core::mesh::{io, numbering::Numbering, orientation, surface, Mesh, Vec3};
use xpbd_core::scene;
use xpbd_core::Result;

#[derive(Serialize)]
struct MeshInfo {
    name: String,
    kind: &'static str,
    vertices: usize,
    elements: usize,
    /// Most elements sharing one vertex.
    max_valence: usize,
    /// Lower bound on the colors of the element graph (Eq. 12 with one graph node per element): the
    /// elements around the busiest vertex form a clique.
    lower_bound: usize,
    colors_greedy: usize,
    colors_smallest_last: usize,
    colors_clustered: usize,
    /// colors_clustered / colors_smallest_last.
    reduction_ratio: f64,
    cluster_size_limit: usize,
    /// Number of clusters of each size.
    cluster_sizes: BTreeMap<usize, usize>,
    boundary_faces: usize,
    /// The contact surface: its vertices and edges (its triangles are the boundary faces).
    surface_vertices: usize,
    surface_edges: usize,
    /// Total volume (tets) or area (triangles).
    measure: f64,
    bbox_min: [f64; 3],
    bbox_max: [f64; 3],
    /// Tets whose orientation the reader had to flip.
    reoriented: usize,
}

pub fn info(path: &Path, json: bool) -> Result<()> {
    let mut k_s = 5;
    let mut contact = None;
    let mut run = None;
    let items = if path.extension().is_some_and(|e| e == "toml") {
        let sc = scene::load(path)?;
        k_s = sc.solver.cluster_size;
        let built = scene::build(&sc, path.parent().unwrap_or(Path::new(".")))?;
        run = Some(scene_preview::preview(&sc, path, &built)?);
        let model = built.model;
        contact = Some(model.contact.summary());
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
                describe(&b.name, mesh, &Numbering::default(), k_s)
            })
            .collect::<Result<Vec<_>>>()?
    } else {
        let (mesh, numbers) = io::read_numbered(path)?;
        vec![describe(&path.display().to_string(), mesh, &numbers, k_s)?]
    };
    if json {
        let v = match &run {
            Some(run) => serde_json::to_value(serde_json::json!({ "scene": run, "bodies": items })),
            None => serde_json::to_value(&items[0]),
        };
        println!("{}", serde_json::to_string_pretty(&v.expect("info serialises")).expect("json"));
    } else {
        for i in &items {
            println!(
                "{} ({}): {} vertices, {} elements, {} boundary faces (contact surface: {} vertices, {} edges), {} {:.6e}, bbox [{:.4}, {:.4}, {:.4}]–[{:.4}, {:.4}, {:.4}]{}",
                i.name,
                i.kind,
                i.vertices,
                i.elements,
                i.boundary_faces,
                i.surface_vertices,
                i.surface_edges,
                if i.kind == "tet" { "volume" } else { "area" },
                i.measure,
                i.bbox_min[0],
                i.bbox_min[1],
                i.bbox_min[2],
                i.bbox_max[0],
                i.bbox_max[1],
                i.bbox_max[2],
                if i.reoriented > 0 { format!(", {} tets reoriented", i.reoriented) } else { String::new() }
            );
            let sizes: Vec<String> = i.cluster_sizes.iter().map(|(s, n)| format!("{s}: {n}")).collect();
            println!("  element graph: max valence {} (lower bound on colors), colors greedy {}, smallest-last {}, clustered (K_s = {}) {}, ratio {:.3}; cluster sizes {{{}}}",
                i.max_valence, i.colors_greedy, i.colors_smallest_last, i.cluster_size_limit, i.colors_clustered, i.reduction_ratio, sizes.join(", "));
        }
        if let Some(c) = contact {
            let on = |b: bool| if b { "on" } else { "off" };
            println!(
                "contact: between bodies {}, within a body {}, thickness {:.4e} m; surfaces {} vertices, {} edges, {} triangles",
                on(c.bodies),
                on(c.self_contact),
                c.thickness,
                c.surface_vertices,
                c.surface_edges,
                c.surface_triangles
            );
        }
        if let Some(run) = &run {
            scene_preview::print(run);
        }
    }
    Ok(())
}

fn describe(name: &str, mesh: Mesh, numbers: &Numbering, k_s: usize) -> Result<MeshInfo> {
    let (kind, vertices, elements, parts, faces, measure, reoriented) = match mesh {
        Mesh::Tet(mut m) => {
            let r = orientation::orient_and_validate(&mut m, name, numbers)?;
            let vol = m
                .tets
                .iter()
                .map(|t| {
                    let [a, b, c, d] = t.map(|i| m.vertices[i as usize]);
                    xpbd_core::mesh::signed_tet_volume(&a, &b, &c, &d)
                })
                .sum();
            let faces = surface::boundary_faces(&m.tets);
            let parts = partitions(&m.tets, m.vertices.len(), k_s);
            ("tet", m.vertices, m.tets.len(), parts, faces, vol, r.flipped)
        }
        Mesh::Tri(m) => {
            let area = m
                .tris
                .iter()
                .map(|t| {
                    let [a, b, c] = t.map(|i| m.vertices[i as usize]);
                    0.5 * (b - a).cross(&(c - a)).norm()
                })
                .sum();
            let parts = partitions(&m.tris, m.vertices.len(), k_s);
            ("tri", m.vertices, m.tris.len(), parts, m.tris.clone(), area, 0)
        }
    };
    let lo = vertices.iter().fold(Vec3::repeat(f64::INFINITY), |a, p| a.inf(p));
    let hi = vertices.iter().fold(Vec3::repeat(f64::NEG_INFINITY), |a, p| a.sup(p));
    Ok(MeshInfo {
        name: name.to_string(),
        kind,
        vertices: vertices.len(),
        elements,
        max_valence: parts.max_valence,
        lower_bound: parts.max_valence,
        colors_greedy: parts.colors_greedy,
        colors_smallest_last: parts.colored.colors(),
        colors_clustered: parts.cluster_colors.colors(),
        reduction_ratio: parts.cluster_colors.colors() as f64 / parts.colored.colors() as f64,
        cluster_size_limit: k_s,
        cluster_sizes: parts.clustering.size_histogram().iter().enumerate().filter(|(_, &n)| n > 0).map(|(s, &n)| (s, n)).collect(),
        boundary_faces: faces.len(),
        surface_vertices: surface::surface_vertices(&faces).len(),
        surface_edges: surface::surface_edges(&faces).len(),
        measure,
        bbox_min: lo.into(),
        bbox_max: hi.into(),
        reoriented,
    })
}
