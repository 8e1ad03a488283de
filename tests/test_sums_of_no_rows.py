"""A sum over a loop that runs no iteration, of arrays computed in the loop (np.prod(m) of a matrix,
which runs as a Python loop per element): its cotangent is the sum of no rows, zeros of shape
(1, 1), which catad refused as its own error where it was the cotangent of the matrix itself
("a tangent of shape (1, 1) for a value of shape (1, 3)", fuzzer seed 3241553). It is zeros of
the matrix's shape, as the sum of no rows broadcasts to any."""
import numpy as np
import pytest

import catad
from located import agrees


def scaled(x, v, m):
    return x * sum(np.prod(m) for e in v)


def inside(x, v, m):
    return sum(np.prod(m * x) for e in v)


M = np.array([[1.0, 2.0, 3.0]])


@pytest.mark.parametrize("f", [scaled, inside], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [np.array([]), np.array([1.0, 2.0])], ids=["empty", "two"])
def test_gradients(f, v):
    agrees(f, 1.5, v, M, argnums=(0, 2))


@pytest.mark.parametrize("f", [scaled, inside], ids=lambda f: f.__name__)
def test_jacobian_vjp_and_hessian_of_no_rows(f):
    args = (1.5, np.array([]), M)
    np.testing.assert_array_equal(catad.jacobian(f, argnums=2)(*args), np.zeros((1, 3)))
    value, vjp_fn = catad.vjp(f, *args)
    ct = vjp_fn(1.0)
    assert value == 0.0 and ct[0] == 0.0 and ct[1].shape == (0,)
    np.testing.assert_array_equal(ct[2], np.zeros((1, 3)))
    assert catad.hessian(f, argnums=0)(*args) == 0.0


def returns_in_a_loop(x, v, m):
    out = m[:, -1] * 1.0
    for i in range(m.shape[0]):
        out[i] = m[-1, -1] * 2.0
    for i in range(1, m.shape[0]):
        out[i] *= np.dot(v, v)
    for e in out:
        x = x * (0.5 if int(sum(out)) < 3 else 2.0)
        return v[1] * x
    return x


@pytest.mark.parametrize("m", [np.array([[-0.023, 1.032]]), np.array([[0.5, 1.0], [2.0, -0.5]])], ids=["one row", "two"])
def test_the_sum_of_no_rows_beside_an_index_update(m):
    """The cotangent of v from `return v[1] * x` in a loop (an index update, kept sparse) added to
    the sum of no rows (the loop over range(1, 1)'s products with v): catad raised its own
    IndexError making the sum the shape of the no rows' (fuzzer seed 3270123)."""
    agrees(returns_in_a_loop, 0.671, np.array([0.918, -1.591, 1.651]), m, argnums=(0, 1, 2))
