//! The NVRTC fallback (`runtime::nvrtc`) compiles the embedded kernel sources without a GPU (NVRTC only
//! compiles): every module for the embedded PTX's architecture (compute_75), and the smallest also for a
//! Hopper (compute_90), into PTX with the same kernels as the embedded module; a second request is served
//! from the cache.
//! Skipped, with the reason, where no libnvrtc is found (`scripts/test.sh` puts the toolchain's on the loader's
//! path, so CI runs it).

use xpbd_cuda::nvrtc;

/// The `.visible .entry` names of a PTX text, sorted.
fn entries(ptx: &str) -> Vec<String> {
    let mut names: Vec<String> =
        ptx.lines().filter_map(|l| l.strip_prefix(".visible .entry ")).map(|l| l.split('(').next().unwrap().trim().to_owned()).collect();
    names.sort();
    names
}

#[test]
fn every_module_compiles_with_nvrtc_into_the_embedded_kernels() {
    let nvrtc = match nvrtc::nvrtc() {
        Ok(n) => n,
        Err(why) => {
            println!("skipped: {why}");
            return;
        }
    };
    println!("NVRTC {}.{} from {}", nvrtc.version.0, nvrtc.version.1, nvrtc.origin);
    let cache = std::env::temp_dir().join(format!("xpbd_nvrtc_test_{}", std::process::id()));
    std::env::set_var(xpbd_cuda::cache_dir::CACHE_DIR_VAR, &cache);
    let modules: Vec<String> = xpbd_cuda::kernel_sources().iter().filter_map(|(file, _)| file.strip_suffix(".cu")).map(str::to_owned).collect();
    assert!(!modules.is_empty(), "the kernel sources are embedded");
    if xpbd_cuda::built_with_kernels() {
        let built: Vec<&str> = xpbd_cuda::ptx_modules().iter().map(|(name, _)| *name).collect();
        assert_eq!(modules, built, "a source for every embedded module");
    }
    let requests = modules.iter().map(|m| (m.as_str(), (7, 5))).chain([("predict", (9, 0))]);
    for (name, arch) in requests {
        let started = std::time::Instant::now();
        let ptx = nvrtc::compile_module(name, arch).unwrap_or_else(|e| panic!("{e}"));
        let target = format!(".target sm_{}{}", arch.0, arch.1);
        assert!(ptx.lines().any(|l| l.trim() == target), "{name}: no {target} line");
        let got = entries(&ptx);
        assert!(!got.is_empty(), "{name}: no kernels");
        if let Some(embedded) = xpbd_cuda::ptx_module(name) {
            assert_eq!(got, entries(embedded), "{name}: NVRTC's kernels differ from the embedded module's");
        }
        println!("{name} for compute_{}{}: {} kernels in {:.2} s", arch.0, arch.1, got.len(), started.elapsed().as_secs_f64());
    }
    // Cached: the second request reads the file NVRTC's first result was written to.
    let files = std::fs::read_dir(cache.join("nvrtc")).unwrap().count();
    assert_eq!(files, modules.len() + 1, "one cached PTX per module and architecture");
    let started = std::time::Instant::now();
    let again = nvrtc::compile_module("predict", (9, 0)).unwrap();
    assert!(started.elapsed().as_secs_f64() < 0.05, "served from the cache");
    assert!(!entries(&again).is_empty());
    std::fs::remove_dir_all(&cache).unwrap();
}

/// Every `#include "…"` of the kernel folder is resolved from the embedded headers, each once.
#[test]
fn inlined_sources_have_no_includes_left() {
    for (file, _) in xpbd_cuda::kernel_sources().iter().filter(|(f, _)| f.ends_with(".cu")) {
        let text = nvrtc::inlined_source(file).unwrap();
        assert!(!text.contains("#include \""), "{file}: an include is left");
        assert!(!text.contains("#pragma once"), "{file}");
        assert_eq!(text.matches("constexpr unsigned int REDUCE_BLOCK").count(), 1, "{file}: common.cuh inlined once");
    }
}
