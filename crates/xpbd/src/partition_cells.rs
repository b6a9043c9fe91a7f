//! The element partitions of the parallel XPBD sweeps as VTU cell data, so that ParaView shows them as the
//! block neo-Hookean paper's Fig. 4 does ("constraint partitions generated with and without clustering"):
//! per tetrahedron its color in the element coloring (Algorithm 2), its cluster (Algorithm 4) and its
//! cluster's color (Algorithm 3). They come from the cached [`partitions`] that the solvers schedule by, so
//! they are the solvers' own. Colors are per tet group (a body, or one material region
//! of one: each group's elements are scheduled on their own); cluster ids are unique in the file. Cells that are not tetrahedra (cloth and shell triangles) get −1.

use std::num::NonZeroUsize;
use xpbd_core::graph::partition::partitions;
use xpbd_core::mesh::io::PointData;
use xpbd_core::model::Model;

/// The three arrays, one value per cell of a frame: every body's tetrahedra in body order, then the triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct PartitionCells {
    /// `partition_color`: the tetrahedron's color in the smallest-last coloring of the element graph.
    pub color: Vec<i32>,
    /// `partition_cluster`: the tetrahedron's cluster of at most `cluster_size` elements.
    pub cluster: Vec<i32>,
    /// `partition_cluster_color`: the color of its cluster in the coloring of the supernodal graph.
    pub cluster_color: Vec<i32>,
}

impl PartitionCells {
    /// The partitions of `model`'s tet groups (in body order: a body's groups hold its tetrahedra in order) with
    /// clusters of at most `cluster_size` elements (the scene's `solver.cluster_size`), followed by −1 for each
    /// of `triangles` triangle cells.
    pub fn of(model: &Model, cluster_size: NonZeroUsize, triangles: usize) -> Self {
        let tets = model.bodies.iter().map(|b| b.tets.len()).sum::<usize>();
        let mut cells = PartitionCells { color: Vec::with_capacity(tets), cluster: Vec::with_capacity(tets), cluster_color: Vec::with_capacity(tets) };
        let mut first_cluster = 0;
        for g in &model.tet_groups {
            let p = partitions(&g.tets, model.vertex_count(), cluster_size.get());
            cells.color.extend(p.colored.color.iter().map(|&c| c as i32));
            for &r in &p.clustering.parent {
                cells.cluster.push((first_cluster + r as usize) as i32);
                cells.cluster_color.push(p.cluster_colors.color[r as usize] as i32);
            }
            first_cluster += p.clustering.clusters();
        }
        for v in [&mut cells.color, &mut cells.cluster, &mut cells.cluster_color] {
            v.resize(tets + triangles, -1);
        }
        cells
    }

    /// The named cell-data arrays of a VTU frame.
    pub fn cell_data(&self) -> [(&'static str, PointData<'_>); 3] {
        [
            ("partition_color", PointData::Int(&self.color)),
            ("partition_cluster", PointData::Int(&self.cluster)),
            ("partition_cluster_color", PointData::Int(&self.cluster_color)),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;
    use xpbd_core::scene::schema::{Material, Region};
    use xpbd_core::scene::{BodyBuilder, SceneBuilder};

    /// A body with a region: one cell per tetrahedron in the body's order, each group colored on its own (as the
    /// sweeps schedule it), so tetrahedra of one group that share a vertex differ in color.
    #[test]
    fn a_body_with_a_region_is_colored_group_by_group() {
        let half = Region::in_box([1.0, -1.0, -1.0], [3.0, 2.0, 2.0], Material::tet("stvk", 1.0e7, 0.3, 1000.0));
        let bar = BodyBuilder::new("bar").box_mesh([2.0, 1.0, 1.0], [4, 2, 2]).material(Material::tet("stvk", 1.0e5, 0.3, 1000.0)).region(half);
        let model = SceneBuilder::new("p").body(bar).built(Path::new(".")).unwrap().model;
        let cells = PartitionCells::of(&model, NonZeroUsize::new(5).unwrap(), 0);
        let tets = &model.bodies[0].tets;
        assert_eq!(cells.color.len(), tets.len());
        let mut start = 0;
        for g in &model.tet_groups {
            assert_eq!(&tets[start..start + g.tets.len()], &g.tets[..]);
            let colors = &cells.color[start..start + g.tets.len()];
            assert_eq!(colors, partitions(&g.tets, model.vertex_count(), 5).colored.color.iter().map(|&c| c as i32).collect::<Vec<_>>());
            for a in 0..g.tets.len() {
                for b in a + 1..g.tets.len() {
                    let shared = g.tets[a].iter().any(|v| g.tets[b].contains(v));
                    assert!(!shared || colors[a] != colors[b], "tets {a} and {b} share a vertex and color {}", colors[a]);
                }
            }
            start += g.tets.len();
        }
    }
}
