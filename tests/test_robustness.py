"""Bad or awkward input (issue 13): catad answers as Python and NumPy do, or raises a
located catad.CatadError saying what to do; never a raw traceback from inside catad and
never a made-up value. Shapes, bounds, the where trap and globals are tested elsewhere."""
from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np
import pytest

import catad
from catad.backend import compile_program

HERE = __file__


def line_of(fn, marker: str = "return") -> int:
    """The line of fn's first statement containing `marker`."""
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, text in enumerate(lines) if marker in text)


def numpy_value(fn, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # np.mean of nothing warns, and is nan
        return fn(*args)


def central(fn, args: tuple, k: int, h: float = 1e-6):
    """The gradient of fn with respect to argument k by central differences."""
    x = np.asarray(args[k], dtype=float)
    g = np.zeros(x.shape)
    for idx in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[idx] += h
        down[idx] -= h
        at = lambda v: numpy_value(fn, *args[:k], v, *args[k + 1:])  # noqa: E731
        g[idx] = (at(up) - at(down)) / (2 * h)
    return g


def assert_clean(error: BaseException) -> None:
    """A catad error raised for the user: no raw exception chained to it."""
    assert isinstance(error, catad.CatadError)
    assert error.__cause__ is None
    assert error.__context__ is None or error.__suppress_context__


# ---------------------------------------------------------------- keyword arguments

def f2(x, y):
    return x * y + np.sin(x)


def test_keywords_bind_like_a_call_of_f():
    expect = catad.grad(f2)(1.0, 2.0)
    assert catad.grad(f2)(1.0, y=2.0) == expect
    assert catad.grad(f2)(y=2.0, x=1.0) == expect
    both = catad.value_and_grad(f2, argnums=(0, 1))
    assert both(y=2.0, x=1.0) == both(1.0, 2.0)
    assert catad.jacobian(f2, argnums=1)(1.0, y=2.0) == catad.jacobian(f2, argnums=1)(1.0, 2.0)
    assert catad.vjp(f2, 1.0, y=2.0)[1](1.0) == catad.vjp(f2, 1.0, 2.0)[1](1.0)
    out, lm = catad.linearize(f2, y=2.0, x=1.0)
    assert out == f2(1.0, 2.0)
    np.testing.assert_array_equal(lm.to_matrix(), catad.linearize(f2, 1.0, 2.0)[1].to_matrix())
    assert lm(y=0.0, x=1.0) == lm(1.0, 0.0)


def test_argnums_count_positions_in_the_bound_order():
    # d/dy (x y + sin x) = x: argnums=1 is y wherever the call writes it
    assert catad.grad(f2, argnums=1)(y=2.0, x=0.5) == 0.5


@pytest.mark.parametrize("args, kwargs, words", [
    ((1.0,), {"z": 2.0}, "unexpected keyword argument 'z'"),
    ((1.0,), {"x": 2.0}, "multiple values for argument 'x'"),
    ((), {"y": 2.0}, "missing a required argument: 'x'"),
])
@pytest.mark.parametrize("transform", ["grad", "value_and_grad", "jacobian", "vjp", "linearize"])
def test_bad_keywords_name_the_parameters(transform, args, kwargs, words):
    if transform in ("vjp", "linearize"):
        call = lambda: getattr(catad, transform)(f2, *args, **kwargs)  # noqa: E731
    else:
        call = lambda: getattr(catad, transform)(f2)(*args, **kwargs)  # noqa: E731
    with pytest.raises(catad.ArgumentError) as e:
        call()
    message = str(e.value)
    assert "f2(x, y)" in message and words in message
    assert f"{HERE}:{line_of(f2, 'def')}" in message
    assert_clean(e.value)


# ---------------------------------------------------------------- empty arrays

def sum_squares(m):
    return np.sum(m * m)


def column_sums(m):
    return np.sum(np.sum(m, axis=0) ** 2)


def row_sums(m):
    return np.sum(np.sum(m, axis=1) ** 2)


def mean_all(m):
    return np.mean(m)


def mean_columns(m):
    return np.sum(np.mean(m, axis=0))


def gram(m):
    return np.sum(m.T @ m)


def exp_sum(m):
    return np.sum(np.exp(m))


def nested_sum(m):
    return sum(sum(m[i][j] ** 2 for j in range(m.shape[1])) for i in range(m.shape[0]))


def matvec(m, v):
    return np.sum((m @ v) ** 2)


def vecmat(v, m):
    return np.sum((v @ m) ** 2)


def matmat(a, b):
    return np.sum((a @ b) ** 2)


EMPTY = [np.ones((0, 3)), np.ones((0, 0))]
EMPTY_CASES = (
    [(fn, (m,)) for fn in (sum_squares, column_sums, row_sums, mean_all, mean_columns, gram, exp_sum,
                           nested_sum) for m in EMPTY]
    + [(matvec, (np.ones((0, 3)), np.ones(3))), (matvec, (np.ones((0, 0)), np.ones(0))),
       (vecmat, (np.ones(0), np.ones((0, 3)))), (vecmat, (np.ones(0), np.ones((0, 0)))),
       (matmat, (np.ones((2, 0)), np.ones((0, 2)))), (matmat, (np.ones((0, 0)), np.ones((0, 0)))),
       (matmat, (np.ones((0, 3)), np.ones((3, 2))))])


@pytest.mark.parametrize("fn, args", EMPTY_CASES, ids=lambda x: getattr(x, "__name__", None) or
                         "x".join(str(a.shape) for a in x))
def test_empty_arrays_give_numpys_value_and_a_gradient_of_their_shape(fn, args):
    value, grads = catad.value_and_grad(fn, argnums=tuple(range(len(args))))(*args)
    np.testing.assert_allclose(value, numpy_value(fn, *args))  # a sum of nothing is 0, a mean nan
    for k, g in enumerate(grads):
        assert g.shape == args[k].shape
        np.testing.assert_allclose(g, central(fn, args, k), atol=1e-6)


def double(m):
    return m * 2.0


def row_totals(m):
    return np.sum(m, axis=1)


def column_totals(m):
    return np.sum(m, axis=0)


def test_jacobian_jvp_vjp_linearize_of_empty_arrays():
    m = np.ones((0, 3))
    assert catad.jacobian(double)(m).shape == (0, 3, 0, 3)
    out, t = catad.jvp(double, (m,), (m,))
    assert out.shape == t.shape == (0, 3)
    out, back = catad.vjp(double, m)
    assert back(out)[0].shape == (0, 3)
    assert catad.linearize(double, m)[1].to_matrix().shape == (0, 0)
    assert catad.jacobian(row_totals)(m).shape == (0, 0, 3)                # no outputs
    np.testing.assert_array_equal(catad.jacobian(column_totals)(m), np.zeros((3, 0, 3)))  # no inputs
    out, t = catad.jvp(column_totals, (m,), (m,))
    np.testing.assert_array_equal(out, np.zeros(3))
    np.testing.assert_array_equal(t, np.zeros(3))


def test_reference_semantics_of_empty_arrays():
    cl = catad.to_cl(sum_squares, np.ones((2, 3)))
    assert catad.eval_cl(cl, np.ones((0, 3))) == 0.0
    assert "lmSum" in str(catad.linearize(sum_squares, np.ones((0, 3)))[1])


def test_python_loops_of_no_iterations_keep_their_rank():
    """The fallback (a build as a Python loop) made an empty result one-dimensional, and
    dim(m, 1) of such a result read an axis it did not have (on main the column count was
    read inside the loop body, which no iteration ran)."""
    program = catad.to_core(sum_squares, np.ones((0, 3)))
    assert compile_program(program, vectorise=False)(np.ones((0, 3))) == 0.0


def vmax(v):
    return np.max(v)


def column_max(m):
    return np.sum(np.max(m, axis=0))


def row_min(m):
    return np.sum(np.min(m, axis=1))


def at_argmax(v):
    return v[np.argmax(v)]


def generator_max(v):
    return max(v[i] for i in range(len(v)))


@pytest.mark.parametrize("fn, arg", [(vmax, np.ones(0)), (column_max, np.ones((0, 3))), (row_min, np.ones((3, 0))),
                                     (at_argmax, np.ones(0)), (generator_max, np.ones(0))],
                         ids=lambda x: getattr(x, "__name__", None) or str(x.shape))
@pytest.mark.parametrize("how", ["grad", "value_and_grad", "jvp", "vjp", "jacobian"])
def test_max_of_an_empty_array_is_a_located_value_error(fn, arg, how):
    with pytest.raises(ValueError):
        numpy_value(fn, arg)  # as Python and NumPy do
    with pytest.raises(catad.ShapeError) as e:
        if how == "jvp":
            catad.jvp(fn, (arg,), (arg,))
        elif how == "vjp":
            catad.vjp(fn, arg)
        else:
            getattr(catad, how)(fn)(arg)
    assert isinstance(e.value, ValueError) and "empty" in str(e.value)
    assert f"{HERE}:{line_of(fn)}:" in str(e.value)
    assert_clean(e.value)


def guarded_max(v):
    if len(v) > 0:
        return np.max(v)
    return 0.0


def test_a_guarded_max_of_an_empty_array():
    value, g = catad.value_and_grad(guarded_max)(np.ones(0))
    assert value == 0.0 and g.shape == (0,)
    value, g = catad.value_and_grad(guarded_max)(np.array([1.0, 3.0, 2.0]))
    assert value == 3.0
    np.testing.assert_array_equal(g, [0.0, 1.0, 0.0])


# ---------------------------------------------------------------- arguments NumPy would treat otherwise

def total(v):
    return np.sum(v * v)


def times_count(x, n):
    return x * np.sum(n)


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix's own
@pytest.mark.parametrize("make, words", [
    (lambda: np.matrix([[1.0, 2.0], [3.0, 4.0]]), "numpy.matrix"),          # its * is a matrix product
    (lambda: np.ma.array([1.0, 2.0, 3.0], mask=[False, True, False]), "masked"),  # np.sum skips masked entries
])
def test_arrays_with_other_arithmetic_are_refused(make, words):
    with pytest.raises(catad.ArgumentError, match=words) as e:
        catad.value_and_grad(total)(make())
    assert "argument 'v'" in str(e.value)


def times_offset(x, img):
    return np.sum(x * (img - 128))


@pytest.mark.parametrize("n", [np.array([2 ** 63 + 5], dtype=np.uint64), np.array([3], dtype=np.int32),
                               np.array([3], dtype=np.uint8), np.int32(3), np.uint16(3)])
def test_ints_of_other_widths_are_refused_not_computed_as_int64(n):
    with pytest.raises(catad.ArgumentError, match=f"argument 'n' is a NumPy (array|scalar) of dtype {n.dtype}.*"
                                                  r"x.astype\(np.int64\)"):
        catad.value_and_grad(times_count)(1.5, n)


@pytest.mark.parametrize("x", [np.array([0.1, 0.2], dtype=np.float32), np.array([0.1], dtype=np.float16),
                               np.float32(0.1), np.array([0.1], dtype=np.longdouble)])
def test_floats_of_other_precisions_are_refused_not_computed_in_float64(x):
    with pytest.raises(catad.ArgumentError, match=f"argument 'v' is a NumPy (array|scalar) of dtype {x.dtype}"):
        catad.value_and_grad(total)(x)


def test_why_narrow_ints_are_refused():
    # uint8 arithmetic wraps around in NumPy: int64 arithmetic would give -44.0 here, not Python's 212.0
    img = np.array([10, 200, 130], dtype=np.uint8)
    assert times_offset(np.ones(3), img) == 212.0
    with pytest.raises(catad.ArgumentError, match="uint8"):
        catad.grad(times_offset)(np.ones(3), img)
    value, g = catad.value_and_grad(times_offset)(np.ones(3), img.astype(np.int64))
    assert value == times_offset(np.ones(3), img.astype(np.int64)) == -44.0
    assert g.tolist() == [-118.0, 72.0, 2.0]


def twice(v):
    return v * 2.0


@pytest.mark.parametrize("bad", [np.ones(3, complex), np.ma.array(np.ones(3), mask=[True, False, False])])
def test_cotangents_and_tangents_that_would_lose_information(bad):
    _, back = catad.vjp(twice, np.ones(3))
    with pytest.raises(catad.ArgumentError, match="cotangent"):
        back(bad)
    with pytest.raises(catad.ArgumentError, match="tangent for 'v'"):
        catad.jvp(twice, (np.ones(3),), (bad,))
    with pytest.raises(catad.ArgumentError, match="complex"):
        catad.vjp(f2, 1.0, 2.0)[1](1j)


def test_vjp_fn_called_with_the_wrong_number_of_cotangents():
    _, back = catad.vjp(twice, np.ones(3))
    for cts in [(), (np.ones(3), np.ones(3))]:
        with pytest.raises(catad.ArgumentError, match="one cotangent"):
            back(*cts)


def test_linear_map_with_matmul_is_a_catad_error():
    _, lm = catad.linearize(twice, np.ones(3))
    for apply in (lambda: lm @ np.ones(3), lambda: np.ones(3) @ lm):
        with pytest.raises(catad.ArgumentError, match=r"lm\(dx\)"):
            apply()


def is_positive(x):
    return x > 0.0


def scaled_pair(p):
    return p[0] * p[1][0] * p[1][1]


def test_jacobian_of_a_bool_and_with_an_int_leaf():
    with pytest.raises(catad.CatadError, match="returns Bool"):
        catad.jacobian(is_positive)(3.0)
    # an Int inside a tuple argument has a zero block, as vjp and grad give it
    j = catad.jacobian(scaled_pair)((2.0, (3.0, 4)))
    assert j[0] == 12.0 and j[1][0] == 8.0 and j[1][1] == 0.0 and j[1][1].shape == ()


def test_numpy_int_argnums_is_an_int():
    assert catad.grad(f2, argnums=np.int64(1))(0.5, 2.0) == 0.5
    assert catad.jacobian(f2, argnums=np.int64(1))(0.5, 2.0).shape == ()


class Thing:
    def method(self, x):
        return x * 2.0


@pytest.mark.parametrize("fn, words", [
    (np.sin, "np.sin(x)"), (abs, "abs(x)"), (functools.partial(f2, 2.0), "functools.partial(f2"),
    (Thing, "class Thing"),
])
def test_callables_that_are_not_functions(fn, words):
    with pytest.raises(catad.ArgumentError) as e:
        catad.grad(fn)(1.0)
    assert words in str(e.value) and "compile_function" not in str(e.value)


def test_bound_method_is_compiled_with_its_self():
    """A bound method is a function of its other arguments (tests/test_python_forms.py)."""
    assert catad.grad(Thing().method)(1.0) == 2.0


def test_eval_cl_of_a_bare_term_checks_its_arguments():
    def g(x, y):
        return x * y + 1.0
    term = catad.to_cl(g, 1.0, 2.0).defs[0].body
    assert catad.eval_cl(term, 2.0, 3.0) == 7.0
    for args in [(), (1.0, 2.0, 3.0)]:
        with pytest.raises(catad.ArgumentError, match="2 value"):
            catad.eval_cl(term, *args)
    square = catad.to_cl(twice, np.ones(2)).defs[0].body
    with pytest.raises(catad.ArgumentError) as e:
        catad.eval_cl(square)
    assert_clean(e.value)


# ---------------------------------------------------------------- ranges and slices as Python has them

def repeat(x, n):
    return sum(x for i in range(n))


def between(x, a, b):
    return sum(x * x for i in range(a, b))


def first_row(v, n):
    return sum(v[0] for i in range(n))


@pytest.mark.parametrize("fn, args", [(repeat, (2.0, -3)), (between, (2.0, 5, 2)), (first_row, (np.ones(2), -1))],
                         ids=["range(-3)", "range(5, 2)", "v[0] over range(-1)"])
def test_a_sum_over_an_empty_range_is_zero(fn, args):
    """A negative build size is an empty range; a sum of a constant over it was n times it."""
    value, g = catad.value_and_grad(fn)(*args)
    assert value == fn(*args) == 0
    np.testing.assert_array_equal(g, np.zeros(np.shape(args[0])))


def head(v):
    return v[:5] * 2.0


def tail(v):
    return v[-5:] * 2.0


def from_k(v, k):
    return v[k:] * 2.0


def to_k(v, k):
    return v[:k] * 2.0


def columns(m):
    return m[:, :5] * 2.0


@pytest.mark.parametrize("fn, args", [
    (head, (np.arange(3.0),)), (tail, (np.arange(3.0),)), (columns, (np.ones((2, 3)),)),
    (from_k, (np.arange(3.0), -1)), (from_k, (np.arange(3.0), -5)), (from_k, (np.arange(3.0), 5)),
    (to_k, (np.arange(3.0), 5)), (to_k, (np.arange(3.0), -1)), (to_k, (np.arange(3.0), -5)),
], ids=["v[:5]", "v[-5:]", "m[:, :5]", "v[k:] k=-1", "v[k:] k=-5", "v[k:] k=5", "v[:k] k=5", "v[:k] k=-1",
        "v[:k] k=-5"])
def test_slice_bounds_are_clamped_as_python_does(fn, args):
    """v[:5] of a vector of 3 is the vector (it was padded with zeros), v[-1:] its last element."""
    out, back = catad.vjp(fn, *args)
    want = fn(*args)
    assert out.shape == want.shape
    np.testing.assert_array_equal(out, want)
    np.testing.assert_allclose(back(np.ones(want.shape))[0], central(lambda *a: np.sum(fn(*a)), args, 0),
                               atol=1e-6)


def scale_by(x, n):
    return x * n


def test_ints_past_int64_are_refused():
    """Compiled code computes Ints as int64; v[:k] with k = 10**30 was an OverflowError."""
    for n in (2 ** 63, -2 ** 63 - 1, 10 ** 30):
        with pytest.raises(catad.ArgumentError, match="argument 'n'.*64-bit"):
            catad.value_and_grad(scale_by)(1.5, n)
    with pytest.raises(catad.ArgumentError, match="argument 'k'"):
        catad.vjp(to_k, np.ones(3), 10 ** 30)
    assert catad.value_and_grad(scale_by)(1.5, 2 ** 63 - 1) == (1.5 * (2 ** 63 - 1), float(2 ** 63 - 1))


# ---------------------------------------------------------------- NaN in max and min

def py_max(a, b):
    return max(a, b)


def py_min(a, b):
    return min(a, b)


def np_max(a, b):
    return np.maximum(a, b)


def np_min(a, b):
    return np.minimum(a, b)


@pytest.mark.parametrize("fn", [py_max, py_min, np_max, np_min])
@pytest.mark.parametrize("a, b", [(np.nan, 1.0), (1.0, np.nan), (np.nan, np.nan), (2.0, 1.0), (1.0, 2.0)])
def test_max_and_min_of_nan_as_python_and_numpy(fn, a, b):
    """Python's max(a, b) is a unless b > a; NumPy's maximum propagates a NaN. catad gave 1.0
    for max(nan, 1.0) and for np.maximum(1.0, nan)."""
    value, (da, db) = catad.value_and_grad(fn, argnums=(0, 1))(a, b)
    np.testing.assert_equal(value, fn(a, b))
    assert (da, db) in ((1.0, 0.0), (0.0, 1.0))  # the derivative goes to the argument returned


def relu_sum(v, w):
    return np.sum(np.maximum(v, w))


def test_np_maximum_of_arrays_propagates_nan():
    v, w = np.array([1.0, np.nan, 3.0]), np.array([np.nan, 2.0, 1.0])
    value, (gv, gw) = catad.value_and_grad(relu_sum, argnums=(0, 1))(v, w)
    assert np.isnan(value) and np.isnan(relu_sum(v, w))
    np.testing.assert_array_equal(gv + gw, np.ones(3))


def test_catad_errors_survive_pickling_with_their_location():
    # a Dask worker sends an error back pickled: its class, location, construct and hint stay
    import pickle
    from catad.errors import Loc
    for cls in (catad.CatadError, catad.BoundsError, catad.ShapeError, catad.DomainError, catad.ArgumentError):
        e = cls("what went wrong", Loc("f.py", 3, 4), "index", "what to do")
        back = pickle.loads(pickle.dumps(e))
        assert type(back) is cls and str(back) == str(e)
        assert (back.loc.file, back.loc.line, back.construct, back.hint) == ("f.py", 3, "index", "what to do")
