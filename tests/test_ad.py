"""catad/ad: CL differentiated into a core program D$f computing f's value and its full
Jacobian as a linear map (notes Fig. 6-8), checked by the reference semantics.

The Jacobian program is evaluated by the core evaluator (catad.lang.evaluate), its map made
a matrix by catad.linearmaps.to_matrix, and compared with SymPy's exact derivative and with
central differences of the CL evaluator (the reference semantics of f itself). The tupled
form is what makes reverse mode cheap: D$f returns the value with the map, so a caller
reuses a callee's value instead of computing it again, and every map used twice is one
let-bound, shared value.
"""
from __future__ import annotations

import linecache
import math

import numpy as np
import pytest
import sympy

import catad
from catad._node import walk
from catad.ad import jacobian_name, jacobian_program
from catad.lang.evaluate import Evaluator
from catad.lang.terms import Call, Program
from catad.lang.typecheck import check_program
from catad.linearmaps import apply, apply_reverse, flatten, tangent_size, unflatten
from catad.linearmaps import terms as L
from catad.linearmaps.semantics import to_matrix
from catad.tangents import ZERO


# ---------------------------------------------------------------- small programs

def shared_sin(x):
    s = math.sin(x)
    return s * math.exp(s)


def two_args(x, y):
    return x * y + math.log(y)


def calls_twice(x):
    return two_args(x, 2.0 * x) + two_args(x, x)


def branch(x, y):
    if x > y:
        return x * x - y
    return math.sqrt(y) * x


def int_power(x, n):
    return x ** n + float(n)


def dot(v, w):
    return sum(v[i] * w[i] for i in range(len(v)))


def scaled(v, x):
    return [v[i] * x * v[len(v) - 1 - i] for i in range(len(v))]


def pair(x, v):
    return (x * v[0], np.sum(v * v) + x)


def matvec(m, v):
    return [sum(m[i][j] * v[j] for j in range(len(v))) for i in range(len(m))]


RNG = np.random.default_rng(3)
CASES = [
    (shared_sin, (0.7,)),
    (two_args, (0.3, 1.7)),
    (calls_twice, (0.9,)),
    (branch, (2.0, 0.5)),
    (branch, (0.2, 1.5)),
    (int_power, (1.3, 3)),
    (dot, (RNG.normal(size=4), RNG.normal(size=4))),
    (scaled, (RNG.normal(size=5), 0.8)),
    (pair, (1.1, RNG.normal(size=3))),
    (matvec, (RNG.normal(size=(3, 2)), RNG.normal(size=2))),
]
IDS = [f"{fn.__name__}-{k}" for k, (fn, _) in enumerate(CASES)]


def source(args: tuple):
    """The source space's template: a function of one parameter takes its value, of several
    a tuple (the CL context)."""
    return args[0] if len(args) == 1 else args


def differentiate(fn, args: tuple) -> Program:
    """D$f of fn's CL program, callees differentiated as D$g (not inlined)."""
    program = jacobian_program(catad.to_cl(fn, *args))
    check_program(program)
    return program


def value_and_matrix(program: Program, args: tuple):
    value, lm = Evaluator(program).call(program.entry, args)
    return value, lm, to_matrix(lm, source(args), value)


def central_differences(fn, args: tuple, out, h: float = 1e-6) -> np.ndarray:
    """Columns of the Jacobian of fn by the CL evaluator (the reference semantics of f)."""
    cl, src = catad.to_cl(fn, *args), source(args)
    x0 = flatten(src, src)
    cols = []
    for j in range(len(x0)):
        def at(t):
            x = unflatten(x0 + t * np.eye(len(x0))[j], src)
            vals = (x,) if len(args) == 1 else tuple(a if isinstance(a, int) else b for a, b in zip(args, x))
            return flatten(catad.eval_cl(cl, *vals), out)
        cols.append((at(h) - at(-h)) / (2 * h))
    return np.array(cols).T.reshape(tangent_size(out), len(x0))


@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_the_value_is_f(fn, args):
    value, _, _ = value_and_matrix(differentiate(fn, args), args)
    expected = fn(*args)
    np.testing.assert_allclose(flatten(value, value), flatten(expected, value), rtol=1e-14)


@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_the_jacobian_against_central_differences(fn, args):
    value, _, matrix = value_and_matrix(differentiate(fn, args), args)
    np.testing.assert_allclose(matrix, central_differences(fn, args, value), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fn, args", [c for c in CASES if all(isinstance(a, float) for a in c[1])],
                         ids=[i for i, c in zip(IDS, CASES) if all(isinstance(a, float) for a in c[1])])
def test_scalar_jacobians_are_sympys(fn, args):
    """Exactly (to rounding) SymPy's derivative of the same program."""
    expr, symbols = catad.to_sympy(fn, *args)
    point = dict(zip(symbols, args))
    exact = [float(sympy.diff(expr, s).subs(point)) for s in symbols]
    _, _, matrix = value_and_matrix(differentiate(fn, args), args)
    np.testing.assert_allclose(matrix, [exact], rtol=1e-12)


