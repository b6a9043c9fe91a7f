//! `xpbd-tools`: what the command line does around a simulation, kept out of the `xpbd` library so
//! that it needs neither plotters nor png: headless rendering of run frames, line plots, the
//! convergence figure, reports and the batch runner of parameter sweeps.

pub mod batch;
pub mod converge_plot;
pub mod image_file;
pub mod plot;
pub mod render;
pub mod render_collider;
pub mod report;
