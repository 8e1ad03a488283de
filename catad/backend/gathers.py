"""Reading vectors: index (gathers), size and dim (catad.backend).

``v[i]`` for all lanes at once: a build indexed with its own index gives its body back
(no copy), an index update indexed is a selection, and otherwise the vector is an array and
the read is a NumPy gather (``take_iota`` when i is another build's index).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import arrays, control, scatters, tangent_ops
from .values import ZERO, RT, Arr, Stacked, TSum, Upd, Unvectorisable, index_code, is_zero, tsum_terms

if TYPE_CHECKING:
    from .compiler import Compiler


def p_index(c: Compiler, t, i: Arr, v):
    """index(i, v): v[i]."""
    return index(c, v, i)


def index(c: Compiler, v, i: Arr):
    """v[i] for every lane, through v's structure (values.py)."""
    if isinstance(v, tuple):  # a vector of tuples, kept as a tuple of vectors
        return tuple(index(c, x, i) for x in v)
    if is_zero(v):
        return ZERO
    if isinstance(v, RT):
        if c.depth > 0 or i.depth > 0:
            raise Unvectorisable("a loop's tangents used inside a vectorised build")
        return RT(c.assign(f"rt_index({v.code}, {i.code})"))
    if isinstance(v, Upd) and not v.extra:
        hit = c.op("({0} == {1})", [i, v.idx], "b")
        c.logic[hit.code] = ("eq", i, v.idx)  # a one-hot where i is a build's index (control.one_hot)
        return control.masked(c, hit, v.val)
    if isinstance(v, Upd):
        v = scatters.scatter(c, v, set(), c.sizes)
    if isinstance(v, TSum):
        terms = tsum_terms(v)
        vecs = [x for x in terms if isinstance(x, Stacked) and x.mask is None and isinstance(x.body, Arr)
                and x.n.code == terms[0].n.code] if isinstance(terms[0], Stacked) else []
        if len(vecs) > 1 and any(x.n.code != x.N for x in vecs):
            rest = [x for x in terms if not any(x is y for y in vecs)]
            return tangent_ops.sum_all(c, [gather(c, arrays.dense_sum(c, vecs), i)] + [index(c, x, i) for x in rest])
        return tangent_ops.sum_all(c, [index(c, x, i) for x in terms])
    if isinstance(v, Stacked):
        if isinstance(v.body, tuple):
            return tuple(index(c, Stacked(b, v.depth, v.n, v.N, v.mask), i) for b in v.body)
        if v.mask is None and _copies_of_rt(v.body):
            return v.body  # a run-time tangent has no batch axes: every element is this one
        if i.iota is not None and i.iota == v.depth and c.lengths[i.iota] == v.n.code and \
                c.sizes[i.iota] == v.N:
            return v.body  # build(n, \j. x[j]) over x = build(n, \i. e): e itself, no copy
        v = arrays.dense(c, v)
    return gather(c, v, i)


def _copies_of_rt(x) -> bool:
    """x is a run-time tangent, or a vector (of vectors ...) of copies of one: no batch axes, so
    every element of a vector of them is x (a cotangent spread over a sum's axes in a Python loop)."""
    return isinstance(x, RT) or isinstance(x, Stacked) and x.mask is None and _copies_of_rt(x.body)


