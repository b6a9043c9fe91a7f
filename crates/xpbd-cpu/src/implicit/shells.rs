//! The model's shells flattened for the implicit solver (thesis "Adaptive methods for elastic deformation",
//! ch. 4; docs/shells.md): membrane triangles, and bending either per triangle through its discrete shape
//! operator or per hinge, with each hinge's angle at the last step, which keeps the dihedral angles continuous
//! through ±π.

use rayon::prelude::*;
use xpbd_core::constraint::bending::dihedral_angle;
use xpbd_core::constraint::tet_model::gather;
use xpbd_core::fem::shell::{
    hinge_state, membrane_state, shape_operator_state, stencil_nodes, unwrap_angle, Bending, HingeRest, ShapeOperatorRest, ShellMaterial, Stencil,
    TriangleHinge, TriangleRest,
};
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// One shell body's material: its parameters, hinge stiffness k = D/6 and α₁ (s).
#[derive(Clone, Copy, Debug)]
pub struct ShellGroup {
    pub material: ShellMaterial,
    pub hinge_stiffness: f64,
    pub stiffness_damping: f64,
}

/// A triangle bent through its shape operator: its index, its constant Q and the hinge on each of its edges
/// (edge i opposite vertex i; `None` on the border).
#[derive(Clone, Copy, Debug)]
pub struct PlateBending {
    pub triangle: u32,
    pub rest: ShapeOperatorRest,
    pub hinges: [Option<u32>; 3],
}

#[derive(Default)]
pub struct Shells {
    pub triangles: Vec<[u32; 3]>,
    pub triangle_rest: Vec<TriangleRest>,
    pub triangle_group: Vec<u32>,
    pub hinges: Vec<[u32; 4]>,
    pub hinge_rest: Vec<HingeRest>,
    pub hinge_group: Vec<u32>,
    pub groups: Vec<ShellGroup>,
    /// The hinges whose energy is k·w·Δθ² (bodies with `bending = "hinge"`).
    pub bent_hinges: Vec<u32>,
    /// The triangles bent through their shape operator (bodies with `bending = "shape_operator"`).
    pub plates: Vec<PlateBending>,
    /// Each hinge's dihedral angle at the last step, unwrapped (rad).
    pub angle: Vec<f64>,
}

/// The stencils of one assembly, in the order of `triangles`, `bent_hinges` and `plates`.
pub struct ShellStates {
    pub membranes: Vec<Stencil<9>>,
    pub hinges: Vec<Stencil<12>>,
    pub plates: Vec<Stencil<18>>,
}

impl Shells {
    /// The model's shells with their angles at the positions `x`.
    pub fn new(model: &Model, x: &[Vec3]) -> Self {
        let mut s = Shells::default();
        for (gi, g) in model.shell_groups.iter().enumerate() {
            s.groups.push(ShellGroup { material: g.material, hinge_stiffness: g.material.hinge_stiffness(), stiffness_damping: g.rayleigh.stiffness });
            let (first_triangle, first_hinge) = (s.triangles.len() as u32, s.hinges.len() as u32);
            s.triangles.extend_from_slice(&g.triangles);
            s.triangle_rest.extend_from_slice(&g.triangle_rest);
            s.triangle_group.extend(std::iter::repeat_n(gi as u32, g.triangles.len()));
            s.hinges.extend_from_slice(&g.hinges);
            s.hinge_rest.extend_from_slice(&g.hinge_rest);
            s.hinge_group.extend(std::iter::repeat_n(gi as u32, g.hinges.len()));
            match g.material.bending {
                Bending::Hinge => s.bent_hinges.extend(first_hinge..s.hinges.len() as u32),
                Bending::ShapeOperator => {
                    for (i, (t, hinges)) in g.triangles.iter().zip(&g.triangle_hinges).enumerate() {
                        let rest = ShapeOperatorRest::new(&g.material, &gather(&model.rest, t));
                        s.plates.push(PlateBending { triangle: first_triangle + i as u32, rest, hinges: hinges.map(|h| h.map(|h| first_hinge + h)) });
                    }
                }
            }
        }
        s.angle = s.hinge_rest.iter().map(|r| r.rest_angle).collect();
        s.record_angles(x);
        s
    }

    /// The material of triangle `t`.
    pub fn triangle_material(&self, t: usize) -> &ShellGroup {
        &self.groups[self.triangle_group[t] as usize]
    }

    /// The material of hinge `e`.
    pub fn hinge_material(&self, e: usize) -> &ShellGroup {
        &self.groups[self.hinge_group[e] as usize]
    }

    /// A plate's hinges as its stencil reads them.
    fn plate_hinges(&self, p: &PlateBending) -> [Option<TriangleHinge>; 3] {
        p.hinges.map(|h| {
            h.map(|h| {
                let h = h as usize;
                TriangleHinge { vertices: self.hinges[h], rest_angle: self.hinge_rest[h].rest_angle, previous: self.angle[h] }
            })
        })
    }

    /// The nodes of plate `p`'s stencil.
    pub fn plate_nodes(&self, p: &PlateBending) -> ([u32; 6], usize) {
        stencil_nodes(&self.triangles[p.triangle as usize], &self.plate_hinges(p))
    }

    /// Every stencil's nodes: triangles, bent hinges, plates.
    pub fn stencil_nodes(&self) -> Vec<Vec<u32>> {
        let triangles = self.triangles.iter().map(|t| t.to_vec());
        let hinges = self.bent_hinges.iter().map(|&h| self.hinges[h as usize].to_vec());
        let plates = self.plates.iter().map(|p| {
            let (nodes, n) = self.plate_nodes(p);
            nodes[..n].to_vec()
        });
        triangles.chain(hinges).chain(plates).collect()
    }

    /// Energies, forces and PSD-projected stiffnesses of every stencil at `x`, in parallel.
    pub fn states(&self, x: &[Vec3]) -> ShellStates {
        let membranes = (0..self.triangles.len())
            .into_par_iter()
            .map(|t| membrane_state(&self.triangle_material(t).material, &self.triangle_rest[t], &gather(x, &self.triangles[t]), true))
            .collect();
        let hinges = self
            .bent_hinges
            .par_iter()
            .map(|&e| {
                let e = e as usize;
                hinge_state(self.hinge_material(e).hinge_stiffness, &self.hinge_rest[e], &gather(x, &self.hinges[e]), self.angle[e], true)
            })
            .collect();
        let plates =
            self.plates.par_iter().map(|p| shape_operator_state(&p.rest, &self.triangles[p.triangle as usize], &self.plate_hinges(p), x, true)).collect();
        ShellStates { membranes, hinges, plates }
    }

    /// Each hinge's angle at `x`, on the branch nearest its last one.
    pub fn record_angles(&mut self, x: &[Vec3]) {
        for (a, h) in self.angle.iter_mut().zip(&self.hinges) {
            *a = unwrap_angle(dihedral_angle(&gather(x, h)), *a);
        }
    }
}
