"""The primitive registry: one entry per primitive (notes Fig. 2).

An entry holds the primitive's name, its typing rule, its NumPy implementation on
run-time values, the Python callables the front end maps to it (``math.sin``,
``np.sin``, ...), how the printer shows it, and for scalar Float primitives the
SymPy expression from which the differentiation stage derives its partial
derivatives. Adding a primitive is adding one ``register(...)`` call here.
"""
from __future__ import annotations

import builtins
import functools
import math
import dataclasses
import sys
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import sympy

from ..errors import ShapeError
from . import fft as _fft
from . import linalg as _la
from . import roots as _roots
from . import spectral as _sp
from . import special as S
from . import triangular as _tr
from ..lang.terms import FAILING
from ..lang.types import (Bool, Float, Int, Scalar, Site, Tuple as TupleT, Type, Unit, Vec, is_array_type, rank,
                          scalar_of)


class PrimitiveTypeError(Exception):
    """Raised by a typing rule; the caller adds the source location."""


@dataclass(frozen=True)
class Primitive:
    name: str
    typing: Callable[[tuple[Type, ...]], Type]
    impl: Callable[..., Any]
    aliases: tuple[Any, ...] = ()
    sympy: Callable[..., Any] | None = None  # scalar Float primitives: symbols -> expression
    infix: str | None = None                  # printed as `a op b` (or `op a` when unary)
    doc: str = ""
    arity: int | None = 1                     # None: variadic
    nondiff_note: str = ""                    # the documented choice at non-smooth points
    extra: dict = field(default_factory=dict)
    # The compiled backend's whole-array form: a Python expression over NumPy arrays
    # (or scalars) that broadcast, {0}, {1}, ... the arguments; names are those of
    # catad/backend/runtime.py. None: element by element (reported by explain), or,
    # for the structural primitives (index, sum, ...), compiled by the backend itself.
    vector: str | None = None
    # A structural primitive's other stages (index, sum, update, ...: those with no SymPy
    # expression and no whole-array template), named "module:object" so this lowest layer
    # imports none of them: "derivative" (its Jacobian rule, catad.ad.rules), "linear maps"
    # (the maps that rule makes, whose laws are in catad.rewrite.catalogue) and "codegen"
    # (catad.backend.dispatch.CODEGEN's row). See STRUCTURAL; tests/test_primitive_rows.py
    # resolves every name against the stage's own table.
    stages: tuple[tuple[str, str], ...] = ()
    # Callables of libraries catad does not import (scipy.special.expit), by their public
    # dotted names: one stands for this primitive once its module is loaded (a function that
    # calls it has imported it). See library_callables.
    library_aliases: tuple[str, ...] = ()
    # What its implementation raises on some values, which no check made before tests
    # (np.linalg.inv's LinAlgError of a singular matrix): "" for none. A call of it is kept
    # where nothing reads its value (catad.lang.terms.may_fail), as Python raises there too.
    raises: str = ""

    def result_type(self, arg_types: tuple[Type, ...]) -> Type:
        if self.arity is not None and len(arg_types) != self.arity:
            raise PrimitiveTypeError(f"{self.name} takes {self.arity} argument(s), got {len(arg_types)}")
        return self.typing(arg_types)


PRIMITIVES: dict[str, Primitive] = {}


def register(p: Primitive) -> Primitive:
    assert p.name not in PRIMITIVES, p.name
    PRIMITIVES[p.name] = p
    if p.raises:
        FAILING.add(p.name)
    return p


def lookup(name: str) -> Primitive | None:
    return PRIMITIVES.get(name)


def _by_alias() -> dict[int, str]:
    """id of each callable a primitive stands for -> the primitive's name. Made again only when
    a primitive is registered (all are when this module is imported), or a library function
    (scipy.special.expit) is another object than before (its module loaded since): the front
    end asks at every call it lowers."""
    if _ALIASES[0] != len(PRIMITIVES):
        _ALIASES[:] = [len(PRIMITIVES), None,
                       [(name.rpartition(".")[0], name.rpartition(".")[2], p.name)
                        for p in PRIMITIVES.values() for name in p.library_aliases]]
    library = [(id(obj), p) for module, attr, p in _ALIASES[2]
               if (m := sys.modules.get(module)) is not None and (obj := getattr(m, attr, None)) is not None]
    if _ALIASES[1] is None or _ALIASES[1][0] != library:
        out = {id(a): p.name for p in PRIMITIVES.values() for a in p.aliases}
        out.update(library)
        _ALIASES[1] = (library, out)
    return _ALIASES[1][1]


# the number of primitives registered, (the library functions found, the table), (module,
# name, primitive) of each library alias
_ALIASES: list = [None, None, []]


def library_callable(name: str) -> Any:
    """The object a public dotted name (scipy.special.expit) denotes, when its module is loaded
    (None otherwise: catad imports no library for this)."""
    module, _, attr = name.rpartition(".")
    m = sys.modules.get(module)
    return getattr(m, attr, None) if m is not None else None


def primitive_for_callable(fn: Any) -> str | None:
    """The primitive a Python callable (``math.exp``, ``np.exp``, ...) stands for."""
    return _by_alias().get(id(fn))


# ---------------------------------------------------------------- typing rules

def _fmt(ts: tuple[Type, ...]) -> str:
    return ", ".join(map(str, ts))


def t_float_unary(ts):
    if ts != (Float,):
        raise PrimitiveTypeError(f"expects a Float, got {_fmt(ts)}")
    return Float


def t_float_binary(ts):
    if ts != (Float, Float):
        raise PrimitiveTypeError(f"expects (Float, Float), got ({_fmt(ts)})")
    return Float


def t_num_unary(ts):
    if ts not in ((Float,), (Int,)):
        raise PrimitiveTypeError(f"expects a Float or an Int, got {_fmt(ts)}")
    return ts[0]


def t_num_binary(ts):
    if ts not in ((Float, Float), (Int, Int)):
        raise PrimitiveTypeError(f"expects two Floats or two Ints, got ({_fmt(ts)})")
    return ts[0]


def t_compare(ts):
    if ts not in ((Float, Float), (Int, Int)):
        raise PrimitiveTypeError(f"compares two Floats or two Ints, got ({_fmt(ts)})")
    return Bool


def t_equality(ts):
    if ts not in ((Float, Float), (Int, Int), (Bool, Bool)):
        raise PrimitiveTypeError(f"compares two values of one scalar type, got ({_fmt(ts)})")
    return Bool


def t_not(ts):
    if ts != (Bool,):
        raise PrimitiveTypeError(f"expects a Bool, got {_fmt(ts)}")
    return Bool


def t_to_float(ts):
    if ts not in ((Int,), (Bool,), (Float,)):
        raise PrimitiveTypeError(f"converts an Int to Float, got {_fmt(ts)}")
    return Float


def t_index(ts):
    i, v = ts
    if i != Int or not isinstance(v, Vec):
        raise PrimitiveTypeError(f"indexes a Vec with an Int, got ({_fmt(ts)})")
    return v.elem


def t_size(ts):
    if not isinstance(ts[0], Vec):
        raise PrimitiveTypeError(f"takes a Vec, got {_fmt(ts)}")
    return Int


def t_sum(ts):
    v = ts[0]
    if not is_array_type(v) or scalar_of(v) == Bool:
        raise PrimitiveTypeError(f"sums a Vec of Floats, Ints or Vecs of them, got {_fmt(ts)}")
    return v.elem


def t_fsum(ts):
    if ts != (Vec(Float),):
        raise PrimitiveTypeError(f"fsum takes a Vec of Floats, got {_fmt(ts)}")
    return Float


def t_reduce_max(ts):
    v = ts[0]
    if not (isinstance(v, Vec) and v.elem in (Float, Int)):
        raise PrimitiveTypeError(f"takes a Vec of Floats or Ints, got {_fmt(ts)}")
    return v.elem


def t_vector(ts):
    if not ts:
        raise PrimitiveTypeError("cannot make an empty vector literal (its element type is unknown)")
    if any(t != ts[0] for t in ts) or not (isinstance(ts[0], Scalar) or is_array_type(ts[0])):
        raise PrimitiveTypeError(f"elements of a vector literal must be scalars or arrays of one type, got ({_fmt(ts)})")
    return Vec(ts[0])


# ---------------------------------------------------------------- implementations

def _f(fn):
    """A scalar Float implementation with NumPy's IEEE semantics (inf/nan, no exceptions)."""
    def impl(*xs):
        with np.errstate(all="ignore"):
            return float(fn(*(np.float64(x) for x in xs)))
    impl.__name__ = getattr(fn, "__name__", "impl")
    return impl


def _num(fn):
    """Int or Float implementation: Python ints stay exact, floats follow IEEE."""
    def impl(*xs):
        if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in xs):
            return int(fn(*(int(x) for x in xs)))
        with np.errstate(all="ignore"):
            return float(fn(*(np.float64(x) for x in xs)))
    return impl


def _is_int(x) -> bool:
    """A Python or NumPy integer (an element of an Int array is a NumPy one), not a bool."""
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _int_floordiv(a, b):
    """NumPy's a // b of Ints: 0 where b is 0 (with a warning; Python's ZeroDivisionError for its
    own ints is a check the front end writes before, expressions.python_arith)."""
    return 0 if b == 0 else a // b


def _int_mod(a, b):
    """NumPy's a % b of Ints: 0 where b is 0 (see _int_floordiv)."""
    return 0 if b == 0 else a % b


def _lgamma(x):
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


def _pow(a, b):
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)) and b >= 0:
        return int(a) ** int(b)
    with np.errstate(all="ignore"):  # NumPy's scalars' **: C's pow (np.power would be np_pow)
        return float(np.float64(a) ** np.float64(b))


def _math_gamma(x):
    try:
        return math.gamma(x)
    except (ValueError, OverflowError):
        return S.gamma(x)


def _first_max(a, b):  # Python's max(a, b): a unless b > a (ties and NaNs give a)
    return b if b > a else a


def _first_min(a, b):
    return b if b < a else a


def _vector(*xs):
    return np.array(xs)


def _index(i, v):
    if isinstance(v, np.ndarray):
        return v[i]
    from ..tangents import tget  # a tangent: the symbolic zero or a sparse update
    return tget(v, i)


def _sum(v):
    v = np.asarray(v)
    return v.sum(axis=0) if v.ndim > 1 else (int(v.sum()) if v.dtype.kind in "iu" else float(v.sum()))


def _fsum(v):
    return math.fsum(np.asarray(v, dtype=float))


def _vmax(v):
    if len(v) == 0:
        raise ShapeError("max of an empty array (NumPy raises ValueError: a zero-size array has no max)",
                         construct="max")
    x = np.max(v)
    return int(x) if v.dtype.kind in "iu" else float(x)


def _vmin(v):
    if len(v) == 0:
        raise ShapeError("min of an empty array (NumPy raises ValueError: a zero-size array has no min)",
                         construct="min")
    x = np.min(v)
    return int(x) if v.dtype.kind in "iu" else float(x)


X, Y = sympy.symbols("x y", real=True)

# ---------------------------------------------------------------- scalar Float functions

_UNARY_FLOAT = [
    # name, sympy, implementation, aliases, whole-array form
    ("sin", sympy.sin, np.sin, (math.sin, np.sin), 'np.sin({0})'),
    ("cos", sympy.cos, np.cos, (math.cos, np.cos), 'np.cos({0})'),
    ("tan", sympy.tan, np.tan, (math.tan, np.tan), 'np.tan({0})'),
    ("exp", sympy.exp, np.exp, (math.exp, np.exp), 'np.exp({0})'),
    ("log", sympy.log, np.log, (math.log, np.log), 'np.log({0})'),
    ("log1p", lambda x: sympy.log(1 + x), np.log1p, (math.log1p, np.log1p), 'np.log1p({0})'),
    ("expm1", lambda x: sympy.exp(x) - 1, np.expm1, (math.expm1, np.expm1), 'np.expm1({0})'),
    ("sqrt", sympy.sqrt, np.sqrt, (math.sqrt, np.sqrt), 'np.sqrt({0})'),
    ("tanh", sympy.tanh, np.tanh, (math.tanh, np.tanh), 'np.tanh({0})'),
    ("sinh", sympy.sinh, np.sinh, (math.sinh, np.sinh), 'np.sinh({0})'),
    ("cosh", sympy.cosh, np.cosh, (math.cosh, np.cosh), 'np.cosh({0})'),
    ("asin", sympy.asin, np.arcsin, (math.asin, np.arcsin), 'np.arcsin({0})'),
    ("acos", sympy.acos, np.arccos, (math.acos, np.arccos), 'np.arccos({0})'),
    ("atan", sympy.atan, np.arctan, (math.atan, np.arctan), 'np.arctan({0})'),
    ("log2", lambda x: sympy.log(x, 2), np.log2, (math.log2, np.log2), 'np.log2({0})'),
    ("log10", lambda x: sympy.log(x, 10), np.log10, (math.log10, np.log10), 'np.log10({0})'),
    ("lgamma", sympy.loggamma, _lgamma, (math.lgamma,), None),
    ("erf", sympy.erf, math.erf, (math.erf,), None),
]

