"""The reusable test corpus: plain numeric Python functions, written the way a user would.

Every function here is ordinary Python over floats, ints, bools, tuples and NumPy arrays
of rank 1 or 2, and together they use every construct catad's front end accepts. Each has
a :class:`Case`: a generator of random arguments in a domain where the function is
smooth and well-defined (positive values under log and sqrt, no ties for max/min, a
margin from every branch boundary of an ``if``), tags naming what it exercises, the
argument positions a gradient test differentiates with respect to, and whether it
returns a single float.

Tests import ``CASES`` (tests/conftest.py puts this directory on ``sys.path``)::

    for case in CASES:
        args = case.make_args(np.random.default_rng(seed))
        expected = case.fn(*args)

Rules kept by every case, which later tests (gradients against central differences)
rely on:

* ``make_args`` returns Python floats and ints (never NumPy scalars), float64/int64
  arrays of rank 1 or 2 with every dimension between 2 and 7 (or 1 where the size is
  derived, as GMM's D(D-1)/2 for D = 2), and tuples of these;
* at the returned arguments every branch condition, max/min tie, abs argument and
  float ``//``/``%`` is at least ``MARGIN`` from its switching point (measured on the
  compared expression; rejection sampling), so central differences with steps up to
  1e-3 stay on one smooth piece;
* outputs are finite and moderate (well below 1e6 in magnitude).

Functions whose names start with ``_`` or that have no case are helpers called by
the cases (catad compiles them as part of the caller's program).
"""
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from adbench import gmm  # ADBench's GMM objective, a case here, is the benchmarks' (see conftest.py)
from adbench.gmm import gmm_objective

# ---------------------------------------------------------------- the Case record


@dataclass(frozen=True)
class Case:
    """One corpus function with its argument domain.

    name: unique id, used to parametrise tests.
    fn: the plain Python function.
    make_args: ``make_args(rng) -> tuple`` of random arguments in the smooth domain.
    tags: what the case exercises (see ``ALL_TAGS``).
    differentiable_argnums: positions of the arguments of float type: float scalars
        and float arrays (not ints, bools or tuples). Gradients are taken w.r.t. these.
    float_output: True when ``fn`` returns a single float (a grad-able function).

    Some cases return ints, bools, tuples or arrays (float_output False), and a few
    float-output cases take only ints (differentiable_argnums empty): gradient tests
    should select ``float_output and differentiable_argnums``.
    """

    name: str
    fn: Callable[..., Any]
    make_args: Callable[[np.random.Generator], tuple]
    tags: frozenset
    differentiable_argnums: tuple
    float_output: bool

    def __repr__(self) -> str:  # short, for pytest ids and failure messages
        return f"Case({self.name})"


MARGIN = 0.1  # minimum distance from a branch boundary, a tie or a kink

ALL_TAGS = frozenset({
    "scalar",      # scalar arguments and arithmetic
    "array",       # rank-1 arrays
    "matrix",      # rank-2 arrays
    "int",         # int arguments or int arithmetic
    "promotion",   # ints mixed with floats
    "compare",     # comparisons, chained comparisons
    "logic",       # and / or / not
    "bool",        # the result is a bool
    "assign",      # assignment forms: annotated, augmented, unpacking, swaps
    "tuple",       # tuples: built, unpacked, indexed, returned, passed
    "if",          # if statements and conditional expressions
    "math",        # math / numpy scalar functions
    "maxmin",      # max / min in any form
    "index",       # indexing arrays
    "slice",       # slicing arrays
    "build",       # list comprehensions (build)
    "sum",         # sums and reductions
    "broadcast",   # elementwise array arithmetic with broadcasting
    "matmul",      # np.dot and @
    "call",        # calls of user helpers
    "const",       # module-level constants
    "realistic",   # realistic programs
})


def _float_positions(args: tuple) -> tuple:
    return tuple(i for i, a in enumerate(args)
                 if (isinstance(a, float))
                 or (isinstance(a, np.ndarray) and a.dtype.kind == "f"))


def _is_single_float(out: Any) -> bool:
    return isinstance(out, (float, np.floating))


def _sample(draw, boundaries, margin, rng):
    """Draw arguments until every boundary value is at least `margin` from 0."""
    for _ in range(10_000):
        args = draw(rng)
        if boundaries is None:
            return args
        values = np.asarray(boundaries(*args), dtype=float).ravel()
        if np.all(np.abs(values) >= margin):
            return args
    raise RuntimeError("could not draw arguments away from the boundaries")


class _ArgMaker:
    """make_args(rng): draw(rng), re-drawn until `boundaries(*args)` are all >= margin in size."""

    def __init__(self, draw, boundaries=None, margin=MARGIN):
        self.draw, self.boundaries, self.margin = draw, boundaries, margin

    def __call__(self, rng: np.random.Generator) -> tuple:
        return _sample(self.draw, self.boundaries, self.margin, rng)


