//! `[[body.region]]`: parts of a tetrahedral body with their own material, selected by the rest centroids of
//! the body's tetrahedra (world coordinates, after `rotate` and `translate`).

use super::finite::finite3;
use super::schema::Region;
use super::tet_material::TetMaterial;
use crate::mesh::Vec3;
use crate::{Error, Result};

/// A region's selection, checked.
enum Selection {
    /// The box [lo, hi], bounds inclusive.
    Box { lo: Vec3, hi: Vec3 },
    /// The points within `radius` of the line through `point` along the unit `axis`.
    Cylinder { point: Vec3, axis: Vec3, radius: f64 },
}

impl Selection {
    fn parse(r: &Region, what: &str) -> Result<Self> {
        match (&r.aabb, &r.cylinder) {
            (Some(_), Some(_)) => Err(Error::invalid(format!("{what}: give either `box` or `cylinder`, not both"))),
            (None, None) => Err(Error::invalid(format!("{what}: needs `box` or `cylinder`"))),
            (Some(b), None) => {
                let (lo, hi) = (finite3(b.min, &format!("{what}.box.min"))?, finite3(b.max, &format!("{what}.box.max"))?);
                if (0..3).any(|k| lo[k] > hi[k]) {
                    return Err(Error::invalid(format!("{what}.box: min must not exceed max on any axis, got min {:?}, max {:?}", b.min, b.max)));
                }
                Ok(Selection::Box { lo, hi })
            }
            (None, Some(c)) => {
                let point = finite3(c.point, &format!("{what}.cylinder.point"))?;
                let axis = finite3(c.axis, &format!("{what}.cylinder.axis"))?
                    .try_normalize(1e-12)
                    .ok_or_else(|| Error::invalid(format!("{what}.cylinder.axis: must not be zero")))?;
                if !(c.radius.is_finite() && c.radius > 0.0) {
                    return Err(Error::invalid(format!("{what}.cylinder.radius: must be a positive number, got {}", c.radius)));
                }
                Ok(Selection::Cylinder { point, axis, radius: c.radius })
            }
        }
    }

    fn contains(&self, p: &Vec3) -> bool {
        match self {
            Selection::Box { lo, hi } => (0..3).all(|k| p[k] >= lo[k] && p[k] <= hi[k]),
            Selection::Cylinder { point, axis, radius } => {
                let d = p - point;
                (d - axis * axis.dot(&d)).norm() <= *radius
            }
        }
    }
}

/// A body's tetrahedra by material: (material, tetrahedron indices) for each region in order, then the body's
/// own `material` for the tetrahedra no region selects (left out when there are none). A tetrahedron takes the
/// first region whose selection holds its rest centroid. `bi` and `body` name the body in errors; a region
/// that ends up with no tetrahedron is an error.
pub fn material_groups(
    regions: &[Region],
    own: TetMaterial,
    vertices: &[Vec3],
    tets: &[[u32; 4]],
    bi: usize,
    body: &str,
) -> Result<Vec<(TetMaterial, Vec<usize>)>> {
    let mut parsed = Vec::with_capacity(regions.len());
    for (ri, r) in regions.iter().enumerate() {
        let what = format!("body[{bi}].region[{ri}]");
        parsed.push((Selection::parse(r, &what)?, TetMaterial::parse(&r.material, &format!("{what}.material"), body)?));
    }
    let centroid = |t: &[u32; 4]| t.iter().map(|&i| vertices[i as usize]).sum::<Vec3>() / 4.0;
    let mut groups: Vec<(TetMaterial, Vec<usize>)> = parsed.iter().map(|(_, m)| (*m, Vec::new())).chain([(own, Vec::new())]).collect();
    let mut touched = vec![false; parsed.len()];
    for (e, t) in tets.iter().enumerate() {
        let c = centroid(t);
        let mut first = None;
        for (ri, (s, _)) in parsed.iter().enumerate() {
            if s.contains(&c) {
                touched[ri] = true;
                first.get_or_insert(ri);
            }
        }
        groups[first.unwrap_or(parsed.len())].1.push(e);
    }
    if let Some(ri) = (0..parsed.len()).find(|&ri| groups[ri].1.is_empty()) {
        let why = if touched[ri] { "every tetrahedron it selects belongs to an earlier region" } else { "no tetrahedron's rest centroid lies in it" };
        return Err(Error::invalid(format!("body[{bi}].region[{ri}]: selects no tetrahedron of {body} ({why})")));
    }
    groups.retain(|(_, tets)| !tets.is_empty());
    Ok(groups)
}

