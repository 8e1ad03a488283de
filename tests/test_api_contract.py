"""The public API contract, clause by clause: result structure and types, argnums,
recompilation on a new type signature, and the errors bad input raises.

Every function here is a plain module-level def (catad reads its source).
"""
import inspect
import os

import numpy as np
import pytest
import sympy

import catad
from catad import ArgumentError, CatadError, UnsupportedSyntax
from located import marked_line

HERE = os.path.basename(__file__)


# ---------------------------------------------------------------- functions under test

def fig1(x, y):
    z = x + y
    return x * z


def square(x):
    return x * x


def sum_squares(v):
    return np.sum(v * v)


def weighted(x, v):
    return x * np.sum(v * v) + np.sum(v) * 3.0


def matrix_fn(m):
    return np.sum(m * m) + m[0, 1] * m[1, 0]


def tuple_arg(p, x):
    a, b = p
    return a * x + np.sum(b * b) * x


def tuple_with_int(p, x):
    scale = p[0]
    power = p[1]
    return scale * x ** power


def mixed(x, n, v):
    return x * n + np.sum(v) * n


def with_int(x, n):
    return x ** n + n * x


def with_bool(x, b):
    return x * 2.0 if b else x * 3.0


def returns_tuple(x, y):
    return x * y, x + y


def returns_nested_tuple(x, v):
    return (x * x, v * x), np.sum(v) - x


def returns_vector(x, v):
    return v * x + v * v


def returns_int(x):
    return 1


def returns_bool(x):
    return x > 1.0


def matvec(m, v):
    return m @ v


def double_matrix(m):
    return m * 2.0 + m * m


def scalar_to_vector(x):
    return np.array([x, x * x, 3.0 * x])


def any_rank(x):
    return np.sum(x * x) * 0.5


def indexes_matrix(m):
    return m[0, 1] * 2.0


# ---------------------------------------------------------------- helpers

def assert_float(g, expected):
    assert isinstance(g, float), type(g)
    assert not isinstance(g, np.ndarray)
    assert g == pytest.approx(expected, rel=1e-12, abs=1e-12)


def assert_array(g, expected):
    expected = np.asarray(expected, dtype=float)
    assert isinstance(g, np.ndarray), type(g)
    assert g.shape == expected.shape
    assert g.dtype == np.float64
    np.testing.assert_allclose(g, expected, rtol=1e-12, atol=1e-12)


def raises_catad(thunk, *words, cls=CatadError):
    """thunk() raises a CatadError subclass of `cls` whose message holds every word."""
    with pytest.raises(CatadError) as info:
        thunk()
    assert isinstance(info.value, cls), type(info.value)
    text = str(info.value)
    for w in words:
        assert w in text, (w, text)
    return info.value


# ================================================================ grad

def test_grad_float_argument_gives_float():
    assert_float(catad.grad(fig1)(3.0, 4.0), 10.0)
    assert_float(catad.grad(fig1, argnums=1)(3.0, 4.0), 3.0)


def test_grad_numpy_float_scalar_gives_float():
    assert_float(catad.grad(square)(np.float64(3.0)), 6.0)


def test_grad_vector_argument_gives_array_of_its_shape():
    v = np.array([1.0, -2.0, 0.5])
    assert_array(catad.grad(sum_squares)(v), 2.0 * v)
    assert_array(catad.grad(weighted, argnums=1)(2.0, v), 2.0 * 2.0 * v + 3.0)
    assert_float(catad.grad(weighted)(2.0, v), float(np.sum(v * v)))


def test_grad_matrix_argument_gives_matrix():
    m = np.arange(6.0).reshape(2, 3)
    expected = 2.0 * m
    expected[0, 1] += m[1, 0]
    expected[1, 0] += m[0, 1]
    assert_array(catad.grad(matrix_fn)(m), expected)


