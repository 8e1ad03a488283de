"""Indices and slices against Python and NumPy by tests/shape_oracle.py (issue 13, item 6).

Where Python or NumPy raise IndexError, catad must raise catad.BoundsError (a CatadError
and an IndexError) naming this file and the line; catad used to raise raw IndexErrors from
its generated code, or return a value (v[-5], sum(v[i] for i in range(k)) with k > len(v)).
Negative indices mean what they mean in Python (v[-1], and v[i - 1] at i = 0, is the last
element); an index in an untaken branch must not raise; slices clip and never raise;
zip stops at the shorter sequence.
"""
import numpy as np
import pytest

import catad
from shape_oracle import check_like_numpy, numpy_raises, rand


def vec(n, seed=0):
    return rand(np.random.default_rng(seed), (n,))


def mat(r, c, seed=0):
    return rand(np.random.default_rng(seed), (r, c))


# ---------------------------------------------------------------- constant indices

def index_five(v):
    return v[5] * 2.0


def index_minus_one_and_minus_three(v):
    return v[-1] * v[-3]


def index_minus_five(v):
    return v[-5] + 1.0


def index_len(v):
    return v[len(v)] * 1.0


def index_last(v):
    return v[len(v) - 1] * 3.0


def index_first(v):
    return np.sin(v[0])


@pytest.mark.parametrize("n", [0, 1, 3, 6])
@pytest.mark.parametrize("fn", [index_five, index_minus_one_and_minus_three, index_minus_five, index_len,
                                index_last, index_first], ids=lambda f: f.__name__)
def test_constant_indices(fn, n):
    check_like_numpy(fn, vec(n))


# ---------------------------------------------------------------- indices from arguments

def index_by_arg(v, k):
    return v[k] * v[0]


def row_by_arg(m, k):
    return np.sum(m[k] ** 2)


@pytest.mark.parametrize("k", [0, 2, 3, 7, -1, -3, -4])
def test_index_by_int_argument(k):
    check_like_numpy(index_by_arg, vec(3), k)


@pytest.mark.parametrize("k", [0, 1, 2, -1, -2, -3])
def test_row_by_int_argument(k):
    check_like_numpy(row_by_arg, mat(2, 3), k)


# ---------------------------------------------------------------- comprehensions

def dot_by_index(v, w):
    return sum(v[i] * w[i] for i in range(len(v)))


def first_k(v, k):
    return sum(v[i] for i in range(k))


def first_k_squares(v, k):
    return np.sum(np.array([v[i] ** 2 for i in range(k)]))


def forward_differences(v):
    return sum((v[i + 1] - v[i]) ** 2 for i in range(len(v)))


def forward_differences_ok(v):
    return sum((v[i + 1] - v[i]) ** 2 for i in range(len(v) - 1))


def cyclic_products(v):
    return sum(v[i - 1] * v[i] * (i + 1.0) for i in range(len(v)))


def guarded_next(v):
    return sum((v[i + 1] if i + 1 < len(v) else 0.0) * v[i] for i in range(len(v)))


def guarded_next_else_first(v):
    return sum(v[i] * (v[i + 1] if i < len(v) - 1 else v[0]) for i in range(len(v)))


def next_or_zero(v, i):
    if i + 1 < len(v):
        return v[i + 1]
    return 0.0


def guarded_by_helper(v):
    return sum(next_or_zero(v, i) * v[i] for i in range(len(v)))


def guarded_previous(v):
    return sum((v[i - 2] if i >= 2 else 1.0) * v[i] for i in range(len(v)))


def enumerate_against(v, w):
    return sum(x * w[i] for i, x in enumerate(v))


def zip_truncates(v, w):
    return sum(x * y for x, y in zip(v, w))


def max_of_first_k(v, k):
    return max(v[i] * 1.0 for i in range(k))


