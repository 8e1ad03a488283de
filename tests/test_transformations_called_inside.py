"""What catad's own functions return, called inside a function catad compiles, is what they
return when Python calls them: grad, value_and_grad, jvp and hvp give Python's own floats (a
gradient has its argument's structure: a list of floats for a list), jacobian and hessian give
NumPy arrays (of no axes for a number's). Before, the compiled function held each such result as
a NumPy number: catad.grad(f)(x) / 0 gave inf where Python raises ZeroDivisionError, and the
gradient with respect to a list was added elementwise (g + g) where Python concatenates it."""
import math

import numpy as np
import pytest

import catad
from catad.errors import ZeroDivisionError_
from located import agrees, raises_as_python


def square(x):
    return x * x


def magnitude(x):
    return abs(x)


def product(l):
    return l[0] * l[1]


def first_times_second(t):
    return t[0] * t[1] + abs(t[0])


def keyed(d):
    return d["a"] * d["b"]


def total(l):
    return sum(l)


def twice(x):
    return [x, 2.0 * x]


def gradient_over_zero(x):
    return catad.grad(square)(x) / 0


def value_over_zero(x):
    v, d = catad.value_and_grad(square)(x)
    return v / 0 + d


def gradient_part_over_zero(x):
    v, d = catad.value_and_grad(square)(x)
    return d / 0 + v


def tangent_over_zero(x):
    p, t = catad.jvp(square, (x,), (1.0,))
    return t / 0 + p


def primal_over_zero(x):
    p, t = catad.jvp(magnitude, (x,), (1.0,))
    return p / 0 + t


def hvp_over_zero(x):
    return catad.hvp(square, (x,), (1.0,)) / 0


def tuple_gradient_item(x):
    g = catad.grad(first_times_second)((x, 2.0 * x))
    return g[0] / 0


def list_gradient_item(x):
    g = catad.grad(product)([x, 2.0 * x])
    return g[1] / 0


def comprehension_gradient_item(x):
    g = catad.grad(product)([math.sin(x) for _ in range(2)])
    return g[1] / 0


def dict_gradient_item(x):
    g = catad.grad(keyed)({"a": x, "b": 2.0 * x})
    return g["b"] / 0


def list_tangent_item(x):
    p, t = catad.jvp(product, ([x, 2.0 * x],), ([1.0, 0.0],))
    return t / 0


def argnums_gradient_item(x):
    a, b = catad.grad(two, argnums=(0, 1))(x, 2.0 * x)
    return b / 0


def two(a, b):
    return a * b


square_slope = catad.grad(square)


def global_gradient_over_zero(x):
    return square_slope(x) / 0


@pytest.mark.parametrize("fn", [
    gradient_over_zero, value_over_zero, gradient_part_over_zero, tangent_over_zero, primal_over_zero,
    hvp_over_zero, tuple_gradient_item, list_gradient_item, comprehension_gradient_item, dict_gradient_item,
    list_tangent_item, argnums_gradient_item, global_gradient_over_zero,
], ids=lambda f: f.__name__)
def test_a_transformation_s_numbers_are_python_s(fn):
    raises_as_python(fn, 1.5)


def list_gradient_concatenated(x):
    g = catad.grad(product)([x, 2.0 * x])
    return sum(g + g) + len(g + g)


def comprehension_gradient_concatenated(x):
    g = catad.grad(total)([math.sin(x) * k for k in range(3)])
    return sum(g + g) * x + len(g + g)


def value_and_list_gradient(x):
    v, g = catad.value_and_grad(product)([x, 2.0 * x])
    return sum(g + g) + len(g + g) + v


def tuple_gradient_concatenated(x):
    g = catad.grad(first_times_second)((x, 2.0 * x))
    return sum(g + g) + len(g + g)


def list_result_tangent(x):
    p, t = catad.jvp(twice, (x,), (1.0,))
    return sum(t + t) + len(p + p) * x


@pytest.mark.parametrize("fn", [
    list_gradient_concatenated, comprehension_gradient_concatenated, value_and_list_gradient,
    tuple_gradient_concatenated, list_result_tangent,
], ids=lambda f: f.__name__)
def test_a_gradient_has_its_argument_s_structure(fn):
    agrees(fn, 1.5)


