"""Bad input across the public functions of attention/ and readout/ (issue 21, item 20).

Each call must raise a :class:`ParameterError` (a :class:`ParameterTypeError` for a wrong
type) whose ``.param`` names the bad parameter, within a time bound: never an
AttributeError, a raw TypeError, NaN or a hang.  The CLI side is in tests/cli/test_bad_flags.py.
"""
import contextlib
import math
import signal

import numpy as np
import pytest

from freeattn._validation import ParameterError
from freeattn.attention import (MHAConfig, attention_law, c_beta, head_average_law, kv_law,
                                kv_values_law, mha_output_law, output_law_from_weights,
                                partial_kv_jump_law, partial_kv_output_law,
                                partial_kv_values_law, rho_law, theta1, theta2, values_law)
from freeattn.attention.config import width_from_ratio
from freeattn.attention.domains import check_rho, check_sharing
from freeattn.attention.partial_kv import partial_kv_mean
from freeattn.attention.tied import kv_polynomial, tied_output_law
from freeattn.readout import (IndependentKV, TiedKV, arrival_time, dof, dof_derivative, expect,
                              loss_laplace_transform, mean_one, readout_normalisation,
                              ridge_error, training_loss)

#: seconds a refusal may take (it must come before any work)
TIME_BOUND = 10

NAN, INF = float("nan"), float("inf")
#: a real parameter in a bounded interval
REAL_BAD = [None, "1", b"1", True, NAN, INF, -INF, -1.0, 1e300, 1j, [1.0], object()]
#: an optional real in [0, 1] (None is the default)
RHO_BAD = ["0.5", True, NAN, INF, -0.1, 1.5, 1j, [0.5]]
#: a positive real without an upper bound
POS_BAD = [None, "1", True, NAN, INF, -1.0, 0.0, 1j, [1.0]]
#: a penalty λ > 0 (arrays and complex λ off (−∞, 0] are valid)
LAM_BAD = [None, "1", True, NAN, INF, -1.0, 0.0, -2 + 0j, ["1"]]
#: an integer in [1, MAX_HEADS]
HEADS_BAD = [None, "2", True, 0, -1, 1.5, 10**6, NAN, [2], 2j]
#: an optional positive integer
KV_BAD = ["2", True, 0, -1, 1.5, NAN, [2]]
LAW_BAD = [None, "law", 1.0, [1.0], np.ones(3)]
FLAG_BAD = ["no", "yes", 0, 1, None, "True"]

_NU = IndependentKV(1.0, 1.0, 64, 1.0, 2.0)


def _law():
    return attention_law(1.0, 1.0)


