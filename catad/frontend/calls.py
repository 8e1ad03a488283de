"""Calls of builtins, math and NumPy functions, array methods, and user functions.

A callee is identified by the object its name evaluates to, so `import numpy as anything`
and `from math import sin` work. Handlers come first; then the registry's aliases (scalar
primitives, elementwise on arrays when the callable is a NumPy ufunc); then user functions.
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import inspect
import math
import sys
import types
from typing import Any

import numpy as np
import numpy.lib.stride_tricks  # noqa: F401  (sliding_window_view is in the catalogue)
import numpy.polynomial  # noqa: F401  (np.polynomial's modules are in the catalogue)

from ..errors import CatadTypeError
from ..lang.terms import FALSE, TRUE, Build, Const, Get, If, Term, Tuple, Var, let_chain, make_lets, may_fail
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Vec, rank, scalar_of
from ..primitives import PRIMITIVES, prim, primitive_for_callable
from . import complexes, iterators, linalg, special_calls
from .common import MIXED, and_, index_chain, is_array, is_undecided, or_, reads_undecided
from .shapes import fresh
from .subscripts import flat_display
from ..transforms import maker_kind, transformation_of
from ..trees import Tree, is_named_tuple

_LIBRARIES = {"numpy", "scipy", "sympy", "catad"}
_COMPS = (ast.ListComp, ast.GeneratorExp)
# calls that take the items of an iterator argument as it makes them (iterators.py)
# (Sets of the callables' ids, here and below: `id(obj) in` one is `any(obj is f for f in ...)`, the
# callables living as long as the module, without a generator at every call.)
_CONSUMERS = frozenset(map(id, (builtins.sum, builtins.max, builtins.min, builtins.any, builtins.all,
                                builtins.sorted)))
_ELEMENTARY = frozenset(map(id, complexes.ELEMENTARY))  # np.exp, np.log, np.sin, np.cos of a complex value


def call(lw, obj: Any, node: ast.Call, args: list) -> Term:
    """obj(*args) where args are syntax nodes or already lowered terms (a method's receiver)."""
    if _unpacks(node) and transformation_of(obj) is None and user_function(obj) is None:
        no_unpacking(lw, node, display(obj))
    if obj is builtins.dict:
        return h_dict(lw, node, args)
    if obj is builtins.list or obj is builtins.tuple:  # (their argument as written: a list stays a list)
        h = iterators.h_list if obj is builtins.list else iterators.h_tuple
        return h(lw, obj, node, args, {kw.arg: kw.value for kw in node.keywords})
    if id(obj) in _CONSUMERS:  # map(f, xs) and filter(p, xs), taken at once: generators
        args = [iterators.consumed(lw, a) if isinstance(a, ast.Call) else a for a in args]
    if len(args) == 1 and not node.keywords and id(obj) in _ELEMENTARY and \
            not isinstance(args[0], (ast.List, ast.Tuple) + _COMPS):
        first = lw.value_arg(args[0])
        if isinstance(first, complexes.Complex):  # np.exp(1j * w * t)
            return complexes.elementary(lw, obj, first, node)
        args = [first]
    if args and id(obj) in _PER_PART and not isinstance(args[0], (ast.List, ast.Tuple) + _COMPS):
        first = lw.value_arg(args[0])
        if isinstance(first, complexes.Complex):  # a linear function of a complex value: of each part
            return complexes.per_part(lw, first, lambda part: call(lw, obj, node, [part] + list(args[1:])), node)
        args = [_list_as_array(lw, args[0], obj, first)] + list(args[1:])
    kwargs = {kw.arg: kw for kw in node.keywords}
    handler = _handlers().get(id(obj)) or special_calls.lookup(obj) or _ufunc_methods().lookup(obj)
    pname = primitive_for_callable(obj) if handler is None else None  # (asked once: it reads every alias)
    if (handler is not None or pname is not None) and obj is not builtins.len:  # (len: of the list itself)
        args = _lists_as_arrays(lw, args, obj)
    if handler is not None:
        fn, allowed = handler
        for name, kw in kwargs.items():
            if name not in allowed:
                takes = f"it takes {', '.join(allowed)}" if allowed else "pass arguments by position"
                lw.fail(kw, "keyword argument", f"{display(obj)}() does not take keyword argument {name!r}; "
                                                f"{takes}")
        return fn(lw, obj, node, args, {k: kw.value for k, kw in kwargs.items()})
    if pname is not None:
        if kwargs:
            lw.fail(node.keywords[0], "keyword argument", f"{display(obj)}() takes no keyword arguments here")
        return _primitive(lw, pname, obj, node, args)
    made = transformation_of(obj)
    if made is not None:  # catad.grad(f): f's derivative program (issue 17)
        return lw.call_transformed(made, node, args)
    if maker_kind(obj) in ("jvp", "hvp"):
        return _jvp(lw, maker_kind(obj), node, args)
    if is_named_tuple(obj):
        return _named_tuple(lw, obj, node, args)
    if isinstance(obj, type) and dataclasses.is_dataclass(obj):
        return _dataclass(lw, obj, node, args)
    fn = user_function(obj)
    if fn is not None:
        return lw.call_user(fn, node, args)
    lw.fail(node, "function", f"{display(obj)} is not supported; supported functions: "
                              f"{', '.join(supported_names())}, and functions you define")


def _own_code(cls) -> bool:
    """Whether cls (a named tuple's or a dataclass's class) or a class it derives from defines how
    it is made or how its attributes are set and read (__new__, __setattr__, __getattribute__,
    __getattr__) in code of its own: the code collections.namedtuple and dataclasses make is not."""
    for c in cls.__mro__[:-1]:
        if c is tuple:
            continue
        for name in ("__new__", "__setattr__", "__getattribute__", "__getattr__"):
            code = getattr(getattr(vars(c).get(name), "__func__", vars(c).get(name)), "__code__", None)
            if code is not None and code.co_filename != "<string>":  # (a staticmethod's function: __new__)
                return True
    return False


def _named_tuple(lw, cls, node, args) -> Term:
    """A named tuple made (collections.namedtuple's or typing.NamedTuple's class called): the tuple
    of its fields' values, bound as Python binds the call, its tree holding the class and fields."""
    if _own_code(cls):
        lw.fail(node, "call", f"{cls.__name__}(...) runs a __new__ (or attribute access) of its own, which catad does "
                "not compile", hint="make it outside the function, or use the named tuple's class itself")
    fields, n = tuple(cls._fields), len(args)
    if any(isinstance(a, ast.Starred) for a in args) or any(kw.arg is None for kw in node.keywords):
        lw.fail(node, "call", f"{cls.__name__}(*...) and (**...) are not supported here; pass the fields one by one")
    try:
        bound = inspect.signature(cls).bind(*range(n), **{kw.arg: n + k for k, kw in enumerate(node.keywords)})
    except TypeError as e:  # what Python would raise
        lw.fail(node, "call", f"{cls.__name__}: {e}", CatadTypeError)
    written = list(args) + [kw.value for kw in node.keywords]
    values = [lw.str_or_expr(a) for a in written]  # (in the order written, as Python evaluates them)
    loc, items = lw.loc(node), []
    for f in fields:
        if f in bound.arguments:
            items.append(values[bound.arguments[f]])
            continue
        default = cls._field_defaults[f]
        if type(default) not in (bool, int, float):
            lw.fail(node, "call", f"{cls.__name__}'s default for {f} is a {type(default).__name__}; catad takes "
                    "defaults that are numbers here: pass the field")
        ty = {bool: Bool, int: Int, float: Float}[type(default)]
        items.append(lw.as_py(Const(default, ty, loc)))
    t = lw.tuple_of(items, loc)
    inner = lw.tree(t)
    return lw.with_tree(t, Tree("tuple", inner.items if inner is not None else tuple(lw.tree(x) for x in items),
                                fields, cls))


def _dataclass(lw, cls, node, args) -> Term:
    """A dataclass made (its class called): its fields' values, bound as its generated __init__
    binds the call (defaults that are numbers), its tree holding the class and the fields. A class
    whose __init__ is its own, or that has a __post_init__, or a field made by a default_factory or
    left out of __init__, is refused: catad does not run their code."""
    fields = dataclasses.fields(cls)
    init = getattr(cls, "__init__", None)
    own = getattr(getattr(init, "__code__", None), "co_filename", "") != "<string>"  # (dataclasses' made code)
    if own or _own_code(cls) or hasattr(cls, "__post_init__") or any(not f.init for f in fields) or \
            any(f.default_factory is not dataclasses.MISSING for f in fields):
        lw.fail(node, "call", f"{cls.__name__}(...) runs code of its own (its own __init__, a __post_init__, a "
                "default_factory or a field left out of __init__), which catad does not compile",
                hint="make it outside the function, or give the dataclass plain fields")
    if any(isinstance(a, ast.Starred) for a in args) or any(kw.arg is None for kw in node.keywords):
        lw.fail(node, "call", f"{cls.__name__}(*...) and (**...) are not supported here; pass the fields one by one")
    n = len(args)
    try:
        bound = inspect.signature(cls).bind(*range(n), **{kw.arg: n + k for k, kw in enumerate(node.keywords)})
    except TypeError as e:  # what Python would raise
        lw.fail(node, "call", f"{cls.__name__}: {e}", CatadTypeError)
    values = [lw.value(a, objects=True) for a in list(args) + [kw.value for kw in node.keywords]]
    if any(isinstance(v, complexes.Complex) for v in values):
        lw.fail(node, "call", f"{cls.__name__}(...) of a complex value is not supported")
    loc, items = lw.loc(node), []
    for f in fields:
        if f.name in bound.arguments:
            items.append(values[bound.arguments[f.name]])
            continue
        if type(f.default) not in (bool, int, float):
            lw.fail(node, "call", f"{cls.__name__}'s default for {f.name} is a {type(f.default).__name__}; catad "
                    "takes defaults that are numbers here: pass the field")
        items.append(lw.as_py(Const(f.default, {bool: Bool, int: Int, float: Float}[type(f.default)], loc)))
    t = Tuple(tuple(items), loc)
    return lw.with_tree(t, Tree("object", tuple(lw.tree(x) for x in items), tuple(f.name for f in fields), cls))


def _ufunc_methods():
    """ufunc_methods.py (np.add.reduce, np.maximum.accumulate, ...), which builds on numpy_arrays.py,
    itself importing this module (imported at the first call, kept: an import statement run at
    every call costs more than the look-up it serves)."""
    global _UFUNC_METHODS
    if _UFUNC_METHODS is None:
        from . import ufunc_methods
        _UFUNC_METHODS = ufunc_methods
    return _UFUNC_METHODS


_UFUNC_METHODS = None


def catad_function(obj) -> bool:
    """Whether obj is catad.jvp or catad.hvp, or a function a catad transformation made: what it
    returns is marked as what it is in Python (FunctionLowerer.call_transformed)."""
    return transformation_of(obj) is not None or maker_kind(obj) in ("jvp", "hvp")


def _jvp(lw, kind: str, node: ast.Call, args: list) -> Term:
    """catad.jvp(f, (x, ...), (dx, ...)) and catad.hvp(f, (x, ...), (dx, ...), argnums=k) in a
    compiled function: the forward derivative of f (of grad(f) for hvp) at the primals, a Def
    made by the pipeline (catad.transforms: the "jvp" transformation)."""
    from ..transforms import Transformation
    what = f"catad.{kind}"
    allowed = {"argnums"} if kind == "hvp" else set()
    for kw in node.keywords:
        if kw.arg not in allowed:
            lw.fail(kw, "keyword argument", f"{what}() does not take keyword argument {kw.arg!r} here")
    if len(args) != 3 or not all(isinstance(a, (ast.Tuple, ast.List)) for a in args[1:]):
        lw.fail(node, what, f"{what} takes a function, a tuple of primals and a tuple of tangents here",
                hint=f"e.g. {what}(f, (x,), (dx,))")
    fn = lw.function_operand(args[0], what)
    if kind == "hvp":
        argnums = {kw.arg: lw.static_option(kw.value, what, kw.arg) for kw in node.keywords}.get("argnums", 0)
        from ..transforms import maker
        fn = maker("grad")(fn, argnums)
    primals, tangents = args[1].elts, args[2].elts
    if len(primals) != len(tangents):
        lw.fail(node, what, f"{what}: {len(primals)} primal(s) but {len(tangents)} tangent(s); give one tangent "
                "per primal")
    call = ast.copy_location(ast.Call(func=args[0], args=list(primals), keywords=[]), node)
    ts = [lw.expr(a) for a in tangents]
    out = lw.call_transformed(Transformation("jvp", fn), call, list(primals), tangents=ts, tangent_nodes=tangents,
                              what=what)
    if kind == "jvp":
        return out
    lets, pair = let_chain(out)  # (the display of the pair, its items marked: the tangent keeps its marks)
    tangent = pair.items[1] if isinstance(pair, Tuple) else Get(1, pair, lw.loc(node))
    return lw.keep_marks(tangent, make_lets([(x.var, x.rhs, x.loc) for x in lets], tangent))


_SEQUENCES = (np.stack, np.concatenate, np.vstack, np.hstack, np.array, np.asarray, np.copy, builtins.sum)  # they
# check an empty list themselves


# arguments the handler lowers itself, and that lower to no check
_PLAIN_ARGS = (ast.Constant, ast.Name, ast.Attribute, ast.Lambda)


def _lists_as_arrays(lw, args: list, obj) -> list:
    """_list_as_array of each argument, in Python's order of evaluation: a subscript after an
    argument the handler lowers later (np.where(1.0 / len(v) > x, y, v[0])) is left to the
    handler too, so that its bounds check does not run before that argument's checks."""
    out, deferred = [], False
    for a in args:
        if deferred and isinstance(a, ast.Subscript):
            out.append(a)
            continue
        made = _list_as_array(lw, a, obj)
        deferred = deferred or made is a and isinstance(a, ast.expr) and not isinstance(a, _PLAIN_ARGS)
        out.append(made)
    return out


def _list_as_array(lw, a, obj, lowered=None):
    """A local list (a parameter's, or a list display's) of scalars or of arrays of one type,
    given to a library function, is the array NumPy makes of it (np.dot(ws, ws) of a list of
    floats), checked not to be an empty list of arrays (lists.py: nonempty_list); any other
    argument is left as it is (`lowered`: a's term, when it is lowered)."""
    base = a.value if isinstance(a, ast.Subscript) else a
    local = lw.env.get(base.id) if isinstance(base, ast.Name) else None
    if isinstance(local, Term) and base is a:
        lw.refuse_object(local, a)  # (a dataclass given to a library function: see Expressions.value)
    if isinstance(local, Term) and lw.tree(local) is not None and lw.tree(local).kind == "str":
        return a  # a str argument (a mode such as norm='ortho'): the handler reads it
    if not (isinstance(base, ast.Name) and isinstance(local, (Term, complexes.Complex))):
        # not a local value (a default None or string, a def or lambda given to scipy.optimize.brentq):
        # the handler reads it
        return a if lowered is None else lowered
    t = lw.value(a) if lowered is None else lowered
    if not isinstance(t, Term):  # a complex value: the handler takes it, or refuses it, itself
        return a
    made = list_array(lw, t, a)
    if made is not None:
        return made
    return t if any(obj is f for f in _SEQUENCES) else lw.nonempty_list(t, a, f"{display(obj)}()")


def list_array(lw, t: Term, node: ast.AST, tuples: bool = False) -> Term | None:
    """The array NumPy makes of t when t is a list (catad.trees), or with `tuples` a tuple, of
    scalars or of arrays of one type; None otherwise."""
    tree = lw.tree(t)
    if not isinstance(t.type, TupleT) or not t.type.items or (tree is None and not tuples) or tree is not None and (
            tree.kind not in ("list", "tuple") or any(x is not None for x in tree.items)):
        return None
    items = list(t.items) if isinstance(t, Tuple) else [Get(k, t, t.loc) for k in range(len(t.type.items))]
    types = {x.type for x in items}
    if not (types <= {Int, Float, Bool} or len(types) == 1 and is_array(items[0])):
        return None
    floats = any(scalar_of(x.type) == Float for x in items)
    out = lw.as_list(lw._display_build(items, floats, node))
    # its rows: the items' own marks (a display's), or an argument's tree, whose lists are trees of their own
    rows = lw.made_rows(items) if isinstance(t, Tuple) else ("array",) if is_array(items[0]) and tree is not None \
        and not lw.is_list(t) else None
    return lw.mark_rows(out, rows)


_METHODS = {"sum": np.sum, "mean": np.mean, "max": np.max, "min": np.min, "dot": np.dot}
_PER_PART = frozenset(map(id, (np.sum, np.mean, builtins.sum)))  # linear: of a complex value, the function of each part


def _unpacks(node: ast.Call) -> bool:
    """Does the call unpack *t or **d (asked first: the callee's name, for no_unpacking's message,
    is looked up only then)?"""
    return any(isinstance(a, ast.Starred) for a in node.args) or any(kw.arg is None for kw in node.keywords)


def no_unpacking(lw, node: ast.Call, name: str) -> None:
    """*t and **d are unpacked into calls of your functions only: a library function's handler
    reads its arguments as written."""
    for a in node.args:
        if isinstance(a, ast.Starred):
            lw.fail(a, "*args", f"*args in a call of {name} is not supported (only in calls of your own "
                                "functions); pass the arguments one by one")
    for kw in node.keywords:
        if kw.arg is None:
            lw.fail(kw, "**kwargs", f"**kwargs in a call of {name} is not supported (only in calls of your own "
                                    "functions); pass the keywords one by one")


def h_dict(lw, node: ast.Call, args: list) -> Term:
    """dict(d) of a dict (a copy: its keys and values), dict(k=v, ...) (string keys), or both: the
    keywords after d's keys, as Python's dict() adds them."""
    loc = lw.loc(node)
    if len(args) > 1:
        lw.fail(node, "dict", f"dict expected at most 1 argument, got {len(args)}", CatadTypeError)
    kept: dict = {}
    if args:
        d = lw.expr(args[0]) if isinstance(args[0], ast.expr) else args[0]
        tree = lw.tree(d)
        if tree is None or tree.kind != "dict":
            lw.fail(node, "dict", "dict() of a dict or of keywords is supported here (a dict's keys are known "
                    "while compiling)", hint="write the dict: {'a': a, 'b': b}")
        for k, name in enumerate(tree.keys):
            kept[name] = lw.tuple_item(d, k, loc)
    for kw in node.keywords:
        if kw.arg is None:
            lw.fail(kw, "dict", "dict(**d) is not supported here", hint="write dict(d)")
        kept[kw.arg] = lw.str_or_expr(kw.value)
    return lw.dict_of(tuple(kept), tuple(kept.values()), loc)


def _dict_method(lw, d: Term, tree, attr: str, node: ast.Call) -> Term:
    """d.copy() and d.get(key[, default]) of a dict, whose keys are known while compiling."""
    loc = lw.loc(node)
    if attr == "copy" and not node.args and not node.keywords:
        return lw.dict_of(tree.keys, tuple(lw.tuple_item(d, k, loc) for k in range(len(tree.keys))), loc)
    if attr == "get" and 1 <= len(node.args) <= 2 and not node.keywords:
        key = lw.key_of([node.args[0]], node)
        k = tree.index(key)
        if k is None and any(key == known for known in tree.keys):  # (1.0 finds the key 1 in Python)
            lw.fail(node.args[0], "dict.get", f"the key {key!r} equals one of the dict's keys of another type, "
                    "which Python's dict finds and catad does not", hint="write the key as the dict has it")
        # (the default is an argument: Python computes it whether or not the key is there)
        default = lw.str_or_expr(node.args[1]) if len(node.args) == 2 else None
        if k is not None:
            if default is not None and may_fail(default):
                lw.fail(node.args[1], "dict.get", "a default that may raise is computed by Python even where the "
                        "key is there, which catad does not do here", hint="compute it in a statement first")
            return lw.tuple_item(d, k, loc)
        if default is None:
            lw.fail(node, "dict.get", "d.get(key) of a key the dict does not have is None, which catad does not "
                    "compute with", hint="give a default: d.get(key, 0.0)")
        return default
    lw.fail(node, "method", f"method .{attr}() of a dict is not supported; supported: .get(), .copy(), and "
            ".keys(), .values(), .items() in a for loop or comprehension")


def method(lw, base: Term, attr: str, node: ast.Call) -> Term:
    no_unpacking(lw, node, f".{attr}()")
    tree = lw.tree(base)
    if tree is not None and tree.kind == "dict":
        return _dict_method(lw, base, tree, attr, node)
    if attr == "copy" and is_array(base) and not node.args and not node.keywords:
        # values are never changed in place: a copy is the value (see updates.py), but not a view
        return base.replace() if lw.is_readonly(base) else base
    if attr in ("conj", "conjugate") and is_array(base) and not lw.is_list(base) and not node.args \
            and not node.keywords and scalar_of(base.type) in (Int, Float):
        return base  # the conjugate of a real array is its value
    from . import numpy_arrays
    if attr == "item" and not lw.is_list(base) and scalar_of(base.type) in (Int, Float, Bool):
        from .idioms import item
        return lw.as_py(item(lw, base, node))  # one of Python's own numbers
    if attr == "astype" and is_array(base) and not lw.is_list(base):
        return numpy_arrays.astype(lw, base, node)
    if is_array(base) and not lw.is_list(base):
        made = numpy_arrays.method(lw, base, attr, node)
        if made is not None:
            return made
    if is_array(base) and not lw.is_list(base) and attr in _METHODS:
        return call(lw, _METHODS[attr], node, [base, *node.args])
    what = "a Python list" if lw.is_list(base) else f"a {base.type}"
    lw.fail(node, "method", f"method .{attr}() of {what} is not supported; supported array methods: "
                            + ", ".join(f".{m}()" for m in array_methods()) + " (make lists arrays with np.array)")


def user_function(obj: Any) -> Any:
    """The Python function behind obj (through decorators) when it is the user's, not a library's."""
    try:
        fn = inspect.unwrap(obj)
    except ValueError:
        return None
    if not isinstance(fn, types.FunctionType):
        return None
    top = (fn.__module__ or "").split(".")[0]
    return fn if top not in _LIBRARIES and top not in sys.stdlib_module_names else None


# Python's math functions raise ValueError outside their domain where NumPy's give nan: the
# test that x is inside (true for nan, which math passes through) and x for Python's message
_MATH_DOMAINS = {
    math.log: (lambda x: ("le", x, 0.0), 0.0), math.log2: (lambda x: ("le", x, 0.0), 0.0),
    math.log10: (lambda x: ("le", x, 0.0), 0.0), math.log1p: (lambda x: ("le", x, -1.0), -1.0),
    math.sqrt: (lambda x: ("lt", x, 0.0), -1.0), math.acosh: (lambda x: ("lt", x, 1.0), 0.0),
    math.asin: (lambda x: ("gt", ("abs", x), 1.0), 2.0), math.acos: (lambda x: ("gt", ("abs", x), 1.0), 2.0),
    math.atanh: (lambda x: ("ge", ("abs", x), 1.0), 1.0),
    # an infinite angle (NumPy's np.sin(inf) is nan)
    math.sin: (lambda x: ("eq", ("abs", x), math.inf), math.inf),
    math.cos: (lambda x: ("eq", ("abs", x), math.inf), math.inf),
    math.tan: (lambda x: ("eq", ("abs", x), math.inf), math.inf),
    # a pole: an integer x <= 0 (|x - floor(x)| + max(x, 0) is 0 there only)
    math.lgamma: (lambda x: ("le", ("add", ("abs", ("sub", x, ("floor", x))), ("max", x, 0.0)), 0.0), 0.0),
    math.gamma: (lambda x: and_(prim("le", x, Const(0.0, Float)), prim("eq", x, prim("floor", x))), 0.0),  # -inf too
}


# and OverflowError where NumPy's give inf: a finite x whose result is not
_MATH_RANGES = {math.exp: 1000.0, math.expm1: 1000.0, math.sinh: 1000.0, math.cosh: 1000.0, math.gamma: 1000.0}
_BIGGEST = Const(float(np.finfo(np.float64).max), Float)


def _math_message(fn, bad: float) -> str:
    try:
        fn(bad)
    except (ValueError, OverflowError) as e:
        return str(e)
    raise AssertionError(f"{fn.__name__}({bad}) did not raise")


def _in_range(lw, fn, pname: str, t: Term, node: ast.Call) -> Term:
    """fn(t) (a math function of a number), checked to be a float as Python's math checks it."""
    loc = lw.loc(node)

    def body(x):
        x = x if scalar_of(x.type) == Float else lw.b.scalar("to_float", [x], loc)
        return _ranged(lw, fn, x, lw.b.scalar(pname, [x], loc), loc)
    return lw.b.share(t, body, loc)


def _ranged(lw, fn, x: Term, r: Term, loc) -> Term:
    """r = fn(x) of an atom x, checked not to overflow where x is finite (Python's OverflowError)."""
    def checked(r):
        finite_x = prim("le", prim("abs", x, loc=loc), _BIGGEST, loc=loc)
        overflow = and_(prim("gt", prim("abs", r, loc=loc), _BIGGEST, loc=loc), finite_x)
        return make_lets(lw.b.check(prim("not", overflow, loc=loc), (), loc, display(fn),
                                    _math_message(fn, _MATH_RANGES[fn]), "range"), r)
    return lw.b.share(r, checked, loc)


def _outside(test, loc) -> Term:
    """The Bool term of a nested (primitive, operands...) tuple, floats as constants."""
    if isinstance(test, tuple):
        return prim(test[0], *(_outside(t, loc) for t in test[1:]), loc=loc)
    return Const(test, Float, loc) if isinstance(test, float) else test


def _in_domain(lw, fn, pname: str, t: Term, node: ast.Call) -> Term:
    """fn(t) (a math function of a number), after a check that t is in its domain."""
    loc = lw.loc(node)
    outside, bad = _MATH_DOMAINS[fn]

    def body(x):
        x = x if scalar_of(x.type) == Float else lw.b.scalar("to_float", [x], loc)
        cond = prim("not", _outside(outside(x), loc), loc=loc)
        r = lw.b.scalar(pname, [x], loc)
        return make_lets(lw.b.check(cond, (), loc, display(fn), _math_message(fn, bad), "domain"),
                         _ranged(lw, fn, x, r, loc) if fn in _MATH_RANGES else r)
    return lw.b.share(t, body, loc)


def _log_base(lw, ts: list, node: ast.Call) -> Term:
    """math.log(x, base): log(x) / log(base), as Python computes it, each log checked for its
    domain, and Python's ZeroDivisionError for base 1."""
    loc = lw.loc(node)

    def ratio(lx, lb):
        zero = lw.b.check(prim("ne", lb, Const(0.0, Float), loc=loc), (), loc, "math.log", "float division by zero",
                          "zerodiv")
        return make_lets(zero, lw.b.scalar("div", [lx, lb], loc))
    return lw.b.share_all([_in_domain(lw, math.log, "log", t, node) for t in ts], ratio, loc)


def _primitive(lw, pname: str, obj: Any, node: ast.Call, args: list) -> Term:
    loc, name = lw.loc(node), display(obj)
    ts = [lw.arg(a) for a in args]
    arity = PRIMITIVES[pname].arity
    if obj is math.hypot and len(ts) != 2 and not any(is_array(t) for t in ts):
        return _hypot(lw, ts, loc)
    if arity is not None and len(ts) != arity and not (obj is math.log and len(ts) == 2):
        lw.fail(node, name, f"{name}() takes {arity} argument(s), got {len(ts)}", CatadTypeError)
    f = lambda *xs: lw.b.scalar(pname, list(xs), loc)
    if obj is math.log and len(ts) == 2 and not any(is_array(t) for t in ts):
        return _log_base(lw, ts, node)
    if not any(is_array(t) for t in ts):
        if isinstance(obj, types.BuiltinFunctionType) and getattr(obj, "__module__", None) == "math":
            ts = [lw.b.to_float(t, loc) if t.type == Bool else t for t in ts]  # (math.tanh(True): a float)
        if isinstance(obj, types.BuiltinFunctionType) and obj in _MATH_DOMAINS:
            return _in_domain(lw, obj, pname, ts[0], node)
        if isinstance(obj, types.BuiltinFunctionType) and obj in _MATH_RANGES:
            return _in_range(lw, obj, pname, ts[0], node)
        return f(*ts)
    if isinstance(obj, np.ufunc):
        return lw.b.elementwise(f, ts, loc, name)  # NumPy ufuncs act elementwise
    try:
        return f(*ts)  # a primitive on vectors, such as argmax
    except CatadTypeError:
        lw.fail(node, name, f"{name}() takes scalars, got an array", CatadTypeError,
                "use the NumPy function (np.sin, np.exp, ...) for arrays")


def _hypot(lw, ts: list, loc) -> Term:
    """math.hypot(*coordinates) of other than two numbers (Python 3.8's): 0.0 of none, |x| of one,
    hypot(hypot(x, y), z) of more (Python's is within an ulp of it; inf where any is inf)."""
    ts = [lw.b.to_float(t, loc) for t in ts]
    if not ts:
        return Const(0.0, Float, loc)
    if len(ts) == 1:
        return prim("abs", ts[0], loc=loc)
    return functools.reduce(lambda a, b: prim("hypot", a, b, loc=loc), ts)


# ------------------------------------------------------------ handlers: (lw, obj, node, args, kwargs) -> Term

def _arity(lw, obj, node, args, lo, hi=None):
    hi = lo if hi is None else hi
    if not lo <= len(args) <= hi:
        n = str(lo) if lo == hi else f"{lo} to {hi}" if hi < 99 else f"at least {lo}"
        lw.fail(node, display(obj), f"{display(obj)}() takes {n} argument(s), got {len(args)}", CatadTypeError)


def _tuple_fold(lw, t: Term, f, loc, start: Term | None = None) -> Term:
    """Fold f over the components of a tuple-typed term, left to right (from start, if given)."""
    n = len(t.type.items)

    def go(x):
        items = x.items if isinstance(x, Tuple) else [Get(k, x, loc) for k in range(n)]
        return functools.reduce(f, items) if start is None else functools.reduce(f, items, start)
    return go(t) if isinstance(t, Tuple) else lw.b.share(t, go, loc)


def _dtype(lw, kwargs, obj):
    from .numpy_arrays import dtype_of
    return dtype_of(lw, kwargs.get("dtype"), obj, None)


def h_sum(lw, obj, node, args, kwargs):
    """sum(v, start=0) of a vector or a generator: the sum of a build (a matrix sums its rows, as
    Python's sum does); start + that sum, a tuple's items added to start one by one."""
    _arity(lw, obj, node, args, 1, 1 if "start" in kwargs else 2)
    start = kwargs.get("start", args[1] if len(args) == 2 else None)
    if start is None:
        return _sum(lw, obj, node, args[0])
    if isinstance(args[0], _COMPS):  # (Python makes the generator, then reads start, then runs it)
        s = lw.arg(start)
        return lw.binop(ast.Add(), s, _sum(lw, obj, node, args[0], _array_start(lw, s)), node)
    t = _summed(lw, args[0])
    s = lw.arg(start)
    if isinstance(t.type, TupleT):  # start + t[0] + t[1] + ..., in Python's order
        add = lambda a, b: lw.binop(ast.Add(), a, b, node)  # noqa: E731
        return _tuple_fold(lw, t, add, lw.loc(node), s) if t.type.items else s
    return lw.binop(ast.Add(), s, _sum(lw, obj, node, t, _array_start(lw, s)), node)


def h_fsum(lw, obj, node, args, kwargs):
    """math.fsum(iterable) of numbers (a generator or list comprehension, a list, a vector):
    Python's float, their sum correctly rounded (math.fsum itself, at run time); its derivative
    is sum's. Of nothing it is 0.0."""
    _arity(lw, obj, node, args, 1)
    it, loc = args[0], lw.loc(node)
    t = lw.expr(iterators.as_list_comprehension(lw, it)) if isinstance(it, _COMPS) else lw.arg(it)
    if rank(t.type) != 1 or scalar_of(t.type) not in (Float, Int, Bool):
        lw.fail(node, "math.fsum", f"math.fsum() takes numbers (a vector, a list of numbers, a generator of them), "
                f"got a {t.type}", CatadTypeError, hint="for the rows of a matrix: [math.fsum(r) for r in m]")
    return lw.as_py(prim("fsum", lw.b.to_float(t, loc), loc=loc))


def _array_start(lw, s: Term) -> bool:
    """Whether sum's start is an array (not a list): then start + a list is NumPy's sum, elementwise."""
    return is_array(s) and not lw.is_list(s) and not lw.unknown_row(s)


def _sum(lw, obj, node, arg, array_start: bool = False) -> Term:
    """sum(arg) (h_sum); arg a syntax tree, or the term of one; `array_start`: added to an array
    start (then lists are added to it elementwise, as NumPy adds an array and a list)."""
    if isinstance(arg, _COMPS):
        return lw.comprehension(arg, "sum", lists=array_start)
    t, loc = (arg if isinstance(arg, Term) else _summed(lw, arg)), lw.loc(node)
    if isinstance(t.type, TupleT) and t.type.items:
        # Python's 0 + t[0] + ...: Python's where the items are (a display of numbers too)
        add = lambda a, b: lw.binop(ast.Add(), a, b, node)  # noqa: E731
        return _tuple_fold(lw, t, add, loc, lw.as_py(Const(0, Int, loc)))
    if is_array(t):
        if rank(t.type) >= 2 and lw.is_list(t) and (lw.rows_kind(t) or (None,))[0] != "array" and not array_start:
            lw.fail(node, "sum", "sum() of a list of lists (or of a list catad does not know to hold arrays): "
                    "Python's sum adds them to its start, 0 unless given, and 0 + a list raises TypeError (a "
                    "list start concatenates them)", CatadTypeError,
                    "for a list of arrays, make it one: np.sum(np.array(xs), axis=0)")
        python = lw.has_py_items(t)  # a list of Python's numbers: 0 + l[0] + ... is Python's
        partly = lw.partly_py(t)
        t = lw.nonempty_list(t, node, "sum()", "sum() of an empty list is the int 0 in Python, not an array of "
                                               "the shape of the list's elements")
        if scalar_of(t.type) == Bool:  # 0 + True + ...: bools add as ints (NumPy's as np.int64)
            t = lw.b.numeric(t, Int, loc)
        known = None  # the length of a vector of NumPy's numbers, read where the sum is (see below)
        if rank(t.type) == 1 and not python and not partly:
            known = lw.b.shapes.infer(t)
            known = known[0].size if known and known[0] is not None else None
            if known is None:  # known at run time only (L = [e for e in v if e > 0], appends under an if,
                t = lw.hoisted(t)  # x[x > 0]): its size, bound before the statement where it can be
                known = prim("size", t, loc=loc) if type(t) is Var else lw.undecided(loc)
        out = prim("sum", t, loc=loc)  # a matrix sums its rows, as Python's sum does
        if python and not is_array(out):
            return lw.as_py(out)
        if partly and not is_array(out):  # Python's where the NumPy numbers' places hold none
            return lw.as_py_when(out, lw.undecided(loc), t.type.elem)
        # an array's elements are NumPy's numbers (a list's may be Python's), so 0 + x[0] + ...
        # is a NumPy number, and the sum of nothing Python's int 0
        if is_undecided(known):  # (where it is empty, which catad cannot read again where the sum is used)
            lw.as_py_when(out, known, Int)
        elif known is not None:
            lw.as_py_when(out, prim("eq", fresh(known, loc), Const(0, Int), loc=loc), Int, Const(0, Int))
        return out
    lw.fail(node, "sum", f"sum() takes an array, a tuple or a generator, got a {t.type}", CatadTypeError)


def h_any_all(lw, obj, node, args, kwargs):
    """any(iterable), all(iterable): Python's bool, of the truth of each item (a number's: nonzero,
    NaN too), of a generator (its filters kept), a list comprehension, a vector, or a tuple or
    list display; any() of nothing is False, all() True. A generator runs until the first item
    that decides (Python's any stops at the first true one): one whose items or filters may raise
    (1 / e of Python's numbers, v[k]) is refused, as catad computes every item."""
    _arity(lw, obj, node, args, 1)
    g, loc, name = args[0], lw.loc(node), obj.__name__
    if isinstance(g, ast.GeneratorExp):
        count = _deciding_count(lw, g, obj is builtins.all, node, name)
    else:
        t = lw.comprehension(g, None) if isinstance(g, ast.ListComp) else _summed(lw, g)
        count = _deciding_items(lw, t, obj is builtins.all, node, name)
    return lw.as_py(prim("eq" if obj is builtins.all else "gt", count, Const(0, Int, loc), loc=loc))


def _deciding_count(lw, g: ast.GeneratorExp, falsy: bool, node, name: str) -> Term:
    """How many items of generator g are true (`falsy`: false), by sum(1 if e else 0 for ...)."""
    one, zero = (ast.copy_location(ast.Constant(k), g.elt) for k in (1, 0))
    test = ast.copy_location(ast.UnaryOp(ast.Not(), g.elt), g.elt) if falsy else g.elt
    elt = ast.copy_location(ast.IfExp(test, one, zero), g.elt)
    if any(c.is_async for c in g.generators):
        lw.fail(node, "comprehension", "async comprehensions are not supported")
    st, frames = lw.b.statement, lw.b.frames
    checks = lambda: (len(st.checks) if st is not None else 0, [len(f.checks) for f in frames])  # noqa: E731
    before = checks()
    count = lw.count_items(g.generators, elt)
    if may_fail(count) or checks() != before:
        lw.fail(node, name, f"{name}() of a generator whose items or filters may raise: Python's {name} stops at "
                "the first item that decides it, and never computes the rest, where catad computes every item",
                hint=f"make a list first, {name}([... for ...]) (Python computes every item too), or use "
                     f"np.{name} of an array")
    return count


def _deciding_items(lw, t: Term, falsy: bool, node, name: str) -> Term:
    """How many items of t (a vector, or a tuple of numbers) are true (`falsy`: false)."""
    loc = lw.loc(node)

    def truth(x):
        if x.type not in (Int, Float, Bool):
            lw.fail(node, name, f"{name}() of items of type {x.type}: catad takes the truth of numbers only "
                    "(an array's is Python's ValueError, but of one element)", CatadTypeError,
                    hint=f"use np.{name}(a, axis=...) of an array")
        zero = Const({Float: 0.0, Int: 0, Bool: False}[x.type], x.type, loc)
        is_true = prim("ne", x, zero, loc=loc)
        return If(prim("not", is_true, loc=loc) if falsy else is_true, Const(1, Int, loc), Const(0, Int, loc), loc)
    if isinstance(t.type, TupleT):
        return _tuple_fold(lw, t, lambda n, x: prim("add", n, truth(x), loc=loc), loc, Const(0, Int, loc))
    if isinstance(t.type, Vec) and rank(t.type) == 1:
        return prim("sum", lw.b.elementwise(truth, [t], loc), loc=loc)
    return truth(t)  # (refused: a matrix's rows, a number)


def h_prod(lw, obj, node, args, kwargs):
    """math.prod(t) of a tuple or list of numbers of a length known while compiling (a shape, a
    display): Python's 1 * t[0] * t[1] ..., left to right, Python's where the items are."""
    _arity(lw, obj, node, args, 1)
    t, loc = _summed(lw, args[0]), lw.loc(node)
    if not isinstance(t.type, TupleT) or not all(x in (Int, Float, Bool) for x in t.type.items):
        lw.fail(node, "math.prod", "math.prod() takes a tuple or a list of numbers of a length known while "
                f"compiling here, got a {t.type}", CatadTypeError, hint="np.prod(a) multiplies an array's elements")
    mul = lambda a, b: lw.binop(ast.Mult(), a, b, node)  # noqa: E731
    return _tuple_fold(lw, t, mul, loc, lw.as_py(Const(1, Int, loc)))


def _summed(lw, arg) -> Term:
    """What sum(), max() or min() reads: a list display of numbers as the tuple of them, which
    keeps each one's kind (a vector made of them would be NumPy's), else its term."""
    if not flat_display(arg):
        return lw.arg(arg)
    items = [lw.str_or_expr(e) for e in arg.elts]
    if all(isinstance(x, Term) and x.type in (Int, Float, Bool) and lw.tree(x) is None for x in items):
        return Tuple(tuple(items), lw.loc(arg))
    return lw.list_of(items, arg)


def h_max(lw, obj, node, args, kwargs):
    """builtin max/min: of one array, tuple or generator, or of several scalars; with key=, the
    first item of the largest (smallest) key (extremes_by_key.py)."""
    _arity(lw, obj, node, args, 1, 99)
    loc, pair = lw.loc(node), obj.__name__
    if "default" in kwargs:
        lw.fail(kwargs["default"], pair, f"{pair}(..., default=...) is not supported",
                hint=f"test for an empty sequence first: {pair}(xs) if len(xs) else d")
    if "key" in kwargs and not (isinstance(kwargs["key"], ast.Constant) and kwargs["key"].value is None):
        from .extremes_by_key import extreme_by_key
        return extreme_by_key(lw, pair, node, args, kwargs["key"])
    reduce = "v" + pair
    if len(args) == 1:
        g = args[0]
        if isinstance(g, _COMPS) and (len(g.generators) > 1 or g.generators[0].ifs):
            return lw.comprehension(g, reduce)
        t = lw.comprehension(g, None) if isinstance(g, _COMPS) else _summed(lw, g)
        if isinstance(t.type, Vec) and t.type.elem in (Float, Int):
            def extreme(v):  # (Python's ValueError of an empty one: a check, kept where the value is not)
                empty = lw.b.check(prim("gt", lw.b.size(v, 0, loc), Const(0, Int), loc=loc), (), loc, f"{pair}()",
                                   f"{pair}() arg is an empty sequence")
                return make_lets(empty, _python_extreme(lw, v, reduce, pair, loc) if t.type.elem == Float
                                 else prim(reduce, v, loc=loc))
            out = lw.b.share(t, extreme, loc)
            if lw.partly_py(t) or lw.laid_out(t) is MIXED:  # the one chosen is Python's or NumPy's by the values
                return lw.as_py_when(out, lw.undecided(loc), t.type.elem)
            return lw.as_py(out) if lw.has_py_items(t) else out
        if isinstance(t.type, TupleT) and t.type.items:
            return _tuple_fold(lw, t, lambda a, b: lw.chosen_extreme(pair, a, b, loc), loc)
        lw.fail(node, pair, f"{pair}() of one argument takes a vector, a tuple or a generator, got a {t.type}",
                CatadTypeError)
    ts = [lw.arg(a) for a in args]
    if any(is_array(t) for t in ts):
        lw.fail(node, pair, f"{pair}() of several arrays is not supported", CatadTypeError,
                f"use np.{pair}imum(a, b) for elementwise {pair}ima")
    return functools.reduce(lambda a, b: lw.chosen_extreme(pair, a, b, loc), ts)


def _python_extreme(lw, v: Term, reduce: str, pair: str, loc) -> Term:
    """Python's max (min) of the floats of vector v: its element at np.argmax (np.argmin), the
    first of the largest as Python's is (of -0.0 and 0.0, the one first), unless v holds a
    NaN. Then Python's max depends on where it is (a NaN after the first element is passed
    over: nothing compares greater than a NaN), np.argmax finds the first NaN, and catad
    refuses, by a run-time test of the result (one test per result, not per element)."""
    def checked(m):
        return make_lets(lw.b.check(prim("eq", m, m, loc=loc), (), loc, f"{pair}()",
                                    f"{pair}() of floats holding a NaN: Python's {pair} passes over a NaN after the "
                                    f"first element, where catad's (NumPy's np.{pair}) gives nan; use np.{pair} (nan) "
                                    f"or np.nan{pair} (the NaNs passed over)", "unsupported"), m)
    # the first of the largest, as Python's: np.max's of -0.0 and 0.0 is the one it reads last
    first = index_chain(v, [prim("argmax" if reduce == "vmax" else "argmin", v, loc=loc)], loc)
    return lw.b.share(first, checked, loc)


def h_abs(lw, obj, node, args, kwargs):
    """abs(x), np.abs, np.fabs: elementwise absolute value (math.fabs of scalars only)."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.value_arg(args[0]), lw.loc(node)
    if isinstance(t, complexes.Complex) and obj is not math.fabs and obj is not np.fabs:
        return complexes.modulus(lw, t, loc)  # hypot(re, im)
    t = lw.arg(args[0] if isinstance(t, complexes.Complex) else t)
    if obj is builtins.abs:
        lw.refuse_lists(node, [t], "abs()")
    floats = obj is math.fabs or obj is np.fabs  # fabs always gives a Float
    if scalar_of(t.type) == Bool and obj is not math.fabs:
        return _abs_of_bools(lw, obj, t, node)
    if is_array(t) and obj is math.fabs:
        lw.fail(node, "math.fabs", "math.fabs() takes a scalar, got an array", CatadTypeError, "use np.abs")
    f = lambda x: prim("abs", lw.b.to_float(x, loc) if floats else x, loc=loc)
    if is_array(t):
        return lw.b.elementwise(f, [t], loc)
    out = f(t)
    got = lw.py_when(t) if obj is builtins.abs else None  # abs of Python's number is Python's
    return out if got is None else lw.as_py(out) if got[0] is TRUE else lw.as_py_when(out, got[0], got[1])


def _abs_of_bools(lw, obj, t: Term, node) -> Term:
    """abs() of Python's bool is its int (abs(True) is 1); of NumPy's bools (and np.abs of any) the
    bools themselves (np.abs(np.True_) is np.True_); np.fabs of bools is NumPy's float16, refused."""
    loc = lw.loc(node)
    if obj is np.fabs:
        lw.fail(node, "np.fabs", "np.fabs() of bools is NumPy's float16, which catad does not have", CatadTypeError,
                "convert them first: np.fabs(b * 1.0)")
    if obj is builtins.abs and not is_array(t):
        kind = lw.py_when(t)
        if kind is not None and kind[0] is not TRUE:
            lw.fail(node, "abs", "abs() of a bool that is Python's or NumPy's by a test: Python's gives an int, "
                    "NumPy's a bool", hint="convert it first: abs(int(b))")
        if kind is not None:
            return lw.as_py(lw.b.numeric(t, Int, loc))
    copy = lw.b.elementwise(lambda x: If(x, TRUE, FALSE, loc), [t], loc) if is_array(t) else If(t, TRUE, FALSE, loc)
    return copy if is_array(t) else lw.as_numpy(copy)


def h_float(lw, obj, node, args, kwargs):
    """float(x) of a number: an Int made a Float."""
    _arity(lw, obj, node, args, 1)
    t = lw.arg(args[0])
    if t.type not in (Int, Float, Bool):
        lw.fail(node, "float", f"float() takes a number, got a {t.type}", CatadTypeError,
                "use np.asarray(v, dtype=float) or v * 1.0 for arrays")
    return lw.b.to_float(t, lw.loc(node))


def truth(lw, t: Term, loc) -> Term:
    """The truth of a number (or each of an array's): nonzero, NaN too, as Python and NumPy take it."""
    zero = {Float: Const(0.0, Float), Bool: Const(False, Bool)}.get(scalar_of(t.type), Const(0, Int))
    f = lambda x: prim("ne", x, zero, loc=loc)
    return lw.b.elementwise(f, [t], loc) if is_array(t) else lw.b.share(t, f, loc)


def h_bool(lw, obj, node, args, kwargs):
    """bool(x) of a number or a bool: Python's bool (nonzero; bool() is False)."""
    if kwargs or len(args) > 1:
        lw.fail(node, "bool", "bool() takes at most one argument", CatadTypeError)
    if not args:
        return lw.as_py(Const(False, Bool, lw.loc(node)))
    t = lw.arg(args[0])
    if t.type not in (Int, Float, Bool):
        lw.fail(node, "bool", f"bool() of a {t.type} is not supported (of an array of more than one element NumPy "
                "raises: its truth value is ambiguous)", CatadTypeError, hint="use np.any(a) or np.all(a)")
    if t.type == Bool and lw.is_py(t):
        return t
    # a NumPy bool: a new term, marked (marks go by identity: `b = bool(c)` leaves c NumPy's)
    return lw.as_py(truth(lw, t, lw.loc(node)))


def h_len(lw, obj, node, args, kwargs):
    """len(v): an array's first axis, a tuple's or list's length (a constant)."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.value_arg(args[0]), lw.loc(node)
    if isinstance(t, complexes.Complex) and is_array(t.re):
        return complexes.length(lw, t, loc)
    t = lw.arg(args[0] if isinstance(t, complexes.Complex) else t)
    if is_array(t):
        return lw.b.length(t, loc)
    tree = lw.tree(t)
    if tree is not None and tree.kind == "str":  # a string known while compiling (held as no values)
        return lw.as_py(Const(len(tree.keys[0]), Int, loc))
    if isinstance(t.type, TupleT):
        return Const(len(t.type.items), Int, loc)
    lw.fail(node, "len", f"len() takes an array or a tuple, got a {t.type}", CatadTypeError)


def h_pow(lw, obj, node, args, kwargs):
    """pow(a, b), np.power, math.pow: the primitive pow, elementwise with broadcasting."""
    _arity(lw, obj, node, args, 2)
    a, b = (lw.arg(x) for x in args)
    if obj is math.pow:
        if is_array(a) or is_array(b):
            lw.fail(node, "math.pow", "math.pow() takes scalars, got an array", CatadTypeError,
                    "use ** or np.power")
        return _math_pow(lw, lw.b.to_float(a, lw.loc(node)), lw.b.to_float(b, lw.loc(node)), lw.loc(node))
    if obj is np.power:  # NumPy's, of any numbers (np.power(0.0, -1.0) is inf)
        a, b = lw.numpy_operand(a), lw.numpy_operand(b)
    return lw.binop(ast.Pow(), a, b, node, ufunc=obj is np.power)


def _math_pow(lw, a: Term, b: Term, loc) -> Term:
    """math.pow(a, b) of floats, with Python's errors (CPython's math_pow): of a finite a and b, a
    NaN result (a negative a to a fractional b) or an infinite one of a = 0 is ValueError, an
    infinite one of another a is OverflowError; NumPy's pow gives nan and inf there."""
    def body(x, y):
        def checked(r):
            finite = and_(prim("le", prim("abs", x, loc=loc), _BIGGEST, loc=loc),
                          prim("le", prim("abs", y, loc=loc), _BIGGEST, loc=loc))
            infinite = and_(finite, prim("gt", prim("abs", r, loc=loc), _BIGGEST, loc=loc))
            zero = prim("eq", x, Const(0.0, Float, loc), loc=loc)
            domain = or_(and_(finite, prim("ne", r, r, loc=loc)), and_(infinite, zero))
            return make_lets(lw.b.check(prim("not", domain, loc=loc), (), loc, "math.pow", "math domain error", "domain") +
                             lw.b.check(prim("not", and_(infinite, prim("not", zero, loc=loc)), loc=loc), (), loc,
                                        "math.pow", "math range error", "range"), r)
        return lw.b.share(prim("pow", x, y, loc=loc), checked, loc)
    return lw.b.share_all([a, b], body, loc)


