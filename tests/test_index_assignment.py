"""Assignment through integer index arrays and boolean masks on arrays the function made
(catad/frontend/index_updates.py): a[idx] = v, m[rows, cols] = v, m[i, cols] = v, a[mask] = v and
their augmented forms, with NumPy's meaning (repeated indices: the last write is kept, and
a[idx] += v adds once per position, not np.add.at); np.triu/np.diag of Bools stay Bools.

Every value is checked against calling the function itself, every gradient against central
differences (forward and reverse), every error against the one NumPy raises."""

import numpy as np
import pytest

import catad
from catad import BoundsError, CatadError, CatadTypeError, ShapeError, UnsupportedSyntax
from catad.frontend import compile_function
from located import agrees, refused

RNG = np.random.default_rng(16)


def same_error(f, *args, cls=CatadError):
    """catad raises what NumPy raises when f runs: the same class of Python error, the same message."""
    with pytest.raises(Exception) as numpy_error:
        f(*args)
    with pytest.raises(cls) as ours:
        catad.grad(f)(*args)
    python_class = IndexError if isinstance(numpy_error.value, IndexError) else ValueError
    assert isinstance(numpy_error.value, python_class) and isinstance(ours.value, python_class)
    assert str(numpy_error.value).strip() in str(ours.value), (str(numpy_error.value), str(ours.value))
    assert ours.value.loc is not None and ours.value.loc.file == __file__
    return ours.value


# ---------------------------------------------------------------- one index array

def put_vector(x, idx, v):
    a = x * 2.0
    a[idx] = v
    return np.sum(a * np.arange(1.0, len(a) + 1.0) * x)


def test_an_index_array_keeps_the_last_write_and_differentiates_as_a_scatter():
    x, v = RNG.normal(size=6), RNG.normal(size=5)
    for idx in (np.array([1, 3, 1, -1, 4]), np.array([0, 1, 2, 3, 4]), np.array([2, 2, 2, 2, 2])):
        agrees(put_vector, x, idx, v, argnums=(0, 2))
    # a value written over gets no derivative: only the last of the repeated index 2 counts
    g = catad.grad(put_vector, argnums=2)(x, np.array([2, 2, 2, 2, 2]), v)
    assert np.all(g[:4] == 0.0) and g[4] != 0.0


def put_scalar(x, idx):
    a = np.sin(x)
    a[idx] = x[0] ** 2
    return np.sum(a * a)


def test_a_scalar_is_written_at_every_index():
    x = RNG.normal(size=5)
    agrees(put_scalar, x, np.array([4, 0, 2]))
    agrees(put_scalar, x, np.array([], dtype=int))  # nothing written


def add_at(x, idx, v):
    a = x ** 2
    a[idx] += v * x[0]
    return np.sum(a * np.cos(x))


def test_augmented_assignment_adds_once_per_position_not_np_add_at():
    x, v = RNG.normal(size=5), RNG.normal(size=4)
    idx = np.array([1, 1, 3, 1])
    agrees(add_at, x, idx, v, argnums=(0, 2))
    a = x ** 2
    a[[1, 3]] += v[[3, 2]] * x[0]  # the last write of each position
    assert catad.value_and_grad(add_at)(x, idx, v)[0] == pytest.approx(np.sum(a * np.cos(x)), rel=1e-12)


def put_rows(m, idx, rows):
    a = m * 1.0
    a[idx] = rows
    b = m * 1.0
    b[idx, :] = rows * 2.0
    return np.sum(a * b * m)


def test_rows_of_a_matrix_and_a_trailing_full_slice():
    m, rows = RNG.normal(size=(4, 3)), RNG.normal(size=(2, 3))
    agrees(put_rows, m, np.array([3, 0]), rows, argnums=(0, 2))
    agrees(put_rows, m, np.array([1, 1]), rows, argnums=(0, 2))


def put_broadcast_row(m, idx, row):
    a = np.exp(m)
    a[idx] = row  # one row for every index
    return np.sum(a ** 2)


def test_the_value_broadcasts_to_the_indexed_shape():
    m = RNG.normal(size=(4, 3))
    agrees(put_broadcast_row, m, np.array([0, 2]), RNG.normal(size=3), argnums=(0, 2))


