//! The order of a Gauss-Seidel sweep: batches run one after another; the items of a batch touch
//! disjoint vertices and run in parallel; the elements of an item run in sequence.
//!
//! - serial (Algorithm 1): one batch, one item, every element in index order;
//! - colored (block paper, Algorithm 2): a batch per color, an item per element;
//! - clustered (Algorithm 3): a batch per color of the supernodal graph, an item per cluster.

use super::clustering::Clustering;
use super::coloring::Coloring;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// Items of batch b: `batch_start[b]..batch_start[b+1]`.
    batch_start: Vec<usize>,
    /// Elements of item i: `elements[item_start[i]..item_start[i+1]]`.
    item_start: Vec<usize>,
    elements: Vec<u32>,
}

impl Schedule {
    pub fn serial(n: usize) -> Self {
        Schedule { batch_start: vec![0, 1], item_start: vec![0, n], elements: (0..n as u32).collect() }
    }

    pub fn colored(c: &Coloring) -> Self {
        let n = c.color.len();
        Schedule { batch_start: c.classes.offsets.clone(), item_start: (0..=n).collect(), elements: c.classes.members.clone() }
    }

    /// Clusters grouped by their color, each cluster's elements in their order of addition.
    pub fn clustered(cl: &Clustering, cluster_colors: &Coloring) -> Self {
        let mut item_start = vec![0];
        let mut elements = Vec::with_capacity(cl.parent.len());
        for &r in &cluster_colors.classes.members {
            elements.extend_from_slice(cl.members_of(r as usize));
            item_start.push(elements.len());
        }
        Schedule { batch_start: cluster_colors.classes.offsets.clone(), item_start, elements }
    }

    /// Every element in the order the sweep visits them.
    pub fn execution_order(&self) -> Vec<u32> {
        self.elements.clone()
    }

    /// The same batches and items over elements renumbered in execution order (0, 1, 2, ...).
    pub fn in_execution_order(&self) -> Schedule {
        Schedule { batch_start: self.batch_start.clone(), item_start: self.item_start.clone(), elements: (0..self.elements.len() as u32).collect() }
    }

    pub fn batches(&self) -> usize {
        self.batch_start.len() - 1
    }

    /// Item indices of batch `b`.
    pub fn batch(&self, b: usize) -> std::ops::Range<usize> {
        self.batch_start[b]..self.batch_start[b + 1]
    }

    /// Elements of item `i`.
    pub fn item(&self, i: usize) -> &[u32] {
        &self.elements[self.item_start[i]..self.item_start[i + 1]]
    }
}
