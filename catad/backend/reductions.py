"""Sums and reductions over builds: sum, tsum, vmax, vmin, argmax, argmin (catad.backend).

A sum over a build is a sum over that build's batch axis; an update summed over a build the
index does not depend on sums its values first, and one it does depend on waits (an Upd with
pending axes) for a single scatter; a sum of a product is an einsum (contractions.py).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import arrays, contractions, control, scatters, tangent_ops
from .values import ZERO, RT, Arr, Stacked, TSum, Upd, Unvectorisable, depth_of, is_scalar0, is_zero, tsum_terms

if TYPE_CHECKING:
    from .compiler import Compiler


def p_sum(c: Compiler, t, v):
    """sum(v): the sum of v's elements (rows)."""
    return vsum(c, v)


def p_fsum(c: Compiler, t, v):
    """fsum(v): math.fsum of the vector v, one call outside vectorised builds; inside one (a sum
    per lane) the build is a Python loop (Unvectorisable), which explain reports."""
    if c.depth > 0 or not isinstance(v, (Arr, Stacked)) or v.depth > 0:
        raise Unvectorisable("math.fsum, a correctly rounded sum, in each lane")
    a = arrays.dense(c, v, [])
    loc = t.loc and (t.loc.file, t.loc.line, t.loc.col)  # None in derivative programs
    return Arr(c.assign(f"fsum({a.code}{f', {loc!r}' if loc else ''})", "s"), 0, frozenset(), 0, "f")


def p_tsum(c: Compiler, t, v):
    """tsum(v): the sum of a vector of tangents."""
    return vsum(c, v)


def vsum(c: Compiler, v):
    """The sum of v's elements: of a build, the sum over its batch axis."""
    if v is ZERO:
        return ZERO
    if isinstance(v, tuple):
        return tuple(vsum(c, x) for x in v)
    if isinstance(v, RT):
        if c.depth > 0:
            raise Unvectorisable("a loop's tangents used inside a vectorised build")
        return RT(c.assign(f"rt_sum({v.code})"))
    if isinstance(v, Upd):
        return v.val
    if isinstance(v, TSum):
        return tangent_ops.sum_all(c, [vsum(c, x) for x in tsum_terms(v)])
    if isinstance(v, Arr):
        v = arrays.as_stacked(c, v)
    if isinstance(v.body, tuple):
        return tuple(vsum(c, Stacked(b, v.depth, v.n, v.N, v.mask)) for b in v.body)
    if isinstance(v.body, RT) and v.mask is None:
        # a run-time tangent has no batch axes: every element is the same, so the sum is n times it
        return tangent_ops.tscale(c, c.op("to_float({0})", [v.n], "f"), v.body)
    body = v.body if v.mask is None else control.masked(c, v.mask, v.body)
    sizes = c.sizes[:v.depth] + [v.N]
    return reduce(c, body, v.depth, v.N, sizes)


def reduce(c: Compiler, x, ax: int, n: str, sizes: list[str]):
    """The sum over batch axis ax (of size n) of x."""
    if is_zero(x):
        return ZERO
    if isinstance(x, tuple):
        return tuple(reduce(c, v, ax, n, sizes) for v in x)
    if isinstance(x, Arr):
        if x.depth <= ax or ax not in x.deps:
            base = c.drop(x, ax)
            # n times a value: of Ints, in int64, wrapping as NumPy's sum does (a Python int would not)
            # (of Floats, 0 where n is 0 even where the value is inf or NaN: a sum of nothing)
            return c.op("count_times({0}, {1})" if x.kind != "i" else "int64_times({0}, {1})",
                        [base, Arr(n, kind="i")], x.kind, base.rank)
        shift = (lambda b: b if b < ax else b - 1)
        deps = frozenset(shift(b) for b in x.deps if b != ax)
        code = contractions.contract(c, x, ax) or c.assign(contractions.summed(x.code, ax))
        return Arr(code, x.depth - 1, deps, x.rank, x.kind)
    if isinstance(x, TSum):
        return tangent_ops.sum_all(c, [reduce(c, v, ax, n, sizes) for v in tsum_terms(x)])
    if isinstance(x, Upd):
        return reduce_update(c, x, ax, n, sizes)
    if isinstance(x, Stacked):
        if x.depth <= ax:
            return tangent_ops.tscale(c, c.op("to_float({0})", [Arr(n, kind="i")], "f"), x)
        if x.mask is None and ax not in x.n.deps:  # sum the elements, stay a vector
            body = reduce(c, x.body, ax, n, sizes[:x.depth] + [x.N])
            return Stacked(body, x.depth - 1, c.drop(x.n, ax), x.N)
        return reduce(c, arrays.dense(c, x, sizes), ax, n, sizes)
    raise Unvectorisable("a loop's tangents used inside a vectorised build")


