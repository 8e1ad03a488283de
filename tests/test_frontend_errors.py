"""Front end: unsupported input raises a CatadError at the offending line, saying what is supported.

Each function marks its offending line with the comment `# ERR`.
"""
import inspect
import math

import numpy as np
import pytest

from catad import ArgumentError, CatadError, CatadTypeError, UnsupportedSyntax
from catad.frontend import compile_function
from located import marked_line

LIST = [1.0, 2.0]
V = np.array([1.0, -2.0, 3.0])
M = np.ones((2, 3))


def helper(x, y):
    return x * y


def check(fn, args, cls, *words, where=None):
    with pytest.raises(cls) as info:
        compile_function(fn, args)
    e = info.value
    assert isinstance(e, CatadError)
    assert e.loc is not None, str(e)
    assert e.loc.file == __file__
    assert e.loc.line == marked_line(where or fn), str(e)
    assert f":{e.loc.line}:" in str(e)
    assert e.construct
    for w in words:
        assert w in str(e), (w, str(e))
    return e


# ------------------------------------------------------------ statements

def uses_for(x):
    s = 0.0
    for e in (x * k for k in range(3)):  # ERR
        s += e
    return s


def uses_with(x):
    with np.errstate(all="ignore"):  # ERR
        x = x / 2.0
    return x


def uses_try(x):
    try:  # ERR
        return 1.0 / x
    except ZeroDivisionError:
        return 0.0


def uses_with(x):
    with open("f"):  # ERR
        return x


def nested_class(x):
    class A:  # ERR
        pass
    return x


def uses_global(x):
    global LIST  # ERR
    return x


def uses_assert(x):
    assert x > 0, f"{x!r} is not positive"  # ERR
    return x


class OwnError(Exception):
    pass


def uses_raise(x):
    if x < 0.0:
        raise OwnError("neg")  # ERR
    return x


def uses_del(x):
    y = x
    del y  # ERR
    return x


def uses_print(x):
    print(x)  # ERR
    return x


def mutates(v):
    v[0] = 1.0  # ERR
    return v


def mutates_aug(v):
    v[0] += 1.0  # ERR
    return v


def mutates_slice(m):
    m[0, 1:] = 0.0  # ERR
    return m


def no_return(x):  # ERR
    y = x * 2.0


def bare_return(x):
    return  # ERR


def missing_path(x):
    if x > 0.0:  # ERR
        if x > 1.0:
            return x
        y = 1.0
    else:
        y = 2.0


STATEMENT_CASES = [
    (uses_for, UnsupportedSyntax, ["generator expression"]),
    (uses_with, UnsupportedSyntax, ["with"]),
    (uses_try, UnsupportedSyntax, ["try"]),
    (uses_with, UnsupportedSyntax, ["with"]),
    (nested_class, UnsupportedSyntax, ["class"]),
    (uses_global, UnsupportedSyntax, ["global"]),
    (uses_assert, UnsupportedSyntax, ["!r", "{x} instead"]),
    (uses_raise, UnsupportedSyntax, ["OwnError", "built-in exceptions"]),
    (uses_del, UnsupportedSyntax, ["del"]),
    (uses_print, UnsupportedSyntax, ["print"]),
    (mutates, UnsupportedSyntax, ["assigning to an element", "new array"]),
    (mutates_aug, UnsupportedSyntax, ["assigning to an element"]),
    (mutates_slice, UnsupportedSyntax, ["assigning to an element"]),
    (no_return, UnsupportedSyntax, ["no return"]),
    (bare_return, UnsupportedSyntax, ["bare return", "return a value"]),
    (missing_path, UnsupportedSyntax, ["without a return"]),
]


@pytest.mark.parametrize("fn, cls, words", STATEMENT_CASES, ids=[c[0].__name__ for c in STATEMENT_CASES])
def test_unsupported_statements(fn, cls, words):
    arg = M if fn is mutates_slice else V if fn.__name__.startswith("mutates") else 2.0
    check(fn, (arg,), cls, *words)


def make_nonlocal():
    k = 1.0

    def uses_nonlocal(x):
        nonlocal k  # ERR
        return x * k
    return uses_nonlocal


def test_nonlocal():
    fn = make_nonlocal()
    check(fn, (1.0,), UnsupportedSyntax, "nonlocal")


# ------------------------------------------------------------ expressions

def uses_string(x):
    s = "abc"  # ERR
    return x


def uses_fstring(x):
    return f"{x}"  # ERR


def uses_empty_list(x):
    v = []
    return x + sum(v)  # ERR


