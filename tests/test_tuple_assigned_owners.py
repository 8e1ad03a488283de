"""a, b = [x], [y] (or np.zeros(n), v.copy()) gives each name a list or array of its own, which it
may then grow or write into, as when they are assigned one per line; catad refused it ("this
changes the list 'a', which another value may refer to"). A name given what another name holds
(a, b = w, w) still may not write into it. Oracle: the function itself."""
import numpy as np
import pytest

import catad
from located import agrees, refused


def lists(x, v):
    a, b = [x], [x * 2.0]
    a.append(x)
    b.append(3.0)
    return sum(a) + sum(b)


def arrays(x, v):
    a, b = np.zeros(3), v.copy()
    a[0] = x
    b[1] = x * 2.0
    return np.sum(a) + np.sum(b) + np.sum(v)


def shared(x, v):
    w = v * 1.0
    a, b = w, w
    a[0] = x  # ERR
    return np.sum(b)


@pytest.mark.parametrize("f", [lists, arrays], ids=lambda f: f.__name__)
def test_each_owns_its_own(f):
    agrees(f, 0.7, np.array([1.0, 2.0, 3.0]))


def test_a_shared_array_is_not_written_into():
    refused(shared, (0.7, np.array([1.0, 2.0, 3.0])), "share its memory")
