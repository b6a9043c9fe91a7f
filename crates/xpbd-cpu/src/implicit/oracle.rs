//! The elastification oracle (thesis "Adaptive methods for elastic deformation", §3.3.5): one iteration of
//! preconditioned conjugate gradients on the full elastic system of Eq. 3.5, matrix-free, with gravity on the
//! right-hand side, from the last step's velocity change (the guess that the motion goes on changing as it
//! did). The thesis applies gravity to the velocities first, which starts the iteration from "falling freely"; a
//! supported body at rest is then far from that guess near its supports, and one iteration leaves spurious
//! strain rates there, so the settled bodies of our tests were elastified and rigidified again every few steps.
//! A body at rest has a zero last change, a zero right-hand side and a zero estimate; a falling, rolling or
//! damped spinning rigid body starts from its own rigid change, which one iteration from zero did not
//! reproduce (the rigid part of its estimate was strain). The preconditioner is an incomplete Cholesky factorisation
//! (drop tolerance 1e-6) of the constant A_p = (1 + hα₀)M + h(h + α₁)BᵀWB, W = (2μ + λ)V per element: the
//! same scalar Laplacian for x, y and z, so one n × n factor serves all three. Contacts of the previous step
//! enter the right-hand side with their impulses; new contacts with the impulse that stops their vertices
//! alone, from the rest-state diagonal of A_p (Eq. 3.18–3.19 with A⁻¹ approximated by diagonal blocks).
//! Stiffness products K·p are directional derivatives of the stress by central differences for tets, and the
//! stencils' projected stiffness for shells (§4.3.5: A_p's Laplacian takes each shell triangle with
//! W = (2μ + λ)·t·A, plane-stress; a rigid triangle's estimate is its membrane strain rate and the largest curvature
//! rate of its edges, Eq. 4.9–4.11, from the quick solve's velocities).

use super::contact::{Contact, Contacts};
use super::elements::Elements;
use super::shells::{ActiveStencils, ShellStates, Shells};
use nalgebra::Matrix3;
use rayon::prelude::*;
use xpbd_core::constraint::tet::node_gradients;
use xpbd_core::constraint::tet_model::gather;
use xpbd_core::fem::shell::membrane_strain;
use xpbd_core::implicit::settings::ImplicitSettings;
use xpbd_core::mesh::Vec3;
use xpbd_core::sparse::incomplete_cholesky::IncompleteCholesky;
use xpbd_core::sparse::Csr;

/// The ICT drop tolerance of the thesis's examples.
const DROP_TOLERANCE: f64 = 1e-6;

/// One rigid element's estimate: ‖Ė_approx‖²_F and, for a shell triangle, the largest |κ̇_approx| of its edges
/// (0 for tets).
#[derive(Clone, Copy, Debug)]
pub struct Rates {
    pub strain: f64,
    pub bending: f64,
}

pub struct Oracle {
    /// Each vertex's row in the scalar system; `None` when pinned.
    row: Vec<Option<u32>>,
    /// Each vertex's neighbours along element edges (CSR), for the contact filter.
    neighbour_start: Vec<usize>,
    neighbours: Vec<u32>,
    preconditioner: IncompleteCholesky,
    /// Diagonal of A_p per row.
    diagonal: Vec<f64>,
}

