//! The model's shells flattened for the implicit solver (thesis "Adaptive methods for elastic deformation",
//! ch. 4; docs/shells.md): membrane triangles, and bending either per triangle through its discrete shape
//! operator or per hinge, with each hinge's angle at the last step, which keeps the dihedral angles continuous
//! through ±π, and its discrete curvature κ = 2θ/h̄ for the rigidification test (Eq. 4.10).

use rayon::prelude::*;
use xpbd_core::constraint::bending::dihedral_angle;
use xpbd_core::constraint::strain_limit::{self, StrainLimit};
use xpbd_core::constraint::tet_model::gather;
use xpbd_core::fem::shell::{
    hinge_state, membrane_state, shape_operator_state, stencil_nodes, unwrap_angle, Bending, HingeRest, ShapeOperatorRest, ShellMaterial, Stencil,
    TriangleHinge, TriangleRest,
};
use xpbd_core::mesh::bvh::Aabb;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;

/// One shell body's material: its parameters, hinge stiffness k = D/6, α₁ (s) and rest diameter y (m, the
/// bounding-box diagonal of its rest vertices: Eq. 4.20's y).
#[derive(Clone, Copy, Debug)]
pub struct ShellGroup {
    pub material: ShellMaterial,
    pub hinge_stiffness: f64,
    pub stiffness_damping: f64,
    pub diameter: f64,
    pub strain_limit: Option<StrainLimit>,
}

/// A triangle bent through its shape operator: its index and its constant Q.
#[derive(Clone, Copy, Debug)]
pub struct PlateBending {
    pub triangle: u32,
    pub rest: ShapeOperatorRest,
}

#[derive(Default)]
pub struct Shells {
    pub triangles: Vec<[u32; 3]>,
    pub triangle_rest: Vec<TriangleRest>,
    pub triangle_group: Vec<u32>,
    /// The hinge on each triangle's edge i (opposite vertex i); `None` on the border.
    pub triangle_hinges: Vec<[Option<u32>; 3]>,
    pub hinges: Vec<[u32; 4]>,
    pub hinge_rest: Vec<HingeRest>,
    pub hinge_group: Vec<u32>,
    /// 2/h̄ = 2‖ē‖/Ā of each hinge: κ = 2θ/h̄ (Eq. 4.10), 1/m.
    pub curvature_scale: Vec<f64>,
    pub groups: Vec<ShellGroup>,
    /// The hinges whose energy is k·w·Δθ² (bodies with `bending = "hinge"`).
    pub bent_hinges: Vec<u32>,
    /// The triangles bent through their shape operator (bodies with `bending = "shape_operator"`).
    pub plates: Vec<PlateBending>,
    /// Each hinge's dihedral angle at the last step, unwrapped (rad).
    pub angle: Vec<f64>,
}

/// The stencils an assembly evaluates: indices into `triangles`, `bent_hinges` and `plates`.
#[derive(Clone, Debug, Default)]
pub struct ActiveStencils {
    pub membranes: Vec<u32>,
    pub hinges: Vec<u32>,
    pub plates: Vec<u32>,
}

/// The stencils of one evaluation, in the order of an [`ActiveStencils`].
pub struct ShellStates {
    pub membranes: Vec<Stencil<9>>,
    pub hinges: Vec<Stencil<12>>,
    pub plates: Vec<Stencil<18>>,
}

impl ShellStates {
    pub fn energy(&self) -> f64 {
        self.membranes.iter().map(|s| s.energy).sum::<f64>()
            + self.hinges.iter().map(|s| s.energy).sum::<f64>()
            + self.plates.iter().map(|s| s.energy).sum::<f64>()
    }
}

