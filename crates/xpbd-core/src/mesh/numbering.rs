//! How a mesh file numbers its tetrahedra, so that messages name an element as the file does: Gmsh's
//! element tags, else the 1-based position among the file's (or generator's) tetrahedra.

/// The file's numbers of a tet mesh's elements, in the mesh's order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Numbering {
    /// Gmsh element tags; `None` numbers by 1-based position.
    tags: Option<Vec<i64>>,
}

impl Numbering {
    /// Gmsh's element tags of the tetrahedra, in the order they were read.
    pub fn gmsh(tags: Vec<i64>) -> Self {
        Numbering { tags: Some(tags) }
    }

    /// Tetrahedron `e` (0-based, in the mesh) as the file numbers it: `tetrahedron 3` (1-based) or
    /// `tetrahedron with Gmsh element tag 17`.
    pub fn tet(&self, e: usize) -> String {
        match self.tags.as_ref().and_then(|t| t.get(e)) {
            Some(tag) => format!("tetrahedron with Gmsh element tag {tag}"),
            None => format!("tetrahedron {}", e + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_gmsh_tags_are_kept() {
        assert_eq!(Numbering::default().tet(0), "tetrahedron 1");
        assert_eq!(Numbering::gmsh(vec![17, 40]).tet(1), "tetrahedron with Gmsh element tag 40");
    }
}
