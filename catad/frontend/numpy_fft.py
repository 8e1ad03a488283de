"""np.fft's transforms and NumPy's functions of complex values, for complexes.py's Complex.

* ``np.fft.fft(a, n=None, axis=-1, norm=None)``, ``np.fft.ifft``, ``np.fft.rfft`` and
  ``np.fft.irfft``: a call of the primitive of the same name (catad/primitives/fft.py), on the
  pair (re, im) of a complex value or on a real array, after NumPy's checks (n >= 1; an axis out
  of range and a norm NumPy does not know raise NumPy's errors where the call runs). Its
  derivative is the transform itself and its transpose the adjoint transform, each one np.fft
  call (never a DFT matrix). The result's shape is the input's with n along the axis (n // 2 + 1
  for rfft; irfft's n is 2 (m - 1) by default).
* ``np.real``, ``np.imag``, ``np.conj`` (``np.conjugate``) and ``np.angle(z, deg=False)`` of
  a complex or a real value, as NumPy gives them.

The handlers are rows of catad/frontend/calls.py's table.
"""
from __future__ import annotations

import ast

import numpy as np

from ..errors import CatadTypeError
from ..lang.terms import Const, Get, Tuple, is_atom, make_lets
from ..lang.types import Bool, Float, Int, Tuple as TupleT, rank, scalar_of
from ..primitives import prim
from ..primitives.fft import NORMS
from . import complexes
from .calls import _arity, display
from .common import ONE, is_array
from .complexes import Complex, text_of
from .numpy_arrays import Failure, _is_none, bind_args, int_arg, static_bool
from .shapes import Dim

_FFT = {id(np.fft.fft): "fft", id(np.fft.ifft): "ifft", id(np.fft.rfft): "rfft", id(np.fft.irfft): "irfft"}


def _input(lw, a, obj, node) -> Complex:
    """The transform's input: a complex value, or a real array (a list display too) made Float."""
    name, loc = display(obj), lw.loc(node)
    x = lw.display(a) if isinstance(a, (ast.List, ast.Tuple)) else lw.value_arg(a)
    if isinstance(x, Complex):
        if _FFT[id(obj)] == "rfft":
            lw.fail(node, name, f"{name}() takes a real array, got a complex value ({x.text}); NumPy's rfft has no "
                                "complex loop", CatadTypeError, "use np.fft.fft, or pass z.real")
        z = x
    else:
        if lw.is_list(x):
            x = x.replace()
        if not is_array(x) or scalar_of(x.type) not in (Int, Float, Bool):
            lw.fail(node, name, f"{name}() takes an array of numbers (of at least one axis), got a {x.type}",
                    CatadTypeError)
        z = complexes.real_value(lw, x, loc, text_of(a if isinstance(a, ast.AST) else node))
    if not is_array(z.re):
        lw.fail(node, name, f"{name}() takes an array of at least one axis, got a scalar (NumPy: IndexError: tuple "
                            "index out of range)", CatadTypeError)
    return z


def _norm(lw, a, obj) -> int | Failure:
    """norm=None, "backward", "ortho" or "forward" (a constant): its index in NORMS."""
    if _is_none(a):
        return 0
    value = a.value if isinstance(a, ast.Constant) else lw.static(a)
    if value is None:
        return 0
    if not isinstance(value, str):
        lw.fail(a, display(obj), f"norm of {display(obj)}() must be a string constant or None, got "
                                 f"{ast.unparse(a)}", CatadTypeError)
    if value not in NORMS:
        return Failure(lw.loc(a), display(obj), f'Invalid norm value {value}; should be "backward",'
                                                f'"ortho" or "forward".')
    return NORMS.index(value)


def _axis(lw, a, obj, r: int) -> int | Failure:
    """axis (a constant, -1 by default) as a non-negative axis of a rank-r array."""
    if _is_none(a):
        return r - 1
    t = lw.arg(a)
    if not (isinstance(t, Const) and t.type == Int):
        lw.fail(a, display(obj), f"axis of {display(obj)}() must be an integer constant", CatadTypeError)
    k = int(t.value)
    if not -r <= k < r:
        return Failure(lw.loc(a), display(obj), f"axis {k} is out of bounds for array of dimension {r} (NumPy: "
                                                "IndexError: tuple index out of range)", "bounds")
    return k % r


