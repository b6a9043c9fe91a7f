//! Scenes (docs/scene-format.md): TOML parsed with serde (`schema`) or made in code (`builder`), then
//! checked and turned into a [`Model`](crate::model::Model) (`build`).

pub mod build;
pub mod builder;
mod cloth_material;
pub(crate) mod cloth_topology;
#[cfg(test)]
mod collider_tests;
mod contact;
pub mod field_path;
mod finite;
pub mod initial_deform;
pub mod pin;
mod region;
pub mod schema;
mod shell_material;
pub mod table2;
mod tet_material;

pub use build::{build, Built};
pub use builder::{BodyBuilder, SceneBuilder};
pub use schema::Scene;

use crate::{Error, Result};
use std::path::Path;

/// Reads and parses a scene file. Errors name the file and, for syntax, type and unknown-key errors,
/// the line and the field path.
/// A mesh file (by extension or content) or a file that is not text is refused with a line that says
/// what it is and where a scene is described.
pub fn load(path: &Path) -> Result<Scene> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    if let Some(kind) = crate::mesh::io::mesh_kind(path, &bytes) {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        return Err(Error::parse(
            path,
            None,
            format!("is {kind}, not a scene: a scene (.toml, docs/scene-format.md) loads it with `mesh = {{ file = \"{name}\" }}`; `xpbd info` describes it"),
        ));
    }
    let text =
        String::from_utf8(bytes).map_err(|_| Error::parse(path, None, "is not a scene: not UTF-8 text (a scene is a TOML file, docs/scene-format.md)"))?;
    parse(&text, path)
}

