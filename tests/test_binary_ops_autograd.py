"""autograd's binary-operator gradient checks, rewritten for catad (issue 13, item 6).

The cases (operators, argument shapes, input ranges) follow HIPS/autograd at commit
bff107b8d71a444a1160deade3e1cbd0b92f4fa6:

- tests/test_binary_ops.py: every pair of a scalar, a vector (4,), a matrix (3, 4) and a
  row (1, 4) under x * y, x + y, x - y, x / y (both away from 0), x % y (not with the
  same argument twice), x ** y (positive base), arctan2, and the comparisons, whose
  gradient is zero and whose value is NumPy's;
- tests/test_systematic.py with tests/numpy_utils.py (binary_ufunc_check): every pair of
  a scalar, (2,), (3, 2) and (1, 2) drawn from given ranges, for add, true_divide (divisor
  in [0.8, 1.2] and in [-2, -0.3]), remainder and mod (positive and negative divisors),
  and operator mul, add, sub;
- tests/test_numpy.py: np.maximum with tied arguments, broadcast (3,) against (2, 3).

autograd's check_grads compares forward and reverse mode with numerical differences, to
second order; here tests/shape_oracle.py compares catad's value with NumPy's and its
grad / vjp / jacobian / jvp with central differences of the same function, to first
order (catad's grad does not nest).

Left out, because catad does not support them (docs/subset.rst lists what it calls):
np.hypot, np.logaddexp, np.logaddexp2, np.remainder and np.mod as functions (the %
operator is used instead), complex inputs, and summing a bool array (np.sum(x < y) is
written np.sum(np.where(x < y, 1.0, 0.0))).
"""
import itertools

import numpy as np
import pytest

import catad
from shape_oracle import check_like_numpy


# ---------------------------------------------------------------- tests/test_binary_ops.py

_rs = np.random.RandomState(0)
AG_ARGS = {"scalar": 2.0, "vector": _rs.randn(4), "mat": _rs.randn(3, 4), "mat2": _rs.randn(1, 4)}
AG_PAIRS = list(itertools.product(AG_ARGS, AG_ARGS))


def gap_from_zero(x):
    return np.sqrt(np.asarray(x) ** 2 + 0.5) if np.ndim(x) else float(np.sqrt(x ** 2 + 0.5))


def make_positive(x):
    return np.abs(x) + 1.1 if np.ndim(x) else abs(x) + 1.1


def mul(x, y):
    return x * y


def add(x, y):
    return x + y


def sub(x, y):
    return x - y


def div(x, y):
    return x / y


def mod(x, y):
    return x % y


def power_op(x, y):
    return x ** y


def power_fn(x, y):
    return np.power(x, y)


def arctan2(x, y):
    return np.arctan2(x, y)


def atan2(x, y):
    return np.atan2(x, y)


def pair_id(pair):
    return "-".join(pair)


@pytest.mark.parametrize("pair", AG_PAIRS, ids=pair_id)
@pytest.mark.parametrize("fn", [mul, add, sub], ids=lambda f: f.__name__)
def test_mul_add_sub(fn, pair):
    check_like_numpy(fn, AG_ARGS[pair[0]], AG_ARGS[pair[1]])


@pytest.mark.parametrize("pair", AG_PAIRS, ids=pair_id)
def test_div(pair):
    check_like_numpy(div, gap_from_zero(AG_ARGS[pair[0]]), gap_from_zero(AG_ARGS[pair[1]]))


@pytest.mark.parametrize("pair", [p for p in AG_PAIRS if p[0] != p[1]], ids=pair_id)
def test_mod(pair):
    """autograd skips x % x, where the gradient is undefined."""
    check_like_numpy(mod, gap_from_zero(AG_ARGS[pair[0]]), gap_from_zero(AG_ARGS[pair[1]]))


@pytest.mark.parametrize("pair", AG_PAIRS, ids=pair_id)
@pytest.mark.parametrize("fn", [power_op, power_fn], ids=lambda f: f.__name__)
def test_pow(fn, pair):
    check_like_numpy(fn, make_positive(AG_ARGS[pair[0]]), AG_ARGS[pair[1]])


@pytest.mark.parametrize("pair", AG_PAIRS, ids=pair_id)
@pytest.mark.parametrize("fn", [arctan2, atan2], ids=lambda f: f.__name__)
def test_arctan2(fn, pair):
    check_like_numpy(fn, AG_ARGS[pair[0]], AG_ARGS[pair[1]])


def count_lt(x, y):
    return np.sum(np.where(x < y, 1.0, 0.0)) + 0.0


def count_le(x, y):
    return np.sum(np.where(x <= y, 1.0, 0.0)) + 0.0


