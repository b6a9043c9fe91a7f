//! Matrix Market files (NIST format): sparse matrices in `coordinate` format (real or integer;
//! general, symmetric or skew-symmetric) read in parallel chunks, dense vectors (`array` format,
//! or `coordinate` with one column), with one-line errors that name the file and line.

use super::Csr;
use crate::{Error, Result};
use rayon::prelude::*;
use std::path::Path;

/// Bytes per parallel parse task of [`read_matrix`] (each chunk ends at a line end).
const CHUNK_BYTES: usize = 1 << 20;

/// A real coordinate-format matrix as CSR: symmetric files are expanded, duplicates summed in
/// file order. The file is memory-mapped and its entry lines parsed in parallel chunks, so the
/// threads fault its pages in as they parse instead of one thread copying it first; the result does
/// not depend on the threads.
pub fn read_matrix(path: &Path) -> Result<Csr> {
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    if file.metadata().map_err(|e| Error::io(path, e))?.len() == 0 {
        return Err(Error::parse(path, None, "empty file"));
    }
    // SAFETY: the map is read-only and dropped before this function returns. Another process truncating
    // or rewriting the file meanwhile would change the bytes under us (the caveat of every memory-mapped
    // reader); exported systems are written once, before they are read.
    let map = unsafe { memmap2::Mmap::map(&file) }.map_err(|e| Error::io(path, e))?;
    let text: &[u8] = &map;
    let bad = |line: usize, msg: String| Error::parse(path, Some(line), msg);
    let mut lines = text.split_inclusive(|&b| b == b'\n').enumerate().map(|(k, l)| (k + 1, l));
    let (hl, header) = lines.next().ok_or_else(|| Error::parse(path, None, "empty file"))?;
    let header = String::from_utf8_lossy(header).to_lowercase();
    let words: Vec<&str> = header.split_whitespace().collect();
    if words.len() != 5 || words[..3] != ["%%matrixmarket", "matrix", "coordinate"] || !["real", "integer"].contains(&words[3]) {
        return Err(bad(hl, "expected a `%%MatrixMarket matrix coordinate real|integer SYMMETRY` header".into()));
    }
    let mirror = match words[4] {
        "general" => None,
        "symmetric" => Some(1.0),
        "skew-symmetric" => Some(-1.0),
        other => return Err(bad(hl, format!("unsupported symmetry `{other}`"))),
    };
    let mut offset = text.len();
    let mut size = None;
    for (l, line) in lines.by_ref() {
        let mut f = fields(line.strip_suffix(b"\n").unwrap_or(line));
        if let Some(first) = f.next().filter(|t| t[0] != b'%') {
            let dims: Option<Vec<usize>> = std::iter::once(first).chain(f).map(parse_index).collect();
            size = Some((l, dims.filter(|d| d.len() == 3).ok_or_else(|| bad(l, "bad size line (expected `rows columns entries`)".into()))?));
            offset = line.as_ptr() as usize - text.as_ptr() as usize + line.len();
            break;
        }
    }
    let (sl, dims) = size.ok_or_else(|| Error::parse(path, None, "missing size line"))?;
    let (rows, cols, entries) = (dims[0], dims[1], dims[2]);
    if mirror.is_some() && rows != cols {
        return Err(bad(sl, format!("a {} matrix must be square", words[4])));
    }
    let body = &text[offset..];
    let mut bounds = vec![0];
    while let Some(&start) = bounds.last().filter(|&&s| s < body.len()) {
        let end = (start + CHUNK_BYTES).min(body.len());
        bounds.push(body[end..].iter().position(|&b| b == b'\n').map_or(body.len(), |p| end + p + 1));
    }
    let parsed: Vec<_> = bounds.par_windows(2).map(|w| parse_chunk(&body[w[0]..w[1]], rows, cols)).collect();
    let mut first_line = sl + 1;
    let mut triplets = Vec::with_capacity(parsed.len());
    for chunk in parsed {
        let chunk = chunk.map_err(|(k, msg)| bad(first_line + k, msg))?;
        first_line += chunk.lines;
        triplets.push(chunk);
    }
    let found: usize = triplets.iter().map(|c| c.vals.len()).sum();
    if found != entries {
        return Err(bad(sl, format!("the size line declares {entries} entries, the file has {found}")));
    }
    Ok(assemble(rows, cols, &triplets, mirror))
}

/// The entries of one chunk of lines, and how many lines it spans.
struct Chunk {
    rows: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
    lines: usize,
}