def uses_walrus(x):
    return (y := x) + y  # ERR


def uses_starred_call(v):
    return helper(*v)  # ERR


def uses_starred_assign(t):
    a, *b = t[0]  # ERR
    return a


def uses_none(x):
    return None  # ERR


def uses_is(x):
    return x is x  # ERR


def uses_in(x):
    return x in (1.0, 2.0)  # ERR


def uses_bitop(i):
    return i & 3  # ERR


def uses_invert(i):
    return ~i  # ERR


def uses_generator(v):
    g = (x for x in v)  # ERR
    return g


def uses_ragged(v):
    return [[x for x in v if x > y] for y in v]  # ERR


def uses_two_fors(v):
    return [x * y for x in v for y in v]  # ERR


def uses_max_filter(v):
    return max(x for x in v if x > 0.0)  # ERR


def uses_step(v):
    return v[::2.0]  # ERR


def uses_ragged_display(x):
    return np.array([[x, 1.0], [2.0]])  # ERR


def uses_undefined(x):
    return x + no_such_name  # ERR


def uses_before_assign(x):
    y = z + x  # ERR
    z = 1.0
    return y


def uses_function_value(x):
    return times(np.sin, x)


def times(a, b):
    return a * b  # ERR


def uses_range_value(n):
    r = range(n)  # ERR
    return n


def uses_iter_unknown(x):
    return sum(c for c in "abc")  # ERR


def list_attribute(x):
    return [x, x].shape  # ERR


def list_negate(x):
    w = [x, x] if x > 0.0 else [x, 1.0]
    return -w  # ERR


EXPR_CASES = [
    (list_attribute, (1.0,), UnsupportedSyntax, ["Python list", ".shape"]),
    (list_negate, (1.0,), UnsupportedSyntax, ["Python list"]),
    (uses_string, (1.0,), UnsupportedSyntax, ["string"]),
    (uses_fstring, (1.0,), UnsupportedSyntax, ["string"]),
    (uses_empty_list, (1.0,), UnsupportedSyntax, ["empty list", "np.zeros"]),
    (uses_walrus, (1.0,), UnsupportedSyntax, ["(:=)"]),
    (uses_starred_call, (np.ones(2),), UnsupportedSyntax, ["*v", "tuple or a list", "Vec Float"]),
    (uses_starred_assign, ((1.0, 2.0),), CatadTypeError, ["cannot unpack a Float"]),
    (uses_none, (1.0,), UnsupportedSyntax, ["None", "constants are"]),
    (uses_is, (1.0,), UnsupportedSyntax, ["comparison", "< <= > >= == !="]),
    (uses_in, (1.0,), UnsupportedSyntax, ["comparison"]),
    (uses_bitop, (1,), UnsupportedSyntax, ["operator", "+ - * /"]),
    (uses_invert, (1.0,), UnsupportedSyntax, ["Invert", "supported: -x"]),
    (uses_generator, (V,), UnsupportedSyntax, ["generator expression", "sum, max or min"]),
    (uses_ragged, (V,), UnsupportedSyntax, ["filter", "differ in length"]),
    (uses_two_fors, (V,), UnsupportedSyntax, ["several for clauses", "nest comprehensions"]),
    (uses_max_filter, (V,), UnsupportedSyntax, ["filter", "max"]),
    (uses_step, (V,), CatadTypeError, ["slice indices must be Ints", "Float"]),
    (uses_ragged_display, (1.0,), UnsupportedSyntax, ["differ in length"]),
    (uses_undefined, (1.0,), UnsupportedSyntax, ["no_such_name", "not defined"]),
    (uses_before_assign, (1.0,), UnsupportedSyntax, ["'z'", "before it is assigned"]),
    (uses_range_value, (3,), UnsupportedSyntax, ["range", "comprehension"]),
    (uses_iter_unknown, (1.0,), UnsupportedSyntax, ["string"]),
]


@pytest.mark.parametrize("fn, args, cls, words", EXPR_CASES, ids=[c[0].__name__ for c in EXPR_CASES])
def test_unsupported_expressions(fn, args, cls, words):
    check(fn, args, cls, *words)


def test_a_function_used_as_a_value_in_the_function_it_is_passed_to():
    # np.sin may be passed to times, which is compiled for it; np.sin * b is refused there
    check(uses_function_value, (1.0,), UnsupportedSyntax, "function", "higher-order", where=times)


# ------------------------------------------------------------ functions and calls

def unknown_function(v):
    return np.linalg.qr(v)  # ERR


