"""Roots by SciPy: the ``brentq`` primitive's run-time side.

``brentq(site, a, b, xtol, rtol, maxiter, *values)`` is ``scipy.optimize.brentq(f, a, b,
args=extra, xtol=xtol, rtol=rtol, maxiter=maxiter)`` with ``f`` the user's own function, made
again from its source (:class:`RootSite`) with the values it reads from the compiled function
(its closure) passed in: the root is SciPy's, computed from the user's function exactly as
Python would call it, and SciPy's errors (no sign change on the bracket, a tolerance too small,
no convergence) are SciPy's own. Its derivative is zero; the front end adds the implicit
function theorem's (catad/frontend/roots.py). SciPy is imported only when a root is computed
(the user's function imported scipy.optimize).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True, eq=False)
class RootSite:
    """A call of scipy.optimize.brentq in the user's source: ``make(*closure)`` makes the
    function given to it (a lambda or def of the compiled function, made again from its
    source with the values it reads passed in; or the module-level function itself, which
    takes none), ``n_closure`` of the primitive's values are those, the others brentq's
    ``args``; ``options`` are brentq's keyword arguments known while compiling (disp)."""

    make: Callable[..., Callable]
    n_closure: int
    name: str
    loc: Any = None
    options: tuple = ()

    def root(self, a, b, xtol, rtol, maxiter, values: tuple) -> float:
        import scipy.optimize
        f = self.make(*values[:self.n_closure])
        return float(scipy.optimize.brentq(f, a, b, args=tuple(values[self.n_closure:]), xtol=xtol, rtol=rtol,
                                           maxiter=int(maxiter), **dict(self.options)))

    def __str__(self) -> str:
        where = f" line {self.loc.line}" if self.loc is not None else ""
        return f"<brentq of {self.name}{where}>"


def brentq_kernel(site: RootSite, a, b, xtol, rtol, maxiter, *values) -> float:
    """The primitive's implementation (the reference one and the compiled code's)."""
    return site.root(a, b, xtol, rtol, maxiter, values)


def stop_gradient_kernel(x):
    return x


# Marks of brentq's root and of its derivatives' order (catad/frontend/roots.py: the root is exact
# to the third derivative; catad.ad.rules refuses the fourth). implicit_root(x) = x marks the
# root x; implicit_root_dK(x, v) = v marks a value of a derivative of order K, and
# implicit_zero_dK(x, v, w) = 0 is the zero map a mark's derivative in x is. Every one of them
# reads the root x, whose tangent is not zero, so each derivative program holds the marks of the
# next order, in forward and reverse mode alike.
ORDERS = 4
IMPLICIT_MARKS = ("implicit_root",) + tuple(f"implicit_root_d{k}" for k in range(1, ORDERS))
IMPLICIT_ZEROS = tuple(f"implicit_zero_d{k}" for k in range(1, ORDERS))


def implicit_root_kernel(*xs):
    """The identity on its last argument (the marked value)."""
    return xs[-1]


def implicit_zero_kernel(x, v, w):
    """Zero (the derivative of a mark in the root it reads)."""
    from ..tangents import ZERO
    return ZERO
