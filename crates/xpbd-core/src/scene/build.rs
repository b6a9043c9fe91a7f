//! Scene → Model: resolves meshes, checks every field (errors name the field path, e.g.
//! `body[0].material.poisson`), lumps masses, applies pins and initial velocities.

use super::cloth_material::{pbd_stiffness, strain_limit, triangle_frames, Bending};
use super::cloth_topology::edges_and_hinges;
use super::finite::finite3;
use super::schema::{self, Scene};
use super::tet_material::TetMaterial;
use crate::collider::{Collider, MeshSdf, Motion, PathKey, Shape};
use crate::constraint::bending::dihedral_angle;
use crate::constraint::tet::TetRest;
use crate::constraint::tet_model::gather;
use crate::contact::Friction;
use crate::implicit::settings::ImplicitSettings;
use crate::layers::settings::MultilayerSettings;
use crate::mesh::{generators, io, numbering::Numbering, orientation, surface, Mesh, TriMesh, Vec3};
use crate::mgpbd::settings::MgpbdSettings;
use crate::model::{Attachment, Body, ClothGroup, Model, Probe, Rayleigh, TetGroup};
use crate::solver_config::{Method, Ordering, Precision, SolverConfig};
use crate::{resources, Error, Result};
use nalgebra::Rotation3;
use std::path::Path;
use std::sync::Arc;

/// A scene, built: what is simulated, how it is solved, and the load-time warnings (reoriented elements,
/// dropped unreferenced vertices, stability notes) for the caller to print.
#[derive(Clone, Debug)]
pub struct Built {
    pub model: Model,
    pub config: SolverConfig,
    pub warnings: Vec<String>,
}

/// Builds the model and its solver configuration. `base_dir` resolves relative mesh paths.
pub fn build(scene: &Scene, base_dir: &Path) -> Result<Built> {
    let mut config = solver_config(scene)?;
    let mut warnings = ignored_solver_settings(&scene.solver, &config.method);
    if scene.bodies.is_empty() {
        return Err(Error::invalid("scene has no [[body]]"));
    }
    let mut m = Model {
        name: scene.name.clone(),
        gravity: finite3(scene.simulation.gravity, "simulation.gravity")?,
        rest: vec![],
        initial_position: vec![],
        initial_velocity: vec![],
        mass: vec![],
        inv_mass: vec![],
        bodies: vec![],
        tet_groups: vec![],
        cloth_groups: vec![],
        shell_groups: vec![],
        attachments: vec![],
        colliders: vec![],
        contact: Default::default(),
        probes: vec![],
        rows: 0,
    };
    let (mut vertices, mut elements) = (0u64, 0u64);
    for (bi, spec) in scene.bodies.iter().enumerate() {
        let what = format!("body[{bi}] '{}'", spec.name);
        if scene.bodies[..bi].iter().any(|b| b.name == spec.name) {
            return Err(Error::invalid(format!("{what}: body name used twice")));
        }
        let (mesh, numbers) = load_mesh(&spec.mesh, base_dir, &format!("body[{bi}].mesh"))?;
        (vertices, elements) = (vertices + mesh.vertices().len() as u64, elements + mesh.element_count() as u64);
        resources::check(&format!("{what}: the model with its solver structures"), resources::model_bytes(vertices, elements))?;
        add_body(&mut m, bi, spec, mesh, &numbers, &what, &mut warnings)?;
    }
    for (ci, c) in scene.colliders.iter().enumerate() {
        m.colliders.push(collider(c, &format!("collider[{ci}]"), base_dir)?);
    }
    m.contact = super::contact::contact_model(scene, &m)?;
    warnings.extend(super::contact::initial_crossings(&m));
    for (pi, p) in scene.probes.iter().enumerate() {
        let bi = scene
            .bodies
            .iter()
            .position(|b| b.name == p.body)
            .ok_or_else(|| Error::invalid(format!("probe[{pi}] '{}': no body named '{}'", p.name, p.body)))?;
        let what = format!("probe[{pi}] '{}'", p.name);
        let (vertex, far) = probe_vertex(&m, bi, finite3(p.point, &format!("probe[{pi}].point"))?, &what);
        warnings.extend(far);
        m.probes.push(Probe { name: p.name.clone(), vertex });
    }
    match &mut config.method {
        Method::Xpbd { .. } => {}
        Method::Mgpbd(settings) => settings.resolve(&m)?,
        Method::Multilayer(_) => {
            // One line per tet group: a body's regions of one model would repeat it.
            let mut notes = MultilayerSettings::warnings(&m);
            notes.dedup();
            warnings.extend(notes);
        }
        Method::Implicit(_) => {
            let s = &scene.simulation;
            let kind = config.method.kind();
            if s.velocity_damping != 0.0 {
                warnings.push(format!(
                    "simulation.velocity_damping = {} is ignored: solver.kind = \"{kind}\" damps with each body's `rayleigh`",
                    s.velocity_damping
                ));
            }
            if s.iterations != 1 {
                warnings.push(format!("simulation.iterations = {} is ignored: solver.kind = \"{kind}\" solves each step directly", s.iterations));
            }
        }
    }
    if let (false, Some(bi)) = (matches!(config.method, Method::Implicit(_)), scene.bodies.iter().position(|b| b.rayleigh.is_some())) {
        return Err(Error::invalid(format!("body[{bi}].rayleigh: only for solver.kind = \"implicit\" or \"adaptive\" (XPBD bodies take `damping`)")));
    }
    config.requirements(&m).map_err(|u| Error::invalid(u.0))?;
    warnings.extend(crate::stability::warnings(&m, &config));
    warnings.extend(crate::budget::warning(scene.simulation.frames, &config, &m));
    Ok(Built { model: m, config, warnings })
}

