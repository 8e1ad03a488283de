"""Lowering in-place updates of arrays (``out[i] = e``, ``m[i, j] += e``, ``v[a:b] = e``,
``acc += e``) as functional updates: the name is bound to a new array equal to the old one
except at the positions written,

    out[i] = e      ~>      out = build(len(out), \\k. if k == i then e else out[k])

(nested per index for ``m[i, j]``, a range test for a slice). That is NumPy's meaning only when
nothing else refers to the array: an array the caller passed (the caller would see it change), a
second name for it (``b = a``), a view of it (``r = m[0]``, ``m.T``), a tuple or list holding it,
or an argument of a user function, all see NumPy's change and would not see catad's. So the front
end tracks which names own their array (``OWNED`` in env, a frozenset joined like a variable: an
array made in the function by np.zeros, np.ones, np.empty, np.zeros_like, ..., np.array, np.copy,
``.copy()`` or arithmetic, and never referred to since) and refuses an update of any other.

``Updates`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
import builtins

import numpy as np

from ..errors import CatadTypeError, Loc
from ..lang.terms import FALSE, Build, Const, Get, If, Term, Tuple, Var, is_atom, make_lets
from ..lang.types import Bool, Float, Int, Scalar, Tuple as TupleT, Vec, rank, scalar_of
from ..primitives import prim
from . import complexes
from .common import MIXED, ONE, ZERO, all_, all_py, and_, index_chain, is_array, joined_rows, or_
from .shapes import fresh
from .source import stored_names
from .complexes import Complex
from .index_updates import assign_indexed

OWNED = "\0owned"  # env's entry: the names whose arrays nothing else refers to
_FRESH = (np.zeros, np.ones, np.empty, np.zeros_like, np.ones_like, np.empty_like, np.array, np.copy,
          np.full, np.full_like, np.eye, np.identity, np.linspace, np.arange, np.concatenate, np.stack,
          np.vstack, np.hstack, np.column_stack, np.tile, np.repeat, np.cumsum, np.cumprod, np.diff,
          np.outer, np.where, np.select, np.clip, np.triu, np.tril, np.fft.fft, np.fft.ifft, np.fft.rfft, np.fft.irfft,
          np.hanning, np.hamming, np.blackman, np.bartlett,
          builtins.list)  # each returns a new array (never a view of an argument) or list
# each returns a new array where it returns an array (a reduction along an axis, a product), else a number
_FRESH_WHEN_ARRAY = (np.sum, np.prod, np.mean, np.average, np.max, np.min, np.amax, np.amin, np.var, np.std, np.ptp,
                     np.median, np.nansum, np.nanmean, np.nanmax, np.nanmin, np.argmax, np.argmin, np.dot, np.matmul,
                     np.inner, np.sort, np.linalg.inv, np.linalg.solve)


def owned_join(a, b):
    """OWNED after an if statement: what both branches own."""
    return (a or frozenset()) & (b or frozenset())


class Updates:
    """Uses the lowerer's env, b (the Builder), expr, binop, bind, lookup and static."""

    # ------------------------------------------------------------ which names own their arrays

    def owned(self) -> frozenset:
        return self.env.get(OWNED) or frozenset()

    def note_assignment(self, s: ast.Assign | ast.AnnAssign) -> None:
        """After `targets = value`: the names the value refers to no longer own their arrays; a
        single name given a fresh array owns it."""
        targets = s.targets if isinstance(s, ast.Assign) else [s.target]
        stored = [stored_names(t) for t in targets]
        if all(found is not None for found in stored):  # x = ..., a, b = ...: what the walks below find
            names, plain = [name for found in stored for name in found], True
        else:
            names = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name) and
                     isinstance(n.ctx, ast.Store)]
            plain = all(isinstance(n, (ast.Name, ast.Tuple, ast.List, ast.Store)) for t in targets
                        for n in ast.walk(t))
        numbers = plain and bool(names) and all(
            isinstance(self.env.get(n), Term) and isinstance(self.env[n].type, Scalar) and not self.is_zero_d(self.env[n])
            for n in names)
        # a number is a copy (s = a[1] reads an element): it refers to no array; and what is written
        # into an array's elements (a[i] = b[j], m[0] = r) is copied there: a refers to no b
        copied = numbers or all(self._into_array(t) for t in targets)
        owned = self.owned() - (set() if copied else self.referenced(s.value))
        owned -= set(names)
        if len(targets) == 1 and isinstance(targets[0], ast.Name) and self._fresh(s.value, targets[0].id):
            owned |= {targets[0].id}
        elif len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) and isinstance(
                s.value, (ast.Tuple, ast.List)) and len(targets[0].elts) == len(s.value.elts):
            # a, b = [x], np.zeros(n): each name given a fresh array or list of its own owns it
            owned |= {t.id for t, v in zip(targets[0].elts, s.value.elts) if isinstance(t, ast.Name)
                      and not isinstance(v, ast.Starred) and self._fresh(v, t.id)}
        self.env[OWNED] = frozenset(owned)

    def _into_array(self, target: ast.expr) -> bool:
        """target is a subscript of a name that is an array (not a list or a dict, which would
        hold what is assigned)."""
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return False
        cur = self.env.get(target.value.id)
        return isinstance(cur, Term) and is_array(cur) and not self.is_list(cur)

    def note_references(self, node: ast.AST) -> None:
        """node (a loop's iterable, a returned value) may keep a reference to the arrays it names."""
        self.env[OWNED] = frozenset(self.owned() - self.referenced(node))

    def note_iterated(self, node: ast.AST) -> None:
        """node, a loop's iterable, may keep a reference to the arrays it names: the elements of
        an array of rank 2 or more are views of it (its rows), those of a vector are numbers."""
        def vector(name: str) -> bool:
            cur = self.env.get(name)
            return isinstance(cur, Term) and isinstance(cur.type, Vec) and rank(cur.type) == 1
        self.env[OWNED] = frozenset(self.owned() - {n for n in self.referenced(node) if not vector(n)})

    def referenced(self, node: ast.AST) -> set[str]:
        return _referenced_in(self, node)

    def _fresh(self, value: ast.expr, name: str) -> bool:
        if isinstance(value, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.ListComp, ast.List, ast.Dict)):
            return True  # arithmetic and comparisons make a new array, a display or comprehension a new list or dict
        if isinstance(value, ast.Subscript):  # indexing by an integer array or a mask copies
            return id(value) in self.copies
        if not isinstance(value, ast.Call):
            return False
        f = value.func
        if isinstance(f, ast.Attribute) and f.attr == "copy" and not value.args:
            return True
        obj = self.static(f)
        if obj is dict:  # a new dict (of the same values: assigning one of its keys changes no other dict)
            return True
        if obj is np.diag:  # a vector's diagonal matrix is new; a matrix's diagonal is a (read-only) view
            made = self.env.get(name)
            return isinstance(made, Term) and rank(made.type) == 2
        if any(obj is g for g in _FRESH_WHEN_ARRAY):
            made = self.env.get(name)
            return isinstance(made, Term) and rank(made.type) >= 1
        # a ufunc (np.exp, np.maximum, ...) called without out= makes a new array
        return any(obj is g for g in _FRESH) or isinstance(obj, np.ufunc) and not value.keywords

    def require_owned(self, name: str, node: ast.AST, what: str) -> None:
        cur = self.env.get(name)
        if isinstance(cur, Term) and self.is_readonly(cur):
            self.fail(node, "item assignment", f"{what} changes {name!r}, a read-only view made by "
                      "sliding_window_view: NumPy raises ValueError: assignment destination is read-only",
                      hint=f"build a new array from it instead (a comprehension, np.where, arithmetic), or copy it "
                           f"first: {name} = {name}.copy()")
        if name in self.owned():
            return
        if name in self.src.params and isinstance(cur, Var) and cur.name == name:  # still the parameter
            msg = (f"{what} changes the array {name!r} the caller passed (NumPy would mutate the caller's "
                   "array in place, which a compiled function does not do)")
        else:
            msg = (f"{what} changes the array {name!r}, which may share its memory with another value (a "
                   "parameter, a second name, a view such as m[0] or m.T, a tuple, or a value passed to a "
                   "function) that NumPy would mutate too")
        self.fail(node, "item assignment", msg + "; so assigning to an element of it is not supported",
                  hint=f"copy it first: {name} = {name}.copy(), or make it with np.zeros(...); or build a "
                       "new array: a comprehension, np.where, or v + e")

    # ------------------------------------------------------------ the updates

    def item_assignment(self, target: ast.Subscript, value: Term, pieces: list, loc: Loc) -> None:
        """target[...] = value, as a functional update of the array target names."""
        if self.dict_assignment(target, lambda old: value, pieces, loc):
            return
        arr, items = self.assignment_target(target, pieces, loc)
        self.store(target, arr, items, value, pieces, loc)

    def aug_item_assignment(self, s: ast.AugAssign, pieces: list) -> None:
        """target[...] op= e: the element read, combined with e, written back; through index
        arrays or a mask, each selected position once (a[idx] = a[idx] + e, not np.add.at)."""
        loc = self.loc(s)
        if self.dict_assignment(s.target, lambda old: self.binop(s.op, old, self.expr(s.value), s), pieces, loc,
                                augmented=True):
            return
        arr, items = self.assignment_target(s.target, pieces, loc)
        if any(it[0] in ("take", "mask") for it in items):
            rhs = self.expr(s.value)
            return self.store(s.target, arr, items, rhs, pieces, loc, lambda old, v: self.binop(s.op, old, v, s))
        old, rhs = self.b.subscript(arr, items, loc), self.expr(s.value)
        if self.is_list(arr) and is_array(old) and rank(old.type) < rank(arr.type):
            old = self.list_row(old, arr)  # a list's row: a list, or an array, as the list was made
            if not self.is_list(old):
                self.fail(s, "list row", f"{ast.unparse(s.target)} {_OPS.get(type(s.op), '?')}= ... changes the array "
                          f"{ast.unparse(s.target)} in place (NumPy's in-place operator), which another name, an "
                          "argument or another list may share, and catad does not follow the arrays a list holds",
                          hint=f"make a new array: {ast.unparse(s.target)} = {ast.unparse(s.target)} "
                               f"{_OPS.get(type(s.op), '?')} ...")
            if not self.unknown_row(old) and isinstance(s.op, (ast.Add, ast.Mult)):
                self.fail(s, "list row", f"{ast.unparse(s.target)} {_OPS.get(type(s.op), '?')}= ... makes a list's row, "
                          "itself a list, longer in place, which catad's lists (rows of one length) cannot hold",
                          hint="make a new list of the rows, or make the rows arrays: np.array(...)")
        if self.is_list(arr) and len(items) == 1 and items[0][0] == "index" and (self.has_py_items(arr) or isinstance(
                items[0][1], Const) and self.py_item(arr, int(items[0][1].value))):
            self.as_py(old)  # an item of a list that is one of Python's numbers (as subscripts.x_Subscript reads it)
        if isinstance(rhs, Term) and is_array(rhs) and is_array(old):
            old = self.bind_temp(old, pieces, loc)  # (its shape is read)
        value = self.in_place_result(s, old, rhs, self.binop(s.op, old, rhs, s), pieces, loc)
        self.store(s.target, arr, items, value, pieces, loc)

    def in_place_result(self, s: ast.AugAssign, old, rhs, value, pieces: list, loc: Loc):
        """value, the result of `old op= rhs` for an array old, which NumPy writes into old: one
        of another shape (rhs broadcast old to more axes, or along an axis of length 1) is
        NumPy's ValueError, checked once per call where not proven not to be."""
        if not (isinstance(old, Term) and is_array(old) and isinstance(rhs, Term) and is_array(rhs)
                and isinstance(value, Term)):
            return value
        value = self.bind_temp(value, pieces, loc)
        so, sv = self.b.shape(old), self.b.shape(value)
        if len(sv) != len(so):  # always NumPy's error where it runs (then old stands for the value never made)
            cond = Const(False, Bool)
        else:
            cond = Const(True, Bool)
            for o, v in zip(so, sv):
                if not self.b.shapes.same(o, v):
                    eq = prim("eq", v.size, o.size, loc=loc)
                    cond = eq if cond.__class__ is Const else and_(cond, eq)
        what = f"{ast.unparse(s.target)} {_OPS.get(type(s.op), '?')}= ..."
        binds = self.b.check(cond, (tuple(d.size for d in so), tuple(d.size for d in sv)), loc, what,
                             "non-broadcastable output operand with shape {0} doesn't match the broadcast "
                             "shape {1}")
        pieces += [("let", v, c, at) for v, c, at in binds]
        return value if len(sv) == len(so) else old

    def dict_assignment(self, target: ast.Subscript, value_of, pieces: list, loc: Loc, augmented: bool = False) -> bool:
        """d[key] = value (value_of(None)), or d[key] op= e (value_of(d[key])), of a dict d made in
        this function that nothing else refers to (owned): d becomes the dict with the value at
        key, a new key last, as Python's dict keeps its order. False where target is no dict's."""
        base = target.value
        held = self.env.get(base.id) if isinstance(base, ast.Name) else None
        tree = self.tree(held) if isinstance(held, Term) and isinstance(held.type, TupleT) else None
        if tree is None or tree.kind != "dict":
            return False
        items = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
        key = self.key_of(items, target)
        if base.id not in self.owned():
            self.fail(target, "item assignment", f"{ast.unparse(target)} = ... changes the dict {base.id!r}, which "
                      "may be shared with another value (a parameter, a second name, a value passed to a function, "
                      "a loop over it) that Python would change too", hint=f"make it in this function ({base.id} = "
                      "{...}) and give it no other name, or make a new dict with the value")
        k = tree.index(key)
        if augmented and k is None:
            self.fail(target, "dict key", f"KeyError: {key!r} is not a key of this dict (its keys: "
                      f"{', '.join(map(repr, tree.keys))})", CatadTypeError)
        held = self.bind_temp(held, pieces, loc) if not isinstance(held, (Var, Tuple)) else held
        values = self._items(held)  # loops.py: each with its own structure
        if augmented and not isinstance(values[k].type, Scalar):  # (a number's op= makes a new one)
            self.fail(target, "item assignment", f"{ast.unparse(target)} op= ... changes the {values[k].type} the dict "
                      f"holds in place, and with it every other name for it (a parameter's array too)",
                      hint=f"make a new value: {ast.unparse(target)} = {ast.unparse(target)} + e")
        value = value_of(values[k] if augmented else None)
        keys = list(tree.keys)
        if k is None:
            keys.append(key)
            values.append(value)
        else:
            values[k] = value
        self.bind(base.id, self.dict_of(tuple(keys), tuple(values), loc), pieces, loc)
        self.env[OWNED] = self.owned() | {base.id}  # (bind's note of it: still the one dict)
        return True

    def assignment_target(self, target: ast.Subscript, pieces: list, loc: Loc) -> tuple[Term, list]:
        """The array target[...] names (which must own its memory) and its lowered subscript:
        ("index", Int), ("slice", lo, hi), ("take", array of Ints) or ("mask", array of Bools),
        each index an atom bound in pieces (it is read where the value is written and, for an
        augmented assignment, where the old value is read)."""
        base = target.value
        if not isinstance(base, ast.Name):
            self.fail(target, "item assignment", "only an element or slice of a named array can be assigned "
                      "(v[i] = e, m[i, j] = e, v[a:b] = e)", hint="use m[i, j] = e instead of m[i][j] = e")
        if isinstance(self.env.get(base.id), Complex):
            complexes.refuse(self, target, self.env[base.id], "assigning to its elements is not supported",
                             "build the parts as real arrays and combine them: re + 1j * im")
        held = self.env.get(base.id)
        if base.id not in self.env and base.id not in self.src.local_names:
            self.fail(target, "item assignment", f"{ast.unparse(target)} = ... assigns into {base.id!r}, a global or "
                      "a variable of an enclosing function, which a compiled function does not change",
                      hint="return the new value and assign it outside the compiled function")
        if isinstance(held, Term) and isinstance(held.type, TupleT):
            tree = self.tree(held)
            kind = tree.kind if tree is not None else "tuple"
            self.fail(target, "item assignment", f"{ast.unparse(target)} = ... assigns into the {kind} {base.id!r}, "
                      f"which catad does not support (its {kind}s keep the values they were made with)",
                      hint=f"keep the value in a variable of its own, or make a new {kind} with it")
        self.require_owned(base.id, target, "this assignment")
        arr = self.lookup(base.id, base)
        if not is_array(arr):
            self.fail(target, "item assignment", f"cannot assign to an element of a {arr.type}", CatadTypeError)
        items = list(target.slice.elts) if isinstance(target.slice, ast.Tuple) else [target.slice]
        lowered = []
        for it in items:
            if isinstance(it, ast.Slice):
                bounds = [self.index_term(b) for b in (it.lower, it.upper)]
                step = tuple(self.bind_temp(x, pieces, loc) if isinstance(x, Term) else x for x in self.slice_step(it))
                lowered.append(("slice", *(None if b is None else self.bind_temp(b, pieces, loc) for b in bounds))
                               + step)
                continue
            i = self.expr(it)
            if isinstance(i.type, TupleT) and len(items) == 1 and all(
                    isinstance(x, Vec) or x == Int for x in i.type.items):  # m[np.triu_indices(n)] = v
                i = self.bind_temp(i, pieces, loc)
                lowered += [self._assigned_index(it, Get(k, i, loc), pieces, loc) for k in range(len(i.type.items))]
            else:
                lowered.append(self._assigned_index(it, i, pieces, loc))
        if sum(1 if x[0] != "mask" else rank(x[1].type) for x in lowered) > rank(arr.type):
            self.fail(target, "item assignment", f"too many indices for an array of rank {rank(arr.type)}",
                      CatadTypeError)
        return arr, lowered

    def _assigned_index(self, node: ast.expr, i: Term, pieces: list, loc: Loc) -> tuple:
        if i.type == Int:
            return ("index", self.bind_temp(i, pieces, loc))
        if is_array(i) and scalar_of(i.type) in (Int, Bool):
            return ("take" if scalar_of(i.type) == Int else "mask", self.bind_temp(i, pieces, loc))
        self.fail(node, "item assignment", f"an assigned element's index must be an Int, an array of Ints or a "
                  f"boolean mask, got {i.type}", CatadTypeError)

    def store(self, target: ast.Subscript, arr: Term, items: list, value: Term, pieces: list, loc: Loc,
              op=None) -> None:
        """Bind the name target[...] names to arr with value written at items (op: see
        index_updates.assign_indexed)."""
        name = target.value.id
        written = value  # (as made: its marks)
        py = self.is_py(value) or self.is_list(value) and self.has_py_items(value)  # (before an Int is made a Float)
        either = not py and self.py_when(value) is not None  # Python's or NumPy's by a test
        value = self.bind_temp(value, pieces, loc)
        if scalar_of(value.type) == Float and scalar_of(arr.type) == Int:
            self.fail(target, "item assignment", "assigning a Float into an array of Ints truncates it in NumPy, "
                      "which is not supported", CatadTypeError, "make the array Float: np.zeros(n)")
        if scalar_of(value.type) in (Int, Float) and scalar_of(arr.type) == Bool:
            if self.is_list(arr):  # (a list holds the number itself)
                self.fail(target, "item assignment", f"assigning a{'n' if value.type == Int else ''} "
                          f"{scalar_of(value.type)} into a list of bools makes it a list of numbers and bools, "
                          "which is not supported", CatadTypeError, "assign a bool, e.g. l[i] = x[i] != 0")
            zero = Const(0, Int) if scalar_of(value.type) == Int else Const(0.0, Float)  # NumPy's cast: not 0 (NaN too)
            nonzero = lambda x: prim("ne", x, zero, loc=loc)
            value = self.bind_temp(self.b.elementwise(nonzero, [value], loc) if is_array(value) else nonzero(value),
                                   pieces, loc)
        if scalar_of(value.type) == Int and scalar_of(arr.type) == Float:
            value = self.bind_temp(self.b.to_float(value, loc), pieces, loc)
        owned = self.owned()
        if self.is_list(arr):
            value = self._list_item_checked(target, arr, items, value, written, pieces, loc)
        if any(it[0] in ("take", "mask") for it in items):
            new = assign_indexed(self, arr, items, value, op, loc, target)
        else:
            whole = [value]  # the value NumPy's message shows: as written, then without the leading axes dropped

            def shown(binds: list) -> tuple:  # NumPy's message shows the value's shape and the place's
                more, place = self._place_sizes(arr, items, loc)
                binds += more
                return tuple(d.size for d in self.b.shape(whole[0])), tuple(place)
            sel = sum(1 for it in items if it[0] == "slice") + rank(arr.type) - len(items)  # arr[items]'s rank
            if rank(value.type) > sel:
                value = whole[0] = self.bind_temp(self._leading_ones_dropped(value, rank(value.type) - sel, shown,
                                                                             loc), pieces, loc)
            new = self.updated(arr, items, value, 0, loc, target, shown)
        if self.is_list(arr):  # still a list: + joins, * repeats
            self.as_list(new)
            self.mark_zero_d_items(new, arr, value)
            self._mark_stored(arr, new, items, py, either)
            # its rows' kind stays where a row of that kind is written (l[i] = array), else is not known
            row = len(items) == 1 and items[0][0] == "index" and rank(written.type) == rank(arr.type) - 1
            self.mark_rows(new, joined_rows(self.rows_kind(arr), self.made_rows([written])) if row else None)
        self.bind(name, new, pieces, loc)
        self.env[OWNED] = owned | {name}

    def _list_item_checked(self, target: ast.Subscript, arr: Term, items: list, value: Term, written: Term,
                           pieces: list, loc: Loc) -> Term:
        """value, to be written at xs[i] of the list xs (arr): Python puts it there as it is, where
        catad's list (an array) would take NumPy's broadcasting store into the old item. So it must be
        an item like the others: of their rank and (checked once per call where not proven) of their
        shape. Any other index of a list (a slice, which may change its length, a tuple, an array) is
        refused or is Python's TypeError."""
        what = ast.unparse(target)

        def checked(binds: list) -> Term:
            # (bound before the update, which reads value only at the places written: none for an
            # empty slice, where the check of its length must still run)
            pieces.extend(("let", v, c, at) for v, c, at in binds)
            return value
        if len(items) != 1 or items[0][0] in ("take", "mask"):
            return checked(self.b.check(FALSE, (), loc, "item assignment", "list indices must be integers or "
                                        "slices, not tuple" if len(items) != 1 else "list indices must be "
                                        "integers or slices, not numpy.ndarray", "unsupported", raises=TypeError))
        if items[0][0] != "index":  # a slice: of the same length only (Python's list takes any, changing its own)
            if rank(written.type) != rank(arr.type):
                self.fail(target, "list item assignment", f"{what} = ... assigns a slice of a list a "
                          f"{written.type}; Python assigns an iterable of items there", CatadTypeError)
            place = self.bind_temp(self.b.subscript(arr, items, loc), pieces, loc)
            a, b = self.b.shape(place)[0], self.b.shape(value)[0]
            if self.b.shapes.same(a, b):
                return value
            return checked(self.b.check(prim("eq", a.size, b.size, loc=loc), (), loc, "list item assignment",
                                        f"{what} = ... assigns a slice of a list as many items as it has not, "
                                        "which changes the list's length, which catad's lists keep", "unsupported"))
        if rank(written.type) != rank(arr.type) - 1 or rank(arr.type) >= 2 and (
                self.is_list(written) != ((self.rows_kind(arr) or ("?",))[0] == "list")):
            self.fail(target, "list item assignment", f"{what} = ... puts a {written.type} into a list of "
                      f"{arr.type.elem}s (or a list among arrays, or an array among lists): catad's lists hold items of "
                      "one kind", hint="make a new list of the items")
        if rank(written.type) == 0:
            return value
        old, new = self.b.shape(arr)[1:], self.b.shape(value)
        conds = [prim("eq", a.size, b.size, loc=loc) for a, b in zip(old, new) if not self.b.shapes.same(a, b)]
        binds = self.b.check(all_(conds), (), loc, "list item assignment",
                             f"{what} = ... puts an array of another shape than the list's other items there, which "
                             "catad's lists (arrays of one shape) cannot hold", "unsupported") if conds else []
        return checked(binds)

    def _mark_stored(self, arr: Term, new: Term, items: list, py: bool, either: bool) -> None:
        """new, the list arr with a value written at items (`py`: one of Python's numbers, or a
        list of them; `either`: Python's or NumPy's by a test), marked where it holds Python's
        numbers, as lists._mark_appended marks: by position where arr's are known and the index
        is, as a whole where every item is, unmarked where none is; otherwise MIXED (its items
        read at places known only at run time are of a kind catad cannot tell)."""
        pos, layout = self.py_positions(arr), self.py_layout(arr)
        i = items[0][1] if len(items) == 1 and items[0][0] == "index" else None
        if not either and isinstance(pos, tuple) and isinstance(i, Const) and -len(pos) <= i.value < len(pos):
            k = int(i.value) % len(pos)
            self.mark_py_positions(new, pos[:k] + (py,) + pos[k + 1:])
        elif not either and py and pos is not None and all_py(pos):
            self.mark_py_positions(new, pos)
        elif either or layout is not None and (py or layout != ((), False, ())):
            self.mark_py_layout(new, MIXED)

    def _leading_ones_dropped(self, value: Term, k: int, shown, loc: Loc) -> Term:
        """value[0, ..., 0] (k zeros): NumPy writes a value of more axes than the place it goes to
        when the k leading ones are of length 1 (checked once per call where not proven; `shown`
        gives the shapes the message shows)."""
        dims = self.b.shape(value)
        fits = [prim("eq", d.size, ONE, loc=loc) for d in dims[:k] if d.one is not True]
        binds = []
        if fits:
            cond = fits[0]
            for c in fits[1:]:
                cond = and_(cond, c)
            binds += self.b.check(cond, shown(binds), loc, "item assignment",
                                  "could not broadcast input array from shape {0} into shape {1}")
        return make_lets(binds, index_chain(value, [ZERO] * k, loc))

    def _place_sizes(self, arr: Term, items: list, loc: Loc) -> tuple[list, list]:
        """(bindings, the lengths of arr[items]'s axes) for items of indices and slices."""
        binds, sizes = [], []
        axes = self.b.shape(arr)
        for d, item in zip(axes, items):
            if item[0] == "slice":
                step = item[3] if len(item) > 3 else 1
                more, _, n = (self.b.slice_bounds(item[1], item[2], d, loc) if isinstance(step, int) and step == 1
                              else self.b.stepped_slice_bounds(item[1], item[2], step, d, loc))
                binds += more
                sizes.append(n)
        return binds, sizes + [d.size for d in axes[len(items):]]

    def aug_name_assignment(self, s: ast.AugAssign) -> None:
        """acc op= e on an array changes it in place in NumPy: refused unless acc owns its array."""
        current = self.env.get(s.target.id)
        if isinstance(current, Complex) and is_array(current.re) or isinstance(current, Term) and \
                (is_array(current) or self.is_zero_d(current)):
            self.require_owned(s.target.id, s.target, f"{ast.unparse(s.target)} {_OPS.get(type(s.op), '?')}= ...")

    def updated(self, arr: Term, items: list, value: Term, axis: int, loc: Loc, node, shown=None) -> Term:
        """arr with the positions items select (from its first axis on) replaced by value.
        `shown(binds)`: the shapes a failed check's message shows (the value's and the place's,
        as NumPy's), its bindings added to binds; else the lengths of the one axis checked."""
        if not items:
            return self._fit(arr, value, loc, node, shown)

        def at(a):
            k = self.b.var(Int, loc, "_i")
            old = prim("index", k, a, loc=loc)
            item = items[0]
            if item[0] == "index":
                checks, j = self.b.index(a, item[1], axis, loc)
                j_atom = j
                binds = list(checks)
                if not is_atom(j):
                    j_atom = self.b.bound(self.b.var(Int, loc, "_j"), j)
                    binds.append((j_atom, j, loc))
                hit = prim("eq", k, j_atom, loc=loc)
                part = value
            else:
                step = item[3] if len(item) > 3 else 1
                unit = isinstance(step, int) and step == 1
                if unit:
                    binds, start, n = self.b.slice_bounds(item[1], item[2], self.b.shape(a)[0], loc)
                else:
                    binds, start, n = self.b.stepped_slice_bounds(item[1], item[2], step, self.b.shape(a)[0], loc)
                start_atom, n_atom = start, n
                if not is_atom(start):
                    start_atom = self.b.bound(self.b.var(Int, loc, "_s"), start)
                    binds.append((start_atom, start, loc))
                if not is_atom(n):
                    n_atom = self.b.bound(self.b.var(Int, loc, "_n"), n)
                    binds.append((n_atom, n, loc))
                if unit:
                    m = prim("sub", k, start_atom, loc=loc)  # k's place in the slice
                    hit = and_(prim("le", start_atom, k, loc=loc),
                               prim("lt", k, prim("add", start_atom, n_atom, loc=loc), loc=loc))
                else:  # k = start + step * m for some 0 <= m < n
                    apart = prim("sub", k, start_atom, loc=loc)
                    by = Const(step, Int) if isinstance(step, int) else step
                    m = prim("floordiv", apart, by, loc=loc)
                    hit = and_(prim("eq", prim("mod", apart, by, loc=loc), ZERO, loc=loc),
                               and_(prim("le", ZERO, m, loc=loc), prim("lt", m, n_atom, loc=loc)))
                sel = sum(1 for it in items if it[0] == "slice") + rank(a.type) - len(items)
                part = self._slice_part(value, m, n_atom, sel, loc, node, binds, shown)
            inner = self.updated(old, items[1:], part, axis + 1, loc, node, shown) if items[1:] or is_array(old) \
                else part
            if not items[1:] and is_array(old):
                inner = self._fit(old, part, loc, node, shown)
            body = If(hit, inner, prim("index", k, a, loc=loc), loc)
            return make_lets(binds, Build(self.b.size(a, 0, loc), k, body, loc))
        return self.b.share(arr, at, loc)

    def _slice_part(self, value, m, n, sel_rank, loc, node, binds, shown=None) -> Term:
        """What goes at the slice's m-th position: value itself when it has fewer axes than what
        the subscript selects from here on (NumPy broadcasts it along this axis), else its
        element m, or its element 0 where its length is 1 (NumPy broadcasts that too: into a
        slice of any length, 0 among them); any other length must be the slice's."""
        if rank(value.type) < sel_rank:
            return value
        d = self.b.shape(value)[0]
        if d.one is True:
            return prim("index", ZERO, value, loc=loc)
        fits = prim("eq", d.size, n, loc=loc)
        if d.one is None:
            fits = or_(fits, prim("eq", d.size, ONE, loc=loc))
        binds += self.b.check(fits, shown(binds) if shown else ((d.size,), (n,)), loc, "slice assignment",
                              "could not broadcast input array from shape {0} into shape {1}")
        return prim("index", m if d.one is False else self.b.clamp(d.size, loc)(m), value, loc=loc)

    def _fit(self, old: Term, value: Term, loc: Loc, node, shown=None) -> Term:
        """value written where old was, as NumPy writes it: broadcast to old's shape (its axes
        aligned with old's last, each of old's length or of length 1, read at 0; proven while
        compiling or checked once per call). A value of more axes than old is refused."""
        if not is_array(old):
            if is_array(value):
                self.fail(node, "item assignment", f"cannot assign a {value.type} to an element of type {old.type}",
                          CatadTypeError)
            return value
        if not is_array(value):
            return self.b.elementwise(lambda x: value, [old], loc)
        if rank(value.type) > rank(old.type):
            self.fail(node, "item assignment", f"cannot assign a {value.type} where the array holds a {old.type}",
                      CatadTypeError, "give the value the shape of what it replaces")
        return self.b.share_all([old, value], lambda o, v: self._broadcast_into(o, v, loc, shown), loc)

    def _broadcast_into(self, old: Term, value: Term, loc: Loc, shown=None) -> Term:
        """value (atom) broadcast to the shape of old (atom) of at least its rank."""
        so, sv = self.b.shape(old), self.b.shape(value)
        lead = len(so) - len(sv)
        binds, fits, reads = [], [], []
        for a, d in zip(so[lead:], sv):
            if self.b.shapes.same(a, d):
                reads.append(None)
            elif d.one is True:
                reads.append(lambda i: ZERO)
            else:
                fits.append(prim("eq", d.size, a.size, loc=loc) if d.one is False else
                            or_(prim("eq", d.size, a.size, loc=loc), prim("eq", d.size, ONE, loc=loc)))
                reads.append(None if d.one is False else self.b.clamp(d.size, loc))
        if fits:
            cond = fits[0]
            for c in fits[1:]:
                cond = and_(cond, c)
            data = shown(binds) if shown else (tuple(d.size for d in sv), tuple(a.size for a in so))
            binds += self.b.check(cond, data, loc, "item assignment", "could not broadcast input array from shape {0} into shape {1}")
        if not lead and all(r is None for r in reads):
            return make_lets(binds, value)
        idx = [self.b.var(Int, loc, "_i") for _ in so]
        out = index_chain(value, [i if r is None else r(i) for r, i in zip(reads, idx[lead:])], loc)
        for a, i in reversed(list(zip(so, idx))):
            out = Build(fresh(a.size, loc), i, out, loc)
        return make_lets(binds, out)


