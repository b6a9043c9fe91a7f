//! How every kernel of this crate is launched: blocks of [`BLOCK`] threads over a grid-stride loop, or one block.

use cudarc::driver::LaunchConfig;

/// Threads per block of every launch (the reduction kernels' shared arrays have this size).
pub const BLOCK: u32 = 256;

/// One block: the single-block kernels and the second pass of a reduction.
pub const ONE_BLOCK: LaunchConfig = LaunchConfig { grid_dim: (1, 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 };

/// Blocks for `count` threads.
pub fn blocks(count: u32) -> u32 {
    count.div_ceil(BLOCK).max(1)
}

/// Blocks of [`BLOCK`] threads covering `count` threads.
pub fn grid(count: u32) -> LaunchConfig {
    LaunchConfig { grid_dim: (blocks(count), 1, 1), block_dim: (BLOCK, 1, 1), shared_mem_bytes: 0 }
}

/// Threads in a warp: the smallest block [`spread`] makes.
const WARP: u32 = 32;

/// `count` threads over at least `multiprocessors` blocks where it can: blocks of [`BLOCK`] threads when
/// `count` fills that many, else smaller blocks, down to one warp. For the sweeps over one colour's elements,
/// a few thousand threads: in blocks of 256 they sit on a tenth of an H200's 132 multiprocessors, and each
/// thread's element is latency-bound (docs/gpu.md, "Where a colour's launch spends its time"). Only for kernels
/// without shared arrays, which any block size serves.
pub fn spread(count: u32, multiprocessors: u32) -> LaunchConfig {
    let per_block = (count / multiprocessors.max(1) / WARP * WARP).clamp(WARP, BLOCK);
    LaunchConfig { grid_dim: (count.div_ceil(per_block).max(1), 1, 1), block_dim: (per_block, 1, 1), shared_mem_bytes: 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_reaches_every_multiprocessor_it_can() {
        // A colour of the 160k-tet box on an H200: 4325 elements were 17 blocks of 256; now 136 blocks of 32.
        let c = spread(4325, 132);
        assert_eq!((c.grid_dim.0, c.block_dim.0), (136, 32));
        // 200 threads per multiprocessor: blocks of 192, 131 of them full.
        assert_eq!((spread(200 * 132, 132).grid_dim.0, spread(200 * 132, 132).block_dim.0), (138, 192));
        // Enough work for full blocks everywhere: the usual grid.
        assert_eq!(spread(1 << 20, 132).block_dim.0, BLOCK);
        assert_eq!(spread(1 << 20, 132).grid_dim.0, grid(1 << 20).grid_dim.0);
        // Less than a warp per multiprocessor: one-warp blocks, one per 32 threads.
        assert_eq!((spread(100, 132).grid_dim.0, spread(100, 132).block_dim.0), (4, 32));
        assert_eq!((spread(0, 132).grid_dim.0, spread(0, 0).block_dim.0), (1, 32));
    }
}