def test_grad_tuple_argument_gives_tuple():
    b = np.array([1.0, 2.0])
    g = catad.grad(tuple_arg)((2.0, b), 3.0)
    assert isinstance(g, tuple) and len(g) == 2
    assert_float(g[0], 3.0)
    assert_array(g[1], 2.0 * b * 3.0)


def test_grad_tuple_argument_with_int_component():
    g = catad.grad(tuple_with_int)((1.5, 2), 0.5)
    assert isinstance(g, tuple) and len(g) == 2
    assert_float(g[0], 0.25)
    assert g[1] == 0  # an int has no tangent: its cotangent is zero


def test_grad_argnums_tuple_gives_tuple_of_gradients():
    g = catad.grad(fig1, argnums=(0, 1))(3.0, 4.0)
    assert isinstance(g, tuple) and len(g) == 2
    assert_float(g[0], 10.0)
    assert_float(g[1], 3.0)
    g = catad.grad(fig1, argnums=(1,))(3.0, 4.0)
    assert isinstance(g, tuple) and len(g) == 1
    assert_float(g[0], 3.0)
    v = np.array([1.0, 2.0])
    gx, gv = catad.grad(weighted, argnums=(0, 1))(2.0, v)
    assert_float(gx, 5.0)
    assert_array(gv, 4.0 * v + 3.0)


def test_grad_argnums_list_is_a_sequence():
    g = catad.grad(fig1, argnums=[1, 0])(3.0, 4.0)
    assert isinstance(g, tuple)
    assert g == (3.0, 10.0)


def test_grad_negative_argnums():
    assert_float(catad.grad(fig1, argnums=-1)(3.0, 4.0), 3.0)
    assert_float(catad.grad(fig1, argnums=-2)(3.0, 4.0), 10.0)
    g = catad.grad(fig1, argnums=(-1, 0))(3.0, 4.0)
    assert isinstance(g, tuple)
    assert_float(g[0], 3.0)
    assert_float(g[1], 10.0)


def test_grad_skips_int_arguments_not_differentiated():
    v = np.array([1.0, 2.0])
    gx, gv = catad.grad(mixed, argnums=(0, 2))(2.0, 3, v)
    assert_float(gx, 3.0)
    assert_array(gv, [3.0, 3.0])


def test_grad_of_bool_controlled_function():
    assert_float(catad.grad(with_bool)(1.0, True), 2.0)
    assert_float(catad.grad(with_bool)(1.0, False), 3.0)


@pytest.mark.parametrize("argnums", [2, -3, (0, 2), (5,)])
def test_grad_argnums_out_of_range(argnums):
    raises_catad(lambda: catad.grad(fig1, argnums=argnums)(3.0, 4.0), "argnums")


def test_grad_argnums_not_an_int():
    raises_catad(lambda: catad.grad(fig1, argnums=0.5)(3.0, 4.0), "argnums")


def test_grad_argnums_string_is_catad_error():
    raises_catad(lambda: catad.grad(fig1, argnums="x")(3.0, 4.0), "argnums")


def test_grad_with_respect_to_int_argument():
    e = raises_catad(lambda: catad.grad(fig1)(3, 4.0), "'x'", "Int")
    assert "float" in str(e)
    raises_catad(lambda: catad.grad(fig1, argnums=1)(3.0, 4), "'y'", "Int")
    raises_catad(lambda: catad.grad(with_int, argnums=1)(1.5, 2), "'n'", "Int")
    raises_catad(lambda: catad.grad(mixed, argnums=(0, 1))(2.0, 3, np.ones(2)), "'n'", "Int")


def test_grad_with_respect_to_int_array():
    raises_catad(lambda: catad.grad(weighted, argnums=1)(2.0, np.arange(3)), "'v'", "Int")


def test_grad_with_respect_to_bool():
    raises_catad(lambda: catad.grad(with_bool, argnums=1)(1.0, True), "'b'", "Bool")


def test_grad_of_int_function_of_int_argument():
    # square(3) is an Int: grad must refuse it, saying it is about ints and floats
    e = raises_catad(lambda: catad.grad(square)(3), "Int")
    assert "float" in str(e)


