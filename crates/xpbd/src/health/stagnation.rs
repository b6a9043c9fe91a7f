//! The `stagnation` health check: a solve that has stopped making progress while the mesh folds. Its
//! relative residual stays put (each frame within [`STILL`] of the frame before) while its count of
//! inverted tetrahedra ends a window of frames higher than it began (docs/robustness.md).

use std::collections::VecDeque;

/// The largest relative change of the relative residual from one frame to the next that counts as not
/// moving.
pub const STILL: f64 = 1e-3;

/// The last frames' relative residuals and inverted counts.
#[derive(Clone, Debug)]
pub struct Stagnation {
    /// The window, in frames (0: the check is off).
    frames: usize,
    /// (relative residual, inverted tetrahedra) of the last `frames + 1` frames, oldest first.
    recent: VecDeque<(f64, usize)>,
}

impl Stagnation {
    pub fn new(frames: usize) -> Self {
        Stagnation { frames, recent: VecDeque::with_capacity(frames + 1) }
    }

    /// Records a frame; the cause when the window has stagnated. A residual of 0 (a direct solve, or
    /// converged) is never stagnation.
    pub fn push(&mut self, relative_residual: f64, inverted: usize) -> Option<String> {
        if self.frames == 0 {
            return None;
        }
        if self.recent.len() > self.frames {
            self.recent.pop_front();
        }
        self.recent.push_back((relative_residual, inverted));
        let (&(_, first), &(last_residual, last)) = (self.recent.front()?, self.recent.back()?);
        let still = self.recent.iter().zip(self.recent.iter().skip(1)).all(|(a, b)| a.0 > 0.0 && (b.0 - a.0).abs() <= STILL * a.0);
        (self.recent.len() > self.frames && still && last > first).then(|| {
            format!(
                "relative residual stuck at {last_residual:.4e} for {} frames while inverted tetrahedra grew from {first} to {last} (simulation.stagnation_frames = {})",
                self.frames, self.frames
            )
        })
    }
}
