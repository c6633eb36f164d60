"""The mass self-check gates every float64 route that reads the tables, and keeps its verdict."""
import pytest

from freeattn.attention import attention_law


def _law_with_a_lost_component():
    law = attention_law(1.0, 1.0, 2)
    # as if a component were unresolved at float64 scales: the intervals carry 1 - 1e-6
    law.__dict__["_quick_interval_masses"] = [1.0 - 1e-6]
    return law


@pytest.mark.parametrize("route", ["support", "pdf", "cdf", "ppf"])
def test_every_route_refuses_and_keeps_refusing(route):
    law = _law_with_a_lost_component()
    call = {"support": lambda: law.support(), "pdf": lambda: law.pdf(1.0),
            "cdf": lambda: law.cdf(1.0), "ppf": lambda: law.ppf(0.5)}[route]
    for _ in range(2):
        with pytest.raises(ArithmeticError, match="carry mass 0.999999"):
            call()
    with pytest.raises(ArithmeticError):  # and the other routes too, whatever ran first
        law.support()


def test_a_resolved_law_passes_every_route():
    law = attention_law(1.0, 1.0, 2)
    assert law.cdf(law.support()[-1][1]) == pytest.approx(1.0, abs=1e-9)
    assert law.pdf(1.0) > 0 and 0 < law.ppf(0.5) < law.support()[-1][1]
