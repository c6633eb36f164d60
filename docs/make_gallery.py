"""Regenerate the gallery: every table and figure of both papers that freeattn reproduces.

    python docs/make_gallery.py            (or: make gallery; ~2.5 min of CPU, 10 min wall
                                            on the shared 2-core machine at load ~9)
    python docs/make_gallery.py --only fig2a,table-d2     (a few entries; the page is rewritten)

Each entry is one shell command, run here exactly as printed on the page (from the repository
root, ``freeattn`` being the installed command line); its images land in docs/img/ (the same
files the how-to pages show) and the page docs/gallery.md is written from the commands, their
outputs and their timings.  Figures of ``freeattn reproduce`` that this script does not know yet
(a new subcommand) make it stop with their names, so the gallery cannot silently miss one.

Monte Carlo sizes are the commands' reduced defaults (the paper's ratios at smaller n); the
full-size Table D.2 (all seven rows, 10 draws, ~35 min here) is in docs/table-d2.md.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "gallery.md")

#: Table D.2 rows run by the gallery (the two largest, LLaDA-8B and GPT-3, take 10+ min each)
TABLE_ROWS = "bert-base,modernbert-large,dinov3-l16,falcon-7b,kayyam-1.2b"
TABLE_DRAWS = 3
#: softmax draws per Monte Carlo marker of Figs 2-3 (the commands' default, 10, made the
#: figures of docs/howto-readout.md; 3 keeps the whole gallery within ~10 min on 2 cores)
FIG_DRAWS = 3

#: (key, section, title, command, images, what it shows).  Images are paths under docs/.
ENTRIES = [
    ("seed-density", "seed", "Seed paper: the attention law is not Marchenko–Pastur",
     "freeattn density attention --beta 1 --gamma-k 1 --points 400 "
     "--plot docs/img/gallery-seed-density.png",
     ["img/gallery-seed-density.png"],
     r"The limiting law $\nu_\infty$ of the squared singular values of $\sqrt{n}\,A^\perp$ at "
     r"$\beta = \gamma_K = 1$ (Hayase, Collins & Karakida, AISTATS 2026): its exact right "
     r"edge $9.0095\ldots$ lies beyond the edge $4\theta_1 = 6.873\ldots$ (dashed) of the "
     r"Marchenko–Pastur law that i.i.d. entries of the same variance would give."),
    ("seed-check", "seed", "Seed paper: softmax attention against its Gaussian equivalent",
     "freeattn check attention --beta 1 --gamma-k 1 --n 1000 --draws 4 --seed 0 "
     "--plot docs/img/check_attention.png",
     ["img/check_attention.png"],
     r"Eigenvalues of $n A^\perp A^{\perp\top}$ for the true softmax model and for the "
     r"Gaussian-equivalent linear model $(\beta S + \sqrt{\theta_1 - \theta_2}\,W)/\sqrt{n}$ "
     r"with the same scores, over the law $\nu_\infty$: the Gaussian equivalence of the seed "
     r"paper, $n = 1000$, 4 draws."),
    ("table-d2", "mha", "Table D.2: softmax against the Gaussian model at public model sizes",
     f"freeattn reproduce table-d2 --rows {TABLE_ROWS} --draws {TABLE_DRAWS} "
     "--json-out docs/gallery/table-d2.json",
     [],
     r"Relative $W_1$ (%) and KS between the spectra of the centred softmax layer and of its "
     r"Gaussian equivalent (same weights), $\beta = 1$, $d_O = d$: mean $\pm$ 95 % Student-t "
     f"half-width over {TABLE_DRAWS} draws per row here (the paper: 10), the paper's value "
     "in brackets."),
    ("fig2a", "mha", "Fig. 2(a): training loss for h = 32, 64, 128",
     f"freeattn reproduce fig2a --draws {FIG_DRAWS} --plot docs/gallery/fig2a.png",
     ["gallery/fig2a.png"],
     r"Gradient-flow training loss $\int e^{-2tx}\,\mathrm{d}\nu(x)$ of the readout (5.3), "
     r"through the scalar equation (5.4) and the Laplace inversion of (C.31); markers: "
     r"softmax draws at reduced size."),
    ("fig2b", "mha", "Fig. 2(b): the coefficient-error map over h and γ_O",
     "freeattn reproduce fig2b --plot docs/gallery/fig2b.png",
     ["gallery/fig2b.png"],
     r"The limiting ridge error $E_\lambda$ over $h$ and $\gamma_O$ ($\gamma_K = \gamma_V = "
     r"h/64$, $\lambda = 10^{-4}$, $\sigma^2 = 0.1$, §D.3) with the fixed-output and "
     r"fixed-budget paths; the width-boundary crossings at $h = 32, 64, 96$ "
     r"([figures-d1.md](figures-d1.md))."),
    ("figD1", "mha", "Fig. D.1: attention and MHA spectra at n = 256",
     f"freeattn reproduce figD1 --draws {FIG_DRAWS} --plot docs/gallery/figD1.png",
     ["gallery/figD1.png"],
     r"(a) head splitting, (b) the output width (the density diverges at zero), (c) sharing "
     r"across heads against tying $K = V$ within heads: simulated spectra at $n = 256$ over "
     r"the limit laws ([figures-d1.md](figures-d1.md))."),
    ("tableD1", "mha", "Table D.1: the largest error bars of the figures",
     "freeattn reproduce tableD1 --draws 2",
     [],
     r"The widest 95 % Student-t intervals of the Monte Carlo markers of Figs 2(a), 2(c), "
     r"2(d) and 3(a) at the reduced sizes (2 draws here; the paper: 10 at full size)."),
    ("dof-expansion", "mha", "§C.4: the degrees-of-freedom expansion (C.22), (C.23)",
     "freeattn reproduce dof-expansion",
     [],
     r"The exact degrees of freedom against the bounds of (C.22) and the leading term of "
     r"(C.23), and the tied against independent second moments at $\beta = 1$."),
    ("fig2c", "mha", "Fig. 2(c): ridge error along the fixed-output and fixed-budget paths",
     f"freeattn reproduce fig2c --draws {FIG_DRAWS} --plot docs/gallery/fig2c.png",
     ["gallery/fig2c.png"],
     r"Ridge coefficient error $E_\lambda$ (5.2) against the number of heads $h$; markers: "
     r"softmax draws at reduced size."),
    ("fig2d", "mha", "Fig. 2(d): error ratio and the crossover β_c",
     f"freeattn reproduce fig2d --draws {FIG_DRAWS} --plot docs/gallery/fig2d.png",
     ["gallery/fig2d.png"],
     r"$E(64, 192)/E(128, 128)$ against $\beta$; the crossover $\beta_c = 0.5587$ "
     r"(paper: 0.559)."),
    ("fig3a", "mha", "Fig. 3(a): arrival times under across-head K/V sharing",
     f"freeattn reproduce fig3a --draws {FIG_DRAWS} --plot docs/gallery/fig3a.png",
     ["gallery/fig3a.png"],
     r"Arrival time at loss 0.1 against the number of query heads per key/value head "
     r"(MQA/GQA), at fixed widths and at a fixed parameter count."),
    ("fig3b", "mha", "Fig. 3(b): GQA against within-head K = V tying",
     f"freeattn reproduce fig3b --draws {FIG_DRAWS} --plot docs/gallery/fig3b.png",
     ["gallery/fig3b.png"],
     r"Ridge error of GQA and of tied $K = V$ (C.21) against $h$; the reversal at "
     r"$h_c = 4.631$."),
    ("law-plots", "laws", "The law plots of the law pages",
     "python docs/make_law_plots.py",
     ["img/law-attention.png", "img/law-head-average.png", "img/law-values.png",
      "img/law-mha.png", "img/law-mha-mqa.png", "img/law-mha-tied.png",
      "img/law-mha-partial-kv.png"],
     r"Each limit law's density over the pooled eigenvalues of the true softmax layer and of "
     r"its finite Gaussian equivalent (same weights), $n = 400$, 3 draws; shown on "
     r"[laws-attention.md](laws-attention.md) and [laws-mha.md](laws-mha.md)."),
]

SECTIONS = {
    "seed": "Single head: Hayase, Collins & Karakida (AISTATS 2026)",
    "mha": "Multi-head: Hayase & Karakida 2026 (arXiv 2610.10033)",
    "laws": "Law plots (every law family against simulation)",
}


def reproduce_commands():
    """The subcommands of ``freeattn reproduce`` (the published tables and figures)."""
    from freeattn.cli.reproduce import reproduce

    return sorted(reproduce.commands)


def check_coverage():
    known = {key for key, *_ in ENTRIES}
    missing = [c for c in reproduce_commands() if c not in known]
    if missing:
        sys.exit(f"make_gallery.py: `freeattn reproduce {', '.join(missing)}` exist(s) but "
                 f"the gallery has no entry for them: add them to ENTRIES")


def _run(command, ok=(0,)):
    """Run a gallery command from the repository root; ``freeattn`` and ``python`` are this
    interpreter's (the command printed on the page is the one a user types)."""
    argv = shlex.split(command)
    if argv[0] == "freeattn":
        argv = [sys.executable, "-m", "freeattn"] + argv[1:]
    elif argv[0] == "python":
        argv = [sys.executable] + argv[1:]
    env = dict(os.environ, MPLBACKEND="Agg")
    t0 = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode not in ok:
        sys.stderr.write(proc.stdout + proc.stderr)
        sys.exit(f"make_gallery.py: `{command}` exited with {proc.returncode}")
    return proc.stdout, seconds


