"""NumPy's creation, shape, joining and reduction functions (catad/frontend/numpy_arrays.py),
each checked by tests/shape_oracle.py against the user's own function run by NumPy: the value,
gradients (reverse, forward and the Jacobian) against central differences, and, where NumPy
raises, catad.ShapeError or BoundsError at the marked line. Shapes include length-1 axes and
empty arrays; bad keyword and axis arguments are refused with a location.
"""
import numpy as np
import pytest

import catad
from shape_oracle import check_like_numpy, rand


def arr(*shape, seed=0, low=0.5, high=1.5):
    return rand(np.random.default_rng(seed), shape, low, high)


# ---------------------------------------------------------------- creation

def eye_scaled(x, n):
    return np.eye(n) * x + np.identity(n) + np.eye(n, n + 1, 1)[:, :n] * 2.0


def eye_int(x, n):
    return np.sum(np.eye(n, dtype=int)) * x


def full_fn(x, n):
    return np.full((2, n), x) + np.full(n, 2.0)


def full_like_fn(v, x):
    return np.full_like(v, x) * v


def linspace_fn(a, b):
    return np.linspace(a, b, 7) + np.linspace(b, a, 7, endpoint=False)


def linspace_sizes(a, n):
    return np.linspace(a, 2.0 * a, n)


def arange_float(a, b):
    return np.arange(a, b, 0.25) * a


def arange_neg_step(a):
    return np.arange(a, 0.0, -0.3) ** 2


def arange_int_step(x, n):
    return np.arange(1, n, 2) * x + np.arange(n, 0, -3) * x


def angles(v):
    return np.radians(v) + np.degrees(v) * 0.01 + np.deg2rad(v[0])


@pytest.mark.parametrize("n", [0, 1, 3])
def test_eye_full(n):
    check_like_numpy(eye_scaled, 1.3, n)
    check_like_numpy(eye_int, 1.3, n)
    check_like_numpy(full_fn, 0.7, n)


def test_negative_dimension_is_numpy_s_error():
    check_like_numpy(eye_scaled, 1.3, -2)
    check_like_numpy(full_fn, 0.7, -1)


@pytest.mark.parametrize("shape", [(3,), (1,), (2, 3), (1, 1)])
def test_full_like(shape):
    check_like_numpy(full_like_fn, arr(*shape), 0.3)


def test_linspace_and_arange():
    check_like_numpy(linspace_fn, 0.3, 1.7)
    for n in (0, 1, 2, 5):
        check_like_numpy(linspace_sizes, 0.7, n)
    check_like_numpy(linspace_sizes, 0.7, -1)
    for a, b in ((0.5, 2.1), (0.5, 0.5), (1.0, 0.2)):
        check_like_numpy(arange_float, a, b)
    check_like_numpy(arange_neg_step, 1.7)
    for n in (0, 1, 6):
        check_like_numpy(arange_int_step, 0.5, n)
    check_like_numpy(angles, arr(3))


def test_arange_matches_numpy_bit_for_bit():
    def ar(a, b, s):
        return np.arange(a, b, s)
    for a, b, s in [(0.0, 1.0, 0.1), (1.0, 0.0, -0.25), (0.0, 1e3, 0.7), (0.0, 1.0, 1e-3), (-2.5, 3.3, 0.9)]:
        got = catad.vjp(ar, a, b, s)[0]
        assert np.array_equal(got, np.arange(a, b, s)), (a, b, s)


# ---------------------------------------------------------------- new axes and shapes

def outer_diff(x, y):
    return (x[:, None] - y[None, :]) ** 2 * x[:, np.newaxis]


def row_of(m):
    return m[0, None] * m[:, 1][:, None]


def new_axes_mismatch(x, y):
    return x[:, None] + y[:, None]  # <-


def reshape_fn(x):
    return x.reshape(-1, 2) * np.arange(2)[None, :]


def reshape_rows(m):
    return np.reshape(m, (m.shape[1], -1)).T + m.ravel().reshape(m.shape[0], m.shape[1]) + m.flatten()[0]


def reshape_bad(x):
    return x.reshape(3, 4)  # <-


def reshape_bad_unknown(x):
    return x.reshape(-1, 4)  # <-


def dims_fn(m):
    return np.squeeze(m[0][None, :], axis=0) + np.expand_dims(m[1], 0)[0] + m.transpose(1, 0).T[0] \
        + np.swapaxes(m, 0, 1).T[1] + np.moveaxis(m, 0, 1)[:, 0] + np.transpose(m, (0, 1))[0]


