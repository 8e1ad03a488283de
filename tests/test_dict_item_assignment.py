"""d[key] = value and d[key] op= e of a dict made in the function that nothing else refers to
(updates.dict_assignment): d becomes the dict with the value at key, a new key last (Python's
dicts keep their order); a dict may be a loop's state, keeping its keys. A dict that may be
shared (a parameter, a second name, an item of a list or tuple, a loop over its keys), op= of an
array it holds (Python's changes the array in place, and every name for it), a key the body of a
loop adds, and op= of a missing key (Python's KeyError) are refused."""
import numpy as np
import pytest

import catad
from located import agrees, refused


def from_empty(x, v):
    d = {}
    d["a"] = x * 2
    d["b"] = v * x
    return d["a"] + np.sum(d["b"])


def replaced_and_added(x, v):
    d = {"a": x, "b": v}
    d["a"] = d["a"] * 3
    d["c"] = np.sum(d["b"]) * x
    d["b"] = d["b"] + x
    d["a"] -= 0.5
    d["c"] *= d["a"]
    return d["a"] + d["c"] + np.sum(d["b"]) + np.sum(v)


def order_kept(x, v):
    d = {"b": x}
    d["a"] = 2.0 * x
    d["b"] = 3.0 * x
    total = 0.0
    for k in d:
        total = total * 10.0 + d[k]
    return total


def loop_state(x, v):
    d = {"a": x, "w": v}
    for i in range(3):
        d["a"] = d["a"] * x + np.sum(d["w"])
        d["w"] = d["w"] * 0.5
    return d["a"] + np.sum(d["w"])


def gradients_by_name(x, v):
    grads = {}
    for name, val in (("w", x), ("b", x * x)):
        grads[name] = val * 2
    return grads["w"] + grads["b"]


def in_a_branch(x, v):
    d = {"a": x, "b": 1.0}
    if x > 1.0:
        d["a"] = 2 * x
    else:
        d["b"] = x
    return d["a"] * d["b"]


def type_changed(x, v):
    d = {"w": v * 2.0}
    d["w"] = x
    return d["w"] + x


@pytest.mark.parametrize("f", [from_empty, replaced_and_added, order_kept, loop_state, gradients_by_name,
                               in_a_branch, type_changed], ids=lambda f: f.__name__)
@pytest.mark.parametrize("x", [1.5, 0.5])
def test_values_as_python(f, x):
    agrees(f, x, np.array([1.0, 2.0]), argnums=(0, 1))


def aliased(x, v):
    d = {"a": x}
    e = d
    d["a"] = 5.0  # ERR
    return e["a"] * x


def in_a_list(x, v):
    d = {"a": x}
    ds = [d]
    d["a"] = 2.0  # ERR
    return ds[0]["a"] * x


def parameter(x, d):
    d["a"] = 2.0  # ERR
    return d["a"] * x


def over_its_keys(x, v):
    d = {"a": x, "b": 2.0}
    for k in d:
        d[k] = d[k] * x  # ERR
    return d["a"] + d["b"]


def array_in_place(x, v):
    d = {"b": v}
    d["b"] += x  # ERR
    return np.sum(v)


def key_added_in_a_loop(x, v):
    d = {"a": x}
    for i in range(2):  # ERR
        d["b"] = x
    return d["a"]


def missing_key(x, v):
    d = {"a": x}
    d["z"] += 1.0  # ERR
    return d["a"]


@pytest.mark.parametrize("f, words", [
    (aliased, ["changes the dict 'd'", "shared"]), (in_a_list, ["changes the dict 'd'"]),
    (over_its_keys, ["changes the dict 'd'"]),
    (array_in_place, ["in place"]), (key_added_in_a_loop, ["keys 'a' before the loop", "'a', 'b' after"]),
    (missing_key, ["KeyError: 'z'"])], ids=lambda c: getattr(c, "__name__", ""))
def test_refused(f, words):
    refused(f, (1.5, np.array([1.0, 2.0])), *words)


def test_a_parameter_dict_is_refused():
    with pytest.raises(catad.CatadError, match="changes the dict 'd'"):
        catad.grad(parameter)(1.5, {"a": 1.0})
