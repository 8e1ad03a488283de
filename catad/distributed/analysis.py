"""The map-reduce analysis (issue 18): does f have, with respect to the leading axis of its
data arguments, the form ``F(params, sum_i h(params, x[i]), len(x))``? When it does, f's core
program is split into a per-chunk program P and a combine program C with

    f(params, x) = C(params, sum_c P(params, x_c, n), n),      n = len(x),

for any split of the rows of x into chunks x_c (the sums are over disjoint rows, so they add).

The analysis reads f's core program inlined and in A-normal form, its nested lets floated to
one top-level chain, and gives every binding a kind:

- ROWS: a vector with one element per row (a data argument, or ``build(n, \\i. e)`` whose
  body reads vectors of rows only at row i, through ``v[i]``), computed per chunk;
- IOTA: ``build(n, \\i. i)`` (a loop's ``range(len(x))``), read at i it is i;
- NLEN: the number of rows (``size(x)``, ``max(size(x), 0)``): a row build's size is the
  chunk's, any other use is the total n, a parameter of both programs;
- PARTIAL: ``sum(v)`` of a ROWS v, or ``build(m, \\j. partial)`` over a size that is not the
  rows' (a column sum, ``X.T @ r``): the partial sums, returned by P, added over chunks;
- COLS: ``build(m, \\j. rows)`` over a size that is not the rows', whose elements are ROWS (a
  stack of per-row vectors, as ``np.array([h(x, j) for j in range(k)])``): a row i reads it as
  ``v[j][i]``;
- TUPLE: a tuple of such vectors (a function's result (u, v)), only taken apart by get;
- MAX: ``vmax(v)`` of a ROWS v of floats (or ``if c then k else vmax(v)``, logsumexp's -inf
  where there are no rows): the maximum over the rows, a result of P reduced by max;
- STAB: computed from maxima over the rows and FREE values only (logsumexp's guarded maximum);
- SCALED: ``build(n, \\i. exp(a - m))`` with m STAB used nowhere else in the row: its sum over the
  rows is a partial sum *scaled* by exp(-m), which P computes with its chunk's m and the
  reduction rescales to a common reference (the stabilised sum of logsumexp over the rows);
- FREE: computed from the parameters and n only (both programs may compute it);
- SUMMED: computed from partial sums: in C only.

Anything else that reads the rows (``x[i + 1]``, a loop carrying state across rows, sort,
cumsum, a product mixing rows, a total used inside a per-row computation) raises a
CatadError located at the statement, naming it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ArgumentError, CatadError, Loc
from ..lang.anf import anf_def
from ..lang.inline import inline_program
from ..lang.terms import (Build, Call, Const, Def, Get, If, Let, Program, Term, Tuple, Var, make_lets,
                          term_children, with_children)
from ..lang.types import Float, Int, Tuple as TupleT, Vec

ROWS, IOTA, NLEN, FREE, PARTIAL, SUMMED, COLS, TUPLE = ("rows", "iota", "nlen", "free", "partial", "summed", "cols",
                                                         "tuple")
MAX, STAB, SCALED = "max", "stabiliser", "scaled"
_ADVICE = ("catad.distributed splits objectives of the form F(params, sum over rows of h(params, x[i]), len(x)): "
           "compute this part per row, or use catad.value_and_grad on the whole data")


@dataclass
class Split:
    """f's per-chunk program P(user params, n, hidden) -> tuple of partial sums and combine
    program C(user params, s, n, hidden) -> f's value (s: the partial sums added over chunks;
    C reads of the data arguments only their shape past axis 0: it is given them with no rows)."""
    chunk: Program
    combine: Program
    partials: tuple  # P's results (partial sums, maxima, stabilisers): their variables, in order
    data: tuple[int, ...]
    # per result of P, how results of two chunks combine: "sum", "max" (a maximum over the rows),
    # "ref" (a stabiliser's value, reduced by max: the reference of the scaled sums), or
    # ("scaled", j): a sum scaled by exp(-ref), ref being result j (rescaled to the larger ref)
    roles: tuple = ()

    def __str__(self) -> str:
        return (f"per-chunk program (run on every chunk of rows; its results are added over chunks):\n{self.chunk}\n\n"
                f"combine program (run once, on the added partial sums s):\n{self.combine}")


def data_positions(data: Any, nargs: int) -> tuple[int, ...]:
    """The `data` option checked: positions of f's arguments (ints, negative from the end)."""
    nums = (data,) if isinstance(data, (int, np.integer)) else tuple(data) if isinstance(data, (tuple, list)) else None
    if not nums or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not -nargs <= k < nargs
                       for k in nums):
        raise ArgumentError(f"data must name positional arguments of f (ints below {nargs}), got {data!r}",
                            construct="data", hint="e.g. data=(1,) for f(params, x)")
    return tuple(sorted({int(k) % nargs for k in nums}))


