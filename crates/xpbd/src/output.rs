//! Run outputs (DESIGN.md §5): `summary.json`, `metrics.csv`, `probes.csv`, and frames as VTU with an
//! `animation.pvd` collection. Every file is written to a temporary name and renamed, and the CSV
//! files are flushed each frame, so a run stopped at any moment keeps complete files.

use serde::Serialize;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use xpbd_core::mesh::io::{write_atomic, write_pvd, write_vtu, PointData};
use xpbd_core::mgpbd::OuterStats;
use xpbd_core::model::Model;
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
    /// MGPBD runs only: more columns after the fixed ones (DESIGN.md §5).
    pub mgpbd: Option<OuterStats>,
}

/// Frame file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameFormat {
    Vtu,
}

/// Parses `output.formats`: `vtu`, or `none` alone. (`obj` and `ply` arrive with surface sequences.)
pub fn frame_formats(names: &[String]) -> Result<Vec<FrameFormat>> {
    let mut out = Vec::new();
    for n in names {
        match n.as_str() {
            "vtu" => out.push(FrameFormat::Vtu),
            "none" => {}
            "obj" | "ply" => return Err(Error::invalid(format!("output.formats: '{n}' is not implemented yet (available: vtu, none)"))),
            other => return Err(Error::invalid(format!("output.formats: unknown format '{other}' (expected vtu, obj, ply, none)"))),
        }
    }
    Ok(out)
}

pub struct Writer {
    dir: PathBuf,
    metrics: CsvFile,
    probes: Option<CsvFile>,
    formats: Vec<FrameFormat>,
    every: usize,
    pvd: Vec<(f64, String)>,
    body_id: Vec<i32>,
    tets: Vec<[u32; 4]>,
    tris: Vec<[u32; 3]>,
}

struct CsvFile {
    path: PathBuf,
    out: BufWriter<File>,
}

impl CsvFile {
    fn create(path: PathBuf, header: &str) -> Result<Self> {
        let file = File::create(&path).map_err(|e| Error::io(&path, e))?;
        let mut f = CsvFile { path, out: BufWriter::new(file) };
        f.line(header)?;
        Ok(f)
    }
    fn line(&mut self, s: &str) -> Result<()> {
        writeln!(self.out, "{s}").and_then(|_| self.out.flush()).map_err(|e| Error::io(&self.path, e))
    }
}

impl Writer {
    /// Creates `dir` (and `dir/frames` when frames are written) and the CSV headers.
    pub fn create(dir: &Path, model: &Model, formats: Vec<FrameFormat>, every: usize) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        if !formats.is_empty() {
            let frames = dir.join("frames");
            std::fs::create_dir_all(&frames).map_err(|e| Error::io(&frames, e))?;
        }
        let mut header = "frame,time,ms,residual,relative_residual,elastic_energy,kinetic_energy,min_volume_ratio,inverted_elements".to_string();
        if model.solver.mgpbd.is_some() {
            header = format!("{header},{}", OuterStats::CSV_HEADER);
        }
        let metrics = CsvFile::create(dir.join("metrics.csv"), &header)?;
        let probes = if model.probes.is_empty() { None } else { Some(CsvFile::create(dir.join("probes.csv"), "frame,time,probe,x,y,z")?) };
        let mut body_id = vec![0; model.vertex_count()];
        for (b, body) in model.bodies.iter().enumerate() {
            body_id[body.vertices.clone()].fill(b as i32);
        }
        // Each body's tetrahedra, or its triangles when it is cloth.
        let tets = model.bodies.iter().flat_map(|b| b.tets.iter().copied()).collect();
        let tris = model.bodies.iter().filter(|b| b.tets.is_empty()).flat_map(|b| b.surface.iter().copied()).collect();
        Ok(Writer { dir: dir.to_path_buf(), metrics, probes, formats, every: every.max(1), pvd: vec![], body_id, tets, tris })
    }

    /// Writes the frame file (when due) and the probe rows of `state`.
    pub fn frame(&mut self, model: &Model, state: &State) -> Result<()> {
        if let Some(p) = &mut self.probes {
            for probe in &model.probes {
                let x = state.x[probe.vertex as usize];
                p.line(&format!("{},{},{},{},{},{}", state.frame, state.time, probe.name, x.x, x.y, x.z))?;
            }
        }
        if state.frame % self.every != 0 {
            return Ok(());
        }
        for f in &self.formats {
            match f {
                FrameFormat::Vtu => {
                    let name = format!("frames/frame_{:05}.vtu", state.frame);
                    let data = [("body", PointData::Int(&self.body_id)), ("velocity", PointData::Vector(&state.v))];
                    write_vtu(&self.dir.join(&name), &state.x, &self.tets, &self.tris, &data)?;
                    self.pvd.push((state.time, name));
                    write_pvd(&self.dir.join("animation.pvd"), &self.pvd)?;
                }
            }
        }
        Ok(())
    }

    pub fn metrics(&mut self, m: &FrameMetrics) -> Result<()> {
        let mut line = format!(
            "{},{},{},{},{},{},{},{},{}",
            m.frame, m.time, m.ms, m.residual, m.relative_residual, m.elastic_energy, m.kinetic_energy, m.min_volume_ratio, m.inverted_elements
        );
        if let Some(o) = &m.mgpbd {
            line = format!("{line},{}", o.csv());
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