/// A probe's distance from its body, beyond which the snap to the nearest vertex is warned, as a
/// fraction of the body's bounding-box diagonal.
const PROBE_FAR: f64 = 0.25;

/// The vertex of body `bi` nearest to `target` at rest, and a warning when it is far from `target`.
fn probe_vertex(m: &Model, bi: usize, target: Vec3, what: &str) -> (u32, Option<String>) {
    let rest = &m.rest[m.bodies[bi].vertices.clone()];
    let distance = |p: &Vec3| (p - target).norm();
    let Some((i, nearest)) = rest.iter().enumerate().min_by(|a, b| distance(a.1).total_cmp(&distance(b.1))) else {
        return (m.bodies[bi].vertices.start as u32, None);
    };
    let (lo, hi) = rest.iter().fold((*nearest, *nearest), |(lo, hi), p| (lo.inf(p), hi.sup(p)));
    let diagonal = (hi - lo).norm();
    let far = (distance(nearest) > PROBE_FAR * diagonal).then(|| {
        format!(
            "{what}: point is {:.3} m from body '{}' (whose bounding box has a {diagonal:.3} m diagonal); it tracks the body's nearest vertex, {} at [{:.3}, {:.3}, {:.3}]",
            distance(nearest),
            m.bodies[bi].name,
            i,
            nearest.x,
            nearest.y,
            nearest.z
        )
    });
    ((m.bodies[bi].vertices.start + i) as u32, far)
}

fn solver_config(scene: &Scene) -> Result<SolverConfig> {
    let s = &scene.simulation;
    if !(s.dt.is_finite() && s.dt > 0.0) {
        return Err(Error::invalid(format!("simulation.dt: must be a positive number of seconds, got {}", s.dt)));
    }
    for (v, name) in [(s.substeps, "substeps"), (s.iterations, "iterations"), (s.frames, "frames")] {
        if v == 0 {
            return Err(Error::invalid(format!("simulation.{name}: must be at least 1")));
        }
    }
    if !(s.velocity_damping.is_finite() && s.velocity_damping >= 0.0) {
        return Err(Error::invalid(format!("simulation.velocity_damping: must be ≥ 0, got {}", s.velocity_damping)));
    }
    let k = &scene.solver;
    // `None`: XPBD, whose ordering is read below.
    let method = match k.kind.as_str() {
        "xpbd" => None,
        "mgpbd" => Some(Method::Mgpbd(MgpbdSettings::from_scene(k)?)),
        "multilayer" => Some(Method::Multilayer(MultilayerSettings::from_scene(k, s.iterations)?)),
        "implicit" | "adaptive" => Some(Method::Implicit(ImplicitSettings::from_scene(k, k.kind == "adaptive")?)),
        other => return Err(Error::invalid(format!("solver.kind: unknown solver '{other}' (expected xpbd, mgpbd, multilayer, implicit, adaptive)"))),
    };
    if let (false, Some(field)) = (matches!(method, Some(Method::Mgpbd(_))), MgpbdSettings::foreign_field(k)) {
        return Err(Error::invalid(format!("solver.{field}: only for kind = \"mgpbd\"")));
    }
    let linear_solve = [("linear_solver", k.linear_solver.is_some()), ("pcg_tol", k.pcg_tol.is_some()), ("pcg_max_iter", k.pcg_max_iter.is_some())];
    if let (false, Some((field, _))) = (matches!(method, Some(Method::Mgpbd(_) | Method::Implicit(_))), linear_solve.iter().find(|p| p.1)) {
        return Err(Error::invalid(format!("solver.{field}: only for kind = \"mgpbd\", \"implicit\" or \"adaptive\"")));
    }
    if let (false, Some(field)) = (matches!(method, Some(Method::Multilayer(_))), MultilayerSettings::foreign_field(k)) {
        return Err(Error::invalid(format!("solver.{field}: only for kind = \"multilayer\"")));
    }
    if let (false, Some(field)) = (matches!(method, Some(Method::Implicit(_))), ImplicitSettings::foreign_field(k)) {
        return Err(Error::invalid(format!("solver.{field}: only for kind = \"implicit\" or \"adaptive\"")));
    }
    // Checked for every kind (a batch may vary the ordering over several kinds), used by XPBD only.
    let ordering = Ordering::named(&k.ordering, k.relaxation, k.cluster_size)
        .ok_or_else(|| Error::invalid(format!("solver.ordering: unknown ordering '{}' (expected {})", k.ordering, Ordering::NAMES)))?;
    if !(k.relaxation > 0.0 && k.relaxation <= 2.0) {
        return Err(Error::invalid(format!("solver.relaxation: must lie in (0, 2], got {}", k.relaxation)));
    }
    if k.cluster_size == 0 {
        return Err(Error::invalid("solver.cluster_size: must be at least 1"));
    }
    let precision = Precision::named(&k.precision)
        .ok_or_else(|| Error::invalid(format!("solver.precision: unknown precision '{}' (expected {})", k.precision, Precision::NAMES)))?;
    let method = method.unwrap_or(Method::Xpbd { ordering, precision });
    Ok(SolverConfig { dt: s.dt, substeps: s.substeps, iterations: s.iterations, velocity_damping: s.velocity_damping, method })
}

