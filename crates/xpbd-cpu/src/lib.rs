//! xpbd-cpu
