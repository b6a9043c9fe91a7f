//! A builder scene equals the scene parsed from the same text.

use super::*;
use crate::scene::parse;
use crate::scene::schema::{InitialDeform, MeshSource, Pin, Region};

fn parsed(text: &str) -> Scene {
    parse(text, Path::new("t.toml")).unwrap()
}

#[test]
fn tet_body_with_pins() {
    let text = r#"name = "beam"
[simulation]
dt = 0.005
frames = 12
substeps = 7
iterations = 3
gravity = [0.0, 0.0, -9.81]
velocity_damping = 2.5
[solver]
ordering = "clustered"
[output]
every = 2
formats = ["vtu", "obj"]
contact_forces = true
partition = true
[[body]]
name = "b"
mesh = { generator = "box", size = [2.0, 0.5, 0.5], cells = [8, 2, 2], split = 6 }
translate = [0.0, 1.0, 0.0]
rotate = [0.0, 90.0, 0.0]
velocity = [1.0, 0.0, 0.0]
angular_velocity = [0.0, 2.0, 0.0]
initial_deform = { scale = [1.0, 0.5, 1.0], twist_axis = "x", twist_degrees = 40.0 }
material = { model = "neohookean_block", youngs = 1e6, poisson = 0.45, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }, { indices = [3, 4], velocity = [0.0, 0.1, 0.0], compliance = 1e-6 }]
damping = 0.01
[[probe]]
name = "tip"
body = "b"
point = [2.0, 0.25, 0.25]
"#;
    let built = SceneBuilder::new("beam")
        .dt(0.005)
        .frames(12)
        .substeps(7)
        .iterations(3)
        .gravity([0.0, 0.0, -9.81])
        .velocity_damping(2.5)
        .solver(Solver::xpbd("clustered"))
        .every(2)
        .formats(&["vtu", "obj"])
        .contact_forces(true)
        .partition(true)
        .body(
            BodyBuilder::new("b")
                .box_mesh([2.0, 0.5, 0.5], [8, 2, 2])
                .split(6)
                .translate([0.0, 1.0, 0.0])
                .rotate([0.0, 90.0, 0.0])
                .velocity([1.0, 0.0, 0.0])
                .angular_velocity([0.0, 2.0, 0.0])
                .initial_deform(InitialDeform { scale: [1.0, 0.5, 1.0], twist_axis: Some("x".into()), twist_degrees: 40.0 })
                .material(Material::neohookean_block(1e6, 0.45, 1000.0))
                .pin_box([-0.01, -1.0, -1.0], [0.01, 1.0, 1.0])
                .pin(Pin { indices: Some(vec![3, 4]), velocity: [0.0, 0.1, 0.0], compliance: 1e-6, ..Pin::default() })
                .damping(0.01),
        )
        .probe("tip", "b", [2.0, 0.25, 0.25]);
    assert_eq!(built.clone().build(), parsed(text));
    let (a, b) = (built.built(Path::new(".")).unwrap(), build(&parsed(text), Path::new(".")).unwrap());
    assert_eq!((a.model.rest, a.model.initial_position, a.model.inv_mass), (b.model.rest, b.model.initial_position, b.model.inv_mass));
}

#[test]
fn cloth_with_pinned_indices() {
    let text = r#"name = "c"
[[body]]
name = "sheet"
mesh = { generator = "grid2d", size = [1.0, 1.0], cells = [3, 2] }
material = { model = "cloth", areal_density = 0.2, stretch_compliance = 1e-6, bending_compliance = 1e-3 }
pin = [{ indices = [0] }]
"#;
    let scene =
        SceneBuilder::new("c").body(BodyBuilder::new("sheet").grid2d([1.0, 1.0], [3, 2]).material(Material::cloth(0.2, 1e-6, 1e-3)).pin_indices(&[0])).build();
    assert_eq!(scene, parsed(text));
}

#[test]
fn mgpbd_and_multilayer_solver_settings() {
    let text = r#"name = "m"
[solver]
kind = "mgpbd"
linear_solver = "amg-pcg"
pcg_tol = 1e-8
pcg_max_iter = 1000
setup_interval = 2
tolerance = 1e-6
theta = 0.25
max_coarse = 10
smoothed_levels = 1
arap_rows = "components"
arap_rotation = "fixed"
[[body]]
name = "b"
mesh = { file = "meshes/bunny.node", scale = 0.5 }
material = { model = "arap", youngs = 1e5, poisson = 0.3, density = 1000.0 }
"#;
    let solver = Solver::mgpbd()
        .linear_solver("amg-pcg")
        .pcg_tol(1e-8)
        .pcg_max_iter(1000)
        .setup_interval(2)
        .tolerance(1e-6)
        .theta(0.25)
        .max_coarse(10)
        .smoothed_levels(1)
        .arap_rows("components")
        .arap_rotation("fixed");
    let body = BodyBuilder::new("b").mesh_file("meshes/bunny.node", 0.5).material(Material::tet("arap", 1e5, 0.3, 1000.0));
    assert_eq!(SceneBuilder::new("m").solver(solver).body(body.clone()).build(), parsed(text));
    let text = "name = \"m\"\n[solver]\nkind = \"multilayer\"\nlayers = 3\nlayer_order = \"random\"\nlayer_stop = 1e-8\n";
    assert_eq!(SceneBuilder::new("m").solver(Solver::multilayer().layers(3).layer_order("random").layer_stop(1e-8)).build(), parsed(text));
}

