"""Joins, spacings, products and conversions made of other handlers' terms:

* ``np.append(arr, values, axis=None)``: both raveled and joined (axis None), or np.concatenate
  along the axis (with its errors: a number is not raveled there);
* ``np.logspace(start, stop, num=50, endpoint=True, base=10.0)``: NumPy's ``base ** linspace``;
* ``np.kron(a, b)`` of two vectors or two matrices: element (i p + k, j q + l) is a[i, j] b[k, l];
* ``np.linalg.multi_dot([a, b, ...])``: the dots left to right (a first vector a row, a last one a
  column, as NumPy's; NumPy may group them otherwise, which changes only the rounding);
* ``np.float64(x)``: x as a Float (an array elementwise);
* ``np.select(condlist, choicelist, default=0)``: wheres from the last choice to the first;
* ``np.tensordot(a, b, axes=2)``: NumPy's transposes and reshapes to one matrix product;
* ``np.take(a, indices, axis=None)``: rows gathered at checked, wrapped Int indices (raveled for
  axis None), the axis moved first and back;
* ``np.linalg.matrix_power(a, n)``, n a constant: NumPy's order of products (of np.linalg.inv(a)
  for n < 0);
* ``np.take_along_axis(arr, indices, axis)``: arr read at the indices along axis, the other axes
  broadcast (NumPy's IndexError where they cannot be);
* ``np.broadcast_to(array, shape)``: read at index 0 along axes of length 1, NumPy's checks.
"""
from __future__ import annotations

import ast

from ..errors import CatadTypeError, ShapeError
from ..lang.terms import Build, Const, If, Term
from ..lang.types import Bool, Float, Int, rank, scalar_of, vec_of
from ..primitives import prim
from .calls import display
from .common import index_chain, is_array
from .numpy_arrays import (_is_none, _same_rank, array_arg, bind_args, concatenate, h_linspace, raveled, reshape,
                           static_axes, Failure)

import numpy as np


def _append_operand(lw, a, node) -> Term:
    """An operand of np.append: an array (a list made one) or a number, as it is."""
    t = lw.display(a) if isinstance(a, (ast.List, ast.Tuple)) else lw.arg(a)
    t = t.replace() if lw.is_list(t) else t
    if not is_array(t) and t.type not in (Int, Float, Bool):
        lw.fail(node, "np.append", f"np.append() takes arrays or numbers, got a {t.type}", CatadTypeError)
    return t


def h_append(lw, obj, node, args, kwargs):
    """np.append(arr, values, axis=None): raveled and joined, or joined along axis (np.concatenate's
    errors: a number is 0-d there, not raveled)."""
    p = bind_args(lw, obj, node, args, kwargs, ("arr", "values", "axis"), 2)
    loc = lw.loc(node)
    ts = [_append_operand(lw, p[k], node) for k in ("arr", "values")]
    kinds = {scalar_of(t.type) for t in ts}
    if kinds == {Int, Float}:
        ts = [lw.b.to_float(t, loc) for t in ts]
    elif len(kinds) > 1:
        lw.fail(node, "np.append", "np.append() of Bools and numbers is not supported", CatadTypeError)
    if _is_none(p.get("axis")):
        ts = [raveled(lw, t, loc) for t in ts]
        return lw.b.share_all(ts, lambda a, b: concatenate(lw, [a, b], 0, loc, "np.append"), loc)
    # NumPy's checks in its order: a 0-d arr, the axis against arr's rank, then the ranks
    r = rank(ts[0].type) if is_array(ts[0]) else 0
    never = vec_of(scalar_of(ts[0].type), max(r, 1))  # the type of a result never computed
    if r == 0:
        return Failure(loc, "np.append", "zero-dimensional arrays cannot be concatenated").term(lw, never)
    axes = static_axes(lw, p["axis"], obj, r)
    if isinstance(axes, Failure):
        return axes.term(lw, never)
    if len(axes) != 1:
        lw.fail(node, "np.append", "axis must be one integer", CatadTypeError)
    bad = _same_rank(lw, [ts[0], ts[1]], obj, loc)
    if bad:
        return bad.term(lw, never)
    return lw.b.share_all(ts, lambda a, b: concatenate(lw, [a, b], axes[0], loc, "np.append"), loc)


