"""Broadcasting, checked against NumPy by tests/shape_oracle.py (issue 13, item 6).

Every elementwise operator and function (+ - * / ** np.maximum np.minimum np.where, and
comparisons in np.where conditions) over every pair of the shapes (), (1,), (3,), (1, 3),
(3, 1), (2, 3), (1, 1): the value is NumPy's, the gradient of a broadcast operand has
the operand's shape and equals central differences, and where NumPy cannot broadcast
catad raises catad.ShapeError naming this file, the line and both shapes. Then random
shape pairs (ranks 0-2, axis lengths 0-4) and operators from hypothesis.

Each operation comes in two forms: ``*_loss`` returns a float (a unary function after the
broadcast, weighted by an argument w of the broadcast shape: grad), ``*_array`` returns the
broadcast array itself (vjp, jacobian, jvp).
"""
import itertools

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import catad
from shape_oracle import check_like_numpy, numpy_raises, rand

SHAPES = [(), (1,), (3,), (1, 3), (3, 1), (2, 3), (1, 1)]
PAIRS = list(itertools.product(SHAPES, SHAPES))


# ---------------------------------------------------------------- the functions

def add_loss(a, b, w):
    return np.sum(np.sin(a + b) * w)


def sub_loss(a, b, w):
    return np.sum(np.sin(a - b) * w)


def mul_loss(a, b, w):
    return np.sum(np.sin(a * b) * w)


def div_loss(a, b, w):
    return np.sum(np.sin(a / b) * w)


def pow_loss(a, b, w):
    return np.sum(np.sin(a ** b) * w)


def maximum_loss(a, b, w):
    return np.sum(np.sin(np.maximum(a, b)) * w)


def minimum_loss(a, b, w):
    return np.sum(np.sin(np.minimum(a, b)) * w)


def where_loss(a, b, w):
    return np.sum(np.sin(np.where(a > b, a, b * 2.0)) * w)


def add_array(a, b):
    return a + b


def sub_array(a, b):
    return a - b


def mul_array(a, b):
    return a * b


def div_array(a, b):
    return a / b


def pow_array(a, b):
    return a ** b


def maximum_array(a, b):
    return np.maximum(a, b)


def minimum_array(a, b):
    return np.minimum(a, b)


def where_array(a, b):
    return np.where(a > b, a, b * 2.0)


LOSS = {"add": add_loss, "sub": sub_loss, "mul": mul_loss, "div": div_loss, "pow": pow_loss,
        "maximum": maximum_loss, "minimum": minimum_loss, "where": where_loss}
ARRAY = {"add": add_array, "sub": sub_array, "mul": mul_array, "div": div_array, "pow": pow_array,
         "maximum": maximum_array, "minimum": minimum_array, "where": where_array}


# np.where with a condition of its own shape: the condition broadcasts with both branches

def where_cond_loss(c, a, b, w):
    return np.sum(np.where(c > 1.0, a, b) * w)


def where_cond_array(c, a, b):
    return np.where(c > 1.0, a, b)


# comparisons in np.where conditions: the comparison itself broadcasts

def where_lt(a, b):
    return np.where(a < b, a * 3.0, b)


def where_le(a, b):
    return np.where(a <= b, a * 3.0, b)


def where_gt(a, b):
    return np.where(a > b, a * 3.0, b)


def where_ge(a, b):
    return np.where(a >= b, a * 3.0, b)


def where_eq(a, b):
    return np.where(a == b, a * 3.0, b - a)


def where_ne(a, b):
    return np.where(a != b, a * 3.0, b)


COMPARE = {"lt": where_lt, "le": where_le, "gt": where_gt, "ge": where_ge, "eq": where_eq, "ne": where_ne}


# unary functions after broadcasting, returning the array

def exp_of_sum(a, b):
    return np.exp(a + b)


def tanh_of_product(a, b):
    return np.tanh(a * b) - np.sqrt(a / b)


def square_of_difference(x, y):
    return np.sum((x - y) ** 2)


UNARY_AFTER = {"exp_of_sum": exp_of_sum, "tanh_of_product": tanh_of_product,
               "square_of_difference": square_of_difference}


# ---------------------------------------------------------------- helpers

def weight_shape(sa, sb):
    """The broadcast shape, or (when there is none) a's: the weight is then irrelevant."""
    try:
        return np.broadcast_shapes(sa, sb)
    except ValueError:
        return sa


def operands(sa, sb, seed=0):
    rng = np.random.default_rng(seed)
    return rand(rng, sa), rand(rng, sb), rand(rng, weight_shape(sa, sb), -1.0, 1.0)


def pair_id(pair):
    sa, sb = pair
    return f"{sa}-{sb}".replace(" ", "")


# ---------------------------------------------------------------- the exhaustive table

@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("op", list(LOSS))
def test_loss_table(op, pair):
    a, b, w = operands(*pair)
    check_like_numpy(LOSS[op], a, b, w)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("op", list(ARRAY))
def test_array_table(op, pair):
    a, b, _ = operands(*pair)
    check_like_numpy(ARRAY[op], a, b)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("cmp", list(COMPARE))
def test_comparison_in_where_table(cmp, pair):
    a, b, _ = operands(*pair)
    check_like_numpy(COMPARE[cmp], a, b)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("name", list(UNARY_AFTER))
def test_unary_after_broadcast_table(name, pair):
    a, b, _ = operands(*pair)
    check_like_numpy(UNARY_AFTER[name], a, b)


