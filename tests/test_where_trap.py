"""No NaN or inf in a derivative from a branch that was not taken (JAX's `where` trap).

NumPy evaluates both branches of np.where, so the branch not taken may have an inf or NaN
partial derivative (sqrt or log at 0 and below, 1/x at 0, exp overflowing, lgamma at a
pole). The derivative programs multiply it by a tangent or cotangent that is exactly 0
there; catad's tangent products are 0 wherever the tangent is 0 (a linear map applied to
zero gives zero: catad.tangents.times), while products of primal values keep IEEE
semantics. The API runs the usual compiled program and, only when its tangent result is
not finite, the zero-safe one (catad.differentiate.derivative).

Every case is checked through every API (grad, value_and_grad, jvp, vjp, jacobian,
linearize and its transpose and matrix) against the reference evaluator on the derivative
programs, the linear-map oracle (the Jacobian's value by catad.linearmaps.semantics),
the CL evaluator (values) and central differences away from the kinks.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pytest
import scipy.special

import catad
from catad import api
from catad.backend import Compiled, runtime
from catad.pipeline import compiled, pipeline
from catad.lang.evaluate import Evaluator, evaluate
from catad.lang.terms import Const, Program
from catad.lang.types import Float, Vec
from catad.linearmaps import semantics as S
from catad.linearmaps import terms as L
from catad.primitives.registry import PRIMITIVES
from catad.tangents import ZERO, OneHot, tscale

INF, NAN = math.inf, math.nan


# ====================================================================== the cases

def sqrt_where(v):
    return np.sum(np.where(v > 0, np.sqrt(v), 0.0))


def sqrt_named_where(v):
    """The square roots computed for every element first, as a vector of their own (an
    operand written inline, as in sqrt_where, is fused into the where's element and is then
    computed only where it is taken)."""
    s = np.sqrt(v)
    return np.sum(np.where(v > 0, s, 0.0))


def log_named_where(v):
    s = np.log(v)
    return np.sum(np.where(v > 0, s, 0.0))


def sqrt_where_untaken_first(v):
    return np.sum(np.where(v <= 0, 0.0, np.sqrt(v)))


def log_where(v):
    return np.sum(np.where(v > 0, np.log(v), 0.0))


def log2_where(v):
    return np.sum(np.where(v > 0, np.log2(v), 0.0))


def log10_where(v):
    return np.sum(np.where(v > 0, np.log10(v), 0.0))


def reciprocal_where(v):
    return np.sum(np.where(v != 0, 1.0 / v, 0.0))


def power_half_where(v):
    return np.sum(np.where(v > 0, v ** 0.5, 0.0))


def power_minus_one_where(v):
    return np.sum(np.where(v != 0, v ** -1, 0.0))


def arcsin_where(v):
    return np.sum(np.where(np.abs(v) < 1, np.arcsin(v), 0.0))


def arccos_where(v):
    return np.sum(np.where(np.abs(v) < 1, np.arccos(v), 0.0))


def exp_overflow_where(x):
    return np.sum(np.where(x < 700, np.exp(x), 0.0))


def lgamma_at_poles(v):
    # scipy's gammaln is inf at the poles (Python's math.lgamma raises ValueError there, and so
    # does catad's)
    g = [scipy.special.gammaln(v[i]) for i in range(len(v))]
    return sum(g[i] if v[i] > 0 else 0.0 for i in range(len(v)))


def x_times_sqrt_y(x, y):
    return np.sum(np.where(y > 0, x * np.sqrt(y), 0.0))


def sqrt_x_times_y(x, y):
    return np.sum(np.where(x > 0, np.sqrt(x) * y, 0.0))


def divide_by_branch_value(x, y):
    return np.sum(np.where(y != 0, x / y, 0.0))


def nested_where(v):
    return np.sum(np.where(v > 0, np.where(v > 3, np.log(v - 3), np.sqrt(v)), 0.0))


def where_in_comprehension(m):
    return sum(np.sum(np.where(m[i] > 0, np.sqrt(m[i]), 0.0)) for i in range(len(m)))


def roots_in_comprehension(v):
    r = [np.sqrt(v[i]) for i in range(len(v))]
    return sum(r[i] if v[i] > 0 else 0.0 for i in range(len(v)))


def scalar_if_sqrt(x):
    s = np.sqrt(x)
    if x > 0:
        return s
    return 0.0


def scalar_if_log(x):
    y = np.log(x)
    if x <= 0:
        return 2.0 * x
    return y * y


def sqrt_where_vector(v):
    return np.where(v > 0, np.sqrt(v), 0.0)


def summed_product_einsum(m, x):
    """The cotangent of x sums sqrt(m) (NaN below 0, a vector of its own: see sqrt_named_where)
    times a cotangent that is 0 there: an einsum."""
    p = np.sqrt(m) * x
    return np.sum(np.where(m > 0, p, 0.0))


def ragged_where(v, w):
    """A ragged range (v[:i]): a masked einsum with a tangent operand."""
    return sum(sum(np.where(v[:i] > 0, np.sqrt(v[:i]), 0.0) * w[i]) for i in range(len(v)))


def sqrt_of_where(v):
    """The double-where idiom's first half: a tangent that np.where made 0 meets sqrt's inf
    derivative at 0 (forward mode)."""
    return np.sum(np.sqrt(np.where(v > 0, v, 0.0)))


def roots_of_where(x):
    y = x if x > 0 else 0.0
    return np.array([np.sqrt(y), 2.0 * np.sqrt(y), x])


@dataclass
class Case:
    fn: Callable
    args: tuple
    kinks: tuple = ()   # (argument, flat index) where fn is not differentiable: no central difference

    @property
    def name(self) -> str:
        return self.fn.__name__


V = np.array([-1.0, 4.0, 0.0, 2.5])           # below, inside, at the edge of sqrt's and log's domain
EINSUM_ARGS = (np.array([[1.0, -1.0, 4.0], [0.0, 9.0, -2.0]]), np.array([1.0, 2.0, 3.0]))
CASES = [
    Case(sqrt_where, (V,), ((0, 2),)),
    Case(sqrt_named_where, (V,), ((0, 2),)),
    Case(log_named_where, (V,), ((0, 2),)),
    Case(sqrt_where_untaken_first, (V,), ((0, 2),)),
    Case(log_where, (V,), ((0, 2),)),
    Case(log2_where, (V,), ((0, 2),)),
    Case(log10_where, (V,), ((0, 2),)),
    Case(reciprocal_where, (V,), ((0, 2),)),
    Case(power_half_where, (V,), ((0, 2),)),
    Case(power_minus_one_where, (V,), ((0, 2),)),
    Case(arcsin_where, (np.array([-2.0, 1.0, 0.5, 3.0, -1.0]),), ((0, 1), (0, 4))),
    Case(arccos_where, (np.array([-2.0, 1.0, 0.5, 3.0, -1.0]),), ((0, 1), (0, 4))),
    Case(exp_overflow_where, (np.array([1000.0, 1.0, 710.0]),)),
    Case(lgamma_at_poles, (np.array([-1.0, 0.0, 2.5, -2.0]),), ((0, 1),)),
    Case(x_times_sqrt_y, (np.array([2.0, 3.0, 5.0]), np.array([-1.0, 4.0, 0.0])), ((1, 2),)),
    Case(sqrt_x_times_y, (np.array([-1.0, 4.0, 0.0]), np.array([2.0, 3.0, 5.0])), ((0, 2),)),
    Case(divide_by_branch_value, (np.array([2.0, 3.0, 5.0]), np.array([0.0, 4.0, -2.0])), ((1, 0),)),
    Case(nested_where, (np.array([-1.0, 0.0, 2.0, 3.0, 5.0]),), ((0, 1), (0, 3))),
    Case(where_in_comprehension, (np.array([[1.0, -1.0, 0.0], [4.0, -4.0, 9.0]]),), ((0, 2),)),
    Case(roots_in_comprehension, (V,), ((0, 2),)),
    Case(scalar_if_sqrt, (0.0,), ((0, 0),)),
    Case(scalar_if_sqrt, (-1.0,)),
    Case(scalar_if_log, (0.0,), ((0, 0),)),
    Case(sqrt_where_vector, (V,), ((0, 2),)),
    Case(summed_product_einsum, EINSUM_ARGS, ((0, 3),)),
    Case(ragged_where, (V, np.array([1.0, 2.0, 3.0, 4.0])), ((0, 2),)),
    Case(sqrt_of_where, (V,), ((0, 2),)),
    Case(roots_of_where, (0.0,), ((0, 0),)),
    Case(roots_of_where, (-1.0,)),
]


def case_id(case: Case) -> str:
    return f"{case.name}{case.args[0] if np.ndim(case.args[0]) == 0 else ''}"


# ====================================================================== the references

def canonical(case: Case) -> tuple:
    params = api.to_core(case.fn, *case.args).main.params
    from catad.lang.types import coerce_value
    return tuple(coerce_value(a, p.type, p.name) for a, p in zip(case.args, params))


def run_def(d, *args) -> Any:
    """A linear-map-free derivative program by the reference evaluator."""
    return Evaluator(Program((d,), d.name)).call(d.name, args)


def context(vals: tuple) -> Any:
    return vals if len(vals) > 1 else vals[0]


def basis(template: Any) -> list:
    n = S.tangent_size(template)
    return [S.unflatten(np.eye(1, n, k)[0], template) for k in range(n)]


def reference_jacobian(case: Case, out: Any) -> tuple[np.ndarray, np.ndarray]:
    """(by rows: the reverse program on each basis cotangent, by columns: the forward
    program on each basis tangent), both by the reference evaluator."""
    vals = canonical(case)
    pl = pipeline(case.fn, *case.args)
    rows = [S.flatten(run_def(pl.reverse, *vals, ct)[1], context(vals)) for ct in basis(out)]
    cols = [S.flatten(run_def(pl.forward, *vals, *dx)[1], out)
            for dx in basis(vals)]
    return np.array(rows), np.array(cols).T


def oracle_jacobian(case: Case, out: Any) -> tuple[np.ndarray, np.ndarray]:
    """The Jacobian's linear-map value (catad.linearmaps.semantics): (to_matrix, the rows
    by apply_reverse)."""
    vals = canonical(case)
    lm = catad.linearize(case.fn, *case.args)[1].lm
    rows = [S.flatten(S.apply_reverse(lm, ct), context(vals)) for ct in basis(out)]
    return S.to_matrix(lm, context(vals), out), np.array(rows)


def central_differences(case: Case, out: Any, h: float = 1e-6) -> np.ndarray:
    """Columns of the Jacobian by central differences of fn's core program (the reference
    evaluator: np.sqrt(-1.0) is NaN there, as in NumPy; math.sqrt(-1.0) would raise, as in Python)."""
    vals = canonical(case)
    program = api.to_core(case.fn, *case.args)
    flat = S.flatten(vals, vals)
    cols = []
    for k in range(flat.size):
        step = np.eye(1, flat.size, k)[0] * h
        plus = evaluate(program, *S.unflatten(flat + step, vals))
        minus = evaluate(program, *S.unflatten(flat - step, vals))
        cols.append((S.flatten(plus, out) - S.flatten(minus, out)) / (2 * h))
    return np.array(cols).T


def flat_index(case: Case, arg: int, i: int) -> int:
    sizes = [S.tangent_size(v) for v in canonical(case)]
    return sum(sizes[:arg]) + i


def close(a, b) -> None:
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


# ====================================================================== every API, every reference

@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_no_nan_or_inf_from_a_branch_not_taken(case):
    vals = canonical(case)
    out = compiled(case.fn, case.args, "primal")(*vals)
    by_rows, by_cols = reference_jacobian(case, out)
    assert np.isfinite(by_rows).all(), f"reference evaluator, reverse program:\n{by_rows}"
    close(by_cols, by_rows)
    matrix, oracle_rows = oracle_jacobian(case, out)
    close(matrix, by_rows)
    close(oracle_rows, by_rows)
    expected = by_rows

    # central differences wherever fn is differentiable
    cd = central_differences(case, out)
    smooth = [k for k in range(expected.shape[1]) if k not in {flat_index(case, a, i) for a, i in case.kinks}]
    np.testing.assert_allclose(cd[:, smooth], expected[:, smooth], rtol=1e-5, atol=1e-6)

    # the value: NumPy's, the CL evaluator's
    cl_value = catad.eval_cl(catad.to_cl(case.fn, *case.args), *case.args)
    close(S.flatten(out, out), S.flatten(cl_value, out))

    argnums = tuple(range(len(vals)))
    jac = catad.jacobian(case.fn, argnums)(*case.args)
    close(np.hstack([np.reshape(j, (S.tangent_size(out), -1)) for j in jac]), expected)

    _, vjp_fn = catad.vjp(case.fn, *case.args)
    _, lm = catad.linearize(case.fn, *case.args)
    for k, ct in enumerate(basis(out)):
        close(S.flatten(vjp_fn(ct), vals), expected[k])
        close(S.flatten(lm.T(ct), vals), expected[k])
    for k, dx in enumerate(basis(vals)):
        close(S.flatten(catad.jvp(case.fn, vals, dx)[1], out), expected[:, k])
        close(S.flatten(lm(*dx), out), expected[:, k])
    close(lm.to_matrix(), expected)
    close(lm.T.to_matrix(), expected.T)

    if isinstance(out, float):
        close(S.flatten(catad.grad(case.fn, argnums)(*case.args), vals), expected[0])
        value, g = catad.value_and_grad(case.fn, argnums)(*case.args)
        assert value == out
        close(S.flatten(g, vals), expected[0])


# ====================================================================== what stays non-finite

def sqrt_or_sine(v):
    return np.sum(np.where(v >= 0, np.sqrt(v), 0.0) + np.sin(v))


def test_an_infinite_or_nan_derivative_in_a_taken_branch_is_still_reported():
    v = np.array([0.0, -1.0, 4.0, NAN])   # sqrt taken at 0 (inf), not taken at -1, NaN input
    expected = np.array([INF, math.cos(-1.0), 0.25 + math.cos(4.0), NAN])
    g = catad.grad(sqrt_or_sine)(v)
    np.testing.assert_array_equal(g, expected)
    value, g = catad.value_and_grad(sqrt_or_sine)(v)
    np.testing.assert_array_equal(g, expected)
    (ct,) = catad.vjp(sqrt_or_sine, v)[1](1.0)
    np.testing.assert_array_equal(ct, expected)
    np.testing.assert_array_equal(catad.jacobian(sqrt_or_sine)(v), expected)
    np.testing.assert_array_equal(catad.linearize(sqrt_or_sine, v)[1].to_matrix(), expected[None])
    # the reference evaluator agrees
    pl = pipeline(sqrt_or_sine, v)
    np.testing.assert_array_equal(run_def(pl.reverse, v, 1.0)[1], expected)
    # forward: the tangent along each axis
    for k in range(len(v)):
        np.testing.assert_array_equal(catad.jvp(sqrt_or_sine, (v,), (np.eye(len(v))[k],))[1], expected[k])


# ====================================================================== which variant runs

@pytest.fixture
def ran(monkeypatch):
    """(program name, zero_safe) of every compiled derivative program that runs."""
    calls = []
    original = Compiled.__call__

    def spy(self, *args):
        if not self.name.startswith(("rev$", "fwd$")):
            return original(self, *args)
        calls.append((self.name.split("$")[0], self.zero_safe))
        return original(self, *args)
    monkeypatch.setattr(Compiled, "__call__", spy)
    return calls


def test_the_usual_program_alone_runs_when_its_result_is_finite(ran):
    g = catad.grad(sqrt_where)(np.array([1.0, 4.0, 9.0]))
    close(g, [0.5, 0.25, 1 / 6])
    assert ran == [("rev", False)]
    ran.clear()
    catad.jvp(sqrt_where, (np.array([1.0, 4.0]),), (np.ones(2),))
    catad.vjp(sqrt_where, np.array([1.0, 4.0]))[1](1.0)
    assert ran == [("fwd", False), ("rev", False)]


def test_the_zero_safe_program_runs_after_the_usual_one_only_when_that_is_not_finite(ran):
    g = catad.grad(sqrt_named_where)(np.array([-1.0, 4.0]))
    close(g, [0.0, 0.25])
    assert ran == [("rev", False), ("rev", True)]
    ran.clear()
    catad.jvp(sqrt_of_where, (np.array([-1.0, 4.0]),), (np.ones(2),))
    assert ran == [("fwd", False), ("fwd", True)]


def log_of_overflowed(x):
    return np.log(np.exp(x) * 2.0) + x


def reciprocal_of_overflowed(x):
    return 1.0 / np.exp(x) + x


def test_where_the_value_overflowed_the_zero_safe_product_is_not_taken(ran):
    """log(exp(x) * 2) + x at 800: exp overflows, so the value is inf, and the cotangent of
    exp(x), 1 / (2 exp(x)), underflows to 0 beside exp's partial inf. Their product is truly 1
    (the gradient is 2), not the zero-safe 0 (which gave 1.0): the usual NaN stands, as JAX's.
    Where the value stays finite the function levels off past the overflow, and the zero-safe
    product's 0 is the limit (1 / exp(x) + x at 800: 1 - e^-800)."""
    value, g = catad.value_and_grad(log_of_overflowed)(800.0)
    with np.errstate(over="ignore"):
        assert value == INF == log_of_overflowed(800.0) and math.isnan(g)
    assert ran == [("rev", False)]
    assert math.isnan(catad.vjp(log_of_overflowed, 800.0)[1](1.0)[0])
    assert math.isnan(catad.grad(log_of_overflowed)(np.float64(800.0)))
    # below the overflow, the gradient is 2
    assert catad.grad(log_of_overflowed)(700.0) == pytest.approx(2.0)
    ran.clear()
    assert catad.value_and_grad(reciprocal_of_overflowed)(800.0) == (800.0, 1.0)
    assert ran == [("rev", False), ("rev", True)]


