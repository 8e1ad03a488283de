"""Strings as modes (`def loss(w, kind="l2")`): an argument, a default, a global, a dict's value
or a literal passed to a function is compared while compiling (==, !=, in), reads a dict and is
shown in a message; each string compiles its own program (as JAX's static_argnames), a global
is compared again at each call, and a str's gradient or tangent is None."""
import numpy as np
import pytest

import catad
from catad import UnsupportedSyntax
from located import agrees, count_lowerings, refused

X = np.arange(12.0).reshape(4, 3) / 10
Y = np.arange(4.0)
CONFIG = {"l2": 0.1, "kind": "huber"}
MODE = "sum"
W = np.array([0.3, -0.2, 0.5])


def loss(w, kind="l2"):
    r = X @ w - Y
    if kind == "l2":
        return np.sum(r ** 2)
    elif kind in ("l1", "abs"):
        return np.sum(np.abs(r))
    elif kind not in ["huber"]:
        raise ValueError(f"unknown kind {kind}: use 'l1' or 'l2'")
    return np.sum(np.where(np.abs(r) < 1.0, 0.5 * r ** 2, np.abs(r) - 0.5))


def from_globals(w):
    r = X @ w - Y
    if CONFIG["kind"] == "huber":
        a = np.abs(r)
        out = np.sum(np.where(a < 1.0, 0.5 * r ** 2, a - 0.5))
    else:
        out = np.sum(r ** 2)
    return (out * 2 if MODE == "sum" else out) + CONFIG["l2"] * w @ w


def _reduce(r, how):
    if how != "mean":
        return np.sum(r ** 2)
    return np.mean(r ** 2)


def passes_on(w, how="mean"):
    return _reduce(X @ w - Y, how) + _reduce(w, "sum")


ACTIVATIONS = {"tanh": 2.0, "linear": 1.0}
ACTIVATIONS_NAMES = ("tanh", "linear")


def from_dict(params):
    act = params["act"]
    if act not in ACTIVATIONS or act not in ACTIVATIONS_NAMES:
        raise ValueError("bad activation " + act)
    z = X @ params["w"] * ACTIVATIONS[act]
    if act == "tanh":
        z = np.tanh(z)
    return np.sum(z ** 2) + (1.0 if act == 3 else 0.0)  # a str is never equal to a number


@pytest.mark.parametrize("kind", ["l2", "l1", "abs", "huber"])
def test_argument(kind):
    value, grad = catad.value_and_grad(loss)(W, kind)
    assert value == pytest.approx(loss(W, kind), rel=1e-12)
    np.testing.assert_allclose(grad, catad.grad(loss)(W, kind=kind), rtol=1e-12)
    agrees(loss, W, kind)


def test_default_and_keyword():
    agrees(loss, W)
    np.testing.assert_allclose(catad.grad(loss)(W), catad.grad(loss)(W, "l2"), rtol=1e-12)


def test_unknown_kind_raises_as_python_does():
    with pytest.raises(ValueError, match="unknown kind cubic: use 'l1' or 'l2'") as info:
        catad.grad(loss)(W, "cubic")
    assert isinstance(info.value, catad.CatadError)


def test_each_string_compiles_once(monkeypatch):
    catad.pipeline._CACHE.pop(loss, None)
    counts = count_lowerings(monkeypatch)
    g = catad.grad(loss)
    for kind in ("l1", "l2", "l1", "abs", "l2"):
        g(W, kind)
    assert counts["loss"] == 3


def test_globals_are_read_at_each_call(monkeypatch):
    agrees(from_globals, W)
    before = catad.grad(from_globals)(W)
    monkeypatch.setitem(CONFIG, "kind", "l2")
    monkeypatch.setitem(globals(), "MODE", "mean")
    after = catad.grad(from_globals)(W)
    r = X @ W - Y
    np.testing.assert_allclose(after, 2 * X.T @ r + 0.2 * W, rtol=1e-12)
    assert not np.allclose(before, after)
    agrees(from_globals, W)


def local_choices(w, kind="l2"):
    kinds = ("l1", "l2")
    return np.sum(w ** 2) if kind in kinds else np.sum(w)


@pytest.mark.parametrize("kind", ["l2", "abs"])
def test_in_a_local_tuple(kind):
    agrees(local_choices, W, kind)


@pytest.mark.parametrize("how", ["mean", "sum"])
def test_passed_to_a_function(how):
    agrees(passes_on, W, how)


@pytest.mark.parametrize("act", ["tanh", "linear"])
def test_dict_values_and_keys(act):
    params = {"act": act, "w": W}
    grad = catad.grad(from_dict)(params)
    assert list(grad) == ["act", "w"] and grad["act"] is None
    w_only = lambda w: from_dict({"act": act, "w": w})  # noqa: E731
    np.testing.assert_allclose(grad["w"], catad.grad(w_only)(W), rtol=1e-12)
    agrees(w_only, W)
    with pytest.raises(ValueError, match="bad activation relu"):
        catad.grad(from_dict)({"act": "relu", "w": W})


def test_tangents_and_cotangents_of_a_str():
    value, tangent = catad.jvp(loss, (W, "l1"), (np.ones(3), None))
    assert value == pytest.approx(loss(W, "l1"))
    _, same = catad.jvp(loss, (W, "l1"), (np.ones(3), "l1"))
    assert tangent == same
    with pytest.raises(catad.ArgumentError, match="must be None"):
        catad.jvp(loss, (W, "l1"), (np.ones(3), 1.0))
    _, pullback = catad.vjp(loss, W, "abs")
    cts = pullback(1.0)
    assert cts[1] is None and np.allclose(cts[0], catad.grad(loss)(W, "abs"))


def used_as_value(w, kind="l2"):
    return np.sum(w) * kind  # ERR


def in_a_name(w, kind="l2"):
    return np.sum(w) if kind in w else 0.0  # ERR


def test_refusals():
    refused(used_as_value, (W,), "argument 'kind' is the str 'l2'", "compare it", cls=catad.ArgumentError)
    refused(in_a_name, (W,), "tuple, list, set or dict of constants", "w is not one", cls=UnsupportedSyntax)


def library_modes(x, spec="i,i->", mode="valid", norm="ortho"):
    return np.einsum(spec, x, x) + np.sum(np.convolve(x, [1.0, 2.0], mode=mode)) + \
        np.sum(np.abs(np.fft.rfft(x, norm=norm)))


@pytest.mark.parametrize("args", [(), ("i,i->", "full", "forward"), ("i,j->", "same")])
def test_modes_of_library_functions(args):
    """A str argument given to NumPy as its mode (einsum's subscripts, convolve's mode, fft's
    norm) is read by the handler as if written there."""
    agrees(library_modes, np.array([0.3, -1.2, 2.5, 0.7]), *args)
