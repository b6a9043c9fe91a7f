//! Headless pictures of a run (`xpbd render`): the bodies' surfaces read back from the VTU frames,
//! drawn by a small software rasteriser (perspective camera, z-buffer, two-sided Lambert shading)
//! and written as PNG. No GPU or display is needed. Each body (by the frame's `body` point data, or
//! where a frame has none, each connected piece of the surface) gets its own color; the scene's colliders are drawn in grey ([`crate::render_collider`]).

use crate::render_collider::{collider_triangles, is_bounded, Triangles};
use std::path::{Path, PathBuf};
use xpbd_core::collider::Collider;
use xpbd_core::mesh::io::{read_vtu_cells_and_point_ints, write_atomic};
use xpbd_core::mesh::surface::boundary_faces;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::schema::Render;
use xpbd_core::{Error, Result};

/// Background color (sRGB).
pub const BACKGROUND: [u8; 3] = [246, 246, 246];
/// The bodies' colors (sRGB), in body order, repeating after the last.
pub const PALETTE: [[f64; 3]; 6] =
    [[70.0, 130.0, 200.0], [220.0, 110.0, 50.0], [80.0, 160.0, 80.0], [170.0, 90.0, 180.0], [200.0, 170.0, 50.0], [60.0, 170.0, 170.0]];

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
    /// The camera of a scene's `[render]` section, checked ([`Camera::checked`]).
    pub fn from_scene(r: &Render, what: &str) -> Result<Self> {
        Self::checked(Vec3::from(r.eye), Vec3::from(r.target), Vec3::from(r.up), r.fov)
            .map_err(|(field, m)| Error::invalid(format!("{what}: render.{field}: {m}")))
    }

    /// A camera if it can show something: finite, the eye away from the target, `up` not along the
    /// view, 0 < fov < 180; else the field at fault (`eye`, `target`, `up`, `fov`) and why.
    pub fn checked(eye: Vec3, target: Vec3, up: Vec3, fov_deg: f64) -> std::result::Result<Self, (&'static str, String)> {
        for (name, v) in [("eye", eye), ("target", target), ("up", up)] {
            if !v.iter().all(|c| c.is_finite()) {
                return Err((name, "not finite".into()));
            }
        }
        let view = target - eye;
        if view.norm() == 0.0 {
            return Err(("target", "equals the eye".into()));
        }
        if view.normalize().cross(&up).norm() < 1e-9 {
            return Err(("up", "zero or along the view direction".into()));
        }
        if !(fov_deg > 0.0 && fov_deg < 180.0) {
            return Err(("fov", format!("{fov_deg} is not between 0 and 180 degrees")));
        }
        Ok(Camera { eye, target, up, fov_deg })
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

/// The surface of a frame file.
pub struct Surface {
    pub points: Vec<Vec3>,
    /// The boundary triangles of its tetrahedra and its triangles (cloth).
    pub tris: Vec<[u32; 3]>,
    /// Each point's body: the `body` point data of a run's frames; `None` in a file without it.
    pub body: Option<Vec<i64>>,
}

/// The surface of a frame file ([`Surface`]).
pub fn read_surface(path: &Path) -> Result<Surface> {
    let ((points, tets, mut tris), body) = read_vtu_cells_and_point_ints(path, "body")?;
    tris.extend(boundary_faces(&tets));
    Ok(Surface { points, tris, body })
}

/// The triangles of a surface, each colored by its body through [`PALETTE`]: body `b` of `body` (one per
/// point) gets color `b`, whatever pieces it is made of; without `body`, the connected pieces are taken
/// for the bodies, in the order of their first vertex (the order of the run's bodies).
pub fn body_colors(points: &[Vec3], tris: &[[u32; 3]], body: Option<&[i64]>) -> Triangles {
    let bodies = match body {
        Some(body) => tris.iter().map(|t| body[t[0] as usize].rem_euclid(PALETTE.len() as i64) as usize).collect(),
        None => connected_pieces(points.len(), tris),
    };
    let colors = bodies.into_iter().map(|b: usize| PALETTE[b % PALETTE.len()]).collect();
    Triangles { points: points.to_vec(), tris: tris.to_vec(), colors }
}

/// The connected piece of each triangle of a surface over `n` points, the pieces numbered in the order of
/// their first vertex.
fn connected_pieces(n: usize, tris: &[[u32; 3]]) -> Vec<usize> {
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn root(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            parent[i as usize] = parent[parent[i as usize] as usize];
            i = parent[i as usize];
        }
        i
    }
    for t in tris {
        for k in 1..3 {
            let (a, b) = (root(&mut parent, t[0]), root(&mut parent, t[k]));
            parent[a.max(b) as usize] = a.min(b);
        }
    }
    // A piece's root is its smallest vertex: number the roots of surface vertices in vertex order
    // (interior vertices are pieces of their own, not drawn).
    let mut on_surface = vec![false; n];
    tris.iter().flatten().for_each(|&i| on_surface[i as usize] = true);
    let mut piece = vec![usize::MAX; n];
    let mut count = 0;
    for i in 0..n as u32 {
        if on_surface[i as usize] && root(&mut parent, i) == i {
            piece[i as usize] = count;
            count += 1;
        }
    }
    tris.iter().map(|t| piece[root(&mut parent, t[0]) as usize]).collect()
}