def _mixes(what: str, loc: Loc | None, construct: str = "data rows") -> CatadError:
    return CatadError(what, loc, construct, _ADVICE)


def flatten(t: Term) -> tuple[list[tuple[Var, Term, Loc | None]], Term]:
    """The let chain of t with the lets nested in its right-hand sides floated out (the front
    end's and ANF's names are unique, so floating changes no binding); If branches and lambda
    bodies keep theirs. Iterative along a chain, recursive only in nesting."""
    out: list = []
    while type(t) is Let:
        rhs = t.rhs
        if type(rhs) is Let:
            inner, rhs = flatten(rhs)
            out.extend(inner)
        out.append((t.var, rhs, t.loc))
        t = t.body
    return out, t


class _Analysis:
    def __init__(self, main: Def, data: tuple[int, ...], n: Var):
        self.kind: dict[str, str] = {}
        self.data_names = {main.params[k].name for k in data}
        for k, p in enumerate(main.params):
            self.kind[p.name] = ROWS if k in data else FREE
        self.n = n
        self.row_builds: set[int] = set()  # ids of the builds over the rows (their size is the chunk's)
        self.scale_of: dict[str, str] = {}  # a SCALED vector or its sum -> its stabiliser's name
        self.allowed: set[int] = set()  # ids of the a - m in a SCALED row: the one place m may be read
        self.tuples: dict[str, tuple] = {}  # a tuple holding vectors of rows -> its items
        self.alias: dict[str, str] = {}  # a variable bound to a vector of rows -> that vector's name
        self.size_values: set[int] = set()  # ids of size(x) inside per-row computations: the total n
        self.loc = main.loc

    # ------------------------------------------------------------ top level

    def bind(self, var: Var, rhs: Term, loc: Loc | None) -> str:
        self._var_bound = var.name
        k = self.classify(rhs, loc or self.loc)
        self.kind[var.name] = k
        return k

    def classify(self, rhs: Term, loc: Loc | None) -> str:
        cls = type(rhs)
        if cls is Var:
            k = self.kind.get(rhs.name, FREE)
            if k == ROWS:
                self.alias[self._var_bound] = rhs.name
            return SUMMED if k == PARTIAL else STAB if k == MAX else k
        if cls is Call:
            k = self._call_kind(rhs, loc)
            if k is not None:
                return k
        if cls is Build:
            return self._build_kind(rhs, loc)
        if cls is Tuple and self._touches_rows(rhs):
            # a tuple of vectors of rows (a function returning (u, v)): only taken apart again
            if all(type(x) is Var or type(x) is Const for x in rhs.items):
                self.tuples[self._var_bound] = rhs.items
                return TUPLE
        if cls is Get and type(rhs.tup) is Var and rhs.tup.name in self.tuples:
            return self.classify(self.tuples[rhs.tup.name][rhs.index], loc)
        if cls is If and self._guarded_max(rhs):
            return MAX
        return self._other(rhs, loc)

    def _guarded_max(self, t: If) -> bool:
        """``if c then k else vmax(v)`` of a ROWS v, c read from the parameters and n only and k
        a constant (logsumexp's max, -inf where there are no rows): a maximum over the rows,
        taken per chunk and reduced by max as vmax(v) is (an empty chunk is not used)."""
        e = t.orelse
        return (type(t.cond) is Var and self.kind.get(t.cond.name, FREE) == FREE and type(t.then) is Const
                and type(e) is Call and e.fn == "vmax" and self._call_kind(e, None) == MAX)

    def _call_kind(self, t: Call, loc) -> str | None:
        a = t.args
        if t.fn == "size" and self._rowsvar(a[0]):
            return NLEN
        if t.fn == "dim" and self._rowsvar(a[0]):
            if type(a[1]) is Const and a[1].value == 0:
                return NLEN
            return FREE if self._origin(a[0].name) in self.data_names else self._other(t, loc)
        if t.fn in ("size", "dim") and type(a[0]) is Var and self.kind.get(a[0].name) == COLS:
            axis = 0 if t.fn == "size" else a[1].value if type(a[1]) is Const else None
            return NLEN if axis == 1 else FREE if axis == 0 else self._other(t, loc)
        if t.fn == "max" and len(a) == 2:
            ks = [self.kind.get(x.name) if type(x) is Var else None for x in a]
            if NLEN in ks and any(type(x) is Const and x.value == 0 for x in a):
                return NLEN  # max(len(x), 0): a range's length
        if t.fn == "sum" and self._rowsvar(a[0]) and self.kind[a[0].name] == ROWS:
            return PARTIAL
        if t.fn == "sum" and type(a[0]) is Var and self.kind.get(a[0].name) == SCALED:
            self.scale_of[self._var_bound] = self.scale_of[a[0].name]
            return PARTIAL
        if t.fn == "vmax" and type(a[0]) is Var and self.kind.get(a[0].name) == ROWS and a[0].type == Vec(Float):
            return MAX
        if t.fn == "sum" and type(a[0]) is Var and self.kind.get(a[0].name) == COLS:
            return ROWS  # the sum of a stack of per-row vectors: per row
        return None

    def _origin(self, name: str) -> str:
        while name in self.alias:
            name = self.alias[name]
        return name

    def _rowsvar(self, t: Term) -> bool:
        return type(t) is Var and self.kind.get(t.name) in (ROWS, IOTA)

    def _build_kind(self, t: Build, loc) -> str:
        if type(t.size) is Var and self.kind.get(t.size.name) == NLEN:
            self.row_builds.add(id(t))
            if type(t.body) is Var and t.body.name == t.var.name:
                return IOTA
            stab = self._scaled(t)
            self.row_body(t, loc)
            if stab is not None:
                self.scale_of[self._var_bound] = stab
                return SCALED
            return ROWS
        if not self._touches_rows(t):
            return self._other(t, loc)
        # build(m, \j. e) over another size: a vector of partial sums when e is one
        self.kind[t.var.name] = FREE
        lets, result = flatten(t.body)
        for var, rhs, l in lets:
            if self.bind(var, rhs, l or loc) == SUMMED:
                raise _mixes(f"a total over the rows is used inside a loop over {self._size_name(t)} before the "
                             "loop's result: only a sum over the rows itself can be split by rows", l or loc, "build")
        k = self.classify(result, loc)
        if k == SUMMED and type(result) is Var and self.kind.get(result.name) == PARTIAL:
            return PARTIAL
        if k == PARTIAL:
            return PARTIAL
        if k == ROWS:
            return COLS
        raise _mixes(f"a loop over {self._size_name(t)} computes per row values that are not summed over the rows",
                     loc, "build")

    def _scaled(self, t: Build) -> str | None:
        """m when the row's value is exp(a - m) with m a stabiliser read nowhere else in the row
        (and a - m nowhere else): the row build is SCALED by exp(-m)."""
        lets, result = flatten(t.body)
        if not (type(result) is Call and result.fn == "exp" and type(result.args[0]) is Var):
            return None
        b = result.args[0].name
        rhs = next((r for v, r, _ in lets if v.name == b), None)
        if not (type(rhs) is Call and rhs.fn == "sub" and type(rhs.args[1]) is Var
                and self.kind.get(rhs.args[1].name) in (STAB, MAX)):
            return None
        m = rhs.args[1].name
        uses = [u for u in _walk(t.body) if type(u) is Var and u.name in (m, b)]
        if len(uses) != 3:  # m in a - m, b bound, b in exp(b)
            return None
        self.allowed.add(id(rhs))
        return m

    def _size_name(self, t: Build) -> str:
        return "something other than the rows (a comprehension, or an axis of the parameters)"

    def _touches_rows(self, t: Term) -> bool:
        return any(type(s) is Var and self.kind.get(s.name) in (ROWS, IOTA, COLS, TUPLE, SCALED) for s in _walk(t))

    def _other(self, t: Term, loc) -> str:
        """Any other right-hand side: it must not read the rows (only their number, which is n)."""
        summed = stab = False
        stack = [(t, loc)]
        while stack:
            u, l = stack.pop()
            l = (type(u) is not Var and getattr(u, "loc", None)) or l  # a variable's loc is its binder's
            if type(u) is Var:
                k = self.kind.get(u.name)
                if k in (ROWS, IOTA, COLS, TUPLE, SCALED):
                    raise _mixes(self._mixing_message(t, u), l)
                summed = summed or k in (PARTIAL, SUMMED)
                stab = stab or k in (MAX, STAB)
                continue
            if (type(u) is Call and u.fn in ("size", "dim") and self._rowsvar(u.args[0])
                    and (u.fn == "size" or (type(u.args[1]) is Const and u.args[1].value == 0))):
                self.size_values.add(id(u))  # the number of rows: n
                continue
            stack.extend((k, l) for k in term_children(u))
        return SUMMED if summed else STAB if stab else FREE

    def _mixing_message(self, t: Term, v: Var) -> str:
        if type(t) is Call and t.fn == "index" and type(t.args[1]) is Var and t.args[1].name == v.name:
            return (f"reads a row of {v.name!r} at a computed position, not the row being summed: "
                    "rows are mixed, so the rows cannot be split into chunks")
        if type(t) is Call and t.fn in ("vmax", "vmin"):
            return (f"takes the {t.fn[1:]}imum of {v.name!r} over all the rows (as logsumexp over the rows does to "
                    "stabilise its exponentials): catad.distributed splits sums over the rows, not extrema over "
                    "them (a logsumexp over each row's own values, axis=1, is split)")
        what = t.fn if type(t) is Call else type(t).__name__.lower()
        return (f"this statement mixes the rows of {v.name!r} ({what} of all its rows, not a sum of per-row "
                "terms): the rows cannot be split into chunks")

    # ------------------------------------------------------------ a row's body

    def row_body(self, b: Build, loc) -> None:
        """Check that the body of a build over the rows reads vectors of rows only at its index
        (or an alias of it), uses the index for nothing else and no total over the rows."""
        rows_at = {b.var.name}
        local_rows: set[str] = set()
        counts = {"n": set(), "n-1": set()}  # names holding the number of rows, and it less one
        stack = [(b.body, loc, None)]
        while stack:
            t, l, parent = stack.pop()
            l = (type(t) is not Var and getattr(t, "loc", None)) or l  # a variable's loc is its binder's
            cls = type(t)
            if cls is Let:
                if (type(t.rhs) is Var and t.rhs.name in rows_at) or self._iota_at(t.rhs, rows_at):
                    rows_at.add(t.var.name)
                    stack.append((t.body, l, t))
                    continue
                r = t.rhs
                k = self._count_kind(r, rows_at, counts)
                if k is not None:  # n, n - 1, or min(i, n - 1) which is i (i < n): NumPy's broadcasting gather
                    (rows_at if k == "row" else counts[k]).add(t.var.name)
                    if k == "row":
                        stack.append((t.body, l, t))
                        continue
                if (type(r) is Call and r.fn == "index" and type(r.args[1]) is Var
                        and (self.kind.get(r.args[1].name) == COLS or r.args[1].name in local_rows)
                        and not (type(r.args[0]) is Var and r.args[0].name in rows_at)):
                    local_rows.add(t.var.name)  # v[j] of a stack of per-row vectors: a vector of rows
                    stack.append((t.body, l, t))
                    stack.extend((k, l, r) for k in r.args[:1])
                    continue
            elif (cls is Call and t.fn == "index" and type(t.args[1]) is Var
                  and (self.kind.get(t.args[1].name) in (ROWS, IOTA) or t.args[1].name in local_rows)):
                i = t.args[0]  # index(i, v) is v[i]
                if type(i) is Var and i.name in rows_at:
                    continue
                raise _mixes(f"reads {t.args[1].name}[{i}], a row other than the current one ({b.var.name}): "
                             "rows are mixed", l, "index")
            elif cls is Var:
                k = self.kind.get(t.name)
                if t.name in rows_at:
                    raise _mixes(f"uses the row's position {t.name} as a number: a chunk does not know where its "
                                 "rows are in the whole data", l, "row index")
                if k in (ROWS, IOTA, COLS, TUPLE, SCALED) or t.name in local_rows:
                    raise _mixes(f"reads all the rows of {t.name!r} inside a per-row computation: rows are mixed",
                                 l)
                if k in (MAX, STAB):
                    raise _mixes(f"uses {t.name!r}, a maximum over the rows, inside a per-row computation other "
                                 "than as exp(x - m) summed over the rows (as logsumexp stabilises)", l,
                                 "maximum over rows")
                if k in (PARTIAL, SUMMED):
                    raise _mixes(f"uses {t.name!r}, a total over the rows, inside a per-row computation: it is "
                                 "known only once every row is summed (two dependent passes)", l, "total over rows")
                continue
            elif cls is Call and id(t) in self.allowed:
                stack.append((t.args[0], l, t))  # a - m: m is the stabiliser, scaled out
                continue
            elif cls is Call and t.fn in ("size", "dim") and self._rowsvar(t.args[0]):
                if t.fn == "size" or (type(t.args[1]) is Const and t.args[1].value == 0):
                    self.size_values.add(id(t))  # the number of rows: the total n
                continue
            elif cls is Build and type(t.size) is Var and self.kind.get(t.size.name) == NLEN:
                raise _mixes("loops over all the rows inside a per-row computation: rows are mixed", l, "build")
            stack.extend((k, l, t) for k in reversed(term_children(t)))  # in scope order: a let's rhs first

    def _count_kind(self, r: Term, rows_at: set, counts: dict) -> str | None:
        if type(r) is not Call:
            return None
        a = r.args
        names = [x.name if type(x) is Var else None for x in a]
        if r.fn in ("size", "dim") and self._rowsvar(a[0]) and (r.fn == "size" or (type(a[1]) is Const
                                                                                  and a[1].value == 0)):
            return "n"
        if (r.fn == "sub" and names[0] is not None and (names[0] in counts["n"] or self.kind.get(names[0]) == NLEN)
                and type(a[1]) is Const and a[1].value == 1):
            return "n-1"
        if r.fn == "min" and len(a) == 2 and ((names[0] in rows_at and names[1] in counts["n-1"])
                                              or (names[1] in rows_at and names[0] in counts["n-1"])):
            return "row"
        return None

    def _iota_at(self, rhs: Term, rows_at: set) -> bool:
        return (type(rhs) is Call and rhs.fn == "index" and type(rhs.args[1]) is Var
                and self.kind.get(rhs.args[1].name) == IOTA and type(rhs.args[0]) is Var
                and rhs.args[0].name in rows_at)


