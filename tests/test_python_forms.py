"""Python forms (issue 16, item 3): default parameter values, keyword arguments and *args in
calls, unpacking an array, defs and lambdas inside a compiled function (closures, late
binding), bound methods, int(), enumerate's start, and the located refusals of what stays
unsupported.

Every value is checked against calling the function itself, every gradient against central
differences."""

import numpy as np
import pytest

import catad
from catad import ArgumentError, CatadError, CatadTypeError, ShapeError, UnsupportedSyntax
from catad.frontend import compile_function
from backend_programs import central_difference as central
from located import marked_line, refused

RNG = np.random.default_rng(3)
X = np.array([0.3, -1.2, 0.8])


def agrees(f, *args, argnums=0, **kwargs):
    """catad's value and gradient of f at args (and kwargs) are Python's value and central differences."""
    value, grad = catad.value_and_grad(f, argnums)(*args, **kwargs)
    assert value == pytest.approx(f(*args, **kwargs), rel=1e-12, abs=1e-12)
    nums = (argnums,) if isinstance(argnums, int) else argnums
    grads = (grad,) if isinstance(argnums, int) else grad
    assert len(grads) == len(nums)
    for k, g in zip(nums, grads):
        expected = central(lambda *a: f(*a, **kwargs), args, k)
        assert np.shape(g) == np.shape(expected)
        np.testing.assert_allclose(g, expected, rtol=1e-6, atol=1e-7)
    return value, grad


# ---------------------------------------------------------------- default values of the entry function

def rastrigin(x, a=10.0, n=2):
    return a * len(x) + np.sum(x ** n - a * np.cos(2.0 * np.pi * x))


def with_array_default(x, w=np.array([1.0, 2.0, 3.0]), scale=(0.5, 2)):
    return np.sum(w * x) * scale[0] + scale[1]


def test_defaults_of_the_entry_function():
    agrees(rastrigin, X)
    agrees(rastrigin, X, 3.0)
    agrees(rastrigin, X, 3.0, 4)
    agrees(rastrigin, X, n=4)
    agrees(rastrigin, X, a=2.5)
    agrees(with_array_default, X)
    agrees(with_array_default, X, np.ones(3))


def test_grad_differentiates_what_was_passed_only():
    """As in JAX: grad(f)(x) is the gradient of x; a default value is not an argument."""
    g = catad.grad(rastrigin)(X)
    assert isinstance(g, np.ndarray) and g.shape == X.shape
    with pytest.raises(ArgumentError, match="out of range"):
        catad.grad(rastrigin, argnums=1)(X)
    v, (gx, ga) = catad.value_and_grad(rastrigin, (0, 1))(X, 10.0)
    assert ga == pytest.approx(central(rastrigin, (X, 10.0), 1), rel=1e-6)
    out, tangent = catad.jvp(rastrigin, (X,), (np.ones(3),))
    assert out == pytest.approx(rastrigin(X)) and tangent == pytest.approx(np.sum(g))
    _, pullback = catad.vjp(rastrigin, X)
    (ct,) = pullback(1.0)
    np.testing.assert_allclose(ct, g)


def scaled(x, c=2.0):
    return c * np.sum(x * x)


def test_defaults_are_read_at_each_call():
    """Python evaluates a default once, when the def runs, and keeps it in __defaults__: replacing
    that tuple changes what later calls see, and catad reads it at each call too."""
    saved = scaled.__defaults__
    try:
        assert catad.grad(scaled)(X) == pytest.approx(4.0 * X)
        scaled.__defaults__ = (5.0,)
        assert catad.value_and_grad(scaled)(X)[0] == pytest.approx(scaled(X))
        assert catad.grad(scaled)(X) == pytest.approx(10.0 * X)
    finally:
        scaled.__defaults__ = saved


def steps(x, n=3):
    for _ in range(n):
        x = np.sin(x) + 0.5 * x
    return x


def test_int_default_is_a_compared_constant():
    saved = steps.__defaults__
    try:
        agrees(steps, 0.7)
        steps.__defaults__ = (5,)
        agrees(steps, 0.7)
    finally:
        steps.__defaults__ = saved


def activation(x, act=np.tanh):
    return np.sum(act(x))


def test_function_default_is_called():
    agrees(activation, X)


def kwonly_default(x, *, scale=3.0):
    return scale * np.sum(x)


def test_keyword_only_default():
    agrees(kwonly_default, X)
    with pytest.raises(ArgumentError, match="keyword-only"):
        catad.grad(kwonly_default)(X, scale=2.0)


def test_too_few_arguments_for_the_entry_function():
    with pytest.raises(ArgumentError, match="nothing for parameter 'b'"):
        compile_function(two_required, (1.0,))


