"""Python lists that grow: ``xs = []``, ``xs.append(e)``, ``xs.extend(ys)``, ``xs += ys`` and
``xs + ys``, lowered as values (the list is a new value after each change, as an array after an
item assignment: updates.py), so only a list nothing else refers to may grow (``OWNED``).

A list of numbers or of arrays of one shape is a vector (marked as a Python list: lower.py's
``as_list``), as a list display or comprehension is; one of values of different types is a tuple
marked with its Tree (catad.trees). Outside loops (and in loops that are unrolled: over a tuple,
a dict, or a range of known bounds whose variable indexes a list) an append makes the list one
longer: ``[]`` then ``xs.append(e)`` is the display ``[e]``, a vector list then
``build(n + 1, \\i. if i < n then xs[i] else e)``.

In a loop that is a fold, the list is the fold's state as two values: a *buffer*, the vector of
the list's length after the loop, made before it (its first elements the list's, the others
zeros of the appended elements' shape), and the *count* of elements written. An append writes
``buf[count] = e`` (``build(len, \\k. if k == count then e else buf[k])``: when the iterations are
independent, catad.frontend.independent makes the loop a build) and counts one more. The
buffer's length is the list's length plus the loop's trip count times the appends in its body;
so the trip count must be known before the loop runs (a for loop over a range, an array, zip or
enumerate; not a while loop) and the appends of the body must be counted while compiling
(statements of the body, under ifs, not in a nested loop). Appends under an if make a list as
long as the appends that ran: the buffer's first ``count`` elements. The elements' type and
shape come from lowering the body once first (thrown away), and their lengths must be known
before the loop; each append checks its element has that shape (a list of arrays of several
shapes is not an array). A list of arrays that may end up empty is checked not to be where NumPy
would make it an array (np.array, np.stack, ...): NumPy makes an empty list the array of shape
(0,), which has not the element's axes catad keeps.
"""
from __future__ import annotations

import ast

from ..errors import CatadTypeError, Loc
from ..lang.terms import Build, Call, Const, Get, If, Term, Tuple, Var, free_vars, let_chain, make_lets
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Vec, rank, scalar_of
from ..primitives import prim
from .common import NO_ROWS, MIXED, all_py, ONE, ZERO, is_array, join_types, joined_rows
from .shapes import Dim, canonical, fresh, lin_const, simple
from .updates import OWNED
from ..trees import Tree

_GROW = ("append", "extend")


class ListState:
    """An env entry for a list that is not (yet) a value."""


class EmptyList(ListState):
    """``xs = []``: its element type comes with its first append."""

    def __init__(self, loc: Loc):
        self.loc = loc


class Growing(ListState):
    """A list filled by the fold being lowered: env[buf] is its buffer, env[count] how many of
    its elements are written; `py`: whether every element is one of Python's numbers (those it
    held before the loop, and every one appended in each lowering of the body so far)."""

    def __init__(self, buf: str, count: str, py: bool = False, layout=None):
        self.buf, self.count, self.py = buf, count, py
        # the py_layout of what it held before the loop, and the kinds of the numbers appended:
        # some Python's, some NumPy's, some either by a condition (of each iteration's values)
        self.layout, self.some_py, self.some_numpy, self.either = layout, False, False, False
        self.zero_d = False  # an array of no axes among its items (Lowerer.holds_zero_d)
        self.rows = NO_ROWS  # its rows' kind (Lowerer.rows_kind): of those held before and appended

    def appended_layout(self):
        """The py_layout of the elements appended (of a count known at run time)."""
        if self.either or self.some_py and self.some_numpy:
            return MIXED
        return (), self.some_py, ()


class Recorder(ListState):
    """A list filled by a loop whose body is lowered once to learn the appended elements' type
    and shape: the elements appended (terms of that lowering, thrown away)."""

    def __init__(self, initial: Term | None):
        self.initial, self.elems = initial, []
        self.rows = NO_ROWS  # the rows_kind of the elements appended (before binding: marks are kept there)


def _call_of(s: ast.stmt):
    """(name, method, argument) of a statement ``name.append(e)`` / ``name.extend(e)``."""
    if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and isinstance(s.value.func, ast.Attribute) \
            and isinstance(s.value.func.value, ast.Name) and s.value.func.attr in _GROW:
        return s.value.func.value.id, s.value.func.attr, s.value
    return None