def h_array(lw, obj, node, args, kwargs):
    """np.array, np.asarray, np.copy of a list display or an array: a vector or matrix build (dtype float or int)."""
    _arity(lw, obj, node, args, 1)
    a, loc = args[0], lw.loc(node)
    if isinstance(a, (ast.List, ast.Tuple)):
        t = lw.display(a)
    elif isinstance(a, ast.ListComp):
        t = lw.comprehension(a, None)
        if lw.is_list(t) or lw.py_items_of(t) is not None:
            t = t.replace()  # NumPy's array of the list: its items are NumPy's, not Python's numbers
    else:
        t = lw.arg(a)
        if not is_array(t):  # a list or tuple held as its values (L[0] + L[1] of lists of numbers, (a, b))
            t = list_array(lw, t, a, tuples=True) or t
        if not is_array(t):
            lw.fail(node, display(obj), f"{display(obj)}() takes a list, a list comprehension or an array, "
                                        f"got a {t.type}", CatadTypeError)
        if lw.is_list(t) or lw.is_readonly(t):
            if lw.is_list(t):
                t = lw.nonempty_list(t, node, f"{display(obj)}()")
            t = t.replace()  # an equal but distinct term: the array is not marked as a list or a view
    dtype = _dtype(lw, kwargs, obj)
    if dtype == Float:
        return lw.b.to_float(t, loc)
    if dtype in (Int, Bool) and scalar_of(t.type) != dtype:
        lw.fail(node, "dtype", f"cannot convert an array of {scalar_of(t.type)} to {dtype}", CatadTypeError)
    return t


