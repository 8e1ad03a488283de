"""A dict of parameters as real code uses it: d.get(key, default), d.copy(), dict(d), dict(d, k=v),
dict(k=v) and {**d, "k": v}, each a dict of the keys known while compiling (a key the dict lacks
gives the default; a copy is a new dict, whose keys can be assigned). All were refused (a corpus
of realistic functions met them). Oracle: the function itself and central differences."""
import numpy as np
import pytest

import catad
from catad import CatadError
from located import marked_line


def got(x, p):
    return p.get("s", 1.0) * x + p.get("missing", 2.0) * x + p.get("a") * x


def copied_and_changed(x, p):
    q = dict(p)
    q["a"] = 2.0 * x
    r = p.copy()
    r["s"] = r["s"] * x
    return q["a"] + p["a"] * x + r["s"] + p["s"]


def with_keywords(x, p):
    q = dict(p, a=3.0 * x, c=x)
    r = dict(a=x, b=2.0)
    return q["a"] + q["c"] * q["s"] + len(q) + r["a"] * r["b"]


def arrays(x, p):
    q = {**p, "w": p["w"] * x}
    return np.sum(q["w"] * p.get("w", np.zeros(2)))


P = {"a": 1.5, "s": 2.0}


@pytest.mark.parametrize("f", [got, copied_and_changed, with_keywords], ids=lambda f: f.__name__)
def test_values_and_gradients(f):
    value, grad = catad.value_and_grad(f)(0.7, dict(P))
    assert value == pytest.approx(f(0.7, dict(P)), rel=1e-12)
    assert grad == pytest.approx((f(0.7 + 1e-6, dict(P)) - f(0.7 - 1e-6, dict(P))) / 2e-6, rel=1e-6)


def test_unpacked():
    def g(x, p):
        q = {**p, "a": 2.0 * x}
        first = {"z": x, **p}
        return q["a"] * q["s"] + len(q) + sum(v for v in first.values()) * x
    value, grad = catad.value_and_grad(g)(0.7, dict(P))
    assert value == pytest.approx(g(0.7, dict(P)), rel=1e-12)
    assert grad == pytest.approx((g(0.7 + 1e-6, dict(P)) - g(0.7 - 1e-6, dict(P))) / 2e-6, rel=1e-6)


def test_a_dict_of_arrays():
    p = {"w": np.array([1.0, 2.0]), "a": 0.5}
    value, grad = catad.value_and_grad(arrays)(0.7, p)
    assert value == pytest.approx(arrays(0.7, p), rel=1e-12)
    assert grad == pytest.approx(5.0, rel=1e-12)


def missing(x, p):
    return p.get("nope") * x  # ERR


def default_that_raises(x, p):
    return p.get("a", 1.0 / (x - x)) * x  # ERR


def refused(f, args, word):
    """catad refuses f (a dict argument: compiled by the call) at the line marked # ERR."""
    with pytest.raises(CatadError) as info:
        catad.value_and_grad(f)(*args)
    assert info.value.construct and info.value.loc.line == marked_line(f), str(info.value)
    assert word in str(info.value)


def test_a_missing_key_without_a_default_refused():
    with pytest.raises(TypeError):
        missing(0.7, dict(P))
    refused(missing, (0.7, dict(P)), "give a default")


def test_a_default_that_may_raise_refused():
    with pytest.raises(ZeroDivisionError):
        default_that_raises(0.7, dict(P))
    refused(default_that_raises, (0.7, dict(P)), "default")


def float_key(x, p):
    d = {1: x}
    return d.get(1.0, 5.0) * x  # ERR


def test_a_key_equal_to_one_of_another_type_refused():
    assert float_key(0.7, dict(P)) == pytest.approx(0.49)  # Python finds the key 1 by 1.0
    refused(float_key, (0.7, dict(P)), "another type")
