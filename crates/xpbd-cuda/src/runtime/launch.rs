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
