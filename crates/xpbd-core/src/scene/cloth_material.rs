//! The bending of a `cloth` material (docs/cloth.md): one raw compliance for every hinge
//! (`bending_compliance`), or a plate bending modulus (`bending_stiffness`) that each hinge turns into its
//! own compliance from the rest mesh, so that the bending stiffness does not depend on the triangulation; or
//! PBD stiffnesses (`pbd_stretch`, `pbd_bending`) for the cloth report's PBD baseline.

use super::schema::Material;
use crate::constraint::bending::plate_compliance;
use crate::constraint::pbd::PbdStiffness;
use crate::constraint::strain_limit::StrainLimit;
use crate::constraint::tet_model::gather;
use crate::fem::shell::TriangleRest;
use crate::mesh::Vec3;
use crate::{Error, Result};
use nalgebra::Matrix2;

/// The checked bending key of a cloth material.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Bending {
    /// 1/(N·m), the same for every hinge (default 1).
    Compliance(f64),
    /// D (N·m).
    Plate(f64),
}

impl Bending {
    /// `mwhat`: the material's field path, e.g. `body[0].material`.
    pub(super) fn parse(mat: &Material, mwhat: &str) -> Result<Self> {
        match (mat.bending_compliance, mat.bending_stiffness) {
            (Some(_), Some(_)) => {
                Err(Error::invalid(format!("{mwhat}.bending_stiffness: give bending_stiffness (N·m) or bending_compliance (1/(N·m)), not both")))
            }
            (None, Some(d)) if d.is_finite() && d > 0.0 => Ok(Bending::Plate(d)),
            (None, Some(d)) => Err(Error::invalid(format!("{mwhat}.bending_stiffness: must be a positive number (N·m), got {d}"))),
            (c, None) => match c.unwrap_or(1.0) {
                c if c.is_finite() && c >= 0.0 => Ok(Bending::Compliance(c)),
                c => Err(Error::invalid(format!("{mwhat}.bending_compliance: must be ≥ 0, got {c}"))),
            },
        }
    }

    /// The compliance of each hinge of `hinges` (indices into the rest positions `x`).
    pub(super) fn hinge_compliance(self, x: &[Vec3], hinges: &[[u32; 4]]) -> Vec<f64> {
        match self {
            Bending::Compliance(c) => vec![c; hinges.len()],
            Bending::Plate(d) => hinges.iter().map(|h| plate_compliance(d, &gather(x, h))).collect(),
        }
    }
}

/// `pbd_stretch` and `pbd_bending`, each in (0, 1] and 1 when only the other is given: a PBD body, which takes
/// no compliance nor constraint `damping` (`damping`: the body's); `None` without either.
pub(super) fn pbd_stiffness(mat: &Material, mwhat: &str, damping: f64) -> Result<Option<PbdStiffness>> {
    if mat.pbd_stretch.is_none() && mat.pbd_bending.is_none() {
        return Ok(None);
    }
    for (f, v) in [("pbd_stretch", mat.pbd_stretch), ("pbd_bending", mat.pbd_bending)] {
        if let Some(k) = v.filter(|k| !(*k > 0.0 && *k <= 1.0)) {
            return Err(Error::invalid(format!("{mwhat}.{f}: a PBD stiffness must be in (0, 1], got {k}")));
        }
    }
    for (f, v) in [("stretch_compliance", mat.stretch_compliance), ("bending_compliance", mat.bending_compliance), ("bending_stiffness", mat.bending_stiffness)]
    {
        if v.is_some() {
            return Err(Error::invalid(format!("{mwhat}.{f}: a PBD body (pbd_stretch, pbd_bending) takes stiffnesses in (0, 1], not compliances")));
        }
    }
    if damping != 0.0 {
        let body = mwhat.strip_suffix(".material").unwrap_or(mwhat);
        return Err(Error::invalid(format!(
            "{body}.damping: a PBD body has no constraint damping (XPBD's needs a compliance); use simulation.velocity_damping"
        )));
    }
    Ok(Some(PbdStiffness { stretch: mat.pbd_stretch.unwrap_or(1.0), bending: mat.pbd_bending.unwrap_or(1.0) }))
}

