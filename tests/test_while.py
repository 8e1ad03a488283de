"""while loops (issue 15, item 2): a while loop is a for loop over its steps that breaks when
its condition fails; its trip count is found first (a WhileCount, catad/lang/fold.py) and the
loop runs as a fold over range(count), in forward and reverse mode and with checkpoints.
Values against the Python function itself, gradients against central differences, jvp
against grad (tests/test_loops.py's checks)."""
from __future__ import annotations

import contextlib
import signal

import numpy as np
import pytest

import catad
from catad.combinators import eval_cl_program, from_cl_program, to_cl_program
from catad.lang.evaluate import evaluate
from catad.lang.fold import WhileCount
from catad.lang.terms import Const, Get, Tuple, Var
from catad.lang.typecheck import check_program
from catad.lang.types import Bool, Float, Int, Tuple as TupleT
from catad.primitives import prim
from catad import CatadError
from test_loops import check, check_gradient, check_value, vec
from located import refused

V = np.array([0.3, -0.2, 0.5, 0.1])


# ---------------------------------------------------------------- loops whose steps depend on the data

def newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-12 * a:
        x = 0.5 * (x + a / x)
    return x


def geometric(x, r):
    n = 0
    while x > 0.01:
        x = x * r
        n += 1
    return x + n


def array_state(x, v):
    u = v * x
    steps = 0
    while np.sum(u * u) > 0.05 and steps < 50:
        u = np.tanh(u) * 0.8 + v * 0.01
        steps = steps + 1
    return np.sum(u) * steps


def never_runs(x):
    y = x * 2.0
    while x > 100.0:
        y = y * x
        x = x / 2.0
    return y + x


def with_break(x, v):
    s = 0.0
    k = 0
    while True:
        s = s + np.sin(x * v[k % len(v)])
        k += 1
        if s > 1.5 or k >= 20:
            break
    return s * k


def with_continue(x):
    s = 0.0
    k = 0
    while k < 7:
        k += 1
        if k % 3 == 0:
            continue
        s = s + x ** k
    return s


def returns_inside(x):
    y = x
    while y < 10.0:
        y = y * 1.7 + x
        if y > 5.0:
            return y * x
    return y


def nested_in_for(x, v):
    total = 0.0
    for e in v:
        y = e + x
        while abs(y) < 1.0:
            y = y * 1.5 + 0.1
        total = total + y
    return total


def for_in_while(x, v):
    s = x
    while s < 5.0:
        for e in v:
            s = s + e * e + 0.1 * s
    return s


def while_in_while(x):
    s = x
    n = 0
    while n < 3:
        t = s
        while t < 2.0:
            t = t * 1.3 + 0.05
        s = s + t * 0.1
        n += 1
    return s


@pytest.mark.parametrize("f, args, argnums", [
    (newton_sqrt, (2.0,), (0,)),
    (newton_sqrt, (0.37,), (0,)),
    (geometric, (3.0, 0.7), (0, 1)),
    (array_state, (0.9, V), (0, 1)),
    (never_runs, (1.5,), (0,)),
    (with_break, (0.7, V), (0, 1)),
    (with_continue, (0.8,), (0,)),
    (returns_inside, (1.2,), (0,)),
    (returns_inside, (0.1,), (0,)),
    (nested_in_for, (0.2, V), (0, 1)),
    (for_in_while, (0.4, V), (0, 1)),
    (while_in_while, (0.3,), (0,)),
], ids=lambda a: a.__name__ if callable(a) else None)
def test_while_loops(f, args, argnums):
    check(f, args, argnums)


def test_newton_gradient_is_the_derivative_of_sqrt():
    """The loop's derivative, not the derivative of the limit: at convergence they agree."""
    for a in (0.5, 2.0, 9.0):
        assert catad.grad(newton_sqrt)(a) == pytest.approx(0.5 / np.sqrt(a), rel=1e-10)


def test_trip_count_follows_the_data():
    """One compiled program, different trip counts per call (never fixed at compile time)."""
    g = catad.value_and_grad(geometric, argnums=(0, 1))
    for x, r in ((3.0, 0.7), (0.5, 0.9), (0.005, 0.5), (80.0, 0.3)):
        val, grads = g(x, r)
        assert val == pytest.approx(geometric(x, r), rel=1e-12)
        check_gradient(geometric, (x, r), (0, 1))


@pytest.mark.parametrize("k", [1, 2, 3, 7])
def test_checkpoints_give_the_same_gradient(k):
    args = (0.9, V)
    want = catad.grad(array_state, argnums=(0, 1))(*args)
    got = catad.grad(array_state, argnums=(0, 1), checkpoints=k)(*args)
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])


def test_a_long_while_loop_does_not_recurse():
    """10^5 steps: the count, the fold and the reverse loop are loops, not recursion."""
    def decay(x, r):
        n = 0
        while n < 100_000:
            x = x * r + 0.001
            n += 1
        return x

    g = catad.grad(decay, argnums=(0, 1))(1.0, 0.99999)
    xs, r = 1.0, 0.99999
    # x_n = r^n x_0 + 0.001 (1 - r^n) / (1 - r): d/dx0 = r^n
    assert g[0] == pytest.approx(r ** 100_000, rel=1e-9)
    assert np.isfinite(g[1]) and decay(xs, r) > 0


