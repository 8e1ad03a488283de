"""A loop that runs no step makes an array of its rows empty along every axis (runtime.loop_array:
no row says how long a row is). Two things went wrong with it, found by differential testing
(session 20):

- A build reading that array along a row axis checked the row's length against the build's and
  raised a raw AssertionError ("an unchecked index"), though no lane reads anything when another
  axis is empty: catad.hessian of np.cumsum of the row sums of a (2, 0) matrix. It is the empty
  Hessian now (runtime.take_iota).
- The sum over the loop's rows of a reverse program's cotangents, empty along every axis, was
  added to or shaped as a cotangent of the value's shape: a raw ValueError of NumPy's broadcasting
  or of runtime.shaped_as. It was refused with a CatadError (backend.Compiled: a run-time check's
  error is catad's own, not the user's code's). The rows of no step are now of length 1 along
  their other axes (lang.evaluate.no_rows), so their sum, zeros, broadcasts to the cotangent it
  is added to, and the derivative is computed (session 25, loop fuzzer seed 81992). Where such a
  sum is the value itself, its shape is checked and refused as before."""
import numpy as np
import pytest

import catad


def cumsum_of_row_sums(m):
    return np.sum(np.cumsum(np.sum(m, axis=1)))


@pytest.mark.parametrize("shape", [(2, 0), (3, 0, 2)])
def test_hessian_of_an_empty_matrix(shape):
    m = np.zeros(shape)
    h = catad.hessian(cumsum_of_row_sums)(m)
    assert h.shape == shape + shape and cumsum_of_row_sums(m) == 0.0


@pytest.mark.parametrize("shape", [(2, 3), (3, 1, 2)])
def test_hessian_of_a_matrix(shape):
    h = catad.hessian(cumsum_of_row_sums)(np.linspace(0.5, 1.5, int(np.prod(shape))).reshape(shape))
    assert h.shape == shape + shape and not h.any()  # the function is linear


def rows_of_no_step(x, m):
    for i in range(0):
        for row in m:
            x = np.sum(row * x)
    return x


def appends_under_a_check(x, n, v):
    for i in range(3):
        for j in range(i):
            x -= np.sum(v)
            lst = []
            for k in range(j):
                if n > i:
                    lst.append(2.0 ** 2)
    return x


def test_zero_step_loop_over_rows_is_refused_not_raised():
    m = np.array([[-1.38, 0.02], [0.94, -0.77]])
    value, (gx, gm) = catad.value_and_grad(rows_of_no_step, argnums=(0, 1))(-0.2, m)
    assert value == rows_of_no_step(-0.2, m) and gx == 1.0 and gm.shape == (2, 2) and not gm.any()
    with pytest.raises(catad.CatadError, match="catad's own error"):
        catad.hessian(rows_of_no_step, argnums=(0, 1))(-0.2, m)


def test_zero_step_rows_summed_into_a_cotangent():
    v = np.array([-1.5, -0.5, -1.25, 0.9, -1.9])
    value, (gx, gv) = catad.value_and_grad(appends_under_a_check, argnums=(0, 2))(-0.07, 4, v)
    # x -= np.sum(v) runs three times (i, j) = (1, 0), (2, 0), (2, 1)
    assert value == appends_under_a_check(-0.07, 4, v) and gx == 1.0 and np.array_equal(gv, np.full(5, -3.0))


def inner_loop_under_a_test(n, w):
    s = 0.5
    for i in range(n):
        for e in w:
            if np.cos(s) > 0.0:
                s += np.exp(-np.sum(w) ** 2)
    return s * s + np.sum(np.sin(w))


@pytest.mark.parametrize("n", [0, 1])
def test_hessian_of_rows_of_no_step_added_to_a_cotangent(n):
    """The Hessian's forward program summed the rows of an outer loop of no step (n = 0) and added
    them to w's cotangent: NumPy's broadcasting raised a raw ValueError (loop fuzzer, seed 81992)."""
    w = np.array([0.02, -0.77, -1.25, 0.33, -0.06])
    h = catad.hessian(inner_loop_under_a_test, argnums=1)(n, w)
    step, want = 1e-4, np.zeros((5, 5))
    for a in range(5):
        for b in range(5):
            ea, eb = np.eye(5)[a] * step, np.eye(5)[b] * step
            want[a, b] = sum(sgn * inner_loop_under_a_test(n, w + sa * ea + sb * eb)
                             for sgn, sa, sb in ((1, 1, 1), (-1, 1, -1), (-1, -1, 1), (1, -1, -1))) / (4 * step * step)
    np.testing.assert_allclose(h, want, rtol=1e-5, atol=1e-5)
    if n == 0:
        np.testing.assert_array_equal(h, np.diag(-np.sin(w)))


def rows_under_a_loop_of_no_iteration(v, y):
    for i in range(0):
        for e in v:
            y = y * e
    return y + np.sum(np.sin(v))


@pytest.mark.parametrize("n", [1, 3])
def test_hvp_through_rows_of_no_iteration(n):
    """hvp's tangent of v came back of shape (0,) (the rows of no iteration), and reshaping it
    to v's (1,) raised a raw ValueError from inside catad (the loop fuzzer, seed 45964). It was
    refused; it is computed now (no_rows): the function is y + sum(sin(v))."""
    v, y = np.linspace(0.75, 1.25, n), -0.5
    dv, dy = catad.hvp(rows_under_a_loop_of_no_iteration, (v, y), (np.ones(n), 1.0), argnums=(0, 1))
    np.testing.assert_allclose(dv, -np.sin(v), rtol=1e-14)
    assert dy == 0.0
    g = catad.grad(rows_under_a_loop_of_no_iteration, argnums=(0, 1))(v, y)
    np.testing.assert_allclose(g[0], np.cos(v))
    assert g[1] == 1.0


def rows_around_a_loop_of_no_iteration(w, x, m):
    for row in m:
        for i in range(len(w) - 1):
            x /= np.sum(row)
            k = 0
            while k < 3:
                k += 1
                x = np.max(m @ m[0])
    return x + np.sum(np.sin(w))


def test_hessian_through_rows_around_no_iteration_is_refused_not_a_raw_error():
    """The Hessian's column for m, by the forward program over the rows of m around a loop
    that runs no iteration (len(w) - 1 == 0), came back empty, and flattening it to m's 9
    numbers raised a raw ValueError from inside catad (the loop fuzzer, seed 44200). It is
    refused (differentiate._flatten); the gradient is right."""
    w, m = np.array([0.44]), np.array([[-0.99, -0.93, 0.85], [-0.76, -0.92, -1.83], [1.14, 0.07, -1.61]])
    with pytest.raises(catad.CatadError, match="catad's own error"):
        catad.hessian(rows_around_a_loop_of_no_iteration, argnums=(0, 1, 2))(w, -0.69, m)
    gw, gx, gm = catad.grad(rows_around_a_loop_of_no_iteration, argnums=(0, 1, 2))(w, -0.69, m)
    np.testing.assert_allclose(gw, np.cos(w))
    assert gx == 1.0 and gm.shape == (3, 3) and not gm.any()
