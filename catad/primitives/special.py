"""Special functions of the registry (scipy.special's, NumPy's logaddexp, hypot, cbrt, ...).

Two things per function, both without SciPy (catad does not depend on it):

* its numbers: a NumPy implementation on scalars and arrays, stable where the textbook formula
  overflows (expit and log_expit at |x| = 1000, log_ndtr far in the left tail), with SciPy's
  conventions at the edges (xlogy(0, y) = 0 even for y = 0, logit(0) = -inf, rel_entr(0, 0) = 0);
* its SymPy function (a ``sympy.Function`` subclass) for the registry's ``sympy`` field: each
  states its definition in elementary functions (``definition``, from which ``_eval_evalf``
  evaluates it to any precision) and its derivative (``fdiff``) written in terms of the
  function itself where that is what keeps it finite (d expit = expit(x) expit(-x), not
  exp(-x) / (1 + exp(-x))**2, which is inf / inf at x = -1000). tests/test_special_functions.py
  checks that each ``fdiff`` is the derivative of its ``definition``. Because these classes are
  function applications, catad.primitives.derivatives translates expit(...) in a derivative
  back to the expit primitive (its reverse table), as it does sin or erf.

A derivative that needs a choice at a point where the function is not smooth says it with a
``Piecewise`` (translated to an ``if``): xlogy's partial in y is 0 where x == 0, where the
function is identically 0 whatever y is; rel_entr's and kl_div's partials in x are -inf there
(the limit from the right), and 0 where they are constantly inf.
"""
from __future__ import annotations

import math

import numpy as np
import sympy
from mpmath.libmp import prec_to_dps

_SQRT1_2 = 0.7071067811865476  # 1 / sqrt 2, as SciPy's ndtr multiplies by it
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_DBL_MIN = 2.2250738585072014e-308  # the least normal double (C's DBL_MIN)


def _arr(x):
    return np.asarray(x, dtype=np.float64)


# ---------------------------------------------------------------- NumPy implementations
# Each takes scalars or arrays (broadcasting) and returns a NumPy scalar or array; the
# registry's scalar implementation is float(f(x)), the compiled code's whole-array form f(x).

def expit(x):
    x = _arr(x)
    with np.errstate(all="ignore"):
        e = np.exp(-np.abs(x))  # never overflows
        return np.where(x >= 0, 1.0 / (1.0 + e), e / (1.0 + e))[()]


def log_expit(x):
    """log(expit(x)) = min(x, 0) - log1p(exp(-|x|)): -0.0 at 1000, -1000 at -1000."""
    x = _arr(x)
    with np.errstate(all="ignore"):
        return (np.minimum(x, 0.0) - np.log1p(np.exp(-np.abs(x))))[()]


def logit(x):
    """log(x / (1 - x)); near 1/2 as log1p(s) - log1p(-s) with s = 2x - 1 (exact there)."""
    x = _arr(x)
    with np.errstate(all="ignore"):
        s = 2.0 * (x - 0.5)
        middle = (x > 0.3) & (x < 0.7)
        return np.where(middle, np.log1p(s) - np.log1p(-s), np.log(x / (1.0 - x)))[()]


def xlogy(x, y):
    """x * log(y), 0 where x == 0 unless y is nan (SciPy's convention)."""
    x, y = _arr(x), _arr(y)
    with np.errstate(all="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y))[()]


def xlog1py(x, y):
    x, y = _arr(x), _arr(y)
    with np.errstate(all="ignore"):
        return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y))[()]


def entr(x):
    """scipy.special.entr (xsf's convex_analysis.h): -x * log(x) for x > 0, 0 at +-0, -inf
    below 0, nan at nan; -x * log(x) as SciPy rounds it, (-x) * log(x), so entr(1) is -0.0."""
    x = _arr(x)
    with np.errstate(all="ignore"):
        edge = np.where(x == 0, 0.0, np.where(np.isnan(x), np.nan, -np.inf))
        return np.where(x > 0, -x * np.log(x), edge)[()]


