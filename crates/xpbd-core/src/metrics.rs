//! Quantities reported per frame (docs/output-format.md, §7): the XPBD residual r = C(x) + α̃λ over the
//! elastic rows, elastic and kinetic energy, and volume ratios. Shared by every backend so that
//! solvers compare.

use crate::constraint::tet_model::{gather, tet_energy, tet_residual, volume_ratio};
use crate::constraint::{bending, distance};
use crate::fem::shell::{self, Bending, TriangleHinge};
use crate::mesh::Vec3;
use crate::model::{ClothGroup, Model, ShellGroup, TetGroup};
use rayon::prelude::*;
use std::ops::Range;

/// Elements per task of the per-element sums and extrema below. Fixed, so that a sum is taken in the same
/// order on any number of threads (and a model of fewer elements is summed in index order, as in one loop).
const GRAIN: usize = 4096;

/// `f` over consecutive ranges of `GRAIN` of `0..n`, in parallel, the results in range order.
fn by_chunks<R: Send>(n: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    (0..n.div_ceil(GRAIN)).into_par_iter().map(|c| f(c * GRAIN..n.min((c + 1) * GRAIN))).collect()
}

/// ‖C(x) + α̃λ‖₂ over all elastic rows, with α̃ = α/h².
pub fn residual_norm(model: &Model, x: &[Vec3], lambda: &[f64], h: f64) -> f64 {
    let tets: f64 = model.tet_groups.iter().map(|g| tet_group_residual_sq(g, x, lambda, h)).sum();
    let cloth: f64 = model.cloth_groups.iter().map(|g| cloth_group_residual_sq(g, x, lambda, h)).sum();
    (tets + cloth).sqrt()
}

/// Σ r² over the rows of one tet group (a term of [`residual_norm`]).
pub fn tet_group_residual_sq(g: &TetGroup, x: &[Vec3], lambda: &[f64], h: f64) -> f64 {
    let p = g.params(h);
    let k = g.model.rows();
    let chunk_sum = |elements: Range<usize>| {
        let mut rows = [0.0; 6];
        let mut sum = 0.0;
        for e in elements {
            let off = g.lambda_offset + e * k;
            tet_residual(&p, &g.rest[e], &gather(x, &g.tets[e]), &lambda[off..off + k], &mut rows[..k]);
            sum += rows[..k].iter().map(|r| r * r).sum::<f64>();
        }
        sum
    };
    by_chunks(g.tets.len(), chunk_sum).iter().sum()
}

/// Σ r² over the stretch and bending rows of one cloth group (a term of [`residual_norm`]).
pub fn cloth_group_residual_sq(g: &ClothGroup, x: &[Vec3], lambda: &[f64], h: f64) -> f64 {
    let inv_h2 = 1.0 / (h * h);
    let mut sum = 0.0;
    for (i, e) in g.edges.iter().enumerate() {
        let c = distance::distance(&[x[e[0] as usize], x[e[1] as usize]], g.rest_length[i]).0;
        let r = c + g.stretch_compliance * inv_h2 * lambda[g.lambda_offset + i];
        sum += r * r;
    }
    let off = g.lambda_offset + g.edges.len();
    for (i, hinge) in g.hinges.iter().enumerate() {
        let c = bending::bending(&gather(x, hinge), g.rest_angle[i]).0;
        let r = c + g.bending_compliance[i] * inv_h2 * lambda[off + i];
        sum += r * r;
    }
    sum
}

/// Elastic energy: Σ V Ψ(F) over tets (zero at rest), ½ C²/α over compliant cloth rows, and the shells' membrane
/// and bending energies.
pub fn elastic_energy(model: &Model, x: &[Vec3]) -> f64 {
    let mut e = 0.0;
    for g in &model.tet_groups {
        let p = g.params(1.0);
        e += by_chunks(g.tets.len(), |r| r.map(|i| tet_energy(&p, &g.rest[i], &gather(x, &g.tets[i]))).sum::<f64>()).iter().sum::<f64>();
    }
    for g in &model.cloth_groups {
        if g.stretch_compliance > 0.0 {
            e += g.edges.iter().zip(&g.rest_length).map(|(ed, &l)| distance::distance(&[x[ed[0] as usize], x[ed[1] as usize]], l).0.powi(2)).sum::<f64>() * 0.5
                / g.stretch_compliance;
        }
        e += g
            .hinges
            .iter()
            .zip(&g.rest_angle)
            .zip(&g.bending_compliance)
            .filter(|(_, &alpha)| alpha > 0.0)
            .map(|((hi, &a), &alpha)| 0.5 * bending::bending(&gather(x, hi), a).0.powi(2) / alpha)
            .sum::<f64>();
    }
    e + model.shell_groups.iter().map(|g| shell_energy(g, x)).sum::<f64>()
}

