"""Python's + and * on tuples: t + u concatenates, t * k and k * t repeat (k an int known while
compiling), a tuple beside an array is made an array by NumPy (elementwise arithmetic), and any
other operator on a tuple raises TypeError in Python, so catad refuses it. Before, every one of
them was refused with "add: expects two Floats or two Ints", x.shape + (1,) among them. A list
times an int repeats it too ([0.0] * n, refused before as list arithmetic), its length known
only at run time where the list holds numbers or arrays of one shape."""
import numpy as np
import pytest

import catad
from catad.errors import CatadTypeError
from located import agrees, raises_as_python, refused


def pair(a):
    return a, abs(a)


def displays(x):
    t = (x, 2.0 * x) + (3.0, x * x)
    return t[0] * t[3] + t[2] * len(t) + sum(t)


def names(x):
    t = (x, 2.0 * x)
    u = (np.sin(x),)
    w = t + u + t
    return sum(w) * len(w)


def repeated(x):
    t = (x, 2.0 * x) * 3
    u = 2 * (np.sin(x),)
    return sum(t) * len(t) + sum(u) * len(u)


def repeated_by_nothing(x):
    t = (x, 2.0 * x)
    return len(t * 0) + len(t * -2) + len(True * t) * x


def repeated_by_a_constant(x):
    k = 3
    t = (np.exp(x),) * k
    return sum(t) + len(t)


def augmented(x):
    t = (x,)
    t += (t[-1] * 2.0,)
    t += (np.sin(t[-1]), x)
    return sum(t) * len(t)


def augmented_by_repetition(x):
    t = (x, np.cos(x))
    t *= 2
    return t[3] * t[0] + len(t)


def calls(x):
    t = pair(x) + pair(2.0 * x)
    return t[0] * t[2] + t[1] + t[3]


def arrays(v):
    rows = (v, v * 2.0) + (np.sin(v),)
    return np.sum(np.stack(rows) ** 2) + len(rows)


def shapes(v):
    a = np.reshape(v, v.shape + (1,))
    b = v.reshape((1,) + v.shape)
    c = np.zeros(v.shape * 2) + v
    return np.sum(a * b) + np.sum(c) * len(v.shape + v.shape)


def beside_an_array(x):
    return np.sum((x, 2.0 * x) + np.ones(2)) + np.sum(np.arange(2.0) * (x, np.sin(x)))


@pytest.mark.parametrize("fn", [displays, names, repeated, repeated_by_nothing, repeated_by_a_constant, augmented,
                                augmented_by_repetition, calls, beside_an_array], ids=lambda f: f.__name__)
def test_tuples_of_numbers(fn):
    agrees(fn, 1.5)
    agrees(fn, -0.5)


@pytest.mark.parametrize("fn", [arrays, shapes], ids=lambda f: f.__name__)
def test_tuples_of_arrays_and_shapes(fn):
    agrees(fn, np.array([0.5, -1.0, 2.0]))


def plus_a_tuple(v):
    return np.sum(v + (1.0, 2.0))


def test_a_tuple_beside_an_array_broadcasts_as_numpy_s():
    """(Before, refused: tests/test_frontend_errors.py had it as bad_operand.)"""
    agrees(plus_a_tuple, np.array([0.5, -1.0]))
    with pytest.raises(ValueError, match="could not be broadcast together with shapes"):
        plus_a_tuple(np.ones(3))
    with pytest.raises(ValueError, match="could not be broadcast together with shapes"):
        catad.value_and_grad(plus_a_tuple)(np.ones(3))


def concatenated_items_stay_python_s(x):
    t = (x,) + pair(x)
    return np.sin(t[2] / 0)


def repeated_items_stay_python_s(x):
    t = (x, abs(x)) * 2
    return np.sin(t[3] / 0)


@pytest.mark.parametrize("fn", [concatenated_items_stay_python_s, repeated_items_stay_python_s],
                         ids=lambda f: f.__name__)
def test_items_keep_their_kind(fn):
    raises_as_python(fn, 1.5)


def subtracted(x):
    t = (x, 2.0 * x)
    return sum(t - t)  # ERR


def plus_a_list(x):
    t = (x, 2.0 * x)
    return sum(t + [x])  # ERR


def times_a_float(x):
    t = (x, 2.0 * x)
    return sum(t * 2.0)  # ERR


def times_a_length(v):
    t = (np.sum(v),)
    return sum(t * len(v))  # ERR