def _walk(t: Term):
    stack = [t]
    while stack:
        s = stack.pop()
        yield s
        stack.extend(term_children(s))


def _fresh(names: set, base: str) -> str:
    name, k = base, 0
    while name in names:
        k += 1
        name = f"{base}{k}"
    names.add(name)
    return name


def split(core: Program, n_hidden: int, data: tuple[int, ...]) -> Split:
    """f's core program split into per-chunk and combine programs (see the module's doc);
    a CatadError at the statement that mixes rows when f is not of that form."""
    main = anf_def(inline_program(core).main)
    users = len(main.params) - n_hidden
    lets, result = flatten(main.body)
    names = {p.name for p in main.params} | {v.name for v, _, _ in lets}
    n = Var(_fresh(names, "n_rows"), Int)
    a = _Analysis(main, data, n)
    for var, rhs, loc in lets:
        a.bind(var, rhs, loc)
    rk = a.classify(result, main.loc)
    if rk in (ROWS, IOTA):
        raise _mixes(f"{main.name} returns a value per row: the result must be a total over the rows",
                     main.loc, "return")
    partials = _needed_partials(lets, result, a)
    if not partials:
        raise CatadError(f"{main.name} does not sum over the rows of its data arguments: there is nothing to split",
                         main.loc, "catad.distributed",
                         "name the arguments holding rows of data with data=(...), or use catad.value_and_grad")
    total = _Totals(a, names)
    outputs, roles = _outputs(partials, lets, a)
    chunk = _chunk_program(main, users, lets, outputs, a, total, n)
    combine = _combine_program(main, users, lets, result, outputs, roles, a, total, n, names)
    return Split(chunk, combine, tuple(outputs), tuple(data), tuple(roles))