def squeeze_fn(m):
    return np.squeeze(m) * 2.0


def squeeze_bad(m):
    return np.squeeze(m, axis=0)  # <-


def shape_fns(m):
    return np.shape(m)[0] * 1.5 + np.size(m) + np.ndim(m) + m.size + np.sum(m)


@pytest.mark.parametrize("sx,sy", [((3,), (2,)), ((1,), (4,)), ((3,), (1,)), ((0,), (2,))])
def test_none_indexing(sx, sy):
    check_like_numpy(outer_diff, arr(*sx), arr(*sy, seed=1))


def test_none_indexing_mismatch_and_rows():
    check_like_numpy(new_axes_mismatch, arr(3), arr(4))
    check_like_numpy(new_axes_mismatch, arr(3), arr(1))
    check_like_numpy(row_of, arr(2, 3))


@pytest.mark.parametrize("n", [0, 2, 8])
def test_reshape(n):
    check_like_numpy(reshape_fn, arr(n))


@pytest.mark.parametrize("shape", [(2, 3), (1, 4), (3, 1)])
def test_reshape_matrix(shape):
    check_like_numpy(reshape_rows, arr(*shape))


def reshape_bad_trailing(x):
    return x.reshape(3, -1)  # <-


def test_reshape_errors():
    check_like_numpy(reshape_bad, arr(10))
    check_like_numpy(reshape_bad, arr(12))
    # NumPy's message names the shape as (2) and (3,newaxis), which the oracle does not parse
    check_like_numpy(reshape_fn, arr(5), shapes=["size 5", "shape (2)"])
    check_like_numpy(reshape_bad_unknown, arr(10), shapes=["size 10", "shape (4)"])
    check_like_numpy(reshape_bad_trailing, arr(10), shapes=["size 10", "shape (3,newaxis)"])


@pytest.mark.parametrize("shape", [(2, 3), (2, 2)])
def test_axes_functions(shape):
    check_like_numpy(dims_fn, arr(*shape))


def test_squeeze():
    check_like_numpy(squeeze_fn, arr(1, 3))
    check_like_numpy(squeeze_fn, arr(3, 1))
    check_like_numpy(squeeze_bad, arr(1, 3))
    check_like_numpy(squeeze_bad, arr(2, 3), shapes=["cannot select an axis to squeeze out"])
    check_like_numpy(shape_fns, arr(2, 3))


# ---------------------------------------------------------------- reductions

def sum_axes(m):
    return np.sum(m, axis=0) * 2.0 + m.sum(axis=1, keepdims=True) + np.sum(m, axis=(0, 1), keepdims=True)


def mean_axes(m):
    return m.mean(axis=-1, keepdims=True) * np.mean(m, axis=0) + np.mean(m)


def max_min_axes(m):
    return np.max(m, axis=1, keepdims=True) - m.min(axis=0) + np.amax(m, axis=(0, 1))


def prod_fn(m):
    return np.prod(m, axis=0) + m.prod(axis=1, keepdims=True) + np.prod(m)


def var_std(m):
    return np.var(m, axis=1, ddof=1, keepdims=True) + m.std(axis=0) + np.std(m) + m.var()


def vector_reductions(v):
    return np.prod(v) + np.var(v) + np.std(v, ddof=1) + np.sum(v, axis=0, keepdims=True) + v.max(keepdims=True)


def arg_reductions(m, w):
    return np.argmax(m, axis=0) * w + np.argmin(m, axis=1)[0] + m.argmax() + np.argmax(m, axis=1, keepdims=True)


def sum_bad_axis(m):
    return np.sum(m, axis=2)  # <-


def sum_duplicate_axis(m):
    return np.sum(m, axis=(1, -1))  # <-


def norm_axes(m):
    return np.linalg.norm(m, axis=1) + np.linalg.norm(m, axis=0, keepdims=True) + np.linalg.norm(m)


def var_keep(m):
    return np.var(m, axis=1, keepdims=True) + m.var(axis=0) * 2.0


REDUCTIONS = [sum_axes, mean_axes, max_min_axes, prod_fn, var_keep, norm_axes]


@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (1, 4), (4, 1)])
@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
def test_reductions(fn, shape):
    check_like_numpy(fn, arr(*shape))


# std is sqrt(var), whose derivative at var = 0 (over one element, or ddof leaving none) is not
# finite: these take axes of more than one element
@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (2, 2)])
def test_std(shape):
    check_like_numpy(var_std, arr(*shape))


