//! The device's contact rows read back as core's rows, so that `Backend::contact_forces` sums them with
//! `xpbd_core::contact::ContactForces::of` as the CPU does (only for frames that write contact forces).

use xpbd_core::contact::{ColliderRow, PairRow};

use crate::convert::vectors;

/// The collider rows that pushed: row `s · colliders + c` is surface vertex `surface[s]` against collider `c`
/// (`DeviceColliders`), with its last normal (3 per row) and λ_n; in the CPU's order (by surface vertex, then
/// collider). λ_t is not read back (0).
pub fn collider_rows(surface: &[u32], colliders: usize, normal: &[f64], lambda_n: &[f64]) -> Vec<ColliderRow> {
    let normal = vectors(normal);
    let pushed = lambda_n.iter().enumerate().filter(|&(_, &l)| l > 0.0);
    let row = |(r, &lambda_n): (usize, &f64)| ColliderRow {
        vertex: surface[r / colliders],
        collider: (r % colliders) as u32,
        normal: normal[r],
        lambda_n,
        lambda_t: Default::default(),
    };
    pushed.map(row).collect()
}

/// The substep's pair rows (detected on the host, uploaded with zero multipliers) with the device's λ_n and
/// normals (3 per row: a vertex–edge row's follows the positions; its weights stay the substep start's here).
pub fn pair_rows(rows: &[PairRow], lambda_n: &[f64], normal: &[f64]) -> Vec<PairRow> {
    rows.iter().zip(lambda_n).zip(vectors(normal)).map(|((r, &lambda_n), normal)| PairRow { lambda_n, normal, ..*r }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use xpbd_core::contact::Friction;
    use xpbd_core::mesh::Vec3;

    /// Two surface vertices (5 and 7) against two colliders: the rows that pushed, with their own normals.
    #[test]
    fn collider_rows_follow_the_device_indexing() {
        let normal: Vec<f64> = (0..12).map(f64::from).collect();
        let rows = collider_rows(&[5, 7], 2, &normal, &[0.0, 0.5, 0.25, 0.0]);
        let expected = |vertex, collider, n: [f64; 3], lambda_n| ColliderRow { vertex, collider, normal: n.into(), lambda_n, lambda_t: Vec3::zeros() };
        assert_eq!(rows, [expected(5, 1, [3.0, 4.0, 5.0], 0.5), expected(7, 0, [6.0, 7.0, 8.0], 0.25)]);
    }

    #[test]
    fn pair_rows_take_the_device_multipliers_and_normals() {
        let row = PairRow {
            vertices: [0, 1, 2, 3],
            weights: [1.0, -0.5, -0.5, 0.0],
            normal: Vec3::y(),
            friction: Friction::NONE,
            lambda_n: 0.0,
            lambda_t: Vec3::zeros(),
        };
        let rows = pair_rows(&[row, row], &[0.0, 2.0], &[0.0, 1.0, 0.0, 0.6, 0.8, 0.0]);
        assert_eq!(rows.iter().map(|r| r.lambda_n).collect::<Vec<_>>(), [0.0, 2.0]);
        assert_eq!(rows[1], PairRow { lambda_n: 2.0, normal: Vec3::new(0.6, 0.8, 0.0), ..row });
    }
}
