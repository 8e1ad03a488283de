"""The tangent space's operations: tadd, tscale and tmul, and for a derivative program
differentiated again the products of two tangents (touter, tdot, tprod) and densify
(catad.backend).

Zeros stay symbolic, index updates stay updates and sums of updates stay sums (values.py),
so adding and scaling push into the structure rather than materialising it. In the zero-safe
variant (``Compiler(zero_safe=True)``) a product with a tangent is 0 wherever the tangent is 0,
whatever its coefficient (runtime.tmul0; catad.tangents.times).
"""
from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..lang.types import Float, Tuple as TupleT, rank
from . import arrays, scatters
from .values import ZERO, RT, Arr, Stacked, TSum, Upd, Unvectorisable, is_zero, kind_of, tsum_terms

if TYPE_CHECKING:
    from .compiler import Compiler


def p_tadd(c: Compiler, t, a, b):
    """tadd(a, b): the sum of two tangents."""
    return tadd(c, a, b)


def tadd(c: Compiler, a, b):
    """a + b, as structured as a and b are (a sum of different kinds stays a TSum)."""
    if is_zero(a):
        return b
    if is_zero(b):
        return a
    if (a is b or a == b) and not (isinstance(a, Arr) and a.kind != "f"):
        # x + x (both sides of a product rule, as in x * x) is 2x, and scaling
        # lands on x's smallest factor (tscale): no pass over a large array
        return tscale(c, c.const(2.0, Float), a)
    if isinstance(a, tuple) or isinstance(b, tuple):
        return tuple(tadd(c, x, y) for x, y in zip(_components(c, a, b), _components(c, b, a)))
    if isinstance(a, RT) or isinstance(b, RT):
        return RT(c.assign(f"T_tadd({arrays.rt_or_dense(c, a)}, {arrays.rt_or_dense(c, b)})"))
    if isinstance(a, Arr) and isinstance(b, Arr):
        for x, y in ((a, b), (b, a)):
            minus = _negated(c, y)
            if minus is not None:  # x + (-1 * m) is x - m, exactly (IEEE), one operation fewer
                return c.op("({0} - {1})", [x, minus], a.kind, a.rank)
        return c.op("({0} + {1})", [a, b], a.kind, a.rank)
    if isinstance(a, Stacked) and isinstance(b, Stacked) and a.n.code == b.n.code and a.N == b.N \
            and a.mask is None and b.mask is None and isinstance(a.body, Arr) and isinstance(b.body, Arr):
        d = max(a.depth, b.depth)
        a, b = arrays.at(c, a, d), arrays.at(c, b, d)
        return Stacked(tadd(c, a.body, b.body), d, a.n, a.N, None)
    return TSum(a, b)  # kept apart: each is summed, scaled, masked on its own terms


def _components(c: Compiler, x, other: tuple | RT) -> tuple:
    """The components of x, a tuple tangent added to `other`: a run-time tangent (a branch's or a
    loop's, possibly ZERO for the whole tuple) is projected, one component each."""
    if isinstance(x, tuple):
        return x
    if isinstance(x, RT) and not x.is_list:
        return tuple(RT(c.assign(f"rt_index({x.code}, {k})")) for k in range(len(other)))
    raise AssertionError((x, other))


def _negated(c: Compiler, x: Arr) -> Arr | None:
    """m when the scalar x was made as -1 * m (a derivative of a - b, in reverse mode): at
    depth 0 only, where no einsum wants x as a product of factors (contractions.factors).
    In the logistic map x = r x (1 - x) it is one of the twelve operations per step."""
    if x.depth or x.rank:
        return None
    how = c.defs.get(x.code)
    if how is None or how[0] != "mul":
        return None
    for k, m in ((how[1], how[2]), (how[2], how[1])):
        if _is_minus_one(c, k) and m.depth == 0 and m.rank == 0:
            return m
    return None


def _is_minus_one(c: Compiler, k: Arr) -> bool:
    return c.float_constant(k) == -1.0


def sum_all(c: Compiler, xs: list):
    """The sum of the tangents xs (ZERO for none)."""
    out = ZERO
    for x in xs:
        out = tadd(c, out, x)
    return out


def p_tscale(c: Compiler, t, s, x):
    """tscale(s, x): the tangent x times the scalar s (the application of lmScale)."""
    s = arrays.scalar(c, s)
    if isinstance(x, RT) and s.depth > 0:
        # a run-time tangent has no batch axes: scaled by a value of each lane, it is one per lane,
        # a number's as an array of the lanes' products; another's has no code here
        if rank(t.type) != 0:
            raise Unvectorisable("a run-time tangent scaled by a value of each lane of a build")
        x = arrays.dense(c, x)
    return tscale(c, s, x)