def h_logspace(lw, obj, node, args, kwargs):
    """np.logspace(start, stop, num=50, endpoint=True, base=10.0): base ** np.linspace(start, stop, num, endpoint)."""
    p = bind_args(lw, obj, node, args, kwargs, ("start", "stop", "num", "endpoint", "base"), 2)
    loc = lw.loc(node)
    base = Const(10.0, Float) if _is_none(p.get("base")) else lw.b.to_float(lw.arg(p["base"]), loc)
    if base.type != Float:
        lw.fail(node, "np.logspace", f"base of np.logspace() must be a number, got a {base.type}", CatadTypeError)
    spaced = h_linspace(lw, np.linspace, node, [p["start"], p["stop"]],
                        {k: p[k] for k in ("num", "endpoint") if k in p})
    return lw.b.share(base, lambda b: lw.b.elementwise(lambda y: prim("pow", b, y, loc=loc), [spaced], loc), loc)


def h_kron(lw, obj, node, args, kwargs):
    """np.kron(a, b) of two vectors or two matrices: the blocks a[i, j] * b."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "b"), 2)
    a, b, loc = array_arg(lw, p["a"], obj, node), array_arg(lw, p["b"], obj, node), lw.loc(node)
    r = rank(a.type)
    if r != rank(b.type) or r > 2:
        lw.fail(node, "np.kron", f"np.kron() of arrays of ranks {r} and {rank(b.type)} is not supported (only two "
                                 "vectors or two matrices)", CatadTypeError)
    kinds = {scalar_of(a.type), scalar_of(b.type)}
    if Bool in kinds:
        lw.fail(node, "np.kron", "np.kron() of Bools is not supported", CatadTypeError)
    if kinds == {Int, Float}:
        a, b = lw.b.to_float(a, loc), lw.b.to_float(b, loc)

    def body(x, y):
        ps = [lw.b.size(y, q, loc) for q in range(r)]
        sizes = [prim("mul", lw.b.size(x, q, loc), ps[q], loc=loc) for q in range(r)]
        ivs = [lw.b.var(Int, loc, "_i") for _ in range(r)]
        outer = [prim("floordiv", i, n, loc=loc) for i, n in zip(ivs, ps)]
        inner = [prim("mod", i, n, loc=loc) for i, n in zip(ivs, ps)]
        out = prim("mul", index_chain(x, outer, loc), index_chain(y, inner, loc), loc=loc)
        for i, n in reversed(list(zip(ivs, sizes))):
            out = Build(n, i, out, loc)
        return out
    return lw.b.share_all([a, b], body, loc)


def h_multi_dot(lw, obj, node, args, kwargs):
    """np.linalg.multi_dot([a, b, ...]) of a list display: the dots left to right."""
    p = bind_args(lw, obj, node, args, kwargs, ("arrays",), 1)
    seq = p["arrays"]
    if not isinstance(seq, (ast.List, ast.Tuple)):
        lw.fail(node, "np.linalg.multi_dot", "np.linalg.multi_dot() takes a list display [a, b, ...] here")
    if len(seq.elts) < 2:
        lw.fail(node, "np.linalg.multi_dot", "Expecting at least two arrays.", CatadTypeError)
    loc = lw.loc(node)
    ts = [array_arg(lw, e, obj, node) for e in seq.elts]
    if any(rank(t.type) > 2 for t in ts) or any(rank(t.type) != 2 for t in ts[1:-1]):
        lw.fail(node, "np.linalg.multi_dot", "np.linalg.multi_dot() takes matrices, the first and last may be "
                "vectors", CatadTypeError)
    out = ts[0]
    for t in ts[1:]:
        out = lw.b.dot(out, t, loc)
    return out


def h_float64(lw, obj, node, args, kwargs):
    """np.float64(x): x as a Float (an array elementwise); np.float64() is 0.0."""
    if not args:
        return Const(0.0, Float, lw.loc(node))
    if len(args) != 1:
        lw.fail(node, "np.float64", f"np.float64() takes 1 argument, got {len(args)}", CatadTypeError)
    t = lw.display(args[0]) if isinstance(args[0], (ast.List, ast.Tuple)) else lw.arg(args[0])
    t = t.replace() if lw.is_list(t) else t
    if scalar_of(t.type) not in (Int, Float, Bool):
        lw.fail(node, "np.float64", f"np.float64() takes numbers or arrays of numbers, got a {t.type}", CatadTypeError)
    out = lw.b.to_float(t, lw.loc(node))
    if is_array(out):
        return out
    # NumPy's number, whatever t is (a Float may be Python's, or where a test says: its marks go
    # by identity, so the term is made again, unmarked)
    return lw.as_numpy(out.replace() if out is t else out)


TABLE = [
    ((np.append,), h_append, ("arr", "values", "axis")),
    ((np.logspace,), h_logspace, ("start", "stop", "num", "endpoint", "base")),
    ((np.kron,), h_kron, ()),
    ((np.linalg.multi_dot,), h_multi_dot, ()),
    ((np.float64,), h_float64, ()),
]

__all__ = ["TABLE"]


def h_select(lw, obj, node, args, kwargs):
    """np.select(condlist, choicelist, default=0): NumPy's wheres from the last choice to the
    first over the default, so the first condition that holds chooses."""
    p = bind_args(lw, obj, node, args, kwargs, ("condlist", "choicelist", "default"), 2)
    conds, choices = p["condlist"], p["choicelist"]
    if not all(isinstance(x, (ast.List, ast.Tuple)) for x in (conds, choices)):
        lw.fail(node, "np.select", "np.select() takes list displays [c0, c1, ...] and [x0, x1, ...] here")
    if len(conds.elts) != len(choices.elts):
        lw.fail(node, "np.select", "list of cases must be same length as list of conditions", CatadTypeError)
    if not conds.elts:
        lw.fail(node, "np.select", "select with an empty condition list is not possible", CatadTypeError)
    loc = lw.loc(node)
    out = Const(0, Int, loc) if _is_none(p.get("default")) else lw.arg(p["default"])
    cs = [lw.arg(c) for c in conds.elts]
    for k, c in enumerate(cs):
        if scalar_of(c.type) != Bool:
            lw.fail(node, "np.select", f"invalid entry {k} in condlist: should be boolean ndarray", CatadTypeError)
    f = lambda c, x, y: lw.b.if_(c, x, y, loc, "np.select() chooses between a {a} and a {b}; give them one type")
    xs = [lw.arg(e) for e in choices.elts]

    def chosen(*ts):  # (every condition and choice evaluated: their checks run, whichever is chosen)
        out = ts[-1]
        for c, x in reversed(list(zip(ts[:len(cs)], ts[len(cs):-1]))):
            args = [c, x, out]
            out = lw.b.elementwise(f, args, loc, "np.select") if any(is_array(t) for t in args) else f(*args)
        return out
    made = lw.b.evaluated(cs + xs + [out], chosen, loc)
    return made if is_array(made) else lw.as_zero_d(made)  # NumPy's of numbers is an array of no axes


def _tensordot_axes(lw, node, p, ra: int, rb: int):
    """(a's summed axes, b's) as NumPy's tensordot reads axes=: N (a's last N, b's first N) or a
    pair of ints or of sequences."""
    if _is_none(p.get("axes")):
        n = 2
    else:
        t = lw.arg(p["axes"])
        if isinstance(t, Const) and t.type == Int:
            n = int(t.value)
        else:
            node_axes = p["axes"]
            if not (isinstance(node_axes, (ast.Tuple, ast.List)) and len(node_axes.elts) == 2):
                lw.fail(node, "np.tensordot", "axes of np.tensordot must be an integer or a pair of axis lists",
                        CatadTypeError)
            pair = []
            for side in node_axes.elts:
                xs = [lw.arg(e) for e in side.elts] if isinstance(side, (ast.Tuple, ast.List)) else [lw.arg(side)]
                if not all(isinstance(x, Const) and x.type == Int for x in xs):
                    lw.fail(node, "np.tensordot", "axes of np.tensordot must be integer constants")
                pair.append([int(x.value) for x in xs])
            if len(pair[0]) != len(pair[1]):
                lw.fail(node, "np.tensordot", "shape-mismatch for sum", CatadTypeError)
            for xs, r in zip(pair, (ra, rb)):
                if not all(-r <= x < r for x in xs):
                    lw.fail(node, "np.tensordot", f"axes out of range for array of dimension {r}", CatadTypeError)
            return [x % ra for x in pair[0]], [x % rb for x in pair[1]]
    if n < 0 or n > ra or n > rb:
        lw.fail(node, "np.tensordot", "shape-mismatch for sum", CatadTypeError)
    return list(range(ra - n, ra)), list(range(n))


def h_tensordot(lw, obj, node, args, kwargs):
    """np.tensordot(a, b, axes=2): NumPy's transposes and reshapes to one matrix product."""
    from .numpy_arrays import permute
    p = bind_args(lw, obj, node, args, kwargs, ("a", "b", "axes"), 2)
    a, b, loc = array_arg(lw, p["a"], obj, node), array_arg(lw, p["b"], obj, node), lw.loc(node)
    ra, rb = rank(a.type), rank(b.type)
    sa, sb = _tensordot_axes(lw, node, p, ra, rb)
    if len(set(sa)) != len(sa) or len(set(sb)) != len(sb):
        lw.fail(node, "np.tensordot", "repeated axis in tensordot axes", CatadTypeError)
    kinds = {scalar_of(a.type), scalar_of(b.type)}
    if Bool in kinds:
        lw.fail(node, "np.tensordot", "np.tensordot() of Bools is not supported", CatadTypeError)
    if kinds == {Int, Float}:
        a, b = lw.b.to_float(a, loc), lw.b.to_float(b, loc)
    fa = [q for q in range(ra) if q not in sa]
    fb = [q for q in range(rb) if q not in sb]

    def product(sizes):
        out = Const(1, Int, loc)
        for s in sizes:
            out = prim("mul", out, s, loc=loc)
        return out

    def body(x, y):
        da, db = [lw.b.size(x, q, loc) for q in range(ra)], [lw.b.size(y, q, loc) for q in range(rb)]
        chk = [lw.b.check(prim("eq", da[i], db[j], loc=loc), (), loc, "np.tensordot", "shape-mismatch for sum")
               for i, j in zip(sa, sb)]
        m = reshape(lw, permute(lw, x, fa + sa, loc), [product([da[q] for q in fa]), product([da[q] for q in sa])],
                    loc, obj)
        n = reshape(lw, permute(lw, y, sb + fb, loc), [product([db[q] for q in sb]), product([db[q] for q in fb])],
                    loc, obj)
        mn = lw.b.dot(m, n, loc)
        dims = [da[q] for q in fa] + [db[q] for q in fb]
        out = index_chain(mn, [Const(0, Int, loc)] * 2, loc) if not dims else reshape(lw, mn, dims, loc, obj)
        from ..lang.terms import make_lets
        return make_lets([c for cs in chk for c in cs], out)
    return lw.b.share_all([a, b], body, loc)