/// A warning for each `[solver]` setting of the XPBD orderings (`ordering`, `relaxation`,
/// `cluster_size`, `precision`) that is set to other than its default and that `method` does not read. They are
/// checked for every kind (a batch may vary them over several kinds) but are an error nowhere.
fn ignored_solver_settings(k: &schema::Solver, method: &Method) -> Vec<String> {
    let default = schema::Solver::default();
    let ordering = method.ordering();
    let step_length = matches!(method, Method::Mgpbd(s) if !s.line_search);
    let (who, jacobi, clustered) = match ordering {
        Some(o) => (format!("solver.ordering = \"{}\"", o.name()), matches!(o, Ordering::Jacobi { .. }), matches!(o, Ordering::Clustered { .. })),
        None => (format!("solver.kind = \"{}\"", method.kind()), false, false),
    };
    let fields = [
        ("ordering", format!("{:?}", k.ordering), k.ordering != default.ordering, ordering.is_some(), "kind = \"xpbd\""),
        (
            "relaxation",
            k.relaxation.to_string(),
            k.relaxation != default.relaxation,
            jacobi || step_length,
            "ordering = \"jacobi\" and by kind = \"mgpbd\" with line_search = false",
        ),
        ("cluster_size", k.cluster_size.to_string(), k.cluster_size != default.cluster_size, clustered, "ordering = \"clustered\""),
        ("precision", format!("{:?}", k.precision), k.precision != default.precision, ordering.is_some(), "kind = \"xpbd\""),
    ];
    fields
        .into_iter()
        .filter(|&(_, _, set, used, _)| set && !used)
        .map(|(field, value, _, _, users)| format!("solver.{field} = {value} is ignored: {who} does not use it (used only by {users})"))
        .collect()
}

/// Rejects the first field that is `present` but not `allowed` for `kind` (a generator, a file, a
/// collider kind): "`what`.`field`: not a field of `kind`".
fn reject_foreign(present: &[(&str, bool)], allowed: &[&str], what: &str, kind: &str) -> Result<()> {
    match present.iter().find(|(k, p)| *p && !allowed.contains(k)) {
        Some((k, _)) => Err(Error::invalid(format!("{what}.{k}: not a field of {kind}"))),
        None => Ok(()),
    }
}

/// Rejects fields that do not belong to the chosen generator or file source.
fn only(src: &schema::MeshSource, allowed: &[&str], what: &str, kind: &str) -> Result<()> {
    let present = [
        ("scale", src.scale.is_some()),
        ("size", src.size.is_some()),
        ("cells", src.cells.is_some()),
        ("split", src.split.is_some()),
        ("radius", src.radius.is_some()),
        ("major_radius", src.major_radius.is_some()),
        ("minor_radius", src.minor_radius.is_some()),
        ("pattern", src.pattern.is_some()),
    ];
    reject_foreign(&present, allowed, what, kind)
}

fn need<T: Clone>(v: &Option<T>, what: &str, field: &str, kind: &str) -> Result<T> {
    v.clone().ok_or_else(|| Error::invalid(format!("{what}.{field}: required for {kind}")))
}

fn fixed<const N: usize, T: Copy + std::fmt::Debug>(v: Vec<T>, what: &str) -> Result<[T; N]> {
    v.as_slice().try_into().map_err(|_| Error::invalid(format!("{what}: expected {N} values, got {v:?}")))
}

