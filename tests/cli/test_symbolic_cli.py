"""`freeattn equation|moments|edges attention`."""
import mpmath
from click.testing import CliRunner

from freeattn.cli import main

ARGS = ["attention", "--beta", "1", "--gamma-k", "0.1"]


def run(*args):
    res = CliRunner().invoke(main, list(args))
    return res.exit_code, res.output


def test_equation_values_symbolic_and_latex():
    code, out = run("equation", *ARGS, "--heads", "2")
    assert code == 0, out
    assert "P(G, z)" in out and "4 in G, 2 in z" in out and "y_" not in out
    code, out = run("equation", *ARGS, "--heads", "2", "--symbolic")
    assert code == 0 and "theta_1" in out and "gamma_K" in out and "h = 2" in out
    code, out = run("equation", *ARGS, "--symbolic", "--latex")
    assert code == 0 and out.strip().endswith("= 0") and "\\theta_{2}" in out


def test_moments_symbolic_at_40_digits():
    code, out = run("moments", "attention", "--beta", "1", "--gamma-k", "1", "--order", "2",
                    "--symbolic", "--dps", "40")
    assert code == 0, out
    lines = out.splitlines()
    # m1 = θ₁ = e − 1 printed with 40 significant digits, not 15
    with mpmath.workdps(50):
        ref = mpmath.nstr(mpmath.e - 1, 40)
    assert any(ln.strip() == f"= {ref}" for ln in lines), out
    assert "m_2 = (gamma_K*h*theta_1**2" in out


def test_edges_both_routes_agree_at_40_digits():
    code, out = run("edges", *ARGS, "--dps", "40", "--method", "both")
    assert code == 0, out
    diff = float(out.split("largest difference:")[1].split()[0])
    assert diff < 1e-39
    assert "[4.550741836442313763611975695775666679138, 23.35423611021923647703446875071198292308]" in out


def test_bad_parameter_names_its_flag():
    code, out = run("edges", "attention", "--beta", "9", "--gamma-k", "1")
    assert code == 2 and "--beta" in out


def test_edges_series_in_inverse_gamma_k():
    code, out = run("edges", "attention", "--beta", "1", "--gamma-k", "2", "--heads", "4",
                    "--series", "gamma_k", "--order", "1")
    assert code == 0, out
    assert "right edge series: theta_2**2*(sqrt(h) + 1)**2/(gamma_K*sqrt(h)*theta_1)" in out