def _either_nan(x, y, out):
    """out, with nan where x or y is nan (SciPy's entropy functions test that first)."""
    return np.where(np.isnan(x) | np.isnan(y), np.nan, out)[()]


def _log_ratio(x, y):
    """log(x / y) for x > 0 and y > 0 as SciPy's rel_entr takes it (xsf's convex_analysis.h):
    log1p((x - y) / y) where 1/2 < x / y < 2 (x - y is exact there), log(x / y) where x / y
    neither underflows nor overflows, else log(x) - log(y)."""
    r = x / y
    far = np.where((r > _DBL_MIN) & (r < np.inf), np.log(r), np.log(x) - np.log(y))
    return np.where((r > 0.5) & (r < 2.0), np.log1p((x - y) / y), far)


def rel_entr(x, y):
    """scipy.special.rel_entr (xsf's convex_analysis.h): x * log(x / y) for x > 0 and y > 0 (the
    log as _log_ratio), 0 for x == 0 and y >= 0, inf otherwise, nan if x or y is nan."""
    x, y = _arr(x), _arr(y)
    with np.errstate(all="ignore"):
        edge = np.where((x == 0) & (y >= 0), 0.0, np.inf)
        return _either_nan(x, y, np.where((x > 0) & (y > 0), x * _log_ratio(x, y), edge))


def kl_div(x, y):
    """scipy.special.kl_div (xsf's convex_analysis.h): x * log(x / y) - x + y for x > 0 and
    y > 0, y for x == 0 and y >= 0 (so kl_div(0, -0.0) is -0.0), inf otherwise, nan if x or y is
    nan."""
    x, y = _arr(x), _arr(y)
    with np.errstate(all="ignore"):
        edge = np.where((x == 0) & (y >= 0), y, np.inf)
        return _either_nan(x, y, np.where((x > 0) & (y > 0), x * np.log(x / y) - x + y, edge))


def gammaln(x: float) -> float:
    """log|Gamma(x)| as SciPy's gammaln: inf at the poles and at inf, -inf at -inf."""
    if x == -math.inf:
        return -math.inf
    try:
        return math.lgamma(x)
    except (ValueError, OverflowError):
        return math.inf


def _stirling_correction(x: float) -> float:
    """lgamma(x) - ((x - 1/2) log x - x + log sqrt(2 pi)) for x >= 10 (error below 1e-17)."""
    r = 1.0 / (x * x)
    return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680)))) / x


def betaln(a: float, b: float) -> float:
    """log|B(a, b)| = lgamma(a) + lgamma(b) - lgamma(a + b), with SciPy's conventions at the poles,
    its asymptotic form where one argument dwarfs the other, and Stirling's series where both
    are large, where the three lgammas would cancel (a = b = 1e300)."""
    for p, q in ((a, b), (b, a)):
        if p <= 0.0 and (p == -math.inf or p == math.floor(p)):  # Gamma(p) has a pole
            if abs(p) < 2.0 ** 53 and math.isfinite(q) and q == math.floor(q) and 1.0 - p - q > 0.0:
                return betaln(1.0 - p - q, q)  # |B(p, q)| = |B(1 - p - q, q)| for integers p <= 0 < 1 - p - q
            return math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if abs(a) < abs(b):
        a, b = b, a  # |a| >= |b|
    if a > 1e6 * abs(b) and a > 1e6:  # log B ~ lgamma(b) - b log a + ... (a may be inf)
        c = b * (1.0 - b)
        return (gammaln(b) - b * math.log(a) + c / (2.0 * a) + c * (1.0 - 2.0 * b) / (12.0 * a * a)
                - c * c / (12.0 * a * a * a))
    a, b = b, a  # a <= b
    if a >= 10.0 and math.isfinite(b):  # both large
        s = a + b
        return (_LOG_SQRT_2PI - 0.5 * math.log(s) + (a - 0.5) * math.log(a / s) + (b - 0.5) * math.log1p(-a / s)
                + _stirling_correction(a) + _stirling_correction(b) - _stirling_correction(s))
    if b >= 10.0 and a > 0.0 and math.isfinite(b):  # lgamma(b) - lgamma(a + b) without cancelling
        s = a + b
        return (gammaln(a) - (b - 0.5) * math.log1p(a / b) - a * math.log(s) + a
                + _stirling_correction(b) - _stirling_correction(s))
    return gammaln(a) + gammaln(b) - gammaln(a + b)