@pytest.mark.parametrize("fn, args, what", [
    (returns_tuple, (1.0, 2.0), "(Float, Float)"),
    (returns_vector, (1.0, np.ones(3)), "Vec Float"),
    (returns_int, (1.0,), "Int"),
    (returns_bool, (1.0,), "Bool"),
])
def test_grad_of_non_float_output(fn, args, what):
    e = raises_catad(lambda: catad.grad(fn)(*args), "float", what)
    assert fn.__name__ in str(e)
    raises_catad(lambda: catad.value_and_grad(fn)(*args), "float", what)


# ---------------------------------------------------------------- bad arguments

def test_too_few_arguments_names_the_missing_parameter():
    for call in (lambda: catad.grad(fig1)(3.0), lambda: catad.value_and_grad(fig1)(3.0),
                 lambda: catad.jvp(fig1, (3.0,), (1.0,)), lambda: catad.vjp(fig1, 3.0),
                 lambda: catad.jacobian(fig1)(3.0), lambda: catad.linearize(fig1, 3.0),
                 lambda: catad.to_core(fig1, 3.0)):
        raises_catad(call, "'y'", "2", cls=ArgumentError)


def test_too_many_arguments():
    for call in (lambda: catad.grad(fig1)(3.0, 4.0, 5.0), lambda: catad.jvp(fig1, (3.0, 4.0, 5.0), (1.0,) * 3),
                 lambda: catad.vjp(fig1, 3.0, 4.0, 5.0), lambda: catad.linearize(fig1, 3.0, 4.0, 5.0)):
        raises_catad(call, "fig1", "2", "3", cls=ArgumentError)


@pytest.mark.parametrize("bad, words", [
    ("a", ("'x'", "str")),
    (None, ("'x'", "NoneType")),
    ({1.5: 1.0}, ("'x'", "key")),  # lists and dicts are trees of arguments (tests/test_trees.py)
    (1j, ("'x'", "complex")),
    (np.array(["a", "b"]), ("'x'", "dtype")),
    (np.ones(3, dtype=complex), ("'x'", "complex")),
    (np.array(2.0), ("'x'", "rank 0")),
])
def test_non_numeric_or_wrong_rank_argument_names_the_parameter(bad, words):
    for call in (lambda: catad.grad(fig1)(bad, 4.0), lambda: catad.jvp(fig1, (bad, 4.0), (1.0, 1.0)),
                 lambda: catad.vjp(fig1, bad, 4.0), lambda: catad.jacobian(fig1)(bad, 4.0),
                 lambda: catad.linearize(fig1, bad, 4.0), lambda: catad.to_core(fig1, bad, 4.0),
                 lambda: catad.to_sympy(fig1, bad, 4.0)):
        raises_catad(call, *words, cls=ArgumentError)


def test_bad_argument_in_second_position_names_it():
    raises_catad(lambda: catad.grad(fig1)(3.0, "b"), "'y'", "str", cls=ArgumentError)


def test_rank_the_body_cannot_use_is_a_type_error_at_the_line():
    e = raises_catad(lambda: catad.grad(indexes_matrix)(np.arange(3.0)), "rank 1")
    line = inspect.getsourcelines(indexes_matrix)[1] + 1
    assert f"{HERE}:{line}" in str(e)


def test_not_a_function():
    raises_catad(lambda: catad.grad(3)(1.0), "int")
    raises_catad(lambda: catad.grad(np.sin)(1.0), "ufunc")


def test_tuple_argument_of_wrong_length():
    raises_catad(lambda: catad.grad(tuple_arg)((1.0, np.ones(2), 3.0), 2.0), "3")


# ---------------------------------------------------------------- recompilation per signature

