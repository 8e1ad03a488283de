"""catad.explain and the stages of notes Section 3 on the whole corpus."""
import json
import textwrap

import numpy as np
import pytest

import catad
from catad._node import walk
from catad.lang.evaluate import Evaluator
from catad.lang.terms import Program, Term
from catad.lang.typecheck import check_program
from catad.lang.types import LinMap
from catad.linearmaps import flatten, tangent_size, unflatten
from catad.rewrite import BY_NAME, RULES, Rewriter, replay
from catad.pipeline import STAGES
from corpus import CASES

DIFF_CASES = [c for c in CASES if c.differentiable_argnums]
from catad.rewrite.catalogue import ALL_BY_NAME
SWEEP_RULES = set(ALL_BY_NAME)


def no_linear_maps(d) -> bool:
    return not any(isinstance(getattr(n, "type", None), LinMap) for n in walk(d.body))


def run(d, *args):
    return Evaluator(Program((d,), d.name)).call(d.name, args)


@pytest.mark.parametrize("case", DIFF_CASES, ids=lambda c: c.name)
def test_every_stage_and_the_derivative_programs(case):
    rng = np.random.default_rng(7)
    args = case.make_args(rng)
    d = catad.explain(case.fn, *args)
    assert [s.name for s in d.stages] == list(STAGES)
    assert all(s.text.strip() for s in d.stages)
    fwd, rev = d.pipeline.forward, d.pipeline.reverse
    check_program(d.pipeline.jacobian_program)
    for prog in (fwd, rev):
        check_program(Program((prog,), prog.name))
        assert no_linear_maps(prog), prog
    assert {s.rule for s in d.steps} <= set(BY_NAME) | SWEEP_RULES
    # the programs without linear maps against the reference semantics of linear maps
    out, lm = catad.linearize(case.fn, *args)
    vals = lm.vals
    hidden = lm.bound.hidden  # the globals read: parameters after the user's, with zero tangents
    zeros = tuple(unflatten(np.zeros(tangent_size(h)), h) for h in hidden)
    tangents = tuple(unflatten(rng.normal(size=tangent_size(v)), v) for v in vals)
    _, dt = run(fwd, *vals, *hidden, *tangents, *zeros)
    np.testing.assert_allclose(flatten(dt, out), flatten(lm(*tangents), out), rtol=1e-9, atol=1e-12)
    ct = unflatten(rng.normal(size=tangent_size(out)), out)
    _, back = run(rev, *vals, *hidden, ct)
    n = len(vals) + len(hidden)
    back = back if n > 1 else (back,)
    expected = lm.T(ct)
    from catad.tangents import ZERO
    back = (ZERO,) * n if back is ZERO else back
    np.testing.assert_allclose(flatten(tuple(back)[:len(vals)], vals), flatten(expected, vals), rtol=1e-9,
                               atol=1e-12)


def test_json_latex_and_text_forms():
    from catad.examples import f2
    d = catad.explain(f2, 2.0)
    data = json.loads(d.to_json())
    assert data["function"] == "f2"
    assert [s["name"] for s in data["stages"]] == list(STAGES)
    assert data["steps"] and set(data["steps"][0]) == {"rule", "stage", "before", "after"}
    assert "\\subsection*" in d.latex() and "lm-hcat-vcat" in d.latex()
    text = str(d)
    for title in ("The full Jacobian (unoptimised)", "Transposed Jacobian", "Reverse-mode derivative"):
        assert title in text
    assert "lmCompose(lmHCat(lmScale(x), lmScale(x)), lmVCat(lmOne(), lmOne()))" in d.stage("jacobian").text
    assert "lm" not in d.stage("reverse").text  # no linear map is left
    with pytest.raises(catad.CatadError, match="no stage"):
        d.stage("nonsense")


def test_f2_derivative_is_3x2_plus_4x3_by_every_route():
    from catad.examples import f2
    d = catad.explain(f2, 2.0)
    for x in (0.5, 2.0, -1.5):
        expected = 3 * x ** 2 + 4 * x ** 3
        assert run(d.pipeline.forward, x, 1.0)[1] == pytest.approx(expected)
        assert run(d.pipeline.reverse, x, 1.0)[1] == pytest.approx(expected)
        assert catad.grad(f2)(x) == pytest.approx(expected)


