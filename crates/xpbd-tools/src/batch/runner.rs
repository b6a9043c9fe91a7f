//! Runs a manifest's runs with J worker threads, each run in its own folder. Resumable: runs listed
//! in the results file are skipped, a run folder with a `summary.json` is listed without running
//! again, and an interrupted run continues from its checkpoint (or from the start without one).
//! With GPUs to spread over ([`Options::gpus`]), a worker holds one free GPU for each run it starts, one
//! run per GPU at a time; a run whose scene leaves the device to `auto` runs as `auto:N` on the GPU its
//! worker holds, or on the CPU when every GPU is taken.
//! With an [`Interrupt`] ([`Options::interrupt`]), SIGINT or SIGTERM stops the batch: no run starts
//! after it, and each running run stops after its current frame with its checkpoint and an
//! `interrupted` summary, which the next start continues from; such runs are not listed in the results file.

use super::manifest::{self, RunSpec};
use super::results::Results;
use serde_json::{json, Value};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use xpbd::checkpoint;
use xpbd::interrupt::Interrupt;
use xpbd::{Device, Simulation};
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::{Error, Result};

/// Runs `index` with `index % count == shard.index` belong to the shard.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::str::FromStr for Shard {
    type Err = String;
    /// `I/N` with 0 ≤ I < N.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let (i, n) = s.split_once('/').ok_or_else(|| format!("'{s}' is not I/N"))?;
        let (index, count) =
            (i.trim().parse().map_err(|_| format!("'{i}' is not a shard index"))?, n.trim().parse().map_err(|_| format!("'{n}' is not a shard count"))?);
        if count == 0 || index >= count {
            return Err(format!("'{s}': need 0 ≤ I < N"));
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// The shard of a Slurm job array task: `SLURM_ARRAY_TASK_ID` − `SLURM_ARRAY_TASK_MIN` of
    /// `SLURM_ARRAY_TASK_COUNT` (or MAX − MIN + 1). `None` outside a job array.
    pub fn from_slurm(var: impl Fn(&str) -> Option<String>) -> std::result::Result<Option<Self>, String> {
        let num = |name: &str| var(name).map(|v| v.trim().parse::<usize>().map_err(|_| format!("{name}={v} is not a number"))).transpose();
        let Some(id) = num("SLURM_ARRAY_TASK_ID")? else { return Ok(None) };
        let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let count = match (num("SLURM_ARRAY_TASK_COUNT")?, num("SLURM_ARRAY_TASK_MAX")?) {
            (Some(c), _) => c,
            (None, Some(max)) => max + 1 - min.min(max),
            (None, None) => return Err("SLURM_ARRAY_TASK_ID is set but neither SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX".into()),
        };
        format!("{}/{count}", id.saturating_sub(min)).parse().map(Some).map_err(|e| format!("Slurm array task: {e}"))
    }
}

pub struct Options {
    pub out: PathBuf,
    pub jobs: usize,
    pub shard: Option<Shard>,
    /// The CUDA devices to spread runs over (`xpbd batch --gpus`); empty: every run follows its scene's
    /// `simulation.device` as a single run would.
    pub gpus: Vec<usize>,
    /// The signal request shared by every run (`xpbd batch` installs one); `None`: runs ignore signals.
    pub interrupt: Option<Interrupt>,
}

/// The GPUs a batch spreads runs over: each is held by at most one run at a time.
struct GpuPool {
    free: Mutex<Vec<usize>>,
}

/// A GPU held for one run, handed back when dropped.
struct HeldGpu<'a> {
    pool: &'a GpuPool,
    ordinal: usize,
}

impl GpuPool {
    fn new(ordinals: &[usize]) -> Self {
        GpuPool { free: Mutex::new(ordinals.iter().rev().copied().collect()) }
    }

    /// A free GPU, the lowest ordinal first; `None` while every one is held.
    fn hold(&self) -> Option<HeldGpu<'_>> {
        let ordinal = self.free.lock().unwrap_or_else(|p| p.into_inner()).pop()?;
        Some(HeldGpu { pool: self, ordinal })
    }
}

