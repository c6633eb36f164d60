"""A parameter grid of laws in one call: edges, atoms, moments, pdf/cdf and readout quantities.

    >>> from freeattn import attention_law, sweep
    >>> grid = sweep(attention_law, beta=[0.5, 1.0], gamma_k=[1.0], moments=2, progress=False)
    >>> grid.shape, grid.right_edge.shape, grid.moments.shape
    ((2, 1), (2, 1), (2, 1, 2))

The grid is the Cartesian product of the keyword axes, in the order given; every point is the
law ``build(**point)`` (any callable returning a :class:`freeattn.laws.Law`), evaluated exactly
as one would by hand (``law.support()``, ``law.atoms()``, ``law.moment(k)``, ``law.pdf(x)``,
:func:`freeattn.readout.ridge_error`, :func:`freeattn.readout.arrival_time`), so a grid equals
its points built one by one (on the batch route, ``route=``, to ~1e-13: edges, atoms,
moments and pdf of many points of one algebraic structure evaluated together, each point
verified and otherwise evaluated by its law, ``LawGrid.fallback``).  Points run in order in this process (``workers=1``), over a pool
of processes (``workers=N``; the first point is built here first, so that forked workers
inherit the structure's eliminations), or through Dask when ``scheduler=`` is given.
"""
from __future__ import annotations

import csv
import itertools
import json
import math
from dataclasses import dataclass, field

import numpy as np

from .algebraic.batch import evaluate_laws, varying_parameters
from .algebraic.numeric import structure_key
from .laws.algebraic import AlgebraicLaw
from .plotting.setup import pyplot
from ._validation import ParameterError, ParameterTypeError, integer_at_least, positive

__all__ = ["sweep", "LawGrid"]

#: fewest points of one structure that the batch route evaluates together (fewer: one by one)
_BATCH_MIN_POINTS = 2
#: fewest grid points for which route="auto" takes the batch route (smaller grids go point by
#: point, where the grid equals its laws' own values bit for bit)
_BATCH_AUTO_MIN = 64
#: scalar quantities per point, in the order of the CSV columns
SCALARS = ("left_edge", "right_edge", "intervals", "atom_mass", "atoms_count")