def test_float_then_array_recompiles():
    assert_float(catad.grad(any_rank)(3.0), 3.0)
    v = np.array([1.0, 2.0, 3.0])
    assert_array(catad.grad(any_rank)(v), v)
    m = np.arange(4.0).reshape(2, 2)
    assert_array(catad.grad(any_rank)(m), m)
    assert_float(catad.grad(any_rank)(-2.0), -2.0)  # the scalar program is still right


def test_array_sizes_share_a_signature_but_results_follow_the_shape():
    for n in (3, 5, 2, 7):
        v = np.linspace(-1.0, 1.0, n)
        assert_array(catad.grad(sum_squares)(v), 2.0 * v)


def test_scalar_then_int_recompiles():
    assert "Float" in str(catad.to_core(square, 3.0))
    assert "Int" in str(catad.to_core(square, 3))
    out, t = catad.jvp(square, (3.0,), (1.0,))
    assert_float(out, 9.0)
    assert_float(t, 6.0)
    out, t = catad.jvp(square, (3,), (1.0,))
    assert out == 9 and isinstance(out, (int, np.integer))
    assert t == 0.0
    raises_catad(lambda: catad.grad(square)(3), "Int")
    assert_float(catad.grad(square)(3.0), 6.0)  # the failed int call did not poison the float one


def test_int_then_float_argument_to_mixed_function():
    assert_float(catad.grad(with_int)(1.5, 2), 2.0 * 1.5 + 2.0)
    assert_float(catad.grad(with_int)(1.5, 3), 3.0 * 1.5 ** 2 + 3.0)
    # n as a float: now x ** n with a float exponent, and n differentiable
    gx, gn = catad.grad(with_int, argnums=(0, 1))(1.5, 2.0)
    assert_float(gx, 2.0 * 1.5 + 2.0)
    assert_float(gn, 1.5 ** 2 * np.log(1.5) + 1.5)


def test_tuple_argument_types_recompile():
    g = catad.grad(tuple_with_int)((1.5, 2), 0.5)
    assert_float(g[0], 0.25)
    g = catad.grad(tuple_with_int)((1.5, 2.0), 0.5)
    assert_float(g[0], 0.25)
    assert_float(g[1], 1.5 * 0.25 * np.log(0.5))


# ================================================================ value_and_grad

def test_value_and_grad():
    out = catad.value_and_grad(fig1)(3.0, 4.0)
    assert isinstance(out, tuple) and len(out) == 2
    assert_float(out[0], 21.0)
    assert_float(out[1], 10.0)
    v = np.array([1.0, 2.0])
    value, (gx, gv) = catad.value_and_grad(weighted, argnums=(0, 1))(2.0, v)
    assert_float(value, weighted(2.0, v))
    assert_float(gx, 5.0)
    assert_array(gv, 4.0 * v + 3.0)
    value, g = catad.value_and_grad(fig1, argnums=-1)(3.0, 4.0)
    assert_float(g, 3.0)


# ================================================================ jvp

def test_jvp_scalar():
    out, t = catad.jvp(fig1, (3.0, 4.0), (1.0, 0.0))
    assert_float(out, 21.0)
    assert_float(t, 10.0)
    out, t = catad.jvp(fig1, [3.0, 4.0], [0.5, 2.0])  # any sequence
    assert_float(t, 0.5 * 10.0 + 2.0 * 3.0)


def test_jvp_vector_output_is_array():
    v = np.array([1.0, 2.0, 3.0])
    dv = np.array([0.0, 1.0, -1.0])
    out, t = catad.jvp(returns_vector, (2.0, v), (0.5, dv))
    assert_array(out, v * 2.0 + v * v)
    assert_array(t, 0.5 * v + 2.0 * dv + 2.0 * v * dv)


def test_jvp_tuple_output_is_tuple():
    out, t = catad.jvp(returns_tuple, (2.0, 3.0), (1.0, 0.0))
    assert out == (6.0, 5.0)
    assert isinstance(t, tuple) and len(t) == 2
    assert_float(t[0], 3.0)
    assert_float(t[1], 1.0)
    v = np.array([1.0, 2.0])
    out, t = catad.jvp(returns_nested_tuple, (2.0, v), (1.0, np.zeros(2)))
    (a, b), c = t
    assert_float(a, 4.0)
    assert_array(b, v)
    assert_float(c, -1.0)


