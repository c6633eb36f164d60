"""Attention models: θ₁, θ₂, c_β, ρ_t, the attention law ν_{∞,h}, the multi-head laws and the
layer description MHAConfig (widths, β, K/V sharing) shared by the laws and the simulations.

Import order (each file imports only lower floors and the files above it): domains (the
parameters, declared once) → _constructions, _jump_law (the exact constructions, unvalidated)
→ single_head, multi_head, tied, partial_kv (one family each, validated at the public entry;
they never call each other) → config (MHAConfig, presets, the sharing/ρ dispatch).
"""
from .domains import (BETA_LAW_RANGE, BETA_MODEL_RANGE, GAMMA_RANGE, MAX_HEADS, RHO_RANGE,
                      SHARINGS)
from .single_head import attention_law, c_beta, rho_law, theta1, theta2
from .multi_head import (head_average_law, mha_output_law, output_law_from_weights,
                         output_outlier, sigma_vo, values_law)
from .tied import kv_law, kv_values_law
from .partial_kv import partial_kv_jump_law, partial_kv_output_law, partial_kv_values_law
from .config import PRESETS, MHAConfig
from .residual import residual_law, residual_outlier

__all__ = ["attention_law", "rho_law", "theta1", "theta2", "c_beta", "head_average_law",
           "values_law", "mha_output_law", "output_outlier", "sigma_vo", "output_law_from_weights",
           "kv_law", "kv_values_law", "partial_kv_jump_law", "partial_kv_values_law",
           "partial_kv_output_law", "MHAConfig", "PRESETS",
           "SHARINGS", "BETA_LAW_RANGE", "BETA_MODEL_RANGE", "GAMMA_RANGE", "MAX_HEADS",
           "RHO_RANGE", "residual_law", "residual_outlier"]
