"""Python's and NumPy's operators and math functions at the values where their semantics part
ways (infinities, NaN, signed zeros, poles, overflow): catad's value is the function's own, bit
for bit (the sign of a zero too), but for an ulp of rounding where catad computes with NumPy's loops
what Python computes with C's library (tanh, atan2, cosh: the two differ in their last bit), or
both raise. Each operation is checked on Python's floats, NumPy's scalars and NumPy's arrays, and
NumPy's reductions on vectors holding NaN, infinities, signed zeros, or nothing. A
grid like this one found 0.0 ** -inf, (-2.5) ** nan, (-inf) ** 0.5 and np.array ** 0.5 at -inf
and -0.0 computed otherwise."""
import math
import warnings

import numpy as np
import pytest

import catad

VALUES = [-math.inf, -2.5, -1.0, -0.0, 0.0, 0.5, 1.5, math.inf, math.nan]
GRID = np.array([(a, b) for a in VALUES for b in VALUES])

BINARY = {"add": "a + b", "sub": "a - b", "mul": "a * b", "div": "a / b", "floordiv": "a // b", "mod": "a % b",
          "pow": "a ** b", "divmod": "divmod(a, b)[0] + divmod(a, b)[1]", "max": "max(a, b)", "min": "min(a, b)",
          "np_power": "np.power(a, b)", "np_mod": "np.mod(a, b)", "np_floor_divide": "np.floor_divide(a, b)",
          "np_fmod": "np.fmod(a, b)", "np_maximum": "np.maximum(a, b)", "np_fmin": "np.fmin(a, b)",
          "np_arctan2": "np.arctan2(a, b)", "np_hypot": "np.hypot(a, b)", "np_copysign": "np.copysign(a, b)",
          "np_logaddexp": "np.logaddexp(a, b)", "np_divmod": "np.divmod(a, b)[0] + np.divmod(a, b)[1]",
          "math_fmod": "math.fmod(a, b)", "math_atan2": "math.atan2(a, b)", "math_hypot": "math.hypot(a, b)",
          "math_copysign": "math.copysign(a, b)", "math_pow": "math.pow(a, b)"}
UNARY = ["math.exp", "math.log", "math.sqrt", "math.sin", "math.tan", "math.asin", "math.acosh", "math.atanh",
         "math.log1p", "math.expm1", "math.tanh", "math.erf", "math.lgamma", "math.gamma", "math.cosh",
         "np.exp", "np.log", "np.sqrt", "np.arcsin", "np.arccosh", "np.log1p", "np.expm1", "np.tanh", "np.cbrt",
         "np.sign", "np.rint", "np.floor", "abs"]
# NumPy's maximum and fmin of arrays choose between -0.0 and 0.0 as its SIMD loops happen to (by the
# array's length): catad's is the first, np.where(a <= b, a, b) as NumPy's documentation has it
SIGNED_ZERO_TIES = {"np_maximum", "np_fmin"}

REDUCTIONS = ["np.sum", "np.prod", "np.max", "np.min", "np.mean", "np.std", "np.var", "np.argmax", "np.argmin",
              "np.median", "np.ptp", "np.nansum", "np.nanmean", "np.cumsum", "np.cumprod", "np.sort",
              "np.linalg.norm", "np.all", "np.any", "np.count_nonzero", "np.logaddexp.reduce", "np.diff",
              "np.average", "np.nan_to_num", "np.nanmax", "np.nanmin", "np.maximum.accumulate"]
# (NumPy's nanmax, nanmin and maximum.accumulate choose between -0.0 and 0.0 as its loops happen to)
ZERO_TIES = {"np.nanmax", "np.nanmin", "np.maximum.accumulate"}
VECTORS = [[1.0, math.nan, 2.0], [math.inf, -math.inf, 1.0], [-0.0, 0.0], [0.0, -0.0], [-0.0], [math.nan],
           [math.inf, math.inf], [-math.inf, 2.0, math.nan], [2.0, 1.0, 2.0], [], [1.0, -1.0, 0.5, math.inf]]

SOURCE = ["import math", "import numpy as np"]
for k, fn in enumerate(REDUCTIONS):
    SOURCE += [f"def r{k}(x, v):", f"    return {fn}(v)"]
for name, e in BINARY.items():
    SOURCE += [f"def py_{name}(x, a, b):", "    a, b = a + x * 0.0, b + x * 0.0", f"    return {e}",
               f"def np_{name}(x, v):", "    a, b = v[0], v[1]", f"    return {e}"]
    if not name.startswith("math_") and name not in ("max", "min", "divmod"):
        SOURCE += [f"def ar_{name}(x, a, b):", f"    return {e}"]
for k, fn in enumerate(UNARY):
    SOURCE += [f"def py_u{k}(x, a):", "    a = a + x * 0.0", f"    return {fn}(a)",
               f"def np_u{k}(x, v):", f"    return {fn}(v[0])"]
    if fn.startswith("np."):
        SOURCE += [f"def ar_u{k}(x, v):", f"    return {fn}(v)"]


@pytest.fixture(scope="module")
def functions(tmp_path_factory):
    path = tmp_path_factory.mktemp("special") / "special_values_functions.py"
    path.write_text("\n".join(SOURCE) + "\n")
    namespace = {"__name__": "special_values_functions"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace


def outcome(f, *args):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (NumPy's "All-NaN slice", "Mean of empty slice")
            return True, f(*args)
    except (ArithmeticError, ValueError):
        return False, None


def agree(want, got, zero_ties: bool = False) -> bool:
    w, g = np.asarray(want, dtype=float), np.asarray(got, dtype=float)
    if w.shape != g.shape:
        return False
    same = (w == g) & ((np.signbit(w) == np.signbit(g)) | zero_ties) | np.isnan(w) & np.isnan(g)
    same |= np.isclose(w, g, rtol=4e-16, atol=0.0) & (np.signbit(w) == np.signbit(g))  # (an ulp)
    return bool(np.all(same))


def check(f, args, zero_ties=False):
    ok, want = outcome(f, *args)
    try:
        got = catad.vjp(f, *args)[0]
    except catad.CatadError as e:
        assert not ok or "complex number" in str(e), (f.__name__, args, want, e)
        return
    assert ok, (f.__name__, args, "catad gave", got)
    assert agree(want, got, zero_ties), (f.__name__, args, want, got)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary(functions, name):
    for a, b in GRID:
        check(functions[f"py_{name}"], (0.0, float(a), float(b)))
        check(functions[f"np_{name}"], (0.0, np.array([a, b])))
    if f"ar_{name}" in functions:
        check(functions[f"ar_{name}"], (0.0, GRID[:, 0].copy(), GRID[:, 1].copy()), zero_ties=name in SIGNED_ZERO_TIES)


@pytest.mark.parametrize("k, fn", list(enumerate(UNARY)), ids=UNARY)
def test_unary(functions, k, fn):
    for a in VALUES + [710.0, 1e-310, -171.5]:
        check(functions[f"py_u{k}"], (0.0, a))
        check(functions[f"np_u{k}"], (0.0, np.array([a, 1.0])))
    if f"ar_u{k}" in functions:
        check(functions[f"ar_u{k}"], (0.0, np.array(VALUES + [710.0, 1e-310])))


@pytest.mark.parametrize("k, fn", list(enumerate(REDUCTIONS)), ids=REDUCTIONS)
def test_reductions(functions, k, fn):
    for v in VECTORS:
        check(functions[f"r{k}"], (0.0, np.array(v, dtype=float)), zero_ties=fn in ZERO_TIES)
