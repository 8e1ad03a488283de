"""round(b) of NumPy's bool raises Python's TypeError (numpy.bool has no __round__) wherever the
bool came from: it did only where catad had marked it NumPy's (`round(x[0] > 0, 1)`), and gave a
number for np.sum(x) > 0, np.any, np.isfinite, np.argmax(x) > 0, a list of an array's items, or a
loop's state (fuzzer seed 1009032). The bools of Python's own numbers, of len(), bool(), any(),
isinstance(), math's tests, and a helper's are Python's, whose round is the int.

max(a, b) and min(a, b) of two bools were refused with the typing rule's words ("gt: compares two
Floats or two Ints, got (Bool, Bool)"); they give the bool chosen, compared as the ints they are,
of its kind."""
import math

import numpy as np
import pytest

import catad


def sum_positive(x, y):
    s = np.sum(x)
    return float(round(s > 0)) + s


def state_of_a_loop(x, y):
    s = np.sum(x[x > 0.0])
    for i, e in enumerate(x):
        s += i * e
    return float(round(s > 0)) + s


def numpy_any(x, y):
    return float(round(np.any(x > 0))) + x[0]


def numpy_isfinite(x, y):
    return float(round(np.isfinite(x[0]))) + x[0]


def argmax_positive(x, y):
    return float(round(np.argmax(x) > 0)) + x[0]


def items_of_a_list(x, y):
    return float(round(list(x)[0] > 0)) + x[0]


def comprehension_of_an_array(x, y):
    bs = [e > 0 for e in x]
    return float(round(bs[0])) + x[0]


def max_of_numpy_bools(x, y):
    return float(round(max(x[0] > 0, y > 5))) + x[0]


NUMPY_BOOLS = [sum_positive, state_of_a_loop, numpy_any, numpy_isfinite, argmax_positive, items_of_a_list,
               comprehension_of_an_array, max_of_numpy_bools]


@pytest.mark.parametrize("f", NUMPY_BOOLS, ids=lambda f: f.__name__)
def test_round_of_numpy_bool_raises_as_python(f):
    x, y = np.array([0.5, 2.0]), 0.7
    with pytest.raises(TypeError, match="doesn't define __round__"):
        f(x, y)
    with pytest.raises(TypeError, match="doesn't define __round__"):
        catad.value_and_grad(f)(x, y)


def helper(y):
    return y > 0


PYTHON_BOOLS = [
    lambda x, y: float(round(len(x) > 0)) + x[0],
    lambda x, y: float(round(x.shape[0] == 2)) + x[0],
    lambda x, y: float(round(not (len(x) > 3))) + x[0],
    lambda x, y: float(round(bool(x[0]))) + x[0],
    lambda x, y: float(round(y > 0.5)) + x[0],
    lambda x, y: float(round(float(x[0]) > 0.5)) + x[0],
    lambda x, y: float(round(x[0].item() > 0)) + x[0],
    lambda x, y: float(round(any(e > 0 for e in x))) + x[0],
    lambda x, y: float(round(all([y > 0, y > 1]))) + x[0],
    lambda x, y: float(round(math.isfinite(x[0]))) + x[0],
    lambda x, y: float(round(isinstance(y, float))) + x[0],
    lambda x, y: float(round(helper(y))) + x[0],
    lambda x, y: float(round(max(y > 0, y > 1))) + x[0],
    lambda x, y: float(round(min(y > 0, y > 1))) + x[0],
    lambda x, y: float(round(max(x[0] > 5, y > 0))) + x[0],  # Python's y > 0 chosen
]


@pytest.mark.parametrize("k", range(len(PYTHON_BOOLS)))
def test_round_of_python_bool_is_the_int(k):
    f, x, y = PYTHON_BOOLS[k], np.array([0.5, 2.0]), 0.7
    value, (gx, gy) = catad.value_and_grad(f, argnums=(0, 1))(x, y)
    assert value == f(x, y)
    np.testing.assert_array_equal(gx, [1.0, 0.0])
    assert gy == 0.0


@pytest.mark.parametrize("pair", [max, min])
@pytest.mark.parametrize("a", [False, True])
@pytest.mark.parametrize("b", [False, True])
def test_extreme_of_two_bools_is_the_one_python_chooses(pair, a, b):
    def f(x, s, t):
        return x * pair(s > 0, t > 0)

    s, t = (1.0 if a else -1.0), (1.0 if b else -1.0)
    want = f(2.0, s, t)
    assert catad.value_and_grad(f)(2.0, s, t) == (want, pytest.approx(float(pair(a, b))))


def test_extreme_of_numpy_and_python_bools_keeps_the_chosen_kind():
    """max(a, b) gives a unless b > a: NumPy's a at a tie, whose round raises TypeError; Python's b
    where it is larger, whose round is 1."""
    def f(x):
        return float(round(max(x[0] > 0, len(x) > 1))) + x[0]

    with pytest.raises(TypeError, match="doesn't define __round__"):
        catad.value_and_grad(f)(np.array([0.5, 1.0]))
    x = np.array([-0.5, 1.0])
    assert catad.value_and_grad(f)(x) == (f(x), pytest.approx(np.array([1.0, 0.0])))
