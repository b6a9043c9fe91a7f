//! The NVRTC fallback: when the driver rejects the embedded PTX (a driver older than the toolkit that built it:
//! `CUDA_ERROR_UNSUPPORTED_PTX_VERSION` and kin), the kernels' embedded sources are compiled at run time by
//! NVRTC from the user's CUDA installation, for the device's own architecture, and the PTX is kept in the
//! user's cache directory (`<cache>/nvrtc/<module>-compute_<XY>-<hash>.ptx`, the hash over the source, the
//! architecture and NVRTC's version), so only the first run on a machine pays for the compilation.
//!
//! libnvrtc (any version from 11 on) is looked for on the loader's path (`LD_LIBRARY_PATH`, the system's
//! libraries), then in `$CUDA_HOME`, `$CUDA_PATH` and `/usr/local/cuda` (`lib64/`, `lib/`), where a toolkit
//! installed the usual way keeps it without putting it on the loader's path.

use std::collections::HashSet;
use std::ffi::{c_char, CStr, CString};
use std::path::PathBuf;
use std::sync::OnceLock;

use cudarc::driver::{sys::CUresult, DriverError};

use crate::error::{CudaError, Result};
use crate::runtime::cache_dir::{cache_dir, write_cache_file};
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

/// The NVRTC this process compiles with: the library and the entry points used here, called directly (not
/// through cudarc's loader, whose list of names stops at the version of its bindings and would miss a newer
/// toolkit's `libnvrtc.so.13`).
pub struct Nvrtc {
    /// NVRTC's CUDA version, (major, minor).
    pub version: (i32, i32),
    /// Where it was found: "the loader's path (libnvrtc.so.12)" or the file loaded.
    pub origin: String,
    api: Api,
}

type Program = *mut std::ffi::c_void;

/// The C entry points of libnvrtc this module calls (nvrtc.h), kept with their library.
struct Api {
    _library: libloading::Library,
    version: unsafe extern "C" fn(*mut i32, *mut i32) -> i32,
    create: unsafe extern "C" fn(*mut Program, *const c_char, *const c_char, i32, *const *const c_char, *const *const c_char) -> i32,
    compile: unsafe extern "C" fn(Program, i32, *const *const c_char) -> i32,
    ptx_size: unsafe extern "C" fn(Program, *mut usize) -> i32,
    ptx: unsafe extern "C" fn(Program, *mut c_char) -> i32,
    log_size: unsafe extern "C" fn(Program, *mut usize) -> i32,
    log: unsafe extern "C" fn(Program, *mut c_char) -> i32,
    destroy: unsafe extern "C" fn(*mut Program) -> i32,
}

impl Api {
    /// The entry points of the library at `name` (a file, or a name the loader resolves).
    fn open(name: &std::ffi::OsStr) -> std::result::Result<Api, String> {
        // SAFETY: loading runs the library's initialisers (NVIDIA's NVRTC); each symbol is the nvrtc.h function
        // of that name, with the C signature of its field.
        unsafe {
            let library = libloading::Library::new(name).map_err(|e| e.to_string())?;
            macro_rules! symbol {
                ($name:literal) => {
                    *library.get($name).map_err(|e| format!("{}: {e}", String::from_utf8_lossy($name)))?
                };
            }
            Ok(Api {
                version: symbol!(b"nvrtcVersion"),
                create: symbol!(b"nvrtcCreateProgram"),
                compile: symbol!(b"nvrtcCompileProgram"),
                ptx_size: symbol!(b"nvrtcGetPTXSize"),
                ptx: symbol!(b"nvrtcGetPTX"),
                log_size: symbol!(b"nvrtcGetProgramLogSize"),
                log: symbol!(b"nvrtcGetProgramLog"),
                destroy: symbol!(b"nvrtcDestroyProgram"),
                _library: library,
            })
        }
    }
}

/// Why NVRTC did not compile: the failing call's status (0 where no call was made) and the message.
struct Failure {
    status: i32,
    message: String,
}

