//! Procedural meshes: `box`, `sphere`, `torus` (voxelized signed distance) and `grid2d` (cloth).
