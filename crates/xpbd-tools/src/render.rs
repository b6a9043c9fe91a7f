//! Headless pictures of a run (`xpbd render`): the bodies' surfaces read back from the VTU frames,
//! drawn by a small software rasteriser (perspective camera, z-buffer, two-sided Lambert shading)
//! and written as PNG. No GPU or display is needed.

use std::path::{Path, PathBuf};
use xpbd_core::mesh::io::{read_vtu_cells, write_atomic};
use xpbd_core::mesh::surface::boundary_faces;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::schema::Render;
use xpbd_core::{Error, Result};

/// Background and surface colors (sRGB).
pub const BACKGROUND: [u8; 3] = [246, 246, 246];
const SURFACE: [f64; 3] = [70.0, 130.0, 200.0];

/// A perspective pin-hole camera.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub eye: Vec3,
    pub target: Vec3,
    pub up: Vec3,
    /// Vertical field of view, degrees.
    pub fov_deg: f64,
}

impl Camera {
    /// Looks at the centre of the box `[lo, hi]` from the front-right and a little above, far enough
    /// that the box's bounding sphere fits the view.
    pub fn framing(lo: Vec3, hi: Vec3) -> Self {
        let centre = (lo + hi) / 2.0;
        let radius = ((hi - lo).norm() / 2.0).max(1e-9);
        let fov_deg: f64 = 35.0;
        let distance = 1.05 * radius / (fov_deg.to_radians() / 2.0).sin();
        Camera { eye: centre + Vec3::new(0.45, 0.45, 1.0).normalize() * distance, target: centre, up: Vec3::new(0.0, 1.0, 0.0), fov_deg }
    }
}

impl Camera {
    /// The camera of a scene's `[render]` section, checked: finite, the eye away from the target,
    /// `up` not along the view, 0 < fov < 180.
    pub fn from_scene(r: &Render, what: &str) -> Result<Self> {
        let bad = |m: &str| Error::invalid(format!("{what}: render.{m}"));
        let v = |a: [f64; 3], name: &str| if a.iter().all(|c| c.is_finite()) { Ok(Vec3::from(a)) } else { Err(bad(&format!("{name}: not finite"))) };
        let cam = Camera { eye: v(r.eye, "eye")?, target: v(r.target, "target")?, up: v(r.up, "up")?, fov_deg: r.fov };
        let view = cam.target - cam.eye;
        if view.norm() == 0.0 {
            return Err(bad("target: equals the eye"));
        }
        if view.normalize().cross(&cam.up).norm() < 1e-9 {
            return Err(bad("up: zero or along the view direction"));
        }
        if !(r.fov > 0.0 && r.fov < 180.0) {
            return Err(bad(&format!("fov: {} is not between 0 and 180 degrees", r.fov)));
        }
        Ok(cam)
    }
}

/// An RGB image, rows from the top.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgb: Vec<u8>,
}

impl Image {
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = 3 * (y * self.width + x) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// PNG bytes.
    pub fn png(&self) -> Result<Vec<u8>> {
        crate::image_file::rgb_png(self.width, self.height, &self.rgb)
    }
}

/// The surface of a frame file: the boundary triangles of its tetrahedra and its triangles (cloth).
pub fn read_surface(path: &Path) -> Result<(Vec<Vec3>, Vec<[u32; 3]>)> {
    let (vertices, tets, mut tris) = read_vtu_cells(path)?;
    tris.extend(boundary_faces(&tets));
    Ok((vertices, tris))
}

