"""Indexing by a boolean mask (v[v > 0], m[m > 0], m[:, keep], m[rows_kept], v[[True, False, ...]])
and np.flatnonzero, np.nonzero, a.nonzero(), np.where(c) of one argument: the elements where the
mask is true, in C order, a length known when the function runs (the `flatnonzero` primitive).
catad refused them. Each function is called itself: values, gradients and jvps against it and
central differences; NumPy's IndexError for a mask of another shape; the reference semantics
(catad.lang.evaluate) against the compiled code."""
import numpy as np
import pytest

import catad
from catad.frontend import compile_with_reads
from catad.lang.evaluate import evaluate
from backend_programs import Programs, agree_at_two_points
from located import agrees, outcome, raises_like_python

V = np.array([0.9, -0.4, 1.7, 0.2, -1.3, 0.6])
M = np.array([[0.9, -0.4, 1.7], [0.2, -1.3, 0.6]])


def vector_mask(v):
    return np.sum(v[v > 0.5] ** 2)


def matrix_mask(m):
    return np.sum(np.sin(m[m > 0.0]) * 2.0)


def columns_kept(m):
    return np.sum(m[:, m[0] > 0.0] ** 2)


def rows_kept(m):
    return np.sum(m[m[:, 2] > 1.0] * 3.0)


def row_then_mask(m):
    return np.sum(m[1, m[0] > 0.0] ** 3)


def mask_of_a_full_matrix_slice(m):
    return np.sum(m[m[:, 0] < 0.5, :] ** 2)


def list_of_bools(v):
    return np.sum(v[[True, False, True, True, False, True]] * v[0])


def selected_then_sliced(v):
    w = v[v > 0.0]
    return np.sum(w * w[::-1]) + w[-1]


def int_array_masked(v):
    k = np.arange(6)
    return np.sum(v * np.sum(k[k % 2 == 1]))


def nothing_selected(v):
    return np.sum(v[v > 100.0]) + np.sum(v)


def where_of_one(v):
    idx = np.where(v > 0.0)[0]
    return np.sum(v[idx] ** 2) + idx.sum()


def nonzero_pairs(m):
    rows, cols = np.nonzero(m > 0.0)
    return np.sum(m[rows, cols] * 2.0) + np.sum(rows * 10 + cols)


def nonzero_as_index(m):
    return np.sum(m[np.nonzero(m > 0.0)] ** 2)


def flatnonzero_of_numbers(v):
    return np.sum(v[np.flatnonzero(np.round(v))] * 2.0)


def method_nonzero(v):
    return np.sum(v[(v < 0.5).nonzero()] * 3.0)


def masked_rows_in_a_loop(m):
    s = 0.0
    for i in range(m.shape[0]):
        s += np.sum(m[i][m[i] > 0.0] ** 2)
    return s


def masked_rows_in_a_generator(m):
    return sum(np.sum(np.exp(r[r < 1.0])) for r in m)


CASES = [(vector_mask, V), (matrix_mask, M), (columns_kept, M), (rows_kept, M), (row_then_mask, M),
         (mask_of_a_full_matrix_slice, M), (list_of_bools, V), (selected_then_sliced, V), (int_array_masked, V),
         (nothing_selected, V), (where_of_one, V), (nonzero_pairs, M), (nonzero_as_index, M),
         (flatnonzero_of_numbers, V), (method_nonzero, V), (masked_rows_in_a_loop, M), (masked_rows_in_a_generator, M)]


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_as_python(f, x):
    agrees(f, x)


@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_reference_semantics(f, x):
    program, reads, _ = compile_with_reads(f, (x,), None, with_tree=True)
    assert evaluate(program, x, *reads.current()) == pytest.approx(f(x), rel=1e-12)


def test_hessian():
    h = catad.hessian(vector_mask)(V)
    np.testing.assert_allclose(h, np.diag(2.0 * (V > 0.5)))


def shorter_mask(v):
    return np.sum(v[np.array([True, False, True])])


def mask_of_other_columns(m):
    return np.sum(m[np.ones((2, 2), dtype=bool)])


def column_mask_of_other_length(m):
    return np.sum(m[:, m[:, 0] > 0.0])


def mask_on_a_list(v):
    l = [v[0], v[1]]
    return np.sum(l[np.array([True, False])])


@pytest.mark.parametrize("f, x", [(shorter_mask, V), (mask_of_other_columns, M), (column_mask_of_other_length, M),
                                  (mask_on_a_list, V)], ids=lambda a: getattr(a, "__name__", ""))
def test_raises_as_python(f, x):
    assert raises_like_python(outcome(f, x), f, x)


