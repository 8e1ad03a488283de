"""Calls of your own functions with *args and **kwargs, as Python binds them: `def f(x, **opts)`
receives the keywords no parameter takes as a dict; `g(*t, **d)` passes the items of a tuple or
list and of a dict known while compiling. Values and gradients against Python's own call and
central differences; what cannot be compiled is a located refusal."""
import numpy as np
import pytest

import catad
from catad import ArgumentError, CatadTypeError, UnsupportedSyntax
from located import agrees, refused

X = np.array([0.3, 0.7, 1.1])


def scaled(x, **opts):
    return x * opts["scale"] + opts["shift"]


def keywords_collected(x):
    return np.sum(scaled(x, scale=2.0, shift=x[1]) ** 2)


def test_kwargs_collects_the_keywords_no_parameter_takes():
    agrees(keywords_collected, X)


def inner(x, a, b=1.0):
    return np.sin(a * x) * b


def passes_on(x, *args, **kw):
    return inner(x, *args, **kw)


def forwarded(x):
    t = (2.0,)
    d = {"b": x[0]}
    return np.sum(passes_on(x, *t, **d)) + np.sum(passes_on(x, 3.0)) + np.sum(passes_on(x, a=x[2]))


def test_a_wrapper_passes_its_args_and_kwargs_on():
    agrees(forwarded, X)


def counts(x, **kw):
    return np.sum(x ** 2) * (1 + len(kw))


def no_keywords_given(x):
    return counts(x) + counts(x, c=1.0, d=x)


def test_kwargs_without_keywords_is_an_empty_dict():
    agrees(no_keywords_given, X)
    agrees(counts, X)  # the differentiated function itself, called without keywords


def lists_and_dicts(x, params):
    layer = {"w": params["w"], "b": params["b"]}
    return np.sum(np.tanh(inner(x, *[params["a"]], **{"b": 2.0})) + affine(x, **layer))


def affine(x, w, b):
    return w * x + b


def test_displays_and_dict_arguments_unpacked():
    params = {"w": 0.4, "b": -0.2, "a": 1.3}
    value, g = catad.value_and_grad(lists_and_dicts, argnums=(0, 1))(X, params)
    assert value == pytest.approx(lists_and_dicts(X, params), rel=1e-12)
    assert set(g[1]) == {"w", "b", "a"}
    agrees(lists_and_dicts_x, X)


def lists_and_dicts_x(x):
    return lists_and_dicts(x, {"w": 0.4, "b": -0.2, "a": x[0]})


def test_keywords_of_the_differentiated_function_are_refused():
    with pytest.raises(ArgumentError, match=r"would take 'b' through \*\*kw"):
        catad.grad(counts)(X, b=1.0)
    with pytest.raises(TypeError):  # Python refuses the first: catad must not accept it silently
        counts(X, 1.0)
    with pytest.raises(ArgumentError, match=r"counts takes 1 argument\(s\) \(x, \*\*kw\) but it was called with 2"):
        catad.grad(counts)(X, 1.0)


def twice(x):
    d = {"a": 1.0}
    return inner(x, 2.0, **d, a=3.0)  # ERR


def repeated(x):
    return scaled(x, x=1.0)  # ERR


def star_of_array(v):
    return inner(*v)  # ERR


def star_into_numpy(x):
    t = (x, 0)
    return np.sum(*t)  # ERR


def kwargs_into_numpy(x):
    d = {"axis": 0}
    return np.sum(x, **d)  # ERR


def computed(x):
    return np.sum(inner(*(lambda: (x, 2.0))()))


def computed_once(x):
    pair = (x, 2.0)
    return np.sum(inner(*pair, **{"b": x[0]}))


def test_unpacked_values_computed_in_the_call_or_named():
    agrees(computed, X)
    agrees(computed_once, X)


def test_refusals_are_located_and_say_what_python_says():
    e = refused(twice, (X,), "multiple values for keyword argument 'a'", cls=CatadTypeError)
    with pytest.raises(TypeError, match="multiple values for keyword argument 'a'"):
        twice(X)
    refused(repeated, (X,), "multiple values for argument 'x'", cls=CatadTypeError)
    refused(star_of_array, (np.ones(3),), "*v", "a tuple or a list", cls=UnsupportedSyntax)
    refused(star_into_numpy, (X,), "*args in a call of np.sum", cls=UnsupportedSyntax)
    refused(kwargs_into_numpy, (X,), "**kwargs in a call of np.sum", cls=UnsupportedSyntax)
    assert e.construct == "call"
