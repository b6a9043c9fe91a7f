//! A dual system's files, all in one folder: Matrix Market `A.mtx` (general, coordinate), `b.mtx`
//! (an n×1 coordinate matrix listing every entry), `J.mtx` (rows × 3·vertices), and `inv_mass.mtx`,
//! `alpha_tilde.mtx`, `x.mtx` (x̃, 3·vertices) as array vectors; `system.json` describes the system
//! for people and scripts and is not read back.

use super::{DualSystem, JacobianForm, SystemInfo};
use std::path::Path;
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::sparse::matrix_market::{read_matrix, read_vector, write_vector};
use xpbd_core::sparse::Csr;
use xpbd_core::{Error, Result};

/// Which parts `DualSystem::read` reads besides b.
#[derive(Clone, Copy, Debug, Default)]
pub struct Parts {
    /// A.
    pub matrix: bool,
    /// J, W and α̃.
    pub jacobian: bool,
    /// x̃, with J (whose columns it is checked against).
    pub x: bool,
}

impl DualSystem {
    /// Writes the parts the system has and `system.json` into `dir`, created when missing.
    pub fn write(&self, dir: &Path, info: &SystemInfo) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let n = self.b.len();
        let b_col = Csr::new_csc((n, 1), vec![0, n], (0..n).collect(), self.b.clone()).to_csr();
        let jacobian = self.jacobian.as_ref();
        for (name, mat) in [("A.mtx", self.a.as_ref()), ("b.mtx", Some(&b_col)), ("J.mtx", jacobian.map(|f| &f.j))] {
            if let Some(mat) = mat {
                let path = dir.join(name);
                sprs::io::write_matrix_market(&path, mat).map_err(|e| Error::io(&path, e))?;
            }
        }
        let vectors = [("inv_mass.mtx", jacobian.map(|f| &f.inv_mass)), ("alpha_tilde.mtx", jacobian.map(|f| &f.alpha_tilde)), ("x.mtx", self.x.as_ref())];
        for (name, v) in vectors {
            if let Some(v) = v {
                write_vector(&dir.join(name), v)?;
            }
        }
        let json = serde_json::to_string_pretty(info).map_err(|e| Error::invalid(format!("system.json: {e}")))?;
        write_atomic(&dir.join("system.json"), json.as_bytes())
    }

    /// Reads b from `b` and the `parts` asked for: A from `a`, the others from `a`'s folder. A must be
    /// symmetric, every part must match b's rows, and x̃ J's columns.
    pub fn read(a: &Path, b: &Path, parts: Parts) -> Result<DualSystem> {
        let dir = a.parent().unwrap_or(Path::new("."));
        let rhs = read_vector(b)?;
        let matrix = if parts.matrix { Some(read_dual_matrix(a, dir)?) } else { None };
        if let Some(m) = matrix.as_ref().filter(|m| m.rows() != rhs.len()) {
            return Err(Error::invalid(format!("{}: {} rows, but {} has {}", b.display(), rhs.len(), a.display(), m.rows())));
        }
        let jacobian = if parts.jacobian || parts.x { Some(read_jacobian(dir, rhs.len())?) } else { None };
        let x = match &jacobian {
            Some(f) if parts.x => Some(read_x(dir, f.j.cols())?),
            _ => None,
        };
        Ok(DualSystem { a: matrix, b: rhs, jacobian, x })
    }
}

/// A.mtx, checked symmetric; a missing A.mtx next to a J.mtx says how to solve without it.
fn read_dual_matrix(path: &Path, dir: &Path) -> Result<Csr> {
    if !path.exists() && dir.join("J.mtx").exists() {
        return Err(Error::invalid(format!("{}: not found, but J.mtx is there (exported with --no-matrix?); --matrix-free applies A from J", path.display())));
    }
    let a = read_matrix(path)?;
    check_symmetric(&a, path)?;
    Ok(a)
}

