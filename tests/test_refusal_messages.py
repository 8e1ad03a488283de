"""Refusals name the construct the user wrote (found by differential testing, trial 6: an
assignment into a dict was "changes the array 'd'", a float into a bool array "the branches of
an if have different types", `while n:` "the condition of this not", and np.quantile's method
"must be one of , or 'linear'"). Each function marks its offending line with `# ERR`."""
import numpy as np
import pytest

from catad import CatadTypeError, UnsupportedSyntax
from located import refused

X = np.array([0.5, -1.25, 2.0])
STATE = {"calls": 0}


def into_a_dict(x):
    d = {"s": x * 1.0}
    d["s"] += x  # ERR
    return np.sum(d["s"])


def into_a_global_dict(x):
    STATE["calls"] += 1  # ERR
    return x * 2.0


def float_into_bools(x):
    m = [True, False, True]  # (into an array of bools: NumPy's cast, tests/test_numbers_into_bool_arrays.py)
    m[0] = x[0]  # ERR
    return x[0]


def quantile_method(x):
    return np.quantile(x, 0.3, method="lower")  # ERR


@pytest.mark.parametrize("fn, args, cls, words", [
    (into_a_dict, (X,), UnsupportedSyntax, ["d['s'] op= ...", "in place"]),
    (into_a_global_dict, (1.0,), UnsupportedSyntax, ["'STATE', a global"]),
    (float_into_bools, (X,), CatadTypeError, ["a Float into a list of bools", "l[i] = x[i] != 0"]),
    (quantile_method, (X,), CatadTypeError, ["method 'lower' of np.quantile() is not supported", "'linear'"]),
], ids=lambda v: getattr(v, "__name__", None))
def test_refusals_name_what_was_written(fn, args, cls, words):
    refused(fn, args, *words, cls=cls)
