"""An array first assigned inside a loop that surely runs (a range of a known, positive length)
and read after it is carried out of the loop, as a number is: its first value a placeholder of
length 0 that the first iteration replaces. Python's value is the last iteration's (also after
a break). Values against the function itself, gradients against central differences, also
in reverse with checkpoints and as a Hessian."""
import numpy as np
import pytest

import catad
from located import agrees, hessian_by_differences

K = np.array([0.3, 0.5, 0.7])


def fixed_point(k):
    x = np.full(3, 0.5)
    for _ in range(200):
        nxt = np.cos(k * x)
        if np.allclose(nxt, x, rtol=1e-12, atol=1e-12):
            break
        x = nxt
    return np.sum(nxt ** 2)


def last_of_each(x):
    for i in range(3):
        y = x * (i + 1.0)
        m = np.outer(y, x)
        c = [x[0], y[1]]
    return np.sum(y) + np.sum(m ** 2) + np.sum(np.array(c + c))


def grows(x):
    for i in range(1, 4):
        z = np.concatenate([x[:i], x]) * i  # a different length each iteration
    return np.sum(np.sin(z))


@pytest.mark.parametrize("f", [fixed_point, last_of_each, grows], ids=lambda f: f.__name__)
def test_values_and_gradients(f):
    agrees(f, K)
    agrees(f, K[::-1] * 1.3)


@pytest.mark.parametrize("f", [fixed_point, last_of_each], ids=lambda f: f.__name__)
def test_checkpoints_and_hessian(f):
    np.testing.assert_array_equal(catad.grad(f, checkpoints=2)(K), catad.grad(f)(K))
    np.testing.assert_allclose(catad.hessian(f)(K), hessian_by_differences(f, (K,), 0), rtol=1e-6, atol=1e-6)
