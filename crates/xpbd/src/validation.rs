//! The validation cache: the (device, driver, kernel build) triples on which `xpbd doctor`'s self-test passed,
//! in `validation.json` of the user's cache directory. The dispatcher's `auto` picks the CUDA backend only on a
//! device whose triple is there ([`check`]): a pass vouches for that device, under that driver, running that
//! build of the kernels, and for nothing else.

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use xpbd_core::{Error, Result};
use xpbd_cuda::DeviceInfo;

pub use xpbd_cuda::cache_dir::CACHE_DIR_VAR;

/// What one pass of the self-test vouches for: one device, under one driver, running one build of the kernels.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValidationKey {
    /// The device's name, e.g. "NVIDIA H200".
    pub device: String,
    /// The device's UUID ("GPU-…"), or "cuda:N" where the driver gives none.
    pub device_id: String,
    /// The driver's release and the CUDA version it supports, e.g. "580.159.04 (CUDA 13.0)"; "CUDA 13.0" where
    /// the release cannot be read.
    pub driver: String,
    /// The hash of the kernels built into this binary ([`kernel_hash`]).
    pub kernels: String,
}

impl ValidationKey {
    /// The key of device `info` under the running driver with this binary's kernels; `None` without kernels.
    pub fn of(info: &DeviceInfo) -> Option<ValidationKey> {
        let (major, minor) = info.driver_version;
        let driver = match xpbd_cuda::driver_release() {
            Some(release) => format!("{release} (CUDA {major}.{minor})"),
            None => format!("CUDA {major}.{minor}"),
        };
        Some(ValidationKey {
            device: info.name.clone(),
            device_id: info.uuid.clone().unwrap_or_else(|| format!("cuda:{}", info.ordinal)),
            driver,
            kernels: kernel_hash()?.to_owned(),
        })
    }

    /// "NVIDIA H200 (GPU-…) with driver 580.159.04 (CUDA 13.0) and kernels 0123456789abcdef", for messages.
    pub fn describe(&self) -> String {
        format!("{} ({}) with driver {} and kernels {}", self.device, self.device_id, self.driver, self.kernels)
    }
}

/// The hash of the kernels built into this binary: 64-bit FNV-1a ([`crate::fnv`]) of every PTX module's name
/// and text, as 16 hex digits; `None` without kernels. Any change to a kernel, to nvcc or to its flags changes
/// it.
pub fn kernel_hash() -> Option<&'static str> {
    static HASH: OnceLock<Option<String>> = OnceLock::new();
    HASH.get_or_init(|| {
        let modules = xpbd_cuda::ptx_modules();
        (!modules.is_empty()).then(|| {
            let text: Vec<u8> = modules.iter().flat_map(|(name, ptx)| [name.as_bytes(), b"\0", ptx.as_bytes(), b"\0"]).flatten().copied().collect();
            format!("{:016x}", crate::fnv::fnv1a(&text))
        })
    })
    .as_deref()
}

/// One recorded pass of the self-test.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pass {
    #[serde(flatten)]
    pub key: ValidationKey,
    /// When it passed, in seconds since the Unix epoch.
    pub unix_time: u64,
    /// How many checks ran, and how long they took.
    pub checks: usize,
    pub seconds: f64,
    /// The `xpbd` version that ran them.
    pub xpbd_version: String,
}

/// The passes recorded in a cache file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ValidationCache {
    pub passes: Vec<Pass>,
}

impl ValidationCache {
    /// `validation.json` in `$XPBD_CACHE_DIR`, `$XDG_CACHE_HOME/xpbd` or `$HOME/.cache/xpbd` (the first that is
    /// set and not empty); `None` when none is.
    pub fn default_path() -> Option<PathBuf> {
        xpbd_cuda::cache_dir::cache_dir().map(|dir| dir.join("validation.json"))
    }

    /// The cache in `path`, with a warning where it could not be read: a missing file is an empty cache without
    /// a warning, an unreadable or corrupt one an empty cache with one (the next pass rewrites it).
    pub fn load(path: &Path) -> (ValidationCache, Option<String>) {
        match std::fs::read_to_string(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (ValidationCache::default(), None),
            Err(e) => (ValidationCache::default(), Some(format!("the validation cache {} could not be read ({e}); it counts as empty", path.display()))),
            Ok(text) => match serde_json::from_str(&text) {
                Ok(cache) => (cache, None),
                Err(e) => (ValidationCache::default(), Some(format!("the validation cache {} is not valid ({e}); it counts as empty", path.display()))),
            },
        }
    }

    /// Writes the cache to `path` (through a temporary file beside it, so a reader never sees half of it),
    /// creating its directory.
    pub fn save(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
        xpbd_cuda::cache_dir::write_cache_file(path, (text + "\n").as_bytes()).map_err(|source| Error::Io { path: path.to_path_buf(), source })
    }

