"""reversed(x) as what a for loop or comprehension runs over (loops.unreversed): x[::-1] for an
array's rows, a list's or a tuple's items, and the range of a range's elements from the last,
held against Python's values and central differences; and comprehensions over ranges of
negative steps, which that range is."""
import ast

import numpy as np
import pytest

import catad
from located import agrees, refused


def horner(x, c):
    s = 0.0
    for a in reversed(c):
        s = s * x + a
    return s


def backward(x, v):
    s = x
    for t in reversed(range(len(v))):
        s = s * 0.5 + v[t] * t
    return s


def backward_from_one(x, v):
    s = x
    for t in reversed(range(1, len(v))):
        s = s * 0.5 + v[t] * t + v[t - 1]
    return s


def backward_steps(x, v):
    s = x
    for t in reversed(range(len(v) - 1, -1, -2)):
        s = s * 0.25 + v[t] * t
    for t in reversed(range(1, len(v), 3)):
        s = s * 0.25 + v[t] * t
    for t in reversed(range(len(v), 0, -1)):
        s = s * 0.5 + v[t - 1]
    return s


def rows_backward(x, m):
    s = x
    for r in reversed(m):
        s = s * 0.5 + r[0] * r[-1]
    return s


def zipped_and_counted(x, v):
    s = x
    for a, b in zip(reversed(v), v):
        s = s * a + b
    for i, a in enumerate(reversed(v)):
        s = s + i * a
    return s


def list_and_tuple(x, v):
    xs = [x, 2 * x, v[0]]
    t = (x * x, v[-1])
    s = 0.0
    for a in reversed(xs):
        s = s * 0.5 + a
    for a in reversed(t):
        s = s * 0.25 + a
    return s


def written_while_reversed(x, v):
    a = v * x
    s = x
    for e in reversed(a):
        a[0] = e * 2  # read by the last step, as Python's iterator reads a[0] there
        s = s * 0.5 + e
    return s


def comprehension_sum(x, v):
    return sum(v[i] * x ** i for i in reversed(range(len(v))))


def comprehension_rows(x, m):
    return sum(r[0] * x + r[1] for r in reversed(m))


LOOPS = [horner, backward, backward_from_one, backward_steps, zipped_and_counted, list_and_tuple,
         written_while_reversed, comprehension_sum]


@pytest.mark.parametrize("f", LOOPS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 6, 7])
def test_vectors_backward(f, n):
    v = np.linspace(-1.0, 2.0, n) + 0.25
    if n == 0 and f in (zipped_and_counted, list_and_tuple):
        return  # (v[0] of no element: an IndexError in both)
    agrees(f, 0.7, v, argnums=(0, 1) if n else 0)


@pytest.mark.parametrize("f", [rows_backward, comprehension_rows], ids=lambda f: f.__name__)
@pytest.mark.parametrize("rows", [0, 1, 4])
def test_rows_backward(f, rows):
    agrees(f, 0.3, np.arange(3.0 * rows).reshape(rows, 3) * 0.5 - 1.0, argnums=(0, 1))


def list_of_reversed_range(x, v):
    return np.array([v[i] * x for i in reversed(range(len(v)))])


def list_of_negative_steps(x, v):
    return np.array([v[i] * x for i in range(len(v) - 1, -1, -2)] + [v[i] for i in range(5, 0, -2)])


V7, U7 = np.arange(1.0, 8.0), np.arange(7.0) * 0.5 - 1.0
ELEMENTS = [(list_of_reversed_range, V7[::-1], U7[::-1] * 1.5),  # (f, its tangent at x = 1.5 along x, along U7)
            (list_of_negative_steps, np.r_[V7[6::-2], 0.0, 0.0, 0.0], np.r_[U7[6::-2] * 1.5, U7[[5, 3, 1]]])]


@pytest.mark.parametrize("f, dx, du", ELEMENTS, ids=lambda c: getattr(c, "__name__", ""))
def test_elements_in_python_order(f, dx, du):
    out, t = catad.jvp(f, (1.5, V7), (1.0, np.zeros(7)))
    np.testing.assert_array_equal(out, f(1.5, V7))  # each element Python's, in its order
    np.testing.assert_array_equal(t, dx)
    _, t = catad.jvp(f, (1.5, V7), (0.0, U7))
    np.testing.assert_array_equal(t, du)
    np.testing.assert_array_equal(catad.jacobian(f)(1.5, V7), dx)


def counting_down(x, v):
    k = len(v) - 7
    return sum(v[i] * x for i in range(k, -9, -3))


def test_negative_step_reads_out_of_range_as_python():
    v = np.arange(1.0, 7.0)
    with pytest.raises(IndexError):
        counting_down(1.5, v)
    with pytest.raises(catad.CatadError, match="out of bounds"):
        catad.grad(counting_down)(1.5, v)
    np.testing.assert_allclose(catad.grad(counting_down)(1.5, np.arange(1.0, 10.0)),
                               counting_down(1.0, np.arange(1.0, 10.0)))


def reversed_zip(x, v):
    s = x
    for e in reversed(zip(v, v)):  # ERR
        s = s + e[0]
    return s


def reversed_two(x, v):
    s = x
    for e in reversed(v, v):  # ERR
        s = s + e
    return s


def reversed_dict(x, v):
    d = {"p": x, "q": 2 * x}
    s = 0.0
    for k in reversed(d):  # ERR
        s = s * 2 + d[k]
    return s


def reversed_run_time_step(x, v):
    k = len(v)
    s = x
    for i in reversed(range(0, 4, k)):  # ERR
        s = s + v[i]
    return s


def reversed_called_start(x, v):
    s = x
    for i in reversed(range(int(np.sum(v)), 9, 2)):  # ERR
        s = s + v[i]
    return s


def reversed_as_a_value(x, v):
    return sum(reversed(list(v))) * x  # ERR


@pytest.mark.parametrize("f, words", [
    (reversed_zip, ["'zip' object is not reversible"]), (reversed_two, ["exactly one"]),
    (reversed_dict, ["reversed() of a dict"]), (reversed_run_time_step, ["non-zero integer constant"]),
    (reversed_called_start, ["bind the start"]), (reversed_as_a_value, ["x[::-1]"])], ids=lambda c: getattr(c, "__name__", ""))
def test_refused(f, words):
    args = (1.5, np.arange(1.0, 4.0))
    refused(f, args, *words)


def test_a_function_named_reversed_is_called(tmp_path, monkeypatch):
    """A module's own function named reversed is what its loop runs over, not builtins'."""
    (tmp_path / "own_reversed.py").write_text(
        "def reversed(v):\n    return v * 2.0\n\n\ndef f(x, v):\n    s = x\n"
        "    for a in reversed(v):\n        s = s * 0.5 + a\n    return s\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import own_reversed
    v = np.array([1.0, -2.0, 4.0])
    value, (gx, gv) = catad.value_and_grad(own_reversed.f, argnums=(0, 1))(3.0, v)
    assert value == own_reversed.f(3.0, v) == 6.875
    assert gx == 0.125 and gv.tolist() == [0.5, 1.0, 2.0]  # a = 2 v: weights 1/4, 1/2, 1
