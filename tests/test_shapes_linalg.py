"""Contractions and reductions against NumPy by tests/shape_oracle.py (issue 13, item 6):
``@``, ``np.matmul``, ``np.dot``, ``.dot()``, ``np.outer`` and ``np.sum``/``np.mean`` with
``axis=`` (0, 1, -1, -2 and out of range), alone and feeding broadcasts.

Where NumPy rejects the shapes (mismatched inner sizes, vectors of different lengths,
a length-1 inner axis, which matmul never stretches), catad must raise catad.ShapeError
naming this file, the line and the shapes; catad used to zero-pad or truncate instead.
An out-of-range axis is NumPy's AxisError, a ValueError and an IndexError: catad may
raise ShapeError or BoundsError.

Not covered: ``2.0 @ v`` (NumPy: ValueError; catad refuses it at compile time with a
CatadTypeError, a rank error rather than a shape one) and np.outer of matrices (NumPy
flattens them; catad takes vectors only).
"""
import itertools

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import catad
from shape_oracle import check_like_numpy, numpy_raises, rand

# ranks 1 and 2 (and () for np.dot, which scales by a scalar); inner sizes 1, 3, 4
MM_SHAPES = [(1,), (3,), (4,), (1, 3), (3, 1), (2, 3), (3, 4), (4, 2)]
MM_PAIRS = list(itertools.product(MM_SHAPES, MM_SHAPES))
DOT_PAIRS = list(itertools.product([()] + MM_SHAPES, [()] + MM_SHAPES))


def pair_id(pair):
    return "-".join(str(s).replace(" ", "") for s in pair)


# ---------------------------------------------------------------- the functions

def matmul_op(a, b):
    return a @ b


def matmul_fn(a, b):
    return np.matmul(a, b)


def dot_fn(a, b):
    return np.dot(a, b)


def dot_method(a, b):
    return a.dot(b)


def matmul_loss(a, b, w):
    return np.sum(np.tanh(a @ b) * w)


def outer_fn(a, b):
    return np.outer(a, b)


CONTRACTIONS = {"@": matmul_op, "np.matmul": matmul_fn, "np.dot": dot_fn, ".dot": dot_method}


def sum_axis_0(m):
    return np.sum(m, axis=0)


def sum_axis_1(m):
    return np.sum(m, axis=1)


def sum_axis_neg1(m):
    return np.sum(m, axis=-1)


def sum_axis_neg2(m):
    return np.sum(m, axis=-2)


def sum_axis_2(m):
    return np.sum(m, axis=2)


def sum_axis_neg3(m):
    return np.sum(m, axis=-3)


def mean_axis_0(m):
    return np.mean(m, axis=0)


def method_sum_axis_1(m):
    return m.sum(axis=1)


REDUCTIONS = {"sum0": sum_axis_0, "sum1": sum_axis_1, "sum-1": sum_axis_neg1, "sum-2": sum_axis_neg2,
              "sum2": sum_axis_2, "sum-3": sum_axis_neg3, "mean0": mean_axis_0, ".sum1": method_sum_axis_1}
REDUCED_SHAPES = [(1,), (3,), (1, 3), (3, 1), (2, 3)]


# contractions and reductions feeding broadcasts, and broadcasts feeding contractions

def matvec_plus(m, v, u):
    return m @ v + u


def dot_of_broadcast(v, w, u):
    return np.dot(v * w, u)


def matmul_chain(a, b, c):
    return (a @ b) @ c


def vec_mat_vec(v, m, w):
    return v @ m @ w


def outer_plus(v, w, m):
    return np.sum(np.sin(np.outer(v, w) + m))


def row_sums_times(m, v):
    return np.sum(m, axis=1) * v


def column_sums_of_broadcast(m, v):
    return np.sum(m * v, axis=0)


def transpose_matvec(m, v):
    return m.T @ v


def mean_rows_minus(m, v):
    return np.sum((np.mean(m, axis=1) - v) ** 2)


