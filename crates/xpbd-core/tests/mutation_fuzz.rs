//! The stable fuzzing path that CI runs (docs/robustness.md, "Fuzzing"): for every target of
//! `xpbd_core::fuzzing::TARGETS`, inputs mutated from its seeds (`fuzz/seeds/<target>/`: bit flips, bytes,
//! inserted and replaced numbers and tokens, deleted, duplicated and spliced ranges), each through the target's
//! entry point under the capped allocator. A malformed input must give an error; a panic fails the test with
//! the input saved, an execution over [`SLOW`] fails it as a hang, an oversized allocation aborts the process.
//! No coverage feedback (that is cargo-fuzz's, `scripts/fuzz.sh`, for long runs where it is installed); the loop
//! is deterministic for a given seed, so an abort at execution N reproduces with `MUTATION_FUZZ_RUNS=N`.
//!
//! `MUTATION_FUZZ_SECONDS` (per target, default 4), or `MUTATION_FUZZ_RUNS` (executions per target, instead);
//! `MUTATION_FUZZ_SEED` (default 1); `MUTATION_FUZZ_TARGETS` (comma-separated names, default all).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use xpbd_core::fuzzing::{Capped, Target, TARGETS};

#[global_allocator]
static ALLOCATOR: Capped = Capped;

/// Longest input the mutations make (libFuzzer's `-max_len` in `scripts/fuzz.sh`).
const MAX_LEN: usize = 65536;
/// An execution slower than this is reported as a hang.
const SLOW: Duration = Duration::from_secs(10);

/// Numbers and tokens of the formats: limits of the integer types, huge and non-finite floats, section
/// markers, XML and TOML punctuation.
const TOKENS: &[&[u8]] = &[
    b"0",
    b"-1",
    b"1",
    b"2",
    b"-0",
    b"4294967295",
    b"4294967296",
    b"18446744073709551615",
    b"99999999999999999999999",
    b"1e308",
    b"-1e308",
    b"1e-320",
    b"nan",
    b"inf",
    b"-inf",
    b"\n",
    b" ",
    b"\0",
    b"\t",
    b"=",
    b"[",
    b"]",
    b"[[",
    b"\"",
    b"{",
    b"}",
    b",",
    b"#",
    b"<",
    b">",
    b"/>",
    b"</",
    b"\"0\"",
    b"$EndNodes",
    b"$Elements",
    b"$EndElements",
    b"Float64",
    b"Int64",
    b"UInt8",
    b"binary",
    b"ascii",
    b"base64",
    b"CELLS",
    b"POINTS",
    b"Vertices",
    b"Tetrahedra",
    b"f ",
    b"v ",
];

fn setting<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().map(|v| v.parse().unwrap_or_else(|_| panic!("{name}: '{v}' is not a valid value")))
}

fn seeds(target: &Target) -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/seeds").join(target.name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).map(|e| e.unwrap().path()).collect();
    files.sort();
    let seeds: Vec<Vec<u8>> = files.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(!seeds.is_empty(), "no seeds in {}", dir.display());
    seeds
}

/// A random range of `d` of at most `max` bytes.
fn range(rng: &mut fastrand::Rng, d: &[u8], max: usize) -> std::ops::Range<usize> {
    let start = rng.usize(..=d.len());
    start..(start + rng.usize(..=max)).min(d.len())
}

/// One to four stacked mutations of a random seed.
fn mutate(rng: &mut fastrand::Rng, seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut d = seeds[rng.usize(..seeds.len())].clone();
    for _ in 0..rng.usize(1..=4) {
        match rng.u8(..7) {
            0 if !d.is_empty() => {
                let i = rng.usize(..d.len());
                d[i] ^= 1 << rng.u8(..8);
            }
            1 if !d.is_empty() => {
                let i = rng.usize(..d.len());
                d[i] = rng.u8(..);
            }
            2 => {
                let i = rng.usize(..=d.len());
                d.splice(i..i, TOKENS[rng.usize(..TOKENS.len())].iter().copied());
            }
            3 => {
                let max = if rng.bool() { 16 } else { d.len() / 4 + 1 };
                let r = range(rng, &d, max);
                d.drain(r);
            }
            4 => {
                let r = range(rng, &d, 4096);
                let copy = d[r].to_vec();
                let i = rng.usize(..=d.len());
                d.splice(i..i, copy);
            }
            5 => {
                // The head of this input, the tail of another seed.
                let other = &seeds[rng.usize(..seeds.len())];
                d.truncate(rng.usize(..=d.len()));
                d.extend_from_slice(&other[rng.usize(..=other.len())..]);
            }
            _ => {
                // A number after a random place replaced by a token.
                let from = rng.usize(..=d.len());
                if let Some(s) = d[from..].iter().take(256).position(u8::is_ascii_digit).map(|k| from + k) {
                    let e = s + d[s..].iter().take_while(|b| b.is_ascii_digit() || b"+-.eE".contains(b)).count();
                    d.splice(s..e, TOKENS[rng.usize(..TOKENS.len())].iter().copied());
                }
            }
        }
    }
    d.truncate(MAX_LEN);
    d
}

#[test]
fn mutated_seeds_give_errors_not_panics() {
    std::env::set_var("XPBD_MEMORY_LIMIT_MB", "64");
    let runs: Option<u64> = setting("MUTATION_FUZZ_RUNS");
    let seconds: f64 = setting("MUTATION_FUZZ_SECONDS").unwrap_or(4.0);
    let seed: u64 = setting("MUTATION_FUZZ_SEED").unwrap_or(1);
    let only: Option<String> = setting("MUTATION_FUZZ_TARGETS");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("mutation-fuzz");
    let mut failures = Vec::new();
    // The readers' panics are caught and reported below, with the input; their default messages would bury that.
    std::panic::set_hook(Box::new(|_| {}));
    for (t, target) in TARGETS.iter().enumerate() {
        if only.as_ref().is_some_and(|o| !o.split(',').any(|n| n == target.name)) {
            continue;
        }
        let seeds = seeds(target);
        let target_seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(t as u64);
        let mut rng = fastrand::Rng::with_seed(target_seed);
        let (start, mut n, mut accepted) = (Instant::now(), 0u64, 0u64);
        println!("{}: seed {target_seed}", target.name);
        while runs.map_or(start.elapsed().as_secs_f64() < seconds, |r| n < r) {
            let input = mutate(&mut rng, &seeds);
            let t0 = Instant::now();
            let outcome = catch_unwind(AssertUnwindSafe(|| (target.run)(&input)));
            n += 1;
            let failure = match outcome {
                Ok(result) => {
                    accepted += result.is_ok() as u64;
                    (t0.elapsed() > SLOW).then(|| format!("took {:.1} s", t0.elapsed().as_secs_f64()))
                }
                Err(payload) => Some(format!("panicked: {}", xpbd_core::error::panic_message(payload.as_ref()).unwrap_or("(no message)"))),
            };
            if let Some(why) = failure {
                std::fs::create_dir_all(&out).unwrap();
                let file = out.join(format!("{}-{n}", target.name));
                std::fs::write(&file, &input).unwrap();
                failures.push(format!("{}: execution {n} {why}; input kept in {}", target.name, file.display()));
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!("{}: {n} executions in {secs:.1} s ({:.0}/s), {accepted} accepted", target.name, n as f64 / secs);
        assert!(n > 0, "{}: no execution", target.name);
    }
    let _ = std::panic::take_hook();
    assert!(failures.is_empty(), "{} failing input(s):\n{}", failures.len(), failures.join("\n"));
}
