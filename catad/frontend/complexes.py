"""Complex values as intermediates: a pair of real arrays (or scalars) the front end carries
while lowering, never a value of the core language (whose types are real: docs/design.md,
"Complex values").

A :class:`Complex` holds its real and imaginary parts as atoms of one shape (the imaginary part
None where it is known to be 0: a real value promoted, an rfft's input), and the bindings the
parts read (``lets``: an FFT's call, the parts of a product), which every term made from it is
wrapped in. Complex arithmetic is lowered to real operations on the parts, with NumPy's
formulas: the sum and difference of parts; the product (ar br - ai bi, ar bi + ai br); the
quotient by Smith's method as NumPy's loop writes it (exactly: |br| >= |bi| picks the ratio,
and a zero divisor divides by |br|), a real divisor as NumPy's promotion makes it (ar * (1/x),
ai * (1/x)); an integer power by NumPy's repeated squaring. np.abs is hypot(re, im) (its
partials are 0 at the origin, so |z| ** 2 has the gradient 2 (re, im) everywhere), np.angle
arctan2(im, re), np.conj (re, -im), np.real and np.imag and .real and .imag the parts.

A complex value may be assigned to a name, passed to these functions and to np.fft's, and
combined with others; anywhere else (a function's result, a comparison, an argument of your
function, an index, a list) it is refused with a located CatadError (:func:`refuse`) that says
to take a real value of it first. The expression lowering (expressions.py) keeps Complex values
out of everything else: ``expr`` refuses them, ``value`` lets them through to the places that
take them.
"""
from __future__ import annotations

import ast
import math

import numpy as np

from ..errors import CatadTypeError, Loc
from ..lang.terms import Const, Get, Term, Tuple, Var, is_atom, make_lets
from ..lang.types import Float, Int, scalar_of
from ..primitives import prim
from .common import is_array

_TAKES = ("complex arithmetic (+ - * / and ** of an integer), np.fft's transforms, np.abs, np.angle, np.real, "
          "np.imag, np.conj, np.sum, np.mean, len, subscripts, and .real, .imag, .conj(), .sum(), .mean(), .shape")
_HINT = "take a real value of it first: np.abs(z), np.abs(z) ** 2, np.angle(z), z.real or z.imag"


class Complex:
    """A complex value being lowered: its parts re and im (atoms of one shape, or im None for 0),
    the bindings (var, rhs, loc) they read, outermost first, and its source text (for messages)."""

    __slots__ = ("lets", "re", "im", "text")

    def __init__(self, lets: tuple, re: Term, im: Term | None, text: str):
        self.lets, self.re, self.im, self.text = tuple(lets), re, im, text

    def wrap(self, t: Term) -> Term:
        """t, which reads the parts, inside their bindings."""
        return make_lets(self.lets, t)


def text_of(node: ast.AST | None) -> str:
    if node is None:
        return "a complex value"
    s = ast.unparse(node)
    return s if len(s) <= 60 else s[:57] + "..."


def refuse(lw, node: ast.AST, z: Complex, where: str | None = None, hint: str | None = None):
    """The located error for a complex value used where catad takes only real ones."""
    place = where or "it is used where only real values are supported (a function's result, a comparison, an " \
                     "argument of your function, an index, a list, a condition)"
    lw.fail(node, "complex value", f"{z.text} is complex and {place}. catad computes with real numbers; complex "
                                   f"values are intermediates only, taken by {_TAKES}", CatadTypeError, hint or _HINT)


# ------------------------------------------------------------ making complex values

def make(lw, lets: list, re: Term, im: Term | None, loc: Loc | None, text: str) -> Complex:
    """A Complex of parts re and im (any terms: bound to atoms here, after lets)."""
    lets = list(lets)
    parts = []
    for t in (re, im):
        if t is not None and not is_atom(t):
            v = lw.b.bound(lw.b.var(t.type, loc, "_z"), t)
            lets.append((v, t, loc))
            t = v
        parts.append(t)
    return Complex(tuple(lets), parts[0], parts[1], text)


