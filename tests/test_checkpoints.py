"""Reverse loops that keep at most k states (issue 15, item 3): ``checkpoints=k`` on grad,
value_and_grad, vjp, jacobian and explain, and the binomial schedule that
catad.backend.checkpoint runs.

Exactness: the gradients with ``checkpoints=k`` are compared with the store-all ones by
``assert_array_equal``, bit for bit, not within a tolerance. A recomputed state is made by the
same generated code from the same kept state, so by the same floating-point operations in
the same order (NumPy is deterministic for them); the reverse step is the same code too,
and the environment's cotangent is summed in the same order (the last step first). Any
difference would be a bug (a state given to the wrong step), not rounding.

Work is counted, never timed: catad.backend.checkpoint.COUNTER is told every forward step
evaluated, every reverse step and every change of the number of kept states.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings, strategies as st

import catad
from catad import ArgumentError
from catad.backend import checkpoint
from catad.pipeline import pipeline


# ---------------------------------------------------------------- loops (module level: catad reads their source)

def scalar_loop(x, v):
    s = x
    for e in v:
        s = np.sin(s * e) + s * 0.9 + x * e
    return s


def pair_state(c, u0, w, v):
    s, u = c, u0  # (Float, Vec)
    for x in v:
        s, u = s * c + np.sin(x * s), u * np.cos(x) + w * s
    return s + np.sum(u * u)


def triple_state(c, u0, w, v):
    s, u, k = c, u0, 0  # (Float, Vec, Int): the Int leaf has no cotangent
    for x in v:
        s, u, k = s * c + np.sin(x * s), u * np.cos(x) + w * s, k + 1
    return s + np.sum(u) * k


def over_range(x, v):
    s = x
    for i in range(len(v)):
        s = s * 0.999 + v[i] * 1e-3 * s
    return s


def nested(x, m):
    s = x
    for i in range(m.shape[0]):
        t = 0.0
        for j in range(m.shape[1]):
            t = t * 0.5 + m[i, j] * s
        s = s * 0.5 + np.sin(t)
    return s


def two_loops(x, v):
    s = x
    for e in v:
        s = s * e + 0.5
    t = s
    for e in v:
        t = np.cos(t) * e + s
    return t


def vector_out(x, v):
    u = v * 1.0
    for e in v:
        u = np.sin(u * e) + x
    return u


def cheap(x, v):
    s = x
    for i in range(len(v)):
        s = s * 0.999 + v[i]
    return s


RNG = np.random.default_rng(153)


def grads(f, args, k, argnums=None):
    argnums = tuple(range(len(args))) if argnums is None else argnums
    return catad.grad(f, argnums=argnums, checkpoints=k)(*args)


def assert_equal(got, want):
    assert isinstance(got, tuple) == isinstance(want, tuple)
    if isinstance(want, tuple):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert_equal(g, w)
        return
    np.testing.assert_array_equal(got, want)  # bit for bit: see the module's docstring


class counting:
    """Count what reverse loops do while in the block (checkpoint.COUNTER set)."""

    def __enter__(self) -> checkpoint.Counter:
        self.old, checkpoint.COUNTER = checkpoint.COUNTER, checkpoint.Counter()
        return checkpoint.COUNTER

    def __exit__(self, *exc) -> None:
        checkpoint.COUNTER = self.old


# ---------------------------------------------------------------- the schedule

@lru_cache(maxsize=None)
def least_steps(n: int, k: int) -> int:
    """The fewest forward steps that bring back states 0..n-1 (the last first) from state 0,
    with state 0 and at most k - 1 others kept at once: the dynamic program over where the
    next kept state goes (Griewank 1992), independent of the closed form."""
    if n <= 1:
        return 0
    if k == 1:
        return n * (n - 1) // 2
    return min(m + least_steps(n - m, k - 1) + least_steps(m, k) for m in range(1, n))


def run_schedule(n, k):
    """Play the schedule's actions on indices: check each is possible, and count."""
    kept, live, forward, reversed_, peak = [], 0, 0, [], 0
    evaluated = [0] * n
    for action, i in checkpoint.schedule(n, k):
        if action == checkpoint.ADVANCE:
            assert live == i
            evaluated[i] += 1
            forward += 1
            live = i + 1
        elif action == checkpoint.TAKESHOT:
            assert live == i
            kept.append(i)
            peak = max(peak, len(kept))
        elif action == checkpoint.RESTORE:
            assert kept[-1] == i
            live = i
        elif action == checkpoint.FREE:
            assert kept.pop() == i
        else:
            assert live == i and action == (checkpoint.FIRSTURN if not reversed_ else checkpoint.YOUTURN)
            if action == checkpoint.FIRSTURN:
                forward += 1
                evaluated[i] += 1
            reversed_.append(i)
            live = None
    assert kept == []
    assert reversed_ == list(range(n - 1, -1, -1))
    return forward, peak, max(evaluated, default=0)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 6])
