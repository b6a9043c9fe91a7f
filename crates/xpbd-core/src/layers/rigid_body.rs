//! A rigid body made of mesh vertices, as the multi-layer solver uses it (the multi-layer paper §3, §3.4):
//! properties from member vertices (Eq. 21–26), symplectic stepping with the gyroscopic term and the
//! Rodrigues rotation update (Eq. 9–11), and member positions from the body (Eq. 12).

use crate::mesh::Vec3;
use nalgebra::Matrix3;

/// One rigid body. Its local frame is the world frame at the moment it was built (so `rotation`
/// starts at the identity and `inertia0` is Eq. 25 in world axes); member `i` sits at
/// `rotation · r[i] + com` (Eq. 12).
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBody {
    /// Eq. 21.
    pub mass: f64,
    /// Eq. 22.
    pub com: Vec3,
    /// Eq. 23.
    pub velocity: Vec3,
    /// Eq. 26 (world frame).
    pub omega: Vec3,
    pub rotation: Matrix3<f64>,
    /// Eq. 25, in the body frame.
    pub inertia0: Matrix3<f64>,
    /// Inverse of `inertia0`; zero where the members are collinear (no rotation about that axis).
    pub inertia0_inv: Matrix3<f64>,
}

impl RigidBody {
    /// Eq. 21–26 from the members' positions `x`, velocities `v` and masses `m`. Returns the body and
    /// the members' offsets `r_i = x_i − x_r` (Eq. 24), in the order of `members`.
    pub fn from_vertices(members: &[u32], x: &[Vec3], v: &[Vec3], m: &[f64]) -> (RigidBody, Vec<Vec3>) {
        let mass: f64 = members.iter().map(|&i| m[i as usize]).sum();
        let weighted = |f: &dyn Fn(usize) -> Vec3| members.iter().fold(Vec3::zeros(), |acc, &i| acc + f(i as usize) * m[i as usize]) / mass;
        let com = weighted(&|i| x[i]);
        let velocity = weighted(&|i| v[i]);
        let r: Vec<Vec3> = members.iter().map(|&i| x[i as usize] - com).collect();
        let mut inertia0 = Matrix3::zeros();
        let mut momentum = Vec3::zeros();
        for (k, &i) in members.iter().enumerate() {
            let (mi, ri) = (m[i as usize], r[k]);
            inertia0 += mi * (Matrix3::identity() * ri.norm_squared() - ri * ri.transpose());
            momentum += mi * ri.cross(&(v[i as usize] - velocity));
        }
        let inertia0_inv = pseudo_inverse(&inertia0);
        let body = RigidBody { mass, com, velocity, omega: inertia0_inv * momentum, rotation: Matrix3::identity(), inertia0, inertia0_inv };
        (body, r)
    }

    /// Whether the inertia is invertible: false for one member or members on one line, which have no
    /// inertia about some axis and so cannot take up a torque about it (`inertia0_inv` is zero there).
    pub fn turns_about_every_axis(&self) -> bool {
        let eig = self.inertia0.symmetric_eigenvalues();
        eig.min() > SINGULAR * eig.amax()
    }

    /// World inertia `R I₀ Rᵀ`.
    pub fn inertia(&self) -> Matrix3<f64> {
        self.rotation * self.inertia0 * self.rotation.transpose()
    }

    /// World inverse inertia `R I₀⁻¹ Rᵀ`.
    pub fn inertia_inv(&self) -> Matrix3<f64> {
        self.rotation * self.inertia0_inv * self.rotation.transpose()
    }

    /// Angular momentum `I ω` about the centre of mass.
    pub fn angular_momentum(&self) -> Vec3 {
        self.inertia() * self.omega
    }

    /// Kinetic energy `½ m |v|² + ½ ωᵀ I ω`.
    pub fn kinetic_energy(&self) -> f64 {
        0.5 * self.mass * self.velocity.norm_squared() + 0.5 * self.omega.dot(&(self.inertia() * self.omega))
    }

    /// One symplectic Euler step of length `h` under a force `f` through the centre of mass and a
    /// torque `tau`: Eq. 3–4 for the centre of mass, Eq. 10 (with the gyroscopic term `ω × Iω`) and
    /// Eq. 11 for the rotation.
    pub fn step(&mut self, h: f64, f: Vec3, tau: Vec3) {
        self.velocity += f * (h / self.mass);
        let i_omega = self.inertia() * self.omega;
        self.omega += self.inertia_inv() * (tau - self.omega.cross(&i_omega)) * h;
        self.com += self.velocity * h;
        self.rotate(self.omega * h);
    }

    /// `R ← exp(θ̂) R` for a rotation vector `θ` (Eq. 11 with θ = hω; also the once-per-iteration
    /// update from accumulated Δω of §3.2).
    pub fn rotate(&mut self, theta: Vec3) {
        self.rotation = rodrigues(theta) * self.rotation;
    }

    /// Position of a member with body-frame offset `r` (Eq. 12).
    pub fn position(&self, r: &Vec3) -> Vec3 {
        self.rotation * r + self.com
    }
}

