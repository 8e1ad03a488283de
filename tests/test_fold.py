"""fold through every stage but the front end (notes Section 8, Fig. 12-15; issue 15, item 1).

Fold programs are written in the core language directly (the front end has no `for` loop
yet). Each stage is checked against the one before and against plain Python: the reference
evaluator against a Python loop, CL against core, the Jacobian (to_matrix) against central
differences, the forward and reverse programs (reference semantics and compiled NumPy)
against the Jacobian; and long folds run without RecursionError.
"""
from __future__ import annotations

import numpy as np
import pytest

from catad.backend import compile_program
from catad.combinators import check_cl_program, eval_cl_program, from_cl_program, to_cl_program
from catad.frontend.reads import Reads
from catad.lang.evaluate import evaluate
from catad.lang.fold import FFold, Fold, RFold
from catad.lang.terms import Build, Const, Def, Get, Program, Tuple, Var, free_vars
from catad.lang.typecheck import check_program
from catad.lang.types import Float, Int, Tuple as TupleT, Vec
from catad.linearmaps import flatten, to_matrix, transpose, unflatten
from catad.pipeline import Pipeline
from catad.primitives import prim

VF = Vec(Float)


def single(d: Def) -> Program:
    return Program((d,), d.name)


def fconst(x):
    return Const(float(x), Float)


# ---------------------------------------------------------------- programs

def scalar_program() -> Program:
    """f(x, v) = fold (\\t. pi1 t * x + sin(pi2 t)) x v: a Float accumulator, x free in the body."""
    x, v = Var("x", Float), Var("v", VF)
    t = Var("t", TupleT((Float, Float)))
    body = prim("add", prim("mul", Get(0, t), x), prim("sin", Get(1, t)))
    return Program((Def("f", (x, v), Fold(x, v, t, body)),), "f")


def scalar_loop(x, v):
    acc = x
    for e in v:
        acc = acc * x + np.sin(e)
    return acc


ACC = TupleT((Float, VF, Int))


def tuple_program() -> Program:
    """An accumulator (s, u, k) : (Float, Vec Float, Int) over v : Vec Float, with c and w free:
    s' = s * c + sin(x * s),  u' = build(|u|, \\i. u[i] * cos(x) + w[i] * s),  k' = k + 1."""
    c, s0, u0, w, v = Var("c", Float), Var("s0", Float), Var("u0", VF), Var("w", VF), Var("v", VF)
    t = Var("t", TupleT((ACC, Float)))
    acc, x = Get(0, t), Get(1, t)
    s, u, k = Get(0, acc), Get(1, acc), Get(2, acc)
    i = Var("i", Int)
    body = Tuple((
        prim("add", prim("mul", s, c), prim("sin", prim("mul", x, s))),
        Build(prim("size", u), i, prim("add", prim("mul", prim("index", i, u), prim("cos", x)),
                                       prim("mul", prim("index", i, w), s))),
        prim("add", k, Const(1, Int)),
    ))
    return Program((Def("g", (c, s0, u0, w, v), Fold(Tuple((s0, u0, Const(0, Int))), v, t, body)),), "g")


def tuple_loop(c, s0, u0, w, v):
    s, u, k = s0, u0, 0
    for x in v:
        s, u, k = s * c + np.sin(x * s), u * np.cos(x) + w * s, k + 1
    return s, u, k


def vec_elements_program() -> Program:
    """A fold over the rows of a matrix m (elements Vec Float) with a Float accumulator:
    acc' = acc * 0.5 + sum(row * row) * a, a free."""
    a, m = Var("a", Float), Var("m", Vec(VF))
    t = Var("t", TupleT((Float, VF)))
    row, i = Get(1, t), Var("i", Int)
    squares = Build(prim("size", row), i, prim("mul", prim("index", i, row), prim("index", i, row)))
    body = prim("add", prim("mul", Get(0, t), fconst(0.5)), prim("mul", prim("sum", squares), a))
    return Program((Def("h", (a, m), Fold(a, m, t, body)),), "h")


def vec_elements_loop(a, m):
    acc = a
    for row in m:
        acc = acc * 0.5 + np.sum(row * row) * a
    return acc


def fold_in_build_program() -> Program:
    """build(|v|, \\j. fold (\\t. pi1 t * x + v[j] * pi2 t) x v): a fold inside a build."""
    x, v = Var("x", Float), Var("v", VF)
    t, j = Var("t", TupleT((Float, Float))), Var("j", Int)
    body = prim("add", prim("mul", Get(0, t), x), prim("mul", prim("index", j, v), Get(1, t)))
    return Program((Def("p", (x, v), Build(prim("size", v), j, Fold(x, v, t, body))),), "p")