def two_required(a, b, c=1.0):
    return a * b * c


# ---------------------------------------------------------------- calls of helpers: defaults and keywords

def helper(x, scale=2.0, shift=0.5, *, power=2):
    return scale * np.sum(x ** power) + shift


def calls_with_defaults(x):
    return helper(x) + helper(x, 3.0) + helper(x, shift=-1.0) + helper(x, power=3, scale=0.5) + helper(scale=1.5, x=x)


def positional_only(x, y, /, z=1.0):
    return x * y + z


def calls_positional_only(x):
    return positional_only(x, 2.0) + positional_only(x, x, z=x)


def test_helper_defaults_and_keywords():
    agrees(calls_with_defaults, X)
    agrees(calls_positional_only, 0.7)


def calls_unknown_keyword(x):
    return helper(x, sclae=2.0)  # ERR


def calls_missing(x):
    return two_required(x)  # ERR


def calls_too_many(x):
    return two_required(x, x, x, x)  # ERR


def calls_twice(x):
    return two_required(x, 1.0, a=x)  # ERR


def calls_positional_only_by_keyword(x):
    return positional_only(x, y=2.0)  # ERR


@pytest.mark.parametrize("fn, words", [
    (calls_unknown_keyword, ["helper", "unexpected keyword argument 'sclae'"]),
    (calls_missing, ["two_required", "missing", "'b'"]),
    (calls_too_many, ["two_required", "too many positional arguments"]),
    (calls_twice, ["multiple values for argument 'a'"]),
    (calls_positional_only_by_keyword, ["positional"]),
], ids=lambda c: getattr(c, "__name__", ""))
def test_call_binding_errors(fn, words):
    """What Python rejects when it binds a call, catad rejects at the call's line."""
    with pytest.raises(TypeError):
        fn(0.5)
    refused(fn, (0.5,), *words, cls=CatadTypeError)


def default_from_global(x, k=len(X)):
    return np.sum(x) * k


def test_default_computed_at_def_time():
    agrees(default_from_global, X)


# ---------------------------------------------------------------- *args

def total(*xs):
    return sum(np.sum(np.sin(x)) for x in xs)


def weighted(w, *xs):
    return sum(w * np.sum(x * x) for x in xs)


def calls_varargs(x, y):
    return total(x, y, x * 2.0) + weighted(0.5, x) + weighted(2.0) + len(varargs_len(x, x, x))


def varargs_len(*xs):
    return xs


def test_varargs():
    agrees(total, X)
    agrees(total, X, np.ones(2), argnums=1)
    agrees(total, X, np.ones(2), 0.3, argnums=(0, 2))
    agrees(weighted, 2.0, X, np.ones(2), argnums=(0, 1, 2))
    agrees(calls_varargs, X, np.ones(2), argnums=(0, 1))


# ---------------------------------------------------------------- unpacking an array

def unpack(v):
    a, b = v
    return a * b ** 2 + np.sin(a)


def unpack_rows(m):
    top, bottom = m
    return np.sum(top * bottom)


def unpack_nested(m, v):
    (a, b), c = m[0], v[0]
    return a * b * c


def unpack_loop(m):
    s = 0.0
    for a, b in m:
        s = s + a * np.exp(b)
    return s


def unpack_comprehension(m):
    return sum(a * b for a, b in m)


def unpack_enumerate(m):
    return sum(i * a - b for i, (a, b) in enumerate(m))


def test_unpacking_arrays():
    agrees(unpack, np.array([0.4, -1.1]))
    agrees(unpack_rows, RNG.normal(size=(2, 3)))
    agrees(unpack_nested, RNG.normal(size=(3, 2)), X, argnums=(0, 1))
    m = RNG.normal(size=(4, 2))
    agrees(unpack_loop, m)
    agrees(unpack_comprehension, m)
    agrees(unpack_enumerate, m)


@pytest.mark.parametrize("fn, arg", [(unpack, np.ones(3)), (unpack, np.ones(1)), (unpack_rows, np.ones((3, 2))),
                                     (unpack_loop, np.ones((2, 3))), (unpack_comprehension, np.ones((2, 1)))])
def test_unpacking_checks_the_length(fn, arg):
    """Python raises ValueError with these words; catad a ShapeError (a ValueError) with them."""
    with pytest.raises(ValueError) as python:
        fn(arg)
    with pytest.raises(ShapeError) as ours:
        catad.grad(fn)(arg)
    assert isinstance(ours.value, ValueError)
    assert python.value.args[0] in str(ours.value)


def test_unpacking_in_a_loop_that_does_not_run():
    """No row, no unpacking: Python raises nothing, whatever the number of columns."""
    empty = np.ones((0, 3))
    assert unpack_loop(empty) == 0.0 == catad.value_and_grad(unpack_loop)(empty)[0]
    assert catad.grad(unpack_comprehension)(empty).shape == (0, 3)


