"""A new parameter point of a structure starts from the previous point's branch classification
(freeattn.algebraic.numeric.BranchData._classify_from, issue 22 "reuse across parameter
points"): a law built that way equals a freshly built one — support edges, atoms and pdf to
1e-13 — at ≥ 50 random points of each paper structure, including points where the
classification changes (breakpoints appearing or vanishing, a gap opening), which start from
the last point of their own layout (breakpoint count and poles) or, for a layout not met
before, fall back to the tracked classification; and a carried-over classification that fails the mass check is
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


def _layout(bd):
    return len(bd.breakpoints), frozenset(i for i, b in enumerate(bd.breakpoints) if b in bd.poles)


def _sweep(make, draw, n, monkeypatch, rng):
    """``n`` random points after a first one, each compared with a fresh build; counts the
    points carried over, tracked afresh, and whose layout (breakpoint count, poles) differs
    from the previous point's (a classification change)."""
    counts = {"reused": 0, "tracked": 0, "changed": 0}
    flags, layouts = [], []
    orig = BranchData.__init__

    def spy(self, *args, **kwargs):
        orig(self, *args, **kwargs)
        flags.append(self.reused)
        layouts.append(_layout(self))

    # no reference from earlier tests: the first point of each layout is tracked here
    monkeypatch.setattr(numeric, "_REFERENCE", OrderedDict())
    make(*draw(rng)).support()  # a first law of the structure: the reference starts here
    previous = None
    for _ in range(n):
        args = draw(rng)
        del flags[:], layouts[:]
        with monkeypatch.context() as m:
            m.setattr(BranchData, "__init__", spy)
            law = make(*args)
            law.support()
        counts["reused" if any(flags) else "tracked"] += 1
        counts["changed"] += previous is not None and layouts[-1:] != previous
        previous = layouts[-1:]
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


@pytest.mark.parametrize("name, make, draw, changes, n", [
    ("single head", attention_law, _single, True, 50),
    # the layer structures cost 2–4 s a point (fresh build included): 50 points in the slow
    # suite, the same check on the first 12 always on
    pytest.param("values law", values_law, _values, True, 50, marks=pytest.mark.slow),
    pytest.param("full layer", mha_output_law, _layer, False, 50, marks=pytest.mark.slow),
    ("values law", values_law, _values, True, 12),
    ("full layer", mha_output_law, _layer, False, 12),  # one layout at these points
])
def test_reused_classification_equals_fresh_build(name, make, draw, changes, n, monkeypatch):
    counts = _sweep(make, draw, n, monkeypatch, np.random.default_rng(22))
    # both sides of the boundary were met: carried over, and tracked afresh (a layout met
    # first, or a carried-over rule that stayed ambiguous); where the layout changes between
    # points, a layout met before is carried over from that layout's last point
    assert counts["reused"] >= n // 5 and counts["tracked"] >= 1, counts
    assert counts["changed"] >= 1 if changes else True, counts


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
