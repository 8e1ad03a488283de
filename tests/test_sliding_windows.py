"""numpy.lib.stride_tricks.sliding_window_view (issue 16: convolution layers written with einsum).

The view is a gather (catad/frontend/numpy_windows.py): its forward derivative is the windowed
read, its reverse one a scatter-add of the windows back into the input, overlapping windows
adding up (one bincount, never a matrix, nor an array of (windows) x (input): the backend keeps
a row's index update lazy while it sums, catad/backend/reductions.py). Checked here: values equal
NumPy's view, shapes for every form of window_shape and axis (repeated axes too), gradients in
both modes against central differences, the count of windows covering each element, NumPy's
errors in NumPy's order, and that writes to the read-only view are refused, located.
"""
from __future__ import annotations

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import catad
import numpy.lib.stride_tricks as stride_tricks
from backend_programs import central_difference

RNG = np.random.default_rng(2024)


def windows_1d(x):
    return sliding_window_view(x, 3)


def windows_of_w(x, w):
    return sliding_window_view(x, w.shape[0])


def windows_2d(m):
    return sliding_window_view(m, (2, 3))


def windows_rows(m):
    return sliding_window_view(m, 2, axis=0)


def windows_last(m):
    return sliding_window_view(m, 2, axis=-1)


def windows_twice_along_rows(m):
    return sliding_window_view(m, (2, 2), axis=(0, 0))


def windows_of_channels(x):
    return sliding_window_view(x, (2, 2), axis=(1, 2))


def windows_of_nothing(x):
    return sliding_window_view(x, 0)


def one_window(x):
    return sliding_window_view(x, len(x))


def by_keyword(x):
    return stride_tricks.sliding_window_view(x, window_shape=2)


def by_a_list(m):
    return sliding_window_view(m, [2, 2])


def of_ints(v):
    return sliding_window_view(v, 2) * 1.5


CASES = [(windows_1d, ((7,),)), (windows_of_w, ((7,), (3,))), (windows_2d, ((4, 5),)), (windows_rows, ((4, 5),)),
         (windows_last, ((4, 5),)), (windows_twice_along_rows, ((5, 3),)), (windows_of_channels, ((2, 4, 5),)),
         (windows_of_nothing, ((4,),)), (one_window, ((4,),)), (by_keyword, ((4,),)), (by_a_list, ((3, 3),))]


def _args(shapes):
    return tuple(RNG.normal(size=s) for s in shapes)


@pytest.mark.parametrize("f, shapes", CASES, ids=[f.__name__ for f, _ in CASES])
def test_values_and_shapes_are_numpy_s(f, shapes):
    args = _args(shapes)
    out, _ = catad.vjp(f, *args)
    ref = f(*args)
    assert out.shape == ref.shape
    np.testing.assert_array_equal(out, ref)


def test_int_arrays_keep_their_values():
    v = np.arange(6)
    out, _ = catad.vjp(of_ints, v.astype(float))
    np.testing.assert_array_equal(out, of_ints(v))
    assert catad.grad(lambda a: np.sum(of_ints(a)))(v.astype(float)).tolist() == [1.5, 3.0, 3.0, 3.0, 3.0, 1.5]


@pytest.mark.parametrize("f, shapes", CASES, ids=[f.__name__ for f, _ in CASES])
def test_gradients_in_both_modes(f, shapes):
    args = _args(shapes)
    ref = f(*args)
    weights = RNG.normal(size=ref.shape)
    jac = central_difference(f, args, 0)
    _, vjp = catad.vjp(f, *args)
    ct = vjp(weights)
    ct = ct[0] if isinstance(ct, tuple) else ct
    np.testing.assert_allclose(ct, np.tensordot(weights, jac, axes=ref.ndim), rtol=1e-7, atol=1e-8)
    d = RNG.normal(size=args[0].shape)
    _, tangent = catad.jvp(f, args, (d,) + tuple(np.zeros_like(a) for a in args[1:]))
    np.testing.assert_allclose(tangent, np.tensordot(jac, d, axes=d.ndim), rtol=1e-7, atol=1e-8)


def test_overlapping_windows_add_up():
    """The gradient of the sum of all windows counts the windows covering each element."""
    def total(x, w):
        return np.sum(sliding_window_view(x, w))
    for n, w in ((6, 3), (5, 1), (4, 4), (7, 2)):
        covered = [min(i + 1, w, n - i, n - w + 1) for i in range(n)]
        assert catad.grad(total)(np.ones(n), w).tolist() == covered

    def total_2d(m):
        return np.sum(sliding_window_view(m, (2, 3)))
    rows, cols = np.array([1, 2, 2, 1]), np.array([1, 2, 3, 3, 2, 1])
    np.testing.assert_array_equal(catad.grad(total_2d)(np.ones((4, 6))), np.outer(rows, cols))


def conv1d(x, w, target):  # benchmarks/corpus/ml.py's conv1d_einsum
    windows = sliding_window_view(x, w.shape[-1])
    y = np.einsum("tk,k->t", windows, w)
    return np.sum((y - target) ** 2)


def conv2d_multichannel(x, w, b):  # benchmarks/corpus/ml.py's
    patches = sliding_window_view(x, w.shape[2:], axis=(1, 2))
    y = np.einsum("chwij,ocij->ohw", patches, w) + b[:, None, None]
    return np.mean(np.maximum(y, 0.0) ** 2)


