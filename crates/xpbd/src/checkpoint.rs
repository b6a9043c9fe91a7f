//! Checkpoints: the full simulation state in a small versioned binary file, for a bit-exact
//! resume (`xpbd run --checkpoint-every N`, `--resume DIR`).
//!
//! What must be saved: the CPU backend keeps nothing between frames that a frame does not rebuild
//! (the previous positions, the velocities before the constraint solve, the attachment multipliers
//! and the contact list are all overwritten at each substep's start; the elastic multipliers are
//! reset each substep but kept in [`State`] for reporting, so they are saved too). Kinematic pins and
//! moving colliders depend only on the time. There is no random number generator. So [`State`] is
//! the whole state: positions, velocities, multipliers, time and frame counter, plus what a solver
//! carries between frames ([`Backend::carried`](xpbd_core::backend::Backend::carried): the
//! multi-layer solver's strain rates, the CPU XPBD sweeps' cloth hinge angles).
//!
//! Layout, all little-endian: `MAGIC` (8 bytes), version (u32), scene fingerprint (u64), frame
//! (u64), time (f64), vertex count n (u64), multiplier count m (u64), carried count k (u64, not in
//! version 1), checkpoint interval (u64, since version 3: a resumed run keeps checkpointing at it),
//! then n positions and n velocities (3 × f64 each), m multipliers and k carried values (f64).

use std::path::Path;
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::schema::Output;
use xpbd_core::scene::Scene;
use xpbd_core::state::State;
use xpbd_core::{Error, Result};

const MAGIC: &[u8; 8] = b"XPBDCKPT";
const VERSION: u32 = 3;
/// Version 2 had no checkpoint interval; it is still read (with none).
const VERSION_WITHOUT_INTERVAL: u32 = 2;
/// Version 1 had no carried values either; it is still read (with none).
const VERSION_WITHOUT_CARRIED: u32 = 1;
/// The checkpoint's file name inside a run folder.
pub const FILE: &str = "checkpoint.bin";

/// A 64-bit FNV-1a hash of the scene's settings that shape the state: everything but the frame count,
/// the output options and the camera, so a resumed run may run longer or write other formats.
pub fn fingerprint(scene: &Scene) -> u64 {
    let mut s = scene.clone();
    s.simulation.frames = 0;
    s.output = Output::default();
    s.render = None;
    crate::fnv::fnv1a(&serde_json::to_vec(&s).unwrap_or_default())
}

/// What a checkpoint holds besides the scene's fingerprint.
pub struct Checkpoint {
    pub state: State,
    /// What the solver carries between frames ([`Backend::carried`](xpbd_core::backend::Backend::carried)).
    pub carried: Vec<f64>,
    /// The run's checkpoint interval in frames (0: none, only a checkpoint on interruption); `None`
    /// in files before version 3.
    pub every: Option<usize>,
}

/// Writes `state`, the solver's `carried` values and the checkpoint interval `every` to `path` atomically.
pub fn write(path: &Path, scene_fingerprint: u64, state: &State, carried: &[f64], every: usize) -> Result<()> {
    let mut b = Vec::with_capacity(64 + 48 * state.x.len() + 8 * (state.lambda.len() + carried.len()));
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&scene_fingerprint.to_le_bytes());
    b.extend_from_slice(&(state.frame as u64).to_le_bytes());
    b.extend_from_slice(&state.time.to_le_bytes());
    b.extend_from_slice(&(state.x.len() as u64).to_le_bytes());
    b.extend_from_slice(&(state.lambda.len() as u64).to_le_bytes());
    b.extend_from_slice(&(carried.len() as u64).to_le_bytes());
    b.extend_from_slice(&(every as u64).to_le_bytes());
    for p in state.x.iter().chain(&state.v) {
        for c in [p.x, p.y, p.z] {
            b.extend_from_slice(&c.to_le_bytes());
        }
    }
    for l in state.lambda.iter().chain(carried) {
        b.extend_from_slice(&l.to_le_bytes());
    }
    write_atomic(path, &b)
}

/// Reads a checkpoint written for a scene with fingerprint `scene_fingerprint` into a state shaped
/// like `like` (the model's initial state).
pub fn read(path: &Path, scene_fingerprint: u64, like: &State) -> Result<Checkpoint> {
    let bytes = std::fs::read(path).map_err(|e| Error::io(path, e))?;
    let bad = |msg: String| Error::parse(path, None, msg);
    let mut r = Reader { b: &bytes, pos: 0 };
    if r.take(8) != Some(MAGIC.as_slice()) {
        return Err(bad("not an xpbd checkpoint (bad magic)".into()));
    }
    let version = r.uint(4).ok_or_else(|| bad("truncated header".into()))? as u32;
    if ![VERSION, VERSION_WITHOUT_INTERVAL, VERSION_WITHOUT_CARRIED].contains(&version) {
        return Err(bad(format!("checkpoint version {version} is not supported (expected {VERSION})")));
    }
    let header = [r.uint(8), r.uint(8), r.uint(8), r.uint(8), r.uint(8)];
    let carried = if version == VERSION_WITHOUT_CARRIED { Some(0) } else { r.uint(8) };
    let every = if version == VERSION { r.uint(8).map(Some) } else { Some(None) };
    let ([Some(fp), Some(frame), Some(time), Some(n), Some(m)], Some(k), Some(every)) = (header, carried, every) else {
        return Err(bad("truncated header".into()));
    };
    if fp != scene_fingerprint {
        return Err(bad("written for another scene (its settings differ from this scene's)".into()));
    }
    if n as usize != like.x.len() || m as usize != like.lambda.len() {
        return Err(bad(format!("holds {n} vertices and {m} multipliers, the scene has {} and {}", like.x.len(), like.lambda.len())));
    }
    if r.b.len() - r.pos != 8 * (6 * n as usize + m as usize + k as usize) {
        return Err(bad("truncated or oversized body".into()));
    }
    // The length check above makes every read below succeed.
    let mut f = || f64::from_bits(r.uint(8).unwrap_or(0));
    let mut vec3s = |k: usize| (0..k).map(|_| Vec3::new(f(), f(), f())).collect::<Vec<_>>();
    let x = vec3s(n as usize);
    let v = vec3s(n as usize);
    let lambda = (0..m).map(|_| f()).collect();
    let carried = (0..k).map(|_| f()).collect();
    let state = State { x, v, lambda, time: f64::from_bits(time), frame: frame as usize };
    Ok(Checkpoint { state, carried, every: every.map(|e| e as usize) })
}

struct Reader<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, k: usize) -> Option<&'a [u8]> {
        let s = self.b.get(self.pos..self.pos + k)?;
        self.pos += k;
        Some(s)
    }
    /// A little-endian unsigned integer of `k` ≤ 8 bytes.
    fn uint(&mut self, k: usize) -> Option<u64> {
        let mut w = [0u8; 8];
        w[..k].copy_from_slice(self.take(k)?);
        Some(u64::from_le_bytes(w))
    }
}