/// Parses scene text; `path` is used in messages, which name the line and the field path
/// (`body[1].material.youngs`) and give types in words.
pub fn parse(text: &str, path: &Path) -> Result<Scene> {
    toml::from_str(text).map_err(|e| field_path::located(text, path, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_key_names_key_and_line() {
        let err = parse("name = \"a\"\n[simulation]\ndt = 0.01\nsubstep = 3\n", Path::new("s.toml")).unwrap_err().to_string();
        assert!(err.starts_with("s.toml:4:") && err.contains("substep"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn too_large_a_substep_for_stable_neohookean_is_warned() {
        let solved = |substeps: usize, model: &str, solver: schema::Solver| {
            let body = BodyBuilder::new("b").box_mesh([0.1; 3], [4, 4, 4]).material(schema::Material::tet(model, 1e7, 0.4, 1000.0));
            SceneBuilder::new("a").substeps(substeps).solver(solver).body(body).built(Path::new(".")).unwrap().warnings
        };
        let scene = |substeps: usize, model: &str| solved(substeps, model, schema::Solver::default());
        let w = scene(2, "neohookean_block");
        assert!(w.len() == 1 && w[0].contains("body 'b'") && w[0].contains("stability estimate"), "{w:?}");
        assert!(scene(2000, "neohookean_block").is_empty());
        assert!(scene(2, "stvk").is_empty(), "StVK rows vanish at rest: no limit");
        assert!(solved(2, "neohookean_block", schema::Solver::implicit()).is_empty(), "the implicit solvers have no rows");
        assert!(solved(2, "neohookean_block", schema::Solver::adaptive()).is_empty());
    }

    /// `initial_deform` moves the initial state, not the rest shape, and pins hold the deformed
    /// positions; a cylinder collider is read with its axis normalised, and its errors name the field.
    #[test]
    fn initial_deform_and_cylinder_collider() {
        let text = |deform: &str, collider: &str| {
            format!(
                "name = \"a\"\n[[body]]\nname = \"b\"\n\
                 mesh = {{ generator = \"box\", size = [2.0, 1.0, 1.0], cells = [4, 2, 2] }}\n\
                 material = {{ model = \"stvk\", youngs = 1e7, poisson = 0.4, density = 1000.0 }}\n\
                 pin = [{{ box = {{ min = [-0.01, -1.0, -1.0], max = [0.01, 2.0, 2.0] }}, velocity = [0.0, 1.0, 0.0] }}]\n\
                 {deform}\n[[collider]]\n{collider}\n"
            )
        };
        let cyl = "kind = \"cylinder\"\npoint = [0.0, -1.0, 0.0]\naxis = [0.0, 0.0, 2.0]\nradius = 0.25";
        let squash = "initial_deform = { scale = [1.0, 0.5, 1.0], twist_axis = \"x\", twist_degrees = 40.0 }";
        let m = build(&parse(&text(squash, cyl), Path::new("s.toml")).unwrap(), Path::new(".")).unwrap().model;
        let plain = build(&parse(&text("", cyl), Path::new("s.toml")).unwrap(), Path::new(".")).unwrap().model;
        assert_eq!(m.rest, plain.rest, "the rest shape does not move");
        let expect =
            initial_deform::deform(&plain.rest, &schema::InitialDeform { scale: [1.0, 0.5, 1.0], twist_axis: Some("x".into()), twist_degrees: 40.0 }, "b")
                .unwrap();
        assert_eq!(m.initial_position, expect);
        assert_eq!(crate::state::State::initial(&m).x, expect);
        assert!(m.attachments.iter().all(|a| a.origin == expect[a.vertex as usize]) && !m.attachments.is_empty());
        assert_eq!(
            m.colliders[0].shape,
            crate::collider::Shape::Cylinder { point: crate::mesh::Vec3::new(0.0, -1.0, 0.0), axis: crate::mesh::Vec3::z(), radius: 0.25 }
        );
        let err = |deform: &str, collider: &str| build(&parse(&text(deform, collider), Path::new("s.toml")).unwrap(), Path::new(".")).unwrap_err().to_string();
        assert!(err("", "kind = \"cylinder\"\npoint = [0.0, 0.0, 0.0]\naxis = [0.0, 0.0, 0.0]\nradius = 1.0").contains("collider[0].axis: must not be zero"));
        assert!(err("", "kind = \"cylinder\"\npoint = [0.0, 0.0, 0.0]\nradius = 1.0").contains("collider[0].axis: required for a cylinder"));
        assert!(
            err("", "kind = \"sphere\"\ncenter = [0.0, 0.0, 0.0]\naxis = [1.0, 0.0, 0.0]\nradius = 1.0").contains("collider[0].axis: not a field of a sphere")
        );
        assert!(err("initial_deform = { scale = [1.0, -0.5, 1.0] }", cyl).contains("body[0].initial_deform.scale"));
    }

    /// `ordering`, `relaxation`, `cluster_size` and `precision` set where the solver does not read them are warned;
    /// an unknown precision is an error naming the field.
    #[test]
    fn settings_the_solver_ignores_are_warned() {
        let warnings = |solver: schema::Solver| {
            let body = BodyBuilder::new("b").box_mesh([0.1; 3], [2, 2, 2]).material(schema::Material::tet("stvk", 1e6, 0.3, 1000.0));
            SceneBuilder::new("a").iterations(5).solver(solver).body(body).built(Path::new(".")).unwrap().warnings
        };
        let w = warnings(schema::Solver {
            ordering: "clustered".into(),
            cluster_size: 8,
            relaxation: 0.5,
            precision: "f32".into(),
            ..schema::Solver::multilayer()
        });
        assert_eq!(w.len(), 4, "{w:?}");
        for (w, field) in w.iter().zip(["ordering = \"clustered\"", "relaxation = 0.5", "cluster_size = 8", "precision = \"f32\""]) {
            assert!(w.starts_with(&format!("solver.{field} is ignored: solver.kind = \"multilayer\"")), "{w}");
        }
        assert!(warnings(schema::Solver::multilayer()).is_empty());
        assert!(warnings(schema::Solver { relaxation: 0.5, ..schema::Solver::xpbd("jacobi") }).is_empty());
        let w = warnings(schema::Solver { relaxation: 0.5, cluster_size: 3, ..schema::Solver::xpbd("serial") });
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(warnings(schema::Solver { precision: "f32".into(), ..schema::Solver::xpbd("serial") }).is_empty());
        let body = BodyBuilder::new("b").box_mesh([0.1; 3], [2, 2, 2]).material(schema::Material::tet("stvk", 1e6, 0.3, 1000.0));
        let scene = SceneBuilder::new("a").solver(schema::Solver { precision: "f16".into(), ..schema::Solver::xpbd("serial") }).body(body);
        let err = scene.built(Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("solver.precision: unknown precision 'f16' (expected f64, f32)"), "{err}");
    }

    #[test]
    fn wrong_type_names_line() {
        let err = parse("name = \"a\"\n[simulation]\nframes = \"ten\"\n", Path::new("s.toml")).unwrap_err().to_string();
        assert!(err.starts_with("s.toml:3:"), "{err}");
    }
}