#[test]
fn colliders() {
    let text = r#"name = "k"
[[collider]]
kind = "plane"
point = [0.0, 0.0, 0.0]
normal = [0.0, 1.0, 0.0]
friction = 0.3
restitution = 0.5
[[collider]]
kind = "sphere"
center = [0.0, 1.0, 0.0]
radius = 0.25
[[collider]]
kind = "box"
min = [-1.0, -1.0, -1.0]
max = [1.0, 0.0, 1.0]
[[collider]]
kind = "cylinder"
point = [0.0, -1.0, 0.0]
axis = [0.0, 0.0, 2.0]
radius = 0.25
"#;
    let scene = SceneBuilder::new("k")
        .collider(Collider::plane([0.0; 3], [0.0, 1.0, 0.0]).friction(0.3).restitution(0.5))
        .collider(Collider::sphere([0.0, 1.0, 0.0], 0.25))
        .collider(Collider::aabb([-1.0; 3], [1.0, 0.0, 1.0]))
        .collider(Collider::cylinder([0.0, -1.0, 0.0], [0.0, 0.0, 2.0], 0.25))
        .build();
    assert_eq!(scene, parsed(text));
}

#[test]
fn moving_capsule_and_mesh_colliders() {
    let text = r#"name = "k"
[[collider]]
kind = "capsule"
a = [0.0, 0.0, 0.0]
b = [0.0, 1.0, 0.0]
radius = 0.1
rotate = [0.0, 0.0, 90.0]
angular_velocity = [0.0, 2.0, 0.0]
[[collider]]
kind = "mesh"
file = "cube.stl"
scale = 2.0
translate = [0.0, 1.0, 0.0]
velocity = [1.0, 0.0, 0.0]
path = [{ t = 0.0, translate = [0.0, 0.0, 0.0] }, { t = 0.5, translate = [0.0, -1.0, 0.0] }]
static_friction = 0.4
"#;
    let scene = SceneBuilder::new("k")
        .collider(Collider::capsule([0.0; 3], [0.0, 1.0, 0.0], 0.1).rotate([0.0, 0.0, 90.0]).angular_velocity([0.0, 2.0, 0.0]))
        .collider(
            Collider::mesh("cube.stl")
                .scale(2.0)
                .translate([0.0, 1.0, 0.0])
                .velocity([1.0, 0.0, 0.0])
                .path_key(0.0, [0.0; 3])
                .path_key(0.5, [0.0, -1.0, 0.0])
                .static_friction(0.4),
        )
        .build();
    assert_eq!(scene, parsed(text));
}

#[test]
fn tet_body_with_regions_and_a_capsule() {
    let text = r#"name = "r"
[[body]]
name = "wheel"
mesh = { generator = "capsule", radius = 0.5, size = [1.0], cells = [4] }
material = { model = "stvk", youngs = 1e6, poisson = 0.4, density = 1000.0 }
[[body.region]]
box = { min = [-1.0, -1.0, -1.0], max = [0.0, 1.0, 1.0] }
material = { model = "stvk", youngs = 1e8, poisson = 0.3, density = 2000.0 }
[[body.region]]
cylinder = { point = [0.0, 0.0, 0.0], axis = [1.0, 0.0, 0.0], radius = 0.2 }
material = { model = "arap", youngs = 1e7, poisson = 0.3, density = 1500.0 }
"#;
    let capsule = MeshSource { generator: Some("capsule".into()), radius: Some(0.5), size: Some(vec![1.0]), cells: Some(vec![4]), ..Default::default() };
    let built = SceneBuilder::new("r").body(
        BodyBuilder::new("wheel")
            .mesh(capsule)
            .material(Material::tet("stvk", 1e6, 0.4, 1000.0))
            .region(Region::in_box([-1.0; 3], [0.0, 1.0, 1.0], Material::tet("stvk", 1e8, 0.3, 2000.0)))
            .region(Region::in_cylinder([0.0; 3], [1.0, 0.0, 0.0], 0.2, Material::tet("arap", 1e7, 0.3, 1500.0))),
    );
    assert_eq!(built.clone().build(), parsed(text));
    assert_eq!(built.built(Path::new(".")).unwrap().model.tet_groups.len(), 3);
}
