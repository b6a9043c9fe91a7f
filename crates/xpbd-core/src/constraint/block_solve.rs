//! Dense K×K solves for constraint blocks (K ≤ 6): Gaussian elimination with partial pivoting,
//! as the block neo-Hookean paper recommends for Eq. 19.

/// Solves `a x = b` in place (b becomes x). Returns `false` when a pivot vanishes (singular block),
/// in which case `b` is left unspecified and the caller must skip the update.
#[inline(always)]
pub fn solve_in_place<const K: usize>(a: &mut [[f64; K]; K], b: &mut [f64; K]) -> bool {
    let mut inv_pivot = [0.0; K];
    for col in 0..K {
        let mut piv = col;
        for r in col + 1..K {
            if a[r][col].abs() > a[piv][col].abs() {
                piv = r;
            }
        }
        if !(a[piv][col].abs() > 0.0) {
            return false;
        }
        if piv != col {
            a.swap(piv, col);
            b.swap(piv, col);
        }
        let inv = 1.0 / a[col][col];
        inv_pivot[col] = inv;
        for r in col + 1..K {
            let f = a[r][col] * inv;
            if f != 0.0 {
                for c in col..K {
                    a[r][c] -= f * a[col][c];
                }
                b[r] -= f * b[col];
            }
        }
    }
    for col in (0..K).rev() {
        let mut s = b[col];
        for c in col + 1..K {
            s -= a[col][c] * b[c];
        }
        b[col] = s * inv_pivot[col];
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::{DMatrix, DVector};

    fn check<const K: usize>(a: [[f64; K]; K], b: [f64; K]) {
        let m = DMatrix::<f64>::from_fn(K, K, |r, c| a[r][c]);
        let expect = m.lu().solve(&DVector::from_column_slice(&b)).unwrap();
        let (mut a2, mut x) = (a, b);
        assert!(solve_in_place(&mut a2, &mut x));
        for i in 0..K {
            assert!((x[i] - expect[i]).abs() <= 1e-12 * expect.amax().max(1.0), "{x:?} vs {expect}");
        }
    }

    #[test]
    fn two_by_two_needing_a_pivot_matches_dense_lu() {
        check([[1e-14, 1.0], [1.0, 1.0]], [1.0, 2.0]);
        check([[4.0, 1.5], [1.5, 3.0]], [0.3, -7.0]);
    }

    #[test]
    fn three_by_three_matches_dense_lu() {
        check([[2.0, -1.0, 0.5], [-1.0, 3.0, 1.0], [0.5, 1.0, 4.0]], [1.0, 2.0, 3.0]);
        check([[0.0, 2.0, 1.0], [1.0, 0.0, 3.0], [2.0, 1.0, 0.0]], [1.0, -1.0, 2.0]);
    }

    #[test]
    fn singular_block_is_reported() {
        let mut a = [[1.0, 2.0], [2.0, 4.0]];
        let mut b = [1.0, 1.0];
        assert!(!solve_in_place(&mut a, &mut b));
    }
}