def _free_names(t: Term) -> set[str]:
    from ..lang.terms import free_vars
    return {v.name for v in free_vars(t)}


def _needed_partials(lets, result, a: _Analysis) -> list[Var]:
    """The partial sums the result needs (walking back from it, stopping at partial sums)."""
    need = _free_names(result)
    found = []
    for var, rhs, _ in reversed(lets):
        if var.name not in need:
            continue
        if a.kind[var.name] in (PARTIAL, MAX):
            found.append(var)
            continue
        need |= _free_names(rhs)
    return found[::-1]


def _outputs(partials: list, lets, a: _Analysis) -> tuple[list, list]:
    """P's results and their roles (see Split.roles): the partial sums and maxima, then the
    stabiliser of each scaled sum, the reference its chunk's sum is scaled by."""
    var_of = {v.name: v for v, _, _ in lets}
    outputs, roles, refs = list(partials), [], {}
    for v in partials:
        if a.kind[v.name] == MAX:
            roles.append("max")
        elif v.name in a.scale_of:
            m = a.scale_of[v.name]
            if m not in refs:
                refs[m] = None
            roles.append(("scaled", m))
        else:
            roles.append("sum")
    for m in refs:
        refs[m] = len(outputs)
        outputs.append(var_of[m])
        roles.append("ref")
    return outputs, [("scaled", refs[r[1]]) if isinstance(r, tuple) else r for r in roles]


