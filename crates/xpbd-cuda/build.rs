//! Compiles every `kernels/*.cu` of the workspace to PTX with nvcc and generates `$OUT_DIR/kernels.rs`, which the
//! crate includes: the PTX text of each module (`include_str!`), the nvcc that made it, or the reason there is none,
//! and the kernel sources themselves (for the NVRTC fallback, `src/runtime/nvrtc.rs`).
//!
//! nvcc is looked for in `$NVCC`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, `PATH`, `/usr/local/cuda/bin`, then
//! `<workspace>/.toolchain/cuda/bin` (installed by `scripts/install-cuda-toolchain.sh`: by default NVRTC 12.0 behind
//! an `nvcc -ptx` look-alike, scripts/nvrtc-nvcc.py, so PTX ISA 8.0 that drivers >= 525.60.13 load). `XPBD_NO_NVCC=1` forces a build without kernels.
//! Not found: a cargo warning, and the crate builds without PTX. Found but failing on a kernel: the build fails with
//! nvcc's message. Extra nvcc flags can be given in `XPBD_NVCC_FLAGS` (split on whitespace).
//! See docs/cuda.md.

use std::env;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Mutex;

/// The nvcc flags every kernel is compiled with (docs/gpu.md). No `--use_fast_math`: a kernel may opt in
/// only where a test shows it harmless.
const NVCC_FLAGS: &[&str] = &["-ptx", "-arch=compute_75", "-O3", "-std=c++17"];

/// Where a CUDA toolkit installs nvcc by default on Linux; searched after PATH.
const USR_LOCAL_CUDA_BIN: &str = "/usr/local/cuda/bin";

/// Environment variables that change the outcome of this script.
const TRACKED_ENV: &[&str] = &[
    "NVCC",
    "CUDA_HOME",
    "CUDA_PATH",
    "XPBD_NO_NVCC",
    "XPBD_NVCC_FLAGS",
    // Read by nvcc itself.
    "NVCC_CCBIN",
    "NVCC_PREPEND_FLAGS",
    "NVCC_APPEND_FLAGS",
];

struct Nvcc {
    path: PathBuf,
    /// Where it was found, in words (for messages).
    origin: String,
}

struct Module {
    name: String,
    source: PathBuf,
    ptx: PathBuf,
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(xpbd_has_ptx)");
    println!("cargo::rerun-if-changed=build.rs");
    for var in TRACKED_ENV {
        println!("cargo::rerun-if-env-changed={var}");
    }

    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR is set by cargo"));
    let workspace = manifest_dir.join("..").join("..");
    let workspace = workspace.canonicalize().unwrap_or(workspace);
    let kernels_dir = workspace.join("kernels");
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR is set by cargo"));

    println!("cargo::rerun-if-changed={}", kernels_dir.display());
    let (sources, headers) = list_kernel_files(&kernels_dir);
    for file in sources.iter().chain(&headers) {
        println!("cargo::rerun-if-changed={}", file.display());
    }

    if env::var_os("XPBD_NO_NVCC").is_some_and(|v| !v.is_empty() && v != "0") {
        println!("cargo::warning=XPBD_NO_NVCC is set: building xpbd-cuda without kernels (the CUDA backend is off)");
        write_generated(&out_dir, &[], &sources, &headers, None, "built without kernels: XPBD_NO_NVCC was set at build time");
        return;
    }

    let Some(nvcc) = find_nvcc(&workspace) else {
        // Rebuild when the toolchain appears (the install script also touches kernels/ for the case where
        // .toolchain did not exist yet at this build).
        let toolchain = workspace.join(".toolchain");
        if toolchain.exists() {
            println!("cargo::rerun-if-changed={}", toolchain.display());
        }
        println!(
            "cargo::warning=nvcc not found ($NVCC, $CUDA_HOME/bin, $CUDA_PATH/bin, PATH, /usr/local/cuda/bin, \
             .toolchain/cuda/bin): \
             building xpbd-cuda without kernels, so the CUDA backend is off. \
             Run scripts/install-cuda-toolchain.sh to get one."
        );
        write_generated(&out_dir, &[], &sources, &headers, None, "built without kernels: nvcc was not found at build time");
        return;
    };
    println!("cargo::rerun-if-changed={}", nvcc.path.display());

