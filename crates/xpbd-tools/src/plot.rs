//! Line plots as SVG and PNG, for the report files of the command line (`converge.svg`, `xpbd
//! report`). SVG text is written as `<text>` elements that the viewer lays out; PNG text is drawn
//! with DejaVu Sans, embedded in the binary (`assets/`, free licence beside it), so plots render on
//! a machine with no fonts installed.

use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use xpbd_core::{Error, Result};

/// One line of a panel. Lines with the same name have the same color in every panel and share
/// one entry of the legend.
#[derive(Clone, Debug)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// One chart: lines over a linear x axis starting at 0 and a linear or logarithmic y axis.
#[derive(Clone, Debug)]
pub struct Panel {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub log_y: bool,
    pub series: Vec<Series>,
}

/// A histogram of `values` over the bins between consecutive `edges` (ascending; a value on an inner
/// edge counts in the bin above it, one on the last edge in the last bin, values outside are left
/// out), as the step outline of the bar heights for a linear-axis [`Panel`].
pub fn histogram(name: &str, values: &[f64], edges: &[f64]) -> Series {
    let bins = edges.len().saturating_sub(1);
    let mut count = vec![0usize; bins];
    for &v in values {
        if bins > 0 && v >= edges[0] && v <= edges[bins] {
            count[edges[1..bins].partition_point(|&e| e <= v)] += 1;
        }
    }
    let mut points = Vec::with_capacity(2 * bins + 2);
    for (b, &c) in count.iter().enumerate() {
        if b == 0 {
            points.push((edges[0], 0.0));
        }
        points.push((edges[b], c as f64));
        points.push((edges[b + 1], c as f64));
    }
    if let Some(&last) = edges.last().filter(|_| bins > 0) {
        points.push((last, 0.0));
    }
    Series { name: name.into(), points }
}

/// Line colors (Tableau 10), cycled.
const COLORS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// Width and height of one panel in pixels.
const PANEL: (u32, u32) = (560, 420);
/// Height of the title strip and of one row of the legend.
const TITLE_H: u32 = 36;
const LEGEND_ROW_H: u32 = 24;
/// Legend entry width: the line sample plus ~7.5 px per character (a guess at a 13 px sans-serif
/// font; the viewer lays the text out).
fn entry_width(name: &str) -> u32 {
    40 + (7.5 * name.chars().count() as f64).ceil() as u32 + 24
}

/// Draws `panels` side by side under `title` (in rows of at most `MAX_COLUMNS`), with one legend for
/// all of them below, and returns
/// the SVG text. On a logarithmic axis, points with y ≤ 0 are left out (the line breaks there), as
/// are non-finite points on either axis.
pub fn panels_svg(title: &str, panels: &[Panel]) -> Result<String> {
    let mut svg = String::new();
    let size = canvas_size(panels);
    draw_panels(SVGBackend::with_string(&mut svg, size).into_drawing_area(), title, panels)?;
    Ok(svg)
}

/// The same figure as [`panels_svg`], as PNG bytes.
pub fn panels_png(title: &str, panels: &[Panel]) -> Result<Vec<u8>> {
    let (w, h) = canvas_size(panels);
    let mut rgb = vec![0u8; 3 * (w * h) as usize];
    draw_panels(BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area(), title, panels)?;
    crate::image_file::rgb_png(w, h, &rgb)
}

/// Legends with more names than this are left out: the ten colors repeat, so lines could not be told
/// apart by it anyway.
const MAX_LEGEND: usize = 20;

/// The legend's entries: the series names, or none when there are more than `MAX_LEGEND`.
fn legend_names(panels: &[Panel]) -> Vec<&str> {
    let names = series_names(panels);
    if names.len() > MAX_LEGEND {
        return vec![];
    }
    names
}

/// Each series name once, in order of appearance: the order of the colors.
fn series_names(panels: &[Panel]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for s in panels.iter().flat_map(|p| &p.series) {
        if !names.contains(&s.name.as_str()) {
            names.push(&s.name);
        }
    }
    names
}

/// Panels per row of the figure.
const MAX_COLUMNS: usize = 4;

/// Columns and rows of the panel grid.
fn grid(panels: &[Panel]) -> (usize, usize) {
    let n = panels.len().max(1);
    (n.min(MAX_COLUMNS), n.div_ceil(MAX_COLUMNS))
}

/// Width and height of the figure: the panel grid, the title above, the legend below.
fn canvas_size(panels: &[Panel]) -> (u32, u32) {
    let (columns, rows) = grid(panels);
    let width = PANEL.0 * columns as u32;
    let legend = legend_rows(&legend_names(panels), width - 40);
    (width, TITLE_H + PANEL.1 * rows as u32 + LEGEND_ROW_H * legend.len() as u32 + 12)
}