impl Shells {
    /// The model's shells with their angles at the positions `x`.
    pub fn new(model: &Model, x: &[Vec3]) -> Self {
        let mut s = Shells::default();
        for (gi, g) in model.shell_groups.iter().enumerate() {
            let bounds = Aabb::around(&model.rest[model.bodies[g.body].vertices.clone()]);
            s.groups.push(ShellGroup {
                material: g.material,
                hinge_stiffness: g.material.hinge_stiffness(),
                stiffness_damping: g.rayleigh.stiffness,
                diameter: (bounds.max - bounds.min).norm(),
                strain_limit: g.strain_limit,
            });
            let (first_triangle, first_hinge) = (s.triangles.len() as u32, s.hinges.len() as u32);
            s.triangles.extend_from_slice(&g.triangles);
            s.triangle_rest.extend_from_slice(&g.triangle_rest);
            s.triangle_group.extend(std::iter::repeat_n(gi as u32, g.triangles.len()));
            s.triangle_hinges.extend(g.triangle_hinges.iter().map(|h| h.map(|h| h.map(|h| first_hinge + h))));
            s.hinges.extend_from_slice(&g.hinges);
            s.hinge_rest.extend_from_slice(&g.hinge_rest);
            s.hinge_group.extend(std::iter::repeat_n(gi as u32, g.hinges.len()));
            s.curvature_scale
                .extend(g.hinges.iter().zip(&g.hinge_rest).map(|(h, r)| 2.0 * r.weight / (model.rest[h[1] as usize] - model.rest[h[0] as usize]).norm()));
            match g.material.bending {
                Bending::Hinge => s.bent_hinges.extend(first_hinge..s.hinges.len() as u32),
                Bending::ShapeOperator => {
                    s.plates.extend(g.plate_rest.iter().enumerate().map(|(i, &rest)| PlateBending { triangle: first_triangle + i as u32, rest }))
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
        self.triangle_hinges[p.triangle as usize].map(|h| {
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

    /// Every stencil.
    pub fn all(&self) -> ActiveStencils {
        ActiveStencils {
            membranes: (0..self.triangles.len() as u32).collect(),
            hinges: (0..self.bent_hinges.len() as u32).collect(),
            plates: (0..self.plates.len() as u32).collect(),
        }
    }

    /// The stencils that are not inside one rigid body (`vertex_body`): those whose nodes all belong to one body
    /// move rigidly with it and exert no net force or torque on it.
    pub fn active(&self, vertex_body: &[Option<u32>]) -> ActiveStencils {
        let inside = |nodes: &[u32]| {
            let first = vertex_body[nodes[0] as usize];
            first.is_some() && nodes.iter().all(|&v| vertex_body[v as usize] == first)
        };
        let all = self.all();
        ActiveStencils {
            membranes: all.membranes.into_iter().filter(|&t| !inside(&self.triangles[t as usize])).collect(),
            hinges: all.hinges.into_iter().filter(|&h| !inside(&self.hinges[self.bent_hinges[h as usize] as usize])).collect(),
            plates: all
                .plates
                .into_iter()
                .filter(|&p| {
                    let (nodes, n) = self.plate_nodes(&self.plates[p as usize]);
                    !inside(&nodes[..n])
                })
                .collect(),
        }
    }

    /// The nodes of each stencil of `active`, in its order: membranes, hinges, plates.
    pub fn stencil_nodes(&self, active: &ActiveStencils) -> Vec<Vec<u32>> {
        let triangles = active.membranes.iter().map(|&t| self.triangles[t as usize].to_vec());
        let hinges = active.hinges.iter().map(|&h| self.hinges[self.bent_hinges[h as usize] as usize].to_vec());
        let plates = active.plates.iter().map(|&p| {
            let (nodes, n) = self.plate_nodes(&self.plates[p as usize]);
            nodes[..n].to_vec()
        });
        triangles.chain(hinges).chain(plates).collect()
    }

    /// Energies, forces and stiffnesses of the `active` stencils at `x`, in parallel: PSD-projected when
    /// `project` (the system's, which must be positive definite), exact otherwise (the oracle's, which like its
    /// tets' matrix-free product needs no projection and is spared the stencils' eigendecompositions, most of a
    /// shell assembly's cost).
    pub fn states(&self, active: &ActiveStencils, x: &[Vec3], project: bool) -> ShellStates {
        let membranes = active
            .membranes
            .par_iter()
            .map(|&t| {
                let t = t as usize;
                membrane_state(&self.triangle_material(t).material, &self.triangle_rest[t], &gather(x, &self.triangles[t]), project)
            })
            .collect();
        let hinges = active
            .hinges
            .par_iter()
            .map(|&h| {
                let e = self.bent_hinges[h as usize] as usize;
                hinge_state(self.hinge_material(e).hinge_stiffness, &self.hinge_rest[e], &gather(x, &self.hinges[e]), self.angle[e], project)
            })
            .collect();
        let plates = active
            .plates
            .par_iter()
            .map(|&p| {
                let p = &self.plates[p as usize];
                shape_operator_state(&p.rest, &self.triangles[p.triangle as usize], &self.plate_hinges(p), x, project)
            })
            .collect();
        ShellStates { membranes, hinges, plates }
    }

    /// Hinge `e`'s angle at `x`, on the branch nearest its last one.
    pub fn angle_at(&self, e: usize, x: &[Vec3]) -> f64 {
        unwrap_angle(dihedral_angle(&gather(x, &self.hinges[e])), self.angle[e])
    }

    /// The largest |κ̇| = |κ(x) − κ_before|/h over triangle `t`'s hinges (Eq. 4.10–4.11): the change to the
    /// positions `x` from the positions `before`, or from the recorded angles when `None`.
    pub fn curvature_rate(&self, t: usize, before: Option<&[Vec3]>, x: &[Vec3], h: f64) -> f64 {
        self.triangle_hinges[t]
            .iter()
            .flatten()
            .map(|&e| {
                let e = e as usize;
                let from = before.map_or(self.angle[e], |b| self.angle_at(e, b));
                (self.curvature_scale[e] * (self.angle_at(e, x) - from) / h).abs()
            })
            .fold(0.0, f64::max)
    }

    /// Strain limiting (thesis §4.4.3): `passes` Gauss–Seidel passes that clamp each limited triangle's principal
    /// stretches by moving its vertices (inverse masses `w`: 0 for pinned vertices and rigid bodies' members,
    /// which the projection leaves in place; a triangle with none free is skipped). Returns whether any moved.
    pub fn limit_strain(&self, w: &[f64], x: &mut [Vec3], passes: usize) -> bool {
        if self.groups.iter().all(|g| g.strain_limit.is_none()) {
            return false;
        }
        let mut moved = false;
        for _ in 0..passes {
            for (t, nodes) in self.triangles.iter().enumerate() {
                let Some(limit) = self.triangle_material(t).strain_limit else { continue };
                let wt = nodes.map(|i| w[i as usize]);
                if wt.iter().all(|&wi| wi == 0.0) {
                    continue;
                }
                let mut p = gather(x, nodes);
                strain_limit::project(&limit, &self.triangle_rest[t].dm_inv, &wt, &mut p);
                for (&i, pi) in nodes.iter().zip(p) {
                    moved |= x[i as usize] != pi;
                    x[i as usize] = pi;
                }
            }
        }
        moved
    }

    /// Each hinge's angle at `x`, on the branch nearest its last one.
    pub fn record_angles(&mut self, x: &[Vec3]) {
        for e in 0..self.hinges.len() {
            self.angle[e] = self.angle_at(e, x);
        }
    }
}

/// One evaluated stencil as flat slices: its nodes, its forces (3 per node), its stiffness (column-major, `dim` ×
/// `dim`, dim ≥ 3·nodes) and its α₁.
pub struct StencilView<'a> {
    pub nodes: &'a [u32],
    pub force: &'a [f64],
    pub stiffness: &'a [f64],
    pub dim: usize,
    pub alpha1: f64,
}

impl StencilView<'_> {
    /// out += c·K·p over the stencil's nodes.
    pub fn add_product(&self, p: &[Vec3], c: f64, out: &mut [Vec3]) {
        for (a, &va) in self.nodes.iter().enumerate() {
            let mut sum = Vec3::zeros();
            for (b, &vb) in self.nodes.iter().enumerate() {
                for (k, pk) in p[vb as usize].iter().enumerate() {
                    let column = &self.stiffness[(3 * b + k) * self.dim + 3 * a..];
                    sum += Vec3::new(column[0], column[1], column[2]) * *pk;
                }
            }
            out[va as usize] += sum * c;
        }
    }
}

impl Shells {
    /// Calls `visit` with each stencil of `active` and its state in `states`.
    pub fn for_each_stencil(&self, active: &ActiveStencils, states: &ShellStates, mut visit: impl FnMut(&StencilView)) {
        for (&t, st) in active.membranes.iter().zip(&states.membranes) {
            let nodes = &self.triangles[t as usize];
            visit(&StencilView {
                nodes,
                force: st.force.as_slice(),
                stiffness: st.stiffness.as_slice(),
                dim: 9,
                alpha1: self.triangle_material(t as usize).stiffness_damping,
            });
        }
        for (&h, st) in active.hinges.iter().zip(&states.hinges) {
            let e = self.bent_hinges[h as usize] as usize;
            visit(&StencilView {
                nodes: &self.hinges[e],
                force: st.force.as_slice(),
                stiffness: st.stiffness.as_slice(),
                dim: 12,
                alpha1: self.hinge_material(e).stiffness_damping,
            });
        }
        for (&p, st) in active.plates.iter().zip(&states.plates) {
            let p = &self.plates[p as usize];
            let (nodes, n) = self.plate_nodes(p);
            let alpha1 = self.triangle_material(p.triangle as usize).stiffness_damping;
            visit(&StencilView { nodes: &nodes[..n], force: st.force.as_slice(), stiffness: st.stiffness.as_slice(), dim: 18, alpha1 });
        }
    }
}
