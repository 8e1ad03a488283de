"""``with np.errstate(...):`` (catad/frontend/errstate.py): its body compiles as if the with
statement were not there where its settings are 'ignore', 'warn' or 'print' (catad computes
NumPy's values, infs and NaNs included); 'raise' and 'call', and any other with statement, are
refused, located at the setting or the statement. The oracle is the user's function itself
(located.agrees: its value and central differences). All but the refusal of other with
statements fail on main, which refused every with statement."""
import numpy as np
import pytest

import catad
from located import agrees, refused


def logs_ignoring_zeros(x):
    with np.errstate(divide='ignore'):
        y = np.log(np.abs(x))
    return np.sum(y)


def nested_in_a_loop(x):
    s = 0.0
    for t in x:
        with np.errstate(all='ignore', invalid='warn'):
            if t > 0:
                s += np.sqrt(t)
            else:
                continue
        s = s * 0.5
    return s


def returns_inside(x):
    with np.errstate(over='ignore'), np.errstate(under='print'):
        return np.sum(np.exp(x * 2.0))


def in_a_nested_def(x):
    def g(z):
        with np.errstate(invalid='ignore'):
            w = np.sqrt(z)
        return np.where(z > 0, w, 0.0)
    return np.sum(g(x) * x)


V = np.array([0.3, -0.7, 1.1, 0.4, 2.5])


@pytest.mark.parametrize("f", [logs_ignoring_zeros, nested_in_a_loop, returns_inside, in_a_nested_def])
@pytest.mark.parametrize("v", [V, np.abs(V)])
def test_the_body_computes(f, v):
    agrees(f, v)


def test_values_at_a_zero_are_numpys():
    v = np.array([0.0, 1.5])
    assert catad.value_and_grad(logs_ignoring_zeros)(v)[0] == -np.inf == logs_ignoring_zeros(v)


def raises_on_division(x):
    with np.errstate(divide='raise'):  # ERR
        y = 1.0 / x
    return np.sum(y)


def calls_a_function(x):
    with np.errstate(call=print):  # ERR
        y = 1.0 / x
    return np.sum(y)


def keeps_the_state(x):
    with np.errstate(all='ignore') as state:  # ERR
        y = x * 2.0
    return np.sum(y)


class Context:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def errstate():
    return Context()


def another_context(x):
    with errstate():  # ERR
        y = x * 2.0
    return np.sum(y)


@pytest.mark.parametrize("f, words", [(raises_on_division, ["'ignore', 'warn' or 'print'", "FloatingPointError"]),
                                      (calls_a_function, ["np.errstate(call=...) is not supported"]),
                                      (keeps_the_state, ["with statements are not supported"]),
                                      (another_context, ["with statements are not supported (but for np.errstate)"])])
def test_refused(f, words):
    refused(f, (V,), *words)
