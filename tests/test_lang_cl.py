"""Core language and CL on hand-built and randomly generated programs (no front end)."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import catad.combinators as C
from catad.errors import ArgumentError, CatadTypeError, Loc
from catad.lang.anf import anf_program
from catad.lang.evaluate import evaluate
from catad.lang.terms import (Build, Const, Def, Get, If, Let, Program, Tuple, Var, const, fconst, free_vars,
                              iconst, is_atom, let_chain, make_lets)
from catad.lang.typecheck import check_program
from catad.lang.types import Bool, Float, Int, Tuple as TupleT, Vec, type_of_value
from catad.primitives import prim

x, y, z = Var("x", Float), Var("y", Float), Var("z", Float)


def f2_program():
    body = make_lets([(y, prim("mul", x, x)), (z, prim("add", x, y))], prim("mul", y, z))
    return Program((Def("f2", (x,), body),), "f2")


def all_ways(program, *args):
    """The entry's value by the core evaluator, after ANF, through CL and back from CL."""
    check_program(program)
    cl = C.to_cl_program(program)
    C.check_cl_program(cl)
    back = C.from_cl_program(cl)
    check_program(back)
    return [evaluate(program, *args), evaluate(anf_program(program), *args),
            C.eval_cl_program(cl, *args), evaluate(back, *args)]


def assert_all_equal(values):
    for v in values[1:]:
        np.testing.assert_equal(v, values[0])


def test_f2_prints_like_the_notes_and_evaluates():
    p = f2_program()
    assert str(p) == ("fun f2(x : Float) : Float\n  = let { y = x * x }\n    let { z = x + y }\n    y * z")
    assert_all_equal(all_ways(p, 2.0) + [24.0])


def test_f2_cl_is_pruned_at_every_let():
    text = str(C.to_cl_program(f2_program()))
    # after `z` the context is (x, y, z); the body y * z prunes away x
    assert "P[2,3/3]" in text
    assert text.startswith("def f2(x : Float) : Float\n  = L(y, (Id, Id) ; mul,")


def test_unused_parameter_is_pruned():
    p = Program((Def("f", (x, y), prim("mul", x, x)),), "f")
    cl = C.to_cl_program(p)
    assert cl.main.body == C.Compose(C.Prune((0,), 2), C.Compose(C.Tuple((C.Identity(), C.Identity())),
                                                                  C.Call("mul", 2, Float)))
    assert C.eval_cl_program(cl, 3.0, 100.0) == 9.0


def test_shadowing_picks_the_innermost_binding():
    # let x = x + 1 in let x = x * x in x + y   (the first x is the parameter)
    body = Let(x, prim("add", x, fconst(1.0)), Let(x, prim("mul", x, x), prim("add", x, y)))
    p = Program((Def("f", (x, y), body),), "f")
    assert_all_equal(all_ways(p, 2.0, 0.5) + [9.5])


def test_shadowing_in_build_index():
    i = Var("i", Int)
    v = Var("v", Vec(Float))
    inner = Build(prim("size", v), i, prim("index", i, v))
    body = Build(iconst(2), i, prim("sum", inner))  # the inner i shadows the outer one
    p = Program((Def("f", (v,), body),), "f")
    assert_all_equal(all_ways(p, np.array([1.0, 2.0, 4.0])) + [np.array([7.0, 7.0])])


def test_tuples_projections_and_calls_between_definitions():
    a, b = Var("a", Float), Var("b", Float)
    g = Def("g", (a, b), Tuple((prim("mul", a, b), prim("sub", a, b))))
    t = Var("t", TupleT((Float, Float)))
    call = prim_call("g", (x, y), g)
    body = Let(t, call, prim("add", Get(0, t), Get(1, t)))
    p = Program((g, Def("f", (x, y), body)), "f")
    assert_all_equal(all_ways(p, 3.0, 2.0) + [7.0])


def prim_call(name, args, d):
    from catad.lang.terms import Call
    return Call(name, tuple(args), d.result_type)


def test_tuple_typed_parameter_and_one_element_tuple():
    t = Var("t", TupleT((Float, Int)))
    one = Var("one", TupleT((Float,)))
    body = Let(one, Tuple((Get(0, t),)), prim("mul", Get(0, one), prim("to_float", Get(1, t))))
    p = Program((Def("f", (t,), body),), "f")
    assert_all_equal(all_ways(p, (1.5, 4)) + [6.0])


