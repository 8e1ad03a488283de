"""Compiling long straight-line programs stays linear: the work is counted, never timed.

Free variables of let chains (the dead-let rule asks at every let, innermost first),
the rule table of the rewrite engine (it tries only the rules a node's fields allow)
and the pipeline's lazy stages (grad builds no forward program).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import catad
from catad._node import walk
from catad.explain import explain
from catad.pipeline import pipeline
from catad.lang.terms import ChainFreeVars, Const, Term, Tuple, Var, free_vars, let_chain, make_lets
from catad.lang.types import Float
from catad.primitives import prim
from catad.rewrite import RULES, Rewriter, rewrite

from gen_terms import DrawChooser, Gen, mixed

sys.path.append(str(Path(__file__).resolve().parent.parent / "benchmarks"))  # last: see conftest.py
from _util import chain_source, load_source  # noqa: E402

N = 10_000


def _reverse_like_chain(n: int) -> Term:
    """x_i = x_{i-1} * x_{i-1} for i <= n, then c_i = x_{i-1} * c_{i+1} down to c_1: the
    shape of a reverse program, where every primal value stays live to the end."""
    xs = [Var(f"x{i}", Float) for i in range(n + 1)]
    cs = [Var(f"c{i}", Float) for i in range(n + 2)]
    lets = [(xs[i], prim("mul", xs[i - 1], xs[i - 1])) for i in range(1, n + 1)]
    lets.append((cs[n + 1], xs[n]))
    lets += [(cs[i], prim("mul", xs[i - 1], cs[i + 1])) for i in range(n, 0, -1)]
    return make_lets(lets, Tuple((xs[n], cs[1])))


def test_free_vars_of_a_live_chain_are_linear_in_its_length():
    t = _reverse_like_chain(N)
    lets, _ = let_chain(t)
    fv = ChainFreeVars()
    for lt in reversed(lets):  # as the engine asks: each let's body, innermost first
        assert lt.var in fv(lt.body)
    assert fv(t) == {Var("x0", Float)}
    # a set per let would hold about N^2 / 2 = 5e7 variables in all; here there is one
    # set for the chain, handed up from let to let, besides those of the right sides
    assert sum(len(s) for s in fv._memo.values()) <= 4 * N


def test_free_vars_of_a_flat_let_take_no_stack(monkeypatch):
    """Asked innermost first, a let whose right side is an atom or a call of atoms gets its set
    from its body's at once (ChainFreeVars._let), without the explicit stack and the general
    per-node step (_node) that every other question takes: the dead-let rule asks this at most
    lets (4,400 of the 8,400 questions of the 200-statement vector chain's gradient)."""
    calls = [0]
    node = ChainFreeVars._node

    def counting(self, n, kids):
        calls[0] += 1
        return node(self, n, kids)
    monkeypatch.setattr(ChainFreeVars, "_node", counting)
    t = _reverse_like_chain(1000)
    lets, _ = let_chain(t)
    fv = ChainFreeVars()
    for lt in reversed(lets):
        assert lt.var in fv(lt.body)
    assert fv(t) == {Var("x0", Float)} and calls[0] <= 2, calls  # the tuple at the end
    # a let whose right side is a linear map of atoms and maps of atoms (a Jacobian's, half its
    # lets): read off directly, neither the let nor the right side takes the stack (every let of
    # the 200-statement vector chain's gradient did: 7,000, then each Compose and its Scale)
    from catad.lang.types import LinMap
    from catad.linearmaps.terms import Compose, Scale
    ds = [Var(f"D{i}", LinMap(Float, Float)) for i in range(1001)]
    xs = [Var(f"x{i}", Float) for i in range(1001)]
    lets = [(ds[i], Compose(Scale(xs[i], Float), ds[i - 1])) for i in range(1, 1001)]
    t = make_lets(lets, ds[1000])
    calls[0] = 0
    fv = ChainFreeVars()
    for lt in reversed(let_chain(t)[0]):
        assert lt.var in fv(lt.body)
    assert fv(t) == {ds[0], *xs[1:]} and calls[0] == 0, calls


def test_free_vars_reads_each_nodes_children_once(monkeypatch):
    """free_vars (to_cl asks it for every subterm, the front end for many) reads a node's
    children once, by its class's generated term_children, and never an atom's: the chain of
    2n + 1 lets below is 4n + 2 reads (5,507 for n = 500 when it read them by the generic
    Node.children, twice or three times a node and once per atom)."""
    from catad import _node
    from catad.lang import terms as lang_terms
    reads = [0]
    children = _node.Node.children

    def counting_children(self):
        reads[0] += 1
        return children(self)
    n = 500
    t = _reverse_like_chain(n)
    compound = sum(1 for x in walk(t) if isinstance(x, Term) and not isinstance(x, (Var, Const)))
    assert compound == 2 * (2 * n + 1)  # the lets, their calls (one an alias: no call), the tuple
    monkeypatch.setattr(_node.Node, "children", counting_children)
    monkeypatch.setattr(lang_terms, "CHILDREN", _CountingTable(lang_terms.CHILDREN, reads))
    fv = free_vars(t)
    assert reads[0] == compound, (reads[0], compound)
    assert fv == {Var("x0", Float)}


def test_free_vars_asked_in_any_order_agree_with_free_vars():
    t = _reverse_like_chain(50)
    nodes = [n for n in walk(t) if isinstance(n, Term)]
    fv = ChainFreeVars()
    rng = np.random.default_rng(0)
    for k in list(range(len(nodes) - 1, -1, -1)) + list(rng.permutation(len(nodes))):
        assert fv(nodes[k]) == free_vars(nodes[k])  # a set handed over is recomputed


@st.composite
def mixed_terms(draw):
    """Random terms of every kind the generator knows (as tests/test_rules.py's FULL)."""
    g = Gen(DrawChooser(draw), applies=True, var_maps=True, sparse=True, zero_ops=True)
    return g, mixed(g, 2)


SMALL = settings(max_examples=60, deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                        HealthCheck.filter_too_much])