def result_shape(fn, *args):
    try:
        return np.shape(fn(*args))
    except ValueError:
        return np.shape(args[0])


# ---------------------------------------------------------------- tables

@pytest.mark.parametrize("pair", MM_PAIRS, ids=pair_id)
@pytest.mark.parametrize("op", ["@", "np.matmul", ".dot"])
def test_matmul_table(op, pair):
    rng = np.random.default_rng(2)
    check_like_numpy(CONTRACTIONS[op], rand(rng, pair[0]), rand(rng, pair[1]))


@pytest.mark.parametrize("pair", DOT_PAIRS, ids=pair_id)
def test_dot_table(pair):
    rng = np.random.default_rng(3)
    check_like_numpy(dot_fn, rand(rng, pair[0]), rand(rng, pair[1]))


@pytest.mark.parametrize("pair", MM_PAIRS, ids=pair_id)
def test_matmul_loss_table(pair):
    rng = np.random.default_rng(4)
    a, b = rand(rng, pair[0]), rand(rng, pair[1])
    check_like_numpy(matmul_loss, a, b, rand(rng, result_shape(np.matmul, a, b), -1.0, 1.0))


@pytest.mark.parametrize("pair", list(itertools.product([(1,), (2,), (3,)], repeat=2)), ids=pair_id)
def test_outer_table(pair):
    rng = np.random.default_rng(5)
    check_like_numpy(outer_fn, rand(rng, pair[0]), rand(rng, pair[1]))


@pytest.mark.parametrize("shape", REDUCED_SHAPES, ids=lambda s: str(s).replace(" ", ""))
@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_axis_table(name, shape):
    check_like_numpy(REDUCTIONS[name], rand(np.random.default_rng(6), shape))


def test_tables_have_both_outcomes():
    rng = np.random.default_rng(0)
    assert {numpy_raises(matmul_op, rand(rng, a), rand(rng, b)) for a, b in MM_PAIRS} == {None, ValueError}
    assert {numpy_raises(dot_fn, rand(rng, a), rand(rng, b)) for a, b in DOT_PAIRS} == {None, ValueError}
    outcomes = {numpy_raises(f, rand(rng, s)) for f in REDUCTIONS.values() for s in REDUCED_SHAPES}
    assert None in outcomes and len(outcomes) == 2


# ---------------------------------------------------------------- the examples of issue 13

def test_issue_matvec_inner_mismatch():
    """m @ v with m (2, 3) and v (4,): catad returned a value (zero-padded or truncated)."""
    check_like_numpy(matmul_op, np.ones((2, 3)), np.arange(4.0))
    check_like_numpy(matmul_op, np.ones((2, 3)), np.arange(2.0))


def test_issue_dot_of_vectors_of_different_lengths():
    check_like_numpy(dot_fn, np.arange(3.0), np.arange(4.0))
    check_like_numpy(dot_fn, np.arange(4.0), np.arange(3.0))


def test_issue_matmul_of_mismatched_matrices():
    check_like_numpy(matmul_op, np.ones((2, 3)), np.ones((2, 3)))
    check_like_numpy(matmul_op, np.ones((3, 2)), np.ones((3, 2)))


def test_length_one_inner_axis_is_not_stretched():
    """Broadcasting stretches length-1 axes; matmul and dot never stretch the inner one."""
    check_like_numpy(matmul_op, np.array([2.0]), np.arange(3.0))
    check_like_numpy(dot_fn, np.arange(3.0), np.array([2.0]))
    check_like_numpy(matmul_op, np.ones((2, 1)), np.ones((3, 2)))


def test_shape_error_from_dot_is_a_value_error():
    with pytest.raises(ValueError) as info:
        catad.grad(dot_fn, argnums=(0, 1))(np.ones(3), np.ones(4))
    assert isinstance(info.value, catad.ShapeError)


# ---------------------------------------------------------------- composites

