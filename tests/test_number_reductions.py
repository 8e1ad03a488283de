"""NumPy's reductions of a number with an axis (catad/frontend/numpy_arrays.py h_reduce,
numpy_logic_reductions.py): np.sum, np.prod, np.max, np.min, np.nansum, np.nanmean, np.ptp
reduce it as an array of one element along axis 0 or -1; np.mean, np.var, np.std and
np.average count its elements along the axis and raise AxisError (catad returned the number);
any other axis is an AxisError naming dimension 0 (catad named 1). Each is checked against
calling NumPy."""
import numpy as np
import pytest

import catad

REDUCTIONS = [np.sum, np.prod, np.max, np.min, np.nansum, np.nanmean, np.ptp, np.mean, np.var, np.std, np.average]


@pytest.mark.parametrize("fn", REDUCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("axis", [0, -1, 1])
def test_a_number_reduced_along_an_axis(fn, axis):
    def f(x):
        return fn(x * 2.0, axis=axis) + x
    try:
        expected = f(1.5)
    except np.exceptions.AxisError as e:
        with pytest.raises(catad.BoundsError) as ours:
            catad.grad(f)(1.5)
        assert str(e) in str(ours.value)
        return
    value, g = catad.value_and_grad(f)(1.5)
    assert value == expected
    assert g == pytest.approx((f(1.5 + 1e-6) - f(1.5 - 1e-6)) / 2e-6, rel=1e-6)
