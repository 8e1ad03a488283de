"""What a name in the function denotes: a local's entry in env, or for a free name the value
found in the function's closure, globals or builtins, and with attributes (np.pi, a module's
function) the object reached. Every resolution is recorded in the program's read log
(reads.py), so each call can check that what was compiled in still holds: ints, bools and
floats reached through an attribute become constants, other floats and arrays become hidden
parameters of the Def, and modules and functions are compared by identity.

``FreeNames`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
import builtins
import types
from typing import Any

import numpy as np

from ..errors import ArgumentError, Loc
from ..lang.terms import Const, Term, Tuple, Var
from ..lang.types import Bool, Float, Int, Type, type_of_value, units_of_value
from .complexes import Complex
from .reads import Path
from ..trees import NONE, Tree, string, tree_of
from .lists import ListState
from .statements import MaybeBound, Unbound
from .subscripts import DictKey

NOT_STATIC = object()
_MISSING = object()
_VALUES = (bool, int, float, np.number, np.bool_, np.ndarray, tuple, list, dict, str)  # what constant() compiles


class Static:
    """What a name is bound to when it is not a value catad computes with: a bound method's
    self, or a default value that is a function or None; `path` says where each call finds it
    again (reads.py). Its attributes are read like a global's (self.W), and it can be called
    (a default np.tanh) or compared with `is None`."""

    def __init__(self, obj: Any, path: Path):
        self.obj, self.path = obj, path


class FreeNames:
    """Names to terms. Uses the lowerer's env, src, fn (the Python function, for its closure
    and globals), program (its read log), names, b (the shapes of hidden parameters) and hidden
    (the hidden parameters made so far)."""

    def lookup(self, name: str, node: ast.AST) -> Term:
        v = self.env.get(name, _MISSING)
        if isinstance(v, (Term, Complex)):
            return v
        if isinstance(v, MaybeBound):
            return self.read_maybe_bound(name, v, node)
        if isinstance(v, Unbound):
            self.fail(node, "variable", v.message)
        if isinstance(v, ListState):
            return self.list_value(name, v, node)  # lists.py
        if isinstance(v, DictKey):
            self.fail(node, "dict key", f"{name!r} is a key of a dict (a string while compiling); catad uses "
                      f"such a key only to read its dict, e.g. d[{name}]")
        if isinstance(v, Static):
            return self.constant(v.obj, v.path, node, name)
        if v is not _MISSING:  # a function defined in this one (functions.py)
            self.fail(node, "function value", f"{name!r} is a function; functions can be called, and passed to "
                      "functions of yours, but not used as values (other higher-order uses are not supported)",
                      hint=f"call it: {name}(...)")
        if name in self.src.local_names:
            self.fail(node, "variable", f"variable {name!r} is used before it is assigned")
        if self.parent is not None:  # a nested def or lambda: what the enclosing function sees now
            outer = self.parent.env.get(name)
            if isinstance(outer, MaybeBound):  # (Python's NameError of a free variable)
                return self.parent.read_maybe_bound(name, outer, node, free=True)
            return self.parent.lookup(name, node)
        return self.constant(*self.resolve(name, node), node, name)

    def read_maybe_bound(self, name: str, v, node: ast.AST, free: bool = False) -> Term:
        """A read of a variable bound on some paths only: Python's UnboundLocalError where it is not
        (a check before the statement), else its value, with its marks. A read the check cannot go
        before (in a conditional expression, a comprehension, after something in the statement that
        may raise) is refused."""
        loc = self.loc(node)
        st = self.b.statement
        if st is None or self.b.frames or self.b.branch_depth != st.depth or st.raised:
            self.fail(node, "variable", v.message)
        message = f"cannot access free variable {name!r} where it is not associated with a value in enclosing " \
            "scope" if free else f"cannot access local variable {name!r} where it is not associated with a value"
        binds = self.b.check(v.flag, (), loc, name, message, "unsupported", raises=NameError if free else
                             UnboundLocalError)
        assert not binds  # (before the statement, by the test above)
        return v.value

    def resolve(self, name: str, node: ast.AST) -> tuple[Any, Path]:
        """What a free name means, and where it was found: the function's closure, then its
        globals, then builtins."""
        code = self.fn.__code__
        if name in code.co_freevars:
            cell = self.fn.__closure__[code.co_freevars.index(name)]
            try:
                return cell.cell_contents, Path(cell, name)
            except ValueError:
                self.fail(node, "name", f"the enclosing variable {name!r} is not assigned yet")
        if name in self.fn.__globals__:
            return self.fn.__globals__[name], Path.of_global(self.fn, name)
        if hasattr(builtins, name):
            return getattr(builtins, name), Path.of_builtin(self.fn, name)
        self.fail(node, "name", f"name {name!r} is not defined")

    def static(self, node: ast.expr) -> Any:
        """The Python object a free name or an attribute of one denotes (np, np.exp, math.pi, a
        global array, a user function), or NOT_STATIC for anything involving local values.
        What is not a value is compiled in, so each call checks it is still the same object."""
        obj, path = self.static_path(node)
        self.guard(obj, path)
        return obj

    def guard(self, obj: Any, path: Path | None) -> None:
        """Each call checks that the object at path is still obj (a module, a function: what is
        compiled in). A bound method is made anew at each attribute access: its function and its
        self are compared; a ufunc's method (np.add.reduce) by its ufunc (the path names it)."""
        if obj is NOT_STATIC or path is None or isinstance(obj, _VALUES):
            return
        if isinstance(obj, types.MethodType):
            self.program.reads.same(path.attr("__func__"), obj.__func__)
            self.program.reads.same(path.attr("__self__"), obj.__self__)
        elif isinstance(obj, types.BuiltinMethodType) and isinstance(getattr(obj, "__self__", None), np.ufunc):
            self.program.reads.same(path.attr("__self__"), obj.__self__)
        else:
            self.program.reads.same(path, obj)

    def static_path(self, node: ast.expr) -> tuple[Any, Path | None]:
        """(the object, where it was found) for a static node; the path is None for a function
        defined inside the compiled one, which has no place in Python's namespaces."""
        if isinstance(node, ast.Name):
            v = self.env.get(node.id, _MISSING)
            if isinstance(v, Static):
                return v.obj, v.path
            if isinstance(v, Term) and self.tree(v) is not None and self.tree(v).kind == "str":
                return self.tree(v).keys[0], None  # a str argument or default: its value (catad.trees)
            if v is not _MISSING and not isinstance(v, (Term, Complex, Unbound, DictKey, ListState)):
                return v, None  # a nested def or lambda
            if v is not _MISSING or node.id in self.src.local_names:
                return NOT_STATIC, None
            if self.parent is not None:
                return self.parent.static_path(node)
            return self.resolve(node.id, node)
        if isinstance(node, ast.Attribute):
            return self.static_attribute(node, *self.static_path(node.value))
        return NOT_STATIC, None

    def static_attribute(self, node: ast.Attribute, base: Any, path: Path | None) -> tuple[Any, Path | None]:
        """static_path of the attribute node, given static_path of node.value (base, path)."""
        if base is NOT_STATIC or path is None:
            return NOT_STATIC, None
        try:
            return getattr(base, node.attr), path.attr(node.attr)
        except Exception:
            self.fail(node, "attribute", f"{ast.unparse(node.value)} has no attribute {node.attr!r}")

    def constant(self, obj: Any, path: Path, node: ast.AST, what: str) -> Term:
        """A module-level or enclosing value used in the function: a number, an array or a tuple of
        them. Ints and bools (sizes, axes, flags) and floats reached through an attribute (np.pi)
        are constants that each call compares; other floats and arrays are hidden parameters."""
        loc = self.loc(node)
        if isinstance(obj, str):  # a mode or a method's name: compared while compiling, and at each call
            self.program.reads.equal(path, obj)
            return self.with_tree(Tuple((), loc), string(obj))
        # Python's own numbers (the equal guard compares classes too) divide as Python does
        python = type(obj) in (bool, int, float)
        if isinstance(obj, (bool, np.bool_)):
            self.program.reads.equal(path, obj)
            return self._python(Const(bool(obj), Bool, loc), python)
        if isinstance(obj, (int, np.integer)):
            self.program.reads.equal(path, obj)
            return self._python(Const(int(obj), Int, loc), python)
        if isinstance(obj, (float, np.floating)) and path.through_attribute:
            self.program.reads.equal(path, obj)
            return self._python(Const(float(obj), Float, loc), python)
        if isinstance(obj, (float, np.floating, np.ndarray)):
            try:
                ty = type_of_value(obj, "constant")
            except ArgumentError as e:
                self.fail(node, "constant", f"{what} is not usable: {e.message}")
            if not isinstance(obj, np.ndarray):
                self.program.reads.type(path, type(obj))
            return self._python(self.hidden_param(path, ty, loc, units_of_value(obj)), python)
        if isinstance(obj, (tuple, list)):
            self.program.reads.length(path, len(obj), type(obj))
            items = [self.item_constant(x, path.item(i), node, f"{what}[{i}]") for i, x in enumerate(obj)]
            if isinstance(obj, list):
                return self.with_tree(Tuple(tuple(items), loc), Tree("list", tuple(self.tree(x) for x in items)))
            return self.tuple_of(items, loc)  # lower.py
        if isinstance(obj, dict):
            try:
                tree_of(obj, what)
            except ArgumentError as e:
                self.fail(node, "constant", e.message, hint=e.hint)
            self.program.reads.keys(path, tuple(obj))
            t = Tuple(tuple(self.item_constant(x, path.item(k), node, f"{what}[{k!r}]") for k, x in obj.items()), loc)
            return self.with_tree(t, Tree("dict", tuple(self.tree(x) for x in t.items), tuple(obj)))
        if callable(obj):
            self.fail(node, "function value", f"{what} is a function; functions can be called, and passed to "
                                              "functions of yours, but not used as values (other higher-order uses "
                                              "are not supported)")
        kind = type(obj).__name__
        self.fail(node, "name", f"{what} is a {kind}; only numbers, NumPy arrays, strings (to compare) and "
                                "tuples, lists and dicts of them can be used as values")

    def item_constant(self, obj: Any, path: Path, node: ast.AST, what: str) -> Term:
        """An item of a tuple, list or dict global: a constant, or a None (an option not set) that
        each call checks is still None, which `is None` tests see (catad.trees)."""
        if obj is None:
            self.program.reads.same(path, None)
            return self.with_tree(Tuple((), self.loc(node)), NONE)
        return self.constant(obj, path, node, what)

    def _python(self, t: Term, python: bool) -> Term:
        return self.as_py(t) if python else t

    def hidden_param(self, path: Path, ty: Type, loc: Loc, units=None) -> Var:
        """The parameter carrying the value at path, which each call reads (named after it);
        units: which axes of the array have length 1 (each call checks they still do)."""
        if path.key not in self.hidden:
            v = Var(self.names.user(path.ident), ty, loc)
            self.b.shapes.param(v, units)
            self.hidden[path.key] = (path, v, units)
        return self.hidden[path.key][1]