impl Oracle {
    /// Factorises A_p once for the run.
    pub fn new(elements: &Elements, shells: &Shells, mass: &[f64], pinned: &[bool], h: f64) -> xpbd_core::Result<Self> {
        let mut row = vec![None; mass.len()];
        let mut n = 0u32;
        for (i, r) in row.iter_mut().enumerate() {
            if !pinned[i] {
                *r = Some(n);
                n += 1;
            }
        }
        let mut tri = sprs::TriMat::new((n as usize, n as usize));
        let mut diagonal = vec![0.0; n as usize];
        for (i, r) in row.iter().enumerate() {
            if let Some(r) = r {
                let d = mass[i] * (1.0 + h * elements.mass_damping[i]);
                tri.add_triplet(*r as usize, *r as usize, d);
                diagonal[*r as usize] += d;
            }
        }
        for (e, t) in elements.tets.iter().enumerate() {
            let m = elements.material(e);
            let rest = &elements.rest[e];
            let w = (2.0 * m.lame.mu + m.lame.lambda.max(0.0)) * rest.volume * h * (h + m.stiffness_damping);
            // Shape-function gradients: rows of D_m⁻¹ for nodes 1–3, minus their sum for node 0.
            let g = node_gradients(&Matrix3::identity(), &rest.dm_inv);
            for a in 0..4 {
                let Some(ra) = row[t[a] as usize] else { continue };
                for b in 0..4 {
                    let Some(rb) = row[t[b] as usize] else { continue };
                    let v = w * g[a].dot(&g[b]);
                    tri.add_triplet(ra as usize, rb as usize, v);
                    if ra == rb {
                        diagonal[ra as usize] += v;
                    }
                }
            }
        }
        for (t, nodes) in shells.triangles.iter().enumerate() {
            let g = shells.triangle_material(t);
            let (mu, lambda) = g.material.plane_stress();
            let rest = &shells.triangle_rest[t];
            let w = (2.0 * mu + lambda.max(0.0)) * g.material.thickness * rest.area * h * (h + g.stiffness_damping);
            // Barycentric gradients in the rest plane: rows of D_m⁻¹ for nodes 1–2, minus their sum for node 0.
            let d = rest.dm_inv;
            let grad = [-(d.row(0) + d.row(1)), d.row(0).into_owned(), d.row(1).into_owned()];
            for a in 0..3 {
                let Some(ra) = row[nodes[a] as usize] else { continue };
                for b in 0..3 {
                    let Some(rb) = row[nodes[b] as usize] else { continue };
                    let v = w * grad[a].dot(&grad[b]);
                    tri.add_triplet(ra as usize, rb as usize, v);
                    if ra == rb {
                        diagonal[ra as usize] += v;
                    }
                }
            }
        }
        let a: Csr = tri.to_csr();
        let (neighbour_start, neighbours) = vertex_neighbours(elements, shells, mass.len());
        Ok(Oracle { row, neighbour_start, neighbours, preconditioner: IncompleteCholesky::new(&a, DROP_TOLERANCE)?, diagonal })
    }

