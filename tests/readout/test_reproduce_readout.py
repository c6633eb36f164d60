"""The paper's readout numbers, recomputed (Hayase & Karakida 2026, §D.4, §D.5, §D.6)."""
import pytest

from freeattn.reproduce import fig2d, fig3a


def test_fig2d_crossover_matches_paper_digits():
    bc = fig2d.crossover()
    assert f"{bc:.3f}" == f"{fig2d.PUBLISHED['beta_c']:.3f}"  # 0.559
    assert fig2d.ratio(0.4) > 1 > fig2d.ratio(1.0)


def test_fig3a_arrival_times_match_paper_digits():
    th = fig3a
    assert f"{th.arrival_time(th.law(1.0), 0.1):.2f}" == "41.22"
    g = th.gamma_fixed_count(64)
    assert f"{th.arrival_time(th.law(g), 0.1):.2f}" == "7.80"
    w = th.rounded_width(1, 4096)
    assert w == 106
    assert f"{th.arrival_time(th.law(64 * w / 4096), 0.1):.2f}" == "7.76"
    assert [th.rounded_width(k, 4096) for k in th.KV_HEADS] == th.PUBLISHED["rounded_widths"]


@pytest.mark.slow
def test_fig2d_monte_carlo_reduced():
    res = fig2d.compute(mc="reduced", draws=10, points=11)
    assert res["monte_carlo"]["max_relative_difference"] < 0.15
