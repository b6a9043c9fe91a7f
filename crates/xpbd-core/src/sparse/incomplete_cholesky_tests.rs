use super::*;
use crate::linear::pcg::{IctPreconditioner, JacobiPreconditioner, Pcg, Preconditioner};
use crate::linear::{LinearSolver, Setup};
use crate::sparse::cholesky::Cholesky;
use crate::sparse::norm;

/// A_p = M + h²BᵀWB on an n³ grid of nodes with 3 DOFs each: unit masses, axis springs acting on
/// every component (a vector Laplacian) and xy face-diagonal springs acting along their direction
/// (coupling x and y), all of stiffness h²k = 30.
fn grid(n: usize) -> Csr {
    let s = 30.0;
    let node = |x: usize, y: usize, z: usize| (z * n + y) * n + x;
    let rows = 3 * n * n * n;
    let mut t = sprs::TriMat::new((rows, rows));
    for i in 0..rows {
        t.add_triplet(i, i, 1.0);
    }
    let mut spring = |u: usize, v: usize, k: [[f64; 3]; 3]| {
        for (a, ka) in k.iter().enumerate() {
            for (b, &kab) in ka.iter().enumerate() {
                if kab != 0.0 {
                    t.add_triplet(3 * u + a, 3 * u + b, kab);
                    t.add_triplet(3 * v + a, 3 * v + b, kab);
                    t.add_triplet(3 * u + a, 3 * v + b, -kab);
                    t.add_triplet(3 * v + a, 3 * u + b, -kab);
                }
            }
        }
    };
    let axis = [[s, 0.0, 0.0], [0.0, s, 0.0], [0.0, 0.0, s]];
    let diag = |sign: f64| [[s / 2.0, sign * s / 2.0, 0.0], [sign * s / 2.0, s / 2.0, 0.0], [0.0; 3]];
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let u = node(x, y, z);
                if x + 1 < n {
                    spring(u, node(x + 1, y, z), axis);
                }
                if y + 1 < n {
                    spring(u, node(x, y + 1, z), axis);
                }
                if z + 1 < n {
                    spring(u, node(x, y, z + 1), axis);
                }
                if x + 1 < n && y + 1 < n {
                    spring(u, node(x + 1, y + 1, z), diag(1.0));
                    spring(node(x + 1, y, z), node(x, y + 1, z), diag(-1.0));
                }
            }
        }
    }
    t.to_csr()
}

fn rhs(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 37) % 23) as f64 / 11.0 - 1.0).collect()
}

fn tridiagonal(n: usize, diag: f64) -> Csr {
    let mut t = sprs::TriMat::new((n, n));
    for i in 0..n {
        t.add_triplet(i, i, diag);
        if i > 0 {
            t.add_triplet(i, i - 1, -1.0);
            t.add_triplet(i - 1, i, -1.0);
        }
    }
    t.to_csr()
}

/// Drop tolerance 0 keeps every entry: one application is the sparse direct solve.
#[test]
fn incomplete_without_dropping_is_the_direct_solve() {
    let a = grid(8);
    let n = a.rows();
    let ict = IncompleteCholesky::new(&a, 0.0).unwrap();
    assert_eq!(ict.shift(), 0.0);
    let mut chol = Cholesky::default();
    chol.factor(&a, false);
    let r = rhs(n);
    let (mut z, mut x) = (vec![0.0; n], vec![0.0; n]);
    ict.apply(&r, &mut z);
    assert!(chol.solve(&r, &mut x));
    let d: Vec<f64> = z.iter().zip(&x).map(|(a, b)| a - b).collect();
    let rel = norm(&d) / norm(&x);
    assert!(rel < 1e-10, "relative difference {rel:e}");
}

/// The fill-reducing ordering is a permutation, and the exact factor under it has fewer entries than
/// in the natural order.
#[test]
fn incomplete_cholesky_ordering_is_a_permutation() {
    let a = grid(6);
    let ict = IncompleteCholesky::new(&a, 0.0).unwrap();
    let mut p = ict.permutation().to_vec();
    assert_eq!(p.len(), a.rows());
    p.sort_unstable();
    assert!(p.iter().enumerate().all(|(k, &i)| k == i), "not a permutation");
    let natural = factor(&permuted_lower(&a, &(0..a.rows()).collect::<Vec<_>>()), 0.0, 0.0).unwrap();
    println!("6³ grid, exact factor: nnz(L) = {} with AMD, {} in natural order", ict.nnz(), natural.values.len());
    assert!(ict.nnz() < natural.values.len());
}