def reduce_update(c: Compiler, u: Upd, ax: int, n: str, sizes: list[str]):
    """The sum over batch axis ax of an index update: its values summed first where the
    index does not vary along ax, else lazy (pending axes) or scattered."""
    if u.val is ZERO:
        return ZERO
    if isinstance(u.val, TSum):
        return tangent_ops.sum_all(c, [reduce(c, scatters.update(c, u.idx, v, u.n), ax, n, sizes)
                                       for v in tsum_terms(u.val)])
    L = depth_of(u)
    if ax >= L:  # constant along ax
        return tangent_ops.tscale(c, c.op("to_float({0})", [Arr(n, kind="i")], "f"), u)
    if ax not in u.idx.deps:  # sum the values first
        return Upd(c.drop(u.idx, ax), reduce(c, row_update(c, u), ax, n, sizes), c.drop(u.n, ax), u.extra)
    if u.idx.iota == ax and L == ax + 1 and not u.extra and not u.n.deps:
        # sum_i update(i, v_i, m) is the vector of the v_i (zeros after the last i)
        return Stacked(u.val, ax, u.n, n, None)
    if ax == L - 1 and isinstance(u.val, (Arr, Upd)):
        # innermost: keep it lazy. A row's update (u.val an Upd: x[i + k][j + l] in a 2-D window)
        # too, so the sums over the axes its indices vary along join one scatter-add at the end
        # instead of a scatter into (axes left) x (x's shape) now
        return Upd(u.idx, u.val, u.n, u.extra + 1)
    return scatters.scatter(c, u, {ax}, sizes)


def row_update(c: Compiler, u: Upd):
    """u.val, with the row updates it is made of (Upds nested in Upds: a matrix's, a tensor's)
    at least as deep as u's index when u has pending axes.

    u's pending axes are its innermost batch axes, idx.depth - extra .. idx.depth - 1; a row's
    update made inside them (m[l * 0][(i + j) % k] summed over l) has an index that does not
    vary along them, so of a smaller depth: its own innermost axis would be taken for the
    innermost one, made pending too (reduce_update), and the scatter would broadcast the two
    pending axes against each other (one position) instead of summing over both: n * k
    contributions where n * k * n are due. Lifted (size-1 axes appended), its depth counts
    u's pending axes, so a sum over one of its outer axes scatters it there (the values of a
    row), and the two sums stay apart."""
    if not u.extra:
        return u.val
    chain = []
    v = u.val
    while isinstance(v, Upd):
        if v.extra and v.idx.depth < u.idx.depth:  # its pending axes are not innermost in u's numbering
            raise Unvectorisable("a row's update summed lazily inside an update with pending axes")
        chain.append(v)
        v = v.val
    for r in reversed(chain):  # rebuilt from the innermost row out
        v = Upd(c.lift(r.idx, u.idx.depth), v, r.n, r.extra)
    return v


def p_vmax(c: Compiler, t, v):
    """vmax(v): the largest element (vmin, argmax, argmin alike: vreduce)."""
    return vreduce(c, "max", v, t)


def p_vmin(c: Compiler, t, v):
    return vreduce(c, "min", v, t)


def p_argmax(c: Compiler, t, v):
    return vreduce(c, "argmax", v, t)


def p_argmin(c: Compiler, t, v):
    return vreduce(c, "argmin", v, t)


def vreduce(c: Compiler, kind: str, v, t):
    """max, min, argmax or argmin of the elements of v (runtime.vreduce: masked lanes are
    left out, and a reduction of nothing raises at t's source line)."""
    if isinstance(v, Arr):
        v = arrays.as_stacked(c, v)
    if not isinstance(v, Stacked):
        raise Unvectorisable(f"{kind} of a tangent")
    if v.mask is None and v.n.code != v.N:
        v = arrays.as_stacked(c, arrays.dense(c, v))
    body = arrays.dense(c, v.body, c.sizes[:v.depth] + [v.N])
    d = v.depth
    b = c.lift(body, d + 1)
    if is_scalar0(b) or d not in b.deps:  # constant along the axis: broadcast it (the mask still applies)
        b = arrays.dense(c, Stacked(body, d, Arr(v.N, kind="i"), v.N, None))
        b = Arr(b.code, d + 1, b.deps | {d}, b.rank - 1, b.kind)
    mask = "None" if v.mask is None else c.lift(v.mask, d + 1).code
    # the lanes the enclosing branches take: those a branch discards may reduce nothing
    active = "True" if c.mask is None else c.lift(c.mask, d).code
    lanes = c.lanes_exist()
    if lanes is not None:
        active = f"({active} if {lanes} else False)"
    loc = t.loc and (t.loc.file, t.loc.line, t.loc.col)  # None in derivative programs
    args = f"{b.code}, {d}, {mask}, {active}{f', {loc!r}' if loc else ''}"
    out = (kind.startswith("arg") and _paired(c, kind, args)) or c.assign(f"vreduce({kind!r}, {args})")
    deps = (b.deps | (v.mask.deps if v.mask is not None else frozenset())) - {d}
    return Arr(out, d, deps, 0, "i" if kind.startswith("arg") else b.kind)


def _paired(c: Compiler, kind: str, args: str) -> str | None:
    """An argmax (argmin) of what a max (min) written before reduced, with the same mask and
    lanes: that line made `m, i = vreduce2(...)` (runtime.vreduce2: the rows read once, for the
    index, the largest elements taken there), and i returned. None where there is no such line
    in scope, or it is a value a reverse loop keeps or computes again (folds.Tape)."""
    value = f"vreduce({kind[3:]!r}, {args})"
    scope = next((s for s in reversed(c.memo) if value in s), None)
    name = scope and scope[value]
    if not name or name in c.taped or name in c.recompute or name in c.recomputed:
        return None
    for k in range(len(c.lines) - 1, -1, -1):
        line = c.lines[k]
        if line.lstrip(" ") == f"{name} = {value}":
            index = c.name("i")
            c.lines[k] = line[:len(line) - len(line.lstrip(" "))] + f"{name}, {index} = vreduce2({kind[3:]!r}, {args})"
            scope[f"vreduce({kind!r}, {args})"] = index
            return index
    return None