def unknown_builtin(x):
    return hash(x)  # ERR


def uses_int(x):
    return int(np.ones(2) * x)  # ERR


def keyword_numpy(x):
    return np.exp(x, out=None)  # ERR


def math_on_array(v):
    return math.sin(v)  # ERR


def recursive(x):
    if x < 1.0:
        return x
    return recursive(x - 1.0)  # ERR


def mutual_a(x):
    return mutual_b(x) + 1.0


def mutual_b(x):
    return mutual_a(x * 0.5)  # ERR


def calls_bad(x):
    return bad_callee(x) + 1.0


def bad_callee(x):
    with np.printoptions(precision=3):  # ERR (np.errstate is supported: catad/frontend/errstate.py)
        x = x - 1.0
    return x


def wrong_arity_call(x):
    return helper(x)  # ERR


def kwonly(x, *, y):  # ERR
    return x + y


FUNCTION_CASES = [
    (unknown_function, (V,), UnsupportedSyntax, ["linalg.qr", "not supported", "np.sin", "math.sin", "len", "np.linalg.norm"]),
    (unknown_builtin, (1.0,), UnsupportedSyntax, ["hash", "not supported", "np.exp"]),
    (uses_int, (1.0,), CatadTypeError, ["int()", "takes a number", "np.floor"]),
    (keyword_numpy, (1.0,), UnsupportedSyntax, ["keyword argument"]),
    (math_on_array, (V,), CatadTypeError, ["math.sin", "scalars", "np.sin"]),
    (recursive, (3.0,), UnsupportedSyntax, ["recursi", "recursive -> recursive"]),
    (wrong_arity_call, (1.0,), CatadTypeError, ["helper takes 2 argument"]),
    (kwonly, (1.0,), ArgumentError, ["keyword-only", "'y'", "default"]),
]


@pytest.mark.parametrize("fn, args, cls, words", FUNCTION_CASES, ids=[c[0].__name__ for c in FUNCTION_CASES])
def test_unsupported_functions(fn, args, cls, words):
    check(fn, args, cls, *words)


def test_mutual_recursion_reported_in_callee():
    check(mutual_a, (1.0,), UnsupportedSyntax, "mutual_a -> mutual_b -> mutual_a", where=mutual_b)


def test_error_in_callee_has_callee_line():
    check(calls_bad, (1.0,), UnsupportedSyntax, "with", where=bad_callee)


# ------------------------------------------------------------ types and control flow

def returns_differ(x):
    if x > 0.0:
        return x
    return x, x  # ERR


def truthy_if(x):
    if x:  # ERR
        return 1.0
    return 2.0


def truthy_and(x, y):
    return x > 0.0 and y  # ERR


def truthy_not(v):
    return not v  # ERR


def truthy_ifexp(i):
    return 1.0 if i else 2.0  # ERR


def one_branch(x):
    if x > 0.0:
        y = x * 2.0
    return y if x > 1.0 else 0.0  # ERR  (read where its check cannot go first: tests/test_maybe_bound.py)


def one_branch_elif(x):
    if x > 0.0:
        y = 1.0
    elif x < -1.0:
        y = 2.0
    z = x
    return z + sum(y for _ in range(2))  # ERR


def branch_types_differ(x):
    if x > 0.0:
        y = x
    else:
        y = (x, x)
    return y  # ERR


def ifexp_types_differ(x):
    return x if x > 0.0 else (x, x)  # ERR


def index_float(v, x):
    return v[x]  # ERR


def index_scalar(x):
    return x[0]  # ERR


def tuple_var_index(t, i):
    return t[i]  # ERR


def tuple_out_of_range(t):
    return t[2]  # ERR


def too_many_indices(v):
    return v[0, 1]  # ERR


def bool_arith(v):
    return np.sum((v > 0.0) - (v < 1.0))  # ERR (NumPy refuses - of bools; + is a logical or)


def matmul_scalar(v, x):
    return v @ x  # ERR


def chained_arrays(v):
    return np.where(0.0 < v < 1.0, v, 0.0)  # ERR


def range_float(x):
    return sum(i for i in range(x))  # ERR


def sorts_in_place(v):
    a = v  # (an array the function owns may be sorted: test_sort_in_place.py)
    a.sort()  # ERR
    return np.sum(a)


def writes_out(v):
    a = v * 1.0
    np.add(a, 1.0, out=a)  # ERR
    return np.sum(a)


