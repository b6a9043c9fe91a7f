//! Every input that once crashed, hung or over-allocated in a fuzz target (fuzz/, docs/robustness.md)
//! is kept under `tests/fuzz_regressions/<target>/` and replayed here through the same entry point
//! the target uses. Each is malformed: it must give one error line, not a panic.

use std::path::{Path, PathBuf};
use xpbd_core::mesh::io::{parse_mesh, parse_tetgen};

/// The kept inputs of one target.
fn inputs(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
    files.retain(|p| p.file_name().is_some_and(|n| n != ".gitkeep"));
    files.sort();
    files
}

/// Replays `target`'s inputs through `parse`, expecting a one-line error from each.
fn replay(target: &str, parse: impl Fn(&[u8]) -> Result<(), xpbd_core::Error>) {
    for p in inputs(target) {
        let data = std::fs::read(&p).unwrap();
        match parse(&data) {
            Ok(()) => panic!("{}: a malformed input was accepted", p.display()),
            Err(e) => assert!(!e.to_string().contains('\n'), "{}: {e}", p.display()),
        }
    }
}

fn mesh(ext: &'static str) -> impl Fn(&[u8]) -> Result<(), xpbd_core::Error> {
    move |data| parse_mesh(Path::new(&format!("fuzz.{ext}")), data).map(|_| ())
}

#[test]
fn gmsh() {
    replay("gmsh", mesh("msh"));
}

#[test]
fn medit() {
    replay("medit", mesh("mesh"));
}

#[test]
fn vtk_legacy() {
    replay("vtk_legacy", mesh("vtk"));
}

#[test]
fn vtu() {
    replay("vtu", mesh("vtu"));
}

#[test]
fn obj() {
    replay("obj", mesh("obj"));
}

/// The TetGen target's input: `.node` text, a NUL byte, `.ele` text.
#[test]
fn tetgen() {
    replay("tetgen", |data| {
        let (node, ele) = match data.iter().position(|&b| b == 0) {
            Some(i) => (&data[..i], &data[i + 1..]),
            None => (data, &[][..]),
        };
        parse_tetgen(Path::new("fuzz"), node, ele).map(|_| ())
    });
}

/// Scene inputs go through `parse` and `build` under the fuzz target's 64 MB memory limit.
#[test]
fn scene() {
    std::env::set_var("XPBD_MEMORY_LIMIT_MB", "64");
    replay("scene", |data| {
        let text = std::str::from_utf8(data).map_err(|e| xpbd_core::Error::invalid(e.to_string()))?;
        let scene = xpbd_core::scene::parse(text, Path::new("fuzz.toml"))?;
        xpbd_core::scene::build(&scene, Path::new("/nonexistent-fuzz-dir")).map(|_| ())
    });
}
