//! The scene file's schema (docs/scene-format.md), as plain serde structs. Unknown keys are errors; every
//! field has the default documented in `docs/scene-format.md`. Semantic checks live in `build`.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    pub name: String,
    #[serde(default)]
    pub simulation: Simulation,
    #[serde(default)]
    pub solver: Solver,
    #[serde(default, rename = "body")]
    pub bodies: Vec<Body>,
    #[serde(default, rename = "collider")]
    pub colliders: Vec<Collider>,
    #[serde(default)]
    pub contact: Contact,
    #[serde(default, rename = "probe")]
    pub probes: Vec<Probe>,
    #[serde(default)]
    pub output: Output,
    /// The camera of `xpbd render` (docs/output-format.md); a framing default when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render: Option<Render>,
}

/// `[render]`: a perspective camera.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Render {
    pub eye: [f64; 3],
    pub target: [f64; 3],
    #[serde(default = "Render::default_up")]
    pub up: [f64; 3],
    /// Vertical field of view, degrees.
    #[serde(default = "Render::default_fov")]
    pub fov: f64,
}

impl Render {
    fn default_up() -> [f64; 3] {
        [0.0, 1.0, 0.0]
    }
    fn default_fov() -> f64 {
        35.0
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Simulation {
    /// Frame step (s).
    pub dt: f64,
    pub frames: usize,
    pub substeps: usize,
    /// Solver iterations per substep.
    pub iterations: usize,
    pub gravity: [f64; 3],
    /// 1/s: v ← v·exp(−c·h) each substep.
    pub velocity_damping: f64,
    /// auto | cpu | cuda | cuda:N
    pub device: String,
    /// `device = "auto"` picks CUDA only for scenes with at least this many elements (provisional default, to be
    /// set from `benches/gpu/run.sh` on a GPU).
    pub gpu_min_elements: usize,
    /// stop | continue: what a failed health check (runaway speed, inverted elements) does; a
    /// non-finite state always stops.
    pub on_failure: String,
    /// m/s: a vertex faster than this after a frame fails the run's health check.
    pub max_speed: f64,
    /// A frame whose fraction of inverted tetrahedra (det F ≤ 0) exceeds this fails the health check;
    /// 1 (the default) only counts them.
    pub max_inverted_fraction: f64,
    /// A frame whose largest cloth edge strain (|l − l₀| / l₀) exceeds this fails the health check: a
    /// diverging cloth solve, which need not reach `max_speed` or a non-finite state.
    pub max_edge_strain: f64,
    /// A frame whose elastic + kinetic energy exceeds this many times the energy the scene can hold (its
    /// initial energy, gravity's work, its energy at unit strain, its drivers' kinetic energy) fails the
    /// health check; `inf` turns it off.
    pub max_energy_ratio: f64,
    /// A frame whose smallest det F (`min_volume_ratio` in `metrics.csv`) is below this fails the health
    /// check: a tetrahedron turned inside out and grown; `-inf` turns it off.
    pub min_volume_ratio: f64,
    /// A run whose relative residual stops moving while its inverted tetrahedra grow, this many frames
    /// in a row, fails the health check; 0 turns it off.
    pub stagnation_frames: usize,
}

impl Default for Simulation {
    fn default() -> Self {
        Simulation {
            dt: 0.01,
            frames: 100,
            substeps: 10,
            iterations: 1,
            gravity: [0.0, -9.81, 0.0],
            velocity_damping: 0.0,
            device: "auto".into(),
            gpu_min_elements: 20_000,
            on_failure: "stop".into(),
            max_speed: 1.0e3,
            max_inverted_fraction: 1.0,
            max_edge_strain: 10.0,
            max_energy_ratio: 10.0,
            min_volume_ratio: -1.0,
            stagnation_frames: 5,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Solver {
    /// xpbd | mgpbd | multilayer | implicit | adaptive
    pub kind: String,
    /// serial | jacobi | colored | clustered
    pub ordering: String,
    pub cluster_size: usize,
    /// Jacobi relaxation ω: x += ω Σ Δx / n_v (n_v = constraints touching the vertex); MGPBD's
    /// fixed step length when `line_search = false`.
    pub relaxation: f64,
    /// f64 | f32: XPBD's block kernel on the CPU, every device array on the GPU.
    pub precision: String,
    /// MGPBD only (`mgpbd::settings`, defaults there and in docs/scene-format.md).
    pub linear_solver: Option<String>,
    pub pcg_tol: Option<f64>,
    pub pcg_max_iter: Option<usize>,
    pub setup_interval: Option<usize>,
    /// adaptive | always
    pub refresh: Option<String>,
    pub line_search: Option<bool>,
    pub tolerance: Option<f64>,
    pub abs_tolerance: Option<f64>,
    pub theta: Option<f64>,
    pub max_coarse: Option<usize>,
    pub smoothed_levels: Option<usize>,
    pub near_kernel: Option<String>,
    pub smoother: Option<String>,
    pub arap_rows: Option<String>,
    pub arap_rotation: Option<String>,
    pub pre_sweeps: Option<usize>,
    /// Multilayer only (`layers::settings`, defaults there and in docs/scene-format.md).
    pub layers: Option<usize>,
    pub layer_spacing: Option<String>,
    pub layer_iterations: Option<String>,
    pub layer_order: Option<String>,
    pub layer_seed: Option<u64>,
    pub stripe_axis: Option<String>,
    pub stripe_count: Option<usize>,
    pub layer_stop: Option<f64>,
    pub layer_sweep: Option<String>,
    /// Implicit and adaptive only (`implicit::settings`, defaults there and in docs/scene-format.md).
    pub pgs_iterations: Option<usize>,
    pub newton_iterations: Option<usize>,
    pub pcg_preconditioner: Option<String>,
    pub contact_compliance: Option<f64>,
    pub baumgarte: Option<f64>,
    /// Adaptive only.
    pub rigidify_threshold: Option<f64>,
    pub elastify_threshold: Option<f64>,
    pub rigidify_steps: Option<usize>,
    pub bending_threshold: Option<f64>,
    pub contact_filter: Option<bool>,
}

impl Default for Solver {
    fn default() -> Self {
        Solver {
            kind: "xpbd".into(),
            ordering: "serial".into(),
            cluster_size: 5,
            relaxation: 1.0,
            precision: "f64".into(),
            linear_solver: None,
            pcg_tol: None,
            pcg_max_iter: None,
            setup_interval: None,
            refresh: None,
            line_search: None,
            tolerance: None,
            abs_tolerance: None,
            theta: None,
            max_coarse: None,
            smoothed_levels: None,
            near_kernel: None,
            smoother: None,
            arap_rows: None,
            arap_rotation: None,
            pre_sweeps: None,
            layers: None,
            layer_spacing: None,
            layer_iterations: None,
            layer_order: None,
            layer_seed: None,
            stripe_axis: None,
            stripe_count: None,
            layer_stop: None,
            layer_sweep: None,
            pgs_iterations: None,
            newton_iterations: None,
            pcg_preconditioner: None,
            contact_compliance: None,
            baumgarte: None,
            rigidify_threshold: None,
            elastify_threshold: None,
            rigidify_steps: None,
            bending_threshold: None,
            contact_filter: None,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Body {
    pub name: String,
    pub mesh: MeshSource,
    #[serde(default)]
    pub translate: [f64; 3],
    /// Degrees about x, then y, then z (about the mesh origin), applied before `translate`.
    #[serde(default)]
    pub rotate: [f64; 3],
    /// Initial velocity (m/s).
    #[serde(default)]
    pub velocity: [f64; 3],
    /// Initial angular velocity (rad/s) about the body's centre of mass.
    #[serde(default)]
    pub angular_velocity: [f64; 3],
    /// A deformed initial state (the rest shape stays as meshed), e.g. a squashed or twisted body.
    pub initial_deform: Option<InitialDeform>,
    pub material: Material,
    /// Parts of a tetrahedral body with their own material; the rest keeps `material`.
    #[serde(default, rename = "region", skip_serializing_if = "Vec::is_empty")]
    pub regions: Vec<Region>,
    #[serde(default)]
    pub pin: Vec<Pin>,
    /// XPBD constraint damping β (s).
    #[serde(default)]
    pub damping: f64,
    /// Rayleigh damping `[alpha0, alpha1]` of the implicit solvers: D = α₀M + α₁K (1/s and s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rayleigh: Option<[f64; 2]>,
    /// Coulomb coefficient of this body's contacts with other bodies and itself (default `contact.friction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction: Option<f64>,
    /// Its static coefficient (default: `friction`, else `contact.static_friction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_friction: Option<f64>,
}

/// `[contact]`: contact between and within bodies (colliders always collide).
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Contact {
    /// Contact between different bodies.
    pub bodies: bool,
    /// Contact within one body.
    #[serde(rename = "self")]
    pub self_contact: bool,
    /// The gap kept between surfaces (m); default a tenth of the median surface edge length.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thickness: Option<f64>,
    /// Coulomb coefficient of body–body pairs (kinetic, and static unless `static_friction` is given).
    pub friction: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub static_friction: Option<f64>,
}

impl Default for Contact {
    fn default() -> Self {
        Contact { bodies: true, self_contact: true, thickness: None, friction: 0.5, static_friction: None }
    }
}

/// The initial positions as a deformation of the placed rest shape about the centre of its bounding
/// box: first the per-axis `scale`, then a twist about the axis `twist_axis` through the centre, by an
/// angle that grows linearly along that axis from −`twist_degrees`/2 to +`twist_degrees`/2.
#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InitialDeform {
    #[serde(default = "unit_scale")]
    pub scale: [f64; 3],
    /// x | y | z
    pub twist_axis: Option<String>,
    #[serde(default)]
    pub twist_degrees: f64,
}

fn unit_scale() -> [f64; 3] {
    [1.0; 3]
}

/// Either `generator = "box" | "sphere" | "torus" | "capsule" | "grid2d" | "sphere_shell" | "cylinder_shell"` with its
/// parameters, or `file`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MeshSource {
    pub generator: Option<String>,
    pub file: Option<String>,
    pub scale: Option<f64>,
    pub size: Option<Vec<f64>>,
    pub cells: Option<Vec<usize>>,
    pub split: Option<u8>,
    pub radius: Option<f64>,
    pub major_radius: Option<f64>,
    pub minor_radius: Option<f64>,
    /// grid2d: alternating | uniform, how each cell is split into two triangles (default alternating).
    pub pattern: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Material {
    /// neohookean | neohookean_block | stvk | arap | corotational | cloth | shell
    pub model: String,
    pub youngs: Option<f64>,
    pub poisson: Option<f64>,
    /// kg/m³ (tetrahedral models).
    pub density: Option<f64>,
    /// kg/m² (cloth).
    pub areal_density: Option<f64>,
    /// m/N (cloth edges; 0 = inextensible).
    pub stretch_compliance: Option<f64>,
    /// 1/(N·m) (cloth hinges, one raw value for all).
    pub bending_compliance: Option<f64>,
    /// m (shell; its areal mass is density × thickness).
    pub thickness: Option<f64>,
    /// stvk | neohookean: the shell's membrane energy (default stvk).
    pub membrane: Option<String>,
    /// shape_operator | hinge: the shell's bending energy (default shape_operator).
    pub bending: Option<String>,
    /// Plate bending modulus D (N·m) of cloth: per-hinge compliances from the rest mesh (docs/cloth.md).
    pub bending_stiffness: Option<f64>,
    /// Cloth strain limits: bounds on each triangle's principal stretches (docs/cloth.md); off by default.
    pub strain_min: Option<f64>,
    pub strain_max: Option<f64>,
    /// PBD stiffness k ∈ (0, 1] of cloth edges: a PBD body instead of XPBD compliances (docs/cloth.md).
    pub pbd_stretch: Option<f64>,
    /// PBD stiffness k ∈ (0, 1] of cloth hinges.
    pub pbd_bending: Option<f64>,
}

/// Selects body vertices and holds them: fixed (`compliance = 0`, inverse mass 0), moving with a
/// constant `velocity` (kinematic), or pulled by a soft attachment (`compliance > 0`, m/N).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    #[serde(rename = "box")]
    pub region: Option<Aabb>,
    /// Vertex indices within the body's mesh.
    pub indices: Option<Vec<u32>>,
    #[serde(default)]
    pub velocity: [f64; 3],
    #[serde(default)]
    pub compliance: f64,
}

/// A `[[body.region]]`: the tetrahedra whose rest centroid lies in its selection (`box` or `cylinder`) take
/// its `material`; the first region that selects a tetrahedron wins.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Region {
    #[serde(rename = "box")]
    pub aabb: Option<Aabb>,
    pub cylinder: Option<CylinderSelection>,
    pub material: Material,
}

/// The points within `radius` of the line through `point` along `axis` (world coordinates at rest).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CylinderSelection {
    pub point: [f64; 3],
    pub axis: [f64; 3],
    pub radius: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Aabb {
    pub min: [f64; 3],
    pub max: [f64; 3],
}

/// A `[[collider]]`: the shape's fields for its `kind`, contact parameters and motion (docs/scene-format.md).
#[derive(Clone, Debug, Default, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Collider {
    /// plane | sphere | box | cylinder | capsule | mesh
    pub kind: String,
    pub point: Option<[f64; 3]>,
    pub normal: Option<[f64; 3]>,
    /// The cylinder's axis direction (any length but zero).
    pub axis: Option<[f64; 3]>,
    pub center: Option<[f64; 3]>,
    pub radius: Option<f64>,
    pub min: Option<[f64; 3]>,
    pub max: Option<[f64; 3]>,
    /// The capsule's segment ends.
    pub a: Option<[f64; 3]>,
    pub b: Option<[f64; 3]>,
    /// The mesh's closed surface (.obj, .stl), relative to the scene file.
    pub file: Option<String>,
    /// The mesh's uniform scale, applied first.
    pub scale: Option<f64>,
    /// The mesh's offset (m), applied last.
    pub translate: Option<[f64; 3]>,
    /// Degrees about x, then y, then z: a box about its centre, a cylinder's axis about `point`, a capsule
    /// about its midpoint, a mesh about its file's origin (after `scale`, before `translate`).
    pub rotate: Option<[f64; 3]>,
    /// m/s.
    pub velocity: Option<[f64; 3]>,
    /// rad/s about the collider's reference point.
    pub angular_velocity: Option<[f64; 3]>,
    /// Keyframed translation, keys in increasing time.
    pub path: Option<Vec<PathKey>>,
    /// Coulomb friction coefficient: the kinetic one, and the static one unless `static_friction` is given.
    #[serde(default)]
    pub friction: f64,
    /// Static Coulomb coefficient (default: `friction`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub static_friction: Option<f64>,
    /// Normal restitution in [0, 1].
    #[serde(default)]
    pub restitution: f64,
}

/// One key of a collider's `path`: the offset `translate` (m) at time `t` (s).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PathKey {
    pub t: f64,
    pub translate: [f64; 3],
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Probe {
    pub name: String,
    pub body: String,
    /// The body vertex nearest to this world point at rest is tracked.
    pub point: [f64; 3],
}

#[derive(Clone, Debug, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct Output {
    /// Write a frame file every this many frames.
    pub every: usize,
    /// vtu | obj | ply | none
    pub formats: Vec<String>,
    /// Write each VTU frame's normal contact forces (`contact_force`, `contact_active` point data).
    pub contact_forces: bool,
    /// Write each VTU frame's element partitions of the parallel sweeps (`partition_color`, `partition_cluster`,
    /// `partition_cluster_color` cell data; block neo-Hookean paper, Fig. 4).
    pub partition: bool,
}

impl Default for Output {
    fn default() -> Self {
        Output { every: 1, formats: vec!["vtu".into()], contact_forces: false, partition: false }
    }
}
