"""A list comprehension over a list or tuple of arrays of several shapes (a model's parameters,
W and b) is the Python list of its elements, as the display of them is: `[p - lr * g for p, g in
zip(params, grads)]`, the usual step of gradient descent, was refused with NumPy's words for
making one array of them ("setting an array element with a sequence ... inhomogeneous shape"),
where Python makes no array (the real-code trial of session 36)."""
import numpy as np
import pytest

import catad


def sgd_step(params, X, y):
    W, b = params
    r = X @ W + b - y
    grads = [X.T @ r / len(y), np.mean(r, axis=0)]
    new = [p - 0.1 * g for p, g in zip(params, grads)]
    return np.sum((X @ new[0] + new[1] - y) ** 2)


def scaled(params, X, y):
    new = [p * 2.0 for p in params]
    return np.sum(new[0] * new[0]) + np.sum(new[1]) + len(new)


def returned(params, X, y):
    return [p * 2.0 for p in params]


def data():
    rng = np.random.default_rng(0)
    return [rng.normal(size=(3, 2)), rng.normal(size=2)], rng.normal(size=(5, 3)), rng.normal(size=(5, 2))


@pytest.mark.parametrize("f", [sgd_step, scaled], ids=lambda f: f.__name__)
def test_value_and_gradient_are_pythons(f):
    params, X, y = data()
    value, (gW, gb) = catad.value_and_grad(f)(params, X, y)
    assert value == pytest.approx(f(params, X, y), rel=1e-13)
    h = 1e-6
    for k, g in ((0, gW), (1, gb)):
        fd = np.zeros_like(params[k])
        for i in np.ndindex(params[k].shape):
            up = [p.copy() for p in params]
            down = [p.copy() for p in params]
            up[k][i] += h
            down[k][i] -= h
            fd[i] = (f(up, X, y) - f(down, X, y)) / (2 * h)
        np.testing.assert_allclose(g, fd, rtol=1e-6, atol=1e-8)


def test_the_list_of_arrays_is_returned_as_a_list():
    params, X, y = data()
    out, _ = catad.jvp(returned, (params, X, y), ([np.ones((3, 2)), np.ones(2)], np.zeros((5, 3)), np.zeros((5, 2))))
    assert isinstance(out, list) and len(out) == 2
    np.testing.assert_array_equal(out[0], params[0] * 2.0)
    np.testing.assert_array_equal(out[1], params[1] * 2.0)
