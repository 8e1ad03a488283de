"""catad.pipeline: each stage made once per function and signature, only when asked for,
and shared by the API, explain and the CLI."""
from __future__ import annotations

import numpy as np
import pytest

import catad
from catad.pipeline import bind, pipeline


def f(x, v):
    return np.sum(v * v) * x


def g(x):
    return x * x


def test_grad_makes_only_what_it_needs():
    catad.grad(g)(2.0)
    made = vars(pipeline(g, 2.0))
    assert "reverse" in made
    assert not {"anf", "cl", "forward", "jacobian_transposed", "jacobian_program"} & set(made)
    assert not made["_traces"]  # no rewrite steps kept: they would hold every intermediate term


def k(x, y):
    return (x * y + y) * x


def test_explain_after_grad_has_the_steps_of_explain_alone():
    """grad keeps no steps; explain afterwards gets them from a recording twin, and they
    replay from the pipeline's own Jacobian to its own optimised Jacobian."""
    from catad.rewrite import replay
    catad.grad(k)(2.0, 3.0)
    d = catad.explain(k, 2.0, 3.0)
    p = d.pipeline
    steps = d.steps_of("jacobian-optimised")
    assert replay(p.jacobian.body, steps) == p.jacobian_optimised.body
    alone = catad.explain(k_again, 2.0, 3.0)  # the same body, explained first: recorded from the start
    assert [(s.stage, s.rule, s.position) for s in d.steps] == [(s.stage, s.rule, s.position) for s in alone.steps]
    assert len(d.steps_of("reverse")) > 0


def k_again(x, y):
    return (x * y + y) * x


def test_one_pipeline_per_signature():
    v = np.arange(3.0)
    p = pipeline(f, 1.0, v)
    assert pipeline(f, 2.0, v + 1.0) is p            # same types and length-1 axes
    assert pipeline(f, 1.0, np.arange(5.0)) is p     # another length that is not 1
    assert pipeline(f, 1.0, np.ones(1)) is not p     # a length-1 axis broadcasts: compiled apart
    assert bind(f, (1.0, v)).pipeline is p


def test_every_route_reads_the_same_stages():
    """The Jacobian program is made once: jacobian_core, LinearMap.lm and explain's jacobian
    stage read it; to_cl and explain's cl stage are one CL program; explain shows the
    pipeline's own programs."""
    v = np.arange(3.0)
    p = pipeline(f, 1.0, v)
    assert catad.jacobian_core(f, 1.0, v) is p.jacobian_program
    assert catad.to_cl(f, 1.0, v) is p.cl
    assert catad.to_anf(f, 1.0, v) is p.anf
    d = catad.explain(f, 1.0, v)
    assert d.pipeline is p
    assert d.stage("jacobian").program is p.jacobian is p.jacobian_program.main
    assert d.stage("cl").program is p.cl and d.stage("reverse").program is p.reverse


def h(x, y):
    return x * y + y


def test_a_linear_map_prints_the_pipelines_jacobian():
    """LinearMap.lm evaluates the pipeline's Jacobian program (made then, not before)."""
    _, lm = catad.linearize(h, 2.0, 3.0)
    p = pipeline(h, 2.0, 3.0)
    assert "jacobian_program" not in vars(p)  # applying and transposing run compiled code
    np.testing.assert_allclose(lm.to_matrix(), [[3.0, 3.0]])
    assert "lm" in str(lm)
    assert "jacobian_program" in vars(p)


def test_compiled_code_is_kept_per_variant():
    p = pipeline(g, 2.0)
    assert p.code("reverse") is p.code("reverse")
    assert p.code("reverse", (0,)) is p.code("reverse", [0, 0])
    assert p.code("reverse", zero_safe=True) is not p.code("reverse")
    assert p.code("primal")(3.0) == 9.0


def reciprocal_plus(x, pair, v):
    return 1.0 / x + pair[0] * pair[1] + np.sum(v)


def test_plain_arguments_bind_by_a_key_of_their_kinds_and_shapes():
    """bind keeps the signature of plain arguments (float arrays, Python and NumPy floats, ints,
    bools, tuples of them) by a key of their classes and shapes: a NumPy float and a Python
    float are still different signatures (1.0 / 0.0 raises for the Python one only), so are an
    axis of length 1 and a longer one, and an int outside int64, an int array or a matrix still
    gets signature's checks."""
    import pytest
    from catad.errors import ArgumentError
    v1, v3 = np.ones(1), np.arange(3.0)
    for _ in range(2):  # the second round from the key
        assert catad.grad(reciprocal_plus)(np.float64(0.0), (2.0, 3), v3) == -np.inf
        with pytest.raises(ZeroDivisionError):
            catad.grad(reciprocal_plus)(0.0, (2.0, 3), v3)
        assert catad.value_and_grad(reciprocal_plus)(2.0, (2.0, True), v1)[0] == 0.5 + 2.0 + 1.0
        b1, b3 = bind(reciprocal_plus, (2.0, (2.0, 3), v1)), bind(reciprocal_plus, (2.0, (2.0, 3), v3))
        assert b1.pipeline is not b3.pipeline
        assert bind(reciprocal_plus, (2.0, (2.0, 3), np.arange(5.0))).pipeline is b3.pipeline
        with pytest.raises(ArgumentError):
            bind(reciprocal_plus, (2.0, (2.0, 2 ** 63), v3))
        with pytest.raises(ArgumentError):
            bind(reciprocal_plus, (2.0, (2.0, 3), np.matrix(v3)))
        assert catad.grad(reciprocal_plus)(2.0, (2.0, 3), [1.0, 2.0]) == -0.25  # a list: its tree


def _freed_without_the_collector(make, args) -> list[str]:
    """The pipelines and compiled programs that outlive the function they were made for, with the
    cyclic garbage collector off: each is freed by its count of references only when nothing it
    holds refers back to it (a cycle would keep a long program's terms until a full collection).
    make() gives (what to run, the user's function)."""
    import gc
    import weakref
    was = gc.isenabled()
    gc.disable()
    try:
        run, f = make()
        run(*args)
        p = pipeline(f, *args)
        kept = [("pipeline", weakref.ref(p))] + [(f"code {key[0]}", weakref.ref(c)) for key, c in p._code.items()]
        kept += [(f"function {key[0]}", weakref.ref(c.fn)) for key, c in p._code.items()]  # (its globals hold it)
        assert len(kept) > 1
        del run, f, p
        return [name for name, ref in kept if ref() is not None]
    finally:
        if was:
            gc.enable()


def test_a_pipeline_let_go_of_is_freed_at_once():
    def plain():
        def f(x):
            return np.sum(np.sin(x) * 0.5 + x)
        return catad.grad(f), f

    def loop():  # a loop made a sum: its code locates errors through the sequential program
        def f(x):
            s = 0.0
            for i in range(len(x)):
                s = s + np.sin(x[i])
            return s
        assert pipeline(f, np.ones(3)).sequential is not None
        return catad.grad(f), f

    def failing():  # its errors are located by the primal program (a bounds check fails at run time)
        def f(x):
            return x[3] * 2.0
        g = catad.grad(f)

        def run(x):
            with pytest.raises(catad.CatadError):
                g(x)
        return run, f
    x = np.linspace(0.1, 0.5, 3)
    for make in (plain, loop, failing):
        assert _freed_without_the_collector(make, (x,)) == [], make.__name__
