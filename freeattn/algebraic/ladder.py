"""The Stieltjes branch G(x + i0) of an algebraic law at many (coefficient table, x) pairs at once.

The vectorised ladder of :mod:`freeattn.algebraic.batch`: from x + iH, where G ~ 1/z, down
geometric heights to the axis, every rung a second-order Taylor predictor and Newton steps on
P(·, z), accepted only where the root it reaches is the unique root near the predictor (a
Fujiwara bound on the other roots' distance) and obeys the Nevanlinna conditions; the last
rung a jump onto the target.  :func:`ladder_along` reaches pairs that lie on paths (a
contour's nodes, a grid of x) from their neighbours by the same rung.
"""
from __future__ import annotations

import numpy as np

from .._context import TINY
from .numeric_polynomial import (_TRACK_BEND as _BEND, nevanlinna_ok,
                                 _TRACK_MAX_DT as _MAX_DT, _TRACK_MIN_DT as _MIN_DT,
                                 _TRACK_SLACK as _SLACK)

__all__ = ["ladder", "ladder_along"]

#: ladder step control: NumericPolynomial.track's (largest step in ln h _MAX_DT, corrector
#: within _BEND × the predicted move + _SLACK × |G|, smallest step _MIN_DT; imported above),
#: and the corrector within _UNIQUE × the bound on the distance to the other roots
_UNIQUE = 0.25
#: the jump onto the target is tried from heights within this × the target's distance to the
#: nearest breakpoint
_JUMP_REACH = 2.0
_NEWTON_STEPS = 8
#: relative size of a converged Newton step
_NEWTON_RTOL = 1e-13
#: lowest ladder height (× (scale + |x|)) before a pair gives up
_MIN_HEIGHT = 1e-17
#: rungs (accepted or not) after which a pair still on the ladder gives up: a pair that
#: arrives takes ~10 (single-head grid: median 9, at most 30; the layer's 10 x 10 bench
#: map: median 11, 99.9 % within 135, at most 267; at 300, 2 of 10 verified points of
#: tests/sweep's 20 random layer points fall back), one that creeps with steps near
#: _MIN_DT (a root float64 P does not resolve, next to the layer's atom at 0) thousands,
#: and the lockstep loop with it (bench map, CPU: 2.5 s uncapped, 1.9 s here)
_MAX_RUNGS = 1000
#: pairs per run of a path in ladder_along: the first from the ladder, each other from its
#: predecessor
_PATH_RUN = 16
#: pairs per ladder block (memory: the pairs' coefficient tables)
_BLOCK = 200_000


# ------------------------------------------------------------------ coefficient evaluation
def _horner_z(cf, zz, order=1):
    """c_k(z) and its z-derivatives up to ``order`` (1 or 2) for pairs: cf (M, D + 1, J + 1)
    (G^D first, z^J first), z (M,).  Returns (ck, dck) or (ck, dck, ddck)."""
    ck = cf[:, :, 0].astype(complex)
    dck = np.zeros_like(ck)
    ddck = np.zeros_like(ck) if order > 1 else None
    zc = zz[:, None]
    for j in range(1, cf.shape[2]):
        if ddck is not None:
            ddck = ddck * zc + 2.0 * dck
        dck = dck * zc + ck
        ck = ck * zc + cf[:, :, j]
    return (ck, dck) if ddck is None else (ck, dck, ddck)


def _horner_g(ck, g, dck=None):
    """P, ∂_G P (and ∂_z P with ``dck``) at g from the coefficients ck (M, D + 1)."""
    p = np.zeros(g.shape, complex)
    pg = np.zeros(g.shape, complex)
    pz = np.zeros(g.shape, complex)
    for k in range(ck.shape[1]):
        pg = pg * g + p
        p = p * g + ck[:, k]
        if dck is not None:
            pz = pz * g + dck[:, k]
    return p, pg, pz


