"""What makes compiled code fast without changing its values: the source passes of
catad/backend/tidy.py (dead code, inlining arrays used once), the reverse program
specialised to the arguments grad asks for, x + x as one scaling of x's smallest
factor, the runtime's einsum order and sum_front, and malloc keeping freed memory
(catad/backend/memory.py). Speed itself is measured by benchmarks/, not here; these
tests count what speed depends on: lines, operations, bytes, page faults.
"""
import os
import platform
import re
import resource
import subprocess
import sys
import textwrap
import tracemalloc

import numpy as np
import pytest

import catad
from catad.backend import compile_program, einsum_plans, memory, runtime, tidy
from catad.differentiate import _canonical
from catad.pipeline import compiled

import backend_programs as bp
from corpus import CASES

B = "        "  # the body's indentation in generated code


def run(lines, result, **env):
    ns = {"np": np, **env}
    exec(textwrap.dedent("\n".join(lines)) + f"\n_out = {result}", ns)
    return ns["_out"]


# ---------------------------------------------------------------- inlining

def test_an_array_used_once_is_written_into_its_use():
    lines = [B + "a = (x + y)", B + "b = (a * z)", B + "c = np.exp(b)"]
    out, result = tidy.inline_single_use(lines, "c", ["x", "y", "z"])
    assert out == [B + "b = ((x + y) * z)", B + "c = np.exp(b)"]  # a call's argument: not an operand
    assert result == "c"


def test_inlining_leaves_strings_attributes_and_keywords_alone():
    # names that are also an einsum spec, an attribute and a keyword argument
    lines = [B + "ab = (x * y)", B + "shape = (x + 1.0)", B + "axis = (y - 1.0)",
             B + "t = ((ab + contract('ab,ab->a', u, v)) + (shape + x.shape[0]))",
             B + "s = (axis + x.sum(axis=0))"]
    out, result = tidy.inline_single_use(lines, "(t, s)", ["x", "y", "u", "v"])
    assert out == [B + "t = (((x * y) + contract('ab,ab->a', u, v)) + ((x + 1.0) + x.shape[0]))",
                   B + "s = ((y - 1.0) + x.sum(axis=0))"]
    rng = np.random.default_rng(0)
    env = dict(x=rng.normal(size=3), y=rng.normal(size=3), u=rng.normal(size=(3, 2)), v=rng.normal(size=(3, 2)),
               contract=runtime.contract)
    for a, b in zip(run(lines, "(t, s)", **env), run(out, result, **env)):
        np.testing.assert_array_equal(a, b)


def test_only_arithmetic_results_used_as_operands_are_inlined():
    lines = [B + "a = take_iota(x[None], 0, 1, n)",   # a view: nothing to reuse
             B + "b = (a * 2.0)",
             B + "c = np.exp(b)",                      # b is a call's argument, not an operand
             B + "d = (x + x)",
             B + "e = d[0]"]                           # d is indexed, not an operand
    out, _ = tidy.inline_single_use(lines, "(c, e)", ["x", "n"])
    assert out == lines


def test_nothing_is_carried_into_or_past_a_loop():
    lines = [B + "a = (x * 2.0)",
             B + "acc = []",
             B + "for i in range(3):",
             B + "    acc.append((a + i))",
             B + "b = (x * 3.0)",
             B + "c = (b + 1.0)",
             B + "d = (x - 1.0)",
             B + "for j in range(2):",
             B + "    acc.append(j)",
             B + "e = (d + 1.0)"]
    out, result = tidy.inline_single_use(lines, "(acc, c, e)", ["x"])
    assert B + "a = (x * 2.0)" in out          # used in a loop body: once per pass
    assert B + "c = ((x * 3.0) + 1.0)" in out  # no loop between: inlined
    assert B + "d = (x - 1.0)" in out          # a loop between its definition and its use
    assert run(lines, "(acc, c, e)", x=np.float64(2.0)) == run(out, result, x=np.float64(2.0))


