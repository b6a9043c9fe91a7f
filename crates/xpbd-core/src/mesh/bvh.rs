//! A bounding volume hierarchy over axis-aligned boxes: built top-down by median splits along the widest axis
//! of the centroids (O(n log n)), stored as one flat node array in depth-first order, queried by box overlap
//! (contact's broad phase) or for the nearest item (a mesh collider's closest triangle). Deterministic: the same
//! boxes give the same tree and the same query order.

use crate::mesh::Vec3;

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub min: Vec3,
    pub max: Vec3,
}

impl Aabb {
    pub const EMPTY: Aabb =
        Aabb { min: Vec3::new(f64::INFINITY, f64::INFINITY, f64::INFINITY), max: Vec3::new(f64::NEG_INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY) };

    /// The smallest box around `points`.
    pub fn around<'a>(points: impl IntoIterator<Item = &'a Vec3>) -> Aabb {
        points.into_iter().fold(Aabb::EMPTY, |b, p| Aabb { min: b.min.inf(p), max: b.max.sup(p) })
    }
    pub fn union(&self, o: &Aabb) -> Aabb {
        Aabb { min: self.min.inf(&o.min), max: self.max.sup(&o.max) }
    }
    /// Grown by `r` on every side.
    pub fn inflate(&self, r: f64) -> Aabb {
        let d = Vec3::repeat(r);
        Aabb { min: self.min - d, max: self.max + d }
    }
    pub fn overlaps(&self, o: &Aabb) -> bool {
        (0..3).all(|k| self.min[k] <= o.max[k] && o.min[k] <= self.max[k])
    }
    /// The distance between two boxes (0 when they overlap; infinite from an empty box).
    pub fn gap(&self, o: &Aabb) -> f64 {
        (self.min - o.max).sup(&(o.min - self.max)).sup(&Vec3::zeros()).norm()
    }
    fn centre(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }
    /// Squared distance from `x` to the box (0 inside).
    fn distance2(&self, x: &Vec3) -> f64 {
        (self.min - x).sup(&(x - self.max)).sup(&Vec3::zeros()).norm_squared()
    }
}

/// Items per leaf at most.
const LEAF_SIZE: usize = 4;

/// Tree levels whose subtree pairs are traversed in parallel ([`Bvh::overlapping_pairs`]).
const PARALLEL_DEPTH: u32 = 6;

/// One node: its box, and either a leaf's items `items[start..start + count]` (count > 0) or, for an inner
/// node (count = 0), its right child at `start` (the left child follows the node).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node {
    bounds: Aabb,
    start: u32,
    count: u32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Bvh {
    nodes: Vec<Node>,
    /// Item indices, leaf by leaf, and their boxes in the same order.
    items: Vec<u32>,
    item_bounds: Vec<Aabb>,
}

impl Bvh {
    /// The hierarchy over `boxes` (item i has box i).
    pub fn new(boxes: &[Aabb]) -> Bvh {
        let mut bvh = Bvh { nodes: Vec::with_capacity(2 * boxes.len() / LEAF_SIZE + 1), items: (0..boxes.len() as u32).collect(), item_bounds: Vec::new() };
        if !boxes.is_empty() {
            let centres: Vec<Vec3> = boxes.iter().map(Aabb::centre).collect();
            bvh.split(boxes, &centres, 0, boxes.len());
        }
        bvh.item_bounds = bvh.items.iter().map(|&i| boxes[i as usize]).collect();
        bvh
    }

    /// Builds the subtree over `items[lo..hi]`, depth first.
    fn split(&mut self, boxes: &[Aabb], centres: &[Vec3], lo: usize, hi: usize) {
        let items = &mut self.items[lo..hi];
        let bounds = items.iter().fold(Aabb::EMPTY, |b, &i| b.union(&boxes[i as usize]));
        let me = self.nodes.len();
        if hi - lo <= LEAF_SIZE {
            self.nodes.push(Node { bounds, start: lo as u32, count: (hi - lo) as u32 });
            return;
        }
        let spread = Aabb::around(items.iter().map(|&i| &centres[i as usize]));
        let axis = (spread.max - spread.min).imax();
        let mid = (hi - lo) / 2;
        items.select_nth_unstable_by(mid, |&a, &b| centres[a as usize][axis].total_cmp(&centres[b as usize][axis]).then(a.cmp(&b)));
        self.nodes.push(Node { bounds, start: 0, count: 0 });
        self.split(boxes, centres, lo, lo + mid);
        self.nodes[me].start = self.nodes.len() as u32;
        self.split(boxes, centres, lo + mid, hi);
    }

