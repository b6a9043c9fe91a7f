//! Layer schedules (the multi-layer paper §4.1–4.4): the rigid fraction of each layer, coarse to fine, the
//! iterations given to each layer, and the order in which elements are rigidified.

use crate::error::{Error, Result};
use crate::mesh::Vec3;

/// How the rigid fraction falls from layer to layer (§4.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spacing {
    /// Equal steps: 5 layers give 100, 75, 50, 25, 0 %.
    Linear,
    /// Halving: 5 layers give 100, 50, 25, 12.5, 0 %.
    Logarithmic,
}

/// How the iterations of a substep are shared among the layers (§4.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IterationProfile {
    /// Each layer gets twice the previous one's share.
    Doubling,
    Equal,
    /// Each layer gets half the previous one's share.
    Halving,
}

/// The order in which elements become rigid: the first in the order are rigid in the most layers (§4.1).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ElementOrder {
    /// Ascending Green strain rate of the previous step (Eq. 20).
    StrainRate,
    /// Ascending stretch of the previous step in the modal basis of M⁻¹K (§4.1, the paper's costly
    /// comparison order; [`crate::layers::modal_stretch`]).
    Stretch,
    /// A shuffle seeded by `seed` (and the step, so each step has its own pattern).
    Random { seed: u64 },
    /// `count` stripes across the body along `axis` (0 = x): even stripes first, then odd ones, each
    /// stripe in order along the axis.
    Stripes { axis: usize, count: usize },
}

/// Rigid fractions of `layers` layers, coarse to fine: starts at 1 (fully rigid), ends at 0 (the last
/// layer is always fully elastic).
pub fn rigid_fractions(spacing: Spacing, layers: usize) -> Vec<f64> {
    (0..layers)
        .map(|k| match spacing {
            _ if k + 1 == layers => 0.0,
            Spacing::Linear => 1.0 - k as f64 / (layers - 1) as f64,
            Spacing::Logarithmic => 0.5f64.powi(k as i32),
        })
        .collect()
}

/// Shares `total` iterations among `layers` layers in proportion to the weights of `profile`
/// (rounded down, at least one each; the layers furthest below their share get what rounding left, the
/// largest give back what the minimum of one took). An error when `total < layers`.
pub fn iterations_per_layer(profile: IterationProfile, layers: usize, total: usize) -> Result<Vec<usize>> {
    if total < layers {
        return Err(Error::invalid(format!("simulation.iterations: {total} cannot give each of the {layers} layers (solver.layers) an iteration")));
    }
    let weight = |k: usize| match profile {
        IterationProfile::Doubling => 2f64.powi(k as i32),
        IterationProfile::Equal => 1.0,
        IterationProfile::Halving => 2f64.powi((layers - 1 - k) as i32),
    };
    let sum: f64 = (0..layers).map(weight).sum();
    let share: Vec<f64> = (0..layers).map(|k| total as f64 * weight(k) / sum).collect();
    let mut its: Vec<usize> = share.iter().map(|s| (s.floor() as usize).max(1)).collect();
    // What each layer still lacks of its share (negative where the minimum of one exceeded it).
    let mut by_remainder: Vec<usize> = (0..layers).collect();
    by_remainder.sort_by(|&a, &b| (share[b] - its[b] as f64).total_cmp(&(share[a] - its[a] as f64)).then(b.cmp(&a)));
    for &k in by_remainder.iter().cycle().take(total.saturating_sub(its.iter().sum())) {
        its[k] += 1;
    }
    while its.iter().sum::<usize>() > total {
        let k = (0..layers).max_by_key(|&k| its[k]).unwrap();
        its[k] -= 1;
    }
    Ok(its)
}

