//! The rigid bodies of one layer (the multi-layer paper §3.4, Algorithm 2 lines 9–16 and 20–22): built
//! from the members' positions and residual velocities, stepped, and placed back on the vertices. The
//! bodies are built and stepped in parallel, one per task, and their members placed in parallel: a vertex
//! is a member of one body only, so no two tasks write one vertex, and every sum is one body's, over its
//! members in order (the results do not depend on the thread count).

use crate::block_families::VERTEX_GRAIN;
use crate::shared::SharedMut;
use rayon::prelude::*;
use xpbd_core::layers::hierarchy::Layer;
use xpbd_core::layers::rigid_body::{rodrigues, RigidBody};
use xpbd_core::mesh::Vec3;

/// Flat arrays over the bodies of a layer; body `b` owns members `start[b]..start[b + 1]`.
pub struct LayerBodies {
    pub bodies: Vec<RigidBody>,
    pub start: Vec<usize>,
    pub members: Vec<u32>,
    /// The body of every member.
    body_of: Vec<u32>,
    /// Member offsets in the body frame (Eq. 24), fixed for the layer.
    pub r: Vec<Vec3>,
    /// Members that are also vertices of an elastic element: they carry a glue constraint (Eq. 13).
    pub boundary: Vec<bool>,
    /// Interior members' deformation velocities `v − v_r − s` at the step (world frame, `s` the spin
    /// part of [`Self::step`]), never rotated; zero for boundary members, which take theirs at the step.
    pub deformation: Vec<Vec3>,
    /// Σ Δθ of the glue solves of this layer per body, for the residual rotation (line 21).
    pub solve_rotation: Vec<Vec3>,
    /// What answers the glue constraints: the body's interior members (those without a glue
    /// constraint) as a rigid body of their own, `None` when every member is on the boundary. Counting
    /// the boundary vertices in both the elastic and the rigid view, as Eq. 21 does, would create
    /// momentum at every glue solve (docs/multilayer.md).
    pub interior: Vec<Option<RigidBody>>,
    /// The interior's centre of mass minus the body's, in the body frame.
    pub interior_offset: Vec<Vec3>,
}

impl LayerBodies {
    /// Eq. 21–26 for every body of `layer` from the positions `x` and residual velocities `v_res`.
    /// Layers hold no pinned vertex (`multilayer::dissolve_pinned`).
    pub fn build(layer: &Layer, tets: &[[u32; 4]], x: &[Vec3], v_res: &[Vec3], mass: &[f64]) -> Self {
        let vertex_body = layer.vertex_body(tets, x.len());
        let mut elastic_vertex = vec![false; x.len()];
        for (t, b) in tets.iter().zip(&layer.element_body) {
            if b.is_none() {
                t.iter().for_each(|&v| elastic_vertex[v as usize] = true);
            }
        }
        // Counting sort of the rigid vertices by body.
        let mut start = vec![0usize; layer.bodies + 1];
        for b in vertex_body.iter().flatten() {
            start[*b as usize + 1] += 1;
        }
        for b in 0..layer.bodies {
            start[b + 1] += start[b];
        }
        let mut fill = start.clone();
        let mut members = vec![0u32; start[layer.bodies]];
        for (v, b) in vertex_body.iter().enumerate() {
            if let Some(b) = b {
                members[fill[*b as usize]] = v as u32;
                fill[*b as usize] += 1;
            }
        }
        let body_of = (0..layer.bodies).flat_map(|b| std::iter::repeat_n(b as u32, start[b + 1] - start[b])).collect();
        let boundary: Vec<bool> = members.iter().map(|&v| elastic_vertex[v as usize]).collect();
        let built: Vec<_> = (0..layer.bodies)
            .into_par_iter()
            .map(|b| {
                let (m, boundary) = (&members[start[b]..start[b + 1]], &boundary[start[b]..start[b + 1]]);
                let (body, r) = RigidBody::from_vertices(m, x, v_res, mass);
                let inner: Vec<u32> = m.iter().zip(boundary).filter(|p| !*p.1).map(|p| *p.0).collect();
                let interior = (!inner.is_empty()).then(|| RigidBody::from_vertices(&inner, x, v_res, mass).0);
                (interior.as_ref().map_or(Vec3::zeros(), |i| i.com - body.com), interior, body, r)
            })
            .collect();
        let mut lb = LayerBodies {
            bodies: Vec::with_capacity(layer.bodies),
            deformation: vec![Vec3::zeros(); members.len()],
            r: Vec::with_capacity(members.len()),
            solve_rotation: vec![Vec3::zeros(); layer.bodies],
            interior: Vec::with_capacity(layer.bodies),
            interior_offset: Vec::with_capacity(layer.bodies),
            boundary,
            body_of,
            start,
            members,
        };
        for (offset, interior, body, r) in built {
            lb.interior_offset.push(offset);
            lb.interior.push(interior);
            lb.bodies.push(body);
            lb.r.extend(r);
        }
        lb
    }