/// Parses the entry lines `row column value` of `text` (empty and `%` lines skipped); an error
/// carries the 0-based line within the chunk. A well-formed line is read in one pass
/// ([`entry_fast`]); any other line goes through [`parse_entry`], which accepts what it can and
/// names what is wrong.
fn parse_chunk(text: &[u8], rows: usize, cols: usize) -> std::result::Result<Chunk, (usize, String)> {
    let cap = text.len() / 24;
    let mut c = Chunk { rows: Vec::with_capacity(cap), cols: Vec::with_capacity(cap), vals: Vec::with_capacity(cap), lines: 0 };
    let mut rest = text;
    while !rest.is_empty() {
        let (entry, used) = match entry_fast(rest, rows, cols) {
            Some((e, used)) => (Some(e), used),
            None => {
                let end = rest.iter().position(|&b| b == b'\n').map_or(rest.len(), |e| e + 1);
                (parse_entry(rest[..end].strip_suffix(b"\n").unwrap_or(&rest[..end]), rows, cols).map_err(|msg| (c.lines, msg))?, end)
            }
        };
        if let Some((i, j, v)) = entry {
            c.rows.push(i);
            c.cols.push(j);
            c.vals.push(v);
        }
        c.lines += usize::from(rest[used - 1] == b'\n');
        rest = &rest[used..];
    }
    Ok(c)
}

/// The common entry line, `row column value` with single spaces and a finite value, parsed in one
/// pass as 0-based `(row, column, value)` with the bytes it spans (its `\n` included); `None` for
/// anything else, which [`parse_entry`] then reads or rejects.
fn entry_fast(s: &[u8], rows: usize, cols: usize) -> Option<((usize, usize, f64), usize)> {
    let digits = |s: &[u8], at: usize| {
        let n = s[at..].iter().take(20).take_while(|b| b.is_ascii_digit()).count();
        (1..=19).contains(&n).then(|| (s[at..at + n].iter().fold(0usize, |v, &d| v * 10 + usize::from(d - b'0')), at + n))
    };
    let (i, at) = digits(s, 0).filter(|&(i, at)| (1..=rows).contains(&i) && s.get(at) == Some(&b' '))?;
    let (j, at) = digits(s, at + 1).filter(|&(j, at)| (1..=cols).contains(&j) && s.get(at) == Some(&b' '))?;
    let (v, n) = fast_float2::parse_partial::<f64, _>(&s[at + 1..]).ok().filter(|(v, _)| v.is_finite())?;
    let end = at + 1 + n;
    match s.get(end) {
        None => Some(((i - 1, j - 1, v), end)),
        Some(b'\n') => Some(((i - 1, j - 1, v), end + 1)),
        _ => None,
    }
}

/// One entry line as 0-based `(row, column, value)`; `None` for an empty or `%` line.
fn parse_entry(line: &[u8], rows: usize, cols: usize) -> std::result::Result<Option<(usize, usize, f64)>, String> {
    let mut f = fields(line);
    let Some(first) = f.next().filter(|t| t[0] != b'%') else { return Ok(None) };
    let index = |t: Option<&[u8]>, n: usize, what: &str| {
        t.and_then(parse_index).filter(|&i| i >= 1 && i <= n).map(|i| i - 1).ok_or_else(|| format!("{what} index out of range 1..={n}"))
    };
    let (i, j) = (index(Some(first), rows, "row")?, index(f.next(), cols, "column")?);
    let t = f.next().ok_or("missing value")?;
    let v = parse_f64(t).filter(|v| v.is_finite()).ok_or_else(|| format!("bad value `{}`", String::from_utf8_lossy(t)))?;
    if f.next().is_some() {
        return Err("more than three fields".into());
    }
    Ok(Some((i, j, v)))
}

/// A decimal index (at most 19 digits).
fn parse_index(t: &[u8]) -> Option<usize> {
    (t.len() <= 19 && t.iter().all(u8::is_ascii_digit)).then(|| t.iter().fold(0, |n, &d| n * 10 + usize::from(d - b'0')))
}

/// Whitespace-separated fields of a line (spaces, tabs, a trailing `\r`).
fn fields(line: &[u8]) -> Fields<'_> {
    Fields(line)
}

/// The iterator of [`fields`]: the rest of the line.
struct Fields<'a>(&'a [u8]);

impl<'a> Iterator for Fields<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        let space = |b: &u8| matches!(b, b' ' | b'\t' | b'\r');
        let start = self.0.iter().position(|b| !space(b))?;
        let rest = &self.0[start..];
        let end = rest.iter().position(space).unwrap_or(rest.len());
        self.0 = &rest[end..];
        Some(&rest[..end])
    }
}

