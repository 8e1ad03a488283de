"""The finishing stage's dead-code pass counts the uses the single-use inliner asks about
(catad.rewrite.cleanup._Dead), where the inliner used to walk the program to count them:
the two must agree on every program the corpus compiles, forward and reverse, folds and
builds among them (a single use inside a build body or a fold's lambda is no single use)."""
import numpy as np

import catad.rewrite.stages as stages
from catad.errors import CatadError
from catad.lang.terms import Build, subterms
from catad.pipeline import _compile
from catad.rewrite import cleanup
from corpus import CASES
from test_loops import range_sum, tuple_state
from test_while import array_state, newton_sqrt


def two_passes(d):
    """What finish did before the counts moved into the dead-code pass."""
    return cleanup.inline_single_use_def(cleanup.dead_code_def(d))


def _finish_corpus_and_loops(rng) -> np.ndarray:
    """The forward and reverse programs of every corpus function and four loops, each in a
    pipeline of its own (none cached by an earlier test); the loops' vector argument."""
    v = rng.uniform(-1, 1, 5)
    loops = [(range_sum, (0.7, v)), (tuple_state, (0.3, v, v[::-1].copy(), v)), (newton_sqrt, (2.0,)),
             (array_state, (0.9, v))]
    for fn, args in [(case.fn, case.make_args(rng)) for case in CASES] + loops:
        p = _compile(fn, args)
        for stage in ("forward", "reverse"):
            try:
                getattr(p, stage)
            except CatadError:  # a program catad refuses to differentiate: no finishing to compare
                pass
    return v

def test_fused_counts_agree_with_the_inliners_walk(monkeypatch):
    seen = {"programs": 0, "builds": 0, "folds": 0}

    def checked(d):
        out = cleanup.dead_code_inline_def(d)
        assert out == two_passes(d), d.name
        nodes = subterms(d.body)
        seen["programs"] += 1
        seen["builds"] += any(type(n) is Build for n in nodes)
        seen["folds"] += any(getattr(type(n), "LAMBDAS", ()) for n in nodes)
        return out

    def checked_redex(d, counts=None):  # counts: CSE's (cleanup.cse_counted), or None
        out, redex = cleanup.dead_code_inline_redex(d, counts)
        assert checked(d) == out, d.name
        return out, redex

    monkeypatch.setattr(stages, "dead_code_inline_def", checked)
    monkeypatch.setattr(stages, "dead_code_inline_redex", checked_redex)
    _finish_corpus_and_loops(np.random.default_rng(0))
    assert seen["programs"] > len(CASES)
    assert seen["builds"] > 10 and seen["folds"] >= 4, seen


def test_use_in_a_build_body_is_no_single_use():
    """x used once, inside a build body: the inliner must not move it there (the work would
    repeat per element), in the fused pass as in the inliner's own count."""
    from catad.lang.terms import Call, Const, Def, Let, Var
    from catad.lang.types import Float, Int
    n, a, i, x = Var("n", Int), Var("a", Float), Var("i", Int), Var("x", Float)
    body = Let(x, Call("sin", (a,), Float), Build(n, i, Call("mul", (x, x), Float)))
    single = Let(x, Call("sin", (a,), Float), Build(n, i, Call("mul", (x, Const(2.0, Float)), Float)))
    for term in (body, single):
        d = Def("f", (n, a), term)
        out = cleanup.dead_code_inline_def(d)
        assert out == two_passes(d)
        assert any(type(t) is Let and t.var == x for t in subterms(out.body)), out


def t_names(x, v):
    """Locals named as CSE's ANF names its bindings (t1, t2, ...)."""
    t1 = np.sin(v) * x
    t2 = t1 * t1 + np.cos(t1)
    t3 = np.sum(t2 * v) + x * x
    return t3 * np.sum(t1)


