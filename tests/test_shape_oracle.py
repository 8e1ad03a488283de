"""The harness of tests/shape_oracle.py checked on its own: it accepts what the contract
asks for and rejects each way of missing it. catad's entry points are replaced (by
monkeypatch) with versions that behave correctly or wrongly on purpose; the real catad is
the positive control on shapes it already handles (equal shapes)."""
import inspect
import os

import numpy as np
import pytest

import catad
from catad.errors import Loc
from shape_oracle import check_like_numpy

HERE = os.path.basename(__file__)


def add_pair(a, b):
    return a + b


def loss_pair(a, b):
    return np.sum(np.sin(a * b))


def take_five(v):
    return v[5] * 2.0


def line_of(fn):
    return inspect.getsourcelines(fn)[1] + 1


ENTRY_POINTS = ("vjp", "jvp", "jacobian", "grad", "value_and_grad")


def raising(monkeypatch, make_error, returning=()):
    """Every entry point raises make_error(fn), but those named in `returning`, which
    return 0.0 (as catad did for mismatched shapes)."""
    def raiser(fn, *args, **kwargs):
        raise make_error(fn)

    def wrapper_raiser(fn, *args, **kwargs):
        def call(*a, **k):
            raise make_error(fn)
        return call

    def returner(fn, *args, **kwargs):
        return 0.0, (lambda ct: (0.0,) * len(args))

    def wrapper_returner(fn, *args, **kwargs):
        return lambda *a, **k: 0.0

    for name in ENTRY_POINTS:
        direct = name in ("vjp", "jvp")
        if name in returning:
            fake = returner if direct else wrapper_returner
        else:
            fake = raiser if direct else wrapper_raiser
        monkeypatch.setattr(catad, name, fake)


def shape_error(fn, line=None, shapes="(3,) (4,)"):
    return catad.ShapeError(f"operands could not be broadcast together with shapes {shapes}",
                            loc=Loc(inspect.getsourcefile(fn), line or line_of(fn), 12))


# ---------------------------------------------------------------- positive controls

def test_accepts_real_catad_on_equal_shapes():
    rng = np.random.default_rng(0)
    check_like_numpy(add_pair, rng.normal(size=3), rng.normal(size=3))
    check_like_numpy(loss_pair, rng.normal(size=(2, 3)), rng.normal(size=(2, 3)))
    check_like_numpy(add_pair, 1.5, 2.5)


def test_accepts_a_shape_error_naming_file_line_and_shapes(monkeypatch):
    raising(monkeypatch, lambda fn: shape_error(fn))
    check_like_numpy(add_pair, np.ones(3), np.ones(4))
    check_like_numpy(loss_pair, np.ones(3), np.ones(4))


def test_accepts_shapes_printed_with_or_without_spaces(monkeypatch):
    raising(monkeypatch, lambda fn: shape_error(fn, shapes="(2, 3) and (3, 1)"))
    check_like_numpy(add_pair, np.ones((2, 3)), np.ones((3, 1)))


def test_accepts_a_bounds_error(monkeypatch):
    raising(monkeypatch, lambda fn: catad.BoundsError("index 5 is out of bounds for axis 0 with size 3",
                                                      loc=Loc(inspect.getsourcefile(fn), line_of(fn), 12)))
    check_like_numpy(take_five, np.ones(3))


# ---------------------------------------------------------------- rejections

def test_rejects_a_value_where_numpy_raises(monkeypatch):
    raising(monkeypatch, lambda fn: shape_error(fn), returning=ENTRY_POINTS)
    with pytest.raises(AssertionError, match="should raise ShapeError"):
        check_like_numpy(add_pair, np.ones(3), np.ones(4))


def test_rejects_a_plain_value_error(monkeypatch):
    raising(monkeypatch, lambda fn: ValueError("operands could not be broadcast together with shapes (3,) (4,)"))
    with pytest.raises(AssertionError, match="should raise ShapeError"):
        check_like_numpy(add_pair, np.ones(3), np.ones(4))


def test_rejects_a_bounds_error_for_shapes(monkeypatch):
    raising(monkeypatch, lambda fn: catad.BoundsError("shapes (3,) (4,)", loc=Loc(inspect.getsourcefile(fn),
                                                                                   line_of(fn))))
    with pytest.raises(AssertionError, match="should raise ShapeError"):
        check_like_numpy(add_pair, np.ones(3), np.ones(4))