# ------------------------------------------------------------------ inputs
def _axis(name, values):
    """One grid axis as a 1-d array of finite numbers (ints kept as ints)."""
    if isinstance(values, (str, bytes)):
        raise ParameterTypeError(name, f"grid axis {name} must be a sequence of numbers, not a string")
    arr = np.atleast_1d(np.asarray(values, dtype=object))
    if arr.ndim != 1:
        raise ParameterError(name, f"grid axis {name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise ParameterError(name, f"grid axis {name} is empty")
    out = []
    for v in arr:
        if isinstance(v, (bool, np.bool_, str, bytes)) or not isinstance(v, (int, float, np.number)):
            raise ParameterTypeError(name, f"grid axis {name} must hold real numbers, got {v!r}")
        if not math.isfinite(float(v)):
            raise ParameterError(name, f"grid axis {name} must hold finite numbers, got {v!r}")
        out.append(int(v) if isinstance(v, (int, np.integer)) else float(v))
    return out


def _check_build(build, names):
    if not callable(build):
        raise ParameterTypeError("build", f"build must be a callable returning a law, got {build!r}")
    import inspect

    try:
        sig = inspect.signature(build)
    except (TypeError, ValueError):  # a builtin without a signature: trust the caller
        return
    try:
        sig.bind_partial(**{n: None for n in names})
    except TypeError:
        params = [p for p in sig.parameters]
        bad = [n for n in names if n not in sig.parameters]
        raise ParameterError(bad[0] if bad else "build",
                             f"grid axis {bad[0] if bad else names} is not a parameter of "
                             f"{getattr(build, '__name__', build)} (its parameters: "
                             f"{', '.join(params)})") from None


def _check_picklable(build):
    import pickle

    try:
        pickle.dumps(build)
    except Exception as exc:  # noqa: BLE001 - any pickling failure means the same
        raise ParameterError("build", f"workers > 1 sends build to other processes by pickling, "
                                      f"which fails for {build!r} ({exc}): use a module-level "
                                      "function, or scheduler= (Dask pickles closures)") from None


def _x_grid(x):
    if x is None:
        return None
    arr = np.asarray(x, dtype=float)
    if arr.ndim != 1 or arr.size == 0:
        raise ParameterError("x", f"x must be a non-empty one-dimensional grid, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ParameterError("x", "x must hold finite numbers")
    return arr


@dataclass(frozen=True)
class _Spec:
    """What to compute at each point (picklable: it travels to the workers)."""

    moments: int
    x: np.ndarray | None
    cdf: bool
    ridge: dict | None
    arrival_level: float | None
    errors: str


def _resolve(value, point):
    """A readout argument: a number, or the name of a grid parameter."""
    return point[value] if isinstance(value, str) else value


def _evaluate(build, point, spec):
    """Everything of one grid point, as a dict of floats and arrays."""
    try:
        return _evaluate_law(build(**point), point, spec)
    except Exception as exc:  # noqa: BLE001 - recorded or re-raised below
        if spec.errors == "raise":
            raise
        return {"error": f"{type(exc).__name__}: {exc}"}


def _shape_entry(support, atoms, moments):
    """The scalar summary of one point (edges over support and atoms, counts, atom mass),
    its atoms and moments: shared by the points and the batch route."""
    support = [(float(a), float(b)) for a, b in support]
    atoms = [(float(a), float(m)) for a, m in atoms]
    return {
        "left_edge": min([a for a, _ in support] + [a for a, _ in atoms], default=math.nan),
        "right_edge": max([b for _, b in support] + [a for a, _ in atoms], default=math.nan),
        "intervals": len(support),
        "atom_mass": math.fsum(m for _, m in atoms),
        "atoms_count": len(atoms),
        "atoms": atoms,
        "moments": np.asarray(moments, dtype=float),
    }


def _evaluate_law(law, point, spec):
    """Everything of one grid point's law (exceptions propagate)."""
    out = _shape_entry(law.support(), law.atoms(),
                       [law.moment(k) for k in range(1, spec.moments + 1)])
    if spec.x is not None:
        out["pdf"] = np.asarray(law.pdf(spec.x), dtype=float)
        if spec.cdf:
            out["cdf"] = np.asarray(law.cdf(spec.x), dtype=float)
    if spec.ridge is not None:
        from .readout import ridge_error  # here: readout loads scipy.optimize, kept out of `import freeattn`

        r = spec.ridge
        out["ridge_error"] = float(ridge_error(law, _resolve(r["lam"], point),
                                               _resolve(r.get("sigma2", 0.0), point),
                                               _resolve(r["gamma_o"], point)))
    if spec.arrival_level is not None:
        from .readout import arrival_time

        out["arrival_time"] = float(arrival_time(law, spec.arrival_level))
    return out


def _evaluate_chunk(build, points, spec):
    return [_evaluate(build, p, spec) for p in points]


# ------------------------------------------------------------------ result
@dataclass
class LawGrid:
    """The quantities of a parameter grid, each an array of the grid's shape (+ trailing axes).

    Attributes
    ----------
    axes : dict
        Axis name → list of values, in the order of the grid's dimensions.
    shape : tuple of int
        ``tuple(len(v) for v in axes.values())``.
    left_edge, right_edge : ndarray of float, shape ``shape``
        Lowest and highest point of the support and the atoms.
    intervals, atoms_count : ndarray of int, shape ``shape``
        Number of support intervals and of atoms.
    atom_mass : ndarray of float, shape ``shape``
        Total mass of the atoms.
    atoms : ndarray of object, shape ``shape``
        Each point's list of (location, mass).
    moments : ndarray of float, shape ``shape + (K,)``
        m_1..m_K.
    x : ndarray or None
        The x-grid of ``pdf``/``cdf``.
    pdf, cdf : ndarray of float, shape ``shape + (len(x),)``, or None
    ridge_error, arrival_time : ndarray of float, shape ``shape``, or None
    errors : dict
        Grid index → message of the points that raised (only with ``errors="record"``; their
        entries are NaN, counts −1).
    fallback : ndarray of bool, shape ``shape``, or None
        Batch route: the points evaluated by their own law (not verified by the batch, or
        of no shared structure); None on the points route.
    fallback_reason : dict
        Batch route: grid index → why that point fell back (the batch's verification that
        failed, e.g. ``"mass check: ..."``, or ``"alone in its structure"``).
    pencil : ndarray of bool, shape ``shape``, or None
        Batch route: the points whose breakpoints came from their own Sylvester pencil
        (a structure whose discriminant with the varying parameters symbolic is too large
        to tabulate, e.g. the full layer over (β, h)); None on the points route.
    route : {"points", "batch"}
        The route taken.
    """

    axes: dict
    left_edge: np.ndarray
    right_edge: np.ndarray
    intervals: np.ndarray
    atom_mass: np.ndarray
    atoms_count: np.ndarray
    atoms: np.ndarray
    moments: np.ndarray
    x: np.ndarray | None = None
    pdf: np.ndarray | None = None
    cdf: np.ndarray | None = None
    ridge_error: np.ndarray | None = None
    arrival_time: np.ndarray | None = None
    errors: dict = field(default_factory=dict)
    fallback: np.ndarray | None = None
    fallback_reason: dict = field(default_factory=dict)
    pencil: np.ndarray | None = None
    route: str = "points"

    @property
    def shape(self):
        return tuple(len(v) for v in self.axes.values())

    def points(self):
        """The grid points as dicts, in C order (the last axis fastest)."""
        names = list(self.axes)
        return [dict(zip(names, combo)) for combo in itertools.product(*self.axes.values())]

    def scalar_columns(self):
        """Column name → flat array (C order) of every scalar quantity, axes first."""
        pts = self.points()
        cols = {n: np.array([p[n] for p in pts]) for n in self.axes}
        for name in SCALARS:
            cols[name] = getattr(self, name).reshape(-1)
        for k in range(self.moments.shape[-1]):
            cols[f"m{k + 1}"] = self.moments.reshape(-1, self.moments.shape[-1])[:, k]
        for name in ("ridge_error", "arrival_time"):
            if getattr(self, name) is not None:
                cols[name] = getattr(self, name).reshape(-1)
        return cols

    def to_csv(self, path):
        """One row per grid point: the axes, then the scalar quantities and m_1..m_K."""
        cols = self.scalar_columns()
        with open(path, "w", newline="") as fh:
            wr = csv.writer(fh)
            wr.writerow(list(cols))
            for row in zip(*cols.values()):
                wr.writerow([_fmt(v) for v in row])

    def to_dict(self):
        """Plain lists (strict JSON: NaN and ±∞ become None)."""
        def clean(a):
            if a is None:
                return None
            return [clean(v) for v in a] if isinstance(a, (list, np.ndarray)) else _json_num(a)

        out = {"axes": {k: list(v) for k, v in self.axes.items()}, "shape": list(self.shape)}
        for name in SCALARS + ("moments", "pdf", "cdf", "ridge_error", "arrival_time"):
            val = getattr(self, name)
            out[name] = None if val is None else clean(np.asarray(val).tolist())
        out["x"] = None if self.x is None else self.x.tolist()
        out["atoms"] = [[list(map(_json_num, a)) for a in at] if at is not None else None
                        for at in self.atoms.reshape(-1)]
        out["errors"] = {",".join(map(str, k)): v for k, v in self.errors.items()}
        return out

    def to_json(self, path):
        with open(path, "w") as fh:
            json.dump(self.to_dict(), fh, indent=1, allow_nan=False)

    def plot(self, quantity="right_edge", path=None, ax=None):
        """Heat map of a scalar ``quantity`` over the first two axes (a curve for one axis;
        further axes at their first value).  Returns the matplotlib Axes; writes ``path``."""
        plt = pyplot()
        data = self._quantity(quantity)
        names = list(self.axes)
        while data.ndim > 2:
            data = data[..., 0]
        own = ax is None
        if own:
            fig, ax = plt.subplots(figsize=(6, 4.5))
        if data.ndim == 1 or len(names) == 1:
            ax.plot(self.axes[names[0]], data.reshape(-1), marker="o")
            ax.set_xlabel(names[0])
            ax.set_ylabel(quantity)
        else:
            xv, yv = np.asarray(self.axes[names[1]], float), np.asarray(self.axes[names[0]], float)
            mesh = ax.pcolormesh(xv, yv, data, shading="nearest")
            ax.set_xlabel(names[1])
            ax.set_ylabel(names[0])
            ax.figure.colorbar(mesh, ax=ax, label=quantity)
        if path is not None:
            ax.figure.savefig(path, dpi=120, bbox_inches="tight")
            if own:
                plt.close(ax.figure)
        return ax

    def _quantity(self, name):
        if name.startswith("m") and name[1:].isdigit():
            k = int(name[1:])
            if not 1 <= k <= self.moments.shape[-1]:
                raise ParameterError("quantity", f"quantity {name}: only m1..m{self.moments.shape[-1]} were computed")
            return self.moments[..., k - 1]
        if name in SCALARS or name in ("ridge_error", "arrival_time"):
            val = getattr(self, name)
            if val is None:
                raise ParameterError("quantity", f"quantity {name} was not computed in this sweep")
            return np.asarray(val, dtype=float)
        raise ParameterError("quantity", f"unknown quantity {name!r}; one of {', '.join(SCALARS)}, "
                                         "m1..mK, ridge_error, arrival_time")


def _fmt(v):
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    return repr(float(v))  # shortest string that reads back to the same float


def _json_num(v):
    if isinstance(v, (int, np.integer)):
        return int(v)
    v = float(v)
    return v if math.isfinite(v) else None


def _assemble(axes, results, spec):
    shape = tuple(len(v) for v in axes.values())
    n = len(results)
    K = spec.moments
    arrays = {name: np.full(n, np.nan) for name in ("left_edge", "right_edge", "atom_mass")}
    ints = {name: np.full(n, -1, dtype=int) for name in ("intervals", "atoms_count")}
    moments = np.full((n, K), np.nan)
    atoms = np.empty(n, dtype=object)
    nx = 0 if spec.x is None else spec.x.size
    pdf = np.full((n, nx), np.nan) if spec.x is not None else None
    cdf = np.full((n, nx), np.nan) if spec.x is not None and spec.cdf else None
    ridge = np.full(n, np.nan) if spec.ridge is not None else None
    arrival = np.full(n, np.nan) if spec.arrival_level is not None else None
    errors = {}
    for i, r in enumerate(results):
        if "error" in r:
            errors[np.unravel_index(i, shape)] = r["error"]
            continue
        for name in arrays:
            arrays[name][i] = r[name]
        for name in ints:
            ints[name][i] = r[name]
        moments[i] = r["moments"]
        atoms[i] = r["atoms"]
        if pdf is not None:
            pdf[i] = r["pdf"]
        if cdf is not None:
            cdf[i] = r["cdf"]
        if ridge is not None:
            ridge[i] = r["ridge_error"]
        if arrival is not None:
            arrival[i] = r["arrival_time"]
    errors = {tuple(int(j) for j in k): v for k, v in errors.items()}
    return LawGrid(
        axes=axes, **{k: v.reshape(shape) for k, v in arrays.items()},
        **{k: v.reshape(shape) for k, v in ints.items()}, atoms=atoms.reshape(shape),
        moments=moments.reshape(shape + (K,)), x=spec.x,
        pdf=None if pdf is None else pdf.reshape(shape + (nx,)),
        cdf=None if cdf is None else cdf.reshape(shape + (nx,)),
        ridge_error=None if ridge is None else ridge.reshape(shape),
        arrival_time=None if arrival is None else arrival.reshape(shape), errors=errors)


# ------------------------------------------------------------------ runners
def _chunks(points, size):
    return [points[i:i + size] for i in range(0, len(points), size)]


def _run_processes(build, points, spec, workers, bar, chunk):
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    first = _evaluate(build, points[0], spec)  # warms this process's caches before the fork
    bar.update(1)
    results = [first]
    rest = points[1:]
    if not rest:
        return results
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_evaluate_chunk, build, c, spec) for c in _chunks(rest, chunk)]
        for f in futures:
            part = f.result()
            results.extend(part)
            bar.update(len(part))
    return results