@SMALL
@given(mixed_terms())
def test_free_vars_of_random_terms_agree_with_free_vars(case):
    _, t = case
    fv = ChainFreeVars()
    nodes = [n for n in walk(t) if isinstance(n, Term)]
    for n in reversed(nodes):
        assert fv(n) == free_vars(n)
    assert fv(t) == free_vars(t)


@SMALL
@given(mixed_terms())
def test_the_rule_table_leaves_out_only_rules_that_do_not_match(case):
    _, t = case
    rw = Rewriter(RULES)
    for n in walk(t):
        if isinstance(n, Term):
            tried = rw._rules_for(n)
            assert [r for r in RULES if r in tried] == tried  # catalogue order
            assert all(r.apply(n) is None for r in RULES if r not in tried)


def test_dead_lets_go_from_a_long_chain():
    x = Var("x", Float)
    ys = [Var(f"y{i}", Float) for i in range(N)]
    # y_i = y_{i-2} * x: the odd ys feed the result, the even ones are dead
    lets = [(y, prim("mul", ys[i - 2] if i >= 2 else x, x)) for i, y in enumerate(ys)]
    out, steps = rewrite(make_lets(lets, ys[-1]), RULES)
    kept, _ = let_chain(out)
    assert [lt.var for lt in kept] == ys[1::2]
    assert sum(s.rule == "let-dead" for s in steps) == N // 2


def test_grad_builds_only_the_reverse_program():
    f = load_source(chain_source(200, "{p} * {p}"))
    catad.grad(f)(1.0)
    computed = vars(pipeline(f, 1.0))
    assert "reverse" in computed and "forward" not in computed and "jacobian_transposed" not in computed
    d = explain(f, 1.0)  # the other stages are built when asked for
    assert "fun fwd$f" in d.stage("forward").text
    order = ["jacobian-optimised", "jacobian-transposed", "forward", "reverse"]
    ranks = [order.index(s.stage) for s in d.steps]
    assert ranks == sorted(ranks) and {0, 2, 3} <= set(ranks)  # the trace in stage order


# ---------------------------------------------------------------- the work of a first grad

def _node_classes() -> list[type]:
    """Every class of node with a __new__ of its own: each node is made by exactly one (the
    one catad._node.node generates for its class; a type's only when the type is new)."""
    import catad.lang.fold  # noqa: F401  (every language's nodes)
    import catad.rewrite.sweeps  # noqa: F401
    from catad._node import Node
    out, todo = [], [Node]
    while todo:
        c = todo.pop()
        todo.extend(c.__subclasses__())
        if "__new__" in vars(c):
            out.append(c)
    return out


def _counting_inits(box: list) -> dict:
    """Wrap the __new__ of every class of node to count the nodes made in box[0]; returns the
    __new__s to put back (see _restore)."""
    saved = {c: vars(c)["__new__"] for c in _node_classes()}

    def counting(new):
        def __new__(cls, *a, **k):
            box[0] += 1
            return new(cls, *a, **k)
        return __new__
    for c, new in saved.items():
        c.__new__ = counting(new)
    return saved


def _restore(saved: dict) -> None:
    for c, new in saved.items():
        c.__new__ = new


def test_every_node_is_counted_once():
    """The counting of terms made: one per node, whatever its class (core terms, linear maps,
    CL, types), through the __new__ its class has."""
    from catad.lang.terms import Call, Let
    from catad.lang.types import Int, LinMap, Tuple as TupleT, Vec, _Interned
    from catad.linearmaps.terms import Plus, Scale
    x = Var("x", Float)
    LinMap(Float, Float)  # the maps' type, made before counting
    items = tuple(Vec(Int) for _ in range(37))
    new_type = (TupleT, tuple(id(t) for t in items)) not in _Interned._made
    made = [0]
    saved = _counting_inits(made)
    try:
        Let(x, Call("sin", (x,), Float), Plus(Scale(x, Float), Scale(x, Float)))
        TupleT(items)
        TupleT(items)  # made once
    finally:
        _restore(saved)
    assert made[0] == 5 + new_type, made


def _count_work(fn, arg) -> tuple[int, int]:
    """(terms made, rules tried) by the first catad.grad(fn)(arg): every node of every language
    is made through the __new__ of its class, and the rewrite engine tries rules in Rule.apply."""
    from catad.rewrite.rule import Rule
    made, tried = [0], [0]
    apply = Rule.apply

    def counting_apply(self, *a, **k):
        tried[0] += 1
        return apply(self, *a, **k)
    saved = _counting_inits(made)
    Rule.apply = counting_apply
    try:
        catad.grad(fn)(arg)
    finally:
        Rule.apply = apply
        _restore(saved)
    return made[0], tried[0]


VECTOR_STATEMENT = "np.sin({p}) * 0.5 + {p} * 0.5"


def test_the_first_grad_of_a_vector_chain_does_work_linear_in_its_length():
    """Doubling the statements of `x = np.sin(x) * 0.5 + x * 0.5` at most doubles the terms
    made and the rules tried, and each statement costs a bounded amount (about 500 terms made
    and 150 rules tried today; before elementwise operands were fused and the stages after the
    Jacobian started from its normal terms, about 1,160 terms)."""
    work = {}
    for n in (100, 200):
        src = "import numpy as np\n" + chain_source(n, VECTOR_STATEMENT, ret=f"np.sum(x{n})")
        work[n] = _count_work(load_source(src), np.ones(4))
    (made1, tried1), (made2, tried2) = work[100], work[200]
    assert made2 <= 2.05 * made1 and tried2 <= 2.05 * tried1, work
    assert (made2 - made1) / 100 <= 600 and (tried2 - tried1) / 100 <= 200, work