for _name, _sym, _impl, _aliases, _whole in _UNARY_FLOAT:
    register(Primitive(_name, t_float_unary, _f(_impl), _aliases, sympy=_sym, vector=_whole,
                       doc=f"{_name}(x) on a Float",
                       library_aliases=(f"scipy.special.{_name}",) if _name in ("erf", "log1p", "expm1") else ()))

# ---------------------------------------------------------------- special functions (catad/primitives/special.py)
# NumPy's and scipy.special's; the SymPy classes of special.py state the ones SymPy lacks, with
# derivatives that stay finite where the textbook formula overflows.

_SP = "scipy.special."
_SPECIAL_UNARY = [
    # name, sympy, scalar implementation, aliases, library aliases, whole-array form, doc
    ("asinh", sympy.asinh, np.arcsinh, (math.asinh, np.arcsinh), (), 'np.arcsinh({0})', "asinh(x)"),
    ("acosh", sympy.acosh, np.arccosh, (math.acosh, np.arccosh), (), 'np.arccosh({0})', "acosh(x) (nan below 1)"),
    ("atanh", sympy.atanh, np.arctanh, (math.atanh, np.arctanh), (), 'np.arctanh({0})',
     "atanh(x) (+-inf at +-1, nan beyond)"),
    ("exp2", lambda x: 2 ** x, np.exp2, (np.exp2,), (), 'np.exp2({0})', "2 ** x"),
    ("cbrt", S.Cbrt, np.cbrt, (np.cbrt,), (_SP + "cbrt",), 'np.cbrt({0})', "the real cube root"),
    ("erfc", sympy.erfc, math.erfc, (math.erfc,), (_SP + "erfc",), None, "1 - erf(x), accurate where erf(x) is near 1"),
    ("expit", S.Expit, S.expit, (), (_SP + "expit",), 'sf.expit({0})', "1 / (1 + exp(-x)), the logistic sigmoid"),
    ("log_expit", S.LogExpit, S.log_expit, (), (_SP + "log_expit",), 'sf.log_expit({0})',
     "log(expit(x)) = -log(1 + exp(-x)), without overflow"),
    ("logit", lambda x: sympy.log(x / (1 - x)), S.logit, (), (_SP + "logit",), 'sf.logit({0})',
     "log(x / (1 - x)), the inverse of expit (-inf at 0, inf at 1, nan outside [0, 1])"),
    ("gammaln", sympy.loggamma, S.gammaln, (), (_SP + "gammaln",), None,
     "log|Gamma(x)| as scipy.special.gammaln (inf at the poles 0, -1, ..., -inf at -inf)"),
    ("ndtr", lambda x: sympy.erfc(-x / sympy.sqrt(2)) / 2, S.ndtr, (), (_SP + "ndtr",), None,
     "the standard normal CDF Phi(x)"),
    ("log_ndtr", S.LogNdtr, S.log_ndtr, (), (_SP + "log_ndtr",), None,
     "log Phi(x), finite far in the left tail (-500007.8... at -1000)"),
    ("entr", S.Entr, S.entr, (), (_SP + "entr",), 'sf.entr({0})',
     "-x * log(x), 0 at 0, -inf below 0 (scipy.special.entr)"),
    ("i0e", S.I0e, S.i0e, (), (_SP + "i0e",), None, "exp(-|x|) I0(x), the scaled modified Bessel function"),
    ("i1e", S.I1e, S.i1e, (), (_SP + "i1e",), None, "exp(-|x|) I1(x) (the derivative of i0e is i1e - sign(x) i0e)"),
    ("gamma", sympy.gamma, S.gamma, (), (_SP + "gamma",), None,
     "Gamma(x) as scipy.special.gamma (inf at +0, -inf at -0, nan at the negative integers)"),
    ("math_gamma", sympy.gamma, _math_gamma, (math.gamma,), (), None,
     "Gamma(x) as Python's math.gamma computes it (to the last bit, and below the least normal float where "
     "scipy.special.gamma gives 0); scipy's value at the poles and where it overflows, where the front end "
     "raises Python's ValueError and OverflowError"),
    ("erfinv", sympy.erfinv, S.erfinv, (), (_SP + "erfinv",), None,
     "the inverse of erf on (-1, 1) (+-inf at +-1, nan outside); its derivative sqrt(pi)/2 exp(erfinv(x)**2)"),
    ("ndtri", S.Ndtri, S.ndtri, (), (_SP + "ndtri",), None,
     "the standard normal quantile Phi^-1(p) (-inf at 0, inf at 1, nan outside); its derivative "
     "sqrt(2 pi) exp(ndtri(p)**2 / 2)"),
]
_SPECIAL_NOTES = {"cbrt": "the derivative at 0 is inf (1 / (3 cbrt(0)**2))",
                  "entr": "the derivative -log(x) - 1 is inf at 0 (its limit from the right) and 0 below 0, where "
                          "entr is constantly -inf",
                  "i0e": "the derivative at 0 is 0 (i1e(0) - sign(0) i0e(0); the one-sided ones are -1 and 1)",
                  "i1e": "the derivative at 0 is 1/2 (I1'(0); the one-sided ones of exp(-|x|) I1 agree)"}
for _name, _sym, _impl, _aliases, _lib, _whole, _doc in _SPECIAL_UNARY:
    register(Primitive(_name, t_float_unary, _f(_impl), _aliases, sympy=_sym, vector=_whole, doc=_doc,
                       library_aliases=_lib, nondiff_note=_SPECIAL_NOTES.get(_name, "")))

_XLOG_NOTE = ("{f}(0, y) = 0 for every y but nan (SciPy's convention), so the partial in y is 0 where x == 0, "
              "even at y = {y0}; the partial in x is {dx} there ({dx0} at y = {y0})")
_ENTROPY_NOTE = ("partials {dx} and {dy} where x > 0 and y > 0; where x == 0 and y >= 0 the partial in x is -inf "
                 "(the limit as x decreases to 0, kept at y = 0) and in y {dy0}; 0 and 0 where the value is "
                 "constantly inf (x < 0, y < 0, or y == 0 < x); nan where x or y is nan")


def _complex_abs(re, im):
    """np.abs of the complex numbers re + i im (NumPy's rounding of |z|)."""
    return np.abs(np.asarray(re, dtype=np.float64) + 1j * np.asarray(im, dtype=np.float64))[()]


_SPECIAL_BINARY = [
    # name, sympy, scalar implementation, aliases, library aliases, whole-array form, doc, nondiff note
    ("xlogy", S.XLogY, S.xlogy, (), (_SP + "xlogy",), 'sf.xlogy({0}, {1})', "x * log(y), 0 where x == 0",
     _XLOG_NOTE.format(f="xlogy", y0="0", dx="log(y)", dx0="-inf")),
    ("xlog1py", S.XLog1PY, S.xlog1py, (), (_SP + "xlog1py",), 'sf.xlog1py({0}, {1})',
     "x * log1p(y), 0 where x == 0", _XLOG_NOTE.format(f="xlog1py", y0="-1", dx="log1p(y)", dx0="-inf")),
    ("rel_entr", S.RelEntr, S.rel_entr, (), (_SP + "rel_entr",), 'sf.rel_entr({0}, {1})',
     "x * log(x / y) for x, y > 0, 0 for x == 0 and y >= 0, inf otherwise (scipy.special.rel_entr)",
     _ENTROPY_NOTE.format(dx="log(x / y) + 1", dy="-x / y", dy0="0 (rel_entr is 0 along x == 0)")),
    ("kl_div", S.KLDiv, S.kl_div, (), (_SP + "kl_div",), 'sf.kl_div({0}, {1})',
     "x * log(x / y) - x + y for x, y > 0, y for x == 0 and y >= 0, inf otherwise (scipy.special.kl_div)",
     _ENTROPY_NOTE.format(dx="log(x / y)", dy="1 - x / y", dy0="1 (kl_div is y along x == 0)")),
    ("logaddexp", S.LogAddExp, np.logaddexp, (np.logaddexp,), (), 'np.logaddexp({0}, {1})',
     "log(exp(a) + exp(b)) without overflow",
     "partials expit(a - b) and expit(b - a): nan where a - b is (a = b = inf or -inf)"),
    ("logaddexp2", S.LogAddExp2, np.logaddexp2, (np.logaddexp2,), (), 'np.logaddexp2({0}, {1})',
     "log2(2**a + 2**b) without overflow",
     "partials expit((a - b) log 2) and expit((b - a) log 2): nan where a - b is (a = b = inf or -inf)"),
    ("hypot", S.Hypot, np.hypot, (math.hypot, np.hypot), (), 'np.hypot({0}, {1})', "sqrt(a*a + b*b) without overflow",
     "at the origin both partials are 0 (elsewhere a / hypot and b / hypot), as d|x| is 0 at 0"),
    ("cabs", S.Hypot, _complex_abs, (), (), 'np.abs({0} + 1j * {1})',
     "|re + i im| as np.abs of a complex number rounds it (NumPy's complex abs is not np.hypot, by an ulp)",
     "at the origin both partials are 0 (elsewhere re / |z| and im / |z|), as d|x| is 0 at 0"),
    ("betaln", lambda x, y: sympy.loggamma(x) + sympy.loggamma(y) - sympy.loggamma(x + y), S.betaln, (),
     (_SP + "betaln",), None, "log|B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b)", ""),
    ("beta", sympy.beta, S.beta, (), (_SP + "beta",), None,
     "B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b) as scipy.special.beta; partials B (digamma(a) - digamma(a + b)) "
     "and B (digamma(b) - digamma(a + b))", ""),
]
for _name, _sym, _impl, _aliases, _lib, _whole, _doc, _note in _SPECIAL_BINARY:
    register(Primitive(_name, t_float_binary, _f(_impl), _aliases, sympy=_sym, arity=2, vector=_whole, doc=_doc,
                       library_aliases=_lib, nondiff_note=_note))

register(Primitive("atan2", t_float_binary, _f(np.arctan2), (math.atan2, np.arctan2),
                   sympy=sympy.atan2, arity=2, vector='np.arctan2({0}, {1})', doc="atan2(y, x) on Floats"))
register(Primitive("to_float", t_to_float, float, (float,), arity=1,
                   vector='to_float({0})', doc="converts an Int (or Bool) to a Float; carries no tangent from an Int"))

# ---------------------------------------------------------------- arithmetic on Int or Float

register(Primitive("add", t_num_binary, _num(lambda a, b: a + b), (), sympy=lambda x, y: x + y,
                   infix="+", arity=2, vector='({0} + {1})', doc="a + b"))
register(Primitive("sub", t_num_binary, _num(lambda a, b: a - b), (), sympy=lambda x, y: x - y,
                   infix="-", arity=2, vector='({0} - {1})', doc="a - b"))
register(Primitive("mul", t_num_binary, _num(lambda a, b: a * b), (), sympy=lambda x, y: x * y,
                   infix="*", arity=2, vector='({0} * {1})', doc="a * b"))
register(Primitive("div", t_float_binary, _f(lambda a, b: a / b), (), sympy=lambda x, y: x / y,
                   infix="/", arity=2, vector='({0} / {1})', doc="a / b on Floats (Ints are converted first)"))
register(Primitive("floordiv", t_num_binary,
                   lambda a, b: _int_floordiv(int(a), int(b)) if _is_int(a) and _is_int(b)
                   else _f(np.floor_divide)(a, b), (),
                   sympy=lambda x, y: sympy.floor(x / y), infix="//", arity=2,
                   vector='np.floor_divide({0}, {1})', doc="a // b (floor division; its derivative is 0 where defined)",
                   nondiff_note="both partials are 0 everywhere, also at the jumps (x/y an integer)"))
register(Primitive("mod", t_num_binary,
                   lambda a, b: _int_mod(int(a), int(b)) if _is_int(a) and _is_int(b)
                   else _f(np.mod)(a, b), (),
                   sympy=lambda x, y: x - y * sympy.floor(x / y), infix="%", arity=2,
                   vector='np.mod({0}, {1})', doc="a % b with Python's sign convention",
                   nondiff_note="partials 1 and -floor(x/y) (Float floordiv) everywhere, also at the jumps"))
