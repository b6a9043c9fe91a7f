//! Boundary surface extraction for output.
