"""The discrete Fourier transforms (fft, ifft, rfft, irfft) and the actions of their derivatives,
as calls of the kernels of catad/primitives/fft.py.

A kernel works along one axis given from the end, so a value inside vectorised builds (batch
axes first, values.py) is a stack of transforms for it: the arguments are lifted to one depth
and the kernel is called once. A complex value is a pair (a Python tuple) of arrays, passed to
the kernel as a tuple; the kernel broadcasts its parts, which may have size-1 batch axes. The
transform's length, axis and norm are one Int for all lanes: a length that varies with the lane
has no whole-array form (Unvectorisable: that build is a Python loop).

Tangents: the symbolic zero gives zero (the maps are linear) and is never materialised, nor is
a zero part of a pair (passed as ZERO); sparse tangents are made arrays; a run-time tangent (a
loop's) is passed as it is, and the result is run-time.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lang.types import Tuple as TupleT, rank
from . import arrays
from .values import RT, ZERO, Arr, Unvectorisable, is_zero

if TYPE_CHECKING:
    from .compiler import Compiler


def _int(x) -> str:
    """The code of an Int argument: one value for every lane."""
    if not isinstance(x, Arr) or x.depth > 0:
        raise Unvectorisable("a Fourier transform whose length differs between lanes")
    return x.code


def _parts(c: Compiler, x) -> list:
    """The parts of a value or tangent: [re, im] of a pair, [x] of a real array; each an Arr or
    ZERO."""
    items = list(x) if isinstance(x, tuple) else [x]
    return [ZERO if is_zero(p) else p if isinstance(p, (Arr, RT)) else arrays.dense(c, p) for p in items]


def _result(c: Compiler, t, code: str, depth: int, deps: frozenset):
    """The kernel's result: a pair of arrays for a Tuple type, else an array."""
    ty = t.type
    if isinstance(ty, TupleT):
        r = rank(ty.items[0])
        return tuple(Arr(c.assign(f"{code}[{k}]", "ft"), depth, deps, r, "f") for k in range(2))
    return Arr(code, depth, deps, rank(ty), "f")


def _call(c: Compiler, t, fn: str, ints: list, x, first: bool = False):
    """fn(ints..., x), or fn(x, ints...) when `first`, for a value or tangent x (a pair or an
    array): zero for the zero tangent, run-time for a run-time one."""
    parts = _parts(c, x)
    if all(p is ZERO for p in parts):
        return ZERO
    ints = [_int(i) for i in ints]
    if any(isinstance(p, RT) for p in parts):
        codes = [arrays.rt(c, p) for p in parts]
        arg = f"({', '.join(codes)}, )" if isinstance(x, tuple) else codes[0]
        return RT(c.assign(f"{fn}({', '.join([arg] + ints if first else ints + [arg])})", "ft"))
    live = [p for p in parts if p is not ZERO]
    d = max(p.depth for p in live)
    codes = ["ZERO" if p is ZERO else c.lift(p, d).code for p in parts]
    arg = f"({', '.join(codes)}, )" if isinstance(x, tuple) else codes[0]
    deps = frozenset().union(*(p.deps for p in live))
    code = c.assign(f"{fn}({', '.join([arg] + ints if first else ints + [arg])})", "ft")
    return _result(c, t, code, d, deps)


def _transform(name: str):
    def p(c: Compiler, t, z, n, axis, norm):
        return _call(c, t, f"dft_{name}", [n, axis, norm], z, first=True)
    p.__name__ = "p_" + name
    p.__doc__ = f"np.fft.{name}(z, n, axis, norm): one call of the kernel for all lanes."
    return p


def _action(name: str):
    def p(c: Compiler, t, n, m, axis, norm, x):
        return _call(c, t, f"dft_{name}", [n, m, axis, norm], x)
    p.__name__ = "p_" + name
    p.__doc__ = f"The derivative action {name}: one call of the kernel for all lanes."
    return p


p_fft, p_ifft, p_rfft, p_irfft = (_transform(n) for n in ("fft", "ifft", "rfft", "irfft"))
p_fft_jvp, p_fft_vjp, p_fft_vjp_re = (_action(n) for n in ("fft_jvp", "fft_vjp", "fft_vjp_re"))
p_ifft_jvp, p_ifft_vjp, p_ifft_vjp_re = (_action(n) for n in ("ifft_jvp", "ifft_vjp", "ifft_vjp_re"))
p_rfft_jvp, p_rfft_vjp = (_action(n) for n in ("rfft_jvp", "rfft_vjp"))
p_irfft_jvp, p_irfft_vjp, p_irfft_vjp_re = (_action(n) for n in ("irfft_jvp", "irfft_vjp", "irfft_vjp_re"))
