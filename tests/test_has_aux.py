"""grad and value_and_grad with has_aux=True (JAX's): the function returns (loss, aux); the
gradient is the loss's, and aux (any value the function computes: arrays, numbers, tuples,
lists, dicts) comes back beside it, as the function computed it."""
import numpy as np
import pytest

import catad
from located import agrees
from test_trees import same_structure

SCALE = 2.0


def regression(w, x, y):
    p = x @ w
    r = p - y
    return np.mean(r ** 2), {"pred": p, "mae": np.mean(np.abs(r)), "n": len(y), "scale": SCALE * 1.0}


def pair(w):
    return np.sum(np.sin(w) * w), (w * 2.0, 3, [w[:2], w[1:] * w[1]])


def data():
    rng = np.random.default_rng(0)
    return rng.normal(size=3), rng.normal(size=(5, 3)), rng.normal(size=5)


def same(a, b):
    """a and b are the same value of the same structure, leaf for leaf (arrays exactly)."""
    same_structure(a, b)
    np.testing.assert_equal(a, b)


def test_grad_gives_the_losss_gradient_and_the_aux():
    w, x, y = data()
    g, aux = catad.grad(regression, has_aux=True)(w, x, y)
    np.testing.assert_allclose(g, catad.grad(lambda w, x, y: regression(w, x, y)[0])(w, x, y), rtol=1e-14)
    np.testing.assert_allclose(g, 2.0 * x.T @ (x @ w - y) / len(y), rtol=1e-12)
    want = regression(w, x, y)[1]
    assert list(aux) == list(want) and type(aux["n"]) is int
    np.testing.assert_allclose(aux["pred"], want["pred"], rtol=1e-15)
    assert aux["mae"] == pytest.approx(want["mae"], rel=1e-15) and aux["n"] == 5 and aux["scale"] == 2.0


def test_value_and_grad_gives_the_pair_and_the_gradient():
    w, x, y = data()
    (value, aux), g = catad.value_and_grad(regression, has_aux=True)(w, x, y)
    want_value, want_aux = regression(w, x, y)
    assert value == pytest.approx(want_value, rel=1e-15)
    np.testing.assert_allclose(aux["pred"], want_aux["pred"], rtol=1e-15)
    np.testing.assert_allclose(g, catad.grad(regression, has_aux=True)(w, x, y)[0], rtol=1e-15)


def test_aux_of_tuples_lists_and_ints_and_argnums():
    w = np.array([0.3, -1.2, 0.7])
    g, aux = catad.grad(pair, has_aux=True)(w)
    np.testing.assert_allclose(g, np.sin(w) + w * np.cos(w), rtol=1e-14)
    same(aux, pair(w)[1])
    (value, aux2), gs = catad.value_and_grad(pair, argnums=(0,), has_aux=True)(w)
    assert isinstance(gs, tuple) and len(gs) == 1
    np.testing.assert_allclose(gs[0], g, rtol=1e-15)
    same(aux2, aux)


def test_an_aux_reading_a_global_reads_it_at_call_time():
    global SCALE
    w, x, y = data()
    f = catad.grad(regression, has_aux=True)
    assert f(w, x, y)[1]["scale"] == 2.0
    SCALE = 5.0
    try:
        assert f(w, x, y)[1]["scale"] == 5.0
    finally:
        SCALE = 2.0


def test_with_and_without_aux_are_two_functions():
    w = np.array([0.3, -1.2, 0.7])
    with_aux, plain = catad.grad(pair, has_aux=True), catad.grad(lambda w: pair(w)[0])
    for _ in range(2):
        assert isinstance(with_aux(w), tuple) and isinstance(plain(w), np.ndarray)
    with pytest.raises(catad.CatadError, match="returning a float"):
        catad.grad(pair)(w)


def uses_the_aux(w, x, y):
    g, aux = catad.grad(regression, has_aux=True)(w, x, y)
    return np.sum(g ** 2) + aux["mae"] * np.sum(aux["pred"] ** 2)


def test_called_inside_a_function_catad_compiles_is_differentiated_again():
    w, x, y = data()
    agrees(uses_the_aux, w, x, y)
    h = catad.hessian(lambda w: catad.grad(pair, has_aux=True)(w)[0].sum() ** 2)(w)
    s = np.sin(w) + w * np.cos(w)
    ds = 2.0 * np.cos(w) - w * np.sin(w)
    d2s = -3.0 * np.sin(w) - w * np.cos(w)
    np.testing.assert_allclose(h, 2.0 * np.outer(ds, ds) + 2.0 * np.sum(s) * np.diag(d2s), rtol=1e-12)


def not_a_pair(w):
    return np.sum(w)  # ERR


def test_a_function_not_returning_a_pair_is_refused():
    with pytest.raises(catad.CatadError, match="has_aux=True needs a function returning a pair") as info:
        catad.grad(not_a_pair, has_aux=True)(np.ones(2))
    assert info.value.loc is not None and info.value.loc.file.endswith("test_has_aux.py")
    with pytest.raises(catad.CatadError, match="returning a pair"):
        catad.value_and_grad(lambda w: (w, w), has_aux=True)(np.ones(2))


def test_has_aux_must_be_a_bool():
    with pytest.raises(catad.ArgumentError, match="has_aux must be True or False"):
        catad.grad(pair, has_aux="yes")


def test_vjp_with_aux():
    w, x, y = data()
    out, vjp_fn, aux = catad.vjp(lambda w, x, y: (x @ w, regression(w, x, y)[1]), w, x, y, has_aux=True)
    np.testing.assert_allclose(out, x @ w, rtol=1e-15)
    np.testing.assert_allclose(aux["pred"], x @ w, rtol=1e-15)
    ct = np.arange(5.0)
    gw, gx, gy = vjp_fn(ct)
    np.testing.assert_allclose(gw, x.T @ ct, rtol=1e-14)
    np.testing.assert_allclose(gx, np.outer(ct, w), rtol=1e-14)
    np.testing.assert_array_equal(gy, np.zeros(5))
    out2, vjp_loss, aux2 = catad.vjp(regression, w, x, y, has_aux=True)
    np.testing.assert_allclose(vjp_loss(2.0)[0], 2.0 * catad.grad(regression, has_aux=True)(w, x, y)[0],
                               rtol=1e-14)
    with pytest.raises(catad.CatadError, match="returning a pair"):
        catad.vjp(lambda w: w * 2.0, w, has_aux=True)