@pytest.mark.parametrize("pair", PAIRS, ids=pair_id)
@pytest.mark.parametrize("cond_shape", SHAPES, ids=lambda s: "cond" + str(s).replace(" ", ""))
def test_where_condition_shape_table(cond_shape, pair):
    rng = np.random.default_rng(1)
    c = rand(rng, cond_shape)
    a, b = rand(rng, pair[0]), rand(rng, pair[1])
    try:
        out_shape = np.broadcast_shapes(cond_shape, pair[0], pair[1])
    except ValueError:
        out_shape = pair[0]
    w = rand(rng, out_shape, -1.0, 1.0)
    check_like_numpy(where_cond_loss, c, a, b, w)
    if cond_shape in ((), (3, 1), (1, 3)):  # the array form on a few condition shapes
        check_like_numpy(where_cond_array, c, a, b)


# pairs NumPy cannot broadcast, beyond the two of the table ((2, 3) with (3, 1))
MISMATCHED = [((3,), (4,)), ((4,), (3,)), ((2,), (3,)), ((2, 3), (2,)), ((2,), (2, 3)), ((2, 3), (3, 2)),
              ((2, 3), (4, 3)), ((1, 3), (1, 4)), ((3, 4), (3,)), ((3, 1), (2, 1)), ((2, 1), (3, 4)),
              ((0,), (2,)), ((2, 0), (2, 3))]


@pytest.mark.parametrize("pair", MISMATCHED, ids=pair_id)
@pytest.mark.parametrize("op", list(ARRAY))
def test_mismatch_table(op, pair):
    a, b, w = operands(*pair)
    check_like_numpy(ARRAY[op], a, b)
    check_like_numpy(LOSS[op], a, b, w)


@pytest.mark.parametrize("pair", MISMATCHED, ids=pair_id)
@pytest.mark.parametrize("cmp", list(COMPARE))
def test_mismatch_in_comparison(cmp, pair):
    a, b, _ = operands(*pair)
    check_like_numpy(COMPARE[cmp], a, b)


def test_table_has_both_outcomes():
    """The table is not vacuous: NumPy broadcasts some pairs and rejects others."""
    outcomes = {numpy_raises(add_array, *operands(*p)[:2]) for p in PAIRS}
    assert outcomes == {None, ValueError}
    assert {numpy_raises(add_array, *operands(*p)[:2]) for p in MISMATCHED} == {ValueError}


# ---------------------------------------------------------------- the examples of issue 13

def test_issue_sum_of_squares_row_against_matrix():
    """np.sum((x - y) ** 2) with x (1, 4) and y (3, 4): catad took the sizes from x."""
    rng = np.random.default_rng(13)
    check_like_numpy(square_of_difference, rng.normal(size=(1, 4)), rng.normal(size=(3, 4)))
    check_like_numpy(square_of_difference, rng.normal(size=(3, 4)), rng.normal(size=(1, 4)))


def test_issue_length_one_against_length_three():
    check_like_numpy(add_array, np.array([1.0, 2.0, 3.0]), np.array([10.0]))
    check_like_numpy(add_array, np.array([10.0]), np.array([1.0, 2.0, 3.0]))


def test_issue_lengths_three_and_four():
    check_like_numpy(add_array, np.ones(3), np.ones(4))
    check_like_numpy(add_loss, np.ones(3), np.ones(4), np.ones(3))


def test_shape_error_is_a_value_error_and_a_catad_error():
    """The contract's class: user code catching ValueError (as for NumPy) still works."""
    with pytest.raises(ValueError) as info:
        catad.vjp(add_array, np.ones(3), np.ones(4))
    assert isinstance(info.value, catad.ShapeError)
    assert isinstance(info.value, catad.CatadError)


# ---------------------------------------------------------------- random shapes and operators

# no shrinking: a failing example is reported as drawn (shrinking one costs minutes)
RANDOM = settings(deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate])
LENGTHS = st.sampled_from([0, 1, 2, 3, 4])
SHAPE = st.integers(0, 2).flatmap(lambda r: st.tuples(*[LENGTHS] * r))
ALL_BINARY = sorted([("loss", k) for k in LOSS] + [("array", k) for k in ARRAY] +
                    [("compare", k) for k in COMPARE] + [("unary", k) for k in UNARY_AFTER])


@settings(RANDOM, max_examples=150)
@given(op=st.sampled_from(ALL_BINARY), sa=SHAPE, sb=SHAPE, seed=st.integers(0, 2**16))
def test_random_shapes_and_operators(op, sa, sb, seed):
    kind, name = op
    a, b, w = operands(sa, sb, seed)
    if kind == "loss":
        check_like_numpy(LOSS[name], a, b, w, seed=seed)
    else:
        fn = {"array": ARRAY, "compare": COMPARE, "unary": UNARY_AFTER}[kind][name]
        check_like_numpy(fn, a, b, seed=seed)


@settings(RANDOM, max_examples=60)
@given(sc=SHAPE, sa=SHAPE, sb=SHAPE, seed=st.integers(0, 2**16))
def test_random_where_condition_shapes(sc, sa, sb, seed):
    rng = np.random.default_rng(seed)
    c, a, b = rand(rng, sc), rand(rng, sa), rand(rng, sb)
    try:
        out_shape = np.broadcast_shapes(sc, sa, sb)
    except ValueError:
        out_shape = sa
    check_like_numpy(where_cond_loss, c, a, b, rand(rng, out_shape, -1.0, 1.0), seed=seed)
