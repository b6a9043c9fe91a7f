"""Table rows of benches/reproduce/cloth-report.sh from its runs (standard library only).

Usage: cloth_report_measure.py FIGURE WORK RUN... [--svg FILE]
  FIGURE  fig1 | fig2 | fig3 | damping | cost
  WORK    the folder with RUN.toml (the scene) and RUN/ (the `xpbd run` output) for each RUN
  --svg   (damping) also draw the kinetic energy of every run against time
The pictures column links pictures/RUN.png when $CLOTH_REPORT_OUT/pictures has it.
"""
import csv
import glob
import json
import os
import sys
import tomllib


def load(work, name):
    """The run's scene, summary, metrics rows and probe positions {probe: [(frame, (x, y, z))]}."""
    scene = tomllib.load(open(os.path.join(work, name + ".toml"), "rb"))
    folder = os.path.join(work, name)
    summary = json.load(open(os.path.join(folder, "summary.json")))
    metrics = list(csv.DictReader(open(os.path.join(folder, "metrics.csv"))))
    probes = {}
    path = os.path.join(folder, "probes.csv")
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            probes.setdefault(r["probe"], []).append((int(r["frame"]), (float(r["x"]), float(r["y"]), float(r["z"]))))
    return scene, summary, metrics, probes


def moved(probes, name, axis):
    """The probe's displacement along `axis` (0, 1, 2) from frame 0 to its last frame."""
    track = probes[name]
    return track[-1][1][axis] - track[0][1][axis]


def status(summary):
    """'' for a completed run, else what stopped it."""
    if summary["status"] in ("completed", "completed_with_failures"):
        return ""
    f = summary.get("failure", {})
    return f" (failed at frame {f.get('frame')}: {f.get('kind')})"


def picture(name):
    out = os.environ.get("CLOTH_REPORT_OUT", "")
    return f"[png](pictures/{name}.png)" if os.path.exists(os.path.join(out, "pictures", name + ".png")) else ""


def stepping(scene):
    sim = scene["simulation"]
    return f"{sim['iterations']} x {sim['substeps']}"


def residual(metrics, material):
    if "pbd_stretch" in material or not metrics:
        return "—"
    return f"{float(metrics[-1]['relative_residual']):.2e}"


def fig1(work, runs):
    for name in runs:
        scene, summary, metrics, probes = load(work, name)
        mat = scene["body"][0]["material"]
        stretch = f"PBD k = {mat['pbd_stretch']}" if "pbd_stretch" in mat else f"XPBD α = {mat['stretch_compliance']:g} m/N"
        drop = -moved(probes, "bottom_middle", 1)
        strain = float(metrics[-1]["max_edge_strain"]) if metrics else float("nan")
        print(f"| `{name}`{status(summary)} | {stretch} | {stepping(scene)} | {drop:.4f} | {strain:.3f} | {residual(metrics, mat)} | {picture(name)} |")


def fig2(work, runs):
    for name in runs:
        scene, summary, metrics, probes = load(work, name)
        body = scene["body"][0]
        drop = -moved(probes, "bottom_middle", 1)
        asym = -moved(probes, "bottom_left", 1) + moved(probes, "bottom_right", 1)
        shift = moved(probes, "bottom_middle", 0)
        strain = float(metrics[-1]["max_edge_strain"]) if metrics else float("nan")
        print(f"| `{name}`{status(summary)} | {body['mesh']['pattern']} | {body['material']['stretch_compliance']:g} | {drop:.4f} | {asym:+.4f} "
              f"| {shift:+.4f} | {strain:.2e} | {residual(metrics, body['material'])} | {picture(name)} |")


def fig3(work, runs):
    for name in runs:
        scene, summary, metrics, probes = load(work, name)
        body = scene["body"][0]
        droop = -moved(probes, "free_middle", 1)
        twist = -moved(probes, "free_left", 1) + moved(probes, "free_right", 1)
        print(f"| `{name}`{status(summary)} | {body['mesh']['pattern']} | {body['material']['bending_compliance']:g} | {droop:.4f} | {twist:+.4f} "
              f"| {residual(metrics, body['material'])} | {picture(name)} |")