def test_a_rule_that_loops_is_an_error_not_a_hang():
    """The step limit counts steps per node left normal (no walk of the whole term): two
    rules that undo each other end in a CatadError, while a long chain that takes many
    steps, each leaving nodes normal, does not."""
    import pytest
    from catad.errors import CatadError
    from catad.lang.terms import Const
    from catad.rewrite.rule import P, Rule
    one, two = Const(1.0, Float), Const(2.0, Float)
    flip = Rule("flip", "test", "", "1", "2", "", "", P(Const, value=1.0), lambda b: two)
    flop = Rule("flop", "test", "", "2", "1", "", "", P(Const, value=2.0), lambda b: one)
    with pytest.raises(CatadError, match="did not terminate"):
        Rewriter([flip, flop]).normalize(prim("add", Var("x", Float), one))
    x = Var("x", Float)
    lets = [(Var(f"y{i}", Float), prim("mul", x, Const(1.0, Float))) for i in range(3 * N)]
    out, steps = rewrite(make_lets(lets, x), RULES)  # every let dead, every mul-one fires
    assert out == x and len(steps) > 10_000



def test_the_steps_of_a_rewriter_a_rule_runs_count_against_that_one():
    """A rule may rewrite a subterm with a rewriter of its own sharing the trace (the forward
    sweep's fwd-sweep-nested, a fold step's Jacobian): its steps leave its own nodes normal, so
    the outer rewriter's step limit must not count them. It did, and the Hessian of a function
    whose loop holds a nested loop was refused ("a rule loops", fuzzer seed 70760) where
    rewriting ends; the nested rewriter's own limit still stops a loop of its own."""
    from catad.errors import CatadError
    from catad.lang.terms import Call
    from catad.rewrite.rule import P, Rule
    x = Var("x", Float)
    long = make_lets([(Var(f"y{i}", Float), prim("mul", x, Const(1.0, Float))) for i in range(3 * N)], x)
    trace: list = []
    sweep = Rule("sweep", "test", "", "cos(x)", "x", "", "", P(Call, fn="cos"),
                 lambda b: Rewriter(RULES, "inner", trace).normalize(long))
    # 300 frames the outer rewriter leaves normal, after the one the rule sweeps
    outer = Tuple((prim("cos", x),) + tuple(prim("sin", Var(f"z{i}", Float)) for i in range(300)))
    out = Rewriter([sweep] + RULES, "outer", trace).normalize(outer)
    assert out.items[0] == x and len(trace) > 50 * 301 + 10_000
    one, two = Const(1.0, Float), Const(2.0, Float)
    flip = Rule("flip", "test", "", "1", "2", "", "", P(Const, value=1.0), lambda b: two)
    flop = Rule("flop", "test", "", "2", "1", "", "", P(Const, value=2.0), lambda b: one)
    looping = Rule("sweep", "test", "", "cos(x)", "x", "", "", P(Call, fn="cos"),
                   lambda b: Rewriter([flip, flop], "inner", trace).normalize(prim("add", x, one)))
    with pytest.raises(CatadError, match="did not terminate"):
        Rewriter([looping] + RULES, "outer", trace).normalize(outer)

def test_types_are_made_once_per_structure():
    """Types are hash-consed: equal types are one object, however they are spelled, so
    comparing and hashing them is an identity check and a program holds each type once."""
    from catad.lang.types import Float, Int, LinMap, Tuple as TupleT, Vec
    assert Vec(Float) is Vec(Float) is Vec(elem=Float) is Vec(Int).replace(elem=Float)
    assert TupleT((Vec(Float), Int)) is TupleT((Vec(Float), Int))
    assert LinMap(Vec(Float), Float) is LinMap(src=Vec(Float), tgt=Float)
    assert Vec(Float) is not Vec(Int) and TupleT((Float,)) is not TupleT((Int,))
    import pytest
    with pytest.raises(TypeError):
        Vec(Float, elem=Int)


def test_nodes_have_no_dict():
    """Every node class keeps its fields in slots (a dict per node doubled the memory of a
    long program), and a method's zero-argument super() still finds the slotted class."""
    import gc
    import catad.lang.fold  # noqa: F401  (every language's nodes)
    import catad.rewrite.sweeps  # noqa: F401
    from catad._node import Node
    from catad.linearmaps.terms import Plus, Scale
    gc.collect()

    def subclasses(c):
        for s in c.__subclasses__():
            yield s
            yield from subclasses(s)
    classes = set(subclasses(Node))
    assert len(classes) > 40
    assert not [c for c in classes if any("__slots__" not in vars(b) for b in c.__mro__[:-1])]
    x = Var("x", Float)
    m = Plus(Scale(x, Float), Scale(x, Float))  # Plus.__post_init__ calls super().__post_init__()
    assert not hasattr(m, "__dict__") and m.type.src == Float


# ---------------------------------------------------------------- nodes visited

class _CountingTable(dict):
    """catad.lang.terms' table of children functions, counting its look-ups: one per node whose
    children are read by term_children (the engine, substitute, CSE, dead code, the inliners,
    subterms, var_names, may_fail, rename)."""

    def __init__(self, table: dict, box: list):
        super().__init__()
        self.table, self.box = table, box

    def __getitem__(self, key):
        self.box[0] += 1
        return self.table[key]  # (which writes the function of a class met first)


