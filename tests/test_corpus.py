"""Run the corpus (tests/corpus.py) through the front end and through CL.

For every case and three seeds: the core program the front end compiles, run by the
reference evaluator, and the CL term, run by the CL evaluator, both give what the
plain Python function gives. The remaining tests check the corpus itself: its size,
its coverage of tags and of Python constructs, that every function runs, is finite
and smooth on its argument domain, and that the GMM objective matches ADBench.
"""
import ast
import copy
import inspect
import math

import numpy as np
import pytest

import catad
import catad.frontend
from catad.lang.evaluate import evaluate

import corpus
from corpus import CASES

SEEDS = (0, 1, 2)
RTOL, ATOL = 1e-10, 1e-12

BY_NAME = {c.name: c for c in CASES}
CASE_NAMES = [c.name for c in CASES]


# ---------------------------------------------------------------- comparing results

def _is_bool(x) -> bool:
    return isinstance(x, (bool, np.bool_))


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer)) and not _is_bool(x)


def _is_float(x) -> bool:
    return isinstance(x, (float, np.floating))


def assert_same(actual, expected, where: str = "result") -> None:
    """`actual` (from catad) equals `expected` (from Python): tuples item by item, bools and
    ints exactly and with their kind, floats and float arrays to RTOL/ATOL, arrays with their
    shape. A Python list result (a comprehension) is compared as the array it stands for."""
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple), f"{where}: expected a tuple of {len(expected)}, got {actual!r}"
        assert len(actual) == len(expected), f"{where}: expected {len(expected)} items, got {len(actual)}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_same(a, e, f"{where}[{i}]")
        return
    if _is_bool(expected):
        assert _is_bool(actual), f"{where}: expected the bool {expected!r}, got {actual!r}"
        assert bool(actual) == bool(expected), f"{where}: expected {expected!r}, got {actual!r}"
        return
    if _is_int(expected):
        assert _is_int(actual), f"{where}: expected the int {expected!r}, got {actual!r}"
        assert int(actual) == int(expected), f"{where}: expected {expected!r}, got {actual!r}"
        return
    if _is_float(expected):
        assert _is_float(actual), f"{where}: expected the float {expected!r}, got {actual!r}"
        np.testing.assert_allclose(float(actual), float(expected), rtol=RTOL, atol=ATOL, err_msg=where)
        return
    exp = np.asarray(expected)
    assert isinstance(actual, np.ndarray), f"{where}: expected an array of shape {exp.shape}, got {actual!r}"
    assert actual.shape == exp.shape, f"{where}: expected shape {exp.shape}, got {actual.shape}"
    if exp.dtype.kind in "iub":
        assert actual.dtype.kind == exp.dtype.kind, f"{where}: expected dtype {exp.dtype}, got {actual.dtype}"
        np.testing.assert_array_equal(actual, exp, err_msg=where)
    else:
        assert actual.dtype.kind == "f", f"{where}: expected a float array, got dtype {actual.dtype}"
        np.testing.assert_allclose(actual, exp, rtol=RTOL, atol=ATOL, err_msg=where)


def _args(case, seed):
    return case.make_args(np.random.default_rng(seed))


def _expected(case, args):
    return case.fn(*copy.deepcopy(args))