@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_inlined_and_called_callees_agree(fn, args):
    """The pipeline differentiates f with its callees inlined (catad.jacobian_core); AD of
    the program with D$g per callee gives the same map."""
    _, _, called = value_and_matrix(differentiate(fn, args), args)
    _, _, inlined = value_and_matrix(catad.jacobian_core(fn, *args), args)
    np.testing.assert_allclose(called, inlined, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("fn, args", CASES, ids=IDS)
def test_the_map_and_its_transpose(fn, args):
    """apply_reverse of the same map value is its transpose: <J dx, ct> = <dx, J^T ct>."""
    value, lm, _ = value_and_matrix(differentiate(fn, args), args)
    src = source(args)
    dx = unflatten(RNG.normal(size=tangent_size(src)), src)
    ct = unflatten(RNG.normal(size=tangent_size(value)), value)
    forward = flatten(apply(lm, dx), value) @ flatten(ct, value)
    backward = flatten(dx, src) @ flatten(apply_reverse(lm, ct), src)
    assert forward == pytest.approx(backward, rel=1e-12, abs=1e-14)


def test_ints_and_bools_carry_no_tangent():
    """An Int argument contributes no column, and its tangent is the zero tangent."""
    value, lm, matrix = value_and_matrix(differentiate(int_power, (1.3, 3)), (1.3, 3))
    assert matrix.shape == (1, 1)
    assert matrix[0, 0] == pytest.approx(3 * 1.3 ** 2)
    assert apply(lm, (1.0, ZERO)) == pytest.approx(3 * 1.3 ** 2)
    assert apply_reverse(lm, 1.0)[1] is ZERO


# ---------------------------------------------------------------- the tupled form

def calls(program_or_def, fn: str) -> int:
    body = program_or_def.body
    return sum(1 for n in walk(body) if isinstance(n, Call) and n.fn == fn)


def test_a_callee_is_differentiated_once_and_its_value_reused():
    """D$calls_twice calls D$two_args once per call of two_args and never two_args itself:
    the primal value comes with the map."""
    program = differentiate(calls_twice, (0.9,))
    assert [d.name for d in program.defs] == [jacobian_name("two_args"), jacobian_name("calls_twice")]
    main = program.main
    assert calls(main, jacobian_name("two_args")) == 2
    assert calls(main, "two_args") == 0


def test_primal_work_is_not_repeated():
    """Each primitive of f's value is computed once in D$f (its partials are added, not the
    value computed again): sin(x) once although both the value and the map use it."""
    core = catad.to_core(shared_sin, 0.7).main
    jac = differentiate(shared_sin, (0.7,)).main
    assert calls(core, "sin") == calls(jac, "sin") == 1
    assert calls(jac, "cos") == 1


def test_a_partial_of_one_is_the_identity():
    """d+(x, y) = 1 |><| 1 (notes Fig. 2): a partial that is the constant 1 is the map 1, not
    S(1.0), which the optimiser would otherwise rewrite (lm-scale-one); other constant partials
    stay scales. The map is still the derivative (the matrix is checked above)."""
    def f(x, y):
        return x + y * 0.5
    jac = differentiate(f, (0.3, 1.7)).main
    maps = list(walk(jac.body))
    hcats = [m for m in maps if isinstance(m, L.HCat)]
    assert any(all(isinstance(m, L.One) for m in h.items) for h in hcats)
    scales = [m.k.value for m in maps if isinstance(m, L.Scale) and hasattr(m.k, "value")]
    assert 1.0 not in scales and 0.5 in scales


def chain(n: int):
    """x_i = (x_{i-1} + x_{i-1}) * 0.5: every value is used twice by the next."""
    filename = f"<chain {n}>"
    src = "def chain(x0):\n" + "".join(f"    x{i} = (x{i - 1} + x{i - 1}) * 0.5\n" for i in range(1, n + 1))
    src += f"    return x{n}\n"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)  # the front end reads it
    namespace: dict = {}
    exec(compile(src, filename, "exec"), namespace)  # noqa: S102
    return namespace["chain"]


def test_shared_maps_stay_shared():
    """The map of x_n has 2^n paths to x_0's but O(n) nodes: D$f is of linear size, and
    the reference semantics applies the map value in both directions without unfolding it."""
    n = 200
    fn = chain(n)
    jac = differentiate(fn, (1.0,)).main
    assert sum(1 for _ in walk(jac.body)) < 40 * n
    value, lm = Evaluator(Program((jac,), jac.name)).call(jac.name, (1.0,))
    assert value == pytest.approx(1.0)
    assert apply(lm, 1.0) == pytest.approx(1.0)
    assert apply_reverse(lm, 1.0) == pytest.approx(1.0)
