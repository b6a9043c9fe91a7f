//! Scenes shared by the GPU parity tests and the host-compiled kernel tests: the Fig. 5 beam and the armadillo,
//! shortened to one frame of 20 substeps, with every boundary feature the kernels implement. They collide with
//! colliders only: self contact (the scenes' default) is turned off, since the XPBD device path has no pair rows
//! (`xpbd_cuda::xpbd::layout::NO_PAIR_CONTACT`).
#![allow(dead_code)]

pub mod amg_stages;
pub mod host_library;
pub mod host_ops;
pub mod mgpbd_frames;
pub mod primal_system;

use nalgebra::Rotation3;
use std::path::{Path, PathBuf};
use xpbd_core::collider::{Collider, Shape};
use xpbd_core::contact::Friction;
use xpbd_core::mesh::Vec3;
use xpbd_core::model::Model;
use xpbd_core::scene::Built;
use xpbd_core::solver_config::{Method, Ordering};

pub fn scenes() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes")
}

pub fn load(file: &str, edit: impl FnOnce(&mut String)) -> Built {
    let path = scenes().join(file);
    let mut text = std::fs::read_to_string(&path).unwrap();
    edit(&mut text);
    let scene = xpbd_core::scene::parse(&text, &path).unwrap_or_else(|e| panic!("{e}"));
    xpbd_core::scene::build(&scene, &scenes()).unwrap_or_else(|e| panic!("{e}"))
}

/// `b` without contact between or within bodies (pair rows), as a scene's `[contact] bodies = false, self = false`.
pub fn without_pair_contact(mut b: Built) -> Built {
    b.model.contact.bodies = false;
    b.model.contact.self_contact = false;
    b
}

/// The Fig. 5 beam (3750 tets), one frame of 20 substeps, with `material` and constraint damping.
pub fn beam(material: &str, damping: f64) -> Built {
    let mut m = load("beam_fig5.toml", |t| {
        *t = t.replace("substeps = 30", "substeps = 20").replace("model = \"neohookean_block\"", &format!("model = \"{material}\""));
        *t = t.replace("pin = [", &format!("damping = {damping}\npin = [{{ box = {{ min = [3.99, -1.0, -1.0], max = [4.01, 10.0, 10.0] }}, compliance = 1e-6, velocity = [0.0, 0.5, 0.0] }}, "));
    });
    m.config.velocity_damping = 0.5;
    without_pair_contact(m)
}

/// The armadillo (3.7k tets), 20 substeps of its scene's h = 1/8000 s (one frame of dt = 2.5 ms), moving down at
/// 2 m/s onto a plane 2 mm above its lowest vertex, so that contacts, friction and restitution act. At this h
/// the CPU run amplifies a 1e-15 m change of the initial positions to about 5e-10 m over the 20 substeps (the
/// beam: none); at the scene's 80 substeps to 2e-3 m, which is why the parity tests stop at 20.
pub fn armadillo() -> Built {
    let mut b = without_pair_contact(load("armadillo_drop.toml", |t| *t = t.replace("substeps = 80", "substeps = 20").replace("dt = 0.01", "dt = 0.0025")));
    let m = &mut b.model;
    let lowest = m.rest.iter().map(|p| p.y).fold(f64::INFINITY, f64::min);
    m.colliders = vec![Collider::fixed(Shape::Plane { point: Vec3::new(0.0, lowest + 0.002, 0.0), normal: Vec3::y() }, Friction::coulomb(0.5), 0.2)];
    m.initial_velocity.iter_mut().for_each(|v| *v = Vec3::new(0.3, -2.0, 0.0));
    b
}

/// [`armadillo`] also pressed onto a sphere and a cylinder under its lowest vertex and into a box across its middle (inside the box the
/// nearest face pushes out, outside it the corner or edge), besides the plane. The sphere's static and kinetic
/// coefficients differ, the box is frictionless.
pub fn armadillo_on_shapes() -> Built {
    let mut b = armadillo();
    let m = &mut b.model;
    let foot = *m.rest.iter().min_by(|a, b| a.y.total_cmp(&b.y)).unwrap();
    let centre = m.rest.iter().sum::<Vec3>() / m.rest.len() as f64;
    let c = Vec3::new(centre.x, foot.y, centre.z);
    m.colliders.push(Collider::fixed(Shape::Sphere { center: foot - Vec3::new(0.0, 0.3, 0.0), radius: 0.31 }, Friction { mu_s: 0.6, mu_k: 0.3 }, 0.5));
    let (lo, hi) = (c - Vec3::new(2.0, 1.0, 0.05), c + Vec3::new(2.0, 0.01, 0.05));
    m.colliders.push(Collider::fixed(
        Shape::Box { center: (lo + hi) * 0.5, half_extents: (hi - lo) * 0.5, rotation: Rotation3::identity() },
        Friction::coulomb(0.0),
        0.1,
    ));
    // A tilted cylinder whose surface passes 3 cm above the lowest vertex (above the sphere's 1 cm).
    let axis = Vec3::new(1.0, 0.0, 0.3).normalize();
    m.colliders.push(Collider::fixed(Shape::Cylinder { point: foot - Vec3::new(0.0, 0.2, 0.0), axis, radius: 0.23 }, Friction::coulomb(0.2), 0.3));
    b
}

