"""scipy.stats' univariate distributions as one table: a row per distribution (its shape
parameters, support, argument check) with a formula per method in SciPy's own words, and one
handler per method kind that wraps a formula in what SciPy's rv_continuous and rv_discrete do
around it (scipy/stats/_distn_infrastructure.py):

* ``dist.kind(x, *shapes, loc=0, scale=1)`` (``k, *shapes, loc=0`` for a discrete one), every
  argument by position or keyword, broadcast together as NumPy broadcasts;
* ``z = (x - loc) / scale``; nan where a parameter fails the distribution's check (shapes > 0 by
  default, ``scale > 0``) or z is nan (SciPy's badvalue);
* the formula where z is in the support (closed for densities and masses, with ``floor(k) == k``
  for a mass; open for cdf and sf), and outside it SciPy's constants: logpdf -inf, pdf 0; cdf 0
  below and 1 above (logcdf -inf and 0); sf 1 below and 0 above (logsf 0 and -inf);
* a density is divided by the scale (``log(scale)`` subtracted from a log-density); a mass is
  clipped to [0, 1];
* a distribution without a log-cdf (log-sf) of its own gets SciPy's generic one:
  ``log(cdf(z))`` below the median, ``log1p(-sf(z))`` from it on (and the mirror for logsf).

The formulas are SciPy 1.17's ``_logpdf``, ``_pdf``, ``_cdf``, ``_sf``, ... of each distribution,
so values are SciPy's (where SciPy calls a Boost kernel for beta's pdf and binom's and nbinom's
pmf, the exponential of the log-density, equal to rounding). A method that needs a special
function catad has not (gamma's cdf is gammainc, t's is stdtr, beta's betainc) is not a row, and
is refused as unsupported where it is called.

The handlers are rows of catad/frontend/special_calls.py's LIBRARY_HANDLERS (SciPy is never
imported here).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from ..lang.terms import Const, If, Term
from ..lang.types import Bool, Float
from ..primitives import prim
from .common import FALSE_

_INF = math.inf


# ------------------------------------------------------------ formulas as SciPy writes them

class _E:
    """A Float or Bool term inside a formula, whose operators make primitive calls at `loc`, so a
    row reads as SciPy's source does (``xlogy(a - 1.0, x) - x - gammaln(a)``)."""
    __slots__ = ("t", "loc")

    def __init__(self, t: Term, loc):
        self.t, self.loc = t, loc

    def _of(self, v) -> _E:
        return v if isinstance(v, _E) else _E(Const(float(v), Float), self.loc)

    def _call(self, name: str, *xs) -> _E:
        return _E(prim(name, *(self._of(x).t for x in xs), loc=self.loc), self.loc)

    def __add__(self, o): return self._call("add", self, o)
    def __radd__(self, o): return self._call("add", o, self)
    def __sub__(self, o): return self._call("sub", self, o)
    def __rsub__(self, o): return self._call("sub", o, self)
    def __mul__(self, o): return self._call("mul", self, o)
    def __rmul__(self, o): return self._call("mul", o, self)
    def __truediv__(self, o): return self._call("div", self, o)
    def __rtruediv__(self, o): return self._call("div", o, self)
    def __pow__(self, o): return self._call("pow", self, o)
    def __neg__(self): return self._call("neg", self)
    def __lt__(self, o): return self._call("lt", self, o)
    def __le__(self, o): return self._call("le", self, o)
    def __gt__(self, o): return self._call("gt", self, o)
    def __ge__(self, o): return self._call("ge", self, o)

    def eq(self, o): return self._call("eq", self, o)
    def ne(self, o): return self._call("ne", self, o)

    def __and__(self, o):  # a condition: the right side only where the left holds
        return _E(If(self.t, self._of(o).t, FALSE_, self.loc), self.loc)


def _fn(name: str) -> Callable[..., _E]:
    def f(*xs):
        e = next(x for x in xs if isinstance(x, _E))
        return e._call(name, *xs)
    f.__name__ = name
    return f


log, log1p, exp, expm1, sqrt, tan = (_fn(n) for n in ("log", "log1p", "exp", "expm1", "sqrt", "tan"))
xlogy, xlog1py, gammaln, betaln = (_fn(n) for n in ("xlogy", "xlog1py", "gammaln", "betaln"))
ndtr, log_ndtr, ndtri, erf, expit, log_expit = (_fn(n) for n in ("ndtr", "log_ndtr", "ndtri", "erf", "expit",
                                                                "log_expit"))