def test_jvp_with_int_arguments():
    out, t = catad.jvp(with_int, (1.5, 3), (1.0, 0))
    assert_float(out, 1.5 ** 3 + 3 * 1.5)
    assert_float(t, 3 * 1.5 ** 2 + 3)
    # the int's tangent carries nothing, whatever is passed for it
    out2, t2 = catad.jvp(with_int, (1.5, 3), (1.0, 0.0))
    assert t2 == t
    out, t = catad.jvp(mixed, (2.0, 3, np.ones(2)), (1.0, 0, np.array([1.0, 2.0])))
    assert_float(t, 3.0 + 9.0)


def test_jvp_all_int_arguments():
    out, t = catad.jvp(square, (3,), (0,))
    assert out == 9
    assert t == 0.0


def test_jvp_tuple_argument():
    out, t = catad.jvp(tuple_arg, ((2.0, np.array([1.0, 2.0])), 3.0), ((1.0, np.array([1.0, 0.0])), 0.0))
    assert_float(out, 6.0 + 15.0)
    assert_float(t, 3.0 + 2.0 * 1.0 * 3.0)


def test_jvp_bad_tangents():
    raises_catad(lambda: catad.jvp(fig1, (3.0, 4.0), (1.0,)), "2", "1", cls=ArgumentError)
    raises_catad(lambda: catad.jvp(sum_squares, (np.ones(3),), (np.ones(4),)), "'v'", "(4,)", "(3,)",
                 cls=ArgumentError)
    raises_catad(lambda: catad.jvp(fig1, (3.0, 4.0), (np.ones(2), 1.0)), "'x'", cls=ArgumentError)
    raises_catad(lambda: catad.jvp(tuple_arg, ((1.0, np.ones(2)), 1.0), ((1.0,), 1.0)), "'p'",
                 cls=ArgumentError)


# ================================================================ vjp

def test_vjp_scalar():
    out, vjp_fn = catad.vjp(fig1, 3.0, 4.0)
    assert_float(out, 21.0)
    ct = vjp_fn(1.0)
    assert isinstance(ct, tuple) and len(ct) == 2
    assert_float(ct[0], 10.0)
    assert_float(ct[1], 3.0)
    ct2 = vjp_fn(2.0)
    assert_float(ct2[0], 20.0)
    assert vjp_fn(1.0) == ct  # vjp_fn is reusable and pure


def test_vjp_single_primal_gives_one_tuple():
    out, vjp_fn = catad.vjp(double_matrix, np.ones((2, 3)))
    ct = vjp_fn(np.ones((2, 3)))
    assert isinstance(ct, tuple) and len(ct) == 1
    assert_array(ct[0], np.full((2, 3), 4.0))


def test_vjp_of_tuple_returning_function():
    out, vjp_fn = catad.vjp(returns_tuple, 2.0, 3.0)
    assert out == (6.0, 5.0)
    ct = vjp_fn((1.0, 0.0))
    assert_float(ct[0], 3.0)
    assert_float(ct[1], 2.0)
    ct = vjp_fn((0.0, 1.0))
    assert ct == (1.0, 1.0)
    v = np.array([1.0, 2.0])
    out, vjp_fn = catad.vjp(returns_nested_tuple, 2.0, v)
    gx, gv = vjp_fn(((1.0, np.array([1.0, 1.0])), 1.0))
    assert_float(gx, 2.0 * 2.0 + np.sum(v) - 1.0)
    assert_array(gv, [2.0 + 1.0, 2.0 + 1.0])


