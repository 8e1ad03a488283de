"""Dataclasses as arguments, results and values made in a compiled function (catad.trees: an
"object" tree, its class and fields): fields read by name (nested dataclasses too), the value
assigned, returned, passed to your functions and made by calling the class (its generated
__init__, defaults that are numbers), in a loop's state too. A gradient or cotangent with respect
to one is one of its class (made without running __init__, as JAX's pytrees make theirs).
Anything else done with one (len, indexing, unpacking, iteration, arithmetic, NumPy functions) is
refused, located, where Python raises TypeError or computes what catad does not (p == q, `if p`).
The oracle is the user's function itself: its value and central differences of each field. The
gradient tests fail on main, which refused dataclass arguments."""
import dataclasses
from dataclasses import dataclass, field

import numpy as np
import pytest

import catad
from located import field_differences, marked_line


@dataclass
class Params:
    w: np.ndarray
    b: float
    n: int = 3


@dataclass(frozen=True)
class Model:
    layer: Params
    scale: float


def layer_output(p, x):
    return np.sum(np.tanh(p.w * x + p.b)) * p.n


def helper(p, x):
    return np.sum(p.w * x) + p.b


def passed_on(p, x):
    q = p
    return helper(q, x) ** 2


def made_inside(p, x):
    q = Params(p.w * 2.0, b=p.b + 1.0)
    return helper(q, x) + q.n


def in_a_loop(p, x):
    for k in range(3):
        p = Params(p.w - 0.1 * x * p.w, p.b * 0.5)
    return np.sum(p.w) + p.b


def nested(m, x):
    return m.scale * np.sum(m.layer.w * x) + m.layer.b


def returned(p):
    return Params(p.w * p.b, p.b ** 2, p.n)


RNG = np.random.default_rng(14)
P = Params(RNG.normal(size=3), 0.4)
X = RNG.normal(size=3)
M = Model(P, 1.5)


def assert_close(got, want):
    assert type(got) is type(want)
    for fd in dataclasses.fields(want):
        a, b = getattr(got, fd.name), getattr(want, fd.name)
        if dataclasses.is_dataclass(b):
            assert_close(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("f, obj", [(layer_output, P), (passed_on, P), (made_inside, P), (in_a_loop, P), (nested, M)])
def test_gradient_is_of_the_class(f, obj):
    value, grad = catad.value_and_grad(f)(obj, X)
    assert value == pytest.approx(f(obj, X), rel=1e-12)
    assert_close(grad, field_differences(f, obj, (X,)))


def test_result_and_cotangent_of_the_class():
    out, vjp = catad.vjp(returned, P)
    want = returned(P)
    assert type(out) is Params and out.n == want.n == 3 and out.b == want.b
    np.testing.assert_allclose(out.w, want.w, rtol=1e-15)
    (ct,) = vjp(Params(np.ones(3), 1.0, 0))
    assert type(ct) is Params
    np.testing.assert_allclose(ct.w, np.full(3, P.b), rtol=1e-15)
    assert ct.b == pytest.approx(np.sum(P.w) + 2 * P.b, rel=1e-14)


def test_a_cotangent_of_another_class_is_refused():
    _, vjp = catad.vjp(returned, P)
    with pytest.raises(catad.ArgumentError, match="must be a Params"):
        vjp((np.ones(3), 1.0, 0))


def its_length(p, x):
    return len(p) * x[0]  # ERR


def indexed(p, x):
    return p[0] * x[0]  # ERR


def unpacked(p, x):
    a, b, c = p  # ERR
    return b * x[0]


def added(p, x):
    return np.sum(p + p) * x[0]  # ERR


def summed_by_numpy(p, x):
    return np.sum(p) * x[0]  # ERR


def iterated(p, x):
    return sum(t for t in p)  # ERR


def compared(p, x):
    return x[0] * (p == p)  # ERR


@dataclass
class WithPostInit:
    a: float

    def __post_init__(self):
        self.a = 2 * self.a


def made_with_post_init(p, x):
    return WithPostInit(p.b).a * x[0]  # ERR


@dataclass
class WithFactory:
    a: np.ndarray = field(default_factory=lambda: np.zeros(2))


def made_with_factory(p, x):
    return np.sum(WithFactory().a) * x[0]  # ERR


@pytest.mark.parametrize("f, words", [
    (its_length, ["p is a Params (a dataclass with fields w, b, n)"]), (indexed, ["p is a Params"]),
    (unpacked, ["the value unpacked is a Params"]), (added, ["p is a Params"]), (summed_by_numpy, ["p is a Params"]),
    (iterated, ["p is a Params"]), (compared, ["p is a Params"]),
    (made_with_post_init, ["runs code of its own"]), (made_with_factory, ["runs code of its own"])])
def test_refused(f, words):
    with pytest.raises(catad.CatadError) as info:
        catad.grad(f)(P, X)
    e = info.value
    assert e.loc is not None and e.loc.line == marked_line(f), str(e)
    for w in words:
        assert w in str(e), (w, str(e))


@dataclass
class Doubling:
    a: float

    def __setattr__(self, k, v):
        object.__setattr__(self, k, 2 * v)


def made_with_a_setattr_of_its_own(p, x):
    return Doubling(p.b).a * x[0]  # ERR


def dataclass_on_one_path(p, x):
    if p.b > 0:  # ERR
        q = Params(p.w, p.b)
    else:
        q = (p.w, p.b, 3)
    return q[1] * x[0]


def test_classes_catad_cannot_follow_are_refused():
    """A dataclass whose __setattr__ is its own (catad set the field as given: 0.7 where Python's
    gives 1.4) and a dataclass on one path of an if only (q[1] gave a value where Python raises
    TypeError) are refused."""
    for f, words in ((made_with_a_setattr_of_its_own, ["runs code of its own"]),
                     (dataclass_on_one_path, ["is a Params (a dataclass with fields w, b, n) on one path"])):
        with pytest.raises(catad.CatadError) as info:
            catad.grad(f)(P, X)
        assert info.value.loc.line == marked_line(f), str(info.value)
        for w in words:
            assert w in str(info.value)
