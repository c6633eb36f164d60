"""High-precision functionals with an integrable singularity at an end of the support (issue 21,
item 9): the mpmath quadrature of expect/entropy takes the pieces touching an end in s with
θ = h s^8 and reads points as close to the end as the evaluation precision resolves.  Before,
one rule across the singularity gave MP(1).entropy(dps=20) = 0.83787713062958387 and
E[log X] = −0.99999987156."""
import mpmath

from freeattn import MarchenkoPastur


def test_marchenko_pastur_one_entropy_and_log_moment():
    law = MarchenkoPastur(1)
    with mpmath.workdps(30):
        right = mpmath.mpf("0.83787706640934548356")  # = log(2π) − 1 (semicircle's − 1/2)
        assert abs(right - (mpmath.log(2 * mpmath.pi) - 1)) < mpmath.mpf(10) ** -20
        assert abs(law.entropy(dps=20) - right) < mpmath.mpf(10) ** -19
        assert abs(law.expect(mpmath.log, dps=20) + 1) < mpmath.mpf(10) ** -19


def test_log_singularity_at_the_soft_end():
    """Second instance: E[log(4 − X)] under MP(1), a log singularity at the square-root edge 4;
    right value 1 (tanh-sinh at 40 digits gives 1 − 9e-23)."""
    law = MarchenkoPastur(1)
    with mpmath.workdps(30):
        assert abs(law.expect(lambda x: mpmath.log(4 - x), dps=20) - 1) < mpmath.mpf(10) ** -19
