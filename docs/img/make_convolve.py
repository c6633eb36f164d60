"""Figure of docs/howto-convolve.md: convolving your own spectra.

    python docs/img/make_convolve.py        (writes docs/img/convolve.png)

(a) the eigenvalues of a sampled Wishart matrix, as an ``Empirical`` law, ⊞ a semicircle of
    variance 1/4, against a histogram of the eigenvalues of D + W (D = diag of those
    eigenvalues, W a Wigner matrix of the same size, free of D in the limit);
(b) the compound free Poisson law π(μ, t) of the same user spectrum μ at rate t = 1/2 (the
    output-spectrum law of Theorem 3.1 of Hayase & Karakida 2026 when μ = μ_VO, t = γ_O),
    against a histogram of the non-zero eigenvalues of Z D Zᵀ/n (Z of size n × m, m = n/2:
    Lemma C.1), with the atom 1 − t at 0.
"""
from __future__ import annotations

import pathlib

import numpy as np

from freeattn import Semicircle, compound_free_poisson, free_additive_convolution
from freeattn.plotting.setup import pyplot, save
from freeattn.laws.empirical import Empirical

HERE = pathlib.Path(__file__).resolve().parent


def main(path=HERE / "convolve.png", n=400, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n // 2, n))
    eigs = np.linalg.eigvalsh(x @ x.T / n)  # a user spectrum: MP(1/2) sample, n/2 values
    mu = Empirical(eigs)

    plus = free_additive_convolution(mu, Semicircle(0.25))  # subordination route
    m = eigs.size
    w = rng.standard_normal((m, m))
    w = (w + w.T) / np.sqrt(2 * m) * 0.5  # Wigner, semicircle variance 1/4
    mc_plus = np.linalg.eigvalsh(np.diag(eigs) + w)

    t = 0.5
    cfp = compound_free_poisson(mu, t)
    z = rng.standard_normal((n, int(t * n)))
    d = rng.permutation(np.resize(eigs, int(t * n)))  # m = t n weights drawn from μ
    mc_cfp = np.linalg.eigvalsh((z * d) @ z.T / n)
    mc_cfp = mc_cfp[mc_cfp > 1e-9 * mc_cfp.max()]

    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 3.8))
    (a, b), = plus.support()
    xs = a + (b - a) * (1 - np.cos(np.linspace(0, np.pi, 400))) / 2
    ax1.hist(mc_plus, bins=40, density=True, color="0.8", label=f"eig(D + W), {m}×{m}")
    ax1.plot(xs, plus.pdf(xs), lw=1.8, label="Empirical(eigs) ⊞ Semicircle(1/4)")
    ax1.set_title("(a) user spectrum ⊞ semicircle")
    ax1.set_xlabel("x")
    ax1.legend(fontsize=8)
    atom = dict(cfp.atoms()).get(0.0, 0.0)
    for lo, hi in cfp.support():
        xs = lo + (hi - lo) * (1 - np.cos(np.linspace(0, np.pi, 400))) / 2
        ax2.plot(xs, cfp.pdf(xs) / (1 - atom), lw=1.8, color="C1")
    ax2.hist(mc_cfp, bins=40, density=True, color="0.8", label=f"non-zero eig(Z D Zᵀ/n), n = {n}")
    ax2.plot([], [], color="C1", label=f"π(Empirical(eigs), {t:g}) / (1 − atom {atom:.2f})")
    ax2.set_title("(b) compound free Poisson of a user spectrum")
    ax2.set_xlabel("x")
    ax2.legend(fontsize=8)
    save(fig, path, dpi=120)
    return path


if __name__ == "__main__":
    print(main())
