//! A typed builder of [`Scene`] values, for code that makes scenes (tests, studies) without writing
//! scene text: `SceneBuilder::new("beam").substeps(10).body(BodyBuilder::new("b").box_mesh(..)
//! .material(Material::neohookean_block(..)).pin_box(..)).build()`. Every field left alone keeps the
//! default of docs/scene-format.md, so a builder scene equals the scene parsed from the same text.

use super::schema::{Aabb, Body, Collider, Contact, CylinderSelection, InitialDeform, Material, MeshSource, PathKey, Pin, Probe, Region, Scene, Solver};
use super::{build, Built};
use crate::Result;
use std::path::Path;

/// Setters that each set one field to their argument: `"doc" name: type => field path;`.
macro_rules! setters {
    ($($doc:literal $name:ident: $ty:ty => $($path:ident).+;)*) => {
        $(
            #[doc = $doc]
            pub fn $name(mut self, value: $ty) -> Self {
                self.$($path).+ = value;
                self
            }
        )*
    };
}

/// Setters of optional fields (`Option<T>`), each named after its field, taking the `T`.
macro_rules! option_setters {
    ($($doc:literal $name:ident: $ty:ty;)*) => {
        $(
            #[doc = $doc]
            pub fn $name(mut self, value: $ty) -> Self {
                self.$name = Some(value);
                self
            }
        )*
    };
}

/// Builds a [`Scene`]: the `[simulation]`, `[solver]` and `[output]` tables and the `[[body]]`,
/// `[[collider]]` and `[[probe]]` arrays.
#[derive(Clone, Debug)]
pub struct SceneBuilder {
    scene: Scene,
}

impl SceneBuilder {
    /// `name`; everything else at its default.
    pub fn new(name: &str) -> Self {
        let scene = Scene {
            name: name.into(),
            simulation: Default::default(),
            solver: Default::default(),
            bodies: Vec::new(),
            colliders: Vec::new(),
            contact: Default::default(),
            probes: Vec::new(),
            output: Default::default(),
            render: None,
        };
        SceneBuilder { scene }
    }

    setters! {
        "`simulation.dt` (s)." dt: f64 => scene.simulation.dt;
        "`simulation.frames`." frames: usize => scene.simulation.frames;
        "`simulation.substeps`." substeps: usize => scene.simulation.substeps;
        "`simulation.iterations`." iterations: usize => scene.simulation.iterations;
        "`simulation.gravity` (m/s²)." gravity: [f64; 3] => scene.simulation.gravity;
        "`simulation.velocity_damping` (1/s)." velocity_damping: f64 => scene.simulation.velocity_damping;
        "The `[solver]` table." solver: Solver => scene.solver;
        "`output.every`." every: usize => scene.output.every;
        "`output.contact_forces`." contact_forces: bool => scene.output.contact_forces;
        "`output.partition`." partition: bool => scene.output.partition;
        "The `[contact]` table." contact: Contact => scene.contact;
    }

    /// `output.formats`.
    pub fn formats(mut self, formats: &[&str]) -> Self {
        self.scene.output.formats = formats.iter().map(|f| f.to_string()).collect();
        self
    }

    /// One `[[body]]`.
    pub fn body(mut self, body: BodyBuilder) -> Self {
        self.scene.bodies.push(body.body);
        self
    }

    /// One `[[collider]]`.
    pub fn collider(mut self, collider: Collider) -> Self {
        self.scene.colliders.push(collider);
        self
    }

    /// One `[[probe]]`: `name`, the `body` it tracks and the world `point` at rest.
    pub fn probe(mut self, name: &str, body: &str, point: [f64; 3]) -> Self {
        self.scene.probes.push(Probe { name: name.into(), body: body.into(), point });
        self
    }

    /// The scene.
    pub fn build(self) -> Scene {
        self.scene
    }

    /// [`build`](super::build)s the scene, mesh files relative to `base_dir`.
    pub fn built(self, base_dir: &Path) -> Result<Built> {
        build(&self.scene, base_dir)
    }
}

/// Builds one `[[body]]`; `mesh` and `material` are required, as in a scene file.
#[derive(Clone, Debug)]
pub struct BodyBuilder {
    body: Body,
}

impl BodyBuilder {
    /// `name`; the mesh and material are still to be set.
    pub fn new(name: &str) -> Self {
        let body = Body {
            name: name.into(),
            mesh: MeshSource::default(),
            translate: [0.0; 3],
            rotate: [0.0; 3],
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            initial_deform: None,
            material: Material::default(),
            regions: Vec::new(),
            pin: Vec::new(),
            damping: 0.0,
            rayleigh: None,
            friction: None,
            static_friction: None,
        };
        BodyBuilder { body }
    }

    /// `mesh = { generator = "box", size, cells }`.
    pub fn box_mesh(self, size: [f64; 3], cells: [usize; 3]) -> Self {
        self.mesh(MeshSource { generator: Some("box".into()), size: Some(size.to_vec()), cells: Some(cells.to_vec()), ..Default::default() })
    }

