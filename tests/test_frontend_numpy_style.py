"""Front end, numpy style: reductions along any axis (np.sum, np.mean, np.max, np.min with
axis=, on arrays of rank 3 too) and integer-array indexing (v[idx], m[:, idx], m[i, idx]),
evaluated against NumPy and differentiated against central differences."""
import numpy as np
import pytest

import catad
from catad import CatadTypeError, UnsupportedSyntax
from catad.frontend import compile_function, compile_with_reads
from catad.lang.evaluate import evaluate

ORDER = np.array([2, 0, 1, 2])
TRIL = np.array([[-1, -1, -1], [0, -1, -1], [1, 2, -1]])


def cube(m):
    """A (3, *m.shape) array from a matrix argument (arguments have rank 1 or 2)."""
    return np.array([m * (j + 1.0) - j for j in range(3)])


def sum_axes(m):
    c = cube(m)
    return np.sum(c, axis=0), np.sum(c, axis=1), np.sum(c, axis=2), np.sum(c, axis=-1), np.sum(m, axis=1)


def mean_axes(m):
    c = cube(m)
    return np.mean(c, axis=0), np.mean(c, axis=1), np.mean(c, axis=2), np.mean(m, axis=0), np.mean(m, axis=1)


def max_min_axes(m):
    c = cube(m)
    return (np.max(m, axis=0), np.max(m, axis=1), np.min(m, axis=0), np.min(m, axis=-1), np.max(c, axis=0),
            np.max(c, axis=1), np.min(c, axis=2), np.max(c), np.min(c), m.max(axis=1))


def logsumexp_columns(m):
    top = np.max(m, axis=0)
    return top + np.log(np.sum(np.exp(m - top), axis=0))


def take_vector(v, idx):
    return v[idx] * 2.0 + v[ORDER][0] + v[[1, 0]][1]


def take_rows(m, idx):
    return m[idx], m[ORDER], m[idx][:, 1]


def take_columns(m, idx):
    return m[:, idx], m[1, idx], m[idx, 2], m[1:3, idx]


def take_matrix_index(v):
    return np.where(TRIL >= 0, v[np.maximum(TRIL, 0)], 0.0)


def take_of_cube(m):
    c = cube(m)
    return c[:, 1, ORDER[:3]], c[ORDER[:2], 0], c[1, ORDER[:2], 1:]


def take_then_slice(m):
    return cube(m)[ORDER[:2], :, 0]


def packed_lower(ls, tril):
    """The strictly-lower matrices L_k of packed rows: the GMM's gather."""
    return np.where(tril >= 0, ls[:, np.maximum(tril, 0)], 0.0)


def _m(rng):
    return rng.normal(size=(4, 3))


CASES = [
    (sum_axes, lambda r: (_m(r),)),
    (mean_axes, lambda r: (_m(r),)),
    (max_min_axes, lambda r: (_m(r),)),
    (logsumexp_columns, lambda r: (_m(r),)),
    (take_vector, lambda r: (r.normal(size=5), np.array([4, 0, 0, 3]))),
    (take_rows, lambda r: (_m(r), np.array([[3, 0], [1, 1], [2, 0]]))),
    (take_columns, lambda r: (_m(r), np.array([2, 0]))),
    (take_matrix_index, lambda r: (r.normal(size=3),)),
    (take_of_cube, lambda r: (_m(r),)),
    (take_then_slice, lambda r: (_m(r),)),
    (packed_lower, lambda r: (r.normal(size=(2, 3)), TRIL)),
]


def _flat(x):
    if isinstance(x, tuple):
        return np.concatenate([_flat(t) for t in x])
    return np.ravel(np.asarray(x, dtype=float))


@pytest.mark.parametrize("fn, make", CASES, ids=[c[0].__name__ for c in CASES])
def test_evaluates_like_numpy(fn, make):
    args = make(np.random.default_rng(0))
    program, reads = compile_with_reads(fn, args)  # globals read are parameters after fn's
    got, want = evaluate(program, *args, *reads.current()), fn(*args)
    if not isinstance(want, tuple):
        got, want = (got,), (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, w, rtol=1e-14, atol=1e-14)


DERIVATIVE_CASES = CASES


@pytest.mark.parametrize("fn, make", DERIVATIVE_CASES, ids=[c[0].__name__ for c in CASES])
def test_derivative_against_central_differences(fn, make):
    args = make(np.random.default_rng(1))
    x, rest = args[0], args[1:]
    out = fn(*args)
    ct = tuple(np.random.default_rng(2).normal(size=np.shape(o)) for o in out) if isinstance(out, tuple) \
        else np.random.default_rng(2).normal(size=np.shape(out))
    _, vjp_fn = catad.vjp(fn, *args)
    g = vjp_fn(ct)[0]
    h, cd = 1e-6, np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[i] += h
        xm[i] -= h
        cd[i] = np.dot(_flat(ct), _flat(fn(xp, *rest)) - _flat(fn(xm, *rest))) / (2 * h)
    np.testing.assert_allclose(g, cd, rtol=1e-6, atol=1e-8)


def two_arrays(m, idx):
    return cube(m)[idx, idx, 0]  # a matrix's m[idx, idx] is supported (tests/test_numpy_signal.py)


def two_masks(m):
    return np.sum(m[m[:, 0] > 0.0, m[0] > 0.0])


def separated(m):
    c = cube(m)
    return c[0, :, ORDER[:2]]


def float_index(v):
    return v[v]


@pytest.mark.parametrize("fn, args, cls, words", [
    (two_arrays, (np.ones((3, 3)), np.array([0, 1])), UnsupportedSyntax, "only one integer array"),
    (two_masks, (np.ones((3, 3)),), UnsupportedSyntax, "a boolean mask beside another mask"),
    (separated, (np.ones((3, 3)),), UnsupportedSyntax, "a slice between"),
    (float_index, (np.ones(3),), CatadTypeError, "arrays of Ints"),
], ids=["two-arrays", "two-masks", "separated", "float-index"])
def test_refused_indexing(fn, args, cls, words):
    with pytest.raises(cls, match=words):
        compile_function(fn, args)


def test_an_index_array_is_computed_once():
    """A computed index array is bound outside the builds of the slices around it."""
    from catad.lang.printer import show_def
    text = show_def(compile_function(packed_lower, (np.ones((2, 3)), TRIL)).main)
    assert text.count("max") == 1, text