def test_parameters_and_names_assigned_twice_stay():
    lines = [B + "x = np.asarray(x)", B + "a = (x * 2.0)", B + "a = (a + 1.0)", B + "b = (a * x)"]
    out, _ = tidy.inline_single_use(lines, "b", ["x"])
    assert out[:3] == lines[:3]


def test_inlining_nests_at_most_max_nesting_deep():
    lines = [B + "t0 = (x + 1.0)"] + [B + f"t{k} = (t{k - 1} * 1.5)" for k in range(1, 40)]
    out, result = tidy.inline_single_use(lines, "t39", ["x"])
    assert all(line.count("(") <= tidy.MAX_NESTING + 1 for line in out)
    assert 1 < len(out) < len(lines)
    assert run(out, result, x=np.float64(0.25)) == run(lines, "t39", x=np.float64(0.25))


EDGE_EXPRESSIONS = [
    "x", "-x", "not x", "(x * y)", "((np.sin(t) * K) + (t * K))", "np.exp(x)", "contract('ij,j->i', a, b)",
    "x[..., None]", "x.sum(axis=0)", "f(x, axis=-1)", "np.where((c > 0), a, b)", "(a if c else -b)",
    "lambda a: (a + np)", "[(a * b) for a in xs]", "(x == y)", "(x <= -y)", "'a + b' + c", "b'x' + y",
    "(_0 * x) + _1", "np.einsum('ij,jk->ik', x, (y * z))", "x[(i + 1)]", "(1e-05 * x)", "x ** -2",
    "take_iota(x[None], 0, 1, n)", "out_array(t, np.float64, (x, dr, ))", "(x +", "",
]


def _generated_expressions():
    for case in CASES:
        bound = catad.api.bind(case.fn, case.make_args(np.random.default_rng(0)))
        for which in ("primal", "reverse"):
            code = bound.pipeline.code(which).source
            for line in code.splitlines():
                _, target, expr = tidy._split(line)
                if target is not None:
                    yield expr


def test_expressions_are_classified_by_their_shape_as_by_themselves():
    """inline_single_use asks what an expression computes and which names are operands of its
    arithmetic once per shape (the expression with its variables renamed: tidy._Shapes): the
    answers are those a parse of the expression itself gives, on every line the corpus's
    programs compile to and on expressions chosen to trip a renaming (strings, keywords,
    attributes, keyword arguments, names like the renamed ones, a line that does not parse)."""
    shapes = tidy._Shapes()
    exprs = EDGE_EXPRESSIONS + list(_generated_expressions())
    assert len(exprs) > 1000
    for e in exprs:
        assert shapes.array_kind(e) == tidy._array_kind(e), e
        assert shapes.operands(e) == tidy._operands(e), e
    assert len(shapes.kinds) < len(set(exprs))  # shapes repeat: most lines were not parsed again


def test_variables_are_found_as_the_string_aware_pattern_finds_them():
    """tidy._references splits a line at its variables, a line without quotes by a quicker pattern
    (_VARIABLE): it finds the variables that the pattern skipping strings (_NAME) finds, at the
    same places, on the corpus's lines and on expressions chosen to trip it (attributes, keyword
    arguments, comparisons, numbers with exponents, underscores), and its parts make the line."""
    def by_name(e):
        return [(m.start(), m.end(), m.group(1)) for m in tidy._NAME.finditer(e) if m.group(1)]

    def places(parts):
        out, at = [], 0
        for k, part in enumerate(parts):
            if k % 2:
                out.append((at, at + len(part), part))
            at += len(part)
        return out
    extra = ["f(axis=0, keepdims=True)", "f(a == b, c != d)", "f(k =1, j= 2)", "a.b.c + d", "x1e5 + 1.5e-3 * y",
             "a_b + _c + __d", "f(x)[0].T", "(a<=b)>=c", "x@y", "f(*a, **kw)", "1.e5 + e"]
    exprs = EDGE_EXPRESSIONS + extra + list(_generated_expressions())
    plain = [e for e in exprs if "'" not in e and '"' not in e]
    assert len(plain) > 1000
    for e in exprs:
        parts = tidy._references(e)
        assert "".join(parts) == e and places(parts) == by_name(e), e


