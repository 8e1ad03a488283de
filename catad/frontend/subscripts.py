"""Lowering subscripts and list displays: ``v[i]``, ``m[i, j]``, slices ``v[a:b]``, integer
array indexing ``v[idx]`` and tuple items ``t[0]`` (the Builder's ``subscript`` makes the terms
and their bounds checks), and ``[a, b, c]`` (nested: a matrix).

``Subscripts`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast

from ..errors import BoundsError, CatadTypeError, DomainError
from ..lang.terms import FALSE, Build, Call, Const, Get, Term, Tuple, is_atom, let_chain, make_lets
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Vec, rank, scalar_of
from ..primitives import prim
from . import complexes, numpy_arrays
from .complexes import Complex
from .common import MIXED, ONE, all_, index_chain, is_array, or_, projections, refuse_item_of_unknown_kind, static_int
from .shapes import copyable, in_scope, without_checks
from ..trees import Tree


_NO_KEY = object()


def _one_array(items: list) -> bool:
    """Whether a list display's values make an array (scalars, or arrays of one type): NumPy
    would convert it. Otherwise it stays a Python list (a tuple marked with its Tree)."""
    if all(t.type in (Int, Float, Bool) for t in items):
        return True
    return all(is_array(t) for t in items) and len({t.type for t in items}) == 1


def _constant_slice(items: list, which: tuple):
    """which[a:b:c] for a subscript of one slice of constant (or absent) bounds, else None."""
    if len(items) != 1 or not isinstance(items[0], ast.Slice):
        return None
    bounds = []
    for b in (items[0].lower, items[0].upper, items[0].step):
        if b is None:
            bounds.append(None)
        elif isinstance(b, ast.Constant) and type(b.value) is int:
            bounds.append(b.value)
        elif isinstance(b, ast.UnaryOp) and isinstance(b.op, ast.USub) and isinstance(b.operand, ast.Constant) \
                and type(b.operand.value) is int:
            bounds.append(-b.operand.value)
        else:
            return None
    return tuple(which[slice(*bounds)])


class DictKey:
    """A key of a dict known while compiling, the value of a loop's variable over the dict's
    keys (``for k in d``, ``for k, v in d.items()``): it can index its dict and nothing else."""

    def __init__(self, key):
        self.key = key


class Subscripts:
    """Subscripts and displays to terms. Uses the lowerer's b (the Builder), expr and the
    marking of Python lists (as_list, is_list)."""

    def tuple_item(self, base: Term, k: int, loc) -> Term:
        """Item k of a tuple-typed term (a tuple's, a list's, a dict's value, an object's field),
        with the marks and tree of what it holds."""
        item = base.items[k] if isinstance(base, Tuple) else Get(k, base, loc)
        lets, made = let_chain(base)  # a display under checks (divmod(x, y)'s): its item's kind
        if isinstance(made, Tuple) and made is not base and projections(made):
            # (a call's tuple result, the display of its items: call_user): that item, marked
            return self.keep_marks(made.items[k], make_lets([(lt.var, lt.rhs, lt.loc) for lt in lets],
                                                            made.items[k]))
        if isinstance(made, Tuple) and made is not base:
            src = made.items[k]
            got = self.py_when(src)
            if self.is_py(src):
                self.as_py(item)
            elif self.is_numpy(src):
                self.as_numpy(item)
            elif got is not None:  # Python's where a test holds (read where the item is, or undecided)
                self.as_py_when(item, got[0] if in_scope(got[0], base) else self.undecided(loc), got[1])
        return self.with_tree(item, self.item_tree(base, k))

    def x_Subscript(self, node: ast.Subscript) -> Term:
        """v[i], m[i, j], m[i], slices v[a:b], None/np.newaxis, integer-array indexing, t[0] of tuples and lists, d['k'] of dicts."""
        base, loc = self.value(node.value), self.loc(node)
        items = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        if isinstance(base, Complex):
            return self.complex_subscript(base, items, node)
        if isinstance(base.type, TupleT):
            tree = self.tree(base)
            if tree is not None and tree.kind == "dict":
                k = self.dict_key(tree, items, node)
            else:
                k = None
                what = "list" if tree is not None else "tuple"
                if len(items) == 1 and isinstance(items[0], ast.Slice):
                    return self.tuple_slice(base, items[0], what, node)
                if len(items) == 1:
                    k = static_int(self.expr(items[0]))
                if k is None:
                    self.fail(node, f"{what} index", f"a {what} can only be indexed by an integer known while "
                              f"compiling here (a constant, len({what}) - 1, or the variable of a range loop over "
                              "constants, which is unrolled)",
                              hint="a list of arrays of one shape can be made an array: np.array(xs)[i]"
                              if what == "list" else None)
                n = len(base.type.items)
                if not -n <= k < n:
                    self.fail(node, f"{what} index", f"index {k} is out of range for a {what} of {n} values",
                              CatadTypeError)
                k %= n
            return self.tuple_item(base, k, loc)
        if not is_array(base):
            self.fail(node, "subscript", f"cannot index a {base.type}; only arrays and tuples can be indexed",
                      CatadTypeError)
        items = self._without_ellipsis(base, items, node)
        plain = [it for it in items if not self.newaxis(it)]
        if len(plain) < len(items):  # x[:, None]: the subscript without them, then axes of length 1
            if self.is_list(base):
                return make_lets(self.b.check(FALSE, (), loc, "subscript", "list indices must be integers or slices, "
                                              f"not {'tuple' if len(items) > 1 else 'NoneType'}", "unsupported",
                                              raises=TypeError), self.with_new_axes(base, items, plain, node))
            return self.with_new_axes(base, items, plain, node)
        out = self.array_subscript(base, items, node)
        # an element of a NumPy array is NumPy's number (of a list, it may be Python's: it is
        # where every item is)
        if is_array(out):
            laid_out = self.laid_out(base)
            if self.is_list(base) and rank(out.type) == rank(base.type):  # a slice
                self.mark_zero_d_items(out, base)
                got = self.py_items_of(base)
                if got is not None and got[0] is None:  # every item Python's: the slice's too
                    self.mark_py_items(out)
                elif got is not None:  # Python's at some places: those the slice keeps, where known now
                    kept = _constant_slice(items, got[0])
                    if kept is not None:
                        self.mark_py_items(out, kept)
            if laid_out is not None and self.is_list(base) and rank(out.type) == rank(base.type):
                self.mark_py_layout(out, _sliced_layout(laid_out, items))
            elif self.is_list(base) and rank(out.type) < rank(base.type):  # a row of a list of lists
                self.mark_row(out, base)
            return out
        if not self.is_list(base):
            return self.as_numpy(out)
        if self.holds_zero_d(base):  # (an item that may be an array of no axes)
            self.as_zero_d(out)
        k = _static_index(items)
        if self.has_py_items(base) or k is not None and self.py_item(base, k):
            return self.as_py(out)
        return self.mark_layout_item(out, base, k, loc)

    def mark_layout_item(self, out: Term, base: Term, k: int | None, loc) -> Term:
        """out, base[i] of a list whose Python numbers are known by their place only
        (py_layout), marked Python's where the item read is one: where i is (k: i as an int
        literal, else None)."""
        laid_out = self.laid_out(base)
        if laid_out is not None and laid_out is not MIXED and k is not None:
            head, _, tail = laid_out  # an item of the head or of the tail, counted from the end
            if 0 <= k < len(head) or -len(tail) <= k < 0:
                return self.as_py(out) if (head[k] if k >= 0 else tail[k]) else out
        lets, read = let_chain(out)
        if not (type(read) is Call and read.fn == "index" and read.args[1] is base):
            if laid_out is MIXED or laid_out is None and self.partly_py(base):  # (which kind, catad cannot
                return self.as_py_when(out, self.undecided(loc), out.type)     # tell: see py_item_where)
            if laid_out is not None:  # (its condition would read what out binds)
                refuse_item_of_unknown_kind(loc, "assign the list to a name first and index that, or make it an "
                                                 "array (np.array(...))")
            return out
        i = without_checks(make_lets([(lt.var, lt.rhs) for lt in lets], read.args[0])) if lets else read.args[0]
        return out if i is None or not copyable(i) else self.mark_item_at(out, base, i, loc)

    def complex_subscript(self, z: Complex, items: list, node: ast.Subscript) -> Complex:
        """z[...] of a complex array: the same subscript of both parts, its indices lowered once
        (integers, slices with step 1, an integer array)."""
        loc = self.loc(node)
        if not is_array(z.re):
            complexes.refuse(self, node, z, "a complex scalar cannot be indexed")
        if len(items) > rank(z.re.type):
            self.fail(node, "subscript", f"{len(items)} indices for an array of rank {rank(z.re.type)}",
                      CatadTypeError)
        lets, lowered = list(z.lets), []

        def atom(t: Term) -> Term:
            if t is None or is_atom(t):
                return t
            v = self.b.bound(self.b.var(t.type, loc, "_ix"), t)
            lets.append((v, t, loc))
            return v
        for it in items:
            if self.newaxis(it) or isinstance(it, ast.Constant) and it.value is Ellipsis:
                complexes.refuse(self, node, z, "a subscript of it with None or ... is not supported",
                                 "index its parts: z.real[...] and z.imag[...]")
            if isinstance(it, ast.Slice):
                lowered.append(("slice", atom(self.index_term(it.lower)), atom(self.index_term(it.upper)))
                               + tuple(atom(x) if isinstance(x, Term) else x for x in self.slice_step(it)))
            else:
                kind, t = self.index_item(it)
                lowered.append((kind, atom(t)))
        parts = [None if p is None else self._subscript_items(p, lowered, node) for p in (z.re, z.im)]
        return complexes.make(self, lets, parts[0], parts[1], loc, complexes.text_of(node))

    def tuple_slice(self, base: Term, sl: ast.Slice, what: str, node: ast.Subscript) -> Term:
        """t[a:b:c] of a tuple or list with bounds known while compiling: the tuple (list) of the
        items Python's slice selects, each keeping its structure."""
        bounds = []
        for part in (sl.lower, sl.upper, sl.step):
            k = None if part is None else static_int(self.expr(part))
            if part is not None and k is None:
                self.fail(node, f"{what} slice", f"a {what} can only be sliced by integers known while compiling",
                          hint="e.g. layers[:-1] or layers[1:3]")
            bounds.append(k)
        if bounds[2] == 0:
            self.fail(node, f"{what} slice", "slice step cannot be zero", CatadTypeError)
        ks = range(*slice(*bounds).indices(len(base.type.items)))
        loc = self.loc(node)
        trees = tuple(self.item_tree(base, k) for k in ks)

        def sliced(b):
            items = [self.with_tree(b.items[k] if isinstance(b, Tuple) else Get(k, b, loc), t) for k, t in zip(ks, trees)]
            t = Tuple(tuple(items), loc)
            return self.with_tree(t, Tree("list", trees)) if what == "list" else self.tuple_of(items, loc)
        if isinstance(base, Tuple) or is_atom(base):
            return sliced(base)
        lets, made = let_chain(base)
        if isinstance(made, Tuple) and projections(made):  # (a call's tuple result: see call_user)
            out = sliced(made)
            return self.with_tree(make_lets([(lt.var, lt.rhs, lt.loc) for lt in lets], out), self.tree(out))
        inner = []
        out = self.b.share(base, lambda b: inner.append(sliced(b)) or inner[0], loc)  # computed once
        return self.with_tree(out, self.tree(inner[0]))

    def _without_ellipsis(self, base: Term, items: list, node: ast.Subscript) -> list:
        """items with an Ellipsis (x[..., 0]) made the full slices it stands for: as many as the
        axes of base the other items leave (None takes none). Beside an index that may be an
        array (a boolean mask covers several axes) it is refused."""
        dots = [k for k, it in enumerate(items) if isinstance(it, ast.Constant) and it.value is Ellipsis]
        if not dots or self.is_list(base):  # (a list's index: Python's TypeError, refused as the constant)
            return items
        if len(dots) > 1:
            self.fail(node, "subscript", "an index can only have a single ellipsis ('...')", BoundsError)
        rest = [it for k, it in enumerate(items) if k != dots[0] and not self.newaxis(it)]
        for it in rest:
            if not (isinstance(it, (ast.Constant, ast.Slice)) or isinstance(it, ast.UnaryOp) and isinstance(
                    it.operand, ast.Constant) or isinstance(it, ast.Name) and isinstance(self.env.get(it.id), Term)
                    and self.env[it.id].type == Int):
                self.fail(it, "subscript", "an ellipsis beside an index other than an int or a slice is not "
                          "supported here", hint="write the axes out: x[:, :, k]")
        n = max(rank(base.type) - len(rest), 0)
        full = [ast.copy_location(ast.Slice(lower=None, upper=None, step=None), items[dots[0]]) for _ in range(n)]
        return items[:dots[0]] + full + items[dots[0] + 1:]

    def newaxis(self, item: ast.expr) -> bool:
        """Is this subscript item None or np.newaxis (a new axis of length 1)?"""
        if isinstance(item, ast.Constant):
            return item.value is None
        return isinstance(item, (ast.Name, ast.Attribute)) and self.static(item) is None

    def with_new_axes(self, base: Term, items: list, plain: list, node: ast.Subscript) -> Term:
        """base[items] where some items are None: NumPy puts an axis of length 1 at each None's
        place among the result's axes (the axes of slices, then those not indexed)."""
        positions, axis = [], 0
        for it in items:
            if self.newaxis(it):
                positions.append(axis)
                axis += 1
            elif isinstance(it, ast.Slice):
                axis += 1
        t = self.array_subscript(base, plain, node) if plain else base
        if rank(t.type) != rank(base.type) - sum(not isinstance(it, ast.Slice) for it in plain):
            self.fail(node, "subscript", "None (np.newaxis) beside an integer array index is not supported",
                      hint="index in two steps, e.g. v[idx][:, None]")
        return numpy_arrays.insert_axes(self, t, positions, self.loc(node))

    def array_subscript(self, base: Term, items: list, node: ast.Subscript) -> Term:
        """base[items] for an array base and items without None."""
        loc = self.loc(node)
        if len(items) > rank(base.type):
            self.fail(node, "subscript", f"{len(items)} indices for an array of rank {rank(base.type)}",
                      CatadTypeError)
        lowered = []
        for it in items:
            if isinstance(it, ast.Slice):
                lowered.append(("slice", self.index_term(it.lower), self.index_term(it.upper)) + self.slice_step(it))
            else:
                t = self.expr(it)
                if len(items) == 1 and isinstance(t.type, TupleT) and (self.tree(t) is None or self.tree(t).kind == "tuple"):
                    # m[idx] of a tuple idx (np.triu_indices(n)) is m[idx[0], idx[1]], as NumPy reads it
                    if len(t.type.items) > rank(base.type):
                        self.fail(node, "subscript", f"{len(t.type.items)} indices for an array of rank "
                                                     f"{rank(base.type)}", CatadTypeError)
                    parts = list(t.items) if isinstance(t, Tuple) else None
                    if parts is None:
                        return self.b.share(t, lambda v: self._subscript_items(
                            base, [self.index_item(it, Get(k, v, loc)) for k in range(len(t.type.items))], node), loc)
                    lowered += [self.index_item(it, x) for x in parts]
                else:
                    lowered.append(self.index_item(it, t))
        return self._subscript_items(base, lowered, node)

    def _subscript_items(self, base: Term, lowered: list, node: ast.Subscript) -> Term:
        loc = self.loc(node)
        refused = self.list_index_error(base, lowered, loc, isinstance(node.slice, ast.Tuple))
        # (the subscript is made all the same, for its type: where it would run, Python raises)
        return make_lets(refused, self._array_items(base, lowered, node)) if refused else \
            self._array_items(base, lowered, node)

    def _array_items(self, base: Term, lowered: list, node: ast.Subscript) -> Term:
        loc = self.loc(node)
        if any(item[0] in ("take", "mask") for item in lowered):
            self.copies.add(id(node))
        if any(item[0] == "mask" for item in lowered):
            return self.masked(base, lowered, node)
        takes = [k for k, item in enumerate(lowered) if item[0] in ("take", "nonzero")]
        if len(takes) == 2 and len(lowered) == 2 and rank(base.type) == 2:
            return self.gather(base, lowered[0][1], lowered[1][1], node)
        if len(takes) > 1:
            self.fail(node, "array index", "only one integer array can index an array (NumPy broadcasts "
                      "several together)", hint="use a comprehension, e.g. [m[a[k], b[k]] for k in range(n)]")
        if takes:
            # NumPy puts the array's axes first when a slice separates it from an integer index
            # (there, where no slice comes before the array, as here)
            points = [k for k, item in enumerate(lowered) if item[0] != "slice"]
            if points != list(range(points[0], points[-1] + 1)) and \
                    any(item[0] == "slice" for item in lowered[:takes[0]]):
                self.fail(node, "array index", "a slice between an integer index and an integer array index "
                          "moves NumPy's result axes first, which is not supported",
                          hint="index in two steps, e.g. m[i][:, idx]")
        t = self.b.subscript(base, lowered, loc)
        if self.is_list(base) and is_array(t) and rank(t.type) < rank(base.type):
            return self.list_row(t, base)  # a list, or an array, as the list was made
        if self.is_list(base) and is_array(t):  # a slice of a list
            return self.mark_rows(self.as_list(t), self.rows_kind(base))
        return t

    def masked(self, base: Term, lowered: list, node: ast.Subscript) -> Term:
        """base[..., m, ...] of a boolean mask m: along the axes m covers (checked to have its
        shape, NumPy's IndexError where not), the elements where m is true, in C order: the
        positions np.flatnonzero(m) gives, as many as there are true elements (a length known
        when the function runs). A vector mask stands among other indices as an integer array
        of those positions would; a mask of more axes stands alone (a[m], a[m, :])."""
        loc = self.loc(node)
        p = next(k for k, item in enumerate(lowered) if item[0] == "mask")
        m, r = lowered[p][1], rank(lowered[p][1].type)
        others = lowered[:p] + lowered[p + 1:]
        if any(item[0] in ("take", "mask") for item in others):
            self.fail(node, "array index", "a boolean mask beside another mask or an integer array index is not "
                      "supported (NumPy broadcasts their positions together)",
                      hint="index in two steps, e.g. a[m][:, idx]")
        if p + r + len(others) - p > rank(base.type):
            self.fail(node, "subscript", f"too many indices for array: array is {rank(base.type)}-dimensional, but "
                      f"{r + len(others)} were indexed", CatadTypeError)
        if r > 1 and (p > 0 or any(item != ("slice", None, None) for item in others)):
            self.fail(node, "array index", f"a boolean mask of {r} axes beside other indices is not supported",
                      hint="index with the mask alone (a[m]), or with a vector mask: a[m.ravel()] of a raveled a")

        def body(a, mask):
            chk = self.b.mask_checks(self.b.shape(a)[p:p + r], mask, p, loc)
            nonzero = prim("flatnonzero", mask, loc=loc)
            if r == 1:
                return make_lets(chk, self._array_items(a, lowered[:p] + [("nonzero", nonzero)] + lowered[p + 1:],
                                                        node))
            sizes = [self.b.size(mask, q, loc) for q in range(r)]

            def picked(nz):
                k = self.b.var(Int, loc, "_k")
                at = numpy_arrays.unravel(prim("index", k, nz, loc=loc), sizes, loc)
                return Build(self.b.size(nz, 0, loc), k, index_chain(a, at, loc), loc)
            return make_lets(chk, self.b.share(nonzero, picked, loc))
        return self.b.share_all([base, m], body, loc)

    def list_index_error(self, base: Term, lowered: list, loc, written_tuple: bool = False) -> list:
        """The check that raises Python's TypeError where a list is indexed by what only an array
        takes: a tuple (l[0, 1], of a list of lists too, and l[0,]), an array or a list of
        indices. An empty list where the subscript is a list's own."""
        if not self.is_list(base) or len(lowered) == 1 and lowered[0][0] in ("index", "slice") and not written_tuple:
            return []
        if len(lowered) > 1 or written_tuple:
            message = "list indices must be integers or slices, not tuple"
        elif self.is_list(lowered[0][1]):
            message = "list indices must be integers or slices, not list"
        else:
            message = "only integer scalar arrays can be converted to a scalar index"
        return self.b.check(FALSE, (), loc, "subscript", message, "unsupported", raises=TypeError)

    def dict_key(self, tree, items: list, node: ast.Subscript) -> int:
        """The position of the value d[key] reads: key a constant, or a loop's variable over the
        dict's keys (a DictKey in env)."""
        key = self.key_of(items, node)
        k = tree.index(key)
        if k is None:
            self.fail(node, "dict key", f"KeyError: {key!r} is not a key of this dict (its keys: "
                      f"{', '.join(map(repr, tree.keys))})", CatadTypeError)
        return k

    def key_of(self, items: list, node: ast.Subscript):
        """The key d[key] names: a constant, a loop's variable over a dict's keys (a DictKey in
        env), or a str argument or global."""
        key = _NO_KEY
        if len(items) == 1 and isinstance(items[0], ast.Constant):
            key = items[0].value
        elif len(items) == 1 and isinstance(items[0], ast.Name) and isinstance(self.env.get(items[0].id), DictKey):
            key = self.env[items[0].id].key
        elif len(items) == 1 and isinstance(items[0], ast.Name):
            from .freenames import NOT_STATIC  # freenames imports statements, which imports lists and this
            text = self.static_str(items[0])  # d[kind] of a str argument or global
            key = _NO_KEY if text is NOT_STATIC else text
        if key is _NO_KEY:
            self.fail(node, "dict key", "a dict can only be read with a constant key (d['W']), a str argument "
                      "or a loop's variable over its keys", hint="write the key itself, e.g. params['W']")
        return key

    def gather(self, base: Term, rows: Term, cols: Term, node: ast.Subscript) -> Term:
        """m[rows, cols] of a matrix and two integer arrays: the elements m[rows[k], cols[k]] at
        the broadcast shape of the index arrays (NumPy's IndexError when they do not broadcast),
        each index checked against its axis and read as Python reads it."""
        loc = self.loc(node)

        def body(m, a, b):
            binds = []
            sa, sb = self.b.shape(a), self.b.shape(b)
            if len(sa) == len(sb) == 1 and not self.b.shapes.same(sa[0], sb[0]):
                na, nb = sa[0].size, sb[0].size
                ok = or_(prim("eq", na, nb, loc=loc), or_(prim("eq", na, ONE, loc=loc), prim("eq", nb, ONE, loc=loc)))
                binds = self.b.check(ok, ((na,), (nb,)), loc, "index", "shape mismatch: indexing arrays could not be "
                                     "broadcast together with shapes {0} {1}", "bounds")
            out = self.b.elementwise(lambda i, j: self.b.subscript(m, [("index", i), ("index", j)], loc), [a, b],
                                     loc, "index")
            return make_lets(binds, out)
        return self.b.share_all([base, rows, cols], body, loc)

    def index_item(self, node: ast.expr, t: Term | None = None) -> tuple:
        """("index", i) for an Int, ("take", a) for an array of Ints (NumPy's integer array indexing),
        ("mask", m) for an array of Bools (a boolean mask: see masked)."""
        t = self.expr(node) if t is None else t
        if t.type == Int:
            return ("index", t)
        if is_array(t) and scalar_of(t.type) == Int:
            return ("take", t)
        if is_array(t) and scalar_of(t.type) == Bool:
            return ("mask", t)
        self.fail(node, "index", f"array indices must be Ints or arrays of Ints, got a {t.type}", CatadTypeError)

    def slice_step(self, sl: ast.Slice) -> tuple:
        """() for a slice's step of 1 (or none), else (step,): an int known while compiling
        (NumPy's ValueError for 0), or an Int term known at run time (checked not to be 0 where
        the slice is read)."""
        if sl.step is None:
            return ()
        t = self.expr(sl.step)
        if t.type != Int:
            self.fail(sl.step, "slice step", f"slice indices must be Ints, got a {t.type}", CatadTypeError)
        step = static_int(t)
        if step == 0:
            self.fail(sl.step, "slice step", "slice step cannot be zero", DomainError)
        return (t,) if step is None else () if step == 1 else (step,)

    def index_term(self, node: ast.expr | None) -> Term | None:
        if node is None:
            return None
        t = self.expr(node)
        if t.type != Int:
            self.fail(node, "index", f"array indices must be Ints, got a {t.type}", CatadTypeError)
        return t

    def x_List(self, node: ast.List) -> Term:
        """a list display: an array when its values make one (as np.array would), else a Python list of values."""
        if flat_display(node):
            return self.list_of([self.str_or_expr(e) for e in node.elts], node)
        leaves = self._display_leaves(node)
        out, numbers = self.as_list(self._nested(leaves, node)), _flattened(leaves)
        self.mark_rows(out, self._nested_rows(leaves, numbers))
        self.mark_zero_d_items(out, *numbers)
        if all(self.is_py(t) for t in numbers):  # (a list of lists: its rows read as lists, mark_row)
            return self.mark_py_items(out)
        if any(self.py_when(t) is not None for t in numbers):
            return self.mark_py_layout(out, MIXED)
        return out

    def _nested_rows(self, leaves: list, numbers: list) -> tuple[str, ...] | None:
        """The rows_kind of a nested list display: lists down to its leaves, then the leaves' (of
        numbers: nothing more; of arrays: arrays)."""
        depth, level = 0, leaves
        while isinstance(level, list) and level:
            depth, level = depth + 1, level[0]
        inner = self.made_rows(numbers) if any(is_array(t) for t in numbers) else ()
        return None if inner is None else ("list",) * (depth - 1) + inner

    def list_of(self, items: list[Term], node: ast.List) -> Term:
        """The list display node of items (lowered): an array when they make one."""
        # [W, b] of two shapes, [x, 1.0], [x[:1], x] (lengths that may differ): a Python list
        # of values, as Python keeps it (an array only when NumPy's would surely be one)
        if not (_one_array(items) and self.same_shapes(items)):
            t = Tuple(tuple(items), self.loc(node))
            return self.with_tree(t, Tree("list", tuple(self.tree(x) for x in items)))
        out = self.as_list(self._display_build(items, any(scalar_of(t.type) == Float for t in items), node))
        self.mark_rows(out, self.made_rows(items))
        # [x, 2.0] of Python's floats: its items are Python's (x / 0.0 raises); so is an int beside
        # floats ([x, 2][1] / 0 raises too), held as a float: Python's int 2 is read as its float
        # 2.0, of the same value (2 // 3 is 0, 2.0 // 3 is 0.0), whose errors are the same (ZeroDivisionError)
        return self.mark_items(out, items)

    def same_shapes(self, items: list) -> bool:
        """Whether the arrays among items are provably of one shape (scalars are)."""
        arrays = [t for t in items if is_array(t)]
        if len(arrays) < 2:
            return True
        shapes = [self.b.shapes.infer(t) for t in arrays]
        if any(s is None or None in s for s in shapes):
            return False
        return all(len(s) == len(shapes[0]) and all(self.b.shapes.same(a, b) for a, b in zip(shapes[0], s))
                   for s in shapes[1:])

    def display(self, node: ast.List | ast.Tuple) -> Term:
        """[a, b, c] (also inside np.array): a vector; nested displays of one length: a matrix."""
        return self._nested(self._display_leaves(node), node)

    def _nested(self, leaves: list, node: ast.AST) -> Term:
        floats = any(scalar_of(t.type) == Float for t in _flattened(leaves))
        return self._display_build(leaves, floats, node)

    def _display_leaves(self, node: ast.List | ast.Tuple) -> list:
        if not node.elts:
            self.fail(node, "empty list", "an empty list has no element type, and a compiled function's lists "
                      "cannot grow", hint="for a list filled by .append in a loop, make an array of its final "
                      "length first, out = np.zeros(n), and assign out[i] = ... in the loop; or use np.zeros(0)")
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
        if len({rank(x.type) for x in items}) > 1:  # NumPy's ValueError where it runs
            from .numpy_arrays import Failure
            return Failure(loc, "np.array", "setting an array element with a sequence. The requested array has an "
                           "inhomogeneous shape after 1 dimensions.").term(lw=self, ty=Vec(items[0].type))
        if self.same_shapes(items):
            return prim("vector", *items, loc=loc)
        return self.b.share_all(items, lambda *xs: make_lets(self._one_shape(xs, loc), prim("vector", *xs, loc=loc)),
                                loc)

    def _one_shape(self, arrays: tuple, loc) -> list:
        """The check that arrays stacked into one have one shape (NumPy's ValueError otherwise:
        it does not broadcast them)."""
        shapes = [self.b.shape(a) for a in arrays]
        binds = []
        for k, first in enumerate(shapes[0]):  # the first axis that differs is the one NumPy names
            conds = [prim("eq", first.size, s[k].size, loc=loc) for s in shapes[1:] if not self.b.shapes.same(first, s[k])]
            binds += self.b.check(all_(conds), (), loc, "np.array", "setting an array element with a sequence. The "
                                  f"requested array has an inhomogeneous shape after {k + 1} dimensions.", "shape")
        return binds