def gather(c: Compiler, x: Arr, i: Arr) -> Arr:
    """x[i] for a Vec x (axis `d` after lifting) and an Int i, for all lanes at once."""
    d = max(x.depth, i.depth)
    xl = c.lift(x, d)
    # in discarded lanes, and in a build with no lanes at all (a loop that does not run, whose
    # checks never fail), an index may be out of range: it must read something, not raise
    guarded = c.mask is not None or (c.depth > 0 and i.depth == 0)
    if guarded and i.iota is None:  # a discarded lane may index an empty vector
        xl = Arr(c.assign(f"nonempty({xl.code}, {d})"), xl.depth, xl.deps, xl.rank, xl.kind)
    if i.depth == 0:
        ic = i.code if not guarded else c.assign(f"safe_index({i.code}, {xl.code}.shape[{d}])")
        code = f"{xl.code}[{index_code(d, [ic])}]"
        return Arr(c.assign(code), d, xl.deps, xl.rank - 1, xl.kind)
    if i.clamp is not None and not guarded and i.deps == {i.clamp[0]} and i.clamp[0] not in xl.deps:
        # min(j, hi) for j over a build: NumPy's broadcasting of an axis whose length (hi + 1)
        # is only known at run time; a view where it is the build's length or 1
        a, hi, _ = i.clamp
        code = f"take_clamped({xl.code}, {a}, {d}, {c.sizes[a]}, {hi})"
        return Arr(c.assign(code), d, xl.deps | {a}, xl.rank - 1, xl.kind)
    if i.iota is not None and i.iota not in xl.deps:
        masked = ", True" if guarded else _no_lanes(c, i.iota)
        code = f"take_iota({xl.code}, {i.iota}, {d}, {c.sizes[i.iota]}{masked})"
        return Arr(c.assign(code), d, xl.deps | {i.iota}, xl.rank - 1, xl.kind)
    if i.shift is not None and not guarded and i.deps == {i.shift[0]} and i.shift[0] not in xl.deps:
        # j + s for j over a build (a slice v[s:e] of the front end): a view, not a gather
        a, s, _ = i.shift
        code = f"take_shift({xl.code}, {a}, {d}, {c.sizes[a]}, {s})"
        return Arr(c.assign(code), d, xl.deps | {a}, xl.rank - 1, xl.kind)
    parts = [c.lift(c.iotas[b], d).code if b in xl.deps else "0" for b in range(d)]
    ic = c.lift(i, d).code
    idle = _idle_axes(c, i, d)
    if guarded:
        ic = c.assign(f"safe_index({ic}, {xl.code}.shape[{d}])")
    elif idle:
        xl = Arr(c.assign(f"nonempty({xl.code}, {d})"), xl.depth, xl.deps, xl.rank, xl.kind)
        ic = c.assign(f"idle_index({ic}, {xl.code}.shape[{d}], 0 in ({idle}))")
    code = f"{xl.code}[{', '.join(parts + [ic])}]"
    return Arr(c.assign(code), d, xl.deps | i.deps, xl.rank - 1, xl.kind)


def _idle_axes(c: Compiler, i: Arr, d: int) -> str:
    """The sizes of the batch axes (of the builds around a read at depth d) along which the index
    i does not vary, where they may have no lanes: i was computed once for all lanes, also where
    there are none, and then the checks that it is in range ran for no lane (a loop over an empty
    list reading v[k] at indices out of range, which Python never reads); "" where none may."""
    return "".join(c.sizes[b] + ", " for b in range(d) if b not in i.deps and not _positive(c.sizes[b]))


def _positive(size: str) -> bool:
    return size.isdigit() and int(size) > 0


def _no_lanes(c: Compiler, a: int) -> str:
    """take_iota's `masked` argument for a read along batch axis a inside the builds of axes 0 .. a - 1:
    where one of them has no lanes, the checks inside it (that the read is in range) never ran, and
    nothing reads the result."""
    return f", 0 in ({''.join(n + ', ' for n in c.sizes[:a])})" if a > 0 else ""


def clamped(c: Compiler, out: Arr, a: Arr, b: Arr) -> Arr:
    """out = min(a, b) (Python's), marked (Arr.clamp) when it is min(j, hi) of a build's index j
    and a depth-0 Int hi: the front end's read of a vector whose length, hi + 1, is only known
    at run time, along an axis it broadcasts (frontend/broadcast.py), so that the read is a
    view (take_clamped) and its cotangent a sum (scatters.scatter), not a gather and a scatter
    at computed indices."""
    if a.iota is not None and a.deps == {a.iota} and a.rank == 0 and a.kind == "i" and \
            b.depth == 0 and not b.deps and b.rank == 0 and b.kind == "i" and out.deps == a.deps:
        return Arr(out.code, out.depth, out.deps, 0, "i", None, (a.iota, b.code, c.sizes[a.iota]))
    return out