def h_fft(lw, obj, node, args, kwargs):
    """np.fft.fft, ifft, rfft, irfft(a, n=None, axis=-1, norm=None): a primitive, differentiated by itself.

    Its derivative is the transform of the tangent and its transpose the adjoint transform
    (catad/primitives/fft.py)."""
    name, shown = _FFT[id(obj)], display(obj)
    p = bind_args(lw, obj, node, args, kwargs, ("a", "n", "axis", "norm", "out"), 1)
    if not _is_none(p.get("out")):
        lw.fail(p["out"], shown, f"out= of {shown}() is not supported (a compiled function makes new arrays)",
                hint="assign the result: y = " + shown + "(...)")
    loc, text = lw.loc(node), text_of(node)
    z = _input(lw, p["a"], obj, node)
    r = rank(z.re.type)
    axis, norm = _axis(lw, p.get("axis"), obj, r), _norm(lw, p.get("norm"), obj)
    a = z.re.type
    for failed in (axis, norm):
        if isinstance(failed, Failure):  # NumPy raises when the call runs
            result = failed.term(lw, TupleT((a, a)) if name != "irfft" else a)
            if name == "irfft":
                return z.wrap(result)
            pair = lw.b.bound(lw.b.var(result.type, loc), result)
            return complexes.make(lw, list(z.lets) + [(pair, result, loc)], Get(0, pair, loc), Get(1, pair, loc),
                                  loc, text)
    lets = list(z.lets)
    shape = lw.b.shape(z.re)
    m = lw.b.size(z.re, axis, loc)
    if _is_none(p.get("n")):
        n = prim("mul", Const(2, Int, loc), prim("sub", m, ONE, loc=loc), loc=loc) if name == "irfft" else m
    else:
        n = int_arg(lw, p["n"], obj, "n")
    if not is_atom(n):  # read by the call and the result's shape: bound once (its linear form kept)
        nv = lw.b.bound(lw.b.var(Int, loc, "_n"), n)
        lets.append((nv, n, loc))
        n = nv
    if not lw.b.shapes.at_most(ONE, n):
        lets += lw.b.check(prim("le", ONE, n, loc=loc), (n,), loc, shown,
                           "Invalid number of FFT data points ({0}) specified.")
    out_len = prim("add", prim("floordiv", n, Const(2, Int, loc), loc=loc), ONE, loc=loc) if name == "rfft" else n
    one = _one(lw, shape[axis], n, name, p.get("n"))
    dims = tuple(Dim(out_len, one) if k == axis else d for k, d in enumerate(shape))
    lw.b.shapes._known(dims[axis])
    arg = z.re if z.im is None else Tuple((z.re, z.im), loc)
    call = prim(name, arg, n, Const(axis - r, Int, loc), Const(norm, Int, loc), loc=loc)
    out = lw.b.var(call.type, loc, "_ft")
    lets.append((out, call, loc))
    if name == "irfft":
        lw.b.shapes.dims[out.name] = dims
        return make_lets(lets, out)
    parts = []
    for k in range(2):
        v = lw.b.var(a, loc, "_z")
        lw.b.shapes.dims[v.name] = dims
        lets.append((v, Get(k, out, loc), loc))
        parts.append(v)
    return complexes.Complex(tuple(lets), parts[0], parts[1], text)


def _one(lw, d: Dim, n: Term, name: str, given) -> bool | None:
    """Is the result's length along the axis 1: as the input's when n is its length (rfft: n // 2 + 1
    is 1 exactly when n is 1; irfft's default 2 (m - 1) is never 1)."""
    if not _is_none(given):
        if isinstance(n, Const):
            return (int(n.value) // 2 + 1 if name == "rfft" else int(n.value)) == 1
        return None
    if name == "irfft":
        return False
    return d.one


# ------------------------------------------------------------ functions of complex values

def _value(lw, a, loc):
    return lw.display(a) if isinstance(a, (ast.List, ast.Tuple)) else lw.value_arg(a)


def h_real(lw, obj, node, args, kwargs):
    """np.real(z), np.imag(z): the real and imaginary parts (of a real value: itself and zeros)."""
    _arity(lw, obj, node, args, 1)
    loc = lw.loc(node)
    z = _value(lw, args[0], loc)
    if isinstance(z, Complex):
        return complexes.real_part(lw, z, loc) if obj is np.real else complexes.imag_part(lw, z, loc)
    return lw.array_attribute(z, "real" if obj is np.real else "imag", loc)


def h_conj(lw, obj, node, args, kwargs):
    """np.conj(z), np.conjugate(z): (re, -im) (a real value itself)."""
    _arity(lw, obj, node, args, 1)
    loc = lw.loc(node)
    z = _value(lw, args[0], loc)
    if isinstance(z, Complex):
        return complexes.conjugate(lw, z, loc, text_of(node))
    if z.type not in (Int, Float) and not (is_array(z) and scalar_of(z.type) in (Int, Float)):
        lw.fail(node, display(obj), f"{display(obj)}() takes a number or an array of numbers, got a {z.type}",
                CatadTypeError)
    return z


def h_angle(lw, obj, node, args, kwargs):
    """np.angle(z, deg=False): arctan2(im, re) (of a real value: 0 or pi), in degrees with deg=True."""
    p = bind_args(lw, obj, node, args, kwargs, ("z", "deg"), 1)
    loc = lw.loc(node)
    deg = static_bool(lw, p.get("deg"), obj, "deg", False)
    z = _value(lw, p["z"], loc)
    if not isinstance(z, Complex):
        if scalar_of(z.type) not in (Int, Float, Bool):
            lw.fail(node, "np.angle", f"np.angle() takes a number or an array of numbers, got a {z.type}",
                    CatadTypeError)
        z = complexes.real_value(lw, z, loc, text_of(node))
    return complexes.angle(lw, z, loc, deg)


TABLE = [
    ((np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft), h_fft, ("n", "axis", "norm")),
    ((np.real, np.imag), h_real, ()),
    ((np.conj,), h_conj, ()),
    ((np.angle,), h_angle, ("deg",)),
]


__all__ = ["TABLE", "h_fft", "h_real", "h_conj", "h_angle"]
