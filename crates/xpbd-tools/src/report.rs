//! `xpbd report DIR`: a Markdown table of a run or a batch (one row per run: parameters, status,
//! frames, ms per frame, final residual and energy, its latest rendered picture) and one figure,
//! as SVG and PNG, of time per frame, relative residual and elastic energy against the frame; for one
//! run, energy is elastic, kinetic and total, followed by inverted elements and the probes' displacements.

use crate::batch::results;
use crate::plot::{panels_png, panels_svg, Panel, Series};
use crate::render::{available_frames, render_frames};
use serde_json::{json, Value};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use xpbd_core::mesh::io::write_atomic;
use xpbd_core::{Error, Result};

/// The files a report wrote and the number of table rows.
#[derive(Debug)]
pub struct Report {
    pub markdown: PathBuf,
    pub svg: PathBuf,
    pub png: PathBuf,
    pub rows: usize,
}

/// One run of the report: its folder (relative to the report's) and its record.
struct Entry {
    dir: String,
    record: Value,
}

/// Writes `report.md`, `report.svg` and `report.png` into `dir`, a run folder (with `summary.json`)
/// or a batch folder (with `results*.jsonl`). With `render`, each run with VTU frames and no picture
/// yet first gets one of its last frame (`render/frame_NNNNN.png`, 320×240).
pub fn write(dir: &Path, render: bool) -> Result<Report> {
    let entries = entries(dir)?;
    let one_run = matches!(entries.as_slice(), [e] if e.dir == ".");
    let alt = if one_run { "time per frame, residual, energies, inverted elements and probes" } else { "time per frame, residual and energy" };
    let mut md = format!("# Report: {}\n\n![{alt}](report.png)\n\n", dir.display());
    md.push_str("| # | run | parameters | status | frames | ms/frame | final relative residual | final elastic energy (J) | picture |\n");
    md.push_str("|---|---|---|---|---|---|---|---|---|\n");
    let mut panels = vec![panel("solve time per frame", "ms", false), panel("relative residual (last substep)", "‖r‖/‖r₀‖", true)];
    if !one_run {
        panels.push(panel("elastic energy", "J", false));
    }
    for (i, e) in entries.iter().enumerate() {
        let r = &e.record;
        let params = r["params"].as_object().map(|m| m.iter().map(|(k, v)| format!("{k} = {}", plain(v))).collect::<Vec<_>>().join("<br>")).unwrap_or_default();
        let status = match r["error"].as_str().or(r["failure"]["cause"].as_str()) {
            Some(why) => format!("{} ({why})", plain(&r["status"])),
            None => plain(&r["status"]),
        };
        let run_dir = dir.join(&e.dir);
        if render && latest_picture(&run_dir).is_none() {
            if let Some(&last) = available_frames(&run_dir).ok().and_then(|f| f.last().copied()).as_ref() {
                render_frames(&run_dir, &[last], None, 320, 240)?;
            }
        }
        let picture = latest_picture(&run_dir).map(|p| format!("![{}]({}/render/{p})", i + 1, e.dir)).unwrap_or_default();
        let _ = writeln!(
            md,
            "| {} | [{}]({}) | {} | {} | {} | {} | {} | {} | {} |",
            i + 1,
            e.dir,
            e.dir,
            params,
            status,
            plain(&r["frames"]),
            number(&r["ms_per_frame"], false),
            number(&r["final"]["relative_residual"], true),
            number(&r["final"]["elastic_energy"], true),
            picture
        );
        let metrics = run_dir.join("metrics.csv");
        if let Ok(text) = std::fs::read_to_string(&metrics) {
            for (panel, column) in panels.iter_mut().zip(["ms", "relative_residual", "elastic_energy"]) {
                panel.series.push(Series { name: format!("#{}", i + 1), points: column_points(&text, column) });
            }
        }
    }
    if one_run {
        let metrics = std::fs::read_to_string(dir.join("metrics.csv")).unwrap_or_default();
        panels.extend(run_panels(&metrics, std::fs::read_to_string(dir.join("probes.csv")).ok().as_deref()));
    }
    let title = format!("{} ({} runs)", dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default(), entries.len());
    let out = Report { markdown: dir.join("report.md"), svg: dir.join("report.svg"), png: dir.join("report.png"), rows: entries.len() };
    write_atomic(&out.svg, panels_svg(&title, &panels)?.as_bytes())?;
    write_atomic(&out.png, &panels_png(&title, &panels)?)?;
    write_atomic(&out.markdown, md.as_bytes())?;
    Ok(out)
}

