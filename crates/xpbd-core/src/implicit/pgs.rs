//! Projected Gauss-Seidel on the contact Delassus system (thesis "Adaptive methods for elastic deformation",
//! §3.3.3, Eq. 3.13–3.15) with compliance γ on the normal rows: each contact has three rows (normal, two
//! tangents); the normal row solves H_ii λ_i + Σ_{j≠i} H_ij λ_j + b_i + γ λ_i = 0, a tangent row the same without
//! γ, then each is clamped: λ_n ≥ 0, |λ_t| ≤ μ λ_n per tangent (a box cone). At rest with b_n = k_b Φ (Φ < 0
//! penetrating) the normal row carries λ_n = (k_b/γ)|Φ| whatever H is, so a rigid and an elastic body resting on
//! the same contacts carry the same normal forces.
//!
//! The tangent rows have no compliance, although the thesis writes its regularised update for every row: with γ a
//! sticking contact slides at −γλ_t, so static friction creeps, and at rest the only fixed point of a rigid body
//! (whose contacts all move with one rigid velocity) is λ_t ≈ 0, while the elastic body resting on the same
//! contacts holds its Poisson bulge with tangential impulses of up to a third of λ_n. The oracle then saw the
//! unbalanced bulge at every contact vertex of a body that had just rigidified, and a resting soft ball was made
//! elastic and rigid again every four steps. Without γ a rigid body's tangential impulses, which any balanced
//! set satisfies, stay at their warm start: the elastic body's (the thesis's warm-start requirement, §3.3.3).
//!
//! H = J A⁻¹ Jᵀ is applied either as a dense matrix ([`DenseDelassus`]) or through Y = A⁻¹ Jᵀ and the running
//! velocity change Δẋ = Y λ ([`MappedDelassus`]), whichever is smaller: m² against n·m for m rows and n DOFs.

/// H as the iteration reads it.
pub trait Delassus {
    /// H_ii.
    fn diagonal(&self, i: usize) -> f64;
    /// (H λ)_i.
    fn product(&self, i: usize, lambda: &[f64]) -> f64;
    /// λ_i changed by `delta`.
    fn changed(&mut self, i: usize, delta: f64);
}

/// H stored dense, row-major (m × m).
pub struct DenseDelassus<'a> {
    h: &'a [f64],
    m: usize,
}

impl<'a> DenseDelassus<'a> {
    pub fn new(h: &'a [f64], m: usize) -> Self {
        debug_assert_eq!(h.len(), m * m);
        DenseDelassus { h, m }
    }
}

impl Delassus for DenseDelassus<'_> {
    fn diagonal(&self, i: usize) -> f64 {
        self.h[i * self.m + i]
    }
    fn product(&self, i: usize, lambda: &[f64]) -> f64 {
        self.h[i * self.m..(i + 1) * self.m].iter().zip(lambda).map(|(a, l)| a * l).sum()
    }
    fn changed(&mut self, _: usize, _: f64) {}
}

/// H = J Y with the rows of J sparse, Y = A⁻¹ Jᵀ dense (n × m, column-major), and the velocity change
/// Δẋ = Y λ kept up to date.
pub struct MappedDelassus<'a> {
    rows: &'a [Vec<(usize, f64)>],
    y: &'a [f64],
    n: usize,
    diagonal: Vec<f64>,
    /// Δẋ = Y λ.
    pub velocity: Vec<f64>,
}

impl<'a> MappedDelassus<'a> {
    /// With Δẋ = Y λ for the warm start `lambda`.
    pub fn new(rows: &'a [Vec<(usize, f64)>], y: &'a [f64], n: usize, lambda: &[f64]) -> Self {
        let column = |i: usize| &y[i * n..(i + 1) * n];
        let diagonal = rows.iter().enumerate().map(|(i, r)| r.iter().map(|&(d, c)| c * column(i)[d]).sum()).collect();
        let mut velocity = vec![0.0; n];
        for (i, &l) in lambda.iter().enumerate().filter(|(_, l)| **l != 0.0) {
            velocity.iter_mut().zip(column(i)).for_each(|(v, yi)| *v += yi * l);
        }
        MappedDelassus { rows, y, n, diagonal, velocity }
    }
}

impl Delassus for MappedDelassus<'_> {
    fn diagonal(&self, i: usize) -> f64 {
        self.diagonal[i]
    }
    fn product(&self, i: usize, _: &[f64]) -> f64 {
        self.rows[i].iter().map(|&(d, c)| c * self.velocity[d]).sum()
    }
    fn changed(&mut self, i: usize, delta: f64) {
        let column = &self.y[i * self.n..(i + 1) * self.n];
        self.velocity.iter_mut().zip(column).for_each(|(v, yi)| *v += yi * delta);
    }
}