def test_convolution_layers():
    args = (RNG.normal(size=12), RNG.normal(size=3), RNG.normal(size=10))
    v, g = catad.value_and_grad(conv1d, argnums=(0, 1))(*args)
    assert v == pytest.approx(conv1d(*args), rel=1e-13)
    for k in (0, 1):
        np.testing.assert_allclose(g[k], central_difference(conv1d, args, k), rtol=1e-6, atol=1e-8)
    args = (RNG.normal(size=(2, 5, 5)), RNG.normal(size=(3, 2, 3, 3)) * 0.5, RNG.normal(size=3))
    v, g = catad.value_and_grad(conv2d_multichannel, argnums=(0, 1, 2))(*args)
    assert v == pytest.approx(conv2d_multichannel(*args), rel=1e-13)
    for k in range(3):
        np.testing.assert_allclose(g[k], central_difference(conv2d_multichannel, args, k), rtol=1e-6, atol=1e-8)


def image_filter(img, k):
    return np.sum(np.einsum("hwij,ij->hw", sliding_window_view(img, k.shape), k) ** 2)


def test_the_reverse_is_one_scatter_add_into_the_input():
    """A 300 x 300 image and a 5 x 5 kernel: (windows) x (input) would be 296^2 * 300^2 floats
    (63 GB); the cotangent is scattered into the image's shape (and a row's, on the way)."""
    img, k = RNG.normal(size=(300, 300)), RNG.normal(size=(5, 5))
    gi, gk = catad.grad(image_filter, argnums=(0, 1))(img, k)
    assert gi.shape == img.shape and gk.shape == k.shape
    small = (img[:7, :6], k[:3, :2])
    np.testing.assert_allclose(catad.grad(image_filter)(*small), central_difference(image_filter, small, 0),
                               rtol=1e-6, atol=1e-6)
    rev = catad.explain(image_filter, img[:7, :6], k[:3, :2]).stage("code").text
    assert "scatter(" in rev


# ---------------------------------------------------------------------- errors

def total_of(x, w):
    return np.sum(sliding_window_view(x, w))


def too_long_for_the_columns(m):
    return np.sum(sliding_window_view(m, (2, 9)))


def one_window_for_two_axes(m):
    return np.sum(sliding_window_view(m, 2))


def axis_out_of_range(m):
    return np.sum(sliding_window_view(m, 2, axis=2))


def two_windows_one_axis(m):
    return np.sum(sliding_window_view(m, (2, 2), axis=0))


def twice_too_long(m):
    return np.sum(sliding_window_view(m, (3, 3), axis=(0, 0)))


def float_window(x):
    return np.sum(sliding_window_view(x, 2.0))


def test_numpy_s_errors_in_numpy_s_order():
    x, m = np.arange(4.0), np.ones((3, 3))
    for f, args, cls, says in (
            (total_of, (x, 5), catad.ShapeError, "window shape cannot be larger than input array shape"),
            (total_of, (x, -1), catad.ShapeError, "`window_shape` cannot contain negative values"),
            (too_long_for_the_columns, (m,), catad.ShapeError, "window shape cannot be larger"),
            (one_window_for_two_axes, (m,), catad.ShapeError, "Since axis is `None`, must provide window_shape for "
                                                              "all dimensions of `x`; got 1 window_shape elements"),
            (axis_out_of_range, (m,), catad.BoundsError, "axis 2 is out of bounds for array of dimension 2"),
            (two_windows_one_axis, (m,), catad.ShapeError, "Must provide matching length window_shape and axis; got "
                                                           "2 window_shape elements and 1 axes elements"),
            (twice_too_long, (np.ones((4, 2)),), catad.ShapeError, "window shape cannot be larger")):
        with pytest.raises(cls, match=says) as e:
            catad.grad(f)(*args)
        assert "test_sliding_windows.py" in str(e.value)
        with pytest.raises(ValueError, match=says[:20]):
            f(*args)
    with pytest.raises(catad.CatadTypeError, match="window_shape of .* must be an Int or a tuple of Ints"):
        catad.grad(float_window)(x)
    assert catad.grad(total_of)(x, 2).tolist() == [1.0, 2.0, 2.0, 1.0]  # the same program, another window


def writes_into_the_view(x):
    v = sliding_window_view(x, 2)
    v[0, 0] = 1.0
    return np.sum(v)


def writes_through_a_second_name(x):
    v = sliding_window_view(x, 2)
    u = v
    u[0] += 1.0
    return np.sum(v)


def adds_in_place(x):
    v = sliding_window_view(x, 2)
    v += 1.0
    return np.sum(v)


def writeable_view(x):
    return np.sum(sliding_window_view(x, 2, writeable=True))


def writes_into_a_copy(x):
    v = sliding_window_view(x, 2)
    u = v.copy()
    u[0, 0] = 5.0
    return np.sum(u * v)


def test_the_view_is_read_only():
    x = np.arange(4.0)
    for f in (writes_into_the_view, writes_through_a_second_name, adds_in_place):
        with pytest.raises(catad.CatadError, match="read-only view made by sliding_window_view") as e:
            catad.grad(f)(x)
        assert "test_sliding_windows.py" in str(e.value) and "copy it first" in str(e.value)
        with pytest.raises(ValueError, match="read-only"):
            f(x)
    with pytest.raises(catad.CatadError, match="writeable=True") as e:
        catad.grad(writeable_view)(x)
    assert "test_sliding_windows.py" in str(e.value)
    v, g = catad.value_and_grad(writes_into_a_copy)(x)
    assert v == writes_into_a_copy(x)
    np.testing.assert_allclose(g, central_difference(writes_into_a_copy, (x,), 0), rtol=1e-7)