    /// Steps every body by `h` (its velocities already hold gravity through the residual
    /// velocities), moves its members with it (Eq. 12) and takes the rigid motion out of their
    /// residual velocities (Eq. 27). Eq. 27 rotates the whole residual velocity; we rotate only its
    /// spin part (docs/multilayer.md): `v ← R s + w + v_r − Δx/h` with `s = (r − exp(−hω̂) r)/h`, the
    /// velocity `(x − x_prev)/h` a body spinning at ω has under this integrator (ω × r plus its chord
    /// term), and the deformation velocity `w = v − v_r − s`. Turning `v_r` would leave (R − I) P
    /// behind as an impulse, and turning `w` is a Coriolis push ω × w per unit time: it created angular
    /// momentum in a deforming body that did not shrink with h. A steadily spinning body (w = 0) still
    /// cancels exactly.
    ///
    /// A boundary member is a vertex of an elastic element too, elastic in this layer like the
    /// vertices of Algorithm 2 lines 5–8, so it takes its deformation step `h w` now, on top of the
    /// body's motion, instead of keeping `w` in its residual for a later layer. The elastic projections
    /// then act where XPBD's would, at positions that include the deformation: a projection changes
    /// the substep's final angular momentum by `−Σ m (x − x_start) × Δx / h`, and with the boundary
    /// members held at the rigid positions that error was 15–90× XPBD's at 16 substeps (docs/multilayer.md).
    pub fn step(&mut self, h: f64, x: &mut [Vec3], v_res: &mut [Vec3]) {
        let back: Vec<_> = self
            .bodies
            .par_iter_mut()
            .map(|body| {
                let back = rodrigues(-h * body.omega);
                body.step(h, Vec3::zeros(), Vec3::zeros());
                back
            })
            .collect();
        let (x, v_res) = (SharedMut::new(x), SharedMut::new(v_res));
        let (bodies, body_of, members, r, boundary) = (&self.bodies, &self.body_of, &self.members, &self.r, &self.boundary);
        self.deformation.par_iter_mut().enumerate().with_min_len(VERTEX_GRAIN).for_each(|(k, deformation)| {
            let (b, i) = (body_of[k] as usize, members[k] as usize);
            let body = &bodies[b];
            let moved = body.position(&r[k]);
            let spin = (r[k] - back[b] * r[k]) / h;
            // SAFETY: member `k` is the only one at vertex `i` (a vertex is in one body, once).
            unsafe {
                let (xi, vi) = (x.get(i), v_res.get(i));
                let w = vi - body.velocity - spin;
                let v = body.rotation * spin + body.velocity - (moved - xi) / h;
                if boundary[k] {
                    x.update(i, |p| *p = moved + w * h);
                    v_res.update(i, |p| *p = v);
                } else {
                    x.update(i, |p| *p = moved);
                    v_res.update(i, |p| *p = v + w);
                    *deformation = w;
                }
            }
        });
    }

    /// Puts the members without a glue constraint on their body (Eq. 12).
    pub fn place_interior(&self, x: &mut [Vec3]) {
        let x = SharedMut::new(x);
        self.members.par_iter().enumerate().with_min_len(VERTEX_GRAIN).filter(|&(k, _)| !self.boundary[k]).for_each(|(k, &i)| {
            let at = self.bodies[self.body_of[k] as usize].position(&self.r[k]);
            // SAFETY: member `k` is the only one at vertex `i`.
            unsafe { x.update(i as usize, |p| *p = at) }
        });
    }

    /// Per vertex: whether it moves with a body in this layer (a member without a glue constraint).
    pub fn interior_mask(&self, vertices: usize) -> Vec<bool> {
        let mut mask = vec![false; vertices];
        for (k, &v) in self.members.iter().enumerate() {
            mask[v as usize] = !self.boundary[k];
        }
        mask
    }

    /// Rotates the rigid part of the members' residual velocities (all but the deformation velocity,
    /// as in [`Self::step`]) by the rotation the solves gave their body (Algorithm 2 lines 20–22).
    pub fn rotate_residuals(&self, v_res: &mut [Vec3]) {
        let q: Vec<_> = self.solve_rotation.par_iter().map(|&theta| rodrigues(theta)).collect();
        let v_res = SharedMut::new(v_res);
        self.members.par_iter().enumerate().with_min_len(VERTEX_GRAIN).for_each(|(k, &i)| {
            let (q, w) = (&q[self.body_of[k] as usize], self.deformation[k]);
            // SAFETY: member `k` is the only one at vertex `i`.
            unsafe { v_res.update(i as usize, |v| *v = q * (*v - w) + w) }
        });
    }
}