fn load_mesh(src: &schema::MeshSource, base_dir: &Path, what: &str) -> Result<(Mesh, Numbering)> {
    match (&src.generator, &src.file) {
        (Some(_), Some(_)) => Err(Error::invalid(format!("{what}: give either `generator` or `file`, not both"))),
        (None, None) => Err(Error::invalid(format!("{what}: needs `generator` or `file`"))),
        (None, Some(file)) => {
            only(src, &["scale"], what, "a mesh file")?;
            let scale = src.scale.unwrap_or(1.0);
            if !(scale.is_finite() && scale > 0.0) {
                return Err(Error::invalid(format!("{what}.scale: must be positive, got {scale}")));
            }
            let path = base_dir.join(file);
            let file_len = std::fs::metadata(&path).map_or(0, |m| m.len());
            resources::check(&format!("{what}.file"), file_len.saturating_mul(resources::MESH_BYTES_PER_FILE_BYTE))?;
            let (mut mesh, numbers) = io::read_numbered(&path).map_err(|e| Error::invalid(format!("{what}.file: {e}")))?;
            mesh.vertices_mut().iter_mut().for_each(|p| *p *= scale);
            Ok((mesh, numbers))
        }
        (Some(g), None) => {
            let kind = format!("generator '{g}'");
            let in_field = |e: Error| Error::invalid(format!("{what}: {e}"));
            let split = src.split.unwrap_or(5);
            let mesh = match g.as_str() {
                "box" => {
                    only(src, &["size", "cells", "split"], what, &kind)?;
                    let size = fixed(need(&src.size, what, "size", &kind)?, &format!("{what}.size"))?;
                    let cells = fixed(need(&src.cells, what, "cells", &kind)?, &format!("{what}.cells"))?;
                    check_grid(what, &cells, split as u64)?;
                    Mesh::Tet(generators::box_mesh(size, cells, split).map_err(in_field)?)
                }
                "sphere" => {
                    only(src, &["radius", "cells", "split"], what, &kind)?;
                    let cells: [usize; 1] = fixed(need(&src.cells, what, "cells", &kind)?, &format!("{what}.cells"))?;
                    check_grid(what, &[cells[0]; 3], split as u64)?;
                    Mesh::Tet(generators::sphere_mesh(need(&src.radius, what, "radius", &kind)?, cells[0], split).map_err(in_field)?)
                }
                "torus" => {
                    only(src, &["major_radius", "minor_radius", "cells", "split"], what, &kind)?;
                    let cells: [usize; 1] = fixed(need(&src.cells, what, "cells", &kind)?, &format!("{what}.cells"))?;
                    check_grid(what, &[cells[0]; 3], split as u64)?;
                    let (r0, r1) = (need(&src.major_radius, what, "major_radius", &kind)?, need(&src.minor_radius, what, "minor_radius", &kind)?);
                    Mesh::Tet(generators::torus_mesh(r0, r1, cells[0], split).map_err(in_field)?)
                }
                "capsule" => {
                    only(src, &["radius", "size", "cells", "split"], what, &kind)?;
                    let length: [f64; 1] = fixed(need(&src.size, what, "size", &kind)?, &format!("{what}.size"))?;
                    let cells: [usize; 1] = fixed(need(&src.cells, what, "cells", &kind)?, &format!("{what}.cells"))?;
                    let radius = need(&src.radius, what, "radius", &kind)?;
                    // Voxels along the length: the diameter's `cells` times (length + diameter) / diameter (a bad
                    // radius or length is left to the generator, which names it and caps the element count).
                    let along = cells[0] as f64 * (1.0 + length[0] / (2.0 * radius));
                    if along.is_finite() && along >= 0.0 {
                        check_grid(what, &[along.ceil().min(u32::MAX as f64) as usize, cells[0], cells[0]], split as u64)?;
                    }
                    Mesh::Tet(generators::capsule_mesh(radius, length[0], cells[0], split).map_err(in_field)?)
                }
                "grid2d" => {
                    only(src, &["size", "cells", "pattern"], what, &kind)?;
                    let size = fixed(need(&src.size, what, "size", &kind)?, &format!("{what}.size"))?;
                    let cells = fixed(need(&src.cells, what, "cells", &kind)?, &format!("{what}.cells"))?;
                    check_grid(what, &cells, 2)?;
                    let pattern = match src.pattern.as_deref() {
                        None => generators::GridPattern::default(),
                        Some(name) => generators::GridPattern::named(name)
                            .ok_or_else(|| Error::invalid(format!("{what}.pattern: unknown pattern '{name}' (expected {})", generators::GridPattern::NAMES)))?,
                    };
                    Mesh::Tri(generators::grid2d_mesh(size, cells, pattern).map_err(in_field)?)
                }
                "sphere_shell" => {
                    only(src, &["radius", "cells"], what, &kind)?;
                    let cells: [usize; 1] = fixed(need(&src.cells, what, "cells", &kind)?, &format!("{what}.cells"))?;
                    Mesh::Tri(generators::sphere_shell_mesh(need(&src.radius, what, "radius", &kind)?, cells[0]).map_err(in_field)?)
                }
                "cylinder_shell" => {
                    only(src, &["radius", "size", "cells"], what, &kind)?;
                    let size: [f64; 1] = fixed(need(&src.size, what, "size", &kind)?, &format!("{what}.size"))?;
                    let cells = fixed(need(&src.cells, what, "cells", &kind)?, &format!("{what}.cells"))?;
                    check_grid(what, &cells, 2)?;
                    Mesh::Tri(generators::cylinder_shell_mesh(need(&src.radius, what, "radius", &kind)?, size[0], cells).map_err(in_field)?)
                }
                other => {
                    return Err(Error::invalid(format!(
                        "{what}.generator: unknown generator '{other}' (expected box, sphere, torus, capsule, grid2d, sphere_shell, cylinder_shell)"
                    )))
                }
            };
            Ok((mesh, Numbering::default()))
        }
    }
}

/// Checks the memory estimate of a generator's grid of `cells` with `per_cell` elements per cell
/// before it is generated (a bound: sphere and torus keep only the cells inside the shape).
fn check_grid(what: &str, cells: &[usize], per_cell: u64) -> Result<()> {
    let product = |extra: u64| cells.iter().fold(1u64, |acc, &n| acc.saturating_mul((n as u64).saturating_add(extra)));
    resources::check(what, resources::model_bytes(product(1), product(0).saturating_mul(per_cell)))
}

