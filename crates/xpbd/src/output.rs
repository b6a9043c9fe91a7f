//! Run outputs (docs/output-format.md): `summary.json`, `metrics.csv`, `probes.csv`, and frames as VTU with an
//! `animation.pvd` collection, and surfaces as OBJ or PLY (`surface_frames`). Frames, the collection
//! and the summary are written to a temporary name and renamed; the CSV files get their header the
//! same way and then grow by whole lines, each one a single `write` of the complete line, so a run
//! killed at any moment keeps complete files (docs/robustness.md).

use crate::checkpoint;
use crate::partition_cells::PartitionCells;
use crate::surface_frames::Surface;
use serde::Serialize;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use xpbd_core::backend::{Backend, RigidStats};
use xpbd_core::implicit::phases::Phases;
use xpbd_core::mesh::io::{write_atomic, write_pvd, write_vtu_with_cells, PointData};
use xpbd_core::mgpbd::OuterStats;
use xpbd_core::model::Model;
use xpbd_core::scene::schema::Output;
use xpbd_core::solver_config::Method;
use xpbd_core::solver_config::SolverConfig;
use xpbd_core::state::State;
use xpbd_core::{Error, Result};

/// One row of `metrics.csv`.
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct FrameMetrics {
    pub frame: usize,
    pub time: f64,
    pub ms: f64,
    pub residual: f64,
    pub relative_residual: f64,
    pub elastic_energy: f64,
    pub kinetic_energy: f64,
    pub min_volume_ratio: f64,
    pub inverted_elements: usize,
    /// Contact rows that pushed in the frame's last substep (FrameStats::contacts).
    pub contacts: usize,
    /// Scenes with cloth only: `max_edge_strain`, the column after `inverted_elements`.
    pub max_edge_strain: Option<f64>,
    /// MGPBD runs only: more columns after the fixed ones (docs/output-format.md).
    pub mgpbd: Option<OuterStats>,
    /// Adaptive runs only: `rigid_bodies,rigid_elements` after the fixed ones.
    pub rigid: Option<RigidStats>,
    /// Implicit and adaptive runs only: the time per phase, the last columns.
    pub phases: Option<Phases>,
}

/// Frame file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameFormat {
    Vtu,
    Obj,
    Ply,
}

/// Which frame files a run writes: the scene's `[output]`, checked.
#[derive(Clone, Debug, PartialEq)]
pub struct Frames {
    pub formats: Vec<FrameFormat>,
    /// A frame file every this many frames.
    pub every: usize,
    /// VTU frames carry the normal contact forces (`contact_force`, `contact_active`).
    pub contact_forces: bool,
    /// VTU frames carry the element partitions ([`PartitionCells`]) with clusters of at most this many elements.
    pub partition: Option<NonZeroUsize>,
}

impl Frames {
    /// Reads `[output]`: `every` at least 1; `formats` one or more of `vtu`, `obj`, `ply`, each once, or
    /// `none` alone; `partition` only with VTU frames and a `cluster_size` (the scene's `solver.cluster_size`)
    /// of at least 1.
    pub fn of(output: &Output, cluster_size: usize) -> Result<Self> {
        if output.every == 0 {
            return Err(Error::invalid("output.every: must be at least 1 (a frame file every this many frames)"));
        }
        if output.formats.is_empty() {
            return Err(Error::invalid("output.formats: names no format (write [\"none\"] for no frame files)"));
        }
        if output.formats.len() > 1 && output.formats.iter().any(|n| n == "none") {
            return Err(Error::invalid(format!("output.formats: 'none' cannot be combined with other formats, got {:?}", output.formats)));
        }
        let mut formats = Vec::new();
        for n in &output.formats {
            let format = match n.as_str() {
                "vtu" => FrameFormat::Vtu,
                "obj" => FrameFormat::Obj,
                "ply" => FrameFormat::Ply,
                "none" => continue,
                other => return Err(Error::invalid(format!("output.formats: unknown format '{other}' (expected vtu, obj, ply, none)"))),
            };
            if formats.contains(&format) {
                return Err(Error::invalid(format!("output.formats: '{n}' is listed twice")));
            }
            formats.push(format);
        }
        let partition = match (output.partition, NonZeroUsize::new(cluster_size)) {
            (false, _) => None,
            (true, _) if !formats.contains(&FrameFormat::Vtu) => {
                return Err(Error::invalid("output.partition: the partitions are VTU cell data, but output.formats has no \"vtu\""))
            }
            (true, None) => return Err(Error::invalid("output.partition: solver.cluster_size must be at least 1")),
            (true, k_s) => k_s,
        };
        Ok(Frames { formats, every: output.every, contact_forces: output.contact_forces, partition })
    }
}

