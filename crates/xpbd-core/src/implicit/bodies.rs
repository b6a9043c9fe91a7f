//! Rigid bodies from the elements flagged rigid (thesis "Adaptive methods for elastic deformation", §3.3.4,
//! Algorithm 2, and §4.3.2 for shells): a greedy breadth-first search over elements sharing a face (a tet's
//! three vertices, a shell triangle's edge), which never lets a vertex belong to two bodies (a shared vertex would
//! need a joint). Elements rejected that way stay elastic. An element is given by its vertices: a tet's four or a
//! triangle's three.

use std::collections::{HashMap, VecDeque};

/// The elements sharing a face with each element, a face being an element's vertices but one.
pub struct FaceAdjacency {
    start: Vec<usize>,
    neighbours: Vec<u32>,
}

impl FaceAdjacency {
    pub fn new(elements: &[&[u32]]) -> Self {
        let mut faces: HashMap<Vec<u32>, Vec<u32>> = HashMap::with_capacity(2 * elements.len());
        for (e, nodes) in elements.iter().enumerate() {
            for skip in 0..nodes.len() {
                let mut f: Vec<u32> = nodes.iter().enumerate().filter(|&(i, _)| i != skip).map(|(_, &v)| v).collect();
                f.sort_unstable();
                faces.entry(f).or_default().push(e as u32);
            }
        }
        let mut lists: Vec<Vec<u32>> = vec![Vec::new(); elements.len()];
        for shared in faces.values().filter(|s| s.len() == 2) {
            lists[shared[0] as usize].push(shared[1]);
            lists[shared[1] as usize].push(shared[0]);
        }
        let mut start = vec![0];
        let mut neighbours = Vec::new();
        for mut l in lists {
            l.sort_unstable();
            neighbours.extend(l);
            start.push(neighbours.len());
        }
        FaceAdjacency { start, neighbours }
    }

    pub fn of(&self, e: usize) -> &[u32] {
        &self.neighbours[self.start[e]..self.start[e + 1]]
    }
}

/// The rigid body of each element and vertex (`None`: elastic), and the number of bodies.
#[derive(Clone, Debug, PartialEq)]
pub struct RigidPattern {
    pub element_body: Vec<Option<u32>>,
    pub vertex_body: Vec<Option<u32>>,
    pub bodies: usize,
}

impl RigidPattern {
    /// Every element elastic.
    pub fn elastic(elements: usize, vertices: usize) -> Self {
        RigidPattern { element_body: vec![None; elements], vertex_body: vec![None; vertices], bodies: 0 }
    }

    /// Algorithm 2 started from every flagged element in index order.
    pub fn find(elements: &[&[u32]], adjacency: &FaceAdjacency, flagged: &[bool], vertices: usize) -> Self {
        let mut p = RigidPattern::elastic(elements.len(), vertices);
        let mut visited = vec![false; elements.len()];
        let mut queue = VecDeque::new();
        for seed in 0..elements.len() {
            if !flagged[seed] || visited[seed] {
                continue;
            }
            let j = p.bodies as u32;
            let mut count = 0;
            queue.push_back(seed);
            while let Some(e) = queue.pop_front() {
                if visited[e] {
                    continue;
                }
                visited[e] = true;
                // Avoid hinges: a vertex already in another body keeps the element out of this one.
                if elements[e].iter().any(|&v| p.vertex_body[v as usize].is_some_and(|b| b != j)) {
                    continue;
                }
                p.element_body[e] = Some(j);
                count += 1;
                for &v in elements[e] {
                    p.vertex_body[v as usize] = Some(j);
                }
                queue.extend(adjacency.of(e).iter().map(|&n| n as usize).filter(|&n| flagged[n] && !visited[n]));
            }
            if count > 0 {
                p.bodies += 1;
            }
        }
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of tets, each sharing a face with the next: tet k has vertices k..k+4.
    fn chain(n: usize) -> Vec<[u32; 4]> {
        (0..n as u32).map(|k| [k, k + 1, k + 2, k + 3]).collect()
    }

    fn nodes<const N: usize>(elements: &[[u32; N]]) -> Vec<&[u32]> {
        elements.iter().map(|e| &e[..]).collect()
    }

    /// A strip of triangles sharing edges: (0,1,2), (1,2,3), … Triangles touching only at a vertex are not
    /// neighbours; a flagged strip is one body.
    #[test]
    fn triangles_are_neighbours_across_edges() {
        let tris: Vec<[u32; 3]> = (0..5u32).map(|k| [k, k + 1, k + 2]).collect();
        let adj = FaceAdjacency::new(&nodes(&tris));
        assert_eq!(adj.of(0), &[1]);
        assert_eq!(adj.of(2), &[1, 3]);
        let p = RigidPattern::find(&nodes(&tris), &adj, &[true, true, true, false, false], 7);
        assert_eq!(p.element_body, vec![Some(0), Some(0), Some(0), None, None]);
        assert_eq!(p.bodies, 1);
    }

    #[test]
    fn a_flagged_run_is_one_body() {
        let tets = chain(6);
        let adj = FaceAdjacency::new(&nodes(&tets));
        assert_eq!(adj.of(0), &[1]);
        assert_eq!(adj.of(3), &[2, 4]);
        let p = RigidPattern::find(&nodes(&tets), &adj, &[true, true, true, false, false, false], 9);
        assert_eq!(p.bodies, 1);
        assert_eq!(p.element_body, vec![Some(0), Some(0), Some(0), None, None, None]);
        assert_eq!(p.vertex_body[..6], [Some(0); 6]);
        assert_eq!(p.vertex_body[6..], [None; 3]);
    }

    /// Two flagged runs separated by one elastic tet share vertices through it (tet 3's vertices 3..7 touch
    /// both runs): the second run may not take a vertex of the first, so its first element stays elastic.
    #[test]
    fn bodies_never_share_a_vertex() {
        let tets = chain(8);
        let adj = FaceAdjacency::new(&nodes(&tets));
        let p = RigidPattern::find(&nodes(&tets), &adj, &[true, true, true, false, true, true, true, true], 11);
        assert_eq!(p.bodies, 2);
        let mut owner = [None; 11];
        for (e, b) in p.element_body.iter().enumerate() {
            for &v in &tets[e] {
                if let Some(b) = b {
                    assert!(owner[v as usize].is_none_or(|o| o == *b), "vertex {v} in two bodies");
                    owner[v as usize] = Some(*b);
                }
            }
        }
        assert_eq!(p.element_body[4], None, "tet 4 shares vertices 4 and 5 with the first body");
        assert_eq!(p.element_body[5..], [None, Some(1), Some(1)][..], "tet 5 shares vertex 5 too; the second body starts at 6");
    }
}