/// Reads `J.mtx`, `inv_mass.mtx`, `alpha_tilde.mtx` from `dir`, checked against `rows` rows.
fn read_jacobian(dir: &Path, rows: usize) -> Result<JacobianForm> {
    let j = read_matrix(&dir.join("J.mtx"))?;
    let (inv_mass, alpha_tilde) = (read_vector(&dir.join("inv_mass.mtx"))?, read_vector(&dir.join("alpha_tilde.mtx"))?);
    if j.rows() != rows || alpha_tilde.len() != rows || j.cols() != 3 * inv_mass.len() {
        return Err(Error::invalid(format!("{}: J.mtx, alpha_tilde.mtx and inv_mass.mtx do not match the system ({rows} rows)", dir.display())));
    }
    Ok(JacobianForm { j, inv_mass, alpha_tilde })
}

/// Reads `x.mtx` from `dir`, checked against J's `cols` columns.
fn read_x(dir: &Path, cols: usize) -> Result<Vec<f64>> {
    let x = read_vector(&dir.join("x.mtx"))?;
    if x.len() != cols {
        return Err(Error::invalid(format!("{}: x.mtx has {} entries, J.mtx {cols} columns", dir.display(), x.len())));
    }
    Ok(x)
}

/// Square, finite and symmetric to rounding (|a_ij − a_ji| ≤ 1e-10 max |a|), naming the first offending entry.
fn check_symmetric(a: &Csr, path: &Path) -> Result<()> {
    if a.rows() != a.cols() {
        return Err(Error::invalid(format!("{}: the matrix is {} × {}, not square", path.display(), a.rows(), a.cols())));
    }
    let scale = a.data().iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let at = a.transpose_view().to_csr();
    if a.nnz() != at.nnz() {
        return Err(Error::invalid(format!("{}: the pattern is not symmetric", path.display())));
    }
    for ((v, (i, j)), (w, pos)) in a.iter().zip(at.iter()) {
        if !v.is_finite() {
            return Err(Error::invalid(format!("{}: entry ({}, {}) is not finite", path.display(), i + 1, j + 1)));
        }
        if (i, j) != pos || (v - w).abs() > 1e-10 * scale {
            return Err(Error::invalid(format!("{}: not symmetric at ({}, {}): {v} vs {w}", path.display(), i + 1, j + 1)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `write` puts in a folder, `read` gives back, each part only when asked for.
    #[test]
    fn written_systems_read_back() {
        let csr = |shape, indptr, indices, data| Csr::new(shape, indptr, indices, data);
        let jacobian = JacobianForm { j: csr((2, 3), vec![0, 2, 3], vec![0, 2, 1], vec![1.0, -0.5, 2.0]), inv_mass: vec![0.25], alpha_tilde: vec![1e-3, 2e-3] };
        let a = csr((2, 2), vec![0, 2, 4], vec![0, 1, 0, 1], vec![4.0, 1.0, 1.0, 3.0]);
        let sys = DualSystem { a: Some(a.clone()), b: vec![1.0, -2.0], jacobian: Some(jacobian), x: Some(vec![0.1, 0.2, 0.3]) };
        let info = SystemInfo {
            scene: "s".into(),
            frame: 0,
            h: 0.01,
            rows: 2,
            nonzeros: Some(4),
            vertices: 1,
            free_vertices: 1,
            row_kinds: Default::default(),
            bodies: vec![],
            rhs_norm: 5f64.sqrt(),
        };
        let dir = tempfile::tempdir().unwrap();
        sys.write(dir.path(), &info).unwrap();
        assert!(dir.path().join("system.json").exists());
        let (a_path, b_path) = (dir.path().join("A.mtx"), dir.path().join("b.mtx"));
        let all = DualSystem::read(&a_path, &b_path, Parts { matrix: true, jacobian: true, x: true }).unwrap();
        assert_eq!((all.a, &all.b, &all.x), (Some(a), &sys.b, &sys.x));
        let (got, want) = (all.jacobian.unwrap(), sys.jacobian.as_ref().unwrap());
        assert_eq!((got.j, got.inv_mass, got.alpha_tilde), (want.j.clone(), want.inv_mass.clone(), want.alpha_tilde.clone()));
        let b_only = DualSystem::read(&a_path, &b_path, Parts::default()).unwrap();
        assert!(b_only.a.is_none() && b_only.jacobian.is_none() && b_only.x.is_none() && b_only.b == sys.b);
    }
}
