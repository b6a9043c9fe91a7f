//! Elastic parameters. Scenes give Young's modulus E and Poisson's ratio ν; constraints want Lamé
//! parameters, and the stable neo-Hookean constraints want them reparametrised.

use crate::{Error, Result};

/// Lamé parameters (μ, λ) of linear elasticity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lame {
    pub mu: f64,
    pub lambda: f64,
}

impl Lame {
    /// From Young's modulus and Poisson's ratio: μ = E / (2(1+ν)), λ = Eν / ((1+ν)(1−2ν)).
    /// `what` names the material in errors ("body[0].material").
    pub fn from_youngs_poisson(youngs: f64, poisson: f64, what: &str) -> Result<Self> {
        if !(youngs.is_finite() && youngs > 0.0) {
            return Err(Error::invalid(format!("{what}.youngs: must be a positive number, got {youngs}")));
        }
        if !(poisson.is_finite() && poisson > -1.0 && poisson < 0.5) {
            return Err(Error::invalid(format!("{what}.poisson: must lie in (-1, 0.5), got {poisson}")));
        }
        Ok(Lame { mu: youngs / (2.0 * (1.0 + poisson)), lambda: youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson)) })
    }

    /// Stable neo-Hookean parameters whose small-strain response equals this linear material
    /// (Smith et al. 2018, §3.4): λ_snh = λ + μ, with γ = 1 + μ/λ_snh making the rest state stress-free.
    /// Linearising Ψ = μ/2 (I_C − 3) + λ_snh/2 (J − γ)² at F = I gives μ‖ε‖² + (λ_snh − μ)/2 tr²ε.
    pub fn stable_neohookean(self) -> Lame {
        Lame { mu: self.mu, lambda: self.lambda + self.mu }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lame_of_steel_like_material() {
        let l = Lame::from_youngs_poisson(200e9, 0.3, "m").unwrap();
        assert!((l.mu - 76.923076923e9).abs() / l.mu < 1e-9);
        assert!((l.lambda - 115.384615385e9).abs() / l.lambda < 1e-9);
    }

    #[test]
    fn rejects_incompressible_and_negative() {
        assert!(Lame::from_youngs_poisson(1e6, 0.5, "m").unwrap_err().to_string().contains("poisson"));
        assert!(Lame::from_youngs_poisson(-1.0, 0.3, "m").unwrap_err().to_string().contains("youngs"));
    }
}