/// CSR from the chunks' triplets (in chunk order), mirrored off the diagonal with sign `mirror`:
/// rows as they come in a row-major file, else a counting sort by row; then each row sorted by column and its duplicates summed in order.
fn assemble(rows: usize, cols: usize, chunks: &[Chunk], mirror: Option<f64>) -> Csr {
    let entries = || chunks.iter().flat_map(|c| c.rows.iter().zip(&c.cols).zip(&c.vals).map(|((&i, &j), &v)| (i, j, v)));
    let all = || entries().chain(mirror.into_iter().flat_map(move |s| entries().filter(|e| e.0 != e.1).map(move |(i, j, v)| (j, i, s * v))));
    let mut indptr = vec![0usize; rows + 1];
    for c in chunks {
        for (&i, &j) in c.rows.iter().zip(&c.cols) {
            indptr[i + 1] += 1;
            if mirror.is_some() && i != j {
                indptr[j + 1] += 1;
            }
        }
    }
    for r in 0..rows {
        indptr[r + 1] += indptr[r];
    }
    let row_major = mirror.is_none() && chunks.iter().flat_map(|c| &c.rows).is_sorted();
    let (mut indices, mut data) = if row_major {
        (chunks.iter().map(|c| c.cols.as_slice()).collect::<Vec<_>>().concat(), chunks.iter().map(|c| c.vals.as_slice()).collect::<Vec<_>>().concat())
    } else {
        let (mut indices, mut data) = (vec![0usize; indptr[rows]], vec![0.0; indptr[rows]]);
        let mut next = indptr.clone();
        for (i, j, v) in all() {
            (indices[next[i]], data[next[i]]) = (j, v);
            next[i] += 1;
        }
        (indices, data)
    };
    let kept: Vec<usize> = row_blocks(&indptr, &mut indices, &mut data)
        .into_par_iter()
        .flat_map_iter(|(offsets, idx, val)| offsets.windows(2).map(move |w| merge_row(&mut idx[w[0]..w[1]], &mut val[w[0]..w[1]])).collect::<Vec<_>>())
        .collect();
    if kept.iter().zip(indptr.windows(2)).any(|(&k, w)| k != w[1] - w[0]) {
        let mut out = 0;
        for (r, &k) in kept.iter().enumerate() {
            indices.copy_within(indptr[r]..indptr[r] + k, out);
            data.copy_within(indptr[r]..indptr[r] + k, out);
            indptr[r] = out;
            out += k;
        }
        indptr[rows] = out;
        indices.truncate(out);
        data.truncate(out);
    }
    Csr::new((rows, cols), indptr, indices, data)
}

/// Rows per parallel task of [`assemble`]'s row merge.
const MERGE_BLOCK_ROWS: usize = 4096;

/// Splits `indices` and `data` into blocks of [`MERGE_BLOCK_ROWS`] rows, each with its row
/// offsets relative to the block.
fn row_blocks<'a>(indptr: &[usize], mut indices: &'a mut [usize], mut data: &'a mut [f64]) -> Vec<(Vec<usize>, &'a mut [usize], &'a mut [f64])> {
    let rows = indptr.len() - 1;
    (0..rows)
        .step_by(MERGE_BLOCK_ROWS)
        .map(|r0| {
            let r1 = (r0 + MERGE_BLOCK_ROWS).min(rows);
            let n = indptr[r1] - indptr[r0];
            let (idx, rest) = std::mem::take(&mut indices).split_at_mut(n);
            indices = rest;
            let (val, rest) = std::mem::take(&mut data).split_at_mut(n);
            data = rest;
            (indptr[r0..=r1].iter().map(|p| p - indptr[r0]).collect(), idx, val)
        })
        .collect()
}

/// Sorts one row by column (stably) and sums its duplicates in order into the front; returns how
/// many entries remain. Rows up to [`INSERTION_ROW`] entries are insertion-sorted in place.
fn merge_row(idx: &mut [usize], val: &mut [f64]) -> usize {
    if idx.windows(2).all(|w| w[0] < w[1]) {
        return idx.len();
    }
    if idx.len() <= INSERTION_ROW {
        for k in 1..idx.len() {
            let (j, v) = (idx[k], val[k]);
            let mut m = k;
            while m > 0 && idx[m - 1] > j {
                (idx[m], val[m]) = (idx[m - 1], val[m - 1]);
                m -= 1;
            }
            (idx[m], val[m]) = (j, v);
        }
    } else {
        let mut pairs: Vec<(usize, f64)> = idx.iter().copied().zip(val.iter().copied()).collect();
        pairs.sort_by_key(|p| p.0);
        for (k, (j, v)) in pairs.into_iter().enumerate() {
            (idx[k], val[k]) = (j, v);
        }
    }
    let mut out = 0;
    for k in 0..idx.len() {
        if out > 0 && idx[out - 1] == idx[k] {
            val[out - 1] += val[k];
        } else {
            (idx[out], val[out]) = (idx[k], val[k]);
            out += 1;
        }
    }
    out
}