@pytest.mark.parametrize("n", [2, 5, 16, 17])
def test_vector_reductions(n):
    check_like_numpy(vector_reductions, arr(n))


def test_prod_of_empty_and_with_zeros():
    check_like_numpy(prod_fn, arr(0, 3))
    m = arr(3, 3)
    m[1, 1] = 0.0
    check_like_numpy(prod_fn, m)


def test_arg_reductions_and_axis_errors():
    check_like_numpy(arg_reductions, arr(3, 4), arr(4, seed=2))
    check_like_numpy(sum_bad_axis, arr(2, 3))
    check_like_numpy(sum_duplicate_axis, arr(2, 3), shapes=["duplicate value in 'axis'"])


# ---------------------------------------------------------------- scans and differences

def cumulative(m):
    return np.cumsum(m, axis=0) * np.cumprod(m, axis=1) + m.cumsum(axis=1)


def cumulative_flat(m):
    return np.cumsum(m) + np.cumprod(m) * 0.5


def diffs(m):
    return np.sum(np.diff(m) ** 2) + np.sum(np.diff(m, axis=0)) + np.sum(np.diff(m, n=2, axis=1) * 3.0)


def vector_diffs(v):
    return np.diff(v) * np.diff(v, n=0)[1:] + np.cumsum(v)[1:]


def rolls(m):
    return np.roll(m, 1, axis=0) * m + np.roll(m, -2) + np.roll(m, 4, axis=1)


@pytest.mark.parametrize("shape", [(3, 4), (1, 5), (5, 1), (4, 4)])
def test_scans(shape):
    check_like_numpy(cumulative, arr(*shape))
    check_like_numpy(cumulative_flat, arr(*shape))
    check_like_numpy(diffs, arr(*shape))
    check_like_numpy(rolls, arr(*shape))


@pytest.mark.parametrize("n", [0, 1, 2, 3, 9])
def test_vector_scans(n):
    check_like_numpy(vector_diffs, arr(n))


def test_a_long_running_sum_is_exact_enough_and_log_steps():
    v = np.random.default_rng(3).uniform(0.5, 1.5, 1000)

    def running(v):
        return np.cumsum(v)
    np.testing.assert_allclose(catad.vjp(running, v)[0], np.cumsum(v), rtol=1e-13)
    code = catad.explain(running, v).stage("code").text
    assert "while True" in code and "for i in range" in code  # ceil(log2 n) steps, not n


# ---------------------------------------------------------------- joining and splitting

def concat_fn(v):
    return np.concatenate([[0.0], v, [0.0]]) * 2.0


def concat_axes(a, b):
    return np.sum(np.concatenate((a, b), axis=0) ** 2) + np.sum(np.concatenate([a, a], axis=1) * 3.0)


def concat_cols(a, b):
    return np.concatenate([a, b], axis=1)  # <-


def concat_rows(a, b):
    return np.concatenate([a, b])  # <-


def stacks(v, w):
    return np.sum(np.stack([v, w * 2.0]) ** 2) + np.sum(np.stack([v, w], axis=1) * 3.0) \
        + np.sum(np.vstack([v, w]) * np.vstack([w, v])) + np.sum(np.hstack([v, w]) ** 3) \
        + np.sum(np.column_stack([v, w ** 2]))


def stack_bad(v, w):
    return np.stack([v, w])  # <-


def vstack_bad(v, w):
    return np.vstack([v, w])  # <-


def split_repeat_tile(v):
    a, b = np.split(v, 2)
    return np.sum(a * b) + np.sum(np.repeat(v, 2) ** 2) + np.sum(np.tile(v, 2) * np.tile(v, (2, 1))[1].repeat(2))


def split_bad(v):
    a, b = np.split(v, 2)  # <-
    return np.sum(a)


def split_at(v):
    a, b, c = np.split(v, [2, -1])
    return np.sum(a ** 2) * np.sum(b) + np.sum(c ** 3)


def split_at_axis(m):
    a, b, c, d = np.split(m, (1, 3, 2), axis=1)  # c is empty (3:2), d is m[:, 2:]
    return np.sum(a) * np.sum(b ** 2) + np.sum(c) + np.sum(np.sin(d))


def split_past_the_end(v):
    a, b = np.split(v, [10])
    return np.sum(a ** 2) + np.sum(b)


