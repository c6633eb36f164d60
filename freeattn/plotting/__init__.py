"""Figures (matplotlib is imported only when a figure is drawn).

``setup`` (file backend, save), ``density`` (a law's density, every support component),
``check`` (Monte Carlo checks, finite-size sweeps, the chain of Table 1), ``figures`` (the one
errorbar/legend tail of the reproduced figures).
"""
