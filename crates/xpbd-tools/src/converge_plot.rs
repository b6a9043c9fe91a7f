//! The files of `xpbd converge`: `converge.csv` (`xpbd::converge::csv`) and its plot `converge.svg`.

use crate::plot::{panels_svg, Panel, Series};
use std::path::Path;
use xpbd::converge::{csv, Curve, Sample};
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::{Error, Result};

/// The three panels of `converge.svg`: relative residual and elastic energy against iteration, and
/// relative residual against solver wall time, all on a logarithmic y axis.
pub fn svg(title: &str, curves: &[Curve]) -> Result<String> {
    let series =
        |f: fn(&Sample) -> (f64, f64)| curves.iter().map(|c| Series { name: c.solver.clone(), points: c.samples.iter().map(f).collect() }).collect::<Vec<_>>();
    let panel = |title: &str, x: &str, y: &str, series| Panel { title: title.into(), x_label: x.into(), y_label: y.into(), log_y: true, series };
    panels_svg(
        title,
        &[
            panel("relative residual", "iteration", "‖r‖ / ‖r₀‖", series(|s| (s.iteration as f64, s.relative_residual))),
            panel("elastic energy", "iteration", "energy (J)", series(|s| (s.iteration as f64, s.energy))),
            panel("relative residual against time", "solver wall time (ms)", "‖r‖ / ‖r₀‖", series(|s| (s.wall_ms, s.relative_residual))),
        ],
    )
}

/// Writes `converge.csv` and `converge.svg` into `dir` (created when missing).
pub fn write_outputs(dir: &Path, title: &str, curves: &[Curve]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write_atomic(&dir.join("converge.csv"), csv(curves).as_bytes())?;
    write_atomic(&dir.join("converge.svg"), svg(title, curves)?.as_bytes())
}