def real_value(lw, t: Term, loc: Loc | None, text: str) -> Complex:
    """A real number or array as a complex value (imaginary part 0), made Float."""
    t = lw.b.to_float(t, loc)
    if scalar_of(t.type) != Float:
        lw.fail(None, "complex value", f"a {t.type} cannot be made a complex value", CatadTypeError)
    return make(lw, [], t, None, loc, text)


def constant(value: complex, loc: Loc | None, text: str) -> Complex:
    """A complex literal (2j, 1 + 2j is 1 plus 2j)."""
    return Complex((), Const(float(value.real), Float, loc), Const(float(value.imag), Float, loc), text)


def as_complex(lw, x, loc: Loc | None, text: str) -> Complex:
    return x if isinstance(x, Complex) else real_value(lw, x, loc, text)


def _ew(lw, f, ts: list[Term], loc, construct: str) -> Term:
    """f elementwise over ts with NumPy's broadcasting (on scalars when none is an array)."""
    if any(is_array(t) for t in ts):
        return lw.b.elementwise(f, ts, loc, construct)
    return f(*ts)


def _shared(lw, loc, f):
    """f with each of its (scalar) arguments bound first when used more than once."""
    def g(*xs):
        return lw.b.share_all(list(xs), f, loc)
    return g


def full(lw, part: Term | None, like: list[Term], loc, construct: str) -> Term | None:
    """part broadcast to the shape of it and `like` together (the parts of a complex value have the
    value's shape): part itself when it has that shape already. All are atoms."""
    if part is None:
        return None
    if all(_within(lw, lw.b.shape(part), lw.b.shape(t)) for t in like):  # parts are atoms
        return part
    return _ew(lw, lambda p, *rest: p, [part] + like, loc, construct)


def _within(lw, shape, other) -> bool:
    """Does broadcasting an array of shape `other` against one of `shape` keep `shape`?"""
    if shape is None or other is None or len(other) > len(shape):
        return False
    for d, o in zip(shape[len(shape) - len(other):], other):
        if o is None or d is None:
            return False
        if not (o.one is True or lw.b.shapes.same(d, o)):
            return False
    return True


def _joined(*zs: Complex) -> list:
    """The bindings of several complex values, in order, each once (z * z reads z's once)."""
    seen, out = set(), []
    for z in zs:
        for b in z.lets:
            if id(b[0]) not in seen:
                seen.add(id(b[0]))
                out.append(b)
    return out


# ------------------------------------------------------------ arithmetic

