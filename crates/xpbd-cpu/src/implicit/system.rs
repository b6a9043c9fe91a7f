//! The reduced system of one implicit step (thesis "Adaptive methods for elastic deformation", Eq. 3.5 and
//! 3.11): A_A = Gᵀ[(1 + hα₀)M + h(h + α₁)K]G and the right-hand side h(Gᵀ f + c(φ)) with
//! f = f_elastic + f_ext − α₀Mẋ − (α₁ + h)Kẋ over the elastic elements (tetrahedra, shell triangles and hinges) only,
//! solved by `solver.linear_solver` ([`LinearSolver`]; A_A is symmetric positive definite: K is projected to PSD
//! per element). A `System` lives while the rigid pattern, and so the block pattern, holds.

use super::elements::Elements;
use super::linear_solve::{LinearSolver, PcgCounts};
use super::rigid::Bodies;
use super::shells::{ActiveStencils, ShellStates, Shells};
use nalgebra::{Matrix3, SMatrix, SVector};
use xpbd_core::fem::element::ElementState;
use xpbd_core::implicit::bodies::RigidPattern;
use xpbd_core::implicit::dofs::{gamma, Dofs, VertexDof};
use xpbd_core::implicit::pattern::BlockPattern;
use xpbd_core::implicit::settings::ImplicitSettings;
use xpbd_core::mesh::Vec3;
use xpbd_core::sparse::forward_columns::ForwardColumns;

/// A soft attachment as a spring of stiffness k toward x(t) = origin + velocity·t.
#[derive(Clone, Copy, Debug)]
pub struct Spring {
    pub vertex: u32,
    pub stiffness: f64,
    pub origin: Vec3,
    pub velocity: Vec3,
}

pub struct System {
    pub dofs: Dofs,
    pub pattern: BlockPattern,
    /// Elastic tets (not in a rigid body).
    pub elastic: Vec<u32>,
    /// The shell stencils not inside one rigid body.
    pub shell_active: ActiveStencils,
    linear: LinearSolver,
    /// Elastic energy of the last assembly (J).
    pub energy: f64,
}

/// What the step reads besides the system.
pub struct Inputs<'a> {
    pub x: &'a [Vec3],
    pub v: &'a [Vec3],
    pub mass: &'a [f64],
    pub gravity: Vec3,
    pub springs: &'a [Spring],
    /// Time at the step's end.
    pub t_end: f64,
    pub h: f64,
    /// `None`: the semi-implicit step, forces at the step's start linearised in ẋ (Eq. 3.5). `Some(ẋ_t)`: a Newton
    /// iteration on the incremental potential (Eq. 4.7) at the iterate (`x` = x_t + hẋ, `v` = ẋ) from the step's
    /// start velocities ẋ_t.
    pub start_velocity: Option<&'a [Vec3]>,
}

impl Inputs<'_> {
    /// The h in the force's −(α₁ + h)Kẋ and the springs' −hẋ: the semi-implicit step's linearisation; 0 for a
    /// Newton iteration, whose forces are evaluated at the iterate.
    fn linearisation(&self) -> f64 {
        if self.start_velocity.is_some() {
            0.0
        } else {
            self.h
        }
    }
}

impl System {
    /// The system of the elastic tets (`pattern.element_body` `None`; the tets come first in it) and the shell
    /// stencils that are not inside one rigid body, solved as `settings` ask.
    pub fn new(elements: &Elements, shells: &Shells, dofs: Dofs, pattern: &RigidPattern, settings: &ImplicitSettings) -> Self {
        let elastic = Self::elastic_tets(elements, pattern);
        let shell_active = shells.active(&pattern.vertex_body);
        let shell_stencils = shells.stencil_nodes(&shell_active);
        let stencils = elastic.iter().map(|&e| &elements.tets[e as usize][..]).chain(shell_stencils.iter().map(|n| &n[..]));
        let groups = stencils.map(|nodes| nodes.iter().filter_map(|&v| dofs.node(v as usize)));
        let pattern = BlockPattern::new(&dofs, groups);
        let linear = LinearSolver::new(settings, &dofs.node_start);
        System { dofs, pattern, elastic, shell_active, linear, energy: 0.0 }
    }

    /// The tets of `pattern` in no rigid body.
    pub fn elastic_tets(elements: &Elements, pattern: &RigidPattern) -> Vec<u32> {
        (0..elements.len() as u32).filter(|&e| pattern.element_body[e as usize].is_none()).collect()
    }

    /// The reduced velocities ẋ_A of `v` and the bodies.
    pub fn reduced(&self, v: &[Vec3], bodies: &Bodies) -> Vec<f64> {
        let mut va = vec![0.0; self.dofs.len()];
        for (i, d) in self.dofs.vertex.iter().enumerate() {
            if let VertexDof::Elastic(k) = d {
                let s = self.dofs.node_start[*k as usize];
                va[s..s + 3].copy_from_slice(v[i].as_slice());
            }
        }
        for (b, body) in bodies.bodies.iter().enumerate() {
            let s = self.dofs.node_start[self.dofs.body_node(b) as usize];
            va[s..s + 3].copy_from_slice(body.velocity.as_slice());
            va[s + 3..s + 6].copy_from_slice(body.omega.as_slice());
        }
        va
    }