    /// ‖Ė_approx‖²_F of each element in `check` (Eq. 3.17 with the quick solve's velocities), given the state,
    /// the last step's velocity change `previous` and this step's contacts (warm-started from the previous step's impulses; the new ones get
    /// their approximate impulse here).
    #[allow(clippy::too_many_arguments)]
    pub fn strain_rates(
        &self,
        elements: &Elements,
        shells: &Shells,
        x: &[Vec3],
        v: &[Vec3],
        mass: &[f64],
        gravity: Vec3,
        contacts: &Contacts,
        settings: &ImplicitSettings,
        h: f64,
        previous: &[Vec3],
        check: &[u32],
    ) -> Vec<Rates> {
        let n = x.len();
        // The start Δẋ₀: the last step's velocity change (warm start, as the contacts), plus the contact filter's
        // dent (Eq. 4.16) below; then one PCG iteration from it: r = z − AΔẋ₀, p = P⁻¹r, Δẋ = Δẋ₀ + (rᵀp / pᵀAp) p.
        // From Δẋ₀ = 0 the one iteration's answer to a steady rigid load (a rolling wheel's acceleration, the mass
        // damping of its spin, free fall) is not rigid: it strained every element of a rolling wheel by
        // ‖Ė‖² ≈ τ_E. From the last change the iteration sees only what changed since; a body at rest starts from
        // zero as before (the thesis's free-fall start flagged supported bodies, see the module comment).
        let mut start: Vec<Vec3> = (0..n).map(|i| if self.row[i].is_some() { previous[i] } else { Vec3::zeros() }).collect();
        // r = z − AΔẋ₀ with z = h(f + Mg − α₀Mẋ − (α₁ + h)Kẋ) + Jᵀλ_old (the warm-started impulses: the previous
        // step's for the contacts that were there, zero for new ones) and A = (1 + hα₀)M + h(h + α₁)K: the two
        // stiffness terms share one product, K(ẋ + Δẋ₀). Pinned vertices keep their prescribed velocity; gravity is
        // a force on the others.
        let moving: Vec<Vec3> = (0..n).map(|i| v[i] + start[i]).collect();
        let per_element: Vec<[Vec3; 4]> = (0..elements.len())
            .into_par_iter()
            .map(|e| {
                let t = &elements.tets[e];
                let xe = gather(x, t);
                let f = elements.forces(e, &xe);
                let kv = elements.stiffness_product(e, &xe, &gather(&moving, t));
                let c = elements.material(e).stiffness_damping + h;
                std::array::from_fn(|a| (f[a] - kv[a] * c) * h)
            })
            .collect();
        let mut r = vec![Vec3::zeros(); n];
        for (t, f) in elements.tets.iter().zip(&per_element) {
            for a in 0..4 {
                r[t[a] as usize] += f[a];
            }
        }
        let all = shells.all();
        let stencils = shells.states(&all, x, false);
        shells.for_each_stencil(&all, &stencils, |s| {
            for (a, &v) in s.nodes.iter().enumerate() {
                r[v as usize] += Vec3::new(s.force[3 * a], s.force[3 * a + 1], s.force[3 * a + 2]) * h;
            }
            s.add_product(&moving, -h * (s.alpha1 + h), &mut r);
        });
        let old = contacts.vertex_impulses(n);
        for i in 0..n {
            let damping = h * elements.mass_damping[i];
            r[i] += old[i] - v[i] * (damping * mass[i]) - start[i] * ((1.0 + damping) * mass[i]);
            if self.row[i].is_some() {
                r[i] += gravity * (h * mass[i]);
            }
        }
        // New contacts, and those that did not push at the last step: a contact is found a step or more before it
        // touches, when its predicted path crosses the surface, so an impact's first push is usually there.
        let new: Vec<(&Contact, f64)> = contacts
            .list
            .iter()
            .zip(contacts.lambda.chunks(3))
            .filter(|(c, l)| c.new || l[0] == 0.0)
            .filter_map(|(c, _)| self.new_contact_impulse(c, &moving, &r, settings, h).map(|l| (c, l)))
            .collect();
        for &(c, lambda) in &new {
            for (&v, &w) in c.vertices.iter().zip(&c.weights) {
                if self.row[v as usize].is_some() {
                    r[v as usize] += c.normal * (w * lambda);
                }
            }
        }
        let shell_stiffness = (shells, &all, &stencils);
        let apply = |d: &[Vec3]| self.apply(elements, shell_stiffness, x, mass, d, h);
        if settings.contact_filter && !new.is_empty() {
            let dent = self.filtered_start(contacts, &new);
            r.iter_mut().zip(apply(&dent)).for_each(|(r, a)| *r -= a);
            start.iter_mut().zip(&dent).for_each(|(s, d)| *s += d);
        }
        let p = self.precondition(&r);
        let ap = apply(&p);
        let (rp, pap) = (0..n).filter(|&i| self.row[i].is_some()).fold((0.0, 0.0), |(a, b), i| (a + r[i].dot(&p[i]), b + p[i].dot(&ap[i])));
        let alpha = if pap > 0.0 { rp / pap } else { 0.0 };
        let dv: Vec<Vec3> = (0..n).map(|i| p[i] * alpha + start[i]).collect();
        // Eq. 3.17 as a central difference, x ± h/2 (ẋ + Δẋ): for a tet's Green strain (quadratic in x) this is
        // exactly Eq. 3.16, ½(ḞᵀF + FᵀḞ), which is zero for the rigid velocity field v + ω × r of a body's members
        // (their velocities are the instantaneous rigid ones, for which the thesis's objection to Eq. 3.16 does not
        // hold). The one-sided difference from x adds ½h ḞᵀḞ = ½h(|ω|²I − ωωᵀ) for a spin ω, which alone passes
        // τ_E = 1e-3 from |ω| ≈ 2.1 rad/s at h = 10 ms and elastifies a spinning rigid body whole.
        let (behind, ahead): (Vec<Vec3>, Vec<Vec3>) = (0..n).map(|i| (x[i] - (v[i] + dv[i]) * (0.5 * h), x[i] + (v[i] + dv[i]) * (0.5 * h))).unzip();
        let tets = elements.len();
        check
            .par_iter()
            .map(|&e| {
                let e = e as usize;
                match e.checked_sub(tets) {
                    None => {
                        let t = &elements.tets[e];
                        let rate = (elements.strain(e, &gather(&ahead, t)) - elements.strain(e, &gather(&behind, t))) / h;
                        Rates { strain: rate.norm_squared(), bending: 0.0 }
                    }
                    Some(t) => {
                        let (rest, nodes) = (&shells.triangle_rest[t], &shells.triangles[t]);
                        let rate = (membrane_strain(rest, &gather(&ahead, nodes)) - membrane_strain(rest, &gather(&behind, nodes))) / h;
                        Rates { strain: rate.norm_squared(), bending: shells.curvature_rate(t, Some(&behind), &ahead, h) }
                    }
                }
            })
            .collect()
    }

