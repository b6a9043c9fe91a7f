//! The fuzz targets' shared pieces, from `xpbd_core::fuzzing` (which the stable mutation loop of CI uses too):
//! the capped allocator, installed here for every target, and the entry points.

pub use xpbd_core::fuzzing::{mesh, scene, tetgen, Capped};

#[global_allocator]
static ALLOCATOR: Capped = Capped;