    /// The item nearest to `x` by `exact(item) = (squared distance, payload)`, visiting only the nodes whose
    /// boxes are closer than the best item so far, the nearer child first. The hierarchy must not be empty.
    pub fn nearest<T>(&self, x: &Vec3, mut exact: impl FnMut(u32) -> (f64, T)) -> (f64, T) {
        let mut best: Option<(f64, T)> = None;
        let mut stack = vec![(0u32, self.nodes[0].bounds.distance2(x))];
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
                let children = [n + 1, node.start].map(|c| (c, self.nodes[c as usize].bounds.distance2(x)));
                let [near, far] = if children[0].1 <= children[1].1 { children } else { [children[1], children[0]] };
                stack.extend([far, near]);
            }
        }
        best.expect("a hierarchy has at least one item")
    }

    /// A bound of the bytes held per item, for memory estimates: its index, its box and one node (a split leaves
    /// at least two items per leaf, so there are no more nodes than items).
    pub const BYTES_PER_ITEM: u64 = (std::mem::size_of::<u32>() + std::mem::size_of::<Aabb>() + std::mem::size_of::<Node>()) as u64;

    /// Every pair of items (i < j) whose boxes overlap, in a fixed order: a traversal of the tree against itself
    /// (each pair of subtrees once), the top levels in parallel.
    pub fn overlapping_pairs(&self) -> Vec<(u32, u32)> {
        if self.nodes.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        self.pairs_within(0, 0, &mut out);
        out
    }

    /// The children of inner node `n`.
    fn children(&self, n: u32) -> [u32; 2] {
        [n + 1, self.nodes[n as usize].start]
    }

    /// The items of leaf `n`, as positions in `items`.
    fn leaf(&self, n: u32) -> std::ops::Range<usize> {
        let node = &self.nodes[n as usize];
        node.start as usize..(node.start + node.count) as usize
    }

    /// Overlapping pairs inside subtree `n`, appended to `out`.
    fn pairs_within(&self, n: u32, depth: u32, out: &mut Vec<(u32, u32)>) {
        if self.nodes[n as usize].count > 0 {
            let leaf = self.leaf(n);
            for a in leaf.clone() {
                for b in a + 1..leaf.end {
                    self.push_if_overlapping(a, b, out);
                }
            }
            return;
        }
        let [l, r] = self.children(n);
        let d = depth + 1;
        self.both(depth, out, |o| self.both(depth, o, |o| self.pairs_within(l, d, o), |o| self.pairs_within(r, d, o)), |o| self.pairs_between(l, r, d, o));
    }

    /// Overlapping pairs with one item in subtree `a` and one in the disjoint subtree `b`, appended to `out`.
    fn pairs_between(&self, a: u32, b: u32, depth: u32, out: &mut Vec<(u32, u32)>) {
        let (na, nb) = (&self.nodes[a as usize], &self.nodes[b as usize]);
        if !na.bounds.overlaps(&nb.bounds) {
            return;
        }
        match (na.count > 0, nb.count > 0) {
            (true, true) => {
                for i in self.leaf(a) {
                    for j in self.leaf(b) {
                        self.push_if_overlapping(i, j, out);
                    }
                }
            }
            // Descend the inner node (the left one when both are).
            (false, _) => {
                let [l, r] = self.children(a);
                self.both(depth, out, |o| self.pairs_between(l, b, depth + 1, o), |o| self.pairs_between(r, b, depth + 1, o));
            }
            (true, false) => self.pairs_between(b, a, depth, out),
        }
    }

    fn push_if_overlapping(&self, a: usize, b: usize, out: &mut Vec<(u32, u32)>) {
        if self.item_bounds[a].overlaps(&self.item_bounds[b]) {
            let (i, j) = (self.items[a], self.items[b]);
            out.push((i.min(j), i.max(j)));
        }
    }

    /// Appends what `a` then `b` find: in parallel near the root (the top levels give enough tasks), in
    /// sequence below.
    fn both(&self, depth: u32, out: &mut Vec<(u32, u32)>, a: impl FnOnce(&mut Vec<(u32, u32)>) + Send, b: impl FnOnce(&mut Vec<(u32, u32)>) + Send) {
        if depth < PARALLEL_DEPTH {
            let (first, second) = rayon::join(|| gathered(a), || gathered(b));
            out.extend(first);
            out.extend(second);
        } else {
            a(out);
            b(out);
        }
    }

    /// Calls `hit` with every item whose box overlaps `query`, in a fixed order.
    pub fn query(&self, query: &Aabb, mut hit: impl FnMut(u32)) {
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let index = stack[top];
            let node = &self.nodes[index as usize];
            if !node.bounds.overlaps(query) {
                continue;
            }
            if node.count > 0 {
                let (s, c) = (node.start as usize, node.count as usize);
                for k in s..s + c {
                    if self.item_bounds[k].overlaps(query) {
                        hit(self.items[k]);
                    }
                }
            } else {
                // Balanced median splits keep the depth near log₂(n / LEAF_SIZE), far below the stack.
                stack[top] = node.start;
                stack[top + 1] = index + 1;
                top += 2;
            }
        }
    }
}