pub struct Writer {
    dir: PathBuf,
    metrics: CsvFile,
    probes: Option<CsvFile>,
    frames: Frames,
    pvd: Vec<(f64, String)>,
    body_id: Vec<i32>,
    tets: Vec<[u32; 4]>,
    tris: Vec<[u32; 3]>,
    surface: Surface,
    partition: Option<PartitionCells>,
}

const METRICS_HEADER: &str = "frame,time,ms,residual,relative_residual,elastic_energy,kinetic_energy,min_volume_ratio,inverted_elements,contacts";
const PROBES_HEADER: &str = "frame,time,probe,x,y,z";

/// A CSV file that grows by whole rows: the header is written atomically, then each row is appended
/// with one unbuffered `write` of the complete line. One exception the kernel makes: Linux copies a
/// write page by page and a SIGKILL is acted on between pages, so a row that straddles a 4 KiB page
/// boundary can be cut there (measured: about 1 kill in 100 on a loop of 3000-byte rows). A killed
/// run's CSV therefore ends on a newline or, rarely, inside its last row at a multiple of 4096 bytes;
/// [`CsvFile::resume`] and the report drop such a row.
struct CsvFile {
    path: PathBuf,
    out: File,
}

impl CsvFile {
    fn create(path: PathBuf, header: &str) -> Result<Self> {
        write_atomic(&path, format!("{header}\n").as_bytes())?;
        let out = OpenOptions::new().append(true).open(&path).map_err(|e| Error::io(&path, e))?;
        Ok(CsvFile { path, out })
    }
    /// Reopens `path` for appending after dropping its rows of frames after `frame` (and a partial
    /// last line), so a resumed run continues it without duplicated rows. Returns the file and the
    /// `(frame, time)` of the kept rows. A file without the expected header is an error.
    fn resume(path: PathBuf, header: &str, frame: usize) -> Result<(Self, Vec<(usize, f64)>)> {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::io(&path, e))?;
        let complete = &text[..text.rfind('\n').map_or(0, |i| i + 1)];
        let mut lines = complete.lines();
        // The file's own header: it may have more columns than the fixed ones.
        let head = lines
            .next()
            .filter(|h| h.starts_with(header))
            .ok_or_else(|| Error::parse(&path, Some(1), format!("not the header of a run's file ('{header}...')")))?;
        let mut kept = format!("{head}\n");
        let mut rows = Vec::new();
        for line in lines {
            let mut fields = line.split(',');
            match (fields.next().map(str::parse::<usize>), fields.next().map(str::parse::<f64>)) {
                (Some(Ok(f)), Some(Ok(t))) if f <= frame => rows.push((f, t)),
                _ => break,
            }
            kept.push_str(line);
            kept.push('\n');
        }
        write_atomic(&path, kept.as_bytes())?;
        let out = OpenOptions::new().append(true).open(&path).map_err(|e| Error::io(&path, e))?;
        Ok((CsvFile { path, out }, rows))
    }
    fn line(&mut self, s: &str) -> Result<()> {
        self.out.write_all(format!("{s}\n").as_bytes()).map_err(|e| Error::io(&self.path, e))
    }
}

