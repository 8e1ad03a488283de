"""The `check` primitive: shape and bounds checks, for every lane at once (catad.backend)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .values import RT, Arr

if TYPE_CHECKING:
    from .compiler import Compiler

BIGGEST = float(np.finfo(np.float64).max)


def p_check(c: Compiler, t, cond: Arr, data, site: Arr):
    """A shape or bounds check, for every lane at once: it fails where cond is False in a
    lane that exists (every enclosing build has elements) and that a branch or a ragged
    range does not discard; the error shows the data of the first such lane. A statement
    of its own, so dead-code elimination keeps it. math's overflow test of r = f(x) is
    runtime.check_range of r and x: one pass over r where it is finite (the test's own
    arrays are then dead code)."""
    d = c.depth
    mask = "None" if c.mask is None else c.lift(c.mask, d).code
    lanes = "".join(n + ", " for n in c.sizes)

    def code(x):
        if isinstance(x, tuple):
            return "(" + "".join(code(y) + ", " for y in x) + ")"
        if isinstance(x, RT):  # (a loop's value held at run time: no batch axes; the message shows it)
            return x.code
        return c.lift(x, d).code
    overflow = overflow_test(c, cond)
    if overflow is not None:
        r, xs = overflow
        test = f"check_range({c.lift(r, d).code}, {code(tuple(xs))}, "
    else:
        test = f"check_ok({c.lift(cond, d).code}, "
    line = f"{test}{mask}, ({lanes}), {site.code}, {code(data)})"
    if not any(line in scope for scope in c.memo):  # a reverse program reads the primal's twice
        c.emit(line)
        c.memo[-1][line] = None
    return ()


def overflow_test(c: Compiler, cond: Arr) -> tuple | None:
    """(r, [x1, ...]) when cond was made (c.logic) as not(|r| > MAX and |x1| <= MAX and ...), MAX
    the largest float: the front end's test that math.f(x) overflowed (frontend/calls.py,
    _in_range and Python's float **); None otherwise."""
    how = c.logic.get(cond.code)
    if how is None or how[0] != "not":
        return None
    r, xs = None, []
    for term in _conjuncts(c, how[1]):
        test = c.logic.get(term.code, ())
        if len(test) != 3 or test[0] not in ("gt", "le") or not _biggest(c, test[2]):
            return None
        of = c.logic.get(test[1].code, ())
        if len(of) != 2 or of[0] != "abs":
            return None
        if test[0] == "le":
            xs.append(of[1])
        elif r is None:
            r = of[1]
        else:
            return None
    return None if r is None else (r, xs)


def _conjuncts(c: Compiler, x: Arr) -> list:
    """The terms of a conjunction (c.logic's "and"s), the constant True left out."""
    how = c.logic.get(x.code)
    if how is not None and how[0] == "and":
        return _conjuncts(c, how[1]) + _conjuncts(c, how[2])
    return [] if x.code == "True" else [x]


def _biggest(c: Compiler, k: Arr) -> bool:
    return c.float_constant(k) == BIGGEST
