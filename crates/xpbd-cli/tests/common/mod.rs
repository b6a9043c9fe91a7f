//! Helpers shared by the command-line tests: run the `xpbd` binary, write input files.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `xpbd args` in `dir`; returns (exit code, stdout, stderr).
pub fn xpbd_in(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_xpbd")).current_dir(dir).args(args).output().expect("run xpbd");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stdout).into(), String::from_utf8_lossy(&out.stderr).into())
}

/// Runs `xpbd args` in the current directory.
pub fn xpbd(args: &[&str]) -> (i32, String, String) {
    xpbd_in(Path::new("."), args)
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Runs `xpbd args` in `dir`, expecting exit 1 with one line on stderr that starts with `error: `,
/// reports no panic, and contains every `needle`; returns that line.
pub fn expect_error(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    expect_exit(dir, args, 1, needles)
}

/// [`expect_error`] for a usage error (a flag's value): exit 2.
pub fn expect_usage_error(dir: &Path, args: &[&str], needles: &[&str]) -> String {
    expect_exit(dir, args, 2, needles)
}

fn expect_exit(dir: &Path, args: &[&str], expected: i32, needles: &[&str]) -> String {
    let (code, _, stderr) = xpbd_in(dir, args);
    assert_eq!(code, expected, "exit code for {args:?}: {stderr}");
    let line = stderr.trim_end();
    assert!(!line.contains('\n'), "more than one line for {args:?}:\n{stderr}");
    assert!(line.starts_with("error: "), "{line}");
    assert!(!line.contains("panicked") && !line.contains("internal error"), "{line}");
    for n in needles {
        assert!(line.contains(n), "{args:?}: expected '{n}' in: {line}");
    }
    line.to_string()
}