    /// `mesh = { generator = "grid2d", size, cells }`: cloth.
    pub fn grid2d(self, size: [f64; 2], cells: [usize; 2]) -> Self {
        self.mesh(MeshSource { generator: Some("grid2d".into()), size: Some(size.to_vec()), cells: Some(cells.to_vec()), ..Default::default() })
    }

    /// `mesh = { file, scale }`.
    pub fn mesh_file(self, file: &str, scale: f64) -> Self {
        self.mesh(MeshSource { file: Some(file.into()), scale: Some(scale), ..Default::default() })
    }

    /// `mesh.split` (5 or 6 tets per cell).
    pub fn split(mut self, split: u8) -> Self {
        self.body.mesh.split = Some(split);
        self
    }

    setters! {
        "The whole `mesh` table (the other generators and their fields)." mesh: MeshSource => body.mesh;
        "`translate` (m)." translate: [f64; 3] => body.translate;
        "`rotate` (degrees about x, then y, then z)." rotate: [f64; 3] => body.rotate;
        "`velocity` (m/s)." velocity: [f64; 3] => body.velocity;
        "`angular_velocity` (rad/s)." angular_velocity: [f64; 3] => body.angular_velocity;
        "`material`." material: Material => body.material;
        "`damping`: XPBD constraint damping β (s)." damping: f64 => body.damping;
    }

    /// `rayleigh = [alpha0, alpha1]` (implicit solvers).
    pub fn rayleigh(mut self, alpha0: f64, alpha1: f64) -> Self {
        self.body.rayleigh = Some([alpha0, alpha1]);
        self
    }

    /// `friction`: the Coulomb coefficient of this body's contacts with bodies.
    pub fn friction(mut self, mu: f64) -> Self {
        self.body.friction = Some(mu);
        self
    }

    /// `initial_deform`.
    pub fn initial_deform(mut self, d: InitialDeform) -> Self {
        self.body.initial_deform = Some(d);
        self
    }

    /// One entry of `pin`.
    pub fn pin(mut self, pin: Pin) -> Self {
        self.body.pin.push(pin);
        self
    }

    /// One `[[body.region]]`.
    pub fn region(mut self, region: Region) -> Self {
        self.body.regions.push(region);
        self
    }

    /// One entry of `pin`: `{ box = { min, max } }`, held fixed.
    pub fn pin_box(self, min: [f64; 3], max: [f64; 3]) -> Self {
        self.pin(Pin { region: Some(Aabb { min, max }), ..Default::default() })
    }

    /// One entry of `pin`: `{ indices }`, held fixed.
    pub fn pin_indices(self, indices: &[u32]) -> Self {
        self.pin(Pin { indices: Some(indices.to_vec()), ..Default::default() })
    }
}

impl Material {
    /// `{ model, youngs, poisson, density }`: a tetrahedral model (`neohookean`, `neohookean_block`,
    /// `stvk`, `arap`).
    pub fn tet(model: &str, youngs: f64, poisson: f64, density: f64) -> Self {
        Material { model: model.into(), youngs: Some(youngs), poisson: Some(poisson), density: Some(density), ..Default::default() }
    }

    /// `{ model = "neohookean_block", youngs, poisson, density }`.
    pub fn neohookean_block(youngs: f64, poisson: f64, density: f64) -> Self {
        Self::tet("neohookean_block", youngs, poisson, density)
    }

    /// `{ model = "shell", youngs, poisson, density, thickness }` (StVK membrane).
    pub fn shell(youngs: f64, poisson: f64, density: f64, thickness: f64) -> Self {
        Material { thickness: Some(thickness), ..Self::tet("shell", youngs, poisson, density) }
    }

    /// `{ model = "cloth", areal_density, stretch_compliance, bending_compliance }`.
    pub fn cloth(areal_density: f64, stretch_compliance: f64, bending_compliance: f64) -> Self {
        Material {
            model: "cloth".into(),
            areal_density: Some(areal_density),
            stretch_compliance: Some(stretch_compliance),
            bending_compliance: Some(bending_compliance),
            ..Default::default()
        }
    }

    /// `{ model = "cloth", areal_density, pbd_stretch, pbd_bending }`: the PBD baseline (docs/cloth.md).
    pub fn cloth_pbd(areal_density: f64, stretch: f64, bending: f64) -> Self {
        Material { model: "cloth".into(), areal_density: Some(areal_density), pbd_stretch: Some(stretch), pbd_bending: Some(bending), ..Default::default() }
    }

    /// `{ model = "cloth", areal_density, stretch_compliance, bending_stiffness }`: bending from the plate
    /// modulus D (N·m), independent of the triangulation (docs/cloth.md).
    pub fn cloth_plate(areal_density: f64, stretch_compliance: f64, bending_stiffness: f64) -> Self {
        Material {
            model: "cloth".into(),
            areal_density: Some(areal_density),
            stretch_compliance: Some(stretch_compliance),
            bending_stiffness: Some(bending_stiffness),
            ..Default::default()
        }
    }
}

impl Region {
    /// `{ box = { min, max }, material }`.
    pub fn in_box(min: [f64; 3], max: [f64; 3], material: Material) -> Self {
        Region { aabb: Some(Aabb { min, max }), cylinder: None, material }
    }

