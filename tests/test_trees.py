"""Arguments and results as trees (issue 16, item 4): tuples, lists and dicts, nested, of
floats and arrays, as parameters, as globals read at each call, and as results of vjp, jvp,
jacobian and linearize; grad returns a gradient with the argument's structure.

Every value is checked against calling the function itself, every derivative against
central differences over each leaf of the tree."""
import copy

import numpy as np
import pytest

import catad
from catad import ArgumentError, CatadError, CatadTypeError

RNG = np.random.default_rng(16)


# ---------------------------------------------------------------- trees of leaves, for the oracles

def leaves(tree):
    """(path, value) of every float or array in a tree, in order."""
    if isinstance(tree, dict):
        return [(( k,) + p, v) for k, x in tree.items() for p, v in leaves(x)]
    if isinstance(tree, (list, tuple)):
        return [((i,) + p, v) for i, x in enumerate(tree) for p, v in leaves(x)]
    return [((), tree)]


def replace(tree, path, value):
    if not path:
        return value
    if isinstance(tree, dict):
        out = dict(tree)
    else:
        out = list(tree)
    out[path[0]] = replace(tree[path[0]], path[1:], value)
    return out if not isinstance(tree, tuple) else tuple(out)


def at(tree, path):
    for k in path:
        tree = tree[k]
    return tree


def central(f, args, k, h=1e-6):
    """Central differences of f (float-valued) with respect to every leaf of args[k], as a
    tree like args[k]."""
    out = copy.deepcopy(args[k])
    for path, v in leaves(args[k]):
        g = np.zeros(np.shape(v))
        for idx in np.ndindex(*np.shape(v)):
            def moved(d):
                w = np.array(v, dtype=float)
                w[idx] += d
                a = list(args)
                a[k] = replace(args[k], path, w if np.ndim(v) else float(w))
                return f(*a)
            g[idx] = (moved(h) - moved(-h)) / (2 * h)
        out = replace(out, path, g if np.ndim(v) else float(g))
    return out


def same_structure(a, b):
    """The same containers (dict keys in order, lists, tuples); leaves of one shape (a float
    leaf may be a float or a NumPy float, as NumPy gives either)."""
    if isinstance(a, (dict, list, tuple)) or isinstance(b, (dict, list, tuple)):
        assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            same_structure(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            same_structure(x, y)
    else:
        assert np.shape(a) == np.shape(b)


def assert_close_tree(got, expected, rtol=1e-6, atol=1e-8):
    same_structure(got, expected)
    for (p, g), (_, e) in zip(leaves(got), leaves(expected)):
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol, err_msg=str(p))


# ---------------------------------------------------------------- functions over trees

def predict(p, x):
    h = np.tanh(p["W1"] @ x + p["b1"])
    return np.sum(p["W2"] @ h) + p["b2"]


def mlp_loss(params, x):
    return (predict(params, x) - 1.0) ** 2


def layers_loss(layers, x):
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return np.sum(x ** 2)


def nested_loss(model, x):
    enc = model["enc"]
    h = np.sin(enc["W"] @ x) * enc["scale"]
    for k, v in model["dec"].items():
        h = h + v * np.sum(h)
    return np.sum(h * h) + model["extra"][0] * np.sum(model["extra"][1])


def iterates_dict(params, x):
    s = 0.0
    for k, v in params.items():
        s = s + np.sum(v * v)
    for v in params.values():
        s = s + np.sum(np.sin(v))
    for k in params:
        s = s + np.sum(params[k]) * len(params)
    for k in params.keys():
        s = s + np.sum(params[k] ** 3)
    return s + np.sum(x)


def list_of_floats(coeffs, x):
    return sum(c * x ** k for k, c in enumerate(coeffs))


def _layer(p, x):
    return {"out": np.tanh(p["W"] @ x + p["b"]), "norm": np.sum(x * x)}


def calls_helper_with_dicts(p, x):
    r = _layer(p, x)
    return np.sum(r["out"]) * r["norm"]


def returns_dict(x, p):
    return {"y": p["W"] @ x, "s": np.sum(x * p["b"])}


def returns_list(x):
    return [x * 2.0, np.sum(x ** 2)]


X3 = np.array([0.3, -1.2, 0.8])


def comprehensions_over_trees(params, ws):
    reg = sum(np.sum(v ** 2) for v in params.values())
    fit = sum(np.sum(w * X3) ** 2 for w in ws)
    best = max(np.sum(w * X3) for w in ws)
    return reg + fit + best + sum(np.sum(params[k]) for k in params) + sum(np.sum(w) for i, w in enumerate(ws) if i > 0)


def net():
    return {"W1": RNG.normal(size=(4, 3)), "b1": RNG.normal(size=4), "W2": RNG.normal(size=(1, 4)), "b2": 0.3}


