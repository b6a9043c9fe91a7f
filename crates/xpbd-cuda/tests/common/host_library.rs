//! The kernels of `kernels/*.cu` compiled as host C++ into a shared library (see `tests/host_kernels.rs`).

use libloading::Library;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Compiles the kernels once per test process; `Err` is why not.
pub fn library() -> Result<&'static Library, String> {
    static LIB: std::sync::OnceLock<Result<Library, String>> = std::sync::OnceLock::new();
    LIB.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let kernels = root.join("../../kernels");
        let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("xpbd_kernels_host_{}.so", std::process::id()));
        let mut cmd = Command::new(std::env::var("CXX").unwrap_or_else(|_| "c++".into()));
        cmd.args(["-std=c++17", "-O2", "-ffp-contract=off", "-shared", "-fPIC", "-x", "c++", "-include"]).arg(root.join("tests/host/cuda_shim.h"));
        cmd.arg("-I").arg(&kernels);
        let mut sources: Vec<PathBuf> =
            std::fs::read_dir(&kernels).unwrap().map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|x| x == "cu")).collect();
        sources.sort();
        cmd.args(&sources);
        let output = cmd.arg("-o").arg(&out).output().map_err(|e| format!("no host C++ compiler ({e})"))?;
        if !output.status.success() {
            panic!("the kernels do not compile as host C++:\n{}", String::from_utf8_lossy(&output.stderr));
        }
        // SAFETY: a library we just built from kernels/*.cu; its initialisers are plain static data.
        unsafe { Library::new(&out) }.map_err(|e| format!("could not load {}: {e}", out.display()))
    })
    .as_ref()
    .map_err(Clone::clone)
}

pub fn library_or_skip() -> Option<&'static Library> {
    library().map_err(|reason| println!("skipped: {reason}")).ok()
}

pub fn get<F: Copy>(lib: &Library, name: &str) -> F {
    // SAFETY: F is the C signature of `name` in kernels/*.cu (the types above mirror the kernels' parameters).
    unsafe { *lib.get::<F>(format!("{name}\0").as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}")) }
}
