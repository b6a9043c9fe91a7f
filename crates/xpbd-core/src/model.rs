//! The simulation model: what is simulated, everything that does not change during a run, in flat
//! arrays that map one-to-one onto GPU buffers. How it is solved is the separate
//! [`SolverConfig`](crate::solver_config::SolverConfig). Built from a scene by `scene::build`. All
//! bodies share one vertex array; element indices are global.

use crate::collider::Collider;
use crate::constraint::pbd::PbdStiffness;
use crate::constraint::strain_limit::StrainLimit;
use crate::constraint::tet::TetRest;
use crate::constraint::tet_model::{TetModel, TetParams};
use crate::contact::ContactModel;
use crate::fem::shell::{HingeRest, ShapeOperatorRest, ShellMaterial, TriangleRest};
use crate::material::Lame;
use crate::mesh::Vec3;
use nalgebra::Matrix2;
use std::ops::Range;

/// A body's place in the shared arrays.
#[derive(Clone, Debug)]
pub struct Body {
    pub name: String,
    pub vertices: Range<usize>,
    /// Boundary triangles (global vertex indices), outward; for cloth, its triangles.
    pub surface: Vec<[u32; 3]>,
    /// Its tetrahedra (global indices), its tet groups' tetrahedra one group after the other (the mesh's
    /// order when it has one material); empty for cloth.
    pub tets: Vec<[u32; 4]>,
}

/// The tetrahedra of one body that share one material model and one set of parameters: the whole body, or
/// one of its `[[body.region]]`s or the rest (a body's groups are consecutive in `Model::tet_groups`).
#[derive(Clone, Debug)]
pub struct TetGroup {
    pub body: usize,
    pub model: TetModel,
    /// Constraint Lamé parameters (reparametrised for stable neo-Hookean).
    pub lame: Lame,
    /// XPBD damping β (s).
    pub damping: f64,
    /// Rayleigh damping of the implicit solvers.
    pub rayleigh: Rayleigh,
    pub tets: Vec<[u32; 4]>,
    pub rest: Vec<TetRest>,
    /// Index of this group's first multiplier in the state's multiplier array.
    pub lambda_offset: usize,
}

impl TetGroup {
    pub fn params(&self, h: f64) -> TetParams {
        TetParams::new(self.model, self.lame, self.damping, h)
    }
    pub fn rows(&self) -> usize {
        self.tets.len() * self.model.rows()
    }
}

/// Rayleigh damping D = α₀M + α₁K of the implicit solvers (thesis Eq. 3.5, heterogeneous per body: the mass
/// part lumped like the mass, the stiffness part per element).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rayleigh {
    /// α₀ (1/s).
    pub mass: f64,
    /// α₁ (s).
    pub stiffness: f64,
}

/// Cloth of one body: edge distance constraints and dihedral hinges.
#[derive(Clone, Debug)]
pub struct ClothGroup {
    pub body: usize,
    pub damping: f64,
    pub edges: Vec<[u32; 2]>,
    pub rest_length: Vec<f64>,
    /// m/N.
    pub stretch_compliance: f64,
    /// (x0, x1; x2, x3): the shared edge, then the two opposite vertices.
    pub hinges: Vec<[u32; 4]>,
    pub rest_angle: Vec<f64>,
    /// Per hinge, 1/(N·m): one raw `bending_compliance` for all, or from `bending_stiffness` by
    /// [`crate::constraint::bending::plate_compliance`].
    pub bending_compliance: Vec<f64>,
    /// Multipliers: edges first, then hinges.
    pub lambda_offset: usize,
    /// PBD stiffnesses instead of compliances (the cloth report's baseline): the compliances are then 0 and
    /// the multipliers stay 0.
    pub pbd: Option<PbdStiffness>,
    /// Bounds on the triangles' principal stretches, projected after each iteration (`None`: off).
    pub strain_limit: Option<StrainLimit>,
    /// With a strain limit, the triangles and their rest frames D_m⁻¹; empty without.
    pub tris: Vec<[u32; 3]>,
    pub tri_rest: Vec<Matrix2<f64>>,
}

impl ClothGroup {
    pub fn rows(&self) -> usize {
        self.edges.len() + self.hinges.len()
    }
}

/// A thin shell of one body (thesis "Adaptive methods for elastic deformation" ch. 4): membrane triangles and
/// bending hinges with physical parameters, for the implicit solvers.
#[derive(Clone, Debug)]
pub struct ShellGroup {
    pub body: usize,
    pub material: ShellMaterial,
    /// Rayleigh damping of the implicit solvers.
    pub rayleigh: Rayleigh,
    pub triangles: Vec<[u32; 3]>,
    pub triangle_rest: Vec<TriangleRest>,
    /// (x0, x1; x2, x3): the shared edge, then the two opposite vertices.
    pub hinges: Vec<[u32; 4]>,
    pub hinge_rest: Vec<HingeRest>,
    /// The hinge (index into `hinges`) on each triangle's edge i, opposite its vertex i; `None` on the border.
    pub triangle_hinges: Vec<[Option<u32>; 3]>,
    /// Each triangle's shape-operator bending constant Q (`bending = "shape_operator"`; empty for `hinge`).
    pub plate_rest: Vec<ShapeOperatorRest>,
    /// Bounds on each elastic triangle's principal stretches, projected after each step (thesis §4.4.3).
    pub strain_limit: Option<StrainLimit>,
}

/// A vertex held on a prescribed path x(t) = origin + velocity·t: hard (inverse mass 0) when
/// `compliance` is 0, else a soft attachment with that compliance (m/N) per axis.
#[derive(Clone, Copy, Debug)]
pub struct Attachment {
    pub vertex: u32,
    pub origin: Vec3,
    pub velocity: Vec3,
    pub compliance: f64,
}

/// A tracked vertex.
#[derive(Clone, Debug)]
pub struct Probe {
    pub name: String,
    pub vertex: u32,
}

#[derive(Clone, Debug)]
pub struct Model {
    pub name: String,
    pub gravity: Vec3,
    /// Rest positions of all vertices (world frame at t = 0).
    pub rest: Vec<Vec3>,
    /// Positions at t = 0: the rest positions, or a body's `initial_deform` of them.
    pub initial_position: Vec<Vec3>,
    pub initial_velocity: Vec<Vec3>,
    /// Lumped masses (kg) before pinning.
    pub mass: Vec<f64>,
    /// Inverse masses, 0 for hard-pinned vertices.
    pub inv_mass: Vec<f64>,
    pub bodies: Vec<Body>,
    pub tet_groups: Vec<TetGroup>,
    pub cloth_groups: Vec<ClothGroup>,
    pub shell_groups: Vec<ShellGroup>,
    /// Hard pins that move (inverse mass 0, velocity ≠ 0) and soft attachments.
    pub attachments: Vec<Attachment>,
    pub colliders: Vec<Collider>,
    /// Contact between and within bodies: which pairs, the thickness, friction, the surfaces.
    pub contact: ContactModel,
    pub probes: Vec<Probe>,
    /// Total number of elastic multipliers (rows).
    pub rows: usize,
}

impl Model {
    pub fn vertex_count(&self) -> usize {
        self.rest.len()
    }
    pub fn element_count(&self) -> usize {
        self.tet_groups.iter().map(|g| g.tets.len()).sum::<usize>() + self.bodies.iter().filter(|b| b.tets.is_empty()).map(|b| b.surface.len()).sum::<usize>()
    }
    pub fn body_of_vertex(&self, v: usize) -> usize {
        self.bodies.iter().position(|b| b.vertices.contains(&v)).expect("vertex in a body")
    }
}