CASES = [
    (mlp_loss, lambda: (net(), RNG.normal(size=3))),
    (layers_loss, lambda: ([(RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=3)) for _ in range(3)],
                           RNG.normal(size=3))),
    (nested_loss, lambda: ({"enc": {"W": RNG.normal(size=(2, 3)), "scale": 0.7},
                            "dec": {"a": RNG.normal(size=2) * 0.3, "b": RNG.normal(size=2) * 0.3},
                            "extra": [1.5, RNG.normal(size=2)]}, RNG.normal(size=3))),
    (iterates_dict, lambda: ({"u": RNG.normal(size=3), "w": RNG.normal(size=(2, 2)), "c": 0.4},
                             RNG.normal(size=2))),
    (list_of_floats, lambda: ([0.5, -1.0, 2.0, 0.25], 0.7)),
    (comprehensions_over_trees, lambda: ({"a": RNG.normal(size=3), "b": RNG.normal(size=(2, 2)), "c": 0.5},
                                         [RNG.normal(size=3), RNG.normal(size=3) + 3.0])),
    (calls_helper_with_dicts, lambda: ({"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=2)},
                                       RNG.normal(size=3))),
]


@pytest.mark.parametrize("fn, make", CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_has_the_arguments_structure_and_matches_central_differences(fn, make):
    args = make()
    value, grads = catad.value_and_grad(fn, argnums=(0, 1))(*args)
    assert value == pytest.approx(fn(*args), rel=1e-12, abs=1e-12)
    for k in (0, 1):
        assert_close_tree(grads[k], central(fn, args, k))
    assert_close_tree(catad.grad(fn)(*args), grads[0], rtol=1e-13, atol=0)


@pytest.mark.parametrize("fn, make", CASES, ids=[c[0].__name__ for c in CASES])
def test_jvp_and_vjp_with_tree_tangents(fn, make):
    args = make()
    tangents = tuple(jiggle(a) for a in args)
    out, dout = catad.jvp(fn, args, tangents)
    assert out == pytest.approx(fn(*args), rel=1e-12)
    grads = catad.grad(fn, argnums=(0, 1))(*args)
    expected = sum(float(np.sum(g * t)) for k in (0, 1)
                   for (_, g), (_, t) in zip(leaves(grads[k]), leaves(tangents[k])))
    assert dout == pytest.approx(expected, rel=1e-10, abs=1e-12)
    out, vjp_fn = catad.vjp(fn, *args)
    cts = vjp_fn(2.0)
    for k in (0, 1):
        assert_close_tree(cts[k], scale(grads[k], 2.0), rtol=1e-12, atol=1e-14)


def jiggle(tree):
    out = tree
    for path, v in leaves(tree):
        w = RNG.normal(size=np.shape(v))
        out = replace(out, path, w if np.ndim(v) else float(w))
    return out


def scale(tree, c):
    out = tree
    for path, v in leaves(tree):
        out = replace(out, path, np.asarray(v) * c if np.ndim(v) else float(v) * c)
    return out


def test_results_as_dicts_and_lists():
    x = RNG.normal(size=3)
    p = {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=3)}
    out, vjp_fn = catad.vjp(returns_dict, x, p)
    assert_close_tree(out, returns_dict(x, p), rtol=1e-13, atol=0)
    ct = {"y": RNG.normal(size=2), "s": 0.7}
    dx, dp = vjp_fn(ct)
    # against the Jacobian of each output leaf, from central differences of <ct, f>
    pairing = lambda x, p: float(np.sum(returns_dict(x, p)["y"] * ct["y"]) + returns_dict(x, p)["s"] * ct["s"])
    assert_close_tree(dx, central(pairing, (x, p), 0))
    assert_close_tree(dp, central(pairing, (x, p), 1))
    dx_t = RNG.normal(size=3)
    dp_t = {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=3)}
    out2, tangent = catad.jvp(returns_dict, (x, p), (dx_t, dp_t))
    assert_close_tree(out2, out, rtol=0, atol=0)
    h = 1e-6
    plus = returns_dict(x + h * dx_t, {k: p[k] + h * dp_t[k] for k in p})
    minus = returns_dict(x - h * dx_t, {k: p[k] - h * dp_t[k] for k in p})
    assert_close_tree(tangent, {k: (plus[k] - minus[k]) / (2 * h) for k in plus})
    out, vjp_fn = catad.vjp(returns_list, x)
    assert type(out) is list and len(out) == 2
    (g,) = vjp_fn([np.ones(3), 1.0])
    np.testing.assert_allclose(g, 2.0 + 2 * x, rtol=1e-13)


def test_jacobian_and_linearize_with_dict_arguments():
    def f(p, x):
        return np.tanh(p["W"] @ x) * p["s"]
    p, x = {"W": RNG.normal(size=(2, 3)), "s": 1.3}, RNG.normal(size=3)
    J = catad.jacobian(f)(p, x)
    assert list(J) == ["W", "s"] and J["W"].shape == (2, 2, 3) and J["s"].shape == (2,)
    for i in range(2):
        row = lambda p, x: float(f(p, x)[i])
        assert_close_tree({k: J[k][i] for k in J}, central(row, (p, x), 0))
    out, lm = catad.linearize(f, p, x)
    np.testing.assert_allclose(out, f(p, x), rtol=1e-13)
    dp = {"W": RNG.normal(size=(2, 3)), "s": 0.5}
    dx = RNG.normal(size=3)
    expected = np.einsum("iab,ab->i", J["W"], dp["W"]) + J["s"] * dp["s"] + catad.jacobian(f, 1)(p, x) @ dx
    np.testing.assert_allclose(lm(dp, dx), expected, rtol=1e-10)
    ct = RNG.normal(size=2)
    gp, gx = lm.T(ct)
    assert list(gp) == ["W", "s"]
    np.testing.assert_allclose(gp["W"], np.einsum("i,iab->ab", ct, J["W"]), rtol=1e-10)