    /// `{ cylinder = { point, axis, radius }, material }`.
    pub fn in_cylinder(point: [f64; 3], axis: [f64; 3], radius: f64, material: Material) -> Self {
        Region { aabb: None, cylinder: Some(CylinderSelection { point, axis, radius }), material }
    }
}

impl Collider {
    /// `kind = "plane"`, `point`, `normal`.
    pub fn plane(point: [f64; 3], normal: [f64; 3]) -> Self {
        Collider { kind: "plane".into(), point: Some(point), normal: Some(normal), ..Default::default() }
    }

    /// `kind = "sphere"`, `center`, `radius`.
    pub fn sphere(center: [f64; 3], radius: f64) -> Self {
        Collider { kind: "sphere".into(), center: Some(center), radius: Some(radius), ..Default::default() }
    }

    /// `kind = "box"`, `min`, `max`.
    pub fn aabb(min: [f64; 3], max: [f64; 3]) -> Self {
        Collider { kind: "box".into(), min: Some(min), max: Some(max), ..Default::default() }
    }

    /// `kind = "cylinder"`, `point`, `axis`, `radius`.
    pub fn cylinder(point: [f64; 3], axis: [f64; 3], radius: f64) -> Self {
        Collider { kind: "cylinder".into(), point: Some(point), axis: Some(axis), radius: Some(radius), ..Default::default() }
    }

    /// `kind = "capsule"`, segment ends `a`, `b`, `radius`.
    pub fn capsule(a: [f64; 3], b: [f64; 3], radius: f64) -> Self {
        Collider { kind: "capsule".into(), a: Some(a), b: Some(b), radius: Some(radius), ..Default::default() }
    }

    /// `kind = "mesh"`, `file` (a closed .obj or .stl surface, relative to the scene's folder).
    pub fn mesh(file: &str) -> Self {
        Collider { kind: "mesh".into(), file: Some(file.into()), ..Default::default() }
    }

    option_setters! {
        "`scale` (mesh)." scale: f64;
        "`translate` (mesh), m." translate: [f64; 3];
        "`rotate`: degrees about x, then y, then z (box, cylinder, capsule, mesh)." rotate: [f64; 3];
        "`velocity`, m/s." velocity: [f64; 3];
        "`angular_velocity`, rad/s about the collider's reference point." angular_velocity: [f64; 3];
        "`static_friction`." static_friction: f64;
    }

    /// Appends a key `{ t, translate }` to `path` (keys in increasing time).
    pub fn path_key(mut self, t: f64, translate: [f64; 3]) -> Self {
        self.path.get_or_insert_with(Vec::new).push(PathKey { t, translate });
        self
    }

    setters! {
        "`friction`." friction: f64 => friction;
        "`restitution`." restitution: f64 => restitution;
    }
}

/// Setters of `[solver]`'s optional fields, each named after the field it sets: text fields take
/// `&str`, numbers their type.
macro_rules! solver_options {
    (text: $($text:ident),*; numbers: $($number:ident: $ty:ty),* $(,)?) => {
        $(
            #[doc = concat!("`solver.", stringify!($text), "`.")]
            pub fn $text(mut self, value: &str) -> Self {
                self.$text = Some(value.into());
                self
            }
        )*
        $(
            #[doc = concat!("`solver.", stringify!($number), "`.")]
            pub fn $number(mut self, value: $ty) -> Self {
                self.$number = Some(value);
                self
            }
        )*
    };
}

impl Solver {
    /// `kind = "xpbd"` with `ordering` (serial | jacobi | colored | clustered).
    pub fn xpbd(ordering: &str) -> Self {
        Solver { ordering: ordering.into(), ..Default::default() }
    }

    /// `kind = "mgpbd"`, its settings at their defaults until set.
    pub fn mgpbd() -> Self {
        Solver { kind: "mgpbd".into(), ..Default::default() }
    }

    /// `kind = "multilayer"`, its settings at their defaults until set.
    pub fn multilayer() -> Self {
        Solver { kind: "multilayer".into(), ..Default::default() }
    }

    /// `kind = "implicit"`.
    pub fn implicit() -> Self {
        Solver { kind: "implicit".into(), ..Default::default() }
    }

    /// `kind = "adaptive"`, its thresholds at their defaults until set.
    pub fn adaptive() -> Self {
        Solver { kind: "adaptive".into(), ..Default::default() }
    }

    solver_options!(
        text: linear_solver, refresh, arap_rows, arap_rotation, layer_order, layer_sweep, pcg_preconditioner;
        numbers: pcg_tol: f64, pcg_max_iter: usize, setup_interval: usize, tolerance: f64, theta: f64, max_coarse: usize,
        smoothed_levels: usize, layers: usize, layer_stop: f64, rigidify_threshold: f64, elastify_threshold: f64,
        rigidify_steps: usize, bending_threshold: f64, contact_filter: bool, pgs_iterations: usize, newton_iterations: usize,
        contact_compliance: f64, pre_sweeps: usize,
    );
}

#[cfg(test)]
#[path = "builder_tests.rs"]
mod tests;
