"""The Hessian of a function of a dict is a dict of dicts, H[k1][k2] the block of keys k1 and k2,
as JAX's: it was a tuple of dicts (its outer level in key order), so H["a"]["b"] raised TypeError in
the user's code (the real-code trial of session 36). A Jacobian of a function returning a tuple
stays a tuple of blocks."""
import collections

import numpy as np
import pytest

import catad


def loss(p):
    return np.sum(p["a"] ** 2 * p["b"][0]) + p["b"][1] ** 3


def test_hessian_of_a_dict_is_a_dict_of_dicts():
    p = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 0.5])}
    H = catad.hessian(loss)(p)
    assert isinstance(H, dict) and list(H) == ["a", "b"]
    assert all(isinstance(H[k], dict) and list(H[k]) == ["a", "b"] for k in H)
    np.testing.assert_allclose(H["a"]["a"], np.diag(2.0 * 3.0 * np.ones(2)))
    np.testing.assert_allclose(H["a"]["b"], [[2.0 * 1.0, 0.0], [2.0 * 2.0, 0.0]])
    np.testing.assert_allclose(H["b"]["a"], H["a"]["b"].T)
    np.testing.assert_allclose(H["b"]["b"], [[0.0, 0.0], [0.0, 6.0 * 0.5]])


def test_jacobian_of_a_tuple_result_is_a_tuple():
    J = catad.jacfwd(lambda x: (x * 2.0, np.sum(x)))(np.ones(2))
    assert isinstance(J, tuple) and len(J) == 2
    np.testing.assert_array_equal(J[0], 2.0 * np.eye(2))
    np.testing.assert_array_equal(J[1], np.ones(2))


def block_ab_inside(p):
    return np.sum(catad.hessian(loss)(p)["a"]["b"]) * p["a"][0]


def test_called_inside_a_compiled_function_it_is_the_same_dict():
    p = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, 0.5])}
    value, g = catad.value_and_grad(block_ab_inside)(p)
    assert value == block_ab_inside(p)
    np.testing.assert_allclose(g["a"], [2.0 * (2.0 * 1.0 + 2.0), 2.0 * 1.0])  # f = 2 (a0 + a1) a0
    np.testing.assert_allclose(g["b"], [0.0, 0.0])


Pair = collections.namedtuple("Pair", "u v")


def pair(x):
    return Pair(x * 2.0, np.sin(x))


def block_v_inside(x):
    return np.sum(catad.jacfwd(pair)(x).v) * x[0]


def test_a_named_tuple_result_gives_its_named_tuple_of_blocks_at_the_top_and_inside():
    x = np.array([0.5, -1.0])
    J = catad.jacfwd(pair)(x)
    assert type(J) is Pair
    np.testing.assert_allclose(J.v, np.diag(np.cos(x)))
    value, g = catad.value_and_grad(block_v_inside)(x)
    assert value == pytest.approx(block_v_inside(x), rel=1e-14)
    np.testing.assert_allclose(g, [np.sum(np.cos(x)) - np.sin(x[0]) * x[0], -np.sin(x[1]) * x[0]], rtol=1e-12)
