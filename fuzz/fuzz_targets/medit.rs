#![no_main]
//! Fuzzes the medit reader (`.mesh`) through `xpbd_core::mesh::io::parse_mesh`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = xpbd_fuzz::mesh("fuzz.mesh", data);
});
