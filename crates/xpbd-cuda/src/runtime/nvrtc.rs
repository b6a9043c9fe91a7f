//! The NVRTC fallback: when the driver rejects the embedded PTX (a driver older than the toolkit that built it:
//! `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` and kin), the kernels' embedded sources are compiled at run time by
//! NVRTC from the user's CUDA installation, for the device's own architecture, and the PTX is kept in the
//! user's cache directory (`<cache>/nvrtc/<module>-compute_<XY>-<hash>.ptx`, the hash over the source, the
//! architecture and NVRTC's version), so only the first run on a machine pays for the compilation.
//!
//! libnvrtc is looked for by the names cudarc tries (the loader's path: `LD_LIBRARY_PATH`, the system's
//! libraries), then in `$CUDA_HOME`, `$CUDA_PATH` and `/usr/local/cuda` (`lib64/`, `lib/`), where a toolkit
//! installed the usual way keeps it without putting it on the loader's path.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use cudarc::driver::{sys::CUresult, DriverError};
use cudarc::nvrtc::{compile_ptx_with_opts, CompileError, CompileOptions};

use crate::error::{CudaError, Result};
use crate::runtime::cache_dir::cache_dir;
use crate::runtime::ptx::kernel_sources;

/// The variable that makes every module come from NVRTC even where the embedded PTX loads (to test the
/// fallback on a driver that does not need it): `XPBD_NVRTC=1`.
pub const FORCE_VAR: &str = "XPBD_NVRTC";

/// The architecture the embedded PTX targets (build.rs), used where NVRTC does not know the device's.
const BASELINE_ARCH: (u32, u32) = (7, 5);

/// Whether `XPBD_NVRTC` asks for NVRTC on every module.
pub fn forced() -> bool {
    std::env::var_os(FORCE_VAR).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether a failed module load means the driver cannot use this PTX, which NVRTC may fix.
pub fn is_ptx_rejection(e: &DriverError) -> bool {
    matches!(
        e.0,
        CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
            | CUresult::CUDA_ERROR_INVALID_PTX
            | CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU
            | CUresult::CUDA_ERROR_JIT_COMPILER_NOT_FOUND
    )
}

/// The NVRTC this process compiles with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nvrtc {
    /// NVRTC's CUDA version, (major, minor).
    pub version: (i32, i32),
    /// Where it was found: "the loader's path" or the file loaded.
    pub origin: String,
}

/// NVRTC, loaded once per process, or why it is unavailable.
pub fn nvrtc() -> std::result::Result<&'static Nvrtc, String> {
    static NVRTC: OnceLock<std::result::Result<Nvrtc, String>> = OnceLock::new();
    NVRTC.get_or_init(load).as_ref().map_err(Clone::clone)
}

fn load() -> std::result::Result<Nvrtc, String> {
    // cudarc panics when it cannot open the library: look first, by its names, then from a toolkit's folders.
    let mut origin = "the loader's path".to_owned();
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        let file = toolkit_library().ok_or_else(|| {
            "libnvrtc was not found (looked on the loader's path and in $CUDA_HOME, $CUDA_PATH and /usr/local/cuda); \
             install a CUDA toolkit or add its lib64 folder to LD_LIBRARY_PATH"
                .to_owned()
        })?;
        // Loaded and kept for the process: cudarc's later open by soname finds this copy.
        let library = unsafe { libloading::Library::new(&file) }.map_err(|e| format!("could not load {}: {e}", file.display()))?;
        std::mem::forget(library);
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            return Err(format!("{} loaded, but not under a name cudarc looks for", file.display()));
        }
        origin = file.display().to_string();
    }
    let (mut major, mut minor) = (0, 0);
    let status = catch_unwind(AssertUnwindSafe(|| unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }))
        .map_err(|_| "libnvrtc could not be used (a symbol is missing)".to_owned())?;
    if status != cudarc::nvrtc::sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(format!("nvrtcVersion failed ({status:?})"));
    }
    Ok(Nvrtc { version: (major, minor), origin })
}

/// The first `libnvrtc.so*` (not the builtins) in a CUDA toolkit's library folders.
fn toolkit_library() -> Option<PathBuf> {
    let roots = ["CUDA_HOME", "CUDA_PATH"].into_iter().filter_map(|v| std::env::var_os(v).map(PathBuf::from)).chain([PathBuf::from("/usr/local/cuda")]);
    roots.flat_map(|root| [root.join("lib64"), root.join("lib")]).find_map(|dir| {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .ok()?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("libnvrtc.so")))
            .collect();
        files.sort();
        files.into_iter().next()
    })
}