# ---------------------------------------------------------------- defs and lambdas in the function

def nested(x):
    def g(y):
        return y * x
    return g(2.0) + g(x)


def lambdas(x):
    sq = lambda t: t ** 2
    inc, triple = lambda t: t + 1.0, lambda t: t * 3.0
    return sq(x) + inc(x) * triple(x) + (lambda t: t * 0.5)(x)


def late_binding(x):
    y = x
    g = lambda: y * 2.0
    y = np.sin(x)  # g sees this value: closures read variables when called
    return g()


def default_at_def_time(x):
    y = x
    def g(t, k=y * 2.0):  # k is y * 2.0 as y was when the def ran
        return t * k + y  # y as it is when g is called
    y = x ** 3
    return g(1.0)


def nested_calls_nested(x):
    def h(t):
        return np.exp(t) * w
    def g(t):
        return h(t) + h(2.0 * t)
    w = x * x  # assigned after the defs, before the calls
    return g(x)


def nested_with_loop(v):
    def norm2(u):
        s = 0.0
        for ui in u:
            s = s + ui * ui
        return s
    def scale(u, c=2.0, *, shift=0.0):
        return u * c + shift
    return norm2(scale(v)) + norm2(scale(v, shift=1.0)) + norm2(scale(u=v, c=0.5))


def closure_in_loop(x):
    acc = x
    bump = lambda t: t * acc
    total = 0.0
    for i in range(4):
        total = total + bump(1.0)
        acc = acc + x * i
    return total + bump(2.0)


def closure_after_loop(x):
    s = x
    def g():
        return s * 2.0
    for i in range(3):
        s = x * i  # only g reads s after the loop
    return g()


def closure_before_loop(x):
    def g():
        return last * 2.0
    for i in range(3):
        last = x * x * i  # first assigned here; only g, defined before the loop, reads it after
    return g()


def in_comprehension(v):
    f = lambda t: np.sin(t) * t
    return sum(f(t) for t in v) + np.sum(np.array([f(t) for t in v]))


def returns_pair(x):
    def both(t):
        return t * 2.0, t * t
    a, b = both(x)
    return a + b


def test_nested_defs_and_lambdas():
    for f in (nested, lambdas, late_binding, default_at_def_time, nested_calls_nested, closure_in_loop,
              closure_after_loop, closure_before_loop, returns_pair):
        agrees(f, 0.7)
    agrees(nested_with_loop, X)
    agrees(in_comprehension, X)


two_lambdas = (lambda x: x * np.sin(x), lambda x: x * 2.0)


def test_two_lambdas_on_a_line():
    for f in two_lambdas:
        agrees(f, 0.7)


def nested_recursion(x):
    def fact(n):
        return 1.0 if n <= 1 else n * fact(n - 1)  # ERR
    return fact(3) * x


def nested_reads_unassigned(x):
    def g():
        return x * later  # ERR
    r = g()
    later = 2.0
    return r


def lambda_as_value(x):
    return apply(lambda t: t * 2.0, x)  # ERR


def apply(f, x):
    return f(x)


def nested_function_as_value(x):
    def g(t):
        return t
    h = g  # ERR
    return h(x)


def nested_no_return(x):
    def g(t):  # ERR
        t = t + 1.0
    return g(x)


def nested_wrong_call(x):
    g = lambda a, b: a + b
    return g(x)  # ERR


def def_in_branches(x):
    if x > 0.0:
        def g(t):
            return t * 2.0
    else:
        def g(t):
            return t * 3.0
    return g(x)  # ERR


@pytest.mark.parametrize("fn, cls, words", [
    (def_in_branches, UnsupportedSyntax, ["'g' is a different function", "line", "before the if"]),
    (nested_recursion, UnsupportedSyntax, ["recursi", "fact"]),
    (nested_reads_unassigned, UnsupportedSyntax, ["'later'", "before it is assigned"]),
    (lambda_as_value, UnsupportedSyntax, ["lambda", "called"]),
    (nested_function_as_value, UnsupportedSyntax, ["'g' is a function", "call it"]),
    (nested_no_return, UnsupportedSyntax, ["no return"]),
    (nested_wrong_call, CatadTypeError, ["lambda", "missing", "'b'"]),
], ids=lambda c: getattr(c, "__name__", ""))
def test_nested_refusals(fn, cls, words):
    refused(fn, (0.7,), *words, cls=cls)


# ---------------------------------------------------------------- bound methods

