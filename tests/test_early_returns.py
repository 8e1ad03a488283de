"""A return nested in an if, with more statements after the if: the statements after it were
lowered once into each arm, so each such if doubled the program (a 120-line function of the
loop fuzzer, seed 34548: a core program of 5,000 lines, 5 s to a gradient, 30 s to a Hessian).
catad.frontend.early_returns makes the returns set a flag and a result instead; the size of the
program is counted here, never timed."""
import numpy as np
import pytest

import catad
from catad._node import walk
from catad.frontend import compile_function
from located import agrees
from backend_programs import load_source


def ifs_with_nested_returns(k: int) -> str:
    """k ifs in a row, each returning from within a nested if and falling through otherwise."""
    lines = ["def f(x):"]
    for i in range(k):
        lines += [f"    if x > {0.1 * i}:",
                  f"        if x > {3.0 + i}:",
                  f"            return x * {i + 1.0}",
                  f"        x = x * 0.9 + {0.01 * i}",
                  "    else:",
                  "        x = np.sin(x)"]
    lines.append("    return x * x")
    return "import numpy as np\n\n" + "\n".join(lines) + "\n"


def size(fn, *args) -> int:
    return sum(1 for _ in walk(compile_function(fn, args).main.body))


def test_the_program_grows_linearly(tmp_path):
    small = size(load_source(ifs_with_nested_returns(4), tmp_path, "f"), 0.5)
    large = size(load_source(ifs_with_nested_returns(8), tmp_path, "f"), 0.5)
    assert large < 2.5 * small, (small, large)  # doubling each if: 16 times


@pytest.mark.parametrize("x", [-1.0, 0.05, 0.35, 3.5, 4.5, 12.0])
def test_values_and_gradients(tmp_path, x):
    agrees(load_source(ifs_with_nested_returns(5), tmp_path, "f"), x)


def assigned_where_not_returned(x):
    if x > 0.0:
        if x > 1.0:
            y = 2.0
            return y * x
        y = x * 3.0
    else:
        y = -x
    return y + 0.5


def returns_a_list(x):
    if x > 0.0:
        if x > 1.0:
            return [x, 1.0]
        x = x * 2.0
    return [x, x * x]


def returns_an_int_or_a_float(x, n):
    if x > 0.0:
        if n > 1:
            return n
        x = x * 2.0
    return x * x


def python_number_result(x, n):
    if n > 0:
        if n > 2:
            return 1.0 / (n - 3)  # Python's float: 1.0 / 0 raises
        x = x * 2.0
    return x + 1.0 / (n - 3.0)


@pytest.mark.parametrize("x", [-0.5, 0.5, 1.5])
def test_what_follows_a_nested_return_agrees_with_python(x):
    agrees(assigned_where_not_returned, x)
    assert catad.jacobian(returns_a_list)(x) == pytest.approx(
        [1.0, 0.0] if x > 1.0 else [2.0, 8.0 * x] if x > 0.0 else [1.0, 2.0 * x])
    for n in (0, 2, 5):
        agrees(returns_an_int_or_a_float, x, n)


def test_a_python_number_returned_keeps_python_s_errors():
    with pytest.raises(ZeroDivisionError):
        python_number_result(0.5, 3)
    with pytest.raises(ZeroDivisionError) as info:
        catad.grad(python_number_result)(0.5, 3)
    assert isinstance(info.value, catad.CatadError)
    agrees(python_number_result, 0.5, 5)
    agrees(python_number_result, 0.5, 1)


def returns_a_dict(x):
    if x > 0.0:
        if x > 1.0:
            return {"a": x, "b": 2.0 * x}
        x = x * 2.0
    return {"a": x * 3.0, "b": x}


@pytest.mark.parametrize("x", [-1.0, 0.5, 1.5])
def test_a_dict_returned_keeps_its_keys(x):
    """The result's structure is joined with it (a dict at every return: a dict)."""
    out, back = catad.vjp(returns_a_dict, x)
    assert out == returns_a_dict(x)
    assert back({"a": 1.0, "b": 0.0}) == (pytest.approx(1.0 if x > 1.0 else 6.0 if x > 0.0 else 3.0),)


def broadcast_in_the_test(x, m, v):
    a = np.sum(m, axis=0) * 0.5
    if np.sum(np.where(a > 0.5, np.sum(m, axis=1), x)) > 1.0 - x:
        if abs(x) > 1.0:
            return v[0] * x
    return 2.0 * x


def index_in_the_test(x, m, v):
    if v[len(m)] * x > 0.0:
        if x > 1.0:
            return v[0] * x
    return 2.0 * x


@pytest.mark.parametrize("rows", [2, 3])
def test_the_test_of_the_rewritten_if_keeps_its_checks(rows):
    """The test of an if whose nested returns early_returns rewrites was lowered once before the
    rewrite and again after it: the first lowering's checks were dropped with it, and the sizes
    they make equal were taken as proven by the second, which then checked nothing. np.where of
    (2,) and (3,) shapes, which NumPy refuses, gave v[0] * x (the loop fuzzer, seed 42760)."""
    m, v = np.ones((3, 2)), np.array([0.5, 1.0, 2.0])
    with pytest.raises(ValueError):
        broadcast_in_the_test(1.5, m, v)
    with pytest.raises(catad.CatadError) as info:
        catad.value_and_grad(broadcast_in_the_test)(1.5, m, v)
    assert isinstance(info.value, ValueError)
    agrees(broadcast_in_the_test, 1.5, np.ones((2, 2)) * 0.75, v)
    agrees(broadcast_in_the_test, 1.5, np.ones((2, 2)) * 0.25, v)
    m = np.ones((rows, 2))
    if rows < 3:
        agrees(index_in_the_test, 1.5, m, v)
    else:
        with pytest.raises(IndexError):
            index_in_the_test(1.5, m, v)
        with pytest.raises(IndexError):
            catad.value_and_grad(index_in_the_test)(1.5, m, v)
