"""Edge expansions of the θ-tables are built on first read (issue 22 row 1): support, the
mass check and a pdf in the bulk do not build them; every value read afterwards equals the
law whose edges were built eagerly."""
import pickle

import numpy as np
import pytest

from freeattn import MHAConfig, attention_law


def _eager(law):
    law.support()
    for t in law._tables:
        t["edges"]  # noqa: B018  (the read builds them)
    return law


@pytest.mark.parametrize("build", [lambda: attention_law(0.83, 1.7),
                                   lambda: attention_law(1.37, 0.45)])
def test_bulk_pdf_builds_no_edges_and_values_agree(build):
    lazy = build()
    (a, b), *_ = lazy.support()
    mid = np.array([0.5 * (a + b), a + 0.3 * (b - a)])
    p = lazy.pdf(mid)
    assert all("edges" not in t for t in lazy._tables)
    eager = _eager(build())
    assert np.array_equal(p, eager.pdf(mid))
    # next to the ends the lazy law builds its edges, and agrees with the eager one
    near = np.array([a + 1e-6 * (b - a), b - 1e-9 * (b - a), b - 1e-4 * (b - a)])
    assert np.array_equal(lazy.pdf(near), eager.pdf(near))
    assert all("edges" in t for t in lazy._tables)
    x = np.linspace(a, b, 7)
    assert np.array_equal(lazy.cdf(x), eager.cdf(x))


def test_law_pickles_before_and_after_edges():
    law = attention_law(1.1, 0.9)
    (a, b), *_ = law.support()
    back = pickle.loads(pickle.dumps(law))
    x = np.array([a + 1e-7 * (b - a), 0.5 * (a + b)])
    assert np.array_equal(back.pdf(x), law.pdf(x))
    back2 = pickle.loads(pickle.dumps(law))  # edges built now
    assert all("edges" in t for t in back2._tables)
    assert np.array_equal(back2.cdf(x), law.cdf(x))


def test_pdf_at_breakpoints_still_probes_hard_edges():
    law = attention_law(1.0, 1.0)  # hard edge at 0 (the density diverges there)
    law.support()
    law.pdf(np.array([1.0]))
    assert "_hard_edges" not in law.__dict__  # no breakpoint asked: no probe
    assert law.pdf(np.array([0.0]))[0] == np.inf
    assert law._hard_edges == [0.0]


def test_full_layer_touching_intervals_edges_lazy_equal():
    lazy = MHAConfig.preset("bert-base", beta=0.9).law()
    eager = _eager(MHAConfig.preset("bert-base", beta=0.9).law())
    (a, b), *_ = lazy.support()
    x = np.array([a + 1e-8, 0.5 * (a + b), b - 1e-8])
    assert np.array_equal(lazy.pdf(x), eager.pdf(x))