arctan2, absolute, floor, rint = (_fn(n) for n in ("atan2", "abs", "floor", "rint"))
arctan = _fn("atan")


def where(c: _E, a, b) -> _E:
    """SciPy's np.where / apply_where: a where c holds, else b (the other's derivative not taken)."""
    a, b = c._of(a), c._of(b)
    return _E(If(c.t, a.t, b.t, c.loc), c.loc)


def _const(e: _E, v: float) -> _E:
    return e._of(v)


# the constants as SciPy's module computes them
_LOG_PI = math.log(math.pi)
_NORM_PDF_C = math.sqrt(2 * math.pi)
_NORM_PDF_LOGC = math.log(math.sqrt(2 * math.pi))
_LOG_2_OVER_PI = math.log(2.0 / math.pi)


def _norm_logpdf(x): return -x ** 2 / 2.0 - _NORM_PDF_LOGC
def _norm_pdf(x): return exp(-x ** 2 / 2.0) / _NORM_PDF_C


def _t_logpdf(x, df):
    """Student's t: -betaln(df/2, 1/2) - log(df)/2 - (df+1)/2 log1p(x^2/df), SciPy's
    log(poch(df/2, 1/2)) - (log(df) + log(pi))/2 with the gammas as one betaln (which does not
    cancel for a large df); the normal's where df is inf (SciPy)."""
    t = -betaln(0.5 * df, _const(x, 0.5)) - 0.5 * log(df) - (df + 1.0) * 0.5 * log1p(x * x / df)
    return where(df.eq(_INF), _norm_logpdf(x), t)


def _t_pdf(x, df):
    return where(df.eq(_INF), _norm_pdf(x), exp(_t_logpdf(x, df)))


def _cauchy_logpdf(x):
    """SciPy's two forms: log1p(|x|^2) below 1, 2 log|x| + log1p(1/|x|^2) above (no overflow)."""
    a = absolute(x)
    return where(a < 1.0, -_LOG_PI - log1p(a ** 2.0),
                 -_LOG_PI - (2.0 * log(a) + log1p((1.0 / a) ** 2.0)))


def _lognorm_logpdf(x, s):
    return where(x.ne(0.0), -log(x) ** 2.0 / (2.0 * s ** 2.0) - log(s * x * _NORM_PDF_C), -_INF)


def _logistic_logpdf(x):
    y = -absolute(x)
    return y - 2.0 * log1p(exp(y))


def _laplace_cdf(x):
    return where(x > 0.0, 1.0 - 0.5 * exp(-x), 0.5 * exp(x))


def _weibull_logsf(x, c): return -(x ** c)


# ------------------------------------------------------------ the table

@dataclass(frozen=True)
class Dist:
    """A distribution's row: shape parameters, support [lower, upper] (a number, or a function
    of the shapes), SciPy's check of the shapes (default: every one > 0), the formulas by method
    (of the standardised z and the shapes), the median (of the shapes) where SciPy's generic
    logcdf or logsf needs it, and whether it is discrete (k, loc; no scale)."""
    shapes: tuple[str, ...]
    lower: float | Callable
    upper: float | Callable
    methods: dict[str, Callable] = field(default_factory=dict)
    argcheck: Callable | None = None
    median: Callable | None = None
    discrete: bool = False
    open_density: bool = False  # SciPy's _support_mask is the open one (lognorm, invgamma)


def _generic_logs(d: Dist) -> Dist:
    """SciPy's rv_continuous._logcdf and _logsf where the row has none: log of cdf (sf) on one side
    of the median, log1p of minus the other on the other side; log of pdf for a missing logpdf."""
    m = dict(d.methods)
    cdf, sf = m.get("cdf"), m.get("sf")
    if sf is None and cdf is not None:  # rv_continuous._sf
        sf = m["sf"] = lambda x, *s: 1.0 - cdf(x, *s)
    if "logpdf" not in m and "pdf" in m:
        m["logpdf"] = lambda x, *s: log(d.methods["pdf"](x, *s))
    if cdf is not None and d.median is not None:
        if "logcdf" not in m:
            m["logcdf"] = lambda x, *s: where(x < d.median(x, *s), log(cdf(x, *s)), log1p(-sf(x, *s)))
        if "logsf" not in m:
            m["logsf"] = lambda x, *s: where(x > d.median(x, *s), log(sf(x, *s)), log1p(-cdf(x, *s)))
    return Dist(d.shapes, d.lower, d.upper, m, d.argcheck, d.median, d.discrete, d.open_density)


