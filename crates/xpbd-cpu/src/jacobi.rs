//! The Jacobi loop with relaxation: every element is visited from the same positions (in parallel
//! with rayon) and its corrections stored in its own slots; then each vertex moves by the sum of its
//! slots. Each element's corrections and multiplier increments are scaled by s = ω / n_max, with
//! n_max the largest number of constraints on any of its vertices: a uniform scale per constraint keeps
//! Σ m Δx = 0, so linear momentum is conserved (per-vertex averaging would break that), and scaling
//! Δλ alike keeps the multipliers consistent with the motion. Deterministic: no atomics.

use crate::elements::{for_each_family, gather, Family, FamilyVisitor, Local};
use rayon::prelude::*;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// Slot layout, per-element scales and vertex → slot adjacency, built once per model.
pub struct Jacobi {
    /// Correction slots: N per element of every family, in family order.
    slots: Vec<Vec3>,
    /// First slot of each family.
    family_slot: Vec<usize>,
    /// 1 / n_max per element, indexed like the slots' elements (first slot / N).
    inv_count: Vec<f64>,
    /// First element (in `inv_count`) of each family.
    family_element: Vec<usize>,
    /// CSR: slots of vertex v are `adj[start[v]..start[v+1]]`.
    start: Vec<usize>,
    adj: Vec<u32>,
    /// ω: x += ω Σ Δx / n_v.
    relaxation: f64,
}

/// Collects every family's vertex indices in slot order.
struct Layout {
    owners: Vec<u32>,
    family_slot: Vec<usize>,
    element_sizes: Vec<(usize, usize)>,
}

impl FamilyVisitor for Layout {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, _project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        self.family_slot.push(self.owners.len());
        self.element_sizes.push((f.elements.len(), N));
        self.owners.extend(f.elements.iter().flatten());
    }
}

impl Jacobi {
    /// The pass over `model`'s families at substep `h` with relaxation ω = `relaxation`.
    pub fn new(model: &Model, h: f64, relaxation: f64) -> Self {
        let mut l = Layout { owners: vec![], family_slot: vec![], element_sizes: vec![] };
        for_each_family(model, h, &mut l);
        let n = model.vertex_count();
        let mut start = vec![0usize; n + 1];
        for &v in &l.owners {
            start[v as usize + 1] += 1;
        }
        let mut inv_count = Vec::new();
        let mut family_element = Vec::new();
        for (&(count, size), &first) in l.element_sizes.iter().zip(&l.family_slot) {
            family_element.push(inv_count.len());
            inv_count.extend((0..count).map(|e| {
                let verts = &l.owners[first + e * size..first + (e + 1) * size];
                1.0 / verts.iter().map(|&v| start[v as usize + 1]).max().unwrap_or(1) as f64
            }));
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut adj = vec![0u32; l.owners.len()];
        for (slot, &v) in l.owners.iter().enumerate() {
            adj[fill[v as usize]] = slot as u32;
            fill[v as usize] += 1;
        }
        Jacobi { slots: vec![Vec3::zeros(); l.owners.len()], family_slot: l.family_slot, inv_count, family_element, start, adj, relaxation }
    }

    /// One Jacobi iteration over every elastic constraint.
    pub fn iterate(&mut self, model: &Model, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64) {
        let omega = self.relaxation;
        let mut pass = Pass { jacobi: self, x, x_prev, w: &model.inv_mass, lambda, omega };
        for_each_family(model, h, &mut pass);
        let (start, adj, slots) = (&self.start, &self.adj, &self.slots);
        x.par_iter_mut().enumerate().for_each(|(v, xv)| {
            *xv += adj[start[v]..start[v + 1]].iter().map(|&s| slots[s as usize]).sum::<Vec3>();
        });
    }
}

struct Pass<'a> {
    jacobi: &'a mut Jacobi,
    x: &'a [Vec3],
    x_prev: &'a [Vec3],
    w: &'a [f64],
    lambda: &'a mut [f64],
    omega: f64,
}

impl FamilyVisitor for Pass<'_> {
    fn visit<const N: usize, P>(&mut self, f: Family<N>, project: P)
    where
        P: Fn(usize, &Local<N>, &mut [f64]) -> [Vec3; N] + Sync,
    {
        let Family { index: family, elements, damped, rows, lambda_offset, .. } = f;
        let first = self.jacobi.family_slot[family];
        let slots = &mut self.jacobi.slots[first..first + N * elements.len()];
        let first_e = self.jacobi.family_element[family];
        let scale = &self.jacobi.inv_count[first_e..first_e + elements.len()];
        let lam = &mut self.lambda[lambda_offset..lambda_offset + rows * elements.len()];
        let (x, x_prev, w, omega) = (self.x, self.x_prev, self.w, self.omega);
        slots.par_chunks_exact_mut(N).zip(lam.par_chunks_exact_mut(rows)).enumerate().for_each(|(e, (s, l))| {
            let mut old = [0.0; 6];
            old[..rows].copy_from_slice(l);
            let dx = project(e, &gather(&elements[e], |v| x[v], x_prev, w, damped), l);
            let k = omega * scale[e];
            for (slot, d) in s.iter_mut().zip(dx) {
                *slot = d * k;
            }
            for (l, o) in l.iter_mut().zip(&old) {
                *l = o + (*l - o) * k;
            }
        });
    }
}