def ndtr(x: float) -> float:
    """The standard normal CDF Phi(x) = erfc(-x / sqrt 2) / 2 (accurate in the left tail)."""
    return 0.5 * math.erfc(-x * _SQRT1_2)


def log_ndtr(x: float) -> float:
    """log Phi(x): log1p(-Phi(-x)) for x > 0, log Phi down to -20, and beyond x = -20 the
    asymptotic series log Phi(x) = -x^2/2 - log(-x) - log sqrt(2 pi) + log(1 + sum_k (-1)^k
    (2k - 1)!! / x^(2k)) (12 terms: below 1e-19 there), where erfc would underflow."""
    if math.isnan(x):
        return math.nan
    if x > 0.0:
        return math.log1p(-0.5 * math.erfc(x * _SQRT1_2))
    if x > -20.0:
        return math.log(0.5 * math.erfc(-x * _SQRT1_2))
    if x == -math.inf:
        return -math.inf
    r = 1.0 / (x * x)
    term, series = 1.0, 1.0
    for k in range(1, 13):
        term *= -(2 * k - 1) * r
        series += term
    return -0.5 * x * x - math.log(-x) - _LOG_SQRT_2PI + math.log(series)


def _bessel_ie(nu: int, x: float) -> float:
    """exp(-|x|) I_nu(|x|) for nu = 0 or 1 and x >= 0: the power series (all terms positive, no
    cancellation) up to x = 30, beyond it the asymptotic series exp(-x) I_nu(x) ~ sum_k (-1)^k
    a_k(nu) / x^k / sqrt(2 pi x), a_k = prod_{j<=k} (4 nu^2 - (2j - 1)^2) / (k! 8^k), summed while
    its terms decrease (below 1e-17 relative by x = 30)."""
    if x <= 30.0:
        q = 0.25 * x * x
        term = 1.0 if nu == 0 else 0.5 * x
        total, k = term, 0
        while term > 1e-17 * total:
            k += 1
            term *= q / (k * (k + nu))
            total += term
        return total * math.exp(-x)
    total, term, k = 1.0, 1.0, 0
    while True:
        k += 1
        nxt = -term * (4 * nu * nu - (2 * k - 1) ** 2) / (k * 8.0 * x)
        if abs(nxt) >= abs(term) or abs(nxt) < 1e-17 * abs(total):
            break
        term = nxt
        total += term
    return total / math.sqrt(2.0 * math.pi * x)


def i0e(x: float) -> float:
    """exp(-|x|) I0(x), scipy.special.i0e: even, 1 at 0, ~ 1/sqrt(2 pi |x|) for large |x|."""
    if math.isnan(x):
        return math.nan
    return 0.0 if math.isinf(x) else _bessel_ie(0, abs(x))


def i1e(x: float) -> float:
    """exp(-|x|) I1(x), odd."""
    if math.isnan(x):
        return math.nan
    if math.isinf(x):
        return math.copysign(0.0, x)
    return math.copysign(_bessel_ie(1, abs(x)), x)


# ---------------------------------------------------------------- SymPy functions

class _Special(sympy.Function):
    """A function stated by its `definition` (elementary SymPy) and its derivative `fdiff`."""

    @classmethod
    def definition(cls, *args):
        raise NotImplementedError

    def _eval_evalf(self, prec):
        return self.definition(*self.args).evalf(prec_to_dps(prec))


class Expit(_Special):
    nargs = 1

    @classmethod
    def definition(cls, x):
        return 1 / (1 + sympy.exp(-x))

    def fdiff(self, argindex=1):
        x = self.args[0]
        return Expit(x) * Expit(-x)  # e^-x / (1 + e^-x)^2, finite everywhere


