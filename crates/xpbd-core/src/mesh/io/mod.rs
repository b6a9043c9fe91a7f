//! Mesh file readers. Dispatch by extension; each format lives in its own file.