def h_filled(lw, obj, node, args, kwargs):
    """np.zeros(n), np.ones((n, m)), ..."""
    _arity(lw, obj, node, args, 1)
    a, loc = args[0], lw.loc(node)
    if isinstance(a, (ast.Tuple, ast.List)):
        dims = [lw.expr(e) for e in a.elts]
    else:
        t = lw.arg(a)
        dims = list(t.items) if isinstance(t, Tuple) else [t]
        if isinstance(t.type, TupleT) and not isinstance(t, Tuple):
            n = len(t.type.items)
            return lw.b.share(t, lambda x: _filled(lw, obj, node, [Get(k, x, loc) for k in range(n)], kwargs), loc)
    return _filled(lw, obj, node, dims, kwargs)


def _filled(lw, obj, node, dims, kwargs):
    if not dims or any(d.type != Int for d in dims):
        lw.fail(node, display(obj), f"the shape given to {display(obj)}() must be Ints, got "
                                    f"({', '.join(str(d.type) for d in dims)})", CatadTypeError)
    one = obj is np.ones
    value = Const(1, Int) if one else Const(0, Int)
    dtype = _dtype(lw, kwargs, obj)
    if dtype == Bool:
        value = Const(one, Bool)
    elif dtype != Int:
        value = Const(float(value.value), Float)
    return lw.b.filled(dims, value, lw.loc(node), display(obj))