def _branch_derivatives(ck, dck, ddck, g):
    """G′ and G″ of the branch through the root g of P(·, z) (implicit differentiation:
    P_G G′ = −P_z, P_G G″ = −(P_zz + 2 P_Gz G′ + P_GG G′²))."""
    pg = np.zeros(g.shape, complex)
    pgg = np.zeros(g.shape, complex)
    pz = np.zeros(g.shape, complex)
    pgz = np.zeros(g.shape, complex)
    pzz = np.zeros(g.shape, complex)
    p = np.zeros(g.shape, complex)
    for k in range(ck.shape[1]):
        pgg = pgg * g + 2.0 * pg
        pg = pg * g + p
        p = p * g + ck[:, k]
        pgz = pgz * g + pz
        pz = pz * g + dck[:, k]
        pzz = pzz * g + ddck[:, k]
    d1 = -pz / pg
    d2 = -(pzz + 2.0 * pgz * d1 + pgg * d1 * d1) / pg
    return d1, d2


def _newton(ck, g, steps=_NEWTON_STEPS):
    """Newton on P(·, z) from g (coefficients ck): (root, converged); a converged pair takes
    no further step (the live set is compacted once half of it has converged)."""
    g = g.copy()
    conv = np.zeros(g.shape, bool)
    idx = np.arange(g.size)
    cki, gi = ck, g.copy()
    live = np.ones(g.size, bool)
    for _ in range(steps):
        p, pg, _ = _horner_g(cki, gi)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = np.where(pg != 0, p / np.where(pg != 0, pg, 1), np.inf)
            gn = gi - step
        gi = np.where(live, gn, gi)
        c = live & (np.abs(step) <= _NEWTON_RTOL * np.abs(gn) + TINY)
        conv[idx[c]] = True
        live &= ~c
        n_live = np.count_nonzero(live)
        if not n_live:
            break
        if 2 * n_live <= live.size:
            g[idx] = gi
            idx, cki, gi = idx[live], cki[live], gi[live]
            live = np.ones(idx.size, bool)
    g[idx] = gi
    return g, conv & np.isfinite(g)


def _separation(ck, g):
    """A lower bound on the distance from g (a root of P(·, z)) to the other roots: the
    Taylor coefficients t_m of P at g give, for the deflated polynomial Σ t_{m+1} u^m,
    |u| ≥ 1/(2 max_m |t_{m+1}/t_1|^{1/m}) (Fujiwara's bound on the reversed polynomial)."""
    D = ck.shape[1] - 1
    if D <= 1:
        return np.full(g.shape, np.inf)
    b = [ck[:, k].copy() for k in range(D + 1)]
    for i in range(D):  # Horner's Taylor shift: b[D - m] = t_m
        for k in range(1, D + 1 - i):
            b[k] = b[k] + g * b[k - 1]
    t1 = np.abs(b[D - 1])
    worst = np.zeros(g.shape)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for m in range(1, D):
            worst = np.maximum(worst, (np.abs(b[D - 1 - m]) / t1) ** (1.0 / m))
        return np.where(t1 > 0, 1.0 / (2.0 * worst), 0.0)


def _accept(gn, pred, g, sep):
    move = np.abs(pred - g)
    d = np.abs(gn - pred)
    return np.isfinite(gn) & (d <= _UNIQUE * sep) & (d <= _BEND * move + _SLACK * np.abs(g))


def ladder(cf, x, scale, y=None, near=None):
    """The Stieltjes branch G(x + i0) at pairs (coefficient table cf[i], real x[i]).

    From x + iH, H = 8 (scale + |x| + 1), where G ~ 1/z, down geometric heights with Newton
    steps on P from the second-order Taylor predictor (G′ and G″ of the branch at the rung,
    by implicit differentiation); every rung (and the final jump onto the axis, tried at
    each rung) is accepted only where the corrector is small against the predicted
    move and against the bound on the other roots' distance (:func:`_separation`), and the
    rung's value obeys the Nevanlinna conditions.  ``y`` (≥ 0 per pair, default 0): the
    height of the target x + iy; ``near`` (per pair, default ∞): its distance to the
    nearest breakpoint, within a multiple of which the jump is tried.  Returns (G at the
    targets, ok)."""
    M = x.size
    y = np.zeros(M) if y is None else np.asarray(y, float)
    near = np.full(M, np.inf) if near is None else np.asarray(near, float)
    g_out = np.full(M, np.nan + 0j)
    ok_out = np.zeros(M, bool)
    for s in range(0, M, _BLOCK):
        sl = slice(s, min(M, s + _BLOCK))
        g_out[sl], ok_out[sl] = _ladder_block(cf[sl], x[sl], scale[sl], y[sl], near[sl])
    return g_out, ok_out


