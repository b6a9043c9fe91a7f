//! The user's cache directory for what the CUDA path keeps between runs (PTX compiled by NVRTC, validation
//! records): `$XPBD_CACHE_DIR`, else `$XDG_CACHE_HOME/xpbd`, else `$HOME/.cache/xpbd`.

use std::path::{Path, PathBuf};

/// The variable that overrides the cache directory (tests point it at a temporary folder).
pub const CACHE_DIR_VAR: &str = "XPBD_CACHE_DIR";

/// The cache directory, or `None` where no variable names one (no `HOME`). It may not exist yet.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var(CACHE_DIR_VAR).or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("xpbd"))).or_else(|| var("HOME").map(|d| d.join(".cache").join("xpbd")))
}

/// Writes a file of the cache, creating its folder, through a temporary name of this process and a rename: a
/// reader never sees half of it, and processes writing the same file at once (runs started together) do not
/// write into one temporary file.
pub fn write_cache_file(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut partial = path.as_os_str().to_owned();
    partial.push(format!(".{}", std::process::id()));
    let partial = PathBuf::from(partial);
    std::fs::write(&partial, bytes).and_then(|_| std::fs::rename(&partial, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&partial);
    })
}
