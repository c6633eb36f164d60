"""Property suite over every family of laws (issue 21): seeded random points (``families``)
× property checks (``checks``), each with its measured error in the failure message.

Always on: points ``0 .. quick-1`` of each family with the cheap checks.  ``-m slow``: points
``quick .. quick+slow-1`` with every check.  Reproduce one point (from the repository root)::

    python -m pytest -q "tests/properties/test_properties.py::test_property[attention-17-mass]"
    python -m pytest -q -m slow "tests/properties/test_properties.py::test_property_slow[attention-900-tails]"

or in Python (``sys.path`` holding tests/properties): ``families.point("attention-17").build()``.
Known failures are strict xfails listed in ``known_failures.KNOWN`` (docs/reliability.md).
"""
import pytest

from checks import CHECKS, CallTimeout, BUILD_S, CHECK_S, applicable, bounded, prepare
from families import point, quick_ids, slow_ids
from known_failures import KNOWN

_last = {}
QUICK = set(quick_ids())


def law_of(pt):
    """Build the point's law once (the checks of one point run one after another)."""
    if _last.get("id") != pt.id:
        _last.clear()
        try:
            with bounded(BUILD_S, f"building {pt.call} (with support() and atoms())"):
                law = pt.build()
                law.support()
                law.atoms()
            _last.update(id=pt.id, law=law, error=None)
        except CallTimeout as exc:
            _last.update(id=pt.id, law=None, error=exc)
        except Exception as exc:  # noqa: BLE001 - a construction error is the finding
            _last.update(id=pt.id, law=None, error=exc)
    if _last["error"] is not None:
        exc = _last["error"]
        raise AssertionError(f"{pt.id}: {pt.call}\nconstruction failed: "
                             f"{type(exc).__name__}: {str(exc)[:300]}")
    return _last["law"]


def params(ids, always_on_only, extra=()):
    """(point, check) pairs; a known timeout (kind N15) of an always-on point runs with the
    slow suite instead (it would spend its whole time bound in every default run)."""
    out = []
    for pid, name in extra:
        out.append(pytest.param(pid, name, id=f"{pid}-{name}",
                                marks=[pytest.mark.xfail(strict=True, reason=KNOWN[(pid, name)]),
                                       pytest.mark.xdist_group(pid)]))
    for pid in ids:
        pt = point(pid)
        for name, (_, _, always) in CHECKS.items():
            if always_on_only and not always:
                continue
            if not applicable(name, pt):
                continue
            # a point's checks share its law and its reference quadrature: one worker runs them
            # in a row (pytest-xdist ``--dist loadgroup``)
            marks = [pytest.mark.xdist_group(pid)]
            reason = KNOWN.get((pid, name))
            if always_on_only and reason and reason.startswith("N15"):
                continue
            if reason:
                marks.append(pytest.mark.xfail(strict=True, reason=reason))
            out.append(pytest.param(pid, name, id=f"{pid}-{name}", marks=marks))
    return out


def run_check(pid, name):
    pt = point(pid)
    law = law_of(pt)
    fn, tol, _ = CHECKS[name]
    try:
        prepare(law, name, pt)
        with bounded(CHECK_S, f"check {name} on {pt.call}"):
            err, detail = fn(law, pt)
    except CallTimeout:
        raise
    except AssertionError as exc:
        raise AssertionError(f"{pt.id}: {pt.call}\n{name}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 - a raw exception inside the domain is a failure
        raise AssertionError(f"{pt.id}: {pt.call}\n{name} raised {type(exc).__name__}: "
                             f"{str(exc)[:300]}") from exc
    assert err <= tol, (f"{pt.id}: {pt.call}\n{name}: measured error {err:.3g} > tolerance "
                        f"{tol:g}; {detail}")


@pytest.mark.parametrize("pid, name", params(quick_ids(), True))
def test_property(pid, name):
    run_check(pid, name)


def pytest_generate_tests(metafunc):
    """The slow points are generated only when the run selects slow tests (10⁵ items)."""
    if metafunc.function is test_property_slow:
        expr = metafunc.config.getoption("markexpr") or ""
        wanted = "slow" in expr and "not slow" not in expr
        timeouts = [k for k, r in KNOWN.items() if r.startswith("N15") and k[0] in QUICK]
        metafunc.parametrize("pid, name", params(slow_ids(), False, timeouts) if wanted else [])


@pytest.mark.slow
def test_property_slow(pid, name):
    run_check(pid, name)