def ladder_along(cf, x, scale, y, path, near):
    """:func:`ladder`'s values at pairs that lie on paths: ``path`` (per pair) numbers the
    paths, the pairs of one path consecutive and in order along it, the segment between two
    neighbours inside the branch's domain of analyticity (the upper half-plane, or the axis
    between two breakpoints).  Every :data:`_PATH_RUN`-th pair of a path (the first of each
    run) and the last of each path come from the ladder; the others from a neighbour by one
    rung of the ladder's own step (:func:`_rung`), forward from the run's first pair, then backward from the
    next run's first pair for those a forward step did not reach (a step into an edge's
    neighbourhood is refused, the one out of it is not).  The rest come from the ladder.
    Returns (G, ok).

    One rung along the path in place of a ladder of ~10 rungs from far above: the contour's
    nodes and a grid of x are neighbours whose values predict each other."""
    M = x.size
    g = np.full(M, np.nan + 0j)
    ok = np.zeros(M, bool)
    if not M:
        return g, ok
    first = np.r_[True, path[1:] != path[:-1]]
    begin = np.flatnonzero(first)
    rank = np.arange(M) - begin[np.cumsum(first) - 1]
    step = rank % _PATH_RUN
    same = np.r_[path[1:] == path[:-1], False]  # the next pair is on the same path
    head = (step == 0) | ~same  # and each path's last pair: the last run's backward start
    g[head], ok[head] = ladder(cf[head], x[head], scale[head], y[head], near[head])
    zz = x + 1j * y
    for r in range(1, _PATH_RUN):
        cur = np.flatnonzero((step == r) & ~head)
        _path_step(cf, zz, y, g, ok, cur[ok[cur - 1]], -1)
    for r in range(_PATH_RUN - 1, 0, -1):
        cur = np.flatnonzero((step == r) & ~ok & same)
        _path_step(cf, zz, y, g, ok, cur[ok[cur + 1]], 1)
    redo = np.flatnonzero(~ok & ~head)
    if redo.size:
        g[redo], ok[redo] = ladder(cf[redo], x[redo], scale[redo], y[redo], near[redo])
    return g, ok


def _rung(ck, zn, yn, g, d1, d2, zc):
    """One rung from zc (root g, the branch's G′ = d1 and G″ = d2 there) to zn = x + i yn
    (P's coefficients there: ck): the second-order Taylor predictor, Newton, accepted where
    the corrector is small against the predicted move and against the other roots' distance
    (:func:`_accept`) and the value obeys the Nevanlinna conditions (Im G ≤ 0 on the axis).
    Returns (root, accepted).  The ladder's rungs, its jump onto the target and a step along
    a path are all this one step."""
    dz = zn - zc
    pred = g + dz * (d1 + 0.5 * dz * d2)
    pred = np.where(np.isfinite(pred), pred, g)
    gn, conv = _newton(ck, pred)
    sep = _separation(ck, gn)
    sign = np.where(yn > 0, nevanlinna_ok(gn, yn), gn.imag <= _SLACK * np.abs(gn))
    return gn, conv & _accept(gn, pred, g, sep) & sign


def _path_step(cf, zz, y, g, ok, cur, offset):
    """One :func:`_rung` from the pairs ``cur + offset`` (solved) to ``cur``; writes g and
    ok in place."""
    if not cur.size:
        return
    src = cur + offset
    with np.errstate(all="ignore"):
        ck0, dck0, ddck0 = _horner_z(cf[cur], zz[src], order=2)
        d1, d2 = _branch_derivatives(ck0, dck0, ddck0, g[src])
        ck1, _ = _horner_z(cf[cur], zz[cur])
        gn, acc = _rung(ck1, zz[cur], y[cur], g[src], d1, d2, zz[src])
    g[cur[acc]] = gn[acc]
    ok[cur[acc]] = True


