"""Dict comprehensions over items known while compiling (comprehensions.x_DictComp): a dict's keys,
values or items (a gradient step on a dict of parameters), a tuple, enumerate of a tuple, a range
of constant bounds; a dict of string or int keys, Python's order. Over a range of bounds known
only when the function runs (or an array) it is refused, located: a dict's keys are part of its
structure. Oracle: the user's function itself (located.agrees, located.field_differences). catad
refused every dict comprehension on main."""
import numpy as np
import pytest

import catad
from located import agrees, field_differences, refused


def after_a_step(p, g):
    new = {k: p[k] - 0.1 * g[k] for k in p}
    return sum(np.sum(v ** 2) for v in new.values())


def scaled_items(p, x):
    scaled = {k: v * x for k, v in p.items()}
    return np.sum(scaled["w"]) + scaled["b"] * len(scaled)


def over_a_range(x):
    d = {i: x[i] ** 2 for i in range(3)}
    return d[0] + 2 * d[2] + len({i: 0.0 for i in range(3, 0, -1)})


def over_named_items(x):
    d = {name: x[k] for k, name in enumerate(("a", "b", "c"))}
    return d["a"] * d["c"] - d["b"]


def repeated_key(x):
    d = {name: x[k] for k, name in enumerate(("a", "b", "a"))}  # Python: "a" first, with its last value
    return d["a"] * 3.0 + d["b"] + len(d)


P = {"w": np.array([0.3, -0.7, 1.1]), "b": 0.5}
G = {"w": np.array([0.2, 0.4, -0.6]), "b": -0.2}
X = np.array([0.3, -0.7, 1.1, 0.4])


@pytest.mark.parametrize("f, rest", [(after_a_step, (G,)), (scaled_items, (0.7,))])
def test_of_a_dict(f, rest):
    value, grad = catad.value_and_grad(f)(P, *rest)
    assert value == pytest.approx(f(P, *rest), rel=1e-12)
    want = field_differences(f, P, rest)
    assert list(grad) == list(want)
    for k in want:
        np.testing.assert_allclose(grad[k], want[k], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f", [over_a_range, over_named_items, repeated_key])
def test_of_known_items(f):
    agrees(f, X)


def over_a_length(x):
    d = {i: x[i] for i in range(len(x))}  # ERR
    return d[0]


def with_a_filter(x):
    d = {i: x[i] for i in range(3) if i > 0}  # ERR
    return d[1]


def test_refused():
    refused(over_a_length, (X,), "runs over items known while compiling")
    refused(with_a_filter, (X,), "one for clause and no filter")
