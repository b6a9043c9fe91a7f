//! The device layout checked on the CPU: schedules flattened without loss, multipliers mapped back, and a host
//! emulation of the kernels' launch sequence (`emulate_sweep`, the loops of `kernels/sweeps.cu` over the flat
//! arrays, with the CPU's per-element projection) that must reproduce the CPU backend.

use super::*;
use std::path::Path;
use xpbd_core::constraint::tet::TetRest;
use xpbd_core::constraint::tet_model::{project_tet, TetParams};
use xpbd_core::material::Lame;
use xpbd_core::mesh::Vec3;
use xpbd_core::scene::Built;
use xpbd_core::state::State;
use xpbd_core::substep::integrate;
use xpbd_cpu::CpuBackend;

fn model(material: &str, ordering: &str, damping: f64, extra: &str) -> Built {
    let text = format!(
        r#"
name = "layout"
[simulation]
dt = 0.01
substeps = 5
iterations = 2
[solver]
ordering = "{ordering}"
cluster_size = 4
relaxation = 0.8
[contact]
self = false
[[body]]
name = "bar"
mesh = {{ generator = "box", size = [1.0, 0.3, 0.3], cells = [6, 2, 2], split = 5 }}
material = {{ model = "{material}", youngs = 1.0e5, poisson = 0.4, density = 1000.0 }}
damping = {damping}
pin = [{{ box = {{ min = [-0.01, -1.0, -1.0], max = [0.01, 1.0, 1.0] }} }}]
{extra}
"#
    );
    let scene = xpbd_core::scene::parse(&text, Path::new("t.toml")).unwrap_or_else(|e| panic!("{e}"));
    xpbd_core::scene::build(&scene, Path::new(".")).unwrap_or_else(|e| panic!("{e}"))
}

fn rest_of(f: &Family, e: usize) -> TetRest {
    TetRest { dm_inv: nalgebra::Matrix3::from_row_slice(&f.data0[9 * e..9 * e + 9]), volume: f.data1[e] }
}

fn tet_of(f: &Family, e: usize) -> [u32; 4] {
    [f.idx[4 * e], f.idx[4 * e + 1], f.idx[4 * e + 2], f.idx[4 * e + 3]]
}

fn params(f: &Family, h: f64) -> TetParams {
    let ElementKind::Tet(model) = f.kind else { panic!("the emulation covers tet families") };
    TetParams::new(model, Lame { mu: f.c0, lambda: f.c1 }, f.damping, h)
}

/// One iteration as the kernels run it: Gauss-Seidel batch by batch, item by item, element by element over the
/// flat arrays, or Jacobi slots then the per-vertex gather.
fn emulate_sweep(model: &Model, l: &Layout, x: &mut [Vec3], x_prev: &[Vec3], lambda: &mut [f64], h: f64) {
    let w = l.jacobi.as_ref().map_or(&model.inv_mass, |j| &j.split_inv_mass);
    let visit = |f: &Family, e: usize, x: &[Vec3], lambda: &mut [f64]| {
        let t = tet_of(f, e);
        let mut p = t.map(|v| x[v as usize]);
        let p0 = t.map(|v| x_prev[v as usize]);
        let rows = f.rows();
        let lam = &mut lambda[f.lambda_offset + rows * e..f.lambda_offset + rows * (e + 1)];
        project_tet(&params(f, h), &rest_of(f, e), &t.map(|v| w[v as usize]), &mut p, &p0, lam);
        (t, p)
    };
    match &l.jacobi {
        None => {
            for f in &l.families {
                for b in 0..f.batches() {
                    let (first, count) = f.batch(b);
                    for i in first..first + count {
                        for e in f.item_start[i as usize]..f.item_start[i as usize + 1] {
                            let (t, p) = visit(f, e as usize, x, lambda);
                            for n in 0..4 {
                                x[t[n] as usize] = p[n];
                            }
                        }
                    }
                }
            }
        }
        Some(j) => {
            let omega = j.relaxation;
            let mut slots = vec![Vec3::zeros(); j.adj.len()];
            for (f, &first_slot) in l.families.iter().zip(&j.family_start) {
                for e in 0..f.elements() {
                    let rows = f.rows();
                    let old: Vec<f64> = lambda[f.lambda_offset + rows * e..][..rows].to_vec();
                    let (t, p) = visit(f, e, x, lambda);
                    for n in 0..4 {
                        slots[first_slot + 4 * e + n] = (p[n] - x[t[n] as usize]) * (omega * j.inv_count[t[n] as usize]);
                    }
                    for (k, o) in old.iter().enumerate() {
                        let l = &mut lambda[f.lambda_offset + rows * e + k];
                        *l = o + (*l - o) * omega;
                    }
                }
            }
            for (v, xv) in x.iter_mut().enumerate() {
                *xv += j.adj[j.start[v] as usize..j.start[v + 1] as usize].iter().map(|&s| slots[s as usize]).sum::<Vec3>();
            }
        }
    }
}

