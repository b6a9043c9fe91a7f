//! The layers of one step: for each rigid fraction, which elements are rigid and in which body
//! (the multi-layer paper §3.3.2, Algorithm 1). Built fine to coarse in one pass over the ordered
//! elements, so each coarser layer's bodies are unions of the finer layer's.

use super::union_find::IncrementalMerging;

/// One layer: the rigid body of every element (`None`: elastic).
#[derive(Clone, Debug, PartialEq)]
pub struct Layer {
    pub rigid_fraction: f64,
    pub element_body: Vec<Option<u32>>,
    pub bodies: usize,
}

impl Layer {
    /// The rigid body of every vertex (`None`: touched only by elastic elements).
    pub fn vertex_body(&self, tets: &[[u32; 4]], vertex_count: usize) -> Vec<Option<u32>> {
        let mut vb = vec![None; vertex_count];
        for (t, b) in tets.iter().zip(&self.element_body) {
            if let Some(b) = b {
                for &v in t {
                    vb[v as usize] = Some(*b);
                }
            }
        }
        vb
    }

    /// Makes the elements of every body `b` with `gone[b]` elastic and renumbers the other bodies
    /// densely, in their order.
    pub fn dissolve(&mut self, gone: &[bool]) {
        let mut new_index = vec![None; self.bodies];
        let mut count = 0;
        for b in 0..self.bodies {
            if !gone[b] {
                new_index[b] = Some(count);
                count += 1;
            }
        }
        for b in &mut self.element_body {
            *b = b.and_then(|k| new_index[k as usize]);
        }
        self.bodies = count as usize;
    }
}

/// The rigid element count of a layer with rigid fraction `fraction` among `n` elements.
pub fn rigid_count(fraction: f64, n: usize) -> usize {
    ((fraction * n as f64).round() as usize).min(n)
}

/// Layers for `fractions` (coarse to fine, as `schedule::rigid_fractions` gives them): layer `k` makes
/// the first `round(fractions[k] · n)` elements of `order` rigid, vertex-connected ones in one body.
pub fn build_layers(tets: &[[u32; 4]], vertex_count: usize, order: &[u32], fractions: &[f64]) -> Vec<Layer> {
    let mut merging = IncrementalMerging::new(tets.len(), vertex_count);
    let mut inserted = 0;
    let mut layers: Vec<Layer> = fractions
        .iter()
        .rev()
        .map(|&f| {
            let count = rigid_count(f, tets.len()).max(inserted);
            for &e in &order[inserted..count] {
                merging.insert(e, &tets[e as usize]);
            }
            inserted = count;
            let (element_body, bodies) = merging.components();
            Layer { rigid_fraction: f, element_body, bodies }
        })
        .collect();
    layers.reverse();
    layers
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::schedule::{element_order, rigid_fractions, ElementOrder, Spacing};
    use proptest::prelude::*;

    #[test]
    fn dissolved_bodies_turn_elastic_and_the_rest_renumber() {
        let mut layer = Layer { rigid_fraction: 1.0, element_body: vec![Some(0), Some(1), None, Some(2), Some(1)], bodies: 3 };
        layer.dissolve(&[false, true, false]);
        assert_eq!(layer.element_body, vec![Some(0), None, None, Some(1), None]);
        assert_eq!(layer.bodies, 2);
    }

    proptest! {
        /// The partly sorted strain-rate order gives the layers of a full stable sort, bit for bit.
        #[test]
        fn partial_strain_rate_order_gives_the_layers_of_a_full_sort(
            tets in prop::collection::vec(prop::array::uniform4(0u32..30), 1..80),
            rates in prop::collection::vec(0u8..5, 80),
            layers in 1usize..7,
            log in any::<bool>(),
        ) {
            let n = tets.len();
            let rate: Vec<f64> = rates[..n].iter().map(|&r| r as f64).collect();
            let fractions = rigid_fractions(if log { Spacing::Logarithmic } else { Spacing::Linear }, layers);
            let mut sorted: Vec<u32> = (0..n as u32).collect();
            sorted.sort_by(|&a, &b| rate[a as usize].total_cmp(&rate[b as usize]));
            let counts: Vec<usize> = fractions.iter().map(|&f| rigid_count(f, n)).collect();
            let partial = element_order(ElementOrder::StrainRate, &rate, &[], 0, &counts);
            prop_assert_eq!(build_layers(&tets, 30, &partial, &fractions), build_layers(&tets, 30, &sorted, &fractions));
        }

        #[test]
        fn layers_are_nested_and_covering(
            tets in prop::collection::vec(prop::array::uniform4(0u32..30), 1..50),
            seed in any::<u64>(),
            layers in 2usize..7,
            log in any::<bool>(),
        ) {
            let n = tets.len();
            let mut order: Vec<u32> = (0..n as u32).collect();
            order.sort_by_key(|&e| (e as u64 ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            let fractions = rigid_fractions(if log { Spacing::Logarithmic } else { Spacing::Linear }, layers);
            let l = build_layers(&tets, 30, &order, &fractions);
            prop_assert!(l[0].element_body.iter().all(|b| b.is_some()));
            prop_assert!(l[layers - 1].element_body.iter().all(|b| b.is_none()));
            for k in 0..layers {
                let rigid = l[k].element_body.iter().filter(|b| b.is_some()).count();
                prop_assert_eq!(rigid, (fractions[k] * n as f64).round() as usize);
                // The rigid elements are a prefix of the order.
                prop_assert!(order[..rigid].iter().all(|&e| l[k].element_body[e as usize].is_some()));
            }
            for k in 0..layers - 1 {
                let (coarse, fine) = (&l[k], &l[k + 1]);
                for a in 0..n {
                    if let Some(ba) = fine.element_body[a] {
                        prop_assert!(coarse.element_body[a].is_some());
                        for b in 0..n {
                            if fine.element_body[b] == Some(ba) {
                                prop_assert_eq!(coarse.element_body[a], coarse.element_body[b]);
                            }
                        }
                    }
                }
                // Bodies sharing a vertex are one body.
                let vb = fine.vertex_body(&tets, 30);
                for (t, b) in tets.iter().zip(&fine.element_body) {
                    if b.is_some() {
                        prop_assert!(t.iter().all(|&v| vb[v as usize] == *b));
                    }
                }
            }
        }
    }
}
