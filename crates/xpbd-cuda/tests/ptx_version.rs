//! The embedded PTX asks no more of the driver than docs/gpu.md ("Drivers and GPUs") promises: every module's
//! `.version` is `PTX_ISA` and its `.target` is `PTX_TARGET`. A toolchain change that raises the PTX ISA (a newer
//! CUDA in scripts/install-cuda-toolchain.sh) or the target (`-arch` in build.rs) fails here, in CI, with no GPU.
//!
//! Strict when the kernels were built by the repository's toolchain (`.toolchain/cuda/bin`, what CI installs),
//! unless `XPBD_CUDA=13` says the CUDA 13 opt-in was chosen on purpose. With an nvcc of the user's own (PATH,
//! `$CUDA_HOME`, /usr/local/cuda, ...) a newer ISA is reported, not failed: that build simply needs a newer driver.

/// "X.Y" -> (X, Y).
fn version(text: &str) -> (u32, u32) {
    let (major, minor) = text.split_once('.').unwrap_or_else(|| panic!("not X.Y: {text:?}"));
    (major.parse().unwrap(), minor.parse().unwrap())
}

/// The value of the first `<directive> value` line of a PTX text.
fn directive<'a>(ptx: &'a str, directive: &str) -> Option<&'a str> {
    ptx.lines().find_map(|line| line.trim().strip_prefix(directive)?.strip_prefix(' ')).map(str::trim)
}

#[test]
fn documented_constants_agree() {
    // CUDA 12.x writes PTX ISA 8.x with the same minor (12.0 -> 8.0) up to 12.5; the driver needs that CUDA.
    let (cuda_major, cuda_minor) = version(xpbd_cuda::CUDA_TOOLKIT);
    assert_eq!(xpbd_cuda::MIN_DRIVER_CUDA, (cuda_major as i32, cuda_minor as i32));
    assert_eq!(cuda_major, 12, "the default toolkit is CUDA 12 (docs/gpu.md)");
    assert_eq!(version(xpbd_cuda::PTX_ISA), (cuda_major - 4, cuda_minor));
    assert_eq!(xpbd_cuda::PTX_TARGET, format!("sm_{}{}", xpbd_cuda::MIN_COMPUTE_CAPABILITY.0, xpbd_cuda::MIN_COMPUTE_CAPABILITY.1));
    assert!(xpbd_cuda::MIN_DRIVER_LINUX.starts_with("525."), "CUDA 12.0 came with the R525 driver");
}

#[test]
fn every_module_loads_on_the_documented_driver() {
    if !xpbd_cuda::built_with_kernels() {
        println!("skipped: {}", xpbd_cuda::no_kernels_reason().unwrap());
        return;
    }
    let info = xpbd_cuda::build_info();
    let origin = info.nvcc_origin.unwrap_or("?");
    let opted_in = std::env::var("XPBD_CUDA").is_ok_and(|v| v.trim() != "12" && !v.trim().is_empty());
    let strict = origin == ".toolchain/cuda/bin" && !opted_in;
    println!(
        "kernels built by {} ({origin}, release {}), PTX ISA {}; documented: CUDA {}, PTX ISA {}, target {}, driver >= {} (Linux)",
        info.nvcc_path.unwrap_or("?"),
        info.nvcc_release.unwrap_or("?"),
        info.ptx_isa.unwrap_or("?"),
        xpbd_cuda::CUDA_TOOLKIT,
        xpbd_cuda::PTX_ISA,
        xpbd_cuda::PTX_TARGET,
        xpbd_cuda::MIN_DRIVER_LINUX
    );
    let mut newer = Vec::new();
    for (name, ptx) in xpbd_cuda::ptx_modules() {
        let isa = directive(ptx, ".version").unwrap_or_else(|| panic!("{name}: no .version line"));
        let target = directive(ptx, ".target").unwrap_or_else(|| panic!("{name}: no .target line"));
        // Always: built for the documented virtual architecture (build.rs's -arch), so every claimed GPU runs it.
        assert_eq!(target, xpbd_cuda::PTX_TARGET, "{name}: .target {target}, documented {}", xpbd_cuda::PTX_TARGET);
        assert_eq!(Some(isa), info.ptx_isa, "{name}: every module has the same PTX ISA");
        if strict {
            assert_eq!(
                isa,
                xpbd_cuda::PTX_ISA,
                "{name}: PTX ISA {isa}, but docs/gpu.md promises {} (driver >= {}); the toolchain in \
                 scripts/install-cuda-toolchain.sh raised the driver requirement. Update PTX_ISA, MIN_DRIVER_* and \
                 docs/gpu.md if that is intended, or set XPBD_CUDA=13 when testing the CUDA 13 opt-in",
                xpbd_cuda::PTX_ISA,
                xpbd_cuda::MIN_DRIVER_LINUX
            );
        } else if version(isa) > version(xpbd_cuda::PTX_ISA) {
            newer.push(format!("{name} ({isa})"));
        }
    }
    if !newer.is_empty() {
        println!(
            "note: not the repository's default toolchain; these modules need a newer driver than the documented \
             >= {}: {}",
            xpbd_cuda::MIN_DRIVER_LINUX,
            newer.join(", ")
        );
    }
}
