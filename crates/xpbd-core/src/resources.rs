//! Memory estimates checked before large structures are built (meshes, the model, the element graph
//! and its coloring or partition), so a scene too large for the machine is refused with one line
//! instead of being killed by the kernel halfway through.
//!
//! The limit is `XPBD_MEMORY_LIMIT_MB` when set (tests, fuzzing, shared machines), otherwise
//! `MemAvailable` from `/proc/meminfo`; where neither exists the check is skipped.

use crate::{Error, Result};

/// Bytes per vertex of the model, its state and the solver (positions, previous positions, velocities,
/// rest positions, masses, per-vertex scratch of the parallel orderings), rounded up.
pub const BYTES_PER_VERTEX: u64 = 256;
/// Bytes per element of the model and the solver: indices, rest data (`D_m⁻¹`, volume), multipliers,
/// the element graph's adjacency (a tetrahedron of a tet mesh shares vertices with ~50 others, 4 bytes
/// each) and the coloring or cluster schedule, rounded up.
pub const BYTES_PER_ELEMENT: u64 = 512;
/// Upper bound of the bytes a mesh reader allocates per byte of file (an ASCII index of 2 bytes
/// becomes a 4-byte `u32` in a 4- or 3-index element, a coordinate of 2 bytes an 8-byte `f64`).
pub const MESH_BYTES_PER_FILE_BYTE: u64 = 8;

/// The memory limit in bytes, or `None` when it cannot be known; an `XPBD_MEMORY_LIMIT_MB` that is not a
/// whole number of megabytes is an error.
pub fn limit() -> Result<Option<u64>> {
    if let Some(v) = std::env::var_os("XPBD_MEMORY_LIMIT_MB") {
        return parse_limit(&v.to_string_lossy()).map(Some);
    }
    Ok(std::fs::read_to_string("/proc/meminfo").ok().and_then(|info| mem_available(&info)))
}

/// `XPBD_MEMORY_LIMIT_MB`'s value in bytes.
fn parse_limit(mb: &str) -> Result<u64> {
    match mb.trim().parse::<u64>() {
        Ok(mb) => Ok(mb.saturating_mul(1 << 20)),
        Err(_) => Err(Error::invalid(format!("XPBD_MEMORY_LIMIT_MB: '{mb}' is not a whole number of megabytes (e.g. 4096)"))),
    }
}

/// `MemAvailable` of a `/proc/meminfo` text, in bytes.
fn mem_available(meminfo: &str) -> Option<u64> {
    let line = meminfo.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.saturating_mul(1024))
}

/// Estimated bytes of a model (and its solver structures) with `vertices` vertices and `elements` elements.
pub fn model_bytes(vertices: u64, elements: u64) -> u64 {
    vertices.saturating_mul(BYTES_PER_VERTEX).saturating_add(elements.saturating_mul(BYTES_PER_ELEMENT))
}

/// Refuses to go on when `bytes` exceed the limit; `what` names the structure in the message.
pub fn check(what: &str, bytes: u64) -> Result<()> {
    check_against(what, bytes, limit()?)
}

fn check_against(what: &str, bytes: u64, limit: Option<u64>) -> Result<()> {
    match limit {
        Some(limit) if bytes > limit => Err(Error::invalid(format!(
            "{what}: needs about {} MB, more than the {} MB of memory available (MemAvailable, or XPBD_MEMORY_LIMIT_MB when set)",
            mb(bytes),
            mb(limit)
        ))),
        _ => Ok(()),
    }
}

fn mb(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_kilobytes() {
        let info = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:    2048 kB\n";
        assert_eq!(mem_available(info), Some(2048 * 1024));
        assert_eq!(mem_available("MemTotal: 5 kB\n"), None);
    }

    #[test]
    fn estimate_above_the_limit_is_refused_with_one_line() {
        let need = model_bytes(1_000_000, 5_000_000);
        assert_eq!(need, 1_000_000 * BYTES_PER_VERTEX + 5_000_000 * BYTES_PER_ELEMENT);
        let e = check_against("body[0].mesh", need, Some(100 << 20)).unwrap_err().to_string();
        assert!(e.starts_with("body[0].mesh: needs about 2686 MB, more than the 100 MB"), "{e}");
        assert!(!e.contains('\n'));
        assert!(check_against("m", need, Some(need)).is_ok());
        assert!(check_against("m", u64::MAX, None).is_ok(), "no limit known: no check");
        assert_eq!(parse_limit(" 100 ").unwrap(), 100 << 20);
        assert_eq!(parse_limit("abc").unwrap_err().to_string(), "XPBD_MEMORY_LIMIT_MB: 'abc' is not a whole number of megabytes (e.g. 4096)");
        assert_eq!(model_bytes(u64::MAX, u64::MAX), u64::MAX, "saturates instead of overflowing");
    }
}
