"""Broadcasting along an axis whose length is only known at run time (frontend/broadcast.py reads
such an operand at min(i, len - 1)): the backend compiles that read as a view (runtime.take_clamped)
and its cotangent as a copy or a sum over the broadcast axis (runtime.scatter_clamped), not a
gather and a scatter-add at computed indices; the helpers keep min's meaning whatever the sizes."""
import numpy as np
import pytest

import catad
from catad.backend import runtime as R


def gated(w, h):
    b = len(h)
    return np.sum(np.tanh(h * w[0:b] + w[b:2 * b]) * w[1:b + 1])


def numeric_grad(f, x, *rest, eps=1e-6):
    g = np.zeros_like(x)
    for k in range(x.size):
        e = np.zeros_like(x)
        e.flat[k] = eps
        g.flat[k] = (f(x + e, *rest) - f(x - e, *rest)) / (2 * eps)
    return g


@pytest.mark.parametrize("nw,nh", [(8, 4), (9, 4), (5, 4), (4, 3), (2, 1), (3, 1), (0, 0), (5, 0)])
def test_run_time_lengths_broadcast_and_differentiate_like_numpy(nw, nh):
    rng = np.random.default_rng(nw * 10 + nh)
    w, h = rng.standard_normal(nw), rng.standard_normal(nh)
    value, (gw, gh) = catad.value_and_grad(gated, argnums=(0, 1))(w, h)
    np.testing.assert_allclose(value, gated(w, h), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gw, numeric_grad(gated, w, h), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gh, numeric_grad(lambda x, w: gated(w, x), h, w), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("nw,nh", [(6, 4), (1, 4), (3, 3)])
def test_run_time_lengths_that_differ_raise(nw, nh):
    w, h = np.ones(nw), np.ones(nh)
    with pytest.raises(ValueError):
        gated(w, h)
    with pytest.raises(catad.ShapeError):
        catad.value_and_grad(gated)(w, h)


def front(w, h):
    return np.sum(np.tanh(h * w[0:len(h)]))


def test_the_broadcast_read_is_a_view_and_its_cotangent_no_scatter():
    """(the reads of w[b:2 * b] at i + b are views too: tests/test_backend_slices.py)"""
    code = catad.explain(front, np.ones(8), np.ones(4)).stage("code").text
    rev = code[code.index("def rev_"):]
    assert "take_clamped(" in rev and "scatter_clamped(" in rev
    assert "scatter((" not in rev


@pytest.mark.parametrize("m,n,hi", [(4, 4, 3), (6, 4, 5), (1, 4, 0), (3, 4, 2), (5, 4, 1), (0, 0, -1), (2, 0, 1)])
def test_take_clamped_is_a_read_at_min(m, n, hi):
    x = np.arange(2.0 * m).reshape(1, 2, m) + 1  # batch axis 0 of size 1, element axis 2
    got = R.take_clamped(x, 0, 2, n, hi)
    idx = np.minimum(np.arange(n), hi)
    want = np.moveaxis(x[0][:, idx], 1, 0)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("N,n,hi", [(4, 4, 3), (4, 6, 5), (4, 1, 0), (4, 3, 0), (4, 3, 2), (4, 5, 1), (0, 0, -1)])
@pytest.mark.parametrize("layout", ["plain", "summed", "constant"])
def test_scatter_clamped_is_the_scatter_add_of_the_read(N, n, hi, layout):
    rng = np.random.default_rng(N + n + hi + 1)
    idx = np.minimum(np.arange(N), hi)  # along batch axis 0 (or 1 when another is summed)
    if layout == "plain":
        v = rng.standard_normal((N, 2))
        got = R.scatter_clamped(v, N, 0, (), n, hi, 0)
        want = np.zeros((n, 2))
        np.add.at(want, idx, v)
    elif layout == "summed":  # axis 0 summed too, the scattered axis is 1
        v = rng.standard_normal((3, N))
        got = R.scatter_clamped(v, N, 1, (0,), n, hi, 0)
        want = np.zeros(n)
        np.add.at(want, idx, v.sum(axis=0))
    else:  # v does not vary along the scattered axis: every lane adds it
        v = rng.standard_normal((1, 2))
        got = R.scatter_clamped(v, N, 0, (), n, hi, 0)
        want = np.zeros((n, 2))
        np.add.at(want, idx, np.broadcast_to(v, (N, 2)))
    np.testing.assert_allclose(got, want, rtol=1e-14, atol=1e-14)
    assert got.flags.writeable and got.flags.owndata or got.base is None or got.size == 0


def shifted(x, b):
    return x + b


def sum_of_shifted(x, b):
    # the helper's result is read at min(i, len - 1) with a cotangent that is the same number in
    # every lane (the sum's): scatter_clamped once raised a raw IndexError on that 0-d value (it
    # now goes to the general scatter, which broadcasts it)
    return np.sum(np.sin(x) + shifted(x, b))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_a_lane_invariant_number_s_cotangent_through_the_broadcast_read(n):
    x = np.linspace(0.2, 1.0, n)
    value, (gx, gb) = catad.value_and_grad(sum_of_shifted, argnums=(0, 1))(x, -0.2)
    np.testing.assert_allclose(value, sum_of_shifted(x, -0.2), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gx, numeric_grad(sum_of_shifted, x, -0.2), rtol=1e-6, atol=1e-8)
    assert gb == pytest.approx(float(n))
