r"""Moments, free cumulants, non-crossing partitions and formal R-/S-transform series.

Every function here is *generic in the scalar type*: it only uses ``+``, ``-``, ``*``
(and one reciprocal of the first moment in the S-transform), so the same code is exact
for ``int``, :class:`fractions.Fraction` and sympy numbers or symbolic expressions, and
works at any precision for ``float``, numpy scalars and mpmath ``mpf``/``mpc``.
Sympy results are expanded after every step so that symbolic expressions stay
polynomial (or Laurent in the first moment) instead of growing as nested products.
sympy itself is never imported by this module.

Conventions
-----------
* Sequences start at order one: ``m = [m_1, m_2, ...]``, ``kappa = [kappa_1, kappa_2, ...]``;
  the zeroth moment ``m_0 = 1`` is implicit.
* Non-crossing partitions are *1-based*: a partition of ``{1, ..., n}`` is a tuple of
  blocks, each block a strictly increasing tuple of integers, blocks ordered by their
  smallest element.
* Transforms follow (C.1–C.6) of Hayase & Karakida (arXiv 2610.10033) and Mingo & Speicher
  (2017): :math:`\psi(z) = \sum_{q\ge1} m_q z^q`, :math:`\chi = \psi^{-1}`,
  :math:`S(w) = \frac{1+w}{w}\chi(w)` with :math:`S(0) = 1/m_1`,
  :math:`R(w) = \sum_{q\ge0}\kappa_{q+1} w^q`, so that :math:`S_{\mu\boxtimes\nu} =
  S_\mu S_\nu`, :math:`R_{\mu\boxplus\nu} = R_\mu + R_\nu` and
  :math:`S(w)\,R(w S(w)) = 1`.

References
----------
A. Nica and R. Speicher, *Lectures on the Combinatorics of Free Probability*, LMS Lecture
Note Series 335, Cambridge University Press, 2006 (Lectures 9–11 and 14–18).
J. A. Mingo and R. Speicher, *Free Probability and Random Matrices*, Fields Institute
Monographs 35, Springer, 2017 (Chapters 2 and 4).
"""
from __future__ import annotations

import functools
import numbers
from collections import Counter
from fractions import Fraction

from freeattn._messages import shown
from freeattn._validation import ParameterError, ParameterTypeError, positive, positive_integer

__all__ = [
    "noncrossing_partitions",
    "is_noncrossing",
    "kreweras_complement",
    "moments_from_free_cumulants",
    "free_cumulants_from_moments",
    "boxplus_free_cumulants",
    "boxtimes_free_cumulants",
    "compound_free_poisson_cumulants",
    "dilate_cumulants",
    "r_transform_series",
    "s_transform_series",
    "moments_from_s_transform_series",
]


# ---------------------------------------------------------------------------
# scalar helpers (type-generic arithmetic)
# ---------------------------------------------------------------------------

def _is_sympy(x):
    return type(x).__module__.startswith("sympy")


def _tidy(x):
    """Expand sympy expressions; leave every other scalar type untouched.

    Negative powers of sums (such as ``1/(E - 1)`` coming from a reciprocal first moment)
    are kept as atoms: expanding them would multiply out their denominators and make the
    expressions grow without bound.
    """
    if not _is_sympy(x) or not hasattr(x, "expand"):
        return x
    import sympy  # already loaded, since x is a sympy object

    negative = [
        p for p in x.atoms(sympy.Pow) if p.base.is_Add and p.exp.is_negative
    ]
    if not negative:
        return x.expand()
    dummies = {p: sympy.Dummy() for p in negative}
    expanded = x.xreplace(dummies).expand()
    return expanded.xreplace({d: p for p, d in dummies.items()})


def _sequence(name, seq):
    """Return ``seq`` as a non-empty list, raising with the parameter name otherwise."""
    if seq is None or isinstance(seq, (str, bytes)):
        raise ParameterTypeError(name, f"{name} must be a sequence of numbers, got {shown(seq)}")
    try:
        values = list(seq)
    except TypeError:
        raise ParameterTypeError(name, f"{name} must be a sequence of numbers, got {shown(seq)}") from None
    if not values:
        raise ParameterError(name, f"{name} must be a non-empty sequence (orders 1, 2, ...), "
                                   f"got {shown(seq)}")
    return values