def overflowing(x):
    y = x * 1e200
    return y * 1e200 + x


def test_products_by_finite_constants_alone_make_one_code_for_both_variants(ran, monkeypatch):
    """A tangent times a finite constant (the derivatives of + and of * by a number) is 0
    wherever the tangent is 0 in either variant: the reverse program of overflowing, made of
    such products, does not ask which variant it writes, so where its result is not finite
    (inf: 1e200 * 1e200, of a finite value) the zero-safe variant is its code, not compiled a
    second time."""
    import catad.backend as backend
    compiles = []
    compile_one = backend._compile
    monkeypatch.setattr(backend, "_compile", lambda d, *a: compiles.append(d.name) or compile_one(d, *a))
    assert catad.value_and_grad(overflowing)(1e-300) == (overflowing(1e-300), INF)
    assert math.isfinite(overflowing(1e-300)) and INF == 1e200 * 1e200 + 1.0
    assert ran == [("rev", False), ("rev", True)]
    assert [name for name in compiles if name.startswith("rev$")] == ["rev$overflowing"]
    usual = compiled(overflowing, (2.0,), "reverse")
    safe = compiled(overflowing, (2.0,), "reverse", zero_safe=True)
    assert not usual.asked_zero_safe and safe.zero_safe and not usual.zero_safe
    assert safe.fn is usual.fn and "tmul0" not in safe.source
    where = compiled(sqrt_named_where, (np.array([-1.0, 4.0]),), "reverse")  # products by sqrt's partial
    assert where.asked_zero_safe
    assert compiled(sqrt_named_where, (np.array([-1.0, 4.0]),), "reverse", zero_safe=True).fn is not where.fn


