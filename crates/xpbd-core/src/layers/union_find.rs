//! Disjoint sets over elements with path compression and union by size, and the incremental merging
//! of rigid elements into vertex-connected components (the multi-layer paper Algorithm 1).
//!
//! The printed Algorithm 1 sets `u[e] ← s` for every claimed vertex, which overwrites the new
//! element's root: an element touching two existing sets joins only the last one and the two sets stay
//! apart. [`IncrementalMerging::insert`] unites the sets instead.

/// Disjoint sets over `0..n`; an index is absent until [`UnionFind::make_set`].
#[derive(Clone, Debug)]
pub struct UnionFind {
    /// Parent index; `ABSENT` for an index not inserted yet. Roots point to themselves.
    parent: Vec<u32>,
    size: Vec<u32>,
}

const ABSENT: u32 = u32::MAX;

impl UnionFind {
    pub fn new(n: usize) -> Self {
        UnionFind { parent: vec![ABSENT; n], size: vec![0; n] }
    }

    pub fn make_set(&mut self, a: u32) {
        self.parent[a as usize] = a;
        self.size[a as usize] = 1;
    }

    pub fn contains(&self, a: u32) -> bool {
        self.parent[a as usize] != ABSENT
    }

    /// The root of `a`'s set, compressing the path. `a` must be present.
    pub fn find(&mut self, a: u32) -> u32 {
        let mut root = a;
        while self.parent[root as usize] != root {
            root = self.parent[root as usize];
        }
        let mut i = a;
        while self.parent[i as usize] != root {
            let next = self.parent[i as usize];
            self.parent[i as usize] = root;
            i = next;
        }
        root
    }

    /// Unites the sets of roots `ra` and `rb`, hanging the smaller under the larger; returns the
    /// root of the union.
    fn link(&mut self, ra: u32, rb: u32) -> u32 {
        if ra == rb {
            return ra;
        }
        let (big, small) = if self.size[ra as usize] >= self.size[rb as usize] { (ra, rb) } else { (rb, ra) };
        self.parent[small as usize] = big;
        self.size[big as usize] += self.size[small as usize];
        big
    }
}

/// Algorithm 1: elements inserted one at a time; an element joins the sets of every earlier element
/// it shares a vertex with.
#[derive(Clone, Debug)]
pub struct IncrementalMerging {
    pub sets: UnionFind,
    /// The last inserted element that claimed each vertex; `ABSENT` if none.
    claimed: Vec<u32>,
    /// Scratch of [`IncrementalMerging::components`]: the dense label of each root.
    dense: Vec<u32>,
}

impl IncrementalMerging {
    pub fn new(elements: usize, vertices: usize) -> Self {
        IncrementalMerging { sets: UnionFind::new(elements), claimed: vec![ABSENT; vertices], dense: Vec::new() }
    }

    /// Inserts element `e` with vertices `verts` (Algorithm 1 lines 5–13, with the union). The new
    /// element's root is tracked here, so each claimed vertex costs one `find`.
    pub fn insert(&mut self, e: u32, verts: &[u32]) {
        self.sets.make_set(e);
        let mut root = e;
        for &v in verts {
            let c = self.claimed[v as usize];
            if c != ABSENT {
                let rc = self.sets.find(c);
                root = self.sets.link(root, rc);
            }
            self.claimed[v as usize] = e;
        }
    }

    /// Component label per element: a dense index `0..count` for inserted elements, `None` for
    /// the rest (Algorithm 1 line 14's snapshot), numbered in element order. Returns the labels and the
    /// count.
    pub fn components(&mut self) -> (Vec<Option<u32>>, usize) {
        let n = self.sets.parent.len();
        let mut labels = vec![None; n];
        // Dense label of each root, stored at the root; `ABSENT` until its first member is met.
        self.dense.clear();
        self.dense.resize(n, ABSENT);
        let mut count = 0u32;
        for (e, label) in labels.iter_mut().enumerate() {
            if self.sets.parent[e] == ABSENT {
                continue;
            }
            let r = self.sets.find(e as u32) as usize;
            if self.dense[r] == ABSENT {
                self.dense[r] = count;
                count += 1;
            }
            *label = Some(self.dense[r]);
        }
        (labels, count as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Connected components of the inserted elements by breadth-first search over shared vertices.
    fn bfs_components(elements: &[Vec<u32>], inserted: &[bool]) -> Vec<Option<usize>> {
        let mut label = vec![None; elements.len()];
        let mut next = 0;
        for s in 0..elements.len() {
            if !inserted[s] || label[s].is_some() {
                continue;
            }
            let mut queue = std::collections::VecDeque::from([s]);
            label[s] = Some(next);
            while let Some(a) = queue.pop_front() {
                for b in 0..elements.len() {
                    if inserted[b] && label[b].is_none() && elements[a].iter().any(|v| elements[b].contains(v)) {
                        label[b] = Some(next);
                        queue.push_back(b);
                    }
                }
            }
            next += 1;
        }
        label
    }

    #[test]
    fn an_element_bridging_two_sets_unites_them() {
        // The case the printed pseudo-code gets wrong: elements 0 and 1 are apart; element 2 touches both.
        let mut m = IncrementalMerging::new(3, 6);
        m.insert(0, &[0, 1]);
        m.insert(1, &[4, 5]);
        m.insert(2, &[1, 4]);
        let (labels, count) = m.components();
        assert_eq!(count, 1);
        assert!(labels.iter().all(|l| *l == Some(0)));
    }

    proptest! {
        #[test]
        fn components_equal_bfs(
            elements in prop::collection::vec(prop::collection::vec(0u32..40, 1..4), 1..60),
            order_seed in any::<u64>(),
            take in 0.0f64..=1.0,
        ) {
            let n = elements.len();
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by_key(|&e| (e as u64).wrapping_mul(order_seed | 1).rotate_left(17));
            let count = (take * n as f64) as usize;
            let mut inserted = vec![false; n];
            let mut m = IncrementalMerging::new(n, 40);
            for &e in &order[..count] {
                m.insert(e as u32, &elements[e]);
                inserted[e] = true;
            }
            let (labels, _) = m.components();
            let reference = bfs_components(&elements, &inserted);
            for a in 0..n {
                prop_assert_eq!(labels[a].is_some(), reference[a].is_some());
                for b in 0..n {
                    if labels[a].is_some() && labels[b].is_some() {
                        prop_assert_eq!(labels[a] == labels[b], reference[a] == reference[b]);
                    }
                }
            }
        }
    }
}
