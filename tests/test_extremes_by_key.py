"""max(..., key=f) and min(..., key=f) (catad/frontend/extremes_by_key.py): of one iterable (an
array's elements or rows, a list, a generator, a range), the first item whose key is the largest
(smallest), at np.argmax of the keys; of several arguments, the keys compared in turn as Python
compares them. Python's ValueError for nothing; a NaN key of an iterable is refused when the
function runs (Python passes over it after the first item). Oracle: the user's function itself
(located.agrees). catad refused key= on main."""
import math

import numpy as np
import pytest

import catad
from located import agrees, refused


def of_a_vector(x):
    return max(x, key=lambda t: (t - 0.3) ** 2) + min(x, key=abs)


def of_rows(m):
    r = max(m, key=lambda row: np.sum(row ** 2))
    return np.sum(r * 2.0)


def of_a_generator(x):
    return min((t * 2.0 for t in x), key=lambda t: math.cos(t))


def of_arguments(x):
    a, b, c = x[0], x[1] * 2.0, x[2]
    return max(a, b, c, key=abs) * min(a, b, key=lambda t: -t)


def of_a_list(x):
    items = [x[0], x[2] * 1.5, x[1]]  # (NumPy's numbers: a list holding Python's is refused, see below)
    return max(items, key=lambda t: t * t)


def of_a_range(x):
    i = max(np.arange(len(x)), key=lambda k: x[k])
    return x[i] * i


def of_ties(x):
    return max([x[0], -x[0], x[1]], key=abs) + min(x, key=lambda t: 1.0)


def nan_key_among_arguments(x):
    return max(x[0], x[1], key=lambda t: math.nan if t > 0 else t)


X = np.array([0.3, -0.7, 1.1, 0.4, -1.6])
M = np.array([[0.2, -0.4], [0.9, -1.3], [0.6, 0.25]])


@pytest.mark.parametrize("f", [of_a_vector, of_a_generator, of_arguments, of_a_list, of_a_range, of_ties,
                               nan_key_among_arguments])
@pytest.mark.parametrize("x", [X, -X[::-1]])
def test_against_python(f, x):
    agrees(f, x)


def test_of_rows():
    agrees(of_rows, M)


def of_nothing(x):
    return max(x[:0], key=abs)


def nan_key_in_a_vector(x):
    return max(x, key=lambda t: math.nan if t > 0 else t)


def test_raises_and_refusals():
    with pytest.raises(ValueError, match=r"max\(\) arg is an empty sequence"):
        of_nothing(X)
    with pytest.raises(ValueError, match=r"max\(\) arg is an empty sequence"):
        catad.grad(of_nothing)(X)
    with pytest.raises(catad.CatadError, match="with a key that is a NaN"):
        catad.grad(nan_key_in_a_vector)(X)


def with_a_default(x):
    return max(x, key=abs, default=0.0)  # ERR


def test_default_refused():
    refused(with_a_default, (X,), "default=...) is not supported")


def sorted_by_magnitude(x):
    s = sorted(x, key=abs)
    return s[0] * 3.0 + s[-1] + s[1] * s[2]


def sorted_reversed(x):
    s = sorted(x, key=lambda t: (t - 0.2) ** 2, reverse=True)
    return s[0] * 3.0 + s[-1]


def sorted_with_ties(x):
    s = sorted(x, key=lambda t: t > 0)
    return s[0] * 5.0 + s[-1] * 7.0 + s[1]


def sorted_with_ties_reversed(x):
    s = sorted(x, key=lambda t: round(t), reverse=True)  # equal keys keep their order, as Python's
    return s[0] * 5.0 + s[-1] * 7.0 + s[1] * 3.0


def sorted_list(x):
    items = [x[0], x[2] * 2.5, x[1]]
    return sorted(items, key=lambda t: -t)[0]


@pytest.mark.parametrize("f", [sorted_by_magnitude, sorted_reversed, sorted_with_ties, sorted_with_ties_reversed,
                               sorted_list])
@pytest.mark.parametrize("x", [X, 2.0 * X[::-1]])
def test_sorted_against_python(f, x):
    agrees(f, x)


def sorted_nan_key(x):
    return sorted(x, key=lambda t: t / 0.0 * 0.0 if t > 0 else t)[0]


def test_sorted_nan_key_refused():
    with pytest.raises(ValueError, match="with a key that is a NaN"):
        catad.grad(sorted_nan_key)(X)


def of_python_floats(x):
    b = min([float(x[0]), 0.0], key=lambda t: t)  # ERR
    return 1.0 / b


def of_a_range_of_ints(x):
    i = max(range(3), key=lambda k: 1 / (k - 1))  # ERR
    return x[i]


def bool_keys(x):
    return min(x, key=lambda t: t > 0.5) + max(x[0], 2.0 * x[1], key=lambda t: t > 1.0)


def test_python_numbers_refused_and_bool_keys():
    """Python's own numbers would be computed with as NumPy's by the key (1.0 / 0.0: inf, where
    Python raises), so such lists are refused; a bool key is the int Python compares it as (it
    raised catad's own KeyError)."""
    refused(of_python_floats, (X,), "holding Python's own numbers")
    refused(of_a_range_of_ints, (X,), "holding Python's own numbers")
    agrees(bool_keys, X)


def keeps_a_reference(x):
    w = x * 3.0
    r = max(w, x, key=np.sum)
    w[0] = 100.0  # ERR
    return np.sum(r)


def test_the_argument_chosen_is_itself():
    """max(w, v, key=f) is w itself in Python: writing into w afterwards changes it (catad gave the
    value before the write)."""
    refused(keeps_a_reference, (X,), "may share its memory")
