//! The sparsity pattern of the reduced system A_A (thesis Eq. 3.11) in CSR, built once per set of rigid
//! bodies: node blocks of 3 or 6 DOFs, a block wherever two nodes share an elastic element. Every row of a
//! node has the same column structure, so a block (I, J) starts at the same offset in each of I's rows and
//! values are summed into place without searching per entry.

use super::dofs::Dofs;
use crate::sparse::Csr;

pub struct BlockPattern {
    /// The matrix: its pattern, with the values refilled each step.
    pub matrix: Csr,
    /// Per node: its neighbour nodes, sorted, and the column offset of each within the node's rows.
    adjacency_start: Vec<usize>,
    adjacency: Vec<(u32, u32)>,
    /// The matrix's row pointers (a copy, so that values can be written while they are read).
    row_start: Vec<usize>,
}

impl BlockPattern {
    /// The pattern of `dofs` where the nodes of each of `groups` (an elastic element's nodes; a node may repeat,
    /// as the vertices of one rigid body do) are coupled; every node couples with itself. Each node's
    /// neighbours come from the groups it is in (an incidence list by counting sort) with a stamp per node for
    /// uniqueness, so the cost is linear in the groups' sizes plus a sort of each node's short list: a rigid
    /// pattern change rebuilds this.
    pub fn new<G: IntoIterator<Item = u32>>(dofs: &Dofs, groups: impl Iterator<Item = G>) -> Self {
        let nodes = dofs.nodes();
        let (mut group_start, mut members) = (vec![0usize], Vec::new());
        for g in groups {
            members.extend(g);
            group_start.push(members.len());
        }
        let mut incidence_start = vec![0usize; nodes + 1];
        for &a in &members {
            incidence_start[a as usize + 1] += 1;
        }
        for k in 0..nodes {
            incidence_start[k + 1] += incidence_start[k];
        }
        let mut incidence = vec![0u32; members.len()];
        let mut next = incidence_start.clone();
        for (g, range) in group_start.windows(2).enumerate() {
            for &a in &members[range[0]..range[1]] {
                incidence[next[a as usize]] = g as u32;
                next[a as usize] += 1;
            }
        }
        let mut stamp = vec![u32::MAX; nodes];
        let (mut adjacency_start, mut adjacency) = (vec![0], Vec::new());
        let mut neighbours = Vec::new();
        for k in 0..nodes as u32 {
            neighbours.clear();
            neighbours.push(k);
            stamp[k as usize] = k;
            for &g in &incidence[incidence_start[k as usize]..incidence_start[k as usize + 1]] {
                for &b in &members[group_start[g as usize]..group_start[g as usize + 1]] {
                    if stamp[b as usize] != k {
                        stamp[b as usize] = k;
                        neighbours.push(b);
                    }
                }
            }
            neighbours.sort_unstable();
            let mut col = 0u32;
            for &j in &neighbours {
                adjacency.push((j, col));
                col += dofs.node_size(j) as u32;
            }
            adjacency_start.push(adjacency.len());
        }
        let (mut indptr, mut indices) = (vec![0usize], Vec::new());
        for i in 0..nodes {
            let row = &adjacency[adjacency_start[i]..adjacency_start[i + 1]];
            for _ in 0..dofs.node_size(i as u32) {
                for &(j, _) in row {
                    let s = dofs.node_start[j as usize];
                    indices.extend(s..s + dofs.node_size(j));
                }
                indptr.push(indices.len());
            }
        }
        let data = vec![0.0; indices.len()];
        let n = dofs.len();
        let row_start = indptr.clone();
        BlockPattern { matrix: Csr::new((n, n), indptr, indices, data), adjacency_start, adjacency, row_start }
    }

    /// Zeroes the values.
    pub fn clear(&mut self) {
        self.matrix.data_mut().fill(0.0);
    }

    /// The column offset of block (i, j) within node i's rows.
    fn offset(&self, i: u32, j: u32) -> usize {
        let n = &self.adjacency[self.adjacency_start[i as usize]..self.adjacency_start[i as usize + 1]];
        let k = n.binary_search_by_key(&j, |p| p.0).expect("the pattern couples nodes that share an element");
        n[k].1 as usize
    }

    /// Adds the `r × c` block `value(row, col)` at nodes (i, j) whose first DOFs are `row0`, `col0`.
    pub fn add(&mut self, dofs: &Dofs, i: u32, j: u32, rows: usize, cols: usize, value: impl Fn(usize, usize) -> f64) {
        let offset = self.offset(i, j);
        let row0 = dofs.node_start[i as usize];
        let data = self.matrix.data_mut();
        for r in 0..rows {
            let base = self.row_start[row0 + r] + offset;
            for c in 0..cols {
                data[base + c] += value(r, c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks land where a dense assembly puts them (a node repeated in a group counts once).
    #[test]
    fn blocks_match_a_dense_assembly() {
        let dofs = Dofs::new(&[None, Some(0), None, Some(0)], |_| false, 1);
        let mut p = BlockPattern::new(&dofs, [vec![0, 2], vec![1, 2, 1]].into_iter());
        let n = dofs.len();
        let mut dense = vec![vec![0.0; n]; n];
        let mut add = |p: &mut BlockPattern, i: u32, j: u32, seed: f64| {
            let (ri, rj) = (dofs.node_size(i), dofs.node_size(j));
            let v = |r: usize, c: usize| seed + (r * 7 + c) as f64;
            p.add(&dofs, i, j, ri, rj, v);
            for r in 0..ri {
                for c in 0..rj {
                    dense[dofs.node_start[i as usize] + r][dofs.node_start[j as usize] + c] += v(r, c);
                }
            }
        };
        for (i, j, s) in [(0, 0, 1.0), (0, 2, 2.0), (2, 0, 3.0), (1, 2, 4.0), (2, 1, 5.0), (2, 2, 6.0), (1, 1, 7.0), (2, 2, 8.0)] {
            add(&mut p, i, j, s);
        }
        for (r, row) in dense.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                assert_eq!(p.matrix.get(r, c).copied().unwrap_or(0.0), v, "({r}, {c})");
            }
        }
        assert!(p.matrix.get(0, 3).is_none(), "nodes 0 and 1 share no element");
    }
}
