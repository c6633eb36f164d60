"""freeattn.sweep: a grid equals its points built one by one, through every runner; bad grids
raise naming the parameter; the CLI writes CSV/JSON/PNG."""
import csv
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from freeattn import attention_law, sweep
from freeattn._validation import ParameterError, ParameterTypeError
from freeattn.cli import main
from freeattn.readout import ridge_error

BETAS = [0.6, 1.1]
GAMMAS = [0.7, 1.5]
X = np.linspace(0.05, 6.0, 9)


@pytest.fixture(scope="module")
def serial():
    return sweep(attention_law, beta=BETAS, gamma_k=GAMMAS, moments=4, x=X, cdf=True,
                 progress=False)


def test_grid_equals_points(serial):
    assert serial.shape == (2, 2)
    assert serial.moments.shape == (2, 2, 4) and serial.pdf.shape == (2, 2, X.size)
    for i, b in enumerate(BETAS):
        for j, g in enumerate(GAMMAS):
            law = attention_law(b, g)
            sup = law.support()
            assert serial.left_edge[i, j] == sup[0][0] and serial.right_edge[i, j] == sup[-1][1]
            assert serial.intervals[i, j] == len(sup)
            assert serial.atom_mass[i, j] == math.fsum(m for _, m in law.atoms())
            assert list(serial.moments[i, j]) == [law.moment(k) for k in range(1, 5)]
            assert np.array_equal(serial.pdf[i, j], law.pdf(X))
            assert np.array_equal(serial.cdf[i, j], law.cdf(X))
    # m1 = θ₁ = e^{β²} − 1 (eq. (C.11)): an independent value
    np.testing.assert_allclose(serial.moments[:, 0, 0], np.expm1(np.square(BETAS)), rtol=1e-14)


def test_process_route_equals_serial(serial):
    par = sweep(attention_law, beta=BETAS, gamma_k=GAMMAS, moments=4, x=X, cdf=True,
                workers=2, chunk=1, progress=False)
    for name in ("left_edge", "right_edge", "atom_mass", "moments", "pdf", "cdf"):
        assert np.array_equal(getattr(par, name), getattr(serial, name)), name


def test_dask_routes_equal_process_route(serial):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        via_client = sweep(attention_law, beta=BETAS, gamma_k=GAMMAS, moments=4, x=X, cdf=True,
                           scheduler=client, chunk=2, progress=False)
    via_sync = sweep(attention_law, beta=BETAS, gamma_k=GAMMAS, moments=4, x=X, cdf=True,
                     scheduler="synchronous", progress=False)
    for res in (via_client, via_sync):
        for name in ("left_edge", "right_edge", "moments", "pdf", "cdf"):
            assert np.array_equal(getattr(res, name), getattr(serial, name)), name


def test_readout_quantities_equal_direct_calls():
    res = sweep(attention_law, beta=[1.0], gamma_k=[1.0], moments=1,
                ridge={"lam": 0.01, "sigma2": 0.1, "gamma_o": 1.5}, progress=False)
    law = attention_law(1.0, 1.0)
    assert res.ridge_error[0, 0] == float(ridge_error(law, 0.01, 0.1, 1.5))


def test_unpicklable_build_with_workers():
    with pytest.raises(ParameterError) as info:
        sweep(lambda beta: attention_law(beta, 1.0), beta=[1.0, 1.2], workers=2, progress=False)
    assert info.value.param == "build"


def test_recorded_errors():
    res = sweep(attention_law, beta=[1.0, 9.0], gamma_k=[1.0], moments=2, errors="record",
                progress=False)
    assert list(res.errors) == [(1, 0)] and "beta" in res.errors[(1, 0)]
    assert math.isnan(res.right_edge[1, 0]) and res.intervals[1, 0] == -1
    assert res.right_edge[0, 0] == attention_law(1.0, 1.0).support()[-1][1]
    with pytest.raises(ParameterError) as info:
        sweep(attention_law, beta=[1.0, 9.0], gamma_k=[1.0], progress=False)
    assert info.value.param == "beta"


