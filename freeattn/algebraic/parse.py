"""A polynomial given as text, parsed by a restricted grammar (never evaluated as Python).

``sympy.sympify`` evaluates a string with Python's ``eval`` (after its own rewriting), so a
string such as ``"__import__('os').system('…') or z*G - 1"`` would run a shell command; it also
turns an arbitrary object into a string and evaluates that.  Here the text is parsed with
:mod:`ast` and only these nodes are accepted:

- integer and decimal literals (a decimal such as ``0.1`` is the exact rational 1/10),
- the names of the allowed symbols (``G``, ``z`` and the law's named parameters),
- ``+``, ``-`` (binary and unary), ``*``, ``/`` by a non-zero constant, ``**`` with a
  non-negative integer exponent, and parentheses.

Anything else (calls, attributes, subscripts, other names, comparisons, lambdas, …) is refused
with a :class:`~freeattn._validation.ParameterError` naming the argument.
"""
from __future__ import annotations

import ast
import numbers

import sympy as sp

from .._messages import shown
from .._validation import ParameterError, ParameterTypeError
from .polynomial import G, z

__all__ = ["parse_polynomial", "as_polynomial", "MAX_TEXT_LENGTH", "MAX_EXPONENT"]

#: longest accepted text (a bound on parsing time; the package's own polynomials are < 2k)
MAX_TEXT_LENGTH = 100_000
#: largest accepted exponent in ``**`` (a bound on the expansion's size)
MAX_EXPONENT = 64


def _refuse(param, detail):
    raise ParameterError(param, f"{param}: {detail}; a polynomial is written with integers, "
                                "decimals, the symbols G, z and the named parameters, + - * / "
                                "and ** (non-negative integer powers) only")


def _node(node, names, param):
    if isinstance(node, ast.Expression):
        return _node(node.body, names, param)
    if isinstance(node, ast.Constant):
        v = node.value
        if type(v) is int:
            return sp.Integer(v)
        if type(v) is float:
            text = ast.get_source_segment(names["__text__"], node) or repr(v)
            return sp.Rational(text.replace("_", ""))
        _refuse(param, f"the literal {v!r} is not a number")
    if isinstance(node, ast.Name):
        if node.id in names and node.id != "__text__":
            return names[node.id]
        _refuse(param, f"unknown name {node.id!r} (allowed: "
                       f"{', '.join(sorted(k for k in names if k != '__text__'))})")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _node(node.operand, names, param)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        left = _node(node.left, names, param)
        right = _node(node.right, names, param)
        if isinstance(node.op, ast.Add):
            return left + right
        if isinstance(node.op, ast.Sub):
            return left - right
        if isinstance(node.op, ast.Mult):
            return left * right
        if isinstance(node.op, ast.Div):
            if not right.is_number or right == 0:
                _refuse(param, "division only by a non-zero constant")
            return left / right
        if isinstance(node.op, ast.Pow):
            if not (right.is_Integer and 0 <= right <= MAX_EXPONENT):
                _refuse(param, f"exponents must be integers in [0, {MAX_EXPONENT}], "
                               f"got {right}")
            return left**right
    _refuse(param, f"{type(node).__name__} is not allowed")


def parse_polynomial(text, parameters=(), param="polynomial"):
    """Parse ``text`` as a polynomial in G, z and the named ``parameters`` (restricted
    grammar, see the module notes).

    Parameters
    ----------
    text : str
    parameters : iterable of sympy Symbol
        The symbols the text may name besides ``G`` and ``z`` (by their names).
    param : str
        The argument's name in error messages.

    Returns
    -------
    sympy expression

    Raises
    ------
    ParameterError
        ``.param == param``: a syntax error, or a node outside the grammar.
    """
    if len(text) > MAX_TEXT_LENGTH:
        raise ParameterError(param, f"{param}: text longer than {MAX_TEXT_LENGTH} characters")
    names = {"G": G, "z": z, "__text__": text}
    for s in parameters:
        names[str(s)] = s
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as err:
        raise ParameterError(param, f"{param}: cannot parse {shown(text)} ({err.msg})") from None
    names["__text__"] = text.strip()
    return _node(tree, names, param)


def as_polynomial(value, parameters=(), param="polynomial"):
    """The sympy expression of a polynomial given as a sympy expression, a Python/numpy number
    (a constant polynomial) or text (:func:`parse_polynomial`); nothing is evaluated as code.

    Raises
    ------
    ParameterTypeError
        ``.param == param`` for bytes, None, bool or any other object (sympify would turn it
        into a string and evaluate that).
    ParameterError
        For text outside the grammar.
    """
    if isinstance(value, sp.Basic):
        return value
    if isinstance(value, str):
        return parse_polynomial(value, parameters, param)
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return sp.sympify(value, strict=True)
    raise ParameterTypeError(param, f"{param} must be a sympy expression in G and z (or its "
                                    f"text), got {shown(value)}")
