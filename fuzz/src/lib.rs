//! Shared pieces of the fuzz targets: an allocator that aborts on any single allocation larger than
//! [`MAX_ALLOCATION`] (so a header count that escapes the readers' size checks is reported as a crash
//! even without a sanitizer), and the one call every mesh target makes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;

/// Largest single allocation allowed while parsing an input of at most 1 MiB (`-max_len`).
pub const MAX_ALLOCATION: usize = 256 << 20;

pub struct Capped;

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

#[global_allocator]
static ALLOCATOR: Capped = Capped;

/// Parses `data` as a one-file mesh of the format of `name`'s extension. Errors are fine; panics,
/// hangs and huge allocations are what the fuzzer looks for. A mesh that parses must hold only
/// in-range indices (the readers promise it).
pub fn mesh(name: &str, data: &[u8]) {
    if let Ok(m) = xpbd_core::mesh::io::parse_mesh(Path::new(name), data) {
        check(&m);
    }
}

/// Checks the readers' promise that every index of a parsed mesh names one of its vertices.
pub fn check(m: &xpbd_core::mesh::Mesh) {
    use xpbd_core::mesh::Mesh;
    let (n, max) = match m {
        Mesh::Tet(t) => (t.vertices.len(), t.tets.iter().flatten().max().copied()),
        Mesh::Tri(t) => (t.vertices.len(), t.tris.iter().flatten().max().copied()),
    };
    assert!(max.is_none_or(|i| (i as usize) < n), "index {max:?} out of range of {n} vertices");
}