def _zero_like(x):
    return x * 0


def _one_like(x):
    return x * 0 + 1


def _is_zero(x):
    if _is_sympy(x):
        return x.is_zero is True or x == 0
    try:
        return bool(x == 0)
    except (TypeError, ValueError):
        return False


def _reciprocal(name, x):
    """Exact reciprocal where possible: int -> Fraction, sympy -> sympy, else ``1 / x``."""
    if _is_zero(x):
        raise ParameterError(
            name, f"{name}: the first moment m_1 must be nonzero for the S-transform, got {shown(x)}"
        )
    if _is_sympy(x):
        return 1 / x
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return Fraction(1, int(x))
    return 1 / x


def _order(order, available, name):
    if order is None:
        return available
    order = positive_integer("order", order)
    if order > available:
        raise ParameterError(
            "order", f"order must be at most len({name}) = {available} (order {order} needs "
            f"{name} up to index {order}), got {order}"
        )
    return order


def _series_powers(coeffs, kmax, jmax, one):
    """``P[j][k]`` = coefficient of z^k in ``(sum_i coeffs[i] z^i)^j``, ``coeffs[0]`` given.

    ``coeffs`` is indexed from 0 and must have length > kmax.
    """
    zero = one * 0
    P = [[one] + [zero] * kmax]
    for j in range(1, jmax + 1):
        prev = P[-1]
        row = []
        for k in range(kmax + 1):
            acc = zero
            for i in range(k + 1):
                acc = acc + coeffs[i] * prev[k - i]
            row.append(_tidy(acc))
        P.append(row)
    return P


# ---------------------------------------------------------------------------
# non-crossing partitions and the Kreweras complement
# ---------------------------------------------------------------------------

def _nc(elems):
    """Yield non-crossing partitions (lists of tuples) of the ordered tuple ``elems``."""
    if not elems:
        yield []
        return
    yield from _nc_extend((elems[0],), elems[1:])


def _nc_extend(block, rest):
    # ``block`` is open and all its elements precede ``rest``. Either close it here, or
    # its next element is rest[j]; then rest[:j] lies under the arc and is partitioned
    # on its own (anything else would cross the block).
    for tail in _nc(rest):
        yield [block] + tail
    for j in range(len(rest)):
        for inner in _nc(rest[:j]):
            for outer in _nc_extend(block + (rest[j],), rest[j + 1:]):
                yield outer + inner


def noncrossing_partitions(n):
    r"""Generate the non-crossing partitions NC(n) of ``{1, ..., n}`` (1-based).

    Parameters
    ----------
    n : int
        Size of the ground set, ``n >= 1``.

    Returns
    -------
    generator of tuple of tuple of int
        Each item is a partition as a tuple of blocks; every block is a strictly increasing tuple of
        integers in ``1..n`` and the blocks are sorted by their smallest element. Each
        partition is produced exactly once; there are Catalan(n) = C(2n, n)/(n + 1) of them.

    Raises
    ------
    ValueError
        If ``n`` is not an integer ``>= 1``.

    Notes
    -----
    A partition is non-crossing when there are no ``a < b < c < d`` with ``a, c`` in one
    block and ``b, d`` in another (Nica & Speicher 2006, Definition 9.1). The generator
    chooses the block of the smallest element one element at a time; the elements enclosed
    between two consecutive elements of that block form an independent non-crossing
    partition.

    Examples
    --------
    >>> list(noncrossing_partitions(3))  # doctest: +NORMALIZE_WHITESPACE
    [((1,), (2,), (3,)), ((1,), (2, 3)), ((1, 2), (3,)), ((1, 2, 3),), ((1, 3), (2,))]
    >>> sum(1 for _ in noncrossing_partitions(4))
    14
    """
    n = positive_integer("n", n)  # validated eagerly, before the first ``next``
    return (tuple(sorted(blocks)) for blocks in _nc(tuple(range(1, n + 1))))


