//! `xpbd render RUN_DIR --frames LIST [--size WxH] [--scene SCENE.toml] [--eye X,Y,Z --target X,Y,Z
//! [--fov DEG]] [--out DIR]`: the bodies, one color each, and the scene's colliders.

use clap::Args;
use std::path::{Path, PathBuf};
use xpbd_core::mesh::Vec3;
use xpbd_core::scene;
use xpbd_core::{Error, Result};
use xpbd_tools::render::{available_frames, render_run, Camera, Setup};

#[derive(Args)]
pub struct RenderArgs {
    /// A run folder with frames/frame_NNNNN.vtu files.
    run_dir: PathBuf,
    /// Frames to draw: numbers and ranges (0,10,20-40), `last` or `all`.
    #[arg(long, default_value = "last")]
    frames: String,
    /// Image size in pixels, WIDTHxHEIGHT.
    #[arg(long, default_value = "640x480")]
    size: String,
    /// The run's scene: its colliders are drawn and its [render] section gives the camera (default:
    /// RUN_DIR/scene.toml when there is one, as in batch runs).
    #[arg(long, value_name = "SCENE.toml")]
    scene: Option<PathBuf>,
    /// Camera position (overrides the scene's; default: framing the bodies and bounded colliders of all
    /// drawn frames from the front-right, above).
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    eye: Option<String>,
    /// Point the camera looks at.
    #[arg(long, value_name = "X,Y,Z", allow_hyphen_values = true)]
    target: Option<String>,
    /// Vertical field of view of the --eye camera, degrees [default: 35].
    #[arg(long, value_name = "DEG")]
    fov: Option<f64>,
    /// Folder for the pictures (default: RUN_DIR/render).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub fn render(a: RenderArgs) -> Result<()> {
    let (w, h) = a
        .size
        .split_once('x')
        .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
        .filter(|&(w, h)| w > 0 && h > 0 && w * h <= 1 << 26)
        .ok_or_else(|| Error::usage(format!("--size: '{}' is not WIDTHxHEIGHT", a.size)))?;
    let available = available_frames(&a.run_dir)?;
    if available.is_empty() {
        return Err(Error::invalid(format!("{}: no frames/frame_NNNNN.vtu files (run with output.formats including \"vtu\")", a.run_dir.display())));
    }
    let frames = parse_frames(&a.frames, &available)?;
    let scene_path = a.scene.or_else(|| Some(a.run_dir.join("scene.toml")).filter(|p| p.is_file()));
    let scene = scene_path.as_ref().map(|p| scene::load(p).map(|s| (p, s))).transpose()?;
    let camera = match (a.eye, a.target, &scene) {
        (Some(e), Some(t), _) => Some(Camera::checked(vec3("--eye", &e)?, vec3("--target", &t)?, Vec3::new(0.0, 1.0, 0.0), a.fov.unwrap_or(35.0)).map_err(
            |(field, m)| match field {
                "up" => Error::usage("--target: straight above or below --eye (the camera's up is +y)"),
                _ => Error::usage(format!("--{field}: {m}")),
            },
        )?),
        (Some(_), None, _) => return Err(Error::usage("--eye: needs --target")),
        (None, Some(_), _) => return Err(Error::usage("--target: needs --eye")),
        _ if a.fov.is_some() => return Err(Error::usage("--fov: needs --eye and --target")),
        (None, None, Some((path, s))) => s.render.as_ref().map(|r| Camera::from_scene(r, &path.display().to_string())).transpose()?,
        (None, None, None) => None,
    };
    let colliders = match &scene {
        Some((_, s)) if s.colliders.is_empty() => vec![],
        // A batch run's scene.toml resolves its files against the scene it came from, not RUN_DIR.
        Some((path, s)) => match scene::build(s, path.parent().unwrap_or(Path::new("."))) {
            Ok(built) => built.model.colliders,
            Err(e) => {
                eprintln!("note: {}: colliders are not drawn: {e}", path.display());
                vec![]
            }
        },
        None => {
            eprintln!("note: no scene (--scene, or RUN_DIR/scene.toml): colliders are not drawn");
            vec![]
        }
    };
    let dt = scene.as_ref().map_or(0.0, |(_, s)| s.simulation.dt);
    let out = a.out.unwrap_or_else(|| a.run_dir.join("render"));
    for p in render_run(&a.run_dir, &frames, &Setup { camera, width: w, height: h, colliders, dt, out })? {
        println!("{}", p.display());
    }
    Ok(())
}

/// `0,10,20-40`, `last` or `all`; every frame must have a file.
fn parse_frames(list: &str, available: &[usize]) -> Result<Vec<usize>> {
    let bad = |m: String| Error::usage(format!("--frames: {m}"));
    let mut out = Vec::new();
    for item in list.split(',').map(str::trim) {
        match item {
            "last" => out.extend(available.last()),
            "all" => out.extend(available),
            _ => {
                let (lo, hi) = item.split_once('-').unwrap_or((item, item));
                let (lo, hi): (usize, usize) = (
                    lo.parse().map_err(|_| bad(format!("'{item}' is not a frame or range")))?,
                    hi.parse().map_err(|_| bad(format!("'{item}' is not a frame or range")))?,
                );
                let within: Vec<usize> = available.iter().copied().filter(|f| (lo..=hi).contains(f)).collect();
                if within.is_empty() {
                    return Err(bad(format!("no frame file for '{item}' (frames written: {}–{})", available[0], available[available.len() - 1])));
                }
                out.extend(within);
            }
        }
    }
    Ok(out)
}

fn vec3(flag: &str, s: &str) -> Result<Vec3> {
    let bad = || Error::usage(format!("{flag}: '{s}' is not X,Y,Z"));
    let v: Vec<f64> = s.split(',').map(|c| c.trim().parse()).collect::<std::result::Result<_, _>>().map_err(|_| bad())?;
    match v[..] {
        [x, y, z] => Ok(Vec3::new(x, y, z)),
        _ => Err(bad()),
    }
}