impl Drop for HeldGpu<'_> {
    fn drop(&mut self) {
        let mut free = self.pool.free.lock().unwrap_or_else(|p| p.into_inner());
        free.push(self.ordinal);
        free.sort_unstable_by(|a, b| b.cmp(a));
    }
}

/// The device a run is given where the batch spreads runs over GPUs (`spreading`): a scene that leaves the
/// choice to `auto` gets `auto:N` on the GPU `held`, or the CPU when its worker holds none; a scene that
/// names its device, and every scene when not spreading, keeps its own (`None`).
fn device_for(scene_device: &str, spreading: bool, held: Option<usize>) -> Option<Device> {
    (spreading && scene_device == "auto").then(|| held.map_or(Device::Cpu, Device::AutoOn))
}

/// What a batch invocation did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Runs in this shard.
    pub selected: usize,
    /// Already listed when it started.
    pub skipped: usize,
    /// Listed by this invocation, by status (`completed`, `failed`, `error`).
    pub completed: usize,
    pub failed: usize,
    pub errors: usize,
    /// Stopped by a signal mid-way (not listed): their names, in the order they stopped.
    pub interrupted: Vec<String>,
    /// Runs of this invocation that a signal kept from starting.
    pub not_started: usize,
    /// The signal that stopped the batch, as its name and exit status (130 for SIGINT, 143 for SIGTERM).
    pub signal: Option<(&'static str, i32)>,
}

/// Runs the manifest's runs of this shard that are not finished yet. `log` receives one line when a
/// run starts and one when it ends, each starting with `[i/N] RUN` (the run's place among the N this
/// invocation runs).
pub fn run(manifest_path: &Path, opts: &Options, log: &(dyn Fn(&str) + Sync)) -> Result<Outcome> {
    let m = manifest::load(manifest_path)?;
    std::fs::create_dir_all(&opts.out).map_err(|e| Error::io(&opts.out, e))?;
    let results_name = match opts.shard {
        Some(s) => format!("results.shard-{}-of-{}.jsonl", s.index, s.count),
        None => "results.jsonl".to_string(),
    };
    let results = Results::open(&opts.out.join(results_name))?;
    let mine: Vec<&RunSpec> = m.runs.iter().enumerate().filter(|(i, _)| opts.shard.is_none_or(|s| i % s.count == s.index)).map(|(_, r)| r).collect();
    let todo: Vec<&RunSpec> = mine.iter().copied().filter(|r| !results.done.contains(&r.name)).collect();
    let pool = GpuPool::new(&opts.gpus);
    let next = AtomicUsize::new(0);
    let counts = [AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0)];
    let first_error = std::sync::Mutex::new(None);
    let interrupted = Mutex::new(Vec::new());
    let signal = || opts.interrupt.as_ref().and_then(Interrupt::signal);
    std::thread::scope(|scope| {
        for _ in 0..opts.jobs.max(1).min(todo.len().max(1)) {
            scope.spawn(|| loop {
                if signal().is_some() {
                    break;
                }
                let i = next.fetch_add(1, Ordering::SeqCst);
                let Some(r) = todo.get(i) else { break };
                let counter = format!("[{}/{}] {}", i + 1, todo.len(), r.name);
                let held = pool.hold();
                let device = device_for(&r.scene.simulation.device, !opts.gpus.is_empty(), held.as_ref().map(|h| h.ordinal));
                log(&format!("{counter}: started{}", device.map(|d| format!(" ({})", describe(d))).unwrap_or_default()));
                let record = record(r, &opts.out, m.checkpoint_every, device, opts.interrupt.as_ref());
                drop(held);
                let status = record["status"].as_str().unwrap_or("error");
                if status == "interrupted" {
                    log(&format!("{counter}: interrupted after frame {}", record["frames"]));
                    interrupted.lock().unwrap_or_else(|p| p.into_inner()).push(r.name.clone());
                    continue;
                }
                counts[match status {
                    "completed" => 0,
                    "failed" => 1,
                    _ => 2,
                }]
                .fetch_add(1, Ordering::SeqCst);
                log(&format!("{counter}: {status}{}", record["error"].as_str().map(|e| format!(" ({e})")).unwrap_or_default()));
                if let Err(e) = results.append(&record) {
                    first_error.lock().unwrap_or_else(|p| p.into_inner()).get_or_insert(e);
                }
            });
        }
    });
    if let Some(e) = first_error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        return Err(e);
    }
    let c = |k: usize| counts[k].load(Ordering::SeqCst);
    let interrupted = interrupted.into_inner().unwrap_or_else(|p| p.into_inner());
    let not_started = todo.len() - c(0) - c(1) - c(2) - interrupted.len();
    Ok(Outcome {
        selected: mine.len(),
        skipped: mine.len() - todo.len(),
        completed: c(0),
        failed: c(1),
        errors: c(2),
        interrupted,
        not_started,
        signal: signal(),
    })
}

