"""np.argsort(v) of a vector with the default kind (numpy_signal._untied): the stable order,
checked when the function runs to hold no two equal values (two NaNs count as equal), where every
algorithm gives that order; with equal values, refused when the function runs (the default kind
orders them as it happens to). Rank 2 or more with the default kind is refused while compiling.
Oracle: the user's function itself (located.agrees). On main every default-kind argsort was
refused while compiling."""
import numpy as np
import pytest

import catad
from located import agrees, refused


def weighted_by_rank(x):
    k = np.argsort(x)
    return np.sum(x[k] * np.arange(len(x)))


def first_index(x):
    return float(np.argsort(x * 2.0)[0]) * x[0] + float(np.argsort(-x, kind="quicksort")[-1])


@pytest.mark.parametrize("f", [weighted_by_rank, first_index])
@pytest.mark.parametrize("x", [np.array([0.3, -0.7, 1.1, 0.4, -1.6, 0.0]), np.array([2.0]), np.array([-0.0, 1.0, 5.0])])
def test_without_equal_values(f, x):
    agrees(f, x)


@pytest.mark.parametrize("x", [np.array([1.0, 1.0, 2.0]), np.array([np.nan, 0.5, np.nan]), np.array([0.0, -0.0, 3.0])])
def test_equal_values_refused_when_it_runs(x):
    with pytest.raises(catad.CatadError, match="np.argsort\\(\\) of values holding equal values"):
        catad.grad(weighted_by_rank)(x)


def of_a_matrix(m):
    return float(np.argsort(m)[0, 0]) * m[0, 0]  # ERR


def test_of_a_matrix_refused():
    refused(of_a_matrix, (np.eye(2),), "pass kind='stable'")