/// Draws the triangles seen by `cam` into a `width` × `height` image.
pub fn draw(scene: &Triangles, cam: &Camera, width: u32, height: u32) -> Image {
    let (points, tris) = (&scene.points, &scene.tris);
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
    for (t, surface) in tris.iter().zip(&scene.colors) {
        let [a, b, c] = t.map(|i| points[i as usize]);
        let n = (b - a).cross(&(c - a));
        if n.norm() == 0.0 {
            continue;
        }
        let shade = 0.25 + 0.75 * n.normalize().dot(&light).abs();
        let color = surface.map(|s| (s * shade).round().min(255.0) as u8);
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

/// How [`render_run`] draws: the camera (`None`: framing the bodies and the bounded colliders, all but
/// planes and cylinders, of all drawn frames), the
/// image size, the colliders with the frame step that times their motion, and the output folder.
pub struct Setup {
    pub camera: Option<Camera>,
    pub width: u32,
    pub height: u32,
    pub colliders: Vec<Collider>,
    pub dt: f64,
    pub out: PathBuf,
}

/// Renders frames of a run folder to `render/frame_NNNNN.png`, bodies only, with a camera framing
/// them, and returns the files written (as `xpbd report --render` does).
pub fn render_frames(run_dir: &Path, frames: &[usize], cam: Option<Camera>, width: u32, height: u32) -> Result<Vec<PathBuf>> {
    render_run(run_dir, frames, &Setup { camera: cam, width, height, colliders: vec![], dt: 0.0, out: run_dir.join("render") })
}

/// Renders frames of a run folder to `OUT/frame_NNNNN.png` with one camera for all of them and
/// returns the files written.
pub fn render_run(run_dir: &Path, frames: &[usize], setup: &Setup) -> Result<Vec<PathBuf>> {
    let surfaces = frames.iter().map(|f| read_surface(&run_dir.join(format!("frames/frame_{f:05}.vtu")))).collect::<Result<Vec<_>>>()?;
    // A bounded collider's triangles do not depend on the view (the centre and reach given here).
    let bounded: Vec<Vec3> = frames
        .iter()
        .flat_map(|f| {
            setup.colliders.iter().filter(|c| is_bounded(c)).flat_map(move |c| collider_triangles(c, *f as f64 * setup.dt, Vec3::zeros(), 1.0).points)
        })
        .collect();
    let all = || surfaces.iter().flat_map(|s| &s.points).chain(&bounded);
    let lo = all().fold(Vec3::repeat(f64::INFINITY), |m, p| m.inf(p));
    let hi = all().fold(Vec3::repeat(f64::NEG_INFINITY), |m, p| m.sup(p));
    let cam = setup.camera.unwrap_or_else(|| Camera::framing(lo, hi));
    let reach = 4.0 * ((cam.target - cam.eye).norm() + (hi - lo).norm());
    let out = &setup.out;
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let mut written = Vec::new();
    for (f, s) in frames.iter().zip(&surfaces) {
        let mut scene = body_colors(&s.points, &s.tris, s.body.as_deref());
        for c in &setup.colliders {
            scene.extend(collider_triangles(c, *f as f64 * setup.dt, cam.target, reach));
        }
        let path = out.join(format!("frame_{f:05}.png"));
        write_atomic(&path, &draw(&scene, &cam, setup.width, setup.height).png()?)?;
        written.push(path);
    }
    Ok(written)
}
