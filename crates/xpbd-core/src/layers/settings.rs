//! The `[solver]` settings of `kind = "multilayer"` (docs/scene-format.md, docs/multilayer.md),
//! resolved with their defaults and checked with one-line errors naming the field. The iterations of
//! a substep (`simulation.iterations`) are shared among the layers.

use super::schedule::{iterations_per_layer, rigid_fractions, ElementOrder, IterationProfile, Spacing};
use crate::constraint::tet_model::TetModel;
use crate::model::Model;
use crate::scene::schema;
use crate::{Error, Result};

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct MultilayerSettings {
    /// Rigid fraction of each layer, coarse to fine (the last is 0).
    pub rigid_fractions: Vec<f64>,
    /// Iterations of each layer; they sum to `simulation.iterations`.
    pub layer_iterations: Vec<usize>,
    #[serde(rename = "layer_order")]
    pub order: ElementOrder,
    /// The layer-stop criterion (§3.6): once ‖C + α̃λ‖ has decreased in the substep, leave a layer
    /// (not the last) when an iteration changes it by less than this. `None`: every layer runs its
    /// iterations (constant cost).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layer_stop: Option<f64>,
    /// The order of a layer's elastic projections.
    #[serde(rename = "layer_sweep")]
    pub sweep: LayerSweep,
}

/// The order of a layer's elastic Gauss-Seidel sweep (`layer_sweep`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LayerSweep {
    /// By colors of the element graph, each color's elements in parallel (§3.1): one layer is XPBD's
    /// `ordering = "colored"`.
    Colored,
    /// Every element in index order on one thread: one layer is XPBD's `ordering = "serial"`, whose
    /// sweep propagates along the element order within one pass.
    Serial,
}

impl MultilayerSettings {
    /// From the scene's `[solver]` table and the substep's `iterations`.
    pub fn from_scene(s: &schema::Solver, iterations: usize) -> Result<Self> {
        let layers = s.layers.unwrap_or(5);
        if layers == 0 {
            return Err(Error::invalid("solver.layers: must be at least 1"));
        }
        let spacing = match s.layer_spacing.as_deref().unwrap_or("linear") {
            "linear" => Spacing::Linear,
            "logarithmic" => Spacing::Logarithmic,
            other => return Err(unknown("layer_spacing", other, "linear, logarithmic")),
        };
        let profile = match s.layer_iterations.as_deref().unwrap_or("doubling") {
            "doubling" => IterationProfile::Doubling,
            "equal" => IterationProfile::Equal,
            "halving" => IterationProfile::Halving,
            other => return Err(unknown("layer_iterations", other, "doubling, equal, halving")),
        };
        let order = match s.layer_order.as_deref().unwrap_or("strain_rate") {
            "strain_rate" => ElementOrder::StrainRate,
            "stretch" => ElementOrder::Stretch,
            "random" => ElementOrder::Random { seed: s.layer_seed.unwrap_or(0) },
            "stripes" => {
                let axis = match s.stripe_axis.as_deref().unwrap_or("x") {
                    "x" => 0,
                    "y" => 1,
                    "z" => 2,
                    other => return Err(unknown("stripe_axis", other, "x, y, z")),
                };
                let count = s.stripe_count.unwrap_or(4);
                if count == 0 {
                    return Err(Error::invalid("solver.stripe_count: must be at least 1"));
                }
                ElementOrder::Stripes { axis, count }
            }
            other => return Err(unknown("layer_order", other, "strain_rate, stretch, random, stripes")),
        };
        for (field, set, needs) in [
            ("layer_seed", s.layer_seed.is_some(), "random"),
            ("stripe_axis", s.stripe_axis.is_some(), "stripes"),
            ("stripe_count", s.stripe_count.is_some(), "stripes"),
        ] {
            if set && order.name() != needs {
                return Err(Error::invalid(format!("solver.{field}: only for layer_order = \"{needs}\"")));
            }
        }
        Ok(MultilayerSettings {
            rigid_fractions: rigid_fractions(spacing, layers),
            layer_iterations: iterations_per_layer(profile, layers, iterations)?,
            order,
            sweep: match s.layer_sweep.as_deref().unwrap_or("colored") {
                "colored" => LayerSweep::Colored,
                "serial" => LayerSweep::Serial,
                other => return Err(unknown("layer_sweep", other, "colored, serial")),
            },
            layer_stop: match s.layer_stop {
                Some(t) if !(t.is_finite() && t >= 0.0) => return Err(Error::invalid(format!("solver.layer_stop: must be ≥ 0, got {t}"))),
                t => t,
            },
        })
    }

