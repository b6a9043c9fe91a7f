//! The XPBD path's device memory before any allocation (`xpbd::footprint`, the block paper's Table 3), on the
//! GPU Table 2's box meshes with block neo-Hookean constraints in clustered order, single precision (the paper's
//! setting): it grows linearly with the mesh, and a footprint larger than the free memory is refused in one line
//! that gives the sizes. No GPU needed; `backend_parity.rs::footprint_is_what_the_upload_allocates` holds the
//! footprint to the allocations on a GPU.

use xpbd_core::scene::table2::{self, GPU_MESHES};
use xpbd_cuda::xpbd::footprint::Footprint;
use xpbd_cuda::xpbd::layout::Layout;
use xpbd_cuda::Precision;

#[test]
fn table2_meshes_grow_linearly_and_a_scene_too_large_is_refused() {
    let mut per_tet = Vec::new();
    for (label, cells) in GPU_MESHES {
        let b = table2::model(&table2::gpu_box(cells), "neohookean_block", "clustered", 50).unwrap();
        let layout = Layout::new(&b.model, &b.config).unwrap();
        let f = Footprint::xpbd(&b.model, &layout, Precision::F32.bytes(), 50);
        let tets = b.model.element_count();
        println!("{label}: {} vertices, {tets} tets: {}", b.model.vertex_count(), f.describe());
        per_tet.push(f.total() as f64 / tets as f64);
    }
    // Bytes per tet: the 20k, 56k and 160k meshes within 10 % of each other (the 3.7k beam has more surface
    // and vertices per tet).
    let big = &per_tet[1..];
    let (lo, hi) = big.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    assert!(hi < 1.1 * lo, "bytes per tet {per_tet:?}");
    let b = table2::model(&table2::gpu_box(GPU_MESHES[3].1), "neohookean_block", "clustered", 50).unwrap();
    let f = Footprint::xpbd(&b.model, &Layout::new(&b.model, &b.config).unwrap(), Precision::F32.bytes(), 50);
    assert!(f.fits(f.total(), "cuda:0").is_ok());
    let refused = f.fits(f.total() - 1, "cuda:0 (NVIDIA T4)").unwrap_err();
    assert!(refused.starts_with("the scene needs ") && refused.contains("elements ") && refused.contains("cuda:0 (NVIDIA T4) has"), "{refused}");
    assert!(!refused.contains('\n'), "one line: {refused}");
}
