//! Items grouped in compressed sparse row form: the one layout behind the block paper's partitions —
//! a coloring's color classes (Algorithm 2), a clustering's χ(r) (Algorithm 4), the elements at a
//! vertex — and behind the Gauss-Seidel [`Schedule`](super::schedule::Schedule).

/// Groups `0..len()`: group `g` holds `members[offsets[g]..offsets[g+1]]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Groups {
    /// `offsets.len() == len() + 1`, non-decreasing from 0 to `members.len()`.
    pub offsets: Vec<usize>,
    /// The members of all groups back to back, group by group.
    pub members: Vec<u32>,
}

impl Groups {
    /// Groups items by label: group `g < count` lists, in increasing order, the items `i` with
    /// `labels[i] == g` (a stable counting sort; a label no item has gives an empty group).
    pub fn from_labels(labels: &[u32], count: usize) -> Groups {
        let mut offsets = vec![0usize; count + 1];
        for &g in labels {
            offsets[g as usize + 1] += 1;
        }
        for g in 0..count {
            offsets[g + 1] += offsets[g];
        }
        let mut fill = offsets.clone();
        let mut members = vec![0u32; labels.len()];
        for (i, &g) in labels.iter().enumerate() {
            members[fill[g as usize]] = i as u32;
            fill[g as usize] += 1;
        }
        Groups { offsets, members }
    }

    /// Every item `0..n` its own group, in index order.
    pub fn singletons(n: usize) -> Groups {
        Groups { offsets: (0..=n).collect(), members: (0..n as u32).collect() }
    }

    /// The number of groups.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The members of group `g`.
    #[inline]
    pub fn group(&self, g: usize) -> &[u32] {
        &self.members[self.offsets[g]..self.offsets[g + 1]]
    }

    /// The groups in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &[u32]> + '_ {
        (0..self.len()).map(|g| self.group(g))
    }

    /// The size of every group, in order.
    pub fn sizes(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.offsets.windows(2).map(|w| w[1] - w[0])
    }

    /// The groups listed in `order` (group indices), back to back: group `i` of the result is group
    /// `order[i]` of `self`.
    pub fn gather(&self, order: &[u32]) -> Groups {
        let mut offsets = Vec::with_capacity(order.len() + 1);
        offsets.push(0);
        let mut members = Vec::with_capacity(self.members.len());
        for &g in order {
            members.extend_from_slice(self.group(g as usize));
            offsets.push(members.len());
        }
        Groups { offsets, members }
    }

    /// Checks that the groups partition the items `0..n` and agree with their `labels`: one label per
    /// item, well-formed offsets, every item listed exactly once and in the group its label names.
    /// Messages call the items `what`s and the groups `group`s ("element", "color").
    pub fn check_labels(&self, labels: &[u32], n: usize, what: &str, group: &str) -> Result<(), String> {
        if labels.len() != n {
            return Err(format!("{} {what}s have a {group}, but there are {n}", labels.len()));
        }
        let members = self.members.len();
        if self.offsets.first() != Some(&0) || self.offsets.last() != Some(&members) || self.offsets.windows(2).any(|w| w[0] > w[1]) {
            return Err(format!("the {group} offsets are not a partition of the members"));
        }
        if members != n {
            return Err(format!("the {group}s hold {members} {what}s, but there are {n}"));
        }
        let mut seen = vec![false; n];
        for (g, m) in self.iter().enumerate() {
            for &i in m {
                if i as usize >= n {
                    return Err(format!("{what} {i} in {group} {g} does not exist"));
                }
                if seen[i as usize] {
                    return Err(format!("{what} {i} is in more than one {group} (again in {g})"));
                }
                seen[i as usize] = true;
                if labels[i as usize] != g as u32 {
                    return Err(format!("{what} {i} is listed in {group} {g} but has {group} {}", labels[i as usize]));
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_labels_groups_items_in_increasing_order() {
        let g = Groups::from_labels(&[2, 0, 2, 0, 3], 4);
        assert_eq!(g.len(), 4);
        assert_eq!(g.group(0), [1, 3]);
        assert!(g.group(1).is_empty(), "no item has label 1");
        assert_eq!(g.group(2), [0, 2]);
        assert_eq!(g.group(3), [4]);
        assert_eq!(g.iter().collect::<Vec<_>>(), [&[1, 3][..], &[], &[0, 2], &[4]]);
        assert_eq!(g.sizes().collect::<Vec<_>>(), [2, 0, 2, 1]);
        assert_eq!(g.check_labels(&[2, 0, 2, 0, 3], 5, "item", "group"), Ok(()));
        assert!(g.check_labels(&[2, 0, 2, 1, 3], 5, "item", "group").is_err(), "item 3 listed in group 0");
    }

    #[test]
    fn empty_singletons_and_gather() {
        let none = Groups::from_labels(&[], 0);
        assert_eq!((none.len(), none.is_empty()), (0, true));
        assert_eq!(none, Groups::singletons(0));
        assert_eq!(Groups::from_labels(&[], 2).iter().collect::<Vec<_>>(), [&[] as &[u32], &[]]);
        let s = Groups::singletons(3);
        assert_eq!(s.iter().collect::<Vec<_>>(), [[0], [1], [2]]);
        let g = Groups::from_labels(&[1, 0, 1], 2);
        let back = g.gather(&[1, 0]);
        assert_eq!((back.group(0), back.group(1)), (&[0, 2][..], &[1][..]));
        assert_eq!(s.gather(&[2, 0, 1]).members, [2, 0, 1]);
    }

    #[test]
    fn malformed_groups_are_rejected() {
        let mut g = Groups::from_labels(&[0, 1, 0], 2);
        g.members[1] = g.members[0];
        assert!(g.check_labels(&[0, 1, 0], 3, "item", "group").unwrap_err().contains("more than one"));
        let short = Groups { offsets: vec![0, 1], members: vec![0] };
        assert!(short.check_labels(&[0, 0], 2, "item", "group").is_err());
        let bad = Groups { offsets: vec![0, 2], members: vec![0] };
        assert!(bad.check_labels(&[0], 1, "item", "group").unwrap_err().contains("offsets"));
    }
}