def test_a_bracket_closes_at_the_end_as_reading_bracket_by_bracket_finds():
    """tidy._closes_at_end (whether an expression's opening bracket closes at its end, so that it
    stands as an operand as it is) answers as counting the brackets one by one does, on the
    corpus's lines, each wrapped in brackets, and on every string of up to six brackets."""
    import itertools

    def by_reading(e):
        if e[:1] not in ("(", "[", "{"):
            return len(e) == 1
        depth = 0
        for k, ch in enumerate(e):
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
                if depth == 0:
                    return k == len(e) - 1
        return False
    exprs = EDGE_EXPRESSIONS + list(_generated_expressions())
    exprs += [f"({e})" for e in exprs] + [f"[{e}] * 2" for e in exprs]
    exprs += ["".join(p) for n in range(7) for p in itertools.product("([)]x", repeat=n)]
    assert sum(map(tidy._closes_at_end, exprs)) > 1000
    for e in exprs:
        assert tidy._closes_at_end(e) == by_reading(e), e


def test_dead_code_drops_what_nothing_uses():
    lines = [B + "a = (x + 1.0)", B + "b = (a * 2.0)", B + "c = (x * 3.0)"]
    assert tidy.dead_code(lines, "c") == [B + "c = (x * 3.0)"]


def test_inlining_drops_dead_code_first_reading_only_the_names_used():
    """inline_single_use takes dead code out itself, from the names it finds in each line: a
    name in an einsum spec, as an attribute or as a keyword is not a use (dead_code, which
    counts every identifier, keeps `a`, `shape` and `axis` below)."""
    lines = [B + "a = (x * y)", B + "shape = (x + 1.0)", B + "axis = (y - 1.0)", B + "b = (a + x)",
             B + "t = contract('a,a->', x, y)", B + "s = (t + x.shape[0])", B + "u = np.sum(x, axis=0)",
             B + "r = np.exp(s)"]
    out, result = tidy.inline_single_use(lines, "(r, u)", ["x", "y"])
    assert out == [B + "s = (contract('a,a->', x, y) + x.shape[0])", B + "u = np.sum(x, axis=0)",
                   B + "r = np.exp(s)"] and result == "(r, u)"
    assert len(tidy.dead_code(lines, "(r, u)")) == 7  # only b dropped
    rng = np.random.default_rng(0)
    env = dict(x=rng.normal(size=3), y=rng.normal(size=3), contract=runtime.contract)
    for a, b in zip(run(lines, "(r, u)", **env), run(out, result, **env)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("case", CASES[::3], ids=lambda c: c.name)
def test_inlined_code_computes_the_same_bits(case):
    rng = np.random.default_rng(1)
    args = case.make_args(rng)
    bound = catad.api.bind(case.fn, args)
    program = bound.core
    vals = _canonical(bound)[0] + bound.hidden  # the globals read are parameters after the user's
    plain = compile_program(program, inline=False)(*vals)
    inlined = compile_program(program, inline=True)(*vals)
    bp.assert_values_close(inlined, plain, program.main.result_type, case.name, 0.0, 0.0)


def test_inlining_lets_numpy_reuse_temporaries(tmp_path):
    f = bp.load_source(textwrap.dedent("""
        def f(v):
            return [((v[i] * 2.0 + 1.0) * v[i] - 3.0) * v[i] for i in range(len(v))]
    """), tmp_path)
    v = np.linspace(0.0, 1.0, 200_000)  # 1.6 MB: NumPy reuses temporaries of 256 KiB and more
    program = catad.to_core(f, v)
    peaks = {}
    for inline in (False, True):
        c = compile_program(program, inline=inline)
        c(v)
        tracemalloc.start()
        out = c(v)
        peaks[inline] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        np.testing.assert_allclose(out, ((v * 2.0 + 1.0) * v - 3.0) * v)
    assert peaks[False] >= 4 * v.nbytes     # every step's array lives until the return
    assert peaks[True] <= 2.2 * v.nbytes    # the result overwrites the temporaries


# ---------------------------------------------------------------- what grad computes

def test_grad_with_argnums_computes_only_those_cotangents(tmp_path):
    f = bp.load_source(textwrap.dedent("""
        import math
        def f(x, y):
            return sum(x[i] * y[i] + math.sin(y[i]) for i in range(len(x)))
    """), tmp_path)
    x, y = np.linspace(0.1, 1.0, 5), np.linspace(-1.0, 2.0, 5)
    full = compiled(f, (x, y), "reverse").source
    only_x = compiled(f, (x, y), "reverse", (0,)).source
    assert "np.cos" in full and "np.cos" not in only_x  # cos(y) is in y's cotangent only
    gx = catad.grad(f, argnums=0)(x, y)
    gxy = catad.grad(f, argnums=(0, 1))(x, y)
    np.testing.assert_array_equal(gx, y)
    np.testing.assert_array_equal(gxy[0], y)
    np.testing.assert_allclose(gxy[1], x + np.cos(y), rtol=1e-15)
    jac = catad.jacobian(f, argnums=1)(x, y)
    np.testing.assert_allclose(jac, x + np.cos(y), rtol=1e-15)


def test_x_plus_x_is_one_scaling_of_the_smallest_factor(tmp_path):
    f = bp.load_source(textwrap.dedent("""
        def f(m, c):
            return sum(sum((m[i][j] * c[i]) * (m[i][j] * c[i]) for j in range(len(m[i])))
                       for i in range(len(m)))
    """), tmp_path)
    m, c = np.arange(12.0).reshape(3, 4) / 7, np.array([0.5, -1.5, 2.0])
    source = compiled(f, (m, c), "reverse").source
    assert not re.search(r"\((\w+) \+ \1\)", source), source  # no array added to itself
    gm, gc = catad.grad(f, argnums=(0, 1))(m, c)
    np.testing.assert_allclose(gm, 2 * m * c[:, None] ** 2, rtol=1e-14)
    np.testing.assert_allclose(gc, 2 * c * (m ** 2).sum(axis=1), rtol=1e-14)


# ---------------------------------------------------------------- moved axes, masked lanes

def test_the_reverse_of_a_transposition_is_an_einsum_not_a_scatter(tmp_path):
    f = bp.load_source(textwrap.dedent("""
        import numpy as np
        def f(x, L):
            return np.sum((x @ L.T) ** 2)
    """), tmp_path)
    rng = np.random.default_rng(0)
    x, L = rng.normal(size=(7, 3)), rng.normal(size=(3, 3))
    source = compiled(f, (x, L), "reverse", (1,)).source
    # L's cotangent sums the points' outer products: one einsum, no (points, D, D) scatter
    assert "scatter(" not in source and "contract(" in source, source
    gx, gL = catad.grad(f, argnums=(0, 1))(x, L)
    np.testing.assert_allclose(gL, 2 * (x @ L.T).T @ x, rtol=1e-13)
    np.testing.assert_allclose(gx, 2 * (x @ L.T) @ L, rtol=1e-13)


def test_moved_axes_pad_a_short_build_and_respect_a_ragged_range(tmp_path):
    f = bp.load_source(textwrap.dedent("""
        def f(m, w):
            return sum(sum(m[j][i] * m[j][i] * w[i] for j in range(len(m) - 1)) for i in range(len(w)))

        def tri(m):
            return sum(sum(m[j][i] * m[j][i] for j in range(i)) for i in range(len(m)))
    """), tmp_path)
    tri = sys.modules[f.__module__].tri
    rng = np.random.default_rng(1)
    m, w, sq = rng.normal(size=(5, 4)), rng.normal(size=4), rng.normal(size=(5, 5))
    for fn, args in ((f, (m, w)), (tri, (sq,))):
        assert "scatter(" not in compiled(fn, args, "reverse").source
    expected = 2 * m * w
    expected[-1] = 0.0  # the last row is never read: the transposed rows are padded with zeros
    np.testing.assert_allclose(catad.grad(f)(m, w), expected, rtol=1e-14)
    np.testing.assert_allclose(catad.grad(tri)(sq), 2 * np.triu(sq, 1), rtol=1e-14)


@pytest.mark.parametrize("bad", [np.inf, -np.inf, np.nan])
def test_a_value_in_a_masked_lane_never_reaches_a_result(tmp_path, bad):
    """tri reads m[j][i] for j < i only; the vectorised code computes every lane of the
    padded range and masks the others, so an inf or NaN at m[2][1] (read by no lane
    inside the range) must vanish from the value and the gradient alike."""
    tri = bp.load_source(textwrap.dedent("""
        import math
        def tri(m):
            return sum(sum(math.exp(m[j][i]) * m[j][i] for j in range(i)) for i in range(len(m)))
    """), tmp_path, "tri")
    sq = np.arange(16.0).reshape(4, 4) / 8
    sq[2, 1] = bad
    upper = np.triu(np.ones((4, 4), dtype=bool), 1)
    value, grad = catad.value_and_grad(tri)(sq)
    assert value == pytest.approx(tri(sq), rel=1e-14)
    expected = np.where(upper, np.exp(np.where(upper, sq, 0.0)) * (1 + np.where(upper, sq, 0.0)), 0.0)
    np.testing.assert_allclose(grad, expected, rtol=1e-14)
    out, tangent = catad.jvp(tri, (sq,), (np.ones_like(sq),))  # the forward program too
    assert out == pytest.approx(value, rel=1e-14)
    assert tangent == pytest.approx(expected.sum(), rel=1e-14)


def _loop_contract(mask, a, b):
    out = np.zeros((mask.shape[0], a.shape[1]))
    for i in range(mask.shape[0]):
        for j in range(mask.shape[1]):
            if mask[i, j]:
                out[i] += a[j] * b[i]
    return out


@pytest.mark.parametrize("seed", range(6))
def test_contract_selects_masked_lanes_instead_of_multiplying_them(seed):
    rng = np.random.default_rng(seed)
    mask = rng.random((4, 5)) > 0.4
    a, b = rng.normal(size=(5, 3)), rng.normal(size=4)
    a[rng.integers(5), rng.integers(3)] = [np.inf, np.nan, -np.inf][seed % 3]
    with np.errstate(all="ignore"):
        expected = _loop_contract(mask, a, b)
        got = runtime.contract("ab,bc,a->ac", mask, a, b, where=(0,))
    np.testing.assert_array_equal(got, expected)  # the same sums, the same non-finite entries


# ---------------------------------------------------------------- runtime

def test_einsum_with_an_operand_holding_every_index_is_one_pass():
    assert einsum_plans.path("bc,abc,abc->bc", ((2, 3), (4, 2, 3), (4, 2, 3))) is False
    assert einsum_plans.path("abc,abc->ab", ((4, 2, 3), (4, 2, 3))) is False
    assert isinstance(einsum_plans.path("cd,bcd,abd->abc", ((3, 2), (5, 3, 2), (4, 5, 2))), list)
    rng = np.random.default_rng(2)
    c, a, b = rng.normal(size=(2, 3)), rng.normal(size=(4, 2, 3)), rng.normal(size=(4, 2, 3))
    np.testing.assert_allclose(runtime.contract("bc,abc,abc->bc", c, a, b), c * (a * b).sum(axis=0), rtol=1e-14)


@pytest.mark.parametrize("shapes", [
    [(4, 5, 6), (4, 5, 3)],             # a full vector and a shorter one
    [(4, 5, 2), (4, 5, 3)],             # none full: zeros past the longest
    [(1, 5, 6), (4, 1, 3), (4, 5, 1)],  # broadcasting batch axes
    [(4, 1, 3), (1, 5, 6)],             # one full, one shorter, each broadcast along another axis
])
def test_sum_front_is_the_sum_of_zero_padded_vectors(shapes):
    rng = np.random.default_rng(3)
    parts = [rng.normal(size=s) for s in shapes]
    expected = sum(runtime.update_vector(p, 2, 6) for p in parts)
    np.testing.assert_array_equal(runtime.sum_front(2, 6, *parts), expected)


def test_sum_front_of_a_whole_vector_and_a_part_is_their_sum_bit_for_bit():
    """The whole vector plus the part padded with -0.0: its signed zeros past the part stay."""
    rng = np.random.default_rng(4)
    whole, part = rng.normal(size=(3, 4, 6)), rng.normal(size=(3, 4, 2))
    whole[:, :, 5] = -0.0
    got = runtime.sum_front(2, 6, part, whole)
    expected = whole.copy()
    expected[:, :, :2] += part
    np.testing.assert_array_equal(got, expected)
    assert np.signbit(got[:, :, 5]).all() and got.flags.c_contiguous


def test_sum_front_lanes_past_the_end_must_be_zero():
    full, long = np.ones((2, 3)), np.zeros((2, 5))
    np.testing.assert_array_equal(runtime.sum_front(1, 3, full, long), full)
    long[:, 4] = 1.0  # a lane past the end that is not zero: an index nothing checked, a bug in catad
    with pytest.raises(AssertionError):
        runtime.sum_front(1, 3, full, long)


# ---------------------------------------------------------------- malloc

glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not glibc, reason="malloc tuning is for glibc")
def test_compiled_code_does_not_fault_in_fresh_pages_on_every_call(tmp_path):
    f = bp.load_source(textwrap.dedent("""
        import math
        def f(v):
            return sum(math.exp(v[i]) * v[i] + v[i] * v[i] for i in range(len(v)))
    """), tmp_path)
    v = np.linspace(0.0, 1.0, 1_000_000)  # 8 MB temporaries: 2,000 pages each
    g = catad.grad(f)
    g(v)
    assert memory.status().startswith("glibc")
    g(v)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        g(v)
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / 5
    assert faults < 200, f"{faults} page faults per call"