def pads(v, m):
    return np.sum(np.pad(v, 1) * np.arange(len(v) + 2)) + np.sum(np.pad(m, ((1, 0), (0, 2))) ** 2) + \
        np.sum(np.pad(v, (2, 0), constant_values=1.5))


@pytest.mark.parametrize("n", [0, 1, 3])
def test_concatenate(n):
    check_like_numpy(concat_fn, arr(n))


def test_concatenate_axes_and_errors():
    check_like_numpy(concat_axes, arr(2, 3), arr(1, 3, seed=1))
    check_like_numpy(concat_cols, arr(2, 3), arr(2, 1, seed=1))
    must_match = "along dimension {}, the array at index 0 has size {} and the array at index 1 has size {}"
    check_like_numpy(concat_cols, arr(2, 3), arr(3, 3, seed=1), shapes=[must_match.format(0, 2, 3)])
    check_like_numpy(concat_rows, arr(2, 3), arr(2, 2, seed=1), shapes=[must_match.format(1, 3, 2)])
    check_like_numpy(concat_rows, arr(3), arr(2, 2, seed=1), shapes=["index 0 has 1 dimension(s) and the array at "
                                                                      "index 1 has 2 dimension(s)"])


@pytest.mark.parametrize("n", [1, 3])
def test_stacks(n):
    check_like_numpy(stacks, arr(n), arr(n, seed=1))


def test_stack_errors():
    check_like_numpy(stack_bad, arr(3), arr(2), shapes=["all input arrays must have the same shape"])
    check_like_numpy(vstack_bad, arr(3), arr(2), shapes=["along dimension 1, the array at index 0 has size 3 and "
                                                         "the array at index 1 has size 2"])


def test_split_repeat_tile_pad():
    check_like_numpy(split_repeat_tile, arr(4))
    check_like_numpy(split_bad, arr(5), shapes=["array split does not result in an equal division"])
    check_like_numpy(pads, arr(3), arr(2, 2, seed=1))


@pytest.mark.parametrize("n", [0, 1, 2, 4, 6])
def test_split_at_indices(n):
    check_like_numpy(split_at, arr(n))
    check_like_numpy(split_past_the_end, arr(n))
    check_like_numpy(split_at_axis, arr(2, n))


# ---------------------------------------------------------------- matrices

def diagonals(m):
    return np.trace(m) + np.trace(m, 1) * 2.0 + np.sum(np.diag(m, -1) ** 3) + np.sum(np.diag(np.diag(m)) * m) \
        + np.sum(np.diag(m[0], 1) ** 2)


def triangles(m):
    return np.triu(m) * 2.0 + np.tril(m, -1) ** 2 + np.triu(m, 1)


def crosses(a, b):
    return np.cross(a, b) ** 2


def cross_bad(a, b):
    return np.cross(a, b)  # <-


def trapezoids(y, x):
    return np.trapezoid(y ** 2, x) + np.trapezoid(y, dx=0.5) + np.trapezoid(y)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4), (4, 2), (1, 1)])
def test_diagonals_and_triangles(shape):
    check_like_numpy(diagonals, arr(*shape))
    check_like_numpy(triangles, arr(*shape))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (2, 3)), ((1, 3), (4, 3))])
def test_cross(sa, sb):
    check_like_numpy(crosses, arr(*sa), arr(*sb, seed=1))


def test_cross_of_other_lengths_is_refused_at_run_time():
    with pytest.raises(catad.ShapeError, match="cross product"):
        catad.vjp(cross_bad, arr(4), arr(4))


@pytest.mark.parametrize("n", [1, 2, 6])
def test_trapezoid(n):
    check_like_numpy(trapezoids, arr(n), np.sort(arr(n, seed=1)))


# ---------------------------------------------------------------- refusals with a location

def keyword_unknown(v):
    return np.sum(v, axes=0)


def axis_not_constant(v, k):
    return np.sum(v, axis=k)


def squeeze_unknown(m):
    return np.squeeze(m[:, 0:1])


def out_given(v):
    return np.sum(v, out=v)


@pytest.mark.parametrize("fn,args,kind,what", [
    (keyword_unknown, (arr(3),), catad.UnsupportedSyntax, "does not take keyword argument 'axes'"),
    (axis_not_constant, (arr(3), 0), catad.UnsupportedSyntax, "axis of np.sum must be an integer constant"),
    (squeeze_unknown, (arr(2, 3),), catad.UnsupportedSyntax, "give axis="),
    (out_given, (arr(3),), catad.UnsupportedSyntax, "out= of np.sum"),
])
def test_refusals_are_located(fn, args, kind, what):
    with pytest.raises(kind, match=what) as info:
        catad.vjp(fn, *args)
    assert "test_numpy_functions.py:" in str(info.value)


