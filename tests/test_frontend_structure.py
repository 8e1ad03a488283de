"""Front end: shape of the generated core terms (scoping, sharing, names, determinism, locations)."""
import linecache
import math

import numpy as np
import pytest

from catad.frontend import compile_function
from catad.lang.evaluate import evaluate
from catad.lang.terms import Build, Call, Const, Get, If, Let, Term, Tuple, Var, is_atom, let_chain
from catad.lang.typecheck import check_program as typecheck
from catad.lang.types import Bool, Int
from catad.primitives import PRIMITIVES

import test_frontend_eval as corpus


def tree(t):
    """Every node of t's tree, with multiplicity (a node object reached twice is listed twice)."""
    stack = [t]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(c for c in n.children() if isinstance(c, Term))  # not into types


def check_program(p):
    """Well-scoped, distinct binders, consistent types, calls of earlier defs with their types."""
    names = [d.name for d in p.defs]
    assert len(set(names)) == len(names) and p.entry == names[-1]
    assert not set(names) & set(PRIMITIVES)
    seen_defs = {}
    for d in p.defs:
        binders = [v.name for v in d.params]
        stack = [(d.body, frozenset(d.params))]
        while stack:
            t, scope = stack.pop()
            if isinstance(t, Var):
                assert t in scope, f"{t.name} unbound in {d.name}"
            elif isinstance(t, Let):
                assert t.var.type == t.rhs.type
                binders.append(t.var.name)
                stack += [(t.rhs, scope), (t.body, scope | {t.var})]
            elif isinstance(t, Build):
                assert t.size.type == Int and t.var.type == Int
                binders.append(t.var.name)
                stack += [(t.size, scope), (t.body, scope | {t.var})]
            elif isinstance(t, If):
                assert t.cond.type == Bool and t.then.type == t.orelse.type
                stack += [(c, scope) for c in t.children() if isinstance(c, Term)]
            elif isinstance(t, Call) and t.fn not in PRIMITIVES:
                callee = seen_defs[t.fn]  # defined before use
                assert tuple(a.type for a in t.args) == tuple(v.type for v in callee.params)
                assert t.type == callee.result_type
                stack += [(c, scope) for c in t.children() if isinstance(c, Term)]
            else:
                stack += [(c, scope) for c in t.children() if isinstance(c, Term)]
        assert len(set(binders)) == len(binders), f"a binder is reused in {d.name}: {binders}"
        # never duplicate a compound term: each compound node object occurs once in the tree
        counts = {}
        for n in tree(d.body):
            if not is_atom(n):
                counts[id(n)] = counts.get(id(n), 0) + 1
        assert max(counts.values(), default=1) == 1, f"a compound term is duplicated in {d.name}"
        seen_defs[d.name] = d


@pytest.mark.parametrize("fn, make", corpus.CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(corpus.CASES)])
def test_corpus_programs_are_well_formed_and_deterministic(fn, make):
    args = make()
    p = compile_function(fn, args)
    check_program(p)
    typecheck(p)
    q = compile_function(fn, args)
    assert p == q and str(p) == str(q)


def test_signatures_and_def_names():
    p = compile_function(corpus.calls_helpers, (1.0, 2))
    assert [d.name for d in p.defs] == ["helper", "helper_2", "helper_3", "two_results", "exp_2", "calls_helpers"]
    # helper(i, 3): an Int constant argument is compiled into the callee (one parameter left)
    assert [str(d.param_type) for d in p.defs[:3]] == ["(Float, Float)", "(Int,)", "(Int, Float)"]
    assert p.main.name == "calls_helpers"


def test_lambda_def_name():
    p = compile_function(corpus.lam, (1.0, 2.0))
    assert p.entry == "lambda"


# ------------------------------------------------------------ exact lowerings

def elementwise_product(v, w):
    return v * w


def test_elementwise_is_a_build_over_the_size():
    """v * w checks once that the lengths agree (NumPy's broadcasting: neither is 1 here,
    for these arguments), then is a build over v's length."""
    body = compile_function(elementwise_product, (np.ones(3), np.ones(3))).main.body
    assert isinstance(body, Let) and str(body.rhs).startswith("check(size(v) == size(w), ((size(v),), (size(w),)),")
    body = body.body
    assert isinstance(body, Build) and body.size == Call("size", (Var("v", body.size.args[0].type),), Int)
    i = body.var
    assert str(body.body) == f"v[{i.name}] * w[{i.name}]"


def test_an_operand_of_length_one_is_read_at_zero_without_a_check():
    """A length-1 argument (compiled for that pattern) is stretched: no check, read at 0."""
    body = compile_function(elementwise_product, (np.ones(3), np.ones(1))).main.body
    assert isinstance(body, Build)
    assert str(body.body) == f"v[{body.var.name}] * w[0]"


def compound_operands(v, w):
    return (v + w) * np.exp(v)