fn gathered(fill: impl FnOnce(&mut Vec<(u32, u32)>)) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    fill(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_finds_exactly_the_overlapping_boxes() {
        let mut s = 3u64;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let boxes: Vec<Aabb> = (0..1000)
            .map(|_| {
                let c = Vec3::new(next(), next(), next()) * 10.0;
                Aabb { min: c, max: c + Vec3::new(next(), next(), next()) * 0.5 }
            })
            .collect();
        let bvh = Bvh::new(&boxes);
        for q in boxes.iter().take(200) {
            let q = q.inflate(0.3);
            let mut found = Vec::new();
            bvh.query(&q, |i| found.push(i));
            found.sort_unstable();
            let brute: Vec<u32> = (0..boxes.len() as u32).filter(|&i| boxes[i as usize].overlaps(&q)).collect();
            assert_eq!(found, brute);
        }
        let mut none = Vec::new();
        Bvh::new(&[]).query(&boxes[0], |i| none.push(i));
        assert!(none.is_empty());
        let mut pairs = bvh.overlapping_pairs();
        let inflated: Vec<Aabb> = boxes.iter().map(|b| b.inflate(0.3)).collect();
        let mut grown = Bvh::new(&inflated).overlapping_pairs();
        for (found, boxes) in [(&mut pairs, &boxes), (&mut grown, &inflated)] {
            found.sort_unstable();
            let n = boxes.len() as u32;
            let brute: Vec<(u32, u32)> =
                (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).filter(|&(i, j)| boxes[i as usize].overlaps(&boxes[j as usize])).collect();
            assert!(brute.len() > 20, "the test needs overlaps: {}", brute.len());
            assert_eq!(*found, brute);
        }
        assert!(Bvh::new(&[]).overlapping_pairs().is_empty());
    }

    /// Against a linear scan over 500 scattered points (as zero-size boxes), from inside and outside the cloud.
    #[test]
    fn nearest_matches_a_linear_scan() {
        let mut seed = 12345u64;
        let mut rand = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5
        };
        let points: Vec<Vec3> = (0..500).map(|_| Vec3::new(rand(), rand(), 0.3 * rand())).collect();
        let bvh = Bvh::new(&points.iter().map(|p| Aabb { min: *p, max: *p }).collect::<Vec<_>>());
        for _ in 0..200 {
            let x = Vec3::new(3.0 * rand(), 3.0 * rand(), 3.0 * rand());
            let (d2, i) = bvh.nearest(&x, |i| ((points[i as usize] - x).norm_squared(), i));
            let scan = (0..500).map(|i| (points[i] - x).norm_squared()).fold(f64::INFINITY, f64::min);
            assert_eq!(d2, scan);
            assert_eq!((points[i as usize] - x).norm_squared(), scan);
        }
    }
}
