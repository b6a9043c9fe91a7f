//! The rigid bodies of one layer (the multi-layer paper §3.4, Algorithm 2 lines 9–16 and 20–22): built
//! from the members' positions and residual velocities, stepped, and placed back on the vertices.

use xpbd_core::layers::hierarchy::Layer;
use xpbd_core::layers::rigid_body::{rodrigues, RigidBody};
use xpbd_core::mesh::Vec3;

/// Flat arrays over the bodies of a layer; body `b` owns members `start[b]..start[b + 1]`.
pub struct LayerBodies {
    pub bodies: Vec<RigidBody>,
    pub start: Vec<usize>,
    pub members: Vec<u32>,
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
        let mut lb = LayerBodies {
            bodies: Vec::with_capacity(layer.bodies),
            boundary: members.iter().map(|&v| elastic_vertex[v as usize]).collect(),
            r: Vec::with_capacity(members.len()),
            deformation: vec![Vec3::zeros(); members.len()],
            solve_rotation: vec![Vec3::zeros(); layer.bodies],
            interior: Vec::with_capacity(layer.bodies),
            interior_offset: Vec::with_capacity(layer.bodies),
            start,
            members,
        };
        for b in 0..layer.bodies {
            let m = &lb.members[lb.start[b]..lb.start[b + 1]];
            let (body, r) = RigidBody::from_vertices(m, x, v_res, mass);
            let inner: Vec<u32> = m.iter().zip(&lb.boundary[lb.start[b]..]).filter(|p| !*p.1).map(|p| *p.0).collect();
            let interior = (!inner.is_empty()).then(|| RigidBody::from_vertices(&inner, x, v_res, mass).0);
            lb.interior_offset.push(interior.as_ref().map_or(Vec3::zeros(), |i| i.com - body.com));
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
        for b in 0..self.bodies.len() {
            let body = &mut self.bodies[b];
            let back = rodrigues(-h * body.omega);
            body.step(h, Vec3::zeros(), Vec3::zeros());
            for k in self.start[b]..self.start[b + 1] {
                let i = self.members[k] as usize;
                let moved = body.position(&self.r[k]);
                let spin = (self.r[k] - back * self.r[k]) / h;
                let w = v_res[i] - body.velocity - spin;
                v_res[i] = body.rotation * spin + body.velocity - (moved - x[i]) / h;
                x[i] = moved;
                if self.boundary[k] {
                    x[i] += w * h;
                } else {
                    v_res[i] += w;
                    self.deformation[k] = w;
                }
            }
        }
    }

    /// Puts the members without a glue constraint on their body (Eq. 12).
    pub fn place_interior(&self, x: &mut [Vec3]) {
        for (b, body) in self.bodies.iter().enumerate() {
            for k in self.start[b]..self.start[b + 1] {
                if !self.boundary[k] {
                    x[self.members[k] as usize] = body.position(&self.r[k]);
                }
            }
        }
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
        for b in 0..self.bodies.len() {
            let q = rodrigues(self.solve_rotation[b]);
            for k in self.start[b]..self.start[b + 1] {
                let (i, w) = (self.members[k] as usize, self.deformation[k]);
                v_res[i] = q * (v_res[i] - w) + w;
            }
        }
    }
}
