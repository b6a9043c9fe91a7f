//! What the fuzzers share (docs/robustness.md): every target's entry point, one per mesh reader and one for
//! scenes, as the libFuzzer targets of `fuzz/` (cargo-fuzz), the stable mutation loop of
//! `tests/mutation_fuzz.rs` (CI) and the replay of kept crashers (`tests/fuzz_regressions.rs`) call them; the
//! allocator that turns any single oversized allocation into a crash; and the readers' promise about a mesh that
//! parses. An entry point returns the reader's error for a malformed input (the expected outcome); a panic, a
//! hang or an oversized allocation is a defect.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;

use crate::mesh::io::{parse_mesh, parse_tetgen};
use crate::mesh::Mesh;
use crate::Result;

/// Largest single allocation allowed while parsing an input of at most 1 MiB.
pub const MAX_ALLOCATION: usize = 256 << 20;

/// The system allocator, aborting on any single allocation larger than [`MAX_ALLOCATION`], so that a header
/// count that escapes the readers' size checks is reported even without a sanitizer. A fuzzing binary installs
/// it with `#[global_allocator] static A: Capped = Capped;`.
pub struct Capped;

// SAFETY: forwards to the system allocator, whose contract it keeps; it only refuses (by aborting) larger sizes.
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() > MAX_ALLOCATION {
            std::process::abort();
        }
        System.alloc(layout)
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > MAX_ALLOCATION {
            std::process::abort();
        }
        System.realloc(ptr, layout, new_size)
    }
}

/// One fuzz target: its name (the folder of its seeds, `fuzz/seeds/<name>/`) and its entry point.
pub struct Target {
    pub name: &'static str,
    pub run: fn(&[u8]) -> Result<()>,
}

/// Every target: the mesh readers by extension, TetGen's pair of files, and the scene parser and builder.
pub const TARGETS: [Target; 7] = [
    Target { name: "tetgen", run: tetgen },
    Target { name: "gmsh", run: |data| mesh("fuzz.msh", data) },
    Target { name: "medit", run: |data| mesh("fuzz.mesh", data) },
    Target { name: "vtk_legacy", run: |data| mesh("fuzz.vtk", data) },
    Target { name: "vtu", run: |data| mesh("fuzz.vtu", data) },
    Target { name: "obj", run: |data| mesh("fuzz.obj", data) },
    Target { name: "scene", run: scene },
];

/// `data` as a one-file mesh of the format of `name`'s extension; a mesh that parses is [`check`]ed.
pub fn mesh(name: &str, data: &[u8]) -> Result<()> {
    check(&parse_mesh(Path::new(name), data)?);
    Ok(())
}

/// TetGen: the `.node` text, a NUL byte, then the `.ele` text (without a NUL, a `.node` file and an empty `.ele`).
pub fn tetgen(data: &[u8]) -> Result<()> {
    let (node, ele) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    check(&Mesh::Tet(parse_tetgen(Path::new("fuzz"), node, ele)?));
    Ok(())
}

/// A scene's TOML text through `scene::parse`, then `scene::build` with meshes from generators only (files
/// resolve in a folder that does not exist). The caller bounds the generators' sizes with
/// `XPBD_MEMORY_LIMIT_MB` (the fuzzers use 64).
pub fn scene(data: &[u8]) -> Result<()> {
    let text = std::str::from_utf8(data).map_err(|e| crate::Error::invalid(format!("fuzz.toml: {e}")))?;
    let scene = crate::scene::parse(text, Path::new("fuzz.toml"))?;
    crate::scene::build(&scene, Path::new("/nonexistent-fuzz-dir")).map(|_| ())
}

/// The readers' promise: every index of a parsed mesh names one of its vertices (panics otherwise, which the
/// fuzzers report).
pub fn check(m: &Mesh) {
    let (n, max) = match m {
        Mesh::Tet(t) => (t.vertices.len(), t.tets.iter().flatten().max().copied()),
        Mesh::Tri(t) => (t.vertices.len(), t.tris.iter().flatten().max().copied()),
    };
    assert!(max.is_none_or(|i| (i as usize) < n), "index {max:?} out of range of {n} vertices");
}