def _flattened(leaves: list) -> list:
    """The numbers of nested lists of them."""
    flat, stack = [], [leaves]
    while stack:
        for x in stack.pop():
            (stack if isinstance(x, list) else flat).append(x)
    return flat


def flat_display(node: ast.AST) -> bool:
    """Whether node is a list display of values, none a display or starred: [a, b, c]."""
    return isinstance(node, ast.List) and bool(node.elts) and \
        not any(isinstance(e, (ast.List, ast.Tuple, ast.Starred)) for e in node.elts)


def _static_index(items: list) -> int | None:
    """The index of l[k] written as an int literal (l[1], l[-1]), else None."""
    if len(items) != 1:
        return None
    e, sign = items[0], 1
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
        e, sign = e.operand, -1
    return sign * e.value if isinstance(e, ast.Constant) and type(e.value) is int else None


def _sliced_layout(layout, items: list):
    """The py_layout of a slice of a list laid out so (Lowerer.py_layout): l[k:] keeps its tail
    and, for an int literal k >= 0, what remains of its head; l[:k] keeps its head; where items
    of the other kind may be left among its middle ones, or for another slice, MIXED."""
    if layout is MIXED or len(items) != 1 or not isinstance(items[0], ast.Slice) or items[0].step is not None:
        return MIXED
    head, middle, tail = layout
    lower, upper = items[0].lower, items[0].upper
    k = None if lower is None else _static_index([lower])
    if upper is None and lower is not None:  # l[k:]
        if k is not None and k >= 0:  # (past the head: none of it is left)
            return head[k:], middle, tail
        return ((), middle, tail) if all(x == middle for x in head) else MIXED
    if lower is None or k == 0:  # l[:k], l[0:k] (and l[:])
        if upper is None:
            return layout
        return (head, middle, ()) if all(x == middle for x in tail) else MIXED
    return MIXED