def _exp_of(logpdf):
    return lambda x, *s: exp(logpdf(x, *s))


def _table() -> dict[str, Dist]:
    rows = {
        "norm": Dist((), -_INF, _INF, {
            "logpdf": _norm_logpdf, "pdf": _norm_pdf, "cdf": ndtr, "logcdf": log_ndtr,
            "sf": lambda x: ndtr(-x), "logsf": lambda x: log_ndtr(-x)}),
        "t": Dist(("df",), -_INF, _INF, {"logpdf": _t_logpdf, "pdf": _t_pdf}),
        "halfcauchy": Dist((), 0.0, _INF, {
            "logpdf": lambda x: _LOG_2_OVER_PI - log1p(x * x), "pdf": lambda x: 2.0 / math.pi / (1.0 + x * x),
            "cdf": lambda x: 2.0 / math.pi * arctan(x), "sf": lambda x: 2.0 / math.pi * arctan2(_const(x, 1.0), x)},
            median=lambda x: tan(_const(x, math.pi / 2 * 0.5))),
        "gamma": Dist(("a",), 0.0, _INF, {
            "logpdf": lambda x, a: xlogy(a - 1.0, x) - x - gammaln(a),
            "pdf": lambda x, a: exp(xlogy(a - 1.0, x) - x - gammaln(a))}),
        "beta": Dist(("a", "b"), 0.0, 1.0, {
            "logpdf": lambda x, a, b: xlog1py(b - 1.0, -x) + xlogy(a - 1.0, x) - betaln(a, b),
            "pdf": lambda x, a, b: exp(xlog1py(b - 1.0, -x) + xlogy(a - 1.0, x) - betaln(a, b))}),
        "expon": Dist((), 0.0, _INF, {
            "logpdf": lambda x: -x, "pdf": lambda x: exp(-x), "cdf": lambda x: -expm1(-x),
            "sf": lambda x: exp(-x), "logsf": lambda x: -x},
            median=lambda x: -log1p(_const(x, -0.5))),
        "lognorm": Dist(("s",), 0.0, _INF, {
            "logpdf": _lognorm_logpdf, "pdf": _exp_of(_lognorm_logpdf),
            "cdf": lambda x, s: ndtr(log(x) / s), "logcdf": lambda x, s: log_ndtr(log(x) / s),
            "sf": lambda x, s: ndtr(-(log(x) / s)), "logsf": lambda x, s: log_ndtr(-(log(x) / s))},
            open_density=True),
        "laplace": Dist((), -_INF, _INF, {
            "pdf": lambda x: 0.5 * exp(-absolute(x)), "cdf": _laplace_cdf, "sf": lambda x: _laplace_cdf(-x)},
            median=lambda x: log(_const(x, 2 * 0.5))),
        "cauchy": Dist((), -_INF, _INF, {
            "logpdf": _cauchy_logpdf, "pdf": lambda x: 1.0 / math.pi / (1.0 + x * x),
            "cdf": lambda x: arctan2(_const(x, 1.0), -x) / math.pi,
            "sf": lambda x: arctan2(_const(x, 1.0), x) / math.pi},
            median=lambda x: _const(x, 0.0)),  # SciPy's _cauchy_ppf(0.5, 0, 1)
        "logistic": Dist((), -_INF, _INF, {
            "logpdf": _logistic_logpdf, "pdf": _exp_of(_logistic_logpdf), "cdf": expit, "logcdf": log_expit,
            "sf": lambda x: expit(-x), "logsf": lambda x: log_expit(-x)}),
        "uniform": Dist((), 0.0, 1.0, {"pdf": lambda x: _const(x, 1.0), "cdf": lambda x: x},
                        median=lambda x: _const(x, 0.5)),
        "chi2": Dist(("df",), 0.0, _INF, {
            "logpdf": lambda x, df: xlogy(df / 2.0 - 1, x) - x / 2.0 - gammaln(df / 2.0) - (math.log(2) * df) / 2.0,
            "pdf": lambda x, df: exp(xlogy(df / 2.0 - 1, x) - x / 2.0 - gammaln(df / 2.0)
                                     - (math.log(2) * df) / 2.0)}),
        "invgamma": Dist(("a",), 0.0, _INF, {
            "logpdf": lambda x, a: -(a + 1.0) * log(x) - gammaln(a) - 1.0 / x,
            "pdf": lambda x, a: exp(-(a + 1.0) * log(x) - gammaln(a) - 1.0 / x)}, open_density=True),
        "halfnorm": Dist((), 0.0, _INF, {
            "logpdf": lambda x: 0.5 * math.log(2.0 / math.pi) - x * x / 2.0,
            "pdf": lambda x: math.sqrt(2.0 / math.pi) * exp(-x * x / 2.0),
            "cdf": lambda x: erf(x / math.sqrt(2)), "sf": lambda x: 2.0 * ndtr(-x)},
            median=lambda x: ndtri(_const(x, (1 + 0.5) / 2.0))),
        "weibull_min": Dist(("c",), 0.0, _INF, {
            "logpdf": lambda x, c: log(c) + xlogy(c - 1.0, x) - x ** c,
            "pdf": lambda x, c: c * x ** (c - 1.0) * exp(-(x ** c)),
            "cdf": lambda x, c: -expm1(-(x ** c)), "sf": lambda x, c: exp(_weibull_logsf(x, c)),
            "logsf": _weibull_logsf},
            median=lambda x, c: (-log1p(_const(x, -0.5))) ** (1.0 / c)),
        # discrete: k, the shapes, loc
        "poisson": Dist(("mu",), 0.0, _INF, {
            "logpmf": lambda k, mu: xlogy(k, mu) - gammaln(k + 1.0) - mu,
            "pmf": lambda k, mu: exp(xlogy(k, mu) - gammaln(k + 1.0) - mu)},
            argcheck=lambda mu: mu >= 0.0, discrete=True),
        "binom": Dist(("n", "p"), 0.0, lambda n, p: n, {"logpmf": _binom_logpmf, "pmf": _exp_of(_binom_logpmf)},
                      argcheck=lambda n, p: (n >= 0.0) & n.eq(rint(n)) & (p >= 0.0) & (p <= 1.0), discrete=True),
        "nbinom": Dist(("n", "p"), 0.0, _INF, {"logpmf": _nbinom_logpmf, "pmf": _exp_of(_nbinom_logpmf)},
                       argcheck=lambda n, p: (n > 0.0) & (p > 0.0) & (p <= 1.0), discrete=True),
        "geom": Dist(("p",), 1.0, _INF, {
            "logpmf": lambda k, p: xlog1py(k - 1.0, -p) + log(p),
            "pmf": lambda k, p: (1.0 - p) ** (k - 1.0) * p},
            argcheck=lambda p: (p <= 1.0) & (p > 0.0), discrete=True),
    }
    return {name: _generic_logs(d) for name, d in rows.items()}


