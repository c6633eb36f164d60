"""Regenerate the density-vs-simulation figures of docs/laws-attention.md and docs/laws-mha.md.

Each figure draws the limit law's density over the pooled eigenvalues of a few draws of the
true softmax layer and of its finite Gaussian equivalent (same weights), via
``freeattn.montecarlo.check`` and ``freeattn.plotting.check.plot_check``; the numbers in the
figure titles (KS of each model to the law) are computed in the same run.

Usage (from the repository root): python docs/make_law_plots.py [--n 400] [--draws 3]
[--only FILE[,FILE...]]
"""
from __future__ import annotations

import argparse
import os

from freeattn.attention import MHAConfig
from freeattn.montecarlo import AttentionModel, check
from freeattn.plotting.check import plot_check

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "img")

# (file, kind, layer at n tokens: heads, d_K/n·h = γ_K, γ_V, γ_O, sharing, kv_heads)
FIGURES = [
    ("law-attention.png", "attention", dict(heads=4, gamma_k=1.5), "ν_{∞,h}"),
    ("law-head-average.png", "head_average", dict(heads=4, gamma_k=1.5), "ρ_{γK} ⊠ π₁"),
    ("law-values.png", "values", dict(heads=4, gamma_k=1.5, gamma_v=2.0), "ν_{∞,h} ⊠ π_{γV}"),
    ("law-mha.png", "mha", dict(heads=4, gamma_k=1.5, gamma_v=2.0, gamma_o=2.0),
     "(C.15) ν_{∞,h} ⊠ MP_{1/γV} ⊠ π_{γO}"),
    ("law-mha-mqa.png", "mha", dict(heads=4, gamma_k=1.5, gamma_v=2.0, gamma_o=2.0,
                                    sharing="mqa"), "(C.15), MQA (h_KV = 1)"),
    ("law-mha-tied.png", "mha", dict(heads=4, gamma_k=1.5, gamma_o=2.0, sharing="tied_kv"),
     "(C.21) tied K = V"),
    ("law-mha-partial-kv.png", "mha", dict(heads=4, gamma_k=1.5, gamma_o=2.0, rho=0.6),
     "W^V = ρW^K + √(1−ρ²)W̃, ρ = 0.6"),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=400)
    ap.add_argument("--draws", type=int, default=3)
    ap.add_argument("--only", default=None, help="comma-separated file names to regenerate")
    args = ap.parse_args()
    only = None if args.only is None else set(args.only.split(","))
    for fname, kind, layer, label in FIGURES:
        if only is not None and fname not in only:
            continue
        cfg = MHAConfig.from_ratios(args.n, **layer)
        res = check(cfg.law(kind), AttentionModel.from_config(cfg, kind), draws=args.draws, seed=0, workers=1)
        title = (f"{label}: β = 1, h = {cfg.heads}, γ_K = {cfg.gamma_k:g}, n = {cfg.n}\n"
                 f"KS to the law: softmax {res.softmax.ks:.3f}, Gaussian {res.gaussian.ks:.3f}"
                 f" ({args.draws} draws)")
        path = os.path.join(HERE, fname)
        plot_check(cfg.law(kind), [s.softmax for s in res.samples],
                   [s.gaussian for s in res.samples], path, title=title)
        print(f"{fname}: KS softmax {res.softmax.ks:.4f}, Gaussian {res.gaussian.ks:.4f}, "
              f"rel W1 softmax {res.softmax.rel_w1:.4f}, Gaussian {res.gaussian.rel_w1:.4f}")


if __name__ == "__main__":
    main()