    /// The normal impulse that stops a new contact's vertices alone (diagonal A_p, Eq. 3.18–3.19), given their
    /// velocities from the start (`moving`, ẋ + Δẋ₀) and the residual z − AΔẋ₀ so far; `None` when it has no free
    /// vertex.
    fn new_contact_impulse(&self, c: &Contact, moving: &[Vec3], residual: &[Vec3], settings: &ImplicitSettings, h: f64) -> Option<f64> {
        let (mut jv, mut jdz, mut jdj) = (Contacts::normal_bias(c, h, settings), 0.0, 0.0);
        for (&v, &w) in c.vertices.iter().zip(&c.weights) {
            let Some(r) = self.row[v as usize] else { continue };
            if w == 0.0 {
                continue;
            }
            let d = self.diagonal[r as usize];
            jv += w * c.normal.dot(&moving[v as usize]);
            jdz += w * c.normal.dot(&residual[v as usize]) / d;
            jdj += w * w / d;
        }
        (jdj > 0.0).then(|| (-(jv + jdz) / jdj).max(0.0))
    }

    /// The contact filter (thesis Eq. 4.14–4.16, Fig. 4.4): each new contact's impulse at a vertex is diffused
    /// along the mesh's edges, half kept at the vertex and half shared equally by its neighbours that are in no
    /// contact, and turned into velocities by the rest-state diagonal of A_p: a local dent the size of the
    /// impact, from which the one PCG iteration starts.
    fn filtered_start(&self, contacts: &Contacts, new: &[(&Contact, f64)]) -> Vec<Vec3> {
        let n = self.row.len();
        let mut touching = vec![false; n];
        for c in &contacts.list {
            for (&v, &w) in c.vertices.iter().zip(&c.weights) {
                touching[v as usize] |= w != 0.0;
            }
        }
        let mut impulse = vec![Vec3::zeros(); n];
        for &(c, lambda) in new {
            for (&v, &w) in c.vertices.iter().zip(&c.weights) {
                let j = c.normal * (w * lambda);
                let free: Vec<u32> = self.neighbours[self.neighbour_start[v as usize]..self.neighbour_start[v as usize + 1]]
                    .iter()
                    .copied()
                    .filter(|&u| !touching[u as usize] && self.row[u as usize].is_some())
                    .collect();
                if free.is_empty() {
                    impulse[v as usize] += j;
                    continue;
                }
                impulse[v as usize] += j * 0.5;
                for u in &free {
                    impulse[*u as usize] += j * (0.5 / free.len() as f64);
                }
            }
        }
        (0..n).map(|i| self.row[i].map_or(Vec3::zeros(), |r| impulse[i] / self.diagonal[r as usize])).collect()
    }

    /// P⁻¹ z, coordinate by coordinate.
    fn precondition(&self, z: &[Vec3]) -> Vec<Vec3> {
        let rows = self.diagonal.len();
        let mut out = vec![Vec3::zeros(); z.len()];
        for c in 0..3 {
            let mut r = vec![0.0; rows];
            for (i, zi) in z.iter().enumerate() {
                if let Some(k) = self.row[i] {
                    r[k as usize] = zi[c];
                }
            }
            let mut s = vec![0.0; rows];
            self.preconditioner.apply(&r, &mut s);
            for (i, o) in out.iter_mut().enumerate() {
                if let Some(k) = self.row[i] {
                    o[c] = s[k as usize];
                }
            }
        }
        out
    }