def test_explain_shows_the_count_and_the_fold():
    d = catad.explain(geometric, 3.0, 0.7)
    assert "count(" in d.stage("core").text and "fold(" in d.stage("core").text
    assert "WHILE(" in d.stage("cl").text
    assert "while True:" in d.stage("code").text


# ---------------------------------------------------------------- WhileCount in the core language and CL

def _count_program():
    """count (\\s. get1 s < 3.0) (\\t. get1 t * 1.5 + 2.0) x, by hand: the steps of a while loop
    over a Float state, without the fold the front end puts after it."""
    from catad.lang.terms import Def, Program
    x = Var("x", Float)
    step = TupleT((Float, Int))
    s, t = Var("s", step), Var("t", step)
    cond = prim("lt", Get(0, s), Const(3.0, Float))
    body = prim("add", prim("mul", Get(0, t), Const(1.5, Float)), Const(2.0, Float))
    count = WhileCount(x, s, cond, t, body)
    return Program((Def("steps", (x,), count),), "steps")


def _python_steps(x):
    n = 0
    while x < 3.0:
        x = x * 1.5 + 2.0
        n += 1
    return n


@pytest.mark.parametrize("x", [-1.0, 0.1, 2.9, 3.0, 10.0])
def test_count_in_core_and_cl(x):
    """The reference evaluators of core and CL (and CL converted back) count as Python does."""
    program = _count_program()
    check_program(program)
    want = _python_steps(x)
    assert int(evaluate(program, x)) == want
    cl = to_cl_program(program)
    assert int(eval_cl_program(cl, x)) == want
    assert int(evaluate(from_cl_program(cl), x)) == want


def test_count_type_errors():
    x = Var("x", Float)
    step = TupleT((Float, Int))
    s, t = Var("s", step), Var("t", step)
    from catad.errors import CatadTypeError
    from catad.lang.terms import Def, Program
    bad = WhileCount(x, s, Get(0, s), t, Get(0, t))  # a Float condition
    with pytest.raises(CatadTypeError, match="condition"):
        check_program(Program((Def("f", (x,), bad),), "f"))
    bad = WhileCount(x, s, Const(True, Bool), t, Tuple((Get(0, t),)))  # a step of another type
    with pytest.raises(CatadTypeError, match="step"):
        check_program(Program((Def("f", (x,), bad),), "f"))


# ---------------------------------------------------------------- refusals

def first_assigned_in_while(x):
    while x > 1.0:
        y = x * 2.0
        x = x / 2.0
    return y  # ERR



def test_a_variable_first_assigned_in_a_while_loop_is_refused_after_it():
    refused(first_assigned_in_while, (2.0,), "'y'", "inside the while loop at line", "assign it before the loop")


def test_random_trip_counts():
    """Random starting points: values and gradients as Python's, whatever the trip count."""
    for x in vec(6) * 4.0 + 5.0:
        check_value(geometric, (float(x), 0.8))
        check_gradient(geometric, (float(x), 0.8), (0, 1))


# ---------------------------------------------------------------- loops in branches not taken

def untaken(x):
    t = x
    if x > 0:
        while t < 1.0:  # never ends for x <= 0: Python never enters it then
            t = t + x
    return t * 2.0


def after_break(x, v):
    s = 0.0
    for e in v:
        if e <= 0:
            break
        t = x
        while t < 1.0:  # never ends for e <= 0: the iterations after the break skip it
            t = t + e
        s = s + t
    return s


def _guarded_helper(x, e):
    t = x
    while t < 1.0:
        t = t + e
    return t


def in_guarded_comprehension(x, v):
    return sum(_guarded_helper(x, e) if e > 0 else 0.0 for e in v)


@contextlib.contextmanager
def _deadline(seconds):
    """Fail (rather than hang) if the block takes longer."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")
    old = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("f, args, argnums", [
    (untaken, (-0.3,), (0,)),
    (untaken, (0.3,), (0,)),
    (after_break, (0.2, V), (0, 1)),
    (in_guarded_comprehension, (0.23, V), (0, 1)),  # no step lands on 1.0 (central differences)
], ids=lambda a: a.__name__ if callable(a) else None)
def test_a_loop_in_a_branch_not_taken_is_not_run(f, args, argnums):
    """The compiled code computes both branches of an if and selects one; a while loop in the
    branch not taken must not run (it may never end), as it does not in Python."""
    with _deadline(120):
        check(f, args, argnums)


def test_to_sympy_refuses_a_data_dependent_while_loop():
    with pytest.raises(CatadError, match="no SymPy form"):
        catad.to_sympy(newton_sqrt, 2.0)
    assert catad.to_sympy(with_continue, 0.8) is not None  # Int steps only: it has a form