class LogExpit(_Special):
    nargs = 1

    @classmethod
    def definition(cls, x):
        return -sympy.log(1 + sympy.exp(-x))

    def fdiff(self, argindex=1):
        return Expit(-self.args[0])


class LogNdtr(_Special):
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.log(sympy.erfc(-x / sympy.sqrt(2)) / 2)

    def fdiff(self, argindex=1):
        # phi(x) / Phi(x), as exp(log phi - log Phi): finite where both underflow (x = -1000)
        x = self.args[0]
        return sympy.exp(-x ** 2 / 2 - LogNdtr(x)) / sympy.sqrt(2 * sympy.pi)


class XLogY(_Special):
    nargs = 2

    @classmethod
    def definition(cls, x, y):
        return sympy.Piecewise((0, sympy.Eq(x, 0)), (x * sympy.log(y), True))

    def fdiff(self, argindex=1):
        x, y = self.args
        if argindex == 1:
            return sympy.log(y)
        # xlogy(0, y) = 0 for every y: the partial in y is 0 there, even at y = 0
        return sympy.Piecewise((0, sympy.Eq(x, 0)), (x / y, True))


class XLog1PY(_Special):
    nargs = 2

    @classmethod
    def definition(cls, x, y):
        return sympy.Piecewise((0, sympy.Eq(x, 0)), (x * sympy.log(1 + y), True))

    def fdiff(self, argindex=1):
        x, y = self.args
        if argindex == 1:
            return XLog1PY(1, y)  # log1p(y), kept accurate for small y
        return sympy.Piecewise((0, sympy.Eq(x, 0)), (x / (1 + y), True))


def _ordered(v):
    """True unless v is nan: every number is below 1 or above -1. (Two complementary comparisons
    SymPy would fold to True; and a comparison also in another condition, as v >= 0, would be a
    common subexpression, which the translation to core terms takes for a Float.)"""
    return (v < 1) | (v > -1)


def _sympy_log_ratio(x, y):
    """log(x / y) in the branches of the NumPy _log_ratio (SciPy's rel_entr): log1p as XLog1PY(1, t)."""
    r = x / y
    return sympy.Piecewise((XLog1PY(1, (x - y) / y), (r > sympy.Rational(1, 2)) & (r < 2)),
                           (sympy.log(r), (r > sympy.Float(_DBL_MIN)) & (r < sympy.oo)),
                           (sympy.log(x) - sympy.log(y), True))


class Entr(_Special):
    """entr(x) = -x log(x), 0 at 0, -inf below. Its derivative -log(x) - 1 is taken at 0 too,
    where it is inf (the limit from the right), and is 0 below 0, where entr is constant."""
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.Piecewise((-x * sympy.log(x), x > 0), (0, sympy.Eq(x, 0)), (-sympy.oo, True))

    def fdiff(self, argindex=1):
        x = self.args[0]
        return sympy.Piecewise((0, x < 0), (-sympy.log(x) - 1, True))


def _entropy_partial(inside, edge, x, y):
    """A partial of rel_entr or kl_div: `inside` where x > 0 and y > 0, `edge` where x == 0 and
    y >= 0, 0 elsewhere (the function is constantly inf there), and where x or y is nan `inside`
    again, which is nan there (a nan constant would not equal itself; its derivatives need not
    be: that of log(x / y) in y is -1 / y whatever x is)."""
    edges = () if edge == 0 else ((edge, sympy.Eq(x, 0) & (y >= 0)),)  # (0 merges into the next piece)
    return sympy.Piecewise((inside, (x > 0) & (y > 0)), *edges, (0, _ordered(x) & _ordered(y)), (inside, True))


