//! The serial Gauss-Seidel reference loop (XPBD Algorithm 1): every element in index order, each
//! update seen by the next.

use crate::elements;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// One iteration over every elastic constraint.
pub fn iterate(model: &Model, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64) {
    let w = &model.inv_mass;
    for g in &model.tet_groups {
        let p = g.params(h);
        let lambda = &mut lambda[g.lambda_offset..g.lambda_offset + g.rows()];
        for ((t, rest), l) in g.tets.iter().zip(&g.rest).zip(lambda.chunks_exact_mut(g.model.rows())) {
            scatter(x, t, elements::tet(&p, rest, t, x, x_prev, w, l));
        }
    }
    for g in &model.cloth_groups {
        let (stretch, bend) = elements::cloth_params(g, h);
        let (le, lh) = lambda[g.lambda_offset..g.lambda_offset + g.rows()].split_at_mut(g.edges.len());
        for (i, l) in le.iter_mut().enumerate() {
            scatter(x, &g.edges[i], elements::edge(g, &stretch, i, x, x_prev, w, l));
        }
        for (i, l) in lh.iter_mut().enumerate() {
            scatter(x, &g.hinges[i], elements::hinge(g, &bend, i, x, x_prev, w, l));
        }
    }
}

#[inline(always)]
fn scatter<const N: usize>(x: &mut [Vec3], idx: &[u32; N], dx: [Vec3; N]) {
    for n in 0..N {
        x[idx[n] as usize] += dx[n];
    }
}
