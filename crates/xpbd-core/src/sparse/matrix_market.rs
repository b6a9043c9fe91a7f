//! Matrix Market files (NIST format): sparse matrices through `sprs::io` (coordinate format,
//! general or symmetric), dense vectors here (`array` format, or `coordinate` with one column,
//! which sprs does not read), with errors that name the file.

use super::Csr;
use crate::{Error, Result};
use std::path::Path;

/// A real coordinate-format matrix as CSR (symmetric files are expanded).
pub fn read_matrix(path: &Path) -> Result<Csr> {
    let t: sprs::TriMat<f64> = sprs::io::read_matrix_market(path).map_err(|e| match e {
        sprs::io::IoError::Io(source) => Error::io(path, source),
        other => Error::parse(path, None, format!("not a real coordinate Matrix Market matrix: {other}")),
    })?;
    Ok(t.to_csr())
}

/// A dense vector from an `array` file (n × 1) or a `coordinate` file with one column.
pub fn read_vector(path: &Path) -> Result<Vec<f64>> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let bad = |line: usize, msg: &str| Error::parse(path, Some(line + 1), msg.to_string());
    let (hl, header) = lines.next().ok_or_else(|| Error::parse(path, None, "empty file"))?;
    let header = header.to_lowercase();
    if !header.starts_with("%%matrixmarket matrix") {
        return Err(bad(hl, "missing `%%MatrixMarket matrix` header"));
    }
    let coordinate = header.contains(" coordinate ");
    if !coordinate && !header.contains(" array ") {
        return Err(bad(hl, "expected `array` or `coordinate` format"));
    }
    let mut data = lines.filter(|(_, l)| !l.starts_with('%'));
    let (sl, size) = data.next().ok_or_else(|| Error::parse(path, None, "missing size line"))?;
    let dims: Vec<usize> = size.split_whitespace().map(|t| t.parse().map_err(|_| bad(sl, "bad size line"))).collect::<Result<_>>()?;
    if dims.len() < 2 || dims[1] != 1 {
        return Err(bad(sl, "expected a vector (one column)"));
    }
    let n = dims[0];
    let mut x = vec![0.0; n];
    let mut count = 0;
    for (l, line) in data {
        let t: Vec<&str> = line.split_whitespace().collect();
        let num = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite()).ok_or_else(|| bad(l, &format!("bad value `{s}`")));
        if coordinate {
            let i: usize = t.first().and_then(|s| s.parse().ok()).filter(|&i| i >= 1 && i <= n).ok_or_else(|| bad(l, "row index out of range"))?;
            x[i - 1] += num(t.get(2).copied().unwrap_or(""))?;
        } else {
            *x.get_mut(count).ok_or_else(|| bad(l, "more values than rows"))? = num(t.first().copied().unwrap_or(""))?;
        }
        count += 1;
    }
    if !coordinate && count != n {
        return Err(Error::parse(path, None, format!("{count} values for {n} rows")));
    }
    Ok(x)
}

/// Writes `x` as an `array` file (n × 1), with round-trip precision.
pub fn write_vector(path: &Path, x: &[f64]) -> Result<()> {
    let mut s = format!("%%MatrixMarket matrix array real general\n{} 1\n", x.len());
    for v in x {
        s.push_str(&format!("{v:e}\n"));
    }
    std::fs::write(path, s).map_err(|e| Error::io(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Vectors round-trip bit-exactly in array format; coordinate vectors read the same values;
    /// malformed files give errors naming the file and line.
    #[test]
    fn vector_round_trip_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("x.mtx");
        let x = vec![1.0, -2.5e-300, std::f64::consts::PI, 0.0];
        write_vector(&p, &x).unwrap();
        assert_eq!(read_vector(&p).unwrap(), x);
        std::fs::write(&p, "%%MatrixMarket matrix coordinate real general\n% c\n3 1 2\n1 1 4.0\n3 1 -1\n").unwrap();
        assert_eq!(read_vector(&p).unwrap(), vec![4.0, 0.0, -1.0]);
        std::fs::write(&p, "%%MatrixMarket matrix array real general\n2 1\n1.0\nnan\n").unwrap();
        let e = read_vector(&p).unwrap_err().to_string();
        assert!(e.contains("x.mtx:4") && e.contains("nan"), "{e}");
        std::fs::write(&p, "%%MatrixMarket matrix array real general\n3 2\n").unwrap();
        assert!(read_vector(&p).unwrap_err().to_string().contains("one column"));
    }
}
