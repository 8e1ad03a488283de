"""Front end: compiled programs evaluate to what the Python functions return."""
import math
import math as m_
from math import sin as msin

import numpy as np
import numpy as xp
import pytest

from catad.frontend import compile_function, compile_with_reads
from catad.lang.evaluate import evaluate

SCALE = 2.5
COUNT = 3
FLAG = True
TABLE = np.array([1.0, 2.0, 4.0])
ITABLE = np.array([1, 2, 3])
PAIR = (1.5, 2)


# ------------------------------------------------------------ scalars

def arith(x, y):
    return x + y, x - y, x * y, x / y, x ** 2, x // y, x % y, -x, +y


def int_arith(i, j):
    return i + j, i - j, i * j, i / j, i ** 2, i ** 0, i // j, i % j, -i, i ** -1, i ** j


def mixed(x, i):
    a = x + i
    b = i * x - 3
    c = i / 2 + 1
    return a, b, c, x ** i, 2 ** x, i > x, i == 2


def compare_logic(x, y):
    a = x < y
    b = x <= y and y < 10.0
    c = x > 0.5 or y >= 2.0
    d = not (x == y) and x != 3.0
    e = 0.0 <= x < y <= 5.0
    return a, b, c, d, e, True, False


def guard(v, i):
    n = len(v)
    ok = i < n and v[i] > 0.0
    also = i >= n or v[i] < 0.0
    return ok, also


def assignments(x, y):
    """Docstrings are ignored."""
    pass
    a: float = x * 2.0
    b = c = a + y
    p, q = b, c * 2.0
    p, q = q, p
    (r, s), t = (p, q), x
    t += 1.0
    t -= y
    t *= 2.0
    t /= 3.0
    t **= 2
    k = 7
    k //= 2
    k %= 3
    pair = (a, t, k)
    return pair[0] + pair[-1] + pair[1], r - s, t


def tuples(x):
    t = (x, x * 2.0, (x + 1.0, 3))
    a, b, (c, d) = t
    return t[2][1], t[-1][0], a + b + c + d, PAIR[0], PAIR[-1]


def branches(x, y):
    if x > y:
        a = x
        b = 1
    elif x < 0.0:
        a = y * 2.0
        b = 2.0
    else:
        a = -x
        b = 3
    if a > 1.0:
        a = a * 10.0
    c = a if b > 1.5 else 1
    return a + b + c


def early_return(x, n):
    if n == 0:
        return 0
    y = x * 2.0
    if y > 3.0:
        return y
    elif y < -3.0:
        return -y
    z = y + n
    if z > 0.0:
        w = z * z
    else:
        return z
    return w + 1.0


def nested_returns(x):
    if x > 0.0:
        if x > 1.0:
            return 1
        y = x * 3.0
    else:
        y = -x
    return y + 0.5


def ifexp(x, i):
    a = x if x > 0.0 else i
    b = i if i > 2 else 2
    return a, b, (1 if x > 1.0 else 2.5)


def math_fns(x, y):
    a = math.sin(x) + math.cos(x) + math.tan(x) + math.exp(x) + math.log(y) + math.log1p(y)
    b = math.expm1(x) + math.sqrt(y) + math.tanh(x) + math.sinh(x) + math.cosh(x) + math.atan(x)
    c = math.atan2(x, y) + math.fabs(x) + abs(x) + math.pow(y, x) + math.lgamma(y) + math.erf(x)
    d = np.sin(x) + np.exp(x) + np.arctan(x) + np.arctan2(y, x) + np.abs(x) + np.sqrt(y) + np.log(y)
    e = msin(x) + m_.cos(y) + xp.tanh(x)
    return a, b, c, d, e


def int_math(i):
    return math.sqrt(i), math.exp(i), abs(-i), math.fabs(i), float(i), max(i, 2), min(i, 2.5, 7)


def builtins_scalar(x, y, i):
    return max(x, y), min(x, y), max(x, y, 0.5, i), min(i, 3), float(x), abs(i - 5)


def constants(x):
    return (x * math.pi + np.pi - math.e + SCALE * COUNT + (1.0 if FLAG else 0.0) + TABLE[1] + ITABLE[2]
            + TABLE.sum() + TABLE.shape[0] + TABLE @ TABLE)


# ------------------------------------------------------------ arrays

def indexing(v, m, i):
    return v[i] + v[-1] + v[-2] + m[i][1] + m[1, i] + m[-1][-1] + m[1][-1] + sum(m[0])


def slicing(v, m, i):
    a = v[1:3]
    b = v[i:]
    c = v[:-1]
    d = v[-2:]
    e = m[1:3]
    f = m[1, 1:]
    g = m[:, 0]
    h = m[0:2, 1:3]
    return a, b, c, d, e, f, g, h, v[:], m[::1]