CASES: list = []


def case(fn, draw, tags, boundaries=None, margin=MARGIN, name=None):
    """Register a Case; the argument metadata is read off a sample of the arguments."""
    make_args = _ArgMaker(draw, boundaries, margin)
    sample = make_args(np.random.default_rng(12345))
    c = Case(name=name or fn.__name__, fn=fn, make_args=make_args, tags=frozenset(tags),
             differentiable_argnums=_float_positions(sample),
             float_output=_is_single_float(fn(*sample)))
    assert c.tags <= ALL_TAGS, c.tags - ALL_TAGS
    CASES.append(c)
    return c


# ---------------------------------------------------------------- argument generators

def _f(rng, lo=-1.0, hi=1.0) -> float:
    return float(rng.uniform(lo, hi))


def _pos(rng, lo=0.2, hi=2.0) -> float:
    return float(rng.uniform(lo, hi))


def _n(rng, lo=2, hi=7) -> int:
    """An int in [lo, hi] (inclusive)."""
    return int(rng.integers(lo, hi + 1))


def _v(rng, n=None, lo=-1.0, hi=1.0) -> np.ndarray:
    return rng.uniform(lo, hi, size=_n(rng) if n is None else n)


def _m(rng, n=None, d=None, lo=-1.0, hi=1.0) -> np.ndarray:
    return rng.uniform(lo, hi, size=(_n(rng) if n is None else n, _n(rng) if d is None else d))


def _pairwise(v) -> np.ndarray:
    """All pairwise differences of v's elements (ties have a zero here)."""
    v = np.ravel(np.asarray(v, dtype=float))
    return np.array([v[i] - v[j] for i in range(len(v)) for j in range(i)] or [1.0])


# ================================================================ scalar arithmetic

def notes_f2(x):
    """The working notes' running example f2 (Section 9); f2'(x) = 3x^2 + 4x^3."""
    y = x * x
    z = x + y
    return y * z


case(notes_f2, lambda r: (_f(r, -2.0, 2.0),), {"scalar", "realistic"})


def seed000_fig1(x, y):
    """Smeding and Vakar, Fig. 1(a): let z = x + y in x * z."""
    z = x + y
    return x * z


case(seed000_fig1, lambda r: (_f(r, -2.0, 2.0), _f(r, -2.0, 2.0)), {"scalar", "realistic"})


def scalar_arithmetic(x, y):
    """+ - * / ** and unary minus on floats; y > 0 for the square root."""
    a = (x + y) * (x - y)
    b = a / (1.0 + y * y)
    c = x ** 3 - y ** 0.5 + 2.0 ** x
    return -b + c * 0.25 - (-x)


case(scalar_arithmetic, lambda r: (_f(r, -1.5, 1.5), _pos(r)), {"scalar"})


def floor_and_mod(x, n):
    """// and % on floats and on ints. x keeps its fractional part in [0.2, 0.8]."""
    q = x // 1.0
    r = x % 1.0
    k = n // 3
    m = n % 3
    return r * r * (k + 1) + q * 0.5 + m * x - (-k) * r


case(floor_and_mod, lambda r: (float(r.integers(-2, 3)) + _f(r, 0.2, 0.8), _n(r, 2, 9)),
     {"scalar", "int", "promotion"})


def int_promotion(x, n):
    """Int arguments mixed with floats: int*float, int/int, float(int), -int."""
    a = x * n
    b = n / 4
    c = float(n) * x ** 2
    d = -n * x + n
    return a + b + c + d - 2 * x


case(int_promotion, lambda r: (_f(r, -2.0, 2.0), _n(r, 1, 6)), {"scalar", "int", "promotion"})


def int_arithmetic(n, k):
    """Int-only arithmetic: the result is an int and must match exactly."""
    a = n * k - n // k + n % k
    b = -a + n ** 2
    c = abs(k - n)
    return a + b * 2 - c


case(int_arithmetic, lambda r: (_n(r, 1, 9), _n(r, 1, 9)), {"int"})


def compare_and_logic(x, y):
    """A bool result from comparisons, a chained comparison, and/or/not."""
    inside = 0.0 < x < y <= 3.0
    return (inside and not (y > 2.5)) or (x >= 1.0 and x != y)


case(compare_and_logic, lambda r: (_f(r, -1.0, 3.5), _f(r, -1.0, 3.5)),
     {"scalar", "compare", "logic", "bool"},
     boundaries=lambda x, y: (x, x - y, y - 3.0, y - 2.5, x - 1.0))


def int_compare(n, k):
    """Comparisons of ints, == and !=; the result is an int."""
    a = 1 if n == k else 0
    b = 2 if n != 3 and k <= n else 0
    c = 4 if not (n > 5 or k >= 7) else 0
    return a + b + c


