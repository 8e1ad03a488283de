"""Helpers for tests/test_backend.py: the reference semantics to compare compiled code
with, tangent values, comparisons, and the small functions whose vectorised forms the
backend must find (module-level defs: catad reads their source).

The reference for a compiled program is the core evaluator run on the same Def:

    reference(d, vals) == Evaluator(Program((d,), d.name)).call(d.name, vals)
"""
from __future__ import annotations

import copy
import importlib.util
import itertools
import math
import sys
from pathlib import Path

import numpy as np

import catad
from catad import tangents as T
from catad.backend import compile_def, compile_program
from catad.pipeline import pipeline
from catad.lang.evaluate import Evaluator
from catad.lang.terms import Program
from catad.lang.types import Bool, Float, Int, Tuple as TupleT, Vec, coerce_value, scalar_of
from catad.linearmaps import tangent_size, unflatten

RTOL, ATOL = 1e-10, 1e-12


# ---------------------------------------------------------------- running programs

def reference_def(d, vals: tuple):
    """The reference semantics of a core Def (fwd$f / rev$f: user functions inlined)."""
    return Evaluator(Program((d,), d.name)).call(d.name, tuple(vals))


def reference_primal(program, vals: tuple):
    return Evaluator(program).call(program.entry, tuple(vals))


def canonical(fn, args: tuple) -> tuple:
    """The arguments in the canonical form the compiled programs take (as the API does),
    then the values of the globals fn reads (the programs' hidden parameters, which these
    tests differentiate like the others)."""
    params = pipeline(fn, *args).core.main.params
    values = tuple(args) + catad.hidden_args(fn, *args)
    return tuple(coerce_value(a, p.type, p.name) for a, p in zip(values, params))


def random_tangent(template, rng):
    """A random tangent shaped like template (a value): ZERO for its Int and Bool parts."""
    return unflatten(rng.normal(size=tangent_size(template)), template)


class Programs:
    """The three programs of fn at args (compiled with or without vectorisation) and
    their reference semantics."""

    def __init__(self, fn, args: tuple, vectorise: bool = True):
        self.pl = pipeline(fn, *args)
        self.vals = canonical(fn, args)
        self.n = len(self.vals)
        self.primal = compile_program(self.pl.core, vectorise=vectorise)
        self.forward = compile_def(self.pl.forward, self.n, vectorise=vectorise)
        self.reverse = compile_def(self.pl.reverse, self.n, vectorise=vectorise)

    @property
    def all(self):
        return (self.primal, self.forward, self.reverse)

    def check(self, rng, rtol=RTOL, atol=ATOL, args: tuple | None = None) -> None:
        """Every compiled program equals the reference on random (co)tangents, at the
        arguments the programs were made for or at other arguments of the same types."""
        vals = self.vals if args is None else tuple(
            coerce_value(a, p.type, p.name) for a, p in zip(tuple(args) + self.vals[len(args):],
                                                            self.pl.core.main.params))
        expected = reference_primal(self.pl.core, vals)
        kept = copy.deepcopy(vals)
        assert_values_close(self.primal(*vals), expected, self.pl.core.main.result_type, "primal", rtol, atol)

        dx = tuple(random_tangent(v, rng) for v in vals)
        ref_out, ref_dt = reference_def(self.pl.forward, vals + dx)
        kept_dx = copy.deepcopy(dx)
        out, dt = self.forward(*vals, *dx)
        assert_unchanged(dx, kept_dx, "forward: the input tangents")
        assert_values_close(out, ref_out, self.pl.core.main.result_type, "forward: primal output", rtol, atol)
        assert_tangents_close(dt, ref_dt, expected, "forward: output tangent", rtol, atol)

        ct = random_tangent(expected, rng)
        ref_out, ref_back = reference_def(self.pl.reverse, vals + (ct,))
        kept_ct = copy.deepcopy(ct)
        out, back = self.reverse(*vals, ct)
        assert_unchanged(ct, kept_ct, "reverse: the output cotangent")
        assert_unchanged(vals, kept, "the arguments")
        assert_values_close(out, ref_out, self.pl.core.main.result_type, "reverse: primal output", rtol, atol)
        like = vals if len(vals) > 1 else vals[0]
        assert_tangents_close(back, ref_back, like, "reverse: input cotangent", rtol, atol)

    def loops(self) -> list[str]:
        """The Python `for` loops in the generated code of the three programs."""
        return [f"{c.name}: {line.strip()}" for c in self.all for line in c.source.splitlines()
                if line.strip().startswith("for ")]


