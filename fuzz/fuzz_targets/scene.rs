#![no_main]
//! Fuzzes the scene parser and builder: TOML text through `scene::parse`, and a scene that parses
//! through `scene::build` (meshes from generators; files resolve in a folder that does not exist)
//! under a 64 MB memory limit, so generator sizes go through the memory estimate.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    std::env::set_var("XPBD_MEMORY_LIMIT_MB", "64");
    let _ = xpbd_fuzz::scene(data);
});
