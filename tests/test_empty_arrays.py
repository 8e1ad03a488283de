"""Derivatives of functions of empty arrays: shaped as NumPy's values are, never a raw error
from inside catad (one_hot's scatter of no columns raised ZeroDivisionError)."""
import numpy as np
import pytest

import catad


def transposed(a):
    return a.T


def diagonal(a):
    return np.diag(a)


@pytest.mark.parametrize("f,x", [(transposed, np.zeros((0, 3))), (transposed, np.zeros((3, 0))),
                                 (diagonal, np.zeros(0))], ids=["T-0x3", "T-3x0", "diag-0"])
def test_jacobians_and_tangents_of_empty_arrays(f, x):
    value = f(x)
    for jac in (catad.jacrev, catad.jacfwd, catad.jacobian):
        assert jac(f)(x).shape == value.shape + x.shape
    out, tangent = catad.jvp(f, (x,), (np.ones_like(x),))
    assert out.shape == tangent.shape == value.shape