/// `auto:N` or `cpu`, for the log.
fn describe(device: Device) -> String {
    match device {
        Device::AutoOn(n) => format!("auto:{n}"),
        Device::Cuda(n) => format!("cuda:{n}"),
        Device::Auto => "auto".into(),
        Device::Cpu => "cpu".into(),
    }
}

/// Runs one run (unless its folder already holds a `summary.json` of a run that was not interrupted) on
/// `device` (`None`: its scene's), stopping on `interrupt`'s signal, and returns its results line.
fn record(r: &RunSpec, out: &Path, checkpoint_every: usize, device: Option<Device>, interrupt: Option<&Interrupt>) -> Value {
    let dir = out.join(&r.name);
    let params: serde_json::Map<String, Value> = r.params.iter().map(|(k, v)| (k.clone(), serde_json::to_value(v).unwrap_or(Value::Null))).collect();
    let base = json!({ "run": r.name, "dir": r.name, "scene": r.scene_path.display().to_string(), "params": params });
    let summary_path = dir.join("summary.json");
    let outcome = match read_summary(&summary_path).filter(|s| s["status"] != "interrupted") {
        Some(s) => Ok(s),
        None => catch_unwind(AssertUnwindSafe(|| simulate(r, &dir, checkpoint_every, device, interrupt)))
            .unwrap_or_else(|p| Err(Error::invalid(format!("internal error: {}", xpbd_core::error::panic_message(p.as_ref()).unwrap_or_default()))))
            .and_then(|()| read_summary(&summary_path).ok_or_else(|| Error::invalid(format!("{}: missing after the run", summary_path.display())))),
    };
    let mut rec = base;
    match outcome {
        Ok(s) => {
            for key in ["status", "frames", "ms_per_frame", "ms_per_substep", "wall_time_s", "final", "failure", "backend", "device"] {
                if let Some(v) = s.get(key) {
                    rec[key] = v.clone();
                }
            }
        }
        Err(e) => {
            rec["status"] = json!("error");
            rec["error"] = json!(e.to_string());
        }
    }
    rec
}

/// Runs the simulation into `dir`, continuing from its checkpoint when one is there. A blow-up is a
/// result (its `summary.json` says `failed`), not an error; so is a stop on `interrupt`'s signal (`interrupted`).
fn simulate(r: &RunSpec, dir: &Path, checkpoint_every: usize, device: Option<Device>, interrupt: Option<&Interrupt>) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write_atomic(&dir.join("scene.toml"), r.scene_text.as_bytes())?;
    let base = r.scene_path.parent().unwrap_or(Path::new("."));
    let mut sim = Simulation::from_scene(r.scene.clone(), base, device, &r.scene_path)?;
    sim.checkpoint_every = checkpoint_every;
    if dir.join(checkpoint::FILE).exists() && sim.resume(dir).is_err() {
        // A checkpoint of another version of the scene: start again.
        sim = Simulation::from_scene(r.scene.clone(), base, device, &r.scene_path)?;
        sim.checkpoint_every = checkpoint_every;
    }
    sim.interrupt = interrupt.cloned();
    match sim.run(dir, None, &mut |_, _, _| {}) {
        Ok(_) => Ok(()),
        Err(_) if read_summary(&dir.join("summary.json")).is_some() => Ok(()),
        Err(e) => Err(e),
    }
}

