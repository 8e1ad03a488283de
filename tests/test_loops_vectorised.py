"""Loops whose iterations are independent compile to builds and sums, as comprehensions do
(catad/frontend/independent.py; issue 15, item 4); loops with a true dependence still run as
Python loops. Values, gradients (reverse against central differences, forward against
reverse) and errors are those of the Python function."""
from __future__ import annotations

import re

import numpy as np
import pytest

import catad
from catad.pipeline import pipeline
from test_loops import check, check_value, vec
from located import marked_line


def code(f, *args) -> str:
    return catad.explain(f, *args).stage("code").text


def python_loops(text: str) -> list[str]:
    """The `for` statements of the generated functions."""
    return [line for line in text.splitlines() if re.match(r"\s+for \w+ in ", line)]


def notes(f, *args) -> list[str]:
    return pipeline(f, *args).loop_notes


def vectorised(f, *args):
    """f's loops all vectorised: no Python loop in any of its programs, and the code stage says so."""
    text = code(f, *args)
    assert python_loops(text) == [], text
    assert "is vectorised: no Python loop" in text, text
    assert "runs as a Python loop" not in text, text
    return text


def still_loops(f, *args):
    text = code(f, *args)
    assert python_loops(text), text
    assert "runs as a Python loop" in text or "still run as a Python loop" in text, text
    return text


# ---------------------------------------------------------------- maps: out[i] = e

def map_sin(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * 2.0
    return np.sum(out * out)


def map_enumerate(x, y):
    out = np.zeros(len(x))
    for i, xi in enumerate(x):
        out[i] = xi * y[i] + np.cos(xi)
    return np.sum(out * x)


def map_zip(x, y):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] * y[i]
    return np.sum(np.sin(out))


def map_rows(x):
    out = np.zeros((len(x), 3))
    for i in range(len(x)):
        out[i] = x[i] * np.arange(3) + x[i] ** 2
    return np.sum(out * out)


def map_2d(x):
    out = np.zeros((len(x), len(x)))
    for i in range(len(x)):
        for j in range(len(x)):
            out[i, j] = x[i] * np.sin(x[j])
    return np.sum(out @ x)


def map_partial(x, n):
    out = np.ones(len(x))
    for i in range(n):
        out[i] += x[i] * x[i]
    return np.sum(out * x)


