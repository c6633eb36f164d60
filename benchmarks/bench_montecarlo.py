"""Benchmark of the Monte Carlo checker (issue 3).

Reports, in one run:

1. the time of one n = 2000 single-head draw (β = 1, γ_K = 1; one spectrum, the softmax
   model's) against the time of ``numpy.linalg.eigvalsh`` on an n = 2000 Gram matrix
   (target: ratio <= 1.5), both with BLAS pinned to one thread as draws run (a fair
   comparison) and timed in alternation (best of --repeat rounds), and the same with the
   default BLAS threading for reference; also the paired draw that ``check`` makes
   (softmax and Gaussian model, two spectra);
2. draws per second with 1 and 2 worker processes (softmax + Gaussian model per draw);
3. multi-head layers: one draw of the full layer with heads batched (stacks of heads, one
   np.matmul per stack) against the per-head Python loop it replaced, same run, ratio
   printed (Falcon-7B's shape h = 71, MQA, d_K = 64, scaled down to --mha-n tokens; and
   DINOv3-L/16's n = 261, h = 16).
4. ``--table-rows ROW,ROW``: one full-size draw of each Table D.2 row with method='direct'
   (every matrix of the paper formed) and 'reduced' (the same joint law with less work; what
   ``reproduce table-d2`` runs), interleaved, 1 BLAS thread, and the estimate of
   ``freeattn.reproduce.table_d2.draw_seconds`` from step rates measured in the same run:
   speed-up direct/reduced and measured/estimated are printed, with the load average.
5. ``--check-rows ROW,ROW``: the whole ``freeattn.montecarlo.check`` of each Table D.2 row
   (full layer, softmax + Gaussian model, every eigenvalue compared with the limit law (C.15);
   what ``freeattn check mha --preset ROW`` runs) with method='direct' against the default
   'reduced', interleaved, --check-draws draws in one worker process; the law is built
   (and warmed) once before the timing.  Speed-up direct/reduced printed per row.

Usage: python benchmarks/bench_montecarlo.py [--n 2000] [--draws 4] [--json]
       python benchmarks/bench_montecarlo.py --table-rows falcon-7b,gpt3-175b [--repeat 1]
       python benchmarks/bench_montecarlo.py --check-rows bert-base,dinov3-l16 [--repeat 2]
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _timing import best_of, best_of_interleaved  # benchmarks/ is on sys.path

from freeattn.montecarlo import AttentionModel, run_draws, sample
from freeattn.montecarlo._blas import single_threaded_blas
from freeattn.montecarlo._lapack import eigvalsh, solver_description


def breakdown(n, repeat):
    """Seconds spent in each step of a single-head softmax draw (1 BLAS thread)."""
    rng = np.random.default_rng(0)
    steps = {}
    with single_threaded_blas():
        steps["normals Q, K"] = best_of(lambda: (rng.standard_normal((n, n)),
                                                 rng.standard_normal((n, n))), repeat)
        q, k = rng.standard_normal((n, n)), rng.standard_normal((n, n))
        steps["Q K^T (GEMM)"] = best_of(lambda: q @ k.T, repeat)
        a = q @ k.T
        steps["softmax"] = best_of(lambda: np.exp(a - a.max(axis=1, keepdims=True)), repeat)
        steps["Gram (SYRK)"] = best_of(lambda: a @ a.T, repeat)
        g = a @ a.T
        steps["numpy eigvalsh"] = best_of(lambda: np.linalg.eigvalsh(g), repeat)
        steps["freeattn eigvalsh"] = best_of(lambda: eigvalsh(g), repeat)
    return steps


def multihead(n_falcon, repeat):
    """Seconds of one full-layer draw (softmax + Gaussian), heads batched vs per-head loop."""
    from freeattn.attention import MHAConfig
    from freeattn.montecarlo.samplers import _sample

    cases = {"falcon-7b shape": MHAConfig(n=n_falcon, d=max(n_falcon, 4544 * n_falcon // 2048),
                                          heads=71, kv_heads=1, d_k=64, sharing="mqa"),
             "dinov3-l16": MHAConfig.preset("dinov3-l16")}
    out = {}
    with single_threaded_blas():
        for name, cfg in cases.items():
            model = AttentionModel.from_config(cfg, "mha")
            seed = np.random.SeedSequence(0)
            t_loop, t_batch = best_of_interleaved(
                [lambda: _sample(model, seed, True, 3, head_chunk=1),
                 lambda: _sample(model, seed, True, 3)], repeat)
            out[name] = {"n": cfg.n, "heads": cfg.heads, "per_head_loop_s": t_loop,
                         "batched_s": t_batch, "speedup": t_loop / t_batch}
    return out


def table_rows(rows, repeat):
    """One full-size draw per row, 'direct' against 'reduced', and the estimate."""
    import os

    from freeattn.attention import MHAConfig
    from freeattn.montecarlo.samplers import _sample
    from freeattn.reproduce import table_d2 as t

    rates = t.measure_rates(1)
    out = {"rates": rates.to_dict(), "rows": {}}
    with single_threaded_blas():
        for name in rows:
            model = AttentionModel.from_config(MHAConfig.preset(name), "mha")
            seed = np.random.SeedSequence(0)
            load0 = os.getloadavg()[0]
            t_direct, t_reduced = best_of_interleaved(
                [lambda: _sample(model, seed, True, 3, method="direct"),
                 lambda: _sample(model, seed, True, 3, method="reduced")], repeat)
            est = {m: t.draw_seconds(model.config, rates, m) for m in ("direct", "reduced")}
            out["rows"][name] = {"direct_s": t_direct, "reduced_s": t_reduced,
                                 "speedup": t_direct / t_reduced,
                                 "estimated_direct_s": est["direct"],
                                 "estimated_reduced_s": est["reduced"],
                                 "load": (load0 + os.getloadavg()[0]) / 2}
    return out


def check_rows(rows, draws, repeat):
    """``check(law, model)`` of each preset row, method='direct' against 'reduced'."""
    import os

    from freeattn.attention import MHAConfig
    from freeattn.montecarlo import check

    out = {}
    for name in rows:
        cfg = MHAConfig.preset(name)
        model, law = AttentionModel.from_config(cfg, "mha"), cfg.law("mha")
        # warm the law's cdf/ppf tables so that both timings are the sampling and metrics
        check(law, model, draws=1, seed=0, workers=1, ks_tol=1, rel_w1_tol=10,
              method="reduced")
        res = {}

        def run(method):
            res[method] = check(law, model, draws=draws, seed=0, workers=1, ks_tol=1,
                                rel_w1_tol=10, method=method)

        load0 = os.getloadavg()[0]
        t_direct, t_reduced = best_of_interleaved([lambda: run("direct"),
                                                   lambda: run("reduced")], repeat)
        out[name] = {"n": model.n, "heads": model.heads, "draws": draws,
                     "direct_s": t_direct, "reduced_s": t_reduced,
                     "speedup": t_direct / t_reduced,
                     "gaussian_ks": {m: r.gaussian.ks for m, r in res.items()},
                     "softmax_ks": {m: r.softmax.ks for m, r in res.items()},
                     "load": (load0 + os.getloadavg()[0]) / 2}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--draws", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--mha-n", type=int, default=512)
    ap.add_argument("--only-mha", action="store_true", help="Only the multi-head comparison.")
    ap.add_argument("--table-rows", default=None,
                    help="Only: one draw of each of these Table D.2 rows, direct vs reduced.")
    ap.add_argument("--check-rows", default=None,
                    help="Only: check() of each of these Table D.2 rows, direct vs reduced.")
    ap.add_argument("--check-draws", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    for name, low in (("n", 2), ("draws", 1), ("repeat", 1), ("check_draws", 1)):
        if getattr(args, name) < low:
            ap.error(f"--{name.replace('_', '-')} must be an integer >= {low}, "
                     f"got {getattr(args, name)}")
    if args.check_rows:
        res = check_rows([r.strip() for r in args.check_rows.split(",") if r.strip()],
                         args.check_draws, args.repeat)
        if args.json:
            print(json.dumps(res, indent=2))
            return
        for name, r in res.items():
            print(f"[check mha --preset {name}: n = {r['n']}, h = {r['heads']}, {r['draws']} "
                  f"draws, 1 worker, best of {args.repeat}, load {r['load']:.1f}] direct "
                  f"{r['direct_s']:.2f} s, reduced {r['reduced_s']:.2f} s: speed-up "
                  f"{r['speedup']:.2f}x (Gaussian KS to the law: direct "
                  f"{r['gaussian_ks']['direct']:.4f}, reduced {r['gaussian_ks']['reduced']:.4f};"
                  f" softmax {r['softmax_ks']['direct']:.4f} / {r['softmax_ks']['reduced']:.4f})")
        return
    if args.table_rows:
        res = table_rows([r.strip() for r in args.table_rows.split(",") if r.strip()],
                         args.repeat)
        if args.json:
            print(json.dumps(res, indent=2))
            return
        rt = res["rates"]
        print(f"step rates measured now (1 process, load {rt['load']:.1f}): GEMM "
              f"{rt['gemm_flops_per_s'] / 1e9:.1f} GFLOP/s, eigvalsh "
              f"{rt['eig_s_per_n3'] * 1e9:.3f} s per 1000^3")
        for name, r in res["rows"].items():
            print(f"[{name}, one draw, 1 BLAS thread, best of {args.repeat}, load "
                  f"{r['load']:.1f}] direct {r['direct_s']:.1f} s (estimated "
                  f"{r['estimated_direct_s']:.1f} s), reduced {r['reduced_s']:.1f} s (estimated "
                  f"{r['estimated_reduced_s']:.1f} s): speed-up {r['speedup']:.2f}x")
        return
    if args.only_mha:
        res = multihead(args.mha_n, args.repeat)
        if args.json:
            print(json.dumps(res, indent=2))
        for name, r in res.items():
            print(f"[{name}: n = {r['n']}, h = {r['heads']}, 1 BLAS thread, best of "
                  f"{args.repeat}] per-head loop {r['per_head_loop_s']:.3f} s, batched "
                  f"{r['batched_s']:.3f} s: speed-up {r['speedup']:.2f}x")
        return
    n = args.n
    rng = np.random.default_rng(0)
    e = rng.standard_normal((n, n)) / n
    gram = e @ e.T
    model = AttentionModel.from_ratios(1.0, n, 1.0)
    out = {"n": n, "eigensolver": solver_description()}
    for label, ctx in (("1 BLAS thread", single_threaded_blas), ("default BLAS", None)):
        threads = 1 if ctx is not None else None  # None: sample keeps the default threading
        fns = [lambda: np.linalg.eigvalsh(gram),
               lambda: sample(model, 0, gaussian=False, blas_threads=threads),
               lambda: sample(model, 0, gaussian=True, blas_threads=threads)]
        if ctx is None:
            t_eig, t_soft, t_pair = best_of_interleaved(fns, args.repeat)
        else:
            with ctx() as pinned:
                t_eig, t_soft, t_pair = (best_of_interleaved(fns, args.repeat) if pinned
                                         else [float("nan")] * 3)
        out[label] = {"eigvalsh_s": t_eig, "softmax_draw_s": t_soft,
                      "softmax_ratio": t_soft / t_eig, "paired_draw_s": t_pair,
                      "paired_ratio": t_pair / t_eig}
    out["breakdown_s"] = breakdown(n, args.repeat)
    out["multi_head"] = multihead(args.mha_n, args.repeat)
    for workers in (1, 2):
        run_draws(model, workers, seed=1, workers=workers)  # warm-up (process start)
        t = time.perf_counter()
        run_draws(model, args.draws, seed=0, workers=workers)
        out[f"draws_per_s_{workers}_workers"] = args.draws / (time.perf_counter() - t)
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"n = {n}, single head, beta = 1, gamma_K = 1 (best of {args.repeat}); "
          f"draws diagonalise with {out['eigensolver']}")
    for label in ("1 BLAS thread", "default BLAS"):
        r = out[label]
        print(f"[{label}] eigvalsh {r['eigvalsh_s']:.3f} s | softmax draw "
              f"{r['softmax_draw_s']:.3f} s (ratio {r['softmax_ratio']:.2f}, target <= 1.5) | "
              f"softmax + Gaussian draw (two spectra) {r['paired_draw_s']:.3f} s "
              f"(ratio {r['paired_ratio']:.2f}, {r['paired_ratio'] / 2:.2f} per spectrum)")
    print("where a softmax draw spends its time (1 BLAS thread): " + ", ".join(
        f"{k} {t:.3f} s" for k, t in out["breakdown_s"].items()))
    for workers in (1, 2):
        print(f"draws/s with {workers} worker(s) (softmax + Gaussian): "
              f"{out[f'draws_per_s_{workers}_workers']:.3f}")
    for name, r in out["multi_head"].items():
        print(f"[{name}: n = {r['n']}, h = {r['heads']}] full-layer draw: per-head loop "
              f"{r['per_head_loop_s']:.3f} s, batched {r['batched_s']:.3f} s "
              f"(speed-up {r['speedup']:.2f}x)")


if __name__ == "__main__":
    main()