def test_only_the_zero_safe_program_multiplies_tangents_zero_safely():
    m, x = EINSUM_ARGS
    usual = compiled(summed_product_einsum, (m, x), "reverse")
    safe = compiled(summed_product_einsum, (m, x), "reverse", zero_safe=True)
    assert not usual.zero_safe and safe.zero_safe
    assert "tmul0" not in usual.source and "zero=" not in usual.source
    assert "tmul0(" in safe.source
    assert "zero=(" in safe.source  # the cotangent of x: an einsum with a tangent operand
    assert compiled(summed_product_einsum, (m, x), "reverse", zero_safe=True) is safe  # cached


# ====================================================================== the pieces

def test_a_tangent_scaled_by_inf_or_nan_is_zero_where_it_is_zero():
    assert tscale(INF, 0.0) == 0.0 and tscale(NAN, 0.0) == 0.0
    np.testing.assert_array_equal(tscale(INF, np.array([0.0, 2.0, -1.0])), [0.0, INF, -INF])
    np.testing.assert_array_equal(tscale(np.float64(NAN), np.array([0.0, 1.0])), [0.0, NAN])
    one_hot = tscale(INF, OneHot(1, 0.0, 3))
    assert one_hot.value == 0.0 and one_hot.i == 1
    assert tscale(INF, ZERO) is ZERO
    assert tscale(0.0, INF) != tscale(0.0, INF)  # 0 * inf: the tangent is not 0, so NaN
    np.testing.assert_array_equal(tscale(-2.0, np.array([0.0, 1.0])), [-0.0, -2.0])  # finite: IEEE as it is
    tmul = PRIMITIVES["tmul"].impl
    np.testing.assert_array_equal(tmul(np.array([INF, NAN, 2.0]), np.array([0.0, 0.0, 3.0])), [0.0, 0.0, 6.0])
    assert math.isnan(PRIMITIVES["mul"].impl(INF, 0.0))  # a product of primal values: IEEE


