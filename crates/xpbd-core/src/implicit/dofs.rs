//! Reduced rigid–elastic coordinates (thesis "Adaptive methods for elastic deformation", Eq. 3.7–3.8):
//! ẋ = G ẋ_A, where an elastic vertex keeps its own three velocity DOFs, a vertex of a rigid body moves
//! with the body's six (v, ω) through Γᵢ = [I, −(R rᵢ)^×], and a pinned vertex has none (its velocity is
//! prescribed). DOFs are grouped in nodes: one per elastic vertex (3 DOFs), then one per rigid body (6 DOFs).

use crate::mesh::Vec3;
use nalgebra::{Matrix3, SMatrix};

/// Where a vertex's velocity comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VertexDof {
    /// Pinned: prescribed velocity, no DOF.
    Fixed,
    /// Its own node (3 DOFs).
    Elastic(u32),
    /// A member of the rigid body whose node this is (6 DOFs).
    Rigid(u32),
}

/// The node of every vertex and the DOF range of every node.
#[derive(Clone, Debug, PartialEq)]
pub struct Dofs {
    pub vertex: Vec<VertexDof>,
    /// First DOF of each node, with the total at the end.
    pub node_start: Vec<usize>,
    /// Elastic nodes come first; rigid body `b` is node `elastic_nodes + b`.
    pub elastic_nodes: usize,
}

impl Dofs {
    /// From each vertex's rigid body (`None`: not in a body) and whether it is pinned.
    pub fn new(body_of_vertex: &[Option<u32>], pinned: impl Fn(usize) -> bool, bodies: usize) -> Self {
        let mut vertex = Vec::with_capacity(body_of_vertex.len());
        let mut elastic = 0u32;
        for (i, b) in body_of_vertex.iter().enumerate() {
            vertex.push(match b {
                _ if pinned(i) => VertexDof::Fixed,
                Some(_) => VertexDof::Rigid(0),
                None => {
                    elastic += 1;
                    VertexDof::Elastic(elastic - 1)
                }
            });
        }
        for (d, b) in vertex.iter_mut().zip(body_of_vertex) {
            if let (VertexDof::Rigid(node), Some(b)) = (d, b) {
                *node = elastic + b;
            }
        }
        let elastic_nodes = elastic as usize;
        let mut node_start: Vec<usize> = (0..=elastic_nodes).map(|k| 3 * k).collect();
        for _ in 0..bodies {
            node_start.push(node_start.last().unwrap() + 6);
        }
        Dofs { vertex, node_start, elastic_nodes }
    }

    /// Number of reduced DOFs.
    pub fn len(&self) -> usize {
        *self.node_start.last().unwrap()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn nodes(&self) -> usize {
        self.node_start.len() - 1
    }

    /// DOFs of node `k`: 3 or 6.
    pub fn node_size(&self, k: u32) -> usize {
        self.node_start[k as usize + 1] - self.node_start[k as usize]
    }

    /// The node of rigid body `b`.
    pub fn body_node(&self, b: usize) -> u32 {
        (self.elastic_nodes + b) as u32
    }

    /// The vertex's node, `None` when pinned.
    pub fn node(&self, v: usize) -> Option<u32> {
        match self.vertex[v] {
            VertexDof::Fixed => None,
            VertexDof::Elastic(k) | VertexDof::Rigid(k) => Some(k),
        }
    }
}

/// Γᵢ = [I, −d^×] of a rigid member at world offset d = R rᵢ from the body's centre of mass (Eq. 3.7).
pub fn gamma(d: &Vec3) -> SMatrix<f64, 3, 6> {
    let mut g = SMatrix::<f64, 3, 6>::zeros();
    g.fixed_view_mut::<3, 3>(0, 0).copy_from(&Matrix3::identity());
    g.fixed_view_mut::<3, 3>(0, 3).copy_from(&(-d.cross_matrix()));
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_follow_vertices_then_bodies() {
        let bodies = [None, Some(1), None, Some(0), Some(1), None];
        let d = Dofs::new(&bodies, |i| i == 5, 2);
        assert_eq!(
            d.vertex,
            vec![VertexDof::Elastic(0), VertexDof::Rigid(3), VertexDof::Elastic(1), VertexDof::Rigid(2), VertexDof::Rigid(3), VertexDof::Fixed]
        );
        assert_eq!(d.node_start, vec![0, 3, 6, 12, 18]);
        assert_eq!((d.len(), d.nodes(), d.node_size(0), d.node_size(3)), (18, 4, 3, 6));
    }

    /// Γ maps (v, ω) to the velocity v + ω × d of a point at offset d.
    #[test]
    fn gamma_is_the_rigid_velocity_field() {
        let (d, v, w) = (Vec3::new(0.3, -1.0, 2.0), Vec3::new(1.0, 2.0, 3.0), Vec3::new(-0.5, 0.25, 2.0));
        let phi = nalgebra::SVector::<f64, 6>::from_iterator(v.iter().chain(w.iter()).copied());
        assert!((gamma(&d) * phi - (v + w.cross(&d))).norm() < 1e-14);
    }
}