class _Totals:
    """The twin of each NLEN binding that gives the total number of rows (n), and the
    substitution of value uses of NLEN variables by their twins."""

    def __init__(self, a: _Analysis, names: set):
        self.a, self.names = a, names
        self.twin: dict[str, Var] = {}

    def of(self, var: Var) -> Var:
        if var.name not in self.twin:
            self.twin[var.name] = Var(_fresh(self.names, var.name + "_total"), var.type)
        return self.twin[var.name]

    def total_rhs(self, rhs: Term) -> Term:
        """The right-hand side of an NLEN binding as the total number of rows."""
        if type(rhs) is Call and rhs.fn in ("size", "dim"):
            return self.a.n
        return self.sub(rhs)

    def sub(self, t: Term) -> Term:
        """t with every value use of an NLEN variable (not a row build's size) by its twin."""
        env = {Var(k, Int): self.of(Var(k, Int)) for k, kd in self.a.kind.items() if kd == NLEN}
        if not env:
            return t
        return _sub(t, env, self.a)


def _sub(t: Term, env: dict, a: _Analysis) -> Term:
    """rename(t, env) except in the sizes of row builds, and NLEN bindings inside bodies get
    twins as the top level does. Recursive in nesting only (let chains are iterated)."""
    cls = type(t)
    if cls is Var:
        return env.get(t, t)
    if cls is Const:
        return t
    if cls is Let:
        lets, body = [], t
        while type(body) is Let:
            lets.append(body)
            body = body.body
        out = []
        for l in lets:
            rhs = _sub(l.rhs, env, a)
            out.append((l.var, rhs, l.loc))
            if a.kind.get(l.var.name) == NLEN:
                twin = env.get(Var(l.var.name, Int))
                if twin is not None:
                    out.append((twin, a.n if type(l.rhs) is Call and l.rhs.fn in ("size", "dim")
                                else _sub(l.rhs, env, a), l.loc))
        return make_lets(out, _sub(body, env, a))
    if cls is Call and id(t) in a.size_values:
        return a.n
    if cls is Build and id(t) in a.row_builds:
        return Build(t.size, t.var, _sub(t.body, env, a), t.loc)
    kids = term_children(t)
    return with_children(t, [k if type(k) is Var and _is_binder(t, k) else _sub(k, env, a) for k in kids])


