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
    /// The partitions of `model`'s tet groups (in body order: a body's groups hold its tetrahedra in order) with clusters of at most `cluster_size` elements (the scene's
    /// `solver.cluster_size`), followed by −1 for each of `triangles` triangle cells.
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