def _fmt_metric(m, digits):
    return f"{m['mean']:.{digits}f} ± {m['half_width']:.{digits}f}"


def table_d2_markdown(path):
    with open(path, encoding="utf-8") as fh:
        data = json.load(fh)
    lines = ["| row | h/h_KV | sharing | rel W₁ (%) here [paper] | KS here [paper] | agree |",
             "|---|---|---|---|---|---|"]
    for r in data["rows"]:
        c, p = r["config"], r["paper"]
        agree = {True: "yes", False: "**no**", None: "n/a"}[r["agrees"]]
        lines.append(
            f"| {r['row']} | {c['heads']}/{c['kv_heads']} | {c['sharing']} | "
            f"{_fmt_metric(r['rel_w1'], 2)} [{_fmt_metric(p['rel_w1'], 2)}] | "
            f"{_fmt_metric(r['ks'], 4)} [{_fmt_metric(p['ks'], 4)}] | {agree} |")
    from freeattn.reproduce.table_d2 import ROWS

    run = {r["row"] for r in data["rows"]}
    skipped = [name for name in ROWS if name not in run]
    if skipped:
        lines.append(f"\nNot run by the gallery (over 10 min each here): {', '.join(skipped)}; "
                     f"every row at 10 draws: [table-d2.md](table-d2.md).")
    return "\n".join(lines)