def grown_in(stmts: list[ast.stmt]) -> list[str]:
    """The names a loop body grows (append, extend, += at any depth), in order of appearance."""
    out: dict[str, None] = {}
    for st in stmts:
        for n in ast.walk(st):
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _GROW \
                    and isinstance(n.func.value, ast.Name):
                out[n.func.value.id] = None
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and isinstance(n.op, ast.Add):
                out[n.target.id] = None
    return list(out)


class Lists:
    """Growing lists. Uses the lowerer's env, b, names, fail, loc, expr, bind, bind_temp,
    as_list, is_list, tree, with_tree, owned and note_references (updates.py)."""

    # ------------------------------------------------------------ statements

    def list_statement(self, s: ast.stmt, pieces: list) -> bool:
        """Lower s when it makes or grows a list (xs = [], a, b = [], [], xs.append(e),
        xs.extend(ys), xs += ys of a list xs): True when it did."""
        loc = self.loc(s)
        if isinstance(s, (ast.Assign, ast.AnnAssign)) and s.value is not None:
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            pairs = [(t, s.value) for t in targets]
            if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) and \
                    isinstance(s.value, (ast.Tuple, ast.List)) and len(targets[0].elts) == len(s.value.elts):
                pairs = list(zip(targets[0].elts, s.value.elts))
            if not any(_empty(v) for _, v in pairs):
                return False
            if not all(isinstance(t, ast.Name) for t, _ in pairs) or len(targets) > 1 and len(pairs) > 1:
                return False
            for t, v in pairs:
                if _empty(v):
                    self.env[t.id] = EmptyList(self.loc(v))
                    self.env[OWNED] = self.owned() | {t.id}
                else:
                    self.assign(t, self.expr(v), pieces, loc)
                    self.note_assignment(ast.Assign(targets=[t], value=v))
            return True
        call = _call_of(s)
        if call is not None:
            name, method, node = call
            if not self._is_list_name(name):
                return False
            if len(node.args) != 1 or node.keywords:
                self.fail(node, f"list.{method}", f"list.{method}() takes exactly one argument", CatadTypeError)
            arg = node.args[0]
            items = self._extension(arg) if method == "extend" else [self.expr(arg)]
            self.note_references(arg)  # the list now holds these values: an array in it is shared
            self.grow(name, items, node, pieces)
            return True
        if isinstance(s, ast.AugAssign) and isinstance(s.target, ast.Name) and self._is_list_name(s.target.id):
            if not isinstance(s.op, ast.Add):
                self.fail(s, "list arithmetic", "only += extends a list (*= repeats it, which catad does not compile)")
            items = self._extension(s.value)
            self.note_references(s.value)
            self.grow(s.target.id, items, s, pieces)
            return True
        return False

    def list_kind(self, t: Term) -> str | None:
        """"vector" for a list kept as a vector, "tuple" for one of values of different types,
        None for anything that is not a Python list."""
        if self.is_list(t) and is_array(t):
            return "vector"
        tree = self.tree(t)
        return "tuple" if tree is not None and tree.kind == "list" else None

    def concatenated(self, a: Term, b: Term, node: ast.AST) -> Term:
        """xs + ys of two lists: the list of xs's values, then ys's (a new list), holding Python's
        numbers where they do (max([x for e in v] + [0.5]) is Python's 0.5 for an empty v)."""
        out = self._concatenated(a, b, node)
        wa, wb = self.py_positions(a), self.py_positions(b)
        if not is_array(out):
            return out
        self.mark_rows(out, joined_rows(self.rows_kind(a), self.rows_kind(b)))
        self.mark_zero_d_items(out, a, b)
        if wa is not None and wb is not None and all_py(wa) and all_py(wb):
            self.mark_py_positions(out, "all")
        elif isinstance(wa, tuple) and isinstance(wb, tuple):
            self.mark_py_positions(out, wa + wb)
        else:  # a length known only at run time: Python's numbers by their place
            self.mark_py_layout(out, joined_layout(self.py_layout(a), self.py_layout(b)))
        return out

    def _concatenated(self, a: Term, b: Term, node: ast.AST) -> Term:
        loc = self.loc(node)
        if self.list_kind(b) == "vector":
            if self.list_kind(a) == "vector":
                return self._joined(a, b, node)
            k = lin_const(self.b.shapes.lin(self.b.length(b, loc)))
            if k is None:  # values of different types, then as many of one type as the data says
                self.fail(node, "list concatenation", "a list of values of different types followed by a list of "
                          "a length known only at run time is not supported", hint="make both lists of one kind "
                          "of value, or arrays")
            return self.b.share(b, lambda y: self._joined(a, [prim("index", Const(j, Int), y, loc=loc)
                                                              for j in range(k)], node), loc)
        items = [self.with_tree(b.items[k] if isinstance(b, Tuple) else Get(k, b, b.loc), self.item_tree(b, k))
                 for k in range(len(b.type.items))]
        return self.b.share(a, lambda x: self._joined(x, items, node), loc) if self.list_kind(a) == "vector" \
            else self._joined(a, items, node)

    def repeated(self, xs: Term, k: Term, node: ast.AST) -> Term:
        """xs * k (or k * xs) of a list and an int: Python's repetition, the items k times over
        (none where k <= 0); a list of values of different types takes a k known while compiling."""
        loc = self.loc(node)
        k = self.b.numeric(k, Int, loc) if k.type is Bool else k
        times = k.value if isinstance(k, Const) else lin_const(self.b.shapes.lin(k))
        if self.list_kind(xs) == "tuple":
            if times is None:
                self.fail(node, "list repetition", "a list of values of different types repeated a number of times "
                          "known only at run time: catad holds it as a tuple, whose length is known while compiling",
                          hint="repeat it by a constant")
            return self.tuple_joined([xs], lambda x: x * max(int(times), 0), node, kind="list")
        where = self.py_positions(xs)
        mixed = isinstance(where, tuple) and any(where) and not all(where)

        def body(x, c):
            n = self.b.size(x, 0, loc)
            i = self.b.var(Int, loc, "_i")
            total = prim("mul", If(prim("lt", c, ZERO, loc=loc), ZERO, c, loc), n, loc=loc)
            return Build(total, i, prim("index", prim("mod", i, n, loc=loc), x, loc=loc), loc)
        out = self.mark_zero_d_items(self.as_list(self.b.share_all([xs, k], body, loc)), xs)
        self.mark_rows(out, self.rows_kind(xs))
        if where is None and self.laid_out(xs) is not None or mixed and times is None:
            return self.mark_py_layout(out, MIXED)  # (its items' kinds at places known only at run time)
        if where == "all" or isinstance(where, tuple) and where and all(where):
            return self.mark_py_positions(out, "all")
        if mixed:
            return self.mark_py_positions(out, where * max(int(times), 0))
        return out

    def _is_list_name(self, name: str) -> bool:
        v = self.env.get(name)
        if isinstance(v, ListState):
            return True
        if not isinstance(v, Term):
            return False
        tree = self.tree(v)
        return self.is_list(v) or tree is not None and tree.kind == "list"

    def _extension(self, node: ast.expr):
        """What extend(node) / += node appends: the items of a list display, a tuple or list of
        values, or a vector (a Term: its elements, a number of them known only at run time)."""
        if isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return [self.expr(e) for e in node.elts]
        t = self.expr(node)
        if isinstance(t.type, TupleT):
            return [self.with_tree(t.items[k] if isinstance(t, Tuple) else Get(k, t, t.loc), self.item_tree(t, k))
                    for k in range(len(t.type.items))]
        if is_array(t):
            return t
        self.fail(node, "list.extend", f"a list is extended by a list, a tuple or an array, got a {t.type}",
                  CatadTypeError)

    # ------------------------------------------------------------ growing a list

    def grow(self, name: str, items, node: ast.AST, pieces: list) -> None:
        """name's list with items appended (a list of terms, or a vector of them)."""
        loc = self.loc(node)
        if name not in self.owned():
            self.fail(node, "list.append", f"this changes the list {name!r}, which another value (a parameter, a "
                      "second name, a tuple, a loop over it) may refer to, and would see the change in Python",
                      hint=f"make a new list: {name} = [...] or {name} = {name} + [e]")
        cur = self.env[name]
        if isinstance(cur, Recorder):
            if isinstance(items, Term):
                self.fail(node, "list.extend", "extending a list by an array in a loop is not supported: the list's "
                          "length after the loop would not be known before it", hint="append the elements one by one")
            cur.elems += [self.bind_temp(e, pieces, loc) for e in items]
            for e in items:
                cur.rows = joined_rows(cur.rows, self.made_rows([e]) if is_array(e) else None)
            return
        if isinstance(cur, Growing):
            if isinstance(items, Term):
                self.fail(node, "list.extend", "extending a list by an array in a loop is not supported: the list's "
                          "length after the loop would not be known before it", hint="append the elements one by one")
            for e in items:
                self._write(name, cur, e, node, pieces)
            return
        appended = items  # (their marks: a list bound to a variable is no longer known as one)
        if not isinstance(items, Term):
            items = [self.bind_temp(e, pieces, loc) for e in items]
        new = self._joined(cur, items, node)
        if is_array(new) and not isinstance(items, Term):
            self._mark_appended(cur, new, appended)
        if is_array(new):  # (by the items as they were made: a list bound to a variable is not known as one)
            mine = _rows_of(self, items) if isinstance(items, Term) else self.made_rows(appended)
            self.mark_rows(new, mine if isinstance(cur, EmptyList) else joined_rows(self.rows_kind(cur), mine))
        self.bind(name, new, pieces, loc)

    def _mark_appended(self, cur, new: Term, items: list) -> None:
        """new, cur with items appended, marked where it holds Python's numbers: by position where
        cur's are known (an empty list's, a display's), as a whole where every item of cur is."""
        self.mark_zero_d_items(new, *items, *([] if isinstance(cur, EmptyList) else [cur]))
        kinds = [self.item_kind(x) for x in items]
        if any(self.is_list(x) and is_array(x) for x in items):  # rows: the list's marked as a whole
            every = set(kinds) | (set() if isinstance(cur, EmptyList) else {self.item_kind(cur)})
            if every == {"py"}:
                self.mark_py_items(new)
            elif every != {"numpy"}:
                self.mark_py_layout(new, MIXED)
            return
        if "either" in kinds:
            self.mark_py_layout(new, MIXED)  # (its items read as of a kind catad cannot tell)
            return
        mine = tuple(k == "py" for k in kinds)  # (an int held as a float too: subscripts.list_of)
        got = ((),) if isinstance(cur, EmptyList) else self.py_items_of(cur)
        if got is None:
            self.mark_py_layout(new, joined_layout(self.py_layout(cur), (mine, None, ())))
            return
        if got[0] is not None:
            self.mark_py_items(new, got[0] + mine)
        elif all(mine):
            self.mark_py_items(new)

    def _joined(self, cur, items, node: ast.AST) -> Term:
        """The list cur (EmptyList, a vector list or a tuple list) followed by items."""
        loc = self.loc(node)
        if isinstance(cur, EmptyList):
            if isinstance(items, Term):  # a copy of the array's elements
                return self.mark_rows(self.as_list(items.replace()), _rows_of(self, items))
            return self.list_of(items, node)
        if isinstance(items, Term) and self.tree(cur) is not None:
            self.fail(node, "list.extend", "extending a list of values of different types by an array is not "
                      "supported", hint="extend it by a list or a tuple")
        if self.tree(cur) is not None:  # a tuple list: one more value each
            old = [cur.items[k] if isinstance(cur, Tuple) else Get(k, cur, cur.loc) for k in range(len(cur.type.items))]
            trees = [self.item_tree(cur, k) for k in range(len(old))] + [self.tree(x) for x in items]
            return self.with_tree(Tuple(tuple(old + list(items)), loc), Tree("list", tuple(trees)))
        return self._concat(cur, items, node)

    def list_of(self, items: list[Term], node: ast.AST) -> Term:
        """The list of items, as a display [a, b] of them is (subscripts.py)."""
        from .subscripts import _one_array
        loc = self.loc(node)
        if not items:
            self.fail(node, "empty list", "an empty list has no element type")
        if not _one_array(items):
            return self.with_tree(Tuple(tuple(items), loc), Tree("list", tuple(self.tree(x) for x in items)))
        out = self.as_list(self._display_build(items, any(scalar_of(t.type) == Float for t in items), node))
        return self.mark_rows(out, self.made_rows(items))

    def _concat(self, xs: Term, items, node: ast.AST) -> Term:
        """The vector list xs followed by items (terms, or a vector): one build, each appended
        array checked to have the shape of xs's elements."""
        loc = self.loc(node)
        elem = xs.type.elem
        adds = [items] if isinstance(items, Term) else list(items)
        types = [(x.type.elem if isinstance(items, Term) else x.type) for x in adds]
        ty = elem
        for t in types:
            ty = join_types(ty, t) if ty is not None else None
        if ty is None or isinstance(ty, TupleT):
            shown = ", ".join(dict.fromkeys(str(t) for t in types))
            self.fail(node, "list.append", f"this list holds {elem}s and a {shown} is appended; catad keeps a list "
                      "of numbers or of arrays of one shape as an array, whose elements have one type",
                      CatadTypeError, "append values of one type, or build a tuple")

        def body(x, *news):
            binds, n = [], self.b.size(x, 0, loc)
            total, parts = n, []
            for t in news:
                if isinstance(items, Term):
                    binds += self._fits(t, x, node, rows=True)
                    m = self.b.size(t, 0, loc)
                    parts.append((total, m, t, True))
                    total = prim("add", total, m, loc=loc)
                else:
                    binds += self._fits(t, x, node)
                    parts.append((total, ONE, t, False))
                    total = prim("add", total, ONE, loc=loc)
            i = self.b.var(Int, loc, "_i")
            out = self.b.coerce(prim("index", i, x, loc=loc), ty, loc) if elem != ty else prim("index", i, x, loc=loc)
            for start, m, t, rows in parts:
                value = prim("index", prim("sub", i, start, loc=loc), t, loc=loc) if rows else t
                out = If(prim("lt", i, fresh(start, loc), loc=loc), out, self.b.coerce(value, ty, loc), loc)
            return make_lets(binds, Build(total, i, out, loc))
        return self.as_list(self.b.share_all([xs, *adds], body, loc))

    def _fits(self, e: Term, xs: Term, node: ast.AST, rows: bool = False) -> list:
        """Checks that the array e (the rows of e) has the shape of xs's elements."""
        loc = self.loc(node)
        inner = self.b.shape(xs)[1:]
        got = self.b.shape(e)[1:] if rows else self.b.shape(e)
        if len(got) != len(inner):
            self.fail(node, "list.append", f"an array of rank {len(got)} is appended to a list of arrays of rank "
                      f"{len(inner)}; catad keeps such a list as one array", CatadTypeError)
        conds, binds = [], []
        for a, b in zip(got, inner):
            if not self.b.shapes.same(a, b):
                conds.append(prim("eq", a.size, b.size, loc=loc))
        for c in conds:
            binds += self.b.check(c, (tuple(d.size for d in got), tuple(d.size for d in inner)), loc, "list.append",
                                  "catad keeps a list of arrays as one array, so the arrays in it must have one "
                                  "shape: one of shape {0} is added to a list of arrays of shape {1}")
        return binds

    # ------------------------------------------------------------ in a fold

    def _write(self, name: str, g: Growing, e: Term, node: ast.AST, pieces: list) -> None:
        """buf[count] = e; count += 1 (the buffer is as long as every append can make the list)."""
        loc = self.loc(node)
        buf, count = self.env[g.buf], self.env[g.count]
        elem = buf.type.elem
        if join_types(elem, e.type) != elem:
            self.fail(node, "list.append", f"a {e.type} is appended to the list {name!r} of {elem}s, whose type "
                      "catad takes from the loop's first lowering", CatadTypeError, "append values of one type")
        self._note_kind(g, e)
        g.rows = joined_rows(g.rows, self.made_rows([e]) if is_array(e) else None)
        e = self.bind_temp(self.b.coerce(e, elem, loc), pieces, loc)
        checks = self._fits(e, buf, node) if is_array(e) else []
        k = self.b.var(Int, loc, "_k")
        new = Build(self.b.size(buf, 0, loc), k, If(prim("eq", k, count, loc=loc), e, prim("index", k, buf, loc=loc),
                                                   loc), loc)
        self.bind(g.buf, make_lets(checks, new), pieces, loc)
        self.bind(g.count, prim("add", count, ONE, loc=loc), pieces, loc)

    def nonempty_list(self, t: Term, node: ast.AST, what: str, message: str | None = None) -> Term:
        """t, checked not to be an empty list of arrays where what (a NumPy function, sum) reads
        it: NumPy makes an empty list the array of shape (0,), and sum([]) is the int 0, where
        catad's list keeps its elements' axes. A list of numbers, or one known not to be empty,
        is t itself."""
        if not (self.is_list(t) and rank(t.type) >= 2):
            return t
        loc = self.loc(node)
        message = message or (f"{what} of an empty list of arrays: NumPy makes an empty list the array of shape (0,), "
                              "without the axes of the elements catad's list keeps")

        def body(v):
            n = self.b.size(v, 0, loc)
            if self.b.shapes.at_most(ONE, n):
                return v
            return make_lets(self.b.check(prim("lt", ZERO, n, loc=loc), (), loc, what, message), v)
        return self.as_list(self.b.share(t, body, loc))

    def _note_kind(self, g: Growing, e: Term) -> None:
        kind = self.item_kind(e)  # (an int held as a float too: subscripts.list_of)
        g.zero_d = g.zero_d or self.is_zero_d(e) or self.holds_zero_d(e)
        g.py = g.py and kind == "py"
        g.some_py, g.some_numpy = g.some_py or kind == "py", g.some_numpy or kind == "numpy"
        g.either = g.either or kind == "either"

    def _mark_grown(self, g: Growing, value: Term) -> Term:
        """value, the elements of the growing list g (so far, or after the loop), marked: all
        Python's, or by the layout of what it held before the loop and the kinds appended."""
        if g.zero_d:
            self.mark_zero_d_items(value)
        self.mark_rows(value, None if g.rows is NO_ROWS else g.rows)
        if g.py:
            return self.mark_py_items(value)
        return self.mark_py_layout(value, joined_layout(g.layout, g.appended_layout()))

    def list_value(self, name: str, v: ListState, node: ast.AST) -> Term:
        """A list read as a value: a growing one's elements written so far (buf[:count])."""
        if isinstance(v, EmptyList):
            self.fail(node, "empty list", f"the list {name!r} is empty here; catad takes a list's element type "
                      "from what is appended to it, and an empty list has none",
                      hint="append to it first, or make an array: np.zeros(0)")
        if isinstance(v, Recorder):
            if v.initial is not None:
                return v.initial
            if not v.elems:
                self.fail(node, "list", f"the list {name!r} is read in the loop that fills it before anything is "
                          "appended to it; catad takes its element type from the appended values",
                          hint="give the list a first element before the loop")
            return self.list_of(list(v.elems), node)
        loc = self.loc(node)
        buf, count = self.env[v.buf], self.env[v.count]
        return self._mark_grown(v, self.as_list(self.b.subscript(buf, [("slice", None, count)], loc)))

    def grown_lists(self, s: ast.For) -> list[str]:
        """The lists s's body grows from one iteration to the next (not those it makes anew)."""
        made = {t.id for st in s.body for n in ast.walk(st) if isinstance(n, (ast.Assign, ast.AnnAssign))
                for t in (n.targets if isinstance(n, ast.Assign) else [n.target]) if isinstance(t, ast.Name)}
        return [n for n in grown_in(s.body) if n not in made and self._is_list_name(n)]

    def grown_state(self, s: ast.For, src, grown: list[str], probe, pieces: list) -> tuple[list, dict]:
        """The fold-state entries (name, initial value) of the lists s's body grows: each list's
        buffer and count, made here (bound in pieces), env[name] then a Growing; and for each
        list whether every iteration appends the same number of values (then the whole buffer
        is the list after the loop). probe(overrides) lowers the body once with env overrides."""
        loc = self.loc(s)
        counts = {n: self._appends(s.body, n) for n in grown}
        if src.length is None:
            self.fail(s, "list.append", f"the list {grown[0]!r} is appended to in a while loop, whose trip count is "
                      "not known before it runs; catad makes a list filled in a loop with its final length first",
                      hint="use a for loop over range(n_max) with a break, or fill an array np.zeros(n_max) and "
                           "keep a count")
        recorders = {}
        for n in grown:
            cur = self.env.get(n)
            if isinstance(cur, Term) and self.tree(cur) is not None:
                self.fail(s, "list.append", f"the list {n!r} holds values of different types (a tuple of them); "
                          "catad cannot grow it in a loop", hint="append numbers or arrays of one shape")
            recorders[n] = Recorder(cur if isinstance(cur, Term) else None)
        serial = len(self.names.serial)
        probe(recorders)
        entries, exact = [], {}
        for n in grown:
            elem, dims = self._element(n, recorders[n], serial, s)
            per, exact[n] = counts[n]
            initial = recorders[n].initial
            buf, count = self._buffer(n, initial, elem, dims, prim("mul", fresh(src.length, loc), Const(per, Int), loc=loc),
                                      pieces, loc)
            keys = ("\0" + n + "_buf", "\0" + n + "_count")
            entries += [(keys[0], buf), (keys[1], count)]
            g = self.env[n] = Growing(*keys, py=initial is None or self.has_py_items(initial),
                                      layout=((), None, ()) if initial is None else self.py_layout(initial))
            g.zero_d = initial is not None and self.holds_zero_d(initial)
            g.rows = joined_rows(NO_ROWS if initial is None else self.rows_kind(initial), recorders[n].rows)
            for e in recorders[n].elems:  # (the probe's: what the body appends, known before it is read)
                self._note_kind(g, e)
        return entries, exact

    def _appends(self, stmts: list[ast.stmt], name: str) -> tuple[int, bool]:
        """(the most values one run of stmts appends to name, whether every run appends that many)."""
        total, exact = 0, True
        for st in stmts:
            call = _call_of(st)
            if call is not None and call[0] == name:
                total += 1 if call[1] == "append" else self._extended_by(call[2].args[0] if call[2].args else None, st)
            elif isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name) and st.target.id == name:
                total += self._extended_by(st.value, st)
            elif isinstance(st, ast.If):
                (a, ea), (b, eb) = self._appends(st.body, name), self._appends(st.orelse, name)
                total, exact = total + max(a, b), exact and ea and eb and a == b
            elif isinstance(st, (ast.For, ast.While)) and name in grown_in(st.body):
                self.fail(st, "list.append", f"the list {name!r} is appended to in a loop inside the loop that fills "
                          "it; catad sizes a list filled in a loop before that loop, counting the appends of its body",
                          hint="append a row made by a comprehension, xs.append([e for j in range(m)]), or fill an "
                               "array np.zeros((n, m))")
        return total, exact

    def _extended_by(self, node: ast.expr | None, st: ast.stmt) -> int:
        if isinstance(node, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in node.elts):
            return len(node.elts)
        self.fail(st, "list.extend", "extending a list in a loop by a value whose length is not written out is not "
                  "supported: the list's length after the loop must be known before it",
                  hint="append the elements one by one, or extend by a display: xs += [a, b]")

    def _element(self, name: str, rec: Recorder, serial: int, s: ast.For):
        """The type and shape (Dims over values known before the loop) of the list's elements."""
        types = [e.type for e in rec.elems] + ([rec.initial.type.elem] if rec.initial is not None else [])
        if not types:
            self.fail(s, "list.append", f"nothing is appended to the list {name!r} in this loop")
        ty = types[0]
        for t in types[1:]:
            ty = join_types(ty, t) if ty is not None else None
        if ty is None or isinstance(ty, TupleT) or scalar_of(ty) not in (Float, Int, Bool):
            shown = ", ".join(dict.fromkeys(str(t) for t in types))
            self.fail(s, "list.append", f"the values appended to the list {name!r} in this loop are {shown}; catad "
                      "keeps a list filled in a loop as an array, of numbers or of arrays of one type",
                      CatadTypeError, "append numbers, or arrays of one shape")
        if not isinstance(ty, Vec):
            return ty, ()
        outer = lambda t: all(self.names.serial.get(v.name, 0) <= serial or any(v is h for _, h, _ in self.hidden.values())
                              for v in free_vars(t))
        candidates = ([self.b.shape(rec.initial)[1:]] if rec.initial is not None else []) + \
            [self.b.shape(e) for e in rec.elems if is_array(e)]
        for dims in candidates:
            sizes = [None if d.size is None else self._in_terms_of_outer(d.size, serial) for d in dims]
            if len(dims) == rank(ty) and all(t is not None and outer(t) for t in sizes):
                return ty, tuple(Dim(t, d.one) for t, d in zip(sizes, dims))
        self.fail(s, "list.append", f"the arrays appended to the list {name!r} have lengths computed in the loop; "
                  "catad makes a list filled in a loop an array of its final shape before the loop, so the "
                  "lengths of its elements must be known there", hint="compute the lengths before the loop, or "
                  "make the list with a comprehension")

    def _in_terms_of_outer(self, size: Term, serial: int, depth: int = 0) -> Term | None:
        """size with the Int variables bound in the loop's body (after `serial`) replaced by
        their values (their linear forms, exact: Shapes.note_int), so that an element's length
        computed in the body from lengths known before it (a slice icf[j, :d]) is a term over
        those; None when it cannot be written so (a size that binds)."""
        if not simple(size) or depth > 50:
            return None
        shapes = self.b.shapes
        inner = [v for v in free_vars(size) if self.names.serial.get(v.name, 0) > serial]
        if not inner:
            return fresh(size)
        swap, lengths = {}, {}
        for v in inner:
            if v.type == Int and v.name in shapes.forms:
                form = shapes.forms[v.name]
                if len(form[0]) == 1 and form[1] == 0 and dict(form[0]).get(v) == 1:
                    return None  # the variable is its own form: its value is not known here
                swap[v.name] = self.b.term_of(form, size.loc)
            elif isinstance(v.type, Vec) and v.name in shapes.dims:  # size(v), dim(v, k): v's known lengths
                lengths[v.name] = [_built_length(shapes.values.get(v.name), k, v) or d.size
                                   for k, d in enumerate(shapes.dims[v.name])]
            else:
                return None
        new = _substituted(size, swap, lengths)
        return None if new is None else self._in_terms_of_outer(new, serial, depth + 1)

    def _buffer(self, name: str, initial: Term | None, elem, dims: tuple, added: Term, pieces: list, loc):
        """(the buffer, its count) before the loop: initial's elements, then zeros, `added` more."""
        zero = Const({Float: 0.0, Int: 0, Bool: False}[scalar_of(elem)], scalar_of(elem), loc)
        ks = [self.b.var(Int, loc, "_j") for _ in dims]
        filler = zero
        for d, k in reversed(list(zip(dims, ks))):
            filler = Build(fresh(d.size, loc), k, filler, loc)
        i = self.b.var(Int, loc, "_i")
        if initial is None:
            count = Const(0, Int, loc)
            buf = Build(added, i, filler, loc)
        else:
            count = self.bind_temp(self.b.size(initial, 0, loc), pieces, loc)
            old = self.b.coerce(prim("index", i, initial, loc=loc), elem, loc)
            buf = Build(prim("add", count, added, loc=loc), i, If(prim("lt", i, count, loc=loc), old, filler, loc), loc)
        return self.bind_temp(buf, pieces, loc), count

    def grown_after(self, s: ast.For, grown: list[str], exact: dict, pieces: list) -> None:
        """After the fold: each list is its buffer, or the part of it its count says was written."""
        loc = self.loc(s)
        for n in grown:
            g = self.env[n]
            buf, count = self.env[g.buf], self.env[g.count]
            value = buf if exact[n] else self.b.subscript(buf, [("slice", None, count)], loc)
            self._mark_grown(g, value)  # (unmarked, its numbers would be taken to be NumPy's)
            self.bind(n, self.as_list(value), pieces, loc)
            self.env[OWNED] = self.owned() | {n}