def _is_binder(t: Term, k: Var) -> bool:
    for field in ("var", "dvar", "rvar"):
        if getattr(t, field, None) is k:
            return True
    return False


def _chunk_program(main: Def, users: int, lets, partials, a: _Analysis, total: _Totals, n: Var) -> Program:
    """P: the bindings the partial sums need (and the checks the rows' bindings make), each NLEN
    binding with its total twin; its result the tuple of the partial sums."""
    need = set().union(*(_free_names(Var(p.name, p.type)) for p in partials))
    keep = [False] * len(lets)
    for k in range(len(lets) - 1, -1, -1):
        var, rhs, _ = lets[k]
        kind = a.kind[var.name]
        is_check = type(rhs) is Call and rhs.fn == "check" and kind != SUMMED
        if var.name in need or is_check:
            keep[k] = True
            need |= _free_names(rhs)
            if kind == NLEN:
                need.add(var.name)
    out = []
    for k, (var, rhs, loc) in enumerate(lets):
        if not keep[k]:
            continue
        if a.kind[var.name] == NLEN:
            out.append((var, rhs, loc))
            out.append((total.of(var), total.total_rhs(rhs), loc))
        else:
            out.append((var, total.sub(rhs), loc))
    body = make_lets(out, Tuple(tuple(partials)))
    hidden = main.params[users:]
    d = Def(main.name + "_chunk", main.params[:users] + (n,) + hidden, body, main.loc)
    return Program((d,), d.name)


