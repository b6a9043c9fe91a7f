mod common;
use common::{sim_header, Sim};
#[test]
fn explore() {
    for (sub, it) in [(10,1),(10,2),(10,8),(10,32),(10,128),(40,2),(160,2)] {
        let pin = "pin = [{ box = { min = [0.29, 0.0, -1.0], max = [0.31, 3.0, 1.0] } }]";
        let text = sim_header(0.01, sub, it, [0.0; 3], 0.0, "serial") + &format!("[[body]]\nname=\"b\"\nmesh = {{ generator = \"box\", size = [1.0,0.5,0.5], cells = [4,2,2], split = 5 }}\ntranslate = [0.3, 1.0, -0.2]\nmaterial = {{ model = \"neohookean\", youngs = 1e6, poisson = 0.45, density = 1000.0 }}\n{pin}\n");
        let mut sim = Sim::new(&text);
        sim.frames(20);
        let d1 = sim.max_displacement();
        sim.frames(80);
        let (mj, _) = xpbd_core::metrics::volume_stats(&sim.model, &sim.state.x);
        let v = xpbd_core::metrics::body_volume(&sim.model, 0, &sim.state.x) / 0.25;
        println!("substeps {sub} it {it}: drift@20 {d1:.3e} drift@100 {:.3e} min detF {mj:.5} vol ratio {v:.5} E {:.3e}", sim.max_displacement(), xpbd_core::metrics::elastic_energy(&sim.model, &sim.state.x));
    }
}