register(Primitive("pow", t_num_binary, _pow, (math.pow, builtins.pow, np.power),
                   sympy=lambda x, y: x ** y, infix="**", arity=2, vector='power({0}, {1})', doc="a ** b",
                   nondiff_note="on Floats the partials are y * x**(y-1) and x**y * log(x) as IEEE "
                                "computes them (so the exponent partial is nan or -inf for x <= 0, where log(x) "
                                "is); a constant exponent has no partial"))
register(Primitive("np_pow", t_float_binary, _f(np.power), (), sympy=lambda x, y: x ** y, arity=2,
                   vector='np_power({0}, {1})',
                   doc="a ** b as NumPy's power ufunc computes it for an exponent that is one value for the whole "
                       "result (a scalar): np.sqrt(a) where b is 0.5 (nan at -inf, -0.0 at -0.0, where pow gives "
                       "inf and 0.0), pow elsewhere",
                   nondiff_note="pow's partials"))
register(Primitive("neg", t_num_unary, lambda a: -a, (np.negative,), sympy=lambda x: -x,
                   infix="-", vector='(-{0})', doc="-a"))
register(Primitive("abs", t_num_unary, _num(abs), (builtins.abs, math.fabs, np.abs, np.fabs),
                   sympy=sympy.Abs, vector='np.abs({0})', doc="|a|",
                   nondiff_note="the derivative at 0 is 0 (d|x| = sign(x), and sign(0) = 0)"))
register(Primitive("max", t_num_binary, _first_max, (np.maximum,), sympy=sympy.Max, arity=2,
                   vector='first_max({0}, {1})', doc="the larger of two scalars",
                   nondiff_note="at a tie the first argument is the maximum: the partials are 1 for a and 0 for b "
                                "when a >= b (or either is NaN: Python's max returns a unless b > a), else 0 and 1"))
register(Primitive("min", t_num_binary, _first_min, (np.minimum,), sympy=sympy.Min, arity=2,
                   vector='first_min({0}, {1})', doc="the smaller of two scalars",
                   nondiff_note="at a tie the first argument is the minimum: the partials are 1 for a and 0 for b "
                                "when a <= b (or either is NaN: Python's min returns a unless b < a), else 0 and 1"))

# ---------------------------------------------------------------- rounding and remainders (NumPy's)
# An Int rounds to itself (NumPy 2 keeps the integer dtype; np.rint alone makes it a Float); the derivative of each rounding is
# 0, also at its jumps (derivatives._clean).

def _rounding(fn):
    def impl(a):
        if _is_int(a):
            return int(a)
        with np.errstate(all="ignore"):
            return float(fn(np.float64(a)))
    impl.__name__ = fn.__name__
    return impl


_ROUND_NOTE = "the derivative is 0 everywhere, also at the jumps"
for _name, _sym, _fn, _doc in [
        ("floor", sympy.floor, np.floor, "the largest integer <= x (an Int is itself)"),
        ("ceil", sympy.ceiling, np.ceil, "the smallest integer >= x (an Int is itself)"),
        ("trunc", S.Trunc, np.trunc, "x rounded towards 0 (an Int is itself)"),
        ("rint", S.Rint, np.rint, "x rounded to the nearest integer, halves to even (a Float, as NumPy's)")]:
    register(Primitive(_name, t_float_unary if _name == "rint" else t_num_unary, _rounding(_fn), (_fn,), sympy=_sym,
                       vector=f"np.{_fn.__name__}({{0}})", doc=_doc, nondiff_note=_ROUND_NOTE))


def t_round_digits(ts):
    if ts != (Float, Float):
        raise PrimitiveTypeError(f"rounds a Float to a number of digits (a Float), got ({_fmt(ts)})")
    return Float


def _round_digits(a, n):
    """Python's round(a, n) of a float: a correctly rounded to n decimal digits (CPython rounds
    its exact decimal value; NumPy's np.round computes rint(a * 10**n) / 10**n, which differs where
    the product rounds across a half); NaN and the infinities are themselves."""
    return round(float(a), int(n))


register(Primitive("round_digits", t_round_digits, _round_digits, sympy=lambda x, n: S.RoundDigits(x, n), arity=2,
                   vector="round_digits({0}, {1})", nondiff_note=_ROUND_NOTE,
                   doc="round(x, n) of Python's floats, correctly rounded to n digits (n an integral Float)"))


def _fmod(a, b):
    """C's fmod (NumPy's np.fmod): the remainder with the sign of a; of Ints by 0 it is 0, as
    NumPy's (which warns)."""
    if _is_int(a) and _is_int(b):
        a, b = int(a), int(b)
        if b == 0:
            return 0
        r = abs(a) % abs(b)
        return r if a >= 0 else -r
    return _f(np.fmod)(a, b)


register(Primitive("fmod", t_num_binary, _fmod, (np.fmod,), sympy=lambda x, y: x - y * S.Trunc(x / y), arity=2,
                   vector='np.fmod({0}, {1})', doc="C's fmod: a - b * trunc(a / b), the sign of a",
                   nondiff_note="partials 1 and -trunc(x/y) everywhere, also at the jumps"))

# ---------------------------------------------------------------- Floats made Ints (int(x), round(x), math.floor)

def t_float_to_int(ts):
    if ts != (Float,):
        raise PrimitiveTypeError(f"makes a Float an Int, got {_fmt(ts)}")
    return Int


for _name, _fn, _np, _what in [("trunc_int", math.trunc, "np.trunc", "int(x), math.trunc(x): toward 0"),
                               ("floor_int", math.floor, "np.floor", "math.floor(x)"),
                               ("ceil_int", math.ceil, "np.ceil", "math.ceil(x)"),
                               ("round_int", round, "np.rint", "round(x): halves to even, as Python")]:
    register(Primitive(_name, t_float_to_int, _fn, arity=1, vector=f"to_int({_np}({{0}}))",
                       doc=f"{_what}, an Int (the front end checks first that x is finite and within "
                           "int64, where Python makes an int of any size); it carries no tangent"))

# ---------------------------------------------------------------- comparisons and logic

for _name, _op, _fn, _rule in [("lt", "<", lambda a, b: a < b, t_compare),
                               ("le", "<=", lambda a, b: a <= b, t_compare),
                               ("gt", ">", lambda a, b: a > b, t_compare),
                               ("ge", ">=", lambda a, b: a >= b, t_compare),
                               ("eq", "==", lambda a, b: a == b, t_equality),
                               ("ne", "!=", lambda a, b: a != b, t_equality)]:
    register(Primitive(_name, _rule, (lambda f: lambda a, b: bool(f(a, b)))(_fn), infix=_op,
                       arity=2, vector=f"({{0}} {_op} {{1}})", doc=f"a {_op} b"))
register(Primitive("not", t_not, lambda a: not a, infix="not ", vector='np.logical_not({0})', doc="logical negation"))


def t_signbit(ts):
    if ts != (Float,):
        raise PrimitiveTypeError(f"expects a Float, got {_fmt(ts)}")
    return Bool


register(Primitive("signbit", t_signbit, lambda a: bool(np.signbit(a)), (np.signbit,), vector="np.signbit({0})",
                   doc="signbit(x): x's sign bit is set (True for -0.0 and for a NaN whose sign is negative)"))

# ---------------------------------------------------------------- vectors (notes Fig. 2)

register(Primitive("index", t_index, _index, arity=2,
                   doc="index(i, v) = v[i] (the notes' ixR; a row when v is a matrix)"))
register(Primitive("size", t_size, len, (len,), doc="the number of elements (rows) of a Vec"))


def t_dim(ts):
    v, k = ts
    if not isinstance(v, Vec) or k != Int:
        raise PrimitiveTypeError(f"dim(v, k) takes a Vec and an Int, got ({_fmt(ts)})")
    return Int


def _dim(v, k):
    shape = np.shape(v)
    if not 0 <= k < len(shape):
        raise ValueError(f"dim: axis {k} of an array of rank {len(shape)}")
    return int(shape[k])


register(Primitive("dim", t_dim, _dim, arity=2,
                   doc="dim(v, k): the length of axis k (a constant) of a rectangular array, "
                       "read from its shape: the columns of a matrix with no rows are still known"))
register(Primitive("sum", t_sum, _sum, (builtins.sum, np.sum),
                   doc="the sum of a Vec's elements (of its rows, for a Vec of Vecs)"))
register(Primitive("fsum", t_fsum, _fsum,
                   doc="math.fsum of a Vec of Floats: their sum, correctly rounded (its derivative is sum's)",
                   raises="ValueError of inf - inf, OverflowError where the sum overflows"))
register(Primitive("vmax", t_reduce_max, _vmax, (np.max, np.amax),
                   doc="the largest element of a Vec",
                   nondiff_note="at a tie the first maximal element gets the derivative"))
register(Primitive("vmin", t_reduce_max, _vmin, (np.min, np.amin),
                   doc="the smallest element of a Vec",
                   nondiff_note="at a tie the first minimal element gets the derivative"))
def _numbers(t: Type) -> bool:
    return t in (Int, Float, Bool) or isinstance(t, TupleT) and all(_numbers(x) for x in t.items)


def t_check(ts):
    cond, data, site = ts
    if cond != Bool or not _numbers(data) or site != Site:
        raise PrimitiveTypeError(f"check(cond, data, site) takes a Bool, numbers (in tuples) and a Site, "
                                 f"got ({_fmt(ts)})")
    return Unit


def _check(cond, data, site):
    if not cond:
        raise site.error(data if isinstance(data, tuple) else (data,))
    return ()


register(Primitive("check", t_check, _check, arity=3,
                   doc="check(cond, data, site): nothing when cond holds, else the error of site (a ShapeError "
                       "or BoundsError naming the file, line and construct, its message filled with data). "
                       "The front end puts one wherever NumPy or Python would check a shape or an index "
                       "and the equality is not proven while compiling; a check is never dead code"))
register(Primitive("vector", t_vector, _vector, (np.array,), arity=None,
                   doc="vector(a, b, ...) = [a, b, ...], a vector literal"))

# ---------------------------------------------------------------- sign, digamma, polygamma
#
# Added for the differentiation stage: d|x| = sign(x), d lgamma = digamma, and
# d polygamma(n, x) = polygamma(n + 1, x), so the derivative of every scalar
# primitive is again a core term (see catad/primitives/derivatives.py).

# Bernoulli numbers B_2, B_4, ..., B_24 for the asymptotic series.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
              43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730)
_DIGAMMA_COEFFS = tuple(b / (2 * k) for k, b in enumerate(_BERNOULLI, start=1))  # B_2k / 2k


def _is_pole(x: float) -> bool:
    """x a non-positive integer (a pole of digamma and polygamma); x finite."""
    return x <= 0.0 and x == math.floor(x)


def _cot_pi(x: float) -> float:
    """cot(pi x) for finite non-integer x, reducing x mod 1 exactly first."""
    r = x - float(round(x))  # exact (Sterbenz), in [-0.5, 0.5]
    return math.cos(math.pi * r) / math.sin(math.pi * r)


def _digamma(x) -> float:
    """psi(x) = d/dx log Gamma(x) without SciPy: the reflection formula for x < 0.5, the
    recurrence psi(x) = psi(x + 1) - 1/x up to x >= 6, then the asymptotic series
    log x - 1/(2x) - sum B_2k / (2k x^2k) (12 terms). About 1e-15 relative away from the
    zeros of psi; nan at the poles (0, -1, -2, ...), at -inf and at nan; inf at inf."""
    x = float(x)
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return math.inf
    if _is_pole(x):
        return math.nan
    if x < 0.5:  # psi(1 - x) - psi(x) = pi cot(pi x)
        return _digamma(1.0 - x) - math.pi * _cot_pi(x)
    acc = 0.0
    while x < 6.0:
        acc += 1.0 / x
        x += 1.0
    inv2 = 1.0 / (x * x)
    s = 0.0
    for c in reversed(_DIGAMMA_COEFFS):
        s = s * inv2 + c
    return math.log(x) - 0.5 / x - s * inv2 - acc


@functools.lru_cache(maxsize=64)
def _cot_derivative_poly(n: int) -> tuple[int, ...]:
    """Coefficients (of c^0, c^1, ...) of P_n with d^n/dx^n cot(pi x) = pi^n P_n(cot(pi x))."""
    if n == 0:
        return (0, 1)
    p = _cot_derivative_poly(n - 1)
    dp = [k * p[k] for k in range(1, len(p))] or [0]
    out = [0] * (len(dp) + 2)
    for k, a in enumerate(dp):  # -(1 + c^2) * P'
        out[k] -= a
        out[k + 2] -= a
    return tuple(out)


