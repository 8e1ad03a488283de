"""Reductions of arrays as NumPy makes them (sum, max, min along an axis or of everything; mean;
the number of elements), and arrays filled with a constant (np.zeros, np.ones).

``Reductions`` is a part of :class:`catad.frontend.build.Builder`.
"""
from __future__ import annotations

from ..errors import Loc
from ..lang.terms import Build, Const, Let, Term, make_lets
from ..lang.types import Int, rank
from ..primitives import prim
from .common import ZERO, all_, index_chain


class Reductions:
    """Uses the Builder's shapes, var, share, share_all, size, to_float and check."""

    def reduce_axis(self, m: Term, axis: int, reduce: str, loc: Loc | None, wrap=None) -> Term:
        """NumPy's reduction of atom m along `axis` by the primitive `reduce` (sum, vmax or vmin):
        builds over the other axes around the reduction of the values along `axis`. `wrap`
        (vmax, vmin): a function of each lane's reduction making the element (a guard)."""
        r = rank(m.type)
        lead = [self.var(Int, loc, "_i") for _ in range(axis)]
        wrap = wrap or (lambda t: t)
        if axis == r - 1 or reduce == "sum":
            body = wrap(prim(reduce, index_chain(m, lead, loc), loc=loc))  # sum adds the rows: NumPy's axis 0
        else:
            trail = [self.var(Int, loc, "_j") for _ in range(axis + 1, r)]
            k = self.var(Int, loc, "_k")
            body = wrap(prim(reduce, Build(self.size(m, axis, loc), k, index_chain(m, lead + [k] + trail, loc), loc),
                             loc=loc))
            for q, j in reversed(list(zip(range(axis + 1, r), trail))):
                body = Build(self.size(m, q, loc), j, body, loc)
        for q, i in reversed(list(enumerate(lead))):
            body = Build(self.size(m, q, loc), i, body, loc)
        return body

    def reduce_all(self, m: Term, reduce: str, loc: Loc | None) -> Term:
        """vmax or vmin of every element of atom m, row by row."""
        if rank(m.type) == 1:
            return prim(reduce, m, loc=loc)
        i, row = self.var(Int, loc, "_i"), self.var(m.type.elem, loc)
        of_row = Let(row, prim("index", i, m, loc=loc), self.reduce_all(row, reduce, loc), loc)
        return prim(reduce, Build(self.size(m, 0, loc), i, of_row, loc), loc=loc)

    def sum_all(self, t: Term, loc: Loc | None) -> Term:
        for _ in range(rank(t.type)):
            t = prim("sum", t, loc=loc)  # a matrix sums to its column sums, then to a scalar
        return t

    def count(self, a: Term, loc: Loc | None) -> Term:
        """Number of elements of atom a."""
        n = self.size(a, 0, loc)
        for axis in range(1, rank(a.type)):
            n = prim("mul", n, self.size(a, axis, loc), loc=loc)
        return n

    def mean(self, t: Term, loc: Loc | None) -> Term:
        return self.share(t, lambda a: prim("div", self.to_float(self.sum_all(a, loc), loc),
                                            self.to_float(self.count(a, loc), loc), loc=loc), loc)

    def filled(self, dims: list[Term], value: Const, loc: Loc | None, construct: str = "np.zeros") -> Term:
        """np.zeros / np.ones: nested builds of a constant (a negative length is NumPy's error)."""
        def body(*ns):
            nonneg = [prim("le", ZERO, n, loc=loc) for n in ns if not self.shapes.at_most(ZERO, n)]
            chk = self.check(all_(nonneg), tuple(ns), loc, construct, "negative dimensions are not allowed")
            out: Term = value
            for n, i in reversed([(n, self.var(Int, loc, "_i")) for n in ns]):
                out = Build(n, i, out, loc)
            return make_lets(chk, out)
        return self.share_all(dims, body, loc)