class RelEntr(_Special):
    """rel_entr(x, y) = x log(x / y) for x, y > 0, 0 for x == 0 and y >= 0, inf elsewhere.
    Partials log(x / y) + 1 and -x / y; where x == 0 (and y >= 0) -inf in x, the limit of
    log(x / y) + 1 as x decreases to 0 (also taken at y = 0), and 0 in y, along which the
    function is 0 there."""
    nargs = 2

    @classmethod
    def definition(cls, x, y):
        return sympy.Piecewise((x * sympy.log(x / y), (x > 0) & (y > 0)), (0, sympy.Eq(x, 0) & (y >= 0)),
                               (sympy.oo, True))

    def fdiff(self, argindex=1):
        x, y = self.args
        if argindex == 1:
            return _entropy_partial(_sympy_log_ratio(x, y) + 1, -sympy.oo, x, y)
        return _entropy_partial(-x / y, 0, x, y)


class KLDiv(_Special):
    """kl_div(x, y) = x log(x / y) - x + y for x, y > 0, y for x == 0 and y >= 0, inf elsewhere.
    Partials log(x / y) and 1 - x / y (as (y - x) / y, exact where x is near y); where x == 0
    (and y >= 0) -inf in x, the limit as x decreases to 0 (also at y = 0), and 1 in y, along
    which the function is y there."""
    nargs = 2

    @classmethod
    def definition(cls, x, y):
        return sympy.Piecewise((x * sympy.log(x / y) - x + y, (x > 0) & (y > 0)), (y, sympy.Eq(x, 0) & (y >= 0)),
                               (sympy.oo, True))

    def fdiff(self, argindex=1):
        x, y = self.args
        if argindex == 1:
            return _entropy_partial(_sympy_log_ratio(x, y), -sympy.oo, x, y)
        return _entropy_partial((y - x) / y, 1, x, y)


class LogAddExp(_Special):
    nargs = 2

    @classmethod
    def definition(cls, x, y):
        return sympy.log(sympy.exp(x) + sympy.exp(y))

    def fdiff(self, argindex=1):
        x, y = self.args
        return Expit(x - y) if argindex == 1 else Expit(y - x)  # e^x / (e^x + e^y) without overflow


class LogAddExp2(_Special):
    nargs = 2

    @classmethod
    def definition(cls, x, y):
        return sympy.log(2 ** x + 2 ** y) / sympy.log(2)

    def fdiff(self, argindex=1):
        x, y = self.args
        d = x - y if argindex == 1 else y - x
        return Expit(sympy.log(2) * d)


class Cbrt(_Special):
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.sign(x) * sympy.Abs(x) ** sympy.Rational(1, 3)  # the real cube root

    def fdiff(self, argindex=1):
        return 1 / (3 * Cbrt(self.args[0]) ** 2)


class Hypot(_Special):
    nargs = 2

    @classmethod
    def definition(cls, x, y):
        return sympy.sqrt(x ** 2 + y ** 2)

    def fdiff(self, argindex=1):
        h = Hypot(*self.args)
        a = self.args[argindex - 1]
        # at the origin, where the cone has no tangent plane, 0 (as d|x| = sign(x) is 0 at 0)
        return sympy.Piecewise((0, sympy.Eq(h, 0)), (a / h, True))


class I0e(_Special):
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.exp(-sympy.Abs(x)) * sympy.besseli(0, x)

    def fdiff(self, argindex=1):
        x = self.args[0]
        return I1e(x) - sympy.sign(x) * I0e(x)  # I0' = I1


class I1e(_Special):
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.exp(-sympy.Abs(x)) * sympy.besseli(1, x)

    def fdiff(self, argindex=1):
        x = self.args[0]
        # I1' = I0 - I1 / x, whose limit at 0 is 1/2
        return sympy.Piecewise((sympy.Rational(1, 2), sympy.Eq(x, 0)), (I0e(x) - I1e(x) / x - sympy.sign(x) * I1e(x),
                                                                         True))


SYMPY_FUNCTIONS = (Expit, LogExpit, LogNdtr, XLogY, XLog1PY, Entr, RelEntr, KLDiv, LogAddExp, LogAddExp2, Cbrt, Hypot,
                   I0e, I1e)


# ---------------------------------------------------------------- piecewise-constant functions
# NumPy's trunc and rint have no SymPy function; these stand for them so that a derivative
# naming them (fmod's partial in y is -trunc(x/y)) translates back to the primitive. Their
# derivative is 0 (also at the jumps, the documented choice). Not in SYMPY_FUNCTIONS: the
# derivative of their floor-based definitions is a Derivative SymPy cannot evaluate.