def test_schedule_is_the_least_recomputation(k):
    for n in range(0, 90):
        forward, peak, most = run_schedule(n, k)
        assert forward == checkpoint.forward_steps(n, k), (n, k)
        if n:
            assert forward == least_steps(n, k) + 1, (n, k)  # the optimum, plus the last step
            assert most <= checkpoint.repetitions(n, k) or n == 1, (n, k)  # no step evaluated more than r times
        assert peak <= k


def play_runs(n, k):
    """Play the actions reverse_loop runs (checkpoint.runs) on indices: check each starts from
    the top kept state and the reverse steps come last first; count forward steps, the most
    states held at once (kept, and a sweep's own but its last, the live one) and the actions."""
    kept, end, forward, reversed_, peak, actions = [0] if n else [], n, 0, [], 1 if n else 0, 0
    for action, i, j in checkpoint.runs(n, k):
        actions += 1
        assert kept and kept[-1] == i < j
        if action == checkpoint.KEEP:
            assert j < end
            forward += j - i
            kept.append(j)
            peak = max(peak, len(kept))
            continue
        assert j == end
        if action == checkpoint.LAST:
            assert len(kept) == k and j - i > 2  # only when no slot is free and no sweep fits
            forward += j - 1 - i
            i = j - 1
        else:
            peak = max(peak, len(kept) + max(j - i - 2, 0))
            kept.pop()
        forward += j - i - 1 + (not reversed_)  # the first also evaluates the last step
        reversed_ += list(range(j - 1, i - 1, -1))
        end = i
    assert kept == [] and reversed_ == list(range(n - 1, -1, -1))
    return forward, peak, actions


@pytest.mark.parametrize("k", [1, 2, 3, 4, 6, 20])
def test_runs_are_the_least_recomputation(k):
    """What reverse_loop runs: Revolve's schedule (its forward steps the least possible), in
    runs of steps."""
    for n in range(0, 90):
        forward, peak, _ = play_runs(n, k)
        assert forward == checkpoint.forward_steps(n, k), (n, k)
        if n:
            assert forward == least_steps(n, k) + 1, (n, k)
        assert peak <= k


@pytest.mark.parametrize("n, k, most", [(10 ** 4, 20, 0.3), (10 ** 5, 20, 0.4), (10 ** 5, 10, 0.75)])
def test_runs_are_few(n, k, most):
    """A segment whose states fit is reversed in one sweep, so the Python calls per step are
    few: with k = 20 and 10^5 steps, 0.37 per step (one action per step of Revolve's: 4.6)."""
    forward, peak, actions = play_runs(n, k)
    assert forward == checkpoint.forward_steps(n, k) and peak == k
    assert actions <= most * n


def test_closed_form():
    # r * n - beta(k + 1, r - 1) + 1; no recomputation at all while n <= k + 1
    for k in range(1, 8):
        for n in range(1, k + 2):
            assert checkpoint.forward_steps(n, k) == n
    assert checkpoint.forward_steps(10 ** 5, 10) == 10 * 10 ** 5 - checkpoint.beta(11, 9) + 1 == 832041
    assert checkpoint.forward_steps(6, 1) == 6 * 5 // 2 + 1
    # k = log2(n) keeps the cost at most n log2(n)
    for n in (64, 1024, 2 ** 16):
        k = int(np.log2(n))
        assert checkpoint.forward_steps(n, k) <= n * np.log2(n)


def test_schedule_of_a_long_loop_is_a_loop():
    """No recursion: the schedule of 2 * 10^4 steps with 2 kept states, where Revolve's
    recursion would nest once per split of the segment the initial state starts (r = 199
    deep), runs with a recursion limit of 100."""
    import sys
    import threading
    n, k = 2 * 10 ** 4, 2
    out = []

    def run():
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(100)
        try:
            out.append(sum(a in (checkpoint.ADVANCE, checkpoint.FIRSTURN) for a, _ in checkpoint.schedule(n, k)))
        finally:
            sys.setrecursionlimit(old)
    t = threading.Thread(target=run)
    t.start()
    t.join()
    forward = out[0]
    forward = sum(a in (checkpoint.ADVANCE, checkpoint.FIRSTURN) for a, _ in checkpoint.schedule(n, k))
    assert forward == checkpoint.forward_steps(n, k)