def h_like(lw, obj, node, args, kwargs):
    """np.zeros_like, np.ones_like, np.empty_like: a build of the constant, shaped like the argument."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    if not is_array(t) or scalar_of(t.type) not in (Int, Float):
        lw.fail(node, display(obj), f"{display(obj)}() takes an array of numbers, got a {t.type}", CatadTypeError)
    fill = 1 if obj is np.ones_like else 0
    value = Const(float(fill), Float) if scalar_of(t.type) == Float else Const(fill, Int)
    return lw.b.elementwise(lambda x: value, [t], loc)


def h_dot(lw, obj, node, args, kwargs):
    """np.dot, np.matmul, @: sums of products over the shared axis (vectors and matrices)."""
    _arity(lw, obj, node, args, 2)
    a, b = (lw.arg(x) for x in args)
    if obj is np.matmul:
        return lw.binop(ast.MatMult(), a, b, node)
    return lw.b.dot(a, b, lw.loc(node))


def h_maximum(lw, obj, node, args, kwargs):
    """np.maximum, np.minimum: elementwise max and min with broadcasting."""
    _arity(lw, obj, node, args, 2)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    name = "max" if obj is np.maximum else "min"

    def f(a, b):
        return special_calls.numpy_maximum(lw, name, a, b, loc)
    return lw.b.elementwise(f, ts, loc, display(obj)) if any(is_array(t) for t in ts) else f(*ts)


def h_where(lw, obj, node, args, kwargs):
    """np.where(c, a, b): an elementwise if with broadcasting (the branch not chosen adds nothing to the gradient);
    np.where(c) is np.nonzero(c)."""
    if len(args) == 1 and not kwargs:
        from .numpy_selections import h_nonzero  # (which imports this module)
        return h_nonzero(lw, obj, node, args, kwargs)
    _arity(lw, obj, node, args, 3)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    if scalar_of(ts[0].type) in (Int, Float):  # a number's truth: nonzero (NaN too)
        ts[0] = truth(lw, ts[0], loc)

    def f(c, a, b):
        if (a.type == Bool) != (b.type == Bool) and {a.type, b.type} < {Bool, Int, Float}:
            # NumPy's result type of a bool and a number is the number's: True is 1 (1.0)
            a, b = [lw.b.numeric(x, y.type, loc) if x.type == Bool else x for x, y in ((a, b), (b, a))]
        return lw.b.if_(c, a, b, loc, "np.where() chooses between a {a} and a {b}; give them one type")

    def chosen(*xs):
        return lw.b.elementwise(f, list(xs), loc, "np.where") if any(is_array(x) for x in xs) else f(*xs)
    # the operands that run a check are bound first, whole (as np.select's): in an if, or fused
    # into an elementwise one, their checks would run only where they are chosen
    made = lw.b.evaluated(ts, chosen, loc)
    return made if is_array(made) else lw.as_zero_d(made)  # NumPy's of numbers is an array of no axes


def _square(lw, loc):
    return lambda x: lw.b.share(x, lambda a: lw.b.arith("mul", a, a, loc), loc)


def h_square(lw, obj, node, args, kwargs):
    """np.square(x): x * x elementwise."""
    _arity(lw, obj, node, args, 1)
    t, loc = lw.arg(args[0]), lw.loc(node)
    return lw.b.elementwise(_square(lw, loc), [t], loc) if is_array(t) else _square(lw, loc)(t)


def h_outer(lw, obj, node, args, kwargs):
    """np.outer(u, v) of two vectors: the matrix of products."""
    _arity(lw, obj, node, args, 2)
    ts, loc = [lw.arg(x) for x in args], lw.loc(node)
    if any(rank(t.type) != 1 for t in ts):
        lw.fail(node, "np.outer", f"np.outer() takes two vectors, got {ts[0].type} and {ts[1].type}",
                CatadTypeError)

    def body(x, y):
        i, j = lw.b.var(Int, loc, "_i"), lw.b.var(Int, loc, "_j")
        return Build(lw.b.size(x, 0, loc), i, Build(lw.b.size(y, 0, loc), j, lw.b.arith(
            "mul", index_chain(x, [i], loc), index_chain(y, [j], loc), loc), loc), loc)
    return lw.b.share_all(ts, body, loc)




_TO_INT = {builtins.int: "trunc_int", math.trunc: "trunc_int", math.floor: "floor_int", math.ceil: "ceil_int",
           builtins.round: "round_int"}
_INT64_END = float(2 ** 63)


def h_to_int(lw, obj, node, args, kwargs):
    """int(x), round(x), math.floor/ceil/trunc(x): an Int. Of an Int or a Bool it is that Int; of
    a Float, Python's int, checked as Python checks it (NaN: ValueError; an infinity:
    OverflowError) and within int64 (where Python's int grows: a RangeError naming it)."""
    if obj is builtins.round and len(args) + len(kwargs) == 2:  # (ndigits is its one keyword)
        if rounds_to_digits(node):
            return _round_digits(lw, node, lw.arg(args[0]), lw.arg(args[1] if len(args) == 2 else kwargs["ndigits"]))
        args, kwargs = args[:1], {}  # round(x, None) is round(x)
    if len(args) != 1 or kwargs:
        lw.fail(node, display(obj), f"{display(obj)}() with more than one argument converts to a Float here, which "
                "is not supported", hint="round with np.round(x, n)")
    t, loc = lw.arg(args[0]), lw.loc(node)
    if obj is math.trunc and lw.is_zero_d(t):  # (math.floor and ceil convert it to a float first)
        lw.fail(node, "math.trunc", "math.trunc() of an array of no axes (np.where of numbers): Python raises "
                "TypeError: type numpy.ndarray doesn't define __trunc__ method", CatadTypeError,
                hint="take its number first: math.trunc(float(a)), or np.trunc(a)")
    if obj is builtins.round:
        _no_round_of_zero_d(lw, node, t)
    if t.type in (Int, Bool):
        out = t if t.type == Int else lw.b.if_(t, Const(1, Int), Const(0, Int), loc, "{a} {b}")
        return make_lets(_no_dunder(lw, obj, t, loc), out)
    if t.type != Float:
        lw.fail(node, display(obj), f"{display(obj)}() takes a number here, got a {t.type}", CatadTypeError,
                hint="convert arrays with np.floor(x), np.round(x) (Floats)")
    if isinstance(t, Const) and math.isfinite(t.value):
        return Const(_TO_INT_FN[obj](t.value), Int, loc)

    def converted(x):
        name = display(obj)
        finite = prim("lt", prim("abs", x, loc=loc), Const(math.inf, Float), loc=loc)
        binds = lw.b.check(prim("eq", x, x, loc=loc), (), loc, name, "cannot convert float NaN to integer", "domain")
        binds += lw.b.check(finite, (), loc, name, "cannot convert float infinity to integer", "range")
        binds += lw.b.check(prim("lt", prim("abs", x, loc=loc), Const(_INT64_END, Float), loc=loc), (x,), loc, name,
                            name + "() of {0} is outside the 64-bit range of catad's Ints (Python's int grows)",
                            "range")
        return make_lets(binds, prim(_TO_INT[obj], x, loc=loc))
    return lw.b.share(t, converted, loc)


def _no_round_of_zero_d(lw, node, t: Term) -> None:
    if lw.is_zero_d(t):
        lw.fail(node, "round", "round() of an array of no axes (np.where of numbers): Python raises TypeError: type "
                "numpy.ndarray doesn't define __round__ method", CatadTypeError,
                hint="take its number first: round(float(a)), or np.round(a)")


def rounds_to_digits(node: ast.Call) -> bool:
    """Whether a call of round gives its ndigits (not None): a float of the number's kind."""
    given = node.args[1:] + [kw.value for kw in node.keywords if kw.arg == "ndigits"]
    return bool(given) and not (isinstance(given[0], ast.Constant) and given[0].value is None)


def _round_digits(lw, node, t: Term, n: Term) -> Term:
    """round(x, n): of Python's float, Python's (correctly rounded to n digits: the primitive
    round_digits); of NumPy's, np.round's rint(x * 10**n) / 10**n, NumPy's (np.float64.__round__);
    of an int, the int for n >= 0."""
    loc = lw.loc(node)
    _no_round_of_zero_d(lw, node, t)
    if n.type not in (Int, Bool) or is_array(n):
        lw.fail(node, "round", f"round()'s ndigits must be an int, got a {n.type}", CatadTypeError)
    if is_array(t) or t.type not in (Int, Bool, Float):
        lw.fail(node, "round", f"round(x, n) takes a number here, got a {t.type}", CatadTypeError,
                hint="use np.round(a, n) for an array")
    if t.type in (Int, Bool):
        if not (isinstance(n, Const) and int(n.value) >= 0):
            lw.fail(node, "round", "round() of an int to digits not known to be >= 0 while compiling (Python rounds "
                    "it to tens, hundreds, ...)", hint="convert first: round(float(k), n)")
        out = t if t.type == Int else lw.b.numeric(t, Int, loc)  # (NumPy's bools have no __round__)
        return lw.keep_py(t, make_lets(_no_dunder(lw, builtins.round, t, loc), out))
    if lw.is_py(t):
        return lw.as_py(prim("round_digits", t, lw.b.to_float(n, loc), loc=loc))
    if lw.py_when(t) is not None:
        lw.fail(node, "round", "round(x, n) of a number that is Python's on some paths and NumPy's on others "
                "(Python's float rounds its exact decimal value, NumPy's computes rint(x * 10**n) / 10**n)",
                CatadTypeError, hint="make it one of them first: float(x) is Python's, np.float64(x) NumPy's")
    if not (isinstance(n, Const) and n.type == Int):
        lw.fail(node, "round", "round(x, n) of NumPy's float needs n known while compiling (NumPy's np.round)",
                hint="write round(float(x), n) for Python's rounding")
    from .numpy_elementwise import rounded  # (np.round's, which imports this module)
    return lw.as_numpy(rounded(t, int(n.value), loc))


def _no_dunder(lw, obj, t: Term, loc) -> list:
    """The check that math.trunc of an Int or a Bool (round() of a Bool) is of Python's: NumPy's
    integers and bools have no __trunc__ (nor its bools __round__), so Python raises TypeError
    where t is NumPy's (surely, or where its mark says: a count a loop adds NumPy's bools to)."""
    method = "__trunc__" if obj is math.trunc else "__round__" if obj is builtins.round and t.type == Bool else None
    # (a bool of no mark is NumPy's: Python's are marked where they are made, comparisons of its
    # numbers, bool(), any(), ...; where an Int of no mark is NumPy's is not known so well)
    if method is None or is_array(t) or not (lw.is_numpy(t) or lw.py_when(t) is not None or t.type == Bool):
        return []
    numpy_type = "numpy.int64" if t.type == Int else "numpy.bool"
    when = lw.where_py(t)
    if reads_undecided(when):  # (a check that holds where Python's does is no answer: NumPy's raises)
        raise CatadTypeError(f"{display(obj)}() of a number that is Python's or NumPy's by a test catad cannot read "
                             f"again: Python's has {method}, {numpy_type} does not (TypeError)", loc, display(obj),
                             "convert it first: int(b), or float(x)")
    return lw.b.check(when, (), loc, display(obj), f"type {numpy_type} doesn't define {method} method",
                      "unsupported", raises=TypeError)


_TO_INT_FN = {builtins.int: int, math.trunc: math.trunc, math.floor: math.floor, math.ceil: math.ceil,
              builtins.round: round}


def h_iteration_only(lw, obj, node, args, kwargs):
    """range, zip, enumerate: only as what a loop or comprehension runs over."""
    lw.fail(node, obj.__name__, f"{obj.__name__}() is only supported as the iterable of a comprehension",
            hint=f"e.g. [e for x in {obj.__name__}(...)] or sum(e for x in {obj.__name__}(...))")


def h_reversed(lw, obj, node, args, kwargs):
    """reversed: only as what a loop or comprehension runs over (loops.unreversed), where Python's
    iterator is consumed as it is made."""
    lw.fail(node, "reversed", "reversed() is only supported as what a for loop or comprehension runs over "
            "(or zip and enumerate there)", hint="slice instead: x[::-1]")


def h_print(lw, obj, node, args, kwargs):
    """print: refused (a compiled function has no side effects)."""
    lw.fail(node, "print", "print is not supported in a compiled function; print outside it")


_REFUSED = [(builtins.print, h_print), (builtins.int, h_to_int), (builtins.round, h_to_int),
            (math.floor, h_to_int), (math.ceil, h_to_int), (math.trunc, h_to_int)]


@functools.lru_cache(maxsize=None)
def _handlers() -> dict[int, tuple]:
    table = [
        ((builtins.sum,), h_sum, ("start",)), ((math.prod,), h_prod, ()), ((math.fsum,), h_fsum, ()), ((builtins.max, builtins.min), h_max, ("key", "default")),
        ((builtins.any, builtins.all), h_any_all, ()),
        ((builtins.abs, np.abs, np.absolute, math.fabs, np.fabs), h_abs, ()),
        ((builtins.float,), h_float, ()), ((builtins.bool,), h_bool, ()), ((builtins.len,), h_len, ()),
        ((builtins.pow, np.power, math.pow), h_pow, ()),
        ((np.array, np.asarray, np.copy), h_array, ("dtype",)), ((np.zeros, np.ones, np.empty), h_filled, ("dtype",)),
        ((np.zeros_like, np.ones_like, np.empty_like), h_like, ()), ((np.dot, np.matmul), h_dot, ()),
        ((np.maximum, np.minimum), h_maximum, ()), ((np.where,), h_where, ()),
        ((range, zip, enumerate), h_iteration_only, ()), ((builtins.reversed,), h_reversed, ()),
        ((np.square,), h_square, ()), ((np.outer,), h_outer, ()),
        ((np.clip,), special_calls.h_clip, ("a_min", "a_max", "min", "max")),
        ((np.add, np.subtract, np.multiply, np.divide, np.true_divide), special_calls.h_operator, ()),
        ((np.heaviside,), special_calls.h_heaviside, ()), ((np.reciprocal,), special_calls.h_reciprocal, ()),
    ] + [((o,), h, ("ndigits",) if o is builtins.round else ()) for o, h in _REFUSED] + linalg.HANDLERS
    from . import numpy_arrays  # NumPy's creation, shape, joining and reduction functions
    table += numpy_arrays.TABLE  # later rows take over an object from earlier ones
    from . import numpy_signal  # index generators, polynomials, convolutions, interpolation
    table += numpy_signal.TABLE
    from . import numpy_fft  # np.fft's transforms, np.real, np.imag, np.conj, np.angle
    table += numpy_fft.TABLE
    from . import numpy_windows  # window functions, sliding_window_view
    table += numpy_windows.TABLE
    from . import numpy_elementwise  # rounding, remainders, NaN tests and others made of primitives
    table += numpy_elementwise.TABLE
    from . import numpy_logic_reductions  # np.any, np.all, np.nansum, np.nanmax, np.ptp, np.average, ...
    table += numpy_logic_reductions.TABLE
    from . import numpy_selections  # np.flatnonzero, np.nonzero, np.argwhere, np.extract, np.delete
    table += numpy_selections.TABLE
    from . import numpy_flips  # np.flip, np.fliplr, np.flipud, np.rot90, np.atleast_1d, np.atleast_2d
    table += numpy_flips.TABLE
    from . import numpy_products  # np.append, np.logspace, np.kron, np.linalg.multi_dot, np.float64
    table += numpy_products.TABLE
    from . import numpy_statistics  # np.cov, np.corrcoef
    table += numpy_statistics.TABLE
    from . import numpy_norms  # np.linalg.norm's vector and matrix norms
    table += numpy_norms.TABLE
    from . import idioms  # divmod, sorted, np.meshgrid
    table += idioms.TABLE
    table += iterators.TABLE  # list, map, filter
    from . import lstsq  # np.linalg.lstsq, np.polyfit
    table += lstsq.HANDLERS
    from . import numpy_gradient  # np.gradient with steps or coordinates, edge_order 1 and 2
    table += numpy_gradient.TABLE
    from . import nan_statistics  # np.nanvar, np.nanstd
    table += nan_statistics.TABLE
    from . import numpy_sequences  # np.copysign, np.ediff1d, np.unwrap, np.repeat with an array of repeats
    table += numpy_sequences.TABLE
    return {id(o): (h, allowed) for objs, h, allowed in table for o in objs}


_MODULES = ((builtins, ""), (math, "math."), (np, "np."), (np.linalg, "np.linalg."), (np.fft, "np.fft."),
            (numpy.lib.stride_tricks, "np.lib.stride_tricks."),
            (np.polynomial.polynomial, "np.polynomial.polynomial."), (np.polynomial.chebyshev, "np.polynomial.chebyshev."),
            (np.polynomial.legendre, "np.polynomial.legendre."))


_ABSENT = object()


@functools.lru_cache(maxsize=None)
def _catalogue() -> tuple[dict[int, str], tuple[str, ...], dict[str, Any]]:
    """Public names in builtins, math and numpy of everything the front end can call:
    (the shortest name of each object by id, every name sorted, the object of each name)."""
    ids = set(_handlers()) - {id(o) for o, _ in _REFUSED}
    ids |= {id(a) for p in PRIMITIVES.values() for a in p.aliases}
    short: dict[int, str] = {}
    every = []
    objects: dict[str, Any] = {}
    for mod, prefix in _MODULES:
        for n in dir(mod):
            if n.startswith("_"):
                continue
            # what the module holds: not a submodule its __getattr__ would import (numpy.f2py,
            # numpy.testing: a tenth of a second of the first compile), and no deprecation warning
            o = vars(mod).get(n, _ABSENT)
            if o is _ABSENT:
                continue
            if id(o) in ids:
                every.append(prefix + n)
                objects[prefix + n] = o
                if id(o) not in short or len(prefix + n) < len(short[id(o)]):
                    short[id(o)] = prefix + n
    return short, tuple(sorted(every)), objects


def supported_names() -> list[str]:
    return sorted(_catalogue()[1] + tuple(special_calls.names()) + tuple(_ufunc_methods().names()))


def display(obj: Any) -> str:
    name = _catalogue()[0].get(id(obj)) or special_calls.library_name(obj) or _ufunc_methods().display(obj)
    if name:
        return name
    mod = getattr(obj, "__module__", None)
    base = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) or type(obj).__name__
    return f"{mod}.{base}" if mod and mod != "builtins" else base


