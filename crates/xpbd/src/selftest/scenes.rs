//! The self-test's scenes, built into the binary: small versions of the parity tests' scenes (one frame of 20
//! substeps for XPBD, one to three frames for MGPBD), each a few thousand elements at most, so that the CPU
//! reference of every check takes well under a second. Every scene moves within its frames.

/// Contact between or within bodies off (pair rows), for the scenes that test something else.
const NO_PAIR_CONTACT: &str = "[contact]\nbodies = false\nself = false\n";

/// The clamp of a 2 m beam along x, and a soft attachment of its tip face pulled upwards at 0.5 m/s.
const CLAMP_AND_SOFT_TIP: &str = "pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }, \
    { box = { min = [1.99, -1.0, -1.0], max = [2.01, 10.0, 10.0] }, compliance = 1e-6, velocity = [0.0, 0.5, 0.0] }]";

/// XPBD's `[solver]` section for `ordering` ("colored", "clustered" or "jacobi").
fn xpbd_solver(ordering: &str) -> String {
    format!("[solver]\nkind = \"xpbd\"\nordering = \"{ordering}\"\ncluster_size = 5\n")
}

/// A 2 m × 0.5 m × 0.5 m beam of 1280 tets of `material` (E = 1e7 Pa, ν = 0.45) with constraint damping and
/// velocity damping, clamped at one end, its tip pulled up by a soft attachment: one frame of 20 substeps.
pub fn beam(material: &str, ordering: &str) -> String {
    format!(
        r#"name = "selftest_beam"
[simulation]
dt = 0.01
substeps = 20
iterations = 1
velocity_damping = 0.5
{solver}{NO_PAIR_CONTACT}
[[body]]
name = "beam"
mesh = {{ generator = "box", size = [2.0, 0.5, 0.5], cells = [16, 4, 4], split = 5 }}
material = {{ model = "{material}", youngs = 1.0e7, poisson = 0.45, density = 1000.0 }}
damping = 0.002
{CLAMP_AND_SOFT_TIP}
"#,
        solver = xpbd_solver(ordering)
    )
}

/// A 0.4 m × 0.2 m × 0.4 m block (640 tets) moving down at 2 m/s and sideways onto a plane, a sphere, a box and
/// a tilted cylinder just under it (the box 1 mm into it, so the nearest face pushes out), with friction
/// (static and kinetic coefficients differ on the sphere; the box is frictionless) and restitution: one frame of
/// 2.5 ms in 20 substeps.
pub fn block_on_colliders(ordering: &str) -> String {
    format!(
        r#"name = "selftest_colliders"
[simulation]
dt = 0.0025
substeps = 20
iterations = 2
{solver}{NO_PAIR_CONTACT}
[[body]]
name = "block"
mesh = {{ generator = "box", size = [0.4, 0.2, 0.4], cells = [4, 2, 4], split = 5 }}
translate = [0.0, 0.1, 0.0]
velocity = [0.3, -2.0, 0.0]
material = {{ model = "neohookean_block", youngs = 1.0e6, poisson = 0.4, density = 1000.0 }}

[[collider]]
kind = "plane"
point = [0.0, 0.098, 0.0]
normal = [0.0, 1.0, 0.0]
friction = 0.5
restitution = 0.2

[[collider]]
kind = "sphere"
center = [0.2, -0.2, 0.2]
radius = 0.299
friction = 0.3
static_friction = 0.6
restitution = 0.5

[[collider]]
kind = "box"
min = [-1.0, 0.09, 0.15]
max = [1.0, 0.101, 0.25]
restitution = 0.1

[[collider]]
kind = "cylinder"
point = [0.2, -0.13, 0.0]
axis = [1.0, 0.0, 0.3]
radius = 0.2295
friction = 0.2
restitution = 0.3
"#,
        solver = xpbd_solver(ordering)
    )
}

/// A 1 m × 1 m cloth of 16 × 16 cells (slightly stretchable edges, bending, damping) hanging from two corners:
/// one frame of 20 substeps.
pub fn cloth(ordering: &str) -> String {
    format!(
        r#"name = "selftest_cloth"
[simulation]
dt = 0.01
substeps = 20
iterations = 2
{solver}{NO_PAIR_CONTACT}
[[body]]
name = "cloth"
mesh = {{ generator = "grid2d", size = [1.0, 1.0], cells = [16, 16] }}
rotate = [-90.0, 0.0, 0.0]
translate = [0.0, 1.5, 0.0]
material = {{ model = "cloth", areal_density = 0.2, stretch_compliance = 1.0e-5, bending_compliance = 1.0 }}
damping = 0.01
pin = [
  {{ box = {{ min = [-0.001, 1.49, -1.001], max = [0.001, 1.51, -0.999] }} }},
  {{ box = {{ min = [0.999, 1.49, -1.001], max = [1.001, 1.51, -0.999] }} }},
]
"#,
        solver = xpbd_solver(ordering)
    )
}