def _polygamma(n, x) -> float:
    """polygamma(n, x), the n-th derivative of digamma, for an Int n >= 0 (n = 0 is digamma).

    n >= 1: the reflection formula psi_n(x) = (-1)^n psi_n(1 - x) - pi^(n+1) P_n(cot pi x)
    for x < 0.5; else the recurrence up to x >= 6 + n and the asymptotic series
    psi_n(x) ~ (-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + sum B_2k (2k+n-1)!/((2k)! x^(2k+n))].
    nan for n < 0, n > 170, at the poles, at -inf and at nan; 0 at +inf."""
    n = int(n)
    if n == 0:
        return _digamma(x)
    x = float(x)
    if n < 0 or n > 170 or math.isnan(x) or x == -math.inf:
        return math.nan
    if x == math.inf:
        return 0.0
    if _is_pole(x):
        return math.nan
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    if x < 0.5:
        c = _cot_pi(x)
        poly = 0.0
        for a in reversed(_cot_derivative_poly(n)):
            poly = poly * c + a
        return -sign * _polygamma(n, 1.0 - x) - math.pi ** (n + 1) * poly
    fact = float(math.factorial(n))
    acc = 0.0  # sum of (x + k)^-(n+1): all terms positive, no cancellation
    while x < 6.0 + n:
        try:
            acc += x ** -(n + 1)
        except OverflowError:
            return sign * math.inf
        x += 1.0
    inv = 1.0 / x
    inv2 = inv * inv
    s = 0.0
    for k in range(len(_BERNOULLI), 0, -1):  # Horner in 1/x^2
        s = s * inv2 + _BERNOULLI[k - 1] * (math.factorial(2 * k + n - 1) / math.factorial(2 * k))
    series = float(math.factorial(n - 1)) + 0.5 * fact * inv + s * inv2
    return sign * (series * inv ** n + fact * acc)


def t_polygamma(ts):
    if ts != (Int, Float):
        raise PrimitiveTypeError(f"expects (Int, Float), got ({_fmt(ts)})")
    return Float


register(Primitive("sign", t_float_unary, _f(np.sign), (np.sign,), sympy=sympy.sign,
                   vector='np.sign({0})', doc="sign(x) on a Float: -1, 0 or 1 (nan for nan)",
                   nondiff_note="the derivative is 0 everywhere, also at 0"))
register(Primitive("digamma", t_float_unary, _digamma, (), sympy=lambda x: sympy.polygamma(0, x),
                   doc="digamma(x) = d/dx lgamma(x) on a Float (nan at the poles 0, -1, -2, ...)"))
register(Primitive("polygamma", t_polygamma, _polygamma, (), sympy=sympy.polygamma, arity=2,
                   doc="polygamma(n, x): the n-th derivative of digamma, n an Int >= 0 "
                       "(nan for n < 0 and at the poles); the derivative of digamma is polygamma(1, x)"))


def t_arg_reduce(ts):
    v = ts[0]
    if not (isinstance(v, Vec) and v.elem in (Float, Int)):
        raise PrimitiveTypeError(f"takes a Vec of Floats or Ints, got {_fmt(ts)}")
    return Int


register(Primitive("argmax", t_arg_reduce, lambda v: int(np.argmax(v)), (np.argmax,),
                   doc="the index of the first largest element of a Vec (where vmax takes its derivative)"))
register(Primitive("argmin", t_arg_reduce, lambda v: int(np.argmin(v)), (np.argmin,),
                   doc="the index of the first smallest element of a Vec"))


def t_last_hit(ts):
    if ts != (Vec(Int), Int):
        raise PrimitiveTypeError(f"last_hit(idx, n) takes (Vec Int, Int), got ({_fmt(ts)})")
    return Vec(Int)


def last_hit_kernel(idx, n):
    """For each position p < n, the last k with idx[..., k] == p, or -1 where p is not in idx
    (along the last axis; leading axes are lanes, each with its own idx). An index outside
    0 <= idx < n is left out: the front end checks the indices it writes (these are lanes a
    branch discards). np.maximum.at makes "last" exact, where NumPy does not promise an
    order for the repeated indices of a fancy assignment."""
    idx = np.asarray(idx, dtype=np.int64)
    n = int(n)
    out = np.full(idx.shape[:-1] + (n,), -1, dtype=np.int64)
    m = idx.shape[-1]
    if m == 0 or n == 0 or out.size == 0:
        return out
    lanes, flat = out.reshape(-1, n), idx.reshape(-1, m)
    ok = (flat >= 0) & (flat < n)
    rows = np.broadcast_to(np.arange(flat.shape[0])[:, None], flat.shape)[ok]
    ks = np.broadcast_to(np.arange(m), flat.shape)[ok]
    np.maximum.at(lanes, (rows, flat[ok]), ks)
    return out


def t_brentq(ts):
    if len(ts) < 6 or ts[0] != Site or ts[1:5] != (Float, Float, Float, Float) or ts[5] != Int:
        raise PrimitiveTypeError(f"brentq(site, a, b, xtol, rtol, maxiter, values...) takes a Site, four Floats and an "
                                 f"Int, then the function's values, got ({_fmt(ts)})")
    return Float


def t_stop_gradient(ts):
    if ts != (Float,):
        raise PrimitiveTypeError(f"stop_gradient takes a Float, got {_fmt(ts)}")
    return Float


register(Primitive("brentq", t_brentq, _roots.brentq_kernel, arity=None,
                   doc="brentq(site, a, b, xtol, rtol, maxiter, values...): scipy.optimize.brentq of the user's "
                       "function at site (catad/primitives/roots.py), its derivative zero (the front end adds the "
                       "implicit function theorem's)",
                   raises="ValueError where f(a) and f(b) have one sign"))
register(Primitive("stop_gradient", t_stop_gradient, _roots.stop_gradient_kernel,
                   doc="stop_gradient(x) = x, whose derivative is zero (the implicit function theorem's "
                       "correction of a root: catad/frontend/roots.py)"))
# Marks of brentq's root and of its derivatives' order (catad/primitives/roots.py): the root is
# exact to the third derivative (two Newton steps: catad/frontend/roots.py), the fourth refused.
def _floats(name: str, n: int):
    def typing(ts):
        if ts != (Float,) * n:
            raise PrimitiveTypeError(f"{name} takes {n} Float(s), got {_fmt(ts)}")
        return Float
    return typing


register(Primitive("implicit_root", _floats("implicit_root", 1), _roots.implicit_root_kernel,
                   doc="implicit_root(x) = x: a mark of brentq's root, whose derivatives are exact to the third"))
for _k in range(1, _roots.ORDERS):
    register(Primitive(f"implicit_root_d{_k}", _floats(f"implicit_root_d{_k}", 2), _roots.implicit_root_kernel,
                       arity=2, doc=f"implicit_root_d{_k}(x, v) = v: a mark of a derivative of order {_k} of "
                                    "brentq's root x"))
    register(Primitive(f"implicit_zero_d{_k}", _floats(f"implicit_zero_d{_k}", 3), _roots.implicit_zero_kernel,
                       arity=3, doc=f"implicit_zero_d{_k}(x, v, w) = 0: the derivative of a mark of order {_k - 1} "
                                    "in the root x it reads (a mark too)"))


register(Primitive("last_hit", t_last_hit, last_hit_kernel, arity=2,
                   doc="last_hit(idx, n): for each p < n the last k with idx[k] == p, or -1 (which write of "
                       "a[idx] = v is kept: NumPy's last); an Int result, so its derivative is zero"))


# ---------------------------------------------------------------- tangent spaces (notes Section 2.2)
# The vector-space operations of tangents, used by forward and reverse derivative
# programs. They accept the symbolic zero and sparse index updates of catad.tangents.

def _tangent_pair(ts):
    a, b = ts
    if a != b:
        raise PrimitiveTypeError(f"adds two tangents of one type, got ({_fmt(ts)})")
    return a


def t_tscale(ts):
    if ts[0] != Float:
        raise PrimitiveTypeError(f"scales a tangent by a Float, got ({_fmt(ts)})")
    return ts[1]


def t_update(ts):
    i, r, n = ts
    if i != Int or n != Int:
        raise PrimitiveTypeError(f"update(i, r, n) takes Ints i and n, got ({_fmt(ts)})")
    return Vec(r)


def t_scatter(ts):
    idx, vals, n = ts
    if idx != Vec(Int) or not isinstance(vals, Vec) or n != Int:
        raise PrimitiveTypeError(f"scatter_add(indices, values, n) takes (Vec Int, Vec T, Int), got ({_fmt(ts)})")
    return vals


def t_tsum(ts):
    if not isinstance(ts[0], Vec):
        raise PrimitiveTypeError(f"sums a Vec of tangents, got {_fmt(ts)}")
    return ts[0].elem


def _tangents():
    from .. import tangents
    return tangents


def _scatter_add(idx, vals, n):
    T = _tangents()
    if vals is T.ZERO:
        return T.ZERO
    acc = T.Acc()
    for i, v in zip(np.asarray(idx).tolist(), vals):
        acc.add(T.OneHot(i, v, n))
    return acc.value()


def _tsum(v):
    T = _tangents()
    if v is T.ZERO:
        return T.ZERO
    if isinstance(v, T.OneHot):  # a sparse vector sums to its one element
        return v.value
    acc = T.Acc()
    for x in v:
        acc.add(x)
    return acc.value()


register(Primitive("tadd", _tangent_pair, lambda a, b: _tangents().tadd(a, b), infix="+", arity=2,
                   doc="a + b in a tangent space (tuples componentwise; 0 and sparse updates allowed)"))
register(Primitive("tscale", t_tscale, lambda k, a: _tangents().tscale(k, a), infix="*", arity=2,
                   doc="k * a, a tangent scaled by a Float (0 wherever a is 0, even for k inf or nan)"))
def _update(i, r, n):
    T = _tangents()
    return T.ZERO if r is T.ZERO else T.OneHot(i, r, n)


register(Primitive("update", t_update, _update, arity=3,
                   doc="the Vec of size n that is r at index i and 0 elsewhere (kept sparse)"))
register(Primitive("scatter_add", t_scatter, _scatter_add, arity=3,
                   doc="scatter_add(idx, vals, n): the sum of update(idx[k], vals[k], n) over k, in place"))
def t_tmul(ts):
    v, x = ts
    if v != x or not is_array_type(v):
        raise PrimitiveTypeError(f"multiplies an array and a tangent of one shape, got ({_fmt(ts)})")
    return x


def _tmul(v, x):
    T = _tangents()
    x = T.densify(x)
    return T.ZERO if x is T.ZERO else T.times(v, x)  # (x may be a list of zero tangents, a loop's)


register(Primitive("tmul", t_tmul, _tmul, arity=2,
                   doc="v * x elementwise: a fixed array times a tangent of its shape (the diagonal map; "
                       "0 wherever x is 0, even where v is inf or nan)"))
register(Primitive("tsum", t_tsum, _tsum,
                   doc="the sum of a Vec of tangents (0 and sparse updates allowed)"))


def t_densify(ts):
    x, like = ts
    if x != like:
        raise PrimitiveTypeError(f"densify(t, like) takes a tangent and a value of one type, got ({_fmt(ts)})")
    return x


def _densify(x, like):
    """The tangent x as a dense value shaped like `like`: the symbolic zero as zeros, an
    index update as its array (Int and Bool parts stay the zero tangent)."""
    T = _tangents()
    if isinstance(like, tuple):
        parts = (T.ZERO,) * len(like) if x is T.ZERO else x
        return tuple(_densify(a, b) for a, b in zip(parts, like))
    kind = np.asarray(like).dtype.kind
    if kind != "f":
        return T.ZERO
    x = T.densify(x)
    if isinstance(like, np.ndarray):
        return np.zeros(like.shape) if x is T.ZERO else np.asarray(x, dtype=np.float64).reshape(like.shape)
    return 0.0 if x is T.ZERO else float(x)


# The products of two tangents, which appear when a derivative program is differentiated
# again (catad.ad.rules: the partials of tscale and tmul with respect to their tangent
# arguments, which are primal values of the program differentiated): k * a with k the
# tangent, <a, r>, and a * b elementwise, any of them the zero tangent or an index update.

