"""Lowering statements: the statement loop with its early returns, assignment and unpacking,
if statements and the join of their branches, and the checks that go before each statement.

Statement lists are walked with an explicit work list and their bindings collected in a flat
list of pieces, then nested into lets in one loop (``assemble``), so a 10,000-statement function
compiles in linear time without deep recursion; recursion follows the nesting of if statements.

A Python name maps to an atom in ``env``: assigning a compound value binds it with a let under
a fresh binder name, assigning an atom just aliases it. Branches of an ``if`` statement are
lowered in copies of ``env`` and the variables they change are joined afterwards.

``Statements`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
import functools
from typing import Any

import numpy as np

from ..errors import CatadError, CatadTypeError, Loc, ShapeError, UnsupportedSyntax
from ..lang.terms import Build, Call, Const, Get, If, Let, Term, Tuple, Var, is_atom, let_chain, may_fail, subterms
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Unit, Vec, scalar_of
from ..primitives import prim
from ..primitives.registry import lookup
from . import combinatorics, complexes, early_returns, imports, iterators
from .calls import call
from .checks import Statement
from .complexes import Complex
from .common import all_py, is_array, join_types, projections, reads_undecided, static_bool
from .lists import ListState
from .raises import raising_arm
from .shapes import fresh
from ..trees import Tree
from .source import Source, relocate, stored_names
from .updates import OWNED, owned_join

_LOOP_HINT = "write sum(... for i in range(n)) or a list comprehension"
_LOWERED = ast.Pass(lineno=0, col_offset=0, end_lineno=0, end_col_offset=0)  # a statement of the body let go of
_UNSUPPORTED_STMTS = {
    ast.For: ("for loop", f"for loops with accumulators are not supported yet; {_LOOP_HINT}"),
    ast.AsyncFor: ("for loop", f"for loops with accumulators are not supported yet; {_LOOP_HINT}"),
    ast.Try: ("try statement", "try/except is not supported; a compiled function cannot catch exceptions"),
    ast.With: ("with statement", "with statements are not supported; enter the context outside the function"),
    ast.AsyncWith: ("with statement", "async with is not supported"),
    ast.AsyncFunctionDef: ("nested def", "async def is not supported inside a compiled function; use a plain def"),
    ast.ClassDef: ("class definition", "classes cannot be defined inside a compiled function"),
    ast.Global: ("global statement", "global is not supported; module-level values can be read, not assigned"),
    ast.Nonlocal: ("nonlocal statement", "nonlocal is not supported; enclosing variables can be read, not "
                                         "assigned"),
    ast.Delete: ("del statement", "del is not supported; just stop using the variable"),
    ast.Break: ("break", "break is only supported in a for loop"),
    ast.Continue: ("continue", "continue is only supported in a for loop"),
    ast.Match: ("match statement", "match is not supported; use if/elif/else"),
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED_STMTS[ast.TryStar] = _UNSUPPORTED_STMTS[ast.Try]


_GROWING = ("append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse")


RAISED = object()  # the result of a block that a raise ends on every call (see Statements.run)


class Unbound:
    """The env entry of a variable that is not defined on every path to here."""

    def __init__(self, message: str):
        self.message = message


_BOUND = "\0bound "  # the name of the Bool joined beside a variable bound after one arm of an if
_ONE_BRANCH = ("variable {name!r} is assigned in only one branch of the if statement at line {line}, so it may "
               "be undefined here, which catad checks only where it is read directly; assign it before the if "
               "or in both branches")


def read_past(fn: ast.AST, stmt: ast.stmt) -> set[str]:
    """The names read in fn's source after statement stmt ends (x += ... reads x)."""
    end = (stmt.end_lineno, stmt.end_col_offset)
    out: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and (node.lineno, node.col_offset) > end:
            out.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) \
                and (node.lineno, node.col_offset) > end:
            out.add(node.target.id)
    return out


def _plain_value(ty) -> bool:
    """A number, an array or a tuple of them."""
    if isinstance(ty, TupleT):
        return all(_plain_value(x) for x in ty.items)
    return ty in (Int, Float, Bool) or isinstance(ty, Vec) and _plain_value(ty.elem)


class MaybeBound(Unbound):
    """The env entry of a variable bound on some paths to here only (assigned in one branch of an
    if): its value where it is bound (a placeholder elsewhere) and the Bool `flag` of where it is.
    Reading it checks the flag first, raising Python's UnboundLocalError where it is not bound
    (FreeNames.lookup); other uses of it (a loop's state, a nested function's) refuse it with
    `message`, as an Unbound."""

    def __init__(self, value: Term, flag: Term, message: str):
        super().__init__(message)
        self.value, self.flag = value, flag


class LocalFunction:
    """A def or lambda written inside the function being compiled: its source, the lowerer of
    the function it was defined in (whose variables it reads when it is called) and its
    default values (terms computed when the def ran)."""

    def __init__(self, src: Source, owner: Any, defaults: dict[str, Term]):
        self.src, self.owner, self.defaults = src, owner, defaults
        self.__name__ = src.name  # named in a recursion's cycle (catad.frontend.program)


def has_return(node: ast.AST) -> bool:
    """Whether the statement node holds a return (not one of a def nested in it)."""
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return):
            return True
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.expr)):
            todo.extend(ast.iter_child_nodes(n))
    return False


