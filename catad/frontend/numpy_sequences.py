"""np.copysign, np.ediff1d, np.unwrap, np.repeat with an array of repeats and np.geomspace, as
NumPy computes them:

* ``np.copysign(a, b)``: |a| with b's sign bit (the primitive signbit, so -0.0 and a NaN of
  negative sign count as negative, as in C99's copysign);
* ``np.ediff1d(ary, to_end=None, to_begin=None)``: the differences of the flattened array, with
  to_begin before and to_end after (numbers or arrays, flattened); NumPy's TypeError when they
  are not of a kind the result's dtype can take (Floats into an Int result);
* ``np.unwrap(p, discont=None, axis=-1, period=2 pi)`` of a 1-d Float array: NumPy's algorithm
  (numpy/lib/_function_base_impl.py): dd = diff(p), ddmod = mod(dd + period/2, period) - period/2
  (period/2 where that is -period/2 and dd > 0), the correction ddmod - dd where |dd| >= discont,
  and p[1:] + its running sum;
* ``np.repeat(a, repeats)`` with repeats an array of constant Ints (a list or np.array literal
  of int literals): output element j is a[k(j)], k = the constant np.repeat(arange(len(repeats)),
  repeats); a length-1 repeats is the number. a's length is checked to be len(repeats) once per
  call (NumPy's ValueError otherwise).
* ``np.geomspace(start, stop, num=50, endpoint=True)`` of numbers: NumPy's algorithm
  (numpy/_core/function_base.py): s = sign(start), 10 ** linspace(log10(start / s), log10(stop / s)),
  its first element start / s and its last stop / s (as NumPy sets them), all times s; NumPy's
  ValueError where start or stop is 0.

The handlers are rows of catad/frontend/calls.py's table.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Build, Const, If, Term, make_lets
from ..lang.types import Float, Int, Vec, rank, scalar_of
from ..primitives import prim
from .calls import display
from .common import ONE, ZERO, and_, index_chain, is_array
from .numpy_arrays import (_diff0, _is_none, array_arg, bind_args, builds, concatenate, h_repeat as _h_repeat_int,
                           reshape, scan0)


def _binary(lw, f, a: Term, b: Term, loc) -> Term:
    return lw.b.elementwise(f, [a, b], loc) if is_array(a) or is_array(b) else f(a, b)


def h_copysign(lw, obj, node, args, kwargs):
    """np.copysign(x1, x2): |x1| with the sign bit of x2, elementwise with broadcasting;
    math.copysign(x, y) of numbers, Python's float (expressions.x_Call marks it)."""
    p = bind_args(lw, obj, node, args, kwargs, ("x1", "x2"), 2)
    loc = lw.loc(node)
    a, b = (lw.b.to_float(lw.arg(p[k]), loc) for k in ("x1", "x2"))
    if obj is math.copysign and (is_array(a) or is_array(b)):
        lw.fail(node, "math.copysign", "math.copysign() takes numbers, got an array", CatadTypeError,
                hint="np.copysign(a, b) works elementwise")

    def one(x, y):
        return lw.b.share(prim("abs", x, loc=loc), lambda m: If(prim("signbit", y, loc=loc), prim("neg", m, loc=loc),
                                                                 m, loc), loc)
    return lw.b.share_all([a, b], lambda x, y: _binary(lw, one, x, y, loc), loc)


def _flat(lw, t: Term, loc) -> Term:
    if not is_array(t):
        return builds(lw, [ONE], lambda i: t, loc)
    return t if rank(t.type) == 1 else reshape(lw, t, [Const(-1, Int)], loc, np.ravel)


def h_ediff1d(lw, obj, node, args, kwargs):
    """np.ediff1d(ary, to_end=None, to_begin=None): the flattened array's differences, to_begin
    before them and to_end after."""
    p = bind_args(lw, obj, node, args, kwargs, ("ary", "to_end", "to_begin"))
    loc = lw.loc(node)
    a = array_arg(lw, p["ary"], obj, node)
    kind = scalar_of(a.type)
    if kind not in (Int, Float):
        lw.fail(node, "np.ediff1d", f"np.ediff1d() of a {a.type} is not supported", CatadTypeError)
    parts = []
    for key in ("to_begin", "to_end"):
        if _is_none(p.get(key)):
            parts.append(None)
            continue
        t = lw.arg(p[key])
        if scalar_of(t.type) == Float and kind == Int:
            lw.fail(node, "np.ediff1d", f"dtype of `{key}` must be compatible with input `ary` under the "
                                        "`same_kind` rule.", CatadTypeError)
        parts.append(lw.b.numeric(t, kind, loc))
    diffs = lw.b.share(_flat(lw, a, loc), lambda v: _diff0(lw, v, loc), loc)
    pieces = ([_flat(lw, parts[0], loc)] if parts[0] is not None else []) + [diffs] + \
        ([_flat(lw, parts[1], loc)] if parts[1] is not None else [])
    if len(pieces) == 1:
        return diffs
    return lw.b.share_all(pieces, lambda *xs: concatenate(lw, list(xs), 0, loc, "np.ediff1d"), loc)


