"""catad/rewrite/sweeps: from a Jacobian program to programs without linear maps.

forward_derivative applies every let-bound map of D$f to the input tangent where it is
bound (fwd$f); reverse_derivative sums the cotangents waiting at each let-bound map and
pushes the sum through it once, bottom-up (rev$f). Each is checked against the reference
semantics of the Jacobian it starts from: evaluating D$f gives the map as a value, and
catad.linearmaps.apply / apply_reverse of that value is what fwd$f / rev$f must compute.
Both sweeps walk let chains iteratively (docs/design.md invariant 5).
"""
from __future__ import annotations

import numpy as np
import pytest

from catad._node import walk
from catad.lang.evaluate import Evaluator
from catad.lang.terms import Def, Let, Program, Tuple, Var, fconst
from catad.lang.types import Float, LinMap
from catad.lang.typecheck import check_program
from catad.linearmaps import apply, apply_reverse, flatten, tangent_size, unflatten
from catad.linearmaps import terms as L
from catad.pipeline import pipeline
from catad.primitives import prim
from catad.rewrite.catalogue import ALL_BY_NAME
from catad.rewrite.sweeps import forward_derivative, reverse_derivative
from catad.tangents import ZERO


def two_args(x, y):
    z = x * y
    return z * z + y


def branch(x, y):
    if x > y:
        return x * x - y
    return y * x


def dot(v, w):
    return sum(v[i] * w[i] for i in range(len(v)))


def scaled(v, x):
    return [v[i] * x * v[len(v) - 1 - i] for i in range(len(v))]


def pair(x, v):
    return (x * v[0], np.sum(v * v) + x)


def matvec(m, v):
    return [sum(m[i][j] * v[j] for j in range(len(v))) for i in range(len(m))]


RNG = np.random.default_rng(11)
CASES = [
    (two_args, (0.3, 1.7)),
    (branch, (2.0, 0.5)),
    (branch, (0.2, 1.5)),
    (dot, (RNG.normal(size=4), RNG.normal(size=4))),
    (scaled, (RNG.normal(size=5), 0.8)),
    (pair, (1.1, RNG.normal(size=3))),
    (matvec, (RNG.normal(size=(3, 2)), RNG.normal(size=2))),
]
IDS = [f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)]
JACOBIANS = ["jacobian", "jacobian_optimised"]  # the sweeps do not rely on the optimiser


def run(d: Def, *args):
    program = Program((d,), d.name)
    check_program(program)
    return Evaluator(program).call(d.name, args)


def no_linear_maps(d: Def) -> bool:
    return not any(isinstance(getattr(n, "type", None), LinMap) or isinstance(n, (L.Apply, L.ApplyR))
                   for n in walk(d.body))


def jacobian_and_map(fn, args, which):
    jac = getattr(pipeline(fn, *args), which)
    value, lm = run(jac, *args)
    src = args[0] if len(args) == 1 else args
    return jac, value, lm, src