def test_comprehension_over_range_len():
    check_like_numpy(dot_by_index, vec(3), vec(3, 1))
    check_like_numpy(dot_by_index, vec(3), vec(5, 1))  # w longer: Python reads only w[:3]
    check_like_numpy(dot_by_index, vec(4), vec(3, 1))  # w shorter: w[3] is out of range
    check_like_numpy(dot_by_index, vec(0), vec(2, 1))


@pytest.mark.parametrize("k", [0, 2, 3, 4, 10])
def test_range_of_int_argument(k):
    check_like_numpy(first_k, vec(3), k)
    check_like_numpy(first_k_squares, vec(3), k)
    if k > 0:
        check_like_numpy(max_of_first_k, vec(3), k)


@pytest.mark.parametrize("n", [1, 2, 4])
def test_next_element_runs_off_the_end(n):
    check_like_numpy(forward_differences, vec(n))
    check_like_numpy(forward_differences_ok, vec(n))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_previous_element_wraps_like_python(n):
    check_like_numpy(cyclic_products, vec(n))


@pytest.mark.parametrize("fn", [guarded_next, guarded_next_else_first, guarded_by_helper, guarded_previous],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("n", [1, 2, 5])
def test_index_in_untaken_branch_does_not_raise(fn, n):
    check_like_numpy(fn, vec(n))


def test_enumerate_and_zip():
    check_like_numpy(enumerate_against, vec(3), vec(3, 1))
    check_like_numpy(enumerate_against, vec(3), vec(2, 1))
    check_like_numpy(zip_truncates, vec(3), vec(4, 1))
    check_like_numpy(zip_truncates, vec(4), vec(3, 1))


# ---------------------------------------------------------------- matrices

def element_chained(m):
    return m[1][2] * 2.0


def element_tuple(m):
    return m[1, 2] * 2.0


def element_negative(m):
    return m[-1, -1] - m[0, -3]


def row_two(m):
    return np.sum(m[2])


def matvec_by_index(m, v):
    return sum(sum(m[i, j] * v[j] for j in range(len(v))) ** 2 for i in range(m.shape[0]))


def matvec_by_shape(m, v):
    return sum(sum(m[i][j] * v[j] for j in range(m.shape[1])) ** 2 for i in range(m.shape[0]))


def transpose_by_index(m):
    return np.array([[m[j, i] for j in range(m.shape[0])] for i in range(m.shape[1])])


def transpose_wrong_bounds(m):
    return np.array([[m[i, j] for j in range(m.shape[0])] for i in range(m.shape[1])])


@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (2, 2), (3, 2), (1, 3)], ids=str)
@pytest.mark.parametrize("fn", [element_chained, element_tuple, element_negative, row_two, transpose_by_index,
                                transpose_wrong_bounds], ids=lambda f: f.__name__)
def test_matrix_elements(fn, shape):
    check_like_numpy(fn, mat(*shape))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_matrix_vector_by_index(n):
    check_like_numpy(matvec_by_index, mat(2, 3), vec(n, 1))
    check_like_numpy(matvec_by_shape, mat(2, 3), vec(n, 1))


# ---------------------------------------------------------------- slices clip, never raise

def slice_by_args(v, a, b):
    return np.sum(v[a:b] ** 2)


def slice_constant_past_end(v):
    return np.sum(v[1:10] ** 2)


def slice_constant_before_start(v):
    return np.sum(v[-10:2] * 3.0)


def slice_empty(v):
    return np.sum(v[5:7]) + v[0]


def slice_prefix(v, k):
    return np.sum(np.sin(v[:k]))


def slice_rows(m):
    return np.sum(m[1:5] ** 2)


def slice_difference(v):
    return np.sum((v[1:] - v[:-1]) ** 2)


def slice_mismatch(v):
    return np.sum((v[1:] - v[:3]) ** 2)


