//! The stretch-based ordering key of the multi-layer paper (§4.1, Fig. 5): an element's last-substep
//! motion measured in the modal basis of its M⁻¹K, `s_e = Σ_i λ_i c_i²`. The paper keeps it "for
//! comparison purposes" against the strain rate (Eq. 20); docs/multilayer.md ("Choices") gives the
//! definition taken here.
//!
//! Per element, once: K_e, the 12×12 stiffness of the element's energy at its rest shape (the Hessian
//! of StVK at F = I is linear elasticity with the body's Lamé parameters; the stable neo-Hookean
//! parameters are reparametrised so that its rest Hessian is the same), and M_e, the model's lumped
//! masses of its four vertices. `M_e^{-1/2} K_e M_e^{-1/2} = Q Λ Qᵀ`; the six deformation modes (the
//! largest λ) are kept, the six rigid modes (λ = 0 up to round-off) dropped. Per substep: the element's
//! motion with its rotation taken out, `u_e = (y − y_prev)/h` with `y_a = Rᵀ(x_a − x̄)`, R the rotation of
//! the polar decomposition F = RS and x̄ the centroid (so any rigid motion gives u_e = 0 exactly), its
//! M-weighted modal coordinates `c = Qᵀ M_e^{1/2} u_e`, and `s_e = Σ λ_i c_i² = u_eᵀ K_e u_e`.

use crate::constraint::arap;
use crate::constraint::tet::{deformation_gradient, TetRest};
use crate::constraint::tet_model::energy_of;
use crate::fem::element::element_state_unprojected;
use crate::layers::element_history::ElementHistory;
use crate::mesh::Vec3;
use crate::model::Model;
use nalgebra::{SMatrix, SVector, SymmetricEigen};
use rayon::prelude::*;

/// The deformation modes of one element: eigenvalues λ_i of `M^{-1/2} K M^{-1/2}` and the rows
/// `q_iᵀ M^{1/2}` that give the modal coordinates of a nodal motion.
#[derive(Clone, Debug)]
pub struct ElementModes {
    pub lambda: SVector<f64, 6>,
    pub coordinates: SMatrix<f64, 6, 12>,
}

impl ElementModes {
    /// The modes of the 12×12 stiffness `k` with lumped vertex masses `mass`.
    pub fn new(k: &SMatrix<f64, 12, 12>, mass: [f64; 4]) -> Self {
        let sqrt_m = SVector::<f64, 12>::from_fn(|i, _| mass[i / 3].sqrt());
        let a = SMatrix::<f64, 12, 12>::from_fn(|i, j| k[(i, j)] / (sqrt_m[i] * sqrt_m[j]));
        let eig = SymmetricEigen::new(0.5 * (a + a.transpose()));
        let mut by_value: Vec<usize> = (0..12).collect();
        by_value.sort_by(|&i, &j| eig.eigenvalues[j].total_cmp(&eig.eigenvalues[i]));
        let lambda = SVector::<f64, 6>::from_fn(|m, _| eig.eigenvalues[by_value[m]]);
        let coordinates = SMatrix::<f64, 6, 12>::from_fn(|m, i| eig.eigenvectors[(i, by_value[m])] * sqrt_m[i]);
        ElementModes { lambda, coordinates }
    }

    /// `s = Σ λ_i c_i²` with `c = Qᵀ M^{1/2} u` of the nodal motion `u` (node a at 3a..3a+3).
    pub fn stretch(&self, u: &SVector<f64, 12>) -> f64 {
        let c = self.coordinates * u;
        self.lambda.iter().zip(c.iter()).map(|(l, c)| l * c * c).sum()
    }
}

/// The element's shape with its rotation and translation taken out: `Rᵀ(x_a − x̄)`, node a at 3a..3a+3.
pub fn unrotated_shape(x: &[Vec3; 4], rest: &TetRest) -> SVector<f64, 12> {
    let r = arap::rotation(&deformation_gradient(x, &rest.dm_inv));
    let centroid = (x[0] + x[1] + x[2] + x[3]) / 4.0;
    let mut y = SVector::<f64, 12>::zeros();
    for (a, p) in x.iter().enumerate() {
        y.fixed_rows_mut::<3>(3 * a).copy_from(&(r.transpose() * (p - centroid)));
    }
    y
}

/// The modes of every tet (groups in order, as the multi-layer solver numbers them), the unrotated
/// shapes of the previous substep, and the keys they give.
#[derive(Clone, Debug, Default)]
pub struct ModalStretch {
    modes: Vec<ElementModes>,
    /// The unrotated shapes; its `rate` is `s_e` per element after the last [`ModalStretch::update`].
    pub shapes: ElementHistory<SVector<f64, 12>>,
}

impl ModalStretch {
    /// The modes of `model`'s tets at their rest shape (the rest-shape work, done once).
    pub fn new(model: &Model) -> Self {
        let elements = model.tet_groups.iter().flat_map(|g| g.tets.iter().zip(&g.rest).map(move |(t, r)| (g, t, r)));
        let elements: Vec<_> = elements.collect();
        let modes = elements
            .par_iter()
            .map(|(g, t, rest)| {
                let k = element_state_unprojected(energy_of(g.model), g.lame, rest, &t.map(|i| model.rest[i as usize])).stiffness;
                ElementModes::new(&k, t.map(|i| model.mass[i as usize]))
            })
            .collect();
        ModalStretch { modes, shapes: ElementHistory::default() }
    }