def binop(lw, op: ast.operator, a, b, node: ast.AST):
    """a op b where a or b is complex (the other real or complex): + - * / **."""
    loc = lw.loc(node)
    text = text_of(node)
    sym = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}.get(type(op))
    if sym is None:
        z = a if isinstance(a, Complex) else b
        refuse(lw, node, z, f"operator {type(op).__name__} is not defined for complex values here", _HINT)
    construct = f"operator {sym}"
    if sym == "**":
        return _power(lw, a, b, node, loc, text)
    # a real operand is bound in its own Complex's lets, so Python's order (a, then b) is kept
    x, y = as_complex(lw, a, loc, text), as_complex(lw, b, loc, text)
    lets = _joined(x, y)
    f = lambda g: _shared(lw, loc, g)
    add = lambda p, q: lw.b.arith("add", p, q, loc)
    sub = lambda p, q: lw.b.arith("sub", p, q, loc)
    mul = lambda p, q: lw.b.arith("mul", p, q, loc)
    if sym in "+-":
        pm = add if sym == "+" else sub
        re = _ew(lw, pm, [x.re, y.re], loc, construct)
        if x.im is None and y.im is None:
            im = None
        elif y.im is None:
            im = full(lw, x.im, [y.re], loc, construct)
        elif x.im is None:
            im = full(lw, y.im, [x.re], loc, construct) if sym == "+" else \
                _ew(lw, lambda q, p: prim("neg", q, loc=loc), [y.im, x.re], loc, construct)
        else:
            im = _ew(lw, pm, [x.im, y.im], loc, construct)
        return make(lw, lets, re, im, loc, text)
    if sym == "*":
        if x.im is None or y.im is None:  # a real factor r is r + 0j, as NumPy and Python take it:
            r, c = (x, y) if x.im is None else (y, x)  # 1j * -0.0 is -0.0 + 0.0j, 1j * inf is nan + inf j
            if c.im is None:
                return make(lw, lets, _ew(lw, mul, [r.re, c.re], loc, construct), None, loc, text)
            zero = Const(0.0, Float)
            re = _ew(lw, f(lambda rr, cr, ci: sub(mul(rr, cr), mul(zero, ci))), [r.re, c.re, c.im], loc, construct)
            im = _ew(lw, f(lambda rr, cr, ci: add(mul(rr, ci), mul(zero, cr))), [r.re, c.re, c.im], loc, construct)
            return make(lw, lets, re, im, loc, text)
        re = _ew(lw, f(lambda ar, ai, br, bi: sub(mul(ar, br), mul(ai, bi))), [x.re, x.im, y.re, y.im], loc,
                 construct)
        im = _ew(lw, f(lambda ar, ai, br, bi: add(mul(ar, bi), mul(ai, br))), [x.re, x.im, y.re, y.im], loc,
                 construct)
        return make(lw, lets, re, im, loc, text)
    return _divide(lw, x, y, lets, loc, text, construct)


def _divide(lw, x: Complex, y: Complex, lets: list, loc, text: str, construct: str) -> Complex:
    """x / y as NumPy's complex division computes it (Smith's method, its loop's formulas)."""
    div = lambda p, q: prim("div", p, q, loc=loc)
    mul = lambda p, q: prim("mul", p, q, loc=loc)
    add = lambda p, q: prim("add", p, q, loc=loc)
    sub = lambda p, q: prim("sub", p, q, loc=loc)
    absf = lambda p: prim("abs", p, loc=loc)
    zero, one = Const(0.0, Float, loc), Const(1.0, Float, loc)
    ai = x.im if x.im is not None else zero
    if y.im is None:
        # a real divisor br is NumPy's br + 0j: the ratio is 0, so each part times 1 / br (or / |br|
        # when br is 0: inf or nan)
        def part(p):
            return _ew(lw, _shared(lw, loc, lambda q, br: lw.b.if_(
                prim("eq", br, zero, loc=loc), div(q, absf(br)), mul(q, div(one, br)), loc, "{a} {b}")),
                [p, y.re], loc, construct)
        re = part(x.re)
        im = None if x.im is None else part(x.im)
        return make(lw, lets, re, im, loc, text)
    operands = [x.re, ai, y.re, y.im]

    def quotient(which: int):
        def elem(ar, ai_, br, bi):
            big = prim("ge", absf(br), absf(bi), loc=loc)

            def by_re(rat):
                return lw.b.share(div(one, add(br, mul(bi, rat))), lambda scl: mul(
                    add(ar, mul(ai_, rat)) if which == 0 else sub(ai_, mul(ar, rat)), scl), loc)

            def by_im(rat):
                return lw.b.share(div(one, add(bi, mul(br, rat))), lambda scl: mul(
                    add(mul(ar, rat), ai_) if which == 0 else sub(mul(ai_, rat), ar), scl), loc)
            zero_divisor = lw.b.share(absf(br), lambda m: div(ar if which == 0 else ai_, m), loc)
            at_re = lw.b.if_(prim("eq", absf(br), zero, loc=loc), zero_divisor,
                             lw.b.share(div(bi, br), by_re, loc), loc, "{a} {b}")
            return lw.b.if_(big, at_re, lw.b.share(div(br, bi), by_im, loc), loc, "{a} {b}")
        return _ew(lw, _shared(lw, loc, elem), operands, loc, construct)
    return make(lw, lets, quotient(0), quotient(1), loc, text)