@pytest.mark.parametrize("a,b", [(0, 3), (1, 10), (-10, 2), (5, 7), (2, 1), (-2, 3), (-1, -5), (0, -1)])
def test_slices_with_argument_bounds_clip(a, b):
    check_like_numpy(slice_by_args, vec(3), a, b)


@pytest.mark.parametrize("fn", [slice_constant_past_end, slice_constant_before_start, slice_empty, slice_rows,
                                slice_difference], ids=lambda f: f.__name__)
def test_constant_slices_clip(fn):
    check_like_numpy(fn, mat(3, 2) if fn is slice_rows else vec(3))


@pytest.mark.parametrize("k", [0, 2, 3, 8, -1, -8])
def test_slice_prefix_by_argument(k):
    check_like_numpy(slice_prefix, vec(3), k)


@pytest.mark.parametrize("n", [3, 4])
def test_slice_lengths_feed_broadcasting(n):
    """v[1:] - v[:3]: fine for len 4, shapes (2,) and (3,) for len 3 (a ShapeError)."""
    check_like_numpy(slice_mismatch, vec(n))


# ---------------------------------------------------------------- integer-array indices

def take(v, idx):
    return np.sum(np.exp(v[idx]) * (np.arange(len(idx)) + 1.0))


def take_rows(m, idx):
    return np.sum(np.tanh(m[idx]))


def take_columns(m, idx):
    return np.sum(m[:, idx] ** 2)


@pytest.mark.parametrize("idx", [[0, 2, 1], [2, 2], [-1, 0], [-3], [3], [0, 5], [-4], [1, -4]], ids=str)
def test_integer_array_index(idx):
    check_like_numpy(take, vec(3), np.array(idx))


@pytest.mark.parametrize("idx", [[1, 0], [-2], [2], [0, -3]], ids=str)
def test_integer_array_rows_and_columns(idx):
    check_like_numpy(take_rows, mat(2, 3), np.array(idx))
    check_like_numpy(take_columns, mat(3, 2), np.array(idx))


# ---------------------------------------------------------------- the error class

def test_bounds_error_is_an_index_error_and_a_catad_error():
    with pytest.raises(IndexError) as info:
        catad.grad(index_five)(vec(3))
    assert isinstance(info.value, catad.BoundsError)
    assert isinstance(info.value, catad.CatadError)


def test_cases_have_both_outcomes():
    """The cases above are not vacuous: Python raises for some and not for others."""
    assert numpy_raises(index_minus_five, vec(3)) is IndexError
    assert numpy_raises(index_minus_five, vec(5)) is None
    assert numpy_raises(first_k, vec(3), 4) is IndexError
    assert numpy_raises(guarded_next, vec(3)) is None
    assert numpy_raises(slice_by_args, vec(3), 5, 7) is None


def _reads_out_of_range_in_loop(m, v):
    s = 0.0
    for row in m:
        s = s + v[5] * row[0]
    return s


def _reads_out_of_range_in_comprehension(m, v):
    return sum(v[5] * m[i, 0] for i in range(len(m)))


@pytest.mark.parametrize("fn", [_reads_out_of_range_in_loop, _reads_out_of_range_in_comprehension])
def test_an_index_in_a_loop_that_does_not_run_is_never_evaluated(fn):
    # Python evaluates v[5] only when the loop runs: with no rows nothing raises, in the primal,
    # grad and jvp (the index is the same for every iteration, so the compiled code reads it
    # once, before the loop: it must not fail there)
    empty, v = np.zeros((0, 2)), np.ones(3)
    assert fn(empty, v) == 0.0
    value, (gm, gv) = catad.value_and_grad(fn, (0, 1))(empty, v)
    assert value == 0.0 and gm.shape == (0, 2) and not gv.any()
    assert catad.jvp(fn, (empty, v), (empty, v)) == (0.0, 0.0)
    with pytest.raises(catad.BoundsError, match="index 5 is out of bounds"):
        catad.grad(fn)(np.ones((2, 2)), v)