class Trunc(_Special):
    """trunc(x) = sign(x) floor(|x|): x rounded towards 0."""
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.sign(x) * sympy.floor(sympy.Abs(x))

    def fdiff(self, argindex=1):
        return sympy.S.Zero


class Rint(_Special):
    """rint(x): x rounded to the nearest integer, halves to even (IEEE's default rounding)."""
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.floor(x + sympy.Rational(1, 2))  # differs from rint only at halves (evalf only)

    def fdiff(self, argindex=1):
        return sympy.S.Zero


class RoundDigits(_Special):
    """round(x, n) of Python's floats: x correctly rounded to n decimal digits (n a float here)."""
    nargs = 2

    @classmethod
    def definition(cls, x, n):
        return sympy.floor(x * 10 ** n + sympy.Rational(1, 2)) / 10 ** n  # (evalf only)

    def fdiff(self, argindex=1):
        return sympy.S.Zero


# ---------------------------------------------------------------- gamma, beta, erfinv, ndtri
# scipy.special's conventions at the edges; the values to a few ulps of SciPy's (its Cephes
# code is not ours: math.gamma and Newton steps on math.erf/erfc are).

_MAXGAM = 171.624376956302725  # Cephes' MAXGAM: Gamma overflows beyond it


def _gamma_sign(x: float) -> float:
    """The sign of Gamma(x) off its poles: negative on (-1, 0), (-3, -2), ..."""
    return -1.0 if x < 0.0 and math.floor(x) % 2 == 1 else 1.0


def gamma(x: float) -> float:
    """Gamma(x) as scipy.special.gamma: inf at +0 and inf, -inf at -0, nan at the negative
    integers and -inf, +-inf where it overflows; below -33 Cephes' reflection formula."""
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == 0.0:
        return math.copysign(math.inf, x)
    if x < 0.0 and x == math.floor(x):
        return math.nan
    if x > _MAXGAM:
        return math.inf
    if x < -33.0:  # Cephes' reflection: pi / (|q sin(pi z)| Gamma(q)), q = -x, z its distance to an integer
        q = -x
        z = q - math.floor(q)
        z = q * math.sin(math.pi * (z - 1.0 if z > 0.5 else z))
        g = math.gamma(q) if q <= _MAXGAM else math.inf
        return _gamma_sign(x) * (math.pi / (abs(z) * g))  # 0 where the product overflows, as Cephes'
    try:
        return math.gamma(x)
    except OverflowError:  # near 0: 1 / x overflows
        return _gamma_sign(x) * math.inf


def beta(a: float, b: float) -> float:
    """B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b) in Cephes' steps (scipy.special.beta): a pole
    argument by beta_negint; a much larger than b by lbeta_asymp; beyond Gamma's range exp of the
    log (betaln for positive arguments); else the Gammas divided in the order that keeps them
    finite (Gamma(a + b) at a pole is inf there, so B is 0)."""
    for p, q in ((a, b), (b, a)):
        if p <= 0.0 and (p == -math.inf or p == math.floor(p)):  # a pole of Gamma(p)
            if math.isfinite(p) and math.isfinite(q) and q == math.floor(q) and 1.0 - p - q > 0.0:
                return (1.0 if q % 2 == 0 else -1.0) * beta(1.0 - p - q, q)
            return math.inf
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if abs(a) < abs(b):
        a, b = b, a
    if abs(a) > 1e6 * abs(b) and a > 1e6:  # Cephes' lbeta_asymp: log Gamma(b) - b log a + O(1/a)
        r = gammaln(b) - b * math.log(a) + b * (1 - b) / (2 * a) + b * (1 - b) * (1 - 2 * b) / (12 * a * a) \
            - b * b * (1 - b) * (1 - b) / (12 * a * a * a)
        return _gamma_sign(b) * math.exp(r)
    s = a + b
    if abs(s) > _MAXGAM or abs(a) > _MAXGAM or abs(b) > _MAXGAM:
        if a > 0.0 and b > 0.0:
            return math.exp(betaln(a, b))
        return _gamma_sign(a) * _gamma_sign(b) * _gamma_sign(s) * math.exp(gammaln(a) + gammaln(b) - gammaln(s))
    gs, ga, gb = gamma(s), gamma(a), gamma(b)
    if gs == 0.0:
        return math.inf
    if math.isnan(gs):  # a + b a pole
        gs = math.inf
    if abs(abs(ga) - abs(gs)) > abs(abs(gb) - abs(gs)):
        return gb / gs * ga
    return ga / gs * gb


