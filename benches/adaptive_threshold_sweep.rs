//! Thesis "Adaptive methods for elastic deformation", Figure 3.3, in 3D: error and cost of adaptive
//! rigidification against the elastification threshold τ_E (with τ_R = 0.1 τ_E).
//!
//! A cantilever (box 1 × 0.1 × 0.1 m, 30 × 3 × 3 cells of 5 tets = 1350 tets, neo-Hookean block, E = 1e7 Pa,
//! ν = 0.3, ρ = 1000 kg/m³, rayleigh [2 1/s, 0.002 s]) is pinned at x = 0 and released under gravity at rest:
//! it sags about 12 cm, oscillates a few times and settles by t ≈ 3 s. The push: a kinematic sphere collider
//! (radius 5 cm, under the free end at x = 0.95 m) rises by 0.3 m between t = 4.0 s and 4.2 s, so that its top
//! goes from 35 cm to 5 cm below the beam's rest line (the rested tip's underside is at about −12 cm, so it
//! lifts the tip by ~6 cm), and drops back by t = 4.3 s; the beam oscillates again and settles by 7 s.
//! dt = 10 ms, 2 implicit steps per frame, 700 frames. `implicit` gives the reference trajectory; then
//! `adaptive` for τ_E ∈ {1, 1e-1, …, 1e-6}. The error is max over frames and vertices of
//! |x_adaptive − x_implicit| / 1 m; the speed-up is the implicit run's wall time over the adaptive run's.
//! Writes benches/results/adaptive_threshold_sweep.txt and docs/figures/adaptive_threshold_sweep.svg (and a PNG
//! copy to the path in `ADBENCH_PNG` when set).
//!
//! Run: `cargo bench -p xpbd-benches --bench adaptive_threshold_sweep` (about 2 min on 2 cores; add
//! `-- NX` for NX × 3 × 3 cells instead of 30 × 3 × 3).

#[path = "adaptive_common.rs"]
mod common;

use plotters::prelude::*;
use std::path::Path;

const FRAMES: usize = 700;
const LENGTH: f64 = 1.0;

fn scene(nx: usize, adaptive: Option<(f64, f64)>) -> String {
    common::header("cantilever_sweep", 0.01, 2, FRAMES, &common::solver(adaptive))
        + &format!(
            r#"[[body]]
name = "beam"
mesh = {{ generator = "box", size = [{LENGTH}, 0.1, 0.1], cells = [{nx}, 3, 3] }}
material = {{ model = "neohookean_block", youngs = 1.0e7, poisson = 0.3, density = 1000.0 }}
rayleigh = [2.0, 0.002]
pin = [{{ box = {{ min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] }} }}]
[[collider]]
kind = "sphere"
center = [0.95, -0.4, 0.05]
radius = 0.05
path = [{{ t = 4.0, translate = [0.0, 0.0, 0.0] }}, {{ t = 4.2, translate = [0.0, 0.3, 0.0] }}, {{ t = 4.3, translate = [0.0, 0.0, 0.0] }}]
"#
        )
}