# ---------------------------------------------------------------- two index arrays, an int and an array

def label_smoothing(logits, labels, eps=0.1):
    n, k = logits.shape
    target = np.full((n, k), eps / k)
    target[np.arange(n), labels] += 1.0 - eps
    z = logits - np.max(logits, axis=1, keepdims=True)
    return -np.sum(target * (z - np.log(np.sum(np.exp(z), axis=1, keepdims=True)))) / n


def test_label_smoothing_targets():
    logits, labels = RNG.normal(size=(5, 4)), RNG.integers(0, 4, size=5)
    agrees(label_smoothing, logits, labels)
    agrees(label_smoothing, logits, np.array([0, -1, 3, -4, 2]))


def put_pairs(m, rows, cols, v):
    q = np.diag(np.exp(m[0]))
    q[rows, cols] = v * m[1, 0]
    return np.sum(q * m[:3, :3].T) + np.sum(q ** 2)


def test_two_index_arrays_write_pairs():
    m, v = RNG.normal(size=(3, 3)), RNG.normal(size=3)
    rows, cols = np.tril_indices(3, -1)
    agrees(put_pairs, m, rows, cols, v, argnums=(0, 3))
    agrees(put_pairs, m, np.array([1, 1, 1]), np.array([0, 0, 0]), v, argnums=(0, 3))  # one position, thrice
    agrees(put_pairs, m, np.array([2]), np.array([0, 1, 2]), v, argnums=(0, 3))  # broadcast indices


def put_tuple(m, v):
    q = m * 2.0
    q[np.triu_indices(3, 1)] = v
    return np.sum(q * m)


def test_a_tuple_of_index_arrays():
    agrees(put_tuple, RNG.normal(size=(3, 3)), RNG.normal(size=3), argnums=(0, 1))


def put_in_row(m, cols, v, i):
    q = m * 1.0
    q[i, cols] = v
    q[cols, i] = -v
    return np.sum(q * m)


def test_an_int_beside_an_index_array():
    m, v = RNG.normal(size=(4, 4)), RNG.normal(size=2)
    agrees(put_in_row, m, np.array([3, 1]), v, 2, argnums=(0, 2))
    agrees(put_in_row, m, np.array([0, -1]), v, -1, argnums=(0, 2))


def scatter_in_loop(w, idx):
    total = 0.0
    for j in range(w.shape[0]):
        q = np.zeros((3, 3))
        q[idx, idx] = w[j, :2] ** 2
        q[idx[0], :] = w[j]
        total = total + np.sum(q * np.arange(9.0).reshape(3, 3))
    return total


def test_an_assignment_through_an_index_array_in_a_loop():
    agrees(scatter_in_loop, RNG.normal(size=(4, 3)), np.array([2, 0]))


# ---------------------------------------------------------------- boolean masks

def ctmc_rates(log_rates, x):
    n = x.shape[0]
    R = np.zeros((n, n))
    R[~np.eye(n, dtype=bool)] = np.exp(log_rates)
    Q = R - np.diag(R.sum(axis=1))
    return np.sum(Q * x) + np.sum(Q ** 2)


def test_a_mask_writes_its_true_positions_in_order():
    n = 4
    agrees(ctmc_rates, RNG.normal(size=n * (n - 1)), RNG.normal(size=(n, n)), argnums=(0, 1))


def clip_mask(x, c):
    y = x * c
    y[y > 0.5] = c ** 2  # one value for every true position
    y[x < -0.5] += 1.0 - c
    return np.sum(y ** 3)


def test_a_mask_with_one_value_and_augmented():
    x = RNG.normal(size=(3, 4))
    agrees(clip_mask, x, 1.3, argnums=(0, 1))
    agrees(clip_mask, np.zeros((3, 4)), 1.3, argnums=(0, 1))  # no true position


def mask_vector(x, v):
    y = np.cos(x)
    y[x > 0] = v
    return np.sum(y * x)


