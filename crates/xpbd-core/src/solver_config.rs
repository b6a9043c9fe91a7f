//! How a model is solved: the stepping (frame length, substeps, iterations, velocity damping) and one
//! [`Method`]. A value beside the [`Model`](crate::model::Model), which holds what is simulated, as a
//! physics engine passes its integration parameters beside its bodies: comparing solvers on one model
//! builds several configurations and clones no model.

use crate::error::Unsupported;
use crate::implicit::settings::ImplicitSettings;
use crate::layers::settings::MultilayerSettings;
use crate::mgpbd::settings::MgpbdSettings;
use crate::model::Model;
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Stepping and method, resolved and checked (`scene::build` reads them from `[simulation]` and `[solver]`).
#[derive(Clone, Debug, PartialEq)]
pub struct SolverConfig {
    /// Frame length (s).
    pub dt: f64,
    pub substeps: usize,
    /// Iterations per substep (XPBD), the cap on outer iterations (MGPBD), or the iterations shared among
    /// the layers (multi-layer).
    pub iterations: usize,
    /// Velocity damping rate (1/s): v ← v e^(−c h) in the prediction.
    pub velocity_damping: f64,
    pub method: Method,
}

/// The solver family and its own settings.
#[derive(Clone, Debug, PartialEq)]
pub enum Method {
    /// Per-constraint projection (the XPBD paper), in the given order, the block kernel in `precision`.
    Xpbd { ordering: Ordering, precision: Precision },
    /// The global dual solve with AMG-preconditioned CG (MGPBD paper, Algorithm 1).
    Mgpbd(MgpbdSettings),
    /// Coarse-to-fine layers with rigidified elements (multi-layer XPBD paper).
    Multilayer(MultilayerSettings),
    /// Semi-implicit backward Euler FEM, with adaptive rigidification when its settings ask for it (thesis
    /// "Adaptive methods for elastic deformation", ch. 3).
    Implicit(ImplicitSettings),
}

/// The order of an XPBD sweep (block neo-Hookean paper §3–4).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ordering {
    /// Gauss-Seidel over all elements in index order (the reference).
    Serial,
    /// All elements from the same positions in parallel; corrections summed per vertex and scaled by
    /// x += ω Σ Δx / n_v (n_v: constraints touching the vertex).
    Jacobi { relaxation: f64 },
    /// Gauss-Seidel by colors of the element graph, each color in parallel (block paper, Algorithm 2).
    Colored,
    /// Gauss-Seidel by colors of the supernodal graph of clusters of `cluster_size` elements, clusters in
    /// parallel, their elements in sequence (block paper, Algorithms 3 and 4).
    Clustered { cluster_size: usize },
}

/// The scalar type XPBD's hot loops solve in (`[solver] precision`): on the CPU the block neo-Hookean kernel
/// (other families stay f64), on the GPU every device array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Precision {
    F32,
    #[default]
    F64,
}

impl Precision {
    /// The scene's names, for messages.
    pub const NAMES: &'static str = "f64, f32";

    /// The precision called `name` (`f32` or `f64`).
    pub fn named(name: &str) -> Option<Self> {
        match name {
            "f32" => Some(Precision::F32),
            "f64" => Some(Precision::F64),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::F64 => "f64",
        }
    }

    /// Bytes of one scalar.
    pub fn bytes(self) -> usize {
        match self {
            Precision::F32 => std::mem::size_of::<f32>(),
            Precision::F64 => std::mem::size_of::<f64>(),
        }
    }
}

impl Ordering {
    /// The scene's names, for messages.
    pub const NAMES: &'static str = "serial, jacobi, colored, clustered";

    /// The ordering called `name`, with the Jacobi `relaxation` and the `cluster_size` it takes if it is
    /// one of those; `None` for an unknown name.
    pub fn named(name: &str, relaxation: f64, cluster_size: usize) -> Option<Self> {
        match name {
            "serial" => Some(Ordering::Serial),
            "jacobi" => Some(Ordering::Jacobi { relaxation }),
            "colored" => Some(Ordering::Colored),
            "clustered" => Some(Ordering::Clustered { cluster_size }),
            _ => None,
        }
    }