def supported_table() -> list[tuple[str, tuple[str, ...], str]]:
    """(name, keyword arguments taken, what it is) for every function the front end can call,
    from the tables it dispatches on (the handlers here, numpy_arrays.TABLE, special_calls'
    LIBRARY_HANDLERS, the primitive registry's aliases): what docs/supported.rst shows."""
    handlers, by_name = _handlers(), _catalogue()[2]
    rows = []
    for name in supported_names():
        if name in special_calls.LIBRARY_HANDLERS:
            h, allowed = special_calls.LIBRARY_HANDLERS[name]
            rows.append((name, tuple(allowed), _summary(h)))
            continue
        if name in _ufunc_methods().names():  # np.add.reduce: by its ufunc and method name
            u, m = name.split(".")[1:]
            h, allowed = _ufunc_methods().lookup(getattr(getattr(np, u), m))
            rows.append((name, tuple(allowed), _summary(h)))
            continue
        obj = by_name.get(name)
        if obj is not None and id(obj) in handlers:
            h, allowed = handlers[id(obj)]
            rows.append((name, tuple(allowed), _summary(h)))
            continue
        p = next((p for p in PRIMITIVES.values()
                  if any(a is obj for a in p.aliases) or name in p.library_aliases), None)
        what = f"primitive ``{p.name}``" + (f": {p.doc}" if p.doc else "") if p is not None else ""
        rows.append((name, (), what))
    return rows


def _summary(h) -> str:
    """The first line of a handler's docstring (what it lowers to), or ''."""
    doc = (getattr(h, "__doc__", None) or "").strip()
    return doc.splitlines()[0] if doc else ""


def array_methods() -> list[str]:
    """The array methods the front end compiles (see method)."""
    from . import numpy_arrays
    return sorted(set(_METHODS) | set(numpy_arrays.METHODS) | {"astype", "copy", "conj", "conjugate", "item"})
