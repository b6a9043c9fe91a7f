//! The model's tetrahedra flattened for the implicit solvers: connectivity, rest data, and per element its
//! energy, Lamé parameters and stiffness-proportional Rayleigh coefficient; per vertex the mass-proportional
//! one (lumped like the mass, thesis §3.3.1).

use nalgebra::Matrix3;
use rayon::prelude::*;
use xpbd_core::constraint::tet::deformation_gradient;
use xpbd_core::constraint::tet::TetRest;
use xpbd_core::constraint::tet_model::{energy_of, gather};
use xpbd_core::fem::element::{element_forces, element_state, stiffness_product, ElementState};
use xpbd_core::fem::energy::green_strain;
use xpbd_core::fem::energy::Energy;
use xpbd_core::material::Lame;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

pub struct Elements {
    pub tets: Vec<[u32; 4]>,
    pub rest: Vec<TetRest>,
    /// Index into `groups`.
    pub group: Vec<u32>,
    pub groups: Vec<Material>,
    /// α₀ of each vertex's body (1/s).
    pub mass_damping: Vec<f64>,
}

#[derive(Clone, Copy, Debug)]
pub struct Material {
    pub energy: Energy,
    pub lame: Lame,
    /// α₁ (s).
    pub stiffness_damping: f64,
}

impl Elements {
    pub fn new(model: &Model) -> Self {
        let mut e = Elements { tets: Vec::new(), rest: Vec::new(), group: Vec::new(), groups: Vec::new(), mass_damping: vec![0.0; model.vertex_count()] };
        for (gi, g) in model.tet_groups.iter().enumerate() {
            e.groups.push(Material { energy: energy_of(g.model), lame: g.lame, stiffness_damping: g.rayleigh.stiffness });
            e.tets.extend_from_slice(&g.tets);
            e.rest.extend_from_slice(&g.rest);
            e.group.extend(std::iter::repeat_n(gi as u32, g.tets.len()));
            for v in model.bodies[g.body].vertices.clone() {
                e.mass_damping[v] = g.rayleigh.mass;
            }
        }
        for g in &model.shell_groups {
            e.mass_damping[model.bodies[g.body].vertices.clone()].fill(g.rayleigh.mass);
        }
        e
    }

    pub fn len(&self) -> usize {
        self.tets.len()
    }

    pub fn material(&self, e: usize) -> &Material {
        &self.groups[self.group[e] as usize]
    }

    /// Green strain E = ½(FᵀF − I) of element `e` with its nodes at `xe` (Eq. 3.17's E).
    pub fn strain(&self, e: usize, xe: &[Vec3; 4]) -> Matrix3<f64> {
        green_strain(&deformation_gradient(xe, &self.rest[e].dm_inv))
    }

    /// Nodal elastic forces of element `e` at its nodes' positions `xe`.
    pub fn forces(&self, e: usize, xe: &[Vec3; 4]) -> [Vec3; 4] {
        let m = self.material(e);
        element_forces(m.energy, m.lame, &self.rest[e], xe)
    }

    /// K·d of element `e` at `xe` for nodal directions `d` (matrix-free).
    pub fn stiffness_product(&self, e: usize, xe: &[Vec3; 4], d: &[Vec3; 4]) -> [Vec3; 4] {
        let m = self.material(e);
        stiffness_product(m.energy, m.lame, &self.rest[e], xe, d)
    }

    /// Energy, forces and (projected) stiffness of each listed element at positions `x`, in parallel.
    pub fn states(&self, list: &[u32], x: &[Vec3]) -> Vec<ElementState> {
        list.par_iter()
            .map(|&e| {
                let m = self.material(e as usize);
                element_state(m.energy, m.lame, &self.rest[e as usize], &gather(x, &self.tets[e as usize]))
            })
            .collect()
    }
}
