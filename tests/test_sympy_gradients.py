"""catad's gradients against SymPy: ``sympy.diff`` of the expression ``catad.to_sympy``
exports, evaluated at the point, for every scalar corpus case (float output, only float
and int scalar arguments) and for a selection of array cases (arrays become arrays of
symbols ``v_0, v_1, ...``)."""
import numpy as np
import pytest
import sympy

import catad
from corpus import CASE_BY_NAME, CASES

RTOL = 1e-10


def _scalar_only(case):
    args = case.make_args(np.random.default_rng(0))
    return all(type(a) in (float, int) for a in args)


SCALAR_CASES = [c for c in CASES if "scalar" in c.tags and c.float_output and c.differentiable_argnums
                and _scalar_only(c)]

ARRAY_CASES = ["helper_two_types", "gaussian_log_likelihood", "polyval", "cosine_similarity", "rosenbrock",
               "logsumexp", "sum_forms", "triangular_sum", "numpy_reductions", "module_constants",
               "nested_comprehension_trace", "comprehension_over_elements", "softmax_cross_entropy",
               "shape_unpack", "indexing", "max_min_vector", "filtered_sums", "maximum_where", "mlp_loss",
               "logistic_regression_loss", "tuple_argument"]


def _d(expr, sym):
    """d expr / d sym; floor and ceiling are locally constant (points keep a margin from integers)."""
    d = sympy.diff(expr, sym)
    return d.replace(lambda e: isinstance(e, sympy.Derivative) and isinstance(e.expr, (sympy.floor, sympy.ceiling)),
                     lambda e: sympy.S.Zero)


def _flatten(syms, args):
    """[(symbol, value, (argument position, index in that argument or None))] for every float symbol."""
    out = []
    for k, (s, a) in enumerate(zip(syms, args)):
        if isinstance(s, sympy.Symbol):
            out.append((s, a, (k, None)))
        elif isinstance(s, np.ndarray):
            for idx in np.ndindex(s.shape):
                out.append((s[idx], float(np.asarray(a)[idx]), (k, idx)))
        elif isinstance(s, tuple):
            for j, (ss, aa) in enumerate(zip(s, a)):
                if isinstance(ss, sympy.Symbol):
                    out.append((ss, aa, (k, j)))
    return out


def _catad_entry(grads, nums, where):
    k, idx = where
    g = grads[nums.index(k)]
    return g if idx is None else g[idx]


def _check(case, seed):
    args = case.make_args(np.random.default_rng(seed))
    expr, syms = catad.to_sympy(case.fn, *args)
    assert isinstance(syms, tuple) and len(syms) == len(args)
    flat = _flatten(syms, args)
    at = {s: sympy.Float(v, 30) for s, v, _ in flat}  # the exact binary values, carried at 30 digits
    value = float(expr.xreplace(at).evalf(30))
    assert value == pytest.approx(case.fn(*args), rel=1e-10, abs=1e-10)
    nums = tuple(sorted({where[0] for _, _, where in flat}))
    grads = catad.grad(case.fn, argnums=nums)(*args)
    for s, _, where in flat:
        expected = float(_d(expr, s).xreplace(at).evalf(30))
        got = _catad_entry(grads, nums, where)
        assert got == pytest.approx(expected, rel=RTOL, abs=RTOL), (str(s), got, expected)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("case", SCALAR_CASES, ids=lambda c: c.name)
def test_scalar_case_gradient_equals_sympy_diff(case, seed):
    _check(case, seed)


def test_every_scalar_case_is_covered():
    names = {c.name for c in SCALAR_CASES}
    assert {"notes_f2", "seed000_fig1", "scalar_arithmetic", "piecewise", "math_functions",
            "special_functions", "max_min_scalars", "helper_chain", "if_join"} <= names
    assert len(names) >= 20


@pytest.mark.parametrize("name", ARRAY_CASES)
def test_array_case_gradient_equals_sympy_diff(name):
    _check(CASE_BY_NAME[name], 0)


def if_join_two_variables(x, y):
    if x > y:
        a = x
        b = y * 2.0
    else:
        a = y
        b = x * 3.0
    return a * b


def conditional_tuple(x, y):
    a, b = (x, y) if x > y else (y, x)
    return a * b


@pytest.mark.parametrize("fn", [if_join_two_variables, conditional_tuple])
def test_to_sympy_of_an_if_joining_two_variables(fn):
    expr, (x, y) = catad.to_sympy(fn, 1.0, 0.5)
    at = {x: 1.0, y: 0.5}
    gx, gy = catad.grad(fn, argnums=(0, 1))(1.0, 0.5)
    assert float(sympy.diff(expr, x).subs(at)) == pytest.approx(gx)
    assert float(sympy.diff(expr, y).subs(at)) == pytest.approx(gy)