/// The elements in rigidification order, as far as the layers need it. `rate` is the per-element
/// key of the ascending orders, the strain rate or the modal stretch (its length is the element count), `centroid` the element centroids (read only by
/// `Stripes`), `step` the step counter (for the random order). `prefixes` are the rigid element counts
/// of the layers ([`crate::layers::hierarchy::rigid_count`]): the layers depend only on the *set* of
/// the first `c` elements for each such `c`, so the ascending orders are only partly sorted (§5 of the
/// paper: "we do not need a full sort"): the first `c` elements are the `c` smallest by rate (ties by
/// index, as a stable sort gives them) for every `c` in `prefixes`, in no particular order between two
/// consecutive prefixes.
pub fn element_order(order: ElementOrder, rate: &[f64], centroid: &[Vec3], step: u64, prefixes: &[usize]) -> Vec<u32> {
    let mut e: Vec<u32> = (0..rate.len() as u32).collect();
    match order {
        ElementOrder::StrainRate | ElementOrder::Stretch => return ascending_prefixes(rate, prefixes),
        ElementOrder::Random { seed } => fastrand::Rng::with_seed(seed ^ step.wrapping_mul(0x9E37_79B9_7F4A_7C15)).shuffle(&mut e),
        ElementOrder::Stripes { axis, count } => {
            let coord = |i: u32| centroid[i as usize][axis];
            let lo = e.iter().map(|&i| coord(i)).fold(f64::INFINITY, f64::min);
            let hi = e.iter().map(|&i| coord(i)).fold(f64::NEG_INFINITY, f64::max);
            let width = (hi - lo).max(f64::MIN_POSITIVE) / count as f64;
            let stripe = |i: u32| (((coord(i) - lo) / width) as usize).min(count - 1);
            e.sort_by(|&a, &b| (stripe(a) % 2, coord(a)).partial_cmp(&(stripe(b) % 2, coord(b))).unwrap());
        }
    }
    e
}

/// The ascending order of `rate` up to `prefixes`: nested selections (largest prefix first, each within the
/// previous one) on (rate key, index) pairs, O(n) per prefix instead of a sort.
fn ascending_prefixes(rate: &[f64], prefixes: &[usize]) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = rate.iter().enumerate().map(|(e, &r)| (total_order_key(r), e as u32)).collect();
    let mut cuts: Vec<usize> = prefixes.iter().copied().filter(|&c| c > 0 && c < rate.len()).collect();
    cuts.sort_unstable_by(|a, b| b.cmp(a));
    cuts.dedup();
    let mut end = rate.len();
    for c in cuts {
        keyed[..end].select_nth_unstable(c);
        end = c;
    }
    keyed.into_iter().map(|(_, e)| e).collect()
}