def _count_visits(fn, arg, stage=None, call=None) -> tuple[int, int, int]:
    """(terms made, rules tried, nodes visited) by the first catad.grad(fn)(arg), or with
    `stage`, by making that stage of its pipeline alone (the stages it needs made first), or by
    call() when given. A
    node is visited when its children are read: through term_children or Node.children (the
    walks of catad._node and catad.lang.free_vars)."""
    from catad import _node
    from catad.lang import terms as lang_terms
    from catad.rewrite.rule import Rule
    made, tried, visited = [0], [0], [0]
    apply, children, table = Rule.apply, _node.Node.children, lang_terms.CHILDREN

    def counting_apply(self, *a, **k):
        tried[0] += 1
        return apply(self, *a, **k)

    def counting_children(self):
        visited[0] += 1
        return children(self)
    p = None
    if stage is not None:
        p = pipeline(fn, arg)
        p.jacobian_optimised
    saved = _counting_inits(made)
    Rule.apply, _node.Node.children = counting_apply, counting_children
    lang_terms.CHILDREN = _CountingTable(table, visited)
    try:
        if call is not None:
            call()
        elif p is None:
            catad.grad(fn)(arg)
        else:
            getattr(p, stage)
    finally:
        Rule.apply, _node.Node.children = apply, children
        lang_terms.CHILDREN = table
        _restore(saved)
    return made[0], tried[0], visited[0]


def _fib_chain(n: int):
    return load_source("def f(x):\n    a, b = x, x\n" + "    a, b = b, a + b\n" * n + "    return b\n")


def _vector_chain(n: int):
    return load_source("import numpy as np\n" + chain_source(n, VECTOR_STATEMENT, ret=f"np.sum(x{n})"))


# bounds per statement (terms made, rules tried, nodes visited); measured when written:
# vector chain 407, 172 and 487, Fibonacci chain 60, 26 and 50; at wip/ctime3 (terms counted
# through each class's __init__, as core terms no longer call Node.__post_init__) 399, 177 and
# 418, and 56, 26 and 46 (finish's ANF takes its names from the sweep's: one walk fewer); at
# wip/ctime4 375, 177 and 316, and 56, 26 and 38 (finish's ANF and CSE one walk, the sweep's
# names from the AD's, finish told of redexes by its passes: three whole-program walks fewer); at
# wip/ctime5 350, 148 and 251, and 56, 24 and 30 (the reverse sweep makes its chains normal and
# copies no build's primal, free_vars reads a node once, finish's CSE counts the inliner's uses);
# at wip/hcomp6 331, 140 and 237, and 56, 24 and 30 (the AD binds a call it has bound in the same
# chain once: the fused element reads x[i] twice)
WORK_PER_STATEMENT = {"vector": (340, 145, 245), "fib": (60, 26, 33)}


def test_the_first_grad_visits_each_statement_a_bounded_number_of_times():
    """For a vector chain and a scalar (Fibonacci) chain, doubling the statements at most
    doubles the terms made, the rules tried and the nodes visited, and each statement costs
    a bounded amount of each: a pass that walks the whole program once per statement, or a
    sweep that normalises the whole program again after each binding it sweeps, is quadratic
    and fails here, without timing anything."""
    for kind, chain, arg in [("vector", _vector_chain, np.ones(4)), ("fib", _fib_chain, 1.0)]:
        small, large = _count_visits(chain(100), arg), _count_visits(chain(200), arg)
        for what, a, b, bound in zip(("made", "tried", "visited"), small, large, WORK_PER_STATEMENT[kind]):
            assert b <= 2.05 * a, (kind, what, small, large)
            assert (b - a) / 100 <= bound, (kind, what, small, large)


def test_the_reverse_stage_rewrites_only_what_its_sweep_makes():
    """The stages after the optimised Jacobian start from its normal terms (their marks), so
    making the reverse program tries rules only at what the sweep makes, not at the whole
    Jacobian again (about 115 rules per statement of the vector chain; 167 without the marks)."""
    small = _count_visits(_vector_chain(100), np.ones(4), "reverse")
    large = _count_visits(_vector_chain(200), np.ones(4), "reverse")
    assert (large[1] - small[1]) / 100 <= 135, (small, large)
    assert all(b <= 2.05 * a for a, b in zip(small, large)), (small, large)


def test_parses_and_sympy_translations_do_not_grow_with_the_statements(monkeypatch):
    """The backend's inlining of arrays used once parses each shape of line once (tidy._Shapes),
    and the AD translates each primitive's SymPy partials once per argument types
    (derivatives._Template._at_atoms): a chain twice as long parses and translates no more
    (when each line was parsed, and each call's partials translated, about 11 and 5 times per
    statement of the vector chain)."""
    from catad.backend import tidy
    from catad.primitives import derivatives
    counts = {"parses": 0, "translations": 0}
    parse, translate = tidy._parse, derivatives._Translator.translate

    def counting_parse(expr):
        counts["parses"] += 1
        return parse(expr)

    def counting_translate(self, *a):
        counts["translations"] += 1
        return translate(self, *a)
    monkeypatch.setattr(tidy, "_parse", counting_parse)
    monkeypatch.setattr(derivatives._Translator, "translate", counting_translate)
    seen = {}
    for n in (100, 200):
        counts.update(parses=0, translations=0)
        # each chain starts from an empty table of shapes (the process keeps one): what it parses
        # is its own, whichever tests ran before
        monkeypatch.setattr(tidy, "_SHAPES", tidy._Shapes())
        catad.grad(_vector_chain(n))(np.ones(4))
        seen[n] = dict(counts)
    assert 0 < seen[200]["parses"] == seen[100]["parses"] < 100, seen
    # translations are kept for the process: the second chain's are those it had already
    assert seen[200]["translations"] <= seen[100]["translations"] <= 20, seen