def test_matvec_then_broadcast():
    rng = np.random.default_rng(7)
    m, v = rng.normal(size=(2, 3)), rng.normal(size=3)
    check_like_numpy(matvec_plus, m, v, rng.normal(size=2))
    check_like_numpy(matvec_plus, m, v, rng.normal(size=1))
    check_like_numpy(matvec_plus, m, v, rng.normal(size=(3, 1)))   # (2,) + (3, 1) -> (3, 2)
    check_like_numpy(matvec_plus, m, v, rng.normal(size=3))        # (2,) + (3,): error
    check_like_numpy(matvec_plus, m, rng.normal(size=2), rng.normal(size=2))  # the @ fails first


def test_broadcast_then_dot():
    rng = np.random.default_rng(8)
    check_like_numpy(dot_of_broadcast, rng.normal(size=3), rng.normal(size=1), rng.normal(size=3))
    check_like_numpy(dot_of_broadcast, rng.normal(size=1), rng.normal(size=4), rng.normal(size=4))
    check_like_numpy(dot_of_broadcast, rng.normal(size=3), rng.normal(size=1), rng.normal(size=4))
    check_like_numpy(dot_of_broadcast, rng.normal(size=3), rng.normal(size=2), rng.normal(size=3))


def test_chained_contractions():
    rng = np.random.default_rng(9)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(3, 4))
    check_like_numpy(matmul_chain, a, b, rng.normal(size=4))
    check_like_numpy(matmul_chain, a, b, rng.normal(size=(4, 2)))
    check_like_numpy(matmul_chain, a, b, rng.normal(size=3), shapes=["(2, 4)", "(3,)"])
    check_like_numpy(matmul_chain, a, b, rng.normal(size=(2, 4)), shapes=["(2, 4)", "(2, 4)"])
    check_like_numpy(vec_mat_vec, rng.normal(size=2), a, rng.normal(size=3))
    check_like_numpy(vec_mat_vec, rng.normal(size=2), a, rng.normal(size=2), shapes=["(3,)", "(2,)"])
    check_like_numpy(vec_mat_vec, rng.normal(size=3), a, rng.normal(size=3), shapes=["(3,)", "(2, 3)"])


def test_outer_then_broadcast():
    rng = np.random.default_rng(10)
    v, w = rng.normal(size=2), rng.normal(size=3)
    for shape in [(2, 3), (1, 3), (2, 1), (3,), (1,), (3, 2), (2,)]:
        check_like_numpy(outer_plus, v, w, rng.normal(size=shape))


def test_reductions_then_broadcast():
    rng = np.random.default_rng(11)
    m = rng.normal(size=(2, 3))
    for shape in [(2,), (1,), (3,), (3, 1), (2, 2)]:
        check_like_numpy(row_sums_times, m, rng.normal(size=shape))
        check_like_numpy(mean_rows_minus, m, rng.normal(size=shape))
    for shape in [(3,), (1,), (2, 1), (1, 3), (2,), (3, 1)]:
        check_like_numpy(column_sums_of_broadcast, m, rng.normal(size=shape))


def test_transpose_then_matvec():
    rng = np.random.default_rng(12)
    m = rng.normal(size=(2, 3))
    check_like_numpy(transpose_matvec, m, rng.normal(size=2))
    check_like_numpy(transpose_matvec, m, rng.normal(size=3), shapes=["(3, 2)", "(3,)"])


# ---------------------------------------------------------------- random shapes

SHAPE = st.integers(1, 2).flatmap(lambda r: st.tuples(*[st.sampled_from([0, 1, 2, 3, 4])] * r))


@settings(deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate], max_examples=80)
@given(op=st.sampled_from(sorted(CONTRACTIONS)), sa=SHAPE, sb=SHAPE, match=st.booleans(),
       seed=st.integers(0, 2**16))
def test_random_contraction_shapes(op, sa, sb, match, seed):
    if match:  # half the examples have matching inner sizes
        sb = (sa[-1],) + sb[1:]
    rng = np.random.default_rng(seed)
    check_like_numpy(CONTRACTIONS[op], rand(rng, sa), rand(rng, sb), seed=seed)
