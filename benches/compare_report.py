"""Markdown report of a benches/compare.sh batch: machine information, then per scene one row per solver
kind and ordering with status, ms per frame, the ratio to xpbd/serial measured in the same run, and the
final relative residual and elastic energy; kinds and orderings the binary rejected are listed apart."""

import json
import os
import platform
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


def sh(*cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(work, frames):
    records = [json.loads(l) for l in (Path(work) / "results.jsonl").read_text().splitlines() if l.strip()]
    dirty = " (with uncommitted changes)" if sh("git", "status", "--porcelain", "--untracked-files=no") else ""
    print(f"# Solver comparison, {os.path.basename(work)}\n")
    print(f"- command: `benches/compare.sh {frames}` ({frames} frames per run, one run at a time, CPU backend as the scene selects)")
    print(f"- machine: {cpu_model()}, {os.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end")
    print(f"- {sh('rustc', '-V')}; git commit {sh('git', 'rev-parse', '--short', 'HEAD')}{dirty}")
    print("- ms/frame is solver time only; compare ratios within this file, not absolute times across machines\n")
    by_scene = defaultdict(list)
    for r in records:
        by_scene[r["run"].split("-", 1)[0]].append(r)
    for scene, runs in sorted(by_scene.items()):
        print(f"## {scene}\n")
        ok = [r for r in runs if r["status"] != "error"]
        base = next((r["ms_per_frame"] for r in ok if r["params"] == {"solver.kind": "xpbd", "solver.ordering": "serial"}), None)
        print("| kind | ordering | status | ms/frame | × xpbd/serial | final relative residual | final elastic energy (J) |")
        print("|---|---|---|---|---|---|---|")
        for r in ok:
            p, ms = r["params"], r.get("ms_per_frame")
            ratio = f"{ms / base:.2f}" if base and ms else "–"
            fin = r.get("final") or {}
            print(f"| {p['solver.kind']} | {p['solver.ordering']} | {r['status']} | {ms:.3f} | {ratio} | {fin.get('relative_residual', float('nan')):.3e} | {fin.get('elastic_energy', float('nan')):.4e} |")
        rejected = [r for r in runs if r["status"] == "error"]
        if rejected:
            print("\nNot supported by this build:\n")
            kinds = defaultdict(list)
            for r in rejected:
                kinds[r["params"]["solver.kind"]].append(r)
            for kind, rs in kinds.items():
                print(f"- {kind} ({', '.join(r['params']['solver.ordering'] for r in rs)}): {rs[0].get('error', '')}")
        print()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
