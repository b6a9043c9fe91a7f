#!/usr/bin/env python3
"""MGPBD paper Fig. 2 on the linearised dual system, standard library only (CI's python3 has no numpy).

Usage: mgpbd_fig2.py DIR GS_SWEEPS [MGPBD_X.mtx LABEL]... > rows
DIR holds `xpbd export-system`'s A.mtx and b.mtx (one row per element: the cone ARAP rows). The residual
r = b − Aλ of: XPBD, i.e. Gauss–Seidel sweeps on A λ = b from λ = 0 (XPBD's iteration on a linear constraint
set), after each count of GS_SWEEPS (comma list); and of each MGPBD_X.mtx (`xpbd solve-system --method amg-pcg
--max-iter K --out`), expanded in the eigenvectors of A (ascending eigenvalues: smooth, low-frequency modes
first; a dense Householder tridiagonalisation and implicit QL, as EISPACK's tred2/tql2). Prints Markdown rows
(the residual's share of ‖b‖² in four bands of the spectrum) and writes DIR/fig2.svg: the power per mode,
averaged over 32 bins, against the mode index, one line per residual.
"""
import math
import sys


def read_mtx(path):
    with open(path) as f:
        lines = [l for l in f if not l.startswith("%")]
    head = lines[0].split()
    return head, lines[1:]


def tred2_tql2(a):
    """Eigen-decomposition of the symmetric matrix a (list of rows, overwritten): (values, vectors as columns)."""
    n = len(a)
    V = [row[:] for row in a]
    d = [V[n - 1][j] for j in range(n)]
    e = [0.0] * n
    for i in range(n - 1, 0, -1):
        scale = 0.0
        h = 0.0
        for k in range(i):
            scale += abs(d[k])
        if scale == 0.0:
            e[i] = d[i - 1]
            for j in range(i):
                d[j] = V[i - 1][j]
                V[i][j] = 0.0
                V[j][i] = 0.0
        else:
            for k in range(i):
                d[k] /= scale
                h += d[k] * d[k]
            f = d[i - 1]
            g = math.sqrt(h)
            if f > 0:
                g = -g
            e[i] = scale * g
            h = h - f * g
            d[i - 1] = f - g
            for j in range(i):
                e[j] = 0.0
            for j in range(i):
                f = d[j]
                V[j][i] = f
                g = e[j] + V[j][j] * f
                for k in range(j + 1, i):
                    g += V[k][j] * d[k]
                    e[k] += V[k][j] * f
                e[j] = g
            f = 0.0
            for j in range(i):
                e[j] /= h
                f += e[j] * d[j]
            hh = f / (h + h)
            for j in range(i):
                e[j] -= hh * d[j]
            for j in range(i):
                f = d[j]
                g = e[j]
                for k in range(j, i):
                    V[k][j] -= f * e[k] + g * d[k]
                d[j] = V[i - 1][j]
                V[i][j] = 0.0
        d[i] = h
    for i in range(n - 1):
        V[n - 1][i] = V[i][i]
        V[i][i] = 1.0
        h = d[i + 1]
        if h != 0.0:
            for k in range(i + 1):
                d[k] = V[k][i + 1] / h
            for j in range(i + 1):
                g = 0.0
                for k in range(i + 1):
                    g += V[k][i + 1] * V[k][j]
                for k in range(i + 1):
                    V[k][j] -= g * d[k]
        for k in range(i + 1):
            V[k][i + 1] = 0.0
    for j in range(n):
        d[j] = V[n - 1][j]
        V[n - 1][j] = 0.0
    V[n - 1][n - 1] = 1.0
    e[0] = 0.0
    # tql2
    for i in range(1, n):
        e[i - 1] = e[i]
    e[n - 1] = 0.0
    f = 0.0
    tst1 = 0.0
    eps = 2.0 ** -52
    for l in range(n):
        tst1 = max(tst1, abs(d[l]) + abs(e[l]))
        m = l
        while m < n:
            if abs(e[m]) <= eps * tst1:
                break
            m += 1
        if m > l:
            while True:
                g = d[l]
                p = (d[l + 1] - g) / (2.0 * e[l])
                r = math.hypot(p, 1.0)
                if p < 0:
                    r = -r
                d[l] = e[l] / (p + r)
                d[l + 1] = e[l] * (p + r)
                dl1 = d[l + 1]
                h = g - d[l]
                for i in range(l + 2, n):
                    d[i] -= h
                f += h
                p = d[m]
                c = 1.0
                c2 = c
                c3 = c
                el1 = e[l + 1]
                s = 0.0
                s2 = 0.0
                for i in range(m - 1, l - 1, -1):
                    c3 = c2
                    c2 = c
                    s2 = s
                    g = c * e[i]
                    h = c * p
                    r = math.hypot(p, e[i])
                    e[i + 1] = s * r
                    s = e[i] / r
                    c = p / r
                    p = c * d[i] - s * g
                    d[i + 1] = h + s * (c * g + s * d[i])
                    for k in range(n):
                        Vk = V[k]
                        h = Vk[i + 1]
                        Vk[i + 1] = s * Vk[i] + c * h
                        Vk[i] = c * Vk[i] - s * h
                p = -s * s2 * c3 * el1 * e[l] / dl1
                e[l] = s * p
                d[l] = c * p
                if abs(e[l]) <= eps * tst1:
                    break
        d[l] = d[l] + f
        e[l] = 0.0
    order = sorted(range(n), key=lambda i: d[i])
    return [d[i] for i in order], [[V[k][i] for k in range(n)] for i in order]