impl Nvrtc {
    /// Compiles `source` (named `name` in messages) with `options` into PTX; `Err` is NVRTC's status and log.
    fn compile(&self, name: &str, source: &str, options: &[String]) -> std::result::Result<String, Failure> {
        let c = |s: &str| CString::new(s).map_err(|_| Failure { status: 0, message: format!("{name}: a NUL byte in the source or options") });
        let (source, name_c) = (c(source)?, c(name)?);
        let options = options.iter().map(|o| c(o)).collect::<std::result::Result<Vec<_>, _>>()?;
        let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let api = &self.api;
        let mut program: Program = std::ptr::null_mut();
        // SAFETY: the program is created, used and destroyed here; every buffer is sized by NVRTC's own answer.
        unsafe {
            check((api.create)(&mut program, source.as_ptr(), name_c.as_ptr(), 0, std::ptr::null(), std::ptr::null()), "nvrtcCreateProgram")?;
            let compiled = check((api.compile)(program, pointers.len() as i32, pointers.as_ptr()), "nvrtcCompileProgram");
            let result = match compiled {
                Err(failure) => {
                    let mut size = 0;
                    let log = if (api.log_size)(program, &mut size) == 0 && size > 1 {
                        let mut buffer = vec![0 as c_char; size];
                        (api.log)(program, buffer.as_mut_ptr());
                        CStr::from_ptr(buffer.as_ptr()).to_string_lossy().lines().take(5).collect::<Vec<_>>().join(" | ")
                    } else {
                        String::new()
                    };
                    Err(Failure { message: format!("{}: {log}", failure.message), ..failure })
                }
                Ok(()) => {
                    let mut size = 0;
                    check((api.ptx_size)(program, &mut size), "nvrtcGetPTXSize").and_then(|_| {
                        let mut buffer = vec![0 as c_char; size.max(1)];
                        check((api.ptx)(program, buffer.as_mut_ptr()), "nvrtcGetPTX").map(|_| CStr::from_ptr(buffer.as_ptr()).to_string_lossy().into_owned())
                    })
                }
            };
            (api.destroy)(&mut program);
            result
        }
    }
}

/// `Ok` for NVRTC_SUCCESS, else the call and its status.
fn check(status: i32, call: &str) -> std::result::Result<(), Failure> {
    if status == 0 {
        Ok(())
    } else {
        Err(Failure { status, message: format!("{call} returned NVRTC status {status}{}", if status == INVALID_OPTION { " (invalid option)" } else { "" }) })
    }
}

/// NVRTC_ERROR_INVALID_OPTION: an option (here, an architecture) this NVRTC does not know.
const INVALID_OPTION: i32 = 5;

/// NVRTC, loaded once per process, or why it is unavailable.
pub fn nvrtc() -> std::result::Result<&'static Nvrtc, String> {
    static NVRTC: OnceLock<std::result::Result<Nvrtc, String>> = OnceLock::new();
    NVRTC.get_or_init(load).as_ref().map_err(Clone::clone)
}

/// The names the loader is asked for first, newest toolkit first.
const NAMES: [&str; 4] = ["libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11"];

fn load() -> std::result::Result<Nvrtc, String> {
    let on_path = NAMES.iter().find_map(|n| Api::open(n.as_ref()).ok().map(|api| (api, format!("the loader's path ({n})"))));
    let (api, origin) = match on_path {
        Some(found) => found,
        None => {
            let file = toolkit_library().ok_or_else(|| {
                "libnvrtc was not found (looked on the loader's path and in $CUDA_HOME, $CUDA_PATH and /usr/local/cuda); \
                 install a CUDA toolkit or add its lib64 folder to LD_LIBRARY_PATH"
                    .to_owned()
            })?;
            let api = Api::open(file.as_os_str()).map_err(|e| format!("could not load {}: {e}", file.display()))?;
            (api, file.display().to_string())
        }
    };
    let (mut major, mut minor) = (0, 0);
    // SAFETY: nvrtcVersion writes two ints.
    check(unsafe { (api.version)(&mut major, &mut minor) }, "nvrtcVersion").map_err(|f| f.message)?;
    Ok(Nvrtc { version: (major, minor), origin, api })
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
        Err(f) if arch != BASELINE_ARCH && f.status == INVALID_OPTION => compile_cached(name, &source, BASELINE_ARCH, nvrtc),
        other => other,
    }
    .map_err(|f| CudaError::NoKernels(format!("NVRTC {}.{} could not compile kernels/{name}.cu: {}", nvrtc.version.0, nvrtc.version.1, f.message)))
}

fn compile_cached(name: &str, source: &str, arch: (u32, u32), nvrtc: &Nvrtc) -> std::result::Result<String, Failure> {
    let arch_name = format!("compute_{}{}", arch.0, arch.1);
    let key = xpbd_core::fnv::fnv1a(format!("{source}\n{arch_name}\nnvrtc {}.{}", nvrtc.version.0, nvrtc.version.1).as_bytes());
    let file = cache_dir().map(|dir| dir.join("nvrtc").join(format!("{name}-{arch_name}-{key:016x}.ptx")));
    if let Some(ptx) = file.as_deref().and_then(|f| std::fs::read_to_string(f).ok()) {
        return Ok(ptx);
    }
    let options = [format!("--gpu-architecture={arch_name}"), "-std=c++17".into(), "-default-device".into()];
    let ptx = nvrtc.compile(&format!("{name}.cu"), source, &options)?;
    // A cache that cannot be written only costs the next run a compilation.
    if let Some(file) = file {
        let _ = write_cache_file(&file, ptx.as_bytes());
    }
    Ok(ptx)
}