def test_empty_build_keeps_its_type():
    i = Var("i", Int)
    v = Var("v", Vec(Vec(Float)))
    body = Build(iconst(0), i, prim("index", i, v))
    p = Program((Def("f", (v,), body),), "f")
    for r in all_ways(p, np.ones((2, 3))):  # (of length 1 along the rows' axes: evaluate.no_rows)
        assert r.shape == (0, 1) and r.dtype == np.float64


def test_if_evaluates_only_the_taken_branch():
    v = Var("v", Vec(Float))
    n = prim("size", v)
    guard = prim("lt", iconst(5), n)
    body = If(guard, prim("index", iconst(5), v), fconst(-1.0))  # v[5] would be out of range
    p = Program((Def("f", (v,), body),), "f")
    assert_all_equal(all_ways(p, np.ones(3)) + [-1.0])


def long_chain(n):
    xs = [Var(f"x{k}", Float) for k in range(n + 1)]
    bindings = [(xs[k], prim("add", prim("mul", xs[k - 1], fconst(0.5)), fconst(1.0))) for k in range(1, n + 1)]
    return Program((Def("long", (xs[0],), make_lets(bindings, xs[n])),), "long")


def test_ten_thousand_bindings_go_through_every_stage():
    p = long_chain(10_000)
    other = long_chain(10_000)
    assert p == other and hash(p) == hash(other)
    expected = 0.0
    for _ in range(10_000):
        expected = expected * 0.5 + 1.0
    assert_all_equal(all_ways(p, 0.0) + [expected])
    assert str(p).count("let {") == 10_000
    assert str(C.to_cl_program(p)).count("L(") == 10_000


def test_locations_do_not_take_part_in_equality():
    a = prim("add", x, y, loc=Loc("a.py", 1))
    b = prim("add", x, y, loc=Loc("b.py", 7))
    assert a == b and hash(a) == hash(b)
    assert prim("add", x, y) != prim("add", y, x)


def test_type_errors_are_catad_errors_with_locations():
    with pytest.raises(CatadTypeError, match="add"):
        prim("add", x, iconst(1), loc=Loc("f.py", 3))
    bad_if = If(fconst(1.0), x, x, loc=Loc("f.py", 4, 2))
    with pytest.raises(CatadTypeError, match="f.py:4:2.*Bool"):
        check_program(Program((Def("f", (x,), bad_if),), "f"))
    with pytest.raises(CatadTypeError, match="not in scope"):
        check_program(Program((Def("f", (x,), prim("mul", y, y)),), "f"))
    mismatch = If(Const(True, Bool), x, iconst(1))
    with pytest.raises(CatadTypeError, match="different types"):
        check_program(Program((Def("f", (x,), mismatch),), "f"))
    with pytest.raises(CatadTypeError, match="clashes with a primitive"):
        check_program(Program((Def("sin", (x,), x),), "sin"))


def test_cl_typing_rejects_ill_typed_terms():
    with pytest.raises(CatadTypeError):
        C.cl_type(C.Call("sin", 1, Float), Int)
    with pytest.raises(CatadTypeError):
        C.cl_type(C.Prune((0,), 2), Float)
    with pytest.raises(CatadTypeError):
        C.cl_type(C.If(C.Identity(), C.Konst(1.0, Float), C.Konst(1, Int)), Bool)
    assert C.cl_type(C.Prune((1,), 2), TupleT((Float, Int))) == Int


def test_argument_errors():
    p = f2_program()
    with pytest.raises(ArgumentError, match="1 argument"):
        evaluate(p, 1.0, 2.0)
    with pytest.raises(ArgumentError, match="'x'"):
        evaluate(p, np.ones(3))
    with pytest.raises(ArgumentError, match="rank 0"):
        type_of_value(np.array(2.0))
    with pytest.raises(ArgumentError, match="list"):
        type_of_value([1.0, 2.0])
    with pytest.raises(ArgumentError, match="str"):
        type_of_value("x")


