//! The `shell` material of a triangle-mesh body (docs/shells.md): its physical parameters checked, and its
//! membrane triangles and bending hinges with their rest data.

use super::build::positive;
use super::cloth_material::strain_limit;
use super::cloth_topology::edges_and_hinges;
use super::schema;
use crate::constraint::strain_limit::StrainLimit;
use crate::constraint::tet_model::gather;
use crate::fem::shell::{Bending, HingeRest, Membrane, ShapeOperatorRest, ShellMaterial, TriangleRest};
use crate::material::Lame;
use crate::mesh::TriMesh;
use crate::model::{Rayleigh, ShellGroup};
use crate::{Error, Result};
use std::collections::HashMap;

/// A parsed `shell` material: the shell's parameters, its volumetric density (kg/m³) and its strain limit.
pub struct ShellSpec {
    pub material: ShellMaterial,
    pub density: f64,
    pub strain_limit: Option<StrainLimit>,
}

impl ShellSpec {
    /// Mass per unit area, ρ·t (kg/m²).
    pub fn areal_density(&self) -> f64 {
        self.density * self.material.thickness
    }
}

/// Checks `body[i].material` (`what`) of model `shell`: youngs, poisson, density, thickness, membrane, bending,
/// strain_min, strain_max.
pub fn parse(mat: &schema::Material, what: &str) -> Result<ShellSpec> {
    for (f, v) in [
        ("areal_density", mat.areal_density),
        ("stretch_compliance", mat.stretch_compliance),
        ("bending_compliance", mat.bending_compliance),
        ("bending_stiffness", mat.bending_stiffness),
        ("pbd_stretch", mat.pbd_stretch),
        ("pbd_bending", mat.pbd_bending),
    ] {
        if v.is_some() {
            return Err(Error::invalid(format!(
                "{what}.{f}: not a field of model 'shell' (shell takes youngs, poisson, density, thickness, membrane, bending, strain_min, strain_max)"
            )));
        }
    }
    let density = positive(mat.density, what, "density", "shell")?;
    let thickness = positive(mat.thickness, what, "thickness", "shell")?;
    let youngs = mat.youngs.ok_or_else(|| Error::invalid(format!("{what}.youngs: required for model 'shell'")))?;
    let poisson = mat.poisson.ok_or_else(|| Error::invalid(format!("{what}.poisson: required for model 'shell'")))?;
    Lame::from_youngs_poisson(youngs, poisson, what)?;
    let membrane = match mat.membrane.as_deref() {
        None => Membrane::StVK,
        Some(name) => {
            Membrane::from_name(name).ok_or_else(|| Error::invalid(format!("{what}.membrane: unknown membrane '{name}' (expected stvk or neohookean)")))?
        }
    };
    let bending = match mat.bending.as_deref() {
        None => Bending::ShapeOperator,
        Some(name) => {
            Bending::from_name(name).ok_or_else(|| Error::invalid(format!("{what}.bending: unknown bending '{name}' (expected shape_operator or hinge)")))?
        }
    };
    let strain_limit = strain_limit(mat, what)?;
    Ok(ShellSpec { material: ShellMaterial { membrane, bending, youngs, poisson, thickness }, density, strain_limit })
}

/// The shell of body `body` on the placed mesh `cm`, whose first vertex is global vertex `base`.
pub fn group(body: usize, spec: &ShellSpec, rayleigh: Rayleigh, cm: &TriMesh, base: u32, what: &str) -> Result<ShellGroup> {
    let triangle_rest = cm
        .tris
        .iter()
        .enumerate()
        .map(|(e, t)| TriangleRest::new(&gather(&cm.vertices, t)).ok_or_else(|| Error::invalid(format!("{what}: triangle {e} {t:?} is degenerate"))))
        .collect::<Result<Vec<_>>>()?;
    let (_, hinges) = edges_and_hinges(&cm.tris);
    let by_edge: HashMap<[u32; 2], u32> = hinges.iter().enumerate().map(|(i, h)| ([h[0].min(h[1]), h[0].max(h[1])], i as u32)).collect();
    let triangle_hinges = cm
        .tris
        .iter()
        .map(|t| {
            std::array::from_fn(|e| {
                let (a, b) = (t[(e + 1) % 3], t[(e + 2) % 3]);
                by_edge.get(&[a.min(b), a.max(b)]).copied()
            })
        })
        .collect();
    let hinge_rest = hinges
        .iter()
        .map(|h| HingeRest::new(&gather(&cm.vertices, h)).ok_or_else(|| Error::invalid(format!("{what}: the hinge on edge {}–{} is degenerate", h[0], h[1]))))
        .collect::<Result<Vec<_>>>()?;
    Ok(ShellGroup {
        body,
        material: spec.material,
        rayleigh,
        triangles: cm.tris.iter().map(|t| t.map(|i| i + base)).collect(),
        triangle_rest,
        hinges: hinges.iter().map(|h| h.map(|i| i + base)).collect(),
        hinge_rest,
        triangle_hinges,
        plate_rest: match spec.material.bending {
            Bending::ShapeOperator => cm.tris.iter().map(|t| ShapeOperatorRest::new(&spec.material, &gather(&cm.vertices, t))).collect(),
            Bending::Hinge => Vec::new(),
        },
        strain_limit: spec.strain_limit,
    })
}