TABLE += [
    ((np.select,), h_select, ("condlist", "choicelist", "default")),
    ((np.tensordot,), h_tensordot, ("axes",)),
]


def _take0(lw, a: Term, idx: Term, axis: int, loc) -> Term:
    """Rows idx of atom a (an Int, or an Int array: the rows in its shape), each index checked and
    wrapped as NumPy's (the message names `axis`, the axis of the user's array)."""
    from ..lang.terms import make_lets

    def row(i):
        binds, j = lw.b.index(a, i, axis, loc)
        return make_lets(binds, prim("index", j, a, loc=loc))
    if not is_array(idx):
        return row(idx)
    from .numpy_arrays import builds
    return lw.b.share(idx, lambda ix: builds(lw, [lw.b.size(ix, q, loc) for q in range(rank(ix.type))],
                                             lambda *ks: row(index_chain(ix, list(ks), loc)), loc), loc)


def h_take(lw, obj, node, args, kwargs):
    """np.take(a, indices, axis=None): the elements (axis None: of a raveled) or the slices along
    axis at Int indices (a number or an array of any shape, negative ones from the end)."""
    from .numpy_arrays import permute, to_front
    p = bind_args(lw, obj, node, args, kwargs, ("a", "indices", "axis"), 2)
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    idx = lw.display(p["indices"]) if isinstance(p["indices"], (ast.List, ast.Tuple)) else lw.arg(p["indices"])
    idx = idx.replace() if lw.is_list(idx) else idx
    if scalar_of(idx.type) != Int:
        lw.fail(node, "np.take", f"indices of np.take() must be Ints, got {idx.type}", CatadTypeError)
    if _is_none(p.get("axis")):
        flat = a if rank(a.type) == 1 else reshape(lw, a, [Const(-1, Int)], loc, np.ravel)
        return lw.b.share(flat, lambda x: _take0(lw, x, idx, 0, loc), loc)
    r = rank(a.type)
    axes = static_axes(lw, p["axis"], obj, r)
    if isinstance(axes, Failure) or len(axes) != 1:
        lw.fail(node, "np.take", axes.message if isinstance(axes, Failure) else "axis must be one integer",
                CatadTypeError)
    k, m = axes[0], rank(idx.type) if is_array(idx) else 0
    moved = permute(lw, a, to_front(r, k), loc)
    back = [m + i for i in range(k)] + list(range(m)) + [m + k + i for i in range(r - 1 - k)]
    return lw.b.share(moved, lambda x: lw.b.share(_take0(lw, x, idx, k, loc), lambda g: permute(lw, g, back, loc),
                                                  loc), loc)