def test_no_class_of_node_derives_from_another():
    """The passes test a term's class by identity (type(t) is Let in let_chain and is_atom;
    Call, Build, Tuple, Get, If in fusion, inlining, CL conversion, CSE and the rewrite engine;
    the linear maps Zero and One in the AD), which holds while no class of node derives from
    another (a class made as a subclass of Call would be missed where Call is asked for)."""
    classes = _node_classes()
    assert len(classes) > 40  # (every language's: the walk finds them)
    assert not [(c, d) for c in classes for d in classes if c is not d and issubclass(c, d)]


def _made_in(fn, arg, module, name: str) -> int:
    """The terms made inside module.name while the first catad.grad(fn)(arg) runs."""
    made, inside = [0], [False]
    real = getattr(module, name)

    class Box(list):  # counts only while inside the function
        def __getitem__(self, i):
            return 0

        def __setitem__(self, i, v):
            made[0] += inside[0]

    counted = _flagged(real, inside)
    saved = _counting_inits(Box([0]))
    setattr(module, name, counted)
    try:
        catad.grad(fn)(arg)
    finally:
        setattr(module, name, real)
        _restore(saved)
    return made[0]



def _flagged(fn, inside: list):
    """fn, with inside[0] True while it runs (what a counter counts only then reads)."""
    def run(*a, **k):
        inside[0] = True
        try:
            return fn(*a, **k)
        finally:
            inside[0] = False
    return run


def test_finishing_cse_makes_no_binding_only_to_replace_it():
    """finish's CSE does ANF and CSE in one walk (catad.rewrite.cleanup._Cse): a compound
    operand is looked up where ANF meets it, so the bindings ANF made only for CSE to replace
    them, and the chain ANF rebuilt around them, are not made: 37 terms per statement of the
    vector chain, where ANF and then CSE made 61."""
    from catad.rewrite import stages
    small = _made_in(_vector_chain(100), np.ones(4), stages, "cse_zero")
    large = _made_in(_vector_chain(200), np.ones(4), stages, "cse_zero")
    assert large <= 2.05 * small and (large - small) / 100 <= 45, (small, large)


def test_inlining_copies_no_scope(monkeypatch):
    """Inlining user functions (catad.lang.inline) keeps one map of the variables in scope,
    each let chain and build body adding its binders and taking them back when it ends: a
    copy of the map per let chain and per build body held every enclosing variable, so a
    chain of n statements, each a build, copied n^2 / 2 entries (inlining the 8,000-statement
    vector chain took 0.52 s where 2,000 took 0.064; 0.25 s now)."""
    from catad.lang import inline
    envs: list = []
    term = inline._Inliner.term

    def seen(self, t, env):
        envs.append(env)  # kept alive, so a copy's id is not reused by the next one
        return term(self, t, env)
    monkeypatch.setattr(inline._Inliner, "term", seen)
    core = pipeline(_vector_chain(100), np.ones(4)).core
    # (inline_program returns a program of one definition with distinct binders as it is: the
    # inliner's walk, which a program with calls takes, is run here on this one)
    d = core.main
    inline._Inliner({}, inline.FreshNames.avoiding(d.body, params=d.params)).term(d.body, {})
    assert len({id(e) for e in envs}) == 1 and len(envs) > 200, (len({id(e) for e in envs}), len(envs))
    assert inline.inline_program(core) is core


@pytest.mark.parametrize("stage", ["reverse", "forward"])
def test_finish_does_not_walk_again_what_the_sweep_made(monkeypatch, stage):
    """The sweeps make each let chain as finish's optimising would leave it
    (catad.rewrite.sweeps.normal_chain: its dead lets left out, the rest normalised and marked
    normal), so finish's optimising of the vector chain's reverse and forward programs tries
    no rule at all, where it tried one at every let the sweep made and at every node it copied
    (about 35 per statement of the reverse program, 7 of them let-dead firing, 24 of the
    forward, 2 firing), and asked for the free variables of every let's body."""
    from catad.rewrite import stages
    from catad.rewrite.rule import Rule
    tried, inside = [0], [False]
    apply, optimise = Rule.apply, stages.optimise

    def counting_apply(self, *a, **k):
        tried[0] += inside[0]
        return apply(self, *a, **k)

    watched = _flagged(optimise, inside)
    monkeypatch.setattr(Rule, "apply", counting_apply)
    monkeypatch.setattr(stages, "optimise", watched)
    p = pipeline(_vector_chain(50), np.ones(4))
    p.record = True
    getattr(p, stage)
    assert tried[0] == 0, tried
    steps = [s[0] for s in p._traces[stage]]
    swept = "rev-let-bound" if stage == "reverse" else "fwd-let-bound"
    # the sweep made a let for each of the Jacobian's: 5 per statement since the chain's builds
    # are fused into one (catad.lang.fusion: no index, size and element lets between them; 7 before)
    assert "let-dead" not in steps and steps.count(swept) >= 50 * 5, sorted(set(steps))


def test_a_linear_maps_type_is_read_not_made_again(monkeypatch):
    """A linear-map node's type LinMap(src, tgt) is read from a dict by the ids of the two
    interned types (linearmaps.terms._LM_TYPES), not made through the interning metaclass
    again at every node the AD and the rules make (37 times per statement of the vector chain)."""
    from catad.lang.types import LinMap, _Interned
    catad.grad(_vector_chain(3))(np.ones(4))  # the types the chain's maps have, met once
    calls = [0]
    make = _Interned.__call__

    def counting(cls, *a, **k):
        calls[0] += cls is LinMap
        return make(cls, *a, **k)
    monkeypatch.setattr(_Interned, "__call__", counting)
    catad.grad(_vector_chain(100))(np.ones(4))
    assert calls[0] <= 10, calls