/// A shell's membrane and bending energy at `x`, each hinge angle on its principal branch (a fold beyond ±π
/// counts as folding back).
fn shell_energy(g: &ShellGroup, x: &[Vec3]) -> f64 {
    let membrane: f64 = g.triangles.iter().zip(&g.triangle_rest).map(|(t, r)| shell::membrane_state(&g.material, r, &gather(x, t), false).energy).sum();
    let bending: f64 = match g.material.bending {
        Bending::Hinge => {
            let k = g.material.hinge_stiffness();
            g.hinges.iter().zip(&g.hinge_rest).map(|(h, r)| shell::hinge_state(k, r, &gather(x, h), r.rest_angle, false).energy).sum()
        }
        Bending::ShapeOperator => g
            .triangles
            .iter()
            .zip(&g.triangle_hinges)
            .zip(&g.plate_rest)
            .map(|((t, hinges), plate)| {
                let hinges = hinges.map(|h| {
                    h.map(|h| {
                        let r = &g.hinge_rest[h as usize];
                        TriangleHinge { vertices: g.hinges[h as usize], rest_angle: r.rest_angle, previous: r.rest_angle }
                    })
                });
                shell::shape_operator_state(plate, t, &hinges, x, false).energy
            })
            .sum(),
    };
    membrane + bending
}

/// ½ Σ m v².
pub fn kinetic_energy(model: &Model, v: &[Vec3]) -> f64 {
    0.5 * model.mass.iter().zip(v).map(|(m, v)| m * v.norm_squared()).sum::<f64>()
}

/// (min det F over all tets, number of tets with det F ≤ 0). (1, 0) when the scene has no tets.
pub fn volume_stats(model: &Model, x: &[Vec3]) -> (f64, usize) {
    let mut min = f64::INFINITY;
    let mut inverted = 0;
    for g in &model.tet_groups {
        let chunk = |r: Range<usize>| {
            r.map(|i| volume_ratio(&g.rest[i], &gather(x, &g.tets[i]))).fold((f64::INFINITY, 0), |(m, n), j| (m.min(j), n + (j <= 0.0) as usize))
        };
        for (m, n) in by_chunks(g.tets.len(), chunk) {
            min = min.min(m);
            inverted += n;
        }
    }
    (if min.is_finite() { min } else { 1.0 }, inverted)
}

/// Largest relative stretch of a cloth edge, max |‖x_j − x_i‖/L − 1| (MGPBD paper Fig. 14); `None`
/// when the scene has no cloth.
pub fn max_edge_strain(model: &Model, x: &[Vec3]) -> Option<f64> {
    let edges = model.cloth_groups.iter().flat_map(|g| g.edges.iter().zip(&g.rest_length));
    let strain = edges.map(|(e, &l)| ((x[e[1] as usize] - x[e[0] as usize]).norm() / l - 1.0).abs());
    (!model.cloth_groups.is_empty()).then(|| strain.fold(0.0, f64::max))
}

/// Total linear momentum Σ m v.
pub fn linear_momentum(model: &Model, v: &[Vec3]) -> Vec3 {
    model.mass.iter().zip(v).map(|(m, v)| v * *m).sum()
}

/// Total angular momentum about the origin, Σ m x × v.
pub fn angular_momentum(model: &Model, x: &[Vec3], v: &[Vec3]) -> Vec3 {
    model.mass.iter().zip(x.iter().zip(v)).map(|(m, (x, v))| x.cross(v) * *m).sum()
}

/// Current volume of a body's tetrahedra, Σ det F · V.
pub fn body_volume(model: &Model, body: usize, x: &[Vec3]) -> f64 {
    model.tet_groups.iter().filter(|g| g.body == body).flat_map(|g| g.tets.iter().zip(&g.rest)).map(|(t, r)| volume_ratio(r, &gather(x, t)) * r.volume).sum()
}
