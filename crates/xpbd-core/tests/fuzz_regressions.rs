//! Every input that once crashed, hung or over-allocated in a fuzz target (fuzz/, docs/robustness.md)
//! is kept under `tests/fuzz_regressions/<target>/` and replayed here through the same entry point
//! the target uses. Each is malformed: it must give one error line, not a panic.

use std::path::{Path, PathBuf};
use xpbd_core::mesh::io::{parse_mesh, parse_tetgen};

type Parse = Box<dyn Fn(&[u8]) -> Result<(), xpbd_core::Error>>;

/// Each target's entry point, as its fuzz target calls it.
fn targets() -> Vec<(&'static str, Parse)> {
    let mesh = |ext: &'static str| -> Parse { Box::new(move |data| parse_mesh(Path::new(&format!("fuzz.{ext}")), data).map(|_| ())) };
    vec![
        ("gmsh", mesh("msh")),
        ("medit", mesh("mesh")),
        ("vtk_legacy", mesh("vtk")),
        ("vtu", mesh("vtu")),
        ("obj", mesh("obj")),
        // `.node` text, a NUL byte, `.ele` text.
        (
            "tetgen",
            Box::new(|data| {
                let (node, ele) = match data.iter().position(|&b| b == 0) {
                    Some(i) => (&data[..i], &data[i + 1..]),
                    None => (data, &[][..]),
                };
                parse_tetgen(Path::new("fuzz"), node, ele).map(|_| ())
            }),
        ),
        // Scenes go through `parse` and `build` under the fuzz target's 64 MB memory limit.
        (
            "scene",
            Box::new(|data| {
                let text = std::str::from_utf8(data).map_err(|e| xpbd_core::Error::invalid(e.to_string()))?;
                let scene = xpbd_core::scene::parse(text, Path::new("fuzz.toml"))?;
                xpbd_core::scene::build(&scene, Path::new("/nonexistent-fuzz-dir")).map(|_| ())
            }),
        ),
    ]
}

#[test]
fn every_kept_input_fails_with_one_line() {
    std::env::set_var("XPBD_MEMORY_LIMIT_MB", "64");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut replayed = 0;
    for (target, parse) in targets() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(target)).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
        files.sort();
        for p in files {
            match parse(&std::fs::read(&p).unwrap()) {
                Ok(()) => panic!("{}: a malformed input was accepted", p.display()),
                Err(e) => assert!(!e.to_string().contains('\n'), "{}: {e}", p.display()),
            }
            replayed += 1;
        }
    }
    assert!(replayed >= 2, "the kept inputs were not found under {}", root.display());
}