def _batch_entry(res, i, spec):
    """One batch point's results in :func:`_evaluate`'s layout."""
    out = _shape_entry(res["support"][i], res["atoms"][i], res["moments"][i])
    if spec.x is not None:
        out["pdf"] = np.asarray(res["pdf"][i], dtype=float)
    return out


def _batch_points(build, points, spec, keep=()):
    """The batch route on ``points`` in this process: every point's law is built, the
    AlgebraicLaws grouped by structure (:func:`~freeattn.algebraic.numeric.structure_key`)
    and each group evaluated at once (:func:`~freeattn.algebraic.batch.evaluate_laws`, with
    breakpoints from each point's Sylvester pencil where the structure's discriminant is too
    large to tabulate); a point the batch does not verify, or of no shared structure, is
    evaluated by its law as on the points route.  Returns (results, fallback mask, reasons
    {position: why the point fell back}, pencil mask)."""
    results = [None] * len(points)
    laws = [None] * len(points)
    groups = {}
    reasons = {}
    for i, p in enumerate(points):
        try:
            laws[i] = build(**p)
        except Exception as exc:  # noqa: BLE001 - recorded or re-raised
            if spec.errors == "raise":
                raise
            results[i] = {"error": f"{type(exc).__name__}: {exc}"}
            continue
        key = structure_key(laws[i]._factor) if isinstance(laws[i], AlgebraicLaw) else None
        if key is None:
            reasons[i] = "not an algebraic law of a shared structure"
        else:
            groups.setdefault(key, []).append(i)
    fallback = np.ones(len(points), bool)
    pencil = np.zeros(len(points), bool)
    for idx in groups.values():
        if len(idx) < _BATCH_MIN_POINTS:
            reasons.update({i: "alone in its structure" for i in idx})
            continue
        try:
            res = evaluate_laws([laws[i] for i in idx], x=spec.x, moments=spec.moments,
                                pencil=True, keep=keep)
        except ValueError as exc:  # no rational term table: one by one
            reasons.update({i: f"no batch for the structure: {exc}" for i in idx})
            continue
        for k, i in enumerate(idx):
            pencil[i] = res["pencil"]
            if res["fallback"][k]:
                reasons[i] = res["why"].get(k, "not verified")
            else:
                results[i] = _batch_entry(res, k, spec)
                fallback[i] = False
    for i, p in enumerate(points):
        if results[i] is None:
            try:
                results[i] = _evaluate_law(laws[i], p, spec)
            except Exception as exc:  # noqa: BLE001 - recorded or re-raised
                if spec.errors == "raise":
                    raise
                results[i] = {"error": f"{type(exc).__name__}: {exc}"}
    reasons = {i: r for i, r in reasons.items() if fallback[i] and "error" not in results[i]}
    return results, fallback, reasons, pencil


