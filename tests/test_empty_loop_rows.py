"""A loop that runs no step makes an array of its rows empty along every axis (runtime.loop_array:
no row says how long a row is). Two things went wrong with it, found by differential testing
(session 20):

- A build reading that array along a row axis checked the row's length against the build's and
  raised a raw AssertionError ("an unchecked index"), though no lane reads anything when another
  axis is empty: catad.hessian of np.cumsum of the row sums of a (2, 0) matrix. It is the empty
  Hessian now (runtime.take_iota).
- The sum over the loop's rows of a reverse program's cotangents, empty along every axis, was
  added to or shaped as a cotangent of the value's shape: a raw ValueError of NumPy's broadcasting
  or of runtime.shaped_as. Where only a loop that runs no step shows how long its rows are, catad
  cannot make that sum the value's shape, and refuses with a CatadError (backend.Compiled: a
  run-time check's error is catad's own, not the user's code's)."""
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


def test_zero_step_rows_summed_into_a_cotangent_is_refused_not_raised():
    v = np.array([-1.5, -0.5, -1.25, 0.9, -1.9])
    with pytest.raises(catad.CatadError, match="catad's own error"):
        catad.value_and_grad(appends_under_a_check, argnums=(0, 2))(-0.07, 4, v)


def rows_under_a_loop_of_no_iteration(v, y):
    for i in range(0):
        for e in v:
            y = y * e
    return y + np.sum(np.sin(v))


def test_hvp_through_rows_of_no_iteration_is_refused_not_a_raw_error():
    """hvp's tangent of v came back of shape (0,) (the rows of no iteration), and reshaping it
    to v's (1,) raised a raw ValueError from inside catad (the loop fuzzer, seed 45964). It is
    refused, as the Hessian is; the gradient is right."""
    v, y = np.array([0.75]), -0.5
    with pytest.raises(catad.CatadError, match="catad's own error"):
        catad.hvp(rows_under_a_loop_of_no_iteration, (v, y), (np.ones(1), 1.0), argnums=(0, 1))
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
