//! Colliders from scene text: oriented boxes, capsules, motion, mesh files (OBJ and STL) and the errors
//! that name the field.

use super::{build, parse};
use crate::collider::Shape;
use crate::mesh::Vec3;
use nalgebra::Rotation3;
use std::path::Path;

/// A scene of one small box body and one `[[collider]]` with the `collider` lines.
fn scene(collider: &str) -> String {
    format!(
        "name = \"c\"\n[[body]]\nname = \"b\"\nmesh = {{ generator = \"box\", size = [0.1, 0.1, 0.1], cells = [1, 1, 1] }}\n\
         material = {{ model = \"stvk\", youngs = 1e5, poisson = 0.3, density = 1000.0 }}\n[[collider]]\n{collider}\n"
    )
}

fn built(collider: &str, dir: &Path) -> crate::Result<crate::collider::Collider> {
    build(&parse(&scene(collider), Path::new("s.toml"))?, dir).map(|b| b.model.colliders[0].clone())
}

fn err(collider: &str) -> String {
    built(collider, Path::new(".")).unwrap_err().to_string()
}

/// The UV sphere of radius `r` about the origin with `n` latitude bands and 2n longitudes, as OBJ text.
fn uv_sphere_obj(r: f64, n: usize) -> String {
    let mut text = String::from("v 0 0 1\nv 0 0 -1\n");
    let ring = |i: usize, j: usize| 3 + (i - 1) * 2 * n + j % (2 * n);
    for i in 1..n {
        let theta = std::f64::consts::PI * i as f64 / n as f64;
        for j in 0..2 * n {
            let phi = std::f64::consts::PI * j as f64 / n as f64;
            text += &format!("v {} {} {}\n", r * theta.sin() * phi.cos(), r * theta.sin() * phi.sin(), r * theta.cos());
        }
    }
    for j in 0..2 * n {
        text += &format!("f 1 {} {}\n", ring(1, j), ring(1, j + 1));
        text += &format!("f 2 {} {}\n", ring(n - 1, j + 1), ring(n - 1, j));
        for i in 1..n - 1 {
            text += &format!("f {} {} {} {}\n", ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j + 1));
        }
    }
    text
}

/// A tessellated sphere read from OBJ, scaled and moved by the scene: inside and outside get the right sign
/// and the distance is the analytic |x − c| − r within the tessellation's deviation (the largest gap between
/// the polyhedron and the sphere, below r·(1 − cos(π/n)) per direction, twice that for safety), and an
/// open copy of the file is refused with the count of its open edges.
#[test]
fn obj_sphere_matches_the_analytic_sphere() {
    let dir = tempfile::tempdir().unwrap();
    let n = 24;
    std::fs::write(dir.path().join("ball.obj"), uv_sphere_obj(1.0, n)).unwrap();
    let c = built("kind = \"mesh\"\nfile = \"ball.obj\"\nscale = 0.5\ntranslate = [1.0, 2.0, 3.0]\nrotate = [10.0, 20.0, 30.0]", dir.path()).unwrap();
    let (center, r) = (Vec3::new(1.0, 2.0, 3.0), 0.5);
    let tolerance = 2.0 * r * (1.0 - (std::f64::consts::PI / n as f64).cos());
    assert!((c.shape.reference_point() - center).norm() < tolerance);
    for x in crate::collider::mesh_sdf::tests::points(500, center, 1.0) {
        let exact = (x - center).norm() - r;
        let (d, normal) = c.signed_distance(&x, 0.0);
        assert!((d - exact).abs() < tolerance, "{x:?}: {d} vs {exact}");
        if exact.abs() > tolerance {
            assert_eq!(d < 0.0, exact < 0.0);
            assert!((normal - (x - center).normalize()).norm() < 0.2, "{normal:?}");
        }
    }
    let text = uv_sphere_obj(1.0, n);
    let open: String = text.lines().filter(|l| *l != "f 1 3 4").map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.path().join("open.obj"), open).unwrap();
    let e = built("kind = \"mesh\"\nfile = \"open.obj\"", dir.path()).unwrap_err().to_string();
    assert!(e.contains("collider[0].file: 'open.obj' is not a closed surface: 3 open edges"), "{e}");
    let e = built("kind = \"mesh\"\nfile = \"missing.stl\"", dir.path()).unwrap_err().to_string();
    assert!(e.starts_with("collider[0].file: ") && e.contains("missing.stl"), "{e}");
}

/// The unit cube as a binary STL (a triangle soup): welded into a closed surface whose distance is the box's.
#[test]
fn stl_cube_is_the_box() {
    let dir = tempfile::tempdir().unwrap();
    let cube = crate::collider::mesh_sdf::tests::cube();
    let mut bin = vec![0u8; 80];
    bin.extend((cube.tris.len() as u32).to_le_bytes());
    for t in &cube.tris {
        bin.extend([0u8; 12]);
        t.iter().flat_map(|&i| cube.vertices[i as usize].iter().map(|&x| x as f32)).for_each(|x| bin.extend(x.to_le_bytes()));
        bin.extend([0u8; 2]);
    }
    std::fs::write(dir.path().join("cube.stl"), bin).unwrap();
    let c = built("kind = \"mesh\"\nfile = \"cube.stl\"\ntranslate = [-0.5, -0.5, -0.5]", dir.path()).unwrap();
    let aabb = Shape::Box { center: Vec3::zeros(), half_extents: Vec3::repeat(0.5), rotation: Rotation3::identity() };
    for x in crate::collider::mesh_sdf::tests::points(300, Vec3::zeros(), 1.0) {
        assert!((c.signed_distance(&x, 0.0).0 - aabb.signed_distance(&x).0).abs() < 1e-12);
    }
}