/// The files of a run folder that a fresh run replaces: the run's own (`checkpoint.bin` included) and
/// `xpbd report`'s, which describe the run; each may also be left as `NAME.tmp` by a killed write.
const RUN_FILES: [&str; 8] = ["summary.json", "metrics.csv", "probes.csv", "animation.pvd", checkpoint::FILE, "report.md", "report.svg", "report.png"];
/// The run folder's folders of numbered frame files `frame_NNNNN.EXT` that a fresh run replaces: the
/// frames, and `xpbd render`'s pictures of them.
const RUN_FOLDERS: [(&str, &[&str]); 2] = [("frames", &FRAME_EXTENSIONS), ("render", &["png"])];
/// The extensions of frame files (`FrameFormat`).
const FRAME_EXTENSIONS: [&str; 3] = ["vtu", "obj", "ply"];
/// Files that may share a run folder and are kept: a batch run's copy of its scene and `xpbd converge`'s
/// outputs (the same default folder).
const KEPT_FILES: [&str; 4] = ["scene.toml", "converge.csv", "converge.svg", "converge.png"];

/// Removes an earlier run's outputs from `dir` before a fresh run writes there, so that no frame, row or
/// picture of that run is taken for this one's. Only a run folder is cleared: a folder with anything
/// else in it, or with run outputs but neither `summary.json` nor `metrics.csv`, is refused in one line
/// and left as it is. A folder that does not exist yet is left to `create_dir_all`.
fn clear_earlier_run(dir: &Path) -> Result<()> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(()) };
    let refuse = |what: &str, why: &str| {
        Error::invalid(format!(
            "{}: holds '{what}', {why}; a fresh run clears only an earlier run's outputs: choose a new or empty folder (--out), or move '{what}' away",
            dir.display()
        ))
    };
    let (mut old, mut is_run) = (Vec::new(), false);
    for entry in entries {
        let entry = entry.map_err(|e| Error::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let kind = entry.file_type().map_err(|e| Error::io(entry.path(), e))?;
        let base = name.strip_suffix(".tmp").unwrap_or(&name);
        if kind.is_file() && KEPT_FILES.contains(&name.as_str()) {
            continue;
        }
        if kind.is_file() && RUN_FILES.contains(&base) {
            is_run |= base == "summary.json" || base == "metrics.csv";
            old.push((entry.path(), false));
        } else if let Some((_, exts)) = RUN_FOLDERS.iter().find(|(folder, _)| kind.is_dir() && *folder == name) {
            for inner in std::fs::read_dir(entry.path()).map_err(|e| Error::io(entry.path(), e))? {
                let inner = inner.map_err(|e| Error::io(entry.path(), e))?;
                let file = inner.file_name().to_string_lossy().into_owned();
                if !(inner.file_type().is_ok_and(|t| t.is_file()) && frame_digits(&file, exts).is_some()) {
                    return Err(refuse(&format!("{name}/{file}"), "which is not a frame file of a run"));
                }
            }
            old.push((entry.path(), true));
        } else {
            return Err(refuse(&name, "which is not an output of a run"));
        }
    }
    if let (Some((path, _)), false) = (old.first(), is_run) {
        let what = path.file_name().unwrap_or_default().to_string_lossy();
        return Err(refuse(&what, "but no summary.json or metrics.csv, so it may not be a run folder"));
    }
    for (path, folder) in old {
        let removed = if folder { std::fs::remove_dir_all(&path) } else { std::fs::remove_file(&path) };
        removed.map_err(|e| Error::io(&path, e))?;
    }
    Ok(())
}