/// `exp(θ̂)` by Rodrigues' formula: `I + sin φ K + (1 − cos φ) K²` with `φ = |θ|`, `K = θ̂ / φ`.
pub fn rodrigues(theta: Vec3) -> Matrix3<f64> {
    let phi = theta.norm();
    if phi < 1e-300 {
        return Matrix3::identity();
    }
    let k = (theta / phi).cross_matrix();
    Matrix3::identity() + k * phi.sin() + k * k * (1.0 - phi.cos())
}

/// Eigenvalues of an inertia below this fraction of the largest count as zero (collinear members).
const SINGULAR: f64 = 1e-12;

/// Inverse of a symmetric positive semi-definite inertia, zero on its null space. Full rank: the
/// exact inverse. Otherwise the members are collinear along some e (or one point), and the inertia is
/// λ(1 − e eᵀ) with λ = tr/2, whose pseudo-inverse is A/λ². Not V Λ⁻¹ Vᵀ from `symmetric_eigen`: with two
/// (nearly) equal principal moments, as in a square section, its eigenvectors are not orthonormal and
/// that product was wrong by up to 100 % (docs/multilayer.md).
fn pseudo_inverse(a: &Matrix3<f64>) -> Matrix3<f64> {
    let eig = a.symmetric_eigenvalues();
    if eig.min() > SINGULAR * eig.amax() {
        return a.try_inverse().unwrap_or_else(Matrix3::zeros);
    }
    let lambda = a.trace() / 2.0;
    if lambda > 0.0 {
        a / (lambda * lambda)
    } else {
        Matrix3::zeros()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Rotation3;

    /// The 8 corners of an a×b×c box centred at `c0`, each of mass `m`.
    fn box_corners(a: f64, b: f64, c: f64, c0: Vec3) -> Vec<Vec3> {
        let mut x = Vec::new();
        for i in 0..8 {
            let s = |k: usize| if i >> k & 1 == 1 { 0.5 } else { -0.5 };
            x.push(c0 + Vec3::new(s(0) * a, s(1) * b, s(2) * c));
        }
        x
    }

    #[test]
    fn box_corners_give_the_analytic_inertia_and_com() {
        // Eight point masses m at (±a/2, ±b/2, ±c/2): I_xx = 8 m (b² + c²)/4, products zero.
        let (a, b, c, m) = (3.0, 1.0, 0.5, 2.0);
        let x = box_corners(a, b, c, Vec3::new(1.0, -2.0, 4.0));
        let members: Vec<u32> = (0..8).collect();
        let (body, r) = RigidBody::from_vertices(&members, &x, &[Vec3::zeros(); 8], &[m; 8]);
        assert_eq!(body.mass, 16.0);
        assert!((body.com - Vec3::new(1.0, -2.0, 4.0)).norm() < 1e-14);
        let expect = Matrix3::from_diagonal(&Vec3::new(2.0 * m * (b * b + c * c), 2.0 * m * (a * a + c * c), 2.0 * m * (a * a + b * b)));
        assert!((body.inertia0 - expect).norm() < 1e-12, "{}", body.inertia0);
        assert!((body.inertia0 * body.inertia0_inv - Matrix3::identity()).norm() < 1e-12);
        for (k, &i) in members.iter().enumerate() {
            assert!((body.position(&r[k]) - x[i as usize]).norm() < 1e-14);
        }
    }

    #[test]
    fn inverse_inertia_with_equal_principal_moments() {
        // A turned a×b×b box has two equal principal moments, and a rod (collinear members) a zero
        // one with the other two equal: the inverse is exact, the rod's pseudo-inverse annuls it.
        let turn = Rotation3::from_scaled_axis(Vec3::new(0.3, -0.7, 0.5));
        let x: Vec<Vec3> = box_corners(3.0, 1.0, 1.0, Vec3::zeros()).iter().map(|p| turn * p).collect();
        let members: Vec<u32> = (0..8).collect();
        let (body, _) = RigidBody::from_vertices(&members, &x, &[Vec3::zeros(); 8], &[1.0; 8]);
        assert!(body.turns_about_every_axis());
        assert!((body.inertia0 * body.inertia0_inv - Matrix3::identity()).norm() < 1e-12, "{}", body.inertia0 * body.inertia0_inv);
        let rod: Vec<Vec3> = (0..4).map(|k| turn * Vec3::new(k as f64, 0.0, 0.0)).collect();
        let (body, _) = RigidBody::from_vertices(&[0, 1, 2, 3], &rod, &[Vec3::zeros(); 4], &[1.0; 4]);
        assert!(!body.turns_about_every_axis());
        let (a, a_inv) = (body.inertia0, body.inertia0_inv);
        assert!((a * a_inv * a - a).norm() < 1e-12 * a.norm() && (a_inv * a * a_inv - a_inv).norm() < 1e-12 * a_inv.norm(), "{a_inv}");
        assert!((a_inv * (turn * Vec3::x())).norm() < 1e-12);
    }

    #[test]
    fn velocities_of_a_rigid_motion_are_recovered() {
        // v_i = v + ω × r_i for every member: Eq. 23 and 26 return v and ω exactly.
        let x = box_corners(2.0, 1.0, 0.7, Vec3::new(0.3, 0.2, 0.1));
        let m = [1.0, 2.0, 1.5, 1.0, 3.0, 1.0, 0.5, 2.0];
        let (v0, w0) = (Vec3::new(1.0, -2.0, 0.5), Vec3::new(0.3, 2.0, -1.0));
        let members: Vec<u32> = (0..8).collect();
        let (probe, _) = RigidBody::from_vertices(&members, &x, &[Vec3::zeros(); 8], &m);
        let v: Vec<Vec3> = x.iter().map(|p| v0 + w0.cross(&(p - probe.com))).collect();
        let (body, _) = RigidBody::from_vertices(&members, &x, &v, &m);
        assert!((body.velocity - v0).norm() < 1e-12);
        assert!((body.omega - w0).norm() < 1e-12);
    }

    #[test]
    fn rodrigues_matches_known_rotations() {
        let q = rodrigues(Vec3::new(0.0, 0.0, std::f64::consts::FRAC_PI_2));
        assert!((q * Vec3::x() - Vec3::y()).norm() < 1e-15);
        assert!((q * Vec3::z() - Vec3::z()).norm() < 1e-15);
        let theta = Vec3::new(0.4, -1.3, 2.2);
        let reference = Rotation3::from_scaled_axis(theta);
        let r = rodrigues(theta);
        assert!((r - reference.matrix()).norm() < 1e-14);
        assert!((r * r.transpose() - Matrix3::identity()).norm() < 1e-14);
        assert!((r.determinant() - 1.0).abs() < 1e-14);
    }

    /// Spins an asymmetric free body for 1 s with step `h`; returns the largest relative drift of
    /// |L| (direction included) and of the kinetic energy.
    fn free_spin_drift(h: f64) -> (f64, f64) {
        let x = box_corners(3.0, 1.0, 0.5, Vec3::zeros());
        let members: Vec<u32> = (0..8).collect();
        let (mut body, _) = RigidBody::from_vertices(&members, &x, &[Vec3::zeros(); 8], &[1.0; 8]);
        body.omega = Vec3::new(0.2, 3.0, 0.5); // near the intermediate axis: strongly gyroscopic
        let (l0, e0) = (body.angular_momentum(), body.kinetic_energy());
        let (mut dl, mut de) = (0.0f64, 0.0f64);
        for _ in 0..(1.0 / h).round() as usize {
            body.step(h, Vec3::zeros(), Vec3::zeros());
            dl = dl.max((body.angular_momentum() - l0).norm() / l0.norm());
            de = de.max((body.kinetic_energy() - e0).abs() / e0);
        }
        (dl, de)
    }

    #[test]
    fn free_spin_conserves_momentum_and_energy_to_first_order() {
        // The explicit gyroscopic step is first order: the drift is small and halves with h.
        let (dl1, de1) = free_spin_drift(1e-3);
        let (dl2, de2) = free_spin_drift(5e-4);
        assert!(dl2 < 2e-3 && de2 < 2e-3, "drift {dl2} {de2}");
        let (rl, re) = (dl1 / dl2, de1 / de2);
        assert!((1.7..2.3).contains(&rl) && (1.7..2.3).contains(&re), "orders {rl} {re}");
    }

    #[test]
    fn symmetric_spin_is_exact() {
        // A cube spins about any axis without gyroscopic torque: ω stays, the rotation is exp(tω̂).
        let x = box_corners(1.0, 1.0, 1.0, Vec3::zeros());
        let members: Vec<u32> = (0..8).collect();
        let (mut body, r) = RigidBody::from_vertices(&members, &x, &[Vec3::zeros(); 8], &[1.0; 8]);
        let w = Vec3::new(1.0, 2.0, -0.5);
        body.omega = w;
        for _ in 0..100 {
            body.step(0.01, Vec3::zeros(), Vec3::zeros());
        }
        assert!((body.omega - w).norm() < 1e-12);
        let expect = Rotation3::from_scaled_axis(w * 1.0);
        assert!((body.rotation - expect.matrix()).norm() < 1e-12);
        assert!((body.position(&r[3]) - expect * x[3]).norm() < 1e-12);
    }

    #[test]
    fn gravity_gives_symplectic_euler_free_fall() {
        let x = box_corners(1.0, 2.0, 1.0, Vec3::zeros());
        let members: Vec<u32> = (0..8).collect();
        let (mut body, _) = RigidBody::from_vertices(&members, &x, &[Vec3::zeros(); 8], &[0.5; 8]);
        let (g, h, n) = (Vec3::new(0.0, -9.81, 0.0), 0.01, 50);
        for _ in 0..n {
            body.step(h, g * body.mass, Vec3::zeros());
        }
        // Symplectic Euler: x_n = g h² n(n+1)/2.
        assert!((body.com - g * (h * h * (n * (n + 1)) as f64 / 2.0)).norm() < 1e-12);
    }
}
