"""Figure of docs/howto-sweep.md: a (β, h) phase diagram of the full-layer law at bert-base widths.

    python docs/img/make_howto_sweep.py        (writes docs/img/sweep-phase.png)
"""
import pathlib

import numpy as np

from freeattn import MHAConfig, sweep
from freeattn._plotting import pyplot


def bert_layer(beta, heads):
    """bert-base widths (n = 512, d = d_O = 768, d_K = d_V = 64) with h heads (K/V heads = h)."""
    return MHAConfig.preset("bert-base", beta=beta, heads=heads, kv_heads=heads).law()


def main():
    res = sweep(bert_layer, beta=np.linspace(0.25, 1.5, 6), heads=[1, 2, 4, 6, 8, 10, 12, 16],
                moments=2, workers=2)
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    res.plot("atom_mass", ax=a1)
    a1.set_title("mass of the atom at 0 (rank deficit)")
    # normalised spread: right edge / mean
    ratio = res.right_edge / res.moments[..., 0]
    mesh = a2.pcolormesh(res.axes["heads"], res.axes["beta"], ratio, shading="nearest")
    fig.colorbar(mesh, ax=a2, label="right edge / m1")
    a2.set_xlabel("heads")
    a2.set_ylabel("beta")
    a2.set_title("right edge over the mean")
    out = pathlib.Path(__file__).with_name("sweep-phase.png")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