def _combine_program(main: Def, users: int, lets, result, partials, roles, a: _Analysis, total: _Totals, n: Var,
                     names: set) -> Program:
    """C: the bindings the result needs with the partial sums read from s (their sum over the
    chunks) and NLEN bindings the total n; the checks that read only what C has."""
    s = Var(_fresh(names, "s"), TupleT(tuple(p.type for p in partials)))
    pos = {p.name: k for k, p in enumerate(partials) if roles[k] != "ref"}  # a stabiliser: recomputed from maxima
    ref = {p.name: roles[k][1] for k, p in enumerate(partials) if isinstance(roles[k], tuple)}
    need = _free_names(result)
    keep = [False] * len(lets)
    for k in range(len(lets) - 1, -1, -1):
        var, rhs, _ = lets[k]
        kind = a.kind[var.name]
        is_check = type(rhs) is Call and rhs.fn == "check" and kind == SUMMED
        if var.name in need or is_check:
            keep[k] = True
            if kind in (ROWS, IOTA, COLS) and not (type(rhs) is Var and kind == ROWS):
                raise _mixes(f"{var.name!r} holds a value per row and is used where only totals are known", lets[k][2])
            if var.name not in pos:
                need |= _free_names(rhs)
            elif var.name in ref:
                need.add(a.scale_of[var.name])
    out = []
    for k, (var, rhs, loc) in enumerate(lets):
        if not keep[k]:
            continue
        if var.name in ref:  # sum_c S_c exp(r_c - r) exp(r - m) = sum_i exp(a_i - m): the sum scaled by m
            m = next(v for v in partials if v.name == a.scale_of[var.name])
            rescale = Call("exp", (Call("sub", (Get(ref[var.name], s), m), Float),), Float)
            out.append((var, Call("mul", (Get(pos[var.name], s), rescale), Float), loc))
        elif var.name in pos:
            out.append((var, Get(pos[var.name], s), loc))
        elif a.kind[var.name] == NLEN:
            # bound to n, or computed from bindings that are (max(len(x), 0))
            out.append((var, n if type(rhs) is Call and rhs.fn in ("size", "dim") else rhs, loc))
        else:
            out.append((var, _sub(rhs, {}, a), loc))  # size(x) inside: n
    body = make_lets(out, _sub(result, {}, a))
    hidden = main.params[users:]
    d = Def(main.name + "_combine", main.params[:users] + (s, n) + hidden, body, main.loc)
    return Program((d,), d.name)
