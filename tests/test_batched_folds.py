"""Loops inside vectorised builds run batched (catad/backend/folds.py): a fold, FFold or RFold
whose vector (so its trip count) is the same in every lane of the builds around it is one
Python loop for all the lanes, its state carrying their batch axes. Values against the Python
function itself and the reference evaluator, gradients against central differences, jvp
against grad; which programs ran batched and which fell back (a trip count that varies with
the build's index, a checkpointed reverse loop) is read from the compiled programs' reports.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import catad
from catad.pipeline import compiled
from test_loops import check, check_value

RNG = np.random.default_rng(2015)


def vec(*shape):
    return RNG.uniform(-1, 1, shape)


def fallbacks(f, args, which="reverse", **kw) -> list[str]:
    return [str(fb) for fb in compiled(f, args, which, **kw).fallbacks]


def batched(f, args, argnums=(0,)):
    """f's values and derivatives are right, and none of its programs falls back to a Python
    loop over a build's elements."""
    check(f, args, argnums)
    for which in ("primal", "forward", "reverse"):
        assert fallbacks(f, args, which) == [], which


# ---------------------------------------------------------------- loops the builds call

def horner(a, x):
    """A scalar state over the elements of a vector."""
    acc = 0.0
    for c in a:
        acc = acc * x + c
    return acc


def damped(a, x):
    """A scalar state over range(n), reading a[k] and a nonlinear function of the state."""
    s = x
    for k in range(len(a)):
        s = s * x + a[k] * np.sin(s)
    return s


def vector_state(a, v):
    """A vector state (as long as v)."""
    w = v * 0.5
    for k in range(len(a)):
        w = np.tanh(w * a[k] + v)
    return w


def mixed_state(a, x):
    """A tuple state of a Float, a vector and an Int the body reads."""
    s, w, n = 0.0, np.zeros(3), 0
    for k in range(len(a)):
        n = n + 1
        s = s + a[k] * x * n
        w = w * x + s
    return s + np.sum(w * w) + n


def over_rows(m, x):
    """A fold over the rows of a matrix."""
    s = x
    for row in m:
        s = s * 0.5 + np.sum(row * np.sin(s))
    return s


def with_break(a, x):
    """break (a flag in the state) and an if in the body."""
    s = x
    for k in range(len(a)):
        if s > 1.5:
            break
        if a[k] > 0:
            s = s * x + a[k]
        else:
            s = s - a[k] * x
    return s


def qtimesx_loops(q, l, x):
    """GMM's Q x with a loop over the columns of L (benchmarks/adbench/gmm.py)."""
    d = len(q)
    out = np.exp(q) * x
    for c in range(d - 1):
        start = d * (d - 1) // 2 - (d - c) * (d - c - 1) // 2
        for r in range(c + 1, d):
            out[r] = out[r] + l[start + r - c - 1] * x[c]
    return out


def qtimesx_damped(q, l, x):
    """qtimesx_loops with each column's update halving the entries below it: a dependence
    between columns, so the loop over them stays a loop (qtimesx_loops's loops are builds and
    sums: catad/frontend/independent.py)."""
    d = len(q)
    out = np.exp(q) * x
    for c in range(d - 1):
        start = d * (d - 1) // 2 - (d - c) * (d - c - 1) // 2
        for r in range(c + 1, d):
            out[r] = out[r] * 0.5 + l[start + r - c - 1] * x[c]
    return out


def nested_loops(a, x):
    """A loop inside a loop."""
    s = x
    for k in range(len(a)):
        t = 0.0
        for j in range(k + 1):
            t = t * 0.5 + a[j] * s
        s = np.sin(s + t)
    return s


# ---------------------------------------------------------------- builds around them

def sum_horner(a, xs):
    return sum(horner(a, xs[i]) ** 2 for i in range(len(xs)))


def list_damped(a, xs):
    return np.sum(np.array([damped(a, x) for x in xs]) ** 2)


def sum_vector_state(a, m):
    return sum(np.sum(vector_state(a, m[i]) * m[i]) for i in range(len(m)))


def sum_mixed_state(a, xs):
    return sum(mixed_state(a, x) for x in xs)


def sum_over_rows(m, xs):
    return sum(over_rows(m, x) ** 2 for x in xs)


def sum_with_break(a, xs):
    return sum(with_break(a, x) for x in xs)


def reads_index_and_outer(a, m, w):
    """The loop's body reads the build's index, an outer matrix at it and an outer vector."""
    out = 0.0
    for i in range(len(m)):
        pass
    return out + sum(_indexed(a, m, w, i) for i in range(len(m)))


def _indexed(a, m, w, i):
    s = w[i]
    for k in range(len(a)):
        s = s * 0.5 + a[k] * m[i, k] * (i + 1) + w[k] * s
    return s * s