    let release = nvcc_release(&nvcc);
    if sources.is_empty() {
        println!("cargo::warning=no kernels/*.cu found in {}: building without kernels", kernels_dir.display());
        write_generated(&out_dir, &[], &sources, &headers, Some((&nvcc, &release)), "built without kernels: there are no kernels/*.cu");
        return;
    }

    let modules: Vec<Module> = sources
        .iter()
        .map(|source| {
            let name = source.file_stem().expect("a .cu file has a stem").to_string_lossy().into_owned();
            let ptx = out_dir.join(format!("{name}.ptx"));
            Module { name, source: source.clone(), ptx }
        })
        .collect();
    compile_all(&nvcc, &kernels_dir, &out_dir, &modules);
    println!("cargo::rustc-cfg=xpbd_has_ptx");
    write_generated(&out_dir, &modules, &sources, &headers, Some((&nvcc, &release)), "");
}

/// The `*.cu` and `*.cuh` files directly in `dir`, each sorted by name.
fn list_kernel_files(dir: &Path) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut sources = Vec::new();
    let mut headers = Vec::new();
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_file() {
                continue;
            }
            match path.extension().and_then(|e| e.to_str()) {
                Some("cu") => sources.push(path),
                Some("cuh") => headers.push(path),
                _ => {}
            }
        }
    }
    sources.sort();
    headers.sort();
    (sources, headers)
}

fn is_executable(path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }
    #[cfg(not(unix))]
    {
        path.is_file()
    }
}

fn nvcc_file_name() -> &'static str {
    if cfg!(windows) {
        "nvcc.exe"
    } else {
        "nvcc"
    }
}

/// Looks for nvcc in `$NVCC`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, `PATH`, `/usr/local/cuda/bin` (the usual install
/// location, often not on PATH), then `<workspace>/.toolchain/cuda/bin`.
fn find_nvcc(workspace: &Path) -> Option<Nvcc> {
    let search_path = |name: &OsString| -> Option<PathBuf> { env::split_paths(&env::var_os("PATH")?).map(|dir| dir.join(name)).find(|p| is_executable(p)) };

    if let Some(value) = env::var_os("NVCC").filter(|v| !v.is_empty()) {
        let path = PathBuf::from(&value);
        let found = if path.components().count() == 1 {
            println!("cargo::rerun-if-env-changed=PATH");
            search_path(&value)
        } else {
            Some(path.clone())
        };
        match found.filter(|p| is_executable(p)) {
            Some(path) => return Some(Nvcc { path, origin: "$NVCC".into() }),
            None => println!("cargo::warning=NVCC={} is not an executable file; looking for nvcc elsewhere", path.display()),
        }
    }
    for var in ["CUDA_HOME", "CUDA_PATH"] {
        if let Some(root) = env::var_os(var).filter(|v| !v.is_empty()) {
            let path = PathBuf::from(root).join("bin").join(nvcc_file_name());
            if is_executable(&path) {
                return Some(Nvcc { path, origin: format!("${var}/bin") });
            }
        }
    }
    // From here on the answer depends on PATH.
    println!("cargo::rerun-if-env-changed=PATH");
    if let Some(path) = search_path(&OsString::from(nvcc_file_name())) {
        return Some(Nvcc { path, origin: "PATH".into() });
    }
    let usr_local = Path::new(USR_LOCAL_CUDA_BIN);
    if usr_local.is_dir() {
        println!("cargo::rerun-if-changed={}", usr_local.display());
    }
    let path = usr_local.join(nvcc_file_name());
    if is_executable(&path) {
        return Some(Nvcc { path, origin: USR_LOCAL_CUDA_BIN.into() });
    }
    let path = workspace.join(".toolchain").join("cuda").join("bin").join(nvcc_file_name());
    if is_executable(&path) {
        return Some(Nvcc { path, origin: ".toolchain/cuda/bin".into() });
    }
    None
}

