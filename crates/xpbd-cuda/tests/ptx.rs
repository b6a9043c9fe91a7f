//! The embedded PTX follows the conventions of docs/cuda.md.

#[test]
fn predict_module_has_its_kernels() {
    if !xpbd_cuda::built_with_kernels() {
        println!("skipped: {}", xpbd_cuda::no_kernels_reason().unwrap());
        return;
    }
    let ptx = xpbd_cuda::ptx_module("predict").expect("kernels/predict.cu was compiled");
    for kernel in ["predict_f32", "predict_f64", "update_velocity_f32", "update_velocity_f64"] {
        assert!(ptx.contains(&format!(".visible .entry {kernel}(")), "PTX of predict lacks {kernel}");
    }
}

#[test]
fn every_module_is_ptx_for_compute_75_with_f32_f64_pairs() {
    if !xpbd_cuda::built_with_kernels() {
        assert!(xpbd_cuda::ptx_modules().is_empty());
        println!("skipped: {}", xpbd_cuda::no_kernels_reason().unwrap());
        return;
    }
    let names: Vec<&str> = xpbd_cuda::ptx_modules().iter().map(|(name, _)| *name).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted, "modules are sorted by name");
    for (name, ptx) in xpbd_cuda::ptx_modules() {
        assert!(ptx.lines().any(|l| l.starts_with(".version ")), "{name}: no .version line");
        assert!(ptx.lines().any(|l| l.trim() == ".target sm_75"), "{name}: not built for compute_75");
        let entries: Vec<&str> = ptx.lines().filter_map(|l| l.strip_prefix(".visible .entry ")).map(|l| l.split('(').next().unwrap().trim()).collect();
        assert!(!entries.is_empty(), "{name}: no kernels");
        for entry in &entries {
            let (base, suffix) = entry.rsplit_once('_').unwrap_or((entry, ""));
            assert!(suffix == "f32" || suffix == "f64", "{name}: kernel {entry} is not named <name>_f32/_f64");
            let twin = format!("{base}_{}", if suffix == "f32" { "f64" } else { "f32" });
            assert!(entries.contains(&twin.as_str()), "{name}: {entry} has no twin {twin}");
        }
    }
}

#[test]
fn solve_phase_modules_have_every_kernel_cuda_ops_launches() {
    if !xpbd_cuda::built_with_kernels() {
        println!("skipped: {}", xpbd_cuda::no_kernels_reason().unwrap());
        return;
    }
    for (module, kernel) in xpbd_cuda::SOLVE_KERNELS {
        let ptx = xpbd_cuda::ptx_module(module).unwrap_or_else(|| panic!("kernels/{module}.cu was compiled"));
        for suffix in ["f32", "f64"] {
            assert!(ptx.contains(&format!(".visible .entry {kernel}_{suffix}(")), "PTX of {module} lacks {kernel}_{suffix}");
        }
    }
}
