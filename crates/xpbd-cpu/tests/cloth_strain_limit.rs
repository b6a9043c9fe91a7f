//! Cloth strain limiting (docs/cloth.md): a sheet with soft edges hanging from two corners stretches far
//! beyond 10 %; with `strain_min = 0.9`, `strain_max = 1.1` every triangle's principal stretches stay within
//! the bounds.

mod common;

use common::{sim_header, Sim};
use xpbd_core::constraint::strain_limit::principal_stretches;
use xpbd_core::fem::shell::TriangleRest;
use xpbd_core::scene::schema::Material;
use xpbd_core::scene::BodyBuilder;

/// (smallest, largest) principal stretch over all triangles after one second of hanging, with and without
/// the limit.
fn stretch_range(limit: Option<(f64, f64)>) -> (f64, f64) {
    let material = Material { strain_min: limit.map(|l| l.0), strain_max: limit.map(|l| l.1), ..Material::cloth(1.0, 5e-2, 1.0) };
    let sheet = BodyBuilder::new("sheet")
        .grid2d([1.0, 1.0], [12, 12])
        .material(material)
        .pin_box([-0.01, 0.99, -0.01], [0.01, 1.01, 0.01])
        .pin_box([0.99, 0.99, -0.01], [1.01, 1.01, 0.01]);
    let mut sim = Sim::new(&sim_header(0.01, 10, 4, [0.0, -9.81, 0.0], 1.0, "serial").body(sheet).build());
    sim.frames(100);
    let tris = &sim.model.bodies[0].surface;
    tris.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), t| {
        let dm_inv = TriangleRest::new(&t.map(|i| sim.model.rest[i as usize])).unwrap().dm_inv;
        let s = principal_stretches(&t.map(|i| sim.state.x[i as usize]), &dm_inv);
        (lo.min(s[1]), hi.max(s[0]))
    })
}

#[test]
fn strain_limit_keeps_every_triangle_within_its_bounds() {
    let free = stretch_range(None);
    let limited = stretch_range(Some((0.9, 1.1)));
    println!("principal stretches without limit [{:.4}, {:.4}], with [0.9, 1.1]: [{:.4}, {:.4}]", free.0, free.1, limited.0, limited.1);
    assert!(free.1 > 1.2, "the soft sheet should stretch beyond the limit: {free:?}");
    assert!(limited.0 > 0.9 - 0.01 && limited.1 < 1.1 + 0.01, "{limited:?}");
}
