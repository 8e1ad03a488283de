"""Subscripts of arrays: indices, integer-array indexing and slices, and the bounds of indices.

An index is in range when it is read: a constant one is proven from its axis's known length or
checked; one linear in the comprehensions' indices is proven from their ranges or checked once,
before the outermost comprehension it can be (``hoist``); any other is checked with the read
(checks.py says where checks go). A negative index is wrapped (``i + len``) unless proven
non-negative, and slice bounds are clipped as Python clips them.

``Indexing`` is a part of :class:`catad.frontend.build.Builder`.
"""
from __future__ import annotations

from ..errors import Loc
from ..lang.terms import Build, Const, If, Term, Var, free_vars, is_atom, make_lets
from ..lang.types import Int, rank
from ..primitives import prim
from .checks import Frame
from .common import ONE, ZERO, all_, and_, any_, index_chain, or_
from .shapes import Dim, fresh, lin_add, lin_const, simple


def _lin_of(items: dict, c: int):
    return (frozenset((k, v) for k, v in items.items() if v), c)


def _at_end(form, var: Var, last, low: bool):
    """form with var (which runs over 0 .. last) replaced by the end that makes form lowest
    (low) or highest."""
    s = dict(form[0]).get(var, 0)
    if not s:
        return form
    items = {k: c for k, c in form[0] if k != var}
    without = _lin_of(items, form[1])
    return without if (s > 0) == low else lin_add(without, last, s)


