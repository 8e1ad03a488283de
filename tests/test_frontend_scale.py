"""Front end: long straight-line functions compile in linear time without deep recursion."""
import importlib.util
import sys

import numpy as np
import pytest

from catad import UnsupportedSyntax
from catad.frontend import compile_function
from catad.lang.evaluate import evaluate
from catad.lang.terms import let_chain


def load(tmp_path, name, lines):
    """A function from generated source, written to a file so inspect.getsource finds it."""
    path = tmp_path / f"{name}.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def straight_line(tmp_path, n):
    body = [f"    x{k} = x{k - 1} * 1.0001 + 0.5" for k in range(1, n + 1)]
    return load(tmp_path, f"straight{n}", [f"def straight{n}(x0):", *body, f"    return x{n}"])


@pytest.fixture
def default_recursion_limit():
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(old)


def test_ten_thousand_statements(tmp_path, default_recursion_limit):
    f = straight_line(tmp_path, 10_000)
    p = compile_function(f, (1.0,))
    lets, body = let_chain(p.main.body)
    assert len(lets) == 10_000 and body == lets[-1].var
    assert lets[-1].loc.line == 10_001  # absolute line in the generated file
    np.testing.assert_allclose(evaluate(p, 1.0), f(1.0), rtol=1e-12)


def test_long_early_return_chain(tmp_path, default_recursion_limit):
    lines = ["def ladder(x):"]
    for k in range(1000):
        lines += [f"    if x < {k}.0:", f"        return {k}.0 * x"]
    f = load(tmp_path, "ladder", lines + ["    return -x"])
    p = compile_function(f, (0.5,))  # the if chain is walked iteratively
    assert evaluate(p, 0.5) == f(0.5)


def test_too_deep_expression_is_a_catad_error(tmp_path, default_recursion_limit):
    f = load(tmp_path, "deep", ["def deep(x):", "    return " + " + ".join(["x"] * 900)])
    with pytest.raises(UnsupportedSyntax) as info:
        compile_function(f, (1.0,))
    assert "nested too deeply" in str(info.value) and info.value.loc.line == 1


def test_statements_let_go_of_once_lowered(tmp_path, monkeypatch):
    """A statement's syntax tree is freed once it is lowered, not all of a long function's at the
    end (where it has left the cache): when statement k is lowered, those before k - 1 are gone.
    What a loop reads after it and what a def before it reads still count (test_python_forms)."""
    import weakref
    from catad.frontend import source as source_module
    from catad.frontend.lower import FunctionLowerer

    f = straight_line(tmp_path, 50)
    refs: list = []
    parse = source_module.parse_function

    def parse_and_watch(fn):
        src = parse(fn)
        refs[:] = [weakref.ref(s) for s in src.body]
        return src
    monkeypatch.setattr("catad.frontend.program.parse_function", parse_and_watch)
    alive_before: list = []
    lower_one = FunctionLowerer.statement

    def watched(self, s, pieces):
        k = next(i for i, r in enumerate(refs) if r() is s)
        alive_before.append(sum(r() is not None for r in refs[:max(k - 1, 0)]))
        return lower_one(self, s, pieces)
    monkeypatch.setattr(FunctionLowerer, "statement", watched)
    p = compile_function(f, (1.0,))
    assert len(alive_before) == 50 and alive_before == [0] * 50
    assert evaluate(p, 2.0) == pytest.approx(f(2.0))