def test_rejects_a_raw_index_error(monkeypatch):
    raising(monkeypatch, lambda fn: IndexError("index 5 is out of bounds for axis 0 with size 3"))
    with pytest.raises(AssertionError, match="should raise BoundsError"):
        check_like_numpy(take_five, np.ones(3))


def test_rejects_a_message_without_the_line(monkeypatch):
    raising(monkeypatch, lambda fn: shape_error(fn, line=line_of(fn) + 40))
    with pytest.raises(AssertionError, match="does not name"):
        check_like_numpy(add_pair, np.ones(3), np.ones(4))


def test_rejects_a_message_without_the_file(monkeypatch):
    raising(monkeypatch, lambda fn: catad.ShapeError("shapes (3,) (4,)", loc=Loc("elsewhere.py", line_of(fn))))
    with pytest.raises(AssertionError, match="does not name"):
        check_like_numpy(add_pair, np.ones(3), np.ones(4))


def test_rejects_a_message_without_both_shapes(monkeypatch):
    raising(monkeypatch, lambda fn: shape_error(fn, shapes="(3,) and another"))
    with pytest.raises(AssertionError, match=r"shape \(4,\)"):
        check_like_numpy(add_pair, np.ones(3), np.ones(4))


@pytest.mark.parametrize("wrong", ENTRY_POINTS)
def test_checks_every_entry_point(monkeypatch, wrong):
    """All entry points raise ShapeError but one, which returns a value."""
    raising(monkeypatch, lambda fn: shape_error(fn), returning=(wrong,))
    with pytest.raises(AssertionError, match="should raise ShapeError"):
        check_like_numpy(loss_pair, np.ones(3), np.ones(4))


def test_rejects_a_wrong_value(monkeypatch):
    real_vjp = catad.vjp

    def vjp(fn, *args):
        out, f = real_vjp(fn, *args)
        return out * (1 + 1e-9), f
    monkeypatch.setattr(catad, "vjp", vjp)
    with pytest.raises(AssertionError, match="value differs"):
        check_like_numpy(add_pair, np.ones(3), np.ones(3))


def test_rejects_a_wrong_cotangent(monkeypatch):
    real_vjp = catad.vjp

    def vjp(fn, *args):
        out, f = real_vjp(fn, *args)
        return out, lambda c: tuple(x * 1.001 for x in f(c))
    monkeypatch.setattr(catad, "vjp", vjp)
    with pytest.raises(AssertionError, match="vjp with respect to argument 0"):
        check_like_numpy(add_pair, np.ones(3), np.ones(3))


def test_rejects_a_gradient_of_the_wrong_shape(monkeypatch):
    real = catad.value_and_grad

    def value_and_grad(fn, argnums=0):
        def call(*args):
            value, grads = real(fn, argnums)(*args)
            return value, tuple(np.reshape(g, (1, -1)) for g in grads)
        return call
    monkeypatch.setattr(catad, "value_and_grad", value_and_grad)
    with pytest.raises(AssertionError, match="has shape"):
        check_like_numpy(loss_pair, np.ones(3), np.ones(3))


def test_rejects_a_wrong_jvp(monkeypatch):
    real_jvp = catad.jvp

    def jvp(fn, primals, tangents):
        out, t = real_jvp(fn, primals, tangents)
        return out, t + 1e-3
    monkeypatch.setattr(catad, "jvp", jvp)
    with pytest.raises(AssertionError, match="jvp's tangent"):
        check_like_numpy(add_pair, np.ones(3), np.ones(3))


def test_rejects_a_wrong_jacobian(monkeypatch):
    real = catad.jacobian

    def jacobian(fn, argnums=0):
        def call(*args):
            return tuple(j.T for j in real(fn, argnums)(*args))
        return call
    monkeypatch.setattr(catad, "jacobian", jacobian)
    rng = np.random.default_rng(1)
    with pytest.raises(AssertionError, match="jacobian with respect to argument"):
        check_like_numpy(add_pair, rng.normal(size=(2, 3)), rng.normal(size=(2, 3)))