def test_anf_makes_every_operand_atomic():
    body = prim("mul", prim("sin", prim("add", x, x)), prim("cos", prim("mul", x, y)))
    p = anf_program(Program((Def("f", (x, y), body),), "f"))
    lets, final = let_chain(p.main.body)
    assert lets and all(is_atom(a) for lt in lets for a in lt.rhs.args)
    assert all(is_atom(a) for a in final.args)
    assert evaluate(p, 0.3, 0.7) == pytest.approx(np.sin(0.6) * np.cos(0.21))


def test_free_vars():
    body = Let(y, prim("mul", x, x), prim("add", y, z))
    assert free_vars(body) == {x, z}


def test_array_constants_are_hashable_by_content():
    a, b = const(np.arange(3.0)), const(np.arange(3.0))
    assert a == b and hash(a) == hash(b) and a != const(np.arange(4.0))
    assert a.type == Vec(Float)


# ---------------------------------------------------------------- random programs

@st.composite
def scalar_terms(draw, env, depth):
    """A random well-typed Float term over the variables in env (Var -> in scope)."""
    floats = [v for v in env if v.type == Float]
    vecs = [v for v in env if v.type == Vec(Float)]
    leaves = [st.sampled_from(floats)] if floats else []
    leaves.append(st.floats(-2, 2, allow_nan=False).map(fconst))
    if depth <= 0:
        return draw(st.one_of(*leaves))
    kind = draw(st.sampled_from(["leaf", "op", "op", "fn", "let", "if", "tuple", "sum", "index"]))
    sub = lambda e=env: scalar_terms(e, depth - 1)  # noqa: E731
    if kind == "op":
        return prim(draw(st.sampled_from(["add", "sub", "mul"])), draw(sub()), draw(sub()))
    if kind == "fn":
        return prim(draw(st.sampled_from(["sin", "cos", "tanh", "atan"])), draw(sub()))
    if kind == "let":
        v = Var(draw(st.sampled_from(["a", "b", "x"])), Float)  # may shadow
        return Let(v, draw(sub()), draw(sub(env | {v})))
    if kind == "if":
        return If(prim("lt", draw(sub()), draw(sub())), draw(sub()), draw(sub()))
    if kind == "tuple":
        return Get(draw(st.integers(0, 1)), Tuple((draw(sub()), draw(sub()))))
    if kind in ("sum", "index") and vecs:
        v = draw(st.sampled_from(vecs))
        i = Var(draw(st.sampled_from(["i", "j"])), Int)
        if kind == "index":
            return prim("index", prim("mod", iconst(draw(st.integers(0, 5))), prim("size", v)), v)
        elem = prim("mul", prim("index", i, v), draw(sub(env)))
        return prim("sum", Build(prim("size", v), i, elem))
    return draw(st.one_of(*leaves))


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_random_programs_agree_in_every_evaluator(data):
    params = (Var("x", Float), Var("y", Float), Var("v", Vec(Float)))
    body = data.draw(scalar_terms(frozenset(params), 4))
    p = Program((Def("f", params, body),), "f")
    args = (0.3, -1.2, np.array([0.5, -1.0, 2.0]))
    values = all_ways(p, *args)
    for v in values[1:]:
        assert v == pytest.approx(values[0], rel=1e-12, abs=1e-12)


def test_a_tuple_of_a_projection_and_a_let_reads_its_input_as_the_let_does():
    """x + t[0] * (let u = t[2] in u[1]) of a 3-tuple t: in CL, a tuple of pi_1 and a let whose body
    prunes to u. Read back from CL, the tuple's input was split into t's three components (the
    projection's count), so the let's body took t[1] for u (a loop's body of the ADBench-style
    `t = (x, 1, w * 1.0)`: generated code indexing the Int 1, a SyntaxError)."""
    x, t, u = Var("x", Float), Var("t", TupleT((Float, Int, Vec(Float)))), Var("u", Vec(Float))
    body = prim("add", x, prim("mul", Get(0, t), Let(u, Get(2, t), prim("index", const(1), u))))
    p = Program((Def("f", (x, t), body),), "f")
    assert "P[2/2] ; (π1,3, L(u, π3,3" in str(C.to_cl_program(p))
    values = all_ways(p, 0.5, (1.5, 1, np.array([2.0, 3.0, 4.0])))
    assert_all_equal(values + [5.0])