/// Draws the triangles seen by `cam` into a `width` × `height` image.
pub fn draw(points: &[Vec3], tris: &[[u32; 3]], cam: &Camera, width: u32, height: u32) -> Image {
    let (w, h) = (width as usize, height as usize);
    let mut img = Image { width, height, rgb: BACKGROUND.repeat(w * h) };
    let mut depth = vec![f64::INFINITY; w * h];
    let forward = (cam.target - cam.eye).normalize();
    let right = forward.cross(&cam.up).normalize();
    let up = right.cross(&forward);
    // Light from behind the viewer's right shoulder.
    let light = (-forward + 0.5 * up + 0.3 * right).normalize();
    let focal = 0.5 * h as f64 / (cam.fov_deg.to_radians() / 2.0).tan();
    // Camera coordinates → (pixel x, pixel y, depth).
    let project = |p: &Vec3| {
        let d = p - cam.eye;
        let z = d.dot(&forward);
        (0.5 * w as f64 + focal * d.dot(&right) / z, 0.5 * h as f64 - focal * d.dot(&up) / z, z)
    };
    for t in tris {
        let [a, b, c] = t.map(|i| points[i as usize]);
        let n = (b - a).cross(&(c - a));
        if n.norm() == 0.0 {
            continue;
        }
        let shade = 0.25 + 0.75 * n.normalize().dot(&light).abs();
        let color = SURFACE.map(|s| (s * shade).round().min(255.0) as u8);
        let v = [project(&a), project(&b), project(&c)];
        if v.iter().any(|p| p.2 <= 1e-9) {
            continue; // behind or at the eye
        }
        let area = edge(v[0], v[1], v[2].0, v[2].1);
        if area == 0.0 {
            continue;
        }
        let x0 = v.iter().map(|p| p.0).fold(f64::INFINITY, f64::min).floor().max(0.0) as usize;
        let x1 = (v.iter().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max).ceil() as usize).min(w);
        let y0 = v.iter().map(|p| p.1).fold(f64::INFINITY, f64::min).floor().max(0.0) as usize;
        let y1 = (v.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max).ceil() as usize).min(h);
        for y in y0..y1 {
            for x in x0..x1 {
                let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
                let l = [edge(v[1], v[2], px, py) / area, edge(v[2], v[0], px, py) / area, edge(v[0], v[1], px, py) / area];
                if l.iter().any(|&k| k < 0.0) {
                    continue;
                }
                // Perspective-correct depth: 1/z is linear in screen space.
                let z = 1.0 / (l[0] / v[0].2 + l[1] / v[1].2 + l[2] / v[2].2);
                let i = y * w + x;
                if z < depth[i] {
                    depth[i] = z;
                    img.rgb[3 * i..3 * i + 3].copy_from_slice(&color);
                }
            }
        }
    }
    img
}

/// Twice the signed area of (a, b, p) in the screen plane.
fn edge(a: (f64, f64, f64), b: (f64, f64, f64), px: f64, py: f64) -> f64 {
    (b.0 - a.0) * (py - a.1) - (b.1 - a.1) * (px - a.0)
}

/// The frame numbers of a run folder's `frames/frame_NNNNN.vtu` files, ascending.
pub fn available_frames(run_dir: &Path) -> Result<Vec<usize>> {
    let dir = run_dir.join("frames");
    let mut frames: Vec<usize> = std::fs::read_dir(&dir)
        .map_err(|e| Error::io(&dir, e))?
        .filter_map(|e| e.ok()?.file_name().to_str()?.strip_prefix("frame_")?.strip_suffix(".vtu")?.parse().ok())
        .collect();
    frames.sort_unstable();
    Ok(frames)
}

/// Renders frames of a run folder to `render/frame_NNNNN.png` with one camera for all of them (by
/// default framing the union of their bounding boxes) and returns the files written.
pub fn render_frames(run_dir: &Path, frames: &[usize], cam: Option<Camera>, width: u32, height: u32) -> Result<Vec<PathBuf>> {
    let surfaces = frames.iter().map(|f| read_surface(&run_dir.join(format!("frames/frame_{f:05}.vtu")))).collect::<Result<Vec<_>>>()?;
    let all = || surfaces.iter().flat_map(|s| &s.0);
    let cam = cam.unwrap_or_else(|| {
        let lo = all().fold(Vec3::repeat(f64::INFINITY), |m, p| m.inf(p));
        let hi = all().fold(Vec3::repeat(f64::NEG_INFINITY), |m, p| m.sup(p));
        Camera::framing(lo, hi)
    });
    let out = run_dir.join("render");
    std::fs::create_dir_all(&out).map_err(|e| Error::io(&out, e))?;
    let mut written = Vec::new();
    for (f, (points, tris)) in frames.iter().zip(&surfaces) {
        let path = out.join(format!("frame_{f:05}.png"));
        write_atomic(&path, &draw(points, tris, &cam, width, height).png()?)?;
        written.push(path);
    }
    Ok(written)
}
