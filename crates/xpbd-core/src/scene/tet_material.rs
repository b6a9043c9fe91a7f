//! A tetrahedral `material` table (a body's or a region's): the model, its constraint Lamé parameters and the
//! density that lumps the masses.

use super::build::positive;
use super::schema::Material;
use crate::constraint::tet_model::TetModel;
use crate::material::Lame;
use crate::{Error, Result};

/// A tet material, checked.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TetMaterial {
    pub model: TetModel,
    /// Constraint Lamé parameters (reparametrised for stable neo-Hookean).
    pub lame: Lame,
    /// kg/m³.
    pub density: f64,
}

impl TetMaterial {
    /// Parses `mat` at field path `what` (e.g. `body[0].material`) for the tetrahedral body `body`: a tet model
    /// with `youngs`, `poisson` and `density`, and none of the cloth's or shell's fields.
    pub fn parse(mat: &Material, what: &str, body: &str) -> Result<Self> {
        let model = match TetModel::from_name(&mat.model) {
            Some(m) => m,
            None if mat.model == "cloth" || mat.model == "shell" => {
                return Err(Error::invalid(format!(
                    "{what}.model: '{}' needs a triangle mesh (grid2d, sphere_shell, cylinder_shell or .obj), {body} is tetrahedral",
                    mat.model
                )))
            }
            None => {
                return Err(Error::invalid(format!(
                    "{what}.model: unknown model '{}' (expected neohookean, neohookean_block, stvk, arap, corotational, cloth, shell)",
                    mat.model
                )))
            }
        };
        for (f, present) in [
            ("areal_density", mat.areal_density.is_some()),
            ("stretch_compliance", mat.stretch_compliance.is_some()),
            ("bending_compliance", mat.bending_compliance.is_some()),
            ("thickness", mat.thickness.is_some()),
            ("membrane", mat.membrane.is_some()),
            ("bending", mat.bending.is_some()),
            ("bending_stiffness", mat.bending_stiffness.is_some()),
            ("strain_min", mat.strain_min.is_some()),
            ("strain_max", mat.strain_max.is_some()),
            ("pbd_stretch", mat.pbd_stretch.is_some()),
            ("pbd_bending", mat.pbd_bending.is_some()),
        ] {
            if present {
                return Err(Error::invalid(format!("{what}.{f}: not a field of model '{}'", mat.model)));
            }
        }
        let density = positive(mat.density, what, "density", &mat.model)?;
        let youngs = mat.youngs.ok_or_else(|| Error::invalid(format!("{what}.youngs: required for model '{}'", mat.model)))?;
        let poisson = mat.poisson.ok_or_else(|| Error::invalid(format!("{what}.poisson: required for model '{}'", mat.model)))?;
        let lame = model.constraint_lame(Lame::from_youngs_poisson(youngs, poisson, what)?);
        Ok(TetMaterial { model, lame, density })
    }
}
