//! One visit of one constraint element, returning its position corrections without applying them.
//! Gauss-Seidel applies them at once; Jacobi accumulates them per vertex.

use xpbd_core::constraint::projection::{project_block, BlockParams};
use xpbd_core::constraint::tet::TetRest;
use xpbd_core::constraint::tet_model::{gather, project_tet, TetParams};
use xpbd_core::constraint::{bending, distance};
use xpbd_core::mesh::Vec3;
use xpbd_core::model::ClothGroup;

/// Corrections of one tetrahedron (its multipliers `l` are updated).
#[inline(always)]
pub fn tet(p: &TetParams, rest: &TetRest, t: &[u32; 4], x: &[Vec3], x_prev: &[Vec3], inv_mass: &[f64], l: &mut [f64]) -> [Vec3; 4] {
    let old = gather(x, t);
    let mut xs = old;
    // x_prev is only read by damping: skip the four scattered loads without it.
    let xp = if p.damping > 0.0 { gather(x_prev, t) } else { old };
    project_tet(p, rest, &gather(inv_mass, t), &mut xs, &xp, l);
    [xs[0] - old[0], xs[1] - old[1], xs[2] - old[2], xs[3] - old[3]]
}

/// Corrections of cloth edge `i`.
#[inline(always)]
pub fn edge(g: &ClothGroup, bp: &BlockParams<1>, i: usize, x: &[Vec3], x_prev: &[Vec3], inv_mass: &[f64], l: &mut f64) -> [Vec3; 2] {
    let e = g.edges[i];
    let (a, b) = (e[0] as usize, e[1] as usize);
    let xs = [x[a], x[b]];
    let (c, grad) = distance::distance(&xs, g.rest_length[i]);
    let disp = [xs[0] - x_prev[a], xs[1] - x_prev[b]];
    let mut lam = [*l];
    match project_block(&[c], &[grad], &[inv_mass[a], inv_mass[b]], bp, &disp, &mut lam) {
        Some(dx) => {
            *l = lam[0];
            dx
        }
        None => [Vec3::zeros(); 2],
    }
}

/// Corrections of cloth hinge `i`.
#[inline(always)]
pub fn hinge(g: &ClothGroup, bp: &BlockParams<1>, i: usize, x: &[Vec3], x_prev: &[Vec3], inv_mass: &[f64], l: &mut f64) -> [Vec3; 4] {
    let hi = &g.hinges[i];
    let xs = gather(x, hi);
    let (c, grad) = bending::bending(&xs, g.rest_angle[i]);
    let xp = gather(x_prev, hi);
    let disp = [xs[0] - xp[0], xs[1] - xp[1], xs[2] - xp[2], xs[3] - xp[3]];
    let mut lam = [*l];
    match project_block(&[c], &[grad], &gather(inv_mass, hi), bp, &disp, &mut lam) {
        Some(dx) => {
            *l = lam[0];
            dx
        }
        None => [Vec3::zeros(); 4],
    }
}

/// Compliance parameters of a cloth group's edges and hinges for substep h.
pub fn cloth_params(g: &ClothGroup, h: f64) -> (BlockParams<1>, BlockParams<1>) {
    (BlockParams::diagonal([g.stretch_compliance], g.damping, h), BlockParams::diagonal([g.bending_compliance], g.damping, h))
}