    /// Records the unrotated shapes of the tets at positions `x` and sets the keys from their motion since
    /// the previous call, `h` seconds earlier, the elements in parallel.
    pub fn update(&mut self, tets: &[[u32; 4]], rest: &[TetRest], x: &[Vec3], h: f64) {
        let modes = &self.modes;
        self.shapes.record(tets, rest, x, unrotated_shape, |e, now, last| modes[e].stretch(&((now - last) / h)));
    }

    /// Resumes from a checkpoint: the shapes of the tets at `x` and the saved keys `rate`.
    pub fn restore(&mut self, tets: &[[u32; 4]], rest: &[TetRest], x: &[Vec3], rate: &[f64]) {
        self.shapes.resume(tets, rest, x, rate, unrotated_shape);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fem::energy::Energy;
    use crate::layers::strain_rate::StrainRate;
    use crate::material::Lame;
    use nalgebra::{Matrix3, Rotation3};

    fn rest_tet() -> [Vec3; 4] {
        [Vec3::new(0.1, 0.0, 0.0), Vec3::new(1.0, 0.2, 0.0), Vec3::new(0.0, 1.1, 0.1), Vec3::new(0.2, 0.1, 0.9)]
    }

    fn lame() -> Lame {
        Lame { mu: 3.8e5, lambda: 5.8e5 }
    }

    /// The modes of the StVK stiffness at the rest shape `x0`, with unequal vertex masses.
    fn modes(x0: &[Vec3; 4]) -> (SMatrix<f64, 12, 12>, ElementModes, TetRest) {
        let rest = TetRest::new(x0).unwrap();
        let k = element_state_unprojected(Energy::StVK, lame(), &rest, x0).stiffness;
        (k, ElementModes::new(&k, [1.0, 2.5, 0.7, 1.3]), rest)
    }

    /// The key of the motion from `x0` to `x1` over `h`.
    fn key(modes: &ElementModes, rest: &TetRest, x0: &[Vec3; 4], x1: &[Vec3; 4], h: f64) -> (f64, SVector<f64, 12>) {
        let u = (unrotated_shape(x1, rest) - unrotated_shape(x0, rest)) / h;
        (modes.stretch(&u), u)
    }

    #[test]
    fn rigid_motion_scores_zero_and_stretch_scores_its_energy() {
        let x0 = rest_tet();
        let (k, modes, rest) = modes(&x0);
        // The six dropped modes are the rigid ones: λ = 0 up to round-off, well below the kept six.
        assert!(modes.lambda.min() > 1e3 * 1e-9 * modes.lambda.max(), "{:?}", modes.lambda);
        let h = 0.01;
        let stretch = Matrix3::new(1.02, 0.01, 0.0, 0.0, 0.99, 0.0, 0.0, 0.005, 1.0);
        let stretched = x0.map(|p| stretch * p);
        let (s_stretch, u) = key(&modes, &rest, &x0, &stretched, h);
        assert!(s_stretch > 0.0);
        // Σ λ_i c_i² is uᵀKu: the modal basis is an eigenbasis of M^{-1/2} K M^{-1/2}.
        let energy = (u.transpose() * k * u)[0];
        assert!((s_stretch - energy).abs() <= 1e-10 * energy, "{s_stretch} vs {energy}");
        // A translation with a small and with a large rotation, from the stretched shape: 0 to round-off.
        for angle in [1e-3, 0.8] {
            let q = Rotation3::from_scaled_axis(Vec3::new(0.3, 1.0, -0.7).normalize() * angle);
            let moved = stretched.map(|p| q * p + Vec3::new(0.02, -0.01, 0.03));
            let (s_rigid, _) = key(&modes, &rest, &stretched, &moved, h);
            assert!(s_rigid.abs() < 1e-12 * s_stretch, "angle {angle}: {s_rigid} against {s_stretch}");
        }
    }

    /// On congruent elements (one tet translated) the stretch key ranks like the strain rate. It does
    /// not in general: s_e scales with the element's stiffness and volume, the strain rate does not.
    #[test]
    fn agrees_with_the_strain_rate_on_congruent_elements() {
        let x0 = rest_tet();
        let (_, modes, rest) = modes(&x0);
        let h = 0.01;
        let rates: Vec<(f64, f64)> = [0.03, 0.001, 0.02, 0.0, 0.01]
            .iter()
            .map(|&e| {
                let x1 = x0.map(|p| Matrix3::from_diagonal(&Vec3::new(1.0 + e, 1.0 - 0.3 * e, 1.0)) * p);
                let mut strain = StrainRate::default();
                strain.update(&[[0, 1, 2, 3]], &[rest], &x0, h);
                strain.update(&[[0, 1, 2, 3]], &[rest], &x1, h);
                (key(&modes, &rest, &x0, &x1, h).0, strain.rate[0])
            })
            .collect();
        let rank = |k: fn(&(f64, f64)) -> f64| {
            let mut i: Vec<usize> = (0..rates.len()).collect();
            i.sort_by(|&a, &b| k(&rates[a]).total_cmp(&k(&rates[b])));
            i
        };
        assert_eq!(rank(|r| r.0), rank(|r| r.1));
        assert_eq!(rank(|r| r.0), vec![3, 1, 4, 2, 0]);
    }
}
