"""Checks shared by the test modules: a refusal is a CatadError located at the line of the
user's function marked ``# ERR``; a value, gradient and jvp agree with Python and central
differences."""
import inspect

import numpy as np
import pytest

import catad
from catad import CatadError
from catad.frontend import compile_function
from backend_programs import central_difference as central


def marked_line(fn):
    """The one line of fn's source marked ``# ERR``."""
    lines, start = inspect.getsourcelines(fn)
    hits = [start + k for k, line in enumerate(lines) if "# ERR" in line]
    assert len(hits) == 1, fn.__name__
    return hits[0]


def outcome(f, *args):
    """What calling f itself gives: its value, or the type and message of what it raises (NumPy's
    warnings quiet)."""
    try:
        with np.errstate(all="ignore"):
            return f(*args)
    except Exception as e:
        return type(e), str(e)


def raises_like_python(want, f, *args, argnums=0) -> bool:
    """Where want, f's outcome at args, is what it raises: catad's gradient raises that type with
    that message too (True); False where f gives a value."""
    if not isinstance(want, tuple):
        return False
    with pytest.raises(want[0]) as got:
        catad.grad(f, argnums)(*args)
    assert want[1] in str(got.value), (str(got.value), want)
    return True


def refused(fn, args, *words, cls=CatadError, where=None):
    """Compiling fn at args raises a cls located in fn's file at the line marked ``# ERR`` (of
    `where` when the mark is in a helper fn calls), naming its construct and holding every word."""
    with pytest.raises(cls) as info:
        compile_function(fn, args)
    e = info.value
    assert isinstance(e, CatadError) and e.construct
    assert e.loc is not None and e.loc.file == inspect.getsourcefile(fn), str(e)
    assert e.loc.line == marked_line(where or fn), str(e)
    assert f":{e.loc.line}:" in str(e)
    for w in words:
        assert w in str(e), (w, str(e))
    return e


def agrees(f, *args, argnums=0, rng=None):
    """catad's value, gradient (reverse) and jvp (forward) of f at args are Python's value and
    central differences; each differentiated argument is a float or a float array. The jvp's
    tangents are drawn from `rng`, by default one made for this call: the same tangents whichever
    tests ran before (one generator shared by every call made them depend on that)."""
    rng = np.random.default_rng(16) if rng is None else rng
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    value, grad = catad.value_and_grad(f, argnums)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12, abs=1e-12)
    grads = (grad,) if isinstance(argnums, int) else grad
    for k, g in zip(nums, grads):
        expected = central(f, args, k)
        assert np.shape(g) == np.shape(expected)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7)
        tangent = rng.normal(size=np.shape(args[k]))
        tangents = tuple(tangent if j == k else None if isinstance(a, str) else np.zeros(np.shape(a))
                         if np.ndim(a) else 0.0 for j, a in enumerate(args))  # Int arguments' tangents are ignored
        _, out = catad.jvp(f, args, tangents)
        assert out == pytest.approx(float(np.sum(expected * tangent)), rel=1e-6, abs=1e-7)
    return value, grad


def second_differences(f, x, h=1e-3):
    """The Hessian of f at the array x from f's own values (central second differences), shaped
    x.shape + x.shape."""
    n = x.size
    out = np.zeros((n, n))
    e = np.eye(n).reshape((n,) + x.shape) * h
    for i in range(n):
        for j in range(n):
            out[i, j] = (f(x + e[i] + e[j]) - f(x + e[i] - e[j]) - f(x - e[i] + e[j]) + f(x - e[i] - e[j])) / (4 * h * h)
    return out.reshape(x.shape + x.shape)


def hessian_by_differences(f, args, k, h=1e-4):
    """d grad_k f / d args[k], by the fourth-order central difference of catad's gradient:
    shaped x.shape + x.shape (the derivative of the gradient's entry first)."""
    g = catad.grad(f, argnums=k)
    x = np.asarray(args[k], dtype=float)
    out = np.zeros(x.shape + x.shape)
    for idx in np.ndindex(x.shape):
        def at(s):
            y = x.copy()
            y[idx] += s
            return np.asarray(g(*args[:k], y if x.shape else float(y), *args[k + 1:]))
        out[(...,) + idx] = (-at(2 * h) + 8 * at(h) - 8 * at(-h) + at(-2 * h)) / (12 * h)
    return out


def count_lowerings(monkeypatch) -> dict:
    """How many times the front end lowers each function (a compile), by function name, from
    now until the test ends."""
    from catad.frontend.lower import FunctionLowerer
    counts = {}
    lower = FunctionLowerer.lower

    def counting(self, name):
        counts[self.src.name] = counts.get(self.src.name, 0) + 1
        return lower(self, name)
    monkeypatch.setattr(FunctionLowerer, "lower", counting)
    return counts


def raises_as_python(fn, *args):
    """fn(*args) raises ZeroDivisionError in Python, and catad's value_and_grad of fn raises its
    ZeroDivisionError_ with Python's message (located)."""
    from catad.errors import ZeroDivisionError_
    with pytest.raises(ZeroDivisionError) as python:
        fn(*args)
    with pytest.raises(ZeroDivisionError_) as ours:
        catad.value_and_grad(fn)(*args)
    assert str(python.value) in str(ours.value)



def field_differences(f, obj, rest=(), h=1e-6):
    """The gradient of f(obj, *rest) in obj, a named tuple, a dataclass or a dict of str keys (of
    floats, float arrays, ints and nested ones), by central differences of f itself: an object of
    obj's class, 0.0 for an int field (which has no tangent)."""
    import dataclasses
    if isinstance(obj, dict):
        names, replace, get = list(obj), lambda **kw: {**obj, **kw}, obj.__getitem__
    elif dataclasses.is_dataclass(obj):
        names, replace = [fd.name for fd in dataclasses.fields(obj)], lambda **kw: dataclasses.replace(obj, **kw)
    else:
        names, replace = list(obj._fields), obj._replace
    if not isinstance(obj, dict):
        get = lambda name: getattr(obj, name)  # noqa: E731
    out = {}
    for name in names:
        leaf = get(name)
        if dataclasses.is_dataclass(leaf) or hasattr(leaf, "_fields"):
            out[name] = field_differences(lambda inner, *r: f(replace(**{name: inner}), *r), leaf, rest, h)
            continue
        if isinstance(leaf, int):
            out[name] = 0.0
            continue
        a = np.asarray(leaf, dtype=float)
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus, minus = a.copy(), a.copy()
            plus[idx] += h
            minus[idx] -= h
            up = replace(**{name: plus if a.shape else float(plus)})
            down = replace(**{name: minus if a.shape else float(minus)})
            g[idx] = (f(up, *rest) - f(down, *rest)) / (2 * h)
        out[name] = g if a.shape else float(g)
    return type(obj)(**out)
