#!/usr/bin/env python3
"""Table rows for benches/reproduce/mgpbd.sh, read from the run folders of `xpbd run` and `xpbd converge`.
Standard library only (CI's python3 has no numpy). Usage: mgpbd_measure.py COMMAND ARGS..., one of
  converge LABEL CSV           rows of a converge.csv: per solver, iterations, energy and residual (Fig. 8, 13/17)
  ms-per-iteration DIR         XPBD calibration: solver ms per frame / iterations per substep / substeps
  equal-iterations MG_DIR CAL_DIR CAP   XPBD iterations per substep that fit MGPBD's ms per frame
  ball LABEL TETS DIR          one Fig. 12 row: the top probe's height and the run's residual and volume
  phases LABEL TETS DIR        one Fig. 9/10 row: MGPBD's phase shares and ms per outer iteration
  slope TETS1 MS1 TETS2 MS2    log-log slope
  cloth N LABEL DIR            one Fig. 14 row
  beam LABEL MU DIR            one Fig. 16 (beam) row
  pile LABEL DIR               one Fig. 16 (armadillos) row
"""
import csv
import json
import math
import sys


def summary(d):
    return json.load(open(f"{d}/summary.json"))


def metrics(d):
    return list(csv.DictReader(open(f"{d}/metrics.csv")))


def probe(d, name, axis="y"):
    return [(int(r["frame"]), float(r[axis])) for r in csv.DictReader(open(f"{d}/probes.csv")) if r["probe"] == name]


def converge(label, path):
    rows = list(csv.DictReader(open(path)))
    solvers = list(dict.fromkeys(r["solver"] for r in rows))
    by = {s: [r for r in rows if r["solver"] == s] for s in solvers}
    e0 = float(rows[0]["energy"])
    # The lowest energy any solver reached from this state stands in for the step's minimum E*.
    estar = min(float(r["energy"]) for r in rows)
    mg_ms = max((float(r["wall_ms"]) for r in by.get("mgpbd", [])), default=None)
    for s in solvers:
        r = by[s]
        last = r[-1]
        k = int(last["iteration"])
        half = r[len(r) // 2]
        e_last, e_half = float(last["energy"]), float(half["energy"])
        gap = (e_last - estar) / (e0 - estar) if e0 > estar else float("nan")
        # Energy drop over the second half of the iterations, as a share of the whole possible drop.
        late = (e_half - e_last) / (e0 - estar) if e0 > estar else float("nan")
        at_mg = "—"
        if mg_ms is not None and s != "mgpbd":
            before = [x for x in r if float(x["wall_ms"]) <= mg_ms]
            if before:
                at_mg = f"{float(before[-1]['relative_residual']):.2e} ({before[-1]['iteration']} it.)"
        e1 = float(r[1]["energy"]) if len(r) > 1 else float("nan")
        print(f"| {label} | `{s}` | {k} | {float(last['wall_ms']):.0f} | {e0:.5g} | {e1:.5g} | {e_last:.5g} "
              f"| {gap:.2e} | {late:.2e} | {float(r[1]['relative_residual']) if len(r) > 1 else float('nan'):.2e} "
              f"| {float(last['relative_residual']):.2e} | {at_mg} |")


def ms_per_iteration(d):
    s = summary(d)
    print(s["ms_per_frame"] / (s["solver"]["iterations"] * s["solver"]["substeps"]))


def equal_iterations(mg, cal, cap):
    s = summary(cal)
    per = s["ms_per_frame"] / (s["solver"]["iterations"] * s["solver"]["substeps"])
    print(max(1, min(int(cap), round(summary(mg)["ms_per_frame"] / per))))


def ball(label, tets, d):
    s = summary(d)
    y = probe(d, "top")
    y1 = next(v for f, v in y if f == 1)
    low = min(v for f, v in y if f >= 1)
    high = max(v for f, v in y if f >= 1)
    it = s["solver"]["iterations"]
    m1 = metrics(d)[0]
    print(f"| {tets} | {label} | {it} | {s['ms_per_frame']:.0f} | {float(m1['relative_residual']):.2e} | {float(m1['elastic_energy']):.4g} "
          f"| {y1:.4f} | {low:.4f} | {high:.4f} | {y[-1][1]:.4f} | {s['final']['min_volume_ratio']:.3f} | {s['final']['relative_residual']:.2e} |")


def phases(label, tets, d):
    m = metrics(d)
    tot = {k: sum(float(r[k]) for r in m) for k in ("ms", "assembly_ms", "setup_ms", "linear_solve_ms", "line_search_ms", "outer_iterations")}
    share = lambda k: 100 * tot[k] / tot["ms"]
    per = tot["ms"] / tot["outer_iterations"]
    print(f"| {label} | {tets} | {len(m)} | {tot['outer_iterations'] / len(m):.1f} | {tot['ms'] / len(m):.0f} | {per:.1f} "
          f"| {share('assembly_ms'):.0f} % | {share('setup_ms'):.0f} % | {share('linear_solve_ms'):.0f} % | {share('line_search_ms'):.0f} % |")


def slope(t1, m1, t2, m2):
    print(f"{math.log(float(m2) / float(m1)) / math.log(float(t2) / float(t1)):.2f}")


def cloth(n, label, d):
    s = summary(d)
    print(f"| {n}² | {label} | {s['ms_per_frame']:.1f} | {s['final']['max_edge_strain']:.2e} | {s['final']['relative_residual']:.2e} |")


def beam(label, mu, d):
    s = summary(d)
    ys = [v for _, v in probe(d, "tip")]
    static = 2.5 - 1000 * 9.81 * 4.0**4 / (8 * float(mu) / 12)
    delta = 2.5 - static
    # How far below the rest line the tip went, in units of the beam's true static deflection.
    print(f"| {label} | {s['solver']['substeps']} | {s['ms_per_frame']:.1f} | {min(ys):.6f} | {ys[-1]:.6f} | {static:.6f} "
          f"| {(2.5 - min(ys)) / delta:.2f} | {s['final']['relative_residual']:.1e} |")


def pile(label, d):
    s = summary(d)
    m = metrics(d)
    inv = sum(1 for r in m if int(r["inverted_elements"]) > 0)
    minj = min(float(r["min_volume_ratio"]) for r in m)
    contacts = max(int(r["contacts"]) for r in m)
    res = [float(r["relative_residual"]) for r in m]
    tops = {}
    for r in csv.DictReader(open(f"{d}/probes.csv")):
        tops[r["probe"]] = float(r["y"])
    fin = ", ".join(f"{k} {v:.2f}" for k, v in tops.items())
    print(f"| {label} | {s['elements']} | {len(m)} | {s['status']} | {s['ms_per_frame']:.0f} | {contacts} | {inv} | {minj:.3f} "
          f"| {max(res):.1e} / {res[-1]:.1e} | {fin} |")


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    {"converge": converge, "ms-per-iteration": ms_per_iteration, "equal-iterations": equal_iterations, "ball": ball,
     "phases": phases, "slope": slope, "cloth": cloth, "beam": beam, "pile": pile}[cmd](*args)
