"""Front end on random programs: a CatadError or a program that agrees with Python, never a raw exception."""
import linecache
import math
import warnings

import numpy as np
from hypothesis import HealthCheck, given, settings, strategies as st

from catad import CatadError
from catad.frontend import compile_function
from catad.lang.evaluate import evaluate

SCALAR_LEAVES = ["x", "i", "1", "2", "0.5", "-1", "2.5", "v[0]", "v[i]", "v[-1]", "len(v)", "True", "n",
                 "t[0]", "m[0][1]", "m[1, i]", "math.pi"]
ARRAY_LEAVES = ["v", "w", "m", "m[0]", "m[:, 1]", "v[1:]", "[x, 1.0, 2.0]", "np.zeros(3)", "m.T"]

BIN = ["+", "-", "*", "/", "//", "%", "**", "<", "<=", "==", "!=", "and", "or", "@"]
FUN1 = ["abs", "math.sin", "np.exp", "np.tanh", "float", "-", "not ", "np.sum", "sum", "max", "np.mean", "len"]
FUN2 = ["max", "min", "np.maximum", "np.where", "np.dot", "math.atan2"]


def combine(children):
    a = children
    return st.one_of(
        st.tuples(a, st.sampled_from(BIN), a).map(lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(st.sampled_from(FUN1), a).map(lambda t: f"{t[0]}({t[1]})" if t[0][-1] != " " and t[0] != "-"
                                                else f"({t[0]}{t[1]})"),
        st.tuples(st.sampled_from(FUN2), a, a).map(
            lambda t: f"{t[0]}({t[1]} > 0.0, {t[1]}, {t[2]})" if t[0] == "np.where" else f"{t[0]}({t[1]}, {t[2]})"),
        st.tuples(a, a, a).map(lambda t: f"({t[0]} if {t[1]} else {t[2]})"),
        st.tuples(a, a).map(lambda t: f"sum({t[0]} * e for e in {t[1]})"),
        st.tuples(a, a).map(lambda t: f"[{t[0]} for k in range(2)][{t[1]}]"),
    )


EXPRS = st.recursive(st.sampled_from(SCALAR_LEAVES + ARRAY_LEAVES), combine, max_leaves=6)
STATEMENTS = st.one_of(
    EXPRS.map(lambda e: f"y = {e}"),
    st.tuples(EXPRS, EXPRS, EXPRS).map(lambda t: f"if {t[0]}:\n        y = {t[1]}\n    else:\n        y = {t[2]}"),
    st.tuples(EXPRS, EXPRS).map(lambda t: f"if {t[0]}:\n        return {t[1]}"),
    EXPRS.map(lambda e: f"y += {e}"),
    EXPRS.map(lambda e: f"a, b = {e}, y"),
)

counter = iter(range(10 ** 9))


def define(source):
    name = f"<catad-fuzz-{next(counter)}>"
    linecache.cache[name] = (len(source), None, source.splitlines(True), name)
    ns = {"np": np, "math": math}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)  # e.g. [...][2.5]: the front end reports these
        code = compile(source, name, "exec")
    exec(code, ns)
    return ns["f"]


ARGS = (0.75, 1, np.array([0.5, -1.5, 2.0]), np.array([1.0, 2.0, -0.5]),
        np.array([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0]]), 2, (1.5, 2))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(STATEMENTS, min_size=0, max_size=4), EXPRS)
def test_random_programs(statements, result):
    body = "".join(f"    {s}\n" for s in ["y = x", *statements, f"return {result}"])
    source = f"def f(x, i, v, w, m, n, t):\n{body}"
    try:
        f = define(source)
    except SyntaxError:
        return
    try:
        program = compile_function(f, ARGS)
    except CatadError:
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want = f(*ARGS)
            want_array = np.asarray(want, dtype=float)
        except Exception:
            return  # Python rejects it; the compiled program is free to do anything
        if np.iscomplexobj(np.asarray(want)):
            return
        got = np.asarray(evaluate(program, *ARGS), dtype=float)
    assert got.shape == want_array.shape, source
    np.testing.assert_allclose(got, want_array, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=source)


