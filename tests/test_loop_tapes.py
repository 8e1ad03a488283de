"""A reverse loop reads the forward step's values from a tape (backend/folds.py, Tape) instead of
computing them again, where computing them costs more than reading them (an array, a call); a
Python operator on scalars is computed again. The gradients are the same either way: checked
against central differences."""
import numpy as np
import pytest

import catad
from backend_programs import central_difference


def rnn(w, h, n):
    total = 0.0
    for i in range(n):
        h = np.tanh(h * w + np.exp(-h))
        total = total + np.sum(h * h)
    return total


def logistic(x, r, n):
    for i in range(n):
        x = r * x * (1.0 - x)
    return x


def reverse_code(fn, *args) -> str:
    code = catad.explain(fn, *args).stage("code").text
    return code[code.index("def rev_"):]


def test_the_reverse_step_reads_the_forward_steps_arrays():
    rev = reverse_code(rnn, np.ones(3), np.ones(3), 4)
    assert rev.count("np.tanh(") == 1 and rev.count("np.exp(") == 1  # the forward loop's only
    assert ".append((" in rev and "= tape" in rev


def test_a_scalar_step_is_computed_again():
    rev = reverse_code(logistic, 0.3, 3.2, 4)
    assert "tape" not in rev


@pytest.mark.parametrize("n", [0, 1, 5])
def test_gradients_through_the_tape(n):
    rng = np.random.default_rng(n)
    w, h = rng.standard_normal(4), rng.standard_normal(4)
    value, (gw, gh) = catad.value_and_grad(rnn, argnums=(0, 1))(w, h, n)
    assert value == pytest.approx(rnn(w, h, n), rel=1e-12)
    np.testing.assert_allclose(gw, central_difference(lambda a, b: rnn(a, b, n), (w, h), 0), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(gh, central_difference(lambda a, b: rnn(a, b, n), (w, h), 1), rtol=1e-6, atol=1e-8)
    gk = catad.grad(rnn, argnums=(0, 1), checkpoints=2)(w, h, n)
    np.testing.assert_allclose(gk[0], gw, rtol=1e-12)
    np.testing.assert_allclose(gk[1], gh, rtol=1e-12)


def returns_in_inner_loop(x, v):
    for i in range(1, -1, -1):
        x = v[i]
        for k, e in enumerate(v, 1):
            return 0.5 * x
    return x


def test_an_inner_loop_run_again_in_a_reverse_step_reads_the_outer_tape():
    """The inner loop runs again in the outer loop's reverse step, and its own tape keeps a value
    that reads one of the outer tape's (v's element, through nonempty(v, 0)): the outer tape keeps
    it too. It did not (dead code was found before the inner tape's appends were written), and
    the generated code raised NameError."""
    v = np.array([1.0, 2.0, 3.0])
    value, (gx, gv) = catad.value_and_grad(returns_in_inner_loop, argnums=(0, 1))(0.3, v)
    assert value == returns_in_inner_loop(0.3, v)
    assert gx == 0.0
    np.testing.assert_allclose(gv, central_difference(returns_in_inner_loop, (0.3, v), 1), atol=1e-8)