def main():
    d = sys.argv[1]
    sweeps = [int(s) for s in sys.argv[2].split(",")]
    extra = sys.argv[3:]
    head, body = read_mtx(f"{d}/A.mtx")
    n = int(head[0])
    A = [[0.0] * n for _ in range(n)]
    rows = [[] for _ in range(n)]
    for l in body:
        i, j, v = l.split()
        i, j, v = int(i) - 1, int(j) - 1, float(v)
        A[i][j] += v
        rows[i].append((j, v))
    _, bb = read_mtx(f"{d}/b.mtx")
    b = [float(l.split()[-1]) for l in bb if l.strip()]
    assert len(b) == n, (len(b), n)

    def residual(lam):
        return [b[i] - sum(v * lam[j] for j, v in rows[i]) for i in range(n)]

    res = []
    lam = [0.0] * n
    diag = [A[i][i] for i in range(n)]
    done = 0
    res.append(("λ = 0 (b)", residual(lam)))
    for k in sorted(sweeps):
        while done < k:
            for i in range(n):
                s = b[i] - sum(v * lam[j] for j, v in rows[i])
                lam[i] += s / diag[i]
            done += 1
        res.append((f"XPBD (GS) {k} sweeps", residual(lam)))
    for path, label in zip(extra[0::2], extra[1::2]):
        _, xb = read_mtx(path)
        x = [float(l.split()[-1]) for l in xb if l.strip()]
        res.append((label, residual(x)))
    sym = [[0.5 * (A[i][j] + A[j][i]) for j in range(n)] for i in range(n)]
    vals, vecs = tred2_tql2(sym)
    b2 = sum(v * v for v in b)
    bands = [(0, n // 100 or 1), (n // 100 or 1, n // 10), (n // 10, n // 2), (n // 2, n)]
    names = ["lowest 1 %", "1–10 %", "10–50 %", "upper 50 %"]
    print(f"| residual | ‖r‖/‖b‖ | " + " | ".join(f"share of ‖b‖² in modes {nm}" for nm in names) + " |")
    print("|---|---|" + "---|" * len(bands))
    spectra = []
    for label, r in res:
        p = [sum(q[k] * r[k] for k in range(n)) ** 2 for q in vecs]
        spectra.append((label, p))
        cells = [sum(p[a:z]) / b2 for a, z in bands]
        print(f"| {label} | {math.sqrt(sum(v * v for v in r) / b2):.2e} | " + " | ".join(f"{c:.2e}" for c in cells) + " |")
    print(f"\nA: {n} rows, eigenvalues {vals[0]:.3e} … {vals[-1]:.3e} (condition {vals[-1] / vals[0]:.2e}).")
    write_svg(f"{d}/fig2.svg", spectra, b2, n)


def write_svg(path, spectra, b2, n):
    W, H, L, T, R, B = 640, 400, 70, 20, 170, 50
    bins = min(32, n)
    edges = [round(i * n / bins) for i in range(bins + 1)]
    series = []
    for label, p in spectra:
        ys = []
        for a, z in zip(edges, edges[1:]):
            m = sum(p[a:z]) / max(1, z - a) / b2
            ys.append(math.log10(max(m, 1e-30)))
        series.append((label, ys))
    lo = max(-30.0, math.floor(min(min(y) for _, y in series)))
    hi = math.ceil(max(max(y) for _, y in series))
    hi = hi if hi > lo else lo + 1
    X = lambda i: L + (W - L - R) * (i + 0.5) / bins
    Y = lambda y: T + (H - T - B) * (hi - y) / (hi - lo)
    colors = ["#000000", "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2"]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#444"/>']
    for y in range(int(lo), int(hi) + 1):
        out.append(f'<text x="{L - 6}" y="{Y(y) + 4:.1f}" text-anchor="end">1e{y}</text>')
        out.append(f'<line x1="{L}" x2="{W - R}" y1="{Y(y):.1f}" y2="{Y(y):.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{(L + W - R) / 2}" y="{H - 12}" text-anchor="middle">eigenmode of A, ascending eigenvalue (low → high frequency), {bins} bins of {n} modes</text>')
    out.append(f'<text x="14" y="{(T + H - B) / 2}" transform="rotate(-90 14 {(T + H - B) / 2})" text-anchor="middle">residual power per mode / ‖b‖²</text>')
    for k, (label, ys) in enumerate(series):
        c = colors[k % len(colors)]
        pts = " ".join(f"{X(i):.1f},{Y(y):.1f}" for i, y in enumerate(ys))
        out.append(f'<polyline points="{pts}" fill="none" stroke="{c}" stroke-width="1.5"/>')
        out.append(f'<text x="{W - R + 8}" y="{T + 14 + 16 * k}" fill="{c}">{label}</text>')
    out.append("</svg>")
    open(path, "w").write("\n".join(out))


if __name__ == "__main__":
    main()