# ------------------------------------------------------------ well-typed programs: most compile, all must agree

def typed_grammar():
    def binop(a, ops, b):
        return st.tuples(a, st.sampled_from(ops), b).map(lambda t: f"({t[0]} {t[1]} {t[2]})")

    def call(fmt, *parts):
        return st.tuples(*parts).map(lambda t: fmt.format(*t))

    ints = st.recursive(st.sampled_from(["i", "n", "1", "2", "-1", "len(v)", "t[1]"]), lambda I: st.one_of(
        binop(I, ["+", "-", "*"], I), call("({} // 2)", I), call("({} % 3)", I), call("(-{})", I),
        call("abs({})", I), call("max({}, {})", I, I)), max_leaves=4)

    def floats_of(F):
        B = st.one_of(binop(F, ["<", "<=", ">", "!="], F), binop(ints, ["==", "<"], ints),
                      call("(0 <= {} < 3)", ints))
        B = st.one_of(B, binop(B, ["and", "or"], B), call("(not {})", B))
        A = st.recursive(
            st.sampled_from(["v", "w", "m[0]", "m[1]", "np.zeros(3)", "m.T @ m[:, 0]", "np.array([x, 1.0, 2.0])"]),
            lambda A: st.one_of(binop(A, ["+", "-", "*"], A), binop(A, ["*", "+", "/"], F), call("np.exp({})", A),
                                call("np.where({} > {}, {}, {})", A, F, A, F), call("np.maximum({}, {})", A, F),
                                call("(-{})", A), call("abs({})", A), call("[{} * e for e in {}]", F, A),
                                call("np.array([{} + k for k in range(3)])", F), call("np.square({})", A),
                                call("np.clip({}, -1.0, {})", A, F)), max_leaves=3)
        return st.one_of(
            binop(F, ["+", "-", "*", "/"], F), binop(F, ["+", "*", "**"], ints), call("(-{})", F),
            call("math.sin({})", F), call("np.tanh({})", F), call("abs({})", F), call("float({})", ints),
            call("max({}, {})", F, F), call("min({}, {})", F, ints), call("np.sum({})", A), call("sum({})", A),
            call("np.mean({})", A), call("max({})", A), call("({} if {} else {})", F, B, F),
            call("({} if {} else {})", F, B, ints), call("sum({} * e for e in {})", F, A),
            call("np.dot({}, {})", A, A), call("math.atan2({}, 1.5)", F), call("{}[{} % 3]", A, ints),
            call("sum(e for e in {} if e > {})", A, F), call("np.linalg.norm({})", A)), B, A

    leaves = st.sampled_from(["x", "y", "0.5", "2.5", "v[0]", "v[i]", "v[-1]", "m[0][1]", "m[1, i]", "math.pi",
                              "t[0]"])
    F = st.recursive(leaves, lambda F: floats_of(F)[0], max_leaves=5)
    _, B, A = floats_of(F)
    statements = st.one_of(
        F.map(lambda e: f"y = {e}"), F.map(lambda e: f"y += {e}"),
        call("if {}:\n        y = {}\n    else:\n        z = {}\n        y = z", B, F, F),
        call("if {}:\n        y = {}", B, ints),
        call("if {}:\n        return {}", B, F),
        call("a, b = {}, y\n    y = b - a", F))
    results = st.one_of(F, call("({}, {})", F, A), A)
    return statements, results


TYPED_STATEMENTS, TYPED_RESULTS = typed_grammar()


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(TYPED_STATEMENTS, min_size=0, max_size=4), TYPED_RESULTS)
def test_random_typed_programs(statements, result):
    test_random_programs.hypothesis.inner_test(statements, result)