def test_malloc_tuning_can_be_turned_off():
    code = ("import numpy as np, catad\n"
            "from catad.backend import memory\n"
            "assert memory.status() == 'not yet'\n"
            "def f(x):\n    return x * x\n")
    path = os.path.join(os.path.dirname(__file__), "..")
    script = code + "print(memory.keep_freed_memory())\n"
    for value, expected in (("0", "off (CATAD_KEEP_MEMORY=0)"), ("1", "glibc" if glibc else "unchanged")):
        env = {**os.environ, "CATAD_KEEP_MEMORY": value, "PYTHONPATH": os.path.abspath(path)}
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert out.stdout.strip().startswith(expected)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_sum_front_of_a_whole_vector_and_a_short_or_long_part_is_their_sum(m):
    """A short part (added into the front of a copy of the whole one) and a long one (the whole
    one added to the part padded with -0.0) give the same sums, signed zeros, infinities and
    NaNs included, as a contiguous result; a part broadcast along a batch axis too."""
    rng = np.random.default_rng(m)
    values = [-0.0, 0.0, 1.5, -2.0, np.inf, -np.inf, np.nan]
    whole = rng.choice(values, size=(50, 4, 6))
    for part in (rng.choice(values, size=(50, 4, m)), rng.choice(values, size=(1, 4, m))):
        for parts in ((part, whole), (whole, part)):  # (in either order)
            with np.errstate(invalid="ignore"):
                got = runtime.sum_front(2, 6, *parts)
                expected = whole.copy()
                expected[:, :, :m] = part + whole[:, :, :m]
            np.testing.assert_array_equal(got, expected)
            assert (np.signbit(got) == np.signbit(expected))[~np.isnan(expected)].all() and got.flags.c_contiguous