def t_touter(ts):
    a, k = ts
    if k != Float:
        raise PrimitiveTypeError(f"touter(a, k) scales a tangent a by a Float tangent k, got ({_fmt(ts)})")
    return a


def t_tdot(ts):
    a, r = ts
    if a != r:
        raise PrimitiveTypeError(f"tdot(a, r) takes two tangents of one type, got ({_fmt(ts)})")
    return Float


def t_tprod(ts):
    a, b = ts
    if a != b or not (a == Float or is_array_type(a)):
        raise PrimitiveTypeError(f"tprod(a, b) multiplies two Float tangents or arrays of one type, got ({_fmt(ts)})")
    return a


def _tdot(a, r):
    T = _tangents()
    if a is T.ZERO or r is T.ZERO:
        return 0.0
    if isinstance(a, tuple):
        return float(sum(_tdot(x, y) for x, y in zip(a, r)))
    with np.errstate(all="ignore"):
        return float(np.sum(T.times_both(np.asarray(T.densify(a), dtype=np.float64),
                                         np.asarray(T.densify(r), dtype=np.float64))))


def _tprod(a, b):
    T = _tangents()
    if a is T.ZERO or b is T.ZERO:
        return T.ZERO
    return T.times_both(T.densify(a), T.densify(b))


def _touter(a, k):
    T = _tangents()
    if k is T.ZERO or k == 0:  # tscale is zero-safe in a; a product of two tangents is in both
        return T.ZERO
    return T.tscale(k, a)


register(Primitive("touter", t_touter, _touter, arity=2,
                   doc="touter(a, k) = k * a: a tangent a scaled by a Float tangent k (the partial of "
                       "tscale(k, a) in k; 0 wherever k or a is 0)"))
register(Primitive("tdot", t_tdot, _tdot, arity=2,
                   doc="tdot(a, r) = <a, r>, the sum of the elementwise products of two tangents, each 0 "
                       "where either factor is 0 (the transpose of touter)"))
register(Primitive("tprod", t_tprod, _tprod, arity=2,
                   doc="tprod(a, b) = a * b elementwise, for two tangents of one shape, 0 where either is "
                       "0 (the partial of tmul(v, x) in v; its own transpose)"))


register(Primitive("densify", t_densify, _densify, arity=2,
                   doc="densify(t, like): the tangent t as a value (zeros for the zero tangent, an array for "
                       "an index update) shaped like `like`; what a derivative returns to the program that "
                       "called it (catad.grad(f)(x) inside a compiled function: catad.composite)"))


# ---------------------------------------------------------------- linear algebra (np.linalg)
# The functions on square Float matrices and the linear maps of their derivatives (each the
# forward or the transposed action of an lmLinear map: catad.linearmaps.terms.Linear). Their
# NumPy kernels are in catad/primitives/linalg.py, shared with the backend; every stage of them
# is named in STRUCTURAL below.

MATRIX = Vec(Vec(Float))


def _matrix_arg(ts, what: str, n: int = 1) -> None:
    if len(ts) < n or ts[0] != MATRIX:
        raise PrimitiveTypeError(f"{what} takes a matrix of Floats (Vec (Vec Float)), got ({_fmt(ts)})")


def _typing_of_matrix(result: Type):
    def typing(ts):
        _matrix_arg(ts, "it")
        return result
    return typing


def t_solve(ts):
    """solve(A, b): b a vector or a matrix of Floats; the result has b's type."""
    _matrix_arg(ts, "solve(A, b)")
    if ts[1] not in (Vec(Float), MATRIX):
        raise PrimitiveTypeError(f"solve(A, b) takes a vector or a matrix of Floats b, got ({_fmt(ts)})")
    return ts[1]


def _t_action(tangent: Type, result: Type):
    """An action of a derivative at a matrix: (M, tangent) -> result."""
    def typing(ts):
        if ts != (MATRIX, tangent):
            raise PrimitiveTypeError(f"expects ({MATRIX}, {tangent}), got ({_fmt(ts)})")
        return result
    return typing


def t_rhs_action(ts):
    """(A, db) -> A^{-1} db and its transpose: db a vector or a matrix."""
    if ts not in ((MATRIX, Vec(Float)), (MATRIX, MATRIX)):
        raise PrimitiveTypeError(f"expects a matrix and a vector or a matrix of Floats, got ({_fmt(ts)})")
    return ts[1]


def t_neg_matmul(ts):
    """(x, dA) -> -dA x, with x a vector or a matrix."""
    if ts not in ((Vec(Float), MATRIX), (MATRIX, MATRIX)):
        raise PrimitiveTypeError(f"expects a vector or a matrix of Floats and a matrix, got ({_fmt(ts)})")
    return ts[0]


def t_neg_matmul_t(ts):
    """(x, g) -> -g x^T, with x and g vectors or matrices of one type."""
    if ts not in ((Vec(Float), Vec(Float)), (MATRIX, MATRIX)):
        raise PrimitiveTypeError(f"expects two vectors or two matrices of Floats, got ({_fmt(ts)})")
    return MATRIX


def _float_of(f):
    def impl(*xs):
        y = f(*xs)
        return y if y is _tangents().ZERO else float(y)
    return impl


_LINALG = [
    # name, typing, reference implementation, aliases, doc
    ("det", _typing_of_matrix(Float), _float_of(_la.la_det), (np.linalg.det,),
     "det(A), the determinant of a square matrix (np.linalg.det); its derivative tr(adj(A) dA) is applied by "
     "a solve (det(A) A^{-1}), or by the SVD where A is singular"),
    ("slogdet", _typing_of_matrix(TupleT((Float, Float))),
     lambda a: tuple(float(v) for v in _la.la_slogdet(a)), (np.linalg.slogdet,),
     "slogdet(A) = (sign, log|det A|) (np.linalg.slogdet); the sign's derivative is 0"),
    ("inv", _typing_of_matrix(MATRIX), _la.la_inv, (np.linalg.inv,),
     "inv(A), the inverse of a square matrix (np.linalg.inv; LinAlgError when it is singular)"),
    ("solve", t_solve, lambda a, b: _la.la_solve(a, b, np.ndim(b) == 1), (np.linalg.solve,),
     "solve(A, b) = A^{-1} b for a vector or a matrix b (np.linalg.solve); its derivative solves with A "
     "and A^T, never forming A^{-1}"),
    ("cholesky", _typing_of_matrix(MATRIX), _la.la_cholesky, (np.linalg.cholesky,),
     "cholesky(A) = L, lower triangular with L L^T = A, from A's lower triangle (np.linalg.cholesky; "
     "LinAlgError when A is not positive definite): the derivative with respect to A's strictly upper "
     "triangle is 0"),
    ("det_jvp", _t_action(MATRIX, Float), _float_of(_la.la_det_jvp), (),
     "det_jvp(A, dA) = tr(adj(A) dA) = d det A (Jacobi's formula; 0 for the zero tangent), singular A too"),
    ("det_vjp", _t_action(Float, MATRIX), _la.la_det_vjp, (),
     "det_vjp(A, g) = g adj(A)^T, the transpose of det_jvp"),
    ("logdet_jvp", _t_action(MATRIX, Float), _float_of(_la.la_logdet_jvp), (),
     "logdet_jvp(A, dA) = tr(A^{-1} dA) = d log|det A|, by one solve (0 for the zero tangent)"),
    ("logdet_vjp", _t_action(Float, MATRIX), _la.la_logdet_vjp, (),
     "logdet_vjp(A, g) = g A^{-T}, the transpose of logdet_jvp (A^{-T} by a solve of A^T against I)"),
    ("inv_jvp", _t_action(MATRIX, MATRIX), _la.la_inv_jvp, (),
     "inv_jvp(B, dA) = -B dA B, d inv at B = inv(A)"),
    ("inv_vjp", _t_action(MATRIX, MATRIX), _la.la_inv_vjp, (),
     "inv_vjp(B, G) = -B^T G B^T, the transpose of inv_jvp"),
    ("lsolve", t_rhs_action, _la.la_lsolve, (),
     "lsolve(A, db) = A^{-1} db by a solve, db a tangent (0 for the zero tangent)"),
    ("lsolve_t", t_rhs_action, _la.la_lsolve_t, (),
     "lsolve_t(A, g) = A^{-T} g by a solve, the transpose of lsolve"),
    ("neg_matmul", t_neg_matmul, _la.la_neg_matmul, (),
     "neg_matmul(x, dA) = -dA x, the part of d solve(A, b) that dA makes (before the solve)"),
    ("neg_matmul_t", t_neg_matmul_t, _la.la_neg_matmul_t, (),
     "neg_matmul_t(x, g) = -g x^T, the transpose of neg_matmul (an outer product for vectors)"),
    ("chol_jvp", _t_action(MATRIX, MATRIX), _la.la_chol_jvp, (),
     "chol_jvp(L, dA) = L Phi(L^{-1} sym(dA) L^{-T}) at L = cholesky(A), sym(dA) made of dA's lower "
     "triangle, Phi the lower triangle with the diagonal halved (Murray 2016)"),
    ("chol_vjp", _t_action(MATRIX, MATRIX), _la.la_chol_vjp, (),
     "chol_vjp(L, G) = Phi(P + P^T), P = L^{-T} Phi(L^T G) L^{-1}: the transpose of chol_jvp"),
]
# what np.linalg raises where the matrix has no inverse, no solution, no Cholesky factor
_LINALG_RAISES = {"inv": "LinAlgError where A is singular", "solve": "LinAlgError where A is singular",
                  "cholesky": "LinAlgError where A is not positive definite"}
for _name, _typing, _impl, _aliases, _doc in _LINALG:
    register(Primitive(_name, _typing, _impl, _aliases, arity=1 if _name in ("det", "slogdet", "inv", "cholesky")
                       else 2, doc=_doc, raises=_LINALG_RAISES.get(_name, "")))


def _t_action_at(coefficient: Type, tangent: Type, result: Type):
    """A second derivative's action at a matrix and a first derivative's value:
    (M, coefficient, tangent) -> result."""
    def typing(ts):
        if ts != (MATRIX, coefficient, tangent):
            raise PrimitiveTypeError(f"expects ({MATRIX}, {coefficient}, {tangent}), got ({_fmt(ts)})")
        return result
    return typing


# Second derivatives (issue 17): the actions above differentiated again (catad.ad.rules). The
# products -M x in their other factors, then each action's derivative in its matrix at a fixed
# first derivative dA, g, X (kernels and formulas: catad/primitives/linalg.py).
_LINALG_AGAIN = [
    ("neg_tmatmul", t_neg_matmul, _la.la_neg_tmatmul, "neg_tmatmul(y, dA) = -dA^T y (d lsolve_t in A, before the solve)"),
    ("neg_tmatmul_t", t_neg_matmul_t, _la.la_neg_tmatmul_t, "neg_tmatmul_t(y, g) = -y g^T, the transpose of neg_tmatmul"),
    ("mul_neg", t_rhs_action, _la.la_mul_neg, "mul_neg(M, x) = -M x (d neg_matmul in x)"),
    ("mul_neg_t", t_rhs_action, _la.la_mul_neg_t, "mul_neg_t(M, g) = -M^T g, the transpose of mul_neg"),
    ("det_hvp", _t_action_at(MATRIX, MATRIX, Float), _float_of(_la.la_det_hvp),
     "det_hvp(A, dA, E) = d^2 det(A)[dA, E], d det_jvp(A, dA) in A (singular A too)"),
    ("det_hvp_t", _t_action_at(MATRIX, Float, MATRIX), _la.la_det_hvp_t,
     "det_hvp_t(A, dA, k) = k G, sum(G E) = d^2 det(A)[dA, E]: the transpose of det_hvp"),
    ("det_vjp_da", _t_action_at(Float, MATRIX, MATRIX), _la.la_det_vjp_da,
     "det_vjp_da(A, g, E) = d det_vjp(A, g) in A = g G(A, E) (its own transpose)"),
    ("logdet_hvp", _t_action_at(MATRIX, MATRIX, Float), _float_of(_la.la_logdet_hvp),
     "logdet_hvp(A, dA, E) = -tr(A^{-1} E A^{-1} dA), d logdet_jvp(A, dA) in A"),
    ("logdet_hvp_t", _t_action_at(MATRIX, Float, MATRIX), _la.la_logdet_hvp_t,
     "logdet_hvp_t(A, dA, k) = -k A^{-T} dA^T A^{-T}, the transpose of logdet_hvp"),
    ("logdet_vjp_da", _t_action_at(Float, MATRIX, MATRIX), _la.la_logdet_vjp_da,
     "logdet_vjp_da(A, g, E) = -g A^{-T} E^T A^{-T}, d logdet_vjp(A, g) in A (its own transpose)"),
    ("inv_jvp_db", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_inv_jvp_db,
     "inv_jvp_db(B, X, E) = -(E X B + B X E), d inv_jvp(B, X) in B"),
    ("inv_jvp_db_t", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_inv_jvp_db_t,
     "inv_jvp_db_t(B, X, H) = -(H B^T X^T + X^T B^T H), the transpose of inv_jvp_db"),
    ("inv_vjp_db", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_inv_vjp_db,
     "inv_vjp_db(B, X, E) = -(E^T X B^T + B^T X E^T), d inv_vjp(B, X) in B"),
    ("inv_vjp_db_t", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_inv_vjp_db_t,
     "inv_vjp_db_t(B, X, H) = -(X B^T H^T + H^T B^T X), the transpose of inv_vjp_db"),
    ("chol_jvp_dl", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_chol_jvp_dl,
     "chol_jvp_dl(L, dA, E) = E Phi(Z) - L Phi(K + K^T), Z = L^{-1} sym(dA) L^{-T}, K = L^{-1} E Z: "
     "d chol_jvp(L, dA) in L"),
    ("chol_jvp_dl_t", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_chol_jvp_dl_t,
     "chol_jvp_dl_t(L, dA, G) = G Phi(Z)^T - L^{-T} (H + H^T) Z, H = Phi(L^T G): the transpose of chol_jvp_dl"),
    ("chol_vjp_dl", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_chol_vjp_dl,
     "chol_vjp_dl(L, G, E) = d chol_vjp(L, G) in L (catad/primitives/linalg.py)"),
    ("chol_vjp_dl_t", _t_action_at(MATRIX, MATRIX, MATRIX), _la.la_chol_vjp_dl_t,
     "chol_vjp_dl_t(L, G, H): the transpose of chol_vjp_dl"),
]
for _name, _typing, _impl, _doc in _LINALG_AGAIN:
    register(Primitive(_name, _typing, _impl, (), arity=2 if _name.startswith(("neg_", "mul_")) else 3, doc=_doc))



