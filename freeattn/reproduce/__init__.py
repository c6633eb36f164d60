"""Reproductions of published tables and figures, one module per table or figure.

Each module computes its numbers from the library (laws, readout predictions, Monte Carlo);
nothing is typed in except the published values it is compared with, labelled as such.
"""