#: (function, good keyword arguments, {parameter: bad values}[, {parameter: name it reports}])
#: (width_from_ratio reports the ratio by its own name, MHAConfig.preset its name as 'preset')
CASES = [
    (attention_law, dict(beta=1.0, gamma_k=1.0, heads=1),
     dict(beta=REAL_BAD + [0.001, 5.0], gamma_k=REAL_BAD + [1e-4], heads=HEADS_BAD)),
    (rho_law, dict(beta=1.0, t=1.0), dict(beta=POS_BAD, t=POS_BAD)),
    (theta1, dict(beta=1.0), dict(beta=POS_BAD)),
    (theta2, dict(beta=1.0), dict(beta=POS_BAD)),
    (c_beta, dict(beta=1.0), dict(beta=POS_BAD)),
    (head_average_law, dict(beta=1.0, gamma_k=1.0, heads=2, kv_heads=None),
     dict(beta=REAL_BAD, gamma_k=REAL_BAD, heads=HEADS_BAD, kv_heads=KV_BAD + [3])),
    (head_average_law, dict(beta=1.0, gamma_k=1.0, heads=2, shared_key=False),
     dict(shared_key=FLAG_BAD)),
    (values_law, dict(beta=1.0, heads=2, gamma_k=1.0, gamma_v=1.0),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD, gamma_v=REAL_BAD)),
    (mha_output_law, dict(beta=1.0, heads=2, gamma_k=1.0, gamma_v=1.0, gamma_o=1.0),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD, gamma_v=REAL_BAD,
          gamma_o=REAL_BAD, sharing=[None, "tied", 1, True, "GQA"], kv_heads=KV_BAD + [3],
          rho=RHO_BAD)),
    (kv_law, dict(beta=1.0, heads=2, gamma_k=1.0),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD)),
    (kv_polynomial, dict(beta=1.0, heads=2, gamma_k=1.0),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD)),
    (kv_values_law, dict(beta=1.0, heads=2, gamma_k=1.0),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD)),
    (tied_output_law, dict(beta=1.0, heads=2, gamma_k=1.0, gamma_o=1.0),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD, gamma_o=REAL_BAD)),
    (partial_kv_jump_law, dict(beta=1.0, heads=2, gamma_k=1.0, rho=0.5),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD, rho=RHO_BAD + [None])),
    (partial_kv_values_law, dict(beta=1.0, heads=2, gamma_k=1.0, rho=0.5),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD, rho=RHO_BAD + [None])),
    (partial_kv_output_law, dict(beta=1.0, heads=2, gamma_k=1.0, gamma_o=1.0, rho=0.5),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD, gamma_o=REAL_BAD,
          rho=RHO_BAD + [None])),
    (partial_kv_mean, dict(beta=1.0, heads=2, gamma_k=1.0, gamma_o=1.0, rho=0.5),
     dict(beta=REAL_BAD, heads=HEADS_BAD, gamma_k=REAL_BAD, gamma_o=REAL_BAD,
          rho=RHO_BAD + [None])),
    (check_rho, dict(rho=0.5), dict(rho=RHO_BAD + [None])),
    (check_sharing, dict(sharing="gqa", heads=4, kv_heads=2),
     dict(sharing=[None, "x", 3], kv_heads=KV_BAD + [3, None])),
    (width_from_ratio, dict(name="gamma_k", ratio=0.3, n=100, per=1),
     dict(ratio=POS_BAD + [0.305]), dict(ratio="gamma_k")),
    (output_law_from_weights, dict(sigma_vo_eigenvalues=[1.0, 2.0], gamma_o=1.0),
     dict(gamma_o=POS_BAD, sigma_vo_eigenvalues=[[-1.0, 1.0]])),
    (lambda **kw: MHAConfig(**kw), dict(n=16, d_k=4, heads=2, beta=1.0),
     dict(n=[None, "16", True, 1, 0, 2.5, NAN], d_k=[None, "4", 0, 1.5, True],
          heads=[None, "2", 0, 1.5, True], beta=REAL_BAD + [30.0, 1e-9],
          rho=RHO_BAD, kv_heads=KV_BAD + [3], d=[0, "16", 8, 1.5, True],
          d_v=[0, "4", 1.5, True], d_o=[0, "4", 1.5, True], sharing=[None, "x", 1])),
    (lambda **kw: MHAConfig.from_ratios(**kw), dict(n=100, gamma_k=0.5, heads=2),
     dict(n=[None, "100", 1, 2.5], gamma_k=POS_BAD + [0.513], heads=[None, "2", 0, 1.5],
          gamma_v=POS_BAD[1:] + [0.513], gamma_o=POS_BAD[1:] + [0.0051], rtol=[-1.0, NAN, "0"])),
    (lambda **kw: MHAConfig.preset(**kw), dict(name="bert-base"),
     dict(name=[None, "bert", 1, "BERT-BASE"]), dict(name="preset")),
    (lambda kind: MHAConfig(n=16, d_k=4).law(kind), dict(kind="mha"),
     dict(kind=[None, "layer", 1, "MHA"])),
    # readout
    (dof, dict(law=_NU, lam=1.0, dps=None),
     dict(law=LAW_BAD, lam=LAM_BAD, dps=[0, -1, 2.5, "30"])),
    (dof_derivative, dict(law=_NU, lam=1.0), dict(law=LAW_BAD, lam=LAM_BAD)),
    (ridge_error, dict(law=_NU, lam=1.0, sigma2=0.1, gamma_o=2.0),
     dict(law=LAW_BAD, lam=LAM_BAD, sigma2=[None, "0.1", NAN, -1.0, INF],
          gamma_o=POS_BAD, method=["x", 1, None])),
    (training_loss, dict(law=_NU, t=1.0), dict(law=LAW_BAD, t=[None, "1", NAN, -1.0, 1j],
                                              method=["x", 1, None], dps=[0, -1, 2.5])),
    (arrival_time, dict(law=_NU, level=0.1),
     dict(law=LAW_BAD, level=[None, "0.1", NAN, -0.1, 0.0, 1.0, 2.0],
          tol=[None, "1e-10", NAN, -1.0, 0.0], method=["x", 1])),
    (loss_laplace_transform, dict(law=_NU, s=1.0), dict(law=LAW_BAD)),
    (expect, dict(law=_law(), f=np.cos), dict(law=LAW_BAD + [_NU], f=[None, 1.0, "cos"],
                                               nodes=[0, -1, 1.5, "400"],
                                               tol=[NAN, -1.0, "1e-11"])),
    (IndependentKV, dict(beta=1.0, gamma_k=1.0, heads=64, gamma_v=1.0, gamma_o=2.0),
     dict(beta=REAL_BAD, gamma_k=REAL_BAD, heads=[None, "64", 0, 0.5, 1e5, NAN, True],
          gamma_v=REAL_BAD[1:], gamma_o=REAL_BAD[1:])),
    (TiedKV, dict(beta=1.0, gamma_k=1.0, heads=64, gamma_o=2.0),
     dict(beta=REAL_BAD, gamma_k=REAL_BAD, heads=[None, "64", 0, 0.5, 1e5, NAN, True],
          gamma_o=REAL_BAD[1:])),
    (readout_normalisation, dict(beta=1.0, gamma_k=0.5, heads=4, gamma_o=1.0, tied=False),
     dict(beta=REAL_BAD, gamma_k=POS_BAD, heads=[None, "4", 0, NAN, True],
          gamma_o=POS_BAD, tied=FLAG_BAD, rho=RHO_BAD)),
    (mean_one, dict(law=_law(), m=None), dict(law=LAW_BAD[:2], m=["1", NAN, -1.0, 0.0, True])),
]

