"""Run-time tangent values (catad.tangents) in the forms a reverse program compiled as Python
loops produces: a Vec of tangents kept as a list, element by element (found by the random
programs of test_backend.py run as loops)."""
import numpy as np

from catad.tangents import ZERO, OneHot, densify, tadd, tscale


def test_adding_a_list_of_zero_tangents_to_an_array_adds_nothing():
    a = np.array([1.0, 2.0])
    out = tadd(a, [ZERO, ZERO])
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.0]
    assert a.tolist() == [1.0, 2.0]  # the caller's array is not written


def test_adding_a_list_of_tangents_to_an_array_adds_them_densely():
    out = tadd(np.array([1.0, 2.0]), [ZERO, 3.0])
    assert out.dtype == np.float64 and out.tolist() == [1.0, 5.0]


def test_scaling_a_list_of_tangents_scales_each():
    out = tscale(2.0, [1.0, ZERO, OneHot(1, 4.0, 3)])
    assert out[0] == 2.0 and out[1] is ZERO and densify(out[2]).tolist() == [0.0, 8.0, 0.0]
    assert tscale(np.inf, [0.0, ZERO]) == [0.0, ZERO]  # a zero tangent stays zero (times)


def test_one_hot_outside_its_vector_writes_nothing():
    # an untaken branch's cotangent of v[0] on an empty v (both branches are computed, then
    # one selected): densifying it must not raise, and it holds nothing
    from catad.tangents import OneHot
    assert OneHot(0, 1.0, 0).dense().shape == (0,)
    assert OneHot(-3, np.ones(2), 2).dense().shape == (2, 2)
    assert not OneHot(5, np.ones(2), 2).dense().any()
    np.testing.assert_array_equal(OneHot(-1, 2.0, 3).dense(), [0.0, 0.0, 2.0])