def _check_partition(partition, n):
    """Validate a set partition of {1..n}; return it in canonical (sorted) form."""
    if partition is None or isinstance(partition, (str, bytes)):
        raise ParameterError("partition", f"partition must be a collection of blocks, got {partition!r}")
    try:
        blocks = [tuple(sorted(int(x) for x in block)) for block in partition]
    except (TypeError, ValueError):
        raise ParameterError(
            "partition", f"partition must be a collection of blocks of integers, got {partition!r}"
        ) from None
    if any(len(b) == 0 for b in blocks):
        raise ParameterError("partition", f"partition has an empty block: {partition!r}")
    flat = sorted(x for b in blocks for x in b)
    if flat != list(range(1, n + 1)):
        raise ParameterError(
            "partition", f"partition must be a partition of {{1, ..., {n}}} (1-based, each element "
            f"exactly once), got {partition!r}"
        )
    return tuple(sorted(blocks))


def is_noncrossing(partition):
    """Return True if the set partition ``partition`` (blocks of integers) is non-crossing.

    Parameters
    ----------
    partition : iterable of iterables of int
        Blocks of a partition of a finite set of integers (any labels; only their order
        matters).

    Examples
    --------
    >>> is_noncrossing([(1, 3), (2,), (4,)]), is_noncrossing([(1, 3), (2, 4)])
    (True, False)
    """
    blocks = [sorted(b) for b in partition]
    label = {}
    for i, b in enumerate(blocks):
        for x in b:
            label[x] = i
    # scan in order: a block may only be re-entered if it is the innermost open block
    stack = []
    last = {i: b[-1] for i, b in enumerate(blocks)}
    for x in sorted(label):
        i = label[x]
        if stack and stack[-1] == i:
            pass
        elif i in stack:
            return False
        else:
            stack.append(i)
        if x == last[i]:
            stack.pop()
    return True


def kreweras_complement(partition, n):
    r"""Kreweras complement K(π) of a non-crossing partition π of ``{1, ..., n}``.

    Parameters
    ----------
    partition : iterable of iterables of int
        A non-crossing partition of ``{1, ..., n}`` with 1-based labels (the format yielded
        by :func:`noncrossing_partitions`; block and element order are free).
    n : int
        Size of the ground set, ``n >= 1``.

    Returns
    -------
    tuple of tuple of int
        K(π) in the canonical format: sorted blocks, ordered by smallest element.

    Raises
    ------
    ValueError
        If ``n < 1``, if ``partition`` is not a partition of ``{1, ..., n}``, or if it is
        crossing.

    Notes
    -----
    K(π) is the largest σ on ``{1̄, ..., n̄}`` such that π ∪ σ is non-crossing on the
    interleaved set ``1 1̄ 2 2̄ … n n̄`` (Nica & Speicher 2006, Definition 9.21). In
    permutation form K(π) = π⁻¹ γ with γ = (1 2 … n) and each block of π read as an
    increasing cycle (Nica & Speicher 2006, Remark 18.2). Always |π| + |K(π)| = n + 1, and
    K² is rotation by one step.

    Examples
    --------
    >>> kreweras_complement([(1, 3), (2,)], 3)
    ((1, 2), (3,))
    >>> kreweras_complement([(1,), (2,), (3,)], 3)
    ((1, 2, 3),)
    """
    n = positive_integer("n", n)
    blocks = _check_partition(partition, n)
    if not is_noncrossing(blocks):
        raise ParameterError("partition", f"partition must be non-crossing, got {partition!r}")
    pi_inv = {}
    for b in blocks:
        for i, x in enumerate(b):
            pi_inv[x] = b[i - 1]  # inverse of the increasing cycle
    perm = {i: pi_inv[i % n + 1] for i in range(1, n + 1)}  # π⁻¹ ∘ γ
    seen = set()
    out = []
    for i in range(1, n + 1):
        if i in seen:
            continue
        cyc = []
        j = i
        while j not in seen:
            seen.add(j)
            cyc.append(j)
            j = perm[j]
        out.append(tuple(sorted(cyc)))
    return tuple(sorted(out))