fn describe_failure(what: &str, output: &Output) -> String {
    format!("{what} failed ({}):\n{}{}", output.status, String::from_utf8_lossy(&output.stdout), String::from_utf8_lossy(&output.stderr))
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(1);
}

/// The "X.Y" of nvcc's "release X.Y" line. An nvcc that cannot tell its version fails the build.
fn nvcc_release(nvcc: &Nvcc) -> String {
    let output = Command::new(&nvcc.path)
        .arg("--version")
        .output()
        .unwrap_or_else(|e| fail(&format!("could not run nvcc {} (found in {}): {e}", nvcc.path.display(), nvcc.origin)));
    if !output.status.success() {
        fail(&describe_failure(&format!("{} --version", nvcc.path.display()), &output));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    text.split("release ")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| c == ',' || c.is_whitespace()).next())
        .map(str::to_owned)
        .unwrap_or_else(|| fail(&format!("could not read the release from `{} --version`:\n{text}", nvcc.path.display())))
}

fn extra_flags() -> Vec<String> {
    env::var("XPBD_NVCC_FLAGS").map(|s| s.split_whitespace().map(str::to_owned).collect()).unwrap_or_default()
}

fn run_nvcc(nvcc: &Nvcc, kernels_dir: &Path, out_dir: &Path, module: &Module, allow_unsupported: bool) -> Output {
    let mut cmd = Command::new(&nvcc.path);
    cmd.args(NVCC_FLAGS).arg("-I").arg(kernels_dir).args(extra_flags());
    if allow_unsupported {
        cmd.arg("-allow-unsupported-compiler");
    }
    cmd.arg(&module.source).arg("-o").arg(&module.ptx).current_dir(out_dir);
    cmd.output().unwrap_or_else(|e| fail(&format!("could not run {}: {e}", nvcc.path.display())))
}

/// Compiles one module; retries with `-allow-unsupported-compiler` when nvcc refuses the host compiler's version.
/// Returns a warning to print, or the failure message.
fn compile(nvcc: &Nvcc, kernels_dir: &Path, out_dir: &Path, module: &Module) -> Result<Option<String>, String> {
    let what = |output: &Output| describe_failure(&format!("nvcc on kernels/{}.cu", module.name), output);
    let output = run_nvcc(nvcc, kernels_dir, out_dir, module, false);
    if output.status.success() {
        return Ok(None);
    }
    let message = String::from_utf8_lossy(&output.stderr);
    if !message.contains("allow-unsupported-compiler") {
        return Err(what(&output));
    }
    let retry = run_nvcc(nvcc, kernels_dir, out_dir, module, true);
    if retry.status.success() {
        Ok(Some(format!(
            "kernels/{}.cu: nvcc does not support this host compiler's version; compiled with \
             -allow-unsupported-compiler (set NVCC_CCBIN to a supported gcc to avoid this)",
            module.name
        )))
    } else {
        Err(what(&retry))
    }
}