case(int_compare, lambda r: (_n(r, 1, 8), _n(r, 1, 8)), {"int", "compare", "logic", "if"})


def compare_select(x, y):
    """Comparisons, a chained comparison and boolean operators choosing an if branch."""
    if 0.0 < x < y and not y > 2.0:
        r = x * y
    elif x < 0.0 or y < 0.0:
        r = x + y * y
    else:
        r = x - y
    return r


case(compare_select, lambda r: (_f(r, -1.0, 3.0), _f(r, -1.0, 3.0)),
     {"scalar", "compare", "logic", "if"},
     boundaries=lambda x, y: (x, y, x - y, y - 2.0))


# ================================================================ assignment and tuples

def annotated_augmented(x, y):
    """Annotated and augmented assignment (+= *= -= /=) on floats, and on an int."""
    a: float = x * 2.0
    a += y
    a *= x
    a -= 1.0
    a /= 1.0 + y * y
    b: int = 3
    b += 2
    b *= 2
    b -= 1
    return a * b


case(annotated_augmented, lambda r: (_f(r), _f(r)), {"scalar", "assign", "int", "promotion"})


def swap_and_unpack(x, y, z):
    """Tuple unpacking and swaps."""
    a, b, c = x, y, z
    a, b = b, a
    b, c = c * 2.0, b
    p, q = (a + b, a - b)
    return p * 10.0 + q + c * c


case(swap_and_unpack, lambda r: (_f(r), _f(r), _f(r)), {"scalar", "assign", "tuple"})


def three_results(x, y):
    """Several return values."""
    s = x + y
    return s, x * y, s * s - x


case(three_results, lambda r: (_f(r), _f(r)), {"scalar", "tuple"})


def nested_tuple_result(x, n):
    """A nested tuple result mixing floats and an int."""
    return (x * x, (math.sin(x), n + 1)), -x


case(nested_tuple_result, lambda r: (_f(r), _n(r)), {"scalar", "tuple", "int", "math"})


def tuple_constants(x, y):
    """Tuples built, nested and indexed by constants."""
    t = (x * y, x + y, 3)
    u = (t, x)
    return t[0] * t[2] - t[1] + u[0][1] * u[1]


case(tuple_constants, lambda r: (_f(r), _f(r)), {"scalar", "tuple", "promotion"})


def tuple_argument(params, x):
    """params = (scale, power): a tuple-typed argument indexed by constants."""
    scale = params[0]
    power = params[1]
    return scale * x ** power + params[0] / (1.0 + x)


case(tuple_argument, lambda r: ((_f(r, 0.5, 2.0), _n(r, 1, 4)), _pos(r, 0.2, 1.5)),
     {"scalar", "tuple", "int", "promotion"})


# ================================================================ if statements

def piecewise(x):
    """A continuous piecewise polynomial (Huber-like) with if/elif/else."""
    if x < -1.0:
        y = -x - 0.5
    elif x < 1.0:
        y = 0.5 * x * x
    else:
        y = x - 0.5
    return 2.0 * y + x


case(piecewise, lambda r: (_f(r, -3.0, 3.0),), {"scalar", "if", "compare", "realistic"},
     boundaries=lambda x: (x + 1.0, x - 1.0))


def if_join(x, y):
    """Two variables assigned in both branches and joined after the if."""
    if x > y:
        a = x
        b = y * 2.0
    else:
        a = y
        b = x * 3.0
    c = a * b
    return c + a


case(if_join, lambda r: (_f(r), _f(r)), {"scalar", "if", "compare"},
     boundaries=lambda x, y: (x - y,))


def early_return(x):
    """An early return in a branch."""
    if x < 0.0:
        return x * x
    y = math.sqrt(x)
    return y + x


case(early_return, lambda r: (_f(r, -2.0, 2.0),), {"scalar", "if", "math"},
     boundaries=lambda x: (x,))


def early_return_elif(x, y):
    """A return in the first branch, a variable joined from the other two."""
    if x > 2.0:
        return x * y
    elif x > 0.0:
        z = x + y
    else:
        z = y - x
    return z * z


case(early_return_elif, lambda r: (_f(r, -2.0, 3.0), _f(r)), {"scalar", "if", "compare"},
     boundaries=lambda x, y: (x, x - 2.0))


def if_without_else(x):
    """An if without else updating a variable (continuous at the boundary)."""
    y = x * 3.0
    if x > 1.0:
        y = y * 0.5 + 1.5
    return y


case(if_without_else, lambda r: (_f(r, -1.0, 3.0),), {"scalar", "if"},
     boundaries=lambda x: (x - 1.0,))


