"""A list the function returns is a list for its caller, as Python's: a list of numbers, of lists
of numbers, or of arrays of one shape, which catad holds as an array, was returned as that array
(`[e * 2.0 for e in w]`, `[w, w * 2.0]`, `list(w)`, an appended list), where Python's `+`
concatenates it. Its items are Python's numbers where the function's are (`[w[0], 2.0]`), NumPy's
elsewhere; a tangent of it is a list too, and a cotangent may be given as one."""
import numpy as np
import pytest

import catad


def display(w): return [w[0], w[1] * w[1]]
def with_a_python_float(w): return [w[0], 2.0]
def comprehension(w): return [e * 2.0 for e in w]
def list_of_an_array(w): return list(w)
def arrays_of_one_shape(w): return [w, w * 2.0]
def in_a_dict(w): return {"a": [w[0], w[1]], "b": w}
def python_floats(w): return [float(e) for e in w]
def constants(w): return [1.0, 2.0]
def ints(w): return [len(w), 2]
def bools(w): return [e > 0 for e in w]
def rows_that_are_lists(w): return [[e, e * 2] for e in w]
def slices(w): return [w[:2] * 2.0 for _ in range(2)]
def sorted_list(w): return sorted(w)


def appended(w):
    out = []
    for e in w:
        out.append(e * e)
    return out


CASES = [display, with_a_python_float, comprehension, list_of_an_array, arrays_of_one_shape, in_a_dict,
         python_floats, constants, ints, bools, rows_that_are_lists, slices, sorted_list, appended]


def described(v):
    """v's structure, and each leaf's type and value (arrays: their shape and dtype)."""
    if isinstance(v, dict):
        return {k: described(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v).__name__, [described(x) for x in v]
    if isinstance(v, np.ndarray):
        return "ndarray", v.shape, v.dtype.str, v.tolist()
    return type(v).__name__, v


@pytest.mark.parametrize("f", CASES, ids=lambda f: f.__name__)
def test_a_list_result_is_pythons_list(f):
    w = np.array([0.3, -1.2, 0.7])
    out, tangent = catad.jvp(f, (w,), (np.ones(3),))
    assert described(out) == described(f(w))
    assert described(catad.vjp(f, w)[0]) == described(f(w))
    assert type(tangent) is type(out)


def test_its_tangent_and_cotangent_are_lists():
    w = np.array([0.3, -1.2, 0.7])
    _, t = catad.jvp(display, (w,), (np.array([1.0, 2.0, 3.0]),))
    assert t == [1.0, 2.0 * 2.0 * w[1]]
    _, vjp_fn = catad.vjp(comprehension, w)
    np.testing.assert_array_equal(vjp_fn([1.0, 0.0, 3.0])[0], [2.0, 0.0, 6.0])
    with pytest.raises(catad.ArgumentError, match="shape"):
        vjp_fn([1.0, 2.0])
    concatenated = catad.vjp(comprehension, w)[0] + [5.0]
    assert len(concatenated) == 4 and concatenated[-1] == 5.0


def test_a_list_aux_is_a_list():
    w = np.array([0.3, -1.2, 0.7])
    _, aux = catad.grad(lambda w: (np.sum(w ** 2), [w[0], w[1] * 2.0]), has_aux=True)(w)
    assert described(aux) == described([w[0], w[1] * 2.0])