/// The longest row [`merge_row`] sorts in place (an assembled matrix's rows hold a few dozen entries).
const INSERTION_ROW: usize = 32;

/// Parses a decimal float exactly as `str::parse::<f64>` does (bit for bit), with the fast-float2
/// crate (Eisel–Lemire, correctly rounded without big-number arithmetic in all but rare cases).
pub fn parse_f64(t: &[u8]) -> Option<f64> {
    fast_float2::parse(t).ok()
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

    /// A general file with comments, blank lines, CRLF ends and a duplicate reads as sprs reads
    /// it; symmetric and skew-symmetric files are mirrored; integer values are accepted.
    #[test]
    fn matrix_headers_comments_and_symmetry() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.mtx");
        let read = |text: &str| {
            std::fs::write(&p, text).unwrap();
            read_matrix(&p)
        };
        let general =
            "%%MatrixMarket matrix coordinate real general\r\n% a comment\n\n%\n3 4 5\n1 1 2.5\n\n3 4 -1e-3\r\n% late comment\n2 1  7\n1 1\t0.5\n1 3 4\n";
        let a = read(general).unwrap();
        std::fs::write(&p, general.replace("\r", "").replace("\n\n", "\n").replace("% late comment\n", "")).unwrap();
        assert_eq!(a, sprs::io::read_matrix_market::<f64, usize, _>(&p).unwrap().to_csr::<usize>());
        assert_eq!(a.get(0, 0), Some(&3.0));
        let a = read("%%MatrixMarket matrix coordinate integer symmetric\n3 3 3\n1 1 2\n3 1 -4\n2 2 5\n").unwrap();
        assert_dense(&a, &[[2.0, 0.0, -4.0], [0.0, 5.0, 0.0], [-4.0, 0.0, 0.0]]);
        let a = read("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 1.5\n").unwrap();
        assert_dense(&a, &[[0.0, -1.5], [1.5, 0.0]]);
        const G: &str = "%%MatrixMarket matrix coordinate real general\n";
        for (text, line, msg) in [
            (&"%%MatrixMarket matrix array real general\n2 1\n1\n2\n".to_string(), 1, "header"),
            (&"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n".to_string(), 1, "header"),
            (&"%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n".to_string(), 1, "hermitian"),
            (&format!("{G}% c\n2 2\n1 1 1\n"), 3, "size line"),
            (&format!("{G}2 2 2\n1 1 1\n"), 2, "declares 2 entries, the file has 1"),
            (&format!("{G}2 2 1\n1 1 1\n2 2 1\n"), 2, "declares 1 entries, the file has 2"),
            (&format!("{G}2 2 2\n1 1 1\n\n3 1 1\n"), 5, "row index out of range 1..=2"),
            (&format!("{G}2 2 1\n1 0 1\n"), 3, "column index"),
            (&format!("{G}2 2 1\n1 1\n"), 3, "missing value"),
            (&format!("{G}2 2 1\n1 1 inf\n"), 3, "bad value `inf`"),
            (&format!("{G}2 2 1\n1 1 1.0x\n"), 3, "bad value `1.0x`"),
            (&format!("{G}2 2 1\n1 1 1 1\n"), 3, "more than three fields"),
            (&"%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 3 1\n".to_string(), 2, "a symmetric matrix must be square"),
        ] {
            let e = read(text.as_str()).unwrap_err().to_string();
            assert!(e.contains(&format!("a.mtx:{line}")) && e.contains(msg) && !e.contains('\n'), "{text:?}: {e}");
        }
    }

    /// Shuffled entries with duplicates, in short rows (sorted in place) and long ones (over
    /// `INSERTION_ROW` entries), read as the dense sum of the entries in file order.
    #[test]
    fn duplicates_sum_in_short_and_long_rows() {
        let mut rng = fastrand::Rng::with_seed(5);
        let (n, cols) = (40, 60);
        let entries: Vec<(usize, usize, f64)> = (0..n)
            .flat_map(|i| (0..[3, 20, 90][i % 3]).map(move |k| (i, (k * 7 + i) % 25 + (k % 2) * 30, 0.0)))
            .map(|(i, j, _)| (i, j, rng.f64() - 0.5))
            .collect();
        let mut shuffled = entries.clone();
        rng.shuffle(&mut shuffled);
        let mut text = format!("%%MatrixMarket matrix coordinate real general\n{n} {cols} {}\n", shuffled.len());
        let mut dense = vec![vec![0.0; cols]; n];
        for &(i, j, v) in &shuffled {
            text += &format!("{} {} {v:e}\n", i + 1, j + 1);
            dense[i][j] += v;
        }
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d.mtx");
        std::fs::write(&p, text).unwrap();
        let a = read_matrix(&p).unwrap();
        assert!(entries.iter().filter(|e| e.0 == 2).count() > INSERTION_ROW);
        for (i, row) in dense.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                assert_eq!(a.get(i, j).copied().unwrap_or(0.0), v, "({i}, {j})");
            }
        }
    }

    /// `a` equals the dense `rows` (absent entries as zeros).
    fn assert_dense<const N: usize>(a: &Csr, rows: &[[f64; N]]) {
        assert_eq!(a.shape(), (rows.len(), N));
        for (i, row) in rows.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                assert_eq!(a.get(i, j).copied().unwrap_or(0.0), v, "({i}, {j})");
            }
        }
    }

    /// A file of many chunks reads exactly as sprs reads it, and a bad entry deep in a late chunk
    /// is reported at its own line.
    #[test]
    fn matrix_many_chunks_and_late_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.mtx");
        let mut rng = fastrand::Rng::with_seed(7);
        let (n, per_row) = (40_000, 6);
        let mut text = format!("%%MatrixMarket matrix coordinate real general\n% comment\n{n} {n} {}\n", n * per_row);
        for i in 1..=n {
            for j in 0..per_row {
                text.push_str(&format!("{i} {} {:e}\n", (i + 97 * j) % n + 1, rng.f64() * 10f64.powi(rng.i32(-30..30))));
            }
        }
        assert!(text.len() > 2 * CHUNK_BYTES);
        std::fs::write(&p, &text).unwrap();
        let expected: Csr = sprs::io::read_matrix_market::<f64, usize, _>(&p).unwrap().to_csr();
        assert_eq!(read_matrix(&p).unwrap(), expected);
        let line = 3 + n * per_row - 1000;
        let mut lines: Vec<&str> = text.lines().collect();
        lines[line - 1] = "17 4 1.2.3";
        std::fs::write(&p, lines.join("\n")).unwrap();
        let e = read_matrix(&p).unwrap_err().to_string();
        assert!(e.contains(&format!("big.mtx:{line}: bad value `1.2.3`")), "{e}");
    }

    /// `parse_f64` is bit-equal to `str::parse::<f64>` (and fails where it fails) on random
    /// decimals, exponents, subnormals and shortest round-trip forms.
    #[test]
    fn parse_f64_matches_std() {
        let mut rng = fastrand::Rng::with_seed(11);
        for k in 0..400_000 {
            let s = match k % 4 {
                0 => format!("{:e}", f64::from_bits(rng.u64(..))),
                1 => format!("{}", f64::from_bits(rng.u64(..1 << 53))),
                2 => format!("{:.*e}", rng.usize(0..20), f64::from_bits(rng.u64(..))),
                _ => {
                    let digits: String = (0..rng.usize(1..22)).map(|_| rng.digit(10)).collect();
                    let point = rng.usize(0..=digits.len());
                    let sign = ["", "-", "+"][rng.usize(0..3)];
                    let exp = [String::new(), format!("e{}", rng.i32(-340..320)), format!("E+{}", rng.i32(0..30)), "e".into()][rng.usize(0..4)].clone();
                    format!("{sign}{}.{}{exp}", &digits[..point], &digits[point..])
                }
            };
            let expected = s.parse::<f64>().ok().map(f64::to_bits);
            assert_eq!(parse_f64(s.as_bytes()).map(f64::to_bits), expected, "{s}");
        }
        for s in [
            "0",
            "-0",
            "-0.0e5",
            "1.",
            ".5",
            "5e-324",
            "2.2250738585072011e-308",
            "9007199254740993",
            "1e23",
            "nan",
            "inf",
            "-",
            ".",
            "e5",
            "",
            "1e",
            "0x10",
            "1_0",
        ] {
            assert_eq!(parse_f64(s.as_bytes()).map(f64::to_bits), s.parse::<f64>().ok().map(f64::to_bits), "{s}");
        }
    }
}
