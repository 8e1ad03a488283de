"""The shape and bounds checks the front end puts in programs (catad/frontend/shapes.py,
build.py; the `check` primitive): where they are, where they are not needed, that they are
never dead code, never run where Python would not run them, cost O(1) per call for shapes,
and agree between the compiled code and the reference semantics.

The tables of shapes against NumPy itself are in test_shapes_broadcast.py, test_shapes_linalg.py
and test_bounds.py; this file is about the checks themselves."""
import numpy as np
import pytest

import catad
from catad.backend import runtime
from catad.lang.evaluate import evaluate
from catad.lang.terms import Call


def checks_in(fn, *args) -> list[str]:
    """The check calls of fn's core program, as printed."""
    out, stack = [], [catad.to_core(fn, *args).main.body]
    while stack:
        t = stack.pop()
        if isinstance(t, Call) and t.fn == "check":
            out.append(str(t))
        stack.extend(k for k in t.children() if hasattr(k, "children"))
    return out


# ------------------------------------------------------------ proven while compiling: no check

def dot_self(v):
    return sum(v[i] * v[i] for i in range(len(v)))


def differences(x):
    return np.sum((x[1:] - x[:-1]) ** 2)


def neighbours(x):
    return sum(x[i + 1] * x[i] for i in range(len(x) - 1))


def reversed_sum(v):
    n = len(v)
    return sum(v[n - 1 - i] * float(i) for i in range(n))


def all_of_rows(m):
    return sum(sum(m[i][j] for j in range(len(m[i]))) for i in range(len(m)))


def same_operand(v):
    return np.sum(v * np.sin(v) + v)


@pytest.mark.parametrize("fn, args", [
    (dot_self, (np.ones(4),)), (differences, (np.ones(5),)), (neighbours, (np.ones(5),)),
    (reversed_sum, (np.ones(4),)), (same_operand, (np.ones(3),)), (all_of_rows, (np.ones((3, 4)),))])
def test_what_is_proven_needs_no_check(fn, args):
    assert checks_in(fn, *args) == []


def after_a_check(v, w):
    d = np.dot(v, w)       # checks len(v) == len(w) once ...
    return d * np.sum(v * w - w)  # ... and nothing more is needed after it


def test_an_equality_checked_once_is_known_after_it():
    assert len(checks_in(after_a_check, np.ones(3), np.ones(3))) == 1
    with pytest.raises(catad.ShapeError, match=r"np\.dot: shapes \(3,\) and \(4,\) not aligned"):
        catad.grad(after_a_check)(np.ones(3), np.ones(4))


def in_a_branch(v, w, c):
    if c > 0.0:
        return np.sum(v * w)  # the check learnt here holds in this branch only
    return np.sum(v - w)


def test_an_equality_checked_in_a_branch_is_not_known_outside_it():
    assert len(checks_in(in_a_branch, np.ones(3), np.ones(3), 1.0)) == 2


# ------------------------------------------------------------ never dead code, never where Python does not go

def unused_sum(v, w):
    y = v + w  # noqa: F841  Python raises here even though y is never used
    return np.sum(v)


def unused_index(v):
    y = v[5]  # noqa: F841
    return np.sum(v)


def test_a_check_is_kept_when_its_value_is_not_used():
    with pytest.raises(catad.ShapeError):
        catad.grad(unused_sum)(np.ones(3), np.ones(4))
    with pytest.raises(catad.BoundsError):
        catad.grad(unused_index)(np.ones(3))
    assert catad.grad(unused_index)(np.ones(6)).tolist() == [1.0] * 6


def guarded_dot(v, w):
    if len(v) == len(w):
        return np.dot(v, w)
    return 0.0


def guarded_index(v, k):
    return v[k] if k < len(v) else 0.0


def test_a_check_in_a_branch_not_taken_does_not_raise():
    v, w = np.arange(3.0), np.ones(4)
    assert catad.value_and_grad(guarded_dot)(v, w) == (0.0, pytest.approx(np.zeros(3)))
    assert catad.value_and_grad(guarded_dot, argnums=(0, 1))(v, np.ones(3))[0] == 3.0
    assert catad.value_and_grad(guarded_index)(v, 7) == (0.0, pytest.approx(np.zeros(3)))
    assert catad.jvp(guarded_dot, (v, w), (np.ones(3), np.ones(4)))[0] == 0.0


def repeated_dot(v, w, k):
    return sum(np.dot(v, w) for i in range(k))


def test_a_comprehension_with_no_elements_checks_nothing():
    v, w = np.ones(3), np.ones(4)
    assert catad.value_and_grad(repeated_dot)(v, w, 0) == (0.0, pytest.approx(np.zeros(3)))
    with pytest.raises(catad.ShapeError):
        catad.grad(repeated_dot)(v, w, 1)


# ------------------------------------------------------------ once per call, not per element