    /// A p = (1 + hα₀)M p + h(h + α₁)K p, matrix-free (the shells' K from their evaluated stencils); zero on pinned
    /// vertices.
    #[allow(clippy::too_many_arguments)]
    fn apply(
        &self,
        elements: &Elements,
        (shells, active, stencils): (&Shells, &ActiveStencils, &ShellStates),
        x: &[Vec3],
        mass: &[f64],
        p: &[Vec3],
        h: f64,
    ) -> Vec<Vec3> {
        let per_element: Vec<[Vec3; 4]> = (0..elements.len())
            .into_par_iter()
            .map(|e| {
                let t = &elements.tets[e];
                let kp = elements.stiffness_product(e, &gather(x, t), &gather(p, t));
                let c = h * (h + elements.material(e).stiffness_damping);
                kp.map(|k| k * c)
            })
            .collect();
        let mut out: Vec<Vec3> = (0..x.len()).map(|i| p[i] * (mass[i] * (1.0 + h * elements.mass_damping[i]))).collect();
        for (t, k) in elements.tets.iter().zip(&per_element) {
            for a in 0..4 {
                out[t[a] as usize] += k[a];
            }
        }
        shells.for_each_stencil(active, stencils, |s| s.add_product(p, h * (h + s.alpha1), &mut out));
        for (i, o) in out.iter_mut().enumerate() {
            if self.row[i].is_none() {
                *o = Vec3::zeros();
            }
        }
        out
    }
}

/// Each vertex's neighbours along the edges of the tets and shell triangles, as CSR (start offsets, neighbours).
fn vertex_neighbours(elements: &Elements, shells: &Shells, vertices: usize) -> (Vec<usize>, Vec<u32>) {
    let mut lists: Vec<Vec<u32>> = vec![Vec::new(); vertices];
    let nodes = elements.tets.iter().map(|t| &t[..]).chain(shells.triangles.iter().map(|t| &t[..]));
    for e in nodes {
        for &a in e {
            lists[a as usize].extend(e.iter().copied().filter(|&b| b != a));
        }
    }
    let mut start = vec![0];
    let mut out = Vec::new();
    for mut l in lists {
        l.sort_unstable();
        l.dedup();
        out.extend(l);
        start.push(out.len());
    }
    (start, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpbd_core::scene::schema::{Material, Solver};
    use xpbd_core::scene::{build, BodyBuilder, SceneBuilder};

    /// A rigid motion strains nothing: an undeformed, Rayleigh-damped block falling, translating and spinning at
    /// 9.5 rad/s, with the last step's velocity change its rigid answer to gravity and damping, gets an estimate
    /// of zero to round-off for every element. From Δẋ₀ = 0 the one iteration's answer is not rigid (printed,
    /// ‖Ė‖² ≈ 1e-4, a tenth of the default τ_E); the one-sided difference from x adds Ė = ½h(|ω|²I − ωωᵀ),
    /// ‖Ė‖² = 0.10 here at h = 5 ms.
    #[test]
    fn a_rigid_motion_has_no_strain_rate() {
        let block =
            BodyBuilder::new("block").box_mesh([0.6, 0.3, 0.2], [6, 3, 2]).material(Material::tet("neohookean_block", 1e6, 0.3, 1000.0)).rayleigh(1.0, 0.005);
        let scene = SceneBuilder::new("spin").dt(0.005).frames(1).gravity([0.0; 3]).solver(Solver::adaptive()).formats(&["none"]).body(block).build();
        let model = build(&scene, std::path::Path::new(".")).unwrap().model;
        let x = model.initial_position.clone();
        let (omega, velocity) = (Vec3::new(1.0, -3.0, 9.0), Vec3::new(0.5, 0.0, -1.0));
        let v: Vec<Vec3> = x.iter().map(|p| velocity + omega.cross(p)).collect();
        let (elements, shells) = (Elements::new(&model), Shells::new(&model, &x));
        let (pinned, h) = (vec![false; x.len()], 0.005);
        let oracle = Oracle::new(&elements, &shells, &model.mass, &pinned, h).unwrap();
        let all: Vec<u32> = (0..elements.len() as u32).collect();
        let gravity = Vec3::new(0.0, -9.81, 0.0);
        let damping = h * elements.mass_damping[0];
        let rigid_change: Vec<Vec3> = v.iter().map(|v| (gravity * h - v * damping) / (1.0 + damping)).collect();
        let worst = |previous: &[Vec3]| {
            let rates =
                oracle.strain_rates(&elements, &shells, &x, &v, &model.mass, gravity, &Contacts::default(), &ImplicitSettings::default(), h, previous, &all);
            rates.iter().map(|r| r.strain).fold(0.0, f64::max)
        };
        println!("‖Ė‖² from Δẋ₀ = 0: {:e}", worst(&vec![Vec3::zeros(); x.len()]));
        let worst = worst(&rigid_change);
        assert!(worst < 1e-20, "‖Ė‖² up to {worst}");
    }
}
