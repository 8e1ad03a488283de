"""Ints that leave int64: catad computes Ints in int64, where Python's ints grow without bound
and NumPy's int64 wraps around silently. Where + - * ** written in the user's code could leave
int64, a run-time check raises RangeError (also an OverflowError) instead of the wrapped number,
a silently wrong result.

Each Int term may carry an :class:`IntBound`: a bound of its magnitude known while compiling
(`static`); whether that bound is a fact (`known`: literals, ranges of literals and arithmetic
of these) or an assumption about a plain Int (an argument, a length, a loop counter, a helper's
parameter or result: below ORDINARY, lengths below SIZE); a Float term bounding it at run time
that reads only what the term's scope reads (`dynamic`: a range variable's is its range's
bounds, read outside the comprehension, so a check of ``i ** 30`` runs once, not at every
element); whether it was made by * or ** and may be 2**62 or more (`big`); and whether it is
never negative (`nonneg`: literals >= 0, lengths, a range's variable counting up from such a
start, and + * ** // % of these), so that Python's ``2 ** i`` is an Int (a negative power of
an int is a float in Python: an exponent not known to be >= 0 makes a Float).

Checked where the static bound reaches 2**63: every ``**`` (``n ** 40``); ``*`` unless both
operands are plain (``n * 10**18`` is, ``n * d`` of two lengths is not: catad assumes the
product of two plain Ints fits, as it does for the sizes it computes); ``+`` and ``-`` where an
operand is big (a sum of products) or both are known. A loop's Int state that a product
updates is big (``k = k * i``: a factorial), so its products are checked (loops.py, the second
time it lowers the body).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..lang.terms import Const, If, Term, Var, free_vars, make_lets
from ..lang.types import Bool, Float, Int
from ..primitives import prim
from .common import or_

ORDINARY = 2.0 ** 62
# The length of an axis, or an array's size, is taken to be below 2**48: an array with more
# elements along an axis is neither allocated nor iterated over in practice (only a view made by
# broadcasting, or an empty array, could have one)
SIZE = 2.0 ** 48
# below 2**63 by a margin that covers the float rounding of a bound (2**24 of 2**63)
LIMIT = 2.0 ** 63 - 2.0 ** 24
CHECKED = ("add", "sub", "mul", "pow")
_MESSAGE = ("integer overflow: {s} of Ints reaches {{0}} here, beyond the 64 bits of catad's Ints (Python's int "
            "would be exact; NumPy's int64 wraps around); compute it in floats, e.g. float(a) {s} b")


@dataclass(frozen=True)
class IntBound:
    static: float
    dynamic: Term | float | None = None
    big: bool = False
    known: bool = False
    state: str | None = None  # a loop's Int state, by name: a product of it makes it big (loops.py)
    nonneg: bool = False


PLAIN = IntBound(ORDINARY)  # an Int nothing is known about
BIG = IntBound(LIMIT, big=True)  # a loop's state that products update (loops.py)


def bound_of(lw, t: Term) -> IntBound:
    known = lw.int_bound(t)
    if known is not None:
        return known
    if isinstance(t, Const) and t.type in (Int, Bool):
        v = float(abs(int(t.value)))
        return IntBound(v, v, known=True, nonneg=int(t.value) >= 0)
    return PLAIN


def range_bound(lw, start: Term, stop: Term, last: Term, loc, nonneg: bool = False, down: bool = False) -> IntBound:
    """The bound of a variable of range(start, stop): from start to last = stop - 1 (never
    negative where the start is not, `nonneg`: the step is positive); `down`: of a negative step,
    to last = stop + 1 (never negative where `nonneg` says: the stop is at least -1)."""
    s, e = bound_of(lw, start), bound_of(lw, stop)
    dyn = larger(magnitude(lw, start, loc), magnitude(lw, last, loc), loc)
    return IntBound(max(s.static, e.static + 1), dyn, known=s.known and e.known,
                    nonneg=nonneg if down else nonneg or s.nonneg)


def state_bound(name: str, big: bool) -> IntBound:
    """The bound of a loop's Int state: big once a product of it updates it (multiplied, which
    arith fills), plain otherwise (a counter's sums are taken to fit, as other plain Ints' are)."""
    return IntBound(LIMIT, big=True, state=name) if big else IntBound(ORDINARY, state=name)


def size(lw, t: Term) -> Term:
    """t, the length of an axis or an array's size (see SIZE): one of Python's own ints."""
    return lw.as_py(lw.with_int_bound(t, IntBound(SIZE, nonneg=True)))


def quotient(lw, name: str, a: Term, b: Term, out: Term) -> None:
    """Notes the bound of out = a // b or a % b of Ints: |a // b| <= max(|a|, 1) (b a nonzero
    Int; |a| / |b| + 1 for a constant b), |a % b| < |b|."""
    ba, bb = bound_of(lw, a), bound_of(lw, b)
    if name == "mod":
        static, known = bb.static, bb.known
    elif isinstance(b, Const) and b.value != 0:
        static, known = ba.static / abs(b.value) + 1, ba.known
    else:
        static, known = max(ba.static, 1.0), ba.known
    # Python's a % b has b's sign; a // b of a >= 0 by b > 0 is >= 0
    nonneg = isinstance(b, Const) and b.value > 0 and (name == "mod" or ba.nonneg)
    lw.with_int_bound(out, IntBound(static, known=known, nonneg=nonneg))


def arith(lw, name: str, a: Term, b: Term, loc, symbol: str, compute) -> Term:
    """a op b (name in CHECKED) by compute, checked where it could leave int64 (on the atoms a
    and b are bound to), and noted with its bound."""
    ba, bb = bound_of(lw, a), bound_of(lw, b)
    exponent = b.value if name == "pow" and isinstance(b, Const) else None
    if exponent is not None and exponent < 0:
        return compute(a, b)  # a float in Python, NumPy's error for Ints (compute says which)
    static = _op(name, ba.static, bb.static if exponent is None else exponent)
    product = name in ("mul", "pow")
    if product:
        lw.multiplied.update(x.state for x in (ba, bb) if x.state is not None)
    big = product and static >= ORDINARY or ba.big or bb.big
    known = ba.known and bb.known
    nonneg = name != "sub" and ba.nonneg and bb.nonneg
    checked_here = name == "pow" or ba.big or bb.big or (ba.known or bb.known if name == "mul" else known)
    if static < LIMIT or not checked_here:
        # no check: the operands stay where they are (no lets: the loops' patterns read them)
        mx = ba.dynamic if ba.dynamic is not None else magnitude(lw, a, loc) if _atom(a) else None
        my = bb.dynamic if bb.dynamic is not None else magnitude(lw, b, loc) if _atom(b) else None
        dyn = None if mx is None or my is None or name == "pow" and exponent is None else \
            _op(name, mx, exponent if exponent is not None else my, loc)
        return lw.with_int_bound(compute(a, b), IntBound(static, dyn, big, known, nonneg=nonneg))

    def checked(x, y):
        mx = ba.dynamic if ba.dynamic is not None else magnitude(lw, x, loc)
        my = bb.dynamic if bb.dynamic is not None else magnitude(lw, y, loc)
        power = exponent if exponent is not None else lw.b.to_float(y, loc)
        dyn = _op(name, mx, power if name == "pow" else my, loc)
        fits = dyn < LIMIT if not isinstance(dyn, Term) else prim("lt", dyn, Const(LIMIT, Float, loc), loc=loc)
        if fits is not True:
            fits = fits if isinstance(fits, Term) else Const(False, Bool, loc)
            if name == "pow" and exponent is None:  # a negative power: a float in Python
                fits = or_(prim("lt", y, Const(0, Int, loc), loc=loc), fits)
            shown = dyn if isinstance(dyn, Term) else Const(float(dyn), Float, loc)
            out = make_lets(lw.b.check(fits, (shown,), loc, symbol, _MESSAGE.format(s=symbol.split()[-1]), "range"),
                            compute(x, y))
        else:
            out = compute(x, y)
        # a later operation reads the dynamic bound only where it reads nothing bound here
        own = {x.name for x, t in ((x, a), (y, b)) if isinstance(x, Var) and x is not t}
        keep = not isinstance(dyn, Term) or not own or not own & {v.name for v in free_vars(dyn)}
        return lw.with_int_bound(out, IntBound(min(static, LIMIT), dyn if keep else None, big, known, nonneg=nonneg))
    return lw.b.share_all([a, b], checked, loc)


def magnitude(lw, x: Term, loc) -> Term | float:
    """|x| of an Int x as a Float (exact below 2**53, rounded to nearest above), or known while compiling."""
    if isinstance(x, Const):
        return float(abs(int(x.value)))
    return prim("abs", lw.b.to_float(x, loc), loc=loc)


def larger(x: Term | float, y: Term | float, loc) -> Term | float:
    """max(x, y) of magnitude bounds (floats, or Float terms)."""
    if not isinstance(x, Term) and not isinstance(y, Term):
        return max(x, y)
    x, y = _term(x, loc), _term(y, loc)
    return If(prim("lt", x, y, loc=loc), y, x, loc)


def _op(name: str, x: Term | float, y: Term | float, loc=None) -> Term | float:
    """x + y (for + and -), x * y or x ** y of magnitude bounds: floats, or Float terms."""
    op = "add" if name == "sub" else name
    if not isinstance(x, Term) and not isinstance(y, Term):
        if op != "pow":
            return x + y if op == "add" else x * y
        try:
            return x ** y
        except OverflowError:
            return math.inf
    return prim(op, _term(x, loc), _term(y, loc), loc=loc)


def _term(v: Term | float, loc) -> Term:
    """A bound as a Float term (a float known while compiling made a constant)."""
    return v if isinstance(v, Term) else Const(float(v), Float, loc)


def _atom(t: Term) -> bool:
    return isinstance(t, (Var, Const))