def identity_with_k(n):
    return np.identity(n, k=1)


def test_identity_takes_no_offset():
    with pytest.raises(catad.UnsupportedSyntax, match="np.identity\\(\\) does not take keyword argument 'k'"):
        catad.vjp(identity_with_k, 3)


# ---------------------------------------------------------------- arrays of rank 3 and 4 (issue 16)

def pairwise(x):
    d = x[:, None, :] - x[None, :, :]  # <-
    return np.sum(d ** 2, axis=-1) + np.sqrt(np.sum(d ** 2, axis=2) + 1.0)


def rank_three(m):
    return m[:, None, :] * m[None, :, None, :] * 2.0


@pytest.mark.parametrize("shape", [(4, 3), (1, 3), (3, 1), (0, 2)])
def test_pairwise_differences(shape):
    check_like_numpy(pairwise, arr(*shape))
    check_like_numpy(rank_three, arr(*shape))


def reshape3(v):
    return np.reshape(v, (2, 3, -1)) * np.arange(24.0).reshape(2, 3, 4) + v.reshape(-1, 3, 2, 2).ravel()[0]


def reshape_back(t):
    return t.reshape(t.shape[0] * t.shape[1], -1) ** 2 + np.reshape(t, (-1,))[:t.shape[2]]


def reshape3_bad(v):
    return v.reshape(2, 3, 4)  # <-


def reshape3_bad_unknown(v):
    return v.reshape(2, -1, 4)  # <-


def reshape3_bad_leading(v):
    return v.reshape(-1, 3, 4)  # <-


def test_reshape_rank_three():
    check_like_numpy(reshape3, arr(24))
    check_like_numpy(reshape_back, arr(2, 3, 4))
    check_like_numpy(reshape_back, arr(1, 2, 1))
    check_like_numpy(reshape3_bad, arr(10))
    check_like_numpy(reshape3_bad_unknown, arr(10), shapes=["size 10", "shape (2,newaxis,4)"])
    check_like_numpy(reshape3_bad_leading, arr(10), shapes=["size 10", "shape (3,4)"])


def axes3(t):
    return np.transpose(t, (1, 2, 0)) * np.moveaxis(t, 0, -1) + np.swapaxes(np.swapaxes(t, 0, 2), 0, 1) \
        + t.transpose(1, 2, 0) ** 2 + np.moveaxis(t, (0, 1), (2, 0))


def expand4(t):
    return np.expand_dims(t, (0, 2)) * 2.0 + np.squeeze(t[None, :, None], axis=(0, 2))[None] \
        + np.squeeze(np.expand_dims(t, axis=-1))[None, :, :, None]


def transpose3_repeated(t):
    return np.transpose(t, (0, 1, 1))  # <-


def moveaxis_unequal(t):
    return np.moveaxis(t, (0, 1), 2)  # <-


@pytest.mark.parametrize("shape", [(3, 3, 3), (2, 3, 4)])
def test_axes_functions_rank_three(shape):
    t = arr(*shape)
    if shape[0] == shape[1] == shape[2]:
        check_like_numpy(axes3, t)
    check_like_numpy(expand4, t)
    check_like_numpy(transpose3_repeated, t, shapes=["repeated axis in transpose"])
    check_like_numpy(moveaxis_unequal, t, shapes=["must have the same number of elements"])


def reductions3(t):
    return np.sum(t, axis=(0, 2)) * np.prod(t, axis=1).sum(axis=1) \
        + np.sum(np.max(t, axis=(0, 2), keepdims=True) * np.min(t, axis=1, keepdims=True)) \
        + np.argmax(t, axis=1).sum() + np.argmin(t, axis=0)[0, 0] + np.argmax(t) \
        + np.var(t, axis=(1, 2)).sum() + np.std(t, axis=2, ddof=1).sum() + np.mean(t, axis=(0, 1)).sum() \
        + np.prod(t) + np.prod(t, axis=(0, 2)).sum() + np.linalg.norm(t, axis=2).sum()


def reductions4(q):
    return np.mean(q, axis=(1, 3), keepdims=True) * q + np.sum(q, axis=(0, 1, 3))[None, None, :, None] \
        + np.max(q, axis=-1)[:, :, :, None]


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 2, 3), (3, 1, 2)])
def test_reductions_rank_three(shape):
    check_like_numpy(reductions3, arr(*shape))


