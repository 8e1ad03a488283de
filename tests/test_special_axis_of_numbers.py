"""scipy.special.logsumexp, softmax and log_softmax of a number with an axis: SciPy reads the number as
an array of one element along axis 0 (or -1), and raises AxisError for another; catad ignored the
axis of a number and returned a value. Found by differential testing (session 18)."""
import numpy as np
import pytest
import scipy.special

import catad
from located import agrees


def logsumexp_axis1(a):
    return scipy.special.logsumexp(np.sum(a), axis=1)


def log_softmax_axis1(a):
    return scipy.special.log_softmax(np.sum(a), axis=1)


def logsumexp_axis0(a):
    return scipy.special.logsumexp(np.sum(a * a), axis=0)


def softmax_last_axis(a):
    return scipy.special.softmax(np.sum(a), axis=-1) * a[0]


A = np.array([1.0, -2.0, 3.0])


@pytest.mark.parametrize("f", [logsumexp_axis1, log_softmax_axis1], ids=lambda f: f.__name__)
def test_another_axis_of_a_number_is_scipy_s_axis_error(f):
    with pytest.raises(np.exceptions.AxisError) as raised:
        f(A)
    with pytest.raises(catad.CatadTypeError) as e:
        catad.grad(f)(A)
    assert str(raised.value) in str(e.value)


@pytest.mark.parametrize("f", [logsumexp_axis0, softmax_last_axis], ids=lambda f: f.__name__)
def test_axis_zero_of_a_number(f):
    agrees(f, A)