def _ladder_block(cf, x, scale, y, near):
    """The ladder on one block of pairs.  The state (current rung's height, root, G′ and G″
    there) is kept for the live pairs only, compacted as pairs finish or fail, so that the
    cost follows each pair's own number of rungs; a rejected rung keeps the pair's state (its
    predictor's derivatives are not evaluated again), an accepted one evaluates P's
    coefficients at the new height once (with their z-derivatives for the next predictor)."""
    M = x.size
    H = 8.0 * (scale + np.abs(x) + 1.0)
    z0 = x + 1j * H
    with np.errstate(all="ignore"):
        ck0, dck0, ddck0 = _horner_z(cf, z0, order=2)
        g, ok = _newton(ck0, 1.0 / z0)
        d1, d2 = _branch_derivatives(ck0, dck0, ddck0, g)
    out = np.full(M, np.nan + 0j)
    done = np.zeros(M, bool)
    zt = x + 1j * y
    ck_axis, _ = _horner_z(cf, zt)
    t = np.log(H)
    t_min = np.log(_MIN_HEIGHT * (scale + np.abs(x) + 1.0))
    with np.errstate(divide="ignore"):
        t_floor = np.maximum(t_min, np.log(y))
    dt = np.full(M, _MAX_DT)
    # the live pairs' state, compacted
    ix = np.flatnonzero(ok & np.isfinite(d1) & np.isfinite(d2))
    cf, x, y, near, zt, ck_axis = cf[ix], x[ix], y[ix], near[ix], zt[ix], ck_axis[ix]
    g, d1, d2, t, t_min, t_floor, dt = g[ix], d1[ix], d2[ix], t[ix], t_min[ix], t_floor[ix], dt[ix]
    rungs = np.zeros(ix.size, int)
    while ix.size:
        rungs += 1
        h = np.exp(t)
        zc = x + 1j * h
        keep = np.ones(ix.size, bool)
        with np.errstate(all="ignore"):
            # the jump onto the target, tried only within reach of it (a longer jump's
            # predictor misses by more than the bend allows: wasted Newton work)
            tr = np.flatnonzero(h - y <= _JUMP_REACH * near)
            if tr.size:
                gn, jump = _rung(ck_axis[tr], zt[tr], y[tr], g[tr], d1[tr], d2[tr], zc[tr])
                jt = tr[jump]
                out[ix[jt]] = gn[jump]
                done[ix[jt]] = True
                keep[jt] = False
            ib = np.flatnonzero(keep)
            tn = np.maximum(t[ib] + dt[ib], t_floor[ib])
            hn = np.exp(tn)
            zn = x[ib] + 1j * hn
            ckn, dckn, ddckn = _horner_z(cf[ib], zn, order=2)
            gs, acc = _rung(ckn, zn, hn, g[ib], d1[ib], d2[ib], zc[ib])
            a = np.flatnonzero(acc)
            ja = ib[a]
            n1, n2 = _branch_derivatives(ckn[a], dckn[a], ddckn[a], gs[a])
            g[ja], d1[ja], d2[ja], t[ja] = gs[a], n1, n2, tn[a]
            dt[ja] = np.maximum(dt[ja] * 1.5, _MAX_DT)
            jr = ib[~acc]
            dt[jr] *= 0.5
        keep[jr[np.abs(dt[jr]) < _MIN_DT]] = False
        keep[rungs >= _MAX_RUNGS] = False
        keep[ja[((t[ja] <= t_min[ja]) & (y[ja] == 0)) | ~np.isfinite(n1) | ~np.isfinite(n2)]] = False
        if not keep.all():
            ix, cf, x, y, near, zt, ck_axis = (ix[keep], cf[keep], x[keep], y[keep], near[keep],
                                              zt[keep], ck_axis[keep])
            rungs = rungs[keep]
            g, d1, d2, t, t_min, t_floor, dt = (g[keep], d1[keep], d2[keep], t[keep],
                                               t_min[keep], t_floor[keep], dt[keep])
    return out, done
