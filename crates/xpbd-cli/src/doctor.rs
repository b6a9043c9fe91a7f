//! `xpbd doctor [--json] [--device cuda:N] [--no-self-test]`: the driver, the devices, the kernels built in and
//! whether they load, and the self-test against the CPU backend, on one screen or as JSON (docs/doctor.md).
//! Exits 1 with the first problem on standard error when anything is missing or fails.

use clap::Args;
use xpbd::doctor::{examine, DeviceReport, Options, Report};
use xpbd::selftest::Check;
use xpbd::Device;
use xpbd_core::{Error, Result};

#[derive(Args)]
pub struct DoctorArgs {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Examine one device, cuda or cuda:N (default: every device the driver sees).
    #[arg(long)]
    device: Option<String>,
    /// Skip the self-test (only probe the devices and load the kernels).
    #[arg(long)]
    no_self_test: bool,
}

pub fn doctor(args: DoctorArgs) -> Result<()> {
    let device = match args.device.as_deref().map(str::parse::<Device>).transpose().map_err(|e| Error::usage(format!("--{e}")))? {
        None => None,
        Some(Device::Cuda(n)) => Some(n),
        Some(Device::Auto | Device::AutoOn(_) | Device::Cpu) => return Err(Error::usage("--device: the doctor examines a CUDA device, cuda:N")),
    };
    let options = Options { device, self_test: !args.no_self_test };
    let json = args.json;
    let report = examine(&options, &mut |ordinal, check| {
        if !json {
            eprintln!("cuda:{ordinal} {}", check_line(check));
        }
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&report).expect("the report serialises"));
    } else {
        print!("{}", screen(&report, &options));
    }
    match report.problems.first() {
        None => Ok(()),
        Some(first) => Err(Error::invalid(first.clone())),
    }
}

/// `label` padded to the screen's first column.
fn row(label: &str, text: &str) -> String {
    format!("{label:<10}{text}\n")
}

/// The text screen.
fn screen(r: &Report, options: &Options) -> String {
    let k = &r.kernels;
    let mut out = format!("xpbd doctor {}\n", env!("CARGO_PKG_VERSION"));
    out += &match k.missing {
        Some(reason) => row("kernels", reason),
        None => {
            row(
                "kernels",
                &format!(
                    "built by nvcc {} ({}, found in {}), PTX ISA {}",
                    k.nvcc_release.unwrap_or("?"),
                    k.nvcc.unwrap_or("?"),
                    k.nvcc_origin.unwrap_or("?"),
                    k.ptx_isa.unwrap_or("?")
                ),
            ) + &row("", &format!("{} modules ({}), hash {}", k.modules.len(), k.modules.join(", "), k.hash.unwrap_or("?")))
                + &row(
                    "",
                    &match (&k.nvrtc, &k.nvrtc_missing) {
                        (Some(n), _) => format!("fallback where a driver rejects the PTX: {n}"),
                        (None, why) => format!("no NVRTC fallback: {}", why.as_deref().unwrap_or("?")),
                    },
                )
        }
    };
    let d = &r.driver;
    out += &row(
        "driver",
        &match (&d.error, &d.cuda_version) {
            (Some(e), _) => e.clone(),
            (None, cuda) => format!("{} for CUDA {}", d.release.as_deref().unwrap_or("release unknown"), cuda.as_deref().unwrap_or("?")),
        },
    );
    if r.devices.is_empty() {
        out += &row("devices", "none");
    }
    for device in &r.devices {
        out += &device_rows(device, options);
    }
    let c = &r.cache;
    let cache = match &c.path {
        Some(path) => format!("{path}: {} pass(es) recorded", c.passes),
        None => "none".to_owned(),
    };
    out += &row("cache", &cache);
    if let Some(w) = &c.warning {
        out += &row("", &format!("warning: {w}"));
    }
    out += &row(
        "result",
        &match r.problems.first() {
            None if r.devices.iter().all(|d| d.validated) => "ok: `--device auto` may pick the CUDA backend on the devices above".to_owned(),
            None => "ok, but not validated: `--device auto` runs on the CPU until the self-test passes here".to_owned(),
            Some(first) => format!("FAILED: {first}; `--device auto` runs on the CPU"),
        },
    );
    out
}

/// A device's rows: what it is, its modules, its checks, and what `auto` does with it.
fn device_rows(d: &DeviceReport, options: &Options) -> String {
    let gib = d.memory_bytes as f64 / (1u64 << 30) as f64;
    let mut out = row(
        &format!("cuda:{}", d.ordinal),
        &format!("{} ({}), compute capability {}, {gib:.1} GiB", d.name, d.uuid.as_deref().unwrap_or("no UUID"), d.compute_capability),
    );
    if let Some(e) = d.unusable.as_ref().or(d.context_error.as_ref()) {
        out += &row("", &format!("cannot run the kernels: {e}"));
    }
    if !d.modules.is_empty() {
        let loaded = d.modules.iter().filter(|m| m.error.is_none()).count();
        let seconds: f64 = d.modules.iter().map(|m| m.seconds).sum();
        out += &row("", &format!("modules: {loaded} of {} load ({seconds:.2} s)", d.modules.len()));
        if let Some(why) = &d.nvrtc {
            out += &row("", &format!("compiled by NVRTC: {why}"));
        }
        for m in d.modules.iter().filter(|m| m.error.is_some()) {
            out += &row("", &format!("  {}: {}", m.name, m.error.as_deref().unwrap_or_default()));
        }
    }
    match &d.self_test {
        Some(t) => {
            let passed = t.checks.iter().filter(|c| c.passed).count();
            out += &row("", &format!("self-test: {passed} of {} checks pass ({:.1} s)", t.checks.len(), t.seconds));
            for c in &t.checks {
                out += &row("", &format!("  {}", check_line(c)));
            }
        }
        None if !options.self_test => out += &row("", "self-test: skipped (--no-self-test)"),
        None => {}
    }
    out += &row(
        "",
        &match (&d.auto_reason, d.recorded) {
            (None, true) => "validated: the pass is recorded; `--device auto` may pick this device".to_owned(),
            (None, false) => "validated (an earlier pass is recorded): `--device auto` may pick this device".to_owned(),
            (Some(reason), _) => format!("`--device auto` does not pick it: {reason}"),
        },
    );
    out
}

/// "pass  xpbd beam colored f64  3.1e-13 <= 1e-9 (largest position difference / body size)  0.21 s" ("not
/// measured" for a check that could not run), and the failures of a failed check.
fn check_line(c: &Check) -> String {
    let verdict = if c.passed { "pass" } else { "FAIL" };
    let measured = if c.difference.is_nan() { "not measured".to_owned() } else { format!("{:.2e} <= {:.0e} ({})", c.difference, c.tolerance, c.measure) };
    let mut line = format!("{verdict}  {:<42} {measured}  {:.2} s", c.name, c.seconds);
    for f in &c.failures {
        line += &format!("; {f}");
    }
    line
}
