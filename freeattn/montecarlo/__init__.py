"""Monte Carlo checker: true finite softmax attention vs the Gaussian model vs a limit law.

Samplers draw the finite softmax model and its finite Gaussian equivalent with the same
weights (Hayase & Karakida 2026, eqs. (3.2)–(3.3)); metrics compare eigenvalue samples with laws and with
each other (Hayase & Karakida 2026, App. D); :func:`check` returns a verdict; sweeps show finite-size rates and
the linearization threshold; :mod:`.chain` walks the proof's chain of models (Table 1) and
:mod:`.uncentered` checks Corollary C.3 for the uncentered attention matrix.
"""
from .chain import chain_draw, chain_matrices, chain_model
from .chain_sweep import ChainResult, chain_rates, fit_slope
from .check import CheckResult, Comparison, check, compare_draws
from .metrics import (
    MomentInterval,
    density_histogram,
    drop_top,
    fit_power_law,
    ks_distance,
    ks_two_sample,
    law_quantiles,
    moment_intervals,
    rel_w1,
    rel_w1_two_sample,
    t_interval,
)
from .runner import default_workers, run_draws
from .samplers import (
    BETA_MODEL_RANGE,
    KINDS,
    AttentionModel,
    Draw,
    available_memory,
    check_memory,
    draw_seed,
    sample,
    softmax_rows,
    theta1,
    theta2,
)
from .uncentered import UncenteredCheck, uncentered_check
from .sweep import (
    LinearizationResult,
    SweepResult,
    finite_size_sweep,
    linearization_grid,
)

__all__ = [
    "AttentionModel", "Draw", "KINDS", "BETA_MODEL_RANGE", "available_memory", "check_memory",
    "sample", "softmax_rows", "draw_seed", "theta1", "theta2", "run_draws", "default_workers",
    "check", "compare_draws", "CheckResult", "Comparison", "ks_distance", "ks_two_sample",
    "rel_w1", "rel_w1_two_sample", "law_quantiles", "drop_top", "MomentInterval", "t_interval",
    "moment_intervals", "density_histogram", "fit_power_law", "finite_size_sweep",
    "linearization_grid", "SweepResult", "LinearizationResult", "chain_model", "chain_matrices",
    "chain_draw", "chain_rates", "ChainResult", "fit_slope", "uncentered_check",
    "UncenteredCheck",
]