def _built_length(value: Term | None, k: int, v: Var) -> Term | None:
    """The length of axis k of the value a variable v is bound to, read from its builds (the
    Int lets around them put in), when it is a simple term that does not read v; else None."""
    swap: dict[str, Term] = {}
    for _ in range(k + 1):
        if value is None:
            return None
        lets, value = let_chain(value)
        for lt in lets:
            if lt.var.type == Int and simple(lt.rhs):
                swap[lt.var.name] = _substituted(lt.rhs, swap, {}) or lt.rhs
        if not isinstance(value, Build):
            return None
        size, value = value.size, value.body
    out = _substituted(size, swap, {}) if simple(size) else None
    return None if out is None or v in free_vars(out) else out


def _substituted(t: Term, swap: dict[str, Term], lengths: dict[str, list]) -> Term | None:
    """A copy of a small term (a size: no binders) with Int variables replaced by terms (swap)
    and the lengths of arrays read by size(v) and dim(v, k) by their terms (lengths); None
    where an array is read otherwise, or a length is its own (canonical) reading."""
    if isinstance(t, Var):
        if t.name in lengths:
            return None
        return fresh(swap[t.name]) if t.name in swap else t
    if isinstance(t, Const):
        return t
    if isinstance(t, Call) and t.fn in ("size", "dim") and isinstance(t.args[0], Var) and t.args[0].name in lengths:
        k = 0 if t.fn == "size" else t.args[1].value if isinstance(t.args[1], Const) else None
        sizes = lengths[t.args[0].name]
        if k is None or k >= len(sizes) or canonical(t.args[0], k) == sizes[k] or t.args[0] in free_vars(sizes[k]):
            return None
        return fresh(sizes[k])
    changes = {}
    for f in t._init_fields:
        v = getattr(t, f)
        if isinstance(v, Term):
            changes[f] = _substituted(v, swap, lengths)
            if changes[f] is None:
                return None
        elif isinstance(v, tuple):
            changes[f] = tuple(_substituted(x, swap, lengths) if isinstance(x, Term) else x for x in v)
            if any(x is None for x in changes[f]):
                return None
    return t.replace(**changes)


def _empty(node: ast.expr) -> bool:
    return isinstance(node, ast.List) and not node.elts


def _rows_of(lw, xs: Term):
    """The rows_kind of a list made of the items of xs, a list or an array (whose rows are arrays)."""
    return lw.rows_kind(xs) if lw.is_list(xs) else ("array",) if rank(xs.type) >= 2 else None


def joined_layout(a, b):
    """The py_layout of xs + ys from theirs: None where either is not known, MIXED where items of
    both kinds would be between the first and the last known ones."""
    if a is None or b is None:
        return None
    if a is MIXED or b is MIXED:
        return MIXED
    (ha, ma, ta), (hb, mb, tb) = a, b
    if ma is None:
        return ha + hb, mb, tb
    if mb is None:
        return ha, ma, ta + hb
    if ma == mb and all(x == ma for x in ta + hb):
        return ha, ma, tb
    return MIXED