@functools.lru_cache(maxsize=None)
def _boxtimes_table(n):
    """Counter {(block sizes of π, block sizes of K(π)): multiplicity} over NC(n)."""
    table = Counter()
    for pi in noncrossing_partitions(n):
        k = kreweras_complement(pi, n)
        table[(tuple(sorted(len(b) for b in pi)), tuple(sorted(len(b) for b in k)))] += 1
    return tuple(sorted(table.items()))


# ---------------------------------------------------------------------------
# moments <-> free cumulants
# ---------------------------------------------------------------------------

def moments_from_free_cumulants(kappa):
    r"""Moments ``[m_1, ..., m_N]`` of a law with free cumulants ``[κ_1, ..., κ_N]``.

    Parameters
    ----------
    kappa : sequence of scalars, length N >= 1
        Free cumulants from order one. Any ring elements: int, Fraction, sympy numbers or
        expressions (exact), float, numpy or mpmath scalars.

    Returns
    -------
    list, length N
        Moments ``m_1 .. m_N`` in the arithmetic of the inputs (sympy results expanded).

    Raises
    ------
    ValueError
        If ``kappa`` is empty.

    Notes
    -----
    Uses the functional equation :math:`M(z) = 1 + \sum_{s\ge1} \kappa_s z^s M(z)^s`,
    :math:`M(z) = 1 + \sum_n m_n z^n` (Nica & Speicher 2006, Theorem 16.15; Mingo &
    Speicher 2017, §2.4), i.e. the recursion

    .. math:: m_n = \sum_{s=1}^n \kappa_s \sum_{i_1+\dots+i_s = n-s} m_{i_1}\cdots m_{i_s},

    with :math:`m_0 = 1`, in O(N³) operations, instead of summing κ_π over NC(n).

    Examples
    --------
    >>> moments_from_free_cumulants([0, 1, 0, 0, 0, 0])  # semicircle: Catalan numbers
    [0, 1, 0, 2, 0, 5]
    >>> moments_from_free_cumulants([1, 1, 1, 1])  # free Poisson of rate one
    [1, 2, 5, 14]
    """
    kappa = _sequence("kappa", kappa)
    N = len(kappa)
    one = _one_like(kappa[0])
    zero = one * 0
    m = [one]  # m[0] = 1
    # P[s][k] = [z^k] M(z)^s, filled column by column as moments become known
    P = [[one] + [zero] * N] + [[zero] * (N + 1) for _ in range(N)]
    for s in range(1, N + 1):
        P[s][0] = one
    for n in range(1, N + 1):
        acc = zero
        for s in range(1, n + 1):
            acc = acc + kappa[s - 1] * P[s][n - s]
        m.append(_tidy(acc))
        # column n of P: [z^n] M^s = sum_{i=0}^n m_i [z^{n-i}] M^{s-1}
        for s in range(1, N + 1):
            acc = zero
            for i in range(n + 1):
                acc = acc + m[i] * P[s - 1][n - i]
            P[s][n] = _tidy(acc)
    return m[1:]


def free_cumulants_from_moments(m):
    r"""Free cumulants ``[κ_1, ..., κ_N]`` of a law with moments ``[m_1, ..., m_N]``.

    Parameters
    ----------
    m : sequence of scalars, length N >= 1
        Moments from order one (``m_0 = 1`` implicit). Same scalar types as
        :func:`moments_from_free_cumulants`.

    Returns
    -------
    list, length N
        Free cumulants ``κ_1 .. κ_N``.

    Raises
    ------
    ValueError
        If ``m`` is empty.

    Notes
    -----
    Inverts the recursion of :func:`moments_from_free_cumulants`: the coefficient of
    :math:`\kappa_n` in :math:`m_n` is :math:`[z^0] M^n = 1`, so
    :math:`\kappa_n = m_n - \sum_{s=1}^{n-1} \kappa_s [z^{n-s}] M(z)^s`, where the powers
    of M only involve the given moments (Nica & Speicher 2006, Lecture 11 and Theorem
    16.15). No division is performed, so the map is exact over any ring.

    Examples
    --------
    >>> free_cumulants_from_moments([0, 1, 0, 2, 0, 5])
    [0, 1, 0, 0, 0, 0]
    """
    m = _sequence("m", m)
    N = len(m)
    one = _one_like(m[0])
    zero = one * 0
    P = _series_powers([one] + m, N, N, one)
    kappa = []
    for n in range(1, N + 1):
        acc = m[n - 1]
        for s in range(1, n):
            acc = acc - kappa[s - 1] * P[s][n - s]
        kappa.append(_tidy(acc + zero))
    return kappa


