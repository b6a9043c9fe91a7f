//! xpbd-cuda