/// Compiles all modules, a few at a time; any failure fails the build with nvcc's messages.
fn compile_all(nvcc: &Nvcc, kernels_dir: &Path, out_dir: &Path, modules: &[Module]) {
    let jobs = env::var("NUM_JOBS")
        .ok()
        .and_then(|j| j.parse::<usize>().ok())
        .or_else(|| std::thread::available_parallelism().ok().map(|n| n.get()))
        .unwrap_or(1)
        .clamp(1, modules.len().max(1));
    let next = Mutex::new(0usize);
    type Outcome = Result<Option<String>, String>;
    let results: Mutex<Vec<(usize, Outcome)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| loop {
                let index = {
                    let mut next = next.lock().unwrap();
                    let index = *next;
                    *next += 1;
                    index
                };
                let Some(module) = modules.get(index) else {
                    break;
                };
                let result = compile(nvcc, kernels_dir, out_dir, module);
                results.lock().unwrap().push((index, result));
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(index, _)| *index);
    let mut failures = Vec::new();
    for (_, result) in results {
        match result {
            Ok(Some(warning)) => println!("cargo::warning={warning}"),
            Ok(None) => {}
            Err(message) => failures.push(message),
        }
    }
    if !failures.is_empty() {
        fail(&format!(
            "{} of {} kernel modules failed to compile with {} (found in {}); the build stops here rather than \
             build without kernels. Fix the kernel, or set XPBD_NO_NVCC=1 to build without any.\n\n{}",
            failures.len(),
            modules.len(),
            nvcc.path.display(),
            nvcc.origin,
            failures.join("\n")
        ));
    }
}

/// The `.version X.Y` line of a PTX file.
fn ptx_isa(ptx: &str) -> Option<&str> {
    ptx.lines().find_map(|line| line.trim().strip_prefix(".version ")).map(str::trim)
}

fn write_generated(out_dir: &Path, modules: &[Module], sources: &[PathBuf], headers: &[PathBuf], nvcc: Option<(&Nvcc, &String)>, no_kernels_reason: &str) {
    let mut code = String::from("// Generated by crates/xpbd-cuda/build.rs. Do not edit.\n\n");
    code.push_str("/// (file name, text) of every kernels/*.cu and *.cuh, for NVRTC (runtime/nvrtc.rs).\n");
    code.push_str("pub const SOURCES: &[(&str, &str)] = &[\n");
    for file in sources.iter().chain(headers) {
        let name = file.file_name().expect("a kernel file has a name").to_string_lossy();
        code.push_str(&format!("    ({name:?}, include_str!({:?})),\n", file.display().to_string()));
    }
    code.push_str("];\n\n");
    code.push_str("/// (module name = kernels/<name>.cu, PTX text), sorted by name; empty without nvcc.\n");
    code.push_str("pub const PTX: &[(&str, &str)] = &[\n");
    let mut isa = None;
    for module in modules {
        let text = fs::read_to_string(&module.ptx).unwrap_or_else(|e| fail(&format!("nvcc did not write {}: {e}", module.ptx.display())));
        isa = isa.or_else(|| ptx_isa(&text).map(str::to_owned));
        code.push_str(&format!("    ({:?}, include_str!({:?})),\n", module.name, module.ptx.display().to_string()));
    }
    code.push_str("];\n\n");
    let (path, origin, release) = match nvcc {
        Some((nvcc, release)) => (Some(nvcc.path.display().to_string()), Some(nvcc.origin.clone()), Some(release.clone())),
        None => (None, None, None),
    };
    code.push_str(&format!("/// The nvcc that compiled the kernels.\npub const NVCC_PATH: Option<&str> = {path:?};\n"));
    code.push_str(&format!("/// Where build.rs found nvcc.\npub const NVCC_ORIGIN: Option<&str> = {origin:?};\n"));
    code.push_str(&format!("/// nvcc's release, \"X.Y\".\npub const NVCC_RELEASE: Option<&str> = {release:?};\n"));
    code.push_str(&format!("/// The PTX ISA version of the modules, \"X.Y\".\npub const PTX_ISA: Option<&str> = {isa:?};\n"));
    code.push_str(&format!("/// Why there are no kernels (empty when there are).\npub const NO_KERNELS_REASON: &str = {no_kernels_reason:?};\n"));
    let path = out_dir.join("kernels.rs");
    if fs::read_to_string(&path).ok().as_deref() != Some(code.as_str()) {
        fs::write(&path, code).unwrap_or_else(|e| fail(&format!("could not write {}: {e}", path.display())));
    }
}
