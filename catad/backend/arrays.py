"""Symbolic values made arrays or run-time values, moved to deeper builds, and vector
literals (catad.backend).

``dense`` materialises a Stacked build, an index update or a sum of tangents as an array;
``rt`` gives the code of a value as a run-time value (catad.tangents) for the Python-loop
fallback; ``at`` and ``insert_all`` move a value made in an outer build into an inner one
(size-1 batch axes inserted).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import control, scatters, tangent_ops
from .values import ZERO, RT, Arr, Stacked, TSum, Upd, Unvectorisable, depth_of, is_scalar0, kind_of, tsum_terms

if TYPE_CHECKING:
    from .compiler import Compiler


def dense(c: Compiler, x, sizes: list[str] | None = None, pad: bool = True) -> Arr:
    """x as an array (a materialised vector, a scattered update); a vector with fewer
    lanes than elements is padded with zeros unless `pad` is False."""
    sizes = c.sizes if sizes is None else sizes
    if isinstance(x, Arr):
        return x
    if isinstance(x, Stacked):
        return dense_stacked(c, x, sizes, pad)
    if isinstance(x, Upd):
        return scatters.scatter(c, x, set(), sizes)
    if isinstance(x, TSum):
        terms = [dense(c, v, sizes) for v in tsum_terms(x) if v is not ZERO]
        out = terms[0]
        for v in terms[1:]:
            out = c.op("({0} + {1})", [out, v], "f", out.rank)
        return out
    if isinstance(x, RT):
        return Arr(c.assign(f"dense_tangent({x.code})"))
    raise Unvectorisable("the zero tangent of an unknown shape as an array")


def dense_stacked(c: Compiler, x: Stacked, sizes: list[str], pad: bool) -> Arr:
    """A build made an array: its body's batch axis x.depth becomes an element axis (a body
    constant along it is broadcast; the lanes a ragged range masks are 0; a vector with fewer
    lanes than elements, an update's, is padded with zeros unless `pad` is False)."""
    d = x.depth
    inner = sizes[:d] + [x.N]
    if x.body is ZERO or isinstance(x.body, (tuple, RT)):
        raise Unvectorisable("a vector of tuples or of zero tangents as an array")
    b = dense(c, x.body, inner)
    if x.mask is not None:
        b = control.masked(c, x.mask, b)
    if is_scalar0(b) or d not in b.deps:
        bl = c.lift(b, d + 1) if not is_scalar0(b) else None
        if bl is None:
            code = f"full({b.code}, ({', '.join(['1'] * d + [x.N])},))"
        else:
            code = f"full({bl.code}, {bl.code}.shape[:{d}] + ({x.N},) + {bl.code}.shape[{d + 1}:])"
        out = Arr(c.assign(code), d, b.deps, b.rank + 1, b.kind)
    else:
        out = Arr(b.code, d, b.deps - {d}, b.rank + 1, b.kind)
    if pad and x.mask is None and x.n.code != x.N:  # an update's vector: zeros after the last lane
        out = Arr(c.assign(f"update_vector({out.code}, {d}, {x.n.code})"), d, out.deps, out.rank, out.kind)
    return out


def dense_sum(c: Compiler, vecs: list[Stacked]) -> Arr:
    """Vectors of one length n as one array: those known to have n lanes added, then
    the others (an update's first lanes, zeros after) added into the leading part of
    the sum by sum_front, instead of each padded to n and added as a padded copy."""
    full = [dense(c, x) for x in vecs if x.n.code == x.N]
    parts = [dense(c, x, pad=False) for x in vecs if x.n.code != x.N]
    if full:
        out = full[0]
        for x in full[1:]:
            out = c.op("({0} + {1})", [out, x], "f", out.rank)
        parts.insert(0, out)
    d = max(x.depth for x in parts)
    code = f"sum_front({d}, {vecs[0].n.code}, {', '.join(c.lift(x, d).code for x in parts)})"
    return Arr(c.assign(code), d, frozenset().union(*(x.deps for x in parts)), parts[0].rank, "f")


def as_stacked(c: Compiler, a: Arr) -> Stacked:
    """A dense Vec viewed as a build: its first element axis becomes a batch axis."""
    d = a.depth
    n = c.length(f"{a.code}.shape[{d}]")
    body = Arr(a.code, d + 1, a.deps | {d}, a.rank - 1, a.kind)
    return Stacked(body, d, n, n.code, None)


def scalar(c: Compiler, a) -> Arr:
    """A scalar tangent as an array: the zero tangent of a Float is 0.0."""
    if a is ZERO:
        return Arr("0.0")
    if isinstance(a, Arr):
        return a
    if isinstance(a, RT):
        return Arr(c.assign(f"dense_tangent({a.code})"))
    return dense(c, a)