    /// The first multilayer field set in a scene whose solver is not multilayer.
    pub fn foreign_field(s: &schema::Solver) -> Option<&'static str> {
        let present = [
            ("layers", s.layers.is_some()),
            ("layer_spacing", s.layer_spacing.is_some()),
            ("layer_iterations", s.layer_iterations.is_some()),
            ("layer_order", s.layer_order.is_some()),
            ("layer_seed", s.layer_seed.is_some()),
            ("stripe_axis", s.stripe_axis.is_some()),
            ("stripe_count", s.stripe_count.is_some()),
            ("layer_stop", s.layer_stop.is_some()),
            ("layer_sweep", s.layer_sweep.is_some()),
        ];
        present.iter().find(|p| p.1).map(|p| p.0)
    }

    /// Load-time notes: the multi-layer solver projects the decoupled stable neo-Hookean pair as one
    /// coupled block, like `neohookean_block` (docs/multilayer.md, "Choices").
    pub fn warnings(m: &Model) -> Vec<String> {
        let decoupled = m.tet_groups.iter().filter(|g| g.model == TetModel::NeoHookean);
        decoupled
            .map(|g| {
                format!(
                    "body '{}': solver.kind = \"multilayer\" solves material.model = \"neohookean\" as \"neohookean_block\" (one coupled block per element; docs/multilayer.md)",
                    m.bodies[g.body].name
                )
            })
            .collect()
    }
}

impl ElementOrder {
    /// The `layer_order` that selects this order.
    pub fn name(self) -> &'static str {
        match self {
            ElementOrder::StrainRate => "strain_rate",
            ElementOrder::Stretch => "stretch",
            ElementOrder::Random { .. } => "random",
            ElementOrder::Stripes { .. } => "stripes",
        }
    }
}

/// As `layer_order` in `summary.json`.
impl serde::Serialize for ElementOrder {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

fn unknown(field: &str, v: &str, names: &str) -> Error {
    Error::invalid(format!("solver.{field}: unknown '{v}' (expected {names})"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `layer_order` serialises as the name that selects it; an unknown name is a one-line error.
    #[test]
    fn layer_order_names_round_trip() {
        for name in ["strain_rate", "stretch", "random", "stripes"] {
            let s = schema::Solver { layer_order: Some(name.into()), ..Default::default() };
            let settings = MultilayerSettings::from_scene(&s, 10).unwrap();
            assert_eq!(toml::Value::try_from(settings.order).unwrap(), toml::Value::from(name));
        }
        let s = schema::Solver { layer_order: Some("zigzag".into()), ..Default::default() };
        let err = MultilayerSettings::from_scene(&s, 10).unwrap_err().to_string();
        assert_eq!(err, "solver.layer_order: unknown 'zigzag' (expected strain_rate, stretch, random, stripes)");
    }

    /// `layer_sweep` takes `colored` (the default) or `serial`; anything else is a one-line error.
    #[test]
    fn layer_sweep_names() {
        let sweep = |name: Option<&str>| MultilayerSettings::from_scene(&schema::Solver { layer_sweep: name.map(Into::into), ..Default::default() }, 20);
        assert_eq!(sweep(None).unwrap().sweep, LayerSweep::Colored);
        assert_eq!(sweep(Some("serial")).unwrap().sweep, LayerSweep::Serial);
        assert_eq!(sweep(Some("jacobi")).unwrap_err().to_string(), "solver.layer_sweep: unknown 'jacobi' (expected colored, serial)");
    }
}