/// Keeps only vertices that some element references; returns the number dropped.
fn drop_unreferenced<const N: usize>(vertices: &mut Vec<Vec3>, elements: &mut [[u32; N]]) -> usize {
    let mut new_index = vec![u32::MAX; vertices.len()];
    let mut kept = Vec::with_capacity(vertices.len());
    for e in elements.iter_mut() {
        for i in e.iter_mut() {
            let old = *i as usize;
            if new_index[old] == u32::MAX {
                new_index[old] = kept.len() as u32;
                kept.push(vertices[old]);
            }
            *i = new_index[old];
        }
    }
    let dropped = vertices.len() - kept.len();
    *vertices = kept;
    dropped
}

pub(super) fn positive(v: Option<f64>, what: &str, field: &str, model: &str) -> Result<f64> {
    let x = v.ok_or_else(|| Error::invalid(format!("{what}.{field}: required for model '{model}'")))?;
    if x.is_finite() && x > 0.0 {
        Ok(x)
    } else {
        Err(Error::invalid(format!("{what}.{field}: must be a positive number, got {x}")))
    }
}

fn add_body(m: &mut Model, bi: usize, spec: &schema::Body, mesh: Mesh, numbers: &Numbering, what: &str, warnings: &mut Vec<String>) -> Result<()> {
    let mat = &spec.material;
    let mwhat = format!("body[{bi}].material");
    let rot = rotation(spec.rotate, &format!("body[{bi}].rotate"))?;
    let shift = finite3(spec.translate, &format!("body[{bi}].translate"))?;
    if !(spec.damping.is_finite() && spec.damping >= 0.0) {
        return Err(Error::invalid(format!("body[{bi}].damping: must be ≥ 0, got {}", spec.damping)));
    }
    let rayleigh = match spec.rayleigh {
        None => Rayleigh::default(),
        Some(r) if r.iter().all(|a| a.is_finite() && *a >= 0.0) => Rayleigh { mass: r[0], stiffness: r[1] },
        Some(r) => return Err(Error::invalid(format!("body[{bi}].rayleigh: both coefficients must be ≥ 0, got {r:?}"))),
    };
    for (f, v) in [("membrane", &mat.membrane), ("bending", &mat.bending)] {
        if v.is_some() && mat.model != "shell" {
            return Err(Error::invalid(format!("{mwhat}.{f}: a field of model 'shell' only (got model '{}')", mat.model)));
        }
    }
    if let (false, Mesh::Tri(_)) = (spec.regions.is_empty(), &mesh) {
        return Err(Error::invalid(format!("body[{bi}].region[0]: regions are for tetrahedral bodies, {what} is a triangle mesh")));
    }
    let base = m.rest.len();
    let mut mass;
    let body_surface: Vec<[u32; 3]>;
    let mut body_tets = Vec::new();
    let offset = |t: &[u32]| t.iter().map(|&i| i + base as u32).collect::<Vec<_>>();
    match mesh {
        Mesh::Tet(mut tm) => {
            let own = TetMaterial::parse(mat, &mwhat, what)?;
            let flips = orientation::orient_and_validate(&mut tm, what, numbers)?;
            if flips.flipped > 0 {
                warnings.push(format!("{what}: reoriented {} of {} tetrahedra with negative rest volume", flips.flipped, tm.tets.len()));
            }
            let dropped = drop_unreferenced(&mut tm.vertices, &mut tm.tets);
            if dropped > 0 {
                warnings.push(format!("{what}: dropped {dropped} vertices that belong to no tetrahedron"));
            }
            let surf = surface::boundary_faces(&tm.tets);
            transform(&mut tm.vertices, &rot, &shift);
            let mut rest = Vec::with_capacity(tm.tets.len());
            for (e, t) in tm.tets.iter().enumerate() {
                rest.push(TetRest::new(&gather(&tm.vertices, t)).ok_or_else(|| Error::invalid(format!("{what}: {} is degenerate", numbers.tet(e))))?);
            }
            // One group per material, each tet's mass from its own density; the body's tets group by group.
            mass = vec![0.0; tm.vertices.len()];
            for (material, members) in super::region::material_groups(&spec.regions, own, &tm.vertices, &tm.tets, bi, what)? {
                let tets: Vec<[u32; 4]> = members.iter().map(|&e| offset(&tm.tets[e]).try_into().unwrap()).collect();
                for &e in &members {
                    for &i in &tm.tets[e] {
                        mass[i as usize] += material.density * rest[e].volume / 4.0;
                    }
                }
                let rest = members.iter().map(|&e| rest[e]).collect();
                let group =
                    TetGroup { body: bi, model: material.model, lame: material.lame, damping: spec.damping, rayleigh, tets, rest, lambda_offset: m.rows };
                m.rows += group.rows();
                body_tets.extend_from_slice(&group.tets);
                m.tet_groups.push(group);
            }
            body_surface = surf.iter().map(|t| offset(t).try_into().unwrap()).collect();
            m.rest.extend(tm.vertices);
        }
        Mesh::Tri(mut cm) if mat.model == "shell" => {
            let spec = super::shell_material::parse(mat, &mwhat)?;
            let areas = triangle_mesh(&mut cm, what, &rot, &shift, warnings)?;
            mass = lumped_triangle_mass(&cm, &areas, spec.areal_density());
            m.shell_groups.push(super::shell_material::group(bi, &spec, rayleigh, &cm, base as u32, what)?);
            body_surface = cm.tris.iter().map(|t| offset(t).try_into().unwrap()).collect();
            m.rest.extend(cm.vertices);
        }
        Mesh::Tri(mut cm) => {
            if mat.model != "cloth" {
                return Err(Error::invalid(format!("{mwhat}.model: {what} is a triangle mesh, which needs model 'cloth' or 'shell' (got '{}')", mat.model)));
            }
            for (f, v) in [("density", mat.density), ("youngs", mat.youngs), ("poisson", mat.poisson), ("thickness", mat.thickness)] {
                if v.is_some() {
                    return Err(Error::invalid(format!(
                        "{mwhat}.{f}: not a field of model 'cloth' (cloth takes areal_density, stretch_compliance, bending_compliance or bending_stiffness, pbd_stretch, pbd_bending, strain_min, strain_max)"
                    )));
                }
            }
            let areal = positive(mat.areal_density, &mwhat, "areal_density", "cloth")?;
            let stretch = mat.stretch_compliance.unwrap_or(0.0);
            if !(stretch.is_finite() && stretch >= 0.0) {
                return Err(Error::invalid(format!("{mwhat}.stretch_compliance: must be ≥ 0, got {stretch}")));
            }
            let pbd = pbd_stiffness(mat, &mwhat, spec.damping)?;
            let bending = if pbd.is_some() { Bending::Compliance(0.0) } else { Bending::parse(mat, &mwhat)? };
            let limit = strain_limit(mat, &mwhat)?;
            let areas = triangle_mesh(&mut cm, what, &rot, &shift, warnings)?;
            mass = lumped_triangle_mass(&cm, &areas, areal);
            let (edges, hinges) = edges_and_hinges(&cm.tris);
            let rest_length = edges.iter().map(|e| (cm.vertices[e[1] as usize] - cm.vertices[e[0] as usize]).norm()).collect();
            let rest_angle = hinges.iter().map(|h| dihedral_angle(&gather(&cm.vertices, h))).collect();
            let bending_compliance = bending.hinge_compliance(&cm.vertices, &hinges);
            let g = ClothGroup {
                body: bi,
                damping: spec.damping,
                edges: edges.iter().map(|e| offset(e).try_into().unwrap()).collect(),
                rest_length,
                stretch_compliance: stretch,
                hinges: hinges.iter().map(|h| offset(h).try_into().unwrap()).collect(),
                rest_angle,
                bending_compliance,
                lambda_offset: m.rows,
                pbd,
                strain_limit: limit,
                tris: if limit.is_some() { cm.tris.iter().map(|t| offset(t).try_into().unwrap()).collect() } else { Vec::new() },
                tri_rest: if limit.is_some() { triangle_frames(&cm.vertices, &cm.tris, what)? } else { Vec::new() },
            };
            m.rows += g.rows();
            m.cloth_groups.push(g);
            body_surface = cm.tris.iter().map(|t| offset(t).try_into().unwrap()).collect();
            m.rest.extend(cm.vertices);
        }
    }
    let range = base..m.rest.len();
    zero_mass_vertices(&mass, what)?;
    // Initial velocity: v + ω × (x − x_com).
    let total: f64 = mass.iter().sum();
    let start = match &spec.initial_deform {
        Some(d) => super::initial_deform::deform(&m.rest[range.clone()], d, &format!("body[{bi}]"))?,
        None => m.rest[range.clone()].to_vec(),
    };
    let com = start.iter().zip(&mass).map(|(x, &w)| x * w).sum::<Vec3>() / total;
    let v0 = finite3(spec.velocity, &format!("body[{bi}].velocity"))?;
    let w0 = finite3(spec.angular_velocity, &format!("body[{bi}].angular_velocity"))?;
    m.initial_velocity.extend(start.iter().map(|x| v0 + w0.cross(&(x - com))));
    m.initial_position.extend(start);
    let mut inv: Vec<f64> = mass.iter().map(|&w| 1.0 / w).collect();
    for (pi, pin) in spec.pin.iter().enumerate() {
        let pwhat = format!("body[{bi}].pin[{pi}]");
        let selected = super::pin::selected(pin, &m.rest[range.clone()], &pwhat)?;
        let velocity = finite3(pin.velocity, &format!("{pwhat}.velocity"))?;
        if !(pin.compliance.is_finite() && pin.compliance >= 0.0) {
            return Err(Error::invalid(format!("{pwhat}.compliance: must be ≥ 0, got {}", pin.compliance)));
        }
        for local in selected {
            let g = base + local;
            let hard = pin.compliance == 0.0;
            if hard {
                inv[local] = 0.0;
                m.initial_velocity[g] = velocity;
            }
            if !hard || velocity != Vec3::zeros() {
                m.attachments.push(Attachment { vertex: g as u32, origin: m.initial_position[g], velocity, compliance: pin.compliance });
            }
        }
    }
    m.mass.extend(mass);
    m.inv_mass.extend(inv);
    m.bodies.push(Body { name: spec.name.clone(), vertices: range, surface: body_surface, tets: body_tets });
    Ok(())
}

