"""Python's math functions take a bool as the float it is (math.tanh(True) is tanh(1.0)): catad
refused the ones with no domain or range check (tanh: expects a Float, got Bool; 11 of the
fuzzer's refusals). math.hypot takes any number of coordinates since Python 3.8: of one it is
|x|, of three the length of a vector in space (refused: takes 2 arguments). NumPy's functions of a
bool give float16, which stays refused. Each function is called itself."""
import math

import numpy as np
import pytest

import catad
from located import agrees


def of_bools(x):
    b = x > 0.5
    return (math.tanh(b) + math.atan(b) + math.erf(b) + math.asinh(b) + math.exp(b) + math.sin(b)) * x


def of_numpys_bools(x, v):
    b = v[0] > 0.5
    return math.tanh(b) * x + math.erfc(b)


def in_space(x, y, z):
    return math.hypot(x, y, z) + math.hypot(x * 2.0) + math.hypot() + math.hypot(x, y, z, 1.0)


@pytest.mark.parametrize("x", [0.25, 1.5])
def test_math_of_bools(x):
    agrees(of_bools, x)


def test_math_of_numpys_bools():
    agrees(of_numpys_bools, 1.5, np.array([0.7, 0.1]))


@pytest.mark.parametrize("args", [(1.5, -2.0, 0.5), (3.0, 4.0, 12.0), (-0.5, 0.25, 2.0)])
def test_hypot_of_many(args):
    agrees(in_space, *args, argnums=(0, 1, 2))


@pytest.mark.parametrize("args", [(math.inf, math.nan, 1.0), (math.nan, 1.0, 2.0), (0.0, 0.0, 0.0)])
def test_hypot_at_the_edges(args):
    got = catad.vjp(in_space, *args)[0]
    want = in_space(*args)
    assert got == want or math.isnan(got) and math.isnan(want)


def numpys_tanh_of_a_bool(x):
    return np.tanh(x > 0.5) * x


def test_numpys_function_of_a_bool_stays_refused():
    with pytest.raises(catad.CatadError):
        catad.grad(numpys_tanh_of_a_bool)(1.0)