/// Solves for `lambda` (warm start in, solution out) given `h`, `b` (3m), the friction coefficient of each of
/// the m contacts and the compliance of the normal rows, for at most `sweeps` sweeps, stopping early once a sweep changes no
/// impulse by more than `tolerance` times the largest. Returns the sweeps run.
pub fn solve(h: &mut impl Delassus, b: &[f64], mu: &[f64], compliance: f64, sweeps: usize, tolerance: f64, lambda: &mut [f64]) -> usize {
    debug_assert_eq!((lambda.len(), 3 * mu.len()), (b.len(), b.len()));
    for sweep in 1..=sweeps {
        let (mut change, mut largest) = (0.0f64, 0.0f64);
        for (c, &mu_c) in mu.iter().enumerate() {
            for k in 0..3 {
                let i = 3 * c + k;
                let d = h.diagonal(i);
                let new = if k == 0 {
                    ((d * lambda[i] - (h.product(i, lambda) + b[i])) / (d + compliance)).max(0.0)
                } else {
                    // H_ii = 0: the row moves nothing (no free DOF), so it carries nothing.
                    let bound = mu_c * lambda[3 * c];
                    if d > 0.0 {
                        (lambda[i] - (h.product(i, lambda) + b[i]) / d).clamp(-bound, bound)
                    } else {
                        0.0
                    }
                };
                let delta = new - lambda[i];
                if delta != 0.0 {
                    h.changed(i, delta);
                    lambda[i] = new;
                }
                change = change.max(delta.abs());
                largest = largest.max(new.abs());
            }
        }
        if change <= tolerance * largest {
            return sweep;
        }
    }
    sweeps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One contact on a free point mass m: H = I/m. Pressed in (b_n = k_b Φ < 0, at rest) it settles at
    /// λ_n = −b_n/(1/m + γ); a sliding velocity below μλ_n/m is stopped exactly (no compliance on the tangents),
    /// above it slides at the limit.
    #[test]
    fn one_contact_matches_the_closed_form() {
        let (m, gamma) = (2.0, 1e-3);
        let h = [1.0 / m, 0.0, 0.0, 0.0, 1.0 / m, 0.0, 0.0, 0.0, 1.0 / m];
        let mut l = [0.0; 3];
        solve(&mut DenseDelassus::new(&h, 3), &[-0.5, 0.0, 0.0], &[0.3], gamma, 3, 0.0, &mut l);
        assert!((l[0] - 0.5 / (1.0 / m + gamma)).abs() < 1e-12);
        let mut stick = [0.0; 3];
        solve(&mut DenseDelassus::new(&h, 3), &[-0.5, 0.01, 0.0], &[0.3], gamma, 3, 0.0, &mut stick);
        assert!((stick[1] + 0.01 * m).abs() < 1e-12, "{stick:?}");
        let mut slide = [0.0; 3];
        solve(&mut DenseDelassus::new(&h, 3), &[-0.5, 5.0, 0.0], &[0.3], gamma, 3, 0.0, &mut slide);
        assert!((slide[1] + 0.3 * slide[0]).abs() < 1e-12, "{slide:?}");
    }

    /// A separating contact (b_n > 0) carries nothing, whatever the warm start.
    #[test]
    fn separating_contacts_let_go() {
        let h = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
        let mut l = [3.0, 1.0, -1.0];
        solve(&mut DenseDelassus::new(&h, 3), &[0.2, 0.0, 0.0], &[0.5], 1e-3, 2, 0.0, &mut l);
        assert_eq!(l, [0.0; 3]);
    }

    /// The mapped form iterates exactly as the dense one: two contacts sharing the DOFs of a 4-DOF system
    /// with A = diag(1, 2, 3, 4), J with two nonzeros per row; and its Δẋ is Y λ.
    #[test]
    fn mapped_and_dense_forms_agree() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let rows: Vec<Vec<(usize, f64)>> = vec![
            vec![(0, 1.0), (1, 0.5)],
            vec![(1, 1.0), (2, -0.3)],
            vec![(2, 1.0), (3, 0.2)],
            vec![(0, -0.4), (3, 1.0)],
            vec![(1, 0.7), (3, 0.1)],
            vec![(0, 0.2), (2, 0.9)],
        ];
        let (n, m) = (4, rows.len());
        let mut y = vec![0.0; n * m];
        for (i, r) in rows.iter().enumerate() {
            for &(d, c) in r {
                y[i * n + d] += c / a[d];
            }
        }
        let mut h = vec![0.0; m * m];
        for i in 0..m {
            for j in 0..m {
                h[i * m + j] = rows[i].iter().map(|&(d, c)| c * y[j * n + d]).sum();
            }
        }
        let b = [-0.3, 0.1, -0.05, -0.2, 0.4, 0.0];
        let (mut dense, mut mapped) = ([0.01; 6], [0.01; 6]);
        let sweeps = solve(&mut DenseDelassus::new(&h, m), &b, &[0.4, 0.2], 1e-3, 30, 0.0, &mut dense);
        let mut op = MappedDelassus::new(&rows, &y, n, &mapped);
        solve(&mut op, &b, &[0.4, 0.2], 1e-3, 30, 0.0, &mut mapped);
        assert_eq!(sweeps, 30);
        for (d, p) in dense.iter().zip(&mapped) {
            assert!((d - p).abs() < 1e-12, "{dense:?} vs {mapped:?}");
        }
        for d in 0..n {
            let expected: f64 = (0..m).map(|i| y[i * n + d] * mapped[i]).sum();
            assert!((op.velocity[d] - expected).abs() < 1e-12);
        }
    }
}