fn read_summary(path: &Path) -> Option<Value> {
    std::fs::read(path).ok().and_then(|b| serde_json::from_slice(&b).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each GPU is held by one run at a time, the lowest free ordinal first, and handed back when the run ends.
    #[test]
    fn a_gpu_is_held_by_one_run_at_a_time() {
        let pool = GpuPool::new(&[0, 2]);
        let a = pool.hold().unwrap();
        let b = pool.hold().unwrap();
        assert_eq!((a.ordinal, b.ordinal), (0, 2));
        assert!(pool.hold().is_none(), "both GPUs are held");
        drop(a);
        assert_eq!(pool.hold().map(|h| h.ordinal), Some(0));
        assert!(GpuPool::new(&[]).hold().is_none());
        // Many workers: never two at once on one GPU.
        let pool = GpuPool::new(&[0, 1]);
        let busy = [AtomicUsize::new(0), AtomicUsize::new(0)];
        std::thread::scope(|s| {
            for _ in 0..6 {
                s.spawn(|| {
                    for _ in 0..200 {
                        if let Some(h) = pool.hold() {
                            assert_eq!(busy[h.ordinal].fetch_add(1, Ordering::SeqCst), 0, "GPU {} held twice", h.ordinal);
                            std::thread::yield_now();
                            busy[h.ordinal].fetch_sub(1, Ordering::SeqCst);
                        }
                    }
                });
            }
        });
    }

    /// Spreading: `auto` scenes go to the held GPU as `auto:N`, or to the CPU without one; scenes that name a
    /// device keep it, and nothing changes when the batch does not spread.
    #[test]
    fn runs_get_the_held_gpu_or_the_cpu() {
        assert_eq!(device_for("auto", true, Some(1)), Some(Device::AutoOn(1)));
        assert_eq!(device_for("auto", true, None), Some(Device::Cpu));
        assert_eq!(device_for("cuda:0", true, Some(1)), None);
        assert_eq!(device_for("cpu", true, None), None);
        assert_eq!(device_for("auto", false, Some(1)), None);
    }

    #[test]
    fn shards_parse_and_come_from_slurm_arrays() {
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
        assert!("5/5".parse::<Shard>().is_err() && "1/0".parse::<Shard>().is_err() && "x".parse::<Shard>().is_err());
        let env = |vars: &'static [(&'static str, &'static str)]| move |k: &str| vars.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string());
        assert_eq!(Shard::from_slurm(env(&[])), Ok(None));
        assert_eq!(Shard::from_slurm(env(&[("SLURM_ARRAY_TASK_ID", "3"), ("SLURM_ARRAY_TASK_COUNT", "8")])), Ok(Some(Shard { index: 3, count: 8 })));
        // --array=1-4: ids 1..=4 are shards 0..=3 of 4.
        let one_based = env(&[("SLURM_ARRAY_TASK_ID", "4"), ("SLURM_ARRAY_TASK_MIN", "1"), ("SLURM_ARRAY_TASK_MAX", "4")]);
        assert_eq!(Shard::from_slurm(one_based), Ok(Some(Shard { index: 3, count: 4 })));
        assert!(Shard::from_slurm(env(&[("SLURM_ARRAY_TASK_ID", "3")])).unwrap_err().contains("SLURM_ARRAY_TASK_COUNT"));
        assert!(Shard::from_slurm(env(&[("SLURM_ARRAY_TASK_ID", "x"), ("SLURM_ARRAY_TASK_COUNT", "8")])).unwrap_err().contains("SLURM_ARRAY_TASK_ID=x"));
    }
}
