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
