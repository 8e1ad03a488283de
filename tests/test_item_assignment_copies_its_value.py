"""What is written into an array's elements is copied there: after `out[i] = out[j]` or
`m[0] = b`, the array refers to nothing else, and assigning into it again, or into b, is NumPy's
update of one array. catad took the value's arrays to be shared (after `out[i] = out[i - 1]` in a
loop, `out[1] = x` was refused as a write into an array that may share its memory; fuzzer seeds
3260103, 3260109). A list or a dict holds what is assigned into it: writing into the array after
that stays refused. Each function is called itself."""
import numpy as np
import pytest

from located import agrees, refused


def shifted(x, v):
    out = np.zeros(len(v))
    for i in range(len(v)):
        out[i] = out[i - 1]
    out[1] = x
    return np.sum(out * v)


def shifted_rows(x, m):
    out = m[:, -1].copy()
    for i in range(m.shape[0]):
        out[i] = out[i - 1]
    out[0] = x * 2.0
    out -= np.arctan(m[:, 0])
    return np.sum(out)


def row_copied(x, v):
    b = v * 1.0
    m = np.zeros((2, 3))
    m[0] = b
    b[0] = x  # m[0] keeps b's values from before
    m[1, 2] = x * x
    return np.sum(m) + np.sum(b * b)


def held_by_a_dict(x, v):
    a = v * 1.0
    d = {"k": v}
    d["k"] = a
    a[0] = x  # ERR
    return np.sum(d["k"])


def held_by_a_list(x, v):
    a = v * 1.0
    items = [v, v]
    items[0] = a
    a[0] = x  # ERR
    return np.sum(items[0])


@pytest.mark.parametrize("f, args", [(shifted, (1.5, np.array([1.0, 2.0, 3.0]))),
                                     (shifted_rows, (1.5, np.array([[0.5, 1.0], [2.0, -1.0], [1.5, 0.25]]))),
                                     (row_copied, (1.5, np.array([1.0, 2.0, 3.0])))],
                         ids=lambda a: a.__name__ if callable(a) else None)
def test_values(f, args):
    agrees(f, *args)


@pytest.mark.parametrize("f", [held_by_a_dict, held_by_a_list], ids=lambda f: f.__name__)
def test_a_list_or_dict_holds_what_is_assigned(f):
    refused(f, (1.5, np.array([1.0, 2.0, 3.0])), "share its memory")
