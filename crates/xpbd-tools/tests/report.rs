//! `xpbd report` on a small batch and on one run: a table row per run, an SVG that parses as XML
//! and a PNG of the same figure that decodes.

use std::path::Path;
use xpbd_tools::batch::{self, Options};

const SCENE: &str = r#"
name = "cube"
[simulation]
frames = 4
substeps = 2
[[body]]
name = "cube"
mesh = { generator = "box", size = [1.0, 1.0, 1.0], cells = [1, 1, 1], split = 5 }
material = { model = "neohookean_block", youngs = 1.0e5, poisson = 0.3, density = 1000.0 }
pin = [{ box = { min = [-0.01, -1.0, -1.0], max = [0.01, 10.0, 10.0] } }]
"#;

const MANIFEST: &str = r#"
[[sweep]]
scene = "cube.toml"
[sweep.vary]
"body.0.material.youngs" = [1e4, 1e5, 1e6]
"#;

fn check_svg(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut elements = 0;
    loop {
        match reader.read_event().unwrap() {
            quick_xml::events::Event::Eof => break,
            quick_xml::events::Event::Start(_) | quick_xml::events::Event::Empty(_) => elements += 1,
            _ => {}
        }
    }
    assert!(elements > 10, "{elements} elements");
}

fn png_size(path: &Path) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    (info.width, info.height)
}

#[test]
fn batch_and_run_reports_have_one_row_per_run_and_readable_plots() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cube.toml"), SCENE).unwrap();
    std::fs::write(dir.path().join("sweep.toml"), MANIFEST).unwrap();
    let out = dir.path().join("batch");
    let o =
        batch::run(&dir.path().join("sweep.toml"), &Options { out: out.clone(), jobs: 2, shard: None, gpus: Vec::new(), interrupt: None }, &|_| {}).unwrap();
    assert_eq!((o.selected, o.completed), (3, 3));

    let r = xpbd_tools::report::write(&out, true).unwrap();
    assert_eq!(r.rows, 3);
    let md = std::fs::read_to_string(&r.markdown).unwrap();
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ") && !l.starts_with("| #")).collect();
    assert_eq!(rows.len(), 3, "{md}");
    for (i, youngs) in ["10000.0", "100000.0", "1000000.0"].iter().enumerate() {
        assert!(rows[i].starts_with(&format!("| {} | [cube-body.0.material.youngs={youngs}]", i + 1)), "{}", rows[i]);
        assert!(rows[i].contains("| completed | 4 |"), "{}", rows[i]);
        assert!(
            rows[i].ends_with(&format!("![{}](cube-body.0.material.youngs={youngs}/render/frame_00004.png) |", i + 1)),
            "--render draws the last frame: {}",
            rows[i]
        );
    }
    check_svg(&r.svg);
    let (w, h) = png_size(&r.png);
    assert_eq!(w, 3 * 560, "three panels side by side");
    assert!(h > 420, "{h}");

    let run = out.join("cube-body.0.material.youngs=10000.0");
    let r = xpbd_tools::report::write(&run, false).unwrap();
    assert_eq!(r.rows, 1);
    check_svg(&r.svg);
    assert_eq!(png_size(&r.png).0, 4 * 560, "one run: time, residual, energies, inverted elements");
}

#[test]
fn a_folder_without_runs_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = xpbd_tools::report::write(dir.path(), false).unwrap_err().to_string();
    assert!(err.contains("neither a run folder") && !err.contains('\n'), "{err}");
}