/// Rejects vertices whose lumped mass is zero, or so small that its inverse overflows (a density
/// times an element volume that underflows), naming the first few by index.
fn zero_mass_vertices(mass: &[f64], what: &str) -> Result<()> {
    let bad: Vec<usize> = mass.iter().enumerate().filter(|(_, &w)| !(w > 0.0 && (1.0 / w).is_finite())).map(|(i, _)| i).collect();
    if bad.is_empty() {
        return Ok(());
    }
    let shown: Vec<String> = bad.iter().take(8).map(usize::to_string).collect();
    let more = if bad.len() > 8 { format!(" and {} more", bad.len() - 8) } else { String::new() };
    Err(Error::invalid(format!("{what}: {} vertices have zero mass (vertices {}{more}); check the density and the element sizes", bad.len(), shown.join(", "))))
}

/// Checks a triangle mesh's indices and areas, drops unreferenced vertices and places it (rotation, then
/// shift); returns each triangle's area.
fn triangle_mesh(cm: &mut TriMesh, what: &str, rot: &Rotation3<f64>, shift: &Vec3, warnings: &mut Vec<String>) -> Result<Vec<f64>> {
    let n = cm.vertices.len();
    if let Some((e, t)) = cm.tris.iter().enumerate().find(|(_, t)| t.iter().any(|&i| i as usize >= n)) {
        return Err(Error::invalid(format!("{what}: triangle {e} {t:?} references a vertex beyond the {n} vertices")));
    }
    let dropped = drop_unreferenced(&mut cm.vertices, &mut cm.tris);
    if dropped > 0 {
        warnings.push(format!("{what}: dropped {dropped} vertices that belong to no triangle"));
    }
    transform(&mut cm.vertices, rot, shift);
    let areas: Vec<f64> = cm.tris.iter().map(|t| tri_area(&cm.vertices, t)).collect();
    let mean_area = areas.iter().sum::<f64>() / areas.len().max(1) as f64;
    if let Some((e, t)) = cm.tris.iter().enumerate().find(|(e, _)| !(areas[*e] > 1e-12 * mean_area)) {
        return Err(Error::invalid(format!("{what}: triangle {e} {t:?} has zero area")));
    }
    Ok(areas)
}

