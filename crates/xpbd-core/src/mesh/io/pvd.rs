//! ParaView collection files (`.pvd`): one `DataSet` per output frame, with its time.

use super::write_atomic;
use crate::{Error, Result};
use std::fmt::Write as _;
use std::path::Path;

/// Writes a `.pvd` collection (through a temporary file and a rename) listing `(time, file)` pairs;
/// file names are relative to the `.pvd` file's folder.
pub fn write_pvd(path: &Path, entries: &[(f64, String)]) -> Result<()> {
    let mut s = String::with_capacity(128 + 80 * entries.len());
    s.push_str("<?xml version=\"1.0\"?>\n");
    s.push_str("<VTKFile type=\"Collection\" version=\"0.1\" byte_order=\"LittleEndian\">\n  <Collection>\n");
    for (time, file) in entries {
        if !time.is_finite() {
            return Err(Error::invalid(format!("{}: time {time} of `{file}` is not finite", path.display())));
        }
        let file = quick_xml::escape::escape(file.as_str());
        let _ = writeln!(s, "    <DataSet timestep=\"{time}\" group=\"\" part=\"0\" file=\"{file}\"/>");
    }
    s.push_str("  </Collection>\n</VTKFile>\n");
    write_atomic(path, s.as_bytes())
}