/// The source of `kernels/<file>` with every `#include "header"` of the kernel folder replaced by the header's
/// text, each header once (they are all `#pragma once`): NVRTC then needs no include path.
pub fn inlined_source(file: &str) -> Result<String> {
    let mut seen = HashSet::new();
    let mut out = String::new();
    inline_into(file, &mut seen, &mut out)?;
    Ok(out)
}

fn inline_into(file: &str, seen: &mut HashSet<String>, out: &mut String) -> Result<()> {
    let (_, text) =
        kernel_sources().iter().find(|(name, _)| *name == file).ok_or_else(|| CudaError::NoKernels(format!("kernels/{file} is not embedded in this build")))?;
    seen.insert(file.to_owned());
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed == "#pragma once" {
            continue;
        }
        match trimmed.strip_prefix("#include \"").and_then(|rest| rest.strip_suffix('"')) {
            Some(header) if seen.contains(header) => {}
            Some(header) => inline_into(header, seen, out)?,
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    Ok(())
}

/// The PTX of module `name` (`kernels/<name>.cu`) for compute capability `arch`, from the cache or compiled by
/// NVRTC (and then cached). Where NVRTC does not know `arch` (older than the device), for the embedded PTX's
/// own architecture, compute_75.
pub fn compile_module(name: &str, arch: (u32, u32)) -> Result<String> {
    let nvrtc = nvrtc().map_err(|why| CudaError::NoKernels(format!("the NVRTC fallback is unavailable: {why}")))?;
    let source = inlined_source(&format!("{name}.cu"))?;
    match compile_cached(name, &source, arch, nvrtc) {
        Err(CompileError::CompileError { nvrtc: e, .. }) if arch != BASELINE_ARCH && e.0 == cudarc::nvrtc::sys::nvrtcResult::NVRTC_ERROR_INVALID_OPTION => {
            compile_cached(name, &source, BASELINE_ARCH, nvrtc)
        }
        other => other,
    }
    .map_err(|e| CudaError::NoKernels(format!("NVRTC {}.{} could not compile kernels/{name}.cu: {}", nvrtc.version.0, nvrtc.version.1, describe(&e))))
}

fn compile_cached(name: &str, source: &str, arch: (u32, u32), nvrtc: &Nvrtc) -> std::result::Result<String, CompileError> {
    let arch_name = format!("compute_{}{}", arch.0, arch.1);
    let key = xpbd_core::fnv::fnv1a(format!("{source}\n{arch_name}\nnvrtc {}.{}", nvrtc.version.0, nvrtc.version.1).as_bytes());
    let file = cache_dir().map(|dir| dir.join("nvrtc").join(format!("{name}-{arch_name}-{key:016x}.ptx")));
    if let Some(ptx) = file.as_deref().and_then(|f| std::fs::read_to_string(f).ok()) {
        return Ok(ptx);
    }
    let options = CompileOptions {
        options: vec![format!("--gpu-architecture={arch_name}"), "-std=c++17".into(), "-default-device".into()],
        name: Some(format!("{name}.cu")),
        ..Default::default()
    };
    let ptx = compile_ptx_with_opts(source, options)?.to_src();
    if let Some(file) = file {
        store(&file, &ptx);
    }
    Ok(ptx)
}

/// Writes the cache file (through a temporary name, so a reader never sees half of it); a cache that cannot be
/// written only costs the next run a compilation.
fn store(file: &Path, ptx: &str) {
    let Some(dir) = file.parent() else { return };
    let partial = file.with_extension(format!("ptx.{}", std::process::id()));
    if std::fs::create_dir_all(dir).and_then(|_| std::fs::write(&partial, ptx)).and_then(|_| std::fs::rename(&partial, file)).is_err() {
        let _ = std::fs::remove_file(&partial);
    }
}

fn describe(e: &CompileError) -> String {
    match e {
        CompileError::CompileError { nvrtc, log, .. } => format!("{nvrtc:?}: {}", log.to_string_lossy().lines().take(5).collect::<Vec<_>>().join(" | ")),
        other => format!("{other:?}"),
    }
}