fn draw_panels<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, title: &str, panels: &[Panel]) -> Result<()>
where
    DB::ErrorType: 'static,
{
    // Text is measured (SVG, PNG) and drawn (PNG) with the embedded font.
    static FONT: std::sync::Once = std::sync::Once::new();
    FONT.call_once(|| {
        // Cannot fail for a valid TrueType file, which the embedded one is (the tests draw with it).
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, include_bytes!("../assets/DejaVuSans.ttf"));
    });
    let names = legend_names(panels);
    let width = root.dim_in_pixel().0;
    let rows = legend_rows(&names, width - 40);
    let order = series_names(panels);
    let color = |name: &str| COLORS[order.iter().position(|n| *n == name).unwrap_or(0) % COLORS.len()];
    {
        root.fill(&WHITE).map_err(plot_error)?;
        let (top, rest) = root.split_vertically(TITLE_H);
        let (columns, grid_rows) = grid(panels);
        let (charts, legend) = rest.split_vertically(PANEL.1 * grid_rows as u32);
        top.draw_text(title, &TextStyle::from(("sans-serif", 20)).pos(Pos::new(HPos::Center, VPos::Center)), (width as i32 / 2, TITLE_H as i32 / 2))
            .map_err(plot_error)?;
        for (area, panel) in charts.split_evenly((grid_rows, columns)).iter().zip(panels) {
            draw_panel(area, panel, &color)?;
        }
        for (r, row) in rows.iter().enumerate() {
            let row_w: u32 = row.iter().map(|n| entry_width(n)).sum();
            let mut x = (width.saturating_sub(row_w) / 2) as i32;
            let y = (LEGEND_ROW_H * r as u32 + LEGEND_ROW_H / 2) as i32;
            for name in row {
                let style = ShapeStyle::from(&color(name)).stroke_width(3);
                legend.draw(&PathElement::new([(x, y), (x + 30, y)], style)).map_err(plot_error)?;
                legend.draw_text(name, &TextStyle::from(("sans-serif", 14)).pos(Pos::new(HPos::Left, VPos::Center)), (x + 38, y)).map_err(plot_error)?;
                x += entry_width(name) as i32;
            }
        }
        root.present().map_err(plot_error)?;
    }
    Ok(())
}

/// Splits the legend entries into rows no wider than `width`.
fn legend_rows<'a>(names: &[&'a str], width: u32) -> Vec<Vec<&'a str>> {
    let mut rows: Vec<Vec<&str>> = Vec::new();
    let mut used = 0;
    for &n in names {
        let w = entry_width(n);
        match rows.last_mut() {
            Some(row) if used + w <= width => row.push(n),
            _ => {
                rows.push(vec![n]);
                used = 0;
            }
        }
        used += w;
    }
    rows
}

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Panel, color: &dyn Fn(&str) -> RGBColor) -> Result<()>
where
    DB::ErrorType: 'static,
{
    let usable = |q: &(f64, f64)| q.0.is_finite() && q.1.is_finite() && (!p.log_y || q.1 > 0.0);
    let points = || p.series.iter().flat_map(|s| s.points.iter()).filter(|q| usable(q));
    let x_max = points().map(|q| q.0).fold(0.0f64, f64::max);
    let x_range = 0.0..if x_max > 0.0 { x_max } else { 1.0 };
    let (lo, hi) = points().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q.1), hi.max(q.1)));
    let mut chart = ChartBuilder::on(area);
    chart.caption(&p.title, ("sans-serif", 16)).margin(12).x_label_area_size(40).y_label_area_size(70);
    let grid = RGBColor(235, 235, 235);
    if p.log_y {
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.1, 10.0) };
        // At least one decade, with a little room above and below.
        let (lo, hi) = if hi / lo < 10.0 { (lo / 3.0, hi * 3.0) } else { (lo / 1.5, hi * 1.5) };
        let mut c = chart.build_cartesian_2d(x_range, (lo..hi).log_scale()).map_err(plot_error)?;
        c.configure_mesh()
            .x_desc(&p.x_label)
            .y_desc(&p.y_label)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| format!("{v:.0e}"))
            .light_line_style(grid)
            .draw()
            .map_err(plot_error)?;
        draw_lines(&mut c, p, usable, color)
    } else {
        let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 1.0) };
        let pad = if hi > lo { 0.05 * (hi - lo) } else { 0.5 * lo.abs().max(1.0) };
        let mut c = chart.build_cartesian_2d(x_range, (lo - pad)..(hi + pad)).map_err(plot_error)?;
        c.configure_mesh()
            .x_desc(&p.x_label)
            .y_desc(&p.y_label)
            .x_label_formatter(&|v| tick(*v))
            .y_label_formatter(&|v| tick(*v))
            .light_line_style(grid)
            .draw()
            .map_err(plot_error)?;
        draw_lines(&mut c, p, usable, color)
    }
}

/// The lines of `p`, broken where a point is not usable.
fn draw_lines<'a, DB: DrawingBackend + 'a, Y: Ranged<ValueType = f64>>(
    c: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y>>,
    p: &Panel,
    usable: impl Fn(&(f64, f64)) -> bool + Copy,
    color: &dyn Fn(&str) -> RGBColor,
) -> Result<()> {
    for s in &p.series {
        let style = ShapeStyle::from(&color(&s.name)).stroke_width(2);
        for run in runs(&s.points, usable) {
            c.draw_series(LineSeries::new(run.iter().copied(), style)).map_err(plot_error)?;
        }
    }
    Ok(())
}