/// `substeps` substeps on the CPU backend and on the emulated kernels: the largest position difference and the
/// largest multiplier difference (in model order) relative to the largest multiplier.
fn compare(b: &Built, substeps: usize) -> (f64, f64) {
    let (model, config) = (&b.model, &b.config);
    let l = Layout::new(model, config).unwrap();
    let h = config.h();
    let mut cpu = CpuBackend::new(model, config);
    let mut s_cpu = State::initial(model);
    let mut s_emu = State::initial(model);
    let mut lambda = vec![0.0; model.rows];
    let mut x_prev = vec![Vec3::zeros(); model.vertex_count()];
    for k in 1..=substeps {
        let t_end = k as f64 * h;
        // Reporting on the last substep exports the CPU's multipliers into model order.
        cpu.substep(model, &mut s_cpu, h, t_end, k == substeps);
        integrate::predict(model, config.velocity_damping, &mut s_emu, &mut x_prev, h, t_end);
        lambda.fill(0.0);
        for _ in 0..config.iterations {
            emulate_sweep(model, &l, &mut s_emu.x, &x_prev, &mut lambda, h);
        }
        integrate::update_velocities(&mut s_emu, &x_prev, h);
    }
    let mut exported = vec![f64::NAN; model.rows];
    l.export_multipliers(&lambda, &mut exported);
    let scale = s_cpu.lambda.iter().fold(0.0f64, |m, l| m.max(l.abs()));
    let dl = s_cpu.lambda.iter().zip(&exported).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / scale;
    let dx = s_cpu.x.iter().zip(&s_emu.x).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max);
    (dx, dl)
}

#[test]
fn emulated_kernels_reproduce_the_cpu_backend() {
    for ordering in ["colored", "clustered", "jacobi"] {
        for (material, damping) in [("neohookean_block", 0.0), ("neohookean_block", 0.01), ("neohookean", 0.0), ("stvk", 0.005)] {
            let m = model(material, ordering, damping, "");
            let (dx, dl) = compare(&m, 10);
            // Same operations up to round-off (the CPU runs undamped block neo-Hookean with its four-lane kernel);
            // the bar is 1 m long and sags by millimetres in 10 substeps.
            assert!(dx < 1e-12, "{material} (damping {damping}) {ordering}: emulated kernels differ from the CPU by {dx:e} m");
            assert!(dl < 1e-9, "{material} (damping {damping}) {ordering}: multipliers differ by {dl:e} (relative)");
        }
    }
}

#[test]
fn schedules_flatten_without_loss() {
    for ordering in ["colored", "clustered"] {
        let b = model("neohookean_block", ordering, 0.0, "");
        let (m, l) = (&b.model, Layout::new(&b.model, &b.config).unwrap());
        let f = &l.families[0];
        let g = &m.tet_groups[0];
        assert_eq!(*f.item_start.last().unwrap() as usize, g.tets.len(), "{ordering}: every element in one item");
        assert_eq!(*f.batch_start.last().unwrap() as usize, f.item_start.len() - 1);
        // Each element once, with its own rest data.
        let mut seen = vec![false; g.tets.len()];
        for e in 0..f.elements() {
            let orig = g.tets.iter().position(|t| *t == tet_of(f, e)).unwrap();
            assert!(!std::mem::replace(&mut seen[orig], true));
            assert_eq!(rest_of(f, e), g.rest[orig]);
        }
        // Items of one batch share no vertex; colored items are single elements.
        for b in 0..f.batches() {
            let (first, count) = f.batch(b);
            let mut owner = std::collections::HashMap::new();
            for i in first..first + count {
                for e in f.item_start[i as usize]..f.item_start[i as usize + 1] {
                    for v in tet_of(f, e as usize) {
                        assert_eq!(*owner.entry(v).or_insert(i), i, "{ordering}: batch {b} items share vertex {v}");
                    }
                }
                if ordering == "colored" {
                    assert_eq!(f.item_start[i as usize + 1] - f.item_start[i as usize], 1);
                }
            }
        }
        assert_eq!(l.colors(), Some(f.batches()));
        assert_eq!(xpbd_core::backend::Backend::colors(&CpuBackend::new(m, &b.config)), l.colors(), "the CPU's schedule");
    }
}