def comprehensions(v, m, n):
    a = [v[i] * 2.0 for i in range(len(v))]
    b = [float(i) for i in range(1, n)]
    c = [x * x for x in v]
    d = [[m[i][j] + i for j in range(len(m[0]))] for i in range(len(m))]
    e = [sum(row) for row in m]
    f = [i * x for i, x in enumerate(v)]
    g = [x - y for x, y in zip(v, a)]
    h = [v[i] for i in range(0, len(v), 2)]
    return a, b, c, d, e, f, g, h


def sums(v, m, n):
    a = sum(v)
    b = sum(m)
    c = sum(v[i] * v[i] for i in range(len(v)))
    d = sum([x for x in v])
    e = sum(x for x in v if x > 0.0)
    f = sum(i * j for i in range(n) for j in range(i))
    g = sum(m[i][j] for i in range(len(m)) if i > 0 for j in range(len(m[0])) if j != i)
    h = sum(i for i in range(n))
    return a, b, c, d, e, f, g, h


def np_reductions(v, m):
    return (np.sum(v), np.sum(m), np.sum(m, axis=0), np.sum(m, axis=1), np.mean(v), np.mean(m),
            np.mean(m, axis=0), np.mean(m, axis=1), np.max(v), np.min(v), np.max(m), np.min(m),
            max(v), min(v), max(x * 2.0 for x in v), min([v[i] - i for i in range(len(v))]),
            v.sum(), m.sum(axis=0), v.mean(), m.max(), np.sum(m, axis=-1))


def displays(x, i):
    a = np.array([x, 2.0 * x, 3.0])
    b = [x, i, 2]
    c = np.array([[1, 2], [x, 4]])
    d = [i, 2, 3]
    e = np.zeros(3)
    f = np.ones(i)
    g = np.zeros((2, i))
    h = np.array([i * 1.0 for i in range(3)], dtype=float)
    return a, b, c, d, e, f, g, h, np.ones((i, 2)), np.zeros_like(a), np.ones_like(d)


def lists_meet_arrays(v, x):
    w = [x, x, 2.0, 1.0]
    rows = [[x, 1.0, 2.0, 3.0], [4.0, x, 6.0, 7.0]]
    return v * w + np.exp([x, 1.0, 2.0, 3.0]), sum(w), np.array(w) * 2.0, rows[1][2], w[1:], np.sum(rows) + v


def products(v, w, m, p):
    return np.dot(v, w), v @ w, m @ v, np.dot(m, v), w @ m.T, m @ p, np.dot(m.T, m), v.dot(w), np.dot(m, p).T @ m[:, 0], m[0] @ p


def elementwise(v, w, m, x):
    a = v * w + 2.0 * v - w / 3.0
    b = m * v + 1
    c = np.exp(v) + np.sin(m) + np.sqrt(np.abs(w))
    d = -v + abs(w) - np.log(m * m + 1.0)
    e = np.maximum(v, 0.0) + np.minimum(v, w) + np.maximum(m, v)
    f = np.where(v > 0.0, v, w * x)
    g = np.where(m > 1.0, m, 0)
    h = (m.T + m[:, 0]).T + (v ** 2) - v % 1.5 + v // 2.0
    return a, b, c, d, e, f, g, h, (v > w), m.T.T, v.T, np.transpose(m), x - v


def numpy_extras(v, w, m, n):
    return (np.square(v), np.square(2), np.linalg.norm(v), np.linalg.norm(m), np.outer(v, w), np.clip(v, -0.5, 0.5),
            np.clip(m, v, 1.0), np.arange(n), np.arange(1, n) * 0.5, np.sum(np.arange(n)), np.argmax(v),
            v[np.argmin(v)])


def int_arrays(iv, v):
    return iv * 2, iv + v, iv / 2, np.sum(iv), sum(iv), np.mean(iv), max(iv), iv ** 2, iv[-1], -iv


def shapes(m, v):
    n, d = m.shape
    k = v.shape[0]
    (r,) = v.shape
    return n * d + k + r + m.shape[1] + len(m) + m.ndim + m.size + v.size


def long_expression(v, m):
    z = np.dot(m, v) / (1.0 + np.sum(v * v))
    return np.tanh(z) @ np.maximum(m, 0.0) + np.mean(z[1:] * z[:-1])


# ------------------------------------------------------------ user functions

def helper(x, y):
    return x * y + 1.0


def two_results(x):
    return x + 1.0, x * 2.0


def exp(x):  # clashes with the primitive name
    return x * 3.0