def test_reductions_rank_four():
    check_like_numpy(reductions4, arr(2, 3, 2, 2))
    check_like_numpy(reductions4, arr(1, 2, 3, 1))


def along3(t):
    return np.cumsum(t, axis=1) * np.cumprod(t, axis=2) + np.roll(t, 1, axis=2) + np.roll(t, -1) \
        + np.repeat(t, 2, axis=1)[:, :t.shape[1]] * 0.5 + np.cumsum(t).reshape(t.shape)


def diff3(t):
    return np.diff(t, axis=1) ** 2 + np.diff(t, n=2, axis=0).sum()


@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 1, 2)])
def test_scans_rank_three(shape):
    check_like_numpy(along3, arr(*shape))
    check_like_numpy(diff3, arr(*shape))


def stack3(m, w):
    return np.stack([m, w], axis=0) + np.stack((w, m), axis=-1).transpose(2, 0, 1) \
        + np.moveaxis(np.stack([m, m * w], axis=1), 1, 0)


def stack3_bad(m, w):
    return np.stack([m, w])  # <-


def concat3(t, u):
    return np.concatenate([t, u], axis=1).sum(axis=1) + np.concatenate((t, t * 2.0), axis=2)[:, :, :2] \
        + np.concatenate([t, u[:, :1]], axis=1).sum() + np.concatenate([t, u], axis=None).sum()


def concat3_bad(t, u):
    return np.concatenate([t, u], axis=0)  # <-


def split_tile3(t):
    a, b = np.split(t, 2, axis=2)
    return a * b + np.tile(t, (1, 2, 1))[:, :t.shape[1]] + np.tile(t[0], (2, 1, 1)) + np.vstack([t, t])[:2] \
        + np.hstack([t, t])[:, :t.shape[1]]


@pytest.mark.parametrize("shape", [(2, 3), (1, 4), (3, 1)])
def test_stack_rank_three(shape):
    check_like_numpy(stack3, arr(*shape), arr(*shape, seed=1))
    check_like_numpy(stack3_bad, arr(*shape), arr(shape[0], shape[1] + 1, seed=1), shapes=["same shape"])


def test_concatenate_split_tile_rank_three():
    check_like_numpy(concat3, arr(2, 3, 4), arr(2, 2, 4, seed=1))
    check_like_numpy(concat3_bad, arr(2, 3, 4), arr(2, 2, 4, seed=1), shapes=["along dimension 1"])
    check_like_numpy(concat3, arr(2, 3, 4), arr(2, 2, 5, seed=1), shapes=["along dimension 2"])
    check_like_numpy(split_tile3, arr(2, 3, 4))
    check_like_numpy(split_tile3, arr(1, 1, 2))


# ---------------------------------------------------------------- np.einsum

def einsum_attention(q, k, v):
    s = np.einsum('ij,kj->ik', q, k)
    w = np.exp(s - np.max(s, axis=1, keepdims=True))
    w = w / np.sum(w, axis=1, keepdims=True)
    return np.einsum('ij,jk->ik', w, v) + np.einsum('ij->ji', q)[0, 0]


def einsum_forms(m, v):
    return np.einsum('ii->', m) + np.einsum('i,i->', v, v) + np.einsum('i,i', v, v) + np.sum(np.einsum('ii->i', m) * v) \
        + np.einsum('ij,j,i', m, v, v) + np.sum(np.einsum('ij,ik->jk', m, m) ** 2) + np.einsum('ji', m)[0, 1] \
        + np.sum(np.einsum('i,j->ij', v, v) * m) + np.sum(np.einsum('ij', m) * m)


def einsum_batched(a, b):
    return np.einsum('bij,bjk->bik', a, b) * 2.0 + np.einsum('bij,bjk->b', a, b)[:, None, None]


def einsum_rank4(a, b):
    return np.einsum('bhqd,bhkd->bhqk', a, b) + np.einsum('bhqd->bq', a)[:, None, :, None]


def einsum_mismatch(m, w):
    return np.einsum('ij,jk->ik', m, w)  # <-


def einsum_diagonal_mismatch(m):
    return np.einsum('ii->', m)  # <-


def einsum_too_many(m):
    return np.einsum('ijk->', m)  # <-


def einsum_output_twice(m):
    return np.einsum('ij->ii', m)  # <-


