"""Vertical fusion of builds before differentiation (catad.lang.fusion): a chain of elementwise
statements becomes one build whose body is a scalar program. The fused program must mean what
the program meant (reference evaluator, and the user's function), fuse only where nothing is
computed twice and no check moves, and take work linear in the chain."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import catad
import catad.lang.fusion as fusion
from catad.lang.evaluate import evaluate
from catad.lang.fusion import fuse_program
from catad.lang.inline import inline_program
from catad.lang.terms import Build, let_chain, may_fail, subterms
from catad.pipeline import pipeline

from backend_programs import central_difference

sys.path.append(str(Path(__file__).resolve().parent.parent / "benchmarks"))  # last: see conftest.py
from _util import chain_source, load_source  # noqa: E402


def chain(x):
    y = np.sin(x) * 0.5 + x * 0.5
    y = np.cos(y) * y
    y = np.exp(-y * y) + 1.0
    y = np.log(y) / (y + 2.0)
    return np.sum(y)


def two_readers(x):
    y = np.sin(x)
    z = y * 2.0
    w = y + z  # y is read here and by z: kept
    return np.sum(w * w)


def shifted(x):
    y = np.sin(x) + 1.0
    z = y[1:] * y[:-1]  # read at i + 1 and i: kept
    return np.sum(z * 3.0)


def reversed_read(x):
    y = x * x
    z = y[::-1] + x
    return np.sum(z)


def whole_read(x):
    y = np.tanh(x)
    z = y * np.sum(y)  # y read whole by the sum: kept
    return np.sum(z * z)


def two_vectors(x, v):
    a = np.sin(x)
    b = np.cos(v)
    c = a * b  # a fuses; b's length is only checked equal (size(v), not size(x)): kept
    return np.sum(c + 1.0)


def indexed_by_ints(x, k):
    y = np.array([x[k[i]] for i in range(len(k))])  # a bounds check in the build: kept
    z = y * 2.0
    return np.sum(z)


def matrix(m):
    y = np.sin(m) * 2.0  # its rows are fused into z's, then their elements
    z = y * y
    return np.sum(z)


def map_loop(x):
    out = np.zeros(len(x))
    for i in range(len(x)):  # vectorised: a build named again (let y = _map) and read by size n
        out[i] = np.sin(x[i]) * 2.0
    return np.sum(out * x)


def matrix_chain(m):
    m = np.tanh(m) * 0.5 + m
    m = np.sin(m) * m
    m = np.exp(-m * m)
    return np.sum(m)


def core(fn, *args):
    """The program the AD is given, before fusion (the pipeline's core: its loops vectorised)."""
    return inline_program(pipeline(fn, *args).core)


def top_builds(program):
    lets, _ = let_chain(program.main.body)
    return [lt for lt in lets if type(lt.rhs) is Build]


RNG = np.random.default_rng(7)
X = RNG.uniform(0.1, 1.5, 9)
M = np.outer(X[:4], X[:3]) - 0.5


@pytest.mark.parametrize("fn, args, before, after", [
    (chain, (X,), 4, 1),
    (two_readers, (X,), 4, 2),  # y kept; z, w and w * w fused
    (shifted, (X,), 3, 2),
    (reversed_read, (X,), 2, 2),
    (whole_read, (X,), 3, 2),
    (two_vectors, (X, X + 1.0), 4, 2),
    (indexed_by_ints, (X, np.array([3, 0, 8, 2])), 2, 2),
    (matrix, (np.outer(X, X[:3]),), 2, 1),
    (map_loop, (X,), 4, 3),  # out and range(len(x)) kept (dead, not read), the map fused
])
def test_fusion_keeps_meaning_and_fuses_only_where_allowed(fn, args, before, after):
    p = core(fn, *args)
    fused = fuse_program(p)
    assert (len(top_builds(p)), len(top_builds(fused))) == (before, after)
    # the reference semantics agree to the bit (the same scalar operations, in the same order)
    assert evaluate(fused, *args) == evaluate(p, *args) == fn(*args)


def test_a_build_that_may_fail_is_kept():
    p = core(indexed_by_ints, X, np.array([3, 0, 8, 2]))
    builds = top_builds(p)
    assert may_fail(builds[0].rhs)  # else the test would not test the condition
    assert top_builds(fuse_program(p))[0].rhs is builds[0].rhs


def test_fused_chain_is_one_scalar_body():
    fused = fuse_program(core(chain, X))
    (b,) = top_builds(fused)
    assert not any(type(t) is Build for t in subterms(b.rhs.body))


def rows_reversed(m):
    y = np.tanh(m) + 1.0
    z = y[:, ::-1]  # y's rows are fused into z's; their elements are read reversed: each row is kept
    return np.sum(z * 2.0)


def test_a_matrix_chain_is_one_build_of_one_build():
    p = core(matrix_chain, M)
    fused = fuse_program(p)
    (b,) = top_builds(fused)
    inner = [t for t in subterms(b.rhs.body) if type(t) is Build]
    assert len(inner) == 1 and not any(type(t) is Build for t in subterms(inner[0].body))
    # (the evaluator sums a matrix row by row, NumPy pairwise: equal to rounding)
    assert evaluate(fused, M) == evaluate(p, M) == pytest.approx(matrix_chain(M), rel=1e-15)


def test_rows_read_in_another_order_keep_their_build():
    p = core(rows_reversed, M)
    fused = fuse_program(p)
    # z's rows are not fused into z * 2.0's: its inner size reads dim(z, 1)
    assert len(top_builds(p)) == 3 and len(top_builds(fused)) == 2
    b = top_builds(fused)[0]
    assert sum(type(t) is Build for t in subterms(b.rhs.body)) == 2  # y's row, and z's row
    assert evaluate(fused, M) == evaluate(p, M) == pytest.approx(rows_reversed(M), rel=1e-15)
    g = catad.grad(rows_reversed)(M)
    np.testing.assert_allclose(g, central_difference(rows_reversed, (M,), 0), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn, args", [(chain, (X,)), (two_readers, (X,)), (two_vectors, (X, X + 1.0)),
                                      (whole_read, (X,)), (shifted, (X,)), (matrix_chain, (M,)),
                                      (matrix, (M,))])
