//! The files of `xpbd converge`: `converge.csv` (`xpbd::converge::csv`) and its plot, `converge.svg` and
//! `converge.png`.

use crate::plot::{panels_png, panels_svg, Panel, Series};
use std::path::Path;
use xpbd::converge::{csv, Curve, Sample};
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::{Error, Result};

/// The three panels of the plot: relative residual and elastic energy against iteration, and
/// relative residual against solver wall time, all on a logarithmic y axis.
fn panels(curves: &[Curve]) -> [Panel; 3] {
    let series =
        |f: fn(&Sample) -> (f64, f64)| curves.iter().map(|c| Series { name: c.solver.clone(), points: c.samples.iter().map(f).collect() }).collect::<Vec<_>>();
    let panel = |title: &str, x: &str, y: &str, series| Panel { title: title.into(), x_label: x.into(), y_label: y.into(), log_y: true, series };
    [
        panel("relative residual", "iteration", "‖r‖ / ‖r₀‖", series(|s| (s.iteration as f64, s.relative_residual))),
        panel("elastic energy", "iteration", "energy (J)", series(|s| (s.iteration as f64, s.energy))),
        panel("relative residual against time", "solver wall time (ms)", "‖r‖ / ‖r₀‖", series(|s| (s.wall_ms, s.relative_residual))),
    ]
}

/// Writes `converge.csv`, `converge.svg` and `converge.png` into `dir` (created when missing).
pub fn write_outputs(dir: &Path, title: &str, curves: &[Curve]) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let panels = panels(curves);
    write_atomic(&dir.join("converge.csv"), csv(curves).as_bytes())?;
    write_atomic(&dir.join("converge.svg"), panels_svg(title, &panels)?.as_bytes())?;
    write_atomic(&dir.join("converge.png"), &panels_png(title, &panels)?)
}
