"""Elementwise operations with NumPy's broadcasting, and np.dot / @ and .T.

Shapes are aligned at their last axes; along an axis, operands of length 1 are read at 0 and
the others must have one length: proven while compiling (the same linear form), or checked once
per call before the operation, with operands whose length is only known at run time read at
``min(i, len - 1)``.

``Broadcasting`` is a part of :class:`catad.frontend.build.Builder`.
"""
from __future__ import annotations

from typing import Callable

from ..errors import CatadTypeError, Loc
from ..lang.terms import TRUE, Build, If, Term, is_atom, make_lets, rename
from ..lang.types import Int, Vec, rank
from ..primitives import prim
from .common import ONE, ZERO, all_, index_chain, or_
from .shapes import Dim, fresh


class Broadcasting:
    """Uses the Builder's shapes, equal, var, bound, share, share_all, shape, size, check and
    arith."""

    def elementwise(self, f: Callable[..., Term], operands: list[Term], loc: Loc | None,
                    construct: str = "elementwise operation") -> Term:
        """f on scalars, looped over arrays with NumPy's broadcasting: shapes are aligned at their
        last axes; along an axis, operands of length 1 are stretched (read at 0) and the others
        must have one length, proven while compiling or checked once per call.

        An operand that is a build of its own (np.sin(x) in np.sin(x) * 0.5) and is read at
        every index of the result, each once, is fused: its element stands where it is read,
        instead of a vector made and read back (the program is smaller at every later stage,
        and nothing is computed twice)."""
        infer = self.shapes.infer
        # each operand's spine (index variables, element) and inferred shape where it is fused,
        # else None (its shape is its atom's, read in body)
        spines, fused_shapes, kept = [], [], []
        for t in operands:
            spine = None if is_atom(t) else _spine(t)
            dims = infer(t) if spine is not None else None
            if spine is None or not _known(dims):
                spine = dims = None
                kept.append(t)
            spines.append(spine)
            fused_shapes.append(dims)

        def body(*atoms):
            it = iter(atoms)
            terms = [t if s is not None else next(it) for t, s in zip(operands, spines)]
            shapes = [d if d is not None else self.shape(t) for t, d in zip(terms, fused_shapes)]
            r = max(len(s) for s in shapes)
            binds, conds, plan = [], [], []
            for k in range(r):
                members = [(j, s[len(s) - r + k]) for j, s in enumerate(shapes) if len(s) >= r - k]
                out, reads, b, c = self.broadcast_axis(members, loc)
                binds += b
                conds += c
                plan.append((out, reads))
            if conds:  # (no condition: no check, and nothing it makes equal)
                message = f"{construct}: operands could not be broadcast together with shapes " + \
                    " ".join("{%d}" % j for j in range(len(terms)))
                binds += self.check(all_(conds), tuple(tuple(d.size for d in s) for s in shapes), loc, construct,
                                    message, equal=tuple(self.equal))
            self.equal.clear()
            # a build stretched or clamped somewhere (an operand read otherwise than at i) is stored after all
            stretched = {j for _, reads in plan for j, read in reads.items() if read is not _AT_I}
            for j in sorted(stretched):
                if spines[j] is not None:
                    spines[j] = None
                    v = self.bound(self.var(terms[j].type, loc), terms[j])
                    binds.insert(0, (v, terms[j], loc))
                    terms[j] = v
            # Axis k's index: the index variable of the first build fused along it (its element
            # then stands as it is, not renamed; the front end's binders are all distinct, so
            # nothing else reads it), else a fresh one.
            binders = []
            for k in range(r):
                for spine in spines:
                    if spine is not None and len(spine[0]) >= r - k:
                        binders.append(spine[0][k - (r - len(spine[0]))])
                        break
                else:
                    binders.append(self.var(Int, loc, "_i"))
            elements = []
            for j, (t, spine) in enumerate(zip(terms, spines)):
                ix = [reads[j](i) for (_, reads), i in zip(plan, binders) if j in reads]  # how t is read at the element
                if spine is None:
                    elements.append(index_chain(t, ix, loc))
                else:
                    moved = {a: b for a, b in zip(spine[0], ix) if a is not b}
                    elements.append(rename(spine[1], moved) if moved else spine[1])
            out = f(*elements)
            for (dim, _), i in zip(reversed(plan), reversed(binders)):
                out = Build(fresh(dim.size, loc), i, out, loc)
            return make_lets(binds, out) if binds else out
        return self.share_all(kept, body, loc)

    def broadcast_axis(self, members: list[tuple[int, Dim]], loc: Loc | None):
        """One axis of a broadcast: (its Dim, how each operand j reads it at index i, bindings,
        conditions the check must hold). Operands of length 1 read index 0; of the others,
        those of one proven length read i, and a length not known to differ from 1 reads
        min(i, length - 1): i where it is the broadcast length, 0 where it is 1."""
        if len(members) == 1:  # most axes: one array along it (the others are scalars)
            return members[0][1], {members[0][0]: _AT_I}, [], []
        sh = self.shapes
        at_i, at_zero = _AT_I, _AT_ZERO
        rest = [(j, d) for j, d in members if d.one is not True]
        if not rest:
            return members[0][1], {j: at_i for j, _ in members}, [], []
        reads = {j: at_zero for j, d in members if d.one is True}
        classes: list[list[tuple[int, Dim]]] = []
        for j, d in rest:
            home = next((c for c in classes if sh.same(c[0][1], d)), None)
            if home is None:
                classes.append([(j, d)])
            else:
                home.append((j, d))
        if len(classes) == 1:
            reads.update({j: at_i for j, _ in rest})
            return classes[0][0][1], reads, [], []
        known = [c for c in classes if any(d.one is False for _, d in c)]
        is_known = lambda c: any(c is k for k in known)
        binds, conds = [], []
        if known:
            out = next(d for _, d in known[0] if d.one is False)
            for c in classes:
                n = c[0][1].size
                if c is known[0]:
                    pass
                elif is_known(c):
                    conds.append(prim("eq", out.size, n, loc=loc))
                    self.equal.append((n, out.size))
                else:
                    conds.append(or_(prim("eq", out.size, n, loc=loc), prim("eq", n, ONE, loc=loc)))
                for j, _ in c:
                    reads[j] = at_i if is_known(c) else self.clamp(n, loc)
            return out, reads, binds, conds
        sizes = [c[0][1].size for c in classes]
        value: Term = ONE  # the first length that is not 1, or 1
        for n in reversed(sizes):
            value = If(prim("ne", fresh(n, loc), ONE, loc=loc), fresh(n, loc), value, loc)
        b = self.bound(self.var(Int, loc, "_n"), value)
        conds = [or_(prim("eq", n, ONE, loc=loc), prim("eq", n, b, loc=loc)) for n in sizes]
        for c in classes:
            for j, _ in c:
                reads[j] = self.clamp(c[0][1].size, loc)
        return Dim(b, None), reads, [(b, value, loc)], conds

    def clamp(self, n: Term, loc: Loc | None) -> Callable[[Term], Term]:
        return lambda i: prim("min", i, prim("sub", fresh(n, loc), ONE, loc=loc), loc=loc)

    def sum_products(self, n: Term, x: Callable[[Term], Term], y: Callable[[Term], Term],
                     loc: Loc | None) -> Term:
        k = self.var(Int, loc, "_k")
        return prim("sum", Build(n, k, self.arith("mul", x(k), y(k), loc), loc), loc=loc)

    def dot(self, a: Term, b: Term, loc: Loc | None, construct: str = "np.dot") -> Term:
        """np.dot / @ for ranks (1,1), (2,1), (1,2), (2,2): the contracted lengths must be
        equal (NumPy does not broadcast them)."""
        ra, rb = rank(a.type), rank(b.type)
        if ra == 0 or rb == 0:
            return self.elementwise(lambda x, y: self.arith("mul", x, y, loc), [a, b], loc, construct)
        if ra > 2 or rb > 2:
            raise CatadTypeError(f"dot takes vectors and matrices, got {a.type} and {b.type}", loc, "dot")

        def body(x, y):
            sx, sy = self.shape(x), self.shape(y)
            kx, ky = sx[-1], sy[0]
            message = f"{construct}: shapes {{0}} and {{1}} not aligned: {{2}} (dim {ra - 1}) != {{3}} (dim 0)"
            cond = TRUE if self.shapes.same(kx, ky) else prim("eq", kx.size, ky.size, loc=loc)
            chk = self.check(cond, (tuple(d.size for d in sx), tuple(d.size for d in sy), kx.size, ky.size),
                             loc, construct, message, equal=((kx.size, ky.size),))
            ix = lambda t, *idx: index_chain(t, list(idx), loc)
            n = fresh(kx.size, loc)
            if ra == 1 and rb == 1:
                out = self.sum_products(n, lambda k: ix(x, k), lambda k: ix(y, k), loc)
            elif ra == 2 and rb == 1:
                i = self.var(Int, loc, "_i")
                out = Build(fresh(sx[0].size, loc), i, self.sum_products(n, lambda k: ix(x, i, k), lambda k: ix(y, k), loc),
                            loc)
            elif ra == 1:
                j = self.var(Int, loc, "_j")
                out = Build(fresh(sy[1].size, loc), j, self.sum_products(n, lambda k: ix(x, k), lambda k: ix(y, k, j), loc),
                            loc)
            else:
                i, j = self.var(Int, loc, "_i"), self.var(Int, loc, "_j")
                out = Build(fresh(sx[0].size, loc), i, Build(fresh(sy[1].size, loc), j, self.sum_products(
                    n, lambda k: ix(x, i, k), lambda k: ix(y, k, j), loc), loc), loc)
            return make_lets(chk, out)
        return self.share_all([a, b], body, loc)

    def transpose(self, m: Term, loc: Loc | None) -> Term:
        """m.T: m's axes in reverse order (NumPy's default transpose, of any rank)."""
        r = rank(m.type)
        if r < 2:
            return m  # NumPy: .T of a vector is the vector
        def body(a):
            ks = [self.var(Int, loc, "_i") for _ in range(r)]  # ks[d] runs over a's axis d
            out = index_chain(a, ks, loc)
            for d in range(r):  # the innermost build runs over a's first axis, the result's last
                out = Build(self.size(a, d, loc), ks[d], out, loc)
            return out
        return self.share(m, body, loc)


def _AT_I(i: Term) -> Term:  # how an operand reads a broadcast axis (see broadcast_axis)
    return i


def _AT_ZERO(i: Term) -> Term:
    return ZERO


def _known(dims) -> bool:
    """Is every axis of an inferred shape known (not None; a shape that is None is not)?"""
    if dims is None:
        return False
    for d in dims:
        if d is None:
            return False
    return True


def _spine(t: Term):
    """(the index variables, the element) of a nest of builds as deep as t's rank, or None."""
    js = []
    while isinstance(t, Build):
        js.append(t.var)
        t = t.body
    return (js, t) if js and not isinstance(t.type, Vec) else None