# ---------------------------------------------------------------- comparing

def agree_at_two_points(fn, x, other, vectorise: bool, seed: int) -> None:
    """fn's three programs at x, compiled with or without vectorisation, equal the reference at x
    and at `other` (an argument of x's type: other values)."""
    rng = np.random.default_rng(seed)
    p = Programs(fn, (x,), vectorise)
    p.check(rng)
    p.check(rng, args=(other,))


def assert_values_close(actual, expected, ty, where: str, rtol=RTOL, atol=ATOL) -> None:
    """A primal value of type ty: Ints and Bools exactly (and of their kind), floats and
    float arrays to rtol/atol, arrays with their shape."""
    if isinstance(ty, TupleT):
        assert isinstance(actual, tuple) and len(actual) == len(ty.items), f"{where}: {actual!r}"
        for k, (a, e, t) in enumerate(zip(actual, expected, ty.items)):
            assert_values_close(a, e, t, f"{where}[{k}]", rtol, atol)
        return
    if isinstance(ty, Vec):
        assert isinstance(actual, np.ndarray), f"{where}: expected an array, got {actual!r}"
        exp = np.asarray(expected)
        assert actual.shape == exp.shape, f"{where}: shape {actual.shape}, expected {exp.shape}"
        if scalar_of(ty) == Float:
            assert actual.dtype.kind == "f", f"{where}: dtype {actual.dtype}"
            np.testing.assert_allclose(actual, exp, rtol=rtol, atol=atol, err_msg=where)
        else:
            assert actual.dtype.kind == {Int: "i", Bool: "b"}[scalar_of(ty)], f"{where}: dtype {actual.dtype}"
            np.testing.assert_array_equal(actual, exp, err_msg=where)
        return
    if ty == Bool:
        assert isinstance(actual, (bool, np.bool_)), f"{where}: expected a bool, got {actual!r}"
        assert bool(actual) == bool(expected), f"{where}: {actual!r} != {expected!r}"
    elif ty == Int:
        assert isinstance(actual, (int, np.integer)) and not isinstance(actual, bool), \
            f"{where}: expected an int, got {actual!r}"
        assert int(actual) == int(expected), f"{where}: {actual!r} != {expected!r}"
    else:
        assert isinstance(actual, (float, np.floating)), f"{where}: expected a float, got {actual!r}"
        np.testing.assert_allclose(float(actual), float(expected), rtol=rtol, atol=atol, err_msg=where)


def assert_unchanged(x, before, where: str) -> None:
    """The compiled code did not write into values it was given."""
    if isinstance(before, tuple):
        for a, b in zip(x, before):
            assert_unchanged(a, b, where)
    elif isinstance(before, np.ndarray):
        np.testing.assert_array_equal(x, before, err_msg=f"{where} were modified")


def dense_tangent(x, like, where: str = "tangent"):
    """A tangent value (ZERO, OneHot, lists, arrays, floats, tuples; ZERO for a tuple is a
    tuple of zeros) as nested tuples of float arrays shaped like the primal `like`, Int
    and Bool parts as empty arrays."""
    if isinstance(like, tuple):
        if x is T.ZERO:
            x = (T.ZERO,) * len(like)
        assert isinstance(x, tuple) and len(x) == len(like), f"{where}: {x!r} for a tuple of {len(like)}"
        return tuple(dense_tangent(a, b, f"{where}[{k}]") for k, (a, b) in enumerate(zip(x, like)))
    d = T.densify(x)
    if tangent_size(like) == 0 and not (isinstance(like, np.ndarray) and like.dtype.kind == "f"):
        assert d is T.ZERO, f"{where}: an Int or Bool tangent should be zero, got {x!r}"
        return np.zeros(0)
    shape = np.shape(like)
    if d is T.ZERO:
        return np.zeros(shape)
    a = np.asarray(d, dtype=np.float64)
    assert a.shape == shape, f"{where}: shape {a.shape}, expected {shape}"
    return a


def assert_tangents_close(actual, expected, like, where: str, rtol=RTOL, atol=ATOL) -> None:
    a, e = dense_tangent(actual, like, where), dense_tangent(expected, like, where)
    for k, (x, y) in enumerate(zip(_leaves(a), _leaves(e))):
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=f"{where} (leaf {k})")