def test_scaling_maps_applied_to_zero_give_zero():
    vf = Vec(Float)
    s = L.Scale(Const(INF, Float), vf)
    d = L.ScaleVec(Const(np.array([NAN, INF, 2.0]), vf))
    zeros = np.zeros(3)
    np.testing.assert_array_equal(S.apply(s, zeros), zeros)
    np.testing.assert_array_equal(S.apply_reverse(s, zeros), zeros)
    np.testing.assert_array_equal(S.apply(d, np.array([0.0, 0.0, 1.0])), [0.0, 0.0, 2.0])
    np.testing.assert_array_equal(S.apply_reverse(d, np.array([0.0, 1.0, 0.0])), [0.0, INF, 0.0])
    template = np.zeros(3)
    np.testing.assert_array_equal(S.to_matrix(s, template, template), np.diag([INF] * 3))
    np.testing.assert_array_equal(S.to_matrix(d, template, template), np.diag([NAN, INF, 2.0]))


def test_contract_drops_the_terms_whose_tangent_is_zero():
    coef = np.array([[INF, 1.0], [NAN, 2.0]])
    tangent = np.array([[0.0, 3.0], [0.0, 4.0]])
    close(runtime.contract("ab,ab->b", coef, tangent, zero=(1,)), [0.0, 11.0])
    close(runtime.contract("ab,ab->", coef, tangent, zero=(1,)), 11.0)
    close(runtime.contract(",ab->b", np.float64(2.0), tangent, zero=(1,)), [0.0, 14.0])  # a scalar operand
    assert np.isnan(runtime.contract("ab,ab->b", coef, tangent)[0])  # without zero=, IEEE
    mask = np.array([[True, True], [False, True]])
    close(runtime.contract("ab,ab,ab->b", mask, coef, np.ones((2, 2)) * tangent, where=(0,), zero=(2,)),
          [0.0, 11.0])
    assert math.isnan(runtime.contract("ab,ab->b", coef, np.ones((2, 2)), zero=(1,))[0])  # inf - nan: not 0
