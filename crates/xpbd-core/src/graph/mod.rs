//! Graphs over constraint elements (block neo-Hookean paper §3–4): two elements are adjacent iff
//! they share a vertex (Eq. 11). The element graph, its colorings (Algorithm 2's partitions), greedy
//! K-neighbour clustering (Algorithm 4), the supernodal graph of the clusters (Eq. 13–14) and its
//! coloring (Algorithm 3's partitions), with validity checks and a per-topology cache. Colorings and
//! clusterings share one CSR layout, [`Groups`]; both backends sweep them in a [`Schedule`].

pub mod clustering;
pub mod coloring;
pub mod element_graph;
pub mod groups;
pub mod incidence;
pub mod partition;
pub mod schedule;
pub mod supernodal;

pub use clustering::{greedy_k_neighbour, Clustering};
pub use coloring::{color, greedy, smallest_last_order, ColorOrder, Coloring};
pub use element_graph::Graph;
pub use groups::Groups;
pub use partition::{check_clustered, check_colored, partitions, Partitions};
pub use schedule::Schedule;
pub use supernodal::supernodal_graph;