@pytest.mark.parametrize("kwargs,param", [
    ({}, "grid"),
    ({"beta": []}, "beta"),
    ({"beta": [[1.0, 2.0]]}, "beta"),
    ({"beta": [1.0, float("nan")]}, "beta"),
    ({"beta": [1.0, float("inf")]}, "beta"),
    ({"temperature": [1.0]}, "temperature"),
    ({"beta": [1.0], "gamma_k": [1.0], "moments": -1}, "moments"),
    ({"beta": [1.0], "gamma_k": [1.0], "workers": 0}, "workers"),
    ({"beta": [1.0], "gamma_k": [1.0], "chunk": 0}, "chunk"),
    ({"beta": [1.0], "gamma_k": [1.0], "x": [[0.0, 1.0]]}, "x"),
    ({"beta": [1.0], "gamma_k": [1.0], "x": [0.0, float("nan")]}, "x"),
    ({"beta": [1.0], "gamma_k": [1.0], "errors": "ignore"}, "errors"),
    ({"beta": [1.0], "gamma_k": [1.0], "ridge": {"lam": 0.1}}, "ridge"),
    ({"beta": [1.0], "gamma_k": [1.0], "ridge": {"lam": 0.1, "gamma_o": "gamma_q"}}, "ridge"),
    ({"beta": [1.0], "gamma_k": [1.0], "arrival_level": -0.1}, "arrival_level"),
])
def test_bad_grids_raise_naming_the_parameter(kwargs, param):
    with pytest.raises(ParameterError) as info:
        sweep(attention_law, progress=False, **kwargs)
    assert info.value.param == param


@pytest.mark.parametrize("kwargs,param", [({"beta": "1,2"}, "beta"), ({"beta": [True]}, "beta")])
def test_bad_axis_types(kwargs, param):
    with pytest.raises(ParameterTypeError) as info:
        sweep(attention_law, gamma_k=[1.0], progress=False, **kwargs)
    assert info.value.param == param
    with pytest.raises(ParameterTypeError) as info:
        sweep("attention_law", beta=[1.0])
    assert info.value.param == "build"


def test_outputs(tmp_path, serial):
    serial.to_csv(tmp_path / "g.csv")
    rows = list(csv.DictReader(open(tmp_path / "g.csv")))
    assert len(rows) == 4 and float(rows[1]["gamma_k"]) == GAMMAS[1]
    assert float(rows[1]["right_edge"]) == serial.right_edge[0, 1]
    assert float(rows[3]["m2"]) == serial.moments[1, 1, 1]
    serial.to_json(tmp_path / "g.json")
    data = json.load(open(tmp_path / "g.json"))
    assert data["shape"] == [2, 2] and data["pdf"][1][0] == list(serial.pdf[1, 0])
    ax = serial.plot("m2", tmp_path / "g.png")
    assert (tmp_path / "g.png").stat().st_size > 1000 and ax is not None
    with pytest.raises(ParameterError) as info:
        serial.plot("m9")
    assert info.value.param == "quantity"


def test_cli(tmp_path):
    runner = CliRunner()
    out, png = tmp_path / "s.csv", tmp_path / "s.png"
    r = runner.invoke(main, ["sweep", "attention", "--beta", "0.6,1.1", "--gamma-k", "0.7",
                             "--moments", "2", "--out", str(out), "--plot", str(png)])
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(open(out)))
    assert [float(r_["right_edge"]) for r_ in rows] == [attention_law(b, 0.7).support()[-1][1] for b in BETAS]
    assert png.stat().st_size > 1000
    r = runner.invoke(main, ["sweep", "attention", "--beta", "0.6:x", "--gamma-k", "1"])
    assert r.exit_code == 2 and "--beta" in r.output
    r = runner.invoke(main, ["sweep", "attention", "--beta", "9", "--gamma-k", "1"])
    assert r.exit_code == 2 and "--beta" in r.output
    r = runner.invoke(main, ["sweep", "attention", "--beta", "1", "--gamma-k", "1", "--heads", "1.5"])
    assert r.exit_code == 2 and "--heads" in r.output


def test_cli_json_is_the_out_json_with_the_atoms(tmp_path):
    """The --out convention: --json prints what --out FILE.json writes (atoms and their
    mass included); --out FILE.png is the figure."""
    runner = CliRunner()
    args = ["sweep", "attention", "--beta", "0.6,1.1", "--gamma-k", "0.5", "--moments", "2"]
    path, png = tmp_path / "s.json", tmp_path / "s.png"
    r = runner.invoke(main, args + ["--json", "--out", str(path)])
    assert r.exit_code == 0, r.output
    printed = json.loads(r.output)
    assert json.loads(path.read_text()) == printed
    assert printed["atoms"] == [[list(a) for a in attention_law(b, 0.5).atoms()]
                                for b in (0.6, 1.1)]
    assert printed["atom_mass"] == [[[0.0]], [[0.0]]] and printed["axes"]["beta"] == [0.6, 1.1]
    r = runner.invoke(main, args + ["--out", str(png)])
    assert r.exit_code == 0, r.output
    assert png.read_bytes()[:4] == b"\x89PNG"

