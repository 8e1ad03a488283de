"""catad.hessian of loops whose results the code generator knows only at run time (a tuple of a
while loop's state after a loop of loops; a list of rows collected by a Python loop), found by
differential testing (the loop fuzzer's seed 43420), refused on main as catad's own error or as a
limitation of the code generator:

- an integer read from such a tuple (the while loop's count, which a bounds check shows) was
  a run-time tangent to the code generator, which checks and indices cannot read: it is a
  plain integer (dispatch.get);
- a loop whose body makes a vector of run-time tangents (its rows: a build of the same
  tangent in every lane) could not collect it as an array: it is collected as a list of
  run-time tangents (control.loop_collect).

The oracle is the user's function itself: central second differences."""
import math

import numpy as np

import catad


def reads_the_count_after(x, v, n):
    s = x
    k = 0
    while k < n and np.tanh(x) > np.sum(v):
        for i in range(2):
            x = x * 0.5 + np.sum(v)
            rows = []
            for j in range(3):
                rows.append(np.maximum(v, 1.5))
        for i, e in enumerate(v):
            x, s = s, v[i]
    return np.sum(v) + 0.25 * x + 0.25 * s


def rows_in_a_loop(x, v, n):
    s = max(x, math.cos(3.0 + x))
    k = 0
    while k < n and np.tanh(x) > np.sum(v):
        k += 1
        for i in range(2):
            x = x * 0.5 + (np.sum(v) + np.sum(v) / (1.0 + len(v)))
            rows = []
            for j in range(3):
                rows.append(np.maximum(v, 1.5))
        for i in range(len(v)):
            s, x = x, sum(v) / 2.0
    return np.sum(v) + 0.25 * x + 0.25 * s + np.sum(np.sin(v))


def second_differences(f, x, v, n, h=1e-4):
    """The Hessian of f in (x, v) by central second differences of f itself."""
    z = np.concatenate([[x], v])
    g = lambda z: f(float(z[0]), z[1:].copy(), n)  # noqa: E731
    m = z.size
    H = np.empty((m, m))
    for i in range(m):
        for j in range(m):
            e, d = np.eye(m)[i] * h, np.eye(m)[j] * h
            H[i, j] = (g(z + e + d) - g(z + e - d) - g(z - e + d) + g(z - e - d)) / (4 * h * h)
    return H


def flat(H):
    (xx, xv), (vx, vv) = H
    return np.block([[np.reshape(xx, (1, 1)), np.reshape(xv, (1, -1))], [np.reshape(vx, (-1, 1)), vv]])


X, V, N = 0.8748540457923518, np.array([-0.7129929071674358, -0.9665650619598851, 1.6702470405015593]), 1


def test_hessian_reading_a_count_from_a_loop_result():
    H = flat(catad.hessian(reads_the_count_after, argnums=(0, 1))(X, V.copy(), N))
    np.testing.assert_allclose(H, second_differences(reads_the_count_after, X, V, N), atol=1e-5)


def test_hessian_of_rows_collected_in_a_loop():
    H = flat(catad.hessian(rows_in_a_loop, argnums=(0, 1))(X, V.copy(), N))
    want = np.zeros((4, 4))
    want[1:, 1:] = np.diag(-np.sin(V))  # after the loop, x and s are both sum(v) / 2
    np.testing.assert_allclose(H, want, atol=1e-12)
    np.testing.assert_allclose(H, second_differences(rows_in_a_loop, X, V, N), atol=1e-5)
