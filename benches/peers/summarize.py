#!/usr/bin/env python3
"""Summary of benches/peers/run.sh: reads its key=value file and the run folders it names, prints the tables
and writes the Markdown report. Standard library only.

Usage: summarize.py RAW.txt REPORT.md
"""

import csv
import json
import math
import os
import statistics
import sys


def read_raw(path):
    raw = {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if "=" in line:
                k, v = line.split("=", 1)
                raw[k] = v
    return raw


def tips_of(run_dir):
    """{frame: (x, y, z)} of the tip probe in probes.csv."""
    out = {}
    with open(os.path.join(run_dir, "probes.csv")) as f:
        for r in csv.DictReader(f):
            if r["probe"] == "tip":
                out[int(r["frame"])] = (float(r["x"]), float(r["y"]), float(r["z"]))
    return out


def solve_ms(run_dir, warmup):
    """Per-frame solve milliseconds (metrics.csv `ms`) of the frames after the warm-up."""
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        return [float(r["ms"]) for r in csv.DictReader(f) if int(r["frame"]) > warmup]


def inverted_at(run_dir, frame):
    """inverted_elements of metrics.csv at `frame` (None when the run has no such frame)."""
    with open(os.path.join(run_dir, "metrics.csv")) as f:
        for r in csv.DictReader(f):
            if int(r["frame"]) == frame:
                return int(r["inverted_elements"])
    return None


def dist(a, b):
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def fmt(v, spec=".2f"):
    return "–" if v is None else format(v, spec)


def main():
    raw_path, report = sys.argv[1], sys.argv[2]
    raw = read_raw(raw_path)
    frames, warmup, q = int(raw["frames"]), int(raw["warmup"]), int(raw["quality_frame"])
    orderings = raw["orderings"].split()

    repeats = int(raw.get("repeats", 1))

    # ---- Newton: each statistic's minimum over the repeats (the least disturbed), the tips of repeat 1
    newton_runs = []
    for r in range(1, repeats + 1):
        if f"newton.{r}.json" in raw:
            with open(raw[f"newton.{r}.json"]) as f:
                newton_runs.append(json.load(f))
    newton = dict(newton_runs[0]) if newton_runs else None
    if newton:
        for k in ("ms_per_frame_mean", "ms_per_frame_median", "ms_per_frame_min", "cpu_ms_per_frame_mean"):
            newton[k] = min(n[k] for n in newton_runs)
        newton["cpu_per_wall"] = max(n["cpu_per_wall"] for n in newton_runs)
    newton_ref = None
    if "newton_ref.json" in raw:
        with open(raw["newton_ref.json"]) as f:
            newton_ref = json.load(f)
    newton_refcheck = None
    if "newton_refcheck.json" in raw:
        with open(raw["newton_refcheck.json"]) as f:
            newton_refcheck = json.load(f)
    n_ms = newton["ms_per_frame_mean"] if newton else None

    # ---- ours: the same minimum over repeats, tips and health of repeat 1
    ours = {}
    for o in orderings:
        nf = int(raw[f"ours.{o}.frames_long"]) - int(raw[f"ours.{o}.frames_short"])
        reps = []
        for r in range(1, repeats + 1):
            d = raw[f"ours.{o}.{r}.dir"]
            ms = solve_ms(d, warmup)
            (short, short_cpu), (long_, long_cpu) = (
                map(float, raw[f"ours.{o}.{r}.{k}"].split()) for k in ("short", "long"))
            reps.append({"dir": d, "solve_mean": statistics.mean(ms), "solve_median": statistics.median(ms),
                         "solve_min": min(ms), "wall_diff": (long_ - short) * 1e3 / nf,
                         "cpu_diff": (long_cpu - short_cpu) * 1e3 / nf, "wall_short_s": short,
                         "wall_long_s": long_, "cpu_short_s": short_cpu, "cpu_long_s": long_cpu, "timed": len(ms)})
        d = reps[0]["dir"]
        with open(os.path.join(d, "summary.json")) as f:
            summary = json.load(f)
        failed = summary.get("failed_check_count", 0)
        row = {k: min(rep[k] for rep in reps) for k in ("solve_mean", "solve_median", "solve_min", "wall_diff", "cpu_diff")}
        row.update({"reps": reps, "backend": summary["backend"], "tips": tips_of(d), "failed": failed,
                    "first_failed": summary["failed_checks"][0] if failed else None,
                    "frames_long": int(raw[f"ours.{o}.frames_long"]), "inverted": inverted_at(d, q),
                    "tips_agree": all(tips_of(rep["dir"])[q] == tips_of(d)[q] for rep in reps)})
        ours[o] = row

    ref_tips = tips_of(raw["ref.dir"])
    ref = ref_tips[q]
    rest = ref_tips[0]
    check = tips_of(raw["refcheck.dir"])[q] if "refcheck.dir" in raw else None

    n_med = newton["ms_per_frame_median"] if newton else None
    n_cpu = newton["cpu_ms_per_frame_mean"] if newton else None
    time_lines = [
        "| solver (1 thread) | ms/frame mean | median | min | wall ms/frame (2N − N) | CPU ms/frame | "
        "ours / Newton: mean | median | wall | CPU |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    if newton:
        time_lines.append(
            f"| Newton {newton['newton']} SolverXPBD (Warp {newton['warp']}, cpu) | {n_ms:.2f} | {n_med:.2f} | "
            f"{newton['ms_per_frame_min']:.2f} | ({n_ms:.2f}) | {n_cpu:.2f} | 1 | 1 | 1 | 1 |")
    for o, r in ours.items():
        ratios = [r["solve_mean"] / n_ms, r["solve_median"] / n_med, r["wall_diff"] / n_ms, r["cpu_diff"] / n_cpu] \
            if newton else [None] * 4
        time_lines.append(
            f"| ours, {o} | {r['solve_mean']:.2f} | {r['solve_median']:.2f} | {r['solve_min']:.2f} | "
            f"{r['wall_diff']:.2f} | {r['cpu_diff']:.2f} | " + " | ".join(fmt(v) for v in ratios) + " |")
        r["ratios"] = ratios

    ref_defl = ref[1] - rest[1]
    q_lines = [
        f"| run | tip x, y at frame {q} (m) | y deflection (m) | error vs reference (m) | relative error | "
        f"inverted tets at frame {q} |" + (f" error vs Newton at {newton_ref['substeps']} substeps (m) |" if newton_ref else ""),
        "|---|---|---|---|---|---|" + ("---|" if newton_ref else ""),
    ]

    def q_row(label, tip, tip0, inverted=None, newton_side=False):
        e = dist(tip, ref)
        extra = ""
        if newton_ref:
            extra = f" {dist(tip, newton_ref['tip'][q]):.4f} |" if newton_side else " – |"
        inv = "–" if inverted is None else str(inverted)
        return (f"| {label} | {tip[0]:.4f}, {tip[1]:.4f} | {tip[1] - tip0[1]:.4f} | {e:.4f} | "
                f"{e / abs(ref_defl):.3f} | {inv} |" + extra)

    q_lines.append(q_row(f"reference: ours, {raw['ref.label']}", ref, rest, inverted_at(raw["ref.dir"], q)))
    if check:
        q_lines.append(q_row(f"reference check: ours, {raw['refcheck.label']}", check, rest,
                             inverted_at(raw["refcheck.dir"], q)))
    for o, r in ours.items():
        q_lines.append(q_row(f"ours, {o}, 10 substeps × 1 iteration", r["tips"][q], r["tips"][0], r["inverted"]))
    def blown(tips):
        """Note on the first frame whose tip is over 20 m from its rest position (a diverged run)."""
        for f, t in enumerate(tips):
            if not all(math.isfinite(v) for v in t) or dist(t, tips[0]) > 20.0:
                return f" (diverged: tip over 20 m from rest from frame {f} on)"
        return ""

    if newton:
        q_lines.append(q_row("Newton, 10 substeps × 1 iteration" + blown(newton["tip"]), newton["tip"][q],
                             newton["tip"][0], None, True))
    for nr in (newton_refcheck, newton_ref):
        if nr:
            q_lines.append(q_row(f"Newton, {nr['substeps']} substeps × 1 iteration" + blown(nr["tip"]),
                                 nr["tip"][q], nr["tip"][0], None, True))

    steps = list(range(0, q + 1, 10)) if q >= 10 else list(range(q + 1))
    traj = ["| run | " + " | ".join(str(f) for f in steps) + " |", "|---|" + "---|" * len(steps)]

    def traj_row(label, tips):
        def cell(f):
            t = tips[f] if (isinstance(tips, dict) and f in tips) or (isinstance(tips, list) and f < len(tips)) else None
            return "–" if t is None else f"{t[1]:.3f}"
        return f"| {label} | " + " | ".join(cell(f) for f in steps) + " |"

    traj.append(traj_row(f"reference: ours, {raw['ref.label']}", ref_tips))
    for o, r in ours.items():
        traj.append(traj_row(f"ours, {o}", r["tips"]))
    if newton:
        traj.append(traj_row("Newton, 10 substeps", newton["tip"]))
    for nr in (newton_refcheck, newton_ref):
        if nr:
            traj.append(traj_row(f"Newton, {nr['substeps']} substeps", nr["tip"]))

    print("\n".join(time_lines))
    print()
    print("\n".join(q_lines))
    if "newton.error" in raw:
        print(f"\nNEWTON DID NOT RUN: {raw['newton.error']}")

    md = [f"# Peers: Newton/Warp CPU XPBD and ours on the 56k-tet beam ({raw['date']})", ""]
    md += [
        "Written by `benches/peers/run.sh` (docs/benchmarks.md, section \"Peers\").",
        "",
        f"- Machine: {raw['cpu']}, {raw['cores']} cores (shared: load average {raw['load_start']} at the start, "
        f"{raw['load_end']} at the end).",
        f"- Ours: commit {raw['commit']}, {raw['rustc']}, `xpbd run SCENE --threads 1 --quiet` with "
        "`RAYON_NUM_THREADS=1`, material `neohookean_block`.",
    ]
    if newton:
        md.append(
            f"- Newton {newton['newton']}, Warp {newton['warp']} ({raw['python']}), device `{newton['device']}`, "
            f"`SolverXPBD(iterations={newton['iterations']}, soft_body_relaxation={newton['relaxation']})`, "
            f"`add_soft_mesh` with k_mu = k_lambda = 1e5, k_damp = 0; {newton['vertices']} particles "
            f"({newton['pinned']} pinned), {newton['tets']} tets; process CPU time / wall time over the timed "
            f"loop at most {newton['cpu_per_wall']:.2f} over the repeats (at most 1 for one thread; below 1 it is the "
            "share of a core the process got).")
    else:
        md.append(f"- **Newton did not run**: {raw.get('newton.error', 'unknown reason')}")
    md += [f"- Command: `{raw['command']}`", ""]
    md += ["## Time per frame", "",
           f"Each number is the smallest over {repeats} repeats (ours and Newton interleaved in each repeat). "
           f"Ours: mean/median/min of metrics.csv `ms` (the solve time of a frame; excludes the per-frame residual "
           f"evaluation) over frames {warmup + 1}–{warmup + 2 * frames} of one run; the wall column is the "
           f"process wall time of a {warmup + 2 * frames}-frame run minus that of a {warmup + frames}-frame run, over "
           f"{frames} frames (everything a frame costs: residual, metrics, probes, health checks; setup cancels), and "
           "the CPU column is the same difference of the process's user + system time. "
           f"Newton: wall time of each frame ({newton['substeps'] if newton else 10} `solver.step` calls) over "
           f"{newton['frames'] if newton else 0} frames after {warmup} warm-up frames, outside Python's "
           "module compilation and model building (so its wall column repeats its mean); its CPU column is the process "
           "time of those frames. With other "
           "processes on the machine, CPU time is the steadier measure; wall time is what a user waits.", ""]
    md += time_lines + [""]
    md += [f"## Tip at frame {q}", "",
           f"Tip vertex (50, 7, 7), rest position {tuple(round(v, 4) for v in rest)}; the reference is ours with "
           f"{raw['ref.label']}. Errors are Euclidean distances of the tip; relative error is that over the size of the "
           f"reference's y deflection "
           f"{ref_defl:.4f} m.", ""]
    md += q_lines + [""]
    md += ["Tip y (m) along the run:", ""] + traj + [""]
    md += ["## Raw", "", "```"]
    for o, r in ours.items():
        md.append(f"ours {o}: backend \"{r['backend']}\"; "
                  + (f"{r['failed']} frames of {r['frames_long']} failed a health check (first: frame "
                     f"{r['first_failed']['frame']}, {r['first_failed']['cause']})" if r["failed"]
                     else f"no failed health check in {r['frames_long']} frames")
                  + ("" if r["tips_agree"] else "; the repeats' tips differ"))
        for i, rep in enumerate(r["reps"], 1):
            md.append(f"  repeat {i}: wall / CPU {rep['wall_short_s']:.3f} / {rep['cpu_short_s']:.3f} s "
                      f"({raw[f'ours.{o}.frames_short']} frames), {rep['wall_long_s']:.3f} / {rep['cpu_long_s']:.3f} s "
                      f"({r['frames_long']} frames); solve ms over {rep['timed']} frames mean {rep['solve_mean']:.3f} "
                      f"median {rep['solve_median']:.3f} min {rep['solve_min']:.3f}")
    md.append(f"reference wall, CPU s: {raw['ref.time']}" + (f"; check: {raw['refcheck.time']}" if check else ""))
    for i, n in enumerate(newton_runs, 1):
        keep = {k: v for k, v in n.items() if k not in ("tip", "frame_ms")}
        md.append(f"newton repeat {i}: " + json.dumps(keep))
        md.append(f"  frame ms: " + " ".join(f"{v:.1f}" for v in n["frame_ms"]))
    for label, nr in (("newton reference", newton_ref), ("newton reference check", newton_refcheck)):
        if nr:
            keep = {k: v for k, v in nr.items() if k not in ("tip", "frame_ms")}
            md.append(f"{label}: " + json.dumps(keep))
    md.append(f"tips at frame {q}: reference {ref}" + (f", check {check}" if check else ""))
    for o, r in ours.items():
        md.append(f"  ours {o}: {r['tips'][q]}")
    if newton:
        md.append(f"  newton: {newton['tip'][q]}")
    for nr in (newton_refcheck, newton_ref):
        if nr:
            md.append(f"  newton {nr['substeps']} substeps: {nr['tip'][q]}")
    md += ["```", ""]
    with open(report, "w") as f:
        f.write("\n".join(md))


if __name__ == "__main__":
    main()