def calls_helpers(x, i):
    a = helper(x, 2.0)
    b = helper(i, 3)
    c = helper(i, x)
    p, q = two_results(a)
    return a + b + c + p + q + exp(x) + helper(helper(x, x), 1.0)


def vec_helper(v):
    return np.sum(v * v)


def calls_vec(v, m):
    return vec_helper(v) + vec_helper(m[0]) + vec_helper(m)


def make_closure():
    k = 3.0

    def inner(x):
        return x * k + helper(x, k)
    return inner


closure_fn = make_closure()
lam = lambda x, y: x * y + math.sin(x)


# ------------------------------------------------------------ harness

rng = np.random.default_rng(0)


def F():
    return float(rng.normal())


def P():
    return float(rng.uniform(0.5, 3.0))


def V(n=4):
    return rng.normal(size=n)


def M(r=3, c=4):
    return rng.normal(size=(r, c))


CASES = [
    (arith, lambda: (F(), P())),
    (int_arith, lambda: (int(rng.integers(1, 9)), int(rng.integers(1, 5)))),
    (mixed, lambda: (P(), int(rng.integers(1, 4)))),
    (compare_logic, lambda: (P(), P())),
    (compare_logic, lambda: (3.0, 3.0)),
    (guard, lambda: (V(), int(rng.integers(0, 8)))),
    (assignments, lambda: (F(), F())),
    (tuples, lambda: (F(),)),
    (branches, lambda: (F(), F())),
    (branches, lambda: (-2.0, 5.0)),
    (early_return, lambda: (F() * 3, int(rng.integers(0, 3)))),
    (early_return, lambda: (0.5, 0)),
    (early_return, lambda: (-0.2, 0)),
    (nested_returns, lambda: (F() * 2,)),
    (ifexp, lambda: (F() * 2, int(rng.integers(0, 5)))),
    (math_fns, lambda: (F() * 0.5, P())),
    (int_math, lambda: (int(rng.integers(1, 9)),)),
    (builtins_scalar, lambda: (F(), F(), int(rng.integers(-3, 3)))),
    (constants, lambda: (F(),)),
    (indexing, lambda: (V(), M(), int(rng.integers(0, 3)))),
    (slicing, lambda: (V(5), M(4, 4), int(rng.integers(0, 4)))),
    (comprehensions, lambda: (V(), M(), int(rng.integers(2, 6)))),
    (sums, lambda: (V(), M(), int(rng.integers(0, 6)))),
    (np_reductions, lambda: (V(), M())),
    (displays, lambda: (F(), int(rng.integers(1, 4)))),
    (lists_meet_arrays, lambda: (V(4), F())),
    (products, lambda: (V(4), V(4), M(3, 4), M(4, 2))),
    (elementwise, lambda: (V(4), V(4), M(3, 4), F())),
    (int_arrays, lambda: (rng.integers(-5, 5, size=4), V(4))),
    (numpy_extras, lambda: (V(4), V(3), M(2, 4), int(rng.integers(1, 6)))),
    (shapes, lambda: (M(), V())),
    (long_expression, lambda: (V(4), M(5, 4))),
    (calls_helpers, lambda: (F(), int(rng.integers(0, 5)))),
    (calls_vec, lambda: (V(), M())),
    (closure_fn, lambda: (F(),)),
    (lam, lambda: (F(), F())),
]


def assert_same(got, want, path="result"):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), path
        for k, (g, w) in enumerate(zip(got, want)):
            assert_same(g, w, f"{path}[{k}]")
    elif isinstance(want, list):  # a list display compiles to a vector
        np.testing.assert_allclose(got, np.array(want, dtype=float), rtol=1e-12, err_msg=path)
    else:
        np.testing.assert_allclose(np.asarray(got, dtype=float), np.asarray(want, dtype=float), rtol=1e-12,
                                   atol=1e-12, err_msg=path)
        assert np.shape(got) == np.shape(want), path


@pytest.mark.parametrize("fn, make", CASES, ids=[f"{c[0].__name__}-{k}" for k, c in enumerate(CASES)])
def test_evaluates_like_python(fn, make):
    for _ in range(3):
        args = make()
        program, reads = compile_with_reads(fn, args)  # globals read are parameters after fn's
        assert_same(evaluate(program, *args, *reads.current()), fn(*args))


def test_int_results_stay_int():
    p = compile_function(int_arith, (5, 3))
    got = evaluate(p, 5, 3)
    # i ** j promotes to Float: only a non-negative literal exponent keeps Int
    assert [type(x) for x in got] == [type(x) for x in int_arith(5, 3)[:10]] + [float]
    assert str(p.main.result_type) == "(Int, Int, Int, Float, Int, Int, Int, Int, Int, Float, Float)"