@pytest.mark.parametrize("which", JACOBIANS)
@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_forward_is_apply_of_the_jacobian(fn, args, which):
    jac, value, lm, src = jacobian_and_map(fn, args, which)
    trace: list = []
    fwd = forward_derivative(jac, trace)
    assert no_linear_maps(fwd), fwd
    assert {step[0] for step in trace} <= set(ALL_BY_NAME)
    for _ in range(3):
        dx = unflatten(RNG.normal(size=tangent_size(src)), src)
        dxs = (dx,) if len(args) == 1 else dx
        out, dt = run(fwd, *args, *dxs)
        np.testing.assert_allclose(flatten(out, value), flatten(value, value), rtol=1e-14)
        np.testing.assert_allclose(flatten(dt, value), flatten(apply(lm, dx), value), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("which", JACOBIANS)
@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_reverse_is_apply_reverse_of_the_jacobian(fn, args, which):
    jac, value, lm, src = jacobian_and_map(fn, args, which)
    trace: list = []
    rev = reverse_derivative(jac, trace)
    assert no_linear_maps(rev), rev
    assert {step[0] for step in trace} <= set(ALL_BY_NAME)
    for _ in range(3):
        ct = unflatten(RNG.normal(size=tangent_size(value)), value)
        out, back = run(rev, *args, ct)
        np.testing.assert_allclose(flatten(out, value), flatten(value, value), rtol=1e-14)
        np.testing.assert_allclose(flatten(back, src), flatten(apply_reverse(lm, ct), src), rtol=1e-12, atol=1e-14)


# ---------------------------------------------------------------- let chains

def scaled_chain(n: int, k: float = 0.5) -> Def:
    """D$f for x_i = k * x_{i-1}, built by hand: a let-bound map per value, each composed
    with the one before (so the maps form a chain of n shared values)."""
    x = [Var(f"x{i}", Float) for i in range(n + 1)]
    dx = [Var(f"Dx{i}", LinMap(Float, Float)) for i in range(n + 1)]
    lets = [(dx[0], L.One(Float))]
    for i in range(1, n + 1):
        lets.append((x[i], prim("mul", fconst(k), x[i - 1])))
        lets.append((dx[i], L.Compose(L.Scale(fconst(k), Float), dx[i - 1])))
    body = Tuple((x[n], dx[n]))
    for var, rhs in reversed(lets):
        body = Let(var, rhs, body)
    return Def("D$f", (x[0],), body)


def doubled_chain(n: int) -> Def:
    """D$f for x_i = x_{i-1} + x_{i-1}: each map is used twice by the next, so the map of
    x_n has 2^n paths to x_0's; a sweep that duplicated a shared map would never finish."""
    x = [Var(f"x{i}", Float) for i in range(n + 1)]
    dx = [Var(f"Dx{i}", LinMap(Float, Float)) for i in range(n + 1)]
    lets = [(dx[0], L.One(Float))]
    for i in range(1, n + 1):
        lets.append((x[i], prim("add", x[i - 1], x[i - 1])))
        lets.append((dx[i], L.Plus(dx[i - 1], dx[i - 1])))
    body = Tuple((x[n], dx[n]))
    for var, rhs in reversed(lets):
        body = Let(var, rhs, body)
    return Def("D$f", (x[0],), body)


def size(d: Def) -> int:
    return sum(1 for _ in walk(d.body))


def test_shared_maps_are_swept_once():
    n = 60
    jac = doubled_chain(n)
    for sweep, args in ((forward_derivative, (1.0, 1.0)), (reverse_derivative, (1.0, 1.0))):
        d = sweep(jac, [])
        assert no_linear_maps(d) and size(d) < 20 * n, size(d)
        out, t = run(d, *args)
        assert out == t == 2.0 ** n


@pytest.mark.parametrize("sweep", [forward_derivative, reverse_derivative])
def test_a_ten_thousand_let_chain_sweeps_without_recursion_error(sweep):
    n = 10_000
    d = sweep(scaled_chain(n), None)
    assert no_linear_maps(d)
    lets = 0
    t = d.body
    while isinstance(t, Let):
        lets, t = lets + 1, t.body
    assert lets >= n  # one binding per primal value at least, none of them nested
    out, tangent = run(d, 1.0, 1.0)
    assert out == tangent == 0.5 ** n


def test_zero_tangents_stay_symbolic():
    """A map that is zero gives the symbolic zero tangent, not 0.0 (docs/design.md invariant 2)."""
    x = Var("x", Float)
    jac = Def("D$f", (x,), Tuple((x, L.Zero(Float, Float))))
    assert run(forward_derivative(jac, []), 1.0, 1.0)[1] is ZERO
    assert run(reverse_derivative(jac, []), 1.0, 1.0)[1] is ZERO


def chain3(x):
    x1 = np.sin(x) * 0.5 + x * 0.5
    x2 = np.sin(x1) * 0.5 + x1 * 0.5
    return np.sum(np.sin(x2) * 0.5 + x2 * 0.5)


def squares(v):
    return sum(v[i] * v[i] for i in range(len(v)))


@pytest.mark.parametrize("fn", [chain3, squares, scaled])
def test_the_primal_of_a_build_is_not_copied(fn):
    """The AD's primal of a build is build(n, \\j. pi_1 p[j]), p the build of (value, map)
    pairs; stripped of its maps, p is pP = build(n, \\i. value), so the reverse sweep binds
    the primal to pP itself (an alias CSE removes) instead of a build copying it element by
    element: one build fewer per build of the program, for every later pass to walk."""
    from catad.lang.terms import Build, Call
    args = (np.ones(3),) if fn is not scaled else (np.ones(3), 0.5)
    p = pipeline(fn, *args)
    rev = reverse_derivative(p.jacobian_optimised, [])
    copies = [n for n in walk(rev.body) if isinstance(n, Build) and isinstance(n.body, Call)
              and n.body.fn == "index" and n.body.args[0] == n.var and isinstance(n.body.args[1], Var)]
    assert not copies, copies
    ct = np.ones(3) if fn is scaled else 1.0
    out, back = run(rev, *args, ct)
    value, lm = run(p.jacobian_optimised, *args)
    np.testing.assert_allclose(flatten(back, args if len(args) > 1 else args[0]),
                               flatten(apply_reverse(lm, ct), args if len(args) > 1 else args[0]), rtol=1e-12)


# ---------------------------------------------------------------- a build's primal and its cotangents

def reread(x):
    y = np.sin(x) * x
    return np.sum(y) * np.sum(y * y)  # y's cotangent reads y's values


def neighbours(x):
    y = np.sin(x) * 0.5 + x
    return np.sum(y[1:] * y[:-1])


def tail_kept(x):
    y = np.sin(x) * 0.5 + x * 0.5
    z = np.cos(y) + y
    return np.sum(z) + np.sum(np.exp(z) * 0.25)


@pytest.mark.parametrize("fn", [chain3, reread, neighbours, tail_kept])
def test_a_build_and_its_cotangents_compute_its_body_once(fn):
    """The reverse sweep copies a build body's primal bindings into the build of its cotangent
    contributions. Where nothing between the primal build and that build reads the primal's
    values (only its size), both are one build, `both`, whose element is (primal, contributions):
    each sin of the fused chain is computed once, not once in each build; the product of
    neighbours is one build with its cotangents. Where the cotangent reads the primal's values
    (reread; tail_kept, whose y is read by two statements) they stay apart. Either way rev$f is
    J^T applied to the cotangent (the reference semantics of the Jacobian)."""
    from catad.lang.printer import show_def
    args = (np.linspace(0.2, 1.4, 5),)
    p = pipeline(fn, *args)
    rev = reverse_derivative(p.jacobian_optimised, [])
    value, lm = run(p.jacobian_optimised, *args)
    out, back = run(rev, *args, 1.0)
    assert out == pytest.approx(fn(*args), rel=1e-14)
    np.testing.assert_allclose(back, apply_reverse(lm, 1.0), rtol=1e-12)
    text = show_def(rev)
    if fn in (chain3, neighbours):
        assert "let { both = build(" in text, text
    if fn is chain3:
        assert text.count(" sin(") == 3, text  # x1, x2 and the result's: each once


def out_of_range_twice(v, idx, k, w):
    y = np.array([np.sin(v[idx[i]]) * v[idx[i]] for i in range(len(idx))])
    z = w[k]
    return np.sum(y) + z


def test_a_build_that_may_fail_keeps_its_place():
    """A primal build whose body checks its indices, and a check between it and its cotangent's
    build: with both indices out of range, the first statement's error is raised, as Python
    raises it (a build that may fail is not made one with its cotangent's past a check)."""
    import catad
    from catad import CatadError
    v, w = np.linspace(0.1, 0.9, 4), np.ones(3)
    with pytest.raises(IndexError):
        out_of_range_twice(v, np.array([0, 5]), 7, w)
    line = out_of_range_twice.__code__.co_firstlineno
    with pytest.raises(CatadError, match=rf":{line + 1}:\d+: index 5 is out of bounds"):
        catad.grad(out_of_range_twice)(v, np.array([0, 5]), 7, w)
    with pytest.raises(CatadError, match=rf":{line + 2}:\d+: index 7 is out of bounds"):
        catad.grad(out_of_range_twice)(v, np.array([0, 2]), 7, w)
    g = catad.grad(out_of_range_twice)(v, np.array([0, 2]), 1, w)
    np.testing.assert_allclose(g, [np.cos(0.1) * 0.1 + np.sin(0.1), 0, np.cos(v[2]) * v[2] + np.sin(v[2]), 0],
                               rtol=1e-14)



def test_one_build_runs_the_checks_before_the_reads():
    """The cotangents' copy of a build body's bindings runs none of the body's checks (the primal
    ran them); the one build made of both runs the primal's bindings first, so each check still
    comes before the read it guards (a vectorised read past the end is not Python's IndexError)."""
    from catad.lang.terms import Call, let_chain
    from catad.lang.types import Int
    from catad.rewrite.sweeps import _Reverse, sweep_names
    from test_loop_check_order import same_iteration  # a loop reading x[i] and y[i], each checked
    x, y = np.linspace(0.1, 0.3, 3), np.linspace(1.0, 2.0, 3)
    jac = pipeline(same_iteration, x, y, 3).jacobian_optimised
    names = sweep_names(jac)
    sweep = _Reverse(names, [], jac.body.type.items[1].src)
    primal, cts, _ = sweep.run(jac.body, names.var("dr", Float))
    out = {b[0]: b[1] for b in primal + cts}
    ints = {v: rhs for v, rhs in out.items() if v.type == Int}
    (pv, cv), = sweep.copies.items()
    made = sweep._one_build(out[pv], out[cv], cv, pv, {pv}, ints, [])
    assert made is not None
    lets, _ = let_chain(made[0][1].body)
    kinds = [lt.rhs.fn if type(lt.rhs) is Call else None for lt in lets]
    assert kinds.count("check") == 2 and kinds.count("index") >= 2, lets
    first_check = kinds.index("check")
    reads = [k for k, lt in enumerate(lets) if kinds[k] == "index" and lt.rhs.args[1].name in ("x", "y")]
    assert reads and min(reads) > first_check, [(lt.var.name, kinds[k]) for k, lt in enumerate(lets)]


@pytest.mark.parametrize("n", [0, 1])
def test_one_build_on_odd_lengths(n):
    """A chain made one build with its cotangents on an empty and a length-1 vector: Python's
    value, and central differences' gradient."""
    import catad
    x = np.linspace(0.2, 0.9, n)
    assert "both" in catad.explain(chain3, np.ones(3)).text("reverse")
    value, g = catad.value_and_grad(chain3)(x)
    assert value == chain3(x) and g.shape == (n,)
    h = 1e-6
    fd = [(chain3(x + h * e) - chain3(x - h * e)) / (2 * h) for e in np.eye(n)]
    np.testing.assert_allclose(g, fd, rtol=1e-7, atol=1e-9)


def test_the_nested_sweep_rules_are_tried_only_where_the_map_is_a_let():
    """The rule index reads the class a Named pattern demands: at a map bound to a variable (every
    let-bound map a sweep meets) the nested-sweep rules, which match only a let chain, are not tried."""
    from catad.lang.names import FreshNames
    from catad.rewrite.sweeps import _Forward, _Reverse

    m = Var("Dy", LinMap(Float, Float))
    chain = Let(m, L.One(Float), m)
    r, dx = Var("r", Float), Var("dx", Float)
    rev = _Reverse(FreshNames(), [], Float).rw
    fwd = _Forward(dx, FreshNames(), []).rw
    tried = lambda rw, t: {rule.name for rule in rw._rules_for(t)}
    assert "rev-sweep-nested" not in tried(rev, L.ApplyR(r, m))
    assert "rev-sweep-nested" in tried(rev, L.ApplyR(r, chain))
    assert "fwd-sweep-nested" not in tried(fwd, L.Apply(m, dx))
    assert "fwd-sweep-nested" in tried(fwd, L.Apply(chain, dx))