def test_vjp_with_int_and_tuple_primals():
    out, vjp_fn = catad.vjp(mixed, 2.0, 3, np.ones(2))
    gx, gn, gv = vjp_fn(1.0)
    assert_float(gx, 3.0)
    assert gn == 0  # ints have zero cotangent
    assert_array(gv, [3.0, 3.0])
    b = np.array([1.0, 2.0])
    out, vjp_fn = catad.vjp(tuple_arg, (2.0, b), 3.0)
    (ga, gb), gx = vjp_fn(1.0)
    assert_float(ga, 3.0)
    assert_array(gb, 2.0 * b * 3.0)
    assert_float(gx, 2.0 + 5.0)


def test_vjp_bad_cotangent():
    out, vjp_fn = catad.vjp(returns_tuple, 2.0, 3.0)
    raises_catad(lambda: vjp_fn(1.0), "tuple", cls=ArgumentError)
    raises_catad(lambda: vjp_fn((1.0, 2.0, 3.0)), "tuple", cls=ArgumentError)
    out, vjp_fn = catad.vjp(returns_vector, 2.0, np.ones(3))
    raises_catad(lambda: vjp_fn(np.ones(4)), "(4,)", "(3,)", cls=ArgumentError)


# ================================================================ jacobian

def test_jacobian_shapes():
    j = catad.jacobian(fig1)(3.0, 4.0)
    assert np.shape(j) == ()
    assert float(j) == 10.0
    v = np.array([1.0, 2.0, 3.0])
    j = catad.jacobian(sum_squares)(v)
    assert_array(j, 2.0 * v)
    j = catad.jacobian(returns_vector, argnums=1)(2.0, v)
    assert_array(j, np.diag(2.0 + 2.0 * v))
    j = catad.jacobian(returns_vector)(2.0, v)
    assert_array(j, v)
    j = catad.jacobian(scalar_to_vector)(2.0)
    assert_array(j, [1.0, 4.0, 3.0])
    m = np.arange(6.0).reshape(2, 3)
    j = catad.jacobian(matvec)(m, v)
    assert j.shape == (2, 2, 3)
    expected = np.zeros((2, 2, 3))
    expected[0, 0, :] = v
    expected[1, 1, :] = v
    assert_array(j, expected)
    assert_array(catad.jacobian(matvec, argnums=1)(m, v), m)
    j = catad.jacobian(double_matrix)(m)
    assert j.shape == (2, 3, 2, 3)
    assert_array(j.reshape(6, 6), np.diag(2.0 + 2.0 * m.ravel()))


def test_jacobian_argnums_tuple_and_negative():
    m = np.arange(6.0).reshape(2, 3)
    v = np.array([1.0, 2.0, 3.0])
    jm, jv = catad.jacobian(matvec, argnums=(0, 1))(m, v)
    assert jm.shape == (2, 2, 3) and jv.shape == (2, 3)
    assert_array(catad.jacobian(matvec, argnums=-1)(m, v), m)


def test_jacobian_errors():
    raises_catad(lambda: catad.jacobian(returns_tuple)(1.0, 2.0), "tuple")
    raises_catad(lambda: catad.jacobian(fig1, argnums=1)(1.0, 2), "'y'", "Int")
    raises_catad(lambda: catad.jacobian(fig1, argnums=3)(1.0, 2.0), "argnums")


# ================================================================ linearize

def test_linearize_scalar():
    out, lm = catad.linearize(fig1, 3.0, 4.0)
    assert_float(out, 21.0)
    assert_float(lm(1.0, 0.0), 10.0)
    assert_float(lm(0.0, 1.0), 3.0)
    ct = lm.T(1.0)
    assert isinstance(ct, tuple) and len(ct) == 2
    assert_float(ct[0], 10.0)
    assert_float(ct[1], 3.0)
    mat = lm.to_matrix()
    assert isinstance(mat, np.ndarray) and mat.shape == (1, 2)
    np.testing.assert_allclose(mat, [[10.0, 3.0]])
    assert "lm" in str(lm)
    assert "lm" in str(lm.T)
    np.testing.assert_allclose(lm.T.to_matrix(), mat.T)
    assert_float(lm.T.T(1.0, 0.0), 10.0)