def test_gradients_of_fused_programs(fn, args):
    for k in range(len(args)):
        g = catad.grad(fn, argnums=k)(*args)
        fd = central_difference(fn, args, k)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_errors_are_python_s_after_fusion():
    """A fused chain before a statement whose shapes do not broadcast: the error is NumPy's,
    raised where Python raises it."""
    def f(x, v):
        y = np.sin(x)
        z = y * 2.0
        return np.sum(z + v)
    with pytest.raises(ValueError, match="broadcast"):
        f(X, X[:4])
    with pytest.raises(ValueError, match="broadcast"):
        catad.grad(f)(X, X[:4])
    np.testing.assert_allclose(catad.grad(f)(X, X), 2.0 * np.cos(X))


def test_fusion_work_is_linear(monkeypatch):
    """Each statement's body is renamed apart once; the fused body is one list extended in
    place: fusing 5,000 statements makes one build without recursion."""
    n = 5000
    calls = [0]
    renamed = fusion.renamed_apart

    def counting(t, names, free=None, replace=None):
        calls[0] += 1
        return renamed(t, names, free, replace)
    monkeypatch.setattr(fusion, "renamed_apart", counting)
    src = "import numpy as np\n" + chain_source(n, "np.sin({p}) * 0.5 + {p} * 0.5", ret="np.sum(x%d)" % n)
    p = core(load_source(src), X)
    fused = fuse_program(p)
    assert len(top_builds(p)) == n and len(top_builds(fused)) == 1
    assert calls[0] <= n + 1, calls


def check_between(x, j):
    y = np.sin(x)  # fused into z, past the bounds check of x[j]
    k = x[j]
    z = y * 2.0
    return np.sum(z) + k


def checked_reader(x, k):
    y = np.cos(x) + 1.0  # fused into a reader that checks its own bounds
    z = np.array([y[i] * x[k[i]] for i in range(len(x))])
    return np.sum(z)


def test_a_check_between_producer_and_reader_raises_first():
    p = core(check_between, X, 2)
    assert len(top_builds(p)) == 2 and len(top_builds(fuse_program(p))) == 1
    for j in (2, -1):
        np.testing.assert_allclose(catad.grad(check_between)(X, j), central_difference(check_between, (X, j), 0),
                                   rtol=1e-6, atol=1e-8)
    with pytest.raises(IndexError):
        check_between(X, 9)
    with pytest.raises(IndexError):
        catad.grad(check_between)(X, 9)


def test_a_reader_that_checks_keeps_its_checks():
    k = np.arange(len(X))[::-1].copy()
    p = core(checked_reader, X, k)
    fused = fuse_program(p)
    assert len(top_builds(fused)) < len(top_builds(p))
    assert evaluate(fused, X, k) == evaluate(p, X, k) == pytest.approx(checked_reader(X, k), rel=1e-15)
    np.testing.assert_allclose(catad.grad(checked_reader)(X, k), central_difference(checked_reader, (X, k), 0),
                               rtol=1e-6, atol=1e-8)
    bad = k.copy()
    bad[3] = len(X)
    with pytest.raises(IndexError):
        checked_reader(X, bad)
    with pytest.raises(IndexError):
        catad.grad(checked_reader)(X, bad)


@pytest.mark.parametrize("fn, args", [
    (chain, (np.array([0.3]),)), (chain, (np.zeros(0),)),
    (matrix_chain, (np.full((1, 3), 0.2),)), (matrix_chain, (np.zeros((0, 3)),)), (matrix_chain, (np.zeros((3, 0)),)),
    (two_vectors, (np.array([0.2]), np.array([0.1, 0.5]))),  # length 1 broadcast: read at 0, not fused
])
def test_fused_on_odd_shapes_is_what_python_gives(fn, args):
    p = core(fn, *args)
    assert len(top_builds(fuse_program(p))) < len(top_builds(p))
    value, g = catad.value_and_grad(fn)(*args)
    assert value == fn(*args)
    assert g.shape == args[0].shape
    np.testing.assert_allclose(g, central_difference(fn, args, 0), rtol=1e-6, atol=1e-8)


def test_fused_with_shapes_that_do_not_broadcast_raises_as_numpy():
    with pytest.raises(ValueError, match="broadcast"):
        two_vectors(X[:3], X[:4])
    with pytest.raises(ValueError, match="broadcast"):
        catad.grad(two_vectors)(X[:3], X[:4])