    /// Whether a pass is recorded for exactly `key`.
    pub fn validates(&self, key: &ValidationKey) -> bool {
        self.passes.iter().any(|p| p.key == *key)
    }

    /// Records `pass`, replacing an earlier pass of the same key.
    pub fn record(&mut self, pass: Pass) {
        self.passes.retain(|p| p.key != pass.key);
        self.passes.push(pass);
    }
}

/// Whether the cache at [`ValidationCache::default_path`] validates device `info` for this binary's kernels;
/// `Err` is the reason in words, for the dispatcher's `device_reason`.
pub fn check(info: &DeviceInfo) -> std::result::Result<(), String> {
    let key = ValidationKey::of(info).ok_or_else(|| "this build has no kernels".to_owned())?;
    let not_validated = |extra: String| {
        Err(format!("the CUDA backend has not been validated on {} with driver {} and this build's kernels{extra}; run `xpbd doctor`", key.device, key.driver))
    };
    let Some(path) = ValidationCache::default_path() else {
        return not_validated(format!(" (no cache directory: set {CACHE_DIR_VAR}, XDG_CACHE_HOME or HOME)"));
    };
    match ValidationCache::load(&path) {
        (cache, _) if cache.validates(&key) => Ok(()),
        (_, Some(warning)) => not_validated(format!(" ({warning})")),
        (_, None) => not_validated(String::new()),
    }
}

/// The ordinals of every CUDA device the cache validates ([`check`]); empty without a driver.
pub fn validated_devices() -> Vec<usize> {
    xpbd_cuda::devices().unwrap_or_default().iter().filter(|d| check(d).is_ok()).map(|d| d.ordinal).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(device_id: &str, driver: &str, kernels: &str) -> ValidationKey {
        ValidationKey { device: "NVIDIA H200".into(), device_id: device_id.into(), driver: driver.into(), kernels: kernels.into() }
    }

    fn pass(key: ValidationKey) -> Pass {
        Pass { key, unix_time: 1_795_000_000, checks: 20, seconds: 12.5, xpbd_version: "0.1.0".into() }
    }

    const GPU_A: &str = "GPU-12345678-9abc-def0-0123-456789abcdef";
    const GPU_B: &str = "GPU-fedcba98-7654-3210-fedc-ba9876543210";
    const DRIVER: &str = "580.159.04 (CUDA 13.0)";

    #[test]
    fn a_pass_validates_only_its_device_driver_and_kernel_build() {
        let mut cache = ValidationCache::default();
        cache.record(pass(key(GPU_A, DRIVER, "0123456789abcdef")));
        assert!(cache.validates(&key(GPU_A, DRIVER, "0123456789abcdef")));
        assert!(!cache.validates(&key(GPU_B, DRIVER, "0123456789abcdef")), "another device of the same name");
        assert!(!cache.validates(&key(GPU_A, "580.159.05 (CUDA 13.0)", "0123456789abcdef")), "another driver");
        assert!(!cache.validates(&key(GPU_A, DRIVER, "0123456789abcdee")), "another kernel build");
        let mut other_name = key(GPU_A, DRIVER, "0123456789abcdef");
        other_name.device = "NVIDIA H100 80GB HBM3".into();
        assert!(!cache.validates(&other_name));
    }

    #[test]
    fn a_new_pass_replaces_the_old_one_of_its_key_and_survives_a_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested/validation.json");
        let mut cache = ValidationCache::default();
        cache.record(pass(key(GPU_A, DRIVER, "1")));
        cache.record(pass(key(GPU_B, DRIVER, "1")));
        cache.record(Pass { seconds: 9.0, ..pass(key(GPU_A, DRIVER, "1")) });
        assert_eq!(cache.passes.len(), 2);
        cache.save(&path).unwrap();
        let (loaded, warning) = ValidationCache::load(&path);
        assert_eq!((loaded, warning), (cache, None));
    }

    #[test]
    fn a_missing_cache_is_empty_and_a_corrupt_one_is_empty_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("validation.json");
        assert_eq!(ValidationCache::load(&path), (ValidationCache::default(), None));
        for text in ["{\"passes\": [{\"device\": 3}]}", "not json", ""] {
            std::fs::write(&path, text).unwrap();
            let (cache, warning) = ValidationCache::load(&path);
            assert!(cache.passes.is_empty());
            let warning = warning.unwrap();
            assert!(warning.contains("validation.json") && warning.contains("counts as empty"), "{warning}");
        }
    }

    #[test]
    fn the_kernel_hash_is_stable_hex_or_absent_without_kernels() {
        match kernel_hash() {
            Some(hash) => assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()) && kernel_hash() == Some(hash)),
            None => assert!(!xpbd_cuda::built_with_kernels()),
        }
    }
}