def _power(lw, a, b, node, loc, text: str) -> Complex:
    """z ** k for an integer constant k >= 0, by NumPy's repeated squaring (npy_cpow)."""
    if isinstance(b, Complex) or not (isinstance(b, Const) and b.type == Int and 0 <= b.value < 100):
        z = b if isinstance(b, Complex) else a
        refuse(lw, node, z, "a complex power is supported only as z ** k for an integer constant 0 <= k < 100",
               "write z * z, or take np.abs(z) ** p")
    z = as_complex(lw, a, loc, text)
    k = int(b.value)
    if k == 0:  # 1 + 0j, of z's shape
        fill = lambda v: _ew(lw, lambda x: Const(v, Float, loc), [z.re], loc, "operator **")
        return make(lw, list(z.lets), fill(1.0), fill(0.0), loc, text)
    mul = lambda p, q: binop(lw, ast.Mult(), p, q, node)
    acc, p, mask = None, z, 1
    while True:
        if k & mask:
            acc = p if acc is None else mul(acc, p)
        mask <<= 1
        if k < mask:
            break
        p = mul(p, p)
    return acc


def negate(lw, z: Complex, node) -> Complex:
    loc = lw.loc(node)
    neg = lambda t: _ew(lw, lambda x: prim("neg", x, loc=loc), [t], loc, "unary -")
    return make(lw, list(z.lets), neg(z.re), None if z.im is None else neg(z.im), loc, text_of(node))


# ------------------------------------------------------------ real values of complex ones

def real_part(lw, z: Complex, loc) -> Term:
    return z.wrap(z.re)


def imag_part(lw, z: Complex, loc) -> Term:
    if z.im is not None:
        return z.wrap(z.im)
    return z.wrap(_ew(lw, lambda x: Const(0.0, Float, loc), [z.re], loc, "np.imag"))


def conjugate(lw, z: Complex, loc, text: str) -> Complex:
    if z.im is None:
        return z
    return make(lw, list(z.lets), z.re, _ew(lw, lambda x: prim("neg", x, loc=loc), [z.im], loc, "np.conj"), loc,
                text)


def modulus(lw, z: Complex, loc) -> Term:
    """|z| = hypot(re, im) as np.abs of a complex number rounds it (|re| for a real value)."""
    if z.im is None:
        return z.wrap(_ew(lw, lambda x: prim("abs", x, loc=loc), [z.re], loc, "np.abs"))
    return z.wrap(_ew(lw, lambda x, y: prim("cabs", x, y, loc=loc), [z.re, z.im], loc, "np.abs"))


def angle(lw, z: Complex, loc, deg: bool) -> Term:
    """np.angle: arctan2(im, re), times 180 / pi with deg=True (NumPy's order of operations)."""
    zero = Const(0.0, Float, loc)
    im = z.im if z.im is not None else zero
    ops = [im, z.re]

    def f(y, x):
        a = prim("atan2", y, x, loc=loc)
        return prim("mul", a, Const(180 / math.pi, Float, loc), loc=loc) if deg else a
    return z.wrap(_ew(lw, f, ops, loc, "np.angle"))


def length(lw, z: Complex, loc) -> Term:
    return z.wrap(lw.b.length(z.re, loc))


def attribute(lw, z: Complex, attr: str, node) -> Term | Complex:
    """z.real, z.imag, z.T, z.shape, z.ndim, z.size."""
    loc = lw.loc(node)
    if attr == "real":
        return real_part(lw, z, loc)
    if attr == "imag":
        return imag_part(lw, z, loc)
    if attr in ("shape", "ndim", "size") and is_array(z.re):
        return z.wrap(lw.array_attribute(z.re, attr, loc))
    if attr == "T" and is_array(z.re):
        t = lambda p: None if p is None else lw.b.transpose(p, loc)
        return make(lw, list(z.lets), t(z.re), t(z.im), loc, text_of(node))
    refuse(lw, node, z, f"attribute .{attr} of a complex value is not supported (supported: .real, .imag, .T, "
                        ".shape, .ndim, .size)")


