"""Lowering comprehensions: ``[e for i in range(n)]`` is a build, ``sum``/``max``/``min`` of a
comprehension reduce one, several for clauses nest (each reduced), filters guard the element.
A comprehension iterates over ``range(...)``, an array, ``zip(arrays...)`` or
``enumerate(array)``. While its element is lowered, a :class:`catad.frontend.checks.Frame` on the
Builder collects the bounds checks it hoists, which run once, before the build.

``Comprehensions`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
import contextlib

from ..errors import CatadTypeError
from .._node import walk
from ..lang.terms import (TRUE, Build, Call, Const, If, Let, Term, Tuple, Var, free_vars, is_atom, let_chain, make_lets,
                          may_fail, term_children)
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Vec, scalar_of
from ..primitives import prim
from ..trees import Tree
from . import combinatorics, int_range
from .int_range import IntBound
from .checks import Frame
from .common import MIXED, ONE, is_array, or_
from .freenames import NOT_STATIC
from .loops import ENUMERATE_ZIP, iteration_fn, unreversed
from .shapes import fresh, in_scope, simple
from .numpy_selections import nonzero_positions
from .subscripts import DictKey, _one_array

_MISSING = object()


class Comprehensions:
    """Comprehensions to builds. Uses the lowerer's env, b (the Builder), names, branch, as_list,
    expr and condition (expressions.py), assign and assemble (statements.py, for unpacking
    targets) and static (freenames.py)."""

    def x_ListComp(self, node: ast.ListComp) -> Term:
        """[e for ...]: a build (several for clauses nest; filters only inside sum)."""
        return self.as_list(self.comprehension(node, None))

    def x_DictComp(self, node: ast.DictComp) -> Term:
        """{k: v for x in xs} over items known while compiling (a dict's keys, values or items, a
        tuple, zip or enumerate of tuples, a range of constant bounds indexing a tuple): the dict
        display of its entries, Python's order (a repeated key keeps its first place and its last
        value), its keys string or int constants then (a dict's keys, a tuple's strings, a range's
        ints). Over an array or a range of bounds known only when the function runs it is refused:
        a dict's keys are part of its structure, known while compiling."""
        if len(node.generators) != 1 or node.generators[0].ifs or node.generators[0].is_async:
            self.fail(node, "dict comprehension", "a dict comprehension with one for clause and no filter is supported "
                      "here", hint="build it in a loop: d = {} then d[k] = v")
        g = node.generators[0]
        loc = self.loc(g.iter)
        items = self.static_items(g.iter, [node.key, node.value], g.target)
        if items is None and iteration_fn(self, g.iter) is range and not g.iter.keywords:
            bounds = [self.expr(a) for a in g.iter.args]  # (a range of constant bounds: its ints)
            if 1 <= len(bounds) <= 3 and all(isinstance(b, Const) and b.type == Int for b in bounds):
                items = [Const(k, Int, loc) for k in range(*(int(b.value) for b in bounds))]
        if items is None:
            self.fail(g.iter, "dict comprehension", "a dict comprehension runs over items known while compiling here "
                      "(a dict's keys or items, a tuple, a range of constant bounds): a dict's keys are part of its "
                      "structure", hint="use an array of the values: np.array([v for x in xs])")
        kept: dict = {}

        def entry(pieces):
            key = self._static_key(node.key)
            value = self.str_or_expr(node.value)
            kept[key] = self.assemble(pieces, value, None) if pieces else value
        self._each_item(g.target, items, loc, entry)
        return self.dict_of(tuple(kept), tuple(kept.values()), self.loc(node))

    def _static_key(self, node: ast.expr):
        """A dict comprehension's key for the item bound now: a str or an int known while compiling."""
        if isinstance(node, ast.Name) and isinstance(self.env.get(node.id), DictKey):
            return self.env[node.id].key
        text = self.static_str(node)
        if text is not NOT_STATIC:
            return text
        t = self.expr(node)
        if isinstance(t, Const) and t.type == Int:
            return int(t.value)
        self.fail(node, "dict comprehension", "a dict's keys must be strings or ints known while compiling here "
                  "(a dict's keys, a tuple's strings, a range's ints)")

    def x_GeneratorExp(self, node: ast.GeneratorExp) -> Term:
        """(e for ...) as the argument of sum, max or min: the reduction of a build."""
        self.fail(node, "generator expression", "a generator expression is only supported as the argument "
                                                "of sum, max or min; use [... for ...] to make a vector")

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, reduce: str | None, lists: bool = False) -> Term:
        """[e for ...] is a build; sum/max/min of a comprehension reduce the build (reduce names
        the primitive). Several for clauses nest, each one reduced."""
        node = combinatorics.comprehension_over(self, node)  # itertools.combinations, product
        gens = node.generators
        if reduce is None and len(gens) > 1:
            self.fail(node, "comprehension", "a list comprehension with several for clauses is not supported "
                      "(it flattens)", hint="nest comprehensions: [[e for j in ...] for i in ...]")
        if reduce is None and gens[0].ifs:
            return self._selected(node)
        for g in gens:
            if g.ifs and reduce != "sum":
                what = "max" if reduce == "vmax" else "min"
                self.fail(g.ifs[0], "comprehension filter", f"a filter (if) inside {what}(...) is not supported",
                          hint=f"use a conditional expression: {what}(e if c else ... for ...)")
            if g.is_async:
                self.fail(node, "comprehension", "async comprehensions are not supported")
        st = self.b.statement
        raised = st is not None and st.raised  # (before the sum: its own elements' checks may set it)
        saved, self.summed_onto_array = getattr(self, "summed_onto_array", False), lists and reduce == "sum"
        try:
            out = self._generators(gens, 0, node.elt, reduce)
        finally:
            self.summed_onto_array = saved
        if reduce == "sum" and any(g.ifs for g in gens):
            self._mark_none_passed(out, node, raised)
        return out

    def _selected(self, node: ast.ListComp) -> Term:
        """[e for x in xs if c]: e where the filters hold, a vector whose length is known when the
        function runs. The comprehension is lowered twice, as sum's of a filtered one is: once as
        [1 if c else 0 for x in xs], whose nonzero positions (np.flatnonzero) are those of the
        elements kept, and once as [e if c else 0 for x in xs] (the element computed, and its
        checks run, only where the filters hold, as Python computes it), read at those positions."""
        loc = self.loc(node)
        one = ast.copy_location(ast.Constant(1), node)
        kept = self._generators(node.generators, 0, one, None)
        values = self._generators(node.generators, 0, node.elt, None)

        def read(flags, vals):
            def picked(nz):
                k = self.b.var(Int, loc, "_k")
                return Build(self.b.size(nz, 0, loc), k, prim("index", prim("index", k, nz, loc=loc), vals, loc=loc),
                             loc)
            return self.b.share(nonzero_positions(self, flags, loc), picked, loc)
        out = self.mark_zero_d_items(self.b.share_all([kept, values], read, loc), values)
        self.mark_rows(out, self.rows_kind(values))
        if self.has_py_items(values):
            return self.mark_py_items(out)
        pos = self.py_positions(values)  # (Python's at some places: which are kept, the values say)
        partly = self.laid_out(values) is MIXED or isinstance(pos, tuple) and any(pos)
        return self.mark_py_layout(out, MIXED) if partly else out

    def count_items(self, gens: list[ast.comprehension], elt: ast.expr) -> Term:
        """sum(elt for gens), elt a count of one item (1 or 0), without the marking of a filtered
        sum's Python 0 (calls.h_any_all compares it with 0)."""
        return self._generators(gens, 0, elt, "sum")

    def _mark_none_passed(self, out: Term, node: ast.AST, raised: bool = False) -> None:
        """out, sum(e for ... if ...) of NumPy's numbers, marked Python's int 0 where no element
        passes the filters (Python's sum starts from 0): 1.0 / sum(x for x in v if x > 0) raises
        ZeroDivisionError there. Where none passes is a count of those that pass, bound before the
        statement (it raises nothing: where the statement raises, in a conditional or a
        comprehension too, it is computed first and unread); where it cannot be (reading what the
        statement binds, as a comprehension's variable, or running a check), out stays Python's
        only where there is nothing to add."""
        got, st, b = self.py_when(out), self.b.statement, self.b
        if got is not None and not (got[1] == Int and isinstance(got[2], Const) and got[2].value == 0):
            return  # (Python's elements: Python's where they are)
        if st is None:
            return
        one = ast.copy_location(ast.Constant(1), node)
        checks = [len(f.checks) for f in b.frames]
        count = self._generators(node.generators, 0, one, "sum")
        # (checks it adds before the statement are the sum's own again, there already: they pass
        # where those do; checks left in a comprehension around it would run after it). A count
        # that may raise (its filter reads m[0, -1]) raises as the sum would, where the statement
        # raises nothing before the sum (`raised`: what was lowered before it) and runs it surely:
        # not in a conditional or a comprehension.
        if [len(f.checks) for f in b.frames] != checks or may_fail(count) and (
                raised or b.frames or b.branch_depth != st.depth):
            return
        loc = self.loc(node)
        if any(self.names.serial.get(v.name, 0) > st.serial for v in free_vars(count)):
            return
        n = b.bound(b.var(Int, loc, "_n"), count)
        st.checks.append((n, count, loc))
        self.as_py_when(out, prim("eq", n, Const(0, Int), loc=loc), Int, Const(0, Int))

    def _generators(self, gens: list[ast.comprehension], k: int, elt: ast.expr, reduce: str | None) -> Term:
        g = gens[k]
        loc = self.loc(g.target)
        items = self.static_items(g.iter, [elt, *g.ifs, *gens[k + 1:]], g.target)
        if items is not None:
            return self._unrolled(gens, k, elt, reduce, items)
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
            element = self._filtered(gens, k, elt, reduce, loc)
            if reduce == "sum" and scalar_of(element.type) == Bool:  # 0 + True + ...: bools add as ints
                element = self.keep_py(element, self.b.numeric(element, Int, loc))
            if self._own_lengths(element):
                self.fail(elt, "comprehension", "each element of this comprehension selects its own count of "
                          "values (a boolean mask, np.nonzero or a filter), so they would differ in length, which "
                          "is not supported", hint="reduce each one (np.sum(r[r > 0.0])), or keep the shape: "
                                                   "np.where(r > 0.0, r, 0.0)")
            self._elements_of_one_shape(element, {var.name} | {p[1].name for p in pieces if p[0] == "let"}, elt)
            if reduce == "sum" and is_array(element) and (self.is_list(element) or self.unknown_row(element)) \
                    and not (k == 0 and self.summed_onto_array):  # (an array start adds them as NumPy does)
                self.fail(elt, "sum", "sum() of lists (or of a list's rows catad does not know to be arrays): Python's "
                          "sum starts from 0, and 0 + a list raises TypeError", CatadTypeError,
                          "for arrays, make each one: sum(np.asarray(r) for r in rows)")
            body = self.assemble(pieces, element, None)
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
        if reduce is None:
            self.mark_zero_d_items(out, element)
            self.mark_rows(out, self.made_rows([element]))
        if reduce == "sum":
            self._mark_sum(out, element, size, loc)
        elif self.is_py(element):  # max and min give one of the elements; a list holds them
            return self.as_py(out) if reduce is not None else self.mark_py_items(out)
        elif self.py_when(element) is not None:  # Python's or NumPy's by a condition on each element
            return self.as_py_when(out, self.undecided(loc), out.type) if reduce is not None else \
                self.mark_py_layout(out, MIXED)
        elif reduce is None and self.is_list(element) and is_array(element):  # a list of lists
            return self.mark_items(out, [element])
        return out

    def _elements_of_one_shape(self, element: Term, own: set[str], elt: ast.expr) -> None:
        """A comprehension's elements that are arrays must be of one shape (catad's arrays are
        rectangular, where Python's list may hold arrays of several lengths: [v[:k] for k in
        range(n)]): an element whose length is read from what the iteration binds (`own`) is
        refused, rather than taken for the longest with zeros after the shorter."""
        if is_array(element) and _shape_varies(element, own):
            self.fail(elt, "comprehension", "this comprehension's elements are arrays whose lengths depend on the "
                      "loop's variable (m[0, :k], np.ones(k)): a list of arrays of several lengths is not an array",
                      hint="make them one length (np.where, a mask times the row), or reduce each one: "
                           "[np.sum(m[0, :k]) for k in ...]")

    def _own_lengths(self, element: Term) -> bool:
        """Whether element, an array or a tuple holding one, may have a length of its own at each
        element of the comprehension: its shape is not known outside it (a tuple's is not looked
        into), and it selects (np.flatnonzero's count)."""
        if not _holds_array(element.type):
            return False
        if is_array(element):
            shape = self.b.shapes.infer(element)
            if shape is not None and all(d is not None for d in shape):
                return False
        return any(isinstance(n, Call) and n.fn == "flatnonzero" for n in walk(element))

    def _mark_sum(self, out: Term, element: Term, size: Term, loc) -> Term:
        """sum(e for ...), out, marked as Python's 0 + e_0 + ... is: Python's where every element
        it adds is, and Python's int 0 where it adds none. Where the elements' kind changes from
        one to the next (max(e, 0.0)), or a filter may leave none, it is Python's only where
        there are none (a run-time count of kinds is not made)."""
        got = self.py_when(element)
        if got is not None and got[0] is TRUE:
            return self.as_py(out)
        empty = prim("eq", size, Const(0, Int), loc=loc)
        if got is not None and not in_scope(got[0], out):  # Python's or NumPy's element by element:
            return self.as_py_when(out, self.undecided(loc), out.type)  # Python's where all added are
        if not in_scope(empty, out):  # (its size reads the array it binds)
            return out
        if got is None:
            return self.as_py_when(out, empty, Int, Const(0, Int))
        when, python_type, known = got  # the same for every element: read outside the sum
        if python_type in (Int, Bool):
            zero = isinstance(known, Const) and known.value == 0
            return self.as_py_when(out, or_(empty, when), Int, Const(0, Int) if zero else None)
        return self.as_py_when(out, or_(empty, when), Float)

    def _filtered(self, gens: list[ast.comprehension], k: int, elt: ast.expr, reduce: str | None, loc) -> Term:
        """The element of for clause k (the inner clauses' reduction, or elt) under its filters:
        0 where a filter fails (filters only inside sum); the element and every filter after the
        first are lowered as conditional, as Python evaluates them only when the filters before
        them hold."""
        g = gens[k]
        with self.branch() if g.ifs else contextlib.nullcontext():  # filters guard the element
            body = self._generators(gens, k + 1, elt, reduce) if k + 1 < len(gens) else self.expr(elt)
        conds = []
        for n, cond in enumerate(g.ifs):
            with self.branch() if n else contextlib.nullcontext():
                conds.append(self.condition(cond, "comprehension filter"))
        for cond, c in reversed(list(zip(g.ifs, conds))):
            if reduce is not None and body.type not in (Int, Float):
                self.fail(cond, "comprehension filter", f"a filter inside sum(...) needs scalar elements, "
                                                        f"got {body.type}")
            if reduce is None and body.type not in (Int, Float, Bool):
                self.fail(cond, "comprehension filter", f"a filter in a list comprehension needs scalar elements, "
                          f"got {body.type}", hint="select rows with a boolean mask: m[m[:, 0] > 0.0]")
            zero = {Float: 0.0, Int: 0, Bool: False}[body.type]  # (never read: its element is not kept)
            raw, body = body, If(c, body, Const(zero, body.type, loc), loc)
            got = self.py_when(raw)  # (Python's 0 where none passes; where it passes, the element's kind)
            if got is not None:
                body = self.as_py(body) if got[0] is TRUE else self.as_py_when(body, got[0], got[1])
        return body

    def static_items(self, it: ast.expr, uses: list[ast.AST] = (), target: ast.expr | None = None) -> list | None:
        """The items of a tuple, list or dict known while compiling that `it` runs over (a
        tuple's items, zip or enumerate of tuples, a dict's keys, values or items, a key being
        a DictKey; a range of known bounds whose variable indexes a tuple or list in `uses`,
        the rest of the comprehension), or None when it runs over an array or a range."""
        it = unreversed(self, it)
        method = None
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args and not it.keywords \
                and it.func.attr in ("keys", "values", "items"):
            method, it = it.func.attr, it.func.value
        fn = iteration_fn(self, it) if method is None else next(
            (f for f in (range, zip, enumerate) if isinstance(it, ast.Call) and f is self.static(it.func)), None)
        if fn is range and method is None and target is not None:
            steps = self.unrolled_range(target, it, list(uses))  # loops.py
            return None if steps is None else [Const(k, Int, self.loc(it)) for k in steps]
        if fn is range or (fn is not None and method is not None):
            return None
        seqs, start = self.iterated(it, fn)  # loops.py
        if not seqs or not all(isinstance(a.type, TupleT) for a in seqs):
            return None
        tree = self.tree(seqs[0]) if fn is None else None
        if tree is not None and tree.kind == "dict":
            values = self._items(seqs[0])
            if method == "values":
                return values
            keys = [DictKey(key) for key in tree.keys]
            return list(zip(keys, values)) if method == "items" else keys
        if method is not None:
            self.fail(it, "method", f".{method}() is a dict's method; this is a {seqs[0].type}")
        return self.tuple_items(fn, seqs, self.loc(it), start)  # loops.py

    def _unrolled(self, gens: list[ast.comprehension], k: int, elt: ast.expr, reduce: str | None,
                  items: list) -> Term:
        """A comprehension over items known while compiling, one element per item (Python's
        order); sum adds them (from 0, as Python's sum), max and min compare them, a list
        comprehension is the list display of them."""
        g = gens[k]
        loc = self.loc(g.iter)
        elems, raw = [], []  # (raw: the elements as lowered, which carry their marks)

        def element(pieces):
            raw.append(self._filtered(gens, k, elt, reduce, loc))
            elems.append(self.assemble(pieces, raw[-1], None))
        self._each_item(g.target, items, loc, element)
        if reduce is None:
            if not elems:
                self.fail(g.iter, "empty list", "this list comprehension has no elements (an empty list has no "
                          "element type)", hint="use np.zeros(0)")
            if not _one_array(elems):  # arrays of several types (W and b): a Python list of them, as a display's
                return self.with_tree(Tuple(tuple(elems), loc), Tree("list", tuple(self.tree(x) for x in raw)))
            out = self._display_build(elems, any(scalar_of(e.type) == Float for e in elems), g.iter)
            return self.mark_items(self.mark_rows(out, self.made_rows(raw)), raw)
        if reduce == "sum":
            out = self.as_py(Const(0, Int, loc))  # Python's 0 + e_0 + ...
            for e in elems:
                out = self.binop(ast.Add(), out, e, g.iter)
            return out
        if not elems:
            self.fail(g.iter, "max", "max() or min() of no elements raises ValueError in Python")
        out = elems[0]
        for e in elems[1:]:
            out = self.chosen_extreme(reduce[1:], out, e, loc)
        return out

    def _each_item(self, target: ast.expr, items: list, loc, each) -> None:
        """each(pieces) with target bound to each item in turn (its bindings in pieces); the names
        target binds are restored afterwards (a comprehension's variables are its own)."""
        names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
        saved = {n: self.env.get(n, _MISSING) for n in names}
        try:
            for item in items:
                pieces: list = []
                self._bind_item(target, item, pieces, loc)
                each(pieces)
        finally:
            for n, v in saved.items():
                if v is _MISSING:
                    self.env.pop(n, None)
                else:
                    self.env[n] = v

    def _bind_item(self, target: ast.expr, item, pieces: list, loc) -> None:
        if isinstance(item, DictKey):
            if not isinstance(target, ast.Name):
                self.fail(target, "comprehension", "a dict's key can only be bound to a name")
            self.env[target.id] = item
        elif isinstance(item, tuple):  # a dict's (key, value)
            if not (isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2):
                self.fail(target, "comprehension", "unpack a dict's items into two names: for k, v in d.items()")
            self._bind_item(target.elts[0], item[0], pieces, loc)
            self._bind_item(target.elts[1], item[1], pieces, loc)
        else:
            self.assign(target, item, pieces, loc)

    def iteration(self, g: ast.comprehension) -> tuple[list, Term, Var, Term | None]:
        """What `for target in iter` ranges over: (lets to put around the build, its size, its
        index variable, the element bound to target, or None when target is the index itself)."""
        it, loc = unreversed(self, g.iter), self.loc(g.iter)
        fn = iteration_fn(self, it)
        if fn is range:
            if it.keywords:
                self.fail(it, "keyword argument", "range() takes no keyword arguments")
            return self.range_iteration(it, g.target)
        seqs, start = self.iterated(it, fn)  # loops.py
        what = fn.__name__ if fn is not None else "for"
        if not seqs or (fn is enumerate and len(seqs) != 1) or not all(is_array(s) for s in seqs):
            self.fail(it, "comprehension", f"{what} in a comprehension needs arrays, got "
                      f"({', '.join(str(s.type) for s in seqs)}); a comprehension iterates over range(...), "
                      "an array, zip(arrays...) or enumerate(array)", CatadTypeError)
        outer, atoms = [], []
        lists = [self.items_kind(s) for s in seqs]
        for s in seqs:
            if not is_atom(s):
                v = self.b.bound(self.b.var(s.type, loc), s)
                outer.append((v, s))
                # (its items' kinds: by the list's layout, or by position: see py_layout)
                s = self.mark_py_layout(self.mark_rows(self.as_list(v), self.rows_kind(s)) if self.is_list(s) else v,
                                        self.py_layout(s))
            atoms.append(s)
        size = self.b.size(atoms[0], 0, loc)
        for a in atoms[1:]:
            size = prim("min", size, self.b.size(a, 0, loc), loc=loc)  # zip stops at the shortest
        k = self.b.var(Int, loc, "_i")
        elems = [prim("index", k, a, loc=loc) for a in atoms]
        # a NumPy array's elements are NumPy's numbers (a list's may be Python's: are, where all are)
        elems = [self.as_py(e) if is_list == "py" and not is_array(e) else e if is_list or is_array(e) else
                 self.as_numpy(e) for e, is_list in zip(elems, lists)]
        elems = [self.mark_item_at(e, a, k, loc) if is_list is True else e for e, a, is_list in zip(elems, atoms, lists)]
        for j, (e, a, is_list) in enumerate(zip(elems, atoms, lists)):
            if is_list and is_array(e):  # a list's row: a list or an array, as the list was made
                elems[j] = self.list_row(e, a)
        if fn is zip:
            elem = Tuple(tuple(elems), loc)
        elif fn is ENUMERATE_ZIP:
            elem = Tuple((self.counted(k, start, loc), Tuple(tuple(elems), loc)), loc)
        else:
            elem = Tuple((self.counted(k, start, loc), elems[0]), loc) if fn is enumerate else elems[0]
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
            bound = int_range.bound_of(self, a)
            lets, args[k] = let_chain(a)
            outer += [(lt.var, lt.rhs) for lt in lets]
            if not simple(args[k]):  # a bound that binds something is computed once, before
                v = self.b.bound(self.b.var(Int, loc), args[k])
                outer.append((v, args[k]))
                args[k] = v
            self.with_int_bound(args[k], IntBound(bound.static, nonneg=bound.nonneg))
        start, stop = (Const(0, Int), args[0]) if len(args) == 1 else (args[0], args[1])
        step = args[2] if len(args) == 3 else Const(1, Int)
        if not (isinstance(step, Const) and step.value != 0):
            self.fail(it, "range", "the step of range must be a non-zero integer constant",
                      hint="compute the bounds instead: range(a, b, 2), or index with a * i")
        down = step.value < 0
        # |i| <= max(|start|, |stop - 1|) (|stop + 1| counting down), read outside the comprehension (int_range.py)
        last = Const(stop.value + (1 if down else -1), Int, loc) if isinstance(stop, Const) else \
            prim("add" if down else "sub", fresh(stop, loc), ONE, loc=loc)
        nonneg = isinstance(stop, Const) and stop.value >= -1 if down else int_range.bound_of(self, start).nonneg
        bound = int_range.range_bound(self, start if isinstance(start, Const) else fresh(start, loc), stop, last, loc,
                                      nonneg, down)
        if isinstance(start, Const) and start.value == 0 and step.value == 1:
            i = Var(self.names.user(target.id), Int, self.loc(target))
            return outer, stop, self.as_py(self.with_int_bound(i, bound)), None  # Python's ints
        if not is_atom(start):
            v = self.b.bound(self.b.var(Int, loc), start)
            outer.append((v, start))
            start = v
        from_zero = isinstance(start, Const) and start.value == 0
        if down:  # ceil((start - stop) / -step)
            size = prim("floordiv", prim("add", prim("sub", start, stop, loc=loc), Const(-step.value - 1, Int), loc=loc),
                        Const(-step.value, Int), loc=loc)
        else:
            size = stop if from_zero else prim("sub", stop, start, loc=loc)
        if step.value > 1:  # ceil((stop - start) / step)
            size = prim("floordiv", prim("add", size, Const(step.value - 1, Int), loc=loc), step, loc=loc)
        k = self.b.var(Int, loc, "_i")
        offset = k if step.value == 1 else prim("mul", step, k, loc=loc)
        return outer, size, k, self.as_py(self.with_int_bound(offset if from_zero else prim("add", start, offset, loc=loc),
                                                              bound))