def test_the_optimised_jacobian_trace_replays():
    from catad.examples import f2
    d = catad.explain(f2, 2.0)
    jac = d.pipeline.jacobian
    rw = Rewriter(RULES, "jacobian-optimised")
    out = rw.normalize(jac.body)
    assert replay(jac.body, rw.steps()) == out == d.pipeline.jacobian_optimised.body


def test_sharing_is_kept_through_the_sweeps(tmp_path):
    # x_i = x_{i-1} + x_{i-1}: each reverse binding is used once, so the program is linear
    lines = ["def chain(x0):"] + [f"    x{i} = (x{i - 1} + x{i - 1}) * 0.5" for i in range(1, 41)] + ["    return x40"]
    path = tmp_path / "chain.py"
    path.write_text("\n".join(lines) + "\n")
    import importlib.util
    spec = importlib.util.spec_from_file_location("chain_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    d = catad.explain(mod.chain, 1.0)
    rev = d.pipeline.reverse
    size = sum(1 for _ in walk(rev.body))
    assert size < 40 * 40, size  # 2^40 paths, but a program of linear size
    assert catad.grad(mod.chain)(1.0) == pytest.approx(1.0)


def test_ten_thousand_statements_through_every_stage(tmp_path):
    n = 10_000
    src = "def long(x0):\n" + "".join(f"    x{i} = x{i - 1} * 0.9999 + 0.5\n" for i in range(1, n + 1))
    src += f"    return x{n}\n"
    path = tmp_path / "long_mod.py"
    path.write_text(src)
    import importlib.util
    spec = importlib.util.spec_from_file_location("long_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    d = catad.explain(mod.long, 1.0)
    assert len(d.stages) == len(STAGES)
    assert catad.grad(mod.long)(1.0) == pytest.approx(0.9999 ** n, rel=1e-9)


def test_explain_reports_unsupported_syntax_with_a_location(tmp_path):
    path = tmp_path / "bad_mod.py"
    path.write_text(textwrap.dedent("""
        def bad(x):
            try:
                return x - 1.0
            except ValueError:
                return x
    """))
    import importlib.util
    spec = importlib.util.spec_from_file_location("bad_mod", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    with pytest.raises(catad.CatadError, match=r"bad_mod.py:3"):
        catad.explain(mod.bad, 1.0)


def dot_self(v):
    return sum(v[i] * v[i] for i in range(len(v)))


def test_cotangents_of_indexing_stay_sparse():
    # each element's cotangent is an index update; summed densely they would need n * n
    # floats (20 GB here), summed sparsely n
    n = 50_000
    v = np.linspace(-1.0, 1.0, n)
    np.testing.assert_allclose(catad.grad(dot_self)(v), 2 * v)
    assert "update(" in catad.explain(dot_self, v[:3]).stage("reverse").text


def _generic_term_children(t):
    out = []
    for v in type(t)._values(t):
        if isinstance(v, Term):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, Term))
    return out


@pytest.mark.parametrize("case", DIFF_CASES[::3], ids=lambda c: c.name)
def test_the_engines_children_are_every_term_field(case):
    """engine.term_children reads only the fields whose declared type may hold a term (a
    plan per class): on every node of every stage it agrees with looking at every field,
    and with_children of the same children is the node itself."""
    from catad.rewrite.engine import term_children, with_children
    d = catad.explain(case.fn, *case.make_args(np.random.default_rng(3)))
    p = d.pipeline
    for body in (p.core.main.body, p.jacobian.body, p.jacobian_optimised.body, p.jacobian_transposed.body,
                 p.forward.body, p.reverse.body):
        for t in walk(body):
            if isinstance(t, Term):
                kids = term_children(t)
                want = _generic_term_children(t)
                assert len(kids) == len(want) and all(a is b for a, b in zip(kids, want)), type(t)
                assert with_children(t, want) is t
