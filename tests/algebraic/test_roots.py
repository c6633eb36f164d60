"""The shared root finder: float64 polish → FLINT → mpmath, each against known roots."""
import flint
import mpmath
import pytest

from freeattn.algebraic import roots as R


def _from_roots(rs):
    """Coefficients (highest first) of Π (x − r), exact at the current precision."""
    c = [mpmath.mpf(1)]
    for r in rs:
        c = [a - r * b for a, b in zip(c + [0], [0] + c)]
    return c


def _match(found, expected, rel):
    assert len(found) == len(expected)
    left = list(expected)
    for f in found:
        k = min(range(len(left)), key=lambda i: abs(f - left[i]))
        assert abs(f - left[k]) <= rel * abs(left[k]), (f, left[k])
        left.pop(k)


def test_ill_scaled_polynomial_goes_to_flint_and_matches_known_roots():
    # roots near 1e35 beside roots near 0.1 and a pair 2^-30 apart; dyadic roots, so that the
    # coefficients are exact at 200 digits (the elementary symmetric functions span < 600
    # bits) and the roots are known exactly
    with mpmath.workdps(200):
        two = mpmath.mpf(2)
        exp = [two**-3, two**-3 + two**-30, mpmath.mpf(-3), two**115, 5 * two**110,
               mpmath.mpc(7, 2), mpmath.mpc(7, -2), -(two**112)]
        c = _from_roots(exp)
        assert all(mpmath.im(x) == 0 for x in c)
        c = [mpmath.re(x) for x in c]
        assert R._roots_by_polish(c) is None  # float64 cannot settle these
        via_flint = R._roots_by_flint(c)
        assert via_flint is not None
        _match(via_flint, exp, mpmath.mpf(10) ** -75)
        _match(R.polyroots(c), exp, mpmath.mpf(10) ** -75)
        # the same roots as mpmath.polyroots (the former route)
        ref = mpmath.polyroots(c, maxsteps=400, extraprec=600)
        _match(via_flint, ref, mpmath.mpf(10) ** -75)
        # real roots of a real polynomial come back as mpf, sorted as mpmath sorts them
        out = R.polyroots(c)
        assert sum(isinstance(r, mpmath.mpf) for r in out) == 6
        assert [abs(mpmath.im(r)) for r in out] == sorted(abs(mpmath.im(r)) for r in out)


def test_precision_is_restored_and_results_are_at_working_precision():
    old_flint, old_mp = flint.ctx.prec, mpmath.mp.prec
    with mpmath.workdps(60):
        c = [mpmath.mpf(1), mpmath.mpf(-1) / 3, mpmath.mpf("1e-30") / 7, mpmath.mpf(1) / 11]
        r = R._roots_by_flint(c)
        for x in r:  # residuals at the working precision, against the derivative
            v, dv = mpmath.polyval(c, x, derivative=True)
            assert abs(v / dv) <= mpmath.mpf(10) ** -58 * abs(x)
        ref = mpmath.polyroots(c, maxsteps=200, extraprec=200)
        _match(r, ref, mpmath.mpf(10) ** -58)
    assert flint.ctx.prec == old_flint and mpmath.mp.prec == old_mp


def test_squareful_input_falls_back_to_mpmath():
    with mpmath.workdps(30):
        c = _from_roots([mpmath.mpf(1), mpmath.mpf(1), mpmath.mpf(-2)])
        assert R._roots_by_flint(c) is None  # FLINT needs a squarefree polynomial
        _match(R.polyroots(c), [1, 1, -2], mpmath.mpf(10) ** -12)


def test_zero_roots_complex_coefficients_and_degenerate_input():
    with mpmath.workdps(30):
        # x^2 (x − i)(x − 2): trailing zeros are the root 0 twice
        c = _from_roots([mpmath.mpc(0, 1), mpmath.mpf(2)]) + [0, 0]
        out = R.polyroots(c)
        assert sum(1 for r in out if r == 0) == 2
        nz = [r for r in out if r != 0]
        _match(nz, [mpmath.mpc(0, 1), mpmath.mpf(2)], mpmath.mpf(10) ** -28)
        assert R.polyroots([0, 0, 2, -1]) == [mpmath.mpf(0.5)]
        assert R.polyroots([3]) == []
        with pytest.raises(ValueError):
            R.polyroots([0, 0])


def test_flint_disabled_skips_the_flint_route(monkeypatch):
    monkeypatch.setenv("FREEATTN_FLINT", "0")
    with mpmath.workdps(30):
        c = _from_roots([mpmath.mpf(1) / 4, mpmath.mpf(-3), mpmath.mpf(5)])
        assert R._roots_by_flint(c) is None
        _match(R.polyroots(c), [mpmath.mpf(1) / 4, -3, 5], mpmath.mpf(10) ** -28)
