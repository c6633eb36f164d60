"""Attention models: θ₁, θ₂, c_β, ρ_t and the attention law ν_{∞,h}."""
from .single_head import attention_law, c_beta, rho_law, theta1, theta2

__all__ = ["attention_law", "rho_law", "theta1", "theta2", "c_beta"]
