"""np.geomspace with a NaN start is NaN throughout, as NumPy's (its sign, np.sign(start), is NaN
and multiplies every element, the stop written last too); catad's last element was the stop.
Found by the fuzzN differential fuzzer."""
import numpy as np

import catad


def spaced(x, stop):
    g = np.geomspace(x, stop, 4)
    return g[3] * 1.0 + stop


def test_nan_start():
    for x, stop in [(np.nan, 3.0), (2.0, np.nan), (-2.0, -3.0), (0.5, 8.0)]:
        expected = spaced(x, stop)
        got = catad.value_and_grad(spaced)(x, stop)[0]
        assert got == expected or np.isnan(got) and np.isnan(expected)