# ---------------------------------------------------------------- discrete Fourier transforms (np.fft)
# A complex array is the pair (re, im) of Float arrays of one shape (a Tuple); a real array stands
# for itself. fft(z, n, axis, norm): n the transform's length, axis from the end (< 0), norm an
# index into catad.primitives.fft.NORMS. Their derivatives are lmLinear maps whose actions are the
# *_jvp / *_vjp primitives (x, the tangent or cotangent, last after n, m (the input's length along
# the axis), axis and norm). The kernels are in catad/primitives/fft.py, shared with the backend.


def _float_array(t: Type) -> bool:
    return isinstance(t, Vec) and scalar_of(t) == Float


def _dft_input(t: Type, complex_only: bool = False, real_only: bool = False) -> Type:
    """The real array type A of a transform's input: A itself, or the pair Tuple(A, A)."""
    if _float_array(t) and not complex_only:
        return t
    if isinstance(t, TupleT) and len(t.items) == 2 and t.items[0] == t.items[1] and _float_array(t.items[0]) \
            and not real_only:
        return t.items[0]
    what = "a Float array" if real_only else "a pair of Float arrays" if complex_only else \
        "a Float array or a pair of them"
    raise PrimitiveTypeError(f"expects {what}, got {t}")


def _dft_typing(name: str):
    """name(z, n, axis, norm): fft and ifft map a pair or a real array to a pair, rfft a real
    array to a pair, irfft a pair or a real array to a real array."""
    def typing(ts):
        if len(ts) != 4 or ts[1:] != (Int, Int, Int):
            raise PrimitiveTypeError(f"{name} takes (a value, Int, Int, Int), got ({_fmt(ts)})")
        a = _dft_input(ts[0], real_only=name == "rfft")
        return a if name == "irfft" else TupleT((a, a))
    return typing


def _dft_action_typing(name: str, kind: str):
    """(n, m, axis, norm, x) -> the transform's derivative (jvp) or its transpose (vjp: to a pair;
    vjp_re: to the real part) applied to x."""
    def typing(ts):
        if len(ts) != 5 or ts[:4] != (Int, Int, Int, Int):
            raise PrimitiveTypeError(f"{name}_{kind} takes (Int, Int, Int, Int, a value), got ({_fmt(ts)})")
        x = ts[4]
        if kind == "jvp":
            return _dft_typing(name)((x, Int, Int, Int))
        a = _dft_input(x, complex_only=name != "irfft", real_only=name == "irfft")
        return a if kind == "vjp_re" or name == "rfft" else TupleT((a, a))
    return typing


_DFT_DOCS = {
    "fft": "np.fft.fft(z, n, axis, norm) of a complex value (the pair (re, im)) or a real array: the pair of "
           "the result's parts",
    "ifft": "np.fft.ifft(z, n, axis, norm), as fft",
    "rfft": "np.fft.rfft(x, n, axis, norm) of a real array: the pair of the result's parts (n//2 + 1 along axis)",
    "irfft": "np.fft.irfft(z, n, axis, norm) of a complex value (a pair) or a real array: a real array",
}
for _name in _fft.TRANSFORMS:
    register(Primitive(_name, _dft_typing(_name), getattr(_fft, "dft_" + _name), (), arity=4,
                       doc=_DFT_DOCS[_name] + "; its derivative is the transform itself, its transpose the adjoint "
                       "transform (both by np.fft)"))
    for _kind in _fft.ACTION_KINDS[_name]:
        register(Primitive(f"{_name}_{_kind}", _dft_action_typing(_name, _kind), _fft.ACTIONS[f"{_name}_{_kind}"],
                           (), arity=5, doc=f"the {'forward' if _kind == 'jvp' else 'transposed'} action of d "
                           f"{_name} at (n, m, axis, norm)" + (" (the real part: the input was real)"
                                                               if _kind == "vjp_re" else "")))
# ---------------------------------------------------------------- decompositions, SciPy's solvers, lexsort
# np.linalg's svd, eigh and eigvalsh, scipy.linalg's expm, solve_triangular, cholesky and
# cho_solve (kernels: catad/primitives/spectral.py and triangular.py), and the actions of their
# derivatives. A static option (UPLO, full_matrices, SciPy's lower, trans and unit_diagonal) is
# an Int argument, a constant of the program; the vector-or-matrix arguments (b, x) are either.

VECTOR = Vec(Float)
_B = (VECTOR, MATRIX)  # a right-hand side or a solution: a vector or a matrix


def _signature(*params, result):
    """A typing rule: each param a type or a tuple of the types it may be (None: a right-hand side,
    a vector or a matrix, one type for all the Nones); result a type, or the index of the
    parameter whose type it is, or "M" for a matrix."""
    def typing(ts):
        rhs = {t for p, t in zip(params, ts) if p is None}
        ok = len(ts) == len(params) and len(rhs) <= 1 and all(
            t in (_B if p is None else p if isinstance(p, tuple) else (p,)) for p, t in zip(params, ts))
        if not ok:
            want = ", ".join("a vector or a matrix of Floats" if p is None else str(p) for p in params)
            raise PrimitiveTypeError(f"expects ({want}), got ({_fmt(ts)})")
        return ts[result] if isinstance(result, int) else result
    return typing


def t_lexsort(ts):
    """lexsort(k1, ..., kn) of vectors (of Ints, Floats or Bools), or of one matrix whose rows
    are the keys: the Int vector of the sorting permutation."""
    one_matrix = len(ts) == 1 and rank(ts[0]) == 2
    if not ts or not (one_matrix or all(rank(t) == 1 for t in ts)) or \
            any(scalar_of(t) not in (Int, Float, Bool) for t in ts):
        raise PrimitiveTypeError(f"lexsort takes vectors of numbers or one matrix of them, got ({_fmt(ts)})")
    return Vec(Int)


def _lexsort(*keys):
    if len(keys) == 1 and np.ndim(keys[0]) == 2:
        return np.lexsort(np.asarray(keys[0]))
    return np.lexsort(tuple(np.asarray(k) for k in keys))


def t_flatnonzero(ts):
    """flatnonzero(m) of an array of Bools: the Int vector of the positions of its true elements
    in C order (its length is known only when it runs)."""
    if len(ts) != 1 or rank(ts[0]) < 1 or scalar_of(ts[0]) != Bool:
        raise PrimitiveTypeError(f"flatnonzero takes an array of Bools, got ({_fmt(ts)})")
    return Vec(Int)