def _grid_varying(build, points, axes):
    """Positions of the law parameters that vary over the grid: the laws at the first point and
    at the first point with one axis moved to its second value, per axis, compared within
    each structure (:func:`~freeattn.algebraic.batch.varying_parameters`)."""
    probes = [points[0]] + [{**points[0], name: vals[1]} for name, vals in axes.items()
                            if len(vals) > 1]
    groups = {}
    for p in probes:
        try:
            law = build(**p)
        except Exception:  # noqa: BLE001 - the point itself reports it
            continue
        key = structure_key(law._factor) if isinstance(law, AlgebraicLaw) else None
        if key is not None:
            groups.setdefault(key, []).append(law)
    return frozenset().union(*[varying_parameters(g) for g in groups.values()])


def _run_batch(build, points, spec, bar, axes, workers=1):
    """The batch route (:func:`_batch_points`), in this process or, with ``workers > 1``,
    over a pool of processes, each taking one contiguous chunk of the grid order.  Every
    part keeps the grid's varying parameters as batch columns (:func:`_grid_varying`: a
    chunk along one β keeps β symbolic), so that all meet one structure, whose tables the
    first two points, evaluated here first, leave for the forked workers to inherit.
    Returns (results, fallback mask, reasons, pencil mask)."""
    if workers == 1 or len(points) < 2 * max(_BATCH_MIN_POINTS, workers):
        out = _batch_points(build, points, spec)
        bar.update(len(points))
        return out
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor

    keep = _grid_varying(build, points, axes)
    head = _BATCH_MIN_POINTS
    parts = [_batch_points(build, points[:head], spec, keep)]
    bar.update(head)
    rest = points[head:]
    size = -(-len(rest) // workers)
    methods = mp.get_all_start_methods()
    ctx = mp.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = [pool.submit(_batch_points, build, c, spec, keep) for c in _chunks(rest, size)]
        for f in futures:
            part = f.result()
            parts.append(part)
            bar.update(len(part[0]))
    results, fallback, reasons, pencil = [], [], {}, []
    for res, fb, why, pen in parts:
        reasons.update({len(results) + i: r for i, r in why.items()})
        results += res
        fallback.append(fb)
        pencil.append(pen)
    return results, np.concatenate(fallback), reasons, np.concatenate(pencil)


def _run_dask(build, points, spec, scheduler, bar, chunk):
    try:
        import dask
    except ImportError as exc:  # pragma: no cover - dask is an optional dependency
        raise ImportError("scheduler= needs dask: pip install 'freeattn[dask]'") from exc
    chunks = _chunks(points, chunk)
    if hasattr(scheduler, "submit"):  # a dask.distributed Client: progress per chunk
        futures = [scheduler.submit(_evaluate_chunk, build, c, spec, pure=False) for c in chunks]
        results = []
        for f in futures:
            part = f.result()
            results.extend(part)
            bar.update(len(part))
        return results
    tasks = [dask.delayed(_evaluate_chunk)(build, c, spec) for c in chunks]
    parts = dask.compute(*tasks, scheduler=scheduler)
    bar.update(len(points))
    return [r for part in parts for r in part]


def sweep(build, *, moments=4, x=None, cdf=False, ridge=None, arrival_level=None, workers=1,
          scheduler=None, chunk=None, progress=True, errors="raise", route="auto", **grid):
    """Evaluate the law ``build(**point)`` over the Cartesian product of the ``grid`` axes.

    Parameters
    ----------
    build : callable
        Returns a law from keyword parameters, e.g. :func:`freeattn.attention_law` or
        ``lambda beta, heads: MHAConfig.preset("bert-base", beta=beta, heads=heads,
        kv_heads=heads).law()`` (a module-level function for ``workers > 1``, whose points
        travel to other processes by pickling).
    moments : int ≥ 0
        Number K of moments m_1..m_K per point (default 4; the law's own route).
    x : array_like of float, shape (nx,), optional
        Points at which ``pdf`` (and with ``cdf=True`` the cdf) is evaluated at every point.
    cdf : bool
        Also the cdf on ``x``.
    ridge : dict, optional
        ``{"lam": λ, "sigma2": σ², "gamma_o": γ}``: the ridge error E_λ
        (:func:`freeattn.readout.ridge_error`, Hayase & Karakida 2026, eq. (5.2)) per point;
        a value may be the name of a grid axis (e.g. ``"gamma_o": "gamma_o"``).
    arrival_level : float, optional
        The arrival time of the training loss at this level
        (:func:`freeattn.readout.arrival_time`, §C.6.2) per point.
    workers : int ≥ 1
        Processes (1: in this process).  On the batch route the grid (after its first two
        points, evaluated here) is split into ``workers`` contiguous chunks of the grid
        order, one batch per process (``chunk`` does not apply there).
    scheduler : str or dask.distributed.Client, optional
        Run through Dask instead: a Dask scheduler name ("threads", "processes",
        "synchronous") or a Client (then ``workers`` is ignored).
    chunk : int ≥ 1, optional
        Points per task (default: the grid split into ~4 tasks per worker, along the last
        axis first, so neighbouring points share a process's caches).
    progress : bool
        A tqdm progress bar on stderr.
    errors : {"raise", "record"}
        "raise": the first failing point raises; "record": its quantities are NaN (counts
        −1) and the message is kept in ``result.errors``.
    route : {"auto", "batch", "points"}
        "points": every point's law evaluated on its own; "batch": the points whose laws
        share one algebraic structure evaluated together in float64 arrays
        (:func:`freeattn.algebraic.batch.evaluate_laws`: edges, atoms, moments, pdf), each
        point verified and otherwise evaluated by its law (``result.fallback``, with the
        reason in ``result.fallback_reason``; a structure whose discriminant is too large to
        tabulate takes its breakpoints from each point's Sylvester pencil,
        ``result.pencil``), in this process or over ``workers`` processes, equal to the
        points route to ~1e-13 (relative); "auto": batch where it
        applies (no ``cdf``, ``ridge``, ``arrival_level`` or ``scheduler``) and the grid
        has at least 64 points, else points.
    **grid : sequences of numbers
        The axes: parameter name of ``build`` → values (at least one axis).

    Returns
    -------
    LawGrid
        Arrays of shape ``tuple(len(v) for v in grid.values())`` (+ a trailing K or nx).

    Raises
    ------
    ParameterError
        For no axis, an empty, multi-dimensional or non-finite axis, an axis that is not a
        parameter of ``build``, a bad ``x``, ``moments``, ``workers``, ``chunk``, ``ridge``,
        ``arrival_level``, ``errors`` or ``route`` (``"batch"`` with ``cdf``, ``ridge``,
        ``arrival_level`` or ``scheduler``).
    ParameterTypeError
        For a non-callable ``build`` or an axis of strings or booleans.
    """
    if not grid:
        raise ParameterError("grid", "sweep needs at least one grid axis, e.g. beta=[0.5, 1.0]")
    axes = {name: _axis(name, values) for name, values in grid.items()}
    _check_build(build, list(axes))
    moments = integer_at_least("moments", moments, 0)
    workers = integer_at_least("workers", workers, 1)
    if chunk is not None:
        chunk = integer_at_least("chunk", chunk, 1)
    if errors not in ("raise", "record"):
        raise ParameterError("errors", f"errors must be 'raise' or 'record', got {errors!r}")
    if ridge is not None:
        if not isinstance(ridge, dict) or not {"lam", "gamma_o"} <= set(ridge) \
                or set(ridge) - {"lam", "sigma2", "gamma_o"}:
            raise ParameterError("ridge", "ridge must be a dict with keys lam, gamma_o and "
                                          f"optionally sigma2, got {ridge!r}")
        for key, val in ridge.items():
            if isinstance(val, str) and val not in axes:
                raise ParameterError("ridge", f"ridge[{key!r}] names {val!r}, which is not a grid axis")
    if arrival_level is not None:
        arrival_level = float(positive("arrival_level", arrival_level))
    spec = _Spec(moments=moments, x=_x_grid(x), cdf=bool(cdf), ridge=ridge,
                 arrival_level=arrival_level, errors=errors)
    if route not in ("auto", "batch", "points"):
        raise ParameterError("route", f"route must be 'auto', 'batch' or 'points', got {route!r}")
    batchable = not spec.cdf and ridge is None and arrival_level is None and scheduler is None
    if route == "batch" and not batchable:
        raise ParameterError("route", "route='batch' evaluates edges, atoms, moments and the pdf "
                                      "only: not with cdf=True, ridge, arrival_level or scheduler")
    n_points = math.prod(len(v) for v in axes.values())
    use_batch = batchable and (route == "batch" or (route == "auto" and n_points >= _BATCH_AUTO_MIN))
    if workers > 1 and scheduler is None:
        _check_picklable(build)  # the same bad-input error whichever route runs
    names = list(axes)
    points = [dict(zip(names, combo)) for combo in itertools.product(*axes.values())]
    from tqdm.auto import tqdm

    with tqdm(total=len(points), disable=not progress, desc="sweep", unit="pt") as bar:
        fallback = None
        if use_batch:
            if workers > 1:
                _check_picklable(build)
            results, fallback, reasons, pencil = _run_batch(
                build, points, spec, bar, axes, min(workers, len(points)))
        elif scheduler is not None:
            size = chunk or max(1, len(points) // 16)
            results = _run_dask(build, points, spec, scheduler, bar, size)
        elif workers == 1:
            results = []
            for p in points:
                results.append(_evaluate(build, p, spec))
                bar.update(1)
        else:
            _check_picklable(build)
            workers = min(workers, len(points))
            size = chunk or max(1, len(points) // (4 * workers))
            results = _run_processes(build, points, spec, workers, bar, size)
    grid_out = _assemble(axes, results, spec)
    if fallback is not None:
        grid_out.fallback = fallback.reshape(grid_out.shape)
        grid_out.fallback_reason = {tuple(int(j) for j in np.unravel_index(i, grid_out.shape)): r
                                    for i, r in sorted(reasons.items())}
        grid_out.pencil = pencil.reshape(grid_out.shape)
        grid_out.route = "batch"
    return grid_out