def adds_to_an_enclosing_name(x):
    s = 0.0

    def add(y):
        nonlocal s  # ERR
        s += y
        return s
    add(x)
    return s


def discards_a_value(x):
    np.sin(x)  # ERR
    return x


TYPE_CASES = [
    (returns_differ, (1.0,), CatadTypeError, ["(Float, Float)", "same type"]),
    (truthy_if, (V,), UnsupportedSyntax, ["Vec Float, not a Bool", "compare explicitly"]),
    (truthy_and, (1.0, 2.0), UnsupportedSyntax, ["'and'", "compare explicitly"]),
    (truthy_not, (V,), UnsupportedSyntax, ["not", "compare explicitly"]),
    (truthy_ifexp, (V,), UnsupportedSyntax, ["conditional expression", "Vec Float, not a Bool"]),
    (one_branch, (1.0,), UnsupportedSyntax, ["'y'", "only one branch", "line "]),
    (one_branch_elif, (1.0,), UnsupportedSyntax, ["'y'", "only one branch"]),
    (branch_types_differ, (1.0,), UnsupportedSyntax, ["'y'", "give it one type"]),
    (ifexp_types_differ, (1.0,), CatadTypeError, ["conditional expression", "one type"]),
    (index_float, (V, 1.0), CatadTypeError, ["indices must be Ints"]),
    (index_scalar, (1.0,), CatadTypeError, ["cannot index a Float"]),
    (tuple_var_index, ((1.0, 2.0), 0), UnsupportedSyntax, ["tuple", "integer known while compiling"]),
    (tuple_out_of_range, ((1.0, 2.0),), CatadTypeError, ["out of range"]),
    (too_many_indices, (V,), CatadTypeError, ["2 indices", "rank 1"]),
    (bool_arith, (V,), CatadTypeError, ["boolean subtract", "^"]),
    (matmul_scalar, (V, 1.0), CatadTypeError, ["@", "use *"]),
    (chained_arrays, (V,), UnsupportedSyntax, ["chained comparisons of arrays"]),
    (range_float, (2.0,), CatadTypeError, ["range", "Float"]),
    (sorts_in_place, (V,), UnsupportedSyntax, [".sort() reorders", "np.sort(a)"]),
    (writes_out, (V,), UnsupportedSyntax, ["out= writes", "a = np.add(a, b)"]),
    (adds_to_an_enclosing_name, (1.0,), UnsupportedSyntax, ["nonlocal is not supported"]),
    (discards_a_value, (1.0,), UnsupportedSyntax, ["has no effect", "assign its value"]),
]


@pytest.mark.parametrize("fn, args, cls, words", TYPE_CASES, ids=[c[0].__name__ for c in TYPE_CASES])
def test_type_and_flow_errors(fn, args, cls, words):
    e = check(fn, args, cls, *words)
    if fn is returns_differ:
        assert e.construct == "return"
    if fn is one_branch:  # names the line of the if
        assert f"line {marked_line(fn) - 2}" in str(e)


# ------------------------------------------------------------ example arguments and the function itself

def two_params(x, y):  # ERR
    return x + y


def test_too_few_example_args():
    e = check(two_params, (1.0,), ArgumentError, "'y'")
    assert "nothing for parameter 'y'" in str(e)


def test_too_many_example_args():
    check(two_params, (1.0, 2.0, 3.0), ArgumentError, "3")


@pytest.mark.parametrize("bad, words", [([1.0, 2.0], ["list", "'x'"]), ("s", ["str", "'x'"]),
                                        (np.array(2.0), ["rank 0"]),
                                        (np.array(["a"]), ["dtype"]), ((1.0, [1.0]), ["list"])])
def test_unsupported_example_arg_types(bad, words):
    with pytest.raises(ArgumentError) as info:
        compile_function(two_params, (bad, 1.0))
    for w in words:
        assert w in str(info.value)


def test_not_a_function():
    with pytest.raises(ArgumentError):
        compile_function(math.sin, (1.0,))
    with pytest.raises(ArgumentError):
        compile_function(two_params, [1.0, 2.0])


def test_source_unavailable():
    ns = {}
    exec("def f(x):\n    return x\n", ns)
    with pytest.raises(UnsupportedSyntax) as info:
        compile_function(ns["f"], (1.0,))
    assert "source" in str(info.value)


def test_columns_are_absolute():
    e = check(uses_walrus, (1.0,), UnsupportedSyntax)
    line = inspect.getsourcelines(uses_walrus)[0][1]
    assert e.loc.col == line.index("y :=") + 1  # 1-based, in the real (indented) file
