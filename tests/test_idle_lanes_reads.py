"""A loop over an empty list runs no pass, so Python never reads v[k] inside it, whatever k is.
catad runs a loop's passes at once (its lanes); an index that does not vary from pass to pass is
computed once for all of them, also where there are none, and the check that it is in range ran
for no lane: the read at an index out of range raised a raw IndexError from the generated code
(forward and reverse). Such a read is kept in range where the lanes around it are none
(gathers._idle_axes). The argmax of an empty generator's max, read to differentiate it, was one
(found by differential testing, session 27)."""
import numpy as np
import pytest

import catad
from located import agrees


def inner_sum(x, v, w, idx):
    return x * sum(sum(v[k] for k in idx) for e in w)


def inner_sum_times_pass(x, v, w, idx):
    return x * sum(sum(v[k] * e for k in idx) for e in w)


def loop_reads_rows(x, m, w, idx):
    total = x
    for e in w:
        for k in idx:
            total = total + m[k, 0] * x
    return total


def comprehension_of_rows(x, v, w, idx):
    return x + np.sum(np.array([[v[k] * x for k in idx] for e in w]))


CASES = [(inner_sum, np.array([1.0, 2.0, 3.0])), (inner_sum_times_pass, np.array([1.0, 2.0, 3.0])),
         (loop_reads_rows, np.ones((3, 2))), (comprehension_of_rows, np.array([1.0, 2.0, 3.0]))]


@pytest.mark.parametrize("f, v", CASES, ids=lambda c: getattr(c, "__name__", ""))
@pytest.mark.parametrize("idx", [[0, 5], [-4, 1], [7]])
def test_no_pass_reads_nothing(f, v, idx):
    args = (1.5, v, np.array([]), np.array(idx))
    agrees(f, *args, argnums=(0, 1))


@pytest.mark.parametrize("f, v", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_passes_read_out_of_range_as_python(f, v):
    args = (1.5, v, np.array([2.0]), np.array([0, 5]))
    with pytest.raises(IndexError):
        f(*args)
    with pytest.raises(catad.CatadError, match="out of range|out of bounds"):
        catad.value_and_grad(f, argnums=(0, 1))(*args)
    with pytest.raises(catad.CatadError, match="out of range|out of bounds"):
        catad.jvp(f, args, (1.0, np.zeros_like(v), np.zeros(1), np.zeros(2)))


def empty_max(x, v, m):
    return max((m[-1, 0] + v[::-1]).max() for e in v) * x


def test_max_of_no_pass_is_refused_in_both_modes():
    args = (2.0, np.array([]), np.ones((2, 3)))
    with pytest.raises(ValueError):
        empty_max(*args)
    with pytest.raises(catad.CatadError, match="empty"):
        catad.value_and_grad(empty_max)(*args)
    with pytest.raises(catad.CatadError, match="empty"):
        catad.jvp(empty_max, args, (1.0, np.array([]), np.zeros((2, 3))))