/// `rotate` turns a box about its centre and a capsule about its midpoint; motion is read as typed data.
#[test]
fn rotated_shapes_and_motion() {
    let c = built("kind = \"box\"\nmin = [0.0, 0.0, 0.0]\nmax = [2.0, 1.0, 1.0]\nrotate = [0.0, 0.0, 90.0]", Path::new(".")).unwrap();
    // Turned a quarter about z, the 2 m side stands along y through the centre (1, 0.5, 0.5).
    assert!((c.shape.signed_distance(&Vec3::new(1.0, 1.6, 0.5)).0 - 0.1).abs() < 1e-12);
    assert!((c.shape.signed_distance(&Vec3::new(1.6, 0.5, 0.5)).0 - 0.1).abs() < 1e-12);
    let c = built("kind = \"capsule\"\na = [0.0, 0.0, 0.0]\nb = [0.0, 2.0, 0.0]\nradius = 0.5\nrotate = [90.0, 0.0, 0.0]", Path::new(".")).unwrap();
    let Shape::Capsule { a, b, .. } = c.shape else { panic!("{:?}", c.shape) };
    assert!((a - Vec3::new(0.0, 1.0, -1.0)).norm() < 1e-12 && (b - Vec3::new(0.0, 1.0, 1.0)).norm() < 1e-12);
    let c = built(
        "kind = \"sphere\"\ncenter = [0.0, 1.0, 0.0]\nradius = 0.5\nvelocity = [1.0, 0.0, 0.0]\npath = [{ t = 0.0, translate = [0.0, 0.0, 0.0] }, { t = 0.5, translate = [0.0, -1.0, 0.0] }]",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(c.motion.path.len(), 2);
    assert_eq!(c.velocity_at(&Vec3::zeros(), 0.25), Vec3::new(1.0, -2.0, 0.0));
    assert!((c.signed_distance(&Vec3::new(0.5, 0.0, 0.0), 1.0).0 - 0.0).abs() < 1e-12, "the ball is at (1, 0, 0) at t = 1");
}

#[test]
fn bad_colliders_name_the_field() {
    let ball = "kind = \"sphere\"\ncenter = [0.0, 0.0, 0.0]\nradius = 1.0\n";
    assert_eq!(err("kind = \"sphere\"\ncenter = [0.0, 0.0, 0.0]\nradius = -1.0"), "collider[0].radius: must be positive, got -1");
    assert_eq!(
        err(&format!("{ball}path = [{{ t = 0.5, translate = [0.0, 0.0, 0.0] }}, {{ t = 0.5, translate = [1.0, 0.0, 0.0] }}]")),
        "collider[0].path[1].t: keys must increase, got 0.5 after 0.5"
    );
    assert_eq!(err(&format!("{ball}path = []")), "collider[0].path: needs at least one key");
    assert_eq!(
        err(&format!("{ball}path = [{{ t = 0.0, translate = [0.0, nan, 0.0] }}]")),
        "collider[0].path[0].translate: must be finite, got [0.0, NaN, 0.0]"
    );
    assert_eq!(err(&format!("{ball}rotate = [0.0, 0.0, 90.0]")), "collider[0].rotate: not a field of a sphere collider");
    assert_eq!(err(&format!("{ball}angular_velocity = [0.0, inf, 0.0]")), "collider[0].angular_velocity: must be finite, got [0.0, inf, 0.0]");
    assert_eq!(
        err("kind = \"capsule\"\na = [1.0, 0.0, 0.0]\nb = [1.0, 0.0, 0.0]\nradius = 0.1"),
        "collider[0].b: must differ from a (a capsule of zero length is a sphere)"
    );
    assert_eq!(err("kind = \"capsule\"\na = [1.0, 0.0, 0.0]\nradius = 0.1"), "collider[0].b: required for a capsule collider");
    assert_eq!(err("kind = \"mesh\"\nfile = \"m.obj\"\nscale = 0.0"), "collider[0].scale: must be positive, got 0");
    assert_eq!(err("kind = \"mesh\"\nradius = 1.0"), "collider[0].radius: not a field of a mesh collider");
    assert!(err("kind = \"cone\"").contains("capsule, mesh"));
    assert!(
        built(&format!("{ball}velocity = [0.0, 1.0, 0.0]\nfriction = 0.5\n[solver]\nkind = \"multilayer\"\nlayers = 1"), Path::new(".")).is_ok(),
        "the multi-layer solver takes moving colliders with friction"
    );
}