def _static_float(lw, a, node, what: str, default: float) -> Term:
    if a is None or _is_none(a):
        return Const(default, Float)
    t = lw.b.to_float(lw.arg(a), loc=lw.loc(node))
    if t.type != Float:
        lw.fail(node, "np.unwrap", f"{what} of np.unwrap must be a number", CatadTypeError)
    return t


def h_unwrap(lw, obj, node, args, kwargs):
    """np.unwrap(p, discont=None, axis=-1, period=2*pi) of a vector: NumPy's phase unwrapping."""
    p = bind_args(lw, obj, node, args, kwargs, ("p", "discont", "axis", "period"))
    loc = lw.loc(node)
    ph = lw.b.to_float(array_arg(lw, p["p"], obj, node), loc)
    if rank(ph.type) != 1:
        lw.fail(node, "np.unwrap", "np.unwrap() of an array of more than one axis is not supported",
                hint="unwrap each row: np.array([np.unwrap(r) for r in p])")
    if not _is_none(p.get("axis")):
        ax = lw.arg(p["axis"])
        if not (isinstance(ax, Const) and ax.type == Int and ax.value in (0, -1)):
            lw.fail(node, "np.unwrap", "axis of np.unwrap of a vector must be 0 or -1", CatadTypeError)
    if p.get("period") is not None and not _is_none(p["period"]) and lw.arg(p["period"]).type == Int and \
            scalar_of(lw.arg(p["p"]).type) == Int:
        lw.fail(node, "np.unwrap", "np.unwrap of Ints with an int period (NumPy's integer arithmetic) is not "
                                   "supported", hint="pass p as floats")
    period = _static_float(lw, p.get("period"), node, "period", 2 * math.pi)
    half = lw.b.share(period, lambda q: prim("div", q, Const(2.0, Float), loc=loc), loc)
    discont = None if _is_none(p.get("discont")) else _static_float(lw, p["discont"], node, "discont", 0.0)
    ts = [ph, period, half] + ([discont] if discont is not None else [])
    return lw.b.share_all(ts, lambda x, q, h, *d: _unwrap(lw, x, q, h, d[0] if d else h, node, loc), loc)


def _unwrap(lw, x: Term, period: Term, high: Term, discont: Term, node, loc) -> Term:
    """up[0] = p[0], up[1:] = p[1:] + cumsum(correction) (atoms throughout)."""
    low = prim("neg", high, loc=loc)

    def correction(dd):
        mod = lw.binop(ast.Mod(), prim("sub", dd, low, loc=loc), period, node)
        ddmod = lw.b.share(prim("add", mod, low, loc=loc), lambda m: If(
            and_(prim("eq", m, low, loc=loc), prim("gt", dd, Const(0.0, Float), loc=loc)), high, m, loc),
            loc)
        return If(prim("lt", prim("abs", dd, loc=loc), discont, loc=loc), Const(0.0, Float),
                  prim("sub", ddmod, dd, loc=loc), loc)
    n = lw.b.size(x, 0, loc)

    def with_sums(sums):
        i = lw.b.var(Int, loc, "_i")
        back = prim("max", prim("sub", i, ONE, loc=loc), ZERO, loc=loc)
        return Build(n, i, If(prim("eq", i, ZERO, loc=loc), index_chain(x, [i], loc),
                              prim("add", index_chain(x, [i], loc), index_chain(sums, [back], loc), loc=loc), loc), loc)
    dd = lw.b.share(_diff0(lw, x, loc), lambda d: lw.b.elementwise(correction, [d], loc), loc)
    return lw.b.share(lw.b.share(dd, lambda c: scan0(lw, c, lambda u, v: prim("add", u, v, loc=loc), loc), loc),
                      with_sums, loc)