def conditional_expressions(x, y):
    """Conditional expressions, one inside an arithmetic expression."""
    s = x if x > y else y
    t = 1.0 if x * y > 0.0 else -1.0
    return s * t + (x * x if s > 0.5 else -y)


case(conditional_expressions, lambda r: (_f(r, -2.0, 2.0), _f(r, -2.0, 2.0)),
     {"scalar", "if", "compare"},
     boundaries=lambda x, y: (x - y, x, y, max(x, y) - 0.5))


def nested_if(x, y):
    """An if nested in an if, and a conditional expression in an else."""
    if x > 0.0:
        if y > 0.0:
            r = x * y
        else:
            r = x - y
    else:
        r = -x * y if y > 0.0 else x + y
    return r * 2.0


case(nested_if, lambda r: (_f(r), _f(r)), {"scalar", "if", "compare"},
     boundaries=lambda x, y: (x, y))


# ================================================================ math functions

def math_functions(x):
    """The math module's scalar functions (x in [0.2, 1.2])."""
    a = math.sin(x) + math.cos(x) + math.tan(x)
    b = math.exp(x) + math.log(x) + math.log1p(x) + math.expm1(x)
    c = math.sqrt(x) + math.tanh(x) + math.sinh(x) + math.cosh(x) + math.atan(x)
    return a + b * 0.5 + c


case(math_functions, lambda r: (_pos(r, 0.2, 1.2),), {"scalar", "math"})


def numpy_scalar_functions(x):
    """NumPy's scalar functions applied to a float (x in [0.2, 1.2])."""
    a = np.sin(x) * np.cos(x) + np.tan(x)
    b = np.exp(-x) + np.log(x) + np.log1p(x) - np.expm1(x)
    c = np.sqrt(x) * np.tanh(x) + np.sinh(x) - np.cosh(x) + np.arctan(x)
    return a + b + c


case(numpy_scalar_functions, lambda r: (_pos(r, 0.2, 1.2),), {"scalar", "math"})


def special_functions(x, y):
    """atan2, abs/fabs, pow, lgamma, erf and math.pi (x > 0, y away from 0)."""
    a = math.atan2(y, x) + np.arctan2(x, y)
    b = math.fabs(y) + abs(x) + np.abs(y)
    c = math.pow(x, 1.5) + pow(y, 2) + math.lgamma(x + 0.5) + math.erf(y)
    return a + b + c * math.pi


case(special_functions, lambda r: (_pos(r, 0.2, 2.0), _f(r, -1.5, 1.5)), {"scalar", "math"},
     boundaries=lambda x, y: (y,))


def max_min_scalars(x, y, z):
    """max/min of two and of three scalars, and against a constant."""
    a = max(x, y) + 2.0 * min(x, y)
    b = max(x, y, z) - min(z, x, y)
    return a * b + max(x, 0.5)


case(max_min_scalars, lambda r: (_f(r), _f(r), _f(r)), {"scalar", "maxmin"},
     boundaries=lambda x, y, z: (x - y, y - z, x - z, x - 0.5))


def max_min_vector(v):
    """max/min of a vector (builtin and NumPy) and of generators."""
    a = max(v) - min(v)
    b = np.max(v) * np.min(v)
    c = max(2.0 * x + 1.0 for x in v)
    d = min(v[i] * (i + 1) for i in range(len(v)))
    return a + b + c + d


case(max_min_vector, lambda r: (_v(r),), {"array", "maxmin", "build", "index"},
     boundaries=lambda v: np.concatenate([_pairwise(v), _pairwise(v * np.arange(1, len(v) + 1))]))


def builtin_scalar_functions(v, n):
    """len, v.shape[0], abs, float and math.pi."""
    size = len(v) + v.shape[0]
    return float(size) * abs(v[0]) + float(n) * math.pi + abs(-n) * v[1]


case(builtin_scalar_functions, lambda r: (_v(r), _n(r)), {"array", "int", "promotion", "math"},
     boundaries=lambda v, n: (v[0],))


def shape_unpack(m):
    """n, d = m.shape; a sum over a double generator; m.shape[1]."""
    n, d = m.shape
    total = sum(m[i, j] * (i + 1) for i in range(n) for j in range(d))
    return total / (n * d) + m.shape[1]


case(shape_unpack, lambda r: (_m(r),), {"matrix", "sum", "index", "promotion", "tuple"})


# ================================================================ arrays: indexing and slicing

def indexing(v, m):
    """v[i], m[i][j], m[i, j], a row m[i] and v[-1]."""
    return v[0] * m[1][2] + m[0, 1] - v[-1] + np.sum(m[1]) * v[1]


case(indexing, lambda r: (_v(r), _m(r, _n(r, 2, 5), _n(r, 3, 6))), {"array", "matrix", "index", "sum"})


