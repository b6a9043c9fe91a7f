//! The scalar constraint rows of MGPBD's global dual system (docs/equations.md): one row per multiplier,
//! in the state's multiplier order, each with up to four vertices, its value C, its node gradients
//! ∇_v C and its compliance α (α̃ = α/h²). Tet rows are ARAP (one per element) or stable neo-Hookean
//! (hydrostatic and deviatoric per element; `neohookean` and `neohookean_block` give the same rows:
//! the global solve couples them anyway); cloth rows are edge distances and dihedral hinges, so
//! bending is part of the global system too. With `solver.arap_rows = "components"` each ARAP row is
//! replaced by the nine smooth rows `C_k = (F − R)_k` of the same energy (docs/mgpbd.md, "Smooth ARAP rows").

use crate::constraint::arap::Polar;
use crate::constraint::tet::{deformation_gradient, node_gradients};
use crate::constraint::tet_model::{gather, TetModel};
use crate::constraint::{arap, bending, distance, neohookean};
use crate::mesh::Vec3;
use crate::model::Model;
use crate::{Error, Result};
use nalgebra::Matrix3;
use rayon::prelude::*;

/// What a row measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RowKind {
    /// C = ‖F − R‖_F.
    Arap,
    /// C_k = (F − R)_k, entry k = 3·row + column, with R held fixed in the gradient.
    ArapComponent,
    /// C_H = det F − γ.
    Hydrostatic,
    /// C_D = sqrt(tr FᵀF).
    Deviatoric,
    /// C = ‖x1 − x0‖ − L.
    Edge,
    /// C = θ − θ₀.
    Hinge,
}

impl RowKind {
    pub const ALL: [RowKind; 6] = [RowKind::Arap, RowKind::ArapComponent, RowKind::Hydrostatic, RowKind::Deviatoric, RowKind::Edge, RowKind::Hinge];

    pub fn name(self) -> &'static str {
        match self {
            RowKind::Arap => "arap",
            RowKind::ArapComponent => "arap_component",
            RowKind::Hydrostatic => "hydrostatic",
            RowKind::Deviatoric => "deviatoric",
            RowKind::Edge => "edge",
            RowKind::Hinge => "hinge",
        }
    }
}

/// Unused vertex slots of rows with fewer than four vertices.
pub const NO_VERTEX: u32 = u32::MAX;

/// All rows of a model, in flat arrays indexed by row (= multiplier index).
#[derive(Clone, Debug)]
pub struct Rows {
    pub kind: Vec<RowKind>,
    /// The tet or cloth group the row belongs to.
    pub group: Vec<u32>,
    /// Its element (tet, edge or hinge) within the group.
    pub element: Vec<u32>,
    /// Its vertices; unused slots hold [`NO_VERTEX`].
    pub vertices: Vec<[u32; 4]>,
    /// Compliance α (α̃ = α / h²).
    pub compliance: Vec<f64>,
    /// The state's multiplier the row belongs to: the row itself, or for an ARAP component row its
    /// element's cone multiplier (see [`Rows::cone_multipliers`]).
    pub multiplier: Vec<u32>,
    /// The entry k of an ARAP component row (0 for the others).
    pub component: Vec<u8>,
    /// Whether the component rows' gradient includes ∂R/∂F (`solver.arap_rotation = "exact"`).
    pub exact_rotation: bool,
    /// Per row, the slot of its element's polar decomposition in [`Rows::evaluate_all`]'s cache
    /// (ARAP component rows; [`NO_SLOT`] for the others).
    pub polar_slot: Vec<u32>,
    /// Per slot, the first of the nine component rows that share it.
    pub slot_row: Vec<u32>,
}

/// [`Rows::polar_slot`] of rows without a polar decomposition.
pub const NO_SLOT: u32 = u32::MAX;

/// Entries of a 3×3 matrix, one smooth ARAP row each.
const COMPONENTS: usize = 9;

/// The rows of ARAP bodies: one cone row ‖F − R‖ per tet, or its nine components `(F − R)_k` with or without
/// the rotation's derivative in their gradient (MGPBD's `arap_rows` and `arap_rotation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArapShape {
    pub components: bool,
    pub exact_rotation: bool,
}

impl ArapShape {
    /// One cone row per tet.
    pub const CONE: ArapShape = ArapShape { components: false, exact_rotation: true };
}

