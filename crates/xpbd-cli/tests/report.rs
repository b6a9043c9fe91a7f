//! `xpbd report` through the binary on one run: exit code, the files on disk, and the one-run panels
//! (energies, inverted elements, probe displacements) in the SVG and the PNG.

mod common;

use common::*;
use std::path::Path;

/// A clamped beam with two probes, one of them named with a comma.
const BEAM: &str = r#"
name = "beam"
[simulation]
dt = 0.01
frames = 4
substeps = 2
[[body]]
name = "beam"
mesh = { generator = "box", size = [1.0, 0.25, 0.25], cells = [4, 1, 1], split = 5 }
material = { model = "neohookean", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] } }]
[[probe]]
name = "tip"
body = "beam"
point = [1.0, 0.25, 0.25]
[[probe]]
name = "middle, top"
body = "beam"
point = [0.5, 0.25, 0.25]
[output]
formats = ["none"]
"#;

/// Width and height of a PNG file.
fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let info = decoder.read_info().unwrap();
    (info.info().width, info.info().height)
}

/// Runs the beam into `out/beam` under `dir`.
fn run_beam(dir: &Path) {
    write(dir, "beam.toml", BEAM);
    let (code, _, stderr) = xpbd_in(dir, &["run", "beam.toml", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_run_report_plots_energies_inverted_elements_and_probes() {
    let dir = tempfile::tempdir().unwrap();
    run_beam(dir.path());
    let (code, stdout, stderr) = xpbd_in(dir.path(), &["report", "out/beam"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("1 runs: "), "{stdout}");
    let out = dir.path().join("out/beam");
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    assert!(md.contains("![time per frame, residual, energies, inverted elements and probes](report.png)"), "{md}");
    let svg = std::fs::read_to_string(out.join("report.svg")).unwrap();
    for text in [
        "energy",
        "elastic",
        "kinetic",
        "total",
        "inverted elements",
        "probe displacement along x",
        "probe displacement along y",
        "probe displacement along z",
        "tip",
        "middle, top",
    ] {
        assert!(svg.contains(&format!("{text}\n</text>")), "no text '{text}' in report.svg");
    }
    // Seven panels in rows of four.
    let (w, h) = png_size(&out.join("report.png"));
    assert_eq!(w, 4 * 560);
    assert!(h > 2 * 420, "{h}");
}

#[test]
fn a_run_without_probes_has_no_probe_panels() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "beam.toml", &BEAM[..BEAM.find("[[probe]]").unwrap()]);
    let (code, _, stderr) = xpbd_in(dir.path(), &["run", "beam.toml", "--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = xpbd_in(dir.path(), &["report", "out/beam"]);
    assert_eq!(code, 0, "{stderr}");
    let out = dir.path().join("out/beam");
    assert!(!out.join("probes.csv").exists());
    let svg = std::fs::read_to_string(out.join("report.svg")).unwrap();
    assert!(svg.contains("kinetic\n</text>") && !svg.contains("probe displacement"));
    let (w, h) = png_size(&out.join("report.png"));
    assert_eq!(w, 4 * 560);
    assert!(h < 2 * 420, "one row of panels: {h}");
}

#[test]
fn a_folder_without_a_run_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("empty")).unwrap();
    expect_error(dir.path(), &["report", "empty"], &["empty", "neither a run folder"]);
    assert!(!dir.path().join("empty/report.md").exists());
}