/// The digits NNNNN of a frame file `frame_NNNNN.EXT` or `frame_NNNNN.EXT.tmp` with EXT one of `exts`; `None`
/// for any other name.
fn frame_digits<'a>(name: &'a str, exts: &[&str]) -> Option<&'a str> {
    let name = name.strip_suffix(".tmp").unwrap_or(name);
    let (number, ext) = name.strip_prefix("frame_")?.split_once('.')?;
    (!number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()) && exts.contains(&ext)).then_some(number)
}

impl Writer {
    /// Clears an earlier run's outputs from `dir` ([`clear_earlier_run`]), creates `dir` (and `dir/frames`
    /// when frames are written) and the CSV headers (MGPBD's counters when `config` is MGPBD).
    pub fn create(dir: &Path, model: &Model, config: &SolverConfig, frames: Frames) -> Result<Self> {
        clear_earlier_run(dir)?;
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        if !frames.formats.is_empty() {
            let frames = dir.join("frames");
            std::fs::create_dir_all(&frames).map_err(|e| Error::io(&frames, e))?;
        }
        let mut header = METRICS_HEADER.to_string();
        if !model.cloth_groups.is_empty() {
            header.push_str(",max_edge_strain");
        }
        if config.method.mgpbd().is_some() {
            header = format!("{header},{}", OuterStats::CSV_HEADER);
        }
        if config.method.kind() == "adaptive" {
            header.push_str(",rigid_bodies,rigid_elements");
        }
        if matches!(config.method, Method::Implicit(_)) {
            header = format!("{header},{}", Phases::CSV_HEADER);
        }
        let metrics = CsvFile::create(dir.join("metrics.csv"), &header)?;
        let probes = if model.probes.is_empty() { None } else { Some(CsvFile::create(dir.join("probes.csv"), PROBES_HEADER)?) };
        Ok(Self::with_files(dir, model, frames, metrics, probes))
    }