    /// Γ̃ of vertex `v`: [I 0] for an elastic vertex, Γ for a rigid member; `None` when pinned.
    pub fn map_of(&self, v: usize, x: &[Vec3], bodies: &Bodies) -> Option<SMatrix<f64, 3, 6>> {
        match self.dofs.vertex[v] {
            VertexDof::Fixed => None,
            VertexDof::Elastic(_) => Some(SMatrix::<f64, 3, 6>::identity()),
            VertexDof::Rigid(k) => Some(gamma(&(x[v] - bodies.bodies[k as usize - self.dofs.elastic_nodes].com))),
        }
    }

    /// Adds Gᵀ `f` for a force `f` at vertex `v` into the reduced vector `out`.
    pub fn add_force(&self, out: &mut [f64], v: usize, f: &Vec3, x: &[Vec3], bodies: &Bodies) {
        let Some(k) = self.dofs.node(v) else { return };
        let s = self.dofs.node_start[k as usize];
        for c in 0..3 {
            out[s + c] += f[c];
        }
        if let VertexDof::Rigid(_) = self.dofs.vertex[v] {
            let t = (x[v] - bodies.bodies[k as usize - self.dofs.elastic_nodes].com).cross(f);
            for c in 0..3 {
                out[s + 3 + c] += t[c];
            }
        }
    }

    /// Assembles A_A and the right-hand side from the elastic elements' `states` (in the order of
    /// `self.elastic`) and the shells' stencils. Returns h·rhs.
    pub fn assemble(
        &mut self,
        elements: &Elements,
        states: &[ElementState],
        shells: &Shells,
        shell_states: &ShellStates,
        bodies: &Bodies,
        inp: &Inputs,
    ) -> Vec<f64> {
        let (h, x, v) = (inp.h, inp.x, inp.v);
        let n = self.dofs.len();
        self.pattern.clear();
        let mut force = vec![Vec3::zeros(); x.len()];
        let mut touched = vec![false; x.len()];
        self.energy = 0.0;
        let elastic = std::mem::take(&mut self.elastic);
        for (&e, st) in elastic.iter().zip(states) {
            let alpha1 = elements.material(e as usize).stiffness_damping;
            self.add_stencil(&elements.tets[e as usize], st.energy, &st.force, &st.stiffness, alpha1, inp, bodies, &mut force, &mut touched);
        }
        self.elastic = elastic;
        let active = std::mem::take(&mut self.shell_active);
        for (&t, st) in active.membranes.iter().zip(&shell_states.membranes) {
            let alpha1 = shells.triangle_material(t as usize).stiffness_damping;
            self.add_stencil(&shells.triangles[t as usize], st.energy, &st.force, &st.stiffness, alpha1, inp, bodies, &mut force, &mut touched);
        }
        for (&h, st) in active.hinges.iter().zip(&shell_states.hinges) {
            let e = shells.bent_hinges[h as usize] as usize;
            let alpha1 = shells.hinge_material(e).stiffness_damping;
            self.add_stencil(&shells.hinges[e], st.energy, &st.force, &st.stiffness, alpha1, inp, bodies, &mut force, &mut touched);
        }
        for (&p, st) in active.plates.iter().zip(&shell_states.plates) {
            let p = &shells.plates[p as usize];
            let alpha1 = shells.triangle_material(p.triangle as usize).stiffness_damping;
            let (nodes, n) = shells.plate_nodes(p);
            self.add_stencil(&nodes[..n], st.energy, &st.force, &st.stiffness, alpha1, inp, bodies, &mut force, &mut touched);
        }
        self.shell_active = active;
        // Mass, gravity and mass damping of the elastic vertices; springs.
        let mut rhs = vec![0.0; n];
        for (i, d) in self.dofs.vertex.iter().enumerate() {
            if let VertexDof::Elastic(k) = *d {
                let alpha0 = elements.mass_damping[i];
                let m = inp.mass[i];
                self.pattern.add(&self.dofs, k, k, 3, 3, |r, c| if r == c { m * (1.0 + h * alpha0) } else { 0.0 });
                force[i] += inp.gravity * m - v[i] * (alpha0 * m);
                if let Some(v0) = inp.start_velocity {
                    // −M(ẋ − ẋ_t)/h: the inertia term of the Newton residual, scaled by h below.
                    force[i] -= (v[i] - v0[i]) * (m / h);
                }
                touched[i] = true;
            }
        }
        for s in inp.springs {
            let i = s.vertex as usize;
            let Some(k) = self.dofs.node(i) else { continue };
            let target = s.origin + s.velocity * inp.t_end;
            force[i] += (target - x[i] - v[i] * inp.linearisation()) * s.stiffness;
            touched[i] = true;
            let g = self.map_of(i, x, bodies).unwrap();
            let block = g.transpose() * g * (h * h * s.stiffness);
            let r = self.dofs.node_size(k);
            self.pattern.add(&self.dofs, k, k, r, r, |a, b| block[(a, b)]);
        }
        for (i, f) in force.iter().enumerate() {
            if touched[i] {
                self.add_force(&mut rhs, i, f, x, bodies);
            }
        }
        // Rigid bodies: Newton–Euler mass, gravity, mass damping and the gyroscopic torque (Eq. 3.6).
        for (b, body) in bodies.bodies.iter().enumerate() {
            let k = self.dofs.body_node(b);
            let s = self.dofs.node_start[k as usize];
            let alpha0 = bodies.mass_damping[b];
            let inertia = body.inertia();
            let scale = 1.0 + h * alpha0;
            self.pattern.add(&self.dofs, k, k, 6, 6, |r, c| match (r < 3, c < 3) {
                (true, true) if r == c => body.mass * scale,
                (false, false) => inertia[(r - 3, c - 3)] * scale,
                _ => 0.0,
            });
            let f = inp.gravity * body.mass - body.velocity * (alpha0 * body.mass);
            let tau = -body.omega.cross(&(inertia * body.omega)) - inertia * body.omega * alpha0;
            for c in 0..3 {
                rhs[s + c] += f[c];
                rhs[s + 3 + c] += tau[c];
            }
        }
        rhs.iter_mut().for_each(|r| *r *= h);
        rhs
    }

