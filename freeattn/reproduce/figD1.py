"""Figure D.1: attention and MHA spectra at n = 256 against their limits (three panels).

Hayase & Karakida 2026 (arXiv 2610.10033), §D.7 and Fig. D.1: β = 1, n = 256, 10 draws per
condition, histograms of the original (softmax) model with 64 bins over their full ranges,
black curves the limits.  Squared singular values of sqrt(n/h) A^⊥ (attention) and of
MHA^⊥(X) (MHA), all n eigenvalues of each left Gram with mass 1/n.

(a) head splitting concentrates the attention bulk: h = 4, d_K = 1024 and h = 16, d_K = 256
    (h d_K = 4096, γ_K = 16); limit (C.9).
(b) output width changes the MHA spectral scale and shape: h = 16, d_K = d_V = 256 and
    d_O = 4096 (γ_O = 16) or 256 (γ_O = 1, the limiting density diverges at zero); (C.15).
(c) within-head tying changes the limit while across-head sharing preserves it: independent
    heads, one key and one value matrix shared by all heads (MQA), and V_r = K_r; (C.15),
    (C.15), (C.21).  As in the paper, the independent and tied conditions share queries, keys
    and output weights within each draw (same seeds); the shared condition uses its own.
"""
from __future__ import annotations

import numpy as np

from ..montecarlo.metrics import ks_distance, t_interval
from ..montecarlo.samplers import AttentionModel, draw_seed, sample
from ..plotting.figures import draw_legend, new_axes
from ..plotting.setup import mathtext, save

__all__ = ["PUBLISHED", "CONDITIONS", "PANELS", "model", "compute", "summary", "plot"]

PUBLISHED = {"n": 256, "draws": 10, "bins": 64, "beta": 1.0,
             "d_o_256_density_diverges_at_zero": True}
N, BETA, BINS = 256, 1.0, 64
#: condition → AttentionModel keywords (n = 256, β = 1)
CONDITIONS = {
    "attention h=4": dict(kind="attention", heads=4, d_k=1024),
    "attention h=16": dict(kind="attention", heads=16, d_k=256),
    "mha d_O=4096": dict(kind="mha", heads=16, d_k=256, d_v=256, d_o=4096),
    "mha d_O=256": dict(kind="mha", heads=16, d_k=256, d_v=256, d_o=256),
    "independent": dict(kind="mha", heads=16, d_k=256, d_v=256, d_o=4096),
    "shared across heads": dict(kind="mha", heads=16, d_k=256, d_v=256, d_o=4096, kv_heads=1),
    "tied within heads": dict(kind="mha", heads=16, d_k=256, d_v=256, d_o=4096, tied=True),
}
PANELS = {"a": ("attention h=4", "attention h=16"), "b": ("mha d_O=4096", "mha d_O=256"),
          "c": ("independent", "shared across heads", "tied within heads")}
#: seed offsets: the shared condition uses a separate seed sequence (§D.7)
_SEED_OFFSET = {"shared across heads": 1000}


def model(name, n=N):
    """The AttentionModel of a condition (n = 256 by default; widths scaled with n/256)."""
    kw = dict(CONDITIONS[name])
    f = n / N
    for key in ("d_k", "d_v", "d_o"):
        if key in kw:
            kw[key] = max(1, int(round(kw[key] * f)))
    return AttentionModel(beta=BETA, n=n, **kw)


def _normalised_variance(x):
    m1, m2 = np.mean(x), np.mean(x * x)
    return float(m2 / m1 ** 2 - 1)


