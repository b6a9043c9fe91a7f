//! A bounding volume hierarchy of axis-aligned boxes for nearest-item queries (the mesh collider's closest
//! triangle). Built top-down by splitting at the median centroid along the widest axis of the centroids'
//! bounds, at most [`LEAF_SIZE`] items per leaf; nodes in depth-first order in one flat array, so an inner
//! node's first child follows it and the second is at its `second` index.

use crate::mesh::Vec3;

/// Most items in a leaf.
const LEAF_SIZE: usize = 4;

#[derive(Clone, Debug, PartialEq)]
struct Node {
    min: Vec3,
    max: Vec3,
    /// Leaf (`count > 0`): the first of its items in `Bvh::items`. Inner node: the index of its second child.
    start: u32,
    count: u32,
}

impl Node {
    /// Squared distance from `x` to the box (0 inside).
    fn distance2(&self, x: &Vec3) -> f64 {
        (self.min - x).sup(&(x - self.max)).sup(&Vec3::zeros()).norm_squared()
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    nodes: Vec<Node>,
    /// Item indices, each leaf's a contiguous run.
    items: Vec<u32>,
}

impl Bvh {
    /// The hierarchy over items with bounding boxes `bounds[i] = (min, max)`; `bounds` must not be empty.
    pub fn new(bounds: &[(Vec3, Vec3)]) -> Bvh {
        let mut bvh = Bvh { nodes: Vec::with_capacity(2 * bounds.len() / LEAF_SIZE + 1), items: (0..bounds.len() as u32).collect() };
        let centers: Vec<Vec3> = bounds.iter().map(|(a, b)| (a + b) * 0.5).collect();
        bvh.build(bounds, &centers, 0, bounds.len());
        bvh
    }

    /// Appends the subtree over `items[lo..hi]`.
    fn build(&mut self, bounds: &[(Vec3, Vec3)], centers: &[Vec3], lo: usize, hi: usize) {
        let run = &mut self.items[lo..hi];
        let (mut min, mut max) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
        let (mut cmin, mut cmax) = (min, max);
        for &i in run.iter() {
            let (a, b) = &bounds[i as usize];
            (min, max) = (min.inf(a), max.sup(b));
            (cmin, cmax) = (cmin.inf(&centers[i as usize]), cmax.sup(&centers[i as usize]));
        }
        let node = self.nodes.len();
        self.nodes.push(Node { min, max, start: lo as u32, count: run.len() as u32 });
        if run.len() <= LEAF_SIZE {
            return;
        }
        let axis = (cmax - cmin).imax();
        let mid = run.len() / 2;
        run.select_nth_unstable_by(mid, |&a, &b| centers[a as usize][axis].total_cmp(&centers[b as usize][axis]));
        self.nodes[node].count = 0;
        self.build(bounds, centers, lo, lo + mid);
        self.nodes[node].start = self.nodes.len() as u32;
        self.build(bounds, centers, lo + mid, hi);
    }

    /// The item nearest to `x` by `exact(item) = (squared distance, payload)`, visiting only the nodes whose
    /// boxes are closer than the best item so far, the nearer child first.
    pub fn nearest<T>(&self, x: &Vec3, mut exact: impl FnMut(u32) -> (f64, T)) -> (f64, T) {
        let mut best: Option<(f64, T)> = None;
        let mut stack = vec![(0u32, self.nodes[0].distance2(x))];
        while let Some((n, d2)) = stack.pop() {
            if best.as_ref().is_some_and(|b| d2 >= b.0) {
                continue;
            }
            let node = &self.nodes[n as usize];
            if node.count > 0 {
                for &i in &self.items[node.start as usize..(node.start + node.count) as usize] {
                    let candidate = exact(i);
                    if best.as_ref().is_none_or(|b| candidate.0 < b.0) {
                        best = Some(candidate);
                    }
                }
            } else {
                let children = [n + 1, node.start].map(|c| (c, self.nodes[c as usize].distance2(x)));
                let [near, far] = if children[0].1 <= children[1].1 { children } else { [children[1], children[0]] };
                stack.extend([far, near]);
            }
        }
        best.expect("a hierarchy has at least one item")
    }

    /// A bound of the bytes held per item, for the memory estimate: its index and one node (a split leaves at
    /// least two items per leaf, so there are no more nodes than items).
    pub const BYTES_PER_ITEM: u64 = (std::mem::size_of::<u32>() + std::mem::size_of::<Node>()) as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against a linear scan over 500 scattered points (as zero-size boxes), from inside and outside the cloud.
    #[test]
    fn nearest_matches_a_linear_scan() {
        let mut seed = 12345u64;
        let mut rand = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let points: Vec<Vec3> = (0..500).map(|_| Vec3::new(rand(), rand(), 0.3 * rand())).collect();
        let bvh = Bvh::new(&points.iter().map(|p| (*p, *p)).collect::<Vec<_>>());
        for _ in 0..200 {
            let x = Vec3::new(3.0 * rand(), 3.0 * rand(), 3.0 * rand());
            let (d2, i) = bvh.nearest(&x, |i| ((points[i as usize] - x).norm_squared(), i));
            let scan = (0..500).map(|i| (points[i] - x).norm_squared()).fold(f64::INFINITY, f64::min);
            assert_eq!(d2, scan);
            assert_eq!((points[i as usize] - x).norm_squared(), scan);
        }
    }
}
