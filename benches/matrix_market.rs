//! Matrix Market reading: writes a synthetic `coordinate real general` file (default 5 M nonzeros,
//! 8 per row, values in shortest round-trip `{:e}` form as `export-system` writes them) to a temp
//! folder, then times (best of 3) our reader (`sparse::matrix_market::read_matrix`, to CSR), sprs's
//! reader (`sprs::io::read_matrix_market` + `to_csr`, what `read_matrix` used before) and, where a
//! Python with SciPy is found, `scipy.io.mmread` (to COO, and with `.tocsr()`) on the same file.
//! Python: `$XPBD_PYTHON`, else the PyAMG comparison's venv (`benches/mgpbd_vs_pyamg/setup.sh`),
//! else `python3`; without SciPy that part is skipped.
//!
//! Run: `cargo bench -p xpbd-benches --bench matrix_market` (add `-- NNZ` for another size).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use xpbd_core::sparse::matrix_market::read_matrix;

/// Best wall time of `runs` calls of `f`, in seconds.
fn best_of(runs: usize, mut f: impl FnMut()) -> f64 {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// A Python that imports SciPy, if any.
fn python_with_scipy() -> Option<PathBuf> {
    let venvs = std::fs::read_dir(std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default().join(".cache/xpbd"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin/python"));
    std::env::var_os("XPBD_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain(venvs)
        .chain([PathBuf::from("python3")])
        .find(|p| Command::new(p).args(["-c", "import scipy"]).output().is_ok_and(|o| o.status.success()))
}

/// SciPy's version and best times of `mmread` and `mmread(...).tocsr()` on `path`.
fn scipy_times(python: &Path, path: &Path) -> Option<(String, f64, f64)> {
    let script = "import sys, time, scipy, scipy.io\nbest = lambda f: min((lambda t: (f(), time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(3))\nprint(scipy.__version__, best(lambda: scipy.io.mmread(sys.argv[1])), best(lambda: scipy.io.mmread(sys.argv[1]).tocsr()))";
    let out = Command::new(python).args(["-c", script]).arg(path).output().ok().filter(|o| o.status.success())?;
    let text = String::from_utf8(out.stdout).ok()?;
    let f: Vec<&str> = text.split_whitespace().collect();
    Some((f.first()?.to_string(), f.get(1)?.parse().ok()?, f.get(2)?.parse().ok()?))
}

fn main() {
    let nnz: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(5_000_000);
    let (per_row, rows) = (8, nnz.div_ceil(8));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("A.mtx");
    let mut rng = fastrand::Rng::with_seed(1);
    let mut text = format!("%%MatrixMarket matrix coordinate real general\n{rows} {rows} {}\n", rows * per_row);
    for i in 1..=rows {
        for k in 0..per_row {
            let j = (i + k * 7919 + rng.usize(0..7)) % rows + 1;
            writeln!(text, "{i} {j} {:e}", (rng.f64() - 0.5) * 10f64.powi(rng.i32(-8..4))).unwrap();
        }
    }
    std::fs::write(&path, &text).expect("write the file");
    println!("{}: {} nonzeros, {rows} rows, {:.0} MB; {} rayon threads", path.display(), rows * per_row, text.len() as f64 / 1e6, rayon::current_num_threads());
    drop(text);
    let ours = best_of(3, || assert_eq!(read_matrix(&path).unwrap().rows(), rows));
    println!("ours (read_matrix, to CSR):        {ours:.3} s  ({:.0} MB/s)", std::fs::metadata(&path).unwrap().len() as f64 / 1e6 / ours);
    let sprs = best_of(1, || assert_eq!(sprs::io::read_matrix_market::<f64, usize, _>(&path).unwrap().to_csr::<usize>().rows(), rows));
    println!("sprs (read_matrix_market, to_csr): {sprs:.3} s  (ours {:.1}x faster)", sprs / ours);
    match python_with_scipy().and_then(|py| scipy_times(&py, &path)) {
        Some((version, coo, csr)) => {
            println!("scipy {version} mmread (to COO):      {coo:.3} s  (ours {:.2}x faster)", coo / ours);
            println!("scipy {version} mmread().tocsr():     {csr:.3} s  (ours {:.2}x faster)", csr / ours);
        }
        None => println!("scipy: no Python with SciPy found (set XPBD_PYTHON); skipped"),
    }
}