def compute(draws=10, seed=0, n=N, points=400):
    """Spectra of every condition, histograms, limit curves and the panel statistics."""
    out = {"figure": "figD1", "n": n, "beta": BETA, "draws": draws, "seed": seed,
           "bins": BINS, "conditions": {}, "published": PUBLISHED}
    for name in CONDITIONS:
        m = model(name, n)
        law = m.law()
        base = seed + _SEED_OFFSET.get(name, 0)
        spectra = [sample(m, draw_seed(base, i), gaussian=False).softmax for i in range(draws)]
        pooled = np.concatenate(spectra)
        heights, edges = np.histogram(pooled, bins=BINS, density=True)
        lo, hi = float(law.support()[0][0]), float(law.support()[-1][1])
        xs = lo + (hi - lo) * (1 - np.cos(np.linspace(0, np.pi, points))) / 2
        pdf = np.asarray(law.pdf(xs), dtype=float)
        m1, m2 = float(law.moment(1)), float(law.moment(2))
        out["conditions"][name] = {
            "model": m.to_dict(), "support": [[float(u), float(w)] for u, w in law.support()],
            "atoms": [[float(u), float(w)] for u, w in law.atoms()],
            "limit_mean": m1, "limit_normalised_variance": m2 / m1 ** 2 - 1,
            # a mean of a non-negative spectrum, a variance ratio and a distance: all >= 0
            "mean": t_interval([float(np.mean(s)) for s in spectra], lower=0.0).to_dict(),
            "normalised_variance": t_interval([_normalised_variance(s) for s in spectra],
                                              lower=0.0).to_dict(),
            "ks_to_limit": t_interval([ks_distance(s, law) for s in spectra],
                                      lower=0.0).to_dict(),
            "hist": {"heights": heights.tolist(), "edges": edges.tolist()},
            "curve": {"x": xs.tolist(), "pdf": [p if np.isfinite(p) else None for p in pdf]},
        }
        if name == "mha d_O=256":  # the divergence at zero: pdf ~ c x^{-1/2}
            p = np.asarray(law.pdf([1e-6, 1e-4]), dtype=float)
            out["conditions"][name]["pdf_ratio_1e-6_1e-4"] = float(p[0] / p[1])
    law_ind = model("independent", n).law()
    for name in ("shared across heads", "tied within heads"):
        m = model(name, n)
        base = seed + _SEED_OFFSET.get(name, 0)
        ks = [ks_distance(sample(m, draw_seed(base, i), gaussian=False).softmax, law_ind)
              for i in range(min(draws, 3))]
        out["conditions"][name]["ks_to_independent_limit"] = float(np.mean(ks))
    return out


def summary(res):
    c = res["conditions"]
    lines = [f"Figure D.1: n = {res['n']}, beta = {res['beta']:g}, {res['draws']} draws, "
             f"{res['bins']} bins (paper: n = 256, 10 draws, 64 bins)",
             f"{'condition':22s}{'mean':>10s}{'limit':>10s}{'norm. var':>11s}{'limit':>10s}"
             f"{'KS to limit':>13s}"]
    for name, d in c.items():
        lines.append(f"{name:22s}{d['mean']['mean']:10.4f}{d['limit_mean']:10.4f}"
                     f"{d['normalised_variance']['mean']:11.4f}"
                     f"{d['limit_normalised_variance']:10.4f}{d['ks_to_limit']['mean']:13.4f}")
    a4, a16 = c["attention h=4"], c["attention h=16"]
    lines.append(f"(a) head splitting concentrates the bulk: normalised variance "
                 f"{a4['limit_normalised_variance']:.4f} (h = 4) -> "
                 f"{a16['limit_normalised_variance']:.4f} (h = 16), 1/h + c_beta^2/gamma_K (C.16)")
    b = c["mha d_O=256"]
    lines.append(f"(b) d_O = 4096 -> 256: mean {c['mha d_O=4096']['limit_mean']:.4f} -> "
                 f"{b['limit_mean']:.4f} (gamma_O theta_1); support starts at "
                 f"{b['support'][0][0]:.3g}, pdf(1e-6)/pdf(1e-4) = "
                 f"{b['pdf_ratio_1e-6_1e-4']:.3f} (x^-1/2: 10; paper: 'the limiting density "
                 "diverges at zero')")
    lines.append(f"(c) KS of the sampled spectra to the independent-heads limit: shared "
                 f"{c['shared across heads']['ks_to_independent_limit']:.4f}, tied "
                 f"{c['tied within heads']['ks_to_independent_limit']:.4f} (tied limit mean "
                 f"{c['tied within heads']['limit_mean']:.4f} vs "
                 f"{c['independent']['limit_mean']:.4f})")
    return lines


def plot(res, path, dpi=150):
    """Three panels: histograms (64 bins) of the softmax spectra and the limits in black."""
    fig, axes = new_axes(figsize=(13, 3.8), ncols=3)
    titles = {"a": "(a) attention √(n/h) A^{⊥}", "b": "(b) MHA^{⊥}(X), h = 16",
              "c": "(c) sharing, d_O = 4096"}
    for ax, (panel, names) in zip(axes, PANELS.items()):
        for i, name in enumerate(names):
            d = res["conditions"][name]
            e = np.array(d["hist"]["edges"])
            ax.stairs(d["hist"]["heights"], e, fill=True, alpha=0.35, color=f"C{i}",
                      label=name)
            x = np.array(d["curve"]["x"])
            y = np.array([np.nan if p is None else p for p in d["curve"]["pdf"]])
            ax.plot(x, y, color="black", lw=1.1)
        if panel == "b":  # scales differ by γ_O: a log density axis shows both
            ax.set_yscale("log")
            ax.set_ylim(1e-3, 20)
        ax.set_title(mathtext(titles[panel], single=True), fontsize=9)
        ax.set_xlabel("squared singular value")
        draw_legend(ax, fontsize=7)
    axes[0].set_ylabel("density")
    return save(fig, path, dpi)