def tscale(c: Compiler, s: Arr, x):
    """s * x, pushed into x's structure (an update scales its values, a build its body)."""
    if is_zero(x):
        return x
    if isinstance(x, tuple):
        return tuple(tscale(c, s, v) for v in x)
    if isinstance(x, Arr):
        if _zero_safe(c, s):
            return times(c, s, x)
        if x.rank == 0:
            return c.op("({0} * {1})", [s, x], "f")
        d = max(s.depth, x.depth)
        return Arr(c.assign(f"({c.expand(s, d, x.rank)} * {c.lift(x, d).code})"), d,
                   s.deps | x.deps, x.rank, "f")
    if isinstance(x, Upd):
        x = scatters.settle(c, x, s.depth)
        if not isinstance(x, Upd):
            return tscale(c, s, x)
        return Upd(x.idx, tscale(c, s, x.val), x.n, x.extra)
    if isinstance(x, TSum):
        return sum_all(c, [tscale(c, s, v) for v in tsum_terms(x)])
    if isinstance(x, Stacked):
        st = arrays.at(c, x, max(x.depth, s.depth))
        return Stacked(tscale(c, s, st.body), st.depth, st.n, st.N, st.mask)
    if isinstance(x, RT):
        return RT(c.assign(f"T_tscale({s.code}, {x.code})"))
    raise AssertionError(x)


def p_tmul(c: Compiler, t, v: Arr, x):
    """tmul(v, x): v * x elementwise (the application of lmScaleVec)."""
    if x is ZERO:
        return ZERO
    x = arrays.dense(c, x)
    if _zero_safe(c, v):
        return times(c, v, x)
    return c.op("({0} * {1})", [v, x], "f", x.rank)


def _zero_safe(c: Compiler, k: Arr) -> bool:
    """Whether the product of a tangent with the coefficient k is written zero-safe (times):
    in the zero-safe variant, unless k is a finite Float constant, as the derivatives of + and
    * by a number are (k * x is 0 wherever x is 0 then, as in the usual variant). Such a product
    does not ask which variant this is (Compiler.zero_safe): a program of them alone, such as
    an addition chain, is one code for both."""
    value = c.float_constant(k)
    if value is not None and math.isfinite(value):
        return False
    return c.zero_safe


def times(c: Compiler, k: Arr, x: Arr) -> Arr:
    """k * x for a tangent x in the zero-safe variant: 0 wherever x is 0 (runtime.tmul0).
    A product of scalars per lane is kept in `defs`, so that a sum of it is still one
    einsum, with x whole as a `zero` operand (contractions.factors)."""
    d = max(k.depth, x.depth)
    code = f"tmul0({c.expand(k, d, x.rank - k.rank)}, {c.lift(x, d).code})"
    out = Arr(c.assign(code), d, k.deps | x.deps, x.rank, "f")
    if k.rank == 0 and x.rank == 0:
        c.defs[out.code] = ("tmul", k, x)
    return out


# ---------------------------------------------------------------- a derivative differentiated again
# The products of two tangents (catad.ad.rules: the partials of tscale and tmul in their tangent
# arguments), and densify, which gives a derivative's result to the program that called it.

def _dense_or_zero(c: Compiler, x):
    """x as an array, or ZERO when it is the zero tangent (known while compiling)."""
    if is_zero(x):
        return ZERO
    if isinstance(x, RT):
        if c.depth > 0:
            raise Unvectorisable("a loop's tangents used inside a vectorised build")
        return RT(x.code)
    return arrays.scalar(c, x) if not isinstance(x, (Stacked, Upd, TSum)) else arrays.dense(c, x)


def p_touter(c: Compiler, t, a, k):
    """touter(a, k) = k * a, a product of two tangents: 0 wherever k or a is 0."""
    if is_zero(k) or is_zero(a):
        return ZERO
    k = arrays.scalar(c, k)
    if isinstance(a, tuple):
        return tuple(p_touter(c, t, x, k) for x in a)
    a = _dense_or_zero(c, a)
    if isinstance(a, RT):
        return RT(c.assign(f"tangent_outer({a.code}, {k.code})"))
    if c.zero_safe:  # both factors are tangents: where either is 0, so is the product
        d = max(k.depth, a.depth)
        code = f"tmul00({c.lift(a, d).code}, {c.expand(k, d, a.rank)})"
        return Arr(c.assign(code), d, k.deps | a.deps, a.rank, "f")
    if a.rank == 0:
        return c.op("({0} * {1})", [k, a], "f")
    d = max(k.depth, a.depth)
    return Arr(c.assign(f"({c.expand(k, d, a.rank)} * {c.lift(a, d).code})"), d, k.deps | a.deps, a.rank, "f")