fn main() {
    let nx: usize = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(30);
    let reference = common::run(&scene(nx, None), FRAMES, true);
    if let Some(f) = &reference.failure {
        println!("implicit reference failed at {f}");
    }
    let t_ref = reference.total();
    let tip = (0..reference.model.vertex_count())
        .filter(|&v| (reference.model.rest[v].x - LENGTH).abs() < 1e-9)
        .min_by(|&a, &b| reference.model.rest[a].y.total_cmp(&reference.model.rest[b].y))
        .unwrap();
    let tip_y = |k: usize| reference.frames.get(k).map_or(f64::NAN, |f| f[tip].y);
    let mut out = format!(
        "cantilever {} tets, {} vertices, {FRAMES} frames of 10 ms (2 steps each), {} rayon threads\n\
         tip underside y: {:.4} m at 1 s, {:.4} m at 4 s (rested), {:.4} m at 4.2 s (pushed), {:.4} m at 7 s\n\
         implicit: {t_ref:.2} s total ({:.2} ms/frame)\n\n\
         | τ_E | τ_R | max error / length | wall time (s) | speed-up | 1/speed-up | mean rigid fraction | pattern changes | failure |\n\
         |---|---|---|---|---|---|---|---|---|\n",
        reference.model.element_count(),
        reference.model.vertex_count(),
        rayon::current_num_threads(),
        tip_y(99),
        tip_y(399),
        tip_y(419),
        tip_y(FRAMES - 1),
        1e3 * t_ref / FRAMES as f64
    );
    print!("{out}");
    let mut points = Vec::new();
    for k in 0..=6 {
        let tau_e = 10f64.powi(-k);
        let run = common::run(&scene(nx, Some((tau_e, 0.1 * tau_e))), FRAMES, true);
        let error = common::max_error(&run, &reference) / LENGTH;
        let speedup = t_ref / run.total();
        let line = format!(
            "| {tau_e:.0e} | {:.0e} | {error:.3e} | {:.2} | {speedup:.2} | {:.3} | {:.3} | {} | {} |\n",
            0.1 * tau_e,
            run.total(),
            1.0 / speedup,
            run.mean_rigid(),
            run.switches,
            run.failure.as_deref().unwrap_or("")
        );
        print!("{line}");
        out += &line;
        points.push((tau_e, error, 1.0 / speedup));
    }
    common::save("adaptive_threshold_sweep", &out);
    plot(&points, reference.model.element_count()).expect("plot");
}

/// Writes the SVG, and a PNG copy to the path in `ADBENCH_PNG` when it is set (for a look without an SVG viewer).
fn plot(points: &[(f64, f64, f64)], tets: usize) -> Result<(), Box<dyn std::error::Error>> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/figures/adaptive_threshold_sweep.svg");
    std::fs::create_dir_all(path.parent().unwrap())?;
    let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, include_bytes!("../crates/xpbd-tools/assets/DejaVuSans.ttf"));
    draw(SVGBackend::new(&path, (720, 480)).into_drawing_area(), points, tets)?;
    println!("wrote docs/figures/adaptive_threshold_sweep.svg");
    if let Some(png) = std::env::var_os("ADBENCH_PNG") {
        let mut rgb = vec![0u8; 3 * 720 * 480];
        draw(BitMapBackend::with_buffer(&mut rgb, (720, 480)).into_drawing_area(), points, tets)?;
        std::fs::write(png, xpbd_tools::image_file::rgb_png(720, 480, &rgb)?)?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, plotters::coord::Shift>, points: &[(f64, f64, f64)], tets: usize) -> Result<(), Box<dyn std::error::Error>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let ys = points.iter().flat_map(|p| [p.1, p.2]).filter(|y| *y > 0.0 && y.is_finite());
    let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), y| (lo.min(y), hi.max(y)));
    let (lo, hi) = if lo.is_finite() { (lo / 2.0, hi * 2.0) } else { (1e-4, 10.0) };
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Adaptive rigidification, 3D cantilever ({tets} tets): error and cost against τ_E"), ("sans-serif", 16))
        .margin(14)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d((5e-7f64..2.0).log_scale(), (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("elastification threshold τ_E (1/s², τ_R = 0.1 τ_E)")
        .y_desc("value")
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let blue = RGBColor(31, 119, 180);
    let orange = RGBColor(255, 127, 14);
    let err: Vec<(f64, f64)> = points.iter().filter(|p| p.1 > 0.0).map(|p| (p.0, p.1)).collect();
    let cost: Vec<(f64, f64)> = points.iter().map(|p| (p.0, p.2)).collect();
    chart
        .draw_series(LineSeries::new(err.clone(), blue.stroke_width(2)))?
        .label("max vertex error / length")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], blue.stroke_width(2)));
    chart.draw_series(err.iter().map(|&p| Circle::new(p, 4, blue.filled())))?;
    chart
        .draw_series(LineSeries::new(cost.clone(), orange.stroke_width(2)))?
        .label("1 / speed-up (adaptive time / implicit time)")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 24, y)], orange.stroke_width(2)));
    chart.draw_series(cost.iter().map(|&p| Circle::new(p, 4, orange.filled())))?;
    chart.configure_series_labels().background_style(WHITE.mix(0.9)).border_style(BLACK).position(SeriesLabelPosition::LowerRight).draw()?;
    root.present()?;
    Ok(())
}