#[test]
fn multipliers_map_back_to_model_order() {
    let b = model("stvk", "clustered", 0.0, "");
    let (m, l) = (&b.model, Layout::new(&b.model, &b.config).unwrap());
    let mut sorted = l.lambda_of.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, (0..m.rows as u32).collect::<Vec<_>>(), "a permutation");
    let f = &l.families[0];
    let g = &m.tet_groups[0];
    // Device row k of element e belongs to the model element with the same vertices.
    for e in [0, f.elements() / 2, f.elements() - 1] {
        let model_row = l.lambda_of[f.lambda_offset + 6 * e + 4] as usize - g.lambda_offset;
        assert_eq!(model_row % 6, 4);
        assert_eq!(g.tets[model_row / 6], tet_of(f, e));
    }
}

#[test]
fn jacobi_slots_count_constraints_per_vertex() {
    let b = model("neohookean", "jacobi", 0.0, "");
    let (m, l) = (&b.model, Layout::new(&b.model, &b.config).unwrap());
    let j = l.jacobi.as_ref().unwrap();
    let f = &l.families[0];
    assert!(f.batch_start.is_empty() && l.colors().is_none());
    assert_eq!(j.adj.len(), 4 * f.elements());
    for v in 0..m.vertex_count() {
        let n = (j.start[v + 1] - j.start[v]) as f64;
        assert_eq!((j.inv_count[v], j.split_inv_mass[v]), (if n > 0.0 { 1.0 / n } else { 0.0 }, n * m.inv_mass[v]), "vertex {v}");
    }
    for v in 0..m.vertex_count() {
        for &s in &j.adj[j.start[v] as usize..j.start[v + 1] as usize] {
            assert_eq!(f.idx[s as usize], v as u32, "slot {s} is a corner at vertex {v}");
        }
    }
}

#[test]
fn unsupported_models_are_named() {
    let supported = |b: &Built| check_supported(&b.model, &b.config).map_err(|e| e.to_string());
    assert!(supported(&model("neohookean_block", "serial", 0.0, "")).unwrap_err().contains("serial"));
    assert!(supported(&model("arap", "colored", 0.0, "")).is_ok(), "every tet model has kernels");
    let sphere = "[[collider]]\nkind = \"sphere\"\ncenter = [0.0, -2.0, 0.0]\nradius = 1.0\n";
    assert!(supported(&model("neohookean_block", "colored", 0.0, &sphere.repeat(33))).unwrap_err().contains("33 colliders"));
    let mut doubled = model("neohookean_block", "colored", 0.0, "");
    let soft = xpbd_core::model::Attachment { vertex: 5, origin: Vec3::zeros(), velocity: Vec3::zeros(), compliance: 1e-4 };
    doubled.model.attachments.extend([soft, soft]);
    assert_eq!(supported(&doubled).unwrap_err(), "vertex 5 has two soft attachments: the GPU pass updates attachments in parallel");
    let plane =
        "[[collider]]\nkind = \"plane\"\npoint = [0.0, -2.0, 0.0]\nnormal = [0.0, 1.0, 0.0]\nfriction = 0.25\nstatic_friction = 0.5\nrestitution = 0.75\n";
    let with_colliders = model("stvk", "clustered", 0.0, &format!("{plane}{sphere}"));
    assert!(supported(&with_colliders).is_ok());
    assert_eq!(
        collider_table(&with_colliders.model),
        [0.0, 0.0, -2.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.5, 0.25, 0.75, 1.0, 0.0, -2.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]
    );
    // Self contact (the scenes' default; pair rows, detected on the host) runs, in plain launches.
    let mut with_self = model("stvk", "clustered", 0.0, "");
    with_self.model.contact.self_contact = true;
    assert!(with_self.model.contact.has_pairs() && supported(&with_self).is_ok());
    let aabb = "[[collider]]\nkind = \"box\"\nmin = [-1.0, -3.0, -1.0]\nmax = [1.0, -2.0, 1.0]\n";
    let boxed = model("stvk", "clustered", 0.0, aabb);
    assert_eq!(collider_table(&boxed.model), [2.0, -1.0, -3.0, -1.0, 1.0, -2.0, 1.0, 0.0, 0.0, 0.0, 0.0]);
    let capsule = "[[collider]]\nkind = \"capsule\"\na = [0.0, -2.0, 0.0]\nb = [1.0, -2.0, 0.0]\nradius = 0.5\n";
    for (extra, why) in [
        (capsule.to_string(), "collider[1]: capsule colliders have no GPU path yet"),
        (format!("{aabb}rotate = [0.0, 30.0, 0.0]\n"), "collider[1]: rotated box colliders have no GPU path yet"),
        (format!("{sphere}velocity = [0.0, 1.0, 0.0]\n"), "collider[1]: moving colliders (velocity, angular_velocity, path) have no GPU path yet"),
    ] {
        assert_eq!(supported(&model("stvk", "clustered", 0.0, &format!("{plane}{extra}"))).unwrap_err(), why);
    }
}
