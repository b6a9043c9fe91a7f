//! Mass splitting for the Jacobi sweeps of both backends (docs/solver-notes.md): a vertex touched by n_v
//! constraints lends each of them an n_v-th of its mass, so each element solves with the inverse masses n_v w_v
//! and each vertex moves by 1/n_v of its share of every correction. One definition, so that the CPU's
//! `jacobi.rs` and the CUDA layout agree to the bit.

use crate::graph::groups::Groups;

/// Per vertex: n_v w_v and 1 / n_v (0 where no constraint touches the vertex).
#[derive(Clone, Debug, PartialEq)]
pub struct MassSplit {
    pub split_inv_mass: Vec<f64>,
    pub inv_count: Vec<f64>,
}

impl MassSplit {
    /// From the constraint slots at each vertex (`slots.group(v)`: one slot per constraint on v) and the
    /// inverse masses.
    pub fn new(slots: &Groups, inv_mass: &[f64]) -> Self {
        let counts: Vec<usize> = slots.sizes().collect();
        MassSplit {
            split_inv_mass: counts.iter().zip(inv_mass).map(|(&n, w)| n as f64 * w).collect(),
            inv_count: counts.iter().map(|&n| if n > 0 { 1.0 / n as f64 } else { 0.0 }).collect(),
        }
    }
}