def p_tdot(c: Compiler, t, a, r):
    """tdot(a, r) = <a, r>: the sum over the element axes of a * r (0 when either is 0)."""
    if isinstance(a, tuple):
        parts = [p_tdot(c, t, x, y) for x, y in zip(a, r if isinstance(r, tuple) else (ZERO,) * len(a))]
        return sum_all(c, parts)
    a, r = _dense_or_zero(c, a), _dense_or_zero(c, r)
    if a is ZERO or r is ZERO:
        return ZERO
    if isinstance(a, RT) or isinstance(r, RT):
        return Arr(c.assign(f"tangent_dot({arrays.rt(c, a)}, {arrays.rt(c, r)})"))
    prod = times_both(c, a, r) if c.zero_safe else c.op("({0} * {1})", [a, r], "f", a.rank)
    if a.rank == 0:
        return prod
    axes = ", ".join(str(prod.depth + k) for k in range(a.rank))
    return Arr(c.assign(f"{prod.code}.sum(axis=({axes},))"), prod.depth, prod.deps, 0, "f")


def p_tprod(c: Compiler, t, a, b):
    """tprod(a, b) = a * b elementwise, b the tangent (0 when either is 0)."""
    a, b = _dense_or_zero(c, a), _dense_or_zero(c, b)
    if a is ZERO or b is ZERO:
        return ZERO
    if isinstance(a, RT) or isinstance(b, RT):
        return RT(c.assign(f"tangent_prod({arrays.rt(c, a)}, {arrays.rt(c, b)})"))
    if c.zero_safe:
        return times_both(c, a, b)
    return c.op("({0} * {1})", [a, b], "f", b.rank)


def times_both(c: Compiler, a: Arr, b: Arr) -> Arr:
    """a * b for two tangents of one shape in the zero-safe variant: 0 wherever either is 0
    (runtime.tmul00)."""
    d = max(a.depth, b.depth)
    return Arr(c.assign(f"tmul00({c.lift(a, d).code}, {c.lift(b, d).code})"), d, a.deps | b.deps, b.rank, "f")


def _run_time(x) -> bool:
    """x is a vector of copies of one run-time tangent (a Stacked of an RT), or a sum holding one:
    no array the code generator can make (its shape is known at run time only)."""
    if isinstance(x, TSum):
        return any(_run_time(v) for v in tsum_terms(x))
    return isinstance(x, Stacked) and isinstance(x.body, RT)


def p_densify(c: Compiler, t, x, like):
    """densify(x, like): the tangent x as a value shaped like `like` (zeros for ZERO)."""
    return densified(c, x, like, t.type)


def densified(c: Compiler, x, like, ty):
    if isinstance(ty, TupleT):
        parts = x if isinstance(x, tuple) else (ZERO,) * len(ty.items)
        return tuple(densified(c, p, q, s) for p, q, s in zip(parts, like, ty.items))
    kind = kind_of(ty)
    if kind != "f":
        return ZERO  # an Int or Bool has no tangent
    if c.depth == 0 and _run_time(x):  # copies of one run-time tangent (rt_repeat), or a sum with them
        x = RT(arrays.rt_terms(c, x))
    if isinstance(x, RT):
        if c.depth > 0:
            raise Unvectorisable("a loop's tangents used inside a vectorised build")
        like = arrays.dense(c, like) if isinstance(like, (Stacked, Upd, TSum)) else like
        return Arr(c.assign(f"dense_like({x.code}, {like.code})"), 0, frozenset(), rank(ty), "f")
    if not is_zero(x):
        if not rank(ty):
            return arrays.scalar(c, x)
        x = arrays.dense(c, x)
        if c.depth == 0 and x.depth == 0 and isinstance(like, Arr) and like.depth == 0:  # (see runtime.shaped_as)
            return Arr(c.assign(f"shaped_as({x.code}, {like.code})"), 0, frozenset(), x.rank, "f")
        return x
    if rank(ty) == 0:
        return c.const(0.0, Float)
    like = arrays.dense(c, like)
    return Arr(c.assign(f"np.zeros_like({like.code}, dtype=np.float64)"), like.depth, like.deps, like.rank, "f")
