"""User functions that raise (tests/test_raise_assert.py), in a module of their own: pytest
rewrites the asserts of test modules, which would change Python's messages."""
import numpy as np


def validate(x, w):
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got shape {x.shape}")  # ERR
    if len(x) != len(w):
        raise ValueError(f"x and w differ in length: {len(x)} and {len(w)}")
    assert np.all(w >= 0), "weights must be non-negative"
    return np.sum(w * x ** 2)


def tolerance(x, tol):
    small = tol > -1
    if tol <= 0:
        raise ValueError(f"tol must be positive, got {tol:.3g} ({small})")
    return np.sum(np.sin(x)) * tol


def modes(x, mode):
    if mode == 0:
        y = x * 2
    elif mode == 1:
        y = x ** 2
    else:
        raise NotImplementedError(f"mode {mode}")
    return np.sum(y)


def independent_loop(x):
    acc = 0.0
    for i in range(len(x)):
        if x[i] < -5.0:
            raise ValueError(f"element {i} is {x[i]}, below -5")
        acc = acc + x[i] ** 2
    return acc


def dependent_loop(x):
    s = 1.0
    for i in range(len(x)):
        s = s * 0.5 + x[i]
        if s > 10.0:
            raise OverflowError(f"step {i}: s = {s}")
    return s


def by_rank(x):
    if x.ndim == 1:
        return x * 2.0
    raise TypeError("x must be a vector")


def bare_assert(x):
    assert len(x) > 2
    return np.sum(x ** 3)


def else_raises(x):
    if np.sum(x) > 0:
        y = np.log(np.sum(x))
    else:
        raise ArithmeticError
    return y


def _positive(v):
    if np.min(v) <= 0:
        raise ValueError("not positive")
    return np.log(v)


def with_helper(x):
    return np.sum(_positive(x) * x)


def _raise(e):
    raise e


def bare_raise(x):
    if x < 0:
        raise  # ERR
    return x


def own_class(x):
    if x < 0:
        raise _Own("no")  # ERR
    return x


class _Own(Exception):
    pass


def shows_repr(x):
    assert x > 0, f"{x!r}"  # ERR
    return x


def shows_array(x):
    assert np.all(x > 0), f"bad {x}"  # ERR
    return np.sum(x)


def lazy_message(x):
    assert np.all(x > 0), f"first {x[0]}, total {np.sum(x)}"  # x[0] is read only when the assert fails
    return np.sum(x ** 2)


def two_args(x):
    if x < 0:
        raise ValueError("bad", x)  # ERR
    return x


def _always(x):
    raise ValueError("never works")  # ERR


def helper_always(x):
    return _always(x) + x


def rank_first(x):
    if x.ndim != 1:
        raise ValueError(f"x must be 1-D, got {x.ndim}-D")
    n = x.shape[0]
    return np.sum(x * np.arange(n))  # on a matrix: x * a vector of its rows' length would not broadcast


def assert_rank(x):
    assert x.ndim == 2 and x.shape[1] == 3, f"want (n, 3), got {x.shape}"
    return np.sum(x @ np.ones(3))
