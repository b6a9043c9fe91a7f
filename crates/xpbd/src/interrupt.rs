//! Stopping a run between frames on SIGINT or SIGTERM (docs/robustness.md): the first signal lets the
//! current frame finish, then the run writes its last frame, a checkpoint and `summary.json` with
//! `status = "interrupted"`; a second signal ends the process at once with the conventional status
//! 128 + signal number.

use serde::Serialize;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use xpbd_core::{Error, Result};

/// A stop request set by the signal handlers of [`Interrupt::install`], with the command that resumes the run.
/// Clones share the request: `xpbd batch` gives one to each of its runs.
#[derive(Clone)]
pub struct Interrupt {
    /// The number of the first signal received (0: none yet).
    signal: Arc<AtomicUsize>,
    /// The command line that continues the run, recorded in `summary.json`.
    resume: String,
}

/// How a run was interrupted: `summary.json`'s `interrupted`.
#[derive(Clone, Debug, Serialize)]
pub struct Interrupted {
    /// `SIGINT` or `SIGTERM`.
    pub signal: &'static str,
    /// The last frame computed and written (the checkpoint's).
    pub frame: usize,
    /// The command that continues the run to its final frame.
    pub resume: String,
    /// The process's exit status: 128 + the signal number (130 for SIGINT, 143 for SIGTERM).
    #[serde(skip)]
    pub exit_code: i32,
}

impl Interrupt {
    /// Catches SIGINT and SIGTERM for the rest of the process: the first one is recorded for
    /// [`requested`](Self::requested); a second one exits at once with status 128 + its number.
    pub fn install(resume: String) -> Result<Self> {
        let signal = Arc::new(AtomicUsize::new(0));
        let again = Arc::new(AtomicBool::new(false));
        for sig in [SIGINT, SIGTERM] {
            let failed = |e: std::io::Error| Error::invalid(format!("cannot catch signal {sig}: {e}"));
            // Registered first, so it sees `again` as it was before this signal.
            signal_hook::flag::register_conditional_shutdown(sig, 128 + sig, again.clone()).map_err(failed)?;
            signal_hook::flag::register(sig, again.clone()).map_err(failed)?;
            signal_hook::flag::register_usize(sig, signal.clone(), sig as usize).map_err(failed)?;
        }
        Ok(Interrupt { signal, resume })
    }

    /// The signal that asked to stop, as its name and the exit status it calls for (128 + its number);
    /// `None` while none has.
    pub fn signal(&self) -> Option<(&'static str, i32)> {
        let sig = self.signal.load(Ordering::SeqCst) as i32;
        let name = match sig {
            SIGINT => "SIGINT",
            SIGTERM => "SIGTERM",
            _ => return None,
        };
        Some((name, 128 + sig))
    }

    /// The interruption to record after frame `frame`, when a signal has asked the run to stop.
    pub fn requested(&self, frame: usize) -> Option<Interrupted> {
        let (signal, exit_code) = self.signal()?;
        Some(Interrupted { signal, frame, resume: self.resume.clone(), exit_code })
    }
}
