"""A loop over the rows of a matrix with no rows, the matrix also used elsewhere: the reverse loop's
cotangents of the rows it read were an array empty along every axis, (0, 0), added to the
matrix's other cotangent, (0, 3): a raw ValueError from NumPy's broadcasting. They take the
shape of the matrix folded over now (runtime.loop_array's `like`). Found by differential testing
(session 18)."""
import numpy as np
import pytest

import catad
from located import agrees


def rows_then_sum(m, y):
    for row in m:
        y = y * 0.9
    return np.sum(m) + y


def rows_read(m, y):
    for row in m:
        y = y * 0.9 + np.sum(row * row)
    return np.sum(m * 2.0) + y


@pytest.mark.parametrize("checkpoints", [None, 1])
@pytest.mark.parametrize("f", [rows_then_sum, rows_read], ids=lambda f: f.__name__)
def test_no_rows(f, checkpoints):
    m = np.zeros((0, 3))
    value, (gm, gy) = catad.value_and_grad(f, argnums=(0, 1), checkpoints=checkpoints)(m, 1.5)
    assert value == f(m, 1.5) == 1.5 and gm.shape == (0, 3) and gy == 1.0


@pytest.mark.parametrize("f", [rows_then_sum, rows_read], ids=lambda f: f.__name__)
def test_rows(f):
    agrees(f, np.array([[0.5, -1.0, 2.0], [0.3, 0.1, -0.4]]), 1.5, argnums=(0, 1))