def two_builds(a, xs, ys):
    """A loop inside two nested builds (depth 2)."""
    return sum(sum(damped(a, x * y) for y in ys) for x in xs)


def gmm_like(qs, ls, x, means):
    """Q x by loops for every point and component, as GMM's objective (comprehensions around)."""
    return sum(sum(np.sum(qtimesx_loops(qs[j], ls[j], x[i] - means[j]) ** 2) for j in range(len(qs)))
               for i in range(len(x)))


def gmm_like_damped(qs, ls, x, means):
    """gmm_like with a loop that stays a loop in every lane."""
    return sum(sum(np.sum(qtimesx_damped(qs[j], ls[j], x[i] - means[j]) ** 2) for j in range(len(qs)))
               for i in range(len(x)))


def sum_nested_loops(a, xs):
    return sum(nested_loops(a, x) for x in xs)


def under_if(a, xs):
    """A loop in one branch of a conditional inside the build."""
    return sum((damped(a, x) if x > 0 else x * x) for x in xs)


def vector_out(a, xs):
    """The build's value is a matrix of loop states."""
    return np.sum(np.array([vector_state(a, xs * x) for x in xs]) ** 2)


CASES = [
    (sum_horner, (vec(4), vec(5)), (0, 1)),
    (list_damped, (vec(3), vec(6)), (0, 1)),
    (sum_vector_state, (vec(4), vec(5, 3)), (0, 1)),
    (sum_mixed_state, (vec(4), vec(5)), (0, 1)),
    (sum_over_rows, (vec(3, 2), vec(4)), (0, 1)),
    (reads_index_and_outer, (vec(3), vec(4, 3), vec(4)), (0, 1, 2)),
    (two_builds, (vec(3), vec(4), vec(2)), (0, 1, 2)),
    (gmm_like, (vec(3, 4), vec(3, 6), vec(5, 4), vec(3, 4)), (0, 1, 2, 3)),
    (gmm_like_damped, (vec(3, 4), vec(3, 6), vec(5, 4), vec(3, 4)), (0, 1, 2, 3)),
    (sum_nested_loops, (vec(3), vec(4)), (0, 1)),
    (under_if, (vec(3), vec(6)), (0, 1)),
    (vector_out, (vec(3), vec(4)), (0, 1)),
]


@pytest.mark.parametrize("f, args, argnums", CASES, ids=lambda a: a.__name__ if callable(a) else None)
def test_batched(f, args, argnums):
    batched(f, args, argnums)


def test_break_and_if_batched():
    args = (np.array([0.9, -0.4, 0.8, 0.7, -0.2]), np.array([0.3, 0.9, -0.8, 1.2]))
    batched(sum_with_break, args, (0, 1))
    # the loop breaks in some lanes and runs to the end in others
    breaks = {any(with_break(args[0][:k], x) > 1.5 for k in range(len(args[0]))) for x in args[1]}
    assert breaks == {True, False}


# ---------------------------------------------------------------- no steps

@pytest.mark.parametrize("f, n", [(sum_horner, 4), (sum_vector_state, 3), (sum_mixed_state, 4),
                                  (reads_index_and_outer, 3)])
def test_no_steps(f, n):
    """A loop that runs no step inside a build: its state's and environment's cotangents
    have their shapes (zeros of the environment's, from a reverse step no lane takes)."""
    args = {sum_horner: (np.zeros(0), vec(4)), sum_vector_state: (np.zeros(0), vec(n, 2)),
            sum_mixed_state: (np.zeros(0), vec(n)), reads_index_and_outer: (np.zeros(0), vec(n, 0), vec(n))}[f]
    argnums = tuple(k for k in range(len(args)) if args[k].size)
    check(f, args, argnums)
    grads = catad.grad(f, argnums=tuple(range(len(args))))(*args)
    for g, a in zip(grads, args):
        assert np.shape(g) == np.shape(a)
    assert fallbacks(f, args) == []


def empty_builds(a, xs):
    return 0.5 + sum(horner(a, x) for x in xs)  # Python's sum of nothing is the int 0


def test_empty_build_around_a_loop():
    check(empty_builds, (vec(3), np.zeros(0)), (0, 1))


# ---------------------------------------------------------------- falling back

def ragged(a, xs):
    """The trip count depends on the build's index: each lane its own loop."""
    return sum(_first(a, xs[i], i) for i in range(len(xs)))


def _first(a, x, i):
    s = x
    for k in range(i):
        s = s * x + a[k]
    return s * s


def varying_vector(m, xs):
    """The loop runs over a row chosen by the build's index."""
    return sum(horner(m[i], xs[i]) for i in range(len(xs)))


@pytest.mark.parametrize("f, args", [(ragged, (vec(5), vec(4))), (varying_vector, (vec(4, 3), vec(4)))],
                         ids=["trip-count", "vector"])
