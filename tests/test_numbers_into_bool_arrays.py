"""A number assigned into an array of bools is NumPy's cast of it: True where it is not 0 (NaN
too), as `keep = np.zeros(n, dtype=bool); keep[i] = 1` writes True (refused: "makes it a Bool in
NumPy"; 7 fuzzer refusals). A list of bools would hold the number itself: still refused. A
comparison makes a new array, which can be assigned into (`keep = v > 0; keep[0] = False` was
refused as an array that may share its memory). Each function is called itself."""
import math

import numpy as np
import pytest

from located import agrees, refused


def flags(x, v):
    keep = np.zeros(len(v), dtype=bool)
    keep[0] = 1
    keep[1] = v[1] * 0.0
    keep[2] = math.nan
    keep[3] = -2.5
    return np.sum(np.where(keep, v * x, x))


def a_slice(x, v):
    keep = v > 0
    keep[:2] = v[:2] * 0.0 + np.array([0.5, 0.0])
    keep[2] = False
    return np.sum(np.where(keep, v * x, -x))


def into_a_list(x, v):
    keep = [True, False]
    keep[0] = 0.5  # ERR
    return x


@pytest.mark.parametrize("f", [flags, a_slice], ids=lambda f: f.__name__)
def test_values(f):
    agrees(f, 1.5, np.array([1.0, 2.0, -3.0, 4.0]))


def test_into_a_list_of_bools_stays_refused():
    refused(into_a_list, (1.5, np.array([1.0, 2.0])), "list of bools")
