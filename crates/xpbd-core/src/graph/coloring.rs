//! Greedy coloring of the element graph (block paper §3.1, Algorithm 2's partitions): elements of one
//! color share no vertex, so they can be projected in any order or in parallel.

use super::incidence::Incidence;

/// A partition of elements into colors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Coloring {
    /// `color[e]` of every element.
    pub color: Vec<u32>,
    /// Elements grouped by color: color c holds `order[offsets[c]..offsets[c+1]]`, ascending.
    pub order: Vec<u32>,
    pub offsets: Vec<usize>,
}

impl Coloring {
    pub fn colors(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The elements of color `c`.
    pub fn class(&self, c: usize) -> &[u32] {
        &self.order[self.offsets[c]..self.offsets[c + 1]]
    }

    fn from_colors(color: Vec<u32>) -> Self {
        let n_colors = color.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut offsets = vec![0usize; n_colors + 1];
        for &c in &color {
            offsets[c as usize + 1] += 1;
        }
        for c in 0..n_colors {
            offsets[c + 1] += offsets[c];
        }
        let mut fill = offsets.clone();
        let mut order = vec![0u32; color.len()];
        for (e, &c) in color.iter().enumerate() {
            order[fill[c as usize]] = e as u32;
            fill[c as usize] += 1;
        }
        Coloring { color, order, offsets }
    }

    /// Checks that no two elements of one color share a vertex; returns the first offending pair.
    pub fn conflict<const N: usize>(&self, elements: &[[u32; N]], vertex_count: usize) -> Option<(u32, u32)> {
        let inc = Incidence::new(elements, vertex_count);
        (0..vertex_count as u32).find_map(|v| {
            let es = inc.elements_of(v);
            es.iter().enumerate().find_map(|(i, &a)| es[i + 1..].iter().find(|&&b| self.color[a as usize] == self.color[b as usize]).map(|&b| (a, b)))
        })
    }
}

/// Greedy coloring visiting elements in index order: each takes the smallest color unused by the
/// elements it shares a vertex with.
pub fn greedy<const N: usize>(elements: &[[u32; N]], vertex_count: usize) -> Coloring {
    let inc = Incidence::new(elements, vertex_count);
    let mut color = vec![u32::MAX; elements.len()];
    // forbidden[c] == e marks color c as taken by a neighbour of element e.
    let mut forbidden: Vec<u32> = Vec::new();
    for (e, el) in elements.iter().enumerate() {
        for &v in el {
            for &other in inc.elements_of(v) {
                let c = color[other as usize];
                if c != u32::MAX {
                    if c as usize >= forbidden.len() {
                        forbidden.resize(c as usize + 1, u32::MAX);
                    }
                    forbidden[c as usize] = e as u32;
                }
            }
        }
        color[e] = (0..).find(|&c| forbidden.get(c as usize).is_none_or(|&f| f != e as u32)).unwrap();
    }
    Coloring::from_colors(color)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::generators::box_mesh;

    #[test]
    fn greedy_coloring_of_a_box_is_valid_and_near_the_valence_bound() {
        let m = box_mesh([3.0, 2.0, 2.0], [6, 4, 4], 5).unwrap();
        let c = greedy(&m.tets, m.vertices.len());
        assert_eq!(c.conflict(&m.tets, m.vertices.len()), None);
        let bound = Incidence::new(&m.tets, m.vertices.len()).max_valence();
        assert!(c.colors() >= bound && c.colors() <= 2 * bound, "{} colors, valence {bound}", c.colors());
        assert_eq!(c.order.len(), m.tets.len());
        let mut seen = c.order.clone();
        seen.sort_unstable();
        assert!(seen.iter().enumerate().all(|(i, &e)| i as u32 == e), "every element once");
    }

    #[test]
    fn conflicts_are_found() {
        let tets = [[0, 1, 2, 3], [1, 2, 3, 4]];
        let bad = Coloring::from_colors(vec![0, 0]);
        assert_eq!(bad.conflict(&tets, 5), Some((0, 1)));
        assert_eq!(greedy(&tets, 5).colors(), 2);
    }
}