def count_gt(x, y):
    return np.sum(np.where(x > y, 1.0, 0.0)) + 0.0


def count_ge(x, y):
    return np.sum(np.where(x >= y, 1.0, 0.0)) + 0.0


def count_eq(x, y):
    return np.sum(np.where(x == y, 1.0, 0.0)) + 0.0


def count_ne(x, y):
    return np.sum(np.where(x != y, 1.0, 0.0)) + 0.0


COUNTS = [count_lt, count_le, count_gt, count_ge, count_eq, count_ne]


@pytest.mark.parametrize("pair", AG_PAIRS, ids=pair_id)
@pytest.mark.parametrize("fn", COUNTS, ids=lambda f: f.__name__)
def test_comparison_values_and_zero_gradients(fn, pair):
    """autograd's test_comparison_grads and test_comparison_values: the value is NumPy's
    exactly, the gradients are zeros of each argument's shape (also for x compared with
    itself, where central differences would straddle the tie)."""
    x, y = AG_ARGS[pair[0]], AG_ARGS[pair[1]]
    value, (gx, gy) = catad.value_and_grad(fn, argnums=(0, 1))(x, y)
    what = f"{fn.__name__}{np.shape(x)}, {np.shape(y)}"
    assert value == fn(x, y), f"{what}: catad's value {value!r}, NumPy's {fn(x, y)!r}"
    assert np.shape(gx) == np.shape(x) and np.shape(gy) == np.shape(y), (
        f"{what}: gradients of shapes {np.shape(gx)} and {np.shape(gy)}")
    assert np.all(np.asarray(gx) == 0.0) and np.all(np.asarray(gy) == 0.0), f"{what}: nonzero gradients {gx}, {gy}"


# ---------------------------------------------------------------- tests/test_systematic.py

_npr = np.random.RandomState(0)


def transform(lims, x):
    return x * (lims[1] - lims[0]) + lims[0]


def ufunc_args(lims, rng):
    """A scalar, (2,), (3, 2) and (1, 2) in the range lims (numpy_utils.binary_ufunc_check)."""
    return {"scalar": float(transform(lims, rng.rand())), "vector": transform(lims, rng.rand(2)),
            "mat": transform(lims, rng.rand(3, 2)), "mat2": transform(lims, rng.rand(1, 2))}


DEFAULT = [-2.0, 2.0]
SYSTEMATIC = {
    # name: (function, lims of A, lims of B)
    "add": (add, DEFAULT, DEFAULT),
    "true_divide": (div, DEFAULT, [0.8, 1.2]),
    "true_divide_neg": (div, DEFAULT, [-0.3, -2.0]),
    "remainder": (mod, [-0.9, 0.9], [0.7, 1.9]),
    "mod": (mod, DEFAULT, [0.8, 2.1]),
    "mod_neg": (mod, DEFAULT, [-0.3, -2.0]),
    "op_mod": (mod, DEFAULT, [0.3, 2.0]),
    "op_mul": (mul, DEFAULT, DEFAULT),
    "op_add": (add, DEFAULT, DEFAULT),
    "op_sub": (sub, DEFAULT, DEFAULT),
}
SYSTEMATIC_ARGS = {name: (ufunc_args(la, _npr), ufunc_args(lb, _npr)) for name, (_, la, lb) in SYSTEMATIC.items()}
SHAPE_NAMES = ["scalar", "vector", "mat", "mat2"]


@pytest.mark.parametrize("pair", list(itertools.product(SHAPE_NAMES, SHAPE_NAMES)), ids=pair_id)
@pytest.mark.parametrize("name", list(SYSTEMATIC))
def test_binary_ufunc(name, pair):
    fn = SYSTEMATIC[name][0]
    a_args, b_args = SYSTEMATIC_ARGS[name]
    check_like_numpy(fn, a_args[pair[0]], b_args[pair[1]])


# ---------------------------------------------------------------- tests/test_numpy.py

def maximum_tied(x):
    return np.maximum(x, x)


def maximum_tied_2d(x):
    return np.maximum(np.array([x, x, 0.5]), np.array([[x, 0.5, x], [x, x, 0.5]]))


def minimum_tied_2d(x):
    return np.minimum(np.array([[x], [0.5]]), np.array([x, 0.5, x]))


@pytest.mark.parametrize("x", [1.0, -1.0, 2.0])
def test_maximum_with_ties(x):
    """The derivative of max(x, x) is 1, however a tie is split; (3,) against (2, 3)."""
    check_like_numpy(maximum_tied, x)
    check_like_numpy(maximum_tied_2d, x)
    check_like_numpy(minimum_tied_2d, x)