def test_finish_takes_anf_names_from_the_sweeps_names(monkeypatch):
    """finish's CSE (ANF and CSE in one walk, cleanup._Cse) takes its ANF names from the sweep's
    FreshNames (sweeps.sweep_names), not from a walk of the program: every name of each
    program it is given is among them, but those the rules make, which are never ANF's
    (fresh_index's i0, i1, ...; names with a '$'); and the result, its zero flag and its CSE
    steps are those of ANF (walking the program for its names) followed by CSE of the ANF
    (cleanup.cse_zero_two_passes), on the corpus, loops, and a function whose locals are named
    t1, t2, t3."""
    import re
    from catad.lang.names import FreshNames
    from catad.lang.terms import var_names
    seen = {"programs": 0, "steps": 0, "zeros": 0}
    fused = cleanup.cse_counted  # cse_zero's result and CSE's counts of the uses

    def checked(d, trace=None, stage="", names=None):
        assert names is not None, d.name
        rules = {n for n in var_names(d.body) if re.fullmatch(r"i[0-9]+", n) or "$" in n}
        assert var_names(d.body) - rules <= names.taken, d.name
        mine, theirs = [], []
        expected = cleanup.cse_zero_two_passes(d, theirs, stage, FreshNames(names.taken))
        out = fused(d, mine, stage, FreshNames(names.taken))[:2]
        assert out == expected, d.name
        assert [s[3:] for s in mine] == [s[3:] for s in theirs], d.name
        seen["programs"] += 1
        seen["steps"] += len(mine)
        seen["zeros"] += out[1]
        return fused(d, trace, stage, names)

    monkeypatch.setattr(stages, "cse_counted", checked)
    monkeypatch.setattr(stages, "cse_def", lambda *a: checked(*a)[0])
    rng = np.random.default_rng(0)
    v = rng.uniform(-1, 1, 5)
    cases = [(case.fn, case.make_args(rng)) for case in CASES] + [(t_names, (0.4, rng.uniform(-1, 1, 4)))]
    cases += [(range_sum, (0.7, v)), (tuple_state, (0.3, v, v[::-1].copy(), v)), (newton_sqrt, (2.0,)),
              (array_state, (0.9, v))]
    for fn, args in cases:
        p = _compile(fn, args)
        for stage in ("forward", "reverse"):
            try:
                getattr(p, stage)
            except CatadError:
                pass
    assert seen["programs"] > len(CASES) and seen["steps"] > 100, seen


def test_finish_is_told_of_redexes_without_a_walk(monkeypatch):
    """finish's dead-code pass and single-use inliner tell whether their result holds one of
    zero_redex's terms (cleanup.dead_code_inline_redex), instead of zero_redex's walk of the
    whole program: the two agree on the corpus, loops, and derivatives of derivative programs,
    which bind zero tangents and tuples (where the answer is yes)."""
    import catad
    seen = {"programs": 0, "redexes": 0}
    told = cleanup.dead_code_inline_redex

    def checked(d, counts=None):  # counts: CSE's (cleanup.cse_counted), or None
        out, redex = told(d, counts)
        assert redex == cleanup.zero_redex(out), d.name
        seen["programs"] += 1
        seen["redexes"] += redex
        return out, redex

    monkeypatch.setattr(stages, "dead_code_inline_redex", checked)
    rng = np.random.default_rng(0)
    v = rng.uniform(-1, 1, 5)
    cases = [(case.fn, case.make_args(rng)) for case in CASES] + [(t_names, (0.4, rng.uniform(-1, 1, 4)))]
    cases += [(range_sum, (0.7, v)), (tuple_state, (0.3, v, v[::-1].copy(), v)), (newton_sqrt, (2.0,)),
              (array_state, (0.9, v))]
    for fn, args in cases:
        p = _compile(fn, args)
        for stage in ("forward", "reverse"):
            try:
                getattr(p, stage)
            except CatadError:
                pass

    def f(x, v):
        return np.sum(np.sin(v) * x) * x + np.sum(v * v)
    catad.hessian(f)(0.3, v)
    catad.hessian(f, argnums=1)(0.3, v)
    catad.hvp(f, (0.3, v), (1.0, v))
    assert seen["programs"] > len(CASES) and seen["redexes"] > 0, seen


def test_cse_counts_agree_with_the_dead_code_walk(monkeypatch):
    """finish's CSE counts the uses in what it keeps (cleanup.cse_counted), so the dead-code
    pass need not walk its result: wherever it trusts its counts, dead-code elimination and
    inlining from them give what the dead-code walk gives, on every program the corpus
    compiles, forward and reverse; and it trusts them for most (the vector chain's among
    them), where the walk cost as much as CSE itself."""
    seen = {"counted": 0, "walked": 0}
    counted = cleanup.cse_counted

    def checked(d, *a, **k):
        out, zero, counts = counted(d, *a, **k)
        if counts is None:
            seen["walked"] += 1
        else:
            seen["counted"] += 1
            assert cleanup.dead_code_inline_redex(out, counts) == cleanup.dead_code_inline_redex(out), d.name
            assert cleanup.dead_code_def(out) == out, d.name  # no dead let left
        return out, zero, counts
    monkeypatch.setattr(stages, "cse_counted", checked)
    v = _finish_corpus_and_loops(np.random.default_rng(1))
    assert seen["counted"] > 2 * seen["walked"] and seen["walked"] >= 4, seen
    seen.update(counted=0, walked=0)
    import sys
    from pathlib import Path
    sys.path.append(str(Path(__file__).resolve().parent.parent / "benchmarks"))
    from _util import chain_source, load_source
    f = load_source("import numpy as np\n" + chain_source(20, "np.sin({p}) * 0.5 + {p} * 0.5", ret="np.sum(x20)"))
    _compile(f, (v,)).reverse
    assert seen == {"counted": 1, "walked": 0}, seen