# ---------------------------------------------------------------------------
# operations on free cumulants
# ---------------------------------------------------------------------------

def boxplus_free_cumulants(kappa_a, kappa_b):
    r"""Free cumulants of μ ⊞ ν: free cumulants add (Nica & Speicher 2006, Prop. 12.3).

    Parameters
    ----------
    kappa_a, kappa_b : sequence of scalars, length >= 1
        Free cumulants of the two laws from order one.

    Returns
    -------
    list
        ``[κ_q(a) + κ_q(b)]`` for q up to ``min(len(kappa_a), len(kappa_b))``.

    Examples
    --------
    >>> boxplus_free_cumulants([0, 1, 0], [0, 1, 0])  # semicircle ⊞ semicircle
    [0, 2, 0]
    """
    a = _sequence("kappa_a", kappa_a)
    b = _sequence("kappa_b", kappa_b)
    return [_tidy(x + y) for x, y in zip(a, b)]


def boxtimes_free_cumulants(kappa_a, kappa_b):
    r"""Free cumulants of the product ``ab`` of free ``a`` and ``b`` (law μ ⊠ ν).

    Parameters
    ----------
    kappa_a, kappa_b : sequence of scalars, length >= 1
        Free cumulants of a and b from order one.

    Returns
    -------
    list
        ``κ_1(ab) .. κ_N(ab)`` with ``N = min(len(kappa_a), len(kappa_b))``.

    Raises
    ------
    ValueError
        If either sequence is empty.

    Notes
    -----
    .. math:: \kappa_n(ab) = \sum_{\pi \in NC(n)} \kappa_\pi[a]\, \kappa_{K(\pi)}[b],

    with :math:`\kappa_\pi = \prod_{V\in\pi}\kappa_{|V|}` and K the Kreweras complement
    (Nica & Speicher 2006, Theorem 14.4). This enumerates NC(n) (Catalan(n) terms, grouped
    by block-size types and cached), which is deliberately independent of the
    S-transform route and fine for N up to about 10. Over a tracial state the result is
    symmetric in a and b.

    Examples
    --------
    >>> from freeattn.transforms.cumulants import moments_from_free_cumulants as mom
    >>> mom(boxtimes_free_cumulants([1] * 5, [1] * 5))  # MP_1 ⊠ MP_1: Fuss–Catalan
    [1, 3, 12, 55, 273]
    """
    a = _sequence("kappa_a", kappa_a)
    b = _sequence("kappa_b", kappa_b)
    N = min(len(a), len(b))
    one = _one_like(a[0]) * _one_like(b[0])
    out = []
    for n in range(1, N + 1):
        acc = one * 0
        for (type_pi, type_k), count in _boxtimes_table(n):
            term = one * count
            for size in type_pi:
                term = term * a[size - 1]
            for size in type_k:
                term = term * b[size - 1]
            acc = acc + term
        out.append(_tidy(acc))
    return out