@pytest.mark.parametrize("stage", ["reverse", "forward"])
def test_the_sweeps_let_go_of_their_free_variables(monkeypatch, stage):
    """A sweep and the rules it makes (whose closures read it) were a reference cycle, which the
    paused garbage collector kept till the stage ended: the free variables the sweep keeps of
    what it made (sweeps.normal_chain's ChainFreeVars, which holds every term it was asked
    about) are let go of when the sweep ends (a 10,000-statement chain's gradient took 65 MB
    more while they were kept)."""
    import gc
    import weakref
    from catad.lang import terms as lang_terms
    made = []
    init = lang_terms.ChainFreeVars.__init__

    def watched(self):
        init(self)
        made.append(weakref.ref(self))
    p = pipeline(_vector_chain(20), np.ones(4))
    p.jacobian_optimised
    monkeypatch.setattr(lang_terms.ChainFreeVars, "__init__", watched)
    gc.disable()
    try:
        getattr(p, stage)
        alive = [r for r in made if r() is not None and len(r()._alive) > 100]
    finally:
        gc.enable()
    assert made and not alive, len(alive)


@pytest.mark.parametrize("fn, arg", [(_vector_chain(30), np.ones(4)),
                                     (load_source(chain_source(30, "{p} + {pp} * 0.5")), 1.0)])
def test_a_gradient_compiles_with_no_reference_cycle(fn, arg):
    """What a stage makes is freed by its count of references once let go of, not by the cyclic
    collector: the sweeps and the rules they make, whose closures read them (and their names,
    a set of every name in the program), the rule engine's generated matchers and keys (whose
    globals held them), the recursive closure compiling a pattern. A cycle made while the
    collector is paused goes to the oldest generation with a large stage's objects, and stays
    till a full collection. The gradient is compiled twice: first for what is made once and
    kept (types, rules' tables, caches), then, compiled again with the collector off, it must
    leave no garbage the collector would find."""
    import gc
    catad.grad(fn)(arg)
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        from catad.pipeline import Pipeline
        p = Pipeline(pipeline(fn, arg).core, pipeline(fn, arg).reads)
        p.code("reverse")
        p.code("forward")
        del p
        gc.collect()
        garbage = list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert not garbage, sorted({type(o).__name__ for o in garbage})


# ---------------------------------------------------------------- the front end's work

_TRICKY_SOURCES = '''
import functools


def deco(*a):
    return lambda f: f


@deco(1,
      2)
def decorated(x):
    return x * 2.0


def column_zero_comment(x):
    y = x + 1.0
# a comment at column 0 inside the body
    return y


def one_liner(x): return x - 1.0


def last_line_continued(x):
    return (x +
1.0)


def string_at_column_zero(x):
    s = """
text less indented than the body
"""
    return x + len(s)


def continued(x):
    y = x + \\
2.0
    return y


class Holder:
    def method(self, x):
        return x * 3.0
    # a comment after the method

    @staticmethod
    def static(x):
        def inner(y):
            return y + 1.0
        return inner(x)


def trailing(x):
    return x   # the last line
    # and a comment below it


def tabbed(x):
\treturn x + 1.0
'''