def index_with_variables(v, m, i, j):
    """Indices that are int arguments and int arithmetic (i < len(v) == rows, 1 <= j)."""
    return m[i, j] * v[i] + m[i][j - 1] - v[len(v) - 1 - i]


def _draw_index_with_variables(r):
    n, d = _n(r), _n(r)
    return _v(r, n), _m(r, n, d), int(r.integers(0, n)), int(r.integers(1, d))


case(index_with_variables, _draw_index_with_variables, {"array", "matrix", "index", "int"})


def vector_slices(v, a, b):
    """v[1:], v[:n-1], v[a:b] with int arguments, v[0:2]."""
    n = len(v)
    head = v[:n - 1]
    tail = v[1:]
    mid = v[a:b]
    return np.sum(head * tail) + 2.0 * np.sum(mid) + np.dot(v[1:3], v[0:2])


def _draw_vector_slices(r):
    n = _n(r, 3, 7)
    a = int(r.integers(0, n - 1))
    return _v(r, n), a, int(r.integers(a + 1, n + 1))


case(vector_slices, _draw_vector_slices, {"array", "slice", "sum", "matmul", "int"})


def matrix_slices(m):
    """A column m[:, 0] and a block of rows m[1:3]."""
    col = m[:, 0]
    rows = m[1:3]
    return np.sum(rows, axis=0) * col[0] + np.sum(col * col)


case(matrix_slices, lambda r: (_m(r, _n(r, 3, 6)),), {"matrix", "slice", "sum", "broadcast"})


# ================================================================ comprehensions and sums

def comprehension_range(v):
    """[e for i in range(n)] then sum and indexing of the list."""
    n = len(v)
    w = [v[i] * float(i + 1) for i in range(n)]
    return sum(w) + w[0] * w[n - 1]


case(comprehension_range, lambda r: (_v(r),), {"array", "build", "sum", "index"})


def comprehension_range_ab(v, a, b):
    """[e for i in range(a, b)], returned as is (a list, i.e. a vector)."""
    return [v[i] * v[i - 1] for i in range(a, b)]


def _draw_range_ab(r):
    n = _n(r, 3, 7)
    a = int(r.integers(1, n - 1))
    return _v(r, n), a, int(r.integers(a + 1, n + 1))


case(comprehension_range_ab, _draw_range_ab, {"array", "build", "index", "int"})


def comprehension_over_elements(v):
    """[e for x in v] and a mean by len."""
    e = [math.exp(x) * 0.5 for x in v]
    return sum(e) / len(e)


case(comprehension_over_elements, lambda r: (_v(r),), {"array", "build", "sum", "math"})


def rows_comprehension(m):
    """Iterating over the rows of a matrix: [e for row in m]."""
    return [np.sum(row * row) - row[0] for row in m]


case(rows_comprehension, lambda r: (_m(r),), {"matrix", "build", "sum", "broadcast"})


def outer_product(v, w):
    """A nested comprehension building a matrix, returned as is."""
    return [[v[i] * w[j] for j in range(len(w))] for i in range(len(v))]


case(outer_product, lambda r: (_v(r), _v(r)), {"array", "build", "index"})


def nested_comprehension_trace(m):
    """trace(m @ m) through a nested comprehension and m2[i][i]."""
    n = len(m)
    sq = [[sum(m[i][k] * m[k][j] for k in range(n)) for j in range(n)] for i in range(n)]
    return sum(sq[i][i] for i in range(n))


def _draw_square(r):
    n = _n(r, 2, 5)
    return (_m(r, n, n),)


case(nested_comprehension_trace, _draw_square, {"matrix", "build", "sum", "index"})


def sum_forms(v):
    """sum of a generator, of a list comprehension, of a list literal, of a vector."""
    n = len(v)
    a = sum(v[i] * v[i] for i in range(n))
    b = sum(v) + sum([x * 2.0 for x in v])
    c = sum([v[0], v[1], a])
    return a + b + c


case(sum_forms, lambda r: (_v(r),), {"array", "sum", "build", "index"})


def triangular_sum(v):
    """sum(... for i in range(n) for j in range(i)): a triangular double sum."""
    n = len(v)
    return sum(v[i] * v[j] for i in range(n) for j in range(i))


case(triangular_sum, lambda r: (_v(r),), {"array", "sum", "build", "index"})


def filtered_sums(v):
    """Generators with if filters: on an int index, on a float value, on i != j."""
    n = len(v)
    even = sum(v[i] for i in range(n) if i % 2 == 0)
    positive = sum(x * x for x in v if x > 0.0)
    off_diagonal = sum(v[i] * v[j] for i in range(n) for j in range(n) if i != j)
    return even + positive + off_diagonal


case(filtered_sums, lambda r: (_v(r),), {"array", "sum", "build", "compare", "int", "if"},
     boundaries=lambda v: v)


