"""Lowering one Python function's syntax tree to the body of a core Def.

Statement lists are walked with an explicit work list and their bindings collected in a flat
list, then nested into lets in one loop, so a 10,000-statement function compiles in linear time
without deep recursion; recursion follows the nesting of expressions and of if statements.

A Python name maps to an atom in ``env``: assigning a compound value binds it with a let under
a fresh binder name, assigning an atom just aliases it. Branches of an ``if`` statement are
lowered in copies of ``env`` and the variables they change are joined afterwards.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
from typing import Any

import numpy as np

from ..errors import ArgumentError, CatadError, CatadTypeError, Loc, UnsupportedSyntax
from ..lang.terms import (FALSE, TRUE, Build, Call, Const, Def, Get, If, Let, Term, Tuple, Var, is_atom,
                          let_chain, make_lets)
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Type, rank, scalar_of, type_of_value, units_of_value
from ..primitives import prim
from . import calls
from .build import Builder, Frame, Names, Statement, is_array, join_types
from .shapes import simple
from .reads import Path
from .source import Source

_BINOPS = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div", ast.FloorDiv: "floordiv",
           ast.Mod: "mod", ast.Pow: "pow"}
_CMPOPS = {ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.Eq: "eq", ast.NotEq: "ne"}
_SYMBOLS = {k: "operator " + v for k, v in {  # how a shape error names the operation
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}.items()}
_COMPS = (ast.ListComp, ast.GeneratorExp)

_LOOP_HINT = "write sum(... for i in range(n)) or a list comprehension"
_UNSUPPORTED_STMTS = {
    ast.For: ("for loop", f"for loops with accumulators are not supported yet; {_LOOP_HINT}"),
    ast.AsyncFor: ("for loop", f"for loops with accumulators are not supported yet; {_LOOP_HINT}"),
    ast.While: ("while loop", f"while loops are not supported; {_LOOP_HINT}, or unroll a fixed number of steps"),
    ast.Try: ("try statement", "try/except is not supported; a compiled function cannot raise or catch "
                               "exceptions"),
    ast.With: ("with statement", "with statements are not supported; enter the context outside the function"),
    ast.AsyncWith: ("with statement", "async with is not supported"),
    ast.FunctionDef: ("nested def", "nested function definitions are not supported; define the helper at "
                                    "module level and call it"),
    ast.AsyncFunctionDef: ("nested def", "nested function definitions are not supported; define the helper "
                                         "at module level and call it"),
    ast.ClassDef: ("class definition", "classes cannot be defined inside a compiled function"),
    ast.Global: ("global statement", "global is not supported; module-level values can be read, not assigned"),
    ast.Nonlocal: ("nonlocal statement", "nonlocal is not supported; enclosing variables can be read, not "
                                         "assigned"),
    ast.Import: ("import", "imports inside the function are not supported; import at module level"),
    ast.ImportFrom: ("import", "imports inside the function are not supported; import at module level"),
    ast.Assert: ("assert", "assert is not supported; check the inputs before calling the function"),
    ast.Raise: ("raise", "raise is not supported; a compiled function cannot raise exceptions"),
    ast.Delete: ("del statement", "del is not supported; just stop using the variable"),
    ast.Break: ("break", "break is not supported (loops are not supported)"),
    ast.Continue: ("continue", "continue is not supported (loops are not supported)"),
    ast.Match: ("match statement", "match is not supported; use if/elif/else"),
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED_STMTS[ast.TryStar] = _UNSUPPORTED_STMTS[ast.Try]

_STRINGS = ("string", "strings are not supported; catad functions compute with numbers, arrays and tuples")
_UNSUPPORTED_EXPRS = {
    ast.Lambda: ("lambda", "lambdas inside a compiled function are not supported; define a module-level "
                           "def and call it"),
    ast.NamedExpr: ("walrus", "assignment expressions (:=) are not supported; assign in a separate statement"),
    ast.Starred: ("starred", "starred expressions (*x) are not supported; write the elements out"),
    ast.Dict: ("dict", "dicts are not supported; use tuples or arrays"),
    ast.DictComp: ("dict", "dict comprehensions are not supported; use a list comprehension"),
    ast.Set: ("set", "sets are not supported; use tuples or arrays"),
    ast.SetComp: ("set", "set comprehensions are not supported; use a list comprehension"),
    ast.JoinedStr: _STRINGS,
    ast.FormattedValue: _STRINGS,
    ast.Await: ("await", "await is not supported; use a plain def"),
    ast.Yield: ("yield", "generator functions are not supported; return an array built with a comprehension"),
    ast.YieldFrom: ("yield", "generator functions are not supported; return an array built with a comprehension"),
    ast.Slice: ("slice", "slices are only supported inside subscripts, e.g. v[a:b]"),
}

NOT_STATIC = object()
_MISSING = object()
_VALUES = (bool, int, float, np.number, np.bool_, np.ndarray, tuple)  # what constant() compiles


class _Branch:
    def __init__(self, b):
        self.b = b

    def __enter__(self):
        self.b.branch_depth += 1

    def __exit__(self, *exc):
        self.b.branch_depth -= 1


class Unbound:
    """The env entry of a variable that is not defined on every path to here."""

    def __init__(self, message: str):
        self.message = message


def relocate(e: CatadError, loc: Loc) -> None:
    e.loc = loc
    e.args = (e._format(),)


def _has_return(node: ast.AST) -> bool:
    return any(isinstance(n, ast.Return) for n in ast.walk(node))


def _always_returns(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(s, ast.Return) or isinstance(s, ast.If) and _always_returns(s.body)
               and _always_returns(s.orelse) for s in stmts)


class FunctionLowerer:
    def __init__(self, program: Any, src: Source, arg_types: tuple, units: tuple | None = None):
        self.program = program  # compiles the user functions this one calls
        self.src = src
        self.fn = src.fn
        self.arg_types = arg_types
        self.units = units if units is not None else (None,) * len(arg_types)  # see catad.api.signature
        self.names = Names(src.identifiers)
        self.b = Builder(self.names)
        self.env: dict[str, Any] = {}
        # terms holding Python lists (displays, comprehensions): they lower to vectors, but
        # Python's + and * concatenate and repeat lists, so operators on them are refused
        self.lists: dict[int, Term] = {}
        # globals and closure values read, as parameters after the user's (see reads.py)
        self.hidden: dict[tuple, tuple[Path, Var, Any]] = {}  # path -> (path, parameter, its length-1 axes)

    # ------------------------------------------------------------ helpers

    def loc(self, node: ast.AST | None) -> Loc:
        return self.src.loc(node)

    def fail(self, node: ast.AST | None, construct: str, message: str, cls=UnsupportedSyntax, hint=None):
        raise cls(message, self.loc(node), construct, hint)

    # ------------------------------------------------------------ the function

    def lower(self, name: str) -> Def:
        loc = self.loc(self.src.node)
        params = []
        for p, ty, units in zip(self.src.params, self.arg_types, self.units):
            v = Var(self.names.user(p), ty, loc)
            self.b.shapes.param(v, units)
            self.env[p] = v
            params.append(v)
        if not any(_has_return(s) for s in self.src.body):
            self.fail(self.src.node, "return", f"{self.src.name} has no return statement; a compiled "
                                               "function must return its result")
        body, _ = self.returning_block(self.src.body, self.src.node)
        return Def(name, tuple(params) + tuple(v for _, v, _ in self.hidden.values()), body, loc)

    def as_list(self, t: Term) -> Term:
        self.lists[id(t)] = t
        return t

    def is_list(self, t: Term) -> bool:
        return id(t) in self.lists

    def refuse_lists(self, node: ast.AST, operands: list[Term], what: str) -> None:
        """Python applies `what` to lists differently from arrays (or not at all), unless
        an ndarray among the operands makes NumPy convert the lists."""
        arrays = [t for t in operands if is_array(t)]
        if arrays and all(self.is_list(t) for t in arrays):
            self.fail(node, "list arithmetic", f"{what} on a Python list does not work elementwise in Python "
                      "(+ concatenates, * repeats)", hint="make it an array: np.array([...])")

    # ------------------------------------------------------------ statements

    def returning_block(self, stmts: list[ast.stmt], owner: ast.AST) -> tuple[Term, Loc]:
        """A statement list that must end in a return, lowered in a copy of env."""
        saved, self.env = self.env, dict(self.env)
        facts = self.b.shapes.saved()  # sizes a check in this block makes equal hold only in it
        try:
            pieces, result, ret_loc = self.run(stmts)
        finally:
            self.env = saved
            self.b.shapes.restore(facts)
        if result is None:
            self.fail(owner, "return", f"{self.src.name} can reach the end of this block without a return; "
                                       "every path must end in a return statement")
        return self.assemble(pieces, result, ret_loc), ret_loc

    def run(self, stmts: list[ast.stmt]) -> tuple[list, Term | None, Loc | None]:
        """Lower statements until a return. Pieces are ("let", var, rhs, loc) and, for an early
        return, ("if", cond, returned term, whether it is the then arm, loc): the other arm is the rest."""
        pieces: list = []
        todo = list(reversed(stmts))
        while todo:
            s = todo.pop()
            outer, self.b.statement = self.b.statement, Statement(len(self.names.serial), self.b.branch_depth)
            start = len(pieces)
            try:
                if isinstance(s, ast.Return):
                    if s.value is None:
                        self.fail(s, "return", "a bare return is not supported; return a value")
                    value = self.expr(s.value)
                    return self.checked(pieces, start), value, self.loc(s)
                if isinstance(s, ast.If) and _has_return(s):
                    cond = self.condition(s.test, "if statement")
                    then_returns, else_returns = _always_returns(s.body), _always_returns(s.orelse)
                    if then_returns == else_returns:
                        # both return (the rest is dead), or neither always does: each arm takes the rest
                        rest = [] if then_returns else list(reversed(todo))
                        t, _ = self.returning_block(s.body + rest, s)
                        e, ret_loc = self.returning_block(s.orelse + rest, s)
                        return self.checked(pieces, start), self.join_returns(cond, t, e, self.loc(s), ret_loc), ret_loc
                    done, _ = self.returning_block(s.body if then_returns else s.orelse, s)
                    self.checked(pieces, start)
                    pieces.append(("if", cond, done, then_returns, self.loc(s)))
                    todo.extend(reversed(s.orelse if then_returns else s.body))
                    continue
                self.statement(s, pieces)
                self.checked(pieces, start)
            except CatadError as e:
                if e.loc is None:
                    relocate(e, self.loc(s))
                raise
            finally:
                self.b.statement = outer
        return pieces, None, None

    def checked(self, pieces: list, start: int) -> list:
        """pieces with the current statement's checks put before its own pieces (from start)."""
        pieces[start:start] = [("let", v, rhs, loc) for v, rhs, loc in self.b.statement.checks]
        self.b.statement.checks = []
        return pieces

    def assemble(self, pieces: list, result: Term, ret_loc: Loc | None) -> Term:
        for piece in reversed(pieces):
            if piece[0] == "let":
                _, var, rhs, loc = piece
                result = Let(var, rhs, result, loc)
            else:
                _, cond, done, done_is_then, loc = piece
                then, orelse = (done, result) if done_is_then else (result, done)
                result = self.join_returns(cond, then, orelse, loc, ret_loc)
        return result

    def join_returns(self, cond, then, orelse, loc, ret_loc) -> Term:
        mismatch = ("this return gives a {b} but another gives a {a}; every return of a function must give "
                    "the same type")
        return self.b.if_(cond, then, orelse, loc, mismatch, ret_loc, "return")

    def statement(self, s: ast.stmt, pieces: list) -> None:
        loc = self.loc(s)
        if isinstance(s, ast.Assign):
            value = self.expr(s.value)
            if len(s.targets) > 1:
                value = self.bind_temp(value, pieces, loc)
            for target in s.targets:
                self.assign(target, value, pieces, loc)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value), pieces, loc)
        elif isinstance(s, ast.AugAssign):
            if not isinstance(s.target, ast.Name):
                self.assign(s.target, None, pieces, loc)  # an element or attribute: always refused
            value = self.binop(s.op, self.lookup(s.target.id, s.target), self.expr(s.value), s)
            self.assign(s.target, value, pieces, loc)
        elif isinstance(s, ast.If):
            self.if_statement(s, pieces)
        elif isinstance(s, ast.Expr):
            v = s.value
            if isinstance(v, ast.Constant) and (isinstance(v.value, str) or v.value is Ellipsis):
                return  # a docstring or `...`
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "print":
                self.fail(s, "print", "print is not supported in a compiled function; print outside it")
            self.fail(s, "expression statement", "an expression statement has no effect in a compiled "
                                                 "function; assign its value or return it")
        elif isinstance(s, ast.Pass):
            return
        elif type(s) in _UNSUPPORTED_STMTS:
            construct, message = _UNSUPPORTED_STMTS[type(s)]
            self.fail(s, construct, message)
        else:
            self.fail(s, type(s).__name__, f"{type(s).__name__} statements are not supported; supported "
                                           "statements: assignment, if/elif/else, return, pass")

    def bind(self, name: str, value: Term, pieces: list, loc: Loc) -> None:
        is_list = self.is_list(value)
        value = self.flatten(value, pieces, loc)
        if is_atom(value):
            self.env[name] = self.as_list(value) if is_list and not isinstance(value, Const) else value
            return
        v = self.b.bound(Var(self.names.user(name), value.type, loc), value)
        pieces.append(("let", v, value, loc))
        self.env[name] = self.as_list(v) if is_list else v

    def bind_temp(self, value: Term, pieces: list, loc: Loc) -> Term:
        value = self.flatten(value, pieces, loc)
        if is_atom(value):
            return value
        v = self.b.bound(self.b.var(value.type, loc), value)
        pieces.append(("let", v, value, loc))
        return v

    def flatten(self, value: Term, pieces: list, loc: Loc) -> Term:
        """The lets of a value's own let chain (temporaries, checks) as statements of their own,
        so a check runs where the statement is, whether or not the value is used later."""
        lets, body = let_chain(value)
        for lt in lets:
            pieces.append(("let", lt.var, lt.rhs, lt.loc or loc))
        return body

    def assign(self, target: ast.expr, value: Term | None, pieces: list, loc: Loc) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, pieces, loc)
        elif isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                self.fail(target, "starred", "starred assignment (a, *b = ...) is not supported; "
                                             "unpack into one name per element")
            n, ty = len(target.elts), value.type
            if not isinstance(ty, TupleT) or len(ty.items) != n:
                what = f"a tuple of {len(ty.items)} values" if isinstance(ty, TupleT) else f"a {ty}"
                self.fail(target, "unpacking", f"cannot unpack {what} into {n} names; only tuples of the "
                          "same length unpack", CatadTypeError, "index an array instead: a, b = v[0], v[1]")
            if isinstance(value, Tuple):
                items = value.items  # unpack a tuple display without building it
            else:
                atom = self.bind_temp(value, pieces, loc)
                items = tuple(Get(k, atom, loc) for k in range(n))
            for t, item in zip(target.elts, items):
                self.assign(t, item, pieces, loc)
        elif isinstance(target, ast.Subscript):
            self.fail(target, "item assignment", "assigning to an element or slice mutates an array, which "
                      "is not supported", hint="build a new array: a comprehension, np.where, or v + e")
        elif isinstance(target, ast.Attribute):
            self.fail(target, "attribute assignment", "assigning to an attribute is not supported; "
                                                      "use a local variable")
        else:
            self.fail(target, "assignment", f"cannot assign to {type(target).__name__}; assign to names "
                                            "or tuples of names")

    def if_statement(self, s: ast.If, pieces: list) -> None:
        """An if without return: lower each arm in a copy of env, then join what they change:
        let t = if c then (.. in (a, b)) else (.. in (a, b)) in let a = get$1 t ..."""
        cond = self.condition(s.test, "if statement")
        loc = self.loc(s)
        before = self.env
        arms = []
        facts = self.b.shapes.saved()
        for stmts in (s.body, s.orelse):
            self.env = dict(before)
            arm_pieces, _, _ = self.run(stmts)
            arms.append((arm_pieces, self.env))
            self.b.shapes.restore(dict(facts))
        self.env = before
        (p1, e1), (p2, e2) = arms
        joined = []
        for n in dict.fromkeys([*e1, *e2]):
            a, c = e1.get(n), e2.get(n)
            if a is before.get(n) and c is before.get(n):
                continue
            ty = join_types(a.type, c.type) if isinstance(a, Term) and isinstance(c, Term) else None
            if a is c:
                before[n] = a
            elif not isinstance(a, Term) or not isinstance(c, Term):
                before[n] = Unbound(f"variable {n!r} is assigned in only one branch of the if statement at "
                                    f"line {loc.line}, so it may be undefined here; assign it before the if "
                                    "or in both branches")
            elif ty is None:
                before[n] = Unbound(f"variable {n!r} is a {a.type} after one branch of the if statement at "
                                    f"line {loc.line} and a {c.type} after the other; give it one type")
            else:
                joined.append((n, ty))
        if not joined:
            return

        def arm(p, e):
            vals = [self.b.coerce(e[n], ty, loc) for n, ty in joined]
            return self.assemble(p, vals[0] if len(vals) == 1 else Tuple(tuple(vals), loc), None)
        rhs = If(cond, arm(p1, e1), arm(p2, e2), loc)
        t = self.bind_temp(rhs, pieces, loc) if len(joined) > 1 else rhs
        for k, (n, _) in enumerate(joined):
            value = Get(k, t, loc) if len(joined) > 1 else t
            if self.is_list(e1[n]) or self.is_list(e2[n]):
                self.as_list(value)
            self.bind(n, value, pieces, loc)

    # ------------------------------------------------------------ expressions

    def expr(self, node: ast.expr) -> Term:
        try:
            method = getattr(self, "x_" + type(node).__name__, None)
            if method is None:
                construct, message = _UNSUPPORTED_EXPRS.get(
                    type(node), (type(node).__name__, f"{type(node).__name__} expressions are not supported"))
                self.fail(node, construct, message)
            return method(node)
        except CatadError as e:
            if e.loc is None:
                relocate(e, self.loc(node))
            raise

    def arg(self, a: ast.expr | Term) -> Term:
        return a if isinstance(a, Term) else self.expr(a)

    def condition(self, node: ast.expr, what: str) -> Term:
        t = self.expr(node)
        if t.type != Bool:
            self.fail(node, "truthiness", f"the condition of this {what} is a {t.type}, not a Bool; catad does "
                      "not test truthiness", hint="compare explicitly, e.g. x != 0 or len(v) > 0")
        return t

    def x_Constant(self, node: ast.Constant) -> Term:
        v, loc = node.value, self.loc(node)
        if isinstance(v, bool):
            return Const(v, Bool, loc)
        if isinstance(v, int):
            return Const(v, Int, loc)
        if isinstance(v, float):
            return Const(v, Float, loc)
        if isinstance(v, (str, bytes)):
            self.fail(node, *_STRINGS)
        self.fail(node, "constant", f"the constant {v!r} is not supported; constants are ints, floats, "
                                    "True and False")

    def x_Name(self, node: ast.Name) -> Term:
        return self.lookup(node.id, node)

    def lookup(self, name: str, node: ast.AST) -> Term:
        v = self.env.get(name, _MISSING)
        if isinstance(v, Term):
            return v
        if isinstance(v, Unbound):
            self.fail(node, "variable", v.message)
        if name in self.src.local_names:
            self.fail(node, "variable", f"variable {name!r} is used before it is assigned")
        return self.constant(*self.resolve(name, node), node, name)

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
        if obj is not NOT_STATIC and not isinstance(obj, _VALUES):
            self.program.reads.same(path, obj)
        return obj

    def static_path(self, node: ast.expr) -> tuple[Any, Path | None]:
        if isinstance(node, ast.Name):
            if node.id in self.env or node.id in self.src.local_names:
                return NOT_STATIC, None
            return self.resolve(node.id, node)
        if isinstance(node, ast.Attribute):
            base, path = self.static_path(node.value)
            if base is NOT_STATIC:
                return NOT_STATIC, None
            try:
                return getattr(base, node.attr), path.attr(node.attr)
            except Exception:
                self.fail(node, "attribute", f"{ast.unparse(node.value)} has no attribute {node.attr!r}")
        return NOT_STATIC, None

    def constant(self, obj: Any, path: Path, node: ast.AST, what: str) -> Term:
        """A module-level or enclosing value used in the function: a number, an array or a tuple of
        them. Ints and bools (sizes, axes, flags) and floats reached through an attribute (np.pi)
        are constants that each call compares; other floats and arrays are hidden parameters."""
        loc = self.loc(node)
        if isinstance(obj, (bool, np.bool_)):
            self.program.reads.equal(path, obj)
            return Const(bool(obj), Bool, loc)
        if isinstance(obj, (int, np.integer)):
            self.program.reads.equal(path, obj)
            return Const(int(obj), Int, loc)
        if isinstance(obj, (float, np.floating)) and path.through_attribute:
            self.program.reads.equal(path, obj)
            return Const(float(obj), Float, loc)
        if isinstance(obj, (float, np.floating, np.ndarray)):
            try:
                ty = type_of_value(obj, "constant")
            except ArgumentError as e:
                self.fail(node, "constant", f"{what} is not usable: {e.message}")
            return self.hidden_param(path, ty, loc, units_of_value(obj))
        if isinstance(obj, tuple):
            self.program.reads.length(path, len(obj))
            return Tuple(tuple(self.constant(x, path.item(i), node, f"{what}[{i}]") for i, x in enumerate(obj)),
                         loc)
        if callable(obj):
            self.fail(node, "function value", f"{what} is a function; functions can be called but not used "
                                              "as values (higher-order functions are not supported)")
        kind = type(obj).__name__
        hint = "make it a NumPy array" if isinstance(obj, list) else None
        self.fail(node, "name", f"{what} is a {kind}; only numbers, NumPy arrays and tuples of them can be "
                                "used as values", hint=hint)

    def x_Attribute(self, node: ast.Attribute) -> Term:
        obj, path = self.static_path(node)
        if obj is not NOT_STATIC:
            return self.constant(obj, path, node, ast.unparse(node))
        base, loc, attr = self.expr(node.value), self.loc(node), node.attr
        if is_array(base) and not self.is_list(base):
            if attr == "shape":
                return self.b.share(base, lambda a: Tuple(tuple(self.b.size(a, k, loc)
                                                                for k in range(rank(a.type))), loc), loc)
            if attr == "T":
                return self.b.transpose(base, loc)
            if attr == "ndim":
                return Const(rank(base.type), Int, loc)
            if attr == "size":
                return self.b.share(base, lambda a: self.b.count(a, loc), loc)
        what = "a Python list" if self.is_list(base) else f"a {base.type}"
        self.fail(node, "attribute", f"attribute .{attr} of {what} is not supported; supported: "
                                     ".shape, .T, .ndim and .size of arrays (make lists arrays with np.array)")

    def x_Tuple(self, node: ast.Tuple) -> Term:
        return Tuple(tuple(self.expr(e) for e in node.elts), self.loc(node))

    def x_List(self, node: ast.List) -> Term:
        return self.as_list(self.display(node))

    def x_ListComp(self, node: ast.ListComp) -> Term:
        return self.as_list(self.comprehension(node, None))

    def x_GeneratorExp(self, node: ast.GeneratorExp) -> Term:
        self.fail(node, "generator expression", "a generator expression is only supported as the argument "
                                                "of sum, max or min; use [... for ...] to make a vector")

    def x_BinOp(self, node: ast.BinOp) -> Term:
        return self.binop(node.op, self.expr(node.left), self.expr(node.right), node)

    def binop(self, op: ast.operator, a: Term, b: Term, node: ast.AST) -> Term:
        loc = self.loc(node)
        self.refuse_lists(node, [a, b], "an arithmetic operator")
        if isinstance(op, ast.MatMult):
            if not is_array(a) or not is_array(b):
                self.fail(node, "@", f"@ multiplies arrays, got {a.type} and {b.type}", CatadTypeError,
                          "use * to scale by a scalar")
            return self.b.dot(a, b, loc, "matmul")
        name = _BINOPS.get(type(op))
        if name is None:
            self.fail(node, "operator", f"operator {type(op).__name__} is not supported; supported: "
                                        "+ - * / // % ** @")
        f = lambda x, y: self.b.arith(name, x, y, loc)
        return self.b.elementwise(f, [a, b], loc, _SYMBOLS[type(op)]) if is_array(a) or is_array(b) else f(a, b)

    def x_UnaryOp(self, node: ast.UnaryOp) -> Term:
        loc = self.loc(node)
        if isinstance(node.op, ast.Not):
            return prim("not", self.condition(node.operand, "not"), loc=loc)
        a = self.expr(node.operand)
        self.refuse_lists(node, [a], "a unary operator")
        if isinstance(node.op, ast.USub):
            if isinstance(a, Const) and a.type in (Int, Float):
                return Const(-a.value, a.type, loc)  # so that -1 is a literal, as in v[-1]
            f = lambda x: prim("neg", x, loc=loc)
            return self.b.elementwise(f, [a], loc) if is_array(a) else f(a)
        if isinstance(node.op, ast.UAdd) and scalar_of(a.type) in (Int, Float):
            return a
        self.fail(node, "operator", f"unary {type(node.op).__name__} is not supported on a {a.type}; "
                                    "supported: -x, +x, not b")

    def x_BoolOp(self, node: ast.BoolOp) -> Term:
        # a and b = if a then b else False: the right side is only evaluated when needed
        word = "and" if isinstance(node.op, ast.And) else "or"
        vals = [self.condition(node.values[0], f"'{word}'")]
        with self.branch():
            vals += [self.condition(v, f"'{word}'") for v in node.values[1:]]
        acc, loc = vals[-1], self.loc(node)
        for v in reversed(vals[:-1]):
            acc = If(v, acc, FALSE, loc) if word == "and" else If(v, TRUE, acc, loc)
        return acc

    def x_Compare(self, node: ast.Compare) -> Term:
        return self.compare_chain(self.expr(node.left), node.ops, node.comparators, node)

    def compare_chain(self, left: Term, ops: list, comps: list, node: ast.Compare) -> Term:
        right = self.expr(comps[0])
        if len(ops) == 1:
            return self.compare(ops[0], left, right, node)
        loc = self.loc(node)

        def rest(r):  # a < b < c = a < b and b < c, b evaluated once
            first = self.compare(ops[0], left, r, node)
            if first.type != Bool:
                self.fail(node, "comparison", "chained comparisons of arrays are not supported",
                          hint="combine elementwise tests with np.where")
            with self.branch():
                later = self.compare_chain(r, ops[1:], comps[1:], node)
            return If(first, later, FALSE, loc)
        return self.b.share(right, rest, loc)

    def compare(self, op: ast.cmpop, a: Term, b: Term, node: ast.AST) -> Term:
        name, loc = _CMPOPS.get(type(op)), self.loc(node)
        self.refuse_lists(node, [a, b], "a comparison")
        if name is None:
            self.fail(node, "comparison", f"comparison {type(op).__name__} is not supported; supported: "
                                          "< <= > >= == !=")
        f = lambda x, y: self.b.scalar(name, [x, y], loc)
        return self.b.elementwise(f, [a, b], loc, _SYMBOLS[type(op)]) if is_array(a) or is_array(b) else f(a, b)

    def branch(self):
        """A context in which what is lowered runs only on some condition (see Builder.hoist)."""
        return _Branch(self.b)

    def x_IfExp(self, node: ast.IfExp) -> Term:
        c = self.condition(node.test, "conditional expression")
        with self.branch():
            a, b = self.expr(node.body), self.expr(node.orelse)
        t = self.b.if_(c, a, b, self.loc(node), "the branches of this conditional expression have types {a} "
                                                "and {b}; give them one type")
        return self.as_list(t) if self.is_list(a) or self.is_list(b) else t

    def x_Call(self, node: ast.Call) -> Term:
        for a in node.args:
            if isinstance(a, ast.Starred):
                self.fail(a, "starred", "*args in a call is not supported; pass the arguments one by one")
        for kw in node.keywords:
            if kw.arg is None:
                self.fail(kw, "**kwargs", "**kwargs in a call is not supported")
        func = node.func
        if isinstance(func, ast.Attribute):
            receiver, _ = self.static_path(func.value)  # only static(func) needs checking at each call
            if receiver is NOT_STATIC or isinstance(receiver, np.ndarray):  # v.sum(), or GLOBAL_ARRAY.sum()
                return calls.method(self, self.expr(func.value), func.attr, node)
        obj = self.static(func)
        if obj is NOT_STATIC:
            self.fail(node, "call", "only functions named directly can be called, e.g. f(x), np.exp(x)")
        return calls.call(self, obj, node, list(node.args))

    def call_user(self, fn: Any, node: ast.Call, args: list) -> Term:
        if node.keywords:
            self.fail(node.keywords[0], "keyword argument", f"keyword arguments are not supported in calls of "
                                                            f"{fn.__name__}; pass arguments by position")
        ts = [self.arg(a) for a in args]
        loc = self.loc(node)
        units = tuple(self.b.units(t) for t in ts)
        name, result = self.program.function(fn, tuple(t.type for t in ts), loc, units)
        ts += [self.hidden_param(path, ty, loc, units) for path, ty, units in self.program.hidden[name]]
        return Call(name, tuple(ts), result, loc)

    def hidden_param(self, path: Path, ty: Type, loc: Loc, units=None) -> Var:
        """The parameter carrying the value at path, which each call reads (named after it);
        units: which axes of the array have length 1 (each call checks they still do)."""
        if path.key not in self.hidden:
            v = Var(self.names.user(path.ident), ty, loc)
            self.b.shapes.param(v, units)
            self.hidden[path.key] = (path, v, units)
        return self.hidden[path.key][1]

    # ------------------------------------------------------------ arrays

    def x_Subscript(self, node: ast.Subscript) -> Term:
        base, loc = self.expr(node.value), self.loc(node)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if isinstance(base.type, TupleT):
            k = None
            if len(items) == 1 and not isinstance(items[0], ast.Slice):
                t = self.expr(items[0])
                k = t.value if isinstance(t, Const) and t.type == Int else None
            if k is None:
                self.fail(node, "tuple index", "a tuple can only be indexed by an integer constant, "
                                               "e.g. t[0] or t[-1]")
            n = len(base.type.items)
            if not -n <= k < n:
                self.fail(node, "tuple index", f"index {k} is out of range for a tuple of {n} values",
                          CatadTypeError)
            k %= n
            return base.items[k] if isinstance(base, Tuple) else Get(k, base, loc)
        if not is_array(base):
            self.fail(node, "subscript", f"cannot index a {base.type}; only arrays and tuples can be indexed",
                      CatadTypeError)
        if len(items) > rank(base.type):
            self.fail(node, "subscript", f"{len(items)} indices for an array of rank {rank(base.type)}",
                      CatadTypeError)
        lowered = []
        for it in items:
            if isinstance(it, ast.Slice):
                if it.step is not None:
                    step = self.expr(it.step)
                    if not (isinstance(step, Const) and step.type == Int and step.value == 1):
                        self.fail(it, "slice step", "slices with a step are not supported; only v[a:b] "
                                  "with step 1", hint="use a comprehension, e.g. [v[i] for i in range(0, n, 2)]")
                lowered.append(("slice", self.index_term(it.lower), self.index_term(it.upper)))
            else:
                lowered.append(self.index_item(it))
        takes = [k for k, item in enumerate(lowered) if item[0] == "take"]
        if len(takes) > 1:
            self.fail(node, "array index", "only one integer array can index an array (NumPy broadcasts "
                      "several together)", hint="use a comprehension, e.g. [m[a[k], b[k]] for k in range(n)]")
        if takes:
            # NumPy puts the array's axes first when a slice separates it from an integer index
            points = [k for k, item in enumerate(lowered) if item[0] != "slice"]
            if points != list(range(points[0], points[-1] + 1)) and points[0] != takes[0]:
                self.fail(node, "array index", "a slice between an integer index and an integer array index "
                          "moves NumPy's result axes first, which is not supported",
                          hint="index in two steps, e.g. m[i][:, idx]")
        t = self.b.subscript(base, lowered, loc)
        return self.as_list(t) if self.is_list(base) and is_array(t) else t  # a slice or row of a list

    def index_item(self, node: ast.expr) -> tuple:
        """("index", i) for an Int, ("take", a) for an array of Ints (NumPy's integer array indexing)."""
        t = self.expr(node)
        if t.type == Int:
            return ("index", t)
        if is_array(t) and scalar_of(t.type) == Int:
            return ("take", t)
        if is_array(t) and scalar_of(t.type) == Bool:
            self.fail(node, "index", "indexing by a boolean mask gives an array of unknown length, which is not "
                      "supported", CatadTypeError, "use np.where(mask, v, 0.0), or sum(... if ...)")
        self.fail(node, "index", f"array indices must be Ints or arrays of Ints, got a {t.type}", CatadTypeError)

    def index_term(self, node: ast.expr | None) -> Term | None:
        if node is None:
            return None
        t = self.expr(node)
        if t.type != Int:
            self.fail(node, "index", f"array indices must be Ints, got a {t.type}", CatadTypeError)
        return t

    def display(self, node: ast.List | ast.Tuple) -> Term:
        """[a, b, c] (also inside np.array): a vector; nested displays of one length: a matrix."""
        leaves = self._display_leaves(node)
        flat, stack = [], [leaves]
        while stack:
            for x in stack.pop():
                (stack if isinstance(x, list) else flat).append(x)
        floats = any(scalar_of(t.type) == Float for t in flat)
        return self._display_build(leaves, floats, node)

    def _display_leaves(self, node: ast.List | ast.Tuple) -> list:
        if not node.elts:
            self.fail(node, "empty list", "an empty list has no element type", hint="use np.zeros(0)")
        out = []
        for e in node.elts:
            if isinstance(e, ast.Starred):
                self.fail(e, "starred", "starred elements in a list are not supported")
            out.append(self._display_leaves(e) if isinstance(e, (ast.List, ast.Tuple)) else self.expr(e))
        return out

    def _display_build(self, leaves: list, floats: bool, node: ast.AST) -> Term:
        loc = self.loc(node)
        lengths = {len(x) if isinstance(x, list) else None for x in leaves}
        if len(lengths) > 1 and any(isinstance(x, list) for x in leaves):
            self.fail(node, "ragged list", "the rows of this nested list differ in length; catad needs "
                                           "rectangular arrays")
        items = [self._display_build(x, floats, node) if isinstance(x, list)
                 else self.b.to_float(x, loc) if floats and scalar_of(x.type) == Int else x for x in leaves]
        return prim("vector", *items, loc=loc)

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, reduce: str | None) -> Term:
        """[e for ...] is a build; sum/max/min of a comprehension reduce the build (reduce names
        the primitive). Several for clauses nest, each one reduced."""
        gens = node.generators
        if reduce is None and len(gens) > 1:
            self.fail(node, "comprehension", "a list comprehension with several for clauses is not supported "
                      "(it flattens)", hint="nest comprehensions: [[e for j in ...] for i in ...]")
        if reduce is None and gens[0].ifs:
            self.fail(gens[0].ifs[0], "comprehension filter", "a filter (if) in a list comprehension makes a "
                      "vector of unknown length, which is not supported",
                      hint="use np.where, or filter inside sum(...)")
        for g in gens:
            if g.ifs and reduce != "sum":
                what = "max" if reduce == "vmax" else "min"
                self.fail(g.ifs[0], "comprehension filter", f"a filter (if) inside {what}(...) is not supported",
                          hint=f"use a conditional expression: {what}(e if c else ... for ...)")
            if g.is_async:
                self.fail(node, "comprehension", "async comprehensions are not supported")
        return self._generators(gens, 0, node.elt, reduce)

    def _generators(self, gens: list[ast.comprehension], k: int, elt: ast.expr, reduce: str | None) -> Term:
        g = gens[k]
        loc = self.loc(g.target)
        outer, size, var, elem = self.iteration(g)
        names = [n.id for n in ast.walk(g.target) if isinstance(n, ast.Name)]
        saved = {n: self.env.get(n, _MISSING) for n in names}
        frame = Frame(var, size, self.b.branch_depth)
        self.b.frames.append(frame)
        try:
            pieces: list = []
            if elem is None:
                self.env[g.target.id] = var
            else:
                self.assign(g.target, elem, pieces, loc)
            with self.branch() if g.ifs else contextlib.nullcontext():  # filters guard the element
                body = self._generators(gens, k + 1, elt, reduce) if k + 1 < len(gens) else self.expr(elt)
            conds = []
            for n, cond in enumerate(g.ifs):
                with self.branch() if n else contextlib.nullcontext():
                    conds.append(self.condition(cond, "comprehension filter"))
            for cond, c in reversed(list(zip(g.ifs, conds))):
                if body.type not in (Int, Float):
                    self.fail(cond, "comprehension filter", f"a filter inside sum(...) needs scalar elements, "
                                                            f"got {body.type}")
                body = If(c, body, Const(0.0 if body.type == Float else 0, body.type, loc), loc)
            body = self.assemble(pieces, body, None)
        finally:
            self.b.frames.pop()
            for n, v in saved.items():
                if v is _MISSING:
                    self.env.pop(n, None)
                else:
                    self.env[n] = v
        out = Build(size, var, body, loc)
        if reduce is not None:
            out = prim(reduce, out, loc=loc)
        out = make_lets(self.b.place(frame.checks), out)  # bounds checked once, before the elements
        for v, t in reversed(outer):
            out = Let(v, t, out, loc)
        return out

    def iteration(self, g: ast.comprehension) -> tuple[list, Term, Var, Term | None]:
        """What `for target in iter` ranges over: (lets to put around the build, its size, its
        index variable, the element bound to target, or None when target is the index itself)."""
        it, loc = g.iter, self.loc(g.iter)
        fn = self.static(it.func) if isinstance(it, ast.Call) else NOT_STATIC
        fn = next((f for f in (range, zip, enumerate) if f is fn), None)  # identity: fn may be an array
        if fn is not None and it.keywords:
            self.fail(it, "keyword argument", f"{fn.__name__}() takes no keyword arguments here")
        if fn is range:
            return self.range_iteration(it, g.target)
        seqs = [self.expr(a) for a in it.args] if fn is not None else [self.expr(it)]
        what = fn.__name__ if fn is not None else "for"
        if not seqs or (fn is enumerate and len(seqs) != 1) or not all(is_array(s) for s in seqs):
            self.fail(it, "comprehension", f"{what} in a comprehension needs arrays, got "
                      f"({', '.join(str(s.type) for s in seqs)}); a comprehension iterates over range(...), "
                      "an array, zip(arrays...) or enumerate(array)", CatadTypeError)
        outer, atoms = [], []
        for s in seqs:
            if not is_atom(s):
                v = self.b.bound(self.b.var(s.type, loc), s)
                outer.append((v, s))
                s = v
            atoms.append(s)
        size = self.b.size(atoms[0], 0, loc)
        for a in atoms[1:]:
            size = prim("min", size, self.b.size(a, 0, loc), loc=loc)  # zip stops at the shortest
        k = self.b.var(Int, loc, "_i")
        elems = [prim("index", k, a, loc=loc) for a in atoms]
        if fn is zip:
            elem = Tuple(tuple(elems), loc)
        else:
            elem = Tuple((k, elems[0]), loc) if fn is enumerate else elems[0]
        return outer, size, k, elem

    def range_iteration(self, it: ast.Call, target: ast.expr):
        loc = self.loc(it)
        args = [self.expr(a) for a in it.args]
        if not 1 <= len(args) <= 3 or any(a.type != Int for a in args):
            self.fail(it, "range", f"range takes 1 to 3 Ints, got ({', '.join(str(a.type) for a in args)})",
                      CatadTypeError)
        if not isinstance(target, ast.Name):
            self.fail(target, "comprehension", "range yields Ints: use a single name as the loop variable")
        outer: list = []
        for k, a in enumerate(args):  # checks in the bounds (len(m[0])) run before the comprehension
            lets, args[k] = let_chain(a)
            outer += [(lt.var, lt.rhs) for lt in lets]
            if not simple(args[k]):  # a bound that binds something is computed once, before
                v = self.b.bound(self.b.var(Int, loc), args[k])
                outer.append((v, args[k]))
                args[k] = v
        start, stop = (Const(0, Int), args[0]) if len(args) == 1 else (args[0], args[1])
        step = args[2] if len(args) == 3 else Const(1, Int)
        if not (isinstance(step, Const) and step.value > 0):
            self.fail(it, "range", "the step of range must be a positive integer constant")
        if isinstance(start, Const) and start.value == 0 and step.value == 1:
            return outer, stop, Var(self.names.user(target.id), Int, self.loc(target)), None
        if not is_atom(start):
            v = self.b.bound(self.b.var(Int, loc), start)
            outer.append((v, start))
            start = v
        from_zero = isinstance(start, Const) and start.value == 0
        size = stop if from_zero else prim("sub", stop, start, loc=loc)
        if step.value != 1:  # ceil((stop - start) / step)
            size = prim("floordiv", prim("add", size, Const(step.value - 1, Int), loc=loc), step, loc=loc)
        k = self.b.var(Int, loc, "_i")
        offset = k if step.value == 1 else prim("mul", step, k, loc=loc)
        return outer, size, k, offset if from_zero else prim("add", start, offset, loc=loc)