def test_a_mask_with_one_value_per_true_position():
    x = np.array([0.5, -1.0, 2.0, 0.1, -0.3])
    agrees(mask_vector, x, RNG.normal(size=3), argnums=(0, 1))
    agrees(mask_vector, x, RNG.normal(size=1), argnums=(0, 1))  # a length-1 value broadcasts


# ---------------------------------------------------------------- NumPy's errors

def test_numpy_s_errors_at_run_time():
    x = RNG.normal(size=6)
    e = same_error(put_vector, x, np.array([1, 7]), RNG.normal(size=2), cls=BoundsError)
    assert "index 7 is out of bounds for axis 0 with size 6" in str(e)
    same_error(put_vector, x, np.array([1, -7]), RNG.normal(size=2), cls=BoundsError)
    same_error(put_vector, x, np.array([1, 2]), RNG.normal(size=3), cls=ShapeError)
    m = RNG.normal(size=(3, 3))
    same_error(put_pairs, m, np.array([0, 1]), np.array([0, 1, 2]), RNG.normal(size=2), cls=BoundsError)
    same_error(put_pairs, m, np.array([0, 1]), np.array([0, 3]), RNG.normal(size=2), cls=BoundsError)
    x5 = np.array([0.5, -1.0, 2.0, 0.1, -0.3])
    same_error(mask_vector, x5, RNG.normal(size=2), cls=ShapeError)


def mask_mismatch(x, y):
    a = x * 1.0
    a[y > 0] = 0.0
    return np.sum(a)


def test_a_mask_of_another_length_is_numpy_s_index_error():
    same_error(mask_mismatch, RNG.normal(size=5), RNG.normal(size=4), cls=BoundsError)
    same_error(mask_mismatch, RNG.normal(size=(3, 4)), RNG.normal(size=(3, 3)), cls=BoundsError)


def value_of_rank_two(x):
    a = x * 1.0
    a[x > 0] = np.ones((2, 1))  # ERR
    return np.sum(a)


def mask_of_rows(m):
    a = m * 1.0
    a[m[:, 0] > 0] = 0.0  # ERR
    return np.sum(a)


def slice_beside_array(m, idx):
    a = m * 1.0
    a[idx, 1:] = 0.0  # ERR
    return np.sum(a)


def float_into_ints(x, idx):
    a = np.arange(5)
    a[idx] += 0.5  # ERR
    return np.sum(a * x)


def parameter_changed(x, idx):
    x[idx] = 0.0  # ERR
    return np.sum(x)


def test_located_refusals():
    x, m = RNG.normal(size=4), RNG.normal(size=(3, 3))
    refused(value_of_rank_two, (x,), "requires a 0 or 1-dimensional input, input has 2 dimensions", cls=CatadTypeError)
    refused(mask_of_rows, (m,), "mask of rank 1 on an array of rank 2", "np.where", cls=UnsupportedSyntax)
    refused(slice_beside_array, (m, np.array([0])), "a slice beside an index array", cls=UnsupportedSyntax)
    refused(float_into_ints, (x, np.array([0])), "Float", "Int", cls=CatadTypeError)
    refused(parameter_changed, (x, np.array([0])), "the caller passed", cls=UnsupportedSyntax)


# ---------------------------------------------------------------- masks made with dtype=bool

def causal(x):
    t = x.shape[0]
    mask = np.triu(np.ones((t, t), dtype=bool), k=1)
    low = np.tril(np.ones((t, t), dtype=bool))
    d = np.diag(np.diag(low))
    return np.sum(np.where(mask, -1.0, x) * np.where(d, 2.0, 1.0)) + np.sum(np.where(low, x, 0.0) ** 2)


def test_triu_tril_and_diag_of_bools_stay_bools():
    x = RNG.normal(size=(4, 4))
    agrees(causal, x)
    from catad.lang.types import Bool, Vec
    from catad.lang.terms import Var
    body = compile_function(causal, (x,)).defs[-1].body
    assert body is not None
    assert np.triu(np.ones((2, 2), dtype=bool)).dtype == bool  # NumPy's, which catad follows
    assert Vec(Vec(Bool)) in {v.type for v in _vars(body)}


def _vars(t):
    from catad._node import walk
    from catad.lang.terms import Let
    return [n.var for n in walk(t) if isinstance(n, Let)]