# ---------------------------------------------------------------- the same gradient

@settings(max_examples=40, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],
          suppress_health_check=list(HealthCheck))
@given(k=st.integers(1, 6), which=st.sampled_from(["0", "1", "k", "k+1", "any", "many"]), n=st.integers(0, 40),
       seed=st.integers(0, 2 ** 31))
def test_same_gradient_as_storing_every_state(k, which, n, seed):
    n = {"0": 0, "1": 1, "k": k, "k+1": k + 1, "any": n, "many": 30 * k + n}[which]
    rng = np.random.default_rng(seed)
    v = rng.uniform(-1, 1, n)
    for f, args in ((scalar_loop, (0.3, v)),
                    (pair_state, (0.7, rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3), v))):
        want = grads(f, args, None)
        with counting() as count:
            got = grads(f, args, k)
        assert_equal(got, want)
        assert count.forward == checkpoint.forward_steps(n, k)
        assert count.reverse == n and count.peak <= k


@pytest.mark.parametrize("k", [1, 2, 3, 7])
@pytest.mark.parametrize("f, args", [
    (triple_state, (0.8, RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 9))),
    (triple_state, (0.8, RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 0))),
    (over_range, (0.4, RNG.uniform(-1, 1, 13))),
    (two_loops, (0.4, RNG.uniform(-1, 1, 6))),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_tuple_state_and_several_loops(f, args, k):
    argnums = tuple(i for i, a in enumerate(args) if not isinstance(a, int))
    assert_equal(grads(f, args, k, argnums), grads(f, args, None, argnums))


@pytest.mark.parametrize("k", [1, 2, 5])
@pytest.mark.parametrize("shape", [(4, 5), (1, 3), (0, 3), (6, 1)])
def test_nested_loops(shape, k):
    m = RNG.uniform(-1, 1, shape)
    want = grads(nested, (0.4, m), None)
    with counting() as count:
        got = grads(nested, (0.4, m), k)
    assert_equal(got, want)
    # every inner loop keeps at most k states too; the outer loop's reverse steps each run
    # the inner loop's reverse loop once
    n, inner = shape
    assert count.peak <= k
    outer_rev = n
    assert count.reverse == outer_rev + n * inner


def test_every_api_takes_the_option():
    v = RNG.uniform(-1, 1, 11)
    for k in (1, 3):
        assert_equal(catad.value_and_grad(scalar_loop, argnums=(0, 1), checkpoints=k)(0.3, v),
                     catad.value_and_grad(scalar_loop, argnums=(0, 1))(0.3, v))
        out, back = catad.vjp(vector_out, 0.3, v, checkpoints=k)
        out0, back0 = catad.vjp(vector_out, 0.3, v)
        ct = RNG.uniform(-1, 1, len(v))
        assert_equal(out, out0)
        assert_equal(back(ct), back0(ct))
        # 11 outputs, 12 inputs: the rows come from reverse passes
        assert_equal(catad.jacobian(vector_out, argnums=(0, 1), checkpoints=k)(0.3, v),
                     catad.jacobian(vector_out, argnums=(0, 1))(0.3, v))
    assert_equal(catad.grad(scalar_loop, checkpoints=np.int64(2))(0.3, v), catad.grad(scalar_loop)(0.3, v))


# ---------------------------------------------------------------- counted work

@pytest.mark.parametrize("n, k", [(0, 1), (1, 1), (5, 1), (20, 2), (20, 3), (100, 4), (33, 32), (200, 5)])
def test_work_and_memory_counted(n, k):
    v = RNG.uniform(-1, 1, n)
    with counting() as count:
        catad.grad(scalar_loop, argnums=(0, 1), checkpoints=k)(0.3, v)
    assert count.loops == 1
    assert count.forward == checkpoint.forward_steps(n, k) == (least_steps(n, k) + 1 if n else 0)
    assert count.reverse == n
    assert count.peak <= k
    if n >= k:
        assert count.peak == k  # it uses the memory it is given


