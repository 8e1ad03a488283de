"""Ints beyond int64: catad computes Ints in int64, where Python's int is exact at any size and
NumPy's int64 wraps around. Where + - * ** of Ints written in the function could reach 2**63,
a check raises catad.RangeError (also an OverflowError) located at the operator instead of a
wrapped number (before: 3 ** 40 gave -6.3e18, silently); up to int64's limit the results are
Python's. A bound known while compiling needs no check, and a range variable's bound is read
outside its comprehension (int_range.py): i ** 30 over range(n) is checked once, for n - 1."""
import math

import numpy as np
import pytest

import catad
from catad import RangeError
from catad.errors import Site
from catad.pipeline import bind
from catad._node import walk
from catad.lang.terms import Build, Call, free_vars
from adbench import gmm
from located import agrees


def power_of_argument(x, n):
    return x * float(n ** 40)


def power_of_size(x):
    n = x.shape[0]
    return np.sum(x) * (n ** 40)


def factorial(x, n):
    k = 1
    for i in range(1, n + 1):
        k = k * i
    return x * k


def factorial_while(x, n):
    k, i = 1, 1
    while i <= n:
        k *= i
        i += 1
    return x * k


def squares_summed(x, n):
    return x * ((n * n) + (n * n))


def powers_in_lanes(v):
    return sum(v[i] * float(i ** 30) for i in range(v.shape[0]))


def product_of_sizes(x):
    n, d = x.shape
    return np.sum(x) * (n * d) ** 2


def int_array(x, v):
    return x * float(np.sum(v * 2 ** 61))  # NumPy's int64 arrays wrap around: so do catad's


@pytest.mark.parametrize("fn, args", [
    (power_of_argument, (2.0, 3)), (power_of_size, (np.ones(3),)), (factorial, (2.0, 21)),
    (factorial_while, (2.0, 21)),
    (squares_summed, (1.5, 2 ** 31)), (powers_in_lanes, (np.ones(6),)),
    (power_of_argument, (2.0, np.int64(3))),  # NumPy wraps around (with a warning): catad refuses
], ids=lambda v: getattr(v, "__name__", None))
def test_an_int_beyond_int64_raises(fn, args):
    with pytest.raises(RangeError, match="integer overflow") as e:
        catad.value_and_grad(fn)(*args)
    assert isinstance(e.value, OverflowError)
    assert e.value.loc.line > fn.__code__.co_firstlineno