_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}


_VIEWS = (np.asarray, np.reshape, np.ravel, np.transpose, np.squeeze, np.atleast_1d, np.atleast_2d,
          np.broadcast_to, np.expand_dims, np.diagonal, np.real, np.swapaxes, np.moveaxis, zip, enumerate)
_FRESH_METHODS = ("sum", "mean", "max", "min", "dot", "copy")


# builtins whose result holds the items of their arguments: list(m), map(f, m), filter(p, m) of a
# matrix m hold its rows, which are views of it; max(a, b, key=f) is a or b itself
_ITEMS_OF = (builtins.list, builtins.map, builtins.filter, builtins.max, builtins.min, builtins.sorted)


def _numbers(lw, it: ast.expr) -> bool:
    """it names a vector, whose items are numbers (no views)."""
    cur = lw.env.get(it.id) if isinstance(it, ast.Name) else None
    return isinstance(cur, Term) and isinstance(cur.type, Vec) and rank(cur.type) == 1


# what makes a new value: no reference to the arrays it reads (_referenced_in)
_NEW_VALUES = (ast.BinOp, ast.UnaryOp, ast.Compare, ast.Constant)


def _referenced_in(lw, node: ast.AST) -> set[str]:
    """Names whose arrays node may keep a reference to (or hand to code that may): everywhere but
    as an operand of arithmetic or comparison, an index, or an argument of a NumPy function that
    makes a new array."""
    if isinstance(node, _NEW_VALUES):
        return set()  # (most values assigned are arithmetic: no import, no walk)
    from .statements import LocalFunction  # (statements imports this module)
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Name):
            out.add(n.id)
            held = lw.env.get(n.id)
            if isinstance(held, LocalFunction):  # a def or lambda given on (to map): what it reads
                out.update(m.id for m in ast.walk(held.src.node) if isinstance(m, ast.Name))
        elif isinstance(n, _NEW_VALUES):
            continue
        elif isinstance(n, ast.Subscript):
            todo.append(n.value)  # a view (m[0], v[1:])
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FRESH_METHODS:
            continue
        elif isinstance(n, ast.Call):
            from .freenames import NOT_STATIC  # freenames imports statements, which imports this
            obj = lw.static(n.func)
            if isinstance(obj, LocalFunction):  # a def or lambda of the function: its result may be a view of
                out.update(m.id for m in ast.walk(obj.src.node) if isinstance(m, ast.Name))  # what it reads
                todo.extend(n.args)
                todo.extend(k.value for k in n.keywords)
                continue
            if any(obj is f for f in _ITEMS_OF):  # a list of the items (of the rows: views) of its arguments
                several = (obj is builtins.max or obj is builtins.min) and len(n.args) > 1  # (one of them itself)
                todo.extend(a for a in n.args if several or not _numbers(lw, a))
                continue
            fresh = obj is not NOT_STATIC and getattr(obj, "__module__", None) is not None and \
                not any(obj is v for v in _VIEWS) and (str(obj.__module__).startswith(("numpy", "math", "builtins"))
                                                       or obj.__module__ is None)
            if not fresh or isinstance(n.func, ast.Attribute) and lw.static(n.func.value) is NOT_STATIC:
                todo.extend(n.args)
                todo.extend(k.value for k in n.keywords)
                if isinstance(n.func, ast.Attribute):
                    todo.append(n.func.value)
        elif isinstance(n, (ast.ListComp, ast.GeneratorExp)):
            todo.append(n.elt)
            targets = {t.id for g in n.generators for t in ast.walk(g.target) if isinstance(t, ast.Name)}
            if targets & _referenced_in(lw, n.elt):  # its items are (views of) the items it runs over
                todo.extend(g.iter for g in n.generators if not _numbers(lw, g.iter))
        else:
            todo.extend(ast.iter_child_nodes(n))
    return out
