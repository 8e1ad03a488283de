"""brentq's root and stop_gradient (catad/primitives/roots.py) in compiled code.

A root is SciPy's scalar computation, one call per root: outside vectorised builds it is one
call of the kernel; inside one (a root per lane) the build is a Python loop (Unvectorisable),
which explain reports. stop_gradient is its argument (its derivative is zero).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .values import ZERO, Arr, Unvectorisable

if TYPE_CHECKING:
    from .compiler import Compiler


def p_brentq(c: Compiler, t, *args):
    if any(not isinstance(a, Arr) or a.depth > 0 for a in args):
        raise Unvectorisable("a root found by scipy.optimize.brentq in each lane")
    code = ", ".join(a.code for a in args)
    return Arr(c.assign(f"brentq({code})", "root"), 0, frozenset(), 0, "f")


def p_stop_gradient(c: Compiler, t, x):
    return x


def p_implicit_root(c: Compiler, t, *args):
    """A mark of brentq's root or of its derivatives: its last argument (no code), or the zero
    tangent for implicit_zero_dK (catad/primitives/roots.py)."""
    return ZERO if t.fn.startswith("implicit_zero") else args[-1]
