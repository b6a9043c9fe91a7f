//! A per-element quantity of each tet's positions, kept from one substep to the next, and the rate its change
//! gives: the bookkeeping the keys of the ascending element orders share (the multi-layer paper §4.1: the
//! Green strain rate of Eq. 20, [`crate::layers::strain_rate`], and the modal stretch,
//! [`crate::layers::modal_stretch`]).

use crate::constraint::tet::TetRest;
use crate::mesh::Vec3;
use rayon::prelude::*;

/// Elements per rayon task of [`ElementHistory::record`] (each element on its own: the rates do not depend on
/// the thread count).
const ELEMENT_GRAIN: usize = 512;

/// The quantity `S` of every tet at the last [`ElementHistory::record`] and the rates of its change.
#[derive(Clone, Debug)]
pub struct ElementHistory<S> {
    last: Vec<S>,
    /// Per element after the last [`ElementHistory::record`]; zero after the first call, empty before it.
    pub rate: Vec<f64>,
}

impl<S> Default for ElementHistory<S> {
    fn default() -> Self {
        ElementHistory { last: Vec::new(), rate: Vec::new() }
    }
}

impl<S: Send + Sync> ElementHistory<S> {
    /// Records `measure` of the tets at positions `x` and sets `rate[e] = rate_of(e, now, last)` from the
    /// quantity of the previous call (zero on the first), the elements in parallel.
    pub fn record(
        &mut self,
        tets: &[[u32; 4]],
        rest: &[TetRest],
        x: &[Vec3],
        measure: impl Fn(&[Vec3; 4], &TetRest) -> S + Sync,
        rate_of: impl Fn(usize, &S, &S) -> f64 + Sync,
    ) {
        let measured = |t: &[u32; 4], r: &TetRest| measure(&t.map(|i| x[i as usize]), r);
        if self.last.len() != tets.len() {
            self.last = tets.par_iter().zip(rest).with_min_len(ELEMENT_GRAIN).map(|(t, r)| measured(t, r)).collect();
            self.rate = vec![0.0; tets.len()];
            return;
        }
        let elements = self.rate.par_iter_mut().zip(&mut self.last).zip(tets).zip(rest).enumerate().with_min_len(ELEMENT_GRAIN);
        elements.for_each(|(e, (((rate, last), t), r))| {
            let now = measured(t, r);
            *rate = rate_of(e, &now, last);
            *last = now;
        });
    }

    /// Resumes from a checkpoint: `measure` of the tets at `x` (what the last [`ElementHistory::record`]
    /// recorded, recomputed bit for bit) and the saved `rate`.
    pub fn resume(&mut self, tets: &[[u32; 4]], rest: &[TetRest], x: &[Vec3], rate: &[f64], measure: impl Fn(&[Vec3; 4], &TetRest) -> S) {
        self.last = tets.iter().zip(rest).map(|(t, r)| measure(&t.map(|i| x[i as usize]), r)).collect();
        self.rate = rate.to_vec();
    }
}