def _load_state():
    path = os.path.join(ROOT, "docs", "gallery", "state.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    return {}


def _save_state(state):
    path = os.path.join(ROOT, "docs", "gallery", "state.json")
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=1, ensure_ascii=False, sort_keys=True)
        fh.write("\n")


def write_page(state, available):
    out = ["# Gallery",
           "",
           "Every table and figure of the two papers that freeattn reproduces, each with the "
           "exact command that made it (run from the repository root). This page and its "
           "images are generated by `make gallery` (`python docs/make_gallery.py`: about "
           "2.5 min of CPU, 10 min on the shared two-core development machine); Monte Carlo markers use the commands' reduced "
           "sizes (the paper's ratios at smaller n; `--mc paper` runs the paper's sizes) with "
           f"{FIG_DRAWS} draws per marker; the same figures with the default 10 draws are on "
           "[howto-readout.md](howto-readout.md).",
           ""]
    for section, heading in SECTIONS.items():
        out += [f"## {heading}", ""]
        for key, sec, title, command, images, caption in ENTRIES:
            if sec != section or key not in available:
                continue
            entry = state.get(key)
            out += [f"### {title}", "", caption, "", "```console", f"$ {command}", "```", ""]
            if entry is None:
                out += ["*Not generated yet: run `make gallery`.*", ""]
                continue
            if key == "table-d2":
                out += [table_d2_markdown(os.path.join(ROOT, "docs", "gallery",
                                                       "table-d2.json")), ""]
            for img in images:
                alt = title.replace("[", "(").replace("]", ")")
                out += [f"![{alt}]({img})", ""]
            text = entry["stdout"].rstrip()
            out += [f"??? note \"Output ({entry['seconds']:.0f} s here, {entry['date']})\"",
                    "", "    ```text"]
            out += [("    " + line) if line else "" for line in text.splitlines()]
            out += ["    ```", ""]
    with open(PAGE, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out).rstrip() + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default=None, help="comma-separated entries to regenerate")
    ap.add_argument("--page-only", action="store_true",
                    help="rewrite docs/gallery.md from the recorded outputs, running nothing")
    args = ap.parse_args()
    check_coverage()
    available = set(reproduce_commands()) | {k for k, s, *_ in ENTRIES if s != "mha"}
    os.makedirs(os.path.join(ROOT, "docs", "gallery"), exist_ok=True)
    state = _load_state()
    only = None if args.only is None else set(args.only.split(","))
    if not args.page_only:
        for key, _, _, command, _, _ in ENTRIES:
            if key not in available or (only is not None and key not in only):
                continue
            print(f"$ {command}", flush=True)
            # table-d2 exits 1 when a row disagrees with the paper: shown as such, not fatal
            stdout, seconds = _run(command, ok=(0, 1) if key == "table-d2" else (0,))
            print(f"  {seconds:.1f} s", flush=True)
            state[key] = {"command": command, "stdout": stdout, "seconds": seconds,
                          "date": time.strftime("%Y-%m-%d", time.gmtime())}
            _save_state(state)
    write_page(state, available)
    print(f"wrote {os.path.relpath(PAGE, ROOT)}")


if __name__ == "__main__":
    main()