@pytest.mark.parametrize("fn, args", [
    (power_of_argument, (2.0, 2)), (power_of_size, (np.ones(2),)), (factorial, (2.0, 20)),
    (factorial_while, (2.0, 20)),
    (squares_summed, (1.5, 2 ** 30)), (product_of_sizes, (np.ones((3, 4)),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_up_to_the_limit_the_results_are_python_s(fn, args):
    agrees(fn, *args)


def test_the_limit_is_python_s_int64():
    assert powers_in_lanes(np.ones(5)) == 4 ** 30 + 3 ** 30 + 2 ** 30 + 1  # 4 ** 30 < 2 ** 63 < 5 ** 30
    value, grad = catad.value_and_grad(powers_in_lanes)(np.ones(5))
    assert value == powers_in_lanes(np.ones(5)) and grad.tolist() == [float(i ** 30) for i in range(5)]
    assert catad.value_and_grad(factorial)(1.0, 20)[0] == math.factorial(20)  # 20! < 2 ** 63 < 21!


def test_int_arrays_keep_numpy_s_wrapping():
    v = np.array([1, 2, 3, 4])
    with np.errstate(all="ignore"):
        want = int_array(1.0, v)
    assert catad.value_and_grad(int_array)(1.0, v)[0] == want


def _range_checks(fn, *args) -> int:
    core = bind(fn, args).pipeline.core
    return sum(1 for d in core.defs for n in walk(d.body)
               if isinstance(getattr(n, "value", None), Site) and n.value.message.startswith("integer overflow"))


def index_arithmetic(v):
    n = v.shape[0]
    return sum(v[2 * i + 1] - v[n - 1 - i] for i in range(n // 2))


def loop_index_arithmetic(x):
    n = x.shape[0]
    out = np.zeros(2 * n)
    for i in range(n):
        out[2 * i] = x[i] * (i + 1)
        out[2 * i + 1] = x[i] * (n - i)
    return np.sum(out ** 2)


def test_bounds_known_while_compiling_need_no_check():
    assert _range_checks(index_arithmetic, np.ones(6)) == 0
    assert _range_checks(loop_index_arithmetic, np.ones(6)) == 0
    agrees(index_arithmetic, np.linspace(0.5, 2.0, 6))
    agrees(loop_index_arithmetic, np.linspace(0.5, 2.0, 6))
    # n * n of a plain Int is taken to fit (as n * d of two lengths); their sum is checked
    assert _range_checks(squares_summed, 1.0, 3) == 1


def gmm_args(d, k, n, rng=np.random.default_rng(3)):
    return (rng.uniform(-1, 1, k), rng.uniform(-1, 1, (k, d)), rng.uniform(-0.5, 0.5, (k, d)),
            rng.uniform(-1, 1, (k, gmm.tri(d))), rng.uniform(-1, 1, (n, d)), (1.3, 2))


def test_plain_products_are_not_checked():
    """GMM's index arithmetic: tri(n) = n * (n - 1) // 2 of lengths, n * d, n * p: no checks (a
    check in tri would make its calls fail for the loops' vectoriser, and cost at every call)."""
    for fn in (gmm.gmm_objective, gmm.gmm_objective_loops, gmm.qtimesx_loops):
        args = gmm_args(3, 2, 4) if fn is not gmm.qtimesx_loops else (np.ones(3), np.ones(3), np.ones(3))
        assert _range_checks(fn, *args) == 0, fn.__name__


def test_a_range_variable_is_checked_by_its_bounds():
    """i ** 30's check reads the range's bound, not i: the backend evaluates it once, not at
    every element."""
    core = bind(powers_in_lanes, (np.ones(4),)).pipeline.core
    checks = [(b.var, n) for d in core.defs for b in walk(d.body) if isinstance(b, Build) for n in walk(b.body)
              if isinstance(n, Call) and n.fn == "check"
              and any(isinstance(getattr(a, "value", None), Site) and a.value.message.startswith("integer overflow")
                      for a in n.args)]
    assert len(checks) == 1
    assert all(var not in free_vars(check.args[0]) for var, check in checks)


def sum_of_a_filled_array(x, n):
    return x * np.sum(np.full(3, n))


def dot_of_filled_arrays(x, n):
    return x * np.dot(np.full(3, n), np.full(3, 2))


def row_sums_of_a_filled_matrix(x, n):
    return x * np.sum(np.full((2, 3), n), axis=1)[0]


def sum_of_a_scaled_array(x, n):
    return x * np.sum(np.ones(3, dtype=np.int64) * n)


@pytest.mark.parametrize("fn", [sum_of_a_filled_array, dot_of_filled_arrays, row_sums_of_a_filled_matrix,
                                sum_of_a_scaled_array], ids=lambda f: f.__name__)
def test_int_array_sums_wrap_as_numpy_s(fn):
    """The sum of an Int array whose elements are one value is n times it, computed in int64 as
    NumPy's sum wraps around (it was a Python int, exact: 3 * 2**62; found by differential
    testing, trial 6)."""
    with np.errstate(over="ignore"):
        want = fn(0.5, 2 ** 62)
        assert catad.value_and_grad(fn)(0.5, 2 ** 62) == (want, want / 0.5)
        assert catad.value_and_grad(fn)(0.5, 5) == (fn(0.5, 5), fn(1.0, 5))