#[cfg(test)]
mod tests {
    use crate::scene::schema::{Material, Solver};
    use crate::scene::{BodyBuilder, SceneBuilder};
    use std::path::Path;

    fn error(body: BodyBuilder, solver: Solver) -> String {
        SceneBuilder::new("s").solver(solver).body(body).built(Path::new(".")).map(|_| ()).unwrap_err().to_string()
    }

    fn strip(material: Material) -> BodyBuilder {
        BodyBuilder::new("strip").grid2d([0.2, 0.04], [10, 2]).material(material)
    }

    /// Bad shell input is a one-line error naming the field.
    #[test]
    fn bad_shell_input_names_the_field() {
        let implicit = Solver::implicit;
        for (thickness, shown) in [(0.0, "0"), (-1e-3, "-0.001")] {
            let e = error(strip(Material::shell(1e9, 0.3, 1000.0, thickness)), implicit());
            assert_eq!(e, format!("body[0].material.thickness: must be a positive number, got {shown}"));
        }
        let e = error(strip(Material { thickness: None, ..Material::shell(1e9, 0.3, 1000.0, 1e-3) }), implicit());
        assert_eq!(e, "body[0].material.thickness: required for model 'shell'");
        let e = error(BodyBuilder::new("block").box_mesh([0.1; 3], [2, 2, 2]).material(Material::shell(1e9, 0.3, 1000.0, 1e-3)), implicit());
        assert!(e.starts_with("body[0].material.model: 'shell' needs a triangle mesh"), "{e}");
        let e = error(strip(Material { membrane: Some("linear".into()), ..Material::shell(1e9, 0.3, 1000.0, 1e-3) }), implicit());
        assert_eq!(e, "body[0].material.membrane: unknown membrane 'linear' (expected stvk or neohookean)");
        let e = error(strip(Material { strain_max: Some(0.9), ..Material::shell(1e9, 0.3, 1000.0, 1e-3) }), implicit());
        assert_eq!(e, "body[0].material.strain_max: must be a finite number > 1, got 0.9");
        let e = error(strip(Material { strain_min: Some(1.0), ..Material::shell(1e9, 0.3, 1000.0, 1e-3) }), implicit());
        assert_eq!(e, "body[0].material.strain_min: must be in (0, 1), got 1");
        let e = error(strip(Material { areal_density: Some(1.0), ..Material::shell(1e9, 0.3, 1000.0, 1e-3) }), implicit());
        assert!(e.starts_with("body[0].material.areal_density: not a field of model 'shell'"), "{e}");
        let e = error(strip(Material { membrane: Some("stvk".into()), ..Material::cloth(0.1, 0.0, 1.0) }), Solver::xpbd("colored"));
        assert!(e.starts_with("body[0].material.membrane: a field of model 'shell' only"), "{e}");
        let e = error(strip(Material { thickness: Some(1e-3), ..Material::cloth(0.1, 0.0, 1.0) }), Solver::xpbd("colored"));
        assert!(e.starts_with("body[0].material.thickness: not a field of model 'cloth'"), "{e}");
        for e in [
            error(strip(Material::shell(1e9, 0.3, 1000.0, 1e-3)), Solver::xpbd("colored")),
            error(strip(Material::shell(1e9, 0.3, 1000.0, 1e-3)), Solver::mgpbd()),
        ] {
            assert!(e.contains("material.model = \"shell\" runs under solver.kind = \"implicit\""), "{e}");
        }
        let e = error(strip(Material::shell(1e9, 0.3, 1000.0, 1e-3)), Solver::multilayer());
        assert!(!e.contains('\n'));
    }

    /// A shell's mass is ρ·t per unit area, lumped a third per triangle vertex.
    #[test]
    fn shell_mass_is_density_times_thickness() {
        let built = SceneBuilder::new("s").solver(Solver::implicit()).body(strip(Material::shell(1e9, 0.3, 800.0, 2e-3))).built(Path::new(".")).unwrap();
        let total: f64 = built.model.mass.iter().sum();
        assert!((total - 800.0 * 2e-3 * 0.2 * 0.04).abs() < 1e-12, "{total}");
        let g = &built.model.shell_groups[0];
        // V − E + F = 1 on a disc: 33 vertices, 40 triangles, 72 edges of which 24 on the boundary.
        assert_eq!((g.triangles.len(), g.hinges.len()), (40, 48));
    }
}