/// Contact between and within bodies (pair rows): `scenes/contact_stack.toml` (a small block dropped at 2 m/s,
/// sliding sideways, onto a pinned slab, 12 mm above it with a contact thickness of 10 mm, so that vertex–triangle
/// and edge–edge rows push within the frame of 20 substeps; static and kinetic coefficients differ) in
/// `ordering`.
pub fn stack(ordering: &str) -> String {
    const SCENE: &str = include_str!("../../../../scenes/contact_stack.toml");
    const SOLVER: &str = "[solver]\nordering = \"colored\"\n";
    assert!(SCENE.contains(SOLVER), "scenes/contact_stack.toml has its [solver] section");
    SCENE.replace(SOLVER, &xpbd_solver(ordering))
}

/// MGPBD's `[solver]` section with `linear_solver` and the outer iterations' `tolerance`.
fn mgpbd_solver(linear_solver: &str, tolerance: f64) -> String {
    format!("[solver]\nkind = \"mgpbd\"\ntolerance = {tolerance:e}\nlinear_solver = \"{linear_solver}\"\n")
}

/// The neo-Hookean cantilever of `scenes/mgpbd_beam_nh.toml` (4 m, 1280 tets, E = 1e7 Pa, 10 substeps of 1 ms,
/// up to 20 outer iterations to 1e-6) solved with `linear_solver`; with its tip pulled up at 0.5 m/s by soft
/// attachments where `soft_tip`.
pub fn mgpbd_beam(linear_solver: &str, soft_tip: bool) -> String {
    let tip = if soft_tip { ", { box = { min = [3.99, -1.0, -1.0], max = [4.01, 10.0, 10.0] }, compliance = 1e-6, velocity = [0.0, 0.5, 0.0] }" } else { "" };
    format!(
        r#"name = "selftest_mgpbd_beam"
[simulation]
dt = 0.01
substeps = 10
iterations = 20
velocity_damping = 1.0
{solver}
[[body]]
name = "beam"
mesh = {{ generator = "box", size = [4.0, 1.0, 1.0], cells = [16, 4, 4], split = 5 }}
translate = [0.0, 2.0, 0.0]
material = {{ model = "neohookean_block", youngs = 1.0e7, poisson = 0.45, density = 1000.0 }}
pin = [{{ box = {{ min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] }} }}{tip}]
"#,
        solver = mgpbd_solver(linear_solver, 1e-6)
    )
}

/// The stiff ARAP cantilever of `scenes/mgpbd_beam_stiff_primal.toml` (E = 2e9 Pa, component rows, one substep
/// of 10 ms, up to 30 outer iterations to 1e-3) with the primal AMG solve.
pub fn mgpbd_stiff_beam() -> String {
    format!(
        r#"name = "selftest_mgpbd_stiff_beam"
[simulation]
dt = 0.01
substeps = 1
iterations = 30
{solver}arap_rows = "components"

[[body]]
name = "beam"
mesh = {{ generator = "box", size = [4.0, 1.0, 1.0], cells = [16, 4, 4], split = 5 }}
translate = [0.0, 2.0, 0.0]
material = {{ model = "arap", youngs = 2.0e9, poisson = 0.0, density = 1000.0 }}
pin = [{{ box = {{ min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] }} }}]
"#,
        solver = mgpbd_solver("primal-amg", 1e-3)
    )
}

/// The hanging cloth of `scenes/mgpbd_cloth_16.toml` (16 × 16 cells, edge and hinge rows, two pinned corners,
/// two substeps, up to 20 outer iterations to 1e-4) with the primal AMG solve, for its first frame.
pub fn mgpbd_cloth() -> String {
    format!(
        r#"name = "selftest_mgpbd_cloth"
[simulation]
dt = 0.01
substeps = 2
iterations = 20
{solver}
[[body]]
name = "cloth"
mesh = {{ generator = "grid2d", size = [1.0, 1.0], cells = [16, 16] }}
rotate = [-90.0, 0.0, 0.0]
translate = [0.0, 1.5, 0.0]
material = {{ model = "cloth", areal_density = 0.2, stretch_compliance = 1.0e-9, bending_compliance = 1.0 }}
pin = [
  {{ box = {{ min = [-0.001, 1.49, -1.001], max = [0.001, 1.51, -0.999] }} }},
  {{ box = {{ min = [0.999, 1.49, -1.001], max = [1.001, 1.51, -0.999] }} }},
]
"#,
        solver = mgpbd_solver("primal-amg", 1e-4)
    )
}