def _binom_logpmf(x, n, p):
    k = floor(x)
    return gammaln(n + 1.0) - (gammaln(k + 1.0) + gammaln(n - k + 1.0)) + xlogy(k, p) + xlog1py(n - k, -p)


def _nbinom_logpmf(x, n, p):
    return gammaln(n + x) - gammaln(x + 1.0) - gammaln(n) + n * log(p) + xlog1py(x, -p)


DISTRIBUTIONS = _table()


# ------------------------------------------------------------ SciPy's wrapping of a formula

# kind -> (the support it tests: "closed" or "open", value below the support, value above it)
_OUTSIDE = {"logpdf": ("closed", -_INF, -_INF), "pdf": ("closed", 0.0, 0.0),
            "logpmf": ("closed", -_INF, -_INF), "pmf": ("closed", 0.0, 0.0),
            "cdf": ("open", 0.0, 1.0), "logcdf": ("open", -_INF, 0.0),
            "sf": ("open", 1.0, 0.0), "logsf": ("open", 0.0, -_INF)}


def _bound(b, z: _E, shapes) -> _E | None:
    """A support bound as a term (None for an infinite one)."""
    if callable(b):
        return b(*shapes)
    return None if math.isinf(b) else _const(z, b)


def _wrapped(d: Dist, kind: str, z: _E, shapes: list[_E], scale: _E | None) -> _E:
    """SciPy's method around the formula: the formula in the support, its constants outside,
    nan for bad parameters or a nan z."""
    value = d.methods[kind](z, *shapes)
    if scale is not None and kind == "logpdf":
        value = value - log(scale)
    elif scale is not None and kind == "pdf":
        value = value / scale
    elif kind == "pmf":  # np.clip(pmf, 0, 1)
        value = _E(prim("min", prim("max", value.t, Const(0.0, Float), loc=z.loc), Const(1.0, Float), loc=z.loc),
                   z.loc)
    support, below, above = _OUTSIDE[kind]  # an infinite bound is not tested: nan is, below
    lo, hi = _bound(d.lower, z, shapes), _bound(d.upper, z, shapes)
    if support == "closed":
        cond = _inside(z, lo, hi, d.open_density)
        if d.discrete:  # rv_discrete._nonzero
            whole = floor(z).eq(z)
            cond = whole if cond is None else cond & whole
        out = value if cond is None else where(cond, value, below)
    else:  # open support, then SciPy's cond2: at or past the upper (cdf) or lower (sf) end
        at_end = z >= _or_inf(z, hi, _INF) if kind in ("cdf", "logcdf") else z <= _or_inf(z, lo, -_INF)
        edge = where(at_end, above, below) if kind in ("cdf", "logcdf") else where(at_end, below, above)
        out = where(_inside(z, lo, hi, True), value, edge)
    out = where(z.ne(z), math.nan, out)
    good = d.argcheck(*shapes) if d.argcheck is not None else _all_positive(shapes, z)
    if scale is not None and not _positive_const(scale):
        good = scale > 0.0 if good is None else good & (scale > 0.0)
    return out if good is None else where(good, out, math.nan)


