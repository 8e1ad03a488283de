"""Lists of matrices ([m * x, m], nested lists of arrays, np.array of them: arrays of three
axes) were refused with catad's own type error ("elements of a vector literal must be scalars or
vectors"); they are the arrays NumPy makes, indexed by constants or by a loop's variable, with
gradients, forward tangents and second derivatives. Oracle: the function itself, central
differences, and a Hessian by hand."""
import numpy as np
import pytest

import catad
from located import agrees

M = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])


def stacked(x, m):
    a = np.array([m * x, m, m * 2.0])
    return np.sum(a[0] * a[2]) + np.sum(np.sum(a, axis=0) ** 2)


def indexed_in_a_loop(x, m):
    mats = [m * x, np.sin(m)]
    s = 0.0
    for k in range(len(mats)):
        s = s + np.sum(mats[k] @ np.ones(2)) * x
    return s


def looped_over(x, m):
    t = 0.0
    for a in [m * x, np.sin(m)]:
        t = t + np.sum(a.T @ a)
    return t


def indexed_at_run_time(x, m):
    mats = [m * x, np.sin(m * x)]
    k = int(x > 0.5)
    return np.sum(mats[k] * mats[1 - k])


def nested(x, m):
    rows = [[m * x, m], [m, m * x]]
    row = rows[0][0][1]
    return np.sum(np.array(rows)[1, 1] * x) + np.sum(row + row) + np.sum(np.array(rows[0] + rows[1])[3])


@pytest.mark.parametrize("f", [stacked, indexed_in_a_loop, looped_over, indexed_at_run_time, nested],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [0.3, 0.9])
def test_values_and_derivatives(f, x):
    agrees(f, x, M)


def test_second_derivative():
    # stacked = 2x sum(m^2) + (x + 3)^2 sum(m^2): its second derivative is 2 sum(m^2)
    assert catad.hessian(stacked)(0.9, M) == pytest.approx(2 * np.sum(M ** 2), rel=1e-12)
