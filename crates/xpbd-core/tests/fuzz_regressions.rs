//! Every input that once crashed, hung or over-allocated in a fuzz target (fuzz/, docs/robustness.md)
//! is kept under `tests/fuzz_regressions/<target>/` and replayed here through the target's entry point
//! (`xpbd_core::fuzzing::TARGETS`). Each is malformed: it must give one error line, not a panic.

use std::path::{Path, PathBuf};
use xpbd_core::fuzzing::TARGETS;

#[test]
fn every_kept_input_fails_with_one_line() {
    std::env::set_var("XPBD_MEMORY_LIMIT_MB", "64");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz_regressions");
    let mut replayed = 0;
    for target in &TARGETS {
        let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(target.name)).map(|d| d.map(|e| e.unwrap().path()).collect()).unwrap_or_default();
        files.sort();
        for p in files {
            match (target.run)(&std::fs::read(&p).unwrap()) {
                Ok(()) => panic!("{}: a malformed input was accepted", p.display()),
                Err(e) => assert!(!e.to_string().contains('\n'), "{}: {e}", p.display()),
            }
            replayed += 1;
        }
    }
    assert!(replayed >= 2, "the kept inputs were not found under {}", root.display());
}