def _or_inf(z: _E, b: _E | None, inf: float) -> _E:
    return _const(z, inf) if b is None else b


def _inside(z: _E, lo: _E | None, hi: _E | None, open_: bool) -> _E | None:
    """SciPy's _support_mask (lo <= z <= hi; None where both bounds are infinite: nan is tested
    apart) or _open_support_mask (lo < z < hi, which an infinite z fails)."""
    if open_:
        return (z > _or_inf(z, lo, -_INF)) & (z < _or_inf(z, hi, _INF))
    tests = [c for c in (None if lo is None else z >= lo, None if hi is None else z <= hi) if c is not None]
    return None if not tests else tests[0] if len(tests) == 1 else tests[0] & tests[1]


def _positive_const(e: _E) -> bool:
    return isinstance(e.t, Const) and e.t.value > 0


def _all_positive(shapes: list[_E], z: _E) -> _E | None:
    """rv_generic._argcheck: every shape parameter > 0 (a constant known positive is not tested)."""
    good = None
    for s in shapes:
        if not _positive_const(s):
            good = s > 0.0 if good is None else good & (s > 0.0)
    return good


def _handler(dist: str, kind: str):
    d = DISTRIBUTIONS[dist]
    first = "k" if d.discrete else "x"
    names = (first,) + d.shapes + (("loc",) if d.discrete else ("loc", "scale"))

    def h(lw, obj, node, args, kwargs):
        """A scipy.stats distribution's method: its formula at (x - loc) / scale in SciPy's wrapping."""
        from .special_calls import _floats, _map, _none, _params
        name = f"scipy.stats.{dist}.{kind}"
        given = _params(lw, name, node, args, kwargs, names, 1 + len(d.shapes))
        loc = lw.loc(node)
        ts = [_floats(lw, name, node, a) if i <= len(d.shapes) or not _none(a) else None
              for i, a in enumerate(given)]
        n = len(d.shapes)

        def f(x, *rest):
            shapes, m = rest[:n], rest[n]
            s = None if d.discrete else rest[n + 1]
            z = x if m is None else prim("sub", x, m, loc=loc)
            z = z if s is None else prim("div", z, s, loc=loc)
            return lw.b.share(z, lambda z: _wrapped(d, kind, _E(z, loc), [_E(t, loc) for t in shapes],
                                                    None if s is None else _E(s, loc)).t, loc)
        return _map(lw, f, ts, loc, name)
    h.__doc__ = f"scipy.stats.{dist}.{kind}({', '.join(names)}): SciPy's formula in its wrapping (scipy_stats.py)"
    return h, names


LIBRARY_HANDLERS: dict[str, tuple] = {
    f"scipy.stats.{dist}.{kind}": _handler(dist, kind)
    for dist, d in DISTRIBUTIONS.items() for kind in d.methods}