def jacobian_over_zero(x):
    return catad.jacobian(square)(x) / 0 + catad.hessian(square)(x) / 0


def test_jacobians_and_hessians_stay_numpy_s():
    with np.errstate(divide="ignore"):
        assert jacobian_over_zero(1.5) == np.inf
        assert catad.value_and_grad(jacobian_over_zero)(1.5)[0] == np.inf


def cube(x):
    return x * x * x


def named_locally(x):
    g = catad.grad(cube)
    s = 0.0
    for i in range(3):
        s = s + g(x * i)
    return s + g(2.0 * x)


def two_names(x):
    g = h = catad.value_and_grad(cube)
    v, d = g(x)
    return v * d * h(x)[1]


def named_second_derivative(x):
    g = catad.grad(catad.grad(cube))
    return g(x) * x


@pytest.mark.parametrize("fn", [named_locally, two_names, named_second_derivative], ids=lambda f: f.__name__)
def test_a_transformation_named_in_the_function(fn):
    """g = catad.grad(f) in the function, then g(x): before, refused as catad.differentiate.grad
    being unsupported."""
    agrees(fn, 1.5)
    agrees(fn, -0.5)


def named_over_zero(x):
    g = catad.grad(square)
    return g(x) / 0


def test_a_named_transformation_s_numbers_are_python_s():
    with pytest.raises(ZeroDivisionError):
        named_over_zero(1.5)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(named_over_zero)(1.5)


def with_an_int_and_a_bool(x, n):
    return x * n, n, n > 1


def tangents_of_an_int_and_a_bool(x):
    p, t = catad.jvp(with_an_int_and_a_bool, (x, 3), (1.0, 0))
    return t[1] + t[2] + p[0] * t[0] + p[1] * 1.0 + p[2] * 1.0


def test_the_tangent_of_an_int_or_a_bool_is_python_s_zero():
    """catad.jvp gives 0.0 as the tangent of an int or a bool result; inside a compiled function
    the Bool's was the zero tangent used as a condition, which the code generator refused as its own
    error ('_Zero' object has no attribute 'depth')."""
    agrees(tangents_of_an_int_and_a_bool, 1.5)
    assert catad.jvp(with_an_int_and_a_bool, (1.5, 3), (1.0, 0))[1][1:] == (0.0, 0.0)


def int_tangent_over_zero(x):
    p, t = catad.jvp(with_an_int_and_a_bool, (x, 3), (1.0, 0))
    return t[1] / 0 + x


def test_the_tangent_of_an_int_is_python_s_float():
    with pytest.raises(ZeroDivisionError):
        int_tangent_over_zero(1.5)
    with pytest.raises(ZeroDivisionError_):
        catad.value_and_grad(int_tangent_over_zero)(1.5)


def pair_of(x):
    return x, 2.0 * x


def vector_of(x):
    return np.array([x, 2.0 * x])


def jacobian_of_a_tuple(x):
    return catad.jacobian(pair_of)(x)[1] * x


def hessian_of_a_vector(x):
    return catad.hessian(vector_of)(x)[1] * x


@pytest.mark.parametrize("fn, words", [
    (jacobian_of_a_tuple, ["jacobian needs a function returning a float or a float array", "pair_of returns"]),
    (hessian_of_a_vector, ["hessian needs a function returning a float", "vector_of returns Vec Float"]),
], ids=lambda p: getattr(p, "__name__", ""))
def test_what_catad_refuses_in_python_it_refuses_inside(fn, words):
    """catad.jacobian of a function returning a tuple and catad.hessian of one returning an array
    are refused when Python calls them; inside a compiled function they were computed (the
    Hessian of vector_of gave 0.0 where Python raises). Both refuse now, with the same message."""
    with pytest.raises(catad.CatadError) as python:
        fn(1.5)
    with pytest.raises(catad.CatadError) as ours:
        catad.value_and_grad(fn)(1.5)
    assert str(python.value).split(" (")[0] in str(ours.value)
    for w in words:
        assert w in str(ours.value)