def shifted(c: Compiler, out: Arr, a: Arr, b: Arr) -> Arr:
    """out = a + b, marked (Arr.shift) when it is j + s of a build's index j and a depth-0 Int s
    (either order): the front end's slice v[s:e] reads v at j + s, so that the read is a view
    (runtime.take_shift) and its cotangent is written into a slice (runtime.scatter_slices),
    not a gather and a scatter-add at computed indices."""
    for j, s in ((a, b), (b, a)):
        if j.iota is not None and j.deps == {j.iota} and j.rank == 0 and j.kind == "i" and \
                s.depth == 0 and not s.deps and s.rank == 0 and s.kind == "i" and out.deps == j.deps \
                and out.kind == "i":
            return Arr(out.code, out.depth, out.deps, 0, "i", None, None, (j.iota, s.code, c.sizes[j.iota]))
    return out


def p_size(c: Compiler, t, v):
    """size(v): the number of elements (rows) of v."""
    if isinstance(v, tuple):  # a vector of tuples: any component that is not the zero tangent knows
        return p_size(c, t, next((x for x in v if not is_zero(x) and not _all_zero(x)), v[0]))
    if isinstance(v, Stacked):
        return v.n
    if isinstance(v, Upd):
        return v.n
    if isinstance(v, Arr):
        return c.length(f"{v.code}.shape[{v.depth}]")
    if isinstance(v, RT) and c.depth == 0:
        return c.length(f"{'len' if v.is_list else 'rt_len'}({v.code})")
    if isinstance(v, TSum):  # a term that is not the zero tangent knows
        terms = tsum_terms(v)
        return p_size(c, t, next((x for x in terms if not is_zero(x) and not _all_zero(x)), terms[0]))
    if is_zero(v) or _all_zero(v):
        # A vector known to be zero while compiling is identically zero, so what its length is
        # read for (the index update that is the cotangent of one of its elements, in a derivative
        # program differentiated again) is multiplied by zero coefficients or dropped, and the
        # generated code never reads it (tidy drops the line). Where it would be read, it raises.
        return Arr(c.assign("zero_tangent_length()", "n"), 0, frozenset(), 0, "i")
    raise Unvectorisable("the size of a zero tangent")


def _all_zero(x) -> bool:
    return isinstance(x, tuple) and all(is_zero(y) or _all_zero(y) for y in x)


def _axis(arg, k) -> int:
    """dim's axis: a constant, or (in a fold's primal body converted back from CL, which is not
    rewritten) a variable bound to one, compiled to its literal."""
    if hasattr(arg, "value"):
        return int(arg.value)
    code = getattr(k, "code", None)
    if isinstance(code, str) and code.lstrip("-").isdigit():
        return int(code)
    raise Unvectorisable("dim of an axis that is not a constant")


def p_flatnonzero(c: Compiler, t, m):
    """flatnonzero(m): np.flatnonzero of the mask. Its length is the count of true elements, one
    per lane in a vectorised build, where the lanes' lengths differ: there, Unvectorisable (the
    build a loop)."""
    m = arrays.dense(c, m)
    if m.depth > 0:
        raise Unvectorisable("the positions of a mask's true elements, lane by lane (of different counts)")
    return Arr(c.assign(f"np.flatnonzero({m.code})", "nz"), 0, m.deps, 1, "i")


def p_dim(c: Compiler, t, v, k: Arr):
    """dim(v, k): the length of v's axis k, read from the shape (rows may be none)."""
    axis = _axis(t.args[1], k)  # a constant: the front end makes dim(a, 1), dim(a, 2), ...
    if isinstance(v, tuple):
        v = v[0]
    if axis == 0:
        return p_size(c, t, v)
    if isinstance(v, Stacked):
        v = arrays.dense(c, v)
    if isinstance(v, Arr):
        return c.length(f"{v.code}.shape[{v.depth + axis}]")
    if isinstance(v, RT) and c.depth == 0:
        return c.length(f"np.shape(dense_tangent({v.code}))[{axis}]")
    raise Unvectorisable("the shape of a tangent that is not an array")
