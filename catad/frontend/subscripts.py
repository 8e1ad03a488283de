"""Lowering subscripts and list displays: ``v[i]``, ``m[i, j]``, slices ``v[a:b]``, integer
array indexing ``v[idx]`` and tuple items ``t[0]`` (the Builder's ``subscript`` makes the terms
and their bounds checks), and ``[a, b, c]`` (nested: a matrix).

``Subscripts`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast

from ..errors import CatadTypeError
from ..lang.terms import Const, Get, Term, Tuple
from ..lang.types import Bool, Float, Int, Tuple as TupleT, rank, scalar_of
from ..primitives import prim
from .common import is_array


class Subscripts:
    """Subscripts and displays to terms. Uses the lowerer's b (the Builder), expr and the
    marking of Python lists (as_list, is_list)."""

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

    def x_List(self, node: ast.List) -> Term:
        return self.as_list(self.display(node))

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