def test_varying_loops_fall_back(f, args):
    check(f, args, (0, 1))
    for which in ("primal", "reverse"):
        reasons = fallbacks(f, args, which)
        # the first: the build holding the loop (the builds reading its results follow)
        assert reasons and "a loop whose vector (or trip count) varies with the index of the build around it" \
            in reasons[0], reasons
    text = catad.explain(f, *args).stage("code").text
    assert "Python loop: a loop whose vector (or trip count) varies with the index of the build around it" in text


@pytest.mark.parametrize("f, args", [(sum_horner, (vec(4), vec(5))), (gmm_like_damped, (vec(2, 3), vec(2, 3), vec(4, 3),
                                                                                     vec(2, 3))),
                                      (sum_mixed_state, (vec(5), vec(3))), (sum_horner, (np.zeros(0), vec(3)))],
                         ids=["horner", "gmm", "mixed", "no-steps"])
def test_checkpointed_reverse_loops_batched_bit_for_bit(f, args):
    """With checkpoints the batched reverse loop recomputes states by the same code and sums
    the same cotangents in the same order: equal to storing every state, bit for bit."""
    argnums = tuple(range(len(args)))
    want = catad.grad(f, argnums=argnums)(*args)
    for k in (1, 2, 3):
        got = catad.grad(f, argnums=argnums, checkpoints=k)(*args)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    assert fallbacks(f, args, checkpoints=2) == []
    assert "reverse_loop(" in compiled(f, args, "reverse", checkpoints=2).source


def while_inside(a, xs):
    return sum(_halvings(a, x) for x in xs)


def _halvings(a, x):
    s = x * x + 4.0
    while s > 1.0:
        s = s * a
    return s


def test_while_loops_inside_builds_fall_back():
    args = (0.5, vec(4))
    check(while_inside, args, (0, 1))
    assert any("while loop's count" in r for r in fallbacks(while_inside, args, "primal"))


# ---------------------------------------------------------------- in loops made builds

def independent_outer(a, xs):
    """An independent loop (made a sum) around a loop with a dependence."""
    tot = 0.0
    for i in range(len(xs)):
        tot = tot + horner(a, xs[i]) ** 2
    return tot


def test_loops_inside_independent_loops():
    check(independent_outer, (vec(4), vec(5)), (0, 1))


# ---------------------------------------------------------------- sharing the forward loop

def test_the_reverse_pass_reuses_the_primal_loop():
    """grad computes the fold's value and runs its RFold: inside a build, as outside, the
    forward loop is written once and keeps its states for the reverse loop."""
    src = compiled(sum_horner, (vec(4), vec(5)), "reverse").source
    forward = [line for line in src.splitlines() if line.strip().startswith("for ") and "- 1, -1, -1" not in line]
    assert len(forward) == 1, src


def test_value_against_python_in_every_lane():
    a, xs = vec(5), vec(7)
    got = compiled(list_damped, (a, xs), "primal")(a, xs)
    want = list_damped(a, xs)
    assert got == pytest.approx(want, rel=1e-12)
    check_value(gmm_like, (vec(2, 3), vec(2, 3), vec(4, 3), vec(2, 3)))
    assert math.isfinite(want)


def ragged_state(a, xs):
    """The loop's state is a prefix of xs as long as the build's index: its length varies."""
    return sum(np.sum(_scaled(a, xs[:i])) for i in range(len(xs)))


def _scaled(a, w):
    for k in range(len(a)):
        w = np.sin(w) * a[k] + w
    return w


def test_a_state_of_varying_length_falls_back():
    args = (vec(3), vec(5))
    check(ragged_state, args, (0, 1))
    reasons = fallbacks(ragged_state, args, "primal")
    assert reasons and "a loop whose state varies in length with the index of the build around it" in reasons[0], \
        reasons


# ---------------------------------------------------------------- inside ragged builds

def ragged_outer(a, xs):
    """The loop inside a build of ragged length (range(i)): the padded lanes run it too."""
    return sum(sum(horner(a, xs[j]) ** 2 for j in range(i)) for i in range(len(xs)))


def ragged_nan(a, xs):
    """... where the padded lanes' values are inf and NaN (log of 0 and of negatives): they
    must be selected away, in the value and in the cotangents."""
    return sum(sum(damped(a, xs[j] * np.log(i - j)) for j in range(i)) for i in range(len(xs)))


@pytest.mark.parametrize("f", [ragged_outer, ragged_nan], ids=lambda f: f.__name__)
def test_loops_inside_ragged_builds(f):
    args = (vec(3), vec(5))
    batched(f, args, (0, 1))
    assert all(np.all(np.isfinite(g)) for g in catad.grad(f, argnums=(0, 1))(*args))