def compound_free_poisson_cumulants(moments_of_jump_law, rate):
    r"""Free cumulants of the compound free Poisson law π(μ, t): κ_q = t m_q(μ).

    Parameters
    ----------
    moments_of_jump_law : sequence of scalars, length >= 1
        Moments ``m_1(μ), m_2(μ), ...`` of the jump law μ.
    rate : scalar
        The rate t > 0 (a sympy symbol is accepted and not checked).

    Returns
    -------
    list
        ``[t m_1(μ), t m_2(μ), ...]``.

    Raises
    ------
    ValueError
        If the sequence is empty or a numeric ``rate`` is not > 0.

    Notes
    -----
    Nica & Speicher (2006), Proposition 12.11; π_t = π(δ₁, t) has κ_q = t; Lemma C.1 of
    arXiv 2610.10033 (Z D_m Zᵀ/n → π(ν, t)).

    Examples
    --------
    >>> compound_free_poisson_cumulants([1, 1, 1], 2)  # π_2
    [2, 2, 2]
    """
    mu = _sequence("moments_of_jump_law", moments_of_jump_law)
    if not (_is_sympy(rate) and not rate.is_number):
        positive("rate", rate)
    return [_tidy(rate * x) for x in mu]


def dilate_cumulants(kappa, c):
    r"""Free cumulants of the dilation D_c μ (law of cX): κ_q ↦ c^q κ_q.

    Parameters
    ----------
    kappa : sequence of scalars, length >= 1
        Free cumulants of X from order one.
    c : scalar
        Dilation factor (any scalar, including symbols).

    Returns
    -------
    list
        ``[c κ_1, c² κ_2, ...]``.

    Notes
    -----
    Free cumulants are multilinear (Nica & Speicher 2006, Lecture 11). Example:
    MP_y = D_y π_{1/y} has κ_q = y^{q-1}.

    Examples
    --------
    >>> from fractions import Fraction
    >>> dilate_cumulants([Fraction(1, 2)] * 3, 2)  # D_2 π_{1/2} = MP_2
    [Fraction(1, 1), Fraction(2, 1), Fraction(4, 1)]
    """
    kappa = _sequence("kappa", kappa)
    out = []
    power = _one_like(c)
    for x in kappa:
        power = power * c
        out.append(_tidy(power * x))
    return out


# ---------------------------------------------------------------------------
# formal R- and S-transform series
# ---------------------------------------------------------------------------

def r_transform_series(kappa, order=None):
    r"""Coefficients ``[r_0, ..., r_{order-1}]`` of :math:`R(w) = \sum_{q\ge0}\kappa_{q+1}w^q`.

    Parameters
    ----------
    kappa : sequence of scalars, length >= 1
        Free cumulants from order one.
    order : int, optional
        Number of coefficients (series known modulo :math:`w^{order}`); at most
        ``len(kappa)``. Default ``len(kappa)``.

    Returns
    -------
    list, length ``order``
        ``r_q = κ_{q+1}``.

    Notes
    -----
    Convention (C.4) of arXiv 2610.10033: :math:`G(R(w) + 1/w) = w`; R is additive under ⊞
    (Nica & Speicher 2006, Lecture 16; Mingo & Speicher 2017, §2.4).

    Examples
    --------
    >>> r_transform_series([0, 1, 0, 0], 2)
    [0, 1]
    """
    kappa = _sequence("kappa", kappa)
    order = _order(order, len(kappa), "kappa")
    return [_tidy(x) for x in kappa[:order]]


def _reverse_series(name, moments, order):
    """Coefficients c_0 = 0, c_1, ..., c_order of χ = ψ^{-1}, ψ(z) = Σ m_q z^q."""
    m = moments
    inv = _reciprocal(name, m[0])
    one = _one_like(m[0]) * _one_like(inv)
    zero = one * 0
    c = [zero, _tidy(inv * one)]
    # Q[j][k] = [w^k] χ(w)^j, extended one degree per step
    Q = [[one], [zero, c[1]]]
    for k in range(2, order + 1):
        Q[0].append(zero)
        for j in range(2, k + 1):
            if j == len(Q):
                Q.append([zero] * j)  # [w^k] χ^j = 0 for k < j
            acc = zero
            # [w^k] χ^j = Σ_{i>=1} c_i [w^{k-i}] χ^{j-1}
            for i in range(1, k - j + 2):
                acc = acc + c[i] * Q[j - 1][k - i]
            Q[j].append(_tidy(acc))
        acc = zero
        for j in range(2, k + 1):
            acc = acc + m[j - 1] * Q[j][k]
        c.append(_tidy(-inv * acc))
        Q[1].append(c[k])
    return c