def _leaves(x):
    if isinstance(x, tuple):
        return [leaf for v in x for leaf in _leaves(v)]
    return [x]


def central_difference(fn, args: tuple, k: int, h: float = 1e-6):
    """d fn / d args[k] (fn's output flattened first), shaped output.shape + args[k].shape."""
    x = np.asarray(args[k], dtype=float)
    out_shape = np.shape(fn(*args))
    jac = np.zeros(out_shape + x.shape)
    for idx in np.ndindex(x.shape):
        xp, xm = x.copy(), x.copy()
        xp[idx] += h
        xm[idx] -= h
        a = args[:k] + ((xp if x.shape else float(xp)),) + args[k + 1:]
        b = args[:k] + ((xm if x.shape else float(xm)),) + args[k + 1:]
        jac[(...,) + idx] = (np.asarray(fn(*a)) - np.asarray(fn(*b))) / (2 * h)
    return jac


# ---------------------------------------------------------------- generated modules

_COUNTER = itertools.count()


def load_source(source: str, directory: Path, name: str = "f"):
    """Write source to a fresh module file (so inspect.getsource works) and return `name`."""
    mod = f"catad_backend_test_{next(_COUNTER)}"
    path = Path(directory) / f"{mod}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(mod, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[mod] = module
    spec.loader.exec_module(module)
    return getattr(module, name)


def chain_source(n: int, rhs: str) -> str:
    """def f(x0): x1 = rhs(x0); ...; return x_n, rhs a format string of {p} (the previous)."""
    lines = ["def f(x0):"] + [f"    x{i} = " + rhs.format(p=f"x{i - 1}") for i in range(1, n + 1)]
    return "\n".join(lines + [f"    return x{n}"]) + "\n"


# ---------------------------------------------------------------- the vectorisation forms

def index_v(v):
    return sum(v[i] * v[i] for i in range(len(v)))


def index_m_ij(m):
    n, k = m.shape
    return sum(sum(math.sin(m[i][j]) * (i + 1) for j in range(k)) for i in range(n))


def index_m_ji(m, v):
    """m[j][i]: the transposed access, under a square matrix's two ranges."""
    n = len(v)
    return [sum(m[j][i] * v[j] for j in range(n)) for i in range(n)]


def index_shifted(v):
    return sum(v[i + 1] * v[i] for i in range(len(v) - 1))


