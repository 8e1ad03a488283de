"""A call of np.linalg.inv, solve or cholesky, of SciPy's cholesky or solve_triangular, of an SVD,
of math.fsum or of scipy.optimize.brentq whose result is never used still raises where Python
raises: their own code raises (a singular matrix's LinAlgError, fsum's ValueError of inf - inf),
which no check made before tests, and dead-code elimination dropped them, in the core program and
in the generated lines. catad returned a value where Python raises (the differential fuzzer's
B7: `s = np.linalg.inv(m)` then `s = 0.0`)."""
import math

import numpy as np
import pytest
import scipy.linalg
import scipy.optimize

import catad
from catad.lang.terms import FAILING
from catad.primitives.registry import PRIMITIVES
from located import agrees


def dead_inv(x):
    m = np.diag(x) + np.eye(len(x))
    s = np.linalg.inv(m)
    s = 0.0
    return np.sum(x * x) + s


def dead_solve(x):
    m = np.diag(x) + np.eye(len(x))
    s = np.linalg.solve(m, x)
    return np.sum(x * x)


def dead_cholesky(x):
    c = np.linalg.cholesky(np.outer(x, x) + np.diag(x))
    return np.sum(x * x)


def dead_scipy_cholesky(x):
    c = scipy.linalg.cholesky(np.outer(x, x) + np.diag(x))
    return np.sum(x * x)


def dead_solve_triangular(x):
    s = scipy.linalg.solve_triangular(np.diag(x + 1.0), x)
    return np.sum(x * x)


def dead_svd(x):
    u, s, vh = np.linalg.svd(np.outer(x, x) * np.log(x[0] + 2.0))
    return np.sum(x * x)


def dead_fsum(x):
    s = math.fsum(x * (1.0 / (x[0] + 1.0)))
    return np.sum(x * x)


def dead_brentq(x):
    r = scipy.optimize.brentq(lambda t: t * t + x[0] + 1.0, 0.0, 1.0)
    return np.sum(x * x)


def dead_inv_in_a_loop(x):
    m = np.diag(x) + np.eye(len(x))
    for k in range(2):
        s = np.linalg.inv(m * (k + 1.0))
    return np.sum(x * x)


def dead_inv_in_a_comprehension(x):
    m = np.diag(x) + np.eye(len(x))
    s = [np.linalg.inv(m * k) for k in range(1, 3)]
    return np.sum(x * x)


# (the function, an x where Python raises, an x where it gives a value)
CASES = [
    (dead_inv, [-1.0, 0.5], [0.5, 0.25]),
    (dead_solve, [-1.0, 2.0], [0.5, 2.0]),
    (dead_cholesky, [-1.0, 2.0], [1.0, 2.0]),
    (dead_scipy_cholesky, [-1.0, 2.0], [1.0, 2.0]),
    (dead_solve_triangular, [-1.0, 2.0], [0.5, 2.0]),
    (dead_svd, [-3.0, 2.0], [0.5, 2.0]),  # log of a negative number: a NaN, which the SVD rejects
    (dead_fsum, [-1.0, 2.0], [0.5, 2.0]),  # 1 / 0: inf and -inf, whose sum fsum rejects
    (dead_brentq, [0.5, 2.0], [-1.5, 2.0]),  # no root in [0, 1]: f(0) and f(1) have one sign
    (dead_inv_in_a_loop, [-1.0, 0.5], [0.5, 0.25]),
    (dead_inv_in_a_comprehension, [-1.0, 0.5], [0.5, 0.25]),
]
IDS = [f.__name__ for f, _, _ in CASES]


def python_raises(f, x) -> type:
    with np.errstate(all="ignore"):
        try:
            f(np.array(x))
        except Exception as e:
            return type(e)
    raise AssertionError(f"{f.__name__} gives a value at {x}")


@pytest.mark.parametrize("f, bad, good", CASES, ids=IDS)
@pytest.mark.parametrize("how", ["value_and_grad", "jvp", "hessian"])
def test_a_dead_call_that_raises_in_python_raises(f, bad, good, how):
    want = python_raises(f, bad)
    x = np.array(bad)
    with np.errstate(all="ignore"), pytest.raises(want):
        if how == "value_and_grad":
            catad.value_and_grad(f)(x)
        elif how == "jvp":
            catad.jvp(f, (x,), (np.ones_like(x),))
        else:
            catad.hessian(f)(x)


@pytest.mark.parametrize("f, bad, good", CASES, ids=IDS)
def test_where_it_does_not_raise_the_value_and_derivatives_are_pythons(f, bad, good):
    agrees(f, np.array(good))
    np.testing.assert_allclose(catad.hessian(f)(np.array(good)), 2.0 * np.eye(2), rtol=1e-12)


def dead_inv_in_a_branch(x):
    m = np.diag(x) + np.eye(len(x))
    if x[1] > 0:
        s = np.linalg.inv(m)
    else:
        s = 1.0
    return np.sum(x * x)


def test_a_dead_call_in_the_branch_not_taken_does_not_raise():
    x = np.array([-1.0, -0.5])  # singular, in the branch Python does not take
    assert dead_inv_in_a_branch(x) == 1.25
    agrees(dead_inv_in_a_branch, x)
    with pytest.raises(np.linalg.LinAlgError):
        catad.value_and_grad(dead_inv_in_a_branch)(np.array([-1.0, 0.5]))


def test_the_primitives_that_raise_are_those_kept():
    raising = {name for name, p in PRIMITIVES.items() if p.raises}
    assert {"inv", "solve", "cholesky", "sp_cholesky", "trisolve", "svd", "fsum", "brentq"} <= raising
    assert FAILING == raising | {"check"}


def dead_inv_in_a_dependent_loop(x):
    s = 0.0
    for i in range(len(x)):
        c = np.linalg.inv(np.eye(2) * x[i])
        s = s * s * 0.5 + x[i]
    return s


def dead_cholesky_in_a_branch_of_a_loop(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0:
            c = np.linalg.cholesky(np.eye(2) * (x[i] - 1.0))
        s = s * s * 0.5 + x[i]
    return s


@pytest.mark.parametrize("f, bad, goods", [
    (dead_inv_in_a_dependent_loop, [1.0, 0.0, 2.0], [[1.0, 3.0, 2.0], [2.0, 0.5]]),
    (dead_cholesky_in_a_branch_of_a_loop, [2.0, 0.5], [[2.0, -0.5], [-1.0, 3.0]]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_in_a_loop_only_the_iterations_python_runs_raise(f, bad, goods):
    with pytest.raises(python_raises(f, bad)):
        catad.value_and_grad(f)(np.array(bad))
    with pytest.raises(python_raises(f, bad)):
        catad.jvp(f, (np.array(bad),), (np.ones(len(bad)),))
    for good in goods:
        agrees(f, np.array(good))