@pytest.mark.parametrize("vectorise", [True, False], ids=["vectorised", "loops"])
@pytest.mark.parametrize("f, x", CASES, ids=[f.__name__ for f, _ in CASES])
def test_compiled_programs_agree_with_the_reference(f, x, vectorise):
    """The primal, forward and reverse programs compiled against catad's reference semantics (at -x:
    other counts of true elements)."""
    agree_at_two_points(f, x, -x, vectorise, 13)


def test_whole_array_code():
    """A mask outside loops is np.flatnonzero once and a gather: no Python loop, and no bounds
    check per element (the check that the mask has the axis's shape proves the positions)."""
    p = Programs(vector_mask, (V,))
    assert p.loops() == []
    assert all("np.flatnonzero(" in c.source for c in p.all)


def empty_mask(v, w):
    return np.sum(v[w > 0.0] ** 2) + np.sum(v)


def empty_mask_of_columns(m, w):
    return np.sum(m[:, w > 0.0]) + np.sum(m * 2.0)


def empty_mask_assigned(v, w):
    u = v * 1.0
    u[w > 0.0] = 0.0
    return np.sum(u ** 2)


@pytest.mark.parametrize("f, x", [(empty_mask, V), (empty_mask_of_columns, M), (empty_mask_assigned, V)],
                         ids=lambda a: getattr(a, "__name__", ""))
@pytest.mark.parametrize("w", [np.zeros(0), np.array([1.0, -1.0]), np.array([1.0, -1.0, 2.0])],
                         ids=["empty", "short", "three"])
def test_a_mask_of_no_elements_selects_nothing(f, x, w):
    """NumPy takes a boolean index of no elements as selecting nothing, whatever the axis's length
    (catad raised its IndexError); another length than the axis's raises it."""
    if not raises_like_python(outcome(f, x, w), f, x, w):
        agrees(f, x, w)


A4 = np.arange(36.0).reshape(3, 3, 2, 2) / 10.0
B3 = np.array([True, False, True])


def mask_after_a_slice_before_an_integer(a):
    return np.sum(a[:, B3, :, 0] * np.arange(12.0).reshape(2, 3, 2))


def integers_after_a_slice_before_an_integer(a):
    return np.sum(a[:, np.array([0, 2]), :, 0] * np.arange(12.0).reshape(2, 3, 2))


def test_advanced_axes_moved_first_are_refused():
    """A slice before the array index, an integer after it: NumPy puts the indexed axes first (a
    (2, 3, 2) result here), catad kept them in place (a (3, 2, 2) one, transposed values where the
    shapes agree): refused."""
    for f in (mask_after_a_slice_before_an_integer, integers_after_a_slice_before_an_integer):
        with pytest.raises(catad.CatadError, match="moves NumPy's result axes first"):
            catad.grad(f)(A4)


def integer_then_mask_then_slice_then_integer(a):
    return np.sum(a[0, B3, :, 1] * np.arange(4.0).reshape(2, 2))


def test_advanced_axes_first_in_place_too():
    """No slice before the array index: NumPy's axes first are where catad puts them (refused before)."""
    agrees(integer_then_mask_then_slice_then_integer, A4)


def assigned_into_a_selection(v):
    w = v[v > 0.0]
    w[0] = 5.0
    return np.sum(w * v[:len(w)]) + np.sum(v)


def augmented_into_a_gather(v):
    w = v[np.array([2, 0])]
    w += 1.0
    return np.sum(w ** 2) + np.sum(v ** 2)


def rows_selected_then_assigned(m):
    w = m[m[:, 0] > 0.0]
    w[:, 0] = 0.0
    return np.sum(w * 2.0) + np.sum(m)


@pytest.mark.parametrize("f, x", [(assigned_into_a_selection, V), (augmented_into_a_gather, V),
                                  (rows_selected_then_assigned, M.T)], ids=lambda a: getattr(a, "__name__", ""))
def test_a_selection_is_a_copy(f, x):
    """Indexing by a mask or an integer array copies (NumPy's advanced indexing): the name given it
    owns it, and assigning into it is supported (it was refused as a possible alias)."""
    agrees(f, x)


def matrix_mask(m, w):
    return np.sum(m[w > 0.0] * 2.0) + np.sum(m)


@pytest.mark.parametrize("w", [np.zeros((0, 3)), np.zeros((2, 0)), np.zeros((0, 0)), np.zeros((0, 5)),
                               np.zeros((1, 0))], ids=lambda w: str(w.shape))
def test_a_mask_of_no_elements_axis_by_axis(w):
    """NumPy lets an axis of a mask differ from the array's only where the mask's is 0: (0, 5) on a
    (2, 3) array raises IndexError along axis 1, (1, 0) along axis 0 (catad gave 0.0 for any empty mask)."""
    if not raises_like_python(outcome(matrix_mask, M, w), matrix_mask, M, w):
        agrees(matrix_mask, M, w)
