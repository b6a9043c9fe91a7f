//! Vertex → element incidence in CSR form: the elements that touch each vertex.

use super::groups::Groups;

/// `elements_of(v)` lists the elements containing vertex `v`, in increasing element order.
#[derive(Clone, Debug)]
pub struct Incidence {
    by_vertex: Groups,
}

impl Incidence {
    pub fn new<const N: usize>(elements: &[[u32; N]], vertex_count: usize) -> Self {
        // Group the vertex slots (element e's slots are N e .. N e + N) by vertex, then name elements.
        let mut by_vertex = Groups::from_labels(elements.as_flattened(), vertex_count);
        by_vertex.members.iter_mut().for_each(|slot| *slot /= N as u32);
        Incidence { by_vertex }
    }

    #[inline]
    pub fn elements_of(&self, v: u32) -> &[u32] {
        self.by_vertex.group(v as usize)
    }

    /// The largest number of elements sharing one vertex (the valence): a lower bound on the colors.
    pub fn max_valence(&self) -> usize {
        self.by_vertex.sizes().max().unwrap_or(0)
    }
}