def fold_in_build_loop(x, v):
    out = []
    for vj in v:
        acc = x
        for e in v:
            acc = acc * x + vj * e
        out.append(acc)
    return np.array(out)


RNG = np.random.default_rng(15)
CASES = [
    ("scalar", scalar_program, scalar_loop, (0.7, RNG.uniform(-1, 1, 5))),
    ("tuple", tuple_program, tuple_loop, (0.8, 0.3, RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3),
                                          RNG.uniform(-1, 1, 4))),
    ("vec-elements", vec_elements_program, vec_elements_loop, (0.4, RNG.uniform(-1, 1, (4, 3)))),
    ("in-build", fold_in_build_program, fold_in_build_loop, (0.6, RNG.uniform(-1, 1, 4))),
]
IDS = [c[0] for c in CASES]


def assert_close(a, b, **kw):
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            assert_close(x, y, **kw)
        return
    np.testing.assert_allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), **kw)


# ---------------------------------------------------------------- core and CL

@pytest.mark.parametrize("name,make,loop,args", CASES, ids=IDS)
def test_reference_evaluation_is_the_python_loop(name, make, loop, args):
    p = make()
    check_program(p)
    assert_close(evaluate(p, *args), loop(*args), rtol=1e-12)


def test_tuple_accumulator_keeps_its_int():
    out = evaluate(tuple_program(), *CASES[1][3])
    assert isinstance(out[2], int) and out[2] == len(CASES[1][3][4])


def test_fold_binds_its_variable():
    p = scalar_program()
    f = p.main.body
    assert free_vars(f) == {Var("x", Float), Var("v", VF)}
    assert "fold(\\t. " in str(p)


@pytest.mark.parametrize("name,make,loop,args", CASES, ids=IDS)
def test_cl_conversion_round_trips_and_evaluates_as_core(name, make, loop, args):
    p = make()
    c = to_cl_program(p)
    check_cl_program(c)
    assert "FOLD(" in str(c)
    assert_close(eval_cl_program(c, *args), evaluate(p, *args), rtol=1e-12)
    back = from_cl_program(c)
    check_program(back)
    assert any(isinstance(n, Fold) for n in _walk(back.main.body))
    assert_close(evaluate(back, *args), evaluate(p, *args), rtol=1e-12)


def _walk(t):
    from catad._node import walk
    return walk(t)


def test_an_ill_typed_fold_is_refused():
    x, v = Var("x", Float), Var("v", VF)
    t = Var("t", TupleT((Float, Float)))
    bad = Fold(x, v, t, prim("size", v))  # the body gives an Int for a Float accumulator
    with pytest.raises(Exception, match="body"):
        check_program(Program((Def("f", (x, v), bad),), "f"))


# ---------------------------------------------------------------- derivatives

DIFF_CASES = CASES  # every case has Float inputs and a differentiable output


def _primal_template(args):
    return tuple(np.asarray(a, dtype=np.float64) if isinstance(a, np.ndarray) else a for a in args)


def central_differences(p, args, out, h=1e-6):
    """The Jacobian of the program's Float outputs by central differences, column by column."""
    tmpl = _primal_template(args)
    x0 = flatten(tmpl, tmpl)
    cols = []
    for j in range(len(x0)):
        e = np.zeros(len(x0))
        e[j] = h
        plus = evaluate(p, *_shift(tmpl, unflatten(e, tmpl)))
        minus = evaluate(p, *_shift(tmpl, unflatten(-e, tmpl)))
        cols.append((flatten(plus, out) - flatten(minus, out)) / (2 * h))
    return np.array(cols).T


def _shift(tmpl, d):
    return tuple(a + b for a, b in zip(tmpl, d))


@pytest.mark.parametrize("name,make,loop,args", DIFF_CASES, ids=IDS)
def test_jacobian_is_central_differences(name, make, loop, args):
    p = make()
    pl = Pipeline(p, Reads())
    jp = single(pl.jacobian)
    check_program(jp)
    assert "lmFold(" in str(pl.jacobian)
    value, J = evaluate(jp, *args)
    assert_close(value, evaluate(p, *args), rtol=1e-12)
    M = to_matrix(J, _primal_template(args), value)
    np.testing.assert_allclose(M, central_differences(p, args, value), rtol=1e-6, atol=1e-8)
    # the optimised Jacobian means the same; the transpose of lmFold is its reverse application
    value2, J2 = evaluate(single(pl.jacobian_optimised), *args)
    np.testing.assert_allclose(to_matrix(J2, _primal_template(args), value2), M, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_matrix(transpose(J), value, _primal_template(args)), M.T, rtol=1e-10, atol=1e-12)