def rt(c: Compiler, x) -> str:
    """Code for x as a run-time value (catad.tangents for sparse tangents)."""
    if x is ZERO:
        return "ZERO"
    if isinstance(x, tuple):
        return "(" + "".join(rt(c, v) + ", " for v in x) + ")"
    if isinstance(x, (Arr, RT)):
        if isinstance(x, Arr) and x.depth > 0:
            raise Unvectorisable("a vectorised value used as a run-time value")
        return x.code
    if isinstance(x, Upd):
        if depth_of(x) > 0:
            raise Unvectorisable("a vectorised update used as a run-time value")
        return c.assign(f"rt_update({x.idx.code}, {rt(c, x.val)}, {x.n.code})")
    if isinstance(x, TSum):
        out = None
        for v in tsum_terms(x):
            out = rt(c, v) if out is None else c.assign(f"T_tadd({out}, {rt(c, v)})")
        return out
    if isinstance(x, Stacked):
        if x.body is ZERO:  # a vector of zero tangents: the zero tangent
            return "ZERO"
        if isinstance(x.body, RT) and not x.body.is_list and x.mask is None and x.depth == 0:  # (no shape to make)
            return c.assign(f"rt_repeat({x.body.code}, {x.N})")
        if x.depth == 0 and _repeated(x):  # vectors of those copies (a reverse loop's cotangent of a list's rows)
            return rt_repeated(c, x)
        return dense(c, x).code
    raise AssertionError(x)


def _repeated(x) -> bool:
    """x is a vector (of vectors ...) of copies of one run-time tangent, the same in every lane of
    any batch axis (its lengths too)."""
    while isinstance(x, Stacked):
        if x.mask is not None or x.n.code != x.N or x.n.deps:
            return False
        x = x.body
    return isinstance(x, RT) and not x.is_list


def rt_repeated(c: Compiler, x) -> str:
    """Code for x, of which _repeated holds, as a run-time value: copies of copies of it."""
    if isinstance(x, RT):
        return x.code
    return c.assign(f"rt_repeat({rt_repeated(c, x.body)}, {x.N})")


def rt_terms(c: Compiler, x) -> str:
    """Code for a depth-0 tangent as a run-time value, a sum term by term: a term that has no
    run-time form (an update scattered over a build's lanes) is the array it makes, and the
    others keep theirs (copies of a run-time tangent have no array form: rt_repeat)."""
    if isinstance(x, TSum):
        out = None
        for v in tsum_terms(x):
            code = rt_terms(c, v)
            out = code if out is None else c.assign(f"T_tadd({out}, {code})")
        return out
    try:
        return rt(c, x)
    except Unvectorisable:
        return dense(c, x).code


def rt_or_dense(c: Compiler, x) -> str:
    """Code for a depth-0 tangent as a run-time value, or, when a part of it has batch axes (an
    update whose sums over a build are pending), as the array it makes."""
    try:
        return rt(c, x)
    except Unvectorisable:
        if depth_of(x) > 0:
            raise
        return dense(c, x).code


def at(c: Compiler, s: Stacked, k: int) -> Stacked:
    """A Stacked made at depth d, used at depth k >= d: batch axes inserted at d."""
    if s.depth >= k:
        return s
    count = k - s.depth
    return Stacked(insert_all(c, s.body, s.depth, count), k, s.n, s.N,
                   None if s.mask is None else c.insert(s.mask, s.depth, count))


def insert_all(c: Compiler, x, pos: int, count: int):
    """x with `count` size-1 batch axes inserted at pos, through its structure."""
    if isinstance(x, Arr):
        return c.insert(x, pos, count)
    if isinstance(x, tuple):
        return tuple(insert_all(c, v, pos, count) for v in x)
    if isinstance(x, Upd):
        return Upd(c.insert(x.idx, pos, count), insert_all(c, x.val, pos, count), c.insert(x.n, pos, count),
                   x.extra)
    if isinstance(x, TSum):
        return tangent_ops.sum_all(c, [insert_all(c, v, pos, count) for v in tsum_terms(x)])
    if isinstance(x, Stacked):
        return Stacked(insert_all(c, x.body, pos, count), x.depth + count if x.depth >= pos else x.depth,
                       c.insert(x.n, pos, count), x.N,
                       None if x.mask is None else c.insert(x.mask, pos, count))
    return x


def same_axis(a: Stacked, b: Stacked) -> bool:
    """a and b are builds over the same lanes (so a selection or a sum can stay a build)."""
    return a.n.code == b.n.code and a.N == b.N and (a.mask is None) == (b.mask is None) and \
        (a.mask is None or a.mask.code == b.mask.code) and a.depth == b.depth


def p_vector(c: Compiler, t, *xs):
    """vector(x1, ..., xk): the array literal [x1, ..., xk] (of scalars or of arrays)."""
    xs = [scalar(c, x) for x in xs]
    d = max(x.depth for x in xs)
    deps = frozenset().union(*(x.deps for x in xs))
    kind = kind_of(t.type)
    if d == 0 and all(x.rank == 0 for x in xs):
        dtype = {"f": "np.float64", "i": "np.int64", "b": "np.bool_"}[kind]
        return Arr(c.assign(f"np.array([{', '.join(x.code for x in xs)}], dtype={dtype})"), 0, deps, 1, kind)
    codes = ", ".join(c.lift(x, d).code for x in xs)
    return Arr(c.assign(f"stack({d}, {codes})"), d, deps, xs[0].rank + 1, kind)