# ---------------------------------------------------------------- the front end and CL

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", CASE_NAMES)
def test_frontend_matches_python(name, seed):
    case = BY_NAME[name]
    args = _args(case, seed)
    expected = _expected(case, args)
    program = catad.frontend.compile_function(case.fn, copy.deepcopy(args))
    actual = evaluate(program, *copy.deepcopy(args), *catad.hidden_args(case.fn, *args))  # globals read
    assert_same(actual, expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", CASE_NAMES)
def test_cl_matches_python(name, seed):
    case = BY_NAME[name]
    args = _args(case, seed)
    expected = _expected(case, args)
    term = catad.to_cl(case.fn, *copy.deepcopy(args))
    actual = catad.eval_cl(term, *copy.deepcopy(args), *catad.hidden_args(case.fn, *args))  # globals read
    assert_same(actual, expected)


# ---------------------------------------------------------------- the corpus itself

REQUIRED_TAGS = {
    "scalar", "array", "matrix", "int", "promotion", "compare", "logic", "bool", "assign",
    "tuple", "if", "math", "maxmin", "index", "slice", "build", "sum", "broadcast", "matmul",
    "call", "const", "realistic",
}

MIN_CASES_PER_TAG = 1


def test_corpus_size():
    assert len(CASES) >= 45
    assert len(set(CASE_NAMES)) == len(CASES), "case names must be unique"


def test_corpus_covers_required_tags():
    counts = {t: sum(t in c.tags for c in CASES) for t in REQUIRED_TAGS}
    missing = sorted(t for t, n in counts.items() if n < MIN_CASES_PER_TAG)
    assert not missing, f"no case is tagged {missing}"
    assert REQUIRED_TAGS <= corpus.ALL_TAGS


def _python_features(source: str) -> set:
    """The constructs a piece of Python source uses, as strings (see REQUIRED_FEATURES)."""
    feats = set()
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp):
            feats.add("binop:" + type(node.op).__name__)
        elif isinstance(node, ast.UnaryOp):
            feats.add("unary:" + type(node.op).__name__)
        elif isinstance(node, ast.Compare):
            feats.update("compare:" + type(op).__name__ for op in node.ops)
            if len(node.ops) > 1:
                feats.add("compare:chained")
        elif isinstance(node, ast.BoolOp):
            feats.add("boolop:" + type(node.op).__name__)
        elif isinstance(node, ast.AnnAssign):
            feats.add("annassign")
        elif isinstance(node, ast.AugAssign):
            feats.add("augassign:" + type(node.op).__name__)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple):
            feats.add("unpack")
            names = [getattr(e, "id", None) for e in node.targets[0].elts]
            if isinstance(node.value, ast.Tuple):
                used = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
                if set(names) & used:
                    feats.add("swap")
            if isinstance(node.value, ast.Attribute) and node.value.attr == "shape":
                feats.add("shape_unpack")
        elif isinstance(node, ast.If):
            feats.add("if")
            if node.orelse and len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If):
                feats.add("elif")
            elif node.orelse:
                feats.add("else")
            else:
                feats.add("if_no_else")
            if any(isinstance(s, ast.Return) for s in node.body):
                feats.add("return_in_if")
        elif isinstance(node, ast.IfExp):
            feats.add("ifexp")
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            feats.add("return_tuple")
        elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
            kind = "listcomp" if isinstance(node, ast.ListComp) else "genexp"
            feats.add(kind)
            if isinstance(node.elt, ast.ListComp):
                feats.add("nested_listcomp")
            if len(node.generators) > 1:
                feats.add(kind + ":two_for")
            for g in node.generators:
                if g.ifs:
                    feats.add(kind + ":filter")
                if isinstance(g.iter, ast.Call) and getattr(g.iter.func, "id", None) == "range":
                    feats.add(f"range{len(g.iter.args)}")
                    # range(i): the bound is an earlier loop variable
                    if any(isinstance(a, ast.Name) and a.id in {t.target.id for t in node.generators
                                                                  if isinstance(t.target, ast.Name)}
                           for a in g.iter.args):
                        feats.add("triangular")
                else:
                    feats.add("iter_over_array")
        elif isinstance(node, ast.Subscript):
            s = node.slice
            if isinstance(s, ast.Slice):
                feats.add("slice")
            elif isinstance(s, ast.Tuple):
                feats.add("slice:column" if any(isinstance(e, ast.Slice) for e in s.elts) else "index2")
            elif isinstance(s, ast.UnaryOp) and isinstance(s.op, ast.USub):
                feats.add("index_negative")
            if isinstance(node.value, ast.Subscript):
                feats.add("index_chain")
        elif isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id in ("np", "math"):
                feats.add(f"{node.value.id}.{node.attr}")
            elif node.attr in ("T", "shape"):
                feats.add("attr." + node.attr)
        elif isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                feats.add(f"call:{node.func.id}:{len(node.args)}")
                feats.add(f"call:{node.func.id}")
            feats.update("kw:" + k.arg for k in node.keywords)
        elif isinstance(node, ast.List):
            feats.add("list_literal")
        elif isinstance(node, ast.FunctionDef):
            if ast.get_docstring(node):
                feats.add("docstring")
    return feats