    /// Reopens the outputs of a run in `dir` to continue after `frame` (a checkpoint's): rows and frame files
    /// of later frames are dropped, and so are the files of `frame` itself when it is off the `every` grid
    /// (written only because it ended the earlier run: an interrupted run's last frame), so that the folder
    /// ends with the frame files of an uninterrupted run; `animation.pvd` is rewritten at once to list the
    /// frame files up to `frame` that are left, each once.
    pub fn resume(dir: &Path, model: &Model, frames: Frames, frame: usize) -> Result<Self> {
        let (metrics, rows) = CsvFile::resume(dir.join("metrics.csv"), METRICS_HEADER, frame)?;
        let frame_dir = dir.join("frames");
        let dropped = |n: usize| n > frame || (n == frame && !n.is_multiple_of(frames.every));
        for entry in std::fs::read_dir(&frame_dir).into_iter().flatten().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if frame_digits(&name, &FRAME_EXTENSIONS).and_then(|d| d.parse::<usize>().ok()).is_some_and(dropped) {
                std::fs::remove_file(entry.path()).map_err(|e| Error::io(entry.path(), e))?;
            }
        }
        let probes = if model.probes.is_empty() { None } else { Some(CsvFile::resume(dir.join("probes.csv"), PROBES_HEADER, frame)?.0) };
        let mut w = Self::with_files(dir, model, frames, metrics, probes);
        if w.frames.formats.contains(&FrameFormat::Vtu) {
            let times = std::iter::once((0, 0.0)).chain(rows);
            w.pvd = times.map(|(f, t)| (t, format!("frames/frame_{f:05}.vtu"))).filter(|(_, name)| dir.join(name).exists()).collect();
            write_pvd(&dir.join("animation.pvd"), &w.pvd)?;
        }
        Ok(w)
    }

    fn with_files(dir: &Path, model: &Model, frames: Frames, metrics: CsvFile, probes: Option<CsvFile>) -> Self {
        let mut body_id = vec![0; model.vertex_count()];
        for (b, body) in model.bodies.iter().enumerate() {
            body_id[body.vertices.clone()].fill(b as i32);
        }
        // Each body's tetrahedra, or its triangles when it is cloth or a shell.
        let tets = model.bodies.iter().flat_map(|b| b.tets.iter().copied()).collect();
        let tris: Vec<[u32; 3]> = model.bodies.iter().filter(|b| b.tets.is_empty()).flat_map(|b| b.surface.iter().copied()).collect();
        let surface = Surface::of(model);
        let partition = frames.partition.map(|k_s| PartitionCells::of(model, k_s, tris.len()));
        Writer { dir: dir.to_path_buf(), metrics, probes, frames, pvd: vec![], body_id, tets, tris, surface, partition }
    }

    /// Writes the frame file (when due, every `every` frames, or when `last`: the run's final frame) and the
    /// probe rows of `state`; `backend` stepped it there (asked for the contact forces when a VTU frame carries them).
    pub fn frame(&mut self, model: &Model, state: &State, backend: &dyn Backend, last: bool) -> Result<()> {
        if let Some(p) = &mut self.probes {
            for probe in &model.probes {
                let x = state.x[probe.vertex as usize];
                p.line(&format!("{},{},{},{},{},{}", state.frame, state.time, probe.name, x.x, x.y, x.z))?;
            }
        }
        if !state.frame.is_multiple_of(self.frames.every) && !last {
            return Ok(());
        }
        for f in &self.frames.formats {
            match f {
                FrameFormat::Vtu => {
                    let name = format!("frames/frame_{:05}.vtu", state.frame);
                    let contact = if self.frames.contact_forces { Some(backend.contact_forces(model, state)?) } else { None };
                    let active: Vec<i32> = contact.iter().flat_map(|c| c.active.iter().map(|&a| a as i32)).collect();
                    let mut data = vec![("body", PointData::Int(&self.body_id)), ("velocity", PointData::Vector(&state.v))];
                    if let Some(c) = &contact {
                        data.extend([("contact_force", PointData::Vector(&c.force)), ("contact_active", PointData::Int(&active))]);
                    }
                    let rigid = backend.element_bodies();
                    let mut cells: Vec<(&str, PointData)> = rigid.iter().map(|r| ("rigid_body", PointData::Int(r))).collect();
                    cells.extend(self.partition.iter().flat_map(PartitionCells::cell_data));
                    write_vtu_with_cells(&self.dir.join(&name), &state.x, &self.tets, &self.tris, &data, &cells)?;
                    self.pvd.push((state.time, name));
                    write_pvd(&self.dir.join("animation.pvd"), &self.pvd)?;
                }
                FrameFormat::Obj => self.surface.write_obj(&self.dir.join(format!("frames/frame_{:05}.obj", state.frame)), &state.x)?,
                FrameFormat::Ply => self.surface.write_ply(&self.dir.join(format!("frames/frame_{:05}.ply", state.frame)), &state.x)?,
            }
        }
        Ok(())
    }

    pub fn metrics(&mut self, m: &FrameMetrics) -> Result<()> {
        let mut line = format!(
            "{},{},{},{},{},{},{},{},{},{}",
            m.frame, m.time, m.ms, m.residual, m.relative_residual, m.elastic_energy, m.kinetic_energy, m.min_volume_ratio, m.inverted_elements, m.contacts
        );
        if let Some(e) = m.max_edge_strain {
            line = format!("{line},{e}");
        }
        if let Some(o) = &m.mgpbd {
            line = format!("{line},{}", o.csv());
        }
        if let Some(r) = &m.rigid {
            line = format!("{line},{},{}", r.bodies, r.elements);
        }
        if let Some(p) = &m.phases {
            line = format!("{line},{}", p.csv());
        }
        self.metrics.line(&line)
    }

    /// Writes `summary.json` atomically.
    pub fn summary<T: Serialize>(&self, summary: &T) -> Result<()> {
        let path = self.dir.join("summary.json");
        let text = serde_json::to_string_pretty(summary).map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?;
        write_atomic(&path, text.as_bytes())
    }
}
