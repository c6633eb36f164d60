"""A new parameter point of a structure starts from the previous point's branch classification
(freeattn.algebraic.numeric.BranchData._classify_from, issue 22 "reuse across parameter
points"): a law built that way equals a freshly built one — support edges, atoms and pdf to
1e-13 — at ≥ 50 random points of each paper structure, including points where the
classification changes (breakpoints appearing or vanishing, a gap opening), which fall back to
the tracked classification; and a carried-over classification that fails the mass check is
dropped for the tracked one."""
from collections import OrderedDict

import numpy as np
import pytest

from freeattn import attention_law, mha_output_law, values_law
from freeattn.algebraic import numeric
from freeattn.algebraic.numeric import BranchData

TOL = 1e-13


def _fresh(make, args, monkeypatch):
    """The law at ``args`` with no reference classification to start from."""
    with monkeypatch.context() as m:
        m.setattr(numeric, "_REFERENCE", OrderedDict())
        law = make(*args)
        law.support()
    return law


def _same(a, b):
    sa, sb = a.support(), b.support()
    assert len(sa) == len(sb), (sa, sb)
    for (a0, a1), (b0, b1) in zip(sa, sb):
        scale = max(abs(b0), abs(b1), 1e-300)
        assert abs(a0 - b0) <= TOL * scale and abs(a1 - b1) <= TOL * scale
    ta, tb = a.atoms(), b.atoms()
    assert len(ta) == len(tb)
    for (x, m), (y, n) in zip(ta, tb):
        assert abs(x - y) <= TOL * (1 + abs(y)) and abs(m - n) <= TOL
    xs = np.concatenate([np.linspace(lo, hi, 9)[1:-1] for lo, hi in sb])
    pa, pb = a.pdf(xs), b.pdf(xs)
    assert np.all(np.abs(pa - pb) <= TOL * np.abs(pb) + 1e-300), np.max(np.abs(pa - pb) / pb)


def _sweep(make, draw, n, monkeypatch, rng):
    counts = {"reused": 0, "tracked": 0}
    reused_flags = []
    orig = BranchData.__init__

    def spy(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        reused_flags.append(self.reused)

    make(*draw(rng)).support()  # a first law of the structure: the reference starts here
    for _ in range(n):
        args = draw(rng)
        del reused_flags[:]
        with monkeypatch.context() as m:
            m.setattr(BranchData, "__init__", spy)
            law = make(*args)
            law.support()
        counts["reused" if any(reused_flags) else "tracked"] += 1
        _same(law, _fresh(make, args, monkeypatch))
    return counts


def _single(rng):
    return (float(np.exp(rng.uniform(np.log(0.3), np.log(2.0)))),
            float(np.exp(rng.uniform(np.log(0.3), np.log(3.0)))),
            int(rng.choice([1, 2, 3, 4, 8, 12])))


def _layer(rng):
    return (float(rng.uniform(0.4, 1.6)), int(rng.choice([2, 4, 8, 12])),
            float(rng.uniform(0.5, 3.0)), float(rng.uniform(0.5, 3.0)),
            float(rng.uniform(0.5, 3.0)))


def _values(rng):
    return (float(rng.uniform(0.4, 1.6)), int(rng.choice([1, 2, 4, 8])),
            float(rng.uniform(0.5, 3.0)), float(rng.uniform(0.5, 3.0)))


@pytest.mark.parametrize("name, make, draw", [
    ("single head", attention_law, _single),
    ("values law", values_law, _values),
    ("full layer", mha_output_law, _layer),
])
def test_reused_classification_equals_fresh_build(name, make, draw, monkeypatch):
    counts = _sweep(make, draw, 50, monkeypatch, np.random.default_rng(22))
    # both sides of the boundary were met: carried over, and changed (tracked afresh)
    assert counts["reused"] >= 10 and counts["tracked"] >= 1, counts


def test_a_grid_line_reuses_and_crosses_a_classification_change(monkeypatch):
    """β from 0.3 to 2.5 at γ_K = 0.05, h = 8: the spectrum splits into two intervals on the
    way (the breakpoint count changes there; those points are tracked afresh), every other
    point is carried over from its neighbour, all equal to fresh builds."""
    flags, counts = [], []
    orig = BranchData.__init__

    def spy(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        flags.append(self.reused)

    attention_law(0.29, 0.05, 8).support()
    for beta in np.linspace(0.3, 2.5, 23):
        del flags[:]
        with monkeypatch.context() as m:
            m.setattr(BranchData, "__init__", spy)
            law = attention_law(float(beta), 0.05, 8)
            counts.append((len(law.support()), any(flags)))
        _same(law, _fresh(attention_law, (float(beta), 0.05, 8), monkeypatch))
    pieces = [c for c, _ in counts]
    assert len(set(pieces)) > 1, pieces  # the classification changed along the line
    assert sum(r for _, r in counts) >= len(counts) - 2 * len(set(pieces)), counts


def test_wrong_carried_over_classification_is_dropped_by_the_mass_check(monkeypatch):
    """A carried-over classification that calls the support a gap (no mass) fails the mass
    check; the law then classifies afresh and equals a fresh build."""
    attention_law(0.9, 1.1, 2).support()
    orig = BranchData._classify_from

    def wrong(self, ref):
        out = orig(self, ref)
        if out is not None:
            for info in out:
                if info["support"]:
                    info["support"], info["rule"], info["index"] = False, "real", 0
        return out

    with monkeypatch.context() as m:
        m.setattr(BranchData, "_classify_from", wrong)
        law = attention_law(1.0, 1.2, 2)
        edges = law.support()
        assert not law._branch(None).reused  # dropped, tracked afresh
    _same(law, _fresh(attention_law, (1.0, 1.2, 2), monkeypatch))
    assert edges == law.support()
