"""Slices v[s:e] (the front end reads them at j + s for j over a build): the backend compiles the
read as a view (runtime.take_shift, marked by Arr.shift) and the cotangent, alone or under a row's
index update, as a write into a slice (runtime.scatter_slices), not a gather and a scatter-add at
computed indices; the helpers keep the meaning of the general gather and scatter whatever the
indices."""
import numpy as np
import pytest

import catad
from catad.backend import runtime as R
from backend_programs import central_difference


def gates(w, h):
    """A gate of an LSTM (ADBench's layout): slices at offsets of a row, in a loop over rows."""
    b = len(h)
    total = 0.0
    for i in range(w.shape[0]):
        row = w[i]
        h = np.tanh(h * row[0:b] + row[b:2 * b]) * row[2 * b:3 * b]
        total = total + np.sum(h)
    return total


def test_offset_slices_are_views_and_their_cotangents_slice_writes():
    w, h = np.ones((3, 12)), np.ones(4)
    code = catad.explain(gates, w, h).stage("code").text
    primal, rev = code[:code.index("def fwd_")], code[code.index("def rev_"):]
    assert "take_shift(" in primal and "[0, t" not in primal
    assert "scatter_slices(" in rev and "scatter((" not in rev


@pytest.mark.parametrize("rows,b", [(3, 4), (1, 1), (2, 5)])
def test_offset_slices_in_a_loop_differentiate_like_central_differences(rows, b):
    rng = np.random.default_rng(rows * 10 + b)
    w, h = rng.standard_normal((rows, 3 * b)), rng.standard_normal(b)
    value, (gw, gh) = catad.value_and_grad(gates, argnums=(0, 1))(w, h)
    assert value == pytest.approx(gates(w, h), rel=1e-12)
    for g, k in ((gw, 0), (gh, 1)):
        np.testing.assert_allclose(g, central_difference(gates, (w, h), k), rtol=1e-6, atol=1e-8)
    dw, dh = rng.standard_normal(w.shape), rng.standard_normal(h.shape)
    _, tangent = catad.jvp(gates, (w, h), (dw, dh))
    assert tangent == pytest.approx(np.sum(gw * dw) + np.sum(gh * dh), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("m,n,s", [(8, 4, 0), (8, 4, 4), (8, 4, 3), (8, 0, 8), (5, 3, -1), (5, 3, -5), (5, 3, -2)])
def test_take_shift_reads_as_the_gather_it_replaces(m, n, s):
    x = np.arange(2.0 * m).reshape(1, 2, m) + 1  # batch axis 0 of size 1, element axis 2
    want = x[0][:, np.arange(n) + s] if n else np.zeros((2, 0))
    got = R.take_shift(x, 0, 2, n, s)
    np.testing.assert_array_equal(got, np.moveaxis(want, 1, 0))


def test_take_shift_past_the_end_raises_as_the_gather():
    with pytest.raises(IndexError):
        np.ones(4)[np.arange(3) + 2]
    with pytest.raises(IndexError):
        R.take_shift(np.ones((1, 4)), 0, 1, 3, 2)


@pytest.mark.parametrize("rows,n,row,s,N", [(4, 10, 2, 3, 5), (4, 10, -1, 0, 10), (1, 6, 0, 5, 1),
                                            (3, 6, 1, -2, 3), (3, 6, -3, -6, 3), (3, 6, 0, 2, 0)])
def test_scatter_slices_adds_as_the_general_scatter(rows, n, row, s, N):
    """Within range a slice write; a slice before the start (read wrapped) and so the general
    scatter, whose answer it must be in every case."""
    rng = np.random.default_rng(N)
    val = rng.standard_normal(N)
    want = R.scatter((rows, n), (row, np.arange(N) + s), val)
    got = R.scatter_slices((rows, n), (row, (0, s, N, None)), val, 1)
    np.testing.assert_array_equal(got, want)


def test_scatter_slices_past_the_end_is_refused_as_by_the_general_scatter():
    for scatter in (lambda: R.scatter((3, 6), (1, np.arange(3) + 4), np.ones(3)),
                    lambda: R.scatter_slices((3, 6), (1, (0, 4, 3, None)), np.ones(3), 1),
                    lambda: R.scatter_slices((3, 6), (3, (0, 0, 3, None)), np.ones(3), 1)):
        with pytest.raises(AssertionError, match="unchecked index"):
            scatter()


def test_scatter_slices_of_a_clamped_index():
    """min(j, hi) is j itself when hi >= N - 1, a slice; otherwise the general scatter adds the
    lanes past hi at hi."""
    val = np.arange(1.0, 5.0)
    for hi in (3, 7, 1, 0):
        want = R.scatter((6,), (np.minimum(np.arange(4), hi),), val)
        got = R.scatter_slices((6,), ((0, 0, 4, hi),), val, 1)
        np.testing.assert_array_equal(got, want)


def test_scatter_slices_of_two_axes():
    """A row's slice under a column's slice (two summed axes, in order)."""
    val = np.arange(6.0).reshape(2, 3)
    want = R.scatter((4, 5), ((np.arange(2) + 1).reshape(-1, 1), (np.arange(3) + 2).reshape(1, -1)), val)
    got = R.scatter_slices((4, 5), ((0, 1, 2, None), (1, 2, 3, None)), val, 2)
    np.testing.assert_array_equal(got, want)


def bounds(v, k):
    return float(max(len(v), k) - min(k, len(v) - 2)) + np.sum(v[k:max(k, 1) + 2])


@pytest.mark.parametrize("n,k", [(4, 1), (4, 4), (5, -3), (3, 0), (6, 2)])
def test_int_max_and_min_are_python_operators(n, k):
    """A slice's bounds are normalised with Python's max and min of ints, written as conditional
    expressions (no call per step of a loop); their values are Python's."""
    v = np.arange(1.0, n + 1)
    primal = catad.explain(bounds, v, k).stage("code").text.split("def fwd_")[0]
    assert "first_max(" not in primal and "first_min(" not in primal
    assert catad.vjp(bounds, v, k)[0] == bounds(v, k)
    np.testing.assert_allclose(catad.grad(bounds)(v, k), central_difference(bounds, (v, k), 0), atol=1e-8)