_DECOMPOSITIONS = [
    # name, typing, reference implementation, doc
    ("svd", _signature(MATRIX, Int, result=TupleT((MATRIX, VECTOR, MATRIX))), _sp.la_svd,
     "svd(A, full) = (U, S, Vh), np.linalg.svd(A, full_matrices=full): NumPy's own decomposition, its signs "
     "and order (full only for a square A, where it equals the reduced one)"),
    ("svdvals", _signature(MATRIX, result=VECTOR), _sp.la_svdvals,
     "svdvals(A), np.linalg.svd(A, compute_uv=False): the singular values, largest first"),
    ("svals_jvp", _signature(MATRIX, MATRIX, MATRIX, result=VECTOR), _sp.la_svals_jvp,
     "svals_jvp(U, Vh, dA) = diag(U^T dA V), the derivative of the singular values"),
    ("svals_vjp", _signature(MATRIX, MATRIX, VECTOR, result=MATRIX), _sp.la_svals_vjp,
     "svals_vjp(U, Vh, g) = U diag(g) V^T, the transpose of svals_jvp"),
    ("svdu_jvp", _signature(MATRIX, VECTOR, MATRIX, MATRIX, result=MATRIX), _sp.la_svdu_jvp,
     "svdu_jvp(U, S, Vh, dA) = U (F o (C S + S C^T)) + (I - U U^T) dA V S^{-1}, C = U^T dA V, "
     "F_ij = 1/(s_j^2 - s_i^2) (Townsend 2016)"),
    ("svdu_vjp", _signature(MATRIX, VECTOR, MATRIX, MATRIX, result=MATRIX), _sp.la_svdu_vjp,
     "svdu_vjp(U, S, Vh, G): the transpose of svdu_jvp"),
    ("svdvt_jvp", _signature(MATRIX, VECTOR, MATRIX, MATRIX, result=MATRIX), _sp.la_svdvt_jvp,
     "svdvt_jvp(U, S, Vh, dA) = dV^T, dV = V (F o (S C + C^T S)) + (I - V V^T) dA^T U S^{-1} (Townsend 2016)"),
    ("svdvt_vjp", _signature(MATRIX, VECTOR, MATRIX, MATRIX, result=MATRIX), _sp.la_svdvt_vjp,
     "svdvt_vjp(U, S, Vh, G): the transpose of svdvt_jvp"),
    ("eigh", _signature(MATRIX, Int, result=TupleT((VECTOR, MATRIX))), _sp.la_eigh,
     "eigh(A, upper) = (w, V), np.linalg.eigh(A, UPLO='U' if upper else 'L'): NumPy's own eigenvalues "
     "(ascending) and eigenvectors, from one triangle of A"),
    ("eigvalsh", _signature(MATRIX, Int, result=VECTOR), _sp.la_eigvalsh,
     "eigvalsh(A, upper), np.linalg.eigvalsh(A, UPLO=...): the eigenvalues, ascending"),
    ("eigvals_jvp", _signature(MATRIX, Int, MATRIX, result=VECTOR), _sp.la_eigvals_jvp,
     "eigvals_jvp(V, upper, dA): dw_i = v_i^T dS v_i, dS the symmetric matrix dA's triangle makes"),
    ("eigvals_vjp", _signature(MATRIX, Int, VECTOR, result=MATRIX), _sp.la_eigvals_vjp,
     "eigvals_vjp(V, upper, g): the transpose of eigvals_jvp (V diag(g) V^T, onto the triangle read)"),
    ("eigvecs_jvp", _signature(VECTOR, MATRIX, Int, MATRIX, result=MATRIX), _sp.la_eigvecs_jvp,
     "eigvecs_jvp(w, V, upper, dA): dV = V (F o (V^T dS V)), F_ij = 1/(w_j - w_i) (infinite at a "
     "repeated eigenvalue, where the eigenvectors have no derivative)"),
    ("eigvecs_vjp", _signature(VECTOR, MATRIX, Int, MATRIX, result=MATRIX), _sp.la_eigvecs_vjp,
     "eigvecs_vjp(w, V, upper, G): the transpose of eigvecs_jvp"),
    ("expm", _signature(MATRIX, result=MATRIX), _sp.la_expm,
     "expm(A), scipy.linalg.expm: SciPy's own matrix exponential"),
    ("expm_jvp", _signature(MATRIX, MATRIX, result=MATRIX), _sp.la_expm_jvp,
     "expm_jvp(A, E) = L(A, E), the Frechet derivative: the top-right block of expm([[A, E], [0, A]])"),
    ("expm_vjp", _signature(MATRIX, MATRIX, result=MATRIX), _sp.la_expm_vjp,
     "expm_vjp(A, G) = L(A^T, G), the transpose of expm_jvp"),
    ("lstsq", lambda ts: TupleT((_signature(MATRIX, None, Float, result=1)(ts), VECTOR, Int, VECTOR)), _la.la_lstsq,
     "lstsq(A, b, rcond) = (x, residuals, rank, s), np.linalg.lstsq: NumPy's own least squares, its derivative "
     "zero (catad/frontend/lstsq.py adds the one of the normal equations' solution)"),
    ("trisolve", _signature(MATRIX, None, Int, result=1), lambda a, b, f: _tr.la_trisolve(a, b, f, np.ndim(b) == 1),
     "trisolve(A, b, flags), scipy.linalg.solve_triangular(A, b, lower=flags & 1, trans=flags >> 1 & 3, "
     "unit_diagonal=flags & 8, check_finite=not flags & 16): SciPy's own solve, reading one triangle of A"),
    ("tri_lsolve", _signature(MATRIX, Int, None, result=2), _tr.la_tri_lsolve,
     "tri_lsolve(A, flags, db) = op(T)^{-1} db, a tangent solved like trisolve"),
    ("tri_lsolve_t", _signature(MATRIX, Int, None, result=2), _tr.la_tri_lsolve_t,
     "tri_lsolve_t(A, flags, g) = op(T)^{-T} g, the transpose of tri_lsolve"),
    ("tri_neg_matmul", _signature(None, Int, MATRIX, result=0), _tr.la_tri_neg_matmul,
     "tri_neg_matmul(x, flags, dA) = -op(tri(dA)) x, the part of d trisolve that dA makes"),
    ("tri_neg_matmul_t", _signature(None, Int, None, result=MATRIX), _tr.la_tri_neg_matmul_t,
     "tri_neg_matmul_t(x, flags, g) = -tri(g x^T) (-tri(x g^T) for trans), its transpose"),
    ("sp_cholesky", _signature(MATRIX, Int, result=MATRIX), _tr.la_sp_cholesky,
     "sp_cholesky(A, flags), scipy.linalg.cholesky(A, lower=flags & 1, check_finite=not flags & 2): the lower "
     "factor from A's lower triangle, or the upper one (U^T U = A) from its upper triangle"),
    ("sp_chol_jvp", _signature(MATRIX, Int, MATRIX, result=MATRIX), _tr.la_sp_chol_jvp,
     "sp_chol_jvp(C, flags, dA): chol_jvp for the lower factor, (chol_jvp(U^T, dA^T))^T for the upper one"),
    ("sp_chol_vjp", _signature(MATRIX, Int, MATRIX, result=MATRIX), _tr.la_sp_chol_vjp,
     "sp_chol_vjp(C, flags, G): the transpose of sp_chol_jvp"),
    ("cho_solve", _signature(MATRIX, None, Int, result=1), lambda c, b, lo: _tr.la_cho_solve(c, b, lo, np.ndim(b) == 1),
     "cho_solve(C, b, flags), scipy.linalg.cho_solve((C, flags & 1), b, check_finite=not flags & 2): SciPy's "
     "own solve with the factor in C's lower (upper) triangle"),
    ("cho_lsolve", _signature(MATRIX, Int, None, result=2), _tr.la_cho_lsolve,
     "cho_lsolve(C, flags, db) = M^{-1} db, M = L L^T (U^T U); its own transpose"),
    ("cho_neg_matmul", _signature(MATRIX, None, Int, MATRIX, result=1), _tr.la_cho_neg_matmul,
     "cho_neg_matmul(C, x, flags, dC) = -dM x, dM = dL L^T + L dL^T (dU^T U + U^T dU)"),
    ("cho_neg_matmul_t", _signature(MATRIX, None, Int, None, result=MATRIX), _tr.la_cho_neg_matmul_t,
     "cho_neg_matmul_t(C, x, flags, g): the transpose of cho_neg_matmul"),
]
_DECOMPOSITIONS += [
    # second derivatives (issue 17): the products in their other factors, and cholesky's maps in C
    ("tri_neg_tmatmul", _signature(None, Int, MATRIX, result=0), _tr.la_tri_neg_tmatmul,
     "tri_neg_tmatmul(y, flags, dA) = -op(tri(dA))^T y (d tri_lsolve_t in A, before the solve)"),
    ("tri_neg_tmatmul_t", _signature(None, Int, None, result=MATRIX), _tr.la_tri_neg_tmatmul_t,
     "tri_neg_tmatmul_t(y, flags, g): the transpose of tri_neg_tmatmul"),
    ("tri_mul_neg", _signature(MATRIX, Int, None, result=2), _tr.la_tri_mul_neg,
     "tri_mul_neg(M, flags, x) = -op(tri(M)) x (d tri_neg_matmul in x)"),
    ("tri_mul_neg_t", _signature(MATRIX, Int, None, result=2), _tr.la_tri_mul_neg_t,
     "tri_mul_neg_t(M, flags, g) = -op(tri(M))^T g, the transpose of tri_mul_neg"),
    *((name, _signature(MATRIX, Int, MATRIX, MATRIX, result=MATRIX), getattr(_tr, "la_" + name),
       f"{name}(C, flags, dA, E): chol_{name[8:].replace('_dc', '_dl')} for SciPy's lower or upper factor (d "
       f"sp_chol_{name[8:11]} in C{', transposed' if name.endswith('_t') else ''})")
      for name in ("sp_chol_jvp_dc", "sp_chol_jvp_dc_t", "sp_chol_vjp_dc", "sp_chol_vjp_dc_t")),
    ("eigvals_jvp_dv", _signature(MATRIX, Int, MATRIX, MATRIX, result=VECTOR), _sp.la_eigvals_jvp_dv,
     "eigvals_jvp_dv(V, upper, dA, E) = 2 diag(V^T dS E), d eigvals_jvp in V"),
    ("eigvals_jvp_dv_t", _signature(MATRIX, Int, MATRIX, VECTOR, result=MATRIX), _sp.la_eigvals_jvp_dv_t,
     "eigvals_jvp_dv_t(V, upper, dA, g) = 2 dS V diag(g), the transpose of eigvals_jvp_dv"),
    ("eigvals_vjp_dv", _signature(MATRIX, Int, VECTOR, MATRIX, result=MATRIX), _sp.la_eigvals_vjp_dv,
     "eigvals_vjp_dv(V, upper, g, E) = sym*(E diag(g) V^T + V diag(g) E^T), d eigvals_vjp in V"),
    ("eigvals_vjp_dv_t", _signature(MATRIX, Int, VECTOR, MATRIX, result=MATRIX), _sp.la_eigvals_vjp_dv_t,
     "eigvals_vjp_dv_t(V, upper, g, H) = 2 sym(H) V diag(g), the transpose of eigvals_vjp_dv"),
    *((name, _signature(MATRIX, MATRIX, MATRIX if "jvp" in name else VECTOR,
                        VECTOR if "jvp" in name and name.endswith("_t") else MATRIX,
                        result=VECTOR if "jvp" in name and not name.endswith("_t") else MATRIX),
       getattr(_sp, "la_" + name), f"{name}(U, Vh, {'dA' if 'jvp' in name else 'g'}, x): "
       + (f"the transpose of {name[:-2]}" if name.endswith("_t") else
          f"d {name[:9]} in {'U' if name.endswith('du') else 'Vh'} (catad/primitives/spectral.py)"))
      for name in _sp.SVALS_AGAIN),
    *((name, _signature(VECTOR, MATRIX, Int, MATRIX, VECTOR if name.endswith("_dw") else MATRIX,
                        result=VECTOR if name.endswith("_dw_t") else MATRIX),
       getattr(_sp, "la_" + name), f"{name}(w, V, upper, {'dA' if 'jvp' in name else 'G'}, x): "
       + (f"the transpose of {name[:-2]}" if name.endswith("_t") else
          f"d {name[:11]} in {name[-1]} (catad/primitives/spectral.py)"))
      for name in _sp.EIGVECS_AGAIN),
    *((name, _signature(MATRIX, VECTOR, MATRIX, MATRIX, VECTOR if name.endswith("_ds") else MATRIX,
                        result=VECTOR if name.endswith("_ds_t") else MATRIX),
       kernel, f"{name}(U, s, Vh, {'dA' if '_jvp' in name else 'G'}, x): {kernel.__doc__}")
      for name, kernel in _sp.SVDVECS_AGAIN.items()),
    ("expm_jvp_da", _signature(MATRIX, MATRIX, MATRIX, result=MATRIX), _sp.la_expm_jvp_da,
     "expm_jvp_da(A, E, D) = d L(A, E) in A along D: the top-right block of L([[A, E], [0, A]], diag(D, D))"),
    ("expm_jvp_da_t", _signature(MATRIX, MATRIX, MATRIX, result=MATRIX), _sp.la_expm_jvp_da_t,
     "expm_jvp_da_t(A, E, H): the transpose of expm_jvp_da"),
    ("expm_vjp_da", _signature(MATRIX, MATRIX, MATRIX, result=MATRIX), _sp.la_expm_vjp_da,
     "expm_vjp_da(A, G, D) = d L(A^T, G) in A along D"),
    ("expm_vjp_da_t", _signature(MATRIX, MATRIX, MATRIX, result=MATRIX), _sp.la_expm_vjp_da_t,
     "expm_vjp_da_t(A, G, H): the transpose of expm_vjp_da"),
    ("cho_mul_neg", _signature(MATRIX, MATRIX, Int, None, result=3), _tr.la_cho_mul_neg,
     "cho_mul_neg(C, D, flags, v) = -dM(C, D) v, dM = D L^T + L D^T (its own transpose; d cho_neg_matmul in x)"),
    ("cho_sym_mul", _signature(None, None, Int, MATRIX, result=MATRIX), _tr.la_cho_sym_mul,
     "cho_sym_mul(x, g, flags, E) = -tri((G + G^T) E), G = g x^T (its own transpose; d cho_neg_matmul_t in C)"),
]
# what NumPy and SciPy raise where there is no decomposition or solution, or (SciPy's check_finite)
# the matrix is not finite
_DECOMPOSITIONS_RAISE = {"svd": "LinAlgError where the SVD does not converge (a NaN)",
                         "svdvals": "LinAlgError where the SVD does not converge (a NaN)",
                         "lstsq": "LinAlgError where the SVD does not converge (a NaN)",
                         "trisolve": "LinAlgError where the triangle is singular; ValueError where it is not finite",
                         "sp_cholesky": "LinAlgError where A is not positive definite; ValueError where it is not "
                                        "finite",
                         "cho_solve": "ValueError where the factor or b is not finite"}
for _name, _typing, _impl, _doc in _DECOMPOSITIONS:
    register(Primitive(_name, _typing, _impl, arity=None, doc=_doc, raises=_DECOMPOSITIONS_RAISE.get(_name, "")))
register(Primitive("flatnonzero", t_flatnonzero, lambda m: np.flatnonzero(np.asarray(m, dtype=bool)),
                   doc="flatnonzero(m), np.flatnonzero(m): the positions of m's true elements in C order, an Int "
                       "vector whose length is the count of them (what a boolean mask selects), with no derivative"))
register(Primitive("lexsort", t_lexsort, _lexsort, arity=None,
                   doc="lexsort(k1, ..., kn), np.lexsort((k1, ..., kn)): the stable sorting permutation by the "
                       "last key, then the one before, ... (or by the rows of one matrix, the last row first); "
                       "an Int vector, with no derivative"))


# ---------------------------------------------------------------- structural primitives: every stage in one row
# Typing and the reference implementation are the rows above; here, where each other stage
# keeps the primitive's rules. Adding a structural primitive (or fold's parts) is a row here
# and an entry in each named table.