def _holds_array(ty) -> bool:
    return isinstance(ty, Vec) or isinstance(ty, TupleT) and any(_holds_array(t) for t in ty.items)


def _shape_varies(t: Term, own: set[str]) -> bool:
    """Whether the shape of t may differ from one iteration of a comprehension to the next: the
    length of a build on the spine of t's result (through lets, ifs and the arguments of calls)
    read from a name whose value varies (`own`, the iteration's names, and the lets computed
    from them), or from the shape of a name whose shape varies."""
    valued, shaped = set(own), set()

    def size_varies(size: Term) -> bool:
        stack = [size]
        while stack:
            n = stack.pop()
            if type(n) is Call and n.fn in ("size", "dim") and type(n.args[0]) is Var:
                if n.args[0].name in shaped:
                    return True
                stack.extend(n.args[1:])
            elif type(n) is Var:
                if n.name in valued:
                    return True
            elif type(n) is not Const:
                stack.extend(term_children(n))
        return False

    def varies(t: Term) -> bool:
        lets, body = let_chain(t)
        for lt in lets:
            if any(v.name in valued for v in free_vars(lt.rhs)):
                valued.add(lt.var.name)
            if isinstance(lt.rhs.type, Vec) and varies(lt.rhs):
                shaped.add(lt.var.name)
        if type(body) is Var:
            return body.name in shaped
        if type(body) is Const:
            return False
        if isinstance(body, Build):
            if size_varies(body.size):
                return True
            valued.add(body.var.name)  # (an inner length read from the inner index: ragged too)
            return isinstance(body.body.type, Vec) and varies(body.body)
        if isinstance(body, If):
            return any(isinstance(x.type, Vec) and varies(x) for x in (body.then, body.orelse))
        if isinstance(body, Call):
            return any(isinstance(a.type, Vec) and varies(a) for a in body.args)
        return any(v.name in valued | shaped for v in free_vars(body))  # (a tuple's item: as its value)
    return varies(t)