def test_a_long_loop_in_little_memory():
    """10^5 iterations keeping 10 states: no RecursionError, the store-all gradient, and the
    schedule's count of body evaluations (about 8.3 per iteration instead of 1)."""
    n, k = 10 ** 5, 10
    v = RNG.uniform(-1e-3, 1e-3, n)
    want = catad.grad(cheap, argnums=(0, 1))(0.5, v)
    with counting() as count:
        got = catad.grad(cheap, argnums=(0, 1), checkpoints=k)(0.5, v)
    assert_equal(got, want)
    assert count.forward == checkpoint.forward_steps(n, k) == 832041
    assert count.reverse == n and count.peak == k


def logistic(x, r, n: int):
    for i in range(n):
        x = r * x * (1.0 - x)
    return x


def test_a_long_recurrence_in_few_calls():
    """10^5 steps keeping 20 states: the least forward steps, and every reverse step in a sweep
    (a closure call per 2.5 steps, the runs of forward steps counted; with a call per reverse
    step, as before sweeps, it was more than 2 per step)."""
    n, k = 10 ** 5, 20
    want = catad.value_and_grad(logistic, argnums=(0, 1))(0.3, 3.2, n)
    with counting() as count:
        got = catad.value_and_grad(logistic, argnums=(0, 1), checkpoints=k)(0.3, 3.2, n)
    assert_equal(got, want)
    assert count.loops == 1 and count.reverse == n and count.peak == k
    assert count.forward == checkpoint.forward_steps(n, k) == 534221
    assert count.calls <= 0.41 * n


# ---------------------------------------------------------------- the option itself

@pytest.mark.parametrize("bad", [0, -3, 2.0, 1.5, True, "3", [2]])
def test_bad_checkpoints_refused(bad):
    v = RNG.uniform(-1, 1, 3)
    makers = [lambda: catad.grad(scalar_loop, checkpoints=bad),
              lambda: catad.value_and_grad(scalar_loop, checkpoints=bad),
              lambda: catad.vjp(scalar_loop, 0.3, v, checkpoints=bad),
              lambda: catad.jacobian(scalar_loop, checkpoints=bad),
              lambda: catad.explain(scalar_loop, 0.3, v, checkpoints=bad)]
    for make in makers:
        with pytest.raises(ArgumentError, match="checkpoints") as info:
            make()
        assert info.value.construct == "checkpoints"


def test_the_option_is_part_of_the_reverse_programs_key_only():
    v = RNG.uniform(-1, 1, 4)
    p = pipeline(scalar_loop, 0.3, v)
    assert p.code("reverse", checkpoints=2) is p.code("reverse", checkpoints=2)
    assert p.code("reverse", checkpoints=2) is not p.code("reverse", checkpoints=3)
    assert p.code("reverse", checkpoints=2) is not p.code("reverse")
    assert "reverse_loop(" in p.code("reverse", checkpoints=2).source
    assert "reverse_loop(" not in p.code("reverse").source
    assert p.code("forward", checkpoints=2) is p.code("forward")
    assert p.code("primal", checkpoints=2) is p.code("primal")


def test_explain_says_which_policy():
    v = RNG.uniform(-1, 1, 4)
    default = catad.explain(scalar_loop, 0.3, v).stage("code").text
    assert "reverse loops store every iteration's state" in default
    kept = catad.explain(scalar_loop, 0.3, v, checkpoints=4).stage("code").text
    assert "reverse loops keep at most 4 states per loop (binomial checkpointing" in kept
    assert "reverse_loop(" in kept
    # no loop: nothing to say
    assert "reverse loops" not in catad.explain(no_loop, 0.3).stage("code").text


def no_loop(x):
    return np.sin(x) * x


def test_loops_of_test_loops():
    """test_loops' loops over zips, rows and enumerations, with array updates, a matrix state,
    and a loop inside a comprehension (a build made a Python loop around the fold)."""
    import test_loops as T
    cases = [(T.over_zip, (0.4, RNG.uniform(-1, 1, 5), RNG.uniform(-1, 1, 3))),
             (T.vec_state, (0.3, RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, (4, 3)))),
             (T.matrix_state, (0.5, RNG.uniform(-1, 1, (2, 3)))),
             (T.comprehension_in_loop, (0.4, RNG.uniform(-1, 1, 4))),
             (T.loop_in_comprehension, (0.4, RNG.uniform(-1, 1, 4))),
             (T.matrix_updates, (0.4, RNG.uniform(-1, 1, 4)))]
    for f, args in cases:
        want = grads(f, args, None, (0, 1))
        for k in (1, 2, 4):
            assert_equal(grads(f, args, k, (0, 1)), want)