impl Rows {
    /// The rows of `model` with ARAP rows of `arap`. Errors for material models without scalar rows (StVK's
    /// coupled normal block) and for damped bodies, whose damping the global solve does not model.
    pub fn new(model: &Model, arap: ArapShape) -> Result<Self> {
        let n = model.rows;
        let mut r = Rows {
            kind: vec![RowKind::Edge; n],
            group: vec![0; n],
            element: vec![0; n],
            vertices: vec![[NO_VERTEX; 4]; n],
            compliance: vec![0.0; n],
            multiplier: (0..n as u32).collect(),
            component: vec![0; n],
            exact_rotation: arap.exact_rotation,
            polar_slot: vec![NO_SLOT; n],
            slot_row: vec![],
        };
        let mut set = |i: usize, kind, group: usize, element: usize, vertices: [u32; 4], compliance: f64| {
            r.kind[i] = kind;
            r.group[i] = group as u32;
            r.element[i] = element as u32;
            r.vertices[i] = vertices;
            r.compliance[i] = compliance;
        };
        for (gi, g) in model.tet_groups.iter().enumerate() {
            let body = &model.bodies[g.body].name;
            if g.damping != 0.0 {
                return Err(Error::invalid(format!("body '{body}': damping is not supported by solver.kind = \"mgpbd\"")));
            }
            for (e, (t, rest)) in g.tets.iter().zip(&g.rest).enumerate() {
                match g.model {
                    TetModel::Arap => set(g.lambda_offset + e, RowKind::Arap, gi, e, *t, 1.0 / (g.lame.mu * rest.volume)),
                    TetModel::NeoHookean | TetModel::NeoHookeanBlock => {
                        let a = neohookean::compliances(&g.lame, rest.volume);
                        set(g.lambda_offset + 2 * e, RowKind::Hydrostatic, gi, e, *t, a[0]);
                        set(g.lambda_offset + 2 * e + 1, RowKind::Deviatoric, gi, e, *t, a[1]);
                    }
                    TetModel::StVK | TetModel::Corotational => {
                        return Err(Error::invalid(format!(
                            "body '{body}': material '{}' has no scalar rows for solver.kind = \"mgpbd\" (use arap, neohookean, neohookean_block or cloth)",
                            g.model.name()
                        )))
                    }
                }
            }
        }
        for (gi, g) in model.cloth_groups.iter().enumerate() {
            if g.damping != 0.0 {
                return Err(Error::invalid(format!("body '{}': damping is not supported by solver.kind = \"mgpbd\"", model.bodies[g.body].name)));
            }
            for (e, ed) in g.edges.iter().enumerate() {
                set(g.lambda_offset + e, RowKind::Edge, gi, e, [ed[0], ed[1], NO_VERTEX, NO_VERTEX], g.stretch_compliance);
            }
            for (e, hi) in g.hinges.iter().enumerate() {
                set(g.lambda_offset + g.edges.len() + e, RowKind::Hinge, gi, e, *hi, g.bending_compliance[e]);
            }
        }
        Ok(if arap.components { r.arap_components() } else { r })
    }

    /// Each ARAP row replaced by its nine component rows with the same compliance: ½ Σ_k C_k²/α =
    /// ½ ‖F − R‖²/α, the cone row's energy μV/2 ‖F − R‖² with α = 1/(μV).
    fn arap_components(self) -> Self {
        let mut r = Rows {
            kind: vec![],
            group: vec![],
            element: vec![],
            vertices: vec![],
            compliance: vec![],
            multiplier: vec![],
            component: vec![],
            exact_rotation: self.exact_rotation,
            polar_slot: vec![],
            slot_row: vec![],
        };
        for i in 0..self.len() {
            let (kind, copies) = if self.kind[i] == RowKind::Arap { (RowKind::ArapComponent, COMPONENTS) } else { (self.kind[i], 1) };
            let slot = if kind == RowKind::ArapComponent {
                r.slot_row.push(r.kind.len() as u32);
                r.slot_row.len() as u32 - 1
            } else {
                NO_SLOT
            };
            for k in 0..copies {
                r.polar_slot.push(slot);
                r.kind.push(kind);
                r.group.push(self.group[i]);
                r.element.push(self.element[i]);
                r.vertices.push(self.vertices[i]);
                r.compliance.push(self.compliance[i]);
                r.multiplier.push(i as u32);
                r.component.push(k as u8);
            }
        }
        r
    }

    /// Whether the rows differ from the state's multipliers (ARAP component rows), so that the
    /// outer loop keeps its own multipliers and reports [`Rows::cone_multipliers`].
    pub fn own_multipliers(&self) -> bool {
        self.kind.contains(&RowKind::ArapComponent)
    }

    /// The state's multipliers from the rows' `lambda`: copied, and for ARAP the cone multiplier
    /// −‖λ_k‖ of the element's component multipliers (at the solution λ_k = −C_k/α̃, so −‖λ_k‖ =
    /// −‖F − R‖/α̃, the cone row's multiplier, and the cone residual C + α̃λ vanishes with the rows').
    pub fn cone_multipliers(&self, lambda: &[f64], state: &mut [f64]) {
        state.fill(0.0);
        for (i, &m) in self.multiplier.iter().enumerate() {
            if self.kind[i] == RowKind::ArapComponent {
                state[m as usize] += lambda[i] * lambda[i];
            } else {
                state[m as usize] = lambda[i];
            }
        }
        for (i, &m) in self.multiplier.iter().enumerate() {
            if self.kind[i] == RowKind::ArapComponent && self.component[i] == 0 {
                state[m as usize] = -state[m as usize].sqrt();
            }
        }
    }

    pub fn len(&self) -> usize {
        self.kind.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kind.is_empty()
    }