#[cfg(test)]
mod tests {
    use crate::constraint::tet_model::TetModel;
    use crate::scene::schema::{Material, Region};
    use crate::scene::{BodyBuilder, SceneBuilder};
    use std::path::Path;

    const SOFT: f64 = 1.0e6;
    const STIFF: f64 = 1.0e8;

    /// A 4 × 1 × 1 bar of 8 × 2 × 2 cells with `regions`, soft StVK of density 1000 elsewhere.
    fn bar(regions: Vec<Region>) -> crate::Result<crate::scene::Built> {
        let body = regions
            .into_iter()
            .fold(BodyBuilder::new("bar").box_mesh([4.0, 1.0, 1.0], [8, 2, 2]).material(Material::tet("stvk", SOFT, 0.3, 1000.0)), |b, r| b.region(r));
        SceneBuilder::new("regions").body(body).built(Path::new("."))
    }

    fn err(regions: Vec<Region>) -> String {
        bar(regions).unwrap_err().to_string()
    }

    #[test]
    fn each_tet_takes_its_regions_material_and_density() {
        // The half x < 2 heavy and stiff (neo-Hookean), a cylinder about the bar's axis of radius 0.4 (the bar's core
        // beyond x = 2) ARAP; the rest keeps the body's material.
        let heavy = Material::tet("neohookean_block", STIFF, 0.3, 3000.0);
        let core = Material::tet("arap", SOFT, 0.3, 2000.0);
        let b =
            bar(vec![Region::in_box([-1.0, -1.0, -1.0], [2.0, 2.0, 2.0], heavy), Region::in_cylinder([0.0, 0.5, 0.5], [2.0, 0.0, 0.0], 0.4, core)]).unwrap();
        let m = &b.model;
        let models: Vec<TetModel> = m.tet_groups.iter().map(|g| g.model).collect();
        assert_eq!(models, [TetModel::NeoHookeanBlock, TetModel::Arap, TetModel::StVK]);
        let counts: Vec<usize> = m.tet_groups.iter().map(|g| g.tets.len()).collect();
        assert_eq!(counts.iter().sum::<usize>(), 8 * 2 * 2 * 5);
        assert_eq!(counts[0], 4 * 2 * 2 * 5, "the half x < 2");
        // The body's tets are its groups' tets in order, and the multipliers follow one another.
        let grouped: Vec<[u32; 4]> = m.tet_groups.iter().flat_map(|g| g.tets.iter().copied()).collect();
        assert_eq!(m.bodies[0].tets, grouped);
        assert_eq!(m.tet_groups[1].lambda_offset, m.tet_groups[0].rows());
        assert_eq!(m.rows, m.tet_groups.iter().map(|g| g.rows()).sum::<usize>());
        for g in &m.tet_groups[1..] {
            let centre = |t: &[u32; 4]| t.iter().map(|&i| m.rest[i as usize]).sum::<crate::mesh::Vec3>() / 4.0;
            assert!(g.tets.iter().all(|t| centre(t).x > 2.0));
        }
        // Masses: Σ ρV/4 of each tet with its own density.
        let mut expected = vec![0.0; m.vertex_count()];
        for (g, rho) in m.tet_groups.iter().zip([3000.0, 2000.0, 1000.0]) {
            for (t, r) in g.tets.iter().zip(&g.rest) {
                t.iter().for_each(|&i| expected[i as usize] += rho * r.volume / 4.0);
            }
        }
        assert!(m.mass.iter().zip(&expected).all(|(a, b)| (a - b).abs() <= 1e-12 * b), "lumped masses");
        let total: f64 = m.mass.iter().sum();
        let core_volume: f64 = m.tet_groups[1].rest.iter().map(|r| r.volume).sum();
        let exact = 2.0 * 3000.0 + core_volume * 2000.0 + (2.0 - core_volume) * 1000.0;
        assert!((total - exact).abs() < 1e-9 * exact, "{total} vs {exact}");
    }