REQUIRED_FEATURES = {
    # arithmetic, logic
    "binop:Add", "binop:Sub", "binop:Mult", "binop:Div", "binop:Pow", "binop:FloorDiv",
    "binop:Mod", "binop:MatMult", "unary:USub", "unary:Not",
    "compare:Lt", "compare:LtE", "compare:Gt", "compare:GtE", "compare:Eq", "compare:NotEq",
    "compare:chained", "boolop:And", "boolop:Or",
    # assignment, tuples
    "annassign", "augassign:Add", "augassign:Mult", "augassign:Sub", "augassign:Div",
    "unpack", "swap", "shape_unpack", "return_tuple", "docstring",
    # control
    "if", "elif", "else", "if_no_else", "return_in_if", "ifexp",
    # scalar functions
    "math.sin", "math.cos", "math.tan", "math.exp", "math.log", "math.log1p", "math.expm1",
    "math.sqrt", "math.tanh", "math.sinh", "math.cosh", "math.atan", "math.atan2", "math.fabs",
    "math.pow", "math.lgamma", "math.erf", "math.pi",
    "np.sin", "np.cos", "np.tan", "np.exp", "np.log", "np.log1p", "np.expm1", "np.sqrt",
    "np.tanh", "np.sinh", "np.cosh", "np.arctan", "np.arctan2", "np.abs",
    "call:max:2", "call:max:3", "call:max:1", "call:min:2", "call:min:3", "call:min:1",
    "call:abs", "call:float", "call:len", "call:pow", "attr.shape",
    # arrays
    "index2", "index_chain", "index_negative", "slice", "slice:column",
    "listcomp", "genexp", "nested_listcomp", "range1", "range2", "iter_over_array",
    "genexp:two_for", "triangular", "genexp:filter", "list_literal",
    "call:sum", "np.sum", "np.mean", "kw:axis", "np.array", "np.dot", "np.maximum", "np.where",
    "np.max", "np.min", "attr.T", "np.zeros",
}


def test_corpus_covers_constructs():
    feats = _python_features(inspect.getsource(corpus))
    missing = sorted(REQUIRED_FEATURES - feats)
    assert not missing, f"the corpus does not use {missing}"


def test_corpus_uses_module_constants_and_helpers():
    src = inspect.getsource(corpus)
    assert isinstance(corpus.SCALE, float) and isinstance(corpus.N_TERMS, int)
    assert isinstance(corpus.WEIGHTS, np.ndarray)
    for helper in ("square(x)", "square(v)", "polar(", "_layer(", "_weighted(v, k)", "_weighted(v, 0.5)"):
        assert helper in src


def _check_value(out, where):
    """Finite, moderate, of a type catad returns."""
    if isinstance(out, tuple):
        for i, x in enumerate(out):
            _check_value(x, f"{where}[{i}]")
        return
    if _is_bool(out) or _is_int(out):
        return
    arr = np.asarray(out)
    assert arr.dtype.kind == "f", f"{where}: unexpected output {out!r}"
    assert arr.ndim <= 2
    assert np.all(np.isfinite(arr)), f"{where}: not finite: {out!r}"
    assert np.all(np.abs(arr) < 1e6), f"{where}: too large: {out!r}"


def _check_arg(a, where):
    if isinstance(a, tuple):
        for i, x in enumerate(a):
            _check_arg(x, f"{where}[{i}]")
        return
    if isinstance(a, np.ndarray):
        assert a.ndim in (1, 2) and a.dtype in (np.float64, np.int64), f"{where}: {a.dtype} rank {a.ndim}"
        # 2 to 7, except a derived dimension like GMM's D(D-1)/2 = 1 for D = 2
        assert all(1 <= s <= 7 for s in a.shape), f"{where}: shape {a.shape}"
        return
    assert type(a) in (float, int, bool), f"{where}: {type(a).__name__} (use Python scalars)"