class Indexing:
    """Uses the Builder's names, shapes, frames, branch_depth, var, bound, share, share_all,
    shape, size and check."""

    def subscript(self, x: Term, items: list[tuple], loc: Loc | None, axis: int = 0) -> Term:
        """x[items] where an item is ("index", i), ("take", a) for an array a of Ints (the result
        has a's axes there), ("nonzero", a) for the positions of a mask's true elements (a take
        whose indices are in range: the mask was checked to have the axis's length) or
        ("slice", lo, hi) or ("slice", lo, hi, step) for a constant step other than 0 (None = open
        end); slices and takes become builds.
        Indices mean what they mean in Python (negative ones count from the end) and are checked
        against their axis (see index); slice bounds are clipped to the axis, as Python does."""
        if not items:
            return x
        for k, it in enumerate(items):
            if it[0] in ("take", "nonzero") and not is_atom(it[1]):  # bound once, not inside the builds of slices
                return self.share(it[1], lambda a: self.subscript(x, items[:k] + [(it[0], a)] + items[k + 1:],
                                                                  loc, axis), loc)
        item, rest = items[0], items[1:]
        if item[0] in ("take", "nonzero"):
            def take(a, ix):
                ks = [self.var(Int, loc, "_i") for _ in range(rank(ix.type))]
                if item[0] == "nonzero":  # a mask's true positions, checked to be the axis's
                    chk, i = [], index_chain(ix, ks, loc)
                else:
                    chk, i = self.index(a, index_chain(ix, ks, loc), axis, loc, in_place=True)
                out = make_lets(chk, self.subscript(prim("index", i, a, loc=loc), rest, loc, axis + 1))
                for q, k in reversed(list(enumerate(ks))):
                    out = Build(self.size(ix, q, loc), k, out, loc)
                return out
            return self.share_all([x, item[1]], take, loc)
        if item[0] == "index":
            def at(a):
                chk, i = self.index(a, item[1], axis, loc)
                return make_lets(chk, self.subscript(prim("index", i, a, loc=loc), rest, loc, axis + 1))
            return self.share(x, at, loc)

        step = item[3] if len(item) > 3 else 1
        unit = isinstance(step, int) and step == 1
        if isinstance(step, Term) and not is_atom(step):  # read three times: bound once
            return self.share(step, lambda st: self.subscript(x, [item[:3] + (st,)] + rest, loc, axis), loc)

        def sliced(a):
            bounds = self.slice_bounds if unit else lambda lo, hi, d, loc: self.stepped_slice_bounds(
                lo, hi, step, d, loc)
            binds, start, n = bounds(item[1], item[2], self.shape(a)[0], loc)
            k = self.var(Int, loc, "_i")
            pos = k if unit else prim("mul", Const(step, Int) if isinstance(step, int) else step, k, loc=loc)
            pos = pos if isinstance(start, Const) and start.value == 0 else prim("add", pos, start, loc=loc)
            return make_lets(binds, Build(n, k, self.subscript(prim("index", pos, a, loc=loc), rest, loc,
                                                               axis + 1), loc))
        return self.share(x, sliced, loc)

    def mask_checks(self, dims: list[Dim], mask: Term, axis: int, loc: Loc | None) -> list[tuple]:
        """The checks that the boolean mask (an atom) has the shape dims of the axes it indexes,
        from `axis` on (NumPy's IndexError where not: a mask is never broadcast), each axis of it
        the axis's length or 0 (NumPy's exception: a mask of no elements selects nothing, whatever
        those axes' lengths). None where its shape is proven; otherwise the sizes are not known
        equal after them."""
        mdims = self.shape(mask)
        if all(self.shapes.same(d, md) for d, md in zip(dims, mdims)):
            return []
        binds = []
        for j, (d, md) in enumerate(zip(dims, mdims)):
            if not self.shapes.same(d, md):
                ok = or_(prim("eq", d.size, md.size, loc=loc), prim("eq", md.size, ZERO, loc=loc))
                binds += self.check(ok, (d.size, md.size), loc,
                                    "index", f"boolean index did not match indexed array along axis {axis + j}; size "
                                    "of axis is {0} but size of corresponding boolean axis is {1}", "bounds")
        return binds

    def index(self, a: Term, i: Term, axis: int, loc: Loc | None, in_place: bool = False, dim: Dim | None = None):
        """(bindings, j): j is the index i of atom a's first axis (or of an axis `dim`) in range
        0 <= j < len, as Python reads it (i + len for a negative i), and the bindings check that
        -len <= i < len. A check is left out where the range is proven while compiling, and put
        before the enclosing comprehensions (one check per call, not per element) where it can be."""
        d = self.shape(a)[0] if dim is None else dim
        message = f"index {{0}} is out of bounds for axis {axis} with size {{1}}"

        def chk(cond, shown):
            return self.check(cond, (shown, d.size), loc, "index", message, "bounds")
        if isinstance(i, Const):
            c = int(i.value)
            if c >= 0:
                ok = self.shapes.at_most(Const(c + 1, Int), d.size)
                return ([] if ok else chk(prim("lt", i, d.size, loc=loc), i)), i
            ok = self.shapes.at_most(Const(-c, Int), d.size)
            j = prim("sub", fresh(d.size, loc), Const(-c, Int), loc=loc)
            return ([] if ok else chk(prim("le", Const(-c, Int), d.size, loc=loc), i)), j
        hoisted = None if in_place else self.hoist(i, d, message, loc)
        if hoisted is not None:
            return [], i if hoisted else self._wrap(i, fresh(d.size, loc), loc)
        binds = []
        if not is_atom(i):
            v = self.bound(self.var(Int, loc, "_ix"), i)
            binds, i = [(v, i, loc)], v
        inside = and_(prim("le", prim("neg", d.size, loc=loc), i, loc=loc), prim("lt", i, d.size, loc=loc))
        nonneg = lin_const(self.shapes.lin(i)) is not None and lin_const(self.shapes.lin(i)) >= 0
        return binds + chk(inside, i), i if nonneg else self._wrap(i, fresh(d.size, loc), loc)

    def _wrap(self, i: Term, n: Term, loc: Loc | None) -> Term:
        return self.share(i, lambda j: If(prim("lt", j, ZERO, loc=loc), prim("add", j, n, loc=loc), j, loc), loc)

    def hoist(self, i: Term, d: Dim, message: str, loc: Loc | None) -> bool | None:
        """Prove, or check once before an enclosing comprehension, that i is in range at every
        element; the result says whether i is never negative (None: i is not linear in the
        comprehensions' indices, and its check stays where it is).

        The extremes of i over the elements come from each index running over 0 .. size - 1,
        innermost comprehension first (a ragged range(j) is bounded by j's own extremes). What
        is not proven is checked before the outermost comprehension that i's other parts, the
        sizes in between and len are all known before, with nothing conditional in between
        (an index in a branch not taken must not raise), when every one has elements."""
        sh = self.shapes
        form = sh.lin(i)
        if not any(dict(form[0]).get(f.var) for f in self.frames) or not all(simple(k) for k, _ in form[0]):
            return None
        lo, hi = self.extremes(form, self.frames)
        nonneg = lin_const(lo) is not None and lin_const(lo) >= 0
        upper = lin_const(lin_add(hi, sh.lin(d.size), -1))
        lower = lin_const(lin_add(lo, sh.lin(d.size)))
        if upper is not None and upper <= -1 and (nonneg or lower is not None and lower >= 0):
            return nonneg
        for t, top in enumerate(self.frames):
            ours = self.frames[t:]
            others = [k for k, _ in form[0] if not any(k == f.var for f in ours)]
            if top.depth != self.branch_depth or not self._before(top, [f.size for f in ours] + [d.size] + others):
                continue
            lo, hi = self.extremes(form, ours)
            lo_t, hi_t = self.term_of(lo, loc), self.term_of(hi, loc)
            # hi < len, written hi + 1 <= len: for range(n) with v[i] that is n <= len(v)
            conds = [prim("le", self.term_of(lin_add(hi, _lin_of({}, 1)), loc), d.size, loc=loc)]
            if not nonneg:
                conds.insert(0, prim("le", prim("neg", d.size, loc=loc), lo_t, loc=loc))
            # with no elements nothing is read; an upper bound n + c <= len (c <= 0) holds then anyway
            steps = [(f, c) for k, c in form[0] for f in ours if k == f.var]
            plain = nonneg and len(ours) == 1 and steps == [(top, 1)] and form[1] <= 0 and len(form[0]) == 1
            cond = all_(conds) if plain else or_(any_([prim("le", f.size, ZERO, loc=loc) for f in ours]), all_(conds))
            shown = self.first_bad(form, ours, lo_t, hi_t, d, nonneg, loc)
            top.checks += self.check(cond, (shown, d.size), loc, "index", message, "bounds")
            return nonneg
        return None

    def extremes(self, form, frames: list[Frame]):
        """(lowest, highest) linear forms of `form` over the elements of `frames`."""
        lo = hi = form
        for f in reversed(frames):
            last = lin_add(self.shapes.lin(f.size), _lin_of({}, -1))
            lo, hi = _at_end(lo, f.var, last, low=True), _at_end(hi, f.var, last, low=False)
        return lo, hi

    def first_bad(self, form, frames, lo: Term, hi: Term, d: Dim, nonneg: bool, loc: Loc | None) -> Term:
        """The index Python would stop at, shown when the check fails: the first out of range in
        iteration order (exact for one index stepping by 1 or -1; else an extreme out of range)."""
        steps = [c for k, c in form[0] if any(k == f.var for f in frames)]
        n = d.size
        if steps == [1] and nonneg:  # only the upper end can fail
            return n if isinstance(lo, Const) and lo.value == 0 else prim("max", lo, n, loc=loc)
        if steps == [1]:
            return If(prim("lt", hi, n, loc=loc), lo, prim("max", lo, n, loc=loc), loc)
        if steps == [-1]:
            below = prim("sub", prim("neg", n, loc=loc), ONE, loc=loc)
            return If(prim("lt", hi, n, loc=loc), prim("min", hi, below, loc=loc), hi, loc)
        return If(prim("lt", hi, n, loc=loc), lo, hi, loc)

    def _before(self, frame: Frame, terms: list[Term]) -> bool:
        """Are all variables of terms bound before frame's index variable?"""
        limit = self.names.serial.get(frame.var.name, 0)
        return all(self.names.serial.get(v.name, 0) < limit for t in terms for v in free_vars(t))

    def term_of(self, form, loc: Loc | None) -> Term:
        """A linear form as a term."""
        out: Term | None = None
        for k, c in sorted(form[0], key=lambda kc: str(kc[0])):
            t = k if c == 1 else prim("mul", Const(c, Int), k, loc=loc)
            out = t if out is None else prim("add", out, t, loc=loc)
        if out is None:
            return Const(form[1], Int)
        return out if form[1] == 0 else prim("add", out, Const(form[1], Int), loc=loc)

    def slice_bounds(self, lo: Term | None, hi: Term | None, d: Dim, loc: Loc | None):
        """(bindings, start, length) of the slice lo:hi of an axis of length d, clipped as Python
        clips it (never an error: v[2:10] of a length-5 vector has 3 elements). Constant bounds
        counted from either end give the length max(d - k, 0), one term for v[1:] and v[:-1]."""
        n = d.size
        def const(t):
            return t.value if isinstance(t, Const) else None
        a = 0 if lo is None else const(lo)
        b = None if hi is None else const(hi)
        from_end = (hi is None or b is not None and b < 0) and a is not None and a >= 0
        if from_end:
            k = a + (0 if hi is None else -b)
            if k == 0:
                return [], ZERO, fresh(n, loc)
            start = ZERO if a == 0 else Const(a, Int) if self.shapes.at_most(Const(a, Int), n) else \
                prim("min", Const(a, Int), fresh(n, loc), loc=loc)
            length = prim("sub", fresh(n, loc), Const(k, Int), loc=loc)
            if not self.shapes.at_most(Const(k, Int), n):
                length = prim("max", length, ZERO, loc=loc)
            return [], start, length
        binds = []

        def atom(t):
            if t is None or is_atom(t):
                return t
            v = self.bound(self.var(Int, loc, "_s"), t)
            binds.append((v, t, loc))
            return v
        lo, hi = atom(lo), atom(hi)

        def clip(t, default):
            if t is None:
                return default
            c = const(t)
            if c == 0:
                return ZERO
            if c is not None and c > 0:
                return prim("min", t, fresh(n, loc), loc=loc)
            if c is not None:
                return prim("max", prim("add", fresh(n, loc), t, loc=loc), ZERO, loc=loc)
            return If(prim("lt", t, ZERO, loc=loc), prim("max", prim("add", fresh(n, loc), t, loc=loc), ZERO, loc=loc),
                      prim("min", t, fresh(n, loc), loc=loc), loc)
        start, stop = atom(clip(lo, ZERO)), atom(clip(hi, fresh(n, loc)))
        return binds, start, prim("max", prim("sub", stop, start, loc=loc), ZERO, loc=loc)

    def stepped_slice_bounds(self, lo: Term | None, hi: Term | None, step: Term | int, d: Dim, loc: Loc | None):
        """(bindings, start, length) of the slice lo:hi:step of an axis of length d (step an int
        other than 1 known while compiling, or an Int atom known at run time, checked not to be
        0 as Python checks it), as Python's slice.indices computes them: for a positive step the
        bounds are clipped to 0 .. len, for a negative one to -1 .. len - 1 (the default start is
        the last element, the default stop before the first); element k is start + step * k."""
        n, binds = d.size, []
        L = lambda name, *args: prim(name, *args, loc=loc)  # noqa: E731

        def atom(t):
            if t is None or is_atom(t):
                return t
            v = self.bound(self.var(t.type, loc, "_s"), t)
            binds.append((v, t, loc))
            return v
        if isinstance(step, int):
            signs, s = [step > 0], Const(abs(step), Int)
        else:
            binds += self.check(L("ne", step, ZERO), (), loc, "slice", "slice step cannot be zero", "domain")
            signs, s = [True, False], atom(L("abs", step))
        lo, hi = atom(lo), atom(hi)
        minus_one = Const(-1, Int)

        def ends(up: bool):  # (start, stop) clipped for a step of this sign
            if up:
                clip = lambda t: If(L("lt", t, ZERO), L("max", L("add", fresh(n, loc), t), ZERO),  # noqa: E731
                                    L("min", t, fresh(n, loc)), loc)
                return (ZERO if lo is None else clip(lo)), (fresh(n, loc) if hi is None else clip(hi))
            last = lambda: L("sub", fresh(n, loc), ONE)  # noqa: E731
            clip = lambda t: If(L("lt", t, ZERO), L("max", L("add", fresh(n, loc), t), minus_one),  # noqa: E731
                                L("min", t, last()), loc)
            return (last() if lo is None else clip(lo)), (minus_one if hi is None else clip(hi))

        def span(up: bool, start, stop):
            return L("sub", stop, start) if up else L("sub", start, stop)
        if len(signs) == 1:
            start, stop = ends(signs[0])
            start = atom(start)
            width = span(signs[0], start, stop)
        else:
            up = atom(L("gt", step, ZERO))
            (a1, b1), (a2, b2) = ends(True), ends(False)
            start = atom(If(up, a1, a2, loc))
            width = If(up, span(True, start, b1), span(False, start, b2), loc)
        if isinstance(s, Const) and s.value == 1:
            count = width
        else:
            count = L("floordiv", L("add", width, L("sub", s, ONE)), s)  # ceil(width / s)
        # a default start and stop leave nothing to clip: the count is never negative then
        exact = lo is None and hi is None and len(signs) == 1
        return binds, start, count if exact else L("max", count, ZERO)
