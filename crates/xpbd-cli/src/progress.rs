//! Progress of a simulation on standard error (docs/output-format.md, "Progress"): on a terminal, a bar
//! that moves as frames end, with a spinner and the elapsed time redrawn every [`TICK`] in between, so
//! that a slow frame is seen to be alive; otherwise (a pipe, a file, a batch job's log) one line when the first
//! frame ends and then at most one every [`LOG_INTERVAL`]: `NAME: frame D/T, Xs elapsed, eta Ys[, residual R]`
//! (R: the frame's relative residual, where the run reports one; the bar shows it beside the name).

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use xpbd::converge::RunUp;

/// The least time between two progress lines when standard error is not a terminal.
pub const LOG_INTERVAL: Duration = Duration::from_secs(5);
/// How often the bar is redrawn between frames (by indicatif's own thread, whatever the run is doing).
pub const TICK: Duration = Duration::from_millis(500);

enum Sink {
    Bar(ProgressBar),
    Log { last: Option<Instant> },
    Quiet,
}

pub struct Progress {
    name: String,
    sink: Sink,
    start: Instant,
    /// The frame the run started from (a resumed run's ETA counts only the frames it ran).
    first: usize,
    total: usize,
}

impl Progress {
    /// Progress of `name` from frame `first` to `total`; nothing at all when `quiet`.
    pub fn new(name: &str, first: usize, total: usize, quiet: bool) -> Self {
        let sink = if quiet {
            Sink::Quiet
        } else if std::io::stderr().is_terminal() {
            let b = ProgressBar::new(total as u64);
            b.set_position(first as u64);
            let template = "{spinner} {msg} [{bar:40}] {pos}/{len} frames, {elapsed} elapsed, eta {eta}";
            b.set_style(ProgressStyle::with_template(template).unwrap().progress_chars("=> "));
            b.set_message(name.to_string());
            b.enable_steady_tick(TICK);
            Sink::Bar(b)
        } else {
            Sink::Log { last: None }
        };
        Progress { name: name.into(), sink, start: Instant::now(), first, total }
    }

    /// Frame `done` has ended, with the relative residual `residual` where the run has one.
    pub fn frame(&mut self, done: usize, residual: Option<f64>) {
        match &mut self.sink {
            Sink::Bar(b) => {
                if let Some(r) = residual {
                    b.set_message(format!("{} (residual {r:.1e})", self.name));
                }
                b.set_position(done as u64)
            }
            Sink::Log { last } => {
                let now = Instant::now();
                if last.is_none_or(|t| now - t >= LOG_INTERVAL) {
                    *last = Some(now);
                    eprintln!("{}", line(&self.name, done, self.total, done.saturating_sub(self.first), now - self.start, residual));
                }
            }
            Sink::Quiet => {}
        }
    }

    /// Removes the bar (a log keeps its lines).
    pub fn finish(self) {
        if let Sink::Bar(b) = self.sink {
            b.finish_and_clear();
        }
    }
}

/// A progress line: frame `done` of `total`, `ran` frames in `elapsed`, the time the remaining frames take at
/// that pace, and the frame's relative residual when given.
fn line(name: &str, done: usize, total: usize, ran: usize, elapsed: Duration, residual: Option<f64>) -> String {
    let left = total.saturating_sub(done);
    let eta = if ran > 0 { format!("{:.0}s", elapsed.as_secs_f64() * left as f64 / ran as f64) } else { "?".into() };
    let residual = residual.map_or(String::new(), |r| format!(", residual {r:.1e}"));
    format!("{name}: frame {done}/{total}, {:.0}s elapsed, eta {eta}{residual}", elapsed.as_secs_f64())
}

/// The callback of `xpbd::converge::run_up` for `converge` and `export-system`: prints the scene's
/// warnings once it is loaded, then the run-up's progress (no bar for a run-up of no frames).
pub fn run_up(quiet: bool) -> impl FnMut(RunUp) {
    let mut progress: Option<Progress> = None;
    move |event| match event {
        RunUp::Loaded { scene, warnings, frame } => {
            for w in warnings {
                eprintln!("warning: {w}");
            }
            progress = (frame > 0).then(|| Progress::new(scene, 0, frame, quiet));
        }
        RunUp::Frame { done, total } => {
            let Some(p) = &mut progress else { return };
            p.frame(done, None);
            if done == total {
                if let Some(p) = progress.take() {
                    p.finish();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_give_frame_elapsed_and_eta() {
        assert_eq!(line("s", 10, 40, 10, Duration::from_secs(5), None), "s: frame 10/40, 5s elapsed, eta 15s");
        assert_eq!(line("s", 10, 40, 0, Duration::from_secs(5), None), "s: frame 10/40, 5s elapsed, eta ?");
        assert_eq!(line("s", 40, 40, 30, Duration::from_secs(3), Some(1.24e-3)), "s: frame 40/40, 3s elapsed, eta 0s, residual 1.2e-3");
    }
}