/// A linear-axis tick label: at most four decimals, without trailing zeros ("20", "0.25").
fn tick(v: f64) -> String {
    let s = format!("{v:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// The maximal runs of consecutive usable points, as slices of `points`.
fn runs(points: &[(f64, f64)], usable: impl Fn(&(f64, f64)) -> bool) -> Vec<&[(f64, f64)]> {
    points.split(|q| !usable(q)).filter(|r| !r.is_empty()).collect()
}

fn plot_error<E: std::error::Error>(e: E) -> Error {
    Error::invalid(format!("drawing the plot: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_counts_each_value_in_one_bin() {
        let h = histogram("h", &[0.0, 0.5, 1.0, 1.5, 2.0, 2.5, -1.0], &[0.0, 1.0, 2.0]);
        // Bins [0, 1) and [1, 2]: 0 and 0.5; 1, 1.5 and 2 (the last edge); 2.5 and −1 outside.
        assert_eq!(h.points, vec![(0.0, 0.0), (0.0, 2.0), (1.0, 2.0), (1.0, 3.0), (2.0, 3.0), (2.0, 0.0)]);
        assert!(histogram("empty", &[1.0], &[0.0]).points.is_empty());
    }

    #[test]
    fn draws_log_and_linear_panels_with_one_legend() {
        let line = |name: &str, f: fn(f64) -> f64| Series { name: name.into(), points: (0..=20).map(|i| (i as f64, f(i as f64))).collect() };
        let log = Panel {
            title: "decay".into(),
            x_label: "iteration".into(),
            y_label: "value".into(),
            log_y: true,
            series: vec![line("fast", |x| (-x).exp()), line("with a zero", |x| if x == 5.0 { 0.0 } else { 1.0 / (1.0 + x) })],
        };
        let lin = Panel { log_y: false, title: "linear".into(), ..log.clone() };
        let svg = panels_svg("test", &[log, lin]).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(100)]);
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("fast\n</text>").count(), 1, "one legend entry per name");
        assert_eq!(svg.matches("with a zero\n</text>").count(), 1);
        // Per name: its line in each panel (the zero breaks the log panel's second line in two)
        // plus the legend sample.
        let lines = |color: &str| svg.matches(&format!("<polyline fill=\"none\" opacity=\"1\" stroke=\"{color}\"")).count();
        assert_eq!(lines("#1F77B4"), 3);
        assert_eq!(lines("#FF7F0E"), 4);
    }

    #[test]
    fn png_has_the_svg_size_and_drawn_text() {
        let panel = Panel {
            title: "t".into(),
            x_label: "x".into(),
            y_label: "y".into(),
            log_y: false,
            series: vec![Series { name: "a".into(), points: vec![(0.0, 1.0), (1.0, 2.0)] }],
        };
        let png = panels_png("title", &[panel.clone(), panel.clone()]).unwrap();
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), canvas_size(&[panel.clone(), panel]));
        // The title's glyphs are drawn in black on the white strip above the panels.
        let title_strip = &buf[..3 * info.width as usize * TITLE_H as usize];
        assert!(title_strip.chunks(3).any(|p| p.iter().all(|&c| c < 100)), "no dark text pixels in the title strip");
    }

    #[test]
    fn panels_wrap_into_rows_of_four() {
        let panel = Panel { title: "t".into(), x_label: "x".into(), y_label: "y".into(), log_y: false, series: vec![] };
        assert_eq!(canvas_size(&vec![panel.clone(); 4]), (4 * PANEL.0, TITLE_H + PANEL.1 + 12));
        assert_eq!(canvas_size(&vec![panel; 7]), (4 * PANEL.0, TITLE_H + 2 * PANEL.1 + 12));
    }

    #[test]
    fn long_legends_are_left_out() {
        let series = (0..=MAX_LEGEND).map(|i| Series { name: format!("#{i}"), points: vec![(0.0, 1.0)] }).collect();
        let panel = Panel { title: "t".into(), x_label: "x".into(), y_label: "y".into(), log_y: false, series };
        assert!(legend_names(std::slice::from_ref(&panel)).is_empty());
        assert_eq!(canvas_size(&[panel]).1, TITLE_H + PANEL.1 + 12);
    }

    #[test]
    fn legend_rows_wrap() {
        let names = ["a", "bb", "ccc"];
        assert_eq!(legend_rows(&names, 1000).len(), 1);
        assert_eq!(legend_rows(&names, entry_width("a") + entry_width("bb")).len(), 2);
        assert_eq!(legend_rows(&names, 1).len(), 3);
    }

    #[test]
    fn tick_labels_drop_trailing_zeros() {
        assert_eq!(tick(20.0), "20");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(tick(-0.0), "0");
        assert_eq!(tick(1e-6), "0");
    }

    #[test]
    fn runs_split_at_unusable_points() {
        let p = [(0.0, 1.0), (1.0, 0.0), (2.0, 2.0), (3.0, 3.0), (4.0, f64::NAN)];
        let r = runs(&p, |q| q.1 > 0.0);
        assert_eq!(r.len(), 2);
        assert_eq!(r[1], &p[2..4]);
    }
}
