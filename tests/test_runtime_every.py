"""runtime.every and runtime.finite (the run-time checks' x.all() and np.isfinite(x).all() by
np.count_nonzero) against NumPy's own, on the values that make them differ if anything does:
NaN (nonzero), -0.0 (zero), inf, empty and 0-d arrays, Bools, sizes either side of LEAST."""
from __future__ import annotations

import numpy as np
import pytest

from catad import differentiate
from catad.backend import einsum_plans, runtime

SPECIAL = [0.0, -0.0, 1.0, np.nan, np.inf, -np.inf]


@pytest.mark.parametrize("size", [0, 1, 7, einsum_plans.LEAST - 1, einsum_plans.LEAST, 3 * einsum_plans.LEAST])
@pytest.mark.parametrize("special", SPECIAL)
def test_every_and_finite_are_numpys(size, special):
    rng = np.random.default_rng(size)
    for base in (rng.standard_normal(size), np.ones(size)):
        for x in (base, base.copy()):
            if size:
                x[rng.integers(0, size)] = special
            for y in (x, x.reshape(-1, 1)[::2], x > 0, x != 0):
                assert runtime.every(y) == bool(y.all())
                if y.dtype.kind == "f":
                    assert runtime.finite(y) == bool(np.isfinite(y).all())
                    assert differentiate._finite_array(y) == bool(np.isfinite(y).all())
                    assert differentiate._zero_leaf(y) == (not y.any())


@pytest.mark.parametrize("special", SPECIAL)
def test_every_of_a_0d_array(special):
    x = np.array(special)
    assert runtime.every(x) == bool(x.all()) and runtime.finite(x) == bool(np.isfinite(x))
