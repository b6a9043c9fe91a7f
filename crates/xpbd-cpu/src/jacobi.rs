//! The Jacobi loop with relaxation: every element is visited from the same positions (in parallel
//! with rayon) and its corrections stored in its own slots; then each vertex moves by the sum of its
//! slots. Each element's corrections and multiplier increments are scaled by s = ω / n_max, with
//! n_max the largest number of constraints on any of its vertices: a uniform scale per constraint keeps
//! Σ m Δx = 0, so linear momentum is conserved (per-vertex averaging would break that), and scaling
//! Δλ alike keeps the multipliers consistent with the motion. Deterministic: no atomics.

use crate::elements;
use rayon::prelude::*;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// Slot layout, per-element scales and vertex → slot adjacency, built once per model.
pub struct Jacobi {
    /// Correction slots: 4 per tet, 2 per edge, 4 per hinge, in model order.
    slots: Vec<Vec3>,
    /// 1 / n_max per element, in the same order as the slots' elements.
    inv_count: Vec<f64>,
    /// CSR: slots of vertex v are `adj[start[v]..start[v+1]]`.
    start: Vec<usize>,
    adj: Vec<u32>,
}

impl Jacobi {
    pub fn new(model: &Model) -> Self {
        let mut elements: Vec<&[u32]> = Vec::new();
        for g in &model.tet_groups {
            elements.extend(g.tets.iter().map(|t| &t[..]));
        }
        for g in &model.cloth_groups {
            elements.extend(g.edges.iter().map(|e| &e[..]));
            elements.extend(g.hinges.iter().map(|h| &h[..]));
        }
        let n = model.vertex_count();
        let mut start = vec![0usize; n + 1];
        for &v in elements.iter().copied().flatten() {
            start[v as usize + 1] += 1;
        }
        let inv_count = elements.iter().map(|e| 1.0 / e.iter().map(|&v| start[v as usize + 1]).max().unwrap_or(1) as f64).collect();
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; start[n]];
        for (slot, &v) in elements.iter().copied().flatten().enumerate() {
            adj[fill[v as usize]] = slot as u32;
            fill[v as usize] += 1;
        }
        Jacobi { slots: vec![Vec3::zeros(); start[n]], inv_count, start, adj }
    }

    /// One Jacobi iteration over every elastic constraint.
    pub fn iterate(&mut self, model: &Model, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64, omega: f64) {
        let w = &model.inv_mass;
        let xr: &[Vec3] = x;
        let mut slots: &mut [Vec3] = &mut self.slots;
        let mut scales: &[f64] = &self.inv_count;
        // Stores one element's scaled corrections and scales its multiplier increments.
        fn store<const N: usize>(s: &mut [Vec3], l: &mut [f64], l_old: &[f64], dx: [Vec3; N], scale: f64) {
            for (slot, d) in s.iter_mut().zip(dx) {
                *slot = d * scale;
            }
            for (l, o) in l.iter_mut().zip(l_old) {
                *l = o + (*l - o) * scale;
            }
        }
        for g in &model.tet_groups {
            let p = g.params(h);
            let k = g.model.rows();
            let (mine, rest) = slots.split_at_mut(4 * g.tets.len());
            let (sc, rest_sc) = scales.split_at(g.tets.len());
            (slots, scales) = (rest, rest_sc);
            let lam = &mut lambda[g.lambda_offset..g.lambda_offset + g.rows()];
            mine.par_chunks_exact_mut(4).zip(lam.par_chunks_exact_mut(k)).enumerate().for_each(|(e, (s, l))| {
                let mut old = [0.0; 6];
                old[..k].copy_from_slice(l);
                let dx = elements::tet(&p, &g.rest[e], &g.tets[e], xr, x_prev, w, l);
                store(s, l, &old[..k], dx, omega * sc[e]);
            });
        }
        for g in &model.cloth_groups {
            let (stretch, bend) = elements::cloth_params(g, h);
            let (se, rest) = slots.split_at_mut(2 * g.edges.len());
            let (sh, rest) = rest.split_at_mut(4 * g.hinges.len());
            let (sce, rest_sc) = scales.split_at(g.edges.len());
            let (sch, rest_sc) = rest_sc.split_at(g.hinges.len());
            (slots, scales) = (rest, rest_sc);
            let (le, lh) = lambda[g.lambda_offset..g.lambda_offset + g.rows()].split_at_mut(g.edges.len());
            se.par_chunks_exact_mut(2).zip(le.par_iter_mut()).enumerate().for_each(|(i, (s, l))| {
                let old = *l;
                let dx = elements::edge(g, &stretch, i, xr, x_prev, w, l);
                store(s, std::slice::from_mut(l), &[old], dx, omega * sce[i]);
            });
            sh.par_chunks_exact_mut(4).zip(lh.par_iter_mut()).enumerate().for_each(|(i, (s, l))| {
                let old = *l;
                let dx = elements::hinge(g, &bend, i, xr, x_prev, w, l);
                store(s, std::slice::from_mut(l), &[old], dx, omega * sch[i]);
            });
        }
        let (start, adj, slots) = (&self.start, &self.adj, &self.slots);
        x.par_iter_mut().enumerate().for_each(|(v, xv)| {
            *xv += adj[start[v]..start[v + 1]].iter().map(|&s| slots[s as usize]).sum::<Vec3>();
        });
    }
}