FLAT = [(f"{getattr(fn, '__name__', 'call')}[{i}]-{param}-{j}", fn, good, param, bad,
         (case[3] if len(case) > 3 else {}).get(param, param))
        for i, case in enumerate(CASES) for fn, good, table in [case[:3]]
        for param, values in table.items()
        for j, bad in enumerate(values)]


@contextlib.contextmanager
def time_bound(seconds):
    def alarm(signum, frame):
        raise TimeoutError(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("cid, fn, good, param, bad, reported", FLAT, ids=[c[0] for c in FLAT])
def test_bad_input_names_the_parameter(cid, fn, good, param, bad, reported):
    kwargs = dict(good, **{param: bad})
    with time_bound(TIME_BOUND):
        try:
            result = fn(**kwargs)
        except ParameterError as exc:
            assert exc.param == reported, f"{cid}: .param = {exc.param!r} ({exc})"
            assert reported in str(exc), str(exc)
            return
    raise AssertionError(f"{cid}: {bad!r} accepted, returned {result!r}"[:300])


def test_the_good_arguments_are_good():
    """Each row's good arguments pass (so that a refusal above is the bad value's doing)."""
    for fn, good, *_ in CASES:
        with time_bound(TIME_BOUND):
            out = fn(**good)
        assert out is not None or fn in (check_rho,)
        if isinstance(out, float):
            assert math.isfinite(out)