def test_compound_operands_read_at_every_index_are_fused():
    """(v + w) * exp(v): one build whose element is (v[i] + w[i]) * exp(v[i]), not three
    vectors made and read back; the size is what is known of the operands' shapes."""
    body = compile_function(compound_operands, (np.ones(3), np.ones(3))).main.body
    lets, inner = let_chain(body)
    assert [lt.rhs.fn for lt in lets] == ["check"]  # v + w checks the lengths, nothing else needs one
    assert isinstance(inner, Build) and inner.size.args[0] == Var("v", inner.size.args[0].type)
    i = inner.var.name
    assert str(inner.body) == f"(v[{i}] + w[{i}]) * exp(v[{i}])"


def stretched_operand(m, row):
    return np.exp(row) * m


def test_a_compound_operand_stretched_is_let_bound_first():
    """exp(row) of a (1, 3) row times a (2, 3) matrix: the row's exponentials are computed
    once and stored, not once per row of m."""
    body = compile_function(stretched_operand, (np.ones((2, 3)), np.ones((1, 3)))).main.body
    lets, inner = let_chain(body)
    lets = [lt for lt in lets if not (isinstance(lt.rhs, Call) and lt.rhs.fn == "check")]  # the columns'
    assert len(lets) == 1 and isinstance(lets[0].rhs, Build) and "exp" in str(lets[0].rhs)
    assert "exp" not in str(inner) and f"{lets[0].var.name}[0]" in str(inner)


def guard(v, i):
    return i < len(v) and v[i] > 0.0


def test_and_guards_its_right_side():
    body = compile_function(guard, (np.ones(3), 1)).main.body
    assert isinstance(body, If) and body.orelse == Const(False, Bool)
    assert evaluate(compile_function(guard, (np.ones(3), 1)), np.ones(3), 7) is False


def joined(x, c):
    a = x
    b = 1.0
    if c > 0.0:
        a = x * 2.0
        b = a + 1.0
    else:
        b = 2
    return a + b


def test_if_join_binds_a_tuple_then_projects():
    body = compile_function(joined, (1.0, 1.0)).main.body
    lets, result = let_chain(body)
    t, a, b = lets[-3:]
    assert isinstance(t.rhs, If) and isinstance(t.rhs.then, Let) and isinstance(t.rhs.orelse, Tuple)
    assert str(t.rhs.orelse) == "(x, 2.0)"  # the Int 2 joins as Float
    assert a.rhs == Get(0, t.var) and b.rhs == Get(1, t.var)
    assert str(result) == f"{a.var.name} + {b.var.name}"


def early(x):
    if x < 0.0:
        return 0
    y = x * x
    return y


def test_early_return_is_an_if_around_the_rest():
    body = compile_function(early, (1.0,)).main.body
    assert isinstance(body, If) and body.then == Const(0.0, body.then.type) and isinstance(body.orelse, Let)


def negative_index(v):
    return (v * 2.0)[-1]


def mean_of_product(v, w):
    return np.mean(v * w)


def matrix_products(a, b):
    return (a + 1.0) @ (b * 2.0), np.dot(a, b)[1:, -1]


@pytest.mark.parametrize("fn, args, builds", [
    (negative_index, (np.ones(3),), 1),
    (mean_of_product, (np.ones(3), np.ones(3)), 1),
    (matrix_products, (np.arange(6.0).reshape(2, 3), np.arange(6.0).reshape(3, 2)), 2 + 2 + 3 + 3 + 1),
])
def test_operands_used_twice_are_shared(fn, args, builds):
    p = compile_function(fn, args)
    check_program(p)
    assert sum(isinstance(n, Build) for n in tree(p.main.body)) == builds
    corpus.assert_same(evaluate(p, *args), fn(*args))


def capture(x, _t1, v):
    _i1 = x * 2.0
    x_1 = v * _i1 + np.sum(v * v)
    x = x + _t1
    y_1 = (x_1 * x)[-1]
    y = y_1 + 1.0
    y = y * 2.0
    return np.sum(x_1 * x) + _i1 + y + y_1


def test_fresh_names_never_capture_user_names():
    args = (1.5, 0.25, np.array([1.0, 2.0, 3.0]))
    p = compile_function(capture, args)
    check_program(p)
    np.testing.assert_allclose(evaluate(p, *args), capture(*args), rtol=1e-12)


def test_terms_carry_locations():
    p = compile_function(corpus.slicing, (np.ones(5), np.ones((4, 4)), 1))
    import inspect
    lines, start = inspect.getsourcelines(corpus.slicing)
    for n in tree(p.main.body):
        if isinstance(n, (Let, Build, If, Call)):
            assert n.loc is not None and start <= n.loc.line < start + len(lines)
            assert n.loc.file == corpus.__file__


def test_linecache_source_and_lambda():
    name = "<catad-frontend-test>"
    src = "import math\ndef f(x):\n    y = x * 2.0\n    return math.sin(y)\ng = lambda x: x + 1.0\n"
    linecache.cache[name] = (len(src), None, src.splitlines(True), name)
    ns = {}
    exec(compile(src, name, "exec"), ns)
    p = compile_function(ns["f"], (0.5,))
    assert evaluate(p, 0.5) == math.sin(1.0)
    assert p.main.body.loc.file == name and p.main.body.loc.line == 3
    assert evaluate(compile_function(ns["g"], (0.5,)), 0.5) == 1.5