    /// One stencil's share of Eq. 3.11: its energy, its force f − (α₁ + h)Kẋ into `force`, and h(h + α₁)·ΓᵀKΓ into
    /// A_A, for the nodes `nodes` (at most six; D ≥ 3·nodes.len(), the rows beyond unused).
    #[allow(clippy::too_many_arguments)]
    fn add_stencil<const D: usize>(
        &mut self,
        nodes: &[u32],
        energy: f64,
        f: &SVector<f64, D>,
        k: &SMatrix<f64, D, D>,
        alpha1: f64,
        inp: &Inputs,
        bodies: &Bodies,
        force: &mut [Vec3],
        touched: &mut [bool],
    ) {
        let (h, x) = (inp.h, inp.x);
        self.energy += energy;
        let mut ve = SVector::<f64, D>::zeros();
        for (a, &i) in nodes.iter().enumerate() {
            ve.fixed_rows_mut::<3>(3 * a).copy_from(&inp.v[i as usize]);
        }
        let kv = k * ve;
        for (a, &i) in nodes.iter().enumerate() {
            force[i as usize] += f.fixed_rows::<3>(3 * a) - kv.fixed_rows::<3>(3 * a) * (alpha1 + inp.linearisation());
            touched[i as usize] = true;
        }
        let scale = h * (h + alpha1);
        let maps: [Option<SMatrix<f64, 3, 6>>; 6] = std::array::from_fn(|a| nodes.get(a).and_then(|&v| self.map_of(v as usize, x, bodies)));
        for (a, &va) in nodes.iter().enumerate() {
            let Some(ga) = &maps[a] else { continue };
            let ka = self.dofs.node(va as usize).unwrap();
            for (b, &vb) in nodes.iter().enumerate() {
                let Some(gb) = &maps[b] else { continue };
                let kb = self.dofs.node(vb as usize).unwrap();
                let kab: Matrix3<f64> = k.fixed_view::<3, 3>(3 * a, 3 * b) * scale;
                let (ra, rb) = (self.dofs.node_size(ka), self.dofs.node_size(kb));
                if ra == 3 && rb == 3 {
                    self.pattern.add(&self.dofs, ka, kb, 3, 3, |r, c| kab[(r, c)]);
                } else {
                    let block = ga.transpose() * kab * gb;
                    self.pattern.add(&self.dofs, ka, kb, ra, rb, |r, c| block[(r, c)]);
                }
            }
        }
    }

    /// Readies the solve of the assembled A_A (factorises it for `ldlt`); an error names why it failed.
    pub fn factor(&mut self, counts: &mut PcgCounts) -> Result<(), String> {
        self.linear.prepare(&self.pattern.matrix, counts)
    }

    /// x = A_A⁻¹ b for the last assembly; PCG's work is added to `counts`. An error: the fallback's
    /// factorisation failed.
    pub fn solve(&mut self, b: &[f64], counts: &mut PcgCounts) -> Result<Vec<f64>, String> {
        self.linear.solve(&self.pattern.matrix, b, counts)
    }

    /// Factorises the last assembly for [`System::forward_columns`] if the solve did not.
    pub fn factor_for_columns(&mut self) -> Result<(), String> {
        self.linear.factor_for_columns(&self.pattern.matrix)
    }

    /// Z = L⁻¹ P J_Aᵀ for sparse rows J_A (H = ZᵀZ), after [`System::factor_for_columns`].
    pub fn forward_columns(&self, rows: &[Vec<(usize, f64)>]) -> ForwardColumns {
        self.linear.forward_columns(rows)
    }

    /// A_A⁻¹ J_Aᵀ λ = Pᵀ L⁻ᵀ w from w = Z λ, after [`System::factor_for_columns`].
    pub fn backward(&self, w: &[f64]) -> Vec<f64> {
        self.linear.backward(w)
    }
}