def _always_returns(stmts: list[ast.stmt]) -> bool:
    return any(isinstance(s, ast.Return) or isinstance(s, ast.If) and _always_returns(s.body)
               and _always_returns(s.orelse) for s in stmts)


class Statements:
    """Statement lists to pieces and pieces to terms. Uses the lowerer's env, b (the Builder),
    names, src, the marking of Python lists (as_list, is_list), expr, condition and binop
    (expressions.py) and lookup (freenames.py)."""

    def returning_block(self, stmts: list[ast.stmt], owner: ast.AST, top: bool = False) -> tuple[Term, Loc]:
        """A statement list that must end in a return, lowered in a copy of env; `top`: the body
        of the function being compiled (where a raise on every call may end it)."""
        saved, self.env = self.env, dict(self.env)
        facts = self.b.shapes.saved()  # sizes a check in this block makes equal hold only in it
        try:
            pieces, result, ret_loc = self.run(stmts, top)
        finally:
            self.env = saved
            self.b.shapes.restore(facts)
        if result is None:
            self.fail(owner, "return", f"{self.src.name} can reach the end of this block without a return; "
                                       "every path must end in a return statement")
        return self.assemble(pieces, result, ret_loc), ret_loc

    def run(self, stmts: list[ast.stmt], top: bool = False) -> tuple[list, Term | None, Loc | None]:
        """Lower statements until a return. Pieces are ("let", var, rhs, loc) and, for an early
        return, ("if", cond, returned term, whether it is the then arm, loc): the other arm is the rest.
        In the function's own body (`top`), a raise that happens on every call ends it (see
        raises.py): what follows is dead, and its result, never returned, is 0.0."""
        pieces: list = []
        todo = list(reversed(stmts))
        # The function's own body (`top`) is lowered once per compile, from a syntax tree parsed
        # for it: each of its statements is let go of once lowered (its place in the tree holds
        # _LOWERED), so that the memory of a long function's tree (some 5 KB a statement)
        # serves the terms of the statements that follow, instead of being freed at the end,
        # after it has left the cache. Nothing reads a statement once it is lowered: read_after
        # looks at what follows a loop, and what nested defs read is known before (Source).
        place = {id(st): k for k, st in enumerate(stmts)} if top else None
        while todo:
            s = todo.pop()
            outer, self.b.statement = self.b.statement, Statement(len(self.names.serial), self.b.branch_depth)
            start = len(pieces)
            try:
                if isinstance(s, (ast.Assign, ast.Return)) and isinstance(s.value, ast.Call):
                    made = iterators.reduce_statement(self, s)  # the loop functools.reduce runs
                    if made is not None:
                        todo.extend(reversed(made))
                        continue
                if isinstance(s, ast.Return):
                    if s.value is None:
                        self.fail(s, "return", "a bare return is not supported; return a value")
                    value = self.value(s.value, objects=True)
                    if isinstance(value, Complex):
                        complexes.refuse(self, s.value, value, f"{self.src.name} would return it, but the results "
                                         "of a compiled function are real",
                                         "return a real value of it: np.abs(z), np.abs(z) ** 2, z.real or z.imag "
                                         "(or both parts: return z.real, z.imag)")
                    self.returned(value, s)  # lower.py: the result's list or dict structure
                    return self.checked(pieces, start), value, self.loc(s)
                if isinstance(s, ast.If) and self.static_test(s.test) is not None:
                    todo.extend(reversed(s.body if self.static_test(s.test) else s.orelse))  # Python runs only this arm
                    continue
                if isinstance(s, (ast.Raise, ast.Assert)) or isinstance(s, ast.If) and (
                        raising_arm(s.body) or raising_arm(s.orelse)):
                    if isinstance(s, ast.If):  # raises.py: a check, then the other arm
                        rest, always = self.raise_in_if(s, pieces)
                        todo.extend(reversed(rest))
                    else:
                        always = self.raise_statement(s, pieces)  # raises.py
                    self.checked(pieces, start)
                    if always:
                        if not top:
                            self.refuse_raise_always(s)
                        return pieces, RAISED, self.loc(s)
                    continue
                if isinstance(s, ast.If) and has_return(s):
                    then_returns, else_returns = _always_returns(s.body), _always_returns(s.orelse)
                    rewritten = early_returns.flagged(s) if not then_returns and not else_returns and todo else None
                    if rewritten is not None:  # (the rest lowered once, not into each arm; the test lowered there)
                        todo.extend(reversed(rewritten))
                        continue
                    cond = self.condition(s.test, "if statement")
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
                if isinstance(s, ast.For) and iterators.iterator_of(self, s.iter) is not None:
                    todo.extend(reversed(iterators.for_over(self, s)))  # the loop over map's arguments
                    continue
                if isinstance(s, ast.For) and combinatorics.itertools_call(self, s.iter) is not None:
                    todo.extend(reversed(combinatorics.for_over(self, s)))  # the nested loops over indices
                    continue
                if isinstance(s, (ast.For, ast.While)) and s.orelse:
                    todo.extend(reversed(self.without_else(s)))  # loops.py: a flag and an if after the loop
                    continue
                original = s
                if isinstance(s, ast.While):
                    s = self.while_as_for(s)  # loops.py: a for loop over its steps that breaks
                after = [] if self.never_runs(s) else self.loop_with_jumps(s, pieces) if isinstance(s, ast.For) \
                    else None  # loops.py
                if after is None:
                    self.statement(s, pieces)
                else:  # a loop that breaks, continues or returns, and what runs after it
                    todo.extend(reversed(after))
                self.checked(pieces, start)
                if place is not None and after is None:
                    k = place.pop(id(original), None)
                    if k is not None:
                        stmts[k] = _LOWERED
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
        if result is RAISED:  # a check before it always fails: never returned, of another return's type
            returns = [p[2].type for p in pieces if p[0] == "if"]
            result = self.unreachable(returns[-1], ret_loc) if returns else Const(0.0, Float, ret_loc)
        for piece in reversed(pieces):
            if piece[0] == "let":
                _, var, rhs, loc = piece
                result = Let(var, rhs, result, loc)
            else:
                _, cond, done, done_is_then, loc = piece
                then, orelse = (done, result) if done_is_then else (result, done)
                result = self.join_returns(cond, then, orelse, loc, ret_loc)
        return result

    def unreachable(self, t, loc: Loc | None) -> Term:
        """A value of type t for a result that is never returned: zeros (a vector of none)."""
        if isinstance(t, TupleT):
            return Tuple(tuple(self.unreachable(x, loc) for x in t.items), loc)
        if isinstance(t, Vec):
            return Build(Const(0, Int), self.b.var(Int, loc, "_i"), self.unreachable(t.elem, loc), loc)
        return Const({Int: 0, Bool: False}.get(t, 0.0), t, loc)

    def join_returns(self, cond, then, orelse, loc, ret_loc) -> Term:
        mismatch = ("this return gives a {b} but another gives a {a}; every return of a function must give "
                    "the same type")
        return self.b.if_(cond, then, orelse, loc, mismatch, ret_loc, "return")

    def statement(self, s: ast.stmt, pieces: list) -> None:
        loc = self.loc(s)
        if self.list_statement(s, pieces):  # lists.py: xs = [], xs.append(e), xs += ys of a list
            return
        if isinstance(s, ast.Assign):
            if self.assign_functions(s, pieces):  # functions.py: f = lambda x: ...
                return
            value = self.assigned_value(s)
            if isinstance(value, list):  # a, b = z1, z2 of complex values: item by item
                for target, item in zip(s.targets[0].elts, value):
                    self.assign(target, item, pieces, loc)
                self.note_assignment(s)
                return
            if len(s.targets) > 1 or isinstance(value, Term) and stored_names(s.targets[0]) is None and any(
                    isinstance(n, ast.Subscript) for t in s.targets for n in ast.walk(t)) and _may_raise(value):
                # (Python evaluates the value before a target's subscript, which may raise too)
                value = self.bind_temp(value, pieces, loc)
            for target in s.targets:
                self.assign(target, value, pieces, loc)
            self.note_assignment(s)  # updates.py: which names own their arrays
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            imports.lower_import(self, s)  # the names bound to what Python binds them to (imports.py)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.value(s.value), pieces, loc)
                self.note_assignment(s)
        elif isinstance(s, ast.AugAssign):
            if isinstance(s.target, ast.Subscript):
                return self.aug_item_assignment(s, pieces)  # updates.py
            if not isinstance(s.target, ast.Name):
                self.assign(s.target, None, pieces, loc)  # an attribute: always refused
            self.aug_name_assignment(s)  # updates.py: an array changed in place must own its memory
            current, rhs = self.lookup(s.target.id, s.target), self.value(s.value)
            value = self.binop(s.op, current, rhs, s)
            self.same_kind(s, current, rhs, value)
            value = self.in_place_result(s, current, rhs, value, pieces, loc)
            if isinstance(current, Term) and self.is_zero_d(current) and isinstance(value, Term):
                self.as_zero_d(value)  # (written into the array, which stays one)
            self.assign(s.target, value, pieces, loc)
        elif isinstance(s, ast.If):
            self.if_statement(s, pieces)
        elif isinstance(s, ast.For):
            self.for_statement(s, pieces)  # loops.py
        elif isinstance(s, ast.Expr):
            v = s.value
            if isinstance(v, ast.Constant) and (isinstance(v.value, str) or v.value is Ellipsis):
                return  # a docstring or `...`
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "print":
                self.fail(s, "print", "print is not supported in a compiled function; print outside it")
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr == "sort" \
                    and isinstance(v.func.value, ast.Name) and not v.args and not v.keywords:
                name, held = v.func.value.id, self.env.get(v.func.value.id)
                if isinstance(held, Term) and is_array(held) and not self.is_list(held) and name in self.owned():
                    # a.sort() of an array a owns: nothing else sees it, so it is a = np.sort(a) (axis -1)
                    sorted_ = call(self, np.sort, v, [held])
                    self.bind(name, sorted_, pieces, self.loc(s))
                    return
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in ("sort", "reverse"):
                self.fail(s, f".{v.func.attr}", f".{v.func.attr}() reorders a list or an array in place, which a "
                          "compiled function does not do", hint="make a new one: a = np.sort(a) or l = sorted(l); "
                                                                "a = a[::-1] or l = l[::-1]")
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Attribute) and v.func.attr in _GROWING:
                self.fail(s, f"list.{v.func.attr}", f".{v.func.attr}() changes a list in place, which a compiled "
                          "function does not do: its lists have the length they were made with",
                          hint="build the list with a comprehension, [e for x in xs], or make an array of its "
                               "final length first, out = np.zeros(n), and assign out[i] = e in the loop")
            if isinstance(v, ast.Call) and any(kw.arg == "out" for kw in v.keywords):
                self.fail(s, "out=", "out= writes the result into an array in place, which a compiled function "
                          "does not do", hint="assign the result instead: a = np.add(a, b)")
            if isinstance(v, ast.Call):  # what the call does is refused first, if it is (a nonlocal in it)
                self.value(v)
            self.fail(s, "expression statement", "an expression statement has no effect in a compiled "
                                                 "function; assign its value or return it")
        elif isinstance(s, ast.Pass):
            return
        elif isinstance(s, ast.FunctionDef):
            self.env[s.name] = self.local_function(s, pieces)  # functions.py: lowered where it is called
        elif type(s) in _UNSUPPORTED_STMTS:
            construct, message = _UNSUPPORTED_STMTS[type(s)]
            self.fail(s, construct, message)
        else:
            self.fail(s, type(s).__name__, f"{type(s).__name__} statements are not supported; supported "
                                           "statements: assignment, if/elif/else, return, pass")

    def assigned_value(self, s: ast.Assign):
        """The value of an assignment; for `a, b = e1, e2` where some e is complex (not a value
        of the core language, so not in a tuple), the list of the items, bound in order first."""
        v, targets = s.value, s.targets
        if not (isinstance(v, ast.Tuple) and len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List))
                and len(targets[0].elts) == len(v.elts) and not any(isinstance(e, ast.Starred)
                                                                    for e in v.elts + targets[0].elts)):
            return self.value(v, objects=True)
        items = [self.value(e) for e in v.elts]
        if not any(isinstance(t, Complex) for t in items):
            return self.tuple_of(items, self.loc(v))  # as x_Tuple makes it
        return items

    bound_types: dict | None = None  # name -> types bound to it, recorded while a loop is probed (loops.py)

    def same_kind(self, s: ast.AugAssign, current, rhs, value) -> None:
        """a op= e of an array writes into a: NumPy refuses a result of a higher kind than a's
        (floats into ints or bools, ints into bools: casting rule 'same_kind'), where a Python
        name would be rebound."""
        if not (isinstance(current, Term) and (is_array(current) or self.is_zero_d(current)) and isinstance(value, Term)):
            return
        order = {Bool: 0, Int: 1, Float: 2}
        mine, got = scalar_of(current.type), scalar_of(value.type)
        if order.get(got, 0) <= order.get(mine, 0) or mine == Bool and isinstance(rhs, Term) and \
                scalar_of(rhs.type) == Bool:  # bools op= bools stay bools in NumPy
            return
        names = {Bool: "bool", Int: "int64", Float: "float64"}
        ufunc = {ast.Add: "add", ast.Sub: "subtract", ast.Mult: "multiply", ast.Div: "divide",
                 ast.FloorDiv: "floor_divide", ast.Mod: "remainder", ast.Pow: "power"}.get(type(s.op), "?")
        self.fail(s, f"{ast.unparse(s.target)} op=", f"Cannot cast ufunc '{ufunc}' output from dtype('{names[got]}') "
                  f"to dtype('{names[mine]}') with casting rule 'same_kind' (NumPy's error: the array "
                  f"{ast.unparse(s.target)} keeps its dtype)", CatadTypeError,
                  hint=f"make it a float array first, e.g. {ast.unparse(s.target)} = "
                       f"{ast.unparse(s.target)}.astype(float)")

    def bind(self, name: str, value: Term | Complex, pieces: list, loc: Loc) -> None:
        if isinstance(value, Complex):  # its bindings become statements; the name holds its parts
            z = self.bind_temp(value, pieces, loc)
            self.env[name] = Complex((), z.re, z.im, name)
            return
        if self.bound_types is not None and name in self.bound_types:
            self.bound_types[name].append(value.type)
        is_list, tree, view = self.is_list(value), self.tree(value), self.is_readonly(value)
        if self.is_zero_d(value):
            self.zero_d_names.add(name)
        marked, bound = value, self.int_bound(value)
        value = self.flatten(value, pieces, loc)
        if isinstance(value, Tuple) and not _atoms(value):  # (a call's tuple result: see call_user)
            value = self.items_bound(value, pieces, loc)
        py_items, layout = self.py_items_of(marked), self.laid_out(marked)
        if is_array(value) and self.unknown_row(marked):
            self.list_rows[id(value)] = value  # (a list's row stays one: see Expressions.binop)
        self.mark_rows(value, self.rows_kind(marked))
        if is_atom(value) or _atoms(value):
            self.env[name] = self.as_list(value) if is_list and not isinstance(value, Const) else value
            self.with_tree(value, tree)
            self.keep_py(marked, value)
            if py_items:
                self.mark_py_items(value, *py_items)
            self.mark_py_layout(value, layout)
            self.with_int_bound(value, bound)
            self.keep_zero_d(marked, value)
            return
        v = self.b.bound(Var(self.names.user(name.strip("\0") or "_v"), value.type, loc), value)
        self.keep_py(marked, v)
        if py_items:
            self.mark_py_items(v, *py_items)
        self.mark_py_layout(v, layout)
        self.with_int_bound(v, bound)
        if view:
            self.mark_readonly(v)
        self.keep_zero_d(marked, v)
        pieces.append(("let", v, value, loc))
        if is_array(v) and self.unknown_row(marked):
            self.list_rows[id(v)] = v
        self.mark_rows(v, self.rows_kind(marked))
        self.env[name] = self.with_tree(self.as_list(v) if is_list else v, tree)

    def bind_temp(self, value: Term | Complex, pieces: list, loc: Loc) -> Term | Complex:
        if isinstance(value, Complex):
            pieces += [("let", v, rhs, at or loc) for v, rhs, at in value.lets]
            return Complex((), value.re, value.im, value.text)
        tree, marked = self.tree(value), value
        value = self.flatten(value, pieces, loc)
        if isinstance(value, Tuple) and projections(value):  # (a call's tuple result: see call_user)
            return self.items_bound(value, pieces, loc)
        if is_atom(value):
            if value is not marked and not isinstance(value, Const):
                self.keep_py(marked, value)  # (the value of the let chain that was marked)
                self.keep_zero_d(marked, value)
            return self.with_tree(value, tree)
        v = self.b.bound(self.b.var(value.type, loc), value)
        pieces.append(("let", v, value, loc))
        self.keep_py(marked, v)  # (one of Python's numbers stays one)
        self.keep_zero_d(marked, v)
        if is_array(v) and self.unknown_row(marked):
            self.list_rows[id(v)] = v  # (a list's row of a kind not known stays one: see Expressions.binop)
        return self.with_tree(v, tree)

    def keep_zero_d(self, old, new: Term) -> None:
        if self.is_zero_d(old):
            self.as_zero_d(new)
        if self.holds_zero_d(old):  # (a list holding one)
            self.mark_zero_d_items(new)

    def items_bound(self, t: Tuple, pieces: list, loc: Loc) -> Tuple:
        """A tuple display with each item that is not an atom bound to a name of its own (as a
        name is bound: its marks kept), so that the name's value stays a display and its items
        stay what they are: t = (y, a[2]); t[0] is Python's y (t[0] / 0.0 raises)."""
        items = []
        for k, x in enumerate(t.items):
            if not is_atom(x):
                self.bind("\0item", x, pieces, loc)
                x = self.env.pop("\0item")
            items.append(x)
        return self.with_tree(Tuple(tuple(items), t.loc), self.tree(t))

    def flatten(self, value: Term, pieces: list, loc: Loc) -> Term:
        """The lets of a value's own let chain (temporaries, checks) as statements of their own,
        so a check runs where the statement is, whether or not the value is used later."""
        lets, body = let_chain(value)
        for lt in lets:
            pieces.append(("let", lt.var, lt.rhs, lt.loc or loc))
        return body

    def assign(self, target: ast.expr, value: Term | Complex | None, pieces: list, loc: Loc) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, value, pieces, loc)
        elif isinstance(value, Complex):
            what = "unpacking" if isinstance(target, (ast.Tuple, ast.List)) else "assignment"
            complexes.refuse(self, target, value, f"this {what} of it is not supported (a complex value can be "
                             "assigned to a name)", "assign it to a name, or assign a real value of it "
                             "(z.real, z.imag, np.abs(z))")
        elif isinstance(target, (ast.Tuple, ast.List)):
            if any(isinstance(e, ast.Starred) for e in target.elts):
                return self.unpack_starred(target, value, pieces, loc)
            n, ty = len(target.elts), value.type
            tree = self.tree(value)
            if tree is not None and tree.kind == "dict":  # Python would unpack its keys
                self.fail(target, "unpacking", "unpacking a dict gives its keys, which catad does not compile",
                          hint="read its values by key: a, b = d['a'], d['b']")
            self.refuse_object(value, target, "the value unpacked")  # (Python's TypeError: no unpacking)
            if isinstance(ty, Vec):
                return self.unpack_array(target, value, pieces, loc)
            if not isinstance(ty, TupleT) or len(ty.items) != n:
                what = f"a tuple of {len(ty.items)} values" if isinstance(ty, TupleT) else f"a {ty}"
                self.fail(target, "unpacking", f"cannot unpack {what} into {n} names; tuples of the same length "
                          "and arrays unpack", CatadTypeError, "e.g. a, b = t with t a tuple of two values")
            if not isinstance(value, Tuple) and projections(let_chain(value)[1]):
                value = self.flatten(value, pieces, loc)  # its lets as statements, then its items
            if isinstance(value, Tuple):
                items = value.items  # unpack a tuple display without building it
            else:
                atom = self.bind_temp(value, pieces, loc)
                items = atom.items if isinstance(atom, Tuple) else tuple(
                    self.with_tree(Get(k, atom, loc), self.item_tree(atom, k)) for k in range(n))
            for t, item in zip(target.elts, items):
                self.assign(t, item, pieces, loc)
        elif isinstance(target, ast.Subscript):
            self.item_assignment(target, value, pieces, loc)  # updates.py
        elif isinstance(target, ast.Attribute):
            self.fail(target, "attribute assignment", "assigning to an attribute is not supported; "
                                                      "use a local variable")
        else:
            self.fail(target, "assignment", f"cannot assign to {type(target).__name__}; assign to names "
                                            "or tuples of names")

    def unpack_array(self, target: ast.Tuple | ast.List, value: Term, pieces: list, loc: Loc) -> None:
        """a, b = v: the elements (rows of a matrix) along the first axis, as Python unpacks an
        array; its length is checked first (Python's ValueError, as a catad.ShapeError) unless
        it is known while compiling."""
        n, is_list = len(target.elts), self.is_list(value)
        atom = self.bind_temp(value, pieces, loc)
        if atom is not value:
            self.keep_marks(value, atom)  # (where a list holds Python's numbers)
        size, k = self.b.shape(atom)[0].size, Const(n, Int, loc)
        checks, outer = [], self.b.statement
        self.b.statement = None  # the checks stay here: in a loop's target, they run per iteration
        try:
            checks = self._unpack_checks(n, size, k, loc)
        finally:
            self.b.statement = outer
        pieces += [("let", v, rhs, at) for v, rhs, at in checks]
        for j, t in enumerate(target.elts):
            item = prim("index", Const(j, Int, loc), atom, loc=loc)
            if is_list and isinstance(item.type, Vec):
                item = self.list_row(item, atom)
            elif is_list:  # one of Python's numbers where the list holds one there
                item = self.as_py(item) if self.py_item(atom, j) else self.mark_layout_item(item, atom, j, loc)
            self.assign(t, item, pieces, loc)

    def unpack_starred(self, target: ast.Tuple | ast.List, value: Term, pieces: list, loc: Loc) -> None:
        """a, *rest, z = seq: the names before and after the starred one take one item each, the
        starred one a list of the others (Python's list: of a tuple's items, or of an array's
        elements, a slice of it); fewer items than names is Python's ValueError."""
        stars = [j for j, e in enumerate(target.elts) if isinstance(e, ast.Starred)]
        if len(stars) > 1:
            self.fail(target, "starred", "multiple starred expressions in assignment", CatadTypeError)
        j, after = stars[0], len(target.elts) - stars[0] - 1
        need = j + after
        if isinstance(value.type, TupleT) and (self.tree(value) is None or self.tree(value).kind != "dict"):
            atom = value if isinstance(value, Tuple) else self.bind_temp(value, pieces, loc)
            n = len(value.type.items)
            if n < need:
                self.fail(target, "unpacking", f"not enough values to unpack (expected at least {need}, got {n})",
                          ShapeError)
            items = [atom.items[k] if isinstance(atom, Tuple) else self.with_tree(Get(k, atom, loc),
                                                                                   self.item_tree(atom, k))
                     for k in range(n)]
            rest = items[j:n - after]
            starred = self.with_tree(Tuple(tuple(rest), loc), Tree("list", tuple(self.tree(x) for x in rest)))
            firsts, lasts = items[:j], items[n - after:]
        elif isinstance(value.type, Vec):
            is_list = self.is_list(value)
            atom = self.bind_temp(value, pieces, loc)
            size = self.b.shape(atom)[0].size
            if not self.b.shapes.at_most(Const(need, Int), size):
                pieces += [("let", v, rhs, at) for v, rhs, at in self.b.check(
                    prim("le", Const(need, Int), size, loc=loc), (size,), loc, "unpacking",
                    f"not enough values to unpack (expected at least {need}, got {{0}})")]
            mark = lambda t: self.as_list(t) if is_list and isinstance(t.type, Vec) else t  # noqa: E731
            end = prim("sub", size, Const(after, Int), loc=loc)
            firsts = [mark(prim("index", Const(k, Int, loc), atom, loc=loc)) for k in range(j)]
            lasts = [mark(prim("index", prim("sub", size, Const(after - k, Int), loc=loc), atom, loc=loc))
                     for k in range(after)]
            starred = self.as_list(self.b.subscript(atom, [("slice", Const(j, Int), end)], loc))
        else:
            self.fail(target, "unpacking", f"cannot unpack a {value.type}", CatadTypeError)
        for t, item in zip(target.elts, firsts + [starred] + lasts):
            self.assign(t.value if isinstance(t, ast.Starred) else t, item, pieces, loc)

    def _unpack_checks(self, n: int, size: Term, k: Term, loc: Loc) -> list:
        checks = []
        if not self.b.shapes.at_most(k, size):
            checks += self.b.check(prim("le", k, size, loc=loc), (size,), loc, "unpacking",
                                   f"not enough values to unpack (expected {n}, got {{0}})")
        if not self.b.shapes.at_most(size, k):
            checks += self.b.check(prim("le", size, k, loc=loc), (), loc, "unpacking",
                                   f"too many values to unpack (expected {n})")
        return checks

    def if_statement(self, s: ast.If, pieces: list) -> None:
        """An if without return: lower each arm in a copy of env, then join what they change:
        let t = if c then (.. in (a, b)) else (.. in (a, b)) in let a = get$1 t ..."""
        cond = self.condition(s.test, "if statement")
        loc = self.loc(s)
        before = self.env
        arms = []
        facts = self.b.shapes.saved()
        # a condition decided while compiling: the arm Python never runs is not lowered (`if verbose:
        # print(...)` of verbose=False)
        known = static_bool(cond)
        for stmts in (s.body if known is not False else [], s.orelse if known is not True else []):
            self.env = dict(before)
            arm_pieces, _, _ = self.run(stmts)
            arms.append((arm_pieces, self.env))
            self.b.shapes.restore(facts)
        self.env = before
        (p1, e1), (p2, e2) = arms
        complex_names = self._complex_arms(before, e1, e2, loc)
        joined = []
        guard = early_returns.is_guard(s)
        # a variable bound after one arm only is joined with its flag only where it is read later
        # (a read in a later iteration of a loop around the if would be that loop's state, refused)
        read_later = functools.cache(lambda: read_past(self.src.node, s))
        for n in dict.fromkeys([*e1, *e2]):
            a, c = e1.get(n), e2.get(n)
            if a is before.get(n) and c is before.get(n):
                continue
            if guard and isinstance(a, Term) and not isinstance(c, (Term, Complex, LocalFunction, ListState)):
                c = e2[n] = self.placeholder(a, loc)  # unbound where the function has returned
            if n == OWNED:
                before[n] = owned_join(a, c)
                continue
            ty = join_types(a.type, c.type) if isinstance(a, Term) and isinstance(c, Term) else None
            if early_returns.is_result(n) and (ty is None or self.tree(a) != self.tree(c)):
                a, c = self.result_arms(a, c, loc)  # a return's result where the other arm returned nothing
                ty = join_types(a.type, c.type)
                e1[n], e2[n] = a, c
            if a is c:
                before[n] = a
            elif isinstance(a, LocalFunction) or isinstance(c, LocalFunction):
                before[n] = Unbound(f"{n!r} is a different function after each branch of the if statement at line "
                                    f"{loc.line} (or a function after one only); catad calls functions known while "
                                    "compiling: define it once, before the if, and test inside it")
            elif isinstance(a, ListState) or isinstance(c, ListState):
                before[n] = Unbound(f"the list {n!r} is empty after one branch of the if statement at line {loc.line} "
                                    "and not after the other; catad takes a list's element type from what is "
                                    "appended to it: give it a first element before the if, or make an array")
            elif n in read_later() and self._bound_on_one_path(n, a, c, e1, e2, loc):
                ty = join_types(e1[n].type, e2[n].type)
                joined += [(n, ty), (_BOUND + n, Bool)]
            elif not isinstance(a, Term) or not isinstance(c, Term):
                before[n] = Unbound(f"variable {n!r} is assigned in only one branch of the if statement at "
                                    f"line {loc.line}, so it may be undefined here; assign it before the if "
                                    "or in both branches")
            elif ty is None:
                before[n] = Unbound(f"variable {n!r} is a {a.type} after one branch of the if statement at "
                                    f"line {loc.line} and a {c.type} after the other; give it one type")
            elif self.is_list(a) != self.is_list(c):
                before[n] = Unbound(f"variable {n!r} is a list after one branch of the if statement at line {loc.line} "
                                    "and an array after the other (a list's + joins, an array's adds); make it one "
                                    "before it is read: np.array(...) or list(...) in both branches")
            else:
                joined.append((n, ty))
        if not joined:
            # nothing the arms assign is read after the if: still, their checks run (Python
            # raises in the branch it takes: if x.size == 0: y = x[-1]), and the condition's own
            # (if 0.1 ** 2 > w[7]: pass raises IndexError)
            arms_ = [self.assemble(p, Tuple((), loc), None) for p in (p1, p2)]
            if may_fail(cond) or any(_may_raise(a) for a in arms_):
                pieces.append(("let", self.b.var(Unit, loc), If(cond, arms_[0], arms_[1], loc), loc))
            return

        # a number Python's after one branch and NumPy's after the other (s = 0.0, then s = x[i]
        # in one branch) is Python's where that branch ran: each arm also gives that Bool
        kinds = [self.joined_kind(e1[n], e2[n]) for n, _ in joined]
        # (where an arm's is undecided, so is the joined number's: no Bool for it, see FunctionLowerer.undecided)
        undecided = {k for k, (n, _) in enumerate(joined) if isinstance(kinds[k], tuple) and
                     any(reads_undecided(self.where_py(e[n])) for e in (e1, e2))}
        flagged = [k for k, kind in enumerate(kinds) if isinstance(kind, tuple) and k not in undecided]
        width = len(joined) + len(flagged)

        def arm(p, e):
            vals = [self.b.coerce(e[n], ty, loc) for n, ty in joined]
            vals += [fresh(self.where_py(e[joined[k][0]]), loc) for k in flagged]  # (their own nodes)
            return self.assemble(p, vals[0] if width == 1 else Tuple(tuple(vals), loc), None)
        rhs = If(cond, arm(p1, e1), arm(p2, e2), loc)
        t = self.bind_temp(rhs, pieces, loc) if width > 1 else rhs
        for k, (n, _) in enumerate(joined):
            value = Get(k, t, loc) if width > 1 else t
            when = Get(len(joined) + flagged.index(k), t, loc) if k in flagged else \
                self.undecided(loc) if k in undecided else None
            value = self.mark_joined(value, kinds[k], when)
            if self.is_zero_d(e1[n]) or self.is_zero_d(e2[n]):  # an array of no axes after either arm
                self.as_zero_d(value)
            t1, t2 = self.tree(e1[n]), self.tree(e2[n])
            if t1 != t2 and any(t is not None and t.cls is not None for t in (t1, t2)):
                what = lambda t: t.describe() if t is not None else "a plain value"  # noqa: E731
                raise UnsupportedSyntax(f"after this if statement {n!r} is {what(t1)} on one path and {what(t2)} on "
                                        "the other, which catad does not follow (a named tuple's or a dataclass's "
                                        "class is part of its structure)", loc, "if statement",
                                        "give it one class on both paths")
            if t1 is not None and t1 == t2:
                self.with_tree(value, t1)  # a dict or list of one structure after both arms
            if self.is_list(e1[n]) or self.is_list(e2[n]):
                self.as_list(value)
                ra, rb = self.rows_kind(e1[n]), self.rows_kind(e2[n])  # (rows of one kind after both arms)
                self.mark_rows(value, ra if ra == rb else None)
                pa, pb = self.py_positions(e1[n]), self.py_positions(e2[n])  # Python's numbers where both hold them
                if pa is not None and pa == pb:
                    self.mark_py_positions(value, pa)
                elif pa is not None and pb is not None and all_py(pa) and all_py(pb):  # (of different lengths)
                    self.mark_py_positions(value, "all")
            if n in complex_names:  # the joined pair (re, im) of a complex value
                pair = self.b.bound(self.b.var(value.type, loc), value)
                pieces.append(("let", pair, value, loc))
                value = complexes.from_pair(self, pair, loc, n)
            self.bind(n, value, pieces, loc)
        for n, _ in joined:  # a variable bound after one arm only: its value and where it is bound
            if n.startswith(_BOUND):
                name = n[len(_BOUND):]
                self.env[name] = MaybeBound(self.env[name], self.env.pop(n), _ONE_BRANCH.format(
                    name=name, line=loc.line))

    def _bound_on_one_path(self, n: str, a, c, e1: dict, e2: dict, loc: Loc) -> bool:
        """Whether variable n, bound after one arm of an if (or where a MaybeBound says) and
        unbound after the other, is joined with a flag of where it is bound: e1 and e2 are given its
        value in each arm (a placeholder where it is unbound) and the flag, _BOUND + n. A number, an
        array or a tuple of them; not a list, a dict or a function (refused as before)."""
        def arm(x, other):
            if isinstance(x, MaybeBound):
                return x.value, x.flag
            if isinstance(x, Term):
                return x, Const(True, Bool, loc)
            if x is None and isinstance(other, (Term, MaybeBound)):
                return self.placeholder(other.value if isinstance(other, MaybeBound) else other, loc), \
                    Const(False, Bool, loc)
            return None
        if isinstance(a, Term) and isinstance(c, Term):
            return False
        got = arm(a, c), arm(c, a)
        if None in got:
            return False
        (va, fa), (vc, fc) = got
        if join_types(va.type, vc.type) is None or not _plain_value(va.type) or any(
                self.is_list(v) or self.tree(v) is not None for v in (va, vc)):
            return False
        e1[n], e2[n], e1[_BOUND + n], e2[_BOUND + n] = va, vc, fa, fc
        return True

    def placeholder(self, t: Term, loc: Loc) -> Term:
        """A value never read in t's place (see early_returns): zeros of t's type, with t's
        structure and kinds, so that joining it changes nothing of them."""
        out = self.with_tree(self.unreachable(t.type, loc), self.tree(t))
        if self.is_py(t):
            self.as_py(out)
        if self.is_list(t):
            self.as_list(out)
            items = self.py_items_of(t)
            if items is not None:
                self.mark_py_items(out, *items)
        return out

    def result_arms(self, a, c, loc: Loc) -> tuple[Term, Term]:
        """The arms of an if joining early_returns' result: where one arm has none (it returned
        nothing), a placeholder of the other's type, with its tree (never returned: the flag
        says so); two results of different types or structures are refused as two returns are."""
        if not isinstance(a, Term):
            a = self.placeholder(c, loc)
        elif not isinstance(c, Term):
            c = self.placeholder(a, loc)
        if join_types(a.type, c.type) is None or self.tree(a) != self.tree(c):
            raise CatadTypeError(f"{self.src.name} returns a {a.type} at one return and a {c.type} at another; every "
                                 "return of a function must give the same type", loc, "return")
        return a, c

    def _complex_arms(self, before: dict, e1: dict, e2: dict, loc: Loc) -> set:
        """The names a branch of an if statement makes complex: each arm's value made the pair
        (re, im) its arm computes (a real value's imaginary part zeros), joined like a tuple."""
        names = set()
        for n in set(e1) | set(e2):
            a, c = e1.get(n), e2.get(n)
            if not (isinstance(a, Complex) or isinstance(c, Complex)) or a is before.get(n) and c is before.get(n):
                continue
            if isinstance(a, (Term, Complex)) and isinstance(c, (Term, Complex)):
                e1[n], e2[n] = complexes.as_pair(self, a, loc), complexes.as_pair(self, c, loc)
                names.add(n)
        return names

def _atoms(t: Term) -> bool:
    """A tuple display of atoms (or of such displays): kept as the name's value, so its items stay
    what they are (a constant item stays a constant: scipy.linalg.cho_factor's (c, lower) read by
    cho_solve; Python's number stays Python's)."""
    return isinstance(t, Tuple) and all(is_atom(x) or _atoms(x) for x in t.items)


def _may_raise(t: Term) -> bool:
    """Whether evaluating t may raise: it runs a check (may_fail), or calls a function of yours,
    whose checks are in its own body (if x > 0: s = h(v) raises where h does, s unused or not)."""
    return may_fail(t) or any(type(n) is Call and lookup(n.fn) is None for n in subterms(t))