def method(lw, z: Complex, attr: str, node: ast.Call):
    """z.conj(), z.conjugate(), z.sum(...), z.mean(...)."""
    if attr in ("conj", "conjugate") and not node.args and not node.keywords:
        return conjugate(lw, z, lw.loc(node), text_of(node))
    if attr in ("sum", "mean"):
        from . import calls
        fn = {"sum": np.sum, "mean": np.mean}[attr]
        return per_part(lw, z, lambda part: calls.call(lw, fn, node, [part, *node.args]), node)
    refuse(lw, node, z, f"method .{attr}() of a complex value is not supported (supported: .conj(), .conjugate(), "
                        ".sum(), .mean())")


def per_part(lw, z: Complex, f, node) -> Complex:
    """A function that is linear over the reals (a sum, a mean) of a complex value: f of each part."""
    loc = lw.loc(node)
    re = f(z.re)
    im = None if z.im is None else f(z.im)
    return make(lw, list(z.lets), re, im, loc, text_of(node))


# ------------------------------------------------------------ elementary functions

def _exp(re, im, loc):
    e = prim("exp", re, loc=loc)
    return prim("mul", e, prim("cos", im, loc=loc), loc=loc), prim("mul", e, prim("sin", im, loc=loc), loc=loc)


def _log(re, im, loc):
    return prim("log", prim("hypot", re, im, loc=loc), loc=loc), prim("atan2", im, re, loc=loc)


def _sin(re, im, loc):
    return (prim("mul", prim("sin", re, loc=loc), prim("cosh", im, loc=loc), loc=loc),
            prim("mul", prim("cos", re, loc=loc), prim("sinh", im, loc=loc), loc=loc))


def _cos(re, im, loc):
    return (prim("mul", prim("cos", re, loc=loc), prim("cosh", im, loc=loc), loc=loc),
            prim("neg", prim("mul", prim("sin", re, loc=loc), prim("sinh", im, loc=loc), loc=loc), loc=loc))


# a complex function of z = re + i im as (its real part, its imaginary part), by the formulas
# C99's cexp, clog, csin and ccos (which NumPy calls) use for finite arguments
ELEMENTARY = {np.exp: _exp, np.log: _log, np.sin: _sin, np.cos: _cos}


def elementary(lw, fn, z: Complex, node) -> Complex:
    """np.exp, np.log, np.sin, np.cos of a complex value, elementwise on its parts."""
    loc = lw.loc(node)
    im = z.im if z.im is not None else full(lw, Const(0.0, Float, loc), [z.re], loc, display_name(fn))
    parts = []
    for k in (0, 1):
        parts.append(_ew(lw, _shared(lw, loc, lambda x, y, k=k: ELEMENTARY[fn](x, y, loc)[k]), [z.re, im], loc,
                         display_name(fn)))
    return make(lw, list(z.lets), parts[0], parts[1], loc, text_of(node))


def display_name(fn) -> str:
    return f"np.{fn.__name__}"


# ------------------------------------------------------------ joins (if statements)

def as_pair(lw, v, loc) -> Term:
    """A complex (or real) value as the core tuple (re, im) of Float terms of one shape, for an
    if statement to join (the imaginary part 0 made an array)."""
    z = as_complex(lw, v, loc, "")
    return z.wrap(Tuple((z.re, imag_part(lw, Complex((), z.re, z.im, z.text), loc)), loc))


def from_pair(lw, t: Var, loc, text: str) -> Complex:
    """The Complex whose parts are the components of the tuple variable t (as_pair's)."""
    return make(lw, [], Get(0, t, loc), Get(1, t, loc), loc, text)


__all__ = ["Complex", "refuse", "make", "constant", "as_complex", "binop", "negate", "real_part", "imag_part",
           "conjugate", "modulus", "angle", "length", "attribute", "method", "as_pair", "from_pair"]