@pytest.mark.parametrize("fn, words", [
    (subtracted, ["operator -", "TypeError"]), (plus_a_list, ["operator +", "a list"]),
    (times_a_float, ["operator *", "Float"]),
], ids=lambda p: getattr(p, "__name__", ""))
def test_other_operators_are_python_s_type_errors(fn, words):
    with pytest.raises(TypeError):
        fn(1.5)
    refused(fn, (1.5,), *words, cls=CatadTypeError)


def test_a_repetition_known_only_at_run_time_is_refused():
    refused(times_a_length, (np.ones(3),), "known only at run time", "np.tile")


def list_repeat(x):
    """(Before, refused: tests/test_frontend_errors.py had it, and list_concat below, as refusals.)"""
    w = [x, 2.0]
    return sum(w * 2) * len(w * 2)


def list_concat(v):
    a = [x for x in v]
    return sum(a * 2) * len(a * 2)


def zeros_then_filled(x):
    out = [0.0] * 3
    for i in range(3):
        out[i] = x * i
    return sum(out) * len(out)


def display_repeated(x):
    l = [x, 2.0 * x] * 3
    return sum(l) * len(l) + l[4] * (2 * [np.sin(x)])[1]


def repeated_by_nothing_or_true(x):
    l = [x] * 0 + [x] * -3 + [np.cos(x)] * True
    return sum(l) * len(l)


def repeated_by_a_length(v):
    l = [1.0] * len(v)
    return np.sum(np.array(l) * v) * len(l)


def arrays_repeated(v):
    rows = [v, 2.0 * v] * 2
    return np.sum(np.stack(rows) ** 2) + len(rows)


def comprehension_repeated(v):
    l = [np.sum(v * i) for i in range(3)] * 2
    return sum(l) * len(l) + l[4]


@pytest.mark.parametrize("fn", [list_repeat, zeros_then_filled, display_repeated, repeated_by_nothing_or_true],
                         ids=lambda f: f.__name__)
def test_lists_repeated(fn):
    agrees(fn, 1.5)
    agrees(fn, -0.5)


def values_of_two_kinds_repeated(v):
    l = [np.sum(v), v] * 2
    m = l + [1.0]
    return l[2] * np.sum(l[3]) * len(m) + np.sum(m[1] * m[-1])


@pytest.mark.parametrize("fn", [list_concat, repeated_by_a_length, arrays_repeated, comprehension_repeated,
                                values_of_two_kinds_repeated],
                         ids=lambda f: f.__name__)
def test_lists_of_arrays_and_of_run_time_lengths_repeated(fn):
    agrees(fn, np.array([0.5, -1.0, 2.0]))
    agrees(fn, np.array([0.5]))


def repeated_items_of_a_list_stay_python_s(x):
    l = 2 * [abs(x), x]
    return np.sin(l[2] / 0)


def values_of_two_kinds_stay_python_s(v):
    l = 2 * [abs(float(v[0])), v * 2.0]
    return np.sin(l[2] / 0)


def repeated_by_a_length_stays_python_s(v):
    l = [abs(float(v[0]))] * len(v)
    return np.sin(l[-1] / 0)


@pytest.mark.parametrize("fn, arg", [(repeated_items_of_a_list_stay_python_s, 1.5),
                                     (repeated_by_a_length_stays_python_s, np.array([0.5, 2.0])),
                                     (values_of_two_kinds_stay_python_s, np.array([0.5, 2.0]))],
                         ids=["display", "run-time length", "two kinds"])
def test_repeated_list_items_keep_their_kind(fn, arg):
    raises_as_python(fn, arg)


def mixed_items_repeated_by_a_length(v):
    l = [v[0], abs(float(v[0]))] * len(v)
    return sum(l[i] for i in range(len(l)))


def mixed_items_divided(v):
    l = [v[0], abs(float(v[0]))] * len(v)
    return sum(1.0 / (l[i] * 0) for i in range(len(l)))


def test_a_list_of_both_kinds_repeated_a_run_time_number_of_times_is_refused_where_read():
    """Its items read at run-time places are of a kind catad cannot tell (undecided): what depends
    on the kind is refused when the function runs (Python's 1.0 / 0.0 raises, NumPy's is inf; it
    was refused while compiling), a sum that does not is its value."""
    agrees(mixed_items_repeated_by_a_length, np.array([0.5, 2.0]))
    with pytest.raises(catad.CatadError, match="cannot tell whether Python raises"):
        catad.grad(mixed_items_divided)(np.array([0.5, 2.0]))
