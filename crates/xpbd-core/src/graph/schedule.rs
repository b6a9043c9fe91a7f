//! The order of a Gauss-Seidel sweep: batches run one after another; the items of a batch touch
//! disjoint vertices and run in parallel; the elements of an item run in sequence.
//!
//! - serial (Algorithm 1): one batch, one item, every element in index order;
//! - colored (block paper, Algorithm 2): a batch per color, an item per element;
//! - clustered (Algorithm 3): a batch per color of the supernodal graph, an item per cluster.

use super::clustering::Clustering;
use super::coloring::Coloring;
use super::groups::Groups;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Items of batch b: `batch_start[b]..batch_start[b+1]`.
    batch_start: Vec<usize>,
    /// The elements of every item, items in batch order.
    items: Groups,
}

impl Schedule {
    /// Batch `b` runs the groups `batches.group(b)` of `items`, one item per group.
    fn new(items: &Groups, batches: &Groups) -> Self {
        Schedule { batch_start: batches.offsets.clone(), items: items.gather(&batches.members) }
    }

    pub fn serial(n: usize) -> Self {
        Schedule::new(&Groups::from_labels(&vec![0; n], 1), &Groups::singletons(1))
    }

    /// One batch of `n` one-element items: every element at once, as a Jacobi pass visits them.
    pub fn independent(n: usize) -> Self {
        Schedule::new(&Groups::singletons(n), &Groups::from_labels(&vec![0; n], 1))
    }

    pub fn colored(c: &Coloring) -> Self {
        Schedule::new(&Groups::singletons(c.color.len()), &c.classes)
    }

    /// Clusters grouped by their color, each cluster's elements in their order of addition.
    pub fn clustered(cl: &Clustering, cluster_colors: &Coloring) -> Self {
        Schedule::new(&cl.chi, &cluster_colors.classes)
    }

    /// Every element in the order the sweep visits them.
    pub fn execution_order(&self) -> Vec<u32> {
        self.items.members.clone()
    }

    /// The same batches and items over elements renumbered in execution order (0, 1, 2, ...).
    pub fn in_execution_order(&self) -> Schedule {
        let items = Groups { offsets: self.items.offsets.clone(), members: (0..self.items.members.len() as u32).collect() };
        Schedule { batch_start: self.batch_start.clone(), items }
    }

    pub fn batches(&self) -> usize {
        self.batch_start.len() - 1
    }

    /// Where each batch's items start: batch `b` is `batch_starts()[b]..batch_starts()[b+1]`.
    pub fn batch_starts(&self) -> &[usize] {
        &self.batch_start
    }

    /// The elements of every item, items in batch order.
    pub fn items(&self) -> &Groups {
        &self.items
    }

    /// Item indices of batch `b`.
    pub fn batch(&self, b: usize) -> std::ops::Range<usize> {
        self.batch_start[b]..self.batch_start[b + 1]
    }

    /// Elements of item `i`.
    pub fn item(&self, i: usize) -> &[u32] {
        self.items.group(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::partition::Partitions;
    use crate::mesh::generators::box_mesh;

    #[test]
    fn batches_follow_the_colors_and_items_the_clusters() {
        let m = box_mesh([1.0, 1.0, 1.0], [3, 2, 2], 5).unwrap();
        let p = Partitions::compute(&m.tets, m.vertices.len(), 4);
        let n = m.tets.len();

        let s = Schedule::serial(n);
        assert_eq!((s.batches(), s.batch(0), s.item(0).len()), (1, 0..1, n));
        assert_eq!(Schedule::serial(0).item(0), [] as [u32; 0]);

        let s = Schedule::colored(&p.colored);
        assert_eq!(s.batches(), p.colored.colors());
        for b in 0..s.batches() {
            let elements: Vec<u32> = s.batch(b).flat_map(|i| s.item(i).to_vec()).collect();
            assert_eq!(elements, p.colored.class(b));
        }

        let s = Schedule::clustered(&p.clustering, &p.cluster_colors);
        assert_eq!(s.batches(), p.cluster_colors.colors());
        for b in 0..s.batches() {
            let items: Vec<&[u32]> = s.batch(b).map(|i| s.item(i)).collect();
            let clusters: Vec<&[u32]> = p.cluster_colors.class(b).iter().map(|&r| p.clustering.members_of(r as usize)).collect();
            assert_eq!(items, clusters);
        }
        let mut order = s.execution_order();
        order.sort_unstable();
        assert_eq!(order, (0..n as u32).collect::<Vec<_>>());
        let renumbered = s.in_execution_order();
        assert_eq!(renumbered.execution_order(), (0..n as u32).collect::<Vec<_>>());
        assert_eq!(renumbered.items().offsets, s.items().offsets);
    }
}
