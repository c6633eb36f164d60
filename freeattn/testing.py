"""Helpers for users' own test suites (pytest or plain assert-based)."""
from __future__ import annotations
from .montecarlo import check

__all__ = ["assert_spectrum_matches"]


def assert_spectrum_matches(law, model, *, draws=4, seed=0, ks_tol=0.02, rel_w1_tol=0.05,
                            target="both", exclude_top=0, workers=1, **kwargs):
    """Assert that simulated spectra of ``model`` match ``law`` within tolerances.

    Runs :func:`freeattn.montecarlo.check` and raises AssertionError with the full summary
    (metrics, moment intervals, top singular values) when the check fails.

    Parameters
    ----------
    law : law object
        Predicted limit law of the eigenvalues of ``M Mᵀ`` (see
        :mod:`freeattn.montecarlo.samplers` for M of each model kind).
    model : freeattn.montecarlo.AttentionModel
    draws, seed : int
        Fixed seed by default so that a regression test is deterministic.
    ks_tol, rel_w1_tol : float
        Tolerances on the mean KS distance and relative W₁ over draws.
    target : {'softmax', 'gaussian', 'both'}
    exclude_top : int
        Outliers removed before comparing.
    workers : int, default 1
        In-process by default (test suites usually parallelise themselves).
    **kwargs
        Passed on to :func:`freeattn.montecarlo.check`.

    Returns
    -------
    CheckResult
        When the check passes.

    Raises
    ------
    AssertionError
        If the check fails.
    ValueError
        For invalid parameters.

    Examples
    --------
    >>> from freeattn.attention import attention_law              # doctest: +SKIP
    >>> from freeattn.montecarlo import AttentionModel            # doctest: +SKIP
    >>> model = AttentionModel.from_ratios(1.0, 400, gamma_k=1.0) # doctest: +SKIP
    >>> assert_spectrum_matches(attention_law(1.0, 1.0), model, ks_tol=0.04)  # doctest: +SKIP
    """
    result = check(law, model, draws=draws, seed=seed, ks_tol=ks_tol, rel_w1_tol=rel_w1_tol,
                   target=target, exclude_top=exclude_top, workers=workers, **kwargs)
    if not result.passed:
        raise AssertionError("spectrum does not match the law:\n" + result.summary())
    return result