TABLE += [((np.take,), h_take, ("axis",))]


def h_matrix_power(lw, obj, node, args, kwargs):
    """np.linalg.matrix_power(a, n), n a constant: NumPy's steps (a @ a, (a @ a) @ a, then binary
    powers z, z @ z, ... multiplied into the result), of np.linalg.inv(a) for n < 0, the
    identity for n == 0."""
    from .calls import call
    p = bind_args(lw, obj, node, args, kwargs, ("a", "n"), 2)
    a, loc = array_arg(lw, p["a"], obj, node), lw.loc(node)
    nt = lw.arg(p["n"])
    if not (isinstance(nt, Const) and nt.type == Int):
        lw.fail(node, "np.linalg.matrix_power", "exponent must be an integer constant here", CatadTypeError)
    n = int(nt.value)
    if rank(a.type) != 2:
        lw.fail(node, "np.linalg.matrix_power", f"{rank(a.type)}-dimensional array given. Array must be two-dimensional"
                if rank(a.type) < 2 else "np.linalg.matrix_power() of a stack of matrices is not supported here",
                CatadTypeError)
    if scalar_of(a.type) == Bool:
        lw.fail(node, "np.linalg.matrix_power", "np.linalg.matrix_power() of Bools is not supported", CatadTypeError)
    from ..lang.terms import make_lets
    from .numpy_arrays import zero_of

    def body(x):
        rows, cols = lw.b.size(x, 0, loc), lw.b.size(x, 1, loc)
        chk = lw.b.check(prim("eq", rows, cols, loc=loc), (), loc, "np.linalg.matrix_power",
                         "Last 2 dimensions of the array must be square", "linalg")
        if n == 0:
            one = Const(1.0, Float) if scalar_of(x.type) == Float else Const(1, Int)
            from .numpy_arrays import builds
            return make_lets(chk, builds(lw, [rows, cols], lambda i, j: If(prim("eq", i, j, loc=loc), one, zero_of(
                scalar_of(x.type), loc), loc), loc))
        m = x
        if n < 0:  # NumPy inverts an Int matrix too (a Float one)
            m = call(lw, np.linalg.inv, ast.Call(func=node.func, args=[], keywords=[], lineno=node.lineno,
                                                 col_offset=node.col_offset), [lw.b.to_float(x, loc)])
        return make_lets(chk, lw.b.share(m, lambda b: _binary_power(lw, b, abs(n), loc), loc))
    return lw.b.share(a, body, loc)


