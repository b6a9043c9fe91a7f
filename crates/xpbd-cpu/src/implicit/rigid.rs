//! The rigid bodies of an adaptive run (thesis "Adaptive methods for elastic deformation", §3.3.2, §3.3.4):
//! built from the members' current positions and velocities so that linear and angular momentum are kept
//! exactly, stepped by their (v, ω) with the Rodrigues update, and their members placed at R rᵢ + p.

use xpbd_core::implicit::bodies::RigidPattern;
use xpbd_core::layers::rigid_body::RigidBody;
use xpbd_core::mesh::Vec3;

#[derive(Default)]
pub struct Bodies {
    pub bodies: Vec<RigidBody>,
    /// Member vertices of each body and their offsets rᵢ in the body frame.
    pub members: Vec<Vec<u32>>,
    pub offsets: Vec<Vec<Vec3>>,
    /// α₀ of each body (its elements' body's mass damping).
    pub mass_damping: Vec<f64>,
}

impl Bodies {
    /// The bodies of `pattern` from the members' positions `x`, velocities `v` and masses (Eq. 21–26 of the
    /// multi-layer paper, as §3.3.4: orientation the identity, momentum about the centre of mass matched).
    pub fn build(pattern: &RigidPattern, x: &[Vec3], v: &[Vec3], mass: &[f64], mass_damping: &[f64]) -> Self {
        let mut members = vec![Vec::new(); pattern.bodies];
        for (i, b) in pattern.vertex_body.iter().enumerate() {
            if let Some(b) = b {
                members[*b as usize].push(i as u32);
            }
        }
        let mut out = Bodies::default();
        for m in members {
            let (body, r) = RigidBody::from_vertices(&m, x, v, mass);
            out.mass_damping.push(mass_damping[m[0] as usize]);
            out.bodies.push(body);
            out.offsets.push(r);
            out.members.push(m);
        }
        out
    }

    /// Advances each body's pose by h with its current (v, ω): p += h v, R ← exp(h ω) R.
    pub fn advance(&mut self, h: f64) {
        for b in &mut self.bodies {
            b.com += b.velocity * h;
            b.rotate(b.omega * h);
        }
    }

    /// Each body's (v, ω).
    pub fn motions(&self) -> Vec<(Vec3, Vec3)> {
        self.bodies.iter().map(|b| (b.velocity, b.omega)).collect()
    }

    /// The velocity change of a step from the bodies' motions `before` and the velocities `v_before`: on each
    /// member its body's Δv + Δω × (x − c), a rigid field; on every other vertex v − v_before. (A member's velocity
    /// vector also turns with its body, by h ω × (ω × r) for a spin ω; that part is no deformation, and as a
    /// velocity field it has the strain rate −hω² across the axis.)
    pub fn velocity_change(&self, before: &[(Vec3, Vec3)], v_before: &[Vec3], x: &[Vec3], v: &[Vec3]) -> Vec<Vec3> {
        let mut out: Vec<Vec3> = v.iter().zip(v_before).map(|(v, b)| v - b).collect();
        for ((b, members), (v0, w0)) in self.bodies.iter().zip(&self.members).zip(before) {
            let (dv, dw) = (b.velocity - v0, b.omega - w0);
            for &i in members {
                out[i as usize] = dv + dw.cross(&(x[i as usize] - b.com));
            }
        }
        out
    }

    /// Members' positions R rᵢ + p and velocities v + ω × R rᵢ.
    pub fn place_members(&self, x: &mut [Vec3], v: &mut [Vec3]) {
        for ((b, members), offsets) in self.bodies.iter().zip(&self.members).zip(&self.offsets) {
            for (&i, r) in members.iter().zip(offsets) {
                x[i as usize] = b.position(r);
                v[i as usize] = b.velocity + b.omega.cross(&(x[i as usize] - b.com));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rigidification keeps linear and angular momentum about the centre of mass exactly (§3.3.4), whatever
    /// non-rigid part the members' velocities had.
    #[test]
    fn building_bodies_keeps_momentum() {
        let mut rng = fastrand::Rng::with_seed(7);
        let mut r = || rng.f64() * 2.0 - 1.0;
        let n = 12;
        let x: Vec<Vec3> = (0..n).map(|_| Vec3::new(r(), r(), r())).collect();
        let mut v: Vec<Vec3> = (0..n).map(|_| Vec3::new(r(), r(), r())).collect();
        let mass: Vec<f64> = (0..n).map(|i| 0.5 + i as f64 * 0.1).collect();
        let momenta = |x: &[Vec3], v: &[Vec3]| {
            let m: f64 = mass.iter().sum();
            let com = mass.iter().zip(x).map(|(m, x)| x * *m).sum::<Vec3>() / m;
            let p: Vec3 = mass.iter().zip(v).map(|(m, v)| v * *m).sum();
            let l: Vec3 = mass.iter().zip(x.iter().zip(v)).map(|(m, (x, v))| (x - com).cross(&(v * *m))).sum();
            (p, l)
        };
        let (p0, l0) = momenta(&x, &v);
        let pattern = RigidPattern { element_body: vec![Some(0)], vertex_body: vec![Some(0); n], bodies: 1 };
        let bodies = Bodies::build(&pattern, &x, &v, &mass, &[0.0; 12]);
        let mut xr = x.clone();
        bodies.place_members(&mut xr, &mut v);
        let (p, l) = momenta(&xr, &v);
        assert!(xr.iter().zip(&x).all(|(a, b)| (a - b).norm() < 1e-14), "members stay where they were");
        assert!((p - p0).norm() <= 1e-12 * p0.norm(), "{p0} → {p}");
        assert!((l - l0).norm() <= 1e-12 * l0.norm(), "{l0} → {l}");
    }
}
