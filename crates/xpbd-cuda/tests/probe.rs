//! `probe()` answers with a device or a readable reason, and never panics (no driver, no device, no kernels).

#[test]
fn probe_answers_without_panicking() {
    match xpbd_cuda::probe().map_err(|e| e.to_string()) {
        Ok(info) => {
            println!("CUDA device: {info:?}");
            assert!(!info.name.is_empty());
            assert!(info.compute_capability >= xpbd_cuda::MIN_COMPUTE_CAPABILITY);
            assert!(info.total_memory_bytes > 0);
        }
        Err(reason) => {
            println!("no CUDA backend: {reason}");
            assert!(!reason.trim().is_empty(), "the reason must say something");
            assert!(!reason.contains('\n'), "the reason is one line: {reason:?}");
            if !xpbd_cuda::built_with_kernels() {
                assert!(reason.starts_with("built without kernels"), "{reason}");
            }
        }
    }
    // Asking again gives the same answer (the driver is initialised once per process).
    assert_eq!(xpbd_cuda::probe().map(|i| i.ordinal), xpbd_cuda::probe().map(|i| i.ordinal));
}

#[test]
fn no_driver_is_reported_as_such() {
    // Where libcuda cannot be opened (CI, this crate's development machine), the reason names that.
    let libcuda_present = ["libcuda.so", "libcuda.so.1"].iter().any(|name| unsafe { libloading::Library::new(*name) }.is_ok());
    let driver = xpbd_cuda::driver_version().map_err(|e| e.to_string());
    let devices = xpbd_cuda::devices().map_err(|e| e.to_string());
    println!("libcuda present: {libcuda_present}; driver: {driver:?}; devices: {devices:?}");
    if !libcuda_present {
        let expected = "no CUDA driver found (libcuda.so could not be loaded)";
        assert_eq!(driver.unwrap_err(), expected);
        assert_eq!(devices.unwrap_err(), expected);
        if xpbd_cuda::built_with_kernels() {
            assert_eq!(xpbd_cuda::probe().unwrap_err().to_string(), expected);
            assert_eq!(xpbd_cuda::GpuPredict::new(0).unwrap_err().to_string(), expected);
        }
    }
}

#[test]
fn a_device_that_does_not_exist_is_an_error() {
    let reason = xpbd_cuda::probe_ordinal(1 << 20).unwrap_err().to_string();
    println!("{reason}");
    assert!(!reason.is_empty());
}

#[test]
fn built_without_kernels_says_so() {
    if xpbd_cuda::built_with_kernels() {
        assert!(xpbd_cuda::no_kernels_reason().is_none());
        assert!(xpbd_cuda::build_info().nvcc_release.is_some());
    } else {
        assert!(xpbd_cuda::ptx_modules().is_empty());
        let reason = xpbd_cuda::probe().unwrap_err().to_string();
        assert_eq!(Some(reason.as_str()), xpbd_cuda::no_kernels_reason());
        assert!(reason.starts_with("built without kernels: "), "{reason}");
    }
}
