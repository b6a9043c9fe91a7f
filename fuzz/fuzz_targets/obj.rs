#![no_main]
//! Fuzzes the obj reader (`.obj`) through `xpbd_core::mesh::io::parse_mesh`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = xpbd_fuzz::mesh("fuzz.obj", data);
});