def test_linearize_arrays():
    m = np.arange(6.0).reshape(2, 3)
    v = np.array([1.0, -1.0, 2.0])
    out, lm = catad.linearize(matvec, m, v)
    assert_array(out, m @ v)
    mat = lm.to_matrix()
    assert mat.shape == (2, 6 + 3)  # output size x total input size
    jm, jv = catad.jacobian(matvec, argnums=(0, 1))(m, v)
    np.testing.assert_allclose(mat, np.hstack([jm.reshape(2, 6), jv]))
    dm, dv = np.ones((2, 3)), np.array([1.0, 0.0, 0.0])
    assert_array(lm(dm, dv), dm @ v + m @ dv)
    ct = np.array([1.0, 2.0])
    gm, gv = lm.T(ct)
    assert_array(gm, np.outer(ct, v))
    assert_array(gv, m.T @ ct)
    assert lm.T.to_matrix().shape == (9, 2)
    assert "lm" in str(lm)


def test_linearize_tuples_and_ints():
    out, lm = catad.linearize(mixed, 2.0, 3, np.ones(2))
    assert lm.to_matrix().shape == (1, 1 + 0 + 2)  # an int contributes no columns
    gx, gn, gv = lm.T(1.0)
    assert_float(gx, 3.0)
    assert gn == 0
    assert_array(gv, [3.0, 3.0])
    out, lm = catad.linearize(returns_tuple, 2.0, 3.0)
    t = lm(1.0, 0.0)
    assert isinstance(t, tuple)
    assert t == (3.0, 1.0)
    assert lm.to_matrix().shape == (2, 2)
    np.testing.assert_allclose(lm.to_matrix(), [[3.0, 2.0], [1.0, 1.0]])
    assert lm.T((1.0, 0.0)) == (3.0, 2.0)


def test_linearize_bad_tangents():
    out, lm = catad.linearize(matvec, np.ones((2, 3)), np.ones(3))
    raises_catad(lambda: lm(np.ones((2, 3))), "2", "1", cls=ArgumentError)
    raises_catad(lambda: lm.T(np.ones(3)), "(3,)", cls=ArgumentError)


# ================================================================ to_sympy, to_cl, eval_cl, to_core

def test_to_sympy_shapes_of_symbols():
    expr, syms = catad.to_sympy(mixed, 2.0, 3, np.ones(2))
    assert isinstance(syms, tuple) and len(syms) == 3
    assert isinstance(syms[0], sympy.Symbol)
    assert syms[1] == 3
    assert isinstance(syms[2], np.ndarray) and syms[2].shape == (2,)
    x, v0, v1 = syms[0], syms[2][0], syms[2][1]
    assert sympy.simplify(expr - (3 * x + 3 * v0 + 3 * v1)) == 0
    expr, syms = catad.to_sympy(fig1, 3.0, 4.0)
    assert sympy.expand(expr - syms[0] * (syms[0] + syms[1])) == 0


def test_to_cl_eval_cl_to_core():
    cl = catad.to_cl(fig1, 3.0, 4.0)
    assert str(cl)
    assert catad.eval_cl(cl, 3.0, 4.0) == 21.0
    assert catad.eval_cl(cl, 1.0, 2.0) == 3.0
    core = catad.to_core(fig1, 3.0, 4.0)
    assert "fig1" in str(core)
    v = np.array([1.0, 2.0])
    assert catad.eval_cl(catad.to_cl(weighted, 2.0, v), 2.0, v) == pytest.approx(weighted(2.0, v))


def test_eval_cl_errors():
    raises_catad(lambda: catad.eval_cl("x", 1.0))
    cl = catad.to_cl(fig1, 3.0, 4.0)
    raises_catad(lambda: catad.eval_cl(cl, 1.0), "2")
    raises_catad(lambda: catad.eval_cl(cl, np.ones(3), 1.0), "'x'")


