"""Loops made builds raise the error Python raises first (issue 15): Python stops at the first
iteration where a check fails, and within it at the first check in source order; a build checks
every iteration at once. The loops here have several checks that fail at different iterations
(or at the same one); the primal program, grad and jvp must raise exactly Python's error: the
same class (catad's BoundsError is an IndexError, its ShapeError a ValueError), the same message,
the same line. Their loops are vectorised (the notes say so), so the order is not kept by
leaving them loops.
"""
from __future__ import annotations

import traceback

import numpy as np
import pytest

import catad
from catad.pipeline import compiled, pipeline
from test_loops import check


def python_error(f, args) -> tuple[BaseException, tuple[str, int]]:
    """The error f raises at args and the file and line of the user's code it is raised at
    (the innermost frame outside NumPy)."""
    try:
        f(*args)
    except Exception as e:  # noqa: BLE001 - any error Python raises is the one to match
        frames = [fr for fr in traceback.extract_tb(e.__traceback__) if "site-packages" not in fr.filename]
        return e, (frames[-1].filename, frames[-1].lineno)
    raise AssertionError(f"{f.__name__} raised nothing at {args}")


def tangents(args) -> tuple:
    return tuple(tangents(a) if isinstance(a, tuple) else np.ones_like(a, dtype=float)
                 if isinstance(a, np.ndarray) and a.dtype.kind == "f" else np.zeros_like(a)
                 if isinstance(a, np.ndarray) else 0.0 if isinstance(a, float) else 0 for a in args)


def same_error(f, args, own_message: str | None = None):
    """catad's primal program, grad and jvp raise f's error at args: class, message and line
    (own_message: where catad words it its own way, whatever the error, its words)."""
    want, line = python_error(f, args)
    cls = catad.BoundsError if isinstance(want, IndexError) else catad.ShapeError
    assert isinstance(want, (IndexError, ValueError)), want
    runs = {"primal": lambda: compiled(f, args, "primal")(*args),
            "grad": lambda: catad.grad(f)(*args),
            "jvp": lambda: catad.jvp(f, args, tangents(args))}
    for name, run in runs.items():
        with pytest.raises(cls) as info:
            run()
        got = info.value
        said = str(want).strip()  # catad names the construct before NumPy's words on shapes
        if own_message is not None:
            assert own_message in got.message and said not in got.message, (name, str(got), said)
        else:
            assert got.message in (said, f"{got.construct}: {said}"), (name, str(got), said)
        assert got.loc is not None and (got.loc.file, got.loc.line) == line, (name, str(got), line)


def vectorised(f, *args):
    notes = pipeline(f, *args).loop_notes
    assert notes and all("is vectorised: no Python loop" in n for n in notes), notes


def vec(n):
    return np.linspace(0.3, 1.1, n)


# ---------------------------------------------------------------- two reads on two lines

def two_lines(x, y, n):
    acc = 0.0
    for i in range(n):
        a = x[i + 1] * 2.0
        b = y[n - 1 - i]
        acc += a * b
    return acc


@pytest.mark.parametrize("nx, ny, n", [
    (4, 3, 6),    # y fails at iteration 0, x (the first check in the body) only at 3
    (4, 10, 6),   # x fails at 3, y never
    (9, 5, 6),    # y at 0, x never
])
def test_two_reads(nx, ny, n):
    args = (vec(nx), vec(ny), n)
    same_error(two_lines, args)
    vectorised(two_lines, *args)


def same_iteration(x, y, n):
    acc = 0.0
    for i in range(n):
        a = x[i]
        b = y[i]
        acc += a * b
    return acc


@pytest.mark.parametrize("nx, ny", [(3, 3), (3, 2), (2, 3)])
def test_the_first_check_of_an_iteration(nx, ny):
    # (3, 3): both fail at iteration 3, x's check is first; then each fails first in turn
    args = (vec(nx), vec(ny), 4)
    same_error(same_iteration, args)


def test_in_range_the_loops_are_values():
    check(two_lines, (vec(7), vec(6), 6), argnums=(0, 1))
    check(same_iteration, (vec(4), vec(5), 4), argnums=(0, 1))
    vectorised(same_iteration, vec(4), vec(5), 4)


# ---------------------------------------------------------------- an index read from data

def gather(x, y, idx):
    out = np.zeros(len(idx))
    total = 0.0
    for i in range(len(idx)):
        out[i] = x[i] * y[idx[i]]
        total += x[i + 1]
    return total * np.sum(out * out)