/// An unsigned key whose order is `f64::total_cmp`'s (the bit trick of its implementation, then the
/// sign bit flipped so that the key compares as unsigned).
fn total_order_key(r: f64) -> u64 {
    let bits = r.to_bits();
    (bits ^ ((((bits as i64) >> 63) as u64) >> 1)) ^ (1 << 63)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn default_fractions_match_the_paper() {
        assert_eq!(rigid_fractions(Spacing::Linear, 5), vec![1.0, 0.75, 0.5, 0.25, 0.0]);
        assert_eq!(rigid_fractions(Spacing::Logarithmic, 5), vec![1.0, 0.5, 0.25, 0.125, 0.0]);
        assert_eq!(rigid_fractions(Spacing::Linear, 1), vec![0.0]);
    }

    #[test]
    fn iterations_follow_the_profile_and_sum_to_the_total() {
        assert_eq!(iterations_per_layer(IterationProfile::Doubling, 5, 31).unwrap(), vec![1, 2, 4, 8, 16]);
        assert_eq!(iterations_per_layer(IterationProfile::Halving, 5, 31).unwrap(), vec![16, 8, 4, 2, 1]);
        assert_eq!(iterations_per_layer(IterationProfile::Equal, 5, 30).unwrap(), vec![6; 5]);
        for total in 5..200 {
            for p in [IterationProfile::Doubling, IterationProfile::Equal, IterationProfile::Halving] {
                let its = iterations_per_layer(p, 5, total).unwrap();
                assert_eq!(its.iter().sum::<usize>(), total);
                assert!(its.iter().all(|&i| i >= 1));
                // Doubling never decreases, halving never increases, equal differs by at most one.
                let w = &its;
                match p {
                    IterationProfile::Doubling => assert!(w.windows(2).all(|w| w[0] <= w[1]), "{total}: {its:?}"),
                    IterationProfile::Halving => assert!(w.windows(2).all(|w| w[0] >= w[1]), "{total}: {its:?}"),
                    IterationProfile::Equal => assert!(w.iter().max().unwrap() - w.iter().min().unwrap() <= 1, "{total}: {its:?}"),
                }
            }
        }
        assert_eq!(iterations_per_layer(IterationProfile::Doubling, 5, 20).unwrap(), vec![1, 1, 3, 5, 10]);
        assert!(iterations_per_layer(IterationProfile::Equal, 5, 4).is_err());
    }

    #[test]
    fn orders_are_permutations_with_their_keys() {
        let centroid: Vec<Vec3> = (0..20).map(|i| Vec3::new(i as f64, 0.0, 0.0)).collect();
        let rate: Vec<f64> = (0..20).map(|i| ((i * 7) % 20) as f64).collect();
        // Every prefix asked for: a full sort.
        let all: Vec<usize> = (0..=20).collect();
        let by_rate = element_order(ElementOrder::StrainRate, &rate, &centroid, 0, &all);
        assert!(by_rate.windows(2).all(|w| rate[w[0] as usize] <= rate[w[1] as usize]));
        let r1 = element_order(ElementOrder::Random { seed: 3 }, &rate, &centroid, 1, &[]);
        assert_eq!(r1, element_order(ElementOrder::Random { seed: 3 }, &rate, &centroid, 1, &[]));
        assert_ne!(r1, element_order(ElementOrder::Random { seed: 3 }, &rate, &centroid, 2, &[]));
        let stripes = element_order(ElementOrder::Stripes { axis: 0, count: 4 }, &rate, &centroid, 0, &[]);
        // Stripes of width 4.75: x in [0, 4.75) and [9.5, 14.25) first.
        assert_eq!(&stripes[..10], &[0, 1, 2, 3, 4, 10, 11, 12, 13, 14]);
        for o in [by_rate, r1, stripes] {
            let mut s = o.clone();
            s.sort();
            assert_eq!(s, (0..20).collect::<Vec<u32>>());
        }
    }

    #[test]
    fn the_key_orders_as_total_cmp() {
        let v = [f64::NEG_INFINITY, -1.0, -0.0, 0.0, 1e-300, 0.5, 2.0, f64::INFINITY, f64::NAN, -f64::NAN];
        for a in v {
            for b in v {
                assert_eq!(total_order_key(a).cmp(&total_order_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    proptest! {
        /// Each asked-for prefix of the partial strain-rate order holds the same elements as the same
        /// prefix of a stable sort by rate (ties among few distinct rates included).
        #[test]
        fn strain_rate_prefixes_are_those_of_a_stable_sort(
            rate in prop::collection::vec(0u8..6, 1..200),
            prefixes in prop::collection::vec(0.0f64..=1.0, 0..6),
        ) {
            let rate: Vec<f64> = rate.iter().map(|&r| r as f64 * 0.25).collect();
            let n = rate.len();
            let prefixes: Vec<usize> = prefixes.iter().map(|f| (f * n as f64).round() as usize).collect();
            let mut sorted: Vec<u32> = (0..n as u32).collect();
            sorted.sort_by(|&a, &b| rate[a as usize].total_cmp(&rate[b as usize]));
            let order = element_order(ElementOrder::StrainRate, &rate, &[], 0, &prefixes);
            for &c in &prefixes {
                let (mut a, mut b) = (order[..c].to_vec(), sorted[..c].to_vec());
                a.sort_unstable();
                b.sort_unstable();
                prop_assert_eq!(a, b);
            }
            let mut all = order.clone();
            all.sort_unstable();
            prop_assert_eq!(all, (0..n as u32).collect::<Vec<u32>>());
        }
    }
}