def harmonic(n):
    """An int argument as the size of a generator; the result is a float."""
    return sum(1.0 / (i + 1) for i in range(n))


case(harmonic, lambda r: (_n(r),), {"int", "sum", "build", "promotion"})


def numpy_reductions(v, m):
    """np.sum of a vector, of a matrix, along each axis, and np.mean."""
    col_sums = np.sum(m, axis=0)
    row_sums = np.sum(m, axis=1)
    return np.sum(v) * np.mean(v) + np.sum(m) + np.dot(col_sums, col_sums) + np.sum(row_sums * row_sums)


case(numpy_reductions, lambda r: (_v(r), _m(r)), {"array", "matrix", "sum", "matmul", "broadcast"})


# ================================================================ NumPy arrays

def array_literal(x, y, z):
    """np.array([a, b, c]) from scalars."""
    v = np.array([x, y * 2.0, z])
    return np.dot(v, v) + v[1] * np.sum(v)


case(array_literal, lambda r: (_f(r), _f(r), _f(r)), {"scalar", "array", "matmul", "index", "sum"})


def dot_vector_vector(v, w):
    """np.dot and @ of two vectors."""
    return np.dot(v, w) + (v @ w) * 0.5


def _draw_two_vectors(r):
    n = _n(r)
    return _v(r, n), _v(r, n)


case(dot_vector_vector, _draw_two_vectors, {"array", "matmul"})


def matvec(m, v):
    """Matrix-vector products with @ and np.dot."""
    return m @ v + np.dot(m, v) * 0.5


def _draw_matvec(r):
    n, d = _n(r), _n(r)
    return _m(r, n, d), _v(r, d)


case(matvec, _draw_matvec, {"array", "matrix", "matmul", "broadcast"})


def vecmat(v, m):
    """Vector-matrix products with @ and np.dot."""
    return v @ m - np.dot(v, m) * 0.25


def _draw_vecmat(r):
    n, d = _n(r), _n(r)
    return _v(r, n), _m(r, n, d)


case(vecmat, _draw_vecmat, {"array", "matrix", "matmul", "broadcast"})


def matmat(a, b):
    """Matrix-matrix products with @ and np.dot."""
    return a @ b + np.dot(a, b) * 2.0


def _draw_matmat(r):
    n, k, d = _n(r), _n(r), _n(r)
    return _m(r, n, k), _m(r, k, d)


case(matmat, _draw_matmat, {"matrix", "matmul", "broadcast"})


def elementwise_math(v, w):
    """Elementwise arithmetic and math on vectors (w away from 0 for abs)."""
    return (np.exp(v) * w + 2.0 * v - w / 3.0 + np.sin(v) ** 2
            + np.sqrt(np.abs(w) + 1.0) - np.log(w * w + 1.0) + np.tanh(v) * np.cos(w))


case(elementwise_math, _draw_two_vectors, {"array", "broadcast", "math"},
     boundaries=lambda v, w: w)


def scalar_broadcast(v, x):
    """Vectors combined with a scalar argument."""
    return (v + x) * 2.0 - x / (1.0 + v * v) + np.cos(v * x) - x


case(scalar_broadcast, lambda r: (_v(r), _f(r)), {"array", "scalar", "broadcast", "math"})


def row_broadcast(m, v):
    """A matrix combined elementwise with a row vector (matrix-row broadcasting)."""
    return (m - v) * 2.0 + np.tanh(m) * v + m / (1.0 + v * v)


def _draw_row_broadcast(r):
    n, d = _n(r), _n(r)
    return _m(r, n, d), _v(r, d)


case(row_broadcast, _draw_row_broadcast, {"matrix", "array", "broadcast", "math"})


def maximum_where(v):
    """np.maximum and np.where (entries away from 0)."""
    relu = np.maximum(v, 0.0)
    leaky = np.where(v > 0.0, v, 0.1 * v)
    return np.sum(relu * relu) + np.sum(leaky) + np.sum(np.maximum(v, -v))


case(maximum_where, lambda r: (_v(r),), {"array", "maxmin", "if", "compare", "sum", "broadcast"},
     boundaries=lambda v: v)


def transpose_and_zeros(m, v):
    """.T, np.zeros(n), and a transposed matrix-vector product."""
    n, d = m.shape
    acc = np.zeros(d)
    t = m.T
    return t @ v + acc + t[0][n - 1]


def _draw_transpose(r):
    n, d = _n(r), _n(r)
    return _m(r, n, d), _v(r, n)


case(transpose_and_zeros, _draw_transpose, {"matrix", "array", "matmul", "broadcast", "index", "tuple"})


def transpose_matmat(a):
    """a.T @ a (a Gram matrix) plus a scalar: the squared Frobenius norm of a."""
    g = a.T @ a
    return g + np.sum(a * a)


