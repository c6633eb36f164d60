"""Attention models: θ₁, θ₂, c_β, ρ_t, the attention law ν_{∞,h}, the multi-head laws and the
layer description MHAConfig (widths, β, K/V sharing) shared by the laws and the simulations."""
from .config import (BETA_LAW_RANGE, BETA_MODEL_RANGE, GAMMA_RANGE, MAX_HEADS, PRESETS,
                     SHARINGS, MHAConfig)
from .multi_head import (head_average_law, mha_output_law, output_law_from_weights,
                         output_outlier, sigma_vo, values_law)
from .tied import kv_law, kv_values_law
from .partial_kv import partial_kv_jump_law, partial_kv_output_law, partial_kv_values_law
from .single_head import attention_law, c_beta, rho_law, theta1, theta2

__all__ = ["attention_law", "rho_law", "theta1", "theta2", "c_beta", "head_average_law",
           "values_law", "mha_output_law", "output_outlier", "sigma_vo", "output_law_from_weights",
           "kv_law", "kv_values_law", "partial_kv_jump_law", "partial_kv_values_law",
           "partial_kv_output_law", "MHAConfig", "PRESETS",
           "SHARINGS", "BETA_LAW_RANGE", "BETA_MODEL_RANGE", "GAMMA_RANGE", "MAX_HEADS"]
from .residual import residual_law, residual_outlier  # noqa: E402,F401
