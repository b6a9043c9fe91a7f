//! The Jacobi loop with relaxation: every element is visited from the same positions (in parallel
//! with rayon), its corrections stored in its own slots, then each vertex moves by
//! ω · (sum of its corrections) / (number of constraints touching it). Deterministic: no atomics.

use crate::elements;
use rayon::prelude::*;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// Slot layout and vertex → slot adjacency, built once per model.
pub struct Jacobi {
    /// Correction slots: 4 per tet, 2 per edge, 4 per hinge, in model order.
    slots: Vec<Vec3>,
    /// CSR: slots of vertex v are `adj[start[v]..start[v+1]]`.
    start: Vec<usize>,
    adj: Vec<u32>,
}

impl Jacobi {
    pub fn new(model: &Model) -> Self {
        let mut owners: Vec<u32> = Vec::new();
        for g in &model.tet_groups {
            owners.extend(g.tets.iter().flatten());
        }
        for g in &model.cloth_groups {
            owners.extend(g.edges.iter().flatten());
            owners.extend(g.hinges.iter().flatten());
        }
        let n = model.vertex_count();
        let mut start = vec![0usize; n + 1];
        for &v in &owners {
            start[v as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; owners.len()];
        for (slot, &v) in owners.iter().enumerate() {
            adj[fill[v as usize]] = slot as u32;
            fill[v as usize] += 1;
        }
        Jacobi { slots: vec![Vec3::zeros(); owners.len()], start, adj }
    }

    /// One Jacobi iteration over every elastic constraint.
    pub fn iterate(&mut self, model: &Model, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64, omega: f64) {
        let w = &model.inv_mass;
        let xr: &[Vec3] = x;
        let mut slots: &mut [Vec3] = &mut self.slots;
        for g in &model.tet_groups {
            let p = g.params(h);
            let (mine, rest) = slots.split_at_mut(4 * g.tets.len());
            slots = rest;
            let lam = &mut lambda[g.lambda_offset..g.lambda_offset + g.rows()];
            mine.par_chunks_exact_mut(4).zip(lam.par_chunks_exact_mut(g.model.rows())).enumerate().for_each(|(e, (s, l))| {
                s.copy_from_slice(&elements::tet(&p, &g.rest[e], &g.tets[e], xr, x_prev, w, l));
            });
        }
        for g in &model.cloth_groups {
            let (stretch, bend) = elements::cloth_params(g, h);
            let (se, rest) = slots.split_at_mut(2 * g.edges.len());
            let (sh, rest) = rest.split_at_mut(4 * g.hinges.len());
            slots = rest;
            let (le, lh) = lambda[g.lambda_offset..g.lambda_offset + g.rows()].split_at_mut(g.edges.len());
            se.par_chunks_exact_mut(2).zip(le.par_iter_mut()).enumerate().for_each(|(i, (s, l))| {
                s.copy_from_slice(&elements::edge(g, &stretch, i, xr, x_prev, w, l));
            });
            sh.par_chunks_exact_mut(4).zip(lh.par_iter_mut()).enumerate().for_each(|(i, (s, l))| {
                s.copy_from_slice(&elements::hinge(g, &bend, i, xr, x_prev, w, l));
            });
        }
        let (start, adj, slots) = (&self.start, &self.adj, &self.slots);
        x.par_iter_mut().enumerate().for_each(|(v, xv)| {
            let r = start[v]..start[v + 1];
            if !r.is_empty() {
                let sum: Vec3 = adj[r.clone()].iter().map(|&s| slots[s as usize]).sum();
                *xv += sum * (omega / r.len() as f64);
            }
        });
    }
}