def _binary_power(lw, a: Term, n: int, loc) -> Term:
    """a ** n (n >= 1) by NumPy's matrix_power order of products, each intermediate shared."""
    mm = lambda x, y: lw.b.dot(x, y, loc)
    if n == 1:
        return a
    if n == 2:
        return mm(a, a)
    if n == 3:
        return lw.b.share(mm(a, a), lambda s: mm(s, a), loc)
    steps = []  # (z is squared again, bit): z = a, a^2, a^4, ...
    while n > 0:
        n, bit = divmod(n, 2)
        steps.append(bit)

    def go(z, result, k):
        if bit_of(k):
            result = z if result is None else mm(result, z)
        if k + 1 == len(steps):
            return result
        return lw.b.share(result, lambda r: lw.b.share(mm(z, z), lambda z2: go(z2, r, k + 1), loc), loc) \
            if result is not None else lw.b.share(mm(z, z), lambda z2: go(z2, None, k + 1), loc)
    bit_of = lambda k: steps[k]
    return go(a, None, 0)


TABLE += [((np.linalg.matrix_power,), h_matrix_power, ())]


def h_take_along_axis(lw, obj, node, args, kwargs):
    """np.take_along_axis(arr, indices, axis): arr read at indices along axis, the other axes
    broadcast as NumPy's fancy index broadcasts them (axis None: of arr raveled)."""
    from ..lang.terms import make_lets
    p = bind_args(lw, obj, node, args, kwargs, ("arr", "indices", "axis"), 3)
    a, loc = array_arg(lw, p["arr"], obj, node), lw.loc(node)
    idx = array_arg(lw, p["indices"], obj, node)
    if scalar_of(idx.type) != Int:
        lw.fail(node, "np.take_along_axis", "`indices` must be an integer array", CatadTypeError)
    if _is_none(p.get("axis")):
        if rank(idx.type) != 1:
            lw.fail(node, "np.take_along_axis", "when axis=None, `indices` must have a single dimension.",
                    CatadTypeError)
        a, axis = (a if rank(a.type) == 1 else reshape(lw, a, [Const(-1, Int)], loc, np.ravel)), 0
    else:
        axes = static_axes(lw, p["axis"], obj, rank(a.type))
        if isinstance(axes, Failure) or len(axes) != 1:
            lw.fail(node, "np.take_along_axis", axes.message if isinstance(axes, Failure) else
                    "axis must be one integer", CatadTypeError)
        axis = axes[0]
    r = rank(a.type)
    if rank(idx.type) != r:
        lw.fail(node, "np.take_along_axis", "`indices` and `arr` must have the same number of dimensions",
                CatadTypeError)

    def body(x, ix):
        da, di = [lw.b.size(x, q, loc) for q in range(r)], [lw.b.size(ix, q, loc) for q in range(r)]
        one = lambda d: prim("eq", d, Const(1, Int), loc=loc)
        checks, sizes = [], []
        for q in range(r):
            if q == axis:
                sizes.append(di[q])
                continue
            ok = If(prim("eq", da[q], di[q], loc=loc), Const(True, Bool), If(one(da[q]), Const(True, Bool),
                                                                             one(di[q]), loc), loc)
            checks += lw.b.check(ok, (), loc, "np.take_along_axis",
                                 "shape mismatch: indexing arrays could not be broadcast together", "bounds")
            sizes.append(If(one(da[q]), di[q], da[q], loc))

        def elem(*ks):
            at = lambda d, k: If(one(d), Const(0, Int), k, loc)
            i = index_chain(ix, [at(di[q], ks[q]) for q in range(r)], loc)
            binds, j = lw.b.index(x, i, axis, loc, dim=lw.b.shape(x)[axis])
            return make_lets(binds, index_chain(x, [j if q == axis else at(da[q], ks[q]) for q in range(r)], loc))
        from .numpy_arrays import builds
        return make_lets(checks, lw.b.share_all(sizes, lambda *ss: builds(lw, list(ss), elem, loc), loc))
    return lw.b.share_all([a, idx], body, loc)


