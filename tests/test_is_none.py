"""`x is None` and `x is not None` (issue 16, Python forms): the optional argument of real code,
`def f(x, w=None): if w is None: w = ...`. The test is known while compiling (a value catad
computes with is never None; a default, global or argument that is None is compared at each
call), so only the branch Python runs is lowered. Values against calling the function itself,
gradients against central differences."""
import numpy as np
import pytest

import catad
from catad import ArgumentError, UnsupportedSyntax
from catad.frontend import compile_function
from test_python_forms import agrees
from located import marked_line

X = np.array([0.3, -1.2, 0.8, 2.0])
W = np.array([1.5, 0.5, -2.0, 0.25])


def weighted(x, w=None):
    if w is None:
        w = np.ones_like(x)
    return np.sum(w * x ** 2)


def optional_bias(x, w=None, b=None):
    s = np.sum(x ** 3) if w is None else np.sum(w * np.sin(x))
    if b is not None:
        s = s + b * np.sum(x)
    return s


def returns_early(x, scale=None):
    if scale is None:
        return np.sum(np.exp(x))
    return scale * np.sum(np.exp(x))


def helper(v, s):
    return np.sum(v * v) if s is None else np.sum(v * s)


def passes_none(x):
    return helper(x, None) + helper(x, 2.0 * x) + weighted(x) + weighted(x, x)


def local_defaults(x):
    def inner(v, s=None):
        return np.sum(np.cos(v)) if s is None else np.sum(v * s)
    return inner(x) + inner(x, None) + inner(x, x) + (lambda v, s: np.sum(v) if s is None else 0.0)(x, None)


def default_function(x, act=np.tanh):
    return np.sum(act(x)) if act is not None else 0.0


@pytest.mark.parametrize("f, args", [
    (weighted, (X,)), (weighted, (X, W)),
    (optional_bias, (X,)), (optional_bias, (X, W)), (optional_bias, (X, W, 0.7)),
    (returns_early, (X,)), (returns_early, (X, 3.0)),
    (passes_none, (X,)), (local_defaults, (X,)), (default_function, (X,)),
])
def test_is_none_agrees(f, args):
    agrees(f, *args)


def test_is_none_by_keyword():
    # w, skipped before b, is given its default None: an argument that is None (catad.trees)
    value, g = catad.value_and_grad(optional_bias)(X, b=0.5)
    assert value == pytest.approx(optional_bias(X, b=0.5), rel=1e-12)
    np.testing.assert_allclose(g, 3 * X ** 2 + 0.5, rtol=1e-12)


def test_none_passed_explicitly():
    agrees(optional_bias, X, None, 0.5, argnums=(0, 2))
    g = catad.grad(optional_bias, argnums=(0, 1, 2))(X, None, 0.5)
    assert g[1] is None  # the gradient of None is None, as with JAX's pytrees
    out, t = catad.jvp(optional_bias, (X, None, 0.5), (W, None, 2.0))
    eps = 1e-6
    fd = (optional_bias(X + eps * W, None, 0.5 + eps * 2.0) - optional_bias(X - eps * W, None, 0.5 - eps * 2.0)) / (2 * eps)
    assert out == pytest.approx(optional_bias(X, None, 0.5), rel=1e-12) and t == pytest.approx(fd, rel=1e-6)
    _, back = catad.vjp(optional_bias, X, None, 0.5)
    cts = back(2.0)
    assert cts[1] is None and cts[2] == pytest.approx(2.0 * np.sum(X))
    jac = catad.jacobian(weighted, argnums=(0, 1))(X, None)
    np.testing.assert_allclose(jac[0], 2 * X)
    assert jac[1] is None
    with pytest.raises(ArgumentError, match="must be None"):
        catad.jvp(optional_bias, (X, None, 0.5), (W, W, 2.0))


def counts(x, items):
    return np.sum(x) * len(items)


@pytest.mark.parametrize("empty", [[], {}, ()])
def test_an_empty_argument_has_an_empty_gradient(empty):
    g = catad.grad(counts, argnums=(0, 1))(X, empty)
    np.testing.assert_allclose(g[0], np.zeros(4))
    assert g[1] == empty and type(g[1]) is type(empty)


SWITCH = None


def reads_global(x):
    if SWITCH is None:
        return np.sum(x ** 2)
    return np.sum(SWITCH * x)


def test_a_global_none_is_read_at_each_call():
    global SWITCH
    try:
        SWITCH = None
        np.testing.assert_allclose(catad.grad(reads_global)(X), 2 * X)
        SWITCH = W  # no longer None: compiled again, the other branch
        np.testing.assert_allclose(catad.grad(reads_global)(X), W)
        SWITCH = None
        np.testing.assert_allclose(catad.grad(reads_global)(X), 2 * X)
    finally:
        SWITCH = None


def a_default_replaced(x, w=None):
    return np.sum(x) if w is None else np.sum(w * x)


def test_a_replaced_default_is_read_at_each_call():
    np.testing.assert_allclose(catad.grad(a_default_replaced)(X), np.ones(4))
    a_default_replaced.__defaults__ = (W,)
    try:
        np.testing.assert_allclose(catad.grad(a_default_replaced)(X), W)
    finally:
        a_default_replaced.__defaults__ = (None,)
    np.testing.assert_allclose(catad.grad(a_default_replaced)(X), np.ones(4))


def none_as_a_value(x, w=None):
    return np.sum(w * x)  # ERR


def is_an_array(x, w):
    return np.sum(x) if x is w else 0.0  # ERR


@pytest.mark.parametrize("fn, args, words", [
    (none_as_a_value, (X,), "NoneType"),
    (is_an_array, (X, X), "only against None"),
])
def test_refusals(fn, args, words):
    with pytest.raises(UnsupportedSyntax) as info:
        compile_function(fn, args)
    e = info.value
    assert e.loc is not None and (e.loc.file, e.loc.line) == (__file__, marked_line(fn)), str(e)
    assert words in str(e)


# ---------------------------------------------------------------- None inside dict and list globals

CONFIG = {"reg": None, "scale": 2.0}
LAYERS = [None, 0.5]


def configured(x):
    s = x * CONFIG["scale"]
    if CONFIG["reg"] is not None:
        s = s + CONFIG["reg"] * np.sin(x)
    for w in LAYERS:
        if w is not None:
            s = s * w
    return np.sum(s ** 2)


def test_none_inside_dict_and_list_globals_is_read_at_each_call():
    try:
        agrees(configured, X)
        CONFIG["reg"] = 0.75  # the None is compared at each call: a value compiles again
        agrees(configured, X)
        LAYERS[0] = 3.0
        agrees(configured, X)
        CONFIG["reg"], LAYERS[0] = None, None
        agrees(configured, X)
    finally:
        CONFIG["reg"], LAYERS[0] = None, None


def none_item_used(x):
    return np.sum(x * CONFIG["reg"])  # ERR


def test_a_none_item_used_as_a_value_is_refused_where_it_is_used():
    with pytest.raises(TypeError):
        none_item_used(X)
    with pytest.raises(catad.CatadTypeError) as info:
        compile_function(none_item_used, (X,))
    e = info.value
    assert (e.loc.file, e.loc.line) == (__file__, marked_line(none_item_used))
    assert "CONFIG['reg'] is None" in str(e)
