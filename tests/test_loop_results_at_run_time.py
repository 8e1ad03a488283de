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

- a sum of tangents holding copies of a run-time tangent (an index update and a list of rows
  in a loop in a branch: the fuzzer's seed 47396), as a row of a loop or densified, or such
  copies as an if's value (seed 49112) were made arrays, which they cannot be (their shape is
  known at run time only): they are run-time tangents (arrays.rt_terms, used by
  control.loop_collect and tangent_ops.densified; control._leaves_in_block).

The oracle is the user's function itself: central second differences."""
import math

import numpy as np

import catad
from located import second_differences


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


def in_x_and_v(f, x, v, n):
    """The Hessian of f in (x, v) by central second differences of f itself."""
    return second_differences(lambda z: f(float(z[0]), z[1:].copy(), n), np.concatenate([[x], v]), 1e-4)


def flat(H):
    (xx, xv), (vx, vv) = H
    return np.block([[np.reshape(xx, (1, 1)), np.reshape(xv, (1, -1))], [np.reshape(vx, (-1, 1)), vv]])


X, V, N = 0.8748540457923518, np.array([-0.7129929071674358, -0.9665650619598851, 1.6702470405015593]), 1


def test_hessian_reading_a_count_from_a_loop_result():
    H = flat(catad.hessian(reads_the_count_after, argnums=(0, 1))(X, V.copy(), N))
    np.testing.assert_allclose(H, in_x_and_v(reads_the_count_after, X, V, N), atol=1e-5)


def test_hessian_of_rows_collected_in_a_loop():
    H = flat(catad.hessian(rows_in_a_loop, argnums=(0, 1))(X, V.copy(), N))
    want = np.zeros((4, 4))
    want[1:, 1:] = np.diag(-np.sin(V))  # after the loop, x and s are both sum(v) / 2
    np.testing.assert_allclose(H, want, atol=1e-12)
    np.testing.assert_allclose(H, in_x_and_v(rows_in_a_loop, X, V, N), atol=1e-5)


def scaled_in_a_branch(v, x):
    a = np.zeros(len(v))
    if np.cos(x) > 0.5:
        k = 0
        while k < len(v) and x > 1.5:
            k += 1
            rows = []
            for e in v:
                rows.append(x if k % 2 == 0 else math.sin(0.1))
                a[1:] *= np.sum(np.maximum(np.exp(np.sin(v)), np.sum(a)))
    return np.max(a) - min(x, x) + np.sum(np.sin(a)) + np.sum(np.sin(v))


def test_hessian_of_an_update_in_a_loop_in_a_branch():
    v = np.array([1.57, 0.30, 0.48, 1.52, -0.33])
    for x in (1.419, 6.5):  # the branch not taken, then taken (a stays 0: its updates scale 0)
        H = flat(catad.hessian(scaled_in_a_branch, argnums=(1, 0))(v.copy(), x))
        np.testing.assert_allclose(H[1:, 1:], np.diag(-np.sin(v)), atol=1e-12)
        assert not H[0].any() and not H[:, 0].any()
        np.testing.assert_allclose(H, in_x_and_v(lambda x, v, n: scaled_in_a_branch(v, x), x, v, None),
                                   atol=1e-5)


def max_after_rows(v, n, x):
    rows = []
    for i in range(1, len(v)):
        rows.append(v[i])
    w = np.array(rows)
    e = np.exp(np.sin(np.exp(np.sin(w))))
    if np.exp(np.sin(x)) > np.exp(0.25):
        s = math.sin(np.maximum(float(n), sum(e)))
        for i in range(len(e) - 1):
            for j in range(i - 1):
                t = x - e[1]  # noqa: F841
            if np.exp(np.sin(x)) < 0.75:
                continue
            s, x = x, np.max(np.append(np.copy(w), math.sin(s)))
    return sum(a for a in v if a > 0.5) + 0.5 * x + np.sum(np.sin(w)) + np.sum(np.sin(v))


def test_hessian_after_a_branch_over_rows():
    for v in (np.array([-1.65, -0.98]), np.array([-1.65, -0.98, 0.7, 0.2])):  # its loop runs no step, then two
        H = flat(catad.hessian(max_after_rows, argnums=(2, 0))(v.copy(), 2, 1.0))
        np.testing.assert_allclose(H, in_x_and_v(lambda x, v, n: max_after_rows(v, n, x), 1.0, v, 2),
                                   atol=1e-5)