def einsum_operands(m):
    return np.einsum('ij,jk->ik', m)  # <-


@pytest.mark.parametrize("n", [1, 3])
def test_einsum(n):
    check_like_numpy(einsum_attention, arr(n, 2), arr(4, 2, seed=1), arr(4, 3, seed=2))
    check_like_numpy(einsum_forms, arr(n, n), arr(n, seed=1))
    check_like_numpy(einsum_batched, arr(2, n, 3), arr(2, 3, 2, seed=1))
    check_like_numpy(einsum_batched, arr(1, n, 3), arr(2, 3, 2, seed=1))  # 1 broadcasts, as NumPy's
    check_like_numpy(einsum_rank4, arr(2, 2, n, 3), arr(2, 2, 2, 3, seed=1))


def test_einsum_errors_are_numpy_s():
    check_like_numpy(einsum_mismatch, arr(2, 3), arr(2, 4, seed=1))
    check_like_numpy(einsum_batched, arr(2, 2, 3), arr(3, 3, 2, seed=1))
    check_like_numpy(einsum_diagonal_mismatch, arr(2, 3), shapes=["index 'i' don't match (2 != 3)"])
    check_like_numpy(einsum_too_many, arr(2, 3), shapes=["operand 0"])
    check_like_numpy(einsum_output_twice, arr(2, 3), shapes=["multiple times"])
    check_like_numpy(einsum_operands, arr(2, 3), shapes=["more operands"])


def einsum_ellipsis(m):
    return np.einsum('...ij->...ji', m)


def einsum_ellipsis_forms(a, v):
    return np.sum(np.einsum('...i,...i', a, a)) + np.sum(np.einsum('...i,i->...', a, v) ** 2) \
        + np.sum(np.einsum('i...', a) * 2.0) + np.einsum('...', v)[0] + np.sum(np.einsum('...i,j', a, v) ** 2)


def einsum_ellipsis_broadcast(a, b):
    return np.einsum('...ij,...jk->...ik', a, b)  # <-


def einsum_ellipsis_no_output(a):
    return np.einsum('...i->i', a)  # <-


def einsum_ellipsis_dropped(a):
    return np.einsum('...i->', a)  # <-


def einsum_ellipsis_dots(a):
    return np.einsum('..i', a)  # <-


@pytest.mark.parametrize("n", [1, 3])
def test_einsum_ellipsis(n):
    check_like_numpy(einsum_ellipsis, arr(2, n))
    check_like_numpy(einsum_ellipsis, arr(4, 2, n))
    check_like_numpy(einsum_ellipsis_forms, arr(2, n, 3), arr(3, seed=1))
    check_like_numpy(einsum_ellipsis_forms, arr(3), arr(3, seed=1))
    check_like_numpy(einsum_ellipsis_broadcast, arr(2, n, 3), arr(3, 2, seed=1))       # (3, 2) broadcasts
    check_like_numpy(einsum_ellipsis_broadcast, arr(4, 1, n, 3), arr(5, 3, 2, seed=1))  # 1 against 5
    check_like_numpy(einsum_ellipsis_no_output, arr(n))  # no axes for '...': as 'i->i'



def test_einsum_ellipsis_errors_are_numpy_s():
    check_like_numpy(einsum_ellipsis_broadcast, arr(2, 2, 3), arr(3, 3, 2, seed=1))
    check_like_numpy(einsum_ellipsis_dropped, arr(2, 3), shapes=["no '...' ellipsis"])
    check_like_numpy(einsum_ellipsis_no_output, arr(2, 3), shapes=["no '...' ellipsis"])
    check_like_numpy(einsum_ellipsis_dots, arr(3), shapes=["not part of an ellipsis"])


def inner_vdot(a, b):
    return np.sum(np.inner(a, b) ** 2) + np.vdot(a, a) * 0.5 + np.sum(np.inner(2.0, b))


def inner_only(a, b):
    return np.inner(a, b)  # <-


def vdot_only(a, b):
    return np.vdot(a, b)  # <-


@pytest.mark.parametrize("n", [1, 3])
def test_inner_and_vdot(n):
    check_like_numpy(inner_vdot, arr(n), arr(n, seed=1))
    check_like_numpy(inner_vdot, arr(2, n), arr(4, n, seed=1))
    check_like_numpy(inner_vdot, arr(2, 2, n), arr(n, seed=1))
    check_like_numpy(vdot_only, arr(2, n), arr(2 * n, seed=1))