def damping(work, runs, svg):
    curves = []
    for name in runs:
        scene, summary, metrics, _ = load(work, name)
        t = [float(r["time"]) for r in metrics]
        ke = [float(r["kinetic_energy"]) for r in metrics]
        curves.append((name, scene["body"][0].get("damping", 0.0), t, ke))
        windows = [max((k for tt, k in zip(t, ke) if 2 * w < tt <= 2 * w + 2), default=float("nan")) for w in range(5)]
        ratio = windows[-1] / windows[0] if windows[0] > 0 else float("nan")
        print(f"| `{name}`{status(summary)} | {curves[-1][1]:g} | " + " | ".join(f"{v:.3g}" for v in windows) + f" | {ratio:.2f} |")
    if svg:
        draw(svg, curves)


def draw(path, curves):
    """Kinetic energy against time, one polyline per run, linear axes."""
    w, h, left, bottom, top, right = 640, 320, 60, 40, 20, 150
    tmax = max((max(c[2]) for c in curves if c[2]), default=1.0)
    kmax = max((max(c[3]) for c in curves if c[3]), default=1.0) or 1.0
    sx = lambda t: left + (w - left - right) * t / tmax
    sy = lambda k: h - bottom - (h - bottom - top) * k / kmax
    colors = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
             f'<rect width="{w}" height="{h}" fill="white"/>',
             f'<line x1="{left}" y1="{h - bottom}" x2="{w - right}" y2="{h - bottom}" stroke="black"/>',
             f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
             f'<text x="{(left + w - right) / 2}" y="{h - 8}" text-anchor="middle">time (s)</text>',
             f'<text x="14" y="{(top + h - bottom) / 2}" transform="rotate(-90 14 {(top + h - bottom) / 2})" text-anchor="middle">kinetic energy (J)</text>']
    for i in range(6):
        t = tmax * i / 5
        parts.append(f'<text x="{sx(t):.1f}" y="{h - bottom + 16}" text-anchor="middle">{t:.3g}</text>')
        k = kmax * i / 5
        parts.append(f'<text x="{left - 6}" y="{sy(k) + 4:.1f}" text-anchor="end">{k:.2g}</text>')
    for i, (name, beta, t, ke) in enumerate(curves):
        c = colors[i % len(colors)]
        pts = " ".join(f"{sx(a):.1f},{sy(b):.1f}" for a, b in zip(t, ke))
        parts.append(f'<polyline fill="none" stroke="{c}" stroke-width="1" points="{pts}"/>')
        parts.append(f'<text x="{w - right + 10}" y="{top + 16 * (i + 1)}" fill="{c}">β = {beta:g} s</text>')
    parts.append("</svg>")
    open(path, "w").write("\n".join(parts) + "\n")


def cost(work, runs):
    for name in runs:
        scene, summary, _, _ = load(work, name)
        times = [json.load(open(f))["ms_per_frame"] for f in sorted(glob.glob(os.path.join(work, name + ".summary.*.json")))]
        nx, ny = scene["body"][0]["mesh"]["cells"]
        edges = 3 * nx * ny + nx + ny
        hinges = 3 * nx * ny - nx - ny
        ms = min(times)
        threads = 2 if scene["solver"]["ordering"] == "colored" else 1
        print(f"| `{name}`{status(summary)} | {scene['solver']['ordering']} | {threads} | {scene['simulation']['iterations']} | {edges} + {hinges} "
              f"| {ms:.3f} | {1000.0 / ms:.0f} |")


def main(argv):
    svg = None
    if "--svg" in argv:
        i = argv.index("--svg")
        svg = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    figure, work, runs = argv[0], argv[1], argv[2:]
    if figure == "damping":
        damping(work, runs, svg)
    else:
        {"fig1": fig1, "fig2": fig2, "fig3": fig3, "cost": cost}[figure](work, runs)


if __name__ == "__main__":
    main(sys.argv[1:])