def test_a_functions_source_is_read_without_tokenizing_it(monkeypatch, tmp_path):
    """The front end takes a def's lines from the file by their indentation and parses them
    (catad.frontend.source._quick_def), where inspect.getsourcelines tokenized the whole block
    first (on the 1,000-statement vector chain, 0.03 s of the 0.08 parse_function took). Where
    that reading may be wrong (a line less indented inside a string or brackets), the text it
    cuts does not parse and getsourcelines is asked: the syntax tree is the same either way."""
    import ast
    import importlib.util
    import inspect
    from catad.frontend import source
    path = tmp_path / "tricky_sources.py"
    path.write_text(_TRICKY_SOURCES)
    spec = importlib.util.spec_from_file_location("tricky_sources", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    fns = {"decorated": True, "column_zero_comment": True, "one_liner": True, "last_line_continued": False,
           "string_at_column_zero": False, "continued": False, "method": True, "static": True, "trailing": True,
           "tabbed": False}
    blocks = [0]
    getblock = inspect.getblock

    def counting(lines):
        blocks[0] += 1
        return getblock(lines)
    monkeypatch.setattr(inspect, "getblock", counting)
    for name, quick in fns.items():
        fn = getattr(mod, name, None) or getattr(mod.Holder, name)
        blocks[0] = 0
        got = source.parse_function(fn)
        assert blocks[0] == (0 if quick else 1), (name, blocks)
        with monkeypatch.context() as m:  # the general way: getsourcelines, then the whole file
            m.setattr(source, "_quick_def", lambda fn: None)
            want = source.parse_function(fn)
        assert ast.dump(got.node, include_attributes=True) == ast.dump(want.node, include_attributes=True), name
        assert [got.loc(n) for n in ast.walk(got.node)] == [want.loc(n) for n in ast.walk(want.node)], name
        assert (got.identifiers, got.local_names) == (want.identifiers, want.local_names), name
        walked = {n.id for n in ast.walk(got.node) if isinstance(n, ast.Name)} | \
            {n.arg for n in ast.walk(got.node) if isinstance(n, ast.arg)}
        assert got.identifiers == walked | set(got.params), name
    f = load_source("import numpy as np\n" + chain_source(50, VECTOR_STATEMENT, ret="np.sum(x50)"))
    blocks[0] = 0
    catad.grad(f)(np.ones(3))
    assert blocks[0] == 0, blocks


def test_lowering_an_elementwise_statement_copies_no_size_through_replace_and_makes_no_check(monkeypatch):
    """An elementwise operation whose operands' lengths are proven equal asks for no check (it
    made the check's message and data, and check returned nothing: 4 times per statement of the
    vector chain); a size copied into a build (shapes.fresh) that is a call of atoms, as size(x),
    is made at once, not through Node.replace (4 per statement); and a call of a library function
    looks its primitive up once (the table of aliases reads every library alias: twice per
    np.sin before)."""
    from catad import _node
    from catad.frontend import checks, program
    from catad.primitives import registry
    counts = {"replace": 0, "check": 0, "aliases": 0}

    def counting(owner, name, key):
        real = getattr(owner, name)

        def counted(*a, **k):
            counts[key] += 1
            return real(*a, **k)
        monkeypatch.setattr(owner, name, counted)
    counting(_node.Node, "replace", "replace")
    counting(checks.Checks, "check", "check")
    counting(registry, "_by_alias", "aliases")
    program.compile_function(_vector_chain(200), (np.ones(4),))
    assert counts == {"replace": 0, "check": 0, "aliases": 200}, counts


# ---------------------------------------------------------------- the backend's work

class _CountingPattern:
    """A compiled regular expression whose scans (finditer, sub, findall) are counted."""

    def __init__(self, pattern, box: list):
        self.pattern, self.box = pattern, box

    def __getattr__(self, name):
        got = getattr(self.pattern, name)
        if name in ("finditer", "sub", "findall"):
            def counted(*a, **k):
                self.box[0] += 1
                return got(*a, **k)
            return counted
        return got


def test_inlining_scans_each_line_for_names_about_once(monkeypatch):
    """tidy.inline_single_use finds the names of each line once and reads them again where it
    substitutes into the line and classifies it (whether it makes an array, which names are
    operands: a renaming of its names, _shape), rather than scanning the line again for each
    (6,415 scans for the 1,605 lines of the 200-statement vector chain's reverse program; 2,207
    when a line whose text substitution changed was scanned again; 1,606 now: see the next
    test); and the shapes of
    lines it has classified are kept for the process, so compiling the same program again
    parses no line."""
    from catad.backend import tidy
    monkeypatch.setattr(tidy, "_SHAPES", tidy._Shapes())  # (whatever the process compiled before)
    scans, parses, lines, inside = [0], [0], [0], [0]
    monkeypatch.setattr(tidy, "_NAME", _CountingPattern(tidy._NAME, scans))
    monkeypatch.setattr(tidy, "_IDENT", _CountingPattern(tidy._IDENT, scans))
    inline, parse = tidy.inline_single_use, tidy._parse

    def counting_inline(lns, result, params, kept=()):  # (dead_code's scans, one per line, not counted)
        lines[0] += len(lns)
        before = scans[0]
        try:
            return inline(lns, result, params, kept)
        finally:
            inside[0] += scans[0] - before

    def counting_parse(expr):
        parses[0] += 1
        return parse(expr)
    monkeypatch.setattr(tidy, "inline_single_use", counting_inline)
    monkeypatch.setattr(tidy, "_parse", counting_parse)
    catad.grad(_vector_chain(200))(np.ones(4))
    assert lines[0] > 1500 and inside[0] <= lines[0] + 1, (inside, lines)
    parses[0] = 0
    catad.grad(_vector_chain(200))(np.ones(4))  # a new function: compiled again
    assert parses[0] == 0, parses


def test_the_backend_makes_a_hints_base_name_once(monkeypatch):
    """Compiler.name makes the base of a name from its hint (non-word characters replaced, a
    keyword or a name of the namespace prefixed) once per hint for the process, not with a
    regular expression at each of the ~9 names per statement of the vector chain's reverse
    program; a second function compiled with the same hints makes none."""
    import re as re_module
    from catad.backend import compiler
    subs = [0]
    monkeypatch.setattr(compiler, "_BASES", {})  # (whatever the process compiled before)

    class CountingRe:
        def __getattr__(self, name):
            return getattr(re_module, name)

        def sub(self, *a, **k):
            subs[0] += 1
            return re_module.sub(*a, **k)
    catad.grad(_vector_chain(100))(np.ones(4))
    monkeypatch.setattr(compiler, "re", CountingRe())
    catad.grad(_vector_chain(100))(np.ones(4))
    assert subs[0] == 0, subs
    assert compiler.Compiler(True, False, None, False, False).name("1 if") == "v_1_if"


def test_a_substituted_line_is_classified_as_it_was(monkeypatch):
    """inline_single_use does not scan or classify a line again after substituting into it
    (whether it makes an array, whether it stands as an operand): a whole expression put in a
    name's place changes no node above it, so the line's kind is that of the line as it was,
    or for a line that was the name alone, that of the expression put in (tidy._line_kind). On
    every candidate line of the corpus's primal and reverse programs, it is what a parse of the
    line itself says (the 200-statement vector chain's reverse program scanned 600 substituted
    lines again for their shapes)."""
    from catad.backend import tidy
    from corpus import CASES
    from _util import fresh_function
    kind, seen = tidy._line_kind, [0, 0, 0]

    def checked(shapes, line, refs, whole, expr, shaped=None):
        assert shaped is None or shaped == tidy._shape(line), line
        got = kind(shapes, line, refs, whole, expr, shaped)
        assert got == tidy._array_kind(expr), (line, expr, got)
        seen[0] += 1
        seen[1] += line != expr
        seen[2] += whole is not None
        return got
    monkeypatch.setattr(tidy, "_line_kind", checked)
    for case in CASES:  # (a new function object: compiled again, whatever ran before)
        bound = catad.api.bind(fresh_function(case.fn), case.make_args(np.random.default_rng(0)))
        for which in ("primal", "reverse"):
            bound.pipeline.code(which)
    catad.grad(_vector_chain(20))(np.ones(4))
    assert seen[0] > 1000 and seen[1] > 300 and seen[2] > 0, seen


# ---------------------------------------------------------------- the work of an hvp (issue 17)

def _gmm_args():
    """GMM's objective (benchmarks/adbench/gmm.py) at D=2, K=3, N=2, hvp's tangents (those of
    the data, x and wishart, zero) and argnums, as /tmp/l9's and compile_time.py's GMM."""
    from corpus import gmm
    r = np.random.default_rng(0)
    k, d, n = 3, 2, 2
    params = (r.normal(size=k), r.normal(size=(k, d)), r.normal(size=(k, d)), r.normal(size=(k, gmm.tri(d))))
    rest = (r.normal(size=(n, d)), (1.0, 0))
    tangents = tuple(r.normal(size=np.shape(p)) for p in params) + (np.zeros((n, d)), (0.0, 0))
    return gmm, params + rest, tangents


# bounds for hvp's compile (terms made, rules tried, nodes visited) of GMM at D=2, K=3, N=2, from a
# fresh function (its gradient's stages included); measured when written: 46,204, 15,603 and
# 38,219 before, 34,902, 12,608 and 26,460 with tuple-eta (no second round of finish) and the
# reverse sweep copying no check into a cotangent (GMM d2_K10's reverse program 20% smaller);
# 33,878, 12,316 and 25,803 with the cotangent's copy of a build read for its size only dropped
HVP_WORK = (40_000, 14_000, 32_000)


def test_the_hvp_of_gmm_compiles_with_one_round_of_finishing_and_no_copied_check(monkeypatch):
    """hvp (forward over reverse) of the GMM objective: the forward program's finish takes one
    round (a tuple argument rebuilt item by item, once differentiated, left a projection of a
    tuple literal that cost a second round of optimising, CSE and dead code), the gradient's
    reverse program checks only what its primal pass checks (its cotangent builds copied every
    check of the primal builds they recompute), and the work of the whole compile is bounded."""
    from catad.lang.terms import Call, subterms
    from catad.rewrite import stages
    from _util import fresh_function
    gmm, primals, tangents = _gmm_args()
    rounds = []
    optimise = stages.optimise

    def counted(d, stage, *a, **k):
        rounds.append(stage)
        return optimise(d, stage, *a, **k)
    monkeypatch.setattr(stages, "optimise", counted)
    f = fresh_function(gmm.gmm_objective)
    catad.hvp(f, primals, tangents, argnums=(0, 1, 2, 3))
    assert rounds.count("forward") == 1 and rounds.count("reverse") == 1, rounds
    p = pipeline(f, *primals)

    def checks(body):
        return sum(1 for t in subterms(body) if type(t) is Call and t.fn == "check")
    from catad.lang.inline import inline_program
    assert checks(p.reverse.body) <= checks(inline_program(p.core).main.body), (checks(p.reverse.body),)
    # a sum's cotangent in a cotangent build reads the size of the build it sums as that build's
    # size, not as size(build(...)), a copy of the build kept for its size
    from catad.lang.terms import Build
    assert not [t for t in subterms(p.reverse.body) if type(t) is Call and t.fn == "size" and type(t.args[0]) is Build]
    monkeypatch.undo()
    g = fresh_function(gmm.gmm_objective)
    made, tried, visited = _count_visits(None, None, call=lambda: catad.hvp(g, primals, tangents, argnums=(0, 1, 2, 3)))
    for what, n, bound in zip(("made", "tried", "visited"), (made, tried, visited), HVP_WORK):
        assert n <= bound, (what, made, tried, visited)


_BINDINGS_SOURCE = '''
def binds(x, *args, k=1.0, **kw):
    a = b = x
    c, (d, e) = x, (x, x)
    f += 1.0
    g: float = 2.0
    h: float
    for i, j in zip(x, x):
        while i:
            if j:
                l = [m for m in x if (n := m) > 0] if WALRUS else [m for m in x]
            else:
                o = (lambda p, q=(r := 1.0) if WALRUS else 1.0: p + q)(x)
    with open(x) as s:
        t[0] = s.u
    try:
        v = 1
    except ValueError as w:
        y = 2
    finally:
        z = 3
    def inner(aa, bb=(cc := 1) if WALRUS else 1):
        dd = aa
    class Inner:
        ee = 1
    match x:
        case [ff, *gg]:
            hh = ff
    return a
'''


@pytest.mark.parametrize("walrus", [False, True])
def test_a_body_without_walrus_binds_names_in_its_statements_only(walrus):
    """source.assigned_names walks only the statements of a body in which no := stands (the
    front end's walk for its identifiers finds whether one does): no expression binds a name
    there, and expressions are most of a body's nodes (the 10,000-statement vector chain's
    walk took 0.18 s, now 0.03). The names are those of the walk of every node."""
    import ast
    from catad.frontend import source
    text = _BINDINGS_SOURCE.replace("WALRUS", "True" if walrus else "False")
    if not walrus:
        text = text.replace("(n := m)", "m").replace("(r := 1.0)", "1.0").replace("(cc := 1)", "1")
    body = ast.parse(text).body[0].body
    everything = source.assigned_names(body)
    assert source.assigned_names(body, walrus) == everything
    expected = set("abcdefghijlovyz") | {"inner", "Inner", "hh"} | ({"n", "r", "cc"} if walrus else set())
    assert everything == expected
    assert not walrus or source.assigned_names(body, False) == expected - {"n", "r", "cc"}
