"""Named tuples (collections.namedtuple, typing.NamedTuple) as arguments, results and values made in
a compiled function (catad.trees keeps the class and the fields; the front end reads p.W by
name, calls State(...) as Python binds it, defaults included; isinstance sees the class). A
gradient with respect to a named tuple is one of its class, as with JAX's pytrees. The oracle is
the user's function itself: its value and central differences of each field. All but the refusal of
._replace fail on main, which took a named tuple for a plain tuple (gradients were plain tuples,
p.W refused)."""
from collections import namedtuple
from typing import NamedTuple

import numpy as np
import pytest

import catad
from located import field_differences, marked_line

Layer = namedtuple("Layer", "W b")


class State(NamedTuple):
    x: np.ndarray
    v: float
    k: int = 2


def layer_output(p, x):
    return np.sum(np.tanh(p.W @ x + p.b))


def unpacked_and_indexed(p, x):
    W, b = p
    return np.sum((p[0] @ x + b) ** 2) + len(p)


def made_inside(s):
    t = State(s.x * 2.0, s.v + 1.0)
    u = State(v=t.v * 3.0, x=t.x)
    return np.sum(u.x) * u.v + u.k


def class_tested(s):
    return s.v * (2.0 if isinstance(s, State) else 3.0) + np.sum(s.x)


def returned(s):
    return State(s.x * s.v, s.v ** 2, s.k)


RNG = np.random.default_rng(11)
P = Layer(RNG.normal(size=(2, 3)), RNG.normal(size=2))
X = RNG.normal(size=3)
S = State(RNG.normal(size=3), 0.7)


@pytest.mark.parametrize("f, args", [(layer_output, (P, X)), (unpacked_and_indexed, (P, X)), (made_inside, (S,)),
                                     (class_tested, (S,))])
def test_gradient_is_of_the_class(f, args):
    value, grad = catad.value_and_grad(f)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12)
    want = field_differences(f, args[0], args[1:])
    assert type(grad) is type(args[0])
    for got, expected in zip(grad, want):
        np.testing.assert_allclose(got, expected, rtol=1e-6, atol=1e-7)


def test_result_of_the_class():
    out, vjp = catad.vjp(returned, S)
    want = returned(S)
    assert type(out) is State and out.k == want.k == 2
    np.testing.assert_allclose(out.x, want.x, rtol=1e-15)
    assert out.v == want.v
    (ct,) = vjp(State(np.ones(3), 1.0, 0))
    assert type(ct) is State
    np.testing.assert_allclose(ct.x, np.full(3, S.v), rtol=1e-15)
    assert ct.v == pytest.approx(np.sum(S.x) + 2 * S.v, rel=1e-14)


def replaced(s):
    return s._replace(v=1.0).v  # ERR


def misses_a_field(s):
    return State(s.x).v  # ERR


def unknown_field(s):
    return s.w  # ERR


@pytest.mark.parametrize("f, words", [(replaced, ["._replace()"]), (misses_a_field, ["missing a required argument"]),
                                      (unknown_field, [".w of a State", "its fields are x, v, k"])])
def test_refused(f, words):
    with pytest.raises(catad.CatadError) as info:
        catad.grad(f)(S)
    e = info.value
    assert e.loc is not None and e.loc.line == marked_line(f), str(e)
    for w in words:
        assert w in str(e), (w, str(e))


class Doubled(Layer):
    def __new__(cls, W):
        return super().__new__(cls, 2 * W, 1.0)


def made_with_a_new_of_its_own(s):
    t = Doubled(s.v)  # ERR
    return t.W * 10 + t.b


def class_on_one_path(s):
    if s.v > 0:  # ERR
        t = Layer(s.v, 1.0)
    else:
        t = (s.v, 1.0)
    return s.v * isinstance(t, Layer)


def test_a_class_catad_cannot_follow_is_refused():
    """A subclass with a __new__ of its own (catad took the fields as written: 9.0 where Python's
    __new__ gives 15.0), and a value of the class on one path of an if only (isinstance gave 0.0
    where Python gives the value)."""
    for f, words in ((made_with_a_new_of_its_own, ["runs a __new__"]),
                     (class_on_one_path, ["is a Layer of 2 on one path and a plain value on the other"])):
        with pytest.raises(catad.CatadError) as info:
            catad.grad(f)(S)
        assert info.value.loc.line == marked_line(f), str(info.value)
        for w in words:
            assert w in str(info.value)


def test_gradient_of_a_subclass_with_its_own_new():
    """The gradient with respect to such a subclass is made without its __new__ (it raised a raw
    TypeError from inside catad)."""
    t = Doubled(0.5)
    g = catad.grad(lambda_free_product)(t)
    assert type(g) is Doubled and tuple(g) == (t.b, t.W)


def lambda_free_product(t):
    return t.W * t.b
