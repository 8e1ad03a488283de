"""a.sort() of an array the function owns (a copy, arithmetic's result) is a = np.sort(a): nothing
else sees the array, so sorting it in place is sorting a new one (along its last axis, as
ndarray.sort does). It was refused. Of an array another name or an argument shares (Python sorts
theirs too), and of a list, it is still refused. Oracle: the function itself and central
differences."""
import numpy as np
import pytest

from located import agrees, refused


def sorted_copy(x, v):
    y = v.copy() * x
    y.sort()
    return y[0] * 2.0 + y[-1]


def sorted_rows(x, m):
    y = m * x
    y.sort()
    return np.sum(y[:, 0]) + np.sum(y[-1])


@pytest.mark.parametrize("f, a", [(sorted_copy, np.array([3.0, -1.0, 2.0])),
                                  (sorted_rows, np.array([[3.0, -1.0], [0.5, 2.0]]))], ids=["vector", "matrix"])
def test_values_and_derivatives(f, a):
    agrees(f, 0.7, a)


def shared(x, v):
    y = v
    y.sort()  # ERR
    return y[0] * x


def test_an_array_another_name_shares_refused():
    refused(shared, (0.7, np.array([3.0, -1.0, 2.0])), "in place")