# ---------------------------------------------------------------- globals read at each call

CONFIG = {"scale": 2.0, "shift": np.array([1.0, -1.0, 0.5])}
WEIGHTS = [np.ones(3), np.arange(3.0)]


def reads_global_trees(x):
    s = 0.0
    for w in WEIGHTS:
        s = s + np.sum(w * x)
    return s * CONFIG["scale"] + np.sum(CONFIG["shift"] * x * x)


def test_global_dicts_and_lists_are_read_at_each_call():
    global CONFIG, WEIGHTS
    saved = CONFIG, WEIGHTS
    try:
        x = RNG.normal(size=3)
        for _ in range(2):
            assert catad.value_and_grad(reads_global_trees)(x)[0] == pytest.approx(reads_global_trees(x), rel=1e-13)
            np.testing.assert_allclose(catad.grad(reads_global_trees)(x), central(reads_global_trees, (x,), 0),
                                       rtol=1e-6)
            CONFIG = {"scale": -1.0, "shift": np.array([0.0, 2.0, 1.0])}  # new values, same keys
        CONFIG["extra"] = 1.0  # another key: compiled again, and still right
        WEIGHTS = WEIGHTS + [np.full(3, 0.5)]  # a longer list
        np.testing.assert_allclose(catad.grad(reads_global_trees)(x), central(reads_global_trees, (x,), 0),
                                   rtol=1e-6)
        CONFIG = {"shift": np.zeros(3), "scale": 3.0}  # the same keys in another order
        assert catad.value_and_grad(reads_global_trees)(x)[0] == pytest.approx(reads_global_trees(x), rel=1e-13)
    finally:
        CONFIG, WEIGHTS = saved


# ---------------------------------------------------------------- refusals: located, with advice

def missing_key(p, x):
    return np.sum(p["V"] * x)  # ERR


def unpacks_dict(p, x):
    a, b = p  # ERR
    return np.sum(a * x)


def key_as_value(p, x):
    s = 0.0
    for k in p:
        s = s + k  # ERR
    return s


def list_index_not_constant(ws, x, k):
    return np.sum(ws[k] * x)  # ERR: k is an argument, not known while compiling


def returns_two_structures(x):
    if x > 0:
        return {"a": x}
    return {"b": x}  # ERR


def err_line(fn):
    import inspect
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if "# ERR" in line)


@pytest.mark.parametrize("fn, args, cls, words", [
    (missing_key, ({"W": np.ones(2)}, np.ones(2)), CatadTypeError, ["KeyError", "'V'", "'W'"]),
    (unpacks_dict, ({"a": np.ones(2), "b": np.ones(2)}, np.ones(2)), CatadError, ["unpacking a dict", "keys"]),
    (key_as_value, ({"a": 1.0}, 1.0), CatadError, ["'k'", "key", "d[k]"]),
    (list_index_not_constant, ([np.ones(2), np.ones(2)], np.ones(2), 1), CatadError, ["list", "constant",
                                                                                     "np.array"]),
    (returns_two_structures, (1.0,), CatadError, ["a dict with keys 'b' here", "a dict with keys 'a' at another"]),
], ids=lambda v: getattr(v, "__name__", None))
def test_refusals_are_located(fn, args, cls, words):
    with pytest.raises(cls) as info:
        catad.grad(fn)(*args) if fn is not returns_two_structures else catad.vjp(fn, *args)
    e = info.value
    assert e.loc is not None and e.loc.line == err_line(fn), (e.loc, str(e))
    for w in words:
        assert w in str(e), (w, str(e))


def test_argument_and_cotangent_structures_are_checked():
    p, x = {"W": RNG.normal(size=(2, 3)), "b": RNG.normal(size=3)}, RNG.normal(size=3)
    with pytest.raises(ArgumentError, match="key"):
        catad.grad(mlp_loss)({(1, 2): 1.0}, x)
    _, vjp_fn = catad.vjp(returns_dict, x, p)
    with pytest.raises(ArgumentError, match="keys 'y', 's'"):
        vjp_fn({"s": 1.0, "y": np.ones(2)})  # the other order: a different dict to catad and to JAX
    with pytest.raises(ArgumentError, match="cotangent"):
        vjp_fn((np.ones(2), 1.0))
    with pytest.raises(ArgumentError, match="tangent for 'p'"):
        catad.jvp(returns_dict, (x, p), (x, {"W": np.ones((2, 3))}))
    with pytest.raises(ArgumentError, match="shape"):
        catad.jvp(returns_dict, (x, p), (x, {"W": np.ones((3, 3)), "b": np.ones(3)}))
