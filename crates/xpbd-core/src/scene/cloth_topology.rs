//! Edges and bending hinges of a triangle mesh.

use std::collections::HashMap;

/// Unique edges (sorted pairs, in first-seen order) and hinges `[a, b, c, d]`: the edge a–b shared by
/// triangles (a, b, c) and (b, a, d). Edges with more than two triangles get no hinge.
pub fn edges_and_hinges(tris: &[[u32; 3]]) -> (Vec<[u32; 2]>, Vec<[u32; 4]>) {
    let mut edge_index: HashMap<[u32; 2], usize> = HashMap::new();
    let mut edges = Vec::new();
    let mut opposite: Vec<Vec<(u32, [u32; 2])>> = Vec::new();
    for t in tris {
        for k in 0..3 {
            let (a, b, c) = (t[k], t[(k + 1) % 3], t[(k + 2) % 3]);
            let key = [a.min(b), a.max(b)];
            let i = *edge_index.entry(key).or_insert_with(|| {
                edges.push(key);
                opposite.push(Vec::new());
                edges.len() - 1
            });
            opposite[i].push((c, [a, b]));
        }
    }
    let hinges = opposite
        .iter()
        .filter(|o| o.len() == 2)
        .map(|o| {
            let (c, [a, b]) = o[0];
            [a, b, c, o[1].0]
        })
        .collect();
    (edges, hinges)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_share_one_hinge() {
        let (edges, hinges) = edges_and_hinges(&[[0, 1, 2], [1, 0, 3]]);
        assert_eq!(edges.len(), 5);
        assert_eq!(hinges, vec![[0, 1, 2, 3]]);
    }
}