def h_repeat(lw, obj, node, args, kwargs):
    """np.repeat(a, repeats, axis=None): an Int, or a constant array of Ints (a gather at the
    constant indices np.repeat(arange(len(repeats)), repeats))."""
    p = bind_args(lw, obj, node, args, kwargs, ("a", "repeats", "axis"), 2)
    reps = lw.arg(p["repeats"])
    if reps.type == Int:
        return _h_repeat_int(lw, obj, node, args, kwargs)
    loc = lw.loc(node)
    counts = None
    if is_array(reps) and rank(reps.type) == 1 and scalar_of(reps.type) == Int:
        counts = _literal_ints(lw, p["repeats"], reps)
    if counts is None:
        lw.fail(node, "np.repeat", "repeats of np.repeat must be an Int or a constant array of Ints here (an "
                                   "array computed by the function sets the output's length from values)",
                hint="write the repeats as a literal list, or build the output with np.concatenate")
    if any(c < 0 for c in counts):
        lw.fail(node, "np.repeat", "repeats may not contain negative values.", CatadTypeError)
    if not _is_none(p.get("axis")):
        lw.fail(node, "np.repeat", "axis of np.repeat with an array of repeats is not supported",
                hint="repeat the rows with an index array: a[np.repeat(np.arange(len(a)), repeats)]")
    a = array_arg(lw, p["a"], obj, node)
    if len(counts) == 1:
        return _h_repeat_int(lw, obj, node, [p["a"], ast.copy_location(ast.Constant(counts[0]), node)], {})
    idx = np.repeat(np.arange(len(counts)), counts)

    def body(v):
        n = lw.b.size(v, 0, loc)
        chk = lw.b.check(prim("eq", n, Const(len(counts), Int), loc=loc), (n,), loc, "np.repeat",
                         f"operands could not be broadcast together with shape ({{0}},) ({len(counts)},)")
        ks = Const(idx.astype(np.int64), Vec(Int))
        return make_lets(chk, builds(lw, [Const(len(idx), Int)], lambda j: index_chain(
            v, [index_chain(ks, [j], loc)], loc), loc))
    return lw.b.share(_flat(lw, a, loc), body, loc)


def _literal_ints(lw, node_arg, t: Term):
    """The Ints of a constant repeats array: a Const, or a list/array display of int literals."""
    if isinstance(t, Const):
        return tuple(int(v) for v in np.asarray(t.value).ravel())
    node = node_arg
    if isinstance(node, ast.Call) and len(node.args) == 1:  # np.array([1, 2, 3])
        node = node.args[0]
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and type(e.value) is int
                                                      for e in node.elts):
        return tuple(e.value for e in node.elts)
    return None


def h_geomspace(lw, obj, node, args, kwargs):
    """np.geomspace(start, stop, num=50, endpoint=True) of numbers: NumPy's 10 ** linspace(log10
    (start / s), log10(stop / s)) times s = sign(start), its ends start and stop themselves."""
    from .numpy_arrays import h_linspace
    p = bind_args(lw, obj, node, args, kwargs, ("start", "stop", "num", "endpoint"), 2)
    loc = lw.loc(node)
    ends = [lw.b.to_float(lw.arg(p[k]), loc) for k in ("start", "stop")]
    if any(t.type != Float for t in ends):
        lw.fail(node, "np.geomspace", "np.geomspace() takes numbers start and stop here (not arrays)", CatadTypeError)
    zero = Const(0.0, Float)

    def body(start, stop):
        chk = lw.b.check(and_(prim("ne", start, zero, loc=loc), prim("ne", stop, zero, loc=loc)), (), loc,
                         "np.geomspace", "Geometric sequence cannot include zero")
        # np.sign(start): a NaN start's is NaN, which makes every element NaN, the ends too
        sign = If(prim("lt", start, zero, loc=loc), Const(-1.0, Float),
                  If(prim("gt", start, zero, loc=loc), Const(1.0, Float), start, loc), loc)

        def signed(s, a, b):
            logs = [prim("log10", a, loc=loc), prim("log10", b, loc=loc)]
            kw = {k: p[k] for k in ("num", "endpoint") if p.get(k) is not None}
            spaced = h_linspace(lw, np.linspace, node, logs, kw)
            return lw.b.share(spaced, lambda y: _ends(lw, y, a, b, s, p.get("endpoint"), loc), loc)
        return make_lets(chk, lw.b.share(sign, lambda s: lw.b.share_all(
            [prim("div", start, s, loc=loc), prim("div", stop, s, loc=loc)], lambda a, b: signed(s, a, b), loc), loc))
    return lw.b.share_all(ends, body, loc)


def _ends(lw, y: Term, a: Term, b: Term, s: Term, endpoint_node, loc) -> Term:
    """NumPy's result[0] = start, result[-1] = stop (with endpoint), each times the sign."""
    from .numpy_arrays import static_bool
    endpoint = static_bool(lw, endpoint_node, np.geomspace, "endpoint", True)
    n = lw.b.size(y, 0, loc)

    def elem(k):
        v = prim("pow", Const(10.0, Float), index_chain(y, [k], loc), loc=loc)
        if endpoint:
            v = If(and_(prim("eq", k, prim("sub", n, ONE, loc=loc), loc=loc), prim("lt", ONE, n, loc=loc)), b, v, loc)
        return prim("mul", If(prim("eq", k, ZERO, loc=loc), a, v, loc), s, loc=loc)
    return builds(lw, [n], elem, loc)


TABLE = [((np.geomspace,), h_geomspace, ("num", "endpoint")), ((np.copysign, math.copysign), h_copysign, ()), ((np.ediff1d,), h_ediff1d, ("to_end", "to_begin")),
         ((np.unwrap,), h_unwrap, ("discont", "axis", "period")), ((np.repeat,), h_repeat, ("axis",))]
