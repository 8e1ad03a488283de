"""A loop adding to every element of an array, out[i] += h over range(len(out)), is vectorised
as the array plus the build of what it adds. Where the loop covers the whole array, the
vectoriser (independent.map_value) returned the build of the increments alone: catad gave 4.5
where Python gives 64.5 (out = v * 1.0 then out[i] += 1.5, v = [10, 20, 30]), the differential
fuzzer's seed 100564 (session 27)."""
import numpy as np
import pytest

from located import agrees


def plus_a_constant(v):
    out = v * 1.0
    for i in range(len(v)):
        out[i] += 1.5
    return np.sum(out * out)


def written_out(v):
    out = np.sin(v)
    for i in range(v.shape[0]):
        out[i] = out[i] + v[i] * v[i]
    return np.sum(out * v)


def column_sums(m):
    out = np.sum(m, axis=0).copy()
    for i in range(m.shape[1]):
        out[i] += i + m.shape[-1] / 2
    return np.sum(out ** 2)


def every_element_of_a_matrix(m):
    out = m * 2.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            out[i, j] += np.cos(m[i, j])
    return np.sum(out * m)


@pytest.mark.parametrize("fn", [plus_a_constant, written_out], ids=lambda f: f.__name__)
def test_vectors(fn):
    agrees(fn, np.array([10.0, 20.0, 30.0]))
    agrees(fn, np.array([-0.5]))


@pytest.mark.parametrize("fn", [column_sums, every_element_of_a_matrix], ids=lambda f: f.__name__)
def test_matrices(fn):
    agrees(fn, np.array([[2.0, 2.0, -2.0], [0.5, 3.0, -0.5], [0.5, -1.0, 1.0]]))
    agrees(fn, np.array([[0.25, -1.5]]))