/// Lumped vertex masses: a third of each triangle's area times the areal density (kg/m²).
fn lumped_triangle_mass(cm: &TriMesh, areas: &[f64], areal: f64) -> Vec<f64> {
    let mut mass = vec![0.0; cm.vertices.len()];
    for (t, a) in cm.tris.iter().zip(areas) {
        for &i in t {
            mass[i as usize] += areal * a / 3.0;
        }
    }
    mass
}

fn tri_area(v: &[Vec3], t: &[u32; 3]) -> f64 {
    let [a, b, c] = t.map(|i| v[i as usize]);
    0.5 * (b - a).cross(&(c - a)).norm()
}

/// A `rotate` field: degrees about x, then y, then z.
fn rotation(degrees: [f64; 3], what: &str) -> Result<Rotation3<f64>> {
    let r = finite3(degrees, what)?.map(f64::to_radians);
    Ok(Rotation3::from_axis_angle(&Vec3::z_axis(), r.z) * Rotation3::from_axis_angle(&Vec3::y_axis(), r.y) * Rotation3::from_axis_angle(&Vec3::x_axis(), r.x))
}

fn transform(v: &mut [Vec3], rot: &Rotation3<f64>, shift: &Vec3) {
    for p in v {
        *p = rot * *p + shift;
    }
}

