"""A max, min, argmax or argmin of nothing raises, as Python and NumPy raise, wherever it runs:
in a branch the function takes (before: NaN, or x[0] for an argmax: a plausible wrong number),
and in a lane of a ragged comprehension (max(x[:i]) at i = 0 gave -inf); a lane a branch
discards may reduce nothing. Found by differential testing (trial 5)."""
import numpy as np
import pytest

import catad
from located import agrees


def max_in_branch(x, c):
    if c > 0.0:
        return np.max(x)
    return 0.0


def argmax_in_ternary(x, c):
    return x[np.argmax(x[:0])] if c > 0 else 0.0


def min_of_rows(m, c):
    if c > 0.0:
        return np.sum(np.min(m, axis=1))
    return 0.0


def ragged_builtin_max(x):
    return sum(max(x[:i]) for i in range(len(x)))


def ragged_np_max(x):
    return sum(np.max(x[:i]) for i in range(len(x)))


def ragged_argmin_in_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[np.argmin(x[:i])]
    return s


def ragged_guarded(x):
    return sum(np.max(x[:i]) if i > 0 else 0.0 for i in range(len(x)))


@pytest.mark.parametrize("fn, args", [
    (max_in_branch, (np.zeros(0), 1.0)), (argmax_in_ternary, (np.array([0.3, 0.5]), 1.0)),
    (min_of_rows, (np.zeros((2, 0)), 1.0)), (ragged_builtin_max, (np.ones(3),)), (ragged_np_max, (np.ones(3),)),
    (ragged_argmin_in_loop, (np.ones(3),)),
], ids=lambda v: getattr(v, "__name__", None))
def test_a_reduction_of_nothing_raises(fn, args):
    with pytest.raises(ValueError):
        fn(*args)
    for run in (lambda: catad.value_and_grad(fn)(*args), lambda: catad.jvp(fn, args, tuple(np.zeros_like(a) for a in args))):
        # (NumPy's reductions in catad's words; Python's max() in Python's: "arg is an empty sequence")
        with pytest.raises(catad.CatadError, match="of an empty array|max\\(\\) arg is an empty sequence") as e:
            run()
        assert isinstance(e.value, ValueError) and e.value.loc.line > fn.__code__.co_firstlineno


@pytest.mark.parametrize("fn, args", [
    (max_in_branch, (np.zeros(0), -1.0)), (argmax_in_ternary, (np.array([0.3, 0.5]), -1.0)),
    (min_of_rows, (np.zeros((2, 0)), -1.0)),
], ids=lambda v: getattr(v, "__name__", None))
def test_a_branch_not_taken_reduces_nothing_quietly(fn, args):
    assert catad.value_and_grad(fn)(*args)[0] == fn(*args) == 0.0


def test_lanes_a_branch_discards_may_be_empty():
    agrees(ragged_guarded, np.array([0.5, 2.0, 1.0, 3.0]))