def map_conditional_value(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[i] if x[i] > 0 else -2.0 * x[i]
    return np.sum(out * out)


@pytest.mark.parametrize("f, args", [
    (map_sin, (vec(5),)),
    (map_enumerate, (vec(4), vec(4))),
    (map_zip, (vec(4), vec(4))),
    (map_rows, (vec(4),)),
    (map_2d, (vec(4),)),
    (map_partial, (vec(5), 3)),
    (map_partial, (vec(5), 5)),
    (map_partial, (vec(5), 0)),
    (map_conditional_value, (vec(6),)),
])
def test_maps(f, args):
    check(f, args)
    vectorised(f, *args)


def test_map_is_one_whole_array_operation():
    text = code(map_sin, vec(5))
    primal = text.split("# its forward derivative")[0]
    assert "np.where" not in primal and "np.sin(" in primal, primal


# ---------------------------------------------------------------- reductions: acc = acc + h

def sum_sin(x):
    acc = 0.0
    for i in range(len(x)):
        acc = acc + np.sin(x[i])
    return acc


def sum_over_array(v, c):
    acc = c
    for e in v:
        acc += e * e * c
    return acc


def sum_conditional(v):
    acc = 1.0
    for e in v:
        if e > 0:
            acc += e
        else:
            acc -= e * e
    return acc


def sum_zip(x, y):
    s = 0.0
    for a, b in zip(x, y):
        s = s + a * b
    return s


def sum_range_from_one(x):
    acc = 0.0
    for i in range(1, len(x)):
        acc += (x[i] - x[i - 1]) ** 2
    return acc


def several_sums(x):
    a, b, n = 0.0, 0.0, 0
    for i, xi in enumerate(x):
        a = a + xi * i
        b -= np.exp(xi)
        n += 1
    return a * b + n


def sum_and_map(x):
    out = np.zeros(len(x))
    total = 0.0
    for i in range(len(x)):
        t = np.tanh(x[i])
        out[i] = t * t
        total += t
    return total * np.sum(out)


@pytest.mark.parametrize("f, args", [
    (sum_sin, (vec(5),)),
    (sum_over_array, (vec(5), 0.7)),
    (sum_conditional, (vec(7),)),
    (sum_zip, (vec(4), vec(3))),
    (sum_range_from_one, (vec(5),)),
    (several_sums, (vec(5),)),
    (sum_and_map, (vec(5),)),
])
def test_sums(f, args):
    check(f, args, argnums=tuple(k for k, a in enumerate(args) if not isinstance(a, int)))
    vectorised(f, *args)


def test_empty_loops():
    for f in (sum_sin, map_sin, several_sums, sum_range_from_one):
        check_value(f, (np.zeros(0),))
    check_value(sum_range_from_one, (np.ones(1),))


def sum_comprehension(x):
    return 0.0 + np.sum(np.array([np.sin(x[i]) for i in range(len(x))]))


def map_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = np.sin(x[i]) * 2.0
    return np.sum(out * x)


def map_comprehension(x):
    out = np.array([np.sin(x[i]) * 2.0 for i in range(len(x))])
    return np.sum(out * x)


def calls(text: str) -> list[str]:
    """The functions and methods a program calls, in order (its names aside)."""
    return [re.sub(r"^\w+\.(?=sum|shape|reshape)", "_.", c) for c in re.findall(r"[\w.]+(?=\()", text)]


@pytest.mark.parametrize("loop, comprehension", [(sum_sin, sum_comprehension), (map_loop, map_comprehension)])
def test_same_code_as_the_comprehension(loop, comprehension):
    for which in ("primal", "forward", "reverse"):
        a = catad.pipeline.compiled(loop, (vec(4),), which).source
        b = catad.pipeline.compiled(comprehension, (vec(4),), which).source
        assert calls(a.replace(loop.__name__, "f")) == calls(b.replace(comprehension.__name__, "f")), (a, b)


# ---------------------------------------------------------------- true dependences stay loops

def horner(coeffs, x):
    acc = 0.0
    for c in coeffs:
        acc = acc * x + c
    return acc


def running_max(v):
    out = np.zeros(len(v))
    best = v[0]
    for i in range(len(v)):
        best = max(best, v[i])
        out[i] = best
    return np.sum(out)


def prefix_sums(x):
    out = np.zeros(len(x))
    acc = 0.0
    for i in range(len(x)):
        acc = acc + x[i]
        out[i] = acc
    return np.sum(out * x)


def reads_previous(x):
    out = np.zeros(len(x))
    for i in range(1, len(x)):
        out[i] = out[i - 1] * 0.5 + x[i]
    return np.sum(out)


@pytest.mark.parametrize("f, args", [
    (horner, (vec(4), 0.3)),
    (running_max, (vec(5),)),
    (prefix_sums, (vec(5),)),
    (reads_previous, (vec(5),)),
])
def test_true_dependences_still_loop(f, args):
    check(f, args, argnums=tuple(range(len(args))))
    still_loops(f, *args)


def mixed(x):
    s = 0.0
    total = 0.0
    for i in range(len(x)):
        s = s * 0.9 + x[i]
        total = total + x[i] ** 2
    return s * total


def test_part_of_a_loop_is_vectorised():
    args = (vec(6),)
    check(mixed, args)
    text = code(mixed, *args)
    assert "is vectorised in part ('total' a sum); 's' still run as a Python loop" in text, text
    assert len(python_loops(text.split("# its forward")[0])) == 1


# ---------------------------------------------------------------- errors stay Python's

def writes_past_the_end(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i + 1] = x[i]  # ERR
    return np.sum(out)


def reads_past_the_end(x, n):
    acc = 0.0
    for i in range(n):
        acc += x[i] * 2.0  # ERR
    return acc


def writes_past_the_end_partial(x, n):
    out = np.zeros(len(x))
    for i in range(n):
        out[i] = x[0] * i  # ERR
    return np.sum(out)


@pytest.mark.parametrize("f, args", [
    (writes_past_the_end, (vec(4),)),
    (reads_past_the_end, (vec(4), 5)),
    (writes_past_the_end_partial, (vec(4), 6)),
])
def test_out_of_bounds_still_raises(f, args):
    with pytest.raises(IndexError):
        f(*args)
    line = marked_line(f)
    for run in (lambda: catad.pipeline.compiled(f, args, "primal")(*args),
                lambda: catad.grad(f)(*args),
                lambda: catad.jvp(f, args, tuple(np.zeros_like(a) if isinstance(a, np.ndarray) else 0 for a in args))):
        with pytest.raises(catad.BoundsError) as info:
            run()
        assert info.value.loc is not None and info.value.loc.line == line, str(info.value)


def test_in_bounds_partial_loops():
    check_value(reads_past_the_end, (vec(4), 4))
    check_value(writes_past_the_end_partial, (vec(4), 3))
    vectorised(reads_past_the_end, vec(4), 3)
    vectorised(writes_past_the_end_partial, vec(4), 3)


def negative_indices(x):
    out = np.zeros(len(x))
    for i in range(len(x)):
        out[i] = x[-1 - i] * 3.0
    return np.sum(out * x)


def test_negative_indices_wrap():
    args = (vec(5),)
    check(negative_indices, args)
    vectorised(negative_indices, *args)


def inner_dependence(m):
    out = np.zeros(len(m))
    for i in range(len(m)):
        s = 0.0
        for j in range(len(m[i])):
            s = s * 0.5 + m[i][j]
        out[i] = s
    return np.sum(out * out)


def test_an_inner_loop_with_a_dependence_is_one_loop_for_all_rows():
    # the inner loop's trip count is the same in every row: the outer loop is a build, in
    # which the inner loop runs once for all the rows (catad.backend.folds: batched)
    args = (RNG_M.uniform(-1, 1, (3, 4)),)
    check(inner_dependence, args)
    text = code(inner_dependence, *args)
    assert "'s' depends on its value in the previous iteration" in text, text
    assert "is vectorised: no Python loop ('out' a build)" in text, text
    primal = text.split("# its forward derivative")[0]
    assert len(python_loops(primal)) == 1, primal
    assert "batch_full" in primal, primal


def inner_dependence_ragged(m):
    out = np.zeros(len(m))
    for i in range(len(m)):
        s = 0.0
        for j in range(i + 1):
            s = s * 0.5 + m[i][j]
        out[i] = s
    return np.sum(out * out)


def test_an_inner_loop_whose_trip_count_changes_keeps_both_loops():
    args = (RNG_M.uniform(-1, 1, (4, 4)),)
    check(inner_dependence_ragged, args)
    text = still_loops(inner_dependence_ragged, *args)
    assert "is computed by a loop inside it whose trip count changes with the iteration" in text, text


def matvec(m, x):
    out = np.zeros(len(m))
    for i in range(len(m)):
        s = 0.0
        for j in range(len(x)):
            s += m[i, j] * x[j]
        out[i] = np.tanh(s)
    return np.sum(out)


def test_nested_sum_in_a_map():
    args = (RNG_M.uniform(-1, 1, (3, 4)), vec(4))
    check(matvec, args, argnums=(0, 1))
    vectorised(matvec, *args)


RNG_M = np.random.default_rng(4)


def guarded_write(x):
    out = np.ones(len(x))
    for i in range(len(x)):
        if x[i] > 0:
            t = np.exp(x[i])
            out[i] = t * x[i]
    return np.sum(out * x)


def guarded_write_else(x, y):
    out = np.zeros(len(x))
    for i, xi in enumerate(x):
        if xi < 0.2:
            pass
        else:
            out[i] = xi * y[i]
    return np.sum(out * out)


def guarded_write_else_square(x):
    out = np.zeros(len(x))
    for i, xi in enumerate(x):
        if xi < 0.2:
            pass
        else:
            out[i] = xi * np.sin(xi)
    return np.sum(out * out)


def test_guarded_writes():
    check(guarded_write, (vec(7),))
    vectorised(guarded_write, vec(7))
    check(guarded_write_else_square, (vec(7),))
    vectorised(guarded_write_else_square, vec(7))


def test_guarded_write_with_a_check_in_the_branch_stays_a_loop():
    # y[i]'s check runs only where the test holds, inside the update of `out`: left a loop
    args = (vec(6), vec(6))
    check(guarded_write_else, args, argnums=(0, 1))
    still_loops(guarded_write_else, *args)
    with pytest.raises(catad.BoundsError):
        catad.grad(guarded_write_else)(np.ones(6), np.ones(3))


def shifted_write(x):
    out = np.zeros(len(x) + 1)
    for i in range(len(x)):
        out[i + 1] = x[i] * x[i]
    return np.sum(out * np.arange(len(x) + 1))


def differences(x):
    d = np.ones(len(x))
    for i in range(1, len(x)):
        d[i] = x[i] - x[i - 1]
    return np.sum(d * d * x)


def running_from_two(x):
    out = np.zeros(len(x))
    for i in range(2, len(x) - 1):
        out[i] += np.sin(x[i + 1]) * x[i - 2]
    return np.sum(out * x)


@pytest.mark.parametrize("f", [shifted_write, differences, running_from_two])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_writes_at_an_offset(f, n):
    args = (vec(n),)
    check_value(f, args)
    if n:
        check(f, args)
    vectorised(f, *args)


def counter_over_a_comprehension(x, m):
    n = 0
    acc = 0.0
    for e in [x * k for k in range(m)]:
        n += 1
        acc += e
    return acc + n


def test_counter_over_an_empty_comprehension():
    for m in (-2, 0, 3):
        check_value(counter_over_a_comprehension, (0.5, m))
    vectorised(counter_over_a_comprehension, 0.5, 3)