    /// The scene's name of this ordering.
    pub fn name(self) -> &'static str {
        match self {
            Ordering::Serial => "serial",
            Ordering::Jacobi { .. } => "jacobi",
            Ordering::Colored => "colored",
            Ordering::Clustered { .. } => "clustered",
        }
    }
}

impl Method {
    /// The scene's `solver.kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Method::Xpbd { .. } => "xpbd",
            Method::Mgpbd(_) => "mgpbd",
            Method::Multilayer(_) => "multilayer",
            Method::Implicit(s) if s.rigidification.is_some() => "adaptive",
            Method::Implicit(_) => "implicit",
        }
    }

    /// MGPBD's settings, when this is MGPBD.
    pub fn mgpbd(&self) -> Option<&MgpbdSettings> {
        match self {
            Method::Mgpbd(s) => Some(s),
            _ => None,
        }
    }

    /// The XPBD ordering, when this is XPBD.
    pub fn ordering(&self) -> Option<Ordering> {
        match self {
            Method::Xpbd { ordering, .. } => Some(*ordering),
            _ => None,
        }
    }

    /// XPBD's precision; f64 for the other methods, which read none.
    pub fn precision(&self) -> Precision {
        match self {
            Method::Xpbd { precision, .. } => *precision,
            _ => Precision::F64,
        }
    }
}

impl SolverConfig {
    /// The substep h = dt / substeps.
    pub fn h(&self) -> f64 {
        self.dt / self.substeps as f64
    }

    /// The same stepping with another method.
    pub fn with_method(&self, method: Method) -> Self {
        SolverConfig { method, ..self.clone() }
    }

    /// What the method needs of `model` on every backend: MGPBD scalar rows without damping (and every
    /// compliance positive for the primal solve: [`MgpbdSettings::rows`]); the multi-layer solver tet bodies without
    /// cloth, soft or moving pins and constraint damping (docs/multilayer.md).
    pub fn requirements(&self, model: &Model) -> Result<(), Unsupported> {
        let corotational = model.tet_groups.iter().find(|g| g.model == crate::constraint::tet_model::TetModel::Corotational);
        if let (false, Some(g)) = (matches!(self.method, Method::Implicit(_)), corotational) {
            return Err(Unsupported(format!(
                "body '{}': material.model = \"corotational\" is for the implicit solvers (solver.kind = \"implicit\" or \"adaptive\")",
                model.bodies[g.body].name
            )));
        }
        if let Some(g) = model.shell_groups.first() {
            let name = &model.bodies[g.body].name;
            if !matches!(&self.method, Method::Implicit(_)) {
                return Err(Unsupported(format!(
                    "body '{name}': material.model = \"shell\" runs under solver.kind = \"implicit\" or \"adaptive\" (docs/shells.md); XPBD takes model \"cloth\""
                )));
            }
        }
        let limited = model.cloth_groups.iter().find(|g| g.strain_limit.is_some());
        if let (Some(g), false) =
            (limited, matches!(self.method, Method::Xpbd { ordering: Ordering::Serial | Ordering::Colored | Ordering::Clustered { .. }, .. }))
        {
            return Err(Unsupported(format!(
                "body '{}': material.strain_min/strain_max are projected by the Gauss-Seidel XPBD sweeps only (solver.kind = \"xpbd\", ordering serial, colored or clustered; docs/cloth.md)",
                model.bodies[g.body].name
            )));
        }
        if let (Some(g), false) = (model.cloth_groups.iter().find(|g| g.pbd.is_some()), matches!(self.method, Method::Xpbd { .. })) {
            return Err(Unsupported(format!(
                "body '{}': material.pbd_stretch/pbd_bending make a PBD body, which the XPBD sweeps project (solver.kind = \"xpbd\"; docs/cloth.md)",
                model.bodies[g.body].name
            )));
        }
        match &self.method {
            Method::Xpbd { .. } => Ok(()),
            Method::Implicit(_) => match model.cloth_groups.first() {
                Some(g) => Err(Unsupported(format!(
                    "solver.kind: \"{}\" runs tetrahedral and shell bodies; body '{}' is cloth (give it material.model = \"shell\" with youngs, poisson, density and thickness: docs/shells.md)",
                    self.method.kind(),
                    model.bodies[g.body].name
                ))),
                None => Ok(()),
            },
            Method::Mgpbd(settings) => settings.rows(model).map(|_| ()).map_err(|e| Unsupported(e.to_string())),
            Method::Multilayer(_) => {
                let missing = if !model.cloth_groups.is_empty() {
                    Some("cloth bodies")
                } else if !model.attachments.is_empty() {
                    Some("soft or moving pins")
                } else if model.tet_groups.iter().any(|g| g.damping > 0.0) {
                    Some("body damping")
                } else {
                    None
                };
                match missing {
                    Some(what) => Err(Unsupported(format!("solver.kind: \"multilayer\" does not support {what} yet (see docs/multilayer.md)"))),
                    None => Ok(()),
                }
            }
        }
    }