# ================================================================ unsupported syntax

def uses_with(x):
    with np.printoptions(precision=3):  # ERR (np.errstate is supported: catad/frontend/errstate.py)
        x = x / 2.0
    return x


def uses_try(x):
    try:  # ERR
        return x * 2.0
    except ValueError:
        return 0.0


def mutates(v):
    v[0] = 1.0  # ERR
    return np.sum(v)


def recursive(x):
    return recursive(x * 0.5) if x > 1.0 else x  # ERR


def calls_bad_helper(x):
    return uses_with(x) * 2.0


@pytest.mark.parametrize("fn, args, word, where", [
    (uses_with, (2.0,), "with", uses_with),
    (uses_try, (2.0,), "try", uses_try),
    (mutates, (np.ones(3),), "mutate", mutates),
    (recursive, (2.0,), "recurs", recursive),
    (calls_bad_helper, (2.0,), "with", uses_with),
])
def test_unsupported_syntax_is_catad_error_with_line(fn, args, word, where):
    line = marked_line(where)
    for call in (lambda: catad.grad(fn)(*args), lambda: catad.jvp(fn, args, (1.0,) if isinstance(args[0], float)
                                                                    else (np.ones(3),)),
                 lambda: catad.to_core(fn, *args)):
        e = raises_catad(call, word, cls=UnsupportedSyntax)
        assert f"{HERE}:{line}" in str(e), str(e)


def test_function_without_source():
    namespace = {}
    exec("def no_source(x):\n    return x * x\n", namespace)
    raises_catad(lambda: catad.grad(namespace["no_source"])(2.0), "source")


# ================================================================ malformed tangents, cotangents and argnums

def vector_out(v):
    return v * 2.0


@pytest.mark.parametrize("call", [
    pytest.param(lambda: catad.jvp(square, (3.0,), ("a",)), id="jvp-tangent-str"),
    pytest.param(lambda: catad.jvp(square, (3.0,), (None,)), id="jvp-tangent-None"),
    pytest.param(lambda: catad.jvp(square, 3.0, 1.0), id="jvp-primals-not-a-sequence"),
    pytest.param(lambda: catad.jvp(square, (3.0,), 1.0), id="jvp-tangents-not-a-sequence"),
    pytest.param(lambda: catad.vjp(square, 3.0)[1]("a"), id="vjp-cotangent-str"),
    pytest.param(lambda: catad.vjp(square, 3.0)[1](None), id="vjp-cotangent-None"),
    pytest.param(lambda: catad.vjp(vector_out, np.ones(2))[1](np.array(["a", "b"])), id="vjp-cotangent-str-array"),
    pytest.param(lambda: catad.linearize(square, 3.0)[1]("a"), id="linearize-tangent-str"),
    pytest.param(lambda: catad.linearize(square, 3.0)[1].T(None), id="linearize-T-cotangent-None"),
    pytest.param(lambda: catad.jacobian(square, argnums=0.0)(1.0), id="jacobian-argnums-float"),
    pytest.param(lambda: catad.value_and_grad(square, argnums=None)(1.0), id="value_and_grad-argnums-None"),
])
def test_malformed_tangents_cotangents_and_argnums_are_catad_errors(call):
    with pytest.raises(CatadError):
        call()


def tuple_matvec(p):
    m, v = p
    return m @ v


def test_jacobian_with_respect_to_a_tuple_argument():
    m, v = np.arange(6.0).reshape(2, 3), np.array([1.0, -1.0, 2.0])
    j = catad.jacobian(tuple_matvec)((m, v))
    assert isinstance(j, tuple) and len(j) == 2  # one block per component, JAX's structure
    jm, jv = j
    assert jm.shape == (2, 2, 3) and jv.shape == (2, 3)
    expected = np.zeros((2, 2, 3))
    expected[0, 0, :] = v
    expected[1, 1, :] = v
    assert_array(jm, expected)
    assert_array(jv, m)
