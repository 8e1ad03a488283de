"""Two older silent wrong answers a review found (more code reached them once lists of matrices
were arrays), and what it found beside them:

- xs[i] = v of a list was NumPy's broadcasting store into the old item, where Python puts v there
  as it is: L = [m * x, m]; L[0] = m[0] * x gave 9.3 where Python gives 4.1. An item of another
  rank, or of another kind (a list among arrays), is refused; of another shape, refused when the
  function runs; a slice assigned as many items as it has (else refused when it runs: Python's
  list would change its length); a tuple index is Python's TypeError.
- A comprehension whose elements are arrays of lengths that depend on its variable ([m[0, :k] for
  k in ...], [x * np.ones(k) for k in ...]) was taken for an array of the longest, the shorter
  padded with zeros (len(L[0]) gave 2 where Python gives 1); it is refused.
- sum(rows, start) of lists with an array start adds them to it as NumPy does (a value, where the
  first fix refused it); -r, abs(r), r > 0.5 of a comprehension's row of a list catad cannot tell
  are refused (elementwise, where Python raises TypeError for a list).

Oracle: the function itself."""
import numpy as np
import pytest

import catad
from catad import CatadError
from located import agrees, refused

M = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def row_of_another_rank(x, m):
    mats = [m * x, m]
    mats[0] = m[0] * x  # ERR
    return np.sum(mats[0]) + len(mats[0])


def number_among_arrays(x, m):
    rows = [m[0] * x, m[1]]
    rows[0] = x  # ERR
    return np.sum(rows[0]) * 1.0


@pytest.mark.parametrize("f", [row_of_another_rank, number_among_arrays], ids=lambda f: f.__name__)
def test_an_item_of_another_kind_refused(f):
    f(0.7, M)  # Python's list holds it
    refused(f, (0.7, M), "one kind")


def column_for_a_matrix(x, m):
    mats = [m * x, m]
    mats[0] = m[:, :1] * x
    return np.sum(mats[0]) + len(mats[0])


def shorter_list(x, m):
    rows = [[x, 1.0], [2.0, x]]
    rows[0] = [x]
    return np.sum(rows[0]) + len(rows[0])


def fewer_items(x, m):
    rows = [m[0] * x, m[1], m[2]]
    rows[0:2] = [m[0] * x]
    return len(rows) * x + np.sum(rows[1])


@pytest.mark.parametrize("f", [column_for_a_matrix, shorter_list, fewer_items], ids=lambda f: f.__name__)
def test_an_item_of_another_shape_refused_when_it_runs(f):
    f(0.7, M)
    with pytest.raises(CatadError, match="list"):
        catad.value_and_grad(f)(0.7, M)


def tuple_index(x, m):
    rows = [[x, 1.0], [2.0, x]]
    rows[0, 1] = 5.0
    return sum(rows[0])


def test_a_tuple_index_of_a_list_is_pythons_type_error():
    with pytest.raises(TypeError, match="list indices"):
        tuple_index(0.7, M)
    with pytest.raises(TypeError, match="list indices"):
        catad.grad(tuple_index)(0.7, M)


def items_of_one_shape(x, m):
    mats = [m * x, m]
    mats[1] = np.sin(m) * x
    rows = [m[0] * x, m[1]]
    rows[1] = m[2]
    slots = [x, 1.0, 2.0]
    slots[1:] = [x * 3.0, 4.0]
    return np.sum(mats[0] * mats[1]) + np.sum(rows[0] * rows[1]) + sum(slots)


def test_items_of_one_shape_assigned():
    agrees(items_of_one_shape, 0.7, M)


def prefixes(x, m):
    heads = [m[0, :k] * x for k in range(1, 3)]  # ERR
    return np.sum(np.array(heads))


def ones(x, m):
    rows = [x * np.ones(k) for k in range(1, 3)]  # ERR
    return len(rows[0]) * x


def tails(x, m):
    rows = [m[0, k:] * x for k in range(2)]  # ERR
    return np.sum(rows[1])


def triangle(x, m):
    rows = [[x * j for j in range(k)] for k in range(1, 3)]  # ERR
    return len(rows[0]) * x


@pytest.mark.parametrize("f", [prefixes, ones, tails, triangle], ids=lambda f: f.__name__)
def test_elements_of_several_lengths_refused(f):
    refused(f, (0.7, M), "lengths depend on the loop's variable")


def elements_of_one_length(x, m):
    sums = [np.sum(m[0, :k]) * x for k in range(1, 3)]
    rows = [m[k] * x + m[0, :2] for k in range(3)]
    shifted = [m + k * np.eye(3, 2) * x for k in range(2)]
    return sum(sums) + np.sum(np.array(rows)) + np.sum(shifted[1])


def test_elements_of_one_length_kept():
    agrees(elements_of_one_length, 0.7, M)


def onto_an_array(x, m):
    rows = [[x, 1.0], [2.0, x]]
    return np.sum(sum(rows, np.zeros(2))) + np.sum(sum((r for r in rows), np.ones(2) * x))


def test_lists_summed_onto_an_array():
    agrees(onto_an_array, 0.7, M)


def negated_rows(x, m):
    rows = [[x, 1.0], [2.0, x]] if x > 0 else [m[0] * x, m[1]]
    return np.sum([-r for r in rows][0])  # ERR


def test_a_row_of_either_kind_negated_refused():
    with pytest.raises(TypeError):
        negated_rows(0.7, M)
    refused(negated_rows, (0.7, M), "list")