case(transpose_matmat, lambda r: (_m(r),), {"matrix", "matmul", "broadcast", "sum"})


# ================================================================ calls of user helpers

def square(x):
    return x * x


def helper_two_types(x, v):
    """One helper called at a float and at a float vector."""
    return square(x) + np.sum(square(v))


case(helper_two_types, lambda r: (_f(r), _v(r)), {"scalar", "array", "call", "sum"})


def polar(x, y):
    r = math.sqrt(x * x + y * y)
    return r, math.atan2(y, x)


def tuple_helper(x, y):
    """A helper returning a tuple, unpacked once and indexed once."""
    r, theta = polar(x, y)
    p = polar(y, x)
    return r * math.cos(theta) + p[0] * p[1]


case(tuple_helper, lambda r: (_pos(r), _pos(r)), {"scalar", "call", "tuple", "math"})


def _softplus(x):
    return math.log1p(math.exp(x))


def _softplus_squared(x):
    s = _softplus(x)
    return s * s


def _layer(x, w):
    return _softplus_squared(x * w) + w


def helper_chain(x, w):
    """A chain of helpers: helper_chain -> _layer -> _softplus_squared -> _softplus."""
    return _layer(x, w) * _layer(w, x)


case(helper_chain, lambda r: (_f(r), _f(r)), {"scalar", "call", "math"})


def _weighted(v, k):
    return v * k


def helper_int_argument(v, k):
    """A helper taking an int argument and returning a vector."""
    return np.sum(_weighted(v, k)) + np.sum(_weighted(v, 0.5))


case(helper_int_argument, lambda r: (_v(r), _n(r)), {"array", "call", "int", "promotion", "sum"})


SCALE = 2.5
N_TERMS = 3
WEIGHTS = np.array([0.5, -1.0, 2.0, 0.25])


def module_constants(v):
    """Module-level float, int and array constants captured by the function."""
    return SCALE * np.dot(WEIGHTS, v) + N_TERMS * v[0] + sum(WEIGHTS[i] * v[i] ** 2 for i in range(N_TERMS))


case(module_constants, lambda r: (_v(r, 4),), {"array", "const", "matmul", "sum", "build", "index"})


# ================================================================ realistic programs

def logsumexp(v):
    """log(sum(exp(v))) computed stably."""
    m = np.max(v)
    return m + np.log(np.sum(np.exp(v - m)))


case(logsumexp, lambda r: (_v(r, lo=-3.0, hi=3.0),),
     {"array", "realistic", "maxmin", "sum", "broadcast", "math"},
     boundaries=lambda v: _pairwise(v))


def softmax_cross_entropy(logits, target):
    """The cross-entropy of softmax(logits) against an int class label."""
    return logsumexp(logits) - logits[target]


def _draw_softmax_ce(r):
    v = _v(r, lo=-3.0, hi=3.0)
    return v, int(r.integers(0, len(v)))


case(softmax_cross_entropy, _draw_softmax_ce, {"array", "realistic", "call", "int", "index"},
     boundaries=lambda v, t: _pairwise(v))


def softmax(v):
    """A softmax vector."""
    e = np.exp(v - np.max(v))
    return e / np.sum(e)


case(softmax, lambda r: (_v(r, lo=-3.0, hi=3.0),), {"array", "realistic", "maxmin", "broadcast", "sum"},
     boundaries=lambda v: _pairwise(v))


def mlp_layer(W, x, b):
    """A dense layer tanh(W @ x + b)."""
    return np.tanh(W @ x + b)


def _draw_mlp_layer(r):
    n, d = _n(r), _n(r)
    return _m(r, n, d), _v(r, d), _v(r, n)


case(mlp_layer, _draw_mlp_layer, {"matrix", "array", "matmul", "broadcast", "math", "realistic"})


def mlp_loss(W1, b1, W2, b2, x, y):
    """A two-layer perceptron's squared error, calling mlp_layer."""
    h = mlp_layer(W1, x, b1)
    out = W2 @ h + b2
    diff = out - y
    return 0.5 * np.dot(diff, diff)


def _draw_mlp_loss(r):
    d, h, o = _n(r, 2, 5), _n(r, 2, 5), _n(r, 2, 4)
    return _m(r, h, d), _v(r, h), _m(r, o, h), _v(r, o), _v(r, d), _v(r, o)


case(mlp_loss, _draw_mlp_loss, {"matrix", "array", "matmul", "broadcast", "call", "realistic"})


def gaussian_log_likelihood(x, mu, log_sigma):
    """The log-likelihood of samples x under N(mu, exp(log_sigma)^2)."""
    n = len(x)
    sigma = np.exp(log_sigma)
    z = (x - mu) / sigma
    return -0.5 * n * math.log(2.0 * math.pi) - n * log_sigma - 0.5 * np.sum(z ** 2)