/// `strain_min` in (0, 1) and `strain_max` > 1, either or both; `None` without either.
pub(super) fn strain_limit(mat: &Material, mwhat: &str) -> Result<Option<StrainLimit>> {
    if let Some(v) = mat.strain_min.filter(|v| !(*v > 0.0 && *v < 1.0)) {
        return Err(Error::invalid(format!("{mwhat}.strain_min: must be in (0, 1), got {v}")));
    }
    if let Some(v) = mat.strain_max.filter(|v| !(*v > 1.0 && v.is_finite())) {
        return Err(Error::invalid(format!("{mwhat}.strain_max: must be a finite number > 1, got {v}")));
    }
    Ok((mat.strain_min.is_some() || mat.strain_max.is_some())
        .then(|| StrainLimit { min: mat.strain_min.unwrap_or(0.0), max: mat.strain_max.unwrap_or(f64::INFINITY) }))
}

/// The rest frames D_m⁻¹ of `tris` (rest positions `x`), for a strain limit; a triangle too thin for a frame is
/// an error naming it (`what`: the body).
pub(super) fn triangle_frames(x: &[Vec3], tris: &[[u32; 3]], what: &str) -> Result<Vec<Matrix2<f64>>> {
    tris.iter()
        .enumerate()
        .map(|(e, t)| {
            TriangleRest::new(&t.map(|i| x[i as usize])).map(|r| r.dm_inv).ok_or_else(|| Error::invalid(format!("{what}: triangle {e} {t:?} is degenerate")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crate::scene::schema::Material;
    use crate::scene::{BodyBuilder, SceneBuilder};
    use std::path::Path;

    fn build(material: Material, cells: usize) -> crate::Result<crate::scene::Built> {
        SceneBuilder::new("c").body(BodyBuilder::new("sheet").grid2d([1.0, 1.0], [cells, cells]).material(material)).built(Path::new("."))
    }

    #[test]
    fn both_keys_or_a_bad_modulus_name_the_field() {
        let both = Material { bending_compliance: Some(1.0), ..Material::cloth_plate(0.1, 0.0, 1.0) };
        for (m, want) in [
            (both, "body[0].material.bending_stiffness: give bending_stiffness"),
            (Material::cloth_plate(0.1, 0.0, 0.0), "body[0].material.bending_stiffness: must be a positive number"),
            (Material::cloth_plate(0.1, 0.0, f64::NAN), "body[0].material.bending_stiffness: must be a positive number"),
            (Material::cloth(0.1, 0.0, -1.0), "body[0].material.bending_compliance: must be ≥ 0"),
            (Material { strain_min: Some(1.0), ..Material::cloth(0.1, 0.0, 1.0) }, "body[0].material.strain_min: must be in (0, 1)"),
            (Material { strain_min: Some(0.0), ..Material::cloth(0.1, 0.0, 1.0) }, "body[0].material.strain_min: must be in (0, 1)"),
            (Material { strain_max: Some(1.0), ..Material::cloth(0.1, 0.0, 1.0) }, "body[0].material.strain_max: must be a finite number > 1"),
        ] {
            let err = build(m, 2).unwrap_err().to_string();
            assert!(err.contains(want) && !err.contains('\n'), "{err}");
        }
        let tet = Material { bending_stiffness: Some(1.0), ..Material::tet("arap", 1e5, 0.3, 1000.0) };
        let err = SceneBuilder::new("t").body(BodyBuilder::new("b").box_mesh([0.1; 3], [1, 1, 1]).material(tet)).built(Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("body[0].material.bending_stiffness: not a field of model 'arap'"), "{err}");
    }

    #[test]
    fn pbd_stiffnesses_are_checked_and_exclude_compliances_and_damping() {
        let sheet = build(Material::cloth_pbd(0.1, 0.5, 1.0), 2).unwrap();
        let k = sheet.model.cloth_groups[0].pbd.expect("a PBD body");
        assert_eq!((k.stretch, k.bending), (0.5, 1.0));
        assert!(sheet.model.cloth_groups[0].bending_compliance.iter().all(|&a| a == 0.0));
        let only_stretch = Material { pbd_bending: None, ..Material::cloth_pbd(0.1, 0.3, 1.0) };
        assert_eq!(build(only_stretch, 2).unwrap().model.cloth_groups[0].pbd.unwrap().bending, 1.0, "the other defaults to 1");
        assert!(build(Material::cloth(0.1, 0.0, 1.0), 2).unwrap().model.cloth_groups[0].pbd.is_none());
        for (m, want) in [
            (Material::cloth_pbd(0.1, 0.0, 1.0), "body[0].material.pbd_stretch: a PBD stiffness must be in (0, 1], got 0"),
            (Material::cloth_pbd(0.1, 1.0, 1.5), "body[0].material.pbd_bending: a PBD stiffness must be in (0, 1], got 1.5"),
            (Material::cloth_pbd(0.1, f64::NAN, 1.0), "body[0].material.pbd_stretch: a PBD stiffness must be in (0, 1]"),
            (Material { stretch_compliance: Some(0.0), ..Material::cloth_pbd(0.1, 1.0, 1.0) }, "body[0].material.stretch_compliance: a PBD body"),
            (Material { bending_stiffness: Some(1.0), ..Material::cloth_pbd(0.1, 1.0, 1.0) }, "body[0].material.bending_stiffness: a PBD body"),
        ] {
            let err = build(m, 2).unwrap_err().to_string();
            assert!(err.contains(want) && !err.contains('\n'), "{err}");
        }
        let damped =
            SceneBuilder::new("c").body(BodyBuilder::new("sheet").grid2d([1.0, 1.0], [2, 2]).material(Material::cloth_pbd(0.1, 1.0, 1.0)).damping(0.1));
        let err = damped.built(Path::new(".")).unwrap_err().to_string();
        assert!(err.starts_with("body[0].damping: a PBD body has no constraint damping"), "{err}");
        let tet = Material { pbd_stretch: Some(1.0), ..Material::tet("arap", 1e5, 0.3, 1000.0) };
        let err = SceneBuilder::new("t").body(BodyBuilder::new("b").box_mesh([0.1; 3], [1, 1, 1]).material(tet)).built(Path::new(".")).unwrap_err().to_string();
        assert!(err.contains("body[0].material.pbd_stretch: not a field of model 'arap'"), "{err}");
    }

    #[test]
    fn the_grid_pattern_is_read_and_checked() {
        use crate::scene::schema::MeshSource;
        let grid = |pattern: Option<&str>, generator: &str| MeshSource {
            generator: Some(generator.into()),
            size: Some(vec![1.0, 1.0]),
            cells: Some(vec![2, 2]),
            pattern: pattern.map(str::to_string),
            ..Default::default()
        };
        let sheet =
            |mesh: MeshSource| SceneBuilder::new("c").body(BodyBuilder::new("sheet").mesh(mesh).material(Material::cloth(0.1, 0.0, 1.0))).built(Path::new("."));
        let hinges = |pattern| sheet(grid(pattern, "grid2d")).unwrap().model.cloth_groups[0].hinges.clone();
        assert_eq!(hinges(None), hinges(Some("alternating")));
        assert_ne!(hinges(Some("uniform")), hinges(Some("alternating")));
        let err = sheet(grid(Some("crossed"), "grid2d")).unwrap_err().to_string();
        assert!(err.contains("mesh.pattern: unknown pattern 'crossed' (expected alternating, uniform)"), "{err}");
        let boxed = MeshSource { size: Some(vec![1.0; 3]), cells: Some(vec![1; 3]), ..grid(Some("uniform"), "box") };
        let err = sheet(boxed).unwrap_err().to_string();
        assert!(err.contains("pattern"), "{err}");
    }

    /// α_e = 3/(D w_e): on square cells of side a, an axis-parallel hinge has w = 3, a diagonal one w = 6, so
    /// the compliances do not depend on a, and a raw `bending_compliance` fills every hinge.
    #[test]
    fn plate_compliance_per_hinge() {
        for cells in [2, 4] {
            let m = build(Material::cloth_plate(0.1, 0.0, 2.0), cells).unwrap().model;
            let g = &m.cloth_groups[0];
            for (h, &alpha) in g.hinges.iter().zip(&g.bending_compliance) {
                let e = m.rest[h[1] as usize] - m.rest[h[0] as usize];
                let w = if e.x.abs() > 1e-12 && e.y.abs() > 1e-12 { 6.0 } else { 3.0 };
                assert!((alpha - 3.0 / (2.0 * w)).abs() < 1e-12, "{cells} cells: hinge {h:?} α = {alpha}");
            }
        }
        let g = &build(Material::cloth(0.1, 0.0, 0.25), 2).unwrap().model.cloth_groups[0];
        assert!(g.bending_compliance.len() == g.hinges.len() && g.bending_compliance.iter().all(|&a| a == 0.25));
    }
}
