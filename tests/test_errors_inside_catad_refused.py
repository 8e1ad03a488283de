"""An error raised inside catad's own run-time code while the generated code runs is catad's
error, refused with a CatadError, never passed on as if the user's code had raised it
(backend._own: its innermost frame is in catad's package).

Found by differential testing (the loop fuzzer's seed 49272): the Hessian of a while loop inside
a ragged double loop (`for j in range(i)`) collects rows of different shapes (a loop that runs
no step makes its rows empty along every axis: tests/test_empty_loop_rows.py), and NumPy's
np.array in runtime.loop_array raised a raw ValueError ("setting an array element with a
sequence") from inside catad. Reconciling the shapes would need the row's shape, which no row
of an empty loop tells: refused, as the shape is not guessed."""
import numpy as np
import pytest

import catad


def while_in_a_ragged_loop(v, n):
    s = 0.0
    for i in range(len(v)):
        for j in range(i):
            k = 0
            while k < n:
                k += 1
                s = np.sum(np.append(v, 1.0) ** 2)
    return s + np.sum(np.sin(v))


V = np.array([0.41, 0.37, 1.77])


def test_gradient_of_the_ragged_loop():
    g = catad.grad(while_in_a_ragged_loop)(V, 1)
    np.testing.assert_allclose(g, 2 * V + np.cos(V), rtol=1e-12)


def test_hessian_failing_inside_catad_is_refused():
    with pytest.raises(catad.CatadError, match="catad's own error") as info:
        catad.hessian(while_in_a_ragged_loop)(V, 1)
    assert "ValueError" in str(info.value)


def test_the_users_own_error_is_still_raised():
    def solves(a, b):
        return np.sum(np.linalg.solve(a, b))
    singular = np.zeros((2, 2))
    with pytest.raises(np.linalg.LinAlgError):
        solves(singular, np.ones(2))
    with pytest.raises(np.linalg.LinAlgError):
        catad.grad(solves, argnums=1)(singular, np.ones(2))