def s_transform_series(moments, order=None):
    r"""Coefficients ``[s_0, ..., s_{order-1}]`` of the S-transform :math:`S(w)=\sum s_k w^k`.

    Parameters
    ----------
    moments : sequence of scalars, length >= 1
        Moments ``m_1, m_2, ...`` with ``m_1 != 0``. Exact for int (promoted to
        Fraction), Fraction and sympy; numeric for float, numpy and mpmath scalars.
    order : int, optional
        Number of coefficients (S known modulo :math:`w^{order}`), at most
        ``len(moments)``; ``s_k`` needs ``m_1 .. m_{k+1}``. Default ``len(moments)``.

    Returns
    -------
    list, length ``order``
        ``s_0 = 1/m_1, s_1, ...``.

    Raises
    ------
    ValueError
        If ``moments`` is empty, ``order`` is out of range, or ``m_1 = 0`` (the
        S-transform is then not defined as a power series).

    Notes
    -----
    Conventions (C.1–C.6) of arXiv 2610.10033 and Mingo & Speicher (2017), §4.3 (Nica &
    Speicher 2006, Lecture 18): :math:`\psi(z) = \sum_{q\ge1} m_q z^q`,
    :math:`\chi = \psi^{-1}` (series reversion), :math:`S(w) = \frac{1+w}{w}\chi(w)`, so
    ``s_k = c_{k+1} + c_k`` with ``χ(w) = Σ c_k w^k``. S is multiplicative under ⊠ and
    :math:`S(w) R(wS(w)) = 1`.

    Examples
    --------
    >>> s_transform_series([1, 2, 5, 14])  # π_1 = MP_1: S(w) = 1/(1 + w)
    [Fraction(1, 1), Fraction(-1, 1), Fraction(1, 1), Fraction(-1, 1)]
    """
    m = _sequence("moments", moments)
    order = _order(order, len(m), "moments")
    c = _reverse_series("moments", m, order)
    return [_tidy(c[k + 1] + c[k]) for k in range(order)]


def moments_from_s_transform_series(s, order=None):
    r"""Moments ``[m_1, ..., m_order]`` from S-transform coefficients ``[s_0, s_1, ...]``.

    Inverse of :func:`s_transform_series`.

    Parameters
    ----------
    s : sequence of scalars, length >= 1
        Coefficients of S(w) with ``s_0 != 0``.
    order : int, optional
        Number of moments, at most ``len(s)``. Default ``len(s)``.

    Returns
    -------
    list, length ``order``

    Raises
    ------
    ValueError
        If ``s`` is empty, ``order`` is out of range or ``s_0 = 0``.

    Notes
    -----
    :math:`\chi(w) = \frac{w}{1+w} S(w)`, i.e. ``c_k = Σ_{j<k} (-1)^{k-1-j} s_j``, and ψ is
    the compositional inverse of χ (Mingo & Speicher 2017, §4.3).

    Examples
    --------
    >>> from fractions import Fraction
    >>> moments_from_s_transform_series([Fraction(1), Fraction(-1), Fraction(1)])
    [Fraction(1, 1), Fraction(2, 1), Fraction(5, 1)]
    """
    s = _sequence("s", s)
    order = _order(order, len(s), "s")
    if _is_zero(s[0]):
        raise ParameterError("s", f"s: the constant coefficient s_0 = 1/m_1 must be nonzero, got {shown(s[0])}")
    # c_1 .. c_order of χ(w) = (w/(1+w)) S(w)
    chi = []
    for k in range(1, order + 1):
        acc = s[0] * 0
        for j in range(k):
            term = s[j]
            acc = acc + (term if (k - 1 - j) % 2 == 0 else -term)
        chi.append(_tidy(acc))
    # ψ = χ^{-1}: the same reversion as for moments, applied to χ's coefficients
    psi = _reverse_series("s", chi, order)
    return psi[1:order + 1]
