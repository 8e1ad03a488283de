"""What a check in a branch not taken makes known about sizes holds only in that branch: an
if statement restored the sizes known equal after each arm, but not those known to be 1 or not,
which an equality carries over (np.dot(v, a) with len(a) known 1 made len(v) "one" for the rest of
the function), so np.where(a > x, w, 0.75) with len(a) == 1 and len(w) == 2 was refused with a
false ShapeError. Found by differential testing (session 18)."""
import numpy as np
import pytest

from located import agrees


def dot_in_a_branch_not_taken(w, x, v):
    a = v[:1]
    if x > 1.0:
        s = np.dot(v, a)
    return np.sum(np.where(a > x, w, 0.75))


def dot_in_an_else(w, x, v):
    a = v[:1]
    if x < 1.0:
        t = x * 2.0
    else:
        t = np.dot(v, a)
    return np.sum(np.where(a > x, w, 0.75)) + t


def broadcast_after_the_branch(w, x, v):
    a = v[:1]
    if x > 1.0:
        s = np.dot(v, a)
    return np.sum(a * w + v[:2] * x)


@pytest.mark.parametrize("f", [dot_in_a_branch_not_taken, dot_in_an_else, broadcast_after_the_branch],
                         ids=lambda f: f.__name__)
def test_a_size_known_one_in_a_branch_is_not_known_after_it(f):
    agrees(f, np.array([1.0, 2.0]), 0.1, np.array([0.5, 1.0, 2.0]), argnums=(0, 1))
