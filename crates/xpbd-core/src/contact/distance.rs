//! Closest points between the primitives of two surfaces: a point and a triangle, two segments
//! (Ericson, "Real-Time Collision Detection", §5.1.5 and §5.1.9).

use crate::mesh::Vec3;

/// The point of triangle (a, b, c) closest to `p`, as barycentric weights (w_a, w_b, w_c), each in [0, 1]
/// and summing to 1.
pub fn point_triangle(p: &Vec3, a: &Vec3, b: &Vec3, c: &Vec3) -> [f64; 3] {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(&ap), ac.dot(&ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return [1.0, 0.0, 0.0];
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(&bp), ac.dot(&bp));
    if d3 >= 0.0 && d4 <= d3 {
        return [0.0, 1.0, 0.0];
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let v = d1 / (d1 - d3);
        return [1.0 - v, v, 0.0];
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(&cp), ac.dot(&cp));
    if d6 >= 0.0 && d5 <= d6 {
        return [0.0, 0.0, 1.0];
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let w = d2 / (d2 - d6);
        return [1.0 - w, 0.0, w];
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        let w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return [0.0, 1.0 - w, w];
    }
    let denom = 1.0 / (va + vb + vc);
    let (v, w) = (vb * denom, vc * denom);
    [1.0 - v - w, v, w]
}

/// The barycentric weights of the projection of `p` onto the plane of triangle (a, b, c): negative outside the
/// triangle, `None` for a degenerate triangle.
pub fn projected_barycentric(p: &Vec3, a: &Vec3, b: &Vec3, c: &Vec3) -> Option<[f64; 3]> {
    let (v0, v1, v2) = (b - a, c - a, p - a);
    let (d00, d01, d11, d20, d21) = (v0.dot(&v0), v0.dot(&v1), v1.dot(&v1), v2.dot(&v0), v2.dot(&v1));
    let denom = d00 * d11 - d01 * d01;
    if denom <= 1e-14 * d00 * d11 {
        return None;
    }
    let v = (d11 * d20 - d01 * d21) / denom;
    let w = (d00 * d21 - d01 * d20) / denom;
    Some([1.0 - v - w, v, w])
}

/// The parameter t of the point a + t (b − a) of the line through a and b closest to `p` (not clamped to the
/// segment; NaN when a = b).
pub fn line_parameter(p: &Vec3, a: &Vec3, b: &Vec3) -> f64 {
    let ab = b - a;
    (p - a).dot(&ab) / ab.norm_squared()
}

/// The closest points of segments p(s) = p0 + s (p1 − p0) and q(t) = q0 + t (q1 − q0), s, t ∈ [0, 1], as
/// (s, t). Parallel segments get one of their closest pairs.
pub fn segment_segment(p0: &Vec3, p1: &Vec3, q0: &Vec3, q1: &Vec3) -> (f64, f64) {
    let (d1, d2, r) = (p1 - p0, q1 - q0, p0 - q0);
    let (a, e, f) = (d1.norm_squared(), d2.norm_squared(), d2.dot(&r));
    const TINY: f64 = 1e-300;
    if a <= TINY && e <= TINY {
        return (0.0, 0.0);
    }
    if a <= TINY {
        return (0.0, (f / e).clamp(0.0, 1.0));
    }
    let c = d1.dot(&r);
    if e <= TINY {
        return ((-c / a).clamp(0.0, 1.0), 0.0);
    }
    let b = d1.dot(&d2);
    let denom = a * e - b * b;
    let mut s = if denom > 1e-14 * a * e { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
    let mut t = (b * s + f) / e;
    if t < 0.0 {
        t = 0.0;
        s = (-c / a).clamp(0.0, 1.0);
    } else if t > 1.0 {
        t = 1.0;
        s = ((b - c) / a).clamp(0.0, 1.0);
    }
    (s, t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic scatter of points, for brute-force comparisons.
    fn points(n: usize, seed: u64) -> Vec<Vec3> {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        (0..n).map(|_| Vec3::new(next(), next(), next())).collect()
    }

    /// The closest point beats every point of a fine barycentric sampling of the triangle.
    #[test]
    fn point_triangle_is_the_minimum_over_the_triangle() {
        let p = points(4 * 200, 7);
        for k in p.chunks(4) {
            let (q, a, b, c) = (k[0] * 2.0, k[1], k[2], k[3]);
            let w = point_triangle(&q, &a, &b, &c);
            assert!(w.iter().all(|&x| (-1e-12..=1.0 + 1e-12).contains(&x)) && (w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
            let best = (a * w[0] + b * w[1] + c * w[2] - q).norm();
            let n = 40;
            for i in 0..=n {
                for j in 0..=(n - i) {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    let s = a * (1.0 - u - v) + b * u + c * v;
                    assert!(best <= (s - q).norm() + 1e-12, "{best} > {}", (s - q).norm());
                }
            }
        }
    }

    /// Inside the triangle the projection is the closest point; its weights reproduce the projection.
    #[test]
    fn projected_barycentric_matches_the_closest_point_inside() {
        let p = points(4 * 200, 5);
        for k in p.chunks(4) {
            let (q, a, b, c) = (k[0], k[1], k[2], k[3]);
            let w = projected_barycentric(&q, &a, &b, &c).unwrap();
            let on_plane = a * w[0] + b * w[1] + c * w[2];
            let n = (b - a).cross(&(c - a)).normalize();
            assert!((q - on_plane - n * n.dot(&(q - a))).norm() < 1e-9);
            if w.iter().all(|&x| x > 0.0) {
                let closest = point_triangle(&q, &a, &b, &c);
                assert!(w.iter().zip(&closest).all(|(x, y)| (x - y).abs() < 1e-9), "{w:?} {closest:?}");
            }
        }
        assert!(projected_barycentric(&Vec3::zeros(), &Vec3::x(), &(Vec3::x() * 2.0), &(Vec3::x() * 3.0)).is_none());
    }

    #[test]
    fn segment_segment_is_the_minimum_over_both_segments() {
        let p = points(4 * 200, 11);
        let mut cases: Vec<[Vec3; 4]> = p.chunks(4).map(|k| [k[0], k[1], k[2], k[3]]).collect();
        // Parallel and degenerate segments.
        cases.push([Vec3::zeros(), Vec3::x(), Vec3::new(0.5, 1.0, 0.0), Vec3::new(2.0, 1.0, 0.0)]);
        cases.push([Vec3::zeros(), Vec3::zeros(), Vec3::new(0.5, 1.0, 0.0), Vec3::new(2.0, 1.0, 0.0)]);
        for [p0, p1, q0, q1] in cases {
            let (s, t) = segment_segment(&p0, &p1, &q0, &q1);
            assert!((0.0..=1.0).contains(&s) && (0.0..=1.0).contains(&t));
            let best = (p0 + (p1 - p0) * s - q0 - (q1 - q0) * t).norm();
            let n = 60;
            for i in 0..=n {
                for j in 0..=n {
                    let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                    let d = (p0 + (p1 - p0) * u - q0 - (q1 - q0) * v).norm();
                    assert!(best <= d + 1e-12, "{best} > {d}");
                }
            }
        }
    }
}
