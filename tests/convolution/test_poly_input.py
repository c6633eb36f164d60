"""Issue 17: one copy of the float64 polynomial machinery of the subordination inputs.

The rectangular convolution's input (``rectangular_inputs._Input``) and the subordination solver's
(``subordination_inputs._Input``) share ``_PolyInput``: the coefficient rows, Horner's scheme,
the Newton polish and the first-order warm start; they differ only in the polish rule (the
sheet rule and the tolerances, named constants).  Pinned against closed forms (Marchenko–Pastur
and the semicircle, written as bare polynomials so that the polish, not a closed-form G, runs)
and, below the axis, against G(ū) conjugated."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from freeattn import AlgebraicLaw, MarchenkoPastur, Semicircle
from freeattn.algebraic.polynomial import G, z
from freeattn.convolution import rectangular as RC
from freeattn.convolution import subordination_inputs as SI

R = sp.Rational
SHARED = ("_coeffs", "_rows", "_horner", "_derivative", "_polish", "_predict", "_fallback")


def mp_bare(lam):
    """Marchenko–Pastur (ratio λ, variance 1) as a bare AlgebraicLaw: λzG² − (z + λ − 1)G + 1."""
    return AlgebraicLaw(lam * z * G**2 - (z + lam - 1) * G + 1, name="MP bare")


def sc_bare():
    """The semicircle on [0, 4] (centre 2) as a bare AlgebraicLaw: G² − (z − 2)G + 1."""
    return AlgebraicLaw(G**2 - (z - 2) * G + 1, name="semicircle bare")


def test_one_copy_of_the_polynomial_machinery():
    for cls in (RC._Input, SI._Input):
        assert issubclass(cls, SI._PolyInput)
        for name in SHARED:
            assert name not in cls.__dict__, f"{cls.__module__}.{cls.__name__} redefines {name}"
    # only the rule differs: the rectangular inputs' points lie on both sides of the axis
    assert RC._Input._rule.sheet_by_sign and not SI._Input._rule.sheet_by_sign
    assert RC._Input._rule != SI._Input._rule


@pytest.mark.parametrize("bare, closed", [(mp_bare(R(1, 2)), MarchenkoPastur(0.5)),
                                          (mp_bare(R(1, 5)), MarchenkoPastur(0.2))])
def test_rectangular_input_both_half_planes(bare, closed):
    """Above the axis and below it (G(u) = conj G(ū)): the polished G and G′ against the closed
    form, warm-started from a nearby point, and cold (from 1/u)."""
    inp = RC._Input(bare)
    assert not inp.closed
    x = np.linspace(0.05, 3.5, 41)
    for sign in (1, -1):
        u = x + sign * 0.2j
        ref = closed._cauchy_float(u.real + 0.2j)
        ref = ref if sign > 0 else np.conj(ref)
        g, dg = inp.value(u)
        np.testing.assert_allclose(g, ref, rtol=1e-12)
        # G′ against a central difference of the closed form (h = 1e-5: error ~1e-10)
        h = 1e-5
        d_ref = (closed._cauchy_float(u.real + 0.2j + h) - closed._cauchy_float(u.real + 0.2j - h)) / (2 * h)
        d_ref = d_ref if sign > 0 else np.conj(d_ref)
        np.testing.assert_allclose(dg, d_ref, rtol=1e-8)
        # warm: the state of the neighbouring points predicts, the polish confirms
        g2, _ = inp.value(u + 0.01, (u, g, dg))
        ref2 = closed._cauchy_float(u.real + 0.01 + 0.2j)
        ref2 = ref2 if sign > 0 else np.conj(ref2)
        np.testing.assert_allclose(g2, ref2, rtol=1e-12)


def test_sheet_rule_is_the_only_difference():
    """Below the axis the right value Im G > 0 is on the rectangular rule's sheet and off the
    upper-half-plane rule's (which then leaves the point to the law's own G)."""
    law = sc_bare()
    u = np.linspace(0.5, 3.5, 31) - 0.3j
    ref = np.conj(Semicircle()._cauchy_float(np.conj(u) - 2))
    start = ref * (1 + 1e-6)
    rect, upper = RC._Input(law), SI._Input(law)
    C, _ = rect._coeffs(u)
    g, ok = rect._polish(start.copy(), u, C)
    assert ok.all()
    np.testing.assert_allclose(g, ref, rtol=1e-14)
    C2, _ = upper._coeffs(u)
    g2, ok2 = upper._polish(start.copy(), u, C2)
    np.testing.assert_allclose(g2, ref, rtol=1e-14)  # same Newton iterates ...
    assert not ok2.any()  # ... but off the sheet Im g ≤ 0 the upper rule assumes
    # above the axis both accept the same value
    up = np.conj(u)
    for inp in (rect, upper):
        gg, okk = inp._polish(np.conj(start), up)
        assert okk.all()
        np.testing.assert_allclose(gg, np.conj(ref), rtol=1e-14)


def test_shared_input_matches_mpmath():
    """The subordination solver's input (unnormalised coefficient rows) on the MP polynomial,
    against mpmath's closed form at 30 digits."""
    lam = mpmath.mpf(1) / 3
    law = mp_bare(R(1, 3))
    w = np.linspace(0.1, 3.0, 17) + 0.05j
    g, dg = SI._Input(law).value(w)

    def G_mp(s):
        s = mpmath.mpc(s)
        r = mpmath.sqrt((s - (1 - mpmath.sqrt(lam)) ** 2) * (s - (1 + mpmath.sqrt(lam)) ** 2))
        roots = [(s + lam - 1 + sg * r) / (2 * lam * s) for sg in (1, -1)]
        # the Stieltjes branch: the root nearer the float64 closed form (a selector only)
        near = complex(MarchenkoPastur(1 / 3)._cauchy_float(np.array([complex(s)]))[0])
        return min(roots, key=lambda q: abs(complex(q) - near))

    with mpmath.workdps(30):
        for k in range(w.size):
            ref = G_mp(w[k])
            assert abs(complex(ref) - g[k]) <= 1e-13 * abs(complex(ref))
            dref = mpmath.diff(G_mp, mpmath.mpc(w[k]))
            assert abs(complex(dref) - dg[k]) <= 1e-11 * abs(complex(dref))