/// The runs of a run folder (itself, from its `summary.json` or, for a run killed before writing one,
/// its `metrics.csv`) or of a batch folder (its results files).
fn entries(dir: &Path) -> Result<Vec<Entry>> {
    let summary = dir.join("summary.json");
    if summary.exists() {
        let bytes = std::fs::read(&summary).map_err(|e| Error::io(&summary, e))?;
        let mut record: Value = serde_json::from_slice(&bytes).map_err(|e| Error::parse(&summary, Some(e.line()), e.to_string()))?;
        record["params"] = json!({});
        return Ok(vec![Entry { dir: ".".into(), record }]);
    }
    if let Ok(metrics) = std::fs::read_to_string(dir.join("metrics.csv")) {
        return Ok(vec![Entry { dir: ".".into(), record: unfinished(&metrics) }]);
    }
    let records = results::read_all(dir)?;
    if records.is_empty() {
        return Err(Error::invalid(format!(
            "{}: neither a run folder (summary.json or metrics.csv) nor a batch folder with results (results*.jsonl)",
            dir.display()
        )));
    }
    Ok(records.into_iter().map(|r| Entry { dir: r["dir"].as_str().unwrap_or(".").to_string(), record: r }).collect())
}

/// The record of a run without `summary.json` (killed, or still running), from its `metrics.csv` text:
/// status `unfinished`, its last frame and final values, its mean time per frame.
fn unfinished(metrics: &str) -> Value {
    let last = |column| column_points(metrics, column).last().map(|&(_, v)| v);
    let ms = column_points(metrics, "ms");
    let ms_per_frame = (!ms.is_empty()).then(|| ms.iter().map(|p| p.1).sum::<f64>() / ms.len() as f64);
    json!({
        "status": "unfinished",
        "error": "no summary.json: the run was killed or is still running",
        "frames": column_points(metrics, "frame").last().map_or(0, |p| p.0 as usize),
        "ms_per_frame": ms_per_frame,
        "final": { "relative_residual": last("relative_residual"), "elastic_energy": last("elastic_energy") },
        "params": {},
    })
}

fn panel(title: &str, y_label: &str, log_y: bool) -> Panel {
    Panel { title: title.into(), x_label: "frame".into(), y_label: y_label.into(), log_y, series: vec![] }
}

/// The panels of a one-run report after time and residual, from its `metrics.csv` and `probes.csv`
/// texts: elastic, kinetic and total energy; inverted elements; and, with probes, each probe's
/// displacement from its first row along x, y and z.
fn run_panels(metrics: &str, probes: Option<&str>) -> Vec<Panel> {
    let elastic = column_points(metrics, "elastic_energy");
    let kinetic = column_points(metrics, "kinetic_energy");
    let total = elastic.iter().zip(&kinetic).filter(|(e, k)| e.0 == k.0).map(|(e, k)| (e.0, e.1 + k.1)).collect();
    let mut energy = panel("energy", "J", false);
    energy.series = [("elastic", elastic), ("kinetic", kinetic), ("total", total)].map(|(name, points)| Series { name: name.into(), points }).into();
    let mut inverted = panel("inverted elements", "elements", false);
    inverted.series.push(Series { name: "inverted".into(), points: column_points(metrics, "inverted_elements") });
    let mut panels = vec![energy, inverted];
    let tracks = probes.map(probe_tracks).unwrap_or_default();
    if !tracks.is_empty() {
        panels.extend(["x", "y", "z"].iter().enumerate().map(|(axis, name)| {
            let mut p = panel(&format!("probe displacement along {name}"), "m", false);
            p.series = tracks
                .iter()
                .map(|(probe, rows)| Series { name: probe.clone(), points: rows.iter().map(|(f, x)| (*f, x[axis] - rows[0].1[axis])).collect() })
                .collect();
            p
        }));
    }
    panels
}

/// One probe's name and its (frame, position) rows.
type Track = (String, Vec<(f64, [f64; 3])>);

/// Each probe's (frame, position) rows of a `probes.csv` text (`frame,time,probe,x,y,z`), probes in
/// order of first appearance, complete rows only ([`complete_rows`]).
fn probe_tracks(csv: &str) -> Vec<Track> {
    let mut tracks: Vec<Track> = Vec::new();
    for line in complete_rows(csv).lines().skip(1) {
        // The name sits between the time and the coordinates, so it may hold commas.
        let mut head = line.splitn(3, ',');
        let (Some(frame), Some(_time), Some(rest)) = (head.next(), head.next(), head.next()) else { continue };
        let mut tail = rest.rsplitn(4, ',');
        let (Some(z), Some(y), Some(x), Some(name)) = (tail.next(), tail.next(), tail.next(), tail.next()) else { continue };
        let (Ok(frame), Ok(x), Ok(y), Ok(z)) = (frame.parse(), x.parse(), y.parse(), z.parse()) else { continue };
        match tracks.iter_mut().find(|(n, _)| n == name) {
            Some((_, rows)) => rows.push((frame, [x, y, z])),
            None => tracks.push((name.to_string(), vec![(frame, [x, y, z])])),
        }
    }
    tracks
}