TABLE += [((np.take_along_axis,), h_take_along_axis, ("axis",))]


def _shown_shape(first: int, n: int) -> str:
    """NumPy's (3,) or (2,4) with the placeholders {first}, {first + 1}, ..."""
    return "(" + ",".join("{%d}" % (first + k) for k in range(n)) + ("," if n == 1 else "") + ")"


def h_broadcast_to(lw, obj, node, args, kwargs):
    """np.broadcast_to(array, shape): array read at index 0 along its axes of length 1, with
    NumPy's checks (and messages) of the ranks, of negative lengths and of each axis."""
    from ..lang.terms import make_lets
    from .numpy_arrays import builds, shape_arg
    p = bind_args(lw, obj, node, args, kwargs, ("array", "shape", "subok"), 2)
    loc = lw.loc(node)
    t = lw.display(p["array"]) if isinstance(p["array"], (ast.List, ast.Tuple)) else lw.arg(p["array"])
    t = t.replace() if lw.is_list(t) else t
    if not is_array(t) and t.type not in (Int, Float, Bool):
        lw.fail(node, "np.broadcast_to", f"np.broadcast_to() takes an array or a number, got a {t.type}",
                CatadTypeError)
    dims = shape_arg(lw, p["shape"], obj)
    r, big = (rank(t.type) if is_array(t) else 0), len(dims)
    if r > big:
        lw.fail(node, "np.broadcast_to", "input operand has more dimensions than allowed by the axis remapping",
                ShapeError)

    def body(x, *ds):
        checks = lw.b.check(and_all([prim("le", Const(0, Int), d, loc=loc) for d in ds], loc), (), loc,
                            "np.broadcast_to", "all elements of broadcast shape must be non-negative")
        sizes = [lw.b.size(x, q, loc) for q in range(r)]
        fits = [If(prim("eq", s, Const(1, Int), loc=loc), Const(True, Bool), prim("eq", s, ds[big - r + q], loc=loc),
                   loc) for q, s in enumerate(sizes)]
        if fits:
            message = ("operands could not be broadcast together with remapped shapes [original->remapped]: "
                       + _shown_shape(0, r) + "  and requested shape " + _shown_shape(r, big))
            checks += lw.b.check(and_all(fits, loc), tuple(sizes) + tuple(ds), loc, "np.broadcast_to", message)

        def elem(*ix):
            if not r:
                return x
            return index_chain(x, [If(prim("eq", sizes[q], Const(1, Int), loc=loc), Const(0, Int), ix[big - r + q], loc)
                                   for q in range(r)], loc)
        return make_lets(checks, builds(lw, list(ds), elem, loc))
    return lw.b.share_all([t] + dims, body, loc)


def and_all(conds: list, loc) -> Term:
    out = Const(True, Bool)
    for c in conds:
        out = c if out.__class__ is Const and out.value is True else If(out, c, Const(False, Bool), loc)
    return out


TABLE += [((np.broadcast_to,), h_broadcast_to, ("shape", "subok"))]
