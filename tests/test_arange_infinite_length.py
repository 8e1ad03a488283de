"""np.arange of floats whose length is infinite either way raises ValueError as NumPy does
('Maximum allowed size exceeded'): a start of inf below a finite stop gave an empty array (the
check took only a length of +inf as infinite). A NaN length is NumPy's 'arange: cannot compute
length'. Found by the fuzzN differential fuzzer."""
import numpy as np
import pytest

import catad


def ranged(x, stop, step):
    return np.sum(np.arange(x, stop, step)) + x


@pytest.mark.parametrize("args, message", [((np.inf, 3.0, 0.75), "Maximum allowed size"),
                                           ((-np.inf, 3.0, 0.75), "Maximum allowed size"),
                                           ((0.0, -np.inf, 1.0), "Maximum allowed size"),
                                           ((np.nan, 3.0, 0.75), "cannot compute length")], ids=str)
def test_an_infinite_length_raises(args, message):
    with pytest.raises(ValueError, match=message):
        ranged(*args)
    with pytest.raises(ValueError, match=message):
        catad.grad(ranged)(*args)


def test_finite_lengths():
    for args in [(0.5, 3.0, 0.75), (0.0, 3.0, np.inf), (3.0, 0.5, 0.75)]:
        assert catad.value_and_grad(ranged)(*args)[0] == ranged(*args)