/// A `[[collider]]`: its shape for its `kind` (other kinds' fields are errors), then friction, restitution and
/// motion. `base_dir` resolves a mesh's `file`.
fn collider(c: &schema::Collider, what: &str, base_dir: &Path) -> Result<Collider> {
    let kind = format!("a {} collider", c.kind);
    let check = |allowed: &[&str]| -> Result<()> {
        let present = [
            ("point", c.point.is_some()),
            ("normal", c.normal.is_some()),
            ("axis", c.axis.is_some()),
            ("center", c.center.is_some()),
            ("radius", c.radius.is_some()),
            ("min", c.min.is_some()),
            ("max", c.max.is_some()),
            ("a", c.a.is_some()),
            ("b", c.b.is_some()),
            ("file", c.file.is_some()),
            ("scale", c.scale.is_some()),
            ("translate", c.translate.is_some()),
            ("rotate", c.rotate.is_some()),
        ];
        reject_foreign(&present, allowed, what, &kind)
    };
    let req = |v: Option<[f64; 3]>, f: &str| -> Result<Vec3> { finite3(need(&v, what, f, &kind)?, &format!("{what}.{f}")) };
    let direction = |v: Option<[f64; 3]>, f: &str| -> Result<Vec3> {
        let d = req(v, f)?;
        d.try_normalize(1e-12).ok_or_else(|| Error::invalid(format!("{what}.{f}: must not be zero")))
    };
    let radius = || -> Result<f64> {
        let r = need(&c.radius, what, "radius", &kind)?;
        if r.is_finite() && r > 0.0 {
            Ok(r)
        } else {
            Err(Error::invalid(format!("{what}.radius: must be positive, got {r}")))
        }
    };
    let rotate = || rotation(c.rotate.unwrap_or_default(), &format!("{what}.rotate"));
    let shape = match c.kind.as_str() {
        "plane" => {
            check(&["point", "normal"])?;
            Shape::Plane { point: req(c.point, "point")?, normal: direction(c.normal, "normal")? }
        }
        "sphere" => {
            check(&["center", "radius"])?;
            Shape::Sphere { center: req(c.center, "center")?, radius: radius()? }
        }
        "cylinder" => {
            check(&["point", "axis", "radius", "rotate"])?;
            Shape::Cylinder { point: req(c.point, "point")?, axis: rotate()? * direction(c.axis, "axis")?, radius: radius()? }
        }
        "box" => {
            check(&["min", "max", "rotate"])?;
            let (lo, hi) = (req(c.min, "min")?, req(c.max, "max")?);
            if (0..3).any(|k| lo[k] >= hi[k]) {
                return Err(Error::invalid(format!("{what}: min must be below max on every axis")));
            }
            Shape::Box { center: (lo + hi) * 0.5, half_extents: (hi - lo) * 0.5, rotation: rotate()? }
        }
        "capsule" => {
            check(&["a", "b", "radius", "rotate"])?;
            let (a, b, r) = (req(c.a, "a")?, req(c.b, "b")?, radius()?);
            if !((b - a).norm() > 1e-9 * r) {
                return Err(Error::invalid(format!("{what}.b: must differ from a (a capsule of zero length is a sphere)")));
            }
            let (mid, rot) = ((a + b) * 0.5, rotate()?);
            Shape::Capsule { a: mid + rot * (a - mid), b: mid + rot * (b - mid), radius: r }
        }
        "mesh" => {
            check(&["file", "scale", "translate", "rotate"])?;
            let scale = c.scale.unwrap_or(1.0);
            if !(scale.is_finite() && scale > 0.0) {
                return Err(Error::invalid(format!("{what}.scale: must be positive, got {scale}")));
            }
            let (shift, rot) = (finite3(c.translate.unwrap_or_default(), &format!("{what}.translate"))?, rotate()?);
            Shape::Mesh(Arc::new(mesh_collider(&need(&c.file, what, "file", &kind)?, base_dir, &format!("{what}.file"), |p| rot * (p * scale) + shift)?))
        }
        other => return Err(Error::invalid(format!("{what}.kind: unknown collider '{other}' (expected plane, sphere, box, cylinder, capsule, mesh)"))),
    };
    let friction = friction(c.friction, c.static_friction, what)?;
    if !(0.0..=1.0).contains(&c.restitution) {
        return Err(Error::invalid(format!("{what}.restitution: must lie in [0, 1], got {}", c.restitution)));
    }
    Ok(Collider { shape, friction, restitution: c.restitution, motion: motion(c, what)? })
}

/// A mesh collider's surface from `file` (relative to `base_dir`): read, its equal corners merged, each
/// vertex placed by `place`, then checked to be closed and consistently oriented ([`MeshSdf::new`]).
fn mesh_collider(file: &str, base_dir: &Path, what: &str, place: impl Fn(Vec3) -> Vec3) -> Result<MeshSdf> {
    let path = base_dir.join(file);
    let file_len = std::fs::metadata(&path).map_or(0, |m| m.len());
    resources::check(what, file_len.saturating_mul(resources::MESH_BYTES_PER_FILE_BYTE))?;
    let read = io::read_tri_mesh(&path).map_err(|e| Error::invalid(format!("{what}: {e}")))?;
    let mesh = surface::weld(&read.vertices, &read.tris);
    resources::check(what, MeshSdf::bytes(mesh.vertices.len() as u64, mesh.tris.len() as u64))?;
    MeshSdf::new(mesh.vertices.into_iter().map(place).collect(), mesh.tris).map_err(|e| Error::invalid(format!("{what}: '{file}' {e}")))
}

/// A collider's `velocity`, `angular_velocity` and `path` (times increasing, at least one key).
fn motion(c: &schema::Collider, what: &str) -> Result<Motion> {
    let mut path: Vec<PathKey> = Vec::new();
    if c.path.as_ref().is_some_and(Vec::is_empty) {
        return Err(Error::invalid(format!("{what}.path: needs at least one key")));
    }
    for (k, key) in c.path.iter().flatten().enumerate() {
        let kwhat = format!("{what}.path[{k}]");
        if !key.t.is_finite() {
            return Err(Error::invalid(format!("{kwhat}.t: must be finite, got {}", key.t)));
        }
        if let Some(prev) = path.last().filter(|p| key.t <= p.t) {
            return Err(Error::invalid(format!("{kwhat}.t: keys must increase, got {} after {}", key.t, prev.t)));
        }
        path.push(PathKey { t: key.t, translate: finite3(key.translate, &format!("{kwhat}.translate"))? });
    }
    Ok(Motion {
        velocity: finite3(c.velocity.unwrap_or_default(), &format!("{what}.velocity"))?,
        angular_velocity: finite3(c.angular_velocity.unwrap_or_default(), &format!("{what}.angular_velocity"))?,
        path,
    })
}

/// Coulomb coefficients from `friction` (kinetic, and static by default) and `static_friction`, each ≥ 0.
pub(super) fn friction(kinetic: f64, static_: Option<f64>, what: &str) -> Result<Friction> {
    for (v, field) in [(kinetic, "friction"), (static_.unwrap_or(kinetic), "static_friction")] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(Error::invalid(format!("{what}.{field}: must be ≥ 0, got {v}")));
        }
    }
    Ok(Friction { mu_s: static_.unwrap_or(kinetic), mu_k: kinetic })
}
