"""itertools.combinations and itertools.product where their items are taken as they are made (a
generator given to sum, max or min, and a for loop): the for clauses over indices they stand for,
in Python's order, over a range or a named sequence, r of 2 or 3, product's repeat=. They were
refused. A loop over one with a break (which would leave only catad's inner loop) is refused.
Oracle: the function itself and central differences."""
import itertools
from itertools import combinations, product

import numpy as np
import pytest

from located import agrees, refused

V = np.array([1.0, 2.5, -0.5, 3.0])


def pair_energy(x, v):
    e = sum((v[i] - v[j]) ** 2 * x for i, j in itertools.combinations(range(len(v)), 2))
    for i, j in combinations(range(len(v)), 2):
        e = e + 1.0 / (abs(v[i] - v[j]) + x)
    return e


def items_of_a_sequence(x, v):
    t = sum(a * b * x for a, b in combinations(v, 2))
    for a, b in combinations(v, 2):
        t = t + a * b * x
    return t + sum(v[i] * v[j] * v[k] * x for i, j, k in combinations(range(len(v)), 3))


def products(x, v):
    n = len(v)
    t = sum(v[i] * v[j] * x for i, j in product(range(n), range(n)) if i != j)
    for i, j in product(range(n), repeat=2):
        t = t + v[i] * v[j] * x
    return t + sum(a * b for a, b in product(v, v)) * x


@pytest.mark.parametrize("f", [pair_energy, items_of_a_sequence, products], ids=lambda f: f.__name__)
@pytest.mark.parametrize("v", [V, V[:1], V[:2]], ids=["four", "one", "two"])
def test_values_and_derivatives(f, v):
    agrees(f, 0.7, v)


def with_a_break(x, v):
    for i, j in combinations(range(len(v)), 2):  # ERR
        if v[i] > 100.0:
            break
    return x


def test_a_break_refused():
    refused(with_a_break, (0.7, V), "break")


# A review found these wrong: Python reads the iterables (a range's bounds) once, when the call
# runs, and the loop's targets hold the last item after it.

def bound_rebound(x, v):
    n = 4
    t = 0.0
    for i, j in combinations(range(n), 2):
        t = t + x * (i + 10 * j)
        n = 2
    return t


def target_named_as_a_bound(x, v):
    n = 3
    t = sum(x * (n + 10 * j) for n, j in product(range(3), range(n)))
    for i, n in combinations(range(n + 1), 2):
        t = t + x * (i + 10 * n)
    return t


def targets_after_an_empty_product(x, v):
    a = 7
    for a, b in product(range(3), range(0)):
        pass
    return x * a


@pytest.mark.parametrize("f", [bound_rebound, target_named_as_a_bound, targets_after_an_empty_product],
                         ids=lambda f: f.__name__)
def test_iterables_read_once(f):
    agrees(f, 0.7, V)


def sequence_written(x, v):
    xs = v * x
    t = 0.0
    for a, b in combinations(xs, 2):
        t = t + a * b
        xs[2] = 0.0  # ERR
    return t


def test_a_sequence_written_in_the_loop_refused():
    refused(sequence_written, (0.7, V), "xs")