    #[test]
    fn a_region_that_covers_the_body_leaves_no_group_of_the_bodys_material() {
        let b = bar(vec![Region::in_box([-1.0; 3], [5.0; 3], Material::tet("stvk", STIFF, 0.3, 1000.0))]).unwrap();
        assert_eq!(b.model.tet_groups.len(), 1);
        assert_eq!(b.model.tet_groups[0].lame, TetModel::StVK.constraint_lame(crate::material::Lame::from_youngs_poisson(STIFF, 0.3, "").unwrap()));
    }

    #[test]
    fn bad_regions_are_one_line_errors_naming_the_field() {
        let stiff = || Material::tet("stvk", STIFF, 0.3, 1000.0);
        let all = || Region::in_box([-1.0; 3], [5.0; 3], stiff());
        assert_eq!(
            err(vec![all(), Region::in_box([0.0; 3], [1.0; 3], stiff())]),
            "body[0].region[1]: selects no tetrahedron of body[0] 'bar' (every tetrahedron it selects belongs to an earlier region)"
        );
        assert_eq!(
            err(vec![Region::in_box([10.0; 3], [11.0; 3], stiff())]),
            "body[0].region[0]: selects no tetrahedron of body[0] 'bar' (no tetrahedron's rest centroid lies in it)"
        );
        assert!(err(vec![Region::in_box([1.0; 3], [0.0; 3], stiff())]).starts_with("body[0].region[0].box: min must not exceed max"));
        assert!(err(vec![Region::in_box([f64::NAN; 3], [0.0; 3], stiff())]).starts_with("body[0].region[0].box.min: must be finite"));
        assert_eq!(err(vec![Region::in_cylinder([0.0; 3], [0.0; 3], 1.0, stiff())]), "body[0].region[0].cylinder.axis: must not be zero");
        assert_eq!(
            err(vec![Region::in_cylinder([0.0; 3], [1.0, 0.0, 0.0], -1.0, stiff())]),
            "body[0].region[0].cylinder.radius: must be a positive number, got -1"
        );
        assert_eq!(err(vec![Region { aabb: None, cylinder: None, material: stiff() }]), "body[0].region[0]: needs `box` or `cylinder`");
        let both = Region { aabb: all().aabb, ..Region::in_cylinder([0.0; 3], [1.0, 0.0, 0.0], 1.0, stiff()) };
        assert_eq!(err(vec![both]), "body[0].region[0]: give either `box` or `cylinder`, not both");
        let with = |material: Material| err(vec![Region::in_box([-1.0; 3], [5.0; 3], material)]);
        assert_eq!(with(Material::tet("stvk", STIFF, 0.5, 1000.0)), "body[0].region[0].material.poisson: must lie in (-1, 0.5), got 0.5");
        assert_eq!(with(Material { density: None, ..stiff() }), "body[0].region[0].material.density: required for model 'stvk'");
        assert!(with(Material::cloth(0.1, 0.0, 1.0)).starts_with("body[0].region[0].material.model: 'cloth' needs a triangle mesh"));
        assert_eq!(with(Material { thickness: Some(0.1), ..stiff() }), "body[0].region[0].material.thickness: not a field of model 'stvk'");
        let cloth = BodyBuilder::new("sheet").grid2d([1.0, 1.0], [2, 2]).material(Material::cloth(0.1, 0.0, 1.0)).region(all());
        let e = SceneBuilder::new("c").body(cloth).built(Path::new(".")).unwrap_err().to_string();
        assert_eq!(e, "body[0].region[0]: regions are for tetrahedral bodies, body[0] 'sheet' is a triangle mesh");
    }
}
