//! xpbd