class Model:
    def __init__(self, W, c):
        self.W, self.c, self.n = W, c, 2

    def loss(self, x, reg=0.1):
        h = np.tanh(self.W @ x)
        return np.sum(h * h) * self.c + reg * self.penalty(x)

    def penalty(self, x):
        return np.sum(x ** self.n)


def uses_model(x):
    return MODEL.loss(x) + MODEL.penalty(x)


MODEL = Model(RNG.normal(size=(2, 3)), 0.5)


def test_bound_methods():
    m = Model(RNG.normal(size=(2, 3)), 1.5)
    agrees(m.loss, X)
    agrees(m.loss, X, 0.3)
    agrees(uses_model, X)
    grad = catad.grad(m.loss)
    before = grad(X)
    m.W = m.W * 2.0  # attributes of self are read at each call
    np.testing.assert_allclose(grad(X), central(m.loss, (X,), 0), rtol=1e-6, atol=1e-7)
    assert not np.allclose(before, grad(X))
    other = Model(np.ones((2, 3)), 1.0)  # another instance: its own attributes
    np.testing.assert_allclose(catad.grad(other.loss)(X), central(other.loss, (X,), 0), rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- builtins

def conversions(x, n):
    k = int(n) + int(3.9) + int(n > 2)
    return float(k) * abs(x) + min(x, 0.5) + max(x * x, 1.0, x) + float(n) * x


def test_builtins():
    agrees(conversions, -0.7, 3)
    agrees(conversions, 0.9, 1)


def int_of_float(x):
    return int(x * 2.0, 1)  # ERR


def appends_in_while(x):
    out = []
    while x < 10.0:  # ERR
        out.append(x)
        x = x * 2.0
    return sum(out)


@pytest.mark.parametrize("fn, args, words", [
    (int_of_float, (0.7,), ["int()", "more than one argument", "np.round(x, n)"]),
    (appends_in_while, (0.7,), ["'out'", "while loop", "np.zeros(n_max)"]),  # appends: tests/test_lists_append.py
], ids=lambda c: getattr(c, "__name__", ""))
def test_builtin_refusals(fn, args, words):
    refused(fn, args, *words, cls=UnsupportedSyntax)


# ---------------------------------------------------------------- enumerate's start

def qing(x):
    return sum((xi ** 2 - i) ** 2 for i, xi in enumerate(x, start=1))


def enumerate_loop(x):
    s = 0.0
    for i, xi in enumerate(x, 2):
        s = s + i * np.sin(xi)
    return s


def enumerate_tuple(x):
    k = 3
    return sum(i * t for i, t in enumerate((x[0], x[1] * x[2]), k))


def test_enumerate_start():
    for f in (qing, enumerate_loop, enumerate_tuple):
        agrees(f, X)


def _softmax_axis(z, axis=-1):
    e = np.exp(z - np.max(z, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _attention_with_axes(q, k):
    s = _softmax_axis(q @ k.T / 2.0, axis=-1)
    t = _softmax_axis(q @ k.T, 0)
    return np.sum(s * s) + np.sum(t[0]) + np.sum(_softmax_axis(q))


def test_a_helper_is_specialised_to_its_constant_int_arguments():
    # NumPy's axis= must be a constant: a helper given axis=-1 by its caller is compiled for
    # that value (and again for axis 0), as the corpus's attention layers need
    rng = np.random.default_rng(5)
    q, k = rng.normal(size=(3, 4)), rng.normal(size=(5, 4))
    value, g = catad.value_and_grad(_attention_with_axes)(q, k)
    assert value == pytest.approx(_attention_with_axes(q, k), rel=1e-13)
    np.testing.assert_allclose(g, central(_attention_with_axes, (q, k), 0), rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------- starred assignment

def starred(x):
    a, *rest = x[:4]
    *init, z = x
    p, *mid, q = (x[0], x[1] * 2, x[2] * 3, x[3])
    first, *others = [x[0] ** 2, x[1]]
    return a * np.sum(np.array(rest) ** 2) + z * np.sum(np.array(init)) + p * q * sum(mid) + first * len(others) \
        + len(mid)


@pytest.mark.parametrize("n", [4, 5, 8])
def test_starred_assignment(n):
    agrees(starred, np.linspace(-1.0, 2.0, n))


def starred_too_short(x):
    a, b, *rest = x  # ERR
    return a * b + len(rest)


def test_starred_assignment_of_too_few_is_python_s_error():
    with pytest.raises(ValueError) as python:
        starred_too_short(np.ones(1))
    with pytest.raises(catad.ShapeError) as ours:
        catad.grad(starred_too_short)(np.ones(1))
    assert str(python.value) in str(ours.value) and ours.value.loc.line == marked_line(starred_too_short)
    agrees(starred_too_short, np.array([1.0, 2.0]))