@pytest.mark.parametrize("name", CASE_NAMES)
def test_case_runs_in_python(name):
    """Twenty draws: arguments of the documented kinds, finite moderate outputs, stable metadata."""
    case = BY_NAME[name]
    kinds = None
    for seed in range(20):
        args = _args(case, 1000 + seed)
        for i, a in enumerate(args):
            _check_arg(a, f"argument {i}")
        assert corpus._float_positions(args) == case.differentiable_argnums
        out = _expected(case, args)
        _check_value(out, "result")
        assert isinstance(out, (float, np.floating)) == case.float_output
        kind = _kind(out)
        assert kinds is None or kind == kinds, f"output kind changes with the arguments: {kinds} vs {kind}"
        kinds = kind
        # the arguments are reproducible from the seed
        assert_same(_as_catad_value(_expected(case, _args(case, 1000 + seed))), out)


def _as_catad_value(out):
    """A Python result as catad represents it: lists (comprehensions) become arrays."""
    if isinstance(out, tuple):
        return tuple(_as_catad_value(x) for x in out)
    return np.asarray(out) if isinstance(out, list) else out


def _kind(out):
    if isinstance(out, tuple):
        return tuple(_kind(x) for x in out)
    if _is_bool(out):
        return "bool"
    if _is_int(out):
        return "int"
    return ("float", np.ndim(out))


def _perturb(args, argnum, direction, h):
    new = list(copy.deepcopy(args))
    x = new[argnum]
    new[argnum] = float(x + h * direction) if isinstance(x, float) else x + h * direction
    return tuple(new)


@pytest.mark.parametrize("name", [c.name for c in CASES if c.float_output and c.differentiable_argnums])
def test_case_is_smooth_on_its_domain(name):
    """Central differences at two step sizes agree: no kink, branch switch or tie nearby."""
    case = BY_NAME[name]
    rng = np.random.default_rng(7)
    for seed in range(5):
        args = _args(case, 2000 + seed)
        for argnum in case.differentiable_argnums:
            x = args[argnum]
            d = float(rng.uniform(-1, 1)) if isinstance(x, float) else rng.uniform(-1, 1, size=x.shape)
            est = []
            for h in (1e-3, 1e-4):
                hi = case.fn(*_perturb(args, argnum, d, h))
                lo = case.fn(*_perturb(args, argnum, d, -h))
                est.append((hi - lo) / (2 * h))
            assert math.isfinite(est[0]) and math.isfinite(est[1])
            assert abs(est[0] - est[1]) <= 1e-4 * (1.0 + abs(est[1])), (
                f"argument {argnum}, seed {2000 + seed}: central differences {est[0]} vs {est[1]}")


def test_gmm_matches_adbench():
    """corpus.gmm_objective on ADBench's gmm/test.txt (D=2, K=3, N=1) gives its documented value."""
    alphas = np.array([-0.649014, 1.181166, -0.758453])
    means = np.array([[0.092339, 0.186260], [0.345561, 0.396767], [0.538817, 0.419195]])
    icf = np.array([[0.586443, -0.851887, 0.800321],
                    [-1.509405, 0.875874, -0.242790],
                    [0.166813, -1.965419, -1.270071]])
    x = np.array([[1.175171, 2.029160]])
    value = corpus.gmm_objective(alphas, means, icf[:, :2], icf[:, 2:], x, (1.0, 0))
    assert value == pytest.approx(8.07380408004975791, rel=1e-12)


def test_polyval_matches_numpy():
    rng = np.random.default_rng(4)
    for _ in range(10):
        coeffs, x = corpus.CASE_BY_NAME["polyval"].make_args(rng)
        assert corpus.polyval(coeffs, x) == pytest.approx(np.polyval(coeffs, x), rel=1e-12, abs=1e-14)


def test_quaternion_rotation_is_a_rotation():
    """rotate_vec_by_quat preserves length and agrees with the rotation-matrix formula."""
    rng = np.random.default_rng(3)
    for _ in range(10):
        v, q = corpus.CASE_BY_NAME["rotate_vec_by_quat"].make_args(rng)
        out = np.array(corpus.rotate_vec_by_quat(v, q))
        x, y, z, w = q
        r = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                      [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                      [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])
        np.testing.assert_allclose(out, r @ v, rtol=1e-12, atol=1e-12)
        assert np.linalg.norm(out) == pytest.approx(np.linalg.norm(v), rel=1e-12)