/// The hanging cloth (30 × 30 cells, inextensible edges, bending, damping), one frame of 20 substeps, with a
/// slightly stretchable variant when `stretch_compliance > 0`.
pub fn cloth(stretch_compliance: f64) -> Built {
    without_pair_contact(load("cloth_hanging.toml", |t| *t = t.replace("stretch_compliance = 0.0", &format!("stretch_compliance = {stretch_compliance:e}"))))
}

/// The hanging cloth with `bending_stiffness` D = 1e-4 N·m: a compliance per hinge.
pub fn cloth_plate() -> Built {
    without_pair_contact(load("cloth_hanging.toml", |t| *t = t.replace("bending_compliance = 1.0", "bending_stiffness = 1.0e-4")))
}

/// Contact between and within bodies (pair rows): `scenes/contact_stack.toml`, a small block dropped onto a
/// pinned slab (vertex–triangle and edge–edge rows, self contact, static and kinetic friction).
pub fn stack() -> Built {
    load("contact_stack.toml", |_| {})
}

/// A cube falling corner first at 2 m/s onto the middle of a pinned ridge (a box turned 45° about its long
/// axis, one cell long), 3 cm above it: within the first frame the corner meets the ridge's edge from outside
/// both of its faces, which only vertex–edge rows hold (`PairRow::follows_edge`).
pub fn ridge() -> Built {
    let text = r#"
name = "ridge"
[simulation]
dt = 0.016666666666666666
substeps = 10
iterations = 8
[solver]
ordering = "serial"
[[body]]
name = "ridge"
mesh = { generator = "box", size = [0.6, 0.2, 0.2], cells = [1, 1, 1], split = 5 }
rotate = [45.0, 0.0, 0.0]
translate = [0.0, 0.15857864376269052, -0.1414213562373095]
material = { model = "arap", youngs = 1.0e7, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-1.0, -1.0, -1.0], max = [1.0, 1.0, 1.0] } }]
[[body]]
name = "cube"
mesh = { generator = "box", size = [0.1, 0.1, 0.1], cells = [1, 1, 1], split = 5 }
rotate = [45.0, 0.0, -35.264389682754654]
translate = [0.2591751709536137, 0.44547005383792516, -0.07071067811865477]
velocity = [0.0, -2.0, 0.0]
material = { model = "arap", youngs = 1.0e6, poisson = 0.3, density = 1000.0 }
"#;
    from_text(text, "ridge.toml")
}

/// The scene in `text`, built as if read from `file`.
fn from_text(text: &str, file: &str) -> Built {
    let scene = xpbd_core::scene::parse(text, Path::new(file)).unwrap_or_else(|e| panic!("{e}"));
    xpbd_core::scene::build(&scene, &scenes()).unwrap_or_else(|e| panic!("{e}"))
}

/// The diagonal of the bounding box of `m`'s rest positions ([`xpbd_cuda::parity::body_size`]).
pub fn size(m: &Model) -> f64 {
    xpbd_cuda::parity::body_size(m)
}

/// The MGPBD settings of an MGPBD scene, to edit.
pub fn mgpbd_mut(b: &mut Built) -> &mut xpbd_core::mgpbd::settings::MgpbdSettings {
    match &mut b.config.method {
        Method::Mgpbd(settings) => settings,
        other => panic!("not an MGPBD scene: {}", other.kind()),
    }
}

/// `b` solved by XPBD in `ordering`, in the scene's precision.
pub fn with_ordering(mut b: Built, ordering: Ordering) -> Built {
    b.config.method = Method::Xpbd { ordering, precision: b.config.method.precision() };
    b
}

/// The orderings with a GPU path, with the scenes' default relaxation and cluster size.
pub const COLORED: Ordering = Ordering::Colored;
pub const CLUSTERED: Ordering = Ordering::Clustered { cluster_size: 5 };
pub const JACOBI: Ordering = Ordering::Jacobi { relaxation: 1.0 };