def test_inner_and_vdot_errors_are_numpy_s():
    check_like_numpy(inner_only, arr(3), arr(4, seed=1))
    check_like_numpy(inner_only, arr(1), arr(4, seed=1))       # no broadcasting of 1
    check_like_numpy(inner_only, arr(2, 3), arr(4, 2, seed=1))
    check_like_numpy(vdot_only, arr(3), arr(4, seed=1))


# ---------------------------------------------------------------- @ on stacks of matrices

def batched_matmul(a, b):
    return (a @ b) * 2.0 + np.matmul(a, b)


def matmul_mixed(a, m, v):
    return np.sum(a @ m) + np.sum((a @ m[:, :1]) ** 2) + np.sum(a @ m[:, 0]) + np.sum(m[:, 0] @ np.swapaxes(a, 1, 2))


@pytest.mark.parametrize("sa,sb", [((2, 3, 4), (2, 4, 2)), ((1, 3, 4), (3, 4, 2)), ((2, 1, 2, 3), (3, 3, 1)),
                                   ((3, 4), (2, 4, 2)), ((2, 3, 4), (3, 4, 2))])
def test_matmul_stacks(sa, sb):
    check_like_numpy(batched_matmul, arr(*sa), arr(*sb, seed=1))


def test_matmul_stacks_core_mismatch_is_numpy_s():
    check_like_numpy(batched_matmul, arr(2, 3, 4), arr(2, 3, 2, seed=1), shapes=["size 3 is different from 4"])


def test_matmul_stacks_with_vectors_and_matrices():
    check_like_numpy(matmul_mixed, arr(2, 3, 4), arr(4, 2, seed=1), arr(4, seed=2))


# ---------------------------------------------------------------- masks: ~, &, |, ^ and np.logical_*

def masks(x, y):
    m = (x > 1.0) & ~(y > 1.0) | (x < 0.7) ^ np.logical_not(y < 0.8)
    n = np.logical_and(x > 0.9, np.logical_or(y < 0.9, x > 1.2)) | np.logical_xor(x > 1.1, y > 1.1)
    return np.where(m, x * y, 2.0 * x) + np.where(n, y, -x) + np.sum(np.logical_not(m)) \
        + np.where(np.logical_and(x, 1.0), 1.0, 0.0)


@pytest.mark.parametrize("sx,sy", [((3, 4), (3, 4)), ((2, 3, 2), (3, 2)), ((5,), (1,))])
def test_masks(sx, sy):
    check_like_numpy(masks, arr(*sx), arr(*sy, seed=1))


def invert_float(x):
    return ~x


def test_invert_of_numbers_is_refused():
    with pytest.raises(catad.UnsupportedSyntax, match="~mask") as info:
        catad.vjp(invert_float, arr(3))
    assert "test_numpy_functions.py:" in str(info.value)


def traces3(t):
    return np.trace(t) ** 2 + np.trace(t, offset=1) + np.trace(t, offset=-1)


def diag3(t):
    return np.diag(t)  # <-


def triu3(t):
    return np.triu(t)


def test_trace_of_rank_three_and_diag_s_error():
    check_like_numpy(traces3, arr(3, 3, 2))
    check_like_numpy(traces3, arr(2, 4, 1, 2))
    check_like_numpy(diag3, arr(2, 2, 2), shapes=["Input must be 1- or 2-d."])
    with pytest.raises(catad.CatadTypeError, match="stack of matrices") as info:
        catad.vjp(triu3, arr(2, 2, 2))
    assert "test_numpy_functions.py:" in str(info.value)


def fortran_orders(x):
    m = x.reshape((2, 3), order='F')
    c = np.reshape(x, (3, 2), order='C')
    f = x.reshape(3, 2, order='F').ravel(order='F')
    t = np.ravel(m, order='F')
    u = x.reshape((1, 2, -1), order='F').flatten('F')
    return (np.sum(m[0] * np.arange(3)) + np.sum(c[:, 1] * 2) + np.sum(f * np.arange(6))
            + np.sum(t * np.arange(6) ** 2) + np.sum(u * np.arange(6) ** 3))


def fortran_matrix(m):
    return m.reshape(-1, order='F') * np.arange(m.size) + np.reshape(m.T, (m.size,), order='F')


def test_reshape_in_fortran_order():
    check_like_numpy(fortran_orders, arr(6))
    check_like_numpy(fortran_matrix, arr(2, 3))
    check_like_numpy(fortran_orders, arr(5), shapes=["size 5", "shape (2,3)"])
