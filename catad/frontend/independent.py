"""Loops whose iterations are independent become builds and sums (issue 15, item 4).

A ``for`` loop is lowered to a ``fold`` (loops.py), which the backend runs as a Python loop.
Many loops need none: each iteration's work does not read what an earlier one made.
This pass, run on the front end's output (catad.pipeline), takes apart each fold's state:

- a *reduction* ``acc = acc + h`` (also ``acc -= h`` and either under an ``if`` whose test
  does not read the state), h reading no state: ``acc0 + sum(build(n, \\k. h[x := vec[k]]))``;
- a *map* ``out[i] = e`` on an array the function owns, written at the loop's index plus a
  constant only (``i`` of a ``range(c, n)`` loop, an ``enumerate`` counter or a ``zip`` index;
  ``out[i + 1]``), once per iteration, possibly under an ``if`` (the element keeps its value
  where the test fails), e not reading ``out`` but at ``out[i]`` itself (``out[i] += e``, which
  reads ``out0[i]``: no earlier iteration wrote it): ``vals = build(n, \\k. e[...])``, and
  ``out`` is ``vals`` when the loop covers the whole array, else ``build(len, \\j. if c <= j <
  n + c then vals[j - c] else out0[j])``; also one row of a matrix at a fixed row (the inner
  loop of ``m[i, j] = e``), and a row at the loop index (``m[i] = row``);
- an *induction variable* (an Int ``c = c + 1``): ``c0 + n * 1``, and ``c0 + k`` inside the
  builds (``enumerate``'s counter);
- a state the body leaves as it is: its initial value.

The other components stay in a fold of fewer components; when none is left the loop is
gone. A component stays when a component that stays reads it. The body's work is copied
into each build that needs it (with fresh names), so a value two components share is
computed by each (a constant factor, not a loss of sharing that grows).

Errors stay Python's. Bounds checks that the loop's range proves (``x[i]`` for ``i`` in
``range(len(x))``, ``out[r]`` for ``r`` in ``range(c + 1, len(out))`` with ``c`` an enclosing
loop's index) are dropped and the negative-index wrapping of an index proven non-negative is
removed, as for a comprehension; every other check of the body goes into every build made from
it and into the fold that stays. Checks and failing calls inside an operand are bound first, in
evaluation order (:func:`_floated`). Python raises at the first iteration that fails, a build at
the first check that fails in any iteration; with several checks these may differ, and the
pipeline then reruns the loops as the front end made them (``Pipeline.sequential_code``), which
raise Python's error. A check reading the loop's state leaves the loop as it was, and so does a
part of the body holding a loop whose trip count changes with the iteration (an inner loop over
the same vector in every iteration runs once for all lanes in the backend: batched).

Also an *element-wise sum*: ``out = build(len, \\a. if c then out[a] + h else out[a])`` (what
an inner map ``out[r] = out[r] + e`` over part of the array becomes), tests and h reading no
state: ``build(len, \\a. out0[a] + sum(build(n, \\k. h_k[a])))``.

Triangles (:meth:`_Loop.triangular`): an inner map over ``range(c + 1, len(out))`` or
``range(c)``, ``c`` an enclosing loop's index, computes its element at ``a`` in place (no build
of its values gathered at ``a - c``), and an element-wise sum whose terms read nothing that
fails sums them in place, over the ragged range of iterations its test ``lo <= k < hi`` allows
(:meth:`_Loop.span`): what the comprehension ``sum(... for k in range(a))`` is. Their checks
run in a build of their own over the iterations.

:func:`vectorise_loops` gives the new program and one note per loop, which ``explain``'s
code stage shows.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..lang.fold import Fold, WhileCount
from ..lang.names import FreshNames
from ..lang.terms import (Build, Call, Const, Def, Get, If, Let, Program, Term, Tuple, Var, free_vars,
                          compound_subterms, let_chain, make_lets, may_fail)
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Vec
from ..primitives import prim

_K = Var("\0k", Int)        # the iteration number, in canonical forms
_ELEM = "\0x"               # deps marker: reads the loop's element
_RAISING = ("vmax", "vmin", "argmax", "argmin")  # run-time errors of their own (an empty array)


def vectorise_loops(program: Program) -> tuple[Program, list[str]]:
    """program with the independent parts of its loops made builds and sums, and a note per loop."""
    notes: list[str] = []
    defs, changed = [], False
    failing = None  # found when a function has a loop (most have none: no walk of them then)
    for d in program.defs:
        if not any(isinstance(n, Fold) for n in compound_subterms(d.body)):
            defs.append(d)
            continue
        if failing is None:
            failing = _failing_functions(program)
        v = _Vectoriser(d, notes, failing)
        body = v.term(d.body)
        changed |= body is not d.body
        defs.append(d.replace(body=body) if body is not d.body else d)
    return (program.replace(defs=tuple(defs)) if changed else program), notes


class _Bind(NamedTuple):
    """A let of the body, taken out of its chain."""
    var: Var
    rhs: Term
    loc: object


class _Bail(Exception):
    """The loop is not taken apart (why, for the note)."""


# ---------------------------------------------------------------- small term helpers

def _fields(n: Term):
    return n._init_fields


def _map_children(n: Term, f, atoms: bool = False) -> Term:
    """n with f applied to each child term (tuples of terms included; variables and constants
    only with `atoms`); n itself if none changed."""
    changes = {}
    skip = () if atoms else (Var, Const)
    for name in _fields(n):
        v = getattr(n, name)
        if isinstance(v, Term) and not isinstance(v, skip):
            w = f(v)
            if w is not v:
                changes[name] = w
        elif isinstance(v, tuple) and any(isinstance(x, Term) for x in v):
            new = tuple(f(x) if isinstance(x, Term) and not isinstance(x, skip) else x for x in v)
            if any(a is not b for a, b in zip(new, v)):
                changes[name] = new
    return n.replace(**changes) if changes else n


def _binders(n: Term) -> list[str]:
    """The fields of n that bind a variable (a Let's and a Build's var, a fold's lambdas)."""
    if isinstance(n, (Let, Build)):
        return ["var"]
    return [v for v, _ in getattr(type(n), "LAMBDAS", ())]


class _Fresh:
    """Copies of terms with every binder renamed fresh and free variables renamed by env."""

    def __init__(self, names: FreshNames):
        self.names = names

    def var(self, v: Var) -> Var:
        return Var(self.names.name(_base(v.name)), v.type, v.loc)

    def copy(self, t: Term, env: dict[str, Term]) -> Term:
        if isinstance(t, Var):
            return env.get(t.name, t)
        if isinstance(t, Const):
            return t
        if isinstance(t, Let):
            lets, body = let_chain(t)
            env = dict(env)
            out = []
            for lt in lets:
                rhs = self.copy(lt.rhs, env)
                nv = self.var(lt.var)
                env[lt.var.name] = nv
                out.append((nv, rhs, lt.loc))
            return make_lets(out, self.copy(body, env))
        binders = _binders(t)
        if not binders:
            return _map_children(t, lambda c: self.copy(c, env), atoms=True)
        inner = dict(env)
        changes = {}
        for b in binders:
            old = getattr(t, b)
            nv = self.var(old)
            inner[old.name] = nv
            changes[b] = nv
        bodies = {b for _, b in getattr(type(t), "LAMBDAS", ())} or {"body"}
        for name in _fields(t):
            v = getattr(t, name)
            if name in changes or not isinstance(v, Term):
                continue
            changes[name] = self.copy(v, inner if name in bodies else env)
        return t.replace(**changes)


def _base(name: str) -> str:
    return re.sub(r"_\d+$", "", name.strip("\0")) or "_v"


def _q(name: str) -> str:
    """A state variable as a note names it: 'acc', or what a hidden one is."""
    shown = _shown(name)
    if shown.startswith("_"):
        return "a variable catad made"
    return shown if shown.startswith("the ") else repr(shown)


def _shown(name: str) -> str:
    for flag, what in (("_break", "the break flag"), ("_continue", "the continue flag"),
                       ("_returned", "the return flag"), ("_return_value", "the returned value")):
        if name.startswith(flag) and name[len(flag):].lstrip("_").isdigit() or name == flag:
            return what
    return "the loop's counter" if name in ("_c", "count") else _base(name)


# ---------------------------------------------------------------- the pass

class _Vectoriser:
    def __init__(self, d: Def, notes: list[str], failing: frozenset):
        self.notes, self.failing = notes, failing
        self.fresh = _Fresh(FreshNames.avoiding(d.body, params=d.params))
        self.env: dict[str, Term] = {}   # let-bound variable -> its right side (names are unique)
        self.nonneg: set[str] = set()    # elements of enclosing loops over indices known >= 0

    def term(self, t: Term) -> Term:
        """t with its folds (inner ones first) taken apart where they can be."""
        if isinstance(t, (Var, Const)):
            return t
        if isinstance(t, Let):
            lets, body = let_chain(t)
            out = []
            for lt in lets:
                rhs = self.term(lt.rhs)
                if isinstance(rhs, Fold):
                    made = self.fold(lt.var, rhs)
                    if made is not None:
                        for v, e in made:
                            self.env[v.name] = e
                        out += [(v, e, lt.loc) for v, e in made]
                        continue
                self.env[lt.var.name] = rhs
                out.append((lt.var, rhs, lt.loc))
            body2 = self.term(body)
            if all(a is b.var and r is b.rhs for (a, r, _), b in zip(out, lets)) and len(out) == len(lets) \
                    and body2 is body:
                return t
            return make_lets(out, body2)
        if isinstance(t, Fold):
            self.learn_nonneg(t)
        return _map_children(t, self.term)

    def learn_nonneg(self, f: Fold) -> None:
        """The element of a fold over range(a, b) with a >= 0 is not negative: so is an index
        of its body's loops that starts from it (range(c + 1, d))."""
        src = self.env.get(f.vec.name) if isinstance(f.vec, Var) else None
        if not (isinstance(src, Build) and _nonneg_term(src.body, self.nonneg | {src.var.name})):
            return
        for lt in let_chain(f.body)[0]:
            if isinstance(lt.rhs, Get) and lt.rhs.tup == f.var and lt.rhs.index == 1:
                self.nonneg.add(lt.var.name)

    # ------------------------------------------------------------ one fold

    def fold(self, var: Var, f: Fold) -> list[tuple[Var, Term]] | None:
        line = f.loc.line if f.loc is not None else "?"
        try:
            made, note = _Loop(self, f).split(var)
        except RecursionError:  # a body nested too deeply for this pass's recursive walks: left as it is
            self.notes.append(f"loop at line {line} runs as a Python loop: its body is nested too deeply")
            return None
        except _Bail as e:
            self.notes.append(f"loop at line {line} runs as a Python loop: {e}")
            return None
        self.notes.append(f"loop at line {line} {note}")
        return made


class _Loop:
    """One fold being taken apart."""

    def __init__(self, vz: _Vectoriser, f: Fold):
        self.vz, self.f, self.fresh = vz, f, vz.fresh
        self.parse()

    # ------------------------------------------------------------ the shape of the body

    def parse(self) -> None:
        f = self.f
        t = f.var
        lets, result = let_chain(f.body)
        multi = isinstance(f.acc, Tuple)
        self.inits = list(f.acc.items) if multi else [f.acc]
        m = len(self.inits)
        self.comp: dict[str, int] = {}     # component variable -> its index
        self.elem: Var | None = None
        accvar = None
        body_lets = []
        for lt in lets:
            r = lt.rhs
            if isinstance(r, Get) and r.tup == t and r.index == 0 and accvar is None and not self.comp:
                if multi:
                    accvar = lt.var
                else:
                    self.comp[lt.var.name] = 0
                continue
            if multi and isinstance(r, Get) and accvar is not None and r.tup == accvar:
                self.comp[lt.var.name] = r.index
                continue
            if isinstance(r, Get) and r.tup == t and r.index == 1 and self.elem is None:
                self.elem = lt.var
                continue
            body_lets += _floated(lt, self.vz.failing, self.fresh)
        if self.elem is None or len(set(self.comp.values())) != m:
            raise _Bail("its body is not in the form the front end makes")
        self.compvar = {k: None for k in range(m)}
        for name, k in self.comp.items():
            if self.compvar[k] is not None:
                raise _Bail("its body is not in the form the front end makes")
            self.compvar[k] = next(lt.var for lt in lets if lt.var.name == name)
        hidden = {t.name} | ({accvar.name} if accvar is not None else set())
        for term in [lt.rhs for lt in body_lets] + [result]:
            if any(v.name in hidden for v in free_vars(term)):
                raise _Bail("its body reads the whole state")
        if multi:
            if not (isinstance(result, Tuple) and len(result.items) == m):
                raise _Bail("its body is not in the form the front end makes")
            self.results = list(result.items)
        else:
            self.results = [result]
        self.lets = body_lets
        self.names = {lt.var.name for lt in body_lets}
        self.rhs = {lt.var.name: lt.rhs for lt in body_lets}
        # the trip count and the element of iteration k
        vec = f.vec
        src = self.vz.env.get(vec.name) if isinstance(vec, Var) else None
        if isinstance(src, Build) and _indexish(src.body) and src.body.type == Int:
            # range(a, b, step): the element is an index, a + k * step
            self.n = src.size if isinstance(src.size, (Var, Const)) else prim("size", vec)
            self.n_canon = src.size
            self.elem_of = lambda k: _subst(src.body, {src.var.name: k})
            self.index_loop = True
        else:
            self.n = prim("size", vec, loc=f.loc)
            self.n_canon = self.n
            self.elem_of = lambda k: prim("index", k, vec, loc=f.loc)
            self.index_loop = False
        # induction variables (Int c = c + step, step constant) and states left as they are
        self.invariant: set[int] = set()
        self.induction: dict[int, int] = {}
        for k in range(m):
            r = self._resolve_local(self.results[k])
            cv = self.compvar[k]
            if r == cv:
                self.invariant.add(k)
            elif cv.type == Int and isinstance(r, Call) and r.fn == "add" and len(r.args) == 2:
                a, b = r.args
                if a == cv and isinstance(b, Const) and b.type == Int:
                    self.induction[k] = int(b.value)
                elif b == cv and isinstance(a, Const) and a.type == Int:
                    self.induction[k] = int(a.value)
        # a trip count that is an array's length is written as that length (size(x), not
        # max(size(x), 0)): the builds then have the length the comprehension's would have
        cn = self.canon(self.n_canon)
        if _is_length(cn) and all(isinstance(a, (Var, Const)) for a in cn.args):
            self.n = cn

    def _resolve_local(self, t: Term) -> Term:
        while isinstance(t, Var) and t.name in self.rhs:
            t = self.rhs[t.name]
        return t

    # ------------------------------------------------------------ canonical forms and proofs

    def canon(self, t: Term, depth: int = 0) -> Term:
        """t with variables bound to index arithmetic and sizes replaced by their values, the
        element by the iteration number _K (when it is one), and an induction variable by c0 + _K * step;
        compared structurally (locations aside), never emitted."""
        if depth > 50:
            return t
        if isinstance(t, Var):
            if t == self.elem and self.index_loop:
                return self.canon(self.elem_of(_K), depth + 1)
            k = self.comp.get(t.name)
            if k is not None and k in self.induction:
                return self._induction_value(k, _K, canon=True)
            rhs = self.rhs.get(t.name, self.vz.env.get(t.name))
            if rhs is not None and rhs.type in (Int, Bool) and _arith(rhs):
                return self.canon(rhs, depth + 1)
            return t
        if isinstance(t, Call) and t.fn in ("size", "dim") and isinstance(t.args[0], Var):
            axis = 0 if t.fn == "size" else t.args[1].value if isinstance(t.args[1], Const) else None
            src = self.rhs.get(t.args[0].name, self.vz.env.get(t.args[0].name))
            binders = set()
            while axis is not None and isinstance(src, Build):
                if axis == 0:
                    if not {v.name for v in free_vars(src.size)} & binders:
                        return self.canon(src.size, depth + 1)
                    break
                binders.add(src.var.name)
                src, axis = src.body, axis - 1
        if isinstance(t, Call) and _arith(t):
            args = tuple(self.canon(a, depth + 1) for a in t.args)
            if t.fn == "max" and len(args) == 2 and args[1] == Const(0, Int) and _is_length(args[0]):
                return args[0]
            if t.fn == "max" and len(args) == 2 and args[1] == Const(0, Int) and _at_least_k(args[0]):
                return args[0]  # max(k + c, 0), c >= 0, k the iteration number: range(j)'s length
            if t.fn in ("max", "min") and all(isinstance(a, Const) for a in args):
                return Const((max if t.fn == "max" else min)(a.value for a in args), t.type)
            return t.replace(args=args) if any(a is not b for a, b in zip(args, t.args)) else t
        if isinstance(t, If):
            return t.replace(cond=self.canon(t.cond, depth + 1), then=self.canon(t.then, depth + 1),
                             orelse=self.canon(t.orelse, depth + 1))
        return t

    def _induction_value(self, k: int, it: Term, canon: bool = False) -> Term:
        step = self.induction[k]
        a0 = self.inits[k]
        if canon:
            a0 = self.canon(a0) if isinstance(a0, Var) else a0
        off = it if step == 1 else prim("mul", it, Const(step, Int))
        return off if a0 == Const(0, Int) else prim("add", a0, off)

    def is_k(self, t: Term) -> bool:
        return self.canon(t) == _K

    def lin(self, t: Term) -> tuple[dict, int] | None:
        """t's canonical form as a linear form over atoms ({atom: coefficient}, constant)."""
        t = self.canon(t)
        out: dict = {}
        const = 0
        todo = [(t, 1)]
        while todo:
            a, c = todo.pop()
            if isinstance(a, Const) and a.type == Int:
                const += c * int(a.value)
            elif isinstance(a, Call) and a.fn in ("add", "sub") and len(a.args) == 2:
                todo += [(a.args[0], c), (a.args[1], c if a.fn == "add" else -c)]
            elif isinstance(a, Call) and a.fn == "neg":
                todo.append((a.args[0], -c))
            elif isinstance(a, Call) and a.fn == "mul" and isinstance(a.args[0], Const) and a.args[0].type == Int:
                todo.append((a.args[1], c * int(a.args[0].value)))
            elif isinstance(a, Call) and a.fn == "mul" and isinstance(a.args[1], Const) and a.args[1].type == Int:
                todo.append((a.args[0], c * int(a.args[1].value)))
            elif a.type == Int:
                out[a] = out.get(a, 0) + c
            else:
                return None
        return {a: c for a, c in out.items() if c}, const

    def k_offset(self, t: Term) -> Term | None:
        """c when t is the iteration number plus c, an Int not negative that does not change in
        the loop (the start of range(c, ...), an enclosing loop's index plus 1), as a term that
        holds before the loop; None otherwise."""
        form = self.lin(t)
        if form is None or form[0].get(_K) != 1 or form[1] < 0:
            return None
        rest = {a: c for a, c in form[0].items() if a != _K}
        if not all(c > 0 and self.invariant_nonneg(a) for a, c in rest.items()):
            return None
        out: Term | None = None
        for a, c in rest.items():
            term = a if c == 1 else prim("mul", Const(c, Int), a)
            out = term if out is None else prim("add", out, term)
        if out is None:
            return Const(form[1], Int)
        return prim("add", out, Const(form[1], Int)) if form[1] else out

    def invariant_nonneg(self, a: Term) -> bool:
        """Is the atom a (of a canonical linear form) a length, or an enclosing loop's index
        known not negative, and the same in every iteration?"""
        local = self.names | set(self.comp) | {self.elem.name}
        if any(v.name in local for v in free_vars(a)):
            return False
        return _is_length(a) or isinstance(a, Var) and a.name in self.vz.nonneg

    def nonneg(self, t: Term) -> bool:
        return self.k_offset(t) is not None

    def le_len(self, n: Term, length: Term, plus: Term | int = 0) -> bool:
        """Is n + plus <= length proven whenever n > 0 (n a trip count, length an array's)?"""
        n, length = self.canon(n), self.canon(length)
        lf = self.lin(length)
        pf = self.lin(plus) if isinstance(plus, Term) else ({}, plus)
        if pf is None:
            return False
        todo = [n]
        while todo:
            a = todo.pop()
            if a == length and not pf[0] and pf[1] <= 0:
                return True
            if isinstance(a, Call) and a.fn == "max" and len(a.args) == 2 and a.args[1] == Const(0, Int):
                todo.append(a.args[0])
                continue
            if isinstance(a, Call) and a.fn == "min":
                todo.extend(a.args)
                continue
            af = self.lin(a)
            if af is not None and lf is not None:
                diff = dict(af[0])
                for atom, c in list(lf[0].items()) + [(atom, -c) for atom, c in pf[0].items()]:
                    diff[atom] = diff.get(atom, 0) - c
                if not any(diff.values()) and af[1] + pf[1] - lf[1] <= 0:
                    return True
        return False

    def proven(self, check: Call) -> bool:
        """Is a bounds check `-L <= i < L` true for every i the loop's index takes?"""
        cond = check.args[0]
        if self.trivially_true(check):
            return True
        if not (self.index_loop or self.induction) or not isinstance(cond, If):
            return False
        lo, hi, other = cond.cond, cond.then, cond.orelse
        if not (other == Const(False, Bool) and isinstance(lo, Call) and lo.fn == "le"
                and isinstance(hi, Call) and hi.fn == "lt"):
            return False
        neg, i1 = lo.args
        i2, length = hi.args
        c = self.k_offset(i1)
        if c is None or self.canon(i1) != self.canon(i2):
            return False
        ok_neg = (isinstance(neg, Call) and neg.fn == "neg" and self.canon(neg.args[0]) == self.canon(length)) or \
            (isinstance(neg, Const) and isinstance(length, Const) and neg.value == -length.value)
        return ok_neg and self.le_len(self.n_canon, length, c)

    def trivially_true(self, check: Call) -> bool:
        cond = self.canon(check.args[0])
        return cond == Const(True, Bool) or isinstance(cond, Call) and cond.fn in ("eq", "le") \
            and cond.args[0] == cond.args[1]

    def simplify(self, t: Term) -> Term:
        """t without the bounds checks the loop proves and without the wrapping of indices it
        proves non-negative (if i < 0 then i + L else i)."""
        if isinstance(t, (Var, Const)):
            return t
        if isinstance(t, Let):
            lets, body = let_chain(t)
            out = []
            for lt in lets:
                r = lt.rhs
                if isinstance(r, Call) and r.fn == "check" and self.proven(r):
                    continue
                out.append((lt.var, self.simplify(r), lt.loc))
            return make_lets(out, self.simplify(body))
        if isinstance(t, If) and isinstance(t.cond, Call) and t.cond.fn == "lt" and t.cond.args[1] == Const(0, Int) \
                and t.orelse == t.cond.args[0] and self.nonneg(t.orelse):
            return t.orelse
        return _map_children(t, self.simplify)

    # ------------------------------------------------------------ dependences

    def deps_all(self, lets) -> dict[str, frozenset]:
        deps: dict[str, frozenset] = {self.elem.name: frozenset({_ELEM})}
        for name, k in self.comp.items():
            deps[name] = frozenset({k})
        for lt in lets:
            deps[lt.var.name] = self.deps_of(lt.rhs, deps)
        return deps

    @staticmethod
    def deps_of(t: Term, deps) -> frozenset:
        out: frozenset = frozenset()
        for v in free_vars(t):
            out |= deps.get(v.name, frozenset())
        return out

    def closure(self, roots: list[Term], lets) -> set[str]:
        need = {v.name for r in roots for v in free_vars(r)}
        for lt in reversed(lets):
            if lt.var.name in need:
                need |= {v.name for v in free_vars(lt.rhs)}
        return need

    # ------------------------------------------------------------ the split

    def split(self, var: Var):
        f = self.f
        m = len(self.inits)
        # 1. what the loop's range proves; an array written at the loop's index keeps its shape
        lets, results = self.prove(self.lets, self.results)
        writes = [k for k in range(m) if k not in self.invariant and k not in self.induction
                  and self.map_path(k, results[k], check_deps=False) is not None]
        for k in writes:
            lets, results = self.same_shape(k, lets, results)
        if writes:
            lets, results = self.prove(lets, results)
        # 2. the maps, and their reads of their own element at the index written (out[i] += e)
        maps: dict[int, tuple] = {}
        for k in writes:
            p = self.map_path(k, results[k])
            if p is not None:
                maps[k] = p
                levels = p[0]
                if len(levels) == 1:
                    lets, results = self.own_reads(k, levels[0][2], lets, results)
                    self.set_lets(lets)
        deps = self.deps_all(lets)
        subst = self.invariant | set(self.induction)
        # 3. the places a run fails. A build checks all its iterations at once, so with several
        # checks it may raise another error first than Python, which stops at the first iteration
        # that fails: the program then reruns the loops as the front end made them (Pipeline.
        # sequential_code), which raise Python's error. The checks must read no state that stays.
        fails = [lt for lt in lets if may_fail(lt.rhs) or _raises(lt.rhs, self.vz.failing)]
        fail_deps = frozenset().union(*(self.deps_of(lt.rhs, deps) for lt in fails)) - {_ELEM}
        if fail_deps - subst:
            raise _Bail("a check in its body reads the loop's state")
        # 4. each component's kind
        kinds: dict[int, tuple] = {}
        stay_reason: dict[int, str] = {}
        for k in range(m):
            if k in self.invariant:
                kinds[k] = ("invariant",)
                continue
            if k in self.induction:
                kinds[k] = ("induction",)
                continue
            inc = self.increment(k, results[k], deps)
            if inc is not None and not (self.deps_of(inc, deps) - {_ELEM}) - subst \
                    and self.compvar[k].type in (Float, Int):
                kinds[k] = ("sum", inc)
                continue
            if k in maps:
                levels, e, row_vars = maps[k]
                bad = self.deps_of(e, deps) - {_ELEM}
                if not (bad - subst) and not ({v.name for v in free_vars(e)} & row_vars):
                    kinds[k] = ("map", levels, e)
                    continue
            vinc = self.elementwise_increment(k, results[k], deps)
            if vinc is not None and not (self.deps_of(vinc[2], deps) - {_ELEM}) - subst:
                kinds[k] = ("vsum",) + vinc
                continue
            stay_reason[k] = self.why(k, results[k], deps)
        # A loop inside a build runs as one loop for all its lanes when its trip count is the
        # same in every lane (catad.backend.folds: batched); else the build would be a Python
        # loop in the backend all the same, and stays one here.
        bound = _bound_names(self.f.body)
        for k, kind in list(kinds.items()):
            if kind[0] in ("sum", "map", "vsum"):
                value = kind[1] if kind[0] == "sum" else kind[2] if kind[0] == "map" else Build(*kind[1:])
                need = self.closure([value] + [lt.rhs for lt in fails], lets)
                held = [lt.rhs for lt in lets if lt.var.name in need] + [value]
                loops = [n for t in held for n in _subterms(t) if isinstance(n, (Fold, WhileCount))]
                if not all(self.same_trips(n, deps, bound) for n in loops):
                    del kinds[k]
                    stay_reason[k] = "is computed by a loop inside it whose trip count changes with the iteration"
        # 5. a component that stays keeps what it reads in the fold
        stay = set(stay_reason)
        changed = True
        while changed:
            changed = False
            for k in sorted(stay):
                need = self.closure([results[k]], lets)
                read = frozenset().union(*(deps.get(nm, frozenset()) for nm in need),
                                         *(deps.get(v.name, frozenset()) for v in free_vars(results[k])))
                for j in read - {_ELEM, k}:
                    if j not in stay:
                        stay.add(j)
                        stay_reason[j] = f"is read by {_q(self.compvar[k].name)}, which stays a loop"
                        changed = True
        if stay:  # the checks run in the fold too, with the counters they read
            for j in fail_deps - stay:
                stay.add(j)
                stay_reason[j] = "a check in the loop reads it"
        out_kinds = {k: v for k, v in kinds.items() if k not in stay}
        if not any(v[0] in ("sum", "map", "vsum") for v in out_kinds.values()):
            why = "; ".join(f"{_q(self.compvar[k].name)} {stay_reason[k]}" for k in sorted(stay_reason, key=self._named_first)) \
                or "nothing in it is a sum or a map"
            raise _Bail(why)
        # 6. the builds, the values and the fold that stays
        made: list[tuple[Var, Term]] = []
        values: dict[int, Term] = {}
        for k, kind in sorted(out_kinds.items()):
            if kind[0] == "invariant":
                values[k] = self.inits[k]
            elif kind[0] == "induction":
                n = self.n
                cn = self.canon(n)
                if not (_is_length(cn) or isinstance(cn, Const) and cn.value >= 0
                        or isinstance(cn, Call) and cn.fn == "max" and Const(0, Int) in cn.args):
                    n = prim("max", n, Const(0, Int), loc=f.loc)  # a build of negative size is empty
                values[k] = self._induction_value(k, n)
            elif kind[0] == "sum":
                vals = self.build_of(kind[1], lets, fails)
                v = self.fresh.var(Var("_sum", vals.type))
                made.append((v, vals))
                values[k] = prim("add", self.inits[k], prim("sum", v, loc=f.loc), loc=f.loc)
            elif kind[0] == "vsum":
                length, a, h = kind[1], kind[2], kind[3]
                if self.pure(h, lets, fails):  # each element's sum, its terms in place
                    made += self.checks(lets, fails)
                    values[k] = self.vsum_direct(k, length, a, h, lets)
                else:
                    vals = self.build_of(Build(length, a, h, f.loc), lets, fails)
                    v = self.fresh.var(Var("_sums", vals.type))
                    made.append((v, vals))
                    values[k] = self.vsum_value(k, length, v, lets)
            else:
                levels, e = kind[1], kind[2]
                own = self.own_increment(k, levels, e)  # out[i] = out[i] + h: the values of h
                value = e if own is None else own
                if self.triangular(levels) and self.pure(value, lets, fails):  # the values in place
                    made += self.checks(lets, fails)
                    vals = self.build_of(value, lets, [])
                else:
                    vals = self.build_of(value, lets, fails)
                    v = self.fresh.var(Var("_map", vals.type))
                    made.append((v, vals))
                    vals = v
                values[k] = self.map_value(k, levels, vals, lets, own is not None)
        if stay:
            staying = sorted(stay)
            folded = self.remaining(staying, lets, results, fails)
            fv = self.fresh.var(Var("_st", folded.type))
            made.append((fv, folded))
            for pos, k in enumerate(staying):
                values[k] = fv if len(staying) == 1 else Get(pos, fv, f.loc)
        result = values[0] if m == 1 else Tuple(tuple(values[k] for k in range(m)), f.loc)
        made.append((var, result))
        said = [f"{_q(self.compvar[k].name)} a {'build' if v[0] == 'map' else 'sum'}"
                for k, v in sorted(out_kinds.items()) if v[0] in ("sum", "map", "vsum")]
        if stay:
            names = ", ".join(_q(self.compvar[k].name) for k in sorted(stay))
            why = "; ".join(f"{_q(self.compvar[k].name)} {stay_reason[k]}" for k in sorted(stay_reason, key=self._named_first))
            note = f"is vectorised in part ({', '.join(said)}); {names} still run as a Python loop: {why}"
        else:
            note = f"is vectorised: no Python loop ({', '.join(said)})"
        return made, note

    def prove(self, lets, results):
        """The body without the checks the loop's range proves, nor index wrapping it proves useless."""
        out = []
        for lt in lets:
            r = lt.rhs
            if isinstance(r, Call) and r.fn == "check" and self.proven(r):
                continue
            out.append(_Bind(lt.var, self.simplify(r), lt.loc))
        self.set_lets(out)
        return out, [self.simplify(r) for r in results]

    def set_lets(self, lets) -> None:
        self.lets_now = lets
        self.rhs = {lt.var.name: lt.rhs for lt in lets}

    def _named_first(self, k: int):
        """Order for notes: the user's variables first."""
        return (_q(self.compvar[k].name).startswith(("a ", "the ")), k)

    def why(self, k: int, r: Term, deps) -> str:
        own = self.deps_of(r, deps)
        if k in own:
            return "depends on its value in the previous iteration"
        others = sorted(own - {_ELEM, k})
        if others:
            return f"reads {_q(self.compvar[others[0]].name)}, which the loop changes"
        return "is not a sum or an element-wise write at the loop's index"

    # ------------------------------------------------------------ reductions

    def increment(self, k: int, r: Term, deps) -> Term | None:
        """h with r = c + h for c the component's value before the iteration, h not reading it
        (under ifs whose tests do not read it); None if r is not of that form."""
        cv = self.compvar[k]
        ty = cv.type
        zero = Const(0.0 if ty == Float else 0, ty)
        seen_names = set()

        def inc(t: Term) -> Term | None:
            while isinstance(t, Var) and (t.name in self.rhs or t.name in local) and t.name not in seen_names:
                seen_names.add(t.name)
                t = local.get(t.name) or self.rhs[t.name]
            if t == cv:
                return zero
            if isinstance(t, Call) and t.fn in ("add", "sub") and len(t.args) == 2 and t.type == ty:
                a, b = t.args
                if a == cv and k not in self.deps_of(b, deps) and not _mentions(b, cv):
                    return b if t.fn == "add" else prim("neg", b, loc=t.loc)
                if t.fn == "add" and b == cv and k not in self.deps_of(a, deps) and not _mentions(a, cv):
                    return a
                return None
            if isinstance(t, If) and k not in self.deps_of(t.cond, deps) and not _mentions(t.cond, cv):
                a, b = inc(t.then), inc(t.orelse)
                return None if a is None or b is None else If(t.cond, a, b, t.loc)
            if isinstance(t, Let):
                if k in self.deps_of(t.rhs, deps) or _mentions(t.rhs, cv):
                    local[t.var.name] = t.rhs  # acc_1 = acc + h in a branch: read through
                    b = inc(t.body)
                    return None if b is None or _mentions(b, t.var) else b
                b = inc(t.body)
                return None if b is None else Let(t.var, t.rhs, b, t.loc)
            return None
        local: dict[str, Term] = {}
        h = inc(r)
        if h is None or h == zero:
            return None
        return h

    # ------------------------------------------------------------ maps

    def map_path(self, k: int, r: Term, check_deps: bool = True):
        """For r the component's array with one element (or row) replaced per level, the
        levels [(length, binder, index, at_loop)], the value written and the names of the
        rows read on the way; None unless exactly one level's index is the loop's and the
        others' do not change in the loop."""
        cur: Term = self.compvar[k]
        levels = []
        row_vars: set[str] = set()
        t = self._resolve_local(r)
        guard = None  # if c: out[i] = e (the test, and whether the write is its then branch)
        ctx: list[tuple[Var, Term]] = []  # the lets of that branch, around the value written
        if isinstance(t, If) and self.compvar[k] in (self._resolve_local(t.then), self._resolve_local(t.orelse)):
            writes_then = self._resolve_local(t.orelse) == self.compvar[k]
            guard = (t.cond, writes_then)
            t = self._resolve_local(t.then if writes_then else t.orelse)
            lets_b, end = let_chain(t)
            if not (lets_b and end == lets_b[-1].var):
                return None
            t = lets_b[-1].rhs
            for lt in reversed(lets_b[:-1]):
                if _indexish(lt.rhs):
                    t = _subst(t, {lt.var.name: lt.rhs})
                    ctx = [(v, _subst(e, {lt.var.name: lt.rhs})) for v, e in ctx]
                else:
                    ctx.insert(0, (lt.var, lt.rhs))
        while isinstance(t, Let) and _indexish(t.rhs):
            t = _subst(t.body, {t.var.name: t.rhs})
        while isinstance(t, Build) and isinstance(t.body, If):
            b, a = t.body, t.var
            c = b.cond
            if not (isinstance(c, Call) and c.fn == "eq" and len(c.args) == 2):
                break
            j = c.args[1] if c.args[0] == a else c.args[0] if c.args[1] == a else None
            row = prim("index", a, cur)
            if j is None or b.orelse != row:
                break
            levels.append((t.size, a, j))
            t = b.then
            while isinstance(t, Let) and (t.rhs == row or _indexish(t.rhs)):
                if t.rhs == row:
                    row_vars.add(t.var.name)
                    row = t.var
                    t = t.body
                else:  # an index computed on the way (the j of out[i, j]): read through
                    t = _subst(t.body, {t.var.name: t.rhs})
            cur = row
        if not levels:
            return None
        e = t
        if not self.index_loop and not self.induction:
            return None
        at = [self.k_offset(j) for _, _, j in levels]  # the loop's index plus an offset, or None
        if sum(c is not None for c in at) != 1:
            return None
        if not check_deps:
            return levels
        deps = self.deps_all(self.lets_now)
        for (length, _, j), here in zip(levels, at):
            if self.deps_of(length, deps) or here is None and self.deps_of(j, deps):
                return None
        used = {v.name for v in free_vars(e)}
        if used & ({b.name for _, b, _ in levels} | row_vars | {self.compvar[k].name}):
            return None
        if guard is not None:  # where the test fails the element keeps its value, the initial one
            orig = self.inits[k]
            for _, _, j in levels:
                orig = prim("index", j, orig)
            e = make_lets(ctx, e)
            e = If(guard[0], e, orig) if guard[1] else If(guard[0], orig, e)
        return [(length, binder, j, here) for (length, binder, j), here in zip(levels, at)], e, row_vars

    def same_shape(self, k: int, lets, results):
        """size(out) and dim(out, d) are those of the initial array (each update keeps them)."""
        cv, a0 = self.compvar[k], self.inits[k]

        def fix(t: Term) -> Term:
            return _bottom_up(t, lambda n: n.replace(args=(a0,) + tuple(n.args[1:])) if isinstance(n, Call)
                              and n.fn in ("size", "dim") and n.args[0] == cv else n)
        return [_Bind(lt.var, fix(lt.rhs), lt.loc) for lt in lets], [fix(r) for r in results]

    def own_reads(self, k: int, j: Term, lets, results):
        """out[i] read before out[i] is written in the same iteration is out0[i] (no earlier
        iteration wrote element i)."""
        cv, a0 = self.compvar[k], self.inits[k]
        written = self.canon(j)

        def fix(t: Term) -> Term:
            return _bottom_up(t, lambda n: n.replace(args=(n.args[0], a0)) if isinstance(n, Call)
                              and n.fn == "index" and n.args[1] == cv and self.canon(n.args[0]) == written else n)
        new_lets = [_Bind(lt.var, fix(lt.rhs), lt.loc) for lt in lets]
        return new_lets, results

    def own_increment(self, k: int, levels, e: Term) -> Term | None:
        """h when the element written is its own initial value plus h (out[i] = out[i] + h, or
        out[i] += h): then the loop's values are those of h, and the array after the loop is
        out0 + h where written, which a loop around this one sees as an increment."""
        if len(levels) != 1 or levels[0][3] is None:
            return None
        t = self._resolve_local(e)
        if not (isinstance(t, Call) and t.fn == "add" and len(t.args) == 2):
            return None
        own, h = t.args
        own = self._resolve_local(own)
        if not (isinstance(own, Call) and own.fn == "index" and own.args[1] == self.inits[k]
                and self.canon(own.args[0]) == self.canon(levels[0][2])):
            return None
        return h

    def triangular(self, levels) -> bool:
        """Is the loop's range of written elements [c, c + n) one end of the array, its other
        end an enclosing loop's index (`for r in range(j + 1, len(out))`, `range(j)`: a
        triangle over both loops), each element of the range the array's own? Then the
        element written at a is the loop's value at iteration a - c computed in place (the
        loops hold on average half the array, the lanes a padded build of the values would
        hold too), not a build of the values gathered at a - c: that build is padded to its
        longest lane and its gather and its cotangent's scatter span every lane of every
        enclosing build (GMM's Q x written with loops). With checks in the body, every
        iteration must be an element read (n + c <= len(out), proven), so that the same
        iterations check (their own build: Loop.checks)."""
        if len(levels) != 1 or levels[0][3] is None:
            return False
        length, _, _, here = levels[0]
        outer = self.vz.nonneg  # enclosing loops' indices
        varies = lambda t: any(v.name in outer for v in free_vars(self.canon(t)))  # noqa: E731
        return self.reaches_end(length, here) and varies(here) or here == Const(0, Int) and varies(self.n_canon)

    def reaches_end(self, length: Term, here: Term) -> bool:
        """Is length <= n + here proven (n the trip count: the loop writes up to the end)?"""
        n = self.canon(self.n_canon)
        while isinstance(n, Call) and n.fn == "max" and len(n.args) == 2 and n.args[1] == Const(0, Int):
            n = n.args[0]  # max(a, 0) >= a
        forms = [self.lin(t) for t in (length, n, here)]
        if any(f is None for f in forms):
            return False
        (lf, lc), (nf, nc), (hf, hc) = forms
        diff = dict(lf)
        for atom, c in list(nf.items()) + list(hf.items()):
            diff[atom] = diff.get(atom, 0) - c
        return not any(diff.values()) and lc - nc - hc <= 0

    def map_value(self, k: int, levels, vals: Var | Build, lets, increments: bool = False) -> Term:
        """The array after the loop: vals at the loop's index where it covers the array, the
        initial array elsewhere (the hoisted lengths and fixed indices first). With
        `increments`, vals are what the loop adds to the initial elements it writes. vals is
        the build of the loop's values, or its name."""
        f = self.f
        a0 = self.inits[k]
        roots = [length for length, _, _, _ in levels] + [j for _, _, j, here in levels if here is None]
        hoisted, env = self.hoisted(roots, lets)

        def level(i: int, path: list[Var], at: Term | None) -> Term:
            if i == len(levels):
                # the loop's values as a build, or its element at iteration `at` (triangular)
                val = prim("index", at, vals, loc=f.loc) if isinstance(vals, Var) else \
                    Let(vals.var, at, vals.body, f.loc)
                if increments:  # the same addition Python does: out0[a] + h
                    own = a0
                    for p in path:
                        own = prim("index", p, own, loc=f.loc)
                    val = prim("add", own, val, loc=f.loc)
                return val
            length, binder, j, here = levels[i]
            a = self.fresh.var(Var("_j", Int))
            orig = a0
            for p in path + [a]:
                orig = prim("index", p, orig, loc=f.loc)
            zero = here == Const(0, Int)
            if here is None:
                inner = level(i + 1, path + [a], at)
            else:  # element a is iteration a - here's
                inner = level(i + 1, path + [a], a if zero else prim("sub", a, here, loc=f.loc))
            if zero and self.le_len(length, self.n_canon) and self.le_len(self.n_canon, length):
                body = inner
            elif here is not None:
                end = self.n if zero else prim("add", self.n, here, loc=f.loc)
                # a < len(out) <= n + c: the loop's end needs no test when it is the array's
                body = inner if self.reaches_end(length, here) else If(prim("lt", a, end, loc=f.loc), inner, orig, f.loc)
                if not zero:
                    body = If(prim("le", here, a, loc=f.loc), body, orig, f.loc)
            else:
                body = If(prim("eq", a, self.fresh.copy(j, env), loc=f.loc), inner, orig, f.loc)
            return Build(self.fresh.copy(length, env), a, body, f.loc)
        if len(levels) == 1 and levels[0][3] == Const(0, Int) and self.le_len(levels[0][0], self.n_canon) \
                and self.le_len(self.n_canon, levels[0][0]) and not increments:
            return vals  # the loop writes every element (with `increments`, adds vals to every one)
        return make_lets(hoisted, level(0, [], None))

    def same_trips(self, n: Term, deps, bound: set[str]) -> bool:
        """Does the inner loop n run over the same vector in every iteration of this one? Its
        vector reads only what is bound outside this loop, the components the loop leaves as
        they are and the body's lets that read nothing else (not a while loop: its count is
        found by running it)."""
        if not isinstance(n, Fold):
            return False
        for v in free_vars(n.vec):
            if v.name in self.names:
                if self.deps_of(v, deps) - self.invariant:
                    return False
            elif v.name in self.comp:
                if self.comp[v.name] not in self.invariant:
                    return False
            elif v.name in bound:  # the element, or a name bound inside an operand: not traced
                return False
        return True

    # ------------------------------------------------------------ element-wise sums

    def elementwise_increment(self, k: int, r: Term, deps):
        """(length, a, h) when r is the component's array with h added to element a, where
        tests hold (`build(len, \\a. if c then out[a] + h else out[a])`, which an inner loop
        `out[j] = out[j] + e` over some of the elements becomes), h and the tests reading no
        state; where a test fails, h is 0.0 (added to out0[a] once, after the loop). None
        otherwise."""
        cv = self.compvar[k]
        t = self._resolve_local(r)
        if not (isinstance(t, Build) and cv.type == Vec(Float) and not self.deps_of(t.size, deps)):
            return None
        if self.canon(t.size) != self.canon(prim("size", self.inits[k])):
            return None
        a = t.var
        h = self._own_plus(t.body, prim("index", a, cv), k, deps)
        if h is None or h == Const(0.0, Float) or k in self.deps_of(h, deps) or _mentions(h, cv):
            return None
        return t.size, a, h

    def _own_plus(self, t: Term, mine: Term, k: int, deps) -> Term | None:
        """h with t = mine + h, under ifs whose tests read no state (mine alone: h is 0.0)."""
        if t == mine:
            return Const(0.0, Float)
        if isinstance(t, Call) and t.fn == "add" and len(t.args) == 2 and t.args[0] == mine:
            return t.args[1]
        if isinstance(t, If) and k not in self.deps_of(t.cond, deps) and not _mentions(t.cond, self.compvar[k]):
            a, b = self._own_plus(t.then, mine, k, deps), self._own_plus(t.orelse, mine, k, deps)
            return None if a is None or b is None else If(t.cond, a, b, t.loc)
        return None

    def hoisted(self, roots: list[Term], lets) -> tuple[list, dict]:
        """Fresh copies of the lets of the body that `roots` need (lengths, fixed indices),
        to bind before the loop, and the renaming of their variables."""
        need = self.closure(roots, lets)
        env: dict[str, Term] = {}
        hoisted = []
        for lt in lets:
            if lt.var.name in need:
                nv = self.fresh.var(lt.var)
                hoisted.append((nv, self.fresh.copy(lt.rhs, env), lt.loc))
                env[lt.var.name] = nv
        return hoisted, env

    def vsum_value(self, k: int, length: Term, sums: Var, lets) -> Term:
        """out0 plus, element by element, the sum over the iterations of what each added:
        `build(len, \\a. out0[a] + sum(build(n, \\k. sums[k][a])))` (the length hoisted)."""
        f = self.f
        hoisted, env = self.hoisted([length], lets)
        a = self.fresh.var(Var("_a", Int))
        it = self.fresh.var(Var("_k", Int))
        column = Build(self.n, it, prim("index", a, prim("index", it, sums, loc=f.loc), loc=f.loc), f.loc)
        total = prim("add", prim("index", a, self.inits[k], loc=f.loc), prim("sum", column, loc=f.loc), loc=f.loc)
        return make_lets(hoisted, Build(self.fresh.copy(length, env), a, total, f.loc))

    def vsum_direct(self, k: int, length: Term, a: Var, h: Term, lets) -> Term:
        """out0 plus, element by element, the sum over the iterations of what each added, each
        term computed where it is summed: `build(len, \\a. out0[a] + sum(build(n, \\k. h_k[a])))`.
        No array of every iteration's additions is made and read back transposed: a sum of
        products stays one einsum (GMM's triangular Q x written with loops)."""
        f = self.f
        hoisted, env = self.hoisted([length], lets)
        a2 = self.fresh.var(Var("_a", Int))
        h = _subst(h, {a.name: a2})
        span = self.span(h.cond) if isinstance(h, If) and h.orelse == Const(0.0, Float) else None
        if span is None:
            column = self.build_of(h, lets, [])
        else:  # if lo <= k < hi then e else 0.0: the iterations [lo, hi) alone, a ragged range
            lo, hi = span
            n = self.n if hi is None else prim("min", self.n, hi, loc=f.loc)
            if lo is not None:
                lo = prim("max", lo, Const(0, Int), loc=f.loc)
                n = prim("sub", n, lo, loc=f.loc)
            column = self.build_of(h.then, lets, [], start=lo)
            column = Build(prim("max", n, Const(0, Int), loc=f.loc), column.var, column.body, f.loc)
        total = prim("add", prim("index", a2, self.inits[k], loc=f.loc), prim("sum", column, loc=f.loc), loc=f.loc)
        return make_lets(hoisted, Build(self.fresh.copy(length, env), a2, total, f.loc))

    def pure(self, value: Term, lets, fails) -> bool:
        """Does value (and what it reads of the body) neither check, raise nor loop? Then it
        can be computed where it is used, apart from the checks (Loop.checks), at the cost of
        a few index computations (an inner loop there would run for every lane it is used in)."""
        need = self.closure([value], lets)
        if need & {lt.var.name for lt in fails} or may_fail(value) or _raises(value, self.vz.failing):
            return False
        read = [lt.rhs for lt in lets if lt.var.name in need] + [value]
        return not any(isinstance(n, (Fold, WhileCount)) for t in read for n in _subterms(t))

    def checks(self, lets, fails) -> list[tuple[Var, Term]]:
        """The body's checks and failing calls at every iteration, a build of their own (kept
        although nothing reads it: catad.lang.terms.may_fail), when the values are computed
        elsewhere; none when the body has none."""
        if not fails:
            return []
        b = self.build_of(Const(0, Int), lets, fails)
        return [(self.fresh.var(Var("_checks", b.type)), b)]

    def span(self, cond: Term) -> tuple[Term | None, Term | None] | None:
        """(lo, hi) when cond holds exactly for the iterations lo <= k < hi (one of them
        None: unbounded), cond a comparison linear in the iteration number k with
        coefficient 1 or -1 whose other terms do not change in the loop; None otherwise."""
        if not (isinstance(cond, Call) and cond.fn in ("le", "lt", "ge", "gt") and len(cond.args) == 2):
            return None
        a, b = cond.args if cond.fn in ("le", "lt") else cond.args[::-1]
        fa, fb = self.lin(a), self.lin(b)
        if fa is None or fb is None:
            return None
        diff = dict(fa[0])  # a - b <= const: the atoms' coefficients, then the constant
        for atom, c in fb[0].items():
            diff[atom] = diff.get(atom, 0) - c
        const = fb[1] - fa[1] - (1 if cond.fn in ("lt", "gt") else 0)
        ck = diff.pop(_K, 0)
        diff = {atom: c for atom, c in diff.items() if c}
        local = self.names | set(self.comp) | {self.elem.name, _K.name}  # k inside an atom: max(k, 0)
        if ck not in (1, -1) or any(v.name in local for atom in diff for v in free_vars(atom)):
            return None
        # ck k + sum(c atom) <= const: k <= const - rest (ck 1), k >= rest - const (ck -1)
        if ck == 1:
            return None, _linear_term({atom: -c for atom, c in diff.items()}, const + 1, cond.loc)
        return _linear_term(diff, -const, cond.loc), None

    # ------------------------------------------------------------ building

    def build_of(self, value: Term, lets, fails, start: Term | None = None) -> Build:
        """build(n, \\k. the body's lets value needs and the checks, at element k; value); with
        `start`, element k is iteration start + k (the build's size is then the caller's)."""
        f = self.f
        kv = self.fresh.var(Var("_k", Int))
        it = kv if start is None else self.fresh.var(Var("_it", Int))
        need = self.closure([value] + [lt.rhs for lt in fails], lets) | {lt.var.name for lt in fails}
        env: dict[str, Term] = {}
        out = []
        if start is not None:
            out.append((it, prim("add", start, kv, loc=f.loc), f.loc))
        ev = self.fresh.var(self.elem)
        out.append((ev, self.elem_of(it), f.loc))
        env[self.elem.name] = ev
        for name, k in self.comp.items():
            if k in self.induction or k in self.invariant:
                cv = self.fresh.var(self.compvar[k])
                out.append((cv, self._induction_value(k, it) if k in self.induction else self.inits[k], f.loc))
                env[name] = cv
        for lt in lets:
            if lt.var.name in need:
                nv = self.fresh.var(lt.var)
                out.append((nv, self.fresh.copy(lt.rhs, env), lt.loc))
                env[lt.var.name] = nv
        return Build(self.n, kv, make_lets(out, self.fresh.copy(value, env)), f.loc)

    def remaining(self, staying: list[int], lets, results, fails) -> Fold:
        """The fold of the components that stay (the body's names kept: the old fold is gone)."""
        f = self.f
        inits = [self.inits[k] for k in staying]
        acc_ty = inits[0].type if len(inits) == 1 else TupleT(tuple(i.type for i in inits))
        t = self.fresh.var(Var("_t", TupleT((acc_ty, self.elem.type))))
        out = []
        acc = Get(0, t, f.loc)
        if len(staying) > 1:
            av = self.fresh.var(Var("_acc", acc_ty))
            out.append((av, acc, f.loc))
            acc = av
        for pos, k in enumerate(staying):
            out.append((self.compvar[k], acc if len(staying) == 1 else Get(pos, acc, f.loc), f.loc))
        out.append((self.elem, Get(1, t, f.loc), f.loc))
        roots = [results[k] for k in staying]
        need = self.closure(roots + [lt.rhs for lt in fails], lets) | {lt.var.name for lt in fails}
        for name, k in self.comp.items():  # components read that are not carried any more
            if k not in staying and name in need:
                out.append((self.compvar[k], self.inits[k], f.loc))  # an invariant one (others stay)
        out += [(lt.var, lt.rhs, lt.loc) for lt in lets if lt.var.name in need]
        res = roots[0] if len(roots) == 1 else Tuple(tuple(roots), f.loc)
        init = inits[0] if len(inits) == 1 else Tuple(tuple(inits), f.loc)
        return Fold(init, f.vec, t, make_lets(out, res), f.loc)


# ---------------------------------------------------------------- helpers

_ARITH = {"add", "sub", "mul", "neg", "max", "min", "size", "floordiv", "lt", "le", "gt", "ge", "eq", "ne", "dim"}


def _arith(t: Term) -> bool:
    return isinstance(t, Call) and t.fn in _ARITH or isinstance(t, (Var, Const))


def _indexish(t: Term) -> bool:
    """Integer arithmetic, under ifs (a wrapped index): read through where a path is matched."""
    if isinstance(t, If):
        return _indexish(t.cond) and _indexish(t.then) and _indexish(t.orelse)
    return _arith(t) and (not isinstance(t, Call) or all(_indexish(a) for a in t.args))


def _bound_names(t: Term) -> set[str]:
    """The variables bound anywhere in t (lets, builds, lambdas)."""
    out = set()
    for n in _subterms(t):
        for b in _binders(n):
            out.add(getattr(n, b).name)
    return out


def _nonneg_term(t: Term, nonneg: set[str]) -> bool:
    """Is the Int term t never negative: constants, lengths, sums and products of such, and
    the variables named in nonneg?"""
    if isinstance(t, Const):
        return t.type == Int and t.value >= 0
    if isinstance(t, Var):
        return t.name in nonneg
    if isinstance(t, Call) and t.fn in ("add", "mul", "max"):
        return all(_nonneg_term(a, nonneg) for a in t.args) or t.fn == "max" and any(
            _nonneg_term(a, nonneg) for a in t.args)
    return _is_length(t)


def _is_length(t: Term) -> bool:
    return isinstance(t, Call) and t.fn in ("size", "dim")


def _at_least_k(t: Term) -> bool:
    """Is the canonical t the iteration number plus a constant not negative (never negative)?"""
    while isinstance(t, Call) and t.fn == "add" and len(t.args) == 2 and isinstance(t.args[1], Const) \
            and t.args[1].type == Int and t.args[1].value >= 0:
        t = t.args[0]
    return t == _K


def _linear_term(form: dict, const: int, loc) -> Term:
    """sum(c * atom) + const as an Int term (form: atom -> coefficient, none zero)."""
    out: Term | None = None
    for atom, c in form.items():
        if out is None:
            out = atom if c == 1 else prim("neg", atom, loc=loc) if c == -1 else prim("mul", Const(c, Int), atom, loc=loc)
        elif c > 0:
            out = prim("add", out, atom if c == 1 else prim("mul", Const(c, Int), atom, loc=loc), loc=loc)
        else:
            out = prim("sub", out, atom if c == -1 else prim("mul", Const(-c, Int), atom, loc=loc), loc=loc)
    if out is None:
        return Const(const, Int)
    if const > 0:
        return prim("add", out, Const(const, Int), loc=loc)
    return prim("sub", out, Const(-const, Int), loc=loc) if const < 0 else out


def _subst(t: Term, env: dict[str, Term]) -> Term:
    """t with the variables named in env replaced (the front end's binder names are unique)."""
    return _bottom_up(t, lambda n: env.get(n.name, n) if isinstance(n, Var) else n)


def _bottom_up(t: Term, fn) -> Term:
    """fn applied to every node but a let, children first; let chains walked without recursion."""
    if isinstance(t, (Var, Const)):
        return fn(t)
    if isinstance(t, Let):
        lets, body = let_chain(t)
        out = [(lt.var, _bottom_up(lt.rhs, fn), lt.loc) for lt in lets]
        b = _bottom_up(body, fn)
        if b is body and all(r is lt.rhs for (_, r, _), lt in zip(out, lets)):
            return t
        return make_lets(out, b)
    return fn(_map_children(t, lambda c: _bottom_up(c, fn), atoms=True))


def _subterms(t: Term):
    from ..lang.terms import subterms
    return subterms(t)


def _mentions(t: Term, v: Var) -> bool:
    return any(x.name == v.name for x in free_vars(t))


def _raises(t: Term, failing: frozenset = frozenset()) -> bool:
    """Does t compute something that raises an error of its own (a max of nothing) or call a
    user function in `failing` (whose body may fail)?"""
    return any(isinstance(n, Call) and (n.fn in _RAISING or n.fn in failing) for n in _subterms(t))


def _failing_functions(program: Program) -> frozenset:
    """The user functions whose calls may fail: a check or a raising reduction in their body,
    or a call of one that may."""
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for d in program.defs:
            if d.name not in out and (may_fail(d.body) or _raises(d.body, frozenset(out))):
                out.add(d.name)
                changed = True
    return frozenset(out)


def _floated(lt: Let, failing: frozenset, fresh: _Fresh) -> list[_Bind]:
    """The binding lt with what may fail inside its operands bound before it, in the order it
    is evaluated in: the lets in its operands (`acc + x[i] * (let j = ...; check(j); y[j])`)
    and an operand that may fail (`main + logsumexp(v)`, whose max may raise). A check then has
    a binding of its own, which reads no state (acc) when its condition does not. Evaluation
    order is kept: what moves before the binding is what the binding evaluated first, and what
    it evaluated before that stays and cannot fail. Branches, builds and loops are not entered
    (what runs there is conditional or repeated) but may be bound whole. Binder names are
    unique, so nothing is captured."""
    out: list[_Bind] = []

    def go(t: Term) -> Term:
        """What of t stays in place once its lets and failing operands are bound before it."""
        if isinstance(t, (Var, Const)):
            return t
        if isinstance(t, Let):
            lets, body = let_chain(t)
            for x in lets:
                out.append(_Bind(x.var, go(x.rhs), x.loc))
            return go(body)
        if isinstance(t, (Call, Tuple)) and not (isinstance(t, Call) and t.fn == "check"):
            field = "args" if isinstance(t, Call) else "items"
            parts = []
            for a in getattr(t, field):
                r = go(a)
                if not isinstance(r, (Var, Const)) and (may_fail(r) or _raises(r, failing)):
                    v = fresh.var(Var("_f", r.type, t.loc))
                    out.append(_Bind(v, r, lt.loc))
                    r = v
                parts.append(r)
            return t.replace(**{field: tuple(parts)}) if any(a is not b for a, b in zip(parts, getattr(t, field))) else t
        return t
    rhs = go(lt.rhs)
    return out + [_Bind(lt.var, rhs, lt.loc)]


__all__ = ["vectorise_loops"]