/// A larger drop tolerance keeps fewer entries and PCG needs more iterations, but all beat Jacobi;
/// prints the nnz(L)/nnz(A) ratio of the 20³ grid quoted in the module docs.
#[test]
fn incomplete_cholesky_fill_and_pcg_iterations() {
    let a = grid(20);
    let n = a.rows();
    let b = rhs(n);
    let mut jacobi = Pcg::new("jacobi-pcg", JacobiPreconditioner::default());
    jacobi.setup(&a, Setup::Full);
    let mut x = vec![0.0; n];
    let sj = jacobi.solve(&a, &b, &mut x, 1e-8, 5000);
    assert!(sj.converged, "{sj:?}");
    let mut counts = Vec::new();
    for tol in [1e-6, 1e-3, 1e-2] {
        let mut s = Pcg::new("ict-pcg", IctPreconditioner::new(tol));
        s.setup(&a, Setup::Full);
        let nnz = s.preconditioner_mut().factor().as_ref().map(|f| (f.nnz(), f.shift())).unwrap();
        assert_eq!(nnz.1, 0.0);
        let mut x = vec![0.0; n];
        let stats = s.solve(&a, &b, &mut x, 1e-8, 5000);
        assert!(stats.converged, "ICT({tol:e}): {stats:?}");
        let st = stats.iterations;
        println!(
            "20³ grid ({n} rows, nnz(A) = {}): ICT({tol:e}) nnz(L) = {}, nnz(L)/nnz(A) = {:.3}, PCG iterations {st}",
            a.nnz(),
            nnz.0,
            nnz.0 as f64 / a.nnz() as f64
        );
        counts.push((nnz.0, st));
    }
    println!("Jacobi-PCG iterations {}", sj.iterations);
    assert!(counts.windows(2).all(|w| w[0].0 > w[1].0 && w[0].1 < w[1].1), "(nnz, iterations) at 1e-6, 1e-3, 1e-2: {counts:?}");
    assert!(counts[2].1 < sj.iterations, "(nnz, iterations) {counts:?}, Jacobi {}", sj.iterations);
}

/// One application to a unit impulse reaches DOFs more than 3 graph hops away; Jacobi stays at the DOF.
#[test]
fn incomplete_cholesky_spreads_a_point_load() {
    let a = grid(8);
    let n = a.rows();
    let k = 3 * ((4 * 8 + 4) * 8 + 4);
    let mut hops = vec![usize::MAX; n];
    hops[k] = 0;
    let mut queue = std::collections::VecDeque::from([k]);
    while let Some(i) = queue.pop_front() {
        for &j in a.outer_view(i).unwrap().indices() {
            if hops[j] == usize::MAX {
                hops[j] = hops[i] + 1;
                queue.push_back(j);
            }
        }
    }
    let mut r = vec![0.0; n];
    r[k] = 1.0;
    let far = |z: &[f64]| (0..n).filter(|&i| hops[i] > 3 && z[i].abs() > 1e-8 * z[k].abs()).count();
    let ict = IncompleteCholesky::new(&a, 1e-6).unwrap();
    let mut z = vec![0.0; n];
    ict.apply(&r, &mut z);
    let mut jacobi = JacobiPreconditioner::default();
    jacobi.setup(&a, Setup::Full);
    let mut zj = vec![0.0; n];
    jacobi.apply(&a, &r, &mut zj);
    let (far_ict, far_jacobi) = (far(&z), far(&zj));
    assert!(far_ict > 100 && far_jacobi == 0, "DOFs beyond 3 hops: ICT {far_ict}, Jacobi {far_jacobi}");
}

/// An indefinite matrix with a positive diagonal needs the shift (α = 0.1 for this one); a negative
/// pivot that no shift repairs, an unsymmetric, non-square or non-finite matrix is a one-line error.
#[test]
fn incomplete_cholesky_shifts_or_fails_without_nan() {
    let a = tridiagonal(50, 1.9);
    for tol in [0.0, 1e-6] {
        let ict = IncompleteCholesky::new(&a, tol).unwrap();
        assert!((ict.shift() - 0.1).abs() < 1e-12, "shift {}", ict.shift());
        let mut z = vec![0.0; 50];
        ict.apply(&rhs(50), &mut z);
        assert!(z.iter().all(|v| v.is_finite()));
    }
    assert_eq!(IncompleteCholesky::new(&tridiagonal(50, 2.5), 1e-6).unwrap().shift(), 0.0);

    let mut t = sprs::TriMat::new((3, 3));
    t.add_triplet(0, 0, 1.0);
    t.add_triplet(1, 1, -2.0);
    t.add_triplet(2, 2, 1.0);
    let e = IncompleteCholesky::new(&t.to_csr(), 1e-6).unwrap_err().to_string();
    assert!(e.contains("pivot of row 1") && !e.contains('\n'), "{e}");

    let mut t = sprs::TriMat::new((2, 2));
    t.add_triplet(0, 0, 2.0);
    t.add_triplet(1, 1, 2.0);
    t.add_triplet(0, 1, 1.0);
    assert!(IncompleteCholesky::new(&t.to_csr(), 1e-6).unwrap_err().to_string().contains("not symmetric"));
    let rect: Csr = sprs::TriMat::<f64>::new((2, 3)).to_csr();
    assert!(IncompleteCholesky::new(&rect, 1e-6).unwrap_err().to_string().contains("not square"));
    let mut t = sprs::TriMat::new((1, 1));
    t.add_triplet(0, 0, f64::NAN);
    assert!(IncompleteCholesky::new(&t.to_csr(), 1e-6).is_err());

    // The preconditioner falls back to Jacobi where the factorisation fails: finite output.
    let mut t = sprs::TriMat::new((2, 2));
    t.add_triplet(0, 0, -1.0);
    t.add_triplet(1, 1, 4.0);
    let bad: Csr = t.to_csr();
    let mut p = IctPreconditioner::new(1e-6);
    p.setup(&bad, Setup::Full);
    assert!(p.factor().is_err());
    let mut z = [0.0; 2];
    p.apply(&bad, &[1.0, 1.0], &mut z);
    assert_eq!(z, [-1.0, 0.25]);
}
