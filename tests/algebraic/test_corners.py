"""Issue 21 item 18: G next to an atom or a square-root edge at ~1e-10 of the width above the
axis (float64 roots of P(·, z) there do not separate the sheets that meet at the singular
point; the tracker raised "branch continuation failed").  Each value against the mpmath
route at 30 digits (``cauchy_transform(z, dps=30)``), an independent algorithm (mpmath roots
of P(·, z) and the Nevanlinna selection at 30 digits)."""
import numpy as np
import pytest

from freeattn import FreePoisson, MarchenkoPastur, mha_output_law

#: relative error of float64 G at 1e-10·width above the axis: the point's own conditioning
#: (|G'|·ulp(z)/|G| up to ~1e-10 there) measured on the sweep's grid (session 9: ≤ 6e-10)
REL = 2e-9

CASES = {
    # atoms (inner disc Laurent route): the sweep's points and a second instance
    "mha-3 atom 0": (lambda: mha_output_law(0.8716507095308414, 3, 0.5146183399185597,
                                            1.030260732294347, 0.003164652335074602,
                                            sharing="none"), 0.0, 1.3820449705752176e-10),
    "pushforward-10 atom 1/2": (lambda: FreePoisson(0.014452270620362325).pushforward(
        [0.5, 1.5, 0.875]), 0.5, 3.2602309269354114e-10),
    "second: FreePoisson(0.3) push atom 0.2": (lambda: FreePoisson(0.3).pushforward(
        [0.2, 1.0, 0.5]), 0.2, 1e-10),
    # square-root edges (edge expansion route)
    "pushforward-15 atom 1/2": (lambda: MarchenkoPastur(93.16811707494368).pushforward(
        [0.5, -1.5, 0.625]), 0.5, 7.877344638875016e-07),
    "mha-4 edge": (lambda: mha_output_law(0.12565813585104485, 94, 0.004010173319780627,
                                          0.001, 55.653952402837035, sharing="mqa"),
                   None, 1.9866395673582738e-07),
    "second: mqa h=50 edges": (lambda: mha_output_law(0.2, 50, 0.005, 0.002, 40.0,
                                                      sharing="mqa"), None, 2.03e-7),
}


def _points(law, at, eps):
    if at is not None:
        xs = [at, at + 1e3 * eps, at - 1e3 * eps]
    else:
        xs = []
        for lo, hi in law.support():
            xs += [lo, hi, lo + 1e-9 * (hi - lo), hi - 1e-9 * (hi - lo)]
    return np.array([x + 1j * eps for x in xs])


@pytest.mark.parametrize("name", list(CASES))
def test_cauchy_next_to_singular_point(name):
    build, at, eps = CASES[name]
    law = build()
    zz = _points(law, at, eps)
    g = np.asarray(law.cauchy_transform(zz), complex)
    ref = np.array([complex(law.cauchy_transform(complex(z), dps=30)) for z in zz])
    assert np.all(g.imag < 0)
    assert np.max(np.abs(g - ref) / np.abs(ref)) <= REL, (zz, g, ref)


#: the right end of mha_output_law(3.5822…, 6754, 37.397…, 0.0085225…, 759.70…, sharing="mqa")
#: where the complex pair of roots of P(·, x) next to G ≈ 2.7446e-11 merges, found by bisection
#: on x with mpmath.polyroots at 60 digits (session 9); the law reported 39795806326.54305 until
#: the discriminant's top coefficients stopped being zeroed against its largest one (session 10;
#: tests/attention/test_layer_corners.py polishes it on P = ∂_G P = 0)
MQA_6754_RIGHT_END = 39795811361.49741737


def test_mqa_6754_right_end():
    law = mha_output_law(3.582222907147184, 6754, 37.39654800700691, 0.008522530657039801,
                         759.7039908457708, sharing="mqa")
    (lo, hi), = law.support()
    assert abs(hi - MQA_6754_RIGHT_END) <= 1e-12 * MQA_6754_RIGHT_END