_AD, _LM, _CG = "catad.ad.rules:", "catad.linearmaps.terms:", "catad.backend."
_AGAIN = ("tri_lsolve", "tri_lsolve_t", "tri_neg_matmul", "tri_neg_matmul_t", "tri_neg_tmatmul", "tri_neg_tmatmul_t",
          "tri_mul_neg", "tri_mul_neg_t", "sp_chol_jvp", "sp_chol_vjp", "cho_lsolve", "cho_neg_matmul",
          "cho_neg_matmul_t", "cho_mul_neg", "cho_sym_mul", "expm_jvp", "expm_vjp", "eigvals_jvp", "eigvals_vjp",
          "svals_jvp", "svals_vjp", "eigvecs_jvp", "eigvecs_vjp", "svdu_jvp", "svdu_vjp", "svdvt_jvp", "svdvt_vjp")
STRUCTURAL = {
    "index": {"derivative": _AD + "_j_index", "linear maps": _LM + "Index IndexUpdate",
              "codegen": _CG + "gathers:p_index"},
    "size": {"codegen": _CG + "gathers:p_size"},
    "dim": {"codegen": _CG + "gathers:p_dim"},
    "sum": {"derivative": _AD + "_j_sum", "linear maps": _LM + "Sum Broadcast", "codegen": _CG + "reductions:p_sum"},
    "fsum": {"derivative": _AD + "_j_sum", "linear maps": _LM + "Sum Broadcast", "codegen": _CG + "reductions:p_fsum"},
    "vmax": {"derivative": _AD + "_j_reduce", "linear maps": _LM + "Index IndexUpdate",
             "codegen": _CG + "reductions:p_vmax"},
    "vmin": {"derivative": _AD + "_j_reduce", "linear maps": _LM + "Index IndexUpdate",
             "codegen": _CG + "reductions:p_vmin"},
    "argmax": {"codegen": _CG + "reductions:p_argmax"},
    "argmin": {"codegen": _CG + "reductions:p_argmin"},
    "last_hit": {"codegen": _CG + "scatters:p_last_hit"},
    "brentq": {"derivative": _AD + "_j_constant", "codegen": _CG + "roots:p_brentq"},
    "stop_gradient": {"derivative": _AD + "_j_constant", "codegen": _CG + "roots:p_stop_gradient"},
    **{_name: {"derivative": _AD + "_j_implicit_root", "linear maps": _LM + "Linear",
               "codegen": _CG + "roots:p_implicit_root"} for _name in _roots.IMPLICIT_MARKS + _roots.IMPLICIT_ZEROS},
    "vector": {"derivative": _AD + "_j_vector", "linear maps": _LM + "IndexUpdate Index",
               "codegen": _CG + "arrays:p_vector"},
    "check": {"codegen": _CG + "checks:p_check"},
    "update": {"derivative": _AD + "_j_update", "linear maps": _LM + "IndexUpdate",
               "codegen": _CG + "scatters:p_update"},
    "scatter_add": {"codegen": _CG + "scatters:p_scatter_add"},
    "tadd": {"derivative": _AD + "_j_tadd", "linear maps": _LM + "One",
             "codegen": _CG + "tangent_ops:p_tadd"},
    "tscale": {"derivative": _AD + "_j_tscale", "linear maps": _LM + "Linear Scale",
               "codegen": _CG + "tangent_ops:p_tscale"},
    "tmul": {"derivative": _AD + "_j_tmul", "linear maps": _LM + "Linear ScaleVec",
             "codegen": _CG + "tangent_ops:p_tmul"},
    "tsum": {"derivative": _AD + "_j_tsum", "linear maps": _LM + "Sum",
             "codegen": _CG + "reductions:p_tsum"},
    "densify": {"derivative": _AD + "_j_densify", "linear maps": _LM + "One Zero",
                "codegen": _CG + "tangent_ops:p_densify"},
    # a derivative program differentiated again: the tangent operations' own Jacobians
    "touter": {"derivative": _AD + "_j_touter", "linear maps": _LM + "Scale Linear",
               "codegen": _CG + "tangent_ops:p_touter"},
    "tdot": {"derivative": _AD + "_j_tdot", "linear maps": _LM + "Linear", "codegen": _CG + "tangent_ops:p_tdot"},
    "tprod": {"derivative": _AD + "_j_tprod", "linear maps": _LM + "Linear",
              "codegen": _CG + "tangent_ops:p_tprod"},
    # linear algebra: each function's Jacobian is made of lmLinear maps, whose forward and
    # transposed actions are the *_jvp / *_vjp primitives (catad.rewrite.catalogue: fwd-linear)
    "det": {"derivative": _AD + "_j_det", "linear maps": _LM + "Linear", "codegen": _CG + "linalg:p_det"},
    "slogdet": {"derivative": _AD + "_j_slogdet", "linear maps": _LM + "Linear VCat Zero",
                "codegen": _CG + "linalg:p_slogdet"},
    "inv": {"derivative": _AD + "_j_inv", "linear maps": _LM + "Linear", "codegen": _CG + "linalg:p_inv"},
    "solve": {"derivative": _AD + "_j_solve", "linear maps": _LM + "Linear Compose HCat One",
              "codegen": _CG + "linalg:p_solve"},
    "cholesky": {"derivative": _AD + "_j_cholesky", "linear maps": _LM + "Linear",
                 "codegen": _CG + "linalg:p_cholesky"},
    # their actions' own Jacobians (a second derivative: catad.ad.rules, "linear algebra again")
    **{_name: {"derivative": _AD + "_j_" + _name, "linear maps": _LM + "Linear Compose",
               "codegen": _CG + "linalg:p_" + _name} for _name in (
        "det_jvp", "det_vjp", "logdet_jvp", "logdet_vjp", "inv_jvp", "inv_vjp", "lsolve", "lsolve_t", "neg_matmul",
        "neg_matmul_t", "chol_jvp", "chol_vjp", "neg_tmatmul", "neg_tmatmul_t", "mul_neg", "mul_neg_t")},
    # the second derivatives' actions, with no derivative of their own (a third is refused)
    **{_name: {"codegen": _CG + "linalg:p_" + _name} for _name in (
        "det_hvp", "det_hvp_t", "det_vjp_da", "logdet_hvp", "logdet_hvp_t", "logdet_vjp_da", "inv_jvp_db",
        "inv_jvp_db_t", "inv_vjp_db", "inv_vjp_db_t", "chol_jvp_dl", "chol_jvp_dl_t", "chol_vjp_dl", "chol_vjp_dl_t")},
    # discrete Fourier transforms: each one's Jacobian is an lmLinear map whose actions are the
    # *_jvp / *_vjp primitives (catad/primitives/fft.py)
    **{_name: {"derivative": _AD + "_j_dft", "linear maps": _LM + "Linear", "codegen": _CG + "fft:p_" + _name}
       for _name in _fft.TRANSFORMS},
    # their actions are linear and independent of the primal: each one's Jacobian is itself
    **{_name: {"derivative": _AD + "_j_dft_action", "linear maps": _LM + "Linear Zero",
               "codegen": _CG + "fft:p_" + _name} for _name in _fft.ACTIONS},
    # decompositions and SciPy's solvers (catad.primitives.spectral, .triangular): each Jacobian
    # is lmLinear maps (one per result of a decomposition, in an lmVCat; a solve's is solve's form)
    "svd": {"derivative": _AD + "_j_svd", "linear maps": _LM + "Linear VCat Zero", "codegen": _CG + "linalg:p_svd"},
    "svdvals": {"derivative": _AD + "_j_svdvals", "linear maps": _LM + "Linear", "codegen": _CG + "linalg:p_svdvals"},
    "eigh": {"derivative": _AD + "_j_eigh", "linear maps": _LM + "Linear VCat Zero", "codegen": _CG + "linalg:p_eigh"},
    "eigvalsh": {"derivative": _AD + "_j_eigvalsh", "linear maps": _LM + "Linear Zero",
                 "codegen": _CG + "linalg:p_eigvalsh"},
    "expm": {"derivative": _AD + "_j_expm", "linear maps": _LM + "Linear", "codegen": _CG + "linalg:p_expm"},
    "lstsq": {"derivative": _AD + "_j_constant", "codegen": _CG + "linalg:p_lstsq"},
    "trisolve": {"derivative": _AD + "_j_trisolve", "linear maps": _LM + "Linear Compose HCat One Zero",
                 "codegen": _CG + "linalg:p_trisolve"},
    "sp_cholesky": {"derivative": _AD + "_j_sp_cholesky", "linear maps": _LM + "Linear Zero",
                    "codegen": _CG + "linalg:p_sp_cholesky"},
    "cho_solve": {"derivative": _AD + "_j_cho_solve", "linear maps": _LM + "Linear Compose HCat One Zero",
                  "codegen": _CG + "linalg:p_cho_solve"},
    "lexsort": {"codegen": _CG + "linalg:p_lexsort"},
    "flatnonzero": {"codegen": _CG + "gathers:p_flatnonzero"},
    **{_name: {"codegen": _CG + "linalg:p_" + _name} for _name in (
        "svals_jvp", "svals_vjp", "svdu_jvp", "svdu_vjp", "svdvt_jvp", "svdvt_vjp", "eigvals_jvp", "eigvals_vjp",
        "eigvecs_jvp", "eigvecs_vjp", "expm_jvp", "expm_vjp", "tri_lsolve", "tri_lsolve_t", "tri_neg_matmul",
        "tri_neg_matmul_t", "sp_chol_jvp", "sp_chol_vjp", "cho_lsolve", "cho_neg_matmul", "cho_neg_matmul_t")
        if _name not in _AGAIN},
    # SciPy's solvers' and cholesky's actions differentiated again (issue 17), and the actions of
    # their second derivatives (sp_chol_*_dc: no derivative of their own, a third is refused)
    **{_name: {"derivative": _AD + ("_j_svd_vectors" if _name.startswith("svd") else "_j_" + _name),
               "linear maps": _LM + "Linear Compose Zero", "codegen": _CG + "linalg:p_" + _name} for _name in _AGAIN},
    **{_name: {"codegen": _CG + "linalg:p_" + _name} for _name in (
        "sp_chol_jvp_dc", "sp_chol_jvp_dc_t", "sp_chol_vjp_dc", "sp_chol_vjp_dc_t", "expm_jvp_da", "expm_jvp_da_t",
        "expm_vjp_da", "expm_vjp_da_t", "eigvals_jvp_dv", "eigvals_jvp_dv_t", "eigvals_vjp_dv", "eigvals_vjp_dv_t",
        *_sp.SVALS_AGAIN, *_sp.EIGVECS_AGAIN, *_sp.SVDVECS_AGAIN)},
}
for _name, _stages in STRUCTURAL.items():
    PRIMITIVES[_name] = dataclasses.replace(PRIMITIVES[_name], stages=tuple(_stages.items()))

# fold (notes Section 8) is a term with a lambda, not a primitive: a primitive's arguments are
# values. Its stages side by side, as a structural primitive's row names them (each name is
# "module:object", an attribute path after the colon; a rule is named by its catalogue name):
# the core term and its reference loop, the CL combinator, the Jacobian (catad.ad's fold),
# the linear map and the rules applying it, and the backend's loop for each term.
STRUCTURAL_TERMS = {
    "fold": {"term": "catad.lang.fold:Fold", "evaluation": "catad.lang.fold:eval_fold",
             "CL": "catad.combinators.terms:Fold", "derivative": "catad.ad.transform:_AD.fold",
             "linear maps": "catad.linearmaps.terms:LMFold", "codegen": "catad.backend.folds:fold"},
    "FFold": {"term": "catad.lang.fold:FFold", "evaluation": "catad.lang.fold:eval_ffold",
              "rule": "fwd-fold", "sweep": "fwd-sweep-nested", "codegen": "catad.backend.folds:ffold"},
    "RFold": {"term": "catad.lang.fold:RFold", "evaluation": "catad.lang.fold:eval_rfold",
              "rule": "rev-fold", "sweep": "rev-sweep-nested", "codegen": "catad.backend.folds:rfold"},
    # a loop's derivatives differentiated again (issue 17): FFold and RFold are written with folds
    # and scans (catad.lang.fold.as_scans, when converted to CL), and a scan's Jacobian holds its
    # accumulators
    "scan": {"term": "catad.lang.fold:Scan", "evaluation": "catad.lang.fold:eval_scan",
             "CL": "catad.combinators.terms:Scan", "derivative": "catad.ad.transform:_AD.scan",
             "linear maps": "catad.linearmaps.terms:LMScan", "rules": "fwd-scan rev-scan",
             "codegen": "catad.backend.folds:scan"},
    "while": {"term": "catad.lang.fold:WhileCount", "evaluation": "catad.lang.fold:eval_while_count",
              "CL": "catad.combinators.terms:WhileCount", "derivative": "catad.ad.transform:_AD.while_count",
              "codegen": "catad.backend.folds:while_count"},
}