/// A CSV text without a last row that lacks its newline (a run killed while writing it, see
/// `output.rs`): its last field may be cut.
fn complete_rows(csv: &str) -> &str {
    &csv[..csv.rfind('\n').map_or(0, |i| i + 1)]
}

/// (frame, value) of one column of a `metrics.csv` text, its complete rows only ([`complete_rows`]).
fn column_points(csv: &str, column: &str) -> Vec<(f64, f64)> {
    let mut lines = complete_rows(csv).lines();
    let Some(k) = lines.next().and_then(|h| h.split(',').position(|c| c == column)) else { return vec![] };
    lines
        .filter_map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            Some((f.first()?.parse().ok()?, f.get(k)?.parse().ok()?))
        })
        .collect()
}

/// The file name of the highest-numbered picture in `run/render`.
fn latest_picture(run: &Path) -> Option<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(run.join("render")).ok()?.filter_map(|e| e.ok()?.file_name().into_string().ok()).filter(|n| n.ends_with(".png")).collect();
    names.sort();
    names.pop()
}

/// A JSON value as table text: strings without quotes, `|` escaped, missing as `–`.
fn plain(v: &Value) -> String {
    match v {
        Value::Null => "–".into(),
        Value::String(s) => s.replace('|', "\\|"),
        other => other.to_string().replace('|', "\\|"),
    }
}

/// A number with three decimals, in scientific notation when `sci`; missing as `–`.
fn number(v: &Value, sci: bool) -> String {
    match v.as_f64() {
        Some(x) if sci => format!("{x:.3e}"),
        Some(x) => format!("{x:.3}"),
        None => "–".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{column_points, probe_tracks, run_panels};

    #[test]
    fn probes_are_grouped_by_name_and_plotted_as_displacements() {
        let csv = "frame,time,probe,x,y,z\n0,0,tip,1,2,3\n0,0,a,b,0,0,0\n1,0.01,tip,1.5,2,2\n1,0.01,a,b,0,0,1\n2,0.02,tip,9";
        let tracks = probe_tracks(csv);
        assert_eq!(tracks.len(), 2);
        assert_eq!(tracks[0], ("tip".to_string(), vec![(0.0, [1.0, 2.0, 3.0]), (1.0, [1.5, 2.0, 2.0])]), "the cut row 2 is left out");
        assert_eq!(tracks[1].0, "a,b");
        let metrics = "frame,time,ms,elastic_energy,kinetic_energy,inverted_elements\n1,0.01,1,2,3,0\n2,0.02,1,4,1,2\n";
        let panels = run_panels(metrics, Some(csv));
        let titles: Vec<&str> = panels.iter().map(|p| p.title.as_str()).collect();
        assert_eq!(titles, ["energy", "inverted elements", "probe displacement along x", "probe displacement along y", "probe displacement along z"]);
        assert_eq!(panels[0].series[2].points, [(1.0, 5.0), (2.0, 5.0)], "total = elastic + kinetic");
        assert_eq!(panels[1].series[0].points, [(1.0, 0.0), (2.0, 2.0)]);
        assert_eq!(panels[2].series[0].points, [(0.0, 0.0), (1.0, 0.5)]);
        assert_eq!(panels[4].series[0].points, [(0.0, 0.0), (1.0, -1.0)]);
        assert_eq!(run_panels(metrics, None).len(), 2, "no probe panels without probes.csv");
    }

    #[test]
    fn a_cut_last_row_is_not_plotted() {
        let csv = "frame,time,ms\n1,0.01,12.5\n2,0.02,13.25\n3,0.03,1";
        assert_eq!(column_points(csv, "ms"), [(1.0, 12.5), (2.0, 13.25)], "row 3's ms may be cut from 1x.x");
        assert_eq!(column_points(&format!("{csv}4.5\n"), "ms"), [(1.0, 12.5), (2.0, 13.25), (3.0, 14.5)]);
        assert!(column_points(csv, "energy").is_empty());
    }
}