@pytest.mark.parametrize("nx, idx", [
    (6, [0, 1, 7, 2]),     # y[7] at iteration 2 (y has 5); x[i + 1] fine
    (3, [0, 1, 7, 2]),     # x[3] (x[i + 1]) at iteration 2, after y[7] in the body
    (3, [0, 9, 1, 2]),     # y[9] at 1, x at 2
    (2, [0, 1, -9, 2]),    # x[2] (x[i + 1]) at 1, y[-9] only at 2
    (6, [0, -2, 3, -6]),   # negative indices: y[-6] at 3
])
def test_a_map_and_a_sum_with_a_gather(nx, idx):
    args = (vec(nx), vec(5), np.array(idx))
    same_error(gather, args)


def test_gather_in_range():
    args = (vec(5), vec(5), np.array([0, 4, -1, 2]))
    check(gather, args, argnums=(0, 1))
    vectorised(gather, *args)


# ---------------------------------------------------------------- a check in a function called

def scaled(v, k):
    return v[k] * 3.0


def calls_a_helper(x, y, n):
    acc = 0.0
    for i in range(n):
        acc += scaled(x, 2 * i) + y[i]
    return acc


@pytest.mark.parametrize("nx, ny", [
    (4, 9),   # x[4] in scaled at iteration 2
    (9, 2),   # y[2] at 2
    (5, 3),  # x[6] in scaled and y[3] both fail at 3: Python raises x's, the first evaluated
])
def test_a_check_in_a_callee(nx, ny):
    args = (vec(nx), vec(ny), 4)
    same_error(calls_a_helper, args)


def calls_then_reads(x, y, k):
    return scaled(x, k) + y[k] + x[k + 1]


def local_then_reads(x, y, k):
    def sc(v, j):
        return v[j] * 3.0
    return sc(x, k) + y[k]


def reads_then_calls(x, y, k):
    return y[k] + scaled(x, k)


@pytest.mark.parametrize("f", [calls_then_reads, local_then_reads, reads_then_calls])
@pytest.mark.parametrize("nx, ny", [(3, 3), (3, 5), (5, 3), (4, 3)])
def test_a_callee_outside_loops(f, nx, ny):
    # with k = 3, each of x[3], y[3] and x[4] may fail: Python raises the first evaluated
    same_error(f, (vec(nx), vec(ny), 3))


# ---------------------------------------------------------------- nested loops

def nested(x, y, n, m):
    acc = 0.0
    for i in range(n):
        for j in range(m):
            acc += x[i] * y[i + j]
    return acc


@pytest.mark.parametrize("nx, ny", [
    (3, 10),   # x[3] at i = 3
    (9, 4),    # y[4] at i = 2, j = 2
    (3, 5),    # x[3] at (3, 0) before y[5] at (3, 2)
    (4, 5),    # y[5] at (3, 2), x fine
])
def test_nested_loops(nx, ny):
    args = (vec(nx), vec(ny), 5, 3)
    same_error(nested, args)
    vectorised(nested, *args)


# ---------------------------------------------------------------- shapes and bounds

def shapes_and_bounds(m, v, n):
    acc = 0.0
    for i in range(n):
        acc += np.sum(m[i] * v[1:i + 3])
    return acc


@pytest.mark.parametrize("rows, nv, n", [
    (2, 5, 3),   # the product's shapes: (3,) against v[1:2] (1 element) at i = 0 broadcast; m[2] at 2
    (4, 3, 3),   # (3,) against v[1:3]: (2,) at i = 0
    (5, 9, 4),   # (3,) against v[1:3] (2,) at 0
])
def test_shape_and_bounds_checks(rows, nv, n):
    args = (np.ones((rows, 3)), vec(nv), n)
    same_error(shapes_and_bounds, args)


def unused_call(x, n):
    acc = 0.0
    for i in range(n):
        t = scaled(x, i)  # its value unused, its check not: Python raises at i = len(x)
        acc += x[0] * 2.0
    return acc


def test_a_call_whose_value_is_unused_still_checks():
    same_error(unused_call, (vec(3), 5))
    vectorised(unused_call, vec(3), 5)
    check(unused_call, (vec(3), 3))


# ---------------------------------------------------------------- a max of nothing

def max_of_rows(m, k, n):
    acc = 0.0
    for i in range(n):
        acc += max(m[i, :k]) + m[i + 1, 0]
    return acc


@pytest.mark.parametrize("k", [0, 2])
def test_a_reduction_of_nothing_and_a_bounds_check(k):
    # k = 0: max() of nothing at i = 0 (Python's ValueError, its message), not the bounds check
    # after it; k = 2: m[i + 1] at the last row
    same_error(max_of_rows, (np.ones((3, 4)), k, 3))
    check(max_of_rows, (np.random.default_rng(1).uniform(-1, 1, (3, 4)), 2, 2))
    vectorised(max_of_rows, np.ones((3, 4)), 2, 2)
