"""The benchmark corpus (benchmarks/corpus/) is sound: enough entries, each cited, each running
in plain Python on its example arguments to a finite float. Not whether catad accepts them:
that is the coverage figure of benchmarks/coverage.py.

(tests/corpus.py, the front end's test corpus, is another thing: ``import corpus`` in the tests
is that one, so the benchmark corpus is loaded by path, in tests/benchmark_modules.py.)
"""
import math
import re

import numpy as np
import pytest

from benchmark_modules import bench_corpus, coverage_tool

ENTRIES = bench_corpus.entries()
IDS = [e.qualname for e in ENTRIES]


def test_size_and_domains():
    assert len(ENTRIES) >= 120
    assert len(set(IDS)) == len(IDS), "two entries share a name in one domain"
    per_domain = {d: sum(e.domain == d for e in ENTRIES) for d in bench_corpus.DOMAINS}
    assert all(n >= 5 for n in per_domain.values()), per_domain


def test_every_entry_is_cited():
    for e in ENTRIES:
        c = e.citation
        assert len(c) >= 30, f"{e.qualname}: no citation comment above its def"
        assert re.search(r"\b(1[6-9]|20)\d\d\b|Wikipedia|https?://|numpy|scipy", c), \
            f"{e.qualname}: the citation names no year, article or documentation: {c!r}"


def test_only_filters_domains():
    assert {e.domain for e in bench_corpus.entries("ml,physics")} == {"ml", "physics"}


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_runs_to_a_finite_float(entry):
    args = entry.example_args()
    again = entry.example_args()
    value = entry.fn(*args)
    assert isinstance(value, (float, np.floating)) and not isinstance(value, bool), \
        f"returns {type(value).__name__}, not a float"
    assert math.isfinite(value) and abs(value) < 1e12
    # deterministic arguments, not changed by the call
    for a, b in zip(coverage_tool.leaves(args), coverage_tool.leaves(again)):
        assert np.array_equal(a[1], b[1]), f"argument {a[0]} differs between calls or was mutated"
    # the differentiated arguments exist, hold floats, and are small enough for central differences
    assert entry.argnums and all(0 <= i < len(args) for i in entry.argnums)
    sizes = [np.size(leaf) for i in entry.argnums for _, leaf in coverage_tool.leaves(args[i])]
    assert sizes and 1 <= sum(sizes) <= 300, sizes


def test_central_differences_on_a_pytree():
    def f(p, x):
        return float(np.sum(p["w"] * x) ** 2 + p["b"][0] * x[0] ** 3 + p["c"] ** 2)

    p = {"w": np.array([1.0, 2.0]), "b": [0.5], "c": 3.0}
    x = np.array([0.3, -0.7])
    fd = coverage_tool.central_differences(f, (p, x), (0, 1))
    s = np.sum(p["w"] * x)
    assert set(fd) == {(0, "w"), (0, "b", 0), (0, "c"), (1,)}
    np.testing.assert_allclose(fd[(0, "w")], 2 * s * x, rtol=1e-7)
    np.testing.assert_allclose(fd[(0, "c")], 6.0, rtol=1e-7)
    np.testing.assert_allclose(fd[(1,)], 2 * s * p["w"] + np.array([3 * 0.5 * x[0] ** 2, 0.0]), rtol=1e-7)
    got = coverage_tool.gradient_leaves(({"w": 2 * s * x, "b": [x[0] ** 3], "c": 6.0}, fd[(1,)]), (p, x), (0, 1))
    assert coverage_tool.compare(got, fd, f(p, x))[0]