case(gaussian_log_likelihood, lambda r: (_v(r, lo=-2.0, hi=2.0), _f(r, -0.5, 0.5), _f(r, -0.5, 0.5)),
     {"array", "scalar", "broadcast", "math", "sum", "promotion", "realistic"})


def logistic_regression_loss(w, X, y):
    """Mean logistic loss of labels y in {-1, +1} (as floats)."""
    z = X @ w
    return np.sum(np.log1p(np.exp(-y * z))) / len(y)


def _draw_logreg(r):
    n, d = _n(r), _n(r)
    return _v(r, d), _m(r, n, d), np.where(r.uniform(size=n) > 0.5, 1.0, -1.0)


case(logistic_regression_loss, _draw_logreg,
     {"matrix", "array", "matmul", "broadcast", "math", "sum", "realistic"})


def cosine_similarity(v, w):
    """The cosine of the angle between two vectors."""
    return np.dot(v, w) / (np.sqrt(np.dot(v, v)) * np.sqrt(np.dot(w, w)))


case(cosine_similarity, lambda r: (_v(r, 4, 0.2, 1.0), _v(r, 4, -1.0, 1.0)),
     {"array", "matmul", "math", "realistic"})


def rosenbrock(v):
    """The n-dimensional Rosenbrock function."""
    return sum(100.0 * (v[i + 1] - v[i] ** 2) ** 2 + (1.0 - v[i]) ** 2 for i in range(len(v) - 1))


case(rosenbrock, lambda r: (_v(r, lo=-1.2, hi=1.2),), {"array", "sum", "build", "index", "realistic"})


def polyval(coeffs, x):
    """np.polyval(coeffs, x), highest degree first: the polynomial Horner's rule evaluates,
    written with a comprehension of powers and a sum (Horner proper is a loop, a fold). x > 0.
    """
    n = len(coeffs)
    powers = [x ** (n - 1 - k) for k in range(n)]
    return sum(coeffs[k] * powers[k] for k in range(n))


case(polyval, lambda r: (_v(r), _pos(r, 0.2, 1.5)),
     {"array", "scalar", "build", "sum", "index", "int", "promotion", "realistic"})


def _q_dot(p, q):
    return p[0] * q[0] + p[1] * q[1] + p[2] * q[2]


def _q_add(p, q):
    return p[0] + q[0], p[1] + q[1], p[2] + q[2]


def _q_scale(k, v):
    return k * v[0], k * v[1], k * v[2]


def _q_cross(a, b):
    return (a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0])


def rotate_vec_by_quat(v, q):
    """Krawiec et al. Fig. 12: rotate the 3-vector v by the unit quaternion q = (x, y, z, w).

    The vectors are tuples inside; the result is the rotated vector as a 3-tuple.
    """
    vt = (v[0], v[1], v[2])
    u = (q[0], q[1], q[2])
    s = q[3]
    return _q_add(_q_add(_q_scale(2.0 * _q_dot(u, vt), u),
                         _q_scale(s * s - _q_dot(u, u), vt)),
                  _q_scale(2.0 * s, _q_cross(u, vt)))


def _draw_quat(r):
    q = r.normal(size=4)
    return _v(r, 3, -2.0, 2.0), q / np.linalg.norm(q)


case(rotate_vec_by_quat, _draw_quat, {"array", "tuple", "call", "index", "realistic"})


# ---------------------------------------------------------------- GMM (ADBench, Knossos style: adbench.gmm)

def _draw_gmm(r):
    d, k, n = _n(r, 2, 3), _n(r, 2, 3), _n(r, 2, 3)
    return (_v(r, k), _m(r, k, d, 0.0, 1.0), _m(r, k, d, -1.0, 1.0), _m(r, k, gmm.tri(d), -1.0, 1.0),
            _m(r, n, d, -1.5, 1.5), (_pos(r, 0.5, 1.5), _n(r, 0, 2)))


def _gmm_boundaries(alphas, means, qs, ls, x, wishart):
    # the maxima inside the logsumexps: no ties among alphas nor among each point's terms
    n, k = x.shape[0], len(alphas)
    terms = [_pairwise([alphas[j] + sum(qs[j]) - 0.5 * gmm.sqnorm(gmm.qtimesx(qs[j], ls[j], x[i] - means[j]))
                        for j in range(k)]) for i in range(n)]
    return np.concatenate([_pairwise(alphas)] + terms)


case(gmm_objective, _draw_gmm,
     {"matrix", "array", "tuple", "int", "call", "build", "sum", "maxmin", "math",
      "index", "promotion", "realistic"},
     boundaries=_gmm_boundaries)


CASE_BY_NAME = {c.name: c for c in CASES}
assert len(CASE_BY_NAME) == len(CASES), "case names must be unique"