def test_shape_checks_look_at_lengths_not_elements(monkeypatch):
    seen = []
    real = runtime.check_ok

    def spy(cond, mask, lanes, site, data):
        seen.append((site.kind, np.size(cond)))
        return real(cond, mask, lanes, site, data)
    monkeypatch.setattr(runtime, "check_ok", spy)
    x, y = np.ones((1000, 3)), np.ones((1, 3))

    def f(x, y, w):
        return np.sum((x - y) ** 2 * w) + sum(x[i, 0] * w[i % 3] for i in range(len(x)))
    g = catad.grad(f)
    g(x, y, np.ones(3))
    del seen[:]
    g(x, y, np.ones(3))  # the compiled code, without compiling (the namespace holds the spy)
    shapes = [n for kind, n in seen if kind == "shape"]
    assert shapes and max(shapes) == 1  # lengths, not elements
    # w[i % 3], read from data, is checked for every i: in one whole-array test
    assert {n for kind, n in seen if kind == "bounds"} <= {1, len(x)}


def data_index(v, idx):
    return sum(v[idx[i]] for i in range(len(idx)))


def test_an_index_read_from_data_is_checked_element_by_element():
    v = np.arange(4.0)
    assert catad.grad(data_index)(v, np.array([0, 3, -1])).tolist() == [1.0, 0.0, 0.0, 2.0]
    with pytest.raises(catad.BoundsError, match="index 4 is out of bounds for axis 0 with size 4"):
        catad.grad(data_index)(v, np.array([0, 4]))


# ------------------------------------------------------------ the reference semantics agree

@pytest.mark.parametrize("fn, args, error", [
    (unused_sum, (np.ones(3), np.ones(4)), catad.ShapeError),
    (after_a_check, (np.ones(3), np.ones(4)), catad.ShapeError),
    (data_index, (np.ones(4), np.array([5])), catad.BoundsError),
    (neighbours, (np.ones(3),), None)])
def test_the_reference_evaluator_raises_the_same_errors(fn, args, error):
    program = catad.to_core(fn, *[np.ones(3) if isinstance(a, np.ndarray) and a.dtype.kind == "f" else a
                                  for a in args])
    if error is None:
        assert evaluate(program, *args) == fn(*args)
        return
    with pytest.raises(error):
        evaluate(program, *args)


# ------------------------------------------------------------ lengths known only at run time

def with_zeros(v, k):
    return np.sum((v + np.zeros(k)) ** 2)


def sliced(v, a, b, w):
    return np.sum(v[a:b] * w)


@pytest.mark.parametrize("k", [1, 3])
def test_a_length_made_at_run_time_broadcasts_when_it_is_1(k):
    v = np.array([1.0, 2.0, 3.0])
    assert catad.value_and_grad(with_zeros)(v, k) == (pytest.approx(14.0), pytest.approx(2 * v))


def test_a_length_made_at_run_time_that_does_not_broadcast_raises():
    with pytest.raises(catad.ShapeError, match=r"shapes \(3,\) \(2,\)"):
        catad.grad(with_zeros)(np.ones(3), 2)


def test_a_slice_of_length_1_at_run_time_is_stretched():
    v, w = np.array([1.0, 2.0, 3.0]), np.array([1.0, 10.0, 100.0])
    assert catad.value_and_grad(sliced)(v, 1, 2, w)[0] == sliced(v, 1, 2, w)
    assert catad.grad(sliced)(v, 1, 2, w).tolist() == [0.0, 111.0, 0.0]
    assert catad.grad(sliced, argnums=3)(v, 0, 3, w).tolist() == v.tolist()
    with pytest.raises(catad.ShapeError):
        catad.grad(sliced)(v, 0, 2, w)


# ------------------------------------------------------------ globals have length-1 axes too

ROW = np.ones((1, 3))


def minus_row(x):
    return np.sum((x - ROW) ** 2)


def test_a_global_array_broadcasts_by_its_own_length_1_axes():
    global ROW
    x = np.arange(6.0).reshape(2, 3)
    try:
        assert catad.value_and_grad(minus_row)(x) == (minus_row(x), pytest.approx(2 * (x - ROW)))
        ROW = np.full((2, 1), 2.0)  # now stretched along the other axis
        assert catad.value_and_grad(minus_row)(x) == (minus_row(x), pytest.approx(2 * (x - ROW)))
        ROW = np.ones((3, 3))
        with pytest.raises(catad.ShapeError):
            catad.grad(minus_row)(x)
    finally:
        ROW = np.ones((1, 3))


# ------------------------------------------------------------ no size is reconciled at run time

def test_run_time_helpers_refuse_to_reconcile_sizes():
    """A read past the end that no mask discards, or a write past the end of a non-zero
    value, would mean a missing check: an internal error, never padding or truncation."""
    x = np.arange(3.0)[None, None]
    with pytest.raises(AssertionError):
        runtime.take_iota(x, 1, 2, 5)
    assert runtime.take_iota(x, 1, 2, 5, True).tolist() == [[0.0, 1.0, 2.0, 0.0, 0.0]]
    with pytest.raises(AssertionError):
        runtime.update_vector(np.array([1.0, 2.0, 3.0]), 0, 2)
    assert runtime.update_vector(np.array([1.0, 2.0, 0.0]), 0, 2).tolist() == [1.0, 2.0]
    with pytest.raises(AssertionError):
        runtime.scatter((2,), (np.array([0, 5]),), np.array([1.0, 1.0]))