def _ndtri_tail(p: float) -> float:
    """Phi^-1(p) for 0 < p <= 1/4: Newton on log Phi(y) = log p (log Phi is concave, so the
    steps approach the root from one side), from Abramowitz and Stegun 26.2.23 (error < 4.5e-4)."""
    lp = math.log(p)
    t = math.sqrt(-2.0 * lp)
    y = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(50):
        lphi = -0.5 * y * y - _LOG_SQRT_2PI
        step = (log_ndtr(y) - lp) * math.exp(log_ndtr(y) - lphi)
        y -= step
        if abs(step) <= 1e-17 * abs(y):
            break
    return y


def _erfinv_small(x: float) -> float:
    """erfinv(x) for 0 <= x < 0.5: Newton on erf(y) = x (erf is concave for y >= 0), from the
    first two terms of the series sqrt(pi)/2 (x + pi x^3 / 12)."""
    y = 0.5 * math.sqrt(math.pi) * x * (1.0 + math.pi * x * x / 12.0)
    for _ in range(50):
        step = (math.erf(y) - x) * 0.5 * math.sqrt(math.pi) * math.exp(y * y)
        y -= step
        if abs(step) <= 1e-17 * abs(y):
            break
    return y


def ndtri(p: float) -> float:
    """Phi^-1(p), the standard normal quantile (scipy.special.ndtri): -inf at 0, inf at 1, nan
    outside [0, 1]; sqrt(2) erfinv(2 (p - 1/2)) in the middle (p - 1/2 exact there), the tail
    by Newton, and -Phi^-1(1 - p) above 3/4 (1 - p exact)."""
    if not 0.0 <= p <= 1.0:
        return math.nan
    if p == 0.0 or p == 1.0:
        return -math.inf if p == 0.0 else math.inf
    if p >= 0.75:
        return -_ndtri_tail(1.0 - p)
    if p <= 0.25:
        return _ndtri_tail(p)
    q = 2.0 * (p - 0.5)  # |q| < 1/2
    return math.copysign(math.sqrt(2.0) * _erfinv_small(abs(q)), q)


def erfinv(x: float) -> float:
    """erfinv(x) (scipy.special.erfinv): +-inf at +-1, nan outside [-1, 1]; Newton on erf below
    1/2, above it -Phi^-1((1 - x) / 2) / sqrt(2) ((1 - x) / 2 exact)."""
    if not -1.0 <= x <= 1.0:
        return math.nan
    if abs(x) == 1.0:
        return math.copysign(math.inf, x)
    if abs(x) < 0.5:
        return math.copysign(_erfinv_small(abs(x)), x)
    return math.copysign(-_ndtri_tail((1.0 - abs(x)) / 2.0) / math.sqrt(2.0), x)


class Ndtri(_Special):
    """Phi^-1(x) = sqrt(2) erfinv(2x - 1); d/dx = sqrt(2 pi) exp(Phi^-1(x)^2 / 2). Not in
    SYMPY_FUNCTIONS: its definition is complex outside (0, 1), where that test samples."""
    nargs = 1

    @classmethod
    def definition(cls, x):
        return sympy.sqrt(2) * sympy.erfinv(2 * x - 1)

    def fdiff(self, argindex=1):
        return sympy.sqrt(2 * sympy.pi) * sympy.exp(Ndtri(self.args[0]) ** 2 / 2)
