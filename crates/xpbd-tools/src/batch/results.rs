//! `results.jsonl`: one JSON line per finished run. Lines are appended with one `write` each under a
//! lock, so a killed batch leaves at most a partial last line, which the next start drops; runs
//! already listed are not run again, so no run is lost or listed twice.

use serde_json::Value;
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use xpbd_core::{Error, Result};

pub struct Results {
    path: PathBuf,
    file: Mutex<File>,
    /// Names of the runs already listed.
    pub done: HashSet<String>,
}

impl Results {
    /// Opens (or creates) the results file, dropping a partial last line.
    pub fn open(path: &Path) -> Result<Self> {
        let text = match std::fs::read(path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(Error::io(path, e)),
        };
        let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let file = OpenOptions::new().create(true).append(true).open(path).map_err(|e| Error::io(path, e))?;
        if complete < text.len() {
            file.set_len(complete as u64).map_err(|e| Error::io(path, e))?;
        }
        let done = read_lines(&text[..complete]).filter_map(|v| v["run"].as_str().map(str::to_string)).collect();
        Ok(Results { path: path.to_path_buf(), file: Mutex::new(file), done })
    }

    /// Appends one record as one line.
    pub fn append(&self, record: &Value) -> Result<()> {
        let mut line = record.to_string();
        line.push('\n');
        let mut f = self.file.lock().unwrap_or_else(|p| p.into_inner());
        f.write_all(line.as_bytes()).and_then(|_| f.sync_data()).map_err(|e| Error::io(&self.path, e))
    }
}

/// The records of complete lines of a results file (lines that do not parse are skipped).
pub fn read_lines(text: &[u8]) -> impl Iterator<Item = Value> + '_ {
    text.split(|&b| b == b'\n').filter(|l| !l.is_empty()).filter_map(|l| serde_json::from_slice(l).ok())
}

/// Every record of every `results*.jsonl` in a batch folder (shards write their own files), one per
/// run name, sorted by name.
pub fn read_all(dir: &Path) -> Result<Vec<Value>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| Error::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("results") && n.ends_with(".jsonl")))
        .collect();
    files.sort();
    let mut records = std::collections::BTreeMap::new();
    for f in files {
        let text = std::fs::read(&f).map_err(|e| Error::io(&f, e))?;
        for r in read_lines(&text) {
            if let Some(name) = r["run"].as_str() {
                records.entry(name.to_string()).or_insert(r);
            }
        }
    }
    Ok(records.into_values().collect())
}