    /// Number of rows of each kind, for the kinds present.
    pub fn kind_counts(&self) -> Vec<(RowKind, usize)> {
        RowKind::ALL.iter().map(|&k| (k, self.kind.iter().filter(|&&r| r == k).count())).filter(|&(_, c)| c > 0).collect()
    }

    /// C, and ∇C when `grads` is given, of every row at positions `x`, in parallel. The polar
    /// decomposition of an element with component rows is computed once, into `polars` (a buffer
    /// kept between calls), and shared by its nine rows: the SVD dominated the outer loop otherwise.
    /// Rows go in pairs, and the two neo-Hookean rows of an element that form a pair share its F.
    pub fn evaluate_all(&self, model: &Model, x: &[Vec3], polars: &mut Vec<Polar>, c: &mut [f64], grads: Option<&mut [[Vec3; 4]]>) {
        self.slot_row.par_iter().map(|&i| Polar::new(&self.deformation_gradient(model, i as usize, x))).collect_into_vec(polars);
        let polars = &polars[..];
        let pair = |first: usize, count: usize| -> [(f64, [Vec3; 4]); 2] {
            if count == 2 && self.kind[first] == RowKind::Hydrostatic && self.kind[first + 1] == RowKind::Deviatoric {
                // An element's two rows are consecutive (`Rows::new`).
                debug_assert_eq!((self.group[first], self.element[first]), (self.group[first + 1], self.element[first + 1]));
                let f = self.deformation_gradient(model, first, x);
                return [self.tet_row(model, first, &f, None), self.tet_row(model, first + 1, &f, None)];
            }
            let row = |i: usize| self.evaluate_with(model, i, x, (self.polar_slot[i] != NO_SLOT).then(|| &polars[self.polar_slot[i] as usize]));
            [row(first), if count == 2 { row(first + 1) } else { (0.0, [Vec3::zeros(); 4]) }]
        };
        match grads {
            Some(grads) => c.par_chunks_mut(2).zip(grads.par_chunks_mut(2)).enumerate().for_each(|(k, (c, g))| {
                for (j, (cj, gj)) in pair(2 * k, c.len()).into_iter().zip(c.iter_mut().zip(g)) {
                    (*cj, *gj) = (j.0, j.1);
                }
            }),
            None => c.par_chunks_mut(2).enumerate().for_each(|(k, c)| {
                for (j, cj) in pair(2 * k, c.len()).into_iter().zip(c) {
                    *cj = j.0;
                }
            }),
        }
    }

    /// F of the tet row `i` at positions `x`.
    fn deformation_gradient(&self, model: &Model, i: usize, x: &[Vec3]) -> Matrix3<f64> {
        let t = &model.tet_groups[self.group[i] as usize];
        let e = self.element[i] as usize;
        deformation_gradient(&gather(x, &t.tets[e]), &t.rest[e].dm_inv)
    }

    /// (C, ∇C per vertex slot) of row `i` at positions `x`; unused slots get zero gradients.
    #[inline]
    pub fn evaluate(&self, model: &Model, i: usize, x: &[Vec3]) -> (f64, [Vec3; 4]) {
        self.evaluate_with(model, i, x, None)
    }

    /// [`Rows::evaluate`], for a component row with its element's polar decomposition when given.
    #[inline]
    fn evaluate_with(&self, model: &Model, i: usize, x: &[Vec3], polar: Option<&Polar>) -> (f64, [Vec3; 4]) {
        let (g, e) = (self.group[i] as usize, self.element[i] as usize);
        match self.kind[i] {
            RowKind::Edge => {
                let c = &model.cloth_groups[g];
                let ed = c.edges[e];
                let (v, gr) = distance::distance(&[x[ed[0] as usize], x[ed[1] as usize]], c.rest_length[e]);
                (v, [gr[0], gr[1], Vec3::zeros(), Vec3::zeros()])
            }
            RowKind::Hinge => {
                let c = &model.cloth_groups[g];
                bending::bending(&gather(x, &c.hinges[e]), c.rest_angle[e])
            }
            _ => self.tet_row(model, i, &self.deformation_gradient(model, i, x), polar),
        }
    }

    /// (C, ∇C) of the tet row `i` whose element has the deformation gradient `f`.
    #[inline]
    fn tet_row(&self, model: &Model, i: usize, f: &Matrix3<f64>, polar: Option<&Polar>) -> (f64, [Vec3; 4]) {
        let t = &model.tet_groups[self.group[i] as usize];
        let (c, p) = match self.kind[i] {
            RowKind::Arap => arap::arap(f),
            RowKind::ArapComponent => {
                let k = self.component[i] as usize;
                match polar {
                    Some(polar) => polar.component(f, k, self.exact_rotation),
                    None => arap::component(f, k, self.exact_rotation),
                }
            }
            RowKind::Hydrostatic => neohookean::hydrostatic(f, neohookean::gamma(&t.lame)),
            _ => neohookean::deviatoric(f),
        };
        (c, node_gradients(&p, &t.rest[self.element[i] as usize].dm_inv))
    }
}