    /// The end time of substep `k` (1-based) of the frame that starts at `t0`.
    pub fn substep_end(&self, t0: f64, k: usize) -> f64 {
        t0 + self.dt * k as f64 / self.substeps as f64
    }
}

/// `summary.json`'s `solver` record: `kind`, then the ordering and its parameter (`ordering`, with
/// `relaxation` for Jacobi and `cluster_size` for clustered), the stepping, and `mgpbd` or `multilayer` with
/// that method's settings (docs/output-format.md).
impl Serialize for SolverConfig {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("kind", self.method.kind())?;
        if let Method::Xpbd { ordering, precision } = self.method {
            map.serialize_entry("ordering", ordering.name())?;
            match ordering {
                Ordering::Jacobi { relaxation } => map.serialize_entry("relaxation", &relaxation)?,
                Ordering::Clustered { cluster_size } => map.serialize_entry("cluster_size", &cluster_size)?,
                Ordering::Serial | Ordering::Colored => {}
            }
            map.serialize_entry("precision", precision.name())?;
        }
        map.serialize_entry("dt", &self.dt)?;
        map.serialize_entry("substeps", &self.substeps)?;
        map.serialize_entry("iterations", &self.iterations)?;
        map.serialize_entry("velocity_damping", &self.velocity_damping)?;
        match &self.method {
            Method::Xpbd { .. } => {}
            Method::Mgpbd(s) => map.serialize_entry("mgpbd", s)?,
            Method::Multilayer(s) => map.serialize_entry("multilayer", s)?,
            Method::Implicit(s) => map.serialize_entry("implicit", s)?,
        }
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(ordering: Ordering) -> SolverConfig {
        SolverConfig { dt: 0.01, substeps: 4, iterations: 2, velocity_damping: 0.0, method: Method::Xpbd { ordering, precision: Precision::F64 } }
    }

    #[test]
    fn every_ordering_name_reads_back() {
        for name in Ordering::NAMES.split(", ") {
            assert_eq!(Ordering::named(name, 0.5, 7).map(Ordering::name), Some(name));
        }
        assert_eq!(Ordering::named("jacobi", 0.5, 7), Some(Ordering::Jacobi { relaxation: 0.5 }));
        assert_eq!(Ordering::named("clustered", 0.5, 7), Some(Ordering::Clustered { cluster_size: 7 }));
        assert_eq!(Ordering::named("sideways", 1.0, 5), None);
    }

    #[test]
    fn the_record_names_only_what_the_ordering_takes() {
        let json = |o| serde_json::to_value(config(o)).unwrap();
        let jacobi = json(Ordering::Jacobi { relaxation: 0.5 });
        assert_eq!((jacobi["kind"].as_str(), jacobi["ordering"].as_str(), jacobi["relaxation"].as_f64()), (Some("xpbd"), Some("jacobi"), Some(0.5)));
        assert!(jacobi.get("cluster_size").is_none());
        let clustered = json(Ordering::Clustered { cluster_size: 7 });
        assert_eq!(clustered["cluster_size"].as_u64(), Some(7));
        assert!(clustered.get("relaxation").is_none());
        assert_eq!(json(Ordering::Serial)["substeps"].as_u64(), Some(4));
        assert_eq!(json(Ordering::Serial)["precision"].as_str(), Some("f64"));
    }

    #[test]
    fn substep_ends_fall_on_the_frame_end() {
        let c = config(Ordering::Serial);
        assert_eq!(c.h(), 0.0025);
        assert_eq!(c.substep_end(1.0, 4), 1.0 + 0.01 * 4.0 / 4.0);
    }
}
