//! The user's cache directory for what the CUDA path keeps between runs (PTX compiled by NVRTC, validation
//! records): `$XPBD_CACHE_DIR`, else `$XDG_CACHE_HOME/xpbd`, else `$HOME/.cache/xpbd`.

use std::path::PathBuf;

/// The variable that overrides the cache directory (tests point it at a temporary folder).
pub const CACHE_DIR_VAR: &str = "XPBD_CACHE_DIR";

/// The cache directory, or `None` where no variable names one (no `HOME`). It may not exist yet.
pub fn cache_dir() -> Option<PathBuf> {
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    var(CACHE_DIR_VAR).or_else(|| var("XDG_CACHE_HOME").map(|d| d.join("xpbd"))).or_else(|| var("HOME").map(|d| d.join(".cache").join("xpbd")))
}