def forward_matrix(run, args, out):
    tmpl = _primal_template(args)
    n = len(flatten(tmpl, tmpl))
    cols = []
    for j in range(n):
        e = np.zeros(n)
        e[j] = 1.0
        value, tangent = run(*args, *unflatten(e, tmpl))
        cols.append(flatten(tangent, out))
    return np.array(cols).T


def _ints(ct, out):
    """A cotangent with its Int components 0 (an argument, not the symbolic zero)."""
    if isinstance(out, tuple):
        return tuple(_ints(c, o) for c, o in zip(ct, out))
    return 0 if isinstance(out, int) else ct


def reverse_matrix(run, args, out):
    tmpl = _primal_template(args)
    m = len(flatten(out, out))
    rows = []
    for i in range(m):
        e = np.zeros(m)
        e[i] = 1.0
        value, grads = run(*args, _ints(unflatten(e, out), out))
        rows.append(flatten(grads, tmpl))
    return np.array(rows)


@pytest.mark.parametrize("name,make,loop,args", DIFF_CASES, ids=IDS)
def test_forward_and_reverse_programs_are_the_jacobian(name, make, loop, args):
    p = make()
    pl = Pipeline(p, Reads())
    value, J = evaluate(single(pl.jacobian), *args)
    M = to_matrix(J, _primal_template(args), value)
    fwd, rev = pl.forward, pl.reverse
    for d in (fwd, rev):
        check_program(Program((d,), d.name))
        assert "lm" not in str(d), f"a linear map is left in {d.name}"
    assert any(isinstance(n, FFold) for n in _walk(fwd.body))
    assert any(isinstance(n, RFold) for n in _walk(rev.body))
    ref_fwd = lambda *a: evaluate(Program((fwd,), fwd.name), *a)  # noqa: E731
    ref_rev = lambda *a: evaluate(Program((rev,), rev.name), *a)  # noqa: E731
    np.testing.assert_allclose(forward_matrix(ref_fwd, args, value), M, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(reverse_matrix(ref_rev, args, value), M, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(forward_matrix(pl.code("forward"), args, value), M, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(reverse_matrix(pl.code("reverse"), args, value), M, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name,make,loop,args", CASES, ids=IDS)
def test_compiled_fold_is_the_python_loop(name, make, loop, args):
    c = compile_program(make())
    assert "for " in c.source
    assert_close(c(*args), loop(*args), rtol=1e-12)


def test_the_body_is_compiled_once_and_vectorised():
    """The accumulator's Vec part is one whole-array expression per step, not a loop over i."""
    c = compile_program(tuple_program())
    assert c.source.count("for ") == 1
    assert not c.fallbacks


def test_a_fold_inside_a_build_is_one_batched_loop():
    """The fold's vector is the same in every lane of the build: one loop for all of them
    (its state carries the build's axis), no loop over the build's elements, nothing to report.
    (A fold whose vector varies with the lane still makes the build a reported Python loop:
    tests/test_batched_folds.py.)"""
    c = compile_program(fold_in_build_program())
    assert not c.fallbacks
    assert c.source.count("for ") == 1


# ---------------------------------------------------------------- no recursion limits

def test_a_fold_of_100000_elements_evaluates_without_recursion():
    v = np.full(100_000, 1e-5)
    p = scalar_program()
    x = 0.5
    assert evaluate(p, x, v) == pytest.approx(scalar_loop(x, v), rel=1e-12)
    assert eval_cl_program(to_cl_program(p), x, v) == pytest.approx(scalar_loop(x, v), rel=1e-12)


def test_the_reverse_semantics_of_a_100000_element_fold_need_no_recursion():
    v = np.full(100_000, 1e-5)
    pl = Pipeline(scalar_program(), Reads())
    value, J = evaluate(single(pl.jacobian), 0.5, v)
    from catad.linearmaps import apply_reverse
    dx, dv = apply_reverse(J, 1.0)
    assert np.isfinite(dx) and dv.shape == v.shape


def test_a_compiled_fold_of_a_million_elements():
    v = np.linspace(-1, 1, 1_000_000)
    p = scalar_program()
    assert compile_program(p)(0.5, v) == pytest.approx(scalar_loop(0.5, v), rel=1e-9)
    pl = Pipeline(p, Reads())
    value, (dx, dv) = pl.code("reverse")(0.5, v, 1.0)
    assert dv.shape == v.shape and np.isfinite(dx)
    # the last element's cotangent is cos(v[-1]) (the accumulator is not scaled after it)
    assert dv[-1] == pytest.approx(np.cos(v[-1]), rel=1e-12)
