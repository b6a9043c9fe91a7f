//! Graphs over constraint elements (block neo-Hookean paper §3–4): two elements are adjacent iff
//! they share a vertex.

pub mod coloring;
pub mod incidence;