def index_computed(l, x):
    """The lower-triangular packing of GMM: an index computed from i, j and d."""
    d = len(x)
    return [sum(l[d * (d - 1) // 2 - (d - j) * (d - j - 1) // 2 + i - j - 1] * x[j] for j in range(i))
            for i in range(d)]


def matvec_sum(m, v):
    return [sum(m[i][j] * v[j] for j in range(len(v))) for i in range(len(m))]


def matmat_sum(a, b):
    n, k = a.shape
    p = b.shape[1]
    return np.array([[sum(a[i][t] * b[t][j] for t in range(k)) for j in range(p)] for i in range(n)])


def matmat_total(a, b):
    n, k = a.shape
    p = b.shape[1]
    return sum(sum(sum(a[i][t] * b[t][j] for t in range(k)) ** 2 for j in range(p)) for i in range(n))


def cond_in_build(v, w):
    return sum(v[i] * w[i] if v[i] > w[i] else math.exp(w[i]) - v[i] for i in range(len(v)))


def cond_vector(v):
    return [v[i] * v[i] if i % 2 == 0 else math.sin(v[i]) for i in range(len(v))]


def triangular(v):
    return sum(sum(v[i] * v[j] for j in range(i)) for i in range(len(v)))


def triangular_rows(m):
    """range(i) under a 2-level build: the strictly lower triangle of m."""
    return sum(sum(m[i][j] * m[j][i] for j in range(i)) for i in range(len(m)))


def max_min_comprehension(v, w):
    return max(v[i] * w[i] for i in range(len(v))) - min(v[i] + w[i] for i in range(len(v)))


def max_per_row(m):
    return sum(max(m[i][j] * m[i][j] for j in range(m.shape[1])) for i in range(m.shape[0]))


def nested3(x, mu):
    """points x components x dims: a 3-level build."""
    n, d = x.shape
    k = mu.shape[0]
    return sum(math.log(sum(math.exp(-sum((x[i][t] - mu[j][t]) ** 2 for t in range(d))) for j in range(k)))
               for i in range(n))


def nested4(x, mu, q):
    """points x components x dims x dims (GMM-like): a 4-level build, the inner one
    triangular."""
    n, d = x.shape
    k = mu.shape[0]
    return sum(sum(sum(sum(q[j][s] * q[j][t] * (x[i][s] - mu[j][s]) * (x[i][t] - mu[j][t]) for t in range(s + 1))
                       for s in range(d)) for j in range(k)) for i in range(n))


VECTORISATION_FORMS = [
    ("v[i]", index_v, lambda r: (r.normal(size=5),)),
    ("m[i][j]", index_m_ij, lambda r: (r.normal(size=(3, 4)),)),
    ("m[j][i]", index_m_ji, lambda r: (r.normal(size=(4, 4)), r.normal(size=4))),
    ("v[i + 1]", index_shifted, lambda r: (r.normal(size=6),)),
    ("computed index", index_computed, lambda r: (r.normal(size=6), r.normal(size=4))),
    ("matrix-vector", matvec_sum, lambda r: (r.normal(size=(3, 4)), r.normal(size=4))),
    ("matrix-matrix", matmat_sum, lambda r: (r.normal(size=(3, 4)), r.normal(size=(4, 2)))),
    ("matrix-matrix sum", matmat_total, lambda r: (r.normal(size=(2, 3)), r.normal(size=(3, 4)))),
    ("if in a build", cond_in_build, lambda r: (r.normal(size=7), r.normal(size=7))),
    ("if on the index", cond_vector, lambda r: (r.normal(size=5),)),
    ("range(i)", triangular, lambda r: (r.normal(size=6),)),
    ("range(i) in rows", triangular_rows, lambda r: (r.normal(size=(5, 5)),)),
    ("max/min of a comprehension", max_min_comprehension, lambda r: (r.normal(size=6), r.normal(size=6))),
    ("max per row", max_per_row, lambda r: (r.normal(size=(3, 5)),)),
    ("3 levels", nested3, lambda r: (r.normal(size=(4, 3)), r.normal(size=(2, 3)))),
    ("4 levels", nested4, lambda r: (r.normal(size=(4, 3)), r.normal(size=(2, 3)), r.normal(size=(2, 3)))),
]


def convolution(v, w):
    n, k = len(v), len(w)
    return [sum(v[i + t] * w[t] for t in range(k)) for i in range(n - k + 1)]


def convolution_2d(img, ker):
    n, m = img.shape
    a, b = ker.shape
    return [[sum(sum(img[i + s][j + t] * ker[s][t] for t in range(b)) for s in range(a)) for j in range(m - b + 1)]
            for i in range(n - a + 1)]


def ragged_in_ragged(v):
    """range(j, i) inside range(i)."""
    n = len(v)
    return sum(sum(sum(v[k] * v[j] for k in range(j, i)) for j in range(i)) for i in range(n))


def ragged_difference_index(v):
    """v[i - j] over range(i + 1): a vector of ragged sums."""
    return [sum(v[j] * v[i - j] for j in range(i + 1)) for i in range(len(v))]


def pairwise_distances(x):
    n, d = x.shape
    return sum(sum(math.sqrt(sum((x[i][t] - x[j][t]) ** 2 for t in range(d)) + 1e-9) for j in range(i))
               for i in range(n))


def labelled_rows(W, X, y):
    """Rows of W chosen by the Int labels y (softmax regression loss)."""
    k, d = W.shape
    return sum(math.log(sum(math.exp(sum(W[c][t] * X[i][t] for t in range(d))) for c in range(k)))
               - sum(W[y[i]][t] * X[i][t] for t in range(d)) for i in range(X.shape[0]))


def two_index_arrays(m, idx, jdx):
    return sum(m[idx[k]][jdx[k]] ** 2 for k in range(len(idx)))


def index_conditions(m):
    n, k = m.shape
    return sum(sum(m[i][j] ** 2 if i < j else m[i][j] for j in range(k)) for i in range(n))


def vector_chosen_by_condition(v, w):
    n = len(v)
    a = [v[i] * 2.0 for i in range(n)]
    b = [w[i] * v[i] for i in range(n)]
    return sum(sum((a[j] if v[i] > 0 else b[j]) * v[i] for j in range(n)) for i in range(n))


def row_max_of_shifted_products(m):
    n, k = m.shape
    return sum(max(m[i][j] * m[i][(j + 1) % k] for j in range(k)) for i in range(n))


def argmax_argmin_indices(m, v):
    return sum(v[np.argmax(m[i])] * m[i][np.argmin(m[i])] for i in range(m.shape[0]))


def negative_index(v):
    return sum(v[-1 - i] * v[i] for i in range(len(v)))


def range_of_an_int_element(v, idx):
    """A ragged range whose length is an element of an Int array."""
    return sum(sum(v[idx[k]] * v[j] for j in range(idx[k] + 1)) for k in range(len(idx)))


def three_factor_sum(a, b, c):
    n, k = a.shape
    return sum(sum(sum(a[i][t] * b[t][j] * c[i][j] for t in range(k)) for j in range(c.shape[1])) for i in range(n))


def _piece(x):
    if x > 0.5:
        return x * x
    elif x > -0.5:
        return x
    return -x * 0.5


def helper_with_elif(m):
    return sum(sum(_piece(m[i][j]) for j in range(m.shape[1])) for i in range(m.shape[0]))


def lower_triangle(v):
    n = len(v)
    return [[v[i] * v[j] if j <= i else 0.0 for j in range(n)] for i in range(n)]


VECTORISATION_FORMS += [
    ("v[i + t]", convolution, lambda r: (r.normal(size=7), r.normal(size=3))),
    ("img[i + s][j + t]", convolution_2d, lambda r: (r.normal(size=(5, 6)), r.normal(size=(2, 3)))),
    ("range(j, i) in range(i)", ragged_in_ragged, lambda r: (r.normal(size=5),)),
    ("v[i - j] in range(i + 1)", ragged_difference_index, lambda r: (r.normal(size=5),)),
    ("pairwise distances", pairwise_distances, lambda r: (r.normal(size=(4, 3)),)),
    ("W[y[i]][t]", labelled_rows, lambda r: (r.normal(size=(3, 2)), r.normal(size=(4, 2)), r.integers(0, 3, 4))),
    ("m[idx[k]][jdx[k]]", two_index_arrays,
     lambda r: (r.normal(size=(3, 4)), np.array([2, 0, 2, 1, 2]), np.array([3, 3, 3, 0, 3]))),
    ("if i < j", index_conditions, lambda r: (r.normal(size=(3, 4)),)),
    ("a vector chosen by a condition", vector_chosen_by_condition, lambda r: (r.normal(size=4), r.normal(size=4))),
    ("max per row of m[i][(j + 1) % k]", row_max_of_shifted_products, lambda r: (r.normal(size=(3, 4)),)),
    ("argmax and argmin as indices", argmax_argmin_indices, lambda r: (r.normal(size=(3, 4)), r.normal(size=4))),
    ("v[-1 - i]", negative_index, lambda r: (r.normal(size=5),)),
    ("range(idx[k] + 1)", range_of_an_int_element, lambda r: (r.normal(size=5), np.array([4, 0, 2, 2]))),
    ("a[i][t] * b[t][j] * c[i][j]", three_factor_sum,
     lambda r: (r.normal(size=(3, 4)), r.normal(size=(4, 2)), r.normal(size=(3, 2)))),
    ("a helper with elif", helper_with_elif, lambda r: (r.normal(size=(3, 4)),)),
    ("j <= i in a matrix", lower_triangle, lambda r: (r.normal(size=4),)),
]


# ---------------------------------------------------------------- guarded branches (no `where` trap)

def guarded_sqrt(v):
    return sum(math.sqrt(v[i]) if v[i] > 0 else 0.0 for i in range(len(v)))


def guarded_reciprocal(v):
    return sum(1.0 / v[i] if v[i] != 0.0 else 0.0 for i in range(len(v)))


def guarded_log(v):
    return sum(math.log(v[i]) if v[i] > 0 else v[i] for i in range(len(v)))


def guarded_next(v):
    return sum(v[i + 1] * v[i] if i + 1 < len(v) else 0.0 for i in range(len(v)))


def guarded_sqrt_scalar(x):
    return math.sqrt(x) if x > 0 else 0.0


def guarded_next_row(m):
    n, k = m.shape
    return sum(sum(m[i + 1][j] * m[i][j] if i + 1 < n else 0.0 for j in range(k)) for i in range(n))


def guarded_next_column(m):
    n, k = m.shape
    return sum(sum(m[i][j + 1] - m[i][j] if j + 1 < k else m[i][j] for j in range(k)) for i in range(n))


def guarded_ragged(v):
    n = len(v)
    return sum(sum(v[i + j + 1] if i + j + 1 < n else 0.0 for j in range(i)) for i in range(n))


def guarded_gather(v, idx):
    """Out-of-range entries of idx (past either end) only in the untaken branch."""
    return sum(v[idx[k]] * 3.0 if idx[k] >= 0 and idx[k] < len(v) else 1.0 for k in range(len(idx)))


def guarded_rows(m, idx):
    return sum(np.sum(m[idx[k]] * m[idx[k]]) if idx[k] < len(m) else 0.0 for k in range(len(idx)))


def guarded_sqrt_matrix(m):
    n, k = m.shape
    return sum(sum(math.sqrt(m[i][j]) if m[i][j] > 0 else 0.0 for j in range(k)) for i in range(n))


GUARDED = [
    (guarded_next, lambda: (np.array([4.0, 0.0, -1.0, 2.25]),)),
    (guarded_next_row, lambda: (np.array([[4.0, 0.0, -1.0], [2.25, 9.0, 0.0]]),)),
    (guarded_next_column, lambda: (np.array([[4.0, 0.0, -1.0], [2.25, 9.0, 0.0]]),)),
    (guarded_ragged, lambda: (np.array([4.0, 0.0, -1.0, 2.25, 1.0]),)),
    (guarded_gather, lambda: (np.array([4.0, 0.0, -1.0, 2.25, 1.0]), np.array([0, -10, 2, 12, -1, 5]))),
    (guarded_rows, lambda: (np.array([[4.0, 0.0, -1.0], [2.25, 9.0, 0.0]]), np.array([1, 5, 0, 2]))),
    (guarded_sqrt_matrix, lambda: (np.array([[4.0, 0.0, -1.0], [2.25, 9.0, 0.0]]),)),
]


# ---------------------------------------------------------------- reverse indexing

def gather_sum(v, idx):
    return sum(v[idx[k]] for k in range(len(idx)))


def gather_weighted(v, idx, w):
    return sum(w[k] * v[idx[k]] * v[idx[k]] for k in range(len(idx)))


def gather_rows(m, idx):
    return sum(sum(m[idx[k]][j] * m[idx[k]][j] for j in range(m.shape[1])) for k in range(len(idx)))


# ---------------------------------------------------------------- API functions

def api_scalar(x, v):
    return x * sum(math.sin(v[i]) * v[i] for i in range(len(v))) + x * x


def api_vector_output(v, w):
    return [v[i] * w[i] + math.tanh(v[i]) for i in range(len(v))]


def api_matrix_input(m, v):
    return [sum(m[i][j] * m[i][j] * v[j] for j in range(len(v))) for i in range(len(m))]


# ---------------------------------------------------------------- probes that found bugs

def ragged_prefix_max(v):
    """max over range(i + 1) of a body that does not depend on i."""
    return sum(max(v[j] for j in range(i + 1)) for i in range(len(v)))


def ragged_prefix_argmax(v, w):
    """argmax over the slice w[0:i + 1] (a ragged build), used as an index."""
    return sum(v[np.argmax(w[0:i + 1])] for i in range(len(w)))


def _pair(a, b):
    return a * b, a - b


def vector_of_tuples(v):
    """A comprehension of tuples (a Vec of tuples), indexed at computed positions."""
    n = len(v)
    ps = [_pair(v[i], v[(i + 1) % n]) for i in range(n)]
    return sum(ps[i][0] * ps[n - 1 - i][1] for i in range(n))


def index_from_int_element(v, idx):
    """An index computed by % from an element of an Int array."""
    return sum(v[idx[idx[k] % len(idx)]] for k in range(len(idx)))


# ---------------------------------------------------------------- long chains, as core Defs

def chain_defs(n: int, step: str, which: str = "primal forward reverse") -> dict:
    """{"primal": f, "forward": fwd$f, "reverse": rev$f} (those named in `which`) of a chain
    of n statements, shaped as the pipeline makes them (tests/test_backend.py checks that
    at a small n): every x_i uses x_{i-1} twice.

    step "add": x_i = (x_{i-1} + x_{i-1}) * 0.5   (value x0, derivative exactly 1)
    step "mul": x_i = x_{i-1} * x_{i-1} * 0.5 + 0.5 (at x0 = 1: value 1, derivative exactly 1)
    """
    from catad.lang import terms as K
    half = K.Const(0.5, Float)

    def add(a, b):
        return K.Call("add", (a, b), Float)

    def mul(a, b):
        return K.Call("mul", (a, b), Float)

    xs = [K.Var(f"x{i}", Float) for i in range(n + 1)]
    dxs = [K.Var(f"dx{i}", Float) for i in range(n + 1)]
    cts = [K.Var(f"ct{i}", Float) for i in range(n + 1)]
    ts = [K.Var(f"t{i}", Float) for i in range(n + 1)]

    def value(i):  # x_i from x_{i-1}
        p = xs[i - 1]
        return mul(add(p, p), half) if step == "add" else add(mul(mul(p, p), half), half)

    def tangent(i):  # dx_i from dx_{i-1}
        p, dp = xs[i - 1], dxs[i - 1]
        return mul(add(dp, dp), half) if step == "add" else mul(mul(add(p, p), half), dp)

    out = {}
    primal_lets = [(xs[i], value(i)) for i in range(1, n + 1)]
    if "primal" in which:
        out["primal"] = K.Def("chain", (xs[0],), K.make_lets(primal_lets, xs[n]))
    if "forward" in which:
        fwd_lets = [b for i in range(1, n + 1) for b in ((xs[i], value(i)), (dxs[i], tangent(i)))]
        out["forward"] = K.Def("fwd$chain", (xs[0], dxs[0]), K.make_lets(fwd_lets, K.Tuple((xs[n], dxs[n]))))
    if "reverse" in which:
        rev_lets = list(primal_lets)
        for i in range(n, 0, -1):
            rev_lets.append((ts[i], mul(cts[i], half)))
            p = xs[i - 1]
            rev_lets.append((cts[i - 1], add(ts[i], ts[i]) if step == "add" else mul(add(p, p), ts[i])))
        out["reverse"] = K.Def("rev$chain", (xs[0], cts[n]), K.make_lets(rev_lets, K.Tuple((xs[n], cts[0]))))
    return out


def dead_reassignment(x, v):
    """x reassigned in one branch and never used again: its cotangent is zero at run time."""
    w = [v[i] * x for i in range(len(v))]
    if x < 0.5:
        y = x
    else:
        y = v[0]
        x = sum(w)
    return y


# ---------------------------------------------------------------- random nested comprehensions

def comprehension_programs():
    """A Hypothesis strategy of source texts ``def f(x, v, m):`` (x a float, v a vector of
    length n, m an n x k matrix) whose bodies are nested comprehensions (and lists and
    matrices built by comprehensions first, then indexed): sums, max/min and
    lists over range(n), range(k) and the ragged range(i), range(i + 1), range(i, n);
    indices computed from the loop variables (wrapped by % so they are in range);
    conditionals on values and on indices; smooth math. The programs the backend must
    vectorise with batch axes, gathers, masks and scatters."""
    from hypothesis import strategies as st

    @st.composite
    def program(draw):
        g = _ComprehensionGen(draw)
        lines = ["import math", "", "", "def f(x, v, m):", "    n, k = m.shape"]
        for _ in range(draw(st.integers(0, 2))):  # intermediate lists, indexed later
            if draw(st.booleans()):
                name = f"w{len(g.vectors) + len(g.matrices)}"
                lines.append(f"    {name} = [{g.expr(['a'], 2)} for a in range(n)]")
                g.vectors.append(name)
            else:
                name = f"w{len(g.vectors) + len(g.matrices)}"
                lines.append(f"    {name} = [[{g.expr(['a', 'b'], 1)} for b in range(k)] for a in range(n)]")
                g.matrices.append(name)
        kind = draw(st.sampled_from(["float", "float", "vector", "matrix"]))
        if kind == "float":
            body = g.expr([], 3)
        elif kind == "vector":
            body = f"[{g.expr(['i0'], 3)} for i0 in range(n)]"
        else:
            body = f"[[{g.expr(['i0', 'j0'], 2)} for j0 in range(k)] for i0 in range(n)]"
        return "\n".join(lines + [f"    return {body}", ""])
    return program()


class _ComprehensionGen:
    def __init__(self, draw):
        from hypothesis import strategies as st
        self.st = st
        self.draw = draw
        self.count = 0
        self.vectors = ["v"]     # Float vectors of length n
        self.matrices = ["m"]    # Float n x k matrices

    def pick(self, options):
        return self.draw(self.st.sampled_from(options))

    def index(self, scope):
        """An Int expression of the loop variables in scope."""
        if not scope:
            return self.pick(["0", "1", "(n - 1)"])
        a = self.pick(scope)
        form = self.pick(["{a}", "{a}", "{a} + 1", "{a} + {b}", "{a} - {b}", "2 * {a}", "n - 1 - {a}", "{a} * {b}"])
        return "(" + form.format(a=a, b=self.pick(scope)) + ")"

    def leaf(self, scope):
        form = self.pick(["v", "v", "m", "x", "const", "float"])
        if form == "v":
            return f"{self.pick(self.vectors)}[{self.index(scope)} % n]"
        if form == "m":
            return f"{self.pick(self.matrices)}[{self.index(scope)} % n][{self.index(scope)} % k]"
        if form == "x":
            return "x"
        if form == "float":
            return f"float({self.index(scope)})" if scope else "0.5"
        return self.pick(["0.5", "1.5", "-2.0"])

    def expr(self, scope, depth):
        if depth <= 0:
            return self.leaf(scope)
        form = self.pick(["leaf", "binop", "binop", "math", "if_value", "if_index", "sum", "sum", "max"])
        d = depth - 1
        if form == "leaf":
            return self.leaf(scope)
        if form == "binop":
            return f"({self.expr(scope, d)} {self.pick(['+', '-', '*'])} {self.expr(scope, d)})"
        if form == "math":
            e = self.expr(scope, d)
            return self.pick([f"math.sin({e})", f"math.exp(-({e}) ** 2)", f"math.sqrt(({e}) ** 2 + 1.0)",
                              f"math.tanh({e})"])
        if form == "if_value":
            return (f"({self.expr(scope, d)} if {self.expr(scope, d)} > {self.leaf(scope)} "
                    f"else {self.expr(scope, d)})")
        if form == "if_index":
            if not scope:
                return self.expr(scope, d)
            return (f"({self.expr(scope, d)} if {self.index(scope)} < {self.index(scope)} "
                    f"else {self.expr(scope, d)})")
        self.count += 1
        var = f"j{self.count}"
        ranges = ["range(n)", "range(k)"]
        if scope:
            a = self.pick(scope)
            ranges += [f"range({a})", f"range({a} + 1)", f"range({a}, n)"]
        if form == "sum":
            r = self.pick(ranges)
            return f"sum({self.expr(scope + [var], d)} for {var} in {r})"
        r = self.pick([r for r in ranges if r in ("range(n)", "range(k)") or r.endswith("+ 1)")])
        return f"{self.pick(['max', 'min'])}({self.expr(scope + [var], d)} for {var} in {r})"


def constant_matrix(v):
    """A matrix output whose tangent is zero: a vector of vectors of zero tangents."""
    return [[1.0 for j in range(len(v))] for i in range(len(v))]


def constant_along_a_ragged_range(v):
    """max over range(i + 1) of a body that does not depend on j: v[i] itself."""
    return sum(max(v[i] for j in range(i + 1)) for i in range(len(v)))


def constant_along_two_ranges(v):
    """sum over range(i) of a sum over range(n), neither depending on its index: i * n * v[i]."""
    n = len(v)
    return sum(sum(sum(v[i] for j2 in range(n)) for j1 in range(i)) for i in range(n))


def ragged_max_in_a_branch(x, v):
    """A max over range(i + 1) in a branch that no lane takes when x <= 0.5."""
    return [max(v[j] for j in range(i + 1)) if x > 0.5 else x for i in range(len(v))]


def float_margins(source: str, name: str = "f"):
    """(fn, margins) like tests/gen_programs.py's instrument, recording |a - b| only for
    comparisons of floats (comparisons of indices are exact in every evaluator)."""
    import ast
    from gen_programs import _Instrument
    tree = ast.fix_missing_locations(_Instrument().visit(ast.parse(source)))
    margins = []

    def _margin(a, b, op):
        if not all(isinstance(x, (int, np.integer)) for x in (a, b)):
            margins.append(abs(float(a) - float(b)))
        return {"<": a < b, ">": a > b, "<=": a <= b, ">=": a >= b}[op]

    namespace = {"_margin": _margin, "math": math, "np": np}
    exec(compile(tree, "<instrumented>", "exec"), namespace)
    return namespace[name], margins
