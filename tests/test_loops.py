"""for loops compile to fold (issue 15, item 2): values against the Python function itself,
gradients against central differences and forward mode (jvp) against reverse mode (grad), at
random inputs; refusals are located CatadErrors naming the line and the construct.

Each function marks the line a refusal must name with the comment `# ERR`.
"""
from __future__ import annotations


import numpy as np
import pytest

import catad
from catad import CatadError, CatadTypeError, UnsupportedSyntax
from catad.lang.evaluate import evaluate
from catad.pipeline import compiled
from test_gradients import central_difference
from located import marked_line, refused

RNG = np.random.default_rng(15)


def vec(n):
    return RNG.uniform(-1, 1, n)


# ---------------------------------------------------------------- the checks

def assert_same(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            assert_same(g, w)
        return
    if isinstance(want, (int, np.integer)) and not isinstance(want, bool):
        assert got == want and isinstance(got, (int, np.integer)), (got, want)
        return
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def check_value(f, args):
    """The compiled program and the core program's reference evaluation give f's value."""
    want = f(*args)
    assert_same(compiled(f, args, "primal")(*args), want)
    assert_same(evaluate(catad.to_core(f, *args), *args), want)
    return want


def check_gradient(f, args, argnums):
    """grad against central differences, and jvp (forward) against grad (reverse) along a
    random direction."""
    grads = catad.grad(f, argnums=argnums)(*args)
    tangents = []
    for k, a in enumerate(args):
        if k in argnums:
            tangents.append(vec(np.shape(a)) if np.ndim(a) else float(vec(1)[0]))
        else:
            tangents.append(_zero_like(a))
    out, jt = catad.jvp(f, tuple(args), tuple(tangents))
    assert out == pytest.approx(f(*args), rel=1e-12, abs=1e-12)
    expected = 0.0
    for k, g in zip(argnums, grads):
        fd = central_difference(f, list(args), k)
        assert np.shape(g) == np.shape(args[k])
        np.testing.assert_allclose(g, fd, rtol=1e-5, atol=1e-6, err_msg=f"argument {k}")
        expected += float(np.sum(np.asarray(g) * tangents[k]))
    assert jt == pytest.approx(expected, rel=1e-9, abs=1e-9)


def _zero_like(a):
    if isinstance(a, tuple):
        return tuple(_zero_like(x) for x in a)
    return np.zeros_like(a, dtype=float) if isinstance(a, np.ndarray) else 0.0


def check(f, args, argnums=(0,)):
    check_value(f, args)
    check_gradient(f, args, argnums)


# ---------------------------------------------------------------- range loops

def range_sum(x, v):
    s = 0.0
    for i in range(len(v)):
        s = s + x * v[i] * v[i]
    return s


def range_bounds(x, v, a, b):
    s = x
    for i in range(a, b):
        s = s * 0.9 + np.sin(v[i] * s)
    return s


def range_step(x, v):
    s = 0.0
    for i in range(1, len(v), 3):
        s += v[i] * x + s * v[i - 1]
    return s


def range_negative(x, v):
    s = x
    for i in range(len(v) - 1, -1, -2):
        s = s * v[i] + 1.0
    return s


def int_to_float(x, n):
    s = 0  # an Int before the loop, a Float after it: a Float from the start, as if's join does
    for i in range(n):
        s = s + x * i
    return s * 1.0


def reads_loop_var_after(x, n):
    i = 100
    for i in range(2, n + 2):
        x = x * 1.5
    return x + i


def first_assigned_runs(x, v):
    for i in range(3):
        last = v[i] * x  # a number first assigned in a loop that surely runs
    return last


@pytest.mark.parametrize("f, args", [
    (range_sum, (0.7, vec(6))),
    (range_sum, (0.7, vec(0))),
    (range_bounds, (0.3, vec(8), 2, 7)),
    (range_bounds, (0.3, vec(8), 5, 2)),
    (range_step, (0.4, vec(11))),
    (range_step, (0.4, vec(1))),
    (range_negative, (0.8, vec(7))),
    (range_negative, (0.8, vec(0))),
    (int_to_float, (1.5, 4)),
    (int_to_float, (1.5, 0)),
    (reads_loop_var_after, (0.5, 3)),
    (reads_loop_var_after, (0.5, 0)),
    (first_assigned_runs, (0.5, vec(4))),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_range_loops(f, args):
    check(f, args)


def range_length(a, b):
    n = 0
    for i in range(a, b, -3):
        n += 1
    return n


@pytest.mark.parametrize("a, b", [(10, 0), (0, 10), (10, 10), (-4, -20), (7, 6), (3, -5)])
def test_range_length_is_pythons(a, b):
    assert_same(compiled(range_length, (a, b), "primal")(a, b), range_length(a, b))


# ---------------------------------------------------------------- accumulators

def tuple_state(c, u0, w, v):
    s, u, k = c, u0, 0  # (Float, Vec, Int)
    for x in v:
        s, u, k = s * c + np.sin(x * s), u * np.cos(x) + w * s, k + 1
    return s + np.sum(u) * k


def tuple_state_out(c, u0, w, v):
    s, u, k = c, u0, 0
    for x in v:
        s, u, k = s * c + np.sin(x * s), u * np.cos(x) + w * s, k + 1
    return s, u, k


def vec_state(x, v, m):
    u = v * 1.0
    for row in m:
        u = u * x + row * np.sum(u)
    return np.sum(u * u)


def matrix_state(x, m):
    a = m * 1.0
    for i in range(3):
        a = np.tanh(a * x + 0.1 * i)
    return np.sum(a)


def test_tuple_accumulator_keeps_its_int():
    args = (0.8, vec(3), vec(3), vec(4))
    out = check_value(tuple_state_out, args)
    assert out[2] == 4


@pytest.mark.parametrize("f, args, argnums", [
    (tuple_state, (0.8, vec(3), vec(3), vec(4)), (0, 1, 2, 3)),
    (tuple_state, (0.8, vec(3), vec(3), vec(0)), (0, 1, 2)),
    (vec_state, (0.3, vec(3), vec((4, 3))), (0, 1, 2)),
    (matrix_state, (0.5, vec((2, 3))), (0, 1)),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_accumulators(f, args, argnums):
    check(f, args, argnums)


# ---------------------------------------------------------------- what a loop runs over

def over_rows(a, m, v):
    acc = a
    for row in m:
        acc = acc * 0.5 + np.sum(row * v) * a
    return acc


def over_vector(x, v):
    s = x
    for e in v:
        s = s * e + x
    return s


def over_enumerate(x, v):
    s = x
    for i, e in enumerate(v):
        s = s + (i + 1) * e * s * 0.1
    return s


def over_zip(x, v, w):
    s = x
    for a, b in zip(v, w):
        s = s + a * b * x
    return s


def over_zip_rows(x, m, v):
    s = x
    for row, e in zip(m, v):
        s = s + np.sum(row) * e * s
    return s


WS = None


def mlp(x, ws, bs):
    h = x
    for w, b in zip(ws, bs):  # a tuple of layers of different shapes: unrolled
        h = np.tanh(w @ h + b)
    return np.sum(h)


def over_tuple(x, layers):
    s = x
    for k, layer in enumerate(layers):
        s = s + k * np.sum(layer) * s
    return s


@pytest.mark.parametrize("f, args, argnums", [
    (over_rows, (0.4, vec((4, 3)), vec(3)), (0, 1, 2)),
    (over_rows, (0.4, vec((0, 3)), vec(3)), (0, 1, 2)),
    (over_vector, (0.4, vec(5)), (0, 1)),
    (over_enumerate, (0.4, vec(5)), (0, 1)),
    (over_zip, (0.4, vec(5), vec(3)), (0, 1, 2)),
    (over_zip_rows, (0.4, vec((3, 2)), vec(4)), (0, 1, 2)),
    (mlp, (vec(3), (vec((4, 3)), vec((2, 4))), (vec(4), vec(2))), (0, 1, 2)),
    (over_tuple, (0.3, (vec(2), vec((2, 2)), vec(3))), (0, 1)),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_iterables(f, args, argnums):
    check_value(f, args)
    if all(not isinstance(a, tuple) for a in args):
        check_gradient(f, args, argnums)
    else:
        scalar_args = [k for k in argnums if not isinstance(args[k], tuple)]
        check_gradient(f, args, tuple(scalar_args))
        grads = catad.grad(f, argnums=argnums)(*args)
        _check_tuple_grads(f, args, argnums, grads)


def _check_tuple_grads(f, args, argnums, grads):
    """Central differences for each array of a tuple argument."""
    for k, g in zip(argnums, grads):
        if not isinstance(args[k], tuple):
            continue
        for j, item in enumerate(args[k]):
            def at(x, k=k, j=j):
                items = list(args[k])
                items[j] = x
                return f(*args[:k], tuple(items), *args[k + 1:])
            fd = central_difference(at, [item], 0)
            np.testing.assert_allclose(g[j], fd, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------- nesting

def nested(x, m):
    s = x
    for i in range(m.shape[0]):
        t = 0.0
        for j in range(m.shape[1]):
            t = t + m[i, j] * s
        s = s * 0.5 + np.sin(t)
    return s


def comprehension_in_loop(x, v):
    s = x
    for k in range(3):
        s = s + sum(v[i] * s for i in range(len(v))) * 0.1
    return s


def loop_helper(x, v):
    s = x
    for e in v:
        s = s * e + 1.0
    return s


def loop_in_comprehension(x, v):
    return sum(loop_helper(x * v[i], v) for i in range(len(v)))


@pytest.mark.parametrize("f, args, argnums", [
    (nested, (0.4, vec((3, 4))), (0, 1)),
    (nested, (0.4, vec((0, 4))), (0, 1)),
    (comprehension_in_loop, (0.4, vec(4)), (0, 1)),
    (loop_in_comprehension, (0.4, vec(4)), (0, 1)),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_nesting(f, args, argnums):
    check(f, args, argnums)


# ---------------------------------------------------------------- long loops

def long_loop(x, v):
    s = x
    for i in range(len(v)):
        s = s * 0.999 + v[i] * 1e-3
    return s


def _dense_copies(run) -> int:
    """How many times the tangent sums (catad.tangents.Acc) take a dense buffer of their own
    (a copy) while run() runs: work counted, not timed."""
    from catad import tangents
    count, add = [0], tangents.Acc.add

    def counting_add(self, x):
        owned = self.owned
        add(self, x)
        count[0] += self.owned and not owned
    tangents.Acc.add = counting_add
    try:
        run()
    finally:
        tangents.Acc.add = add
    return count[0]


def test_long_loop_and_compile_time_independent_of_trip_count():
    small, big = vec(10), vec(100_000)
    g_small = catad.grad(long_loop, argnums=(0, 1))(0.5, small)
    copies = _dense_copies(lambda: catad.grad(long_loop, argnums=(0, 1))(0.5, big))  # same signature: no compile
    g = catad.grad(long_loop, argnums=(0, 1))(0.5, big)
    # the cotangent of v, read as v[i] in the body, is summed in place: one dense buffer
    # for the whole loop, not a copy of it per iteration (n^2)
    assert copies <= 4, copies
    assert g[1].shape == big.shape and np.all(np.isfinite(g[1]))
    # d s / d v[i] = 1e-3 * 0.999 ** (n - 1 - i); d s / d x = 0.999 ** n
    n = len(big)
    np.testing.assert_allclose(g[1][-5:], 1e-3 * 0.999 ** np.arange(4, -1, -1), rtol=1e-10)
    assert g[0] == pytest.approx(0.999 ** n, rel=1e-9)
    assert g_small[0] == pytest.approx(0.999 ** 10, rel=1e-12)
    assert long_loop(0.5, big) == pytest.approx(compiled(long_loop, (0.5, big), "primal")(0.5, big), rel=1e-12)
    from catad.pipeline import _CACHE, signature
    assert len(_CACHE[long_loop][signature(long_loop, (0.5, big))]) == 1


# ---------------------------------------------------------------- break, continue, return

def continue_first(x, v):
    s = x
    for e in v:
        if e < 0.0:  # data-dependent: skip the negative elements
            continue
        s = s * e + x
    return s


def continue_middle(x, v):
    s, t = x, 0.0
    for i in range(len(v)):
        t = t + v[i] * x
        if v[i] > 0.35:
            s = s + t
            continue
        elif v[i] < -0.5:
            continue
        s = s * np.cos(v[i] * s)
        t = t * 0.5
    return s + t


def break_threshold(x, v):
    s = 0.0
    for e in v:
        s = s + e * e * x
        if s > 1.0:  # accumulate until the sum exceeds a threshold
            break
        s = s * 1.1
    return s


def break_index(x, v):
    idx = -1
    for i in range(len(v)):
        if v[i] < 0.0:  # the first index where v[i] < 0
            idx = i
            break
    return idx


def break_value(x, v):
    found = x
    for e in v:
        if e < 0.0:
            found = e * x
            break
        found = found + e
    return found * found


def break_loop_var(x, v):
    i = 0
    for i in range(len(v)):  # i after the loop: its value at the break, as in Python
        if v[i] * x > 0.5:
            break
    return x * i + v[i]


def break_loop_var_first(x, v):
    s = x
    for k in range(4):  # runs surely: k, first assigned by the loop, is read after it
        s = s * v[k]
        if s < 0.0:
            break
    return s + k


def break_past_end(x, v):
    s = x
    for i in range(100):  # reads v[i] only while i < len(v): an index past the end is never checked
        if i >= len(v):
            break
        s = s * 0.5 + v[i]
    return s


def break_enumerate(x, v, w):
    s = x
    for k, a in enumerate(v):
        b = w[k]
        if a * b > 0.2:
            break
        s = s + a * b * s + k * x
    return s


def break_nested(x, m):
    s = x
    for row in m:
        for e in row:
            if e > 0.5:  # leaves the inner loop only
                break
            s = s + e * s
        s = s * 0.9
    return s


def break_outer_after_inner(x, m):
    s = x
    for i in range(m.shape[0]):
        t = 0.0
        for j in range(m.shape[1]):
            if m[i, j] < -0.5:
                continue
            t = t + m[i, j] * s
        if t > 1.0:
            break
        s = s + np.sin(t)
    return s


def break_tuple(x, ws, bs):
    h = x
    for w, b in zip(ws, bs):  # unrolled: each copy is guarded
        if np.sum(h) > 0.5:
            break
        h = np.tanh(w @ h + b)
    return np.sum(h * h)


def jumps_combined(x, v):
    s, n = x, 0
    for e in v:
        if e < -0.5:
            continue
        n += 1
        if e > 0.8:
            break
        s = s * 0.5 + e * x
        if s > 2.0:
            return s * 10.0
    return s + n


def return_in_loop(x, v):
    for e in v:
        y = e * x
        if y > 1.0:
            return y * y  # found
    return -x  # not found


def return_array(x, v):
    u = v * x
    for i in range(len(v)):
        u = u * np.cos(u)
        if u[i] < 0.0:
            return u * 2.0
    return u


def return_nested(x, m):
    s = 0.0
    for row in m:
        for e in row:
            s = s + e * x
            if s > 1.0:
                return s * s  # leaves both loops and the function
        s = s * 0.5  # runs only when the inner loop did not return
    return -s


def return_in_branch(x, v):
    if x > 0.0:
        for e in v:
            if e * x > 0.5:
                return e * x
        y = x * 3.0
    else:
        y = x * 2.0
    return y


def return_int_and_float(x, v):
    for i in range(len(v)):
        if v[i] > 0.5:
            return i  # an Int here, a Float below: the function returns a Float
    return x


V = np.array([0.4, 0.9, -0.2, 0.6, -0.7, 0.3])
M = np.array([[0.2, 0.3, 0.7, 0.1], [0.1, -0.6, 0.2, 0.4], [0.3, 0.2, 0.1, 0.9]])
LAYERS = ((np.array([[0.5, -0.3], [0.2, 0.4]]), np.array([[0.3, 0.1], [-0.2, 0.5]]), np.array([[1.0, 0.2]])),
          (np.array([0.1, 0.05]), np.array([0.0, 0.1]), np.array([0.2])))


@pytest.mark.parametrize("f, args, argnums", [
    (continue_first, (0.7, V), (0, 1)),
    (continue_first, (0.7, -V), (0, 1)),
    (continue_middle, (0.6, V), (0, 1)),
    (break_threshold, (0.9, V), (0, 1)),  # breaks at the 4th element
    (break_threshold, (0.1, V), (0, 1)),  # never breaks
    (break_value, (0.7, V), (0, 1)),
    (break_value, (0.7, np.abs(V)), (0, 1)),
    (break_loop_var, (0.7, V), (0, 1)),
    (break_loop_var, (0.1, V), (0, 1)),
    (break_loop_var_first, (0.7, V), (0, 1)),
    (break_loop_var_first, (0.7, np.abs(V)), (0, 1)),
    (break_past_end, (0.7, V), (0, 1)),
    (break_enumerate, (0.7, V, V[::-1].copy()), (0, 1, 2)),
    (break_nested, (0.7, M), (0, 1)),
    (break_outer_after_inner, (0.7, M), (0, 1)),
    (break_outer_after_inner, (2.5, M), (0, 1)),
    (jumps_combined, (0.7, V), (0, 1)),
    (jumps_combined, (0.7, np.array([0.3, -0.9, 0.2, 0.9, 0.5])), (0, 1)),
    (jumps_combined, (3.0, np.array([1.5, 1.2, -0.9, 0.7])), (0, 1)),
    (return_in_loop, (1.5, V), (0, 1)),
    (return_in_loop, (0.5, V), (0, 1)),
    (return_nested, (0.9, M), (0, 1)),
    (return_nested, (0.2, M), (0, 1)),
    (return_in_branch, (0.9, V), (0, 1)),
    (return_in_branch, (0.3, V), (0, 1)),
    (return_in_branch, (-0.3, V), (0, 1)),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_jumps(f, args, argnums):
    check(f, args, argnums)


@pytest.mark.parametrize("v, want", [(V, 2), (np.abs(V), -1), (-V, 0), (np.zeros(0), -1)])
def test_break_index(v, want):
    assert check_value(break_index, (0.0, v)) == want


def test_return_int_and_float():
    """An Int returned in the loop joins the Float returned after it (as two returns outside a loop do)."""
    for v, want in ((V, 1.0), (V * 0.5, 0.3)):
        got = compiled(return_int_and_float, (0.3, v), "primal")(0.3, v)
        assert got == want and isinstance(got, float)
    check_gradient(return_int_and_float, (0.3, V * 0.5), (0,))
    assert catad.grad(return_int_and_float)(0.3, V) == 0.0


def test_return_array():
    for x in (0.9, -0.9):
        args = (x, V)
        check_value(return_array, args)
        g = catad.grad(lambda x, v: np.sum(return_array(x, v) ** 2), argnums=(0, 1))(*args)
        for k in (0, 1):
            fd = central_difference(lambda x, v: np.sum(return_array(x, v) ** 2), list(args), k)
            np.testing.assert_allclose(g[k], fd, rtol=1e-5, atol=1e-6)


def test_break_tuple():
    for x in (np.array([0.1, -0.2]), np.array([0.4, 0.3])):
        args = (x, *LAYERS)
        check_value(break_tuple, args)
        check_gradient(break_tuple, args, (0,))
        grads = catad.grad(break_tuple, argnums=(1, 2))(*args)
        _check_tuple_grads(break_tuple, args, (1, 2), grads)


def array_state_break(x, v, m):
    u = v * x
    for row in m:
        u = np.tanh(u + row)
        if np.sum(u) > 0.5:
            break
    return np.sum(u * u)


def test_array_state_break_value():
    check_value(array_state_break, (0.3, V, np.full((4, 6), 0.1)))


def array_state_flag(x, v, m):
    u = v * x
    done = False
    for row in m:
        if not done:
            u = np.tanh(u + row)
            done = np.sum(u) > 0.5
    return np.sum(u * u)


@pytest.mark.parametrize("f", [array_state_break, array_state_flag])
def test_array_state_break_gradient(f):
    """An array state under a data-dependent if inside the loop's guard: the reverse step's
    cotangent is an update whose value is a vectorised build, scattered into an array
    (it raised the backend's internal Unvectorisable before)."""
    check_value(f, (0.3, V, np.full((4, 6), 0.1)))
    check_gradient(f, (0.3, V, np.full((4, 6), 0.1)), (0, 1, 2))
    check_gradient(f, (0.9, V, np.full((4, 6), -0.3)), (0, 1, 2))


def test_break_freezes_the_state():
    """The fold runs its full trip count; after the break each iteration is the identity."""
    core = str(catad.to_core(break_threshold, 0.9, V))
    assert "fold" in core and "_break" in core


# ---------------------------------------------------------------- refusals

def generator_loop(x):
    s = x
    for e in (x * k for k in range(3)):  # ERR
        s = s + e
    return s


def maybe_unbound(x, v):
    for e in v:
        if e > x:  # (assigned on every path of the body: tests/test_maybe_bound.py)
            last = e * x
    return last  # ERR


def tuple_first_in_loop(x, v):
    for i in range(2):
        w = (v * x, x)
    return np.sum(w[0])  # ERR


def assigns_loop_var(x, n):
    for i in range(n):  # ERR
        i = i + 1
        x = x * 2.0
    return x


def changes_type(x, v):
    s = x
    for e in v:  # ERR
        s = v * e
    return s


def step_not_constant(x, n, k):
    s = x
    for i in range(0, n, k):  # ERR
        s = s * 2.0
    return s


def read_before_assigned(x, n):
    for i in range(n):  # ERR
        if i > 0:
            x = x + prev
        prev = x
    return x


def loop_var_after_break(x, v):
    for e in v:  # (its value, or UnboundLocalError for an empty v: tests/test_maybe_bound.py)
        if e < 0.0:
            s = e
            break
    return x * s  # ERR


def returns_two_types(x, v):
    for e in v:
        if e < 0.0:
            return v * x  # ERR
        if e > 2.0:
            return e
    return x


def bare_return_in_loop(x, v):
    for e in v:
        if e < 0.0:
            return  # ERR
    return x


def no_return_after_loop(x, v):  # ERR
    for e in v:
        if e > 0.0:
            return e * x


V3 = np.array([1.0, 2.0, 3.0])


@pytest.mark.parametrize("f, args, words", [
    (generator_loop, (1.0,), ["generator expression"]),
    (maybe_unbound, (1.0, V3), ["'last'", "may run zero times", "assign it before the loop"]),
    (tuple_first_in_loop, (1.0, V3), ["'w'", "first assigned inside the for loop", "assign it before the loop"]),
    (assigns_loop_var, (1.0, 3), ["loop variable 'i'", "another name"]),
    (changes_type, (1.0, V3), ["'s'", "Float before the loop", "give it one type"]),
    (step_not_constant, (1.0, 3, 1), ["step of range", "constant"]),
    (read_before_assigned, (1.0, 3), ["'prev'", "before it is assigned", "assign it before the loop"]),
    (loop_var_after_break, (1.0, V3), ["'s'", "may run zero times", "assign it before the loop"]),
    (returns_two_types, (1.0, V3), ["returns inside this for loop", "Vec Float, Float", "one type"]),
    (bare_return_in_loop, (1.0, V3), ["bare return"]),
    (no_return_after_loop, (1.0, V3), ["without a return"]),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_refusals(f, args, words):
    refused(f, args, *words)


# ---------------------------------------------------------------- in-place updates

def fill_in_loop(x, v):
    out = np.zeros(len(v))
    for i in range(len(v)):
        out[i] = v[i] * x
        out[i] += x * out[i]
    return np.sum(out * out)


def matrix_updates(x, v):
    m = np.zeros((2, 3))
    m[1, 2] = x
    m[0] = v[:3]
    m[:, 0] += 1.0
    m[1, 1:] *= x
    m[-1, -3] = v[0] * x
    return np.sum(m * np.sin(m))


def copy_then_update(x, v):
    w = v.copy()
    w[1:3] = x
    w *= 2.0
    z = np.ones_like(v)
    z[0] -= x
    e = np.empty(2)
    e[:] = v[:2] * x
    return np.sum(w * w) + np.sum(z * e[0])


def update_in_branch(x, v):
    out = np.zeros(3)
    if x > 0.0:
        out[0] = x
    else:
        out[1] = x
    out[2] = v[0]
    return np.sum(out * v[:3])


def rows_in_loop(x, m):
    out = np.zeros_like(m)
    for i in range(m.shape[0]):
        out[i] = m[i] * x + (out[i - 1] if i > 0 else m[i] * 0.0)
    return np.sum(out * out)


@pytest.mark.parametrize("f, args, argnums", [
    (fill_in_loop, (0.6, vec(5)), (0, 1)),
    (fill_in_loop, (0.6, vec(0)), (0, 1)),
    (matrix_updates, (0.6, vec(4)), (0, 1)),
    (copy_then_update, (0.6, vec(4)), (0, 1)),
    (update_in_branch, (0.6, vec(4)), (0, 1)),
    (update_in_branch, (-0.6, vec(4)), (0, 1)),
    (rows_in_loop, (0.6, vec((3, 2))), (0, 1)),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_in_place_updates(f, args, argnums):
    check(f, args, argnums)


def updates_parameter(x, v):
    v[0] = x  # ERR
    return np.sum(v)


def updates_alias(x):
    a = np.zeros(3)
    b = a
    b[0] = x  # ERR
    return np.sum(a)


def updates_through_view(x):
    m = np.zeros((2, 2))
    r = m[0]
    m[0, 0] = x  # ERR
    return np.sum(r)


def aug_parameter(x, v):
    v += x  # ERR
    return np.sum(v)


def float_into_int(x):
    a = np.zeros(3, dtype=int)
    a[0] = x  # ERR
    return a


def float_added_into_ints(x):
    a = np.arange(3)
    a += x  # ERR
    return np.sum(a * x)


def ints_divided_in_place(x):
    a = np.ones(3, dtype=np.int64)
    a /= 2  # ERR
    return np.sum(a * x)


def ints_into_bools(x):
    m = np.zeros(3, dtype=bool)
    m *= 2  # ERR
    return np.sum(m * x)


def updates_while_iterating(x):
    m = np.ones((2, 2))
    for row in m:
        m[0, 0] = x  # ERR
    return np.sum(m)


@pytest.mark.parametrize("f, args, words", [
    (updates_parameter, (1.0, V3), ["'v'", "the caller passed", "copy it first"]),
    (updates_alias, (1.0,), ["'b'", "share its memory", "copy it first"]),
    (updates_through_view, (1.0,), ["'m'", "share its memory"]),
    (aug_parameter, (1.0, V3), ["'v'", "the caller passed", "copy it first"]),
    (float_into_int, (1.0,), ["truncates"]),
    # NumPy's UFuncTypeError (found by differential testing, trial 6: catad made a a float array)
    (float_added_into_ints, (0.5,), ["Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64')",
                                     "same_kind"]),
    (ints_divided_in_place, (0.5,), ["Cannot cast ufunc 'divide' output"]),
    (ints_into_bools, (0.5,), ["to dtype('bool')"]),
    (updates_while_iterating, (1.0,), ["'m'", "share its memory"]),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_update_refusals(f, args, words):
    refused(f, args, *words)


def _normalised_in_place(v):
    w = np.exp(v)
    w /= w.sum()
    m = np.maximum(v, 0.0)
    m[0] = 2.0
    return w[0] + w[1] * 2.0 + np.sum(m * v)


def _aliased_ufunc_result(v):
    w = np.exp(v)
    u = w
    w /= 2.0  # ERR
    return u[0]


def test_a_ufunc_result_is_a_new_array_the_function_may_change():
    # np.exp(v) and np.maximum(v, 0) make new arrays, so changing them in place changes nothing
    # else (as w = v * 2.0 already did); a second name for one still makes it shared
    v = np.array([0.1, 0.5, -0.3])
    value, g = catad.value_and_grad(_normalised_in_place)(v)
    assert value == pytest.approx(_normalised_in_place(v.copy()), rel=1e-13)
    h = 1e-6
    fd = np.array([(_normalised_in_place(v + h * e) - _normalised_in_place(v - h * e)) / (2 * h) for e in np.eye(3)])
    np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-9)
    with pytest.raises(catad.CatadError, match="may share its memory"):
        catad.grad(_aliased_ufunc_result)(v)


def slice_after_loop(x):
    t = 2.0
    for v in x:
        t = x[0] * 3.0 + v
    return np.sum(x[1:]) * t


def slice_and_floor_after_loop(x):
    t = 2
    for v in x:
        t = x[0] / (x[0] // np.sum(x[1:]) + 5.0)
    return np.sum(x[1:]) / t + np.sum(x[:-1] ** 2) * t


@pytest.mark.parametrize("f", [slice_after_loop, slice_and_floor_after_loop])
@pytest.mark.parametrize("x", [[1.3, 2.0, -0.5], [0.7, 1.9]], ids=str)
def test_a_slice_s_cotangent_beside_a_loop_s(f, x):
    """The cotangent of x[1:] added to a reverse loop's run-time cotangent of x: an update at an
    array of indices (it raised TypeError from inside catad's run time: OneHot takes one index)."""
    args = [np.array(x)]
    check_value(f, args)
    check_gradient(f, args, (0,))


def enumerate_returning(x, y):
    base = [0.9, y, x]
    for i, e in enumerate(base):
        t = e * i
        if e > 1.0:
            return e * t
    return x + t


@pytest.mark.parametrize("args", [(0.3, 0.5), (0.3, 1.5), (1.3, 0.5)], ids=str)
def test_enumerate_with_a_return_and_a_variable_first_assigned_in_it(args):
    """A loop over enumerate(...) that returns, whose body first assigns a variable read after
    it: the lowering that finds that variable's type carries enumerate's count too (it made a
    tuple of None and raised AttributeError from inside the front end)."""
    check_value(enumerate_returning, list(args))
    check_gradient(enumerate_returning, list(args), (0, 1))


def tuple_read_in_loop(x, w):
    t = (x, 1, w * 1.0)
    for i in range(len(w)):
        return x + t[0] * t[2][2]
    return 0.5


def test_a_tuple_s_array_read_in_a_loop_that_returns():
    """t[0] * t[2][2] in the loop's body: read back from CL, the tuple's third part was taken
    for its second (the Int 1), and the generated code did not compile (SyntaxError)."""
    args = [1.5, np.array([1.1, 1.2, 1.3])]
    check_value(tuple_read_in_loop, args)
    check_gradient(tuple_read_in_loop, args, (0, 1))


def newton_after_a_loop(v, w):
    for i in range(-5, 4):
        c = np.prod(np.tanh(w))
        s = min(-c, 1.5 * v[i])
    c7 = 0.9 if (s if len(w) == 2 else s) < w[-5] else w[0]
    y = 1.0
    while y * y - c7 > 1e-12 * c7:
        y = 0.5 * (y + c7 / y)
    return y


def test_the_hessian_of_a_branch_on_a_loop_s_state():
    """The Hessian's program reads the first loop's final state as a run-time value, and the
    branch's condition compares it: an if on a run-time Bool (AttributeError: 'RT' object has
    no attribute 'depth', from inside the code generator)."""
    v, w = np.array([0.3, -0.5, 0.8, 1.1, 0.2]), np.array([0.4, 0.9, -0.3, 0.5, 0.7])
    check_value(newton_after_a_loop, [v, w])
    h = catad.hessian(newton_after_a_loop, argnums=1)(v, w)
    grad = catad.grad(newton_after_a_loop, argnums=1)
    by_differences = np.array([(grad(v, w + 1e-5 * e) - grad(v, w - 1e-5 * e)) / 2e-5 for e in np.eye(5)])
    np.testing.assert_allclose(h, by_differences, atol=1e-8)
