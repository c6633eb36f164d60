"""Residual-stream law: strict cold build time and density throughput, against the MHA law.

    python benchmarks/bench_residual.py [--presets bert-base,dinov3-l16] [--alphas 0.5,1,2]
                                        [--repeat 3] [--points 100000] [--against PATH]
                                        [--no-cold] [--no-pdf]

Targets (issue 17): the residual law of a preset built in ≤ 1 s cold, its pdf ≥ 1e5 points/s.

**Strict cold** (the table): every measurement is a fresh interpreter, which first imports
freeattn (``from freeattn.attention import MHAConfig, residual_law``) and numpy (not timed),
then times

    residual   law = residual_law(MHAConfig.preset(p), α); law.support(); law.pdf([mid])
    mha        law = MHAConfig.preset(p).law("mha");      law.support(); law.pdf([mid])

(mid: the midpoint of the support; the pdf call builds the on-axis warm-start tables).  The
MHA law's strict cold is the floor of any law built on it (the residual law builds it, and
its support, inside), measured in the same run, interleaved child by child with the
residual's so that both see the same load; the table gives the min [median] over
``--repeat`` children and the ratio of the minima.  ``--against PATH`` times the residual
law of another checkout (e.g. the main branch before a change) in the same rounds, with
this tree's speed-up over it.  Children run with
PYTHONDONTWRITEBYTECODE=1 (nothing written into the checkout).  The load average is printed.

**pdf throughput** (in one process, ``--preset``/``--alpha``): the residual law's pdf on
``--points`` points of its support, against the MHA law's own pdf on as many points of its
support.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

import numpy as np
from _timing import best_of  # benchmarks/ is on sys.path when run as a script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_CHILD = r"""
import json, sys, time
from freeattn.attention import MHAConfig, residual_law
import numpy as np
kind, preset, alpha = sys.argv[1], sys.argv[2], float(sys.argv[3])
t0 = time.perf_counter()
if kind == "residual":
    law = residual_law(MHAConfig.preset(preset), alpha)
else:
    law = MHAConfig.preset(preset).law("mha")
sup = law.support()
a, b = sup[0][0], sup[-1][1]
law.pdf(np.array([(a + b) / 2]))
t = time.perf_counter() - t0
print(json.dumps({"t": t, "support": [list(map(float, ab)) for ab in sup]}))
"""


def _child(kind, preset, alpha, timeout, root=ROOT):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root), PYTHONDONTWRITEBYTECODE="1")
    try:
        out = subprocess.run([sys.executable, "-c", _CHILD, kind, preset, str(alpha)], env=env,
                             cwd=os.path.abspath(root), capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if out.returncode:
        raise RuntimeError(f"{kind} {preset} α={alpha}: {out.stderr.strip()[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def cold_table(presets, alphas, repeat, timeout, against=None):
    """The strict cold table (see the module docstring); returns the slowest residual min."""
    print(f"strict cold (fresh process each, import excluded), min [median] of {repeat}; "
          f"load average before: {os.getloadavg()[0]:.2f}")
    print(f"  {'preset':12s} {'alpha':>5s} {'residual s':>17s} {'mha s':>17s} {'ratio':>6s}"
          + (f" {'against s':>17s} {'speed-up':>8s}" if against else "")
          + "  support of the residual law")
    worst = 0.0
    for preset in presets:
        for alpha in alphas:
            res, mha, old = [], [], []
            sup = None
            for _ in range(repeat):
                r = _child("residual", preset, alpha, timeout)
                m = _child("mha", preset, alpha, timeout)
                if against:
                    o = _child("residual", preset, alpha, timeout, root=against)
                    if o:
                        old.append(o["t"])
                if r:
                    res.append(r["t"])
                    sup = r["support"]
                if m:
                    mha.append(m["t"])
            if not res or not mha:
                print(f"  {preset:12s} {alpha:5g} timed out")
                continue
            worst = max(worst, min(res))
            extra = ""
            if old:
                extra = (f" {min(old):7.3f} [{statistics.median(old):6.3f}] "
                         f"{min(old) / min(res):8.2f}")
            print(f"  {preset:12s} {alpha:5g} {min(res):7.3f} [{statistics.median(res):6.3f}] "
                  f"{min(mha):7.3f} [{statistics.median(mha):6.3f}] {min(res) / min(mha):6.2f}"
                  f"{extra}  {sup}")
    print(f"  slowest residual (min): {worst:.3f} s   (target <= 1 s: "
          f"{'met' if worst <= 1 else 'NOT met'})")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return worst


def pdf_throughput(preset, alpha, points, repeat):
    from freeattn import MHAConfig
    from freeattn.attention.residual import residual_law

    cfg = MHAConfig.preset(preset)
    mha = cfg.law("mha")
    law = residual_law(cfg, alpha)
    (a, b), = law.support()
    x = np.linspace(a, b, points + 2)[1:-1]
    law.pdf(x[:1])
    t_pdf = best_of(lambda: law.pdf(x), repeat)
    (ma, mb), = mha.support()
    xm = np.linspace(ma, mb, points + 2)[1:-1]
    t_mha_pdf = best_of(lambda: mha.pdf(xm), repeat)
    rate, mha_rate = x.size / t_pdf, xm.size / t_mha_pdf
    print(f"law: {law.name}")
    print(f"support [{a:.12g}, {b:.12g}], mass {law.total_mass():.15f}")
    print(f"pdf on {x.size} points: {rate:,.0f} points/s   (target >= 1e5: "
          f"{'met' if rate >= 1e5 else 'NOT met'}; baseline MHA law pdf {mha_rate:,.0f} "
          f"points/s, ratio {rate / mha_rate:.2f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presets", default="bert-base,dinov3-l16")
    ap.add_argument("--alphas", default="0.5,1,2")
    ap.add_argument("--preset", default="bert-base", help="preset of the pdf throughput")
    ap.add_argument("--alpha", type=float, default=1.0, help="α of the pdf throughput")
    ap.add_argument("--points", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--against", metavar="PATH",
                    help="another checkout whose residual law is timed in the same run "
                         "(interleaved), e.g. the main branch before a change")
    ap.add_argument("--no-cold", action="store_true", help="skip the strict cold table")
    ap.add_argument("--no-pdf", action="store_true", help="skip the pdf throughput")
    args = ap.parse_args()
    if not args.no_cold:
        cold_table([p for p in args.presets.split(",") if p],
                   [float(a) for a in args.alphas.split(",") if a], args.repeat, args.timeout,
                   args.against)
    if not args.no_pdf:
        pdf_throughput(args.preset, args.alpha, args.points, args.repeat)


if __name__ == "__main__":
    main()
