//! Multi-layer XPBD on the stretched box of Table 1 (the multi-layer paper §4.5): a 3 × 1 × 1 StVK box
//! (E = 1e9 Pa, so that 20 iterations do not converge) stretched 10 % along x and released, at ≈ 650,
//! 1500 and 3300 tets. For each size, 20 frames of 2 substeps × 20 iterations, side by side with XPBD at
//! the same iterations (XPBD's default serial ordering): solver time per substep and its ratio, the mean relative residual
//! ‖C + α̃λ‖/‖C(x̃)‖ of each frame's last substep, and the share of the multi-layer substep time spent
//! ordering elements and merging them (strain-rate selection, union-find, dissolving pinned groups;
//! issue target ≤ 1 %), the median over the frames. The paper's time to 90 % residual reduction is
//! measured by `benches/multilayer_studies.rs`.
//!
//! Run: `cargo bench -p xpbd-benches --bench multilayer_share [-- FRAMES]` (default 20 frames).

use std::path::Path;
use xpbd_core::backend::Backend;
use xpbd_core::state::State;
use xpbd_cpu::CpuBackend;

fn scene(kind: &str, cells: [usize; 3]) -> String {
    format!(
        "name = \"stretched_box\"\n[simulation]\ndt = 0.01\nsubsteps = 2\niterations = 20\ngravity = [0.0, 0.0, 0.0]\n\
         [solver]\nkind = \"{kind}\"\n[output]\nformats = [\"none\"]\n\
         [[body]]\nname = \"box\"\nmesh = {{ generator = \"box\", size = [3.0, 1.0, 1.0], cells = [{}, {}, {}], split = 5 }}\n\
         material = {{ model = \"stvk\", youngs = 1e9, poisson = 0.3, density = 1000.0 }}\n",
        cells[0], cells[1], cells[2]
    )
}

/// (tets, solver seconds per substep, mean relative residual, median over the frames of the
/// sort + union-find share of the multi-layer substep time) over `frames` frames.
fn run(kind: &str, cells: [usize; 3], frames: usize) -> (usize, f64, f64, Option<f64>) {
    let s = xpbd_core::scene::parse(&scene(kind, cells), Path::new("bench.toml")).unwrap();
    let built = xpbd_core::scene::build(&s, Path::new(".")).unwrap();
    let model = built.model;
    let mut state = State::initial(&model);
    let cx = model.rest.iter().map(|x| x.x).sum::<f64>() / model.rest.len() as f64;
    state.x.iter_mut().for_each(|x| x.x = cx + 1.1 * (x.x - cx));
    let mut backend = CpuBackend::new(&model, &built.config);
    let (mut solve, mut rel) = (0.0, 0.0);
    // Per-frame shares; their median is robust to the preemptions of a loaded machine, which land in
    // the short sort + union-find block of a few frames and inflate a plain ratio of sums.
    let mut shares = Vec::new();
    for _ in 0..frames {
        let before = backend.multilayer().map(|m| (m.hierarchy_seconds, m.substep_seconds));
        let stats = backend.step_frame(&model, &mut state).unwrap();
        solve += stats.solve_seconds;
        rel += stats.relative_residual;
        if let (Some((h0, s0)), Some(m)) = (before, backend.multilayer()) {
            shares.push((m.hierarchy_seconds - h0) / (m.substep_seconds - s0));
        }
    }
    shares.sort_by(f64::total_cmp);
    let share = shares.get(shares.len() / 2).copied();
    (model.element_count(), solve / (frames * 2) as f64, rel / frames as f64, share)
}

fn main() {
    let frames = std::env::args().skip(1).find_map(|a| a.parse().ok()).unwrap_or(20);
    println!("| tets | xpbd ms/substep | multilayer ms/substep | ratio | xpbd mean rel. residual | multilayer mean rel. residual | sort + union-find share |");
    println!("|---|---|---|---|---|---|---|");
    for cells in [[11, 4, 3], [15, 5, 4], [22, 6, 5]] {
        let (n, tx, rx, _) = run("xpbd", cells, frames);
        let (_, tm, rm, share) = run("multilayer", cells, frames);
        println!("| {n} | {:.3} | {:.3} | {:.2} | {rx:.3e} | {rm:.3e} | {:.2} % |", tx * 1e3, tm * 1e3, tm / tx, share.unwrap() * 100.0);
    }
}
