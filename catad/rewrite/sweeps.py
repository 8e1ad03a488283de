"""From the full Jacobian to programs without linear maps (notes Section 3).

The Jacobian program binds linear maps to variables (``let Dy = lmCompose(...)``)
and uses them more than once. Inlining them, as the notes do, duplicates them, and
pushing ``lmApplyR`` through a duplicated map is exponential for chains
(``x_i = x_{i-1} + x_{i-1}``). Two sweeps over each let chain instead keep every
map shared (docs/design.md invariant 1), and each of their steps is a named rule:

* forward (``fwd-let-bound``): top-down, ``let Dy = e`` becomes
  ``let dy = lmApply(e, dx)``, because every let-bound map of the Jacobian is applied
  to the one input tangent dx; a later ``lmApply(Dy, dx)`` is then just ``dy``.
* reverse (``rev-let-bound``): bottom-up, the cotangents that reach ``Dy`` from all
  its uses are summed first and pushed through ``e`` once (the linearity
  ``r1 ._R m + r2 ._R m = (r1 + r2) ._R m``; Krawiec et al. 2022, Section 5;
  YOLO's transposition of a let). The primal bindings run first, the cotangent
  bindings after them in reverse order.

Within a binding, the local rules of the catalogue push ``lmApply``/``lmApplyR``
to the leaves. Linear maps inside an ``if`` or a ``build`` (the tuples ``(t, Dt)``
of the tupled Jacobian) are swept inside their branch or body.
"""
from __future__ import annotations

from operator import is_not
from typing import Any

from .._node import _set_normal, node
from ..lang.names import FreshNames
from ..lang.terms import (Build, Call, ChainFreeVars, Const, Def, Get, If, Let, Term, Tuple, Var, let_chain, make_lets,
                          may_fail)
from ..lang.types import Int, LinMap, Tuple as TupleT, Type, Vec
from ..linearmaps import terms as L
from ..linearmaps.terms import Apply, ApplyR
from ..primitives import prim
from .catalogue import RULES, _nonneg_size, cheap, tsum as sum_tangents
from ..primitives.registry import PRIMITIVES
from .engine import NormalMarks, Rewriter, term_children, with_children
from .rule import Named, P, Rule, V


def has_lm(t: Type) -> bool:
    """Whether a value of type t holds a linear map (asked of every binding the sweeps meet;
    types are interned, so the answer is kept per type)."""
    known = _HAS_LM.get(id(t))
    if known is None:
        if isinstance(t, LinMap):
            known = True
        elif isinstance(t, TupleT):
            known = any(has_lm(x) for x in t.items)
        else:
            known = isinstance(t, Vec) and has_lm(t.elem)
        _HAS_LM[id(t)] = known
    return known


_HAS_LM: dict[int, bool] = {}  # id of an interned type (never freed: _Interned keeps it) -> has_lm


def tangent_type(t: Type) -> Type:
    """t with each linear map S -o T replaced by T (what applying it to dx gives)."""
    if isinstance(t, LinMap):
        return t.tgt
    if isinstance(t, TupleT):
        return TupleT(tuple(tangent_type(x) for x in t.items))
    if isinstance(t, Vec):
        return Vec(tangent_type(t.elem))
    return t


def sweep_names(d: Def) -> FreshNames:
    """Names none of the Jacobian d's: those its sweeps make, and then those the finishing of
    the swept program makes (catad.rewrite.stages.finish), are taken from it."""
    return FreshNames.avoiding(d.body, params=d.params)


def substitute(t: Term, env: dict, special=None, same_types: bool = False) -> Term:
    """t with the variables of env replaced (binders in this setting never clash); where
    `special(n)` returns a term, n is replaced by it instead of being descended into.
    Post-order on an explicit stack; atoms are replaced where they are read, not memoised.
    `same_types`: each replacement has its variable's type (CSE, the inliner), so a call's
    result type is kept, not computed again (as the sweeps must: see _rebuild)."""
    if not env:
        return t
    rebuild = with_children if same_types else _rebuild
    cls = type(t)
    if cls is Var:
        return env.get(t, t)
    if cls is Const:
        return t
    kids = term_children(t)
    for k in kids:
        if type(k) is not Var and type(k) is not Const:
            break
    else:  # most terms (after ANF; a Jacobian's bindings) are flat, their children atoms: no stack
        if special is not None:
            direct = special(t)
            if direct is not None:
                return direct
        new = [env.get(k, k) if type(k) is Var else k for k in kids]
        return rebuild(t, new) if any(map(is_not, new, kids)) else t
    memo: dict[int, Term] = {}
    stack: list = [(t, None)]
    while stack:
        n, kids = stack[-1]
        if kids is None:
            if id(n) in memo:
                stack.pop()
                continue
            if special is not None:
                direct = special(n)
                if direct is not None:
                    memo[id(n)] = direct
                    stack.pop()
                    continue
            kids = term_children(n)
            stack[-1] = (n, kids)
            todo = [(k, None) for k in kids if type(k) is not Var and type(k) is not Const and id(k) not in memo]
            if todo:
                stack.extend(todo)
                continue
        stack.pop()
        new = [env.get(k, k) if type(k) is Var else k if type(k) is Const else memo[id(k)] for k in kids]
        memo[id(n)] = rebuild(n, new)
    return memo[id(t)]


def normal_chain(rw: Rewriter, fv: ChainFreeVars, bindings: list, body: Term) -> Term:
    """make_lets(bindings, body) as finish's optimising would leave it, made where a sweep
    makes the chain: body and each live right side normalised by the sweep's rewriter rw,
    the dead lets (read by nothing after them, running no check) left out, and each let
    marked normal, as all below it is and its variable is read there (let-dead, the only rule
    for a let, does not apply). So finish neither walks the chain again nor asks for the free
    variables of every let's body (the primal bindings a build body's reverse sweep copies
    are partly read only by its maps: the rule let-dead removed them, one question and one
    step each). `fv` answers the free variables and is told those of the chain made."""
    marks = rw.normal
    base = marks.base
    out = rw.normalize(body)
    live = set(fv(out))
    for b in reversed(bindings):
        var, rhs = b[0], b[1]
        if var not in live and not may_fail(rhs):
            continue
        m = rhs._normal
        if m is not marks and m is not base:
            rhs = rw.normalize(rhs)
        live.discard(var)
        if type(rhs) is Call and _flat(rhs.args):  # most: a call of atoms, its variables added here
            for a in rhs.args:
                if type(a) is Var:
                    live.add(a)
        else:
            live |= fv(rhs)
        out = Let(var, rhs, out, b[2] if len(b) > 2 else None)
        _set_normal(out, marks)
    fv.remember(out, live)
    return out


def _flat(args: tuple) -> bool:
    """Whether every one of these arguments is an atom."""
    for a in args:
        if type(a) is not Var and type(a) is not Const:
            return False
    return True


def _rebuild(n: Term, kids: list[Term]) -> Term:
    """n with new children; a primitive call's result type is recomputed (an argument
    may have changed type, e.g. a Vec of (value, map) pairs become value-tangent pairs)."""
    if isinstance(n, Call) and n.fn in PRIMITIVES and any(map(is_not, kids, n.args)):
        return prim(n.fn, *kids, loc=n.loc)  # at once: with_children would build the call twice
    return with_children(n, kids)


# ================================================================ forward

def forward_derivative(jac: Def, trace: list | None = None, normal: NormalMarks | None = None,
                       names: FreshNames | None = None) -> Def:
    """fwd$f(params, dparams) = (f(params), J dparams), without linear maps. `normal`: the
    terms known to be normal (see Rewriter). `names`: sweep_names(jac), made here when not given."""
    names = sweep_names(jac) if names is None else names
    dparams = tuple(names.var("d" + p.name, p.type) for p in jac.params)
    dx = dparams[0] if len(dparams) == 1 else Tuple(dparams)
    sweep = _Forward(dx, names, trace, normal)
    body = sweep.value(jac.body)
    _let_go(sweep)
    return Def("fwd$" + jac.name.removeprefix("D$"), jac.params + dparams, body)


def _let_go(sweep: "_Forward | _Reverse") -> None:
    """Let go of an ended sweep's tables: its free variables, and its rewriter, whose rules'
    closures read the sweep (a reference cycle: broken here, the sweep and the names it holds
    are freed now, not at the cyclic collector's next full collection)."""
    sweep.fv = sweep.rw = None


class _Forward:
    def __init__(self, dx: Term, names: FreshNames, trace: list | None, normal: NormalMarks | None = None):
        self.dx = dx
        self.names = names
        self.env: dict[Var, Var] = {}
        self.rw = Rewriter([self.nested_rule()] + RULES + [self.let_bound_rule()], "forward", trace, normal)
        self.fv = ChainFreeVars()  # the free variables of what normal_chain makes and reads

    def nested_rule(self) -> Rule:
        """A fold's step Jacobian e' applied to (ds, dt) (rule fwd-fold) is a Jacobian of its own:
        a let chain of maps from one space, swept like the whole one (before fwd-let would float
        the application into the chain, where its let-bound maps would stay)."""
        def sweep(b):
            inner = _Forward(b["x"], self.names, self.rw.trace)
            out = inner.chain(b["m"])
            _let_go(inner)
            return out
        return Rule("fwd-sweep-nested", "sweeps", "the forward sweep of a let chain whose maps all have x's space "
                    "as source (a fold step's Jacobian, notes Fig. 13)", "lmApply(let Dy = e in m, x)",
                    "let dy = lmApply(e, x) in lmApply(m, x)", r"(\mathbf{let}\ D_y = e\ \mathbf{in}\ m) \odot x",
                    "a step Jacobian is swept inside its fold",
                    P(Apply, m=Named("m", Let, _local_jacobian), x=V("x", cheap)), sweep)

    def let_bound_rule(self) -> Rule:
        def is_swept(m):
            return _path_root(m) in self.env
        return Rule("fwd-let-bound", "sweeps", "lmApply(Dy, dx) = dy, where dy = lmApply(e, dx) was bound for "
                    "let Dy = e (every let-bound map of the Jacobian is applied to the one input tangent dx)",
                    "lmApply(Dy, dx)", "dy", r"D_y \odot dx = dy", "a let-bound map is applied once, where it is bound",
                    P(Apply, m=V("m", is_swept), x=V("x", lambda x: x == self.dx)),
                    lambda b: _replace_root(b["m"], self.env))

    def apply(self, m: Term) -> Term:
        return self.rw.normalize(Apply(m, self.dx))

    def chain(self, e: Let) -> Term:
        """A let chain of maps applied to dx: each let-bound map applied where it is bound (as
        value's let chains), then the chain's map (rule fwd-sweep-nested)."""
        lets, body = let_chain(e)
        bindings = self.bindings(lets)  # first: they tell apply(body) the tangents (env)
        return normal_chain(self.rw, self.fv, bindings, self.apply(body))

    def bindings(self, lets: list[Let]) -> list:
        """A chain's bindings, each let-bound map replaced by its tangent, dy = lmApply(e, dx)."""
        out = []
        for lt in lets:
            if has_lm(lt.var.type):
                v = self.names.var("d" + lt.var.name.removeprefix("D"), tangent_type(lt.var.type))
                out.append((v, self.value(lt.rhs)))
                self.env[lt.var] = v
            else:
                out.append((lt.var, substitute(lt.rhs, self.env)))
        return out

    def value(self, e: Term) -> Term:
        """e with its linear-map parts applied to dx (e's other parts kept)."""
        if not has_lm(e.type):
            return substitute(e, self.env)
        if isinstance(e.type, LinMap):
            return self.apply(e)
        if isinstance(e, Let):
            lets, body = let_chain(e)
            bindings = self.bindings(lets)  # first: they tell value(body) the tangents (env)
            return normal_chain(self.rw, self.fv, bindings, self.value(body))
        if isinstance(e, Tuple):
            return Tuple(tuple(self.value(x) for x in e.items))
        if isinstance(e, If):
            return If(substitute(e.cond, self.env), self.value(e.then), self.value(e.orelse))
        if isinstance(e, Build):
            return Build(substitute(e.size, self.env), e.var, self.value(e.body))
        if isinstance(e, Var):
            return self.env[e]
        if isinstance(e, Get):
            return Get(e.index, self.value(e.tup))
        if isinstance(e, Call) and e.fn == "index":
            return prim("index", substitute(e.args[0], self.env), self.value(e.args[1]))
        raise TypeError(f"forward sweep: unexpected {type(e).__name__}")


def _path_root(m: Term) -> Var | None:
    """The variable under a chain of projections and indexings (None if there is none)."""
    while True:
        if isinstance(m, Var):
            return m
        if isinstance(m, Get):
            m = m.tup
        elif isinstance(m, Call) and m.fn == "index":
            m = m.args[1]
        else:
            return None


def _replace_root(m: Term, env: dict) -> Term:
    if isinstance(m, Var):
        return env[m]
    if isinstance(m, Get):
        return Get(m.index, _replace_root(m.tup, env))
    return prim("index", m.args[0], _replace_root(m.args[1], env))


# ================================================================ reverse

@node
class Pending(Term):
    """ct waiting at the linear map `key` (a variable, or a path into one): a term that
    exists only inside the reverse sweep."""

    key: Term
    ct: Term
    src: Type

    _TYPE_OF = "src"  # its type, set as it is made (see catad._node._fast_new): no __post_init__ call

    def show_with(self, show) -> str:
        return f"pending({show(self.ct)} at {show(self.key)})"


def reverse_derivative(jac: Def, trace: list | None = None, normal: NormalMarks | None = None,
                       names: FreshNames | None = None) -> Def:
    """rev$f(params, dr) = (f(params), J^T dr), without linear maps. `normal`: the terms
    known to be normal (see Rewriter). `names`: sweep_names(jac), made here when not given."""
    names = sweep_names(jac) if names is None else names
    result_type = jac.body.type.items[0]
    dr = names.var("dr", result_type)
    src = jac.body.type.items[1].src
    sweep = _Reverse(names, trace, src, normal)
    primal, cts, results = sweep.run(jac.body, dr)
    grad = sweep.rw.normalize(sum_tangents(results, src))
    body = sweep.chain(sweep.merged(primal, cts), Tuple((sweep.primal_value, grad)))
    _let_go(sweep)
    return Def("rev$" + jac.name.removeprefix("D$"), jac.params + (dr,), body)


def _is_location(m: Term) -> bool:
    """A let-bound linear map, or one of the shapes the Jacobian uses to reach into
    an if's result (pi_2 r) or a build's per-element maps (V(build(n, \\j. pi_2 p[j])))."""
    if isinstance(m, Var):
        return True
    if isinstance(m, Get) and isinstance(m.tup, Var):
        return True
    if isinstance(m, L.VCatV) and isinstance(m.ms, Build):
        body = m.ms.body
        return (isinstance(body, Get) and isinstance(body.tup, Call) and body.tup.fn == "index"
                and body.tup.args[0] == m.ms.var and isinstance(body.tup.args[1], Var))
    return False


def _location_key(m: Term) -> tuple:
    if isinstance(m, Var):
        return (m,)
    if isinstance(m, Get):
        return (m.tup, m.index)
    return (m.ms.body.tup.args[1], "elems", m.ms.body.index)


class _Reverse:
    def __init__(self, names: FreshNames, trace: list | None, src: Type, normal: NormalMarks | None = None):
        self.names = names
        self.src = src                        # the input space A: where "result" cotangents live
        self.envP: dict[Var, Var] = {}        # LM-carrying compound -> its primal-only version
        self.sizes: dict[Var, Term] = {}      # the primal-only version of a build -> its size
        self.nonneg: set[Var] = set()         # Int variables known >= 0: build indices, sizes
        self.primal_value: Term | None = None
        # whether primal_bindings is copying a build body's or an if branch's primal bindings into
        # its cotangent (the primal pass ran them already: see primal_bindings)
        self.again = False
        # a build's primal version -> the first build of its cotangent contributions, whose body
        # copies the primal's bindings (for `merged`)
        self.copies: dict[Var, Var] = {}
        stop = Rule("rev-let-bound", "sweeps",
                    "sum_k (r_k ._R Dy) = (sum_k r_k) ._R Dy for a let-bound Dy = e: the cotangents of a shared "
                    "map are summed, then pushed through e once (Krawiec et al. 2022, Sec. 5; YOLO: transposing a let)",
                    "lmApplyR(r, Dy)", "pending(r at Dy)", r"\textstyle\sum_k r_k \odot_R D_y = (\sum_k r_k) \odot_R D_y",
                    "a let-bound map waits for all its cotangents",
                    P(ApplyR, r=V("r"), m=V("m", _is_location)),
                    lambda b: Pending(b["m"], b["r"], b["m"].type.src))
        nested = Rule("rev-sweep-nested", "sweeps", "the reverse sweep of a let chain whose maps all have m's source "
                      "(a fold step's Jacobian, notes Fig. 13)", "lmApplyR(r, let Dy = e in m)",
                      "the chain's primal bindings, then its cotangent bindings bottom-up",
                      r"r \odot_R (\mathbf{let}\ D_y = e\ \mathbf{in}\ m)", "a step Jacobian is swept inside its fold",
                      P(ApplyR, r=V("r"), m=Named("m", Let, _local_jacobian)), lambda b: self.nested(b["r"], b["m"]))
        self.rw = Rewriter([nested, stop] + RULES, "reverse", trace, normal)
        self.fv = ChainFreeVars()  # the free variables of what chain() makes and reads

    def chain(self, bindings: list, body: Term) -> Term:
        return normal_chain(self.rw, self.fv, bindings, body)

    def nested(self, r: Term, m: Let) -> Term:
        """r ._R m for a let chain m of maps from one space (rule rev-sweep-nested): its own
        reverse sweep, whose result is the cotangent of that space."""
        sweep = _Reverse(self.names, self.rw.trace, m.type.src)
        lets, final = let_chain(m)
        primal, cts = sweep.primal_bindings(lets), []
        results = sweep.backward(lets, sweep.push(r, final, cts), cts)
        out = make_lets(primal + cts, sweep.rw.normalize(sum_tangents(results, m.type.src)))
        _let_go(sweep)
        return out

    # ---------------------------------------------------------------- forward pass: primal only
    def strip(self, e: Term) -> Term:
        """The primal part of an LM-carrying value (a (t, Dt) pair, or an if/build/let of them)."""
        if not has_lm(e.type):
            return self.subst(e)
        if isinstance(e, Tuple):
            keep = [self.strip(x) for x in e.items if not isinstance(x.type, LinMap)]
            return keep[0] if len(keep) == 1 else Tuple(tuple(keep))
        if isinstance(e, If):
            return If(self.subst(e.cond), self.strip(e.then), self.strip(e.orelse))
        if isinstance(e, Build):
            return Build(self.subst(e.size), e.var, self.strip(e.body))
        if isinstance(e, Let):
            lets, body = let_chain(e)
            bindings = self.primal_bindings(lets)  # first: they tell strip(body) the primal parts (envP)
            return self.chain(bindings, self.strip(body))
        raise TypeError(f"reverse sweep: cannot take the primal part of {type(e).__name__}")

    def primal_bindings(self, lets: list[Let]) -> list:
        """The primal parts of a chain's bindings. Copied again into a build body's or an if
        branch's cotangent (`again`), its checks are not: the primal pass ran the same checks on
        the same values (a check is never dead code, so that pass keeps them) and raised first,
        and a copy would keep alive every value a check reads (the bound is kept as (), the
        value of a check, for a use of it, which is dead code otherwise)."""
        out = []
        again = self.again
        for lt in lets:
            if not has_lm(lt.var.type):
                rhs = lt.rhs
                if again and type(rhs) is Call and rhs.fn == "check":
                    out.append((lt.var, _UNIT))
                    continue
                rhs = self.subst(rhs)
                if again:
                    rhs = self._known_size(lt.var, rhs)
                out.append((lt.var, rhs))
            elif not isinstance(lt.var.type, LinMap):
                v = self.names.var(lt.var.name + "P", _strip_type(lt.var.type))
                out.append((v, self.strip(lt.rhs)))
                self.envP[lt.var] = v
                if type(lt.rhs) is Build:
                    self.sizes[v] = lt.rhs.size
        return out

    def _known_size(self, var: Var, rhs: Term) -> Term:
        """In a cotangent's copy of primal bindings: size(pP) of a build pP = build(n, ...)
        copied there is n where n is known >= 0 (a negative n builds an empty vector), so
        the copy of pP, read only for its size (a sum's cotangent, build(size(pP), \\i. ct)),
        is dead. Records what it learns of var: an alias of pP, or a size."""
        cls = type(rhs)
        if cls is Var and rhs in self.sizes:
            self.sizes[var] = self.sizes[rhs]
        elif cls is Call and rhs.fn == "size" and type(rhs.args[0]) is Var:
            n = self.sizes.get(rhs.args[0])
            if n is not None and (type(n) is Var and n in self.nonneg or type(n) is Const and n.value >= 0):
                rhs = n
        if type(rhs) is Var and rhs in self.nonneg or _nonneg_size(rhs):
            self.nonneg.add(var)
        return rhs

    def _primal_copy(self, rhs: Term) -> Var | None:
        """pP for the AD's primal of a build, build(n, \\j. pi_1 p[j]) (catad.ad's build), where p's
        elements are (t, Dt) pairs and p = build(n, ...): stripped, p is pP = build(n, \\i. t), which
        that build copies element by element: read as pP itself (bound to a variable, an alias, which
        CSE replaces by pP where it is read)."""
        if type(rhs) is not Build:
            return None
        get = rhs.body
        if type(get) is not Get or get.index != 0 or type(get.tup) is not Call or get.tup.fn != "index":
            return None
        i, p = get.tup.args
        pP = self.envP.get(p) if i == rhs.var else None
        if pP is None or self.sizes.get(pP) != rhs.size or pP.type is not rhs.type:
            return None
        pair = p.type.elem.items
        return pP if len(pair) == 2 and not has_lm(pair[0]) and isinstance(pair[1], LinMap) else None

    def subst(self, e: Term) -> Term:
        """Primal uses of LM-carrying compounds read their primal-only versions."""
        return substitute(e, self.envP, self._primal_read)

    def _primal_read(self, n: Term) -> Term | None:
        # pi_1 r -> rP ; pi_1 p[j] -> pP[j] ; build(n, \j. pi_1 p[j]) -> pP
        if type(n) is Build:
            return self._primal_copy(n)
        if isinstance(n, Get) and n.index == 0:
            t = n.tup
            if isinstance(t, Var) and t in self.envP:
                return self.envP[t]
            if isinstance(t, Call) and t.fn == "index" and isinstance(t.args[1], Var) and t.args[1] in self.envP:
                return prim("index", self.subst(t.args[0]), self.envP[t.args[1]])
        return None

    # ---------------------------------------------------------------- backward pass
    def run(self, body: Term, dr: Var):
        lets, final = let_chain(body)
        primal = self.primal_bindings(lets)
        t, m = final.items
        self.primal_value = self.subst(t)
        cts: list = []
        pending = self.push(dr, m, cts)
        results = self.backward(lets, pending, cts)
        return primal, cts, results

    def push(self, ct: Term, m: Term, cts: list) -> dict:
        """Push ct ._R m with the rules; the pending cotangents by location (plus 'result'). A tuple of
        atoms (a derivative program's output cotangent, differentiated again: (0, (1.0, 0, 0))) is
        pushed as it is, so that its zero components stay zeros the rules remove."""
        if not isinstance(ct, (Var, Const)) and not _atoms(ct):
            v = self.names.var("ct", ct.type)
            cts.append((v, ct))
            ct = v
        out = self.rw.normalize(ApplyR(ct, m))
        pending: dict = {}
        for part in _summands(out, cts):
            if isinstance(part, Pending):
                pending.setdefault(_location_key(part.key), []).append(part.ct)
            elif not (isinstance(part, Const) and _is_zero(part)):
                pending.setdefault("result", []).append(part)
        return pending

    def backward(self, lets: list[Let], pending: dict, cts: list) -> list:
        """Process the function's chain bottom-up; returns what reaches its input."""
        pending = self.backward_inner(lets, pending, cts)
        left = [k for k in pending if k != "result"]
        if left:
            raise TypeError(f"reverse sweep: cotangents left at {left}")
        return pending.get("result", [])

    @staticmethod
    def _merge(into: dict, new: dict) -> None:
        for k, vs in new.items():
            into.setdefault(k, []).extend(vs)

    def compound(self, rhs: Term, key: tuple, got: list, cts: list) -> dict:
        """Cotangents at an if's or a build's linear-map component, swept inside it."""
        if len(key) == 2:  # (r, k): component k of an if (or let) result
            ct = sum_tangents(got, rhs.type.items[key[1]].tgt)
            return self.inner(rhs, lambda body: (body.items[key[1]], ct), cts)
        _, _, k = key  # (p, "elems", k): the k-th component of each element of a build
        elem_lm = rhs.type.elem.items[k]
        ct_vec = sum_tangents(got, Vec(elem_lm.tgt))
        if not isinstance(ct_vec, (Var, Const)):
            v = self.names.var("ct", ct_vec.type)
            cts.append((v, ct_vec))
            ct_vec = v
        i = rhs.var
        self.nonneg.add(i)  # an index of a build: 0 <= i < its size
        per_elem = self.inner(rhs.body, lambda body: (body.items[k], prim("index", i, ct_vec)), None)
        return self.collect_build(rhs.size, i, per_elem, cts, self.envP.get(key[0]))

    def inner(self, e: Term, pick, cts: list | None) -> Any:
        """Sweep inside an if (both branches) or a let chain ending in a (t, Dt) tuple."""
        if isinstance(e, If):
            a = self.inner(e.then, pick, None)
            b = self.inner(e.orelse, pick, None)
            keys = list(dict.fromkeys([k for k in a[1]] + [k for k in b[1]]))
            def branch(res):
                term, parts = res
                return self.chain(term, Tuple(tuple(sum_tangents(parts.get(k, []), self.key_type(k)) for k in keys)))
            joined = If(self.subst(e.cond), branch(a), branch(b))
            if cts is None:
                return self._as_parts(joined, keys)
            v = self.names.var("cts", joined.type)
            cts.append((v, joined))
            return {k: [Get(n, v)] for n, k in enumerate(keys)}
        lets, final = let_chain(e)
        outer, self.again = self.again, True
        try:
            local: list = self.primal_bindings(lets)
        finally:
            self.again = outer
        m, ct = pick(final)
        pending = self.push(ct, m, local)
        results = self.backward_inner(lets, pending, local)
        if cts is not None:  # a chain standing where an if was (if-same folded it)
            cts.extend(local)
            return results
        return local, results

    def _as_parts(self, joined: Term, keys: list):
        v = self.names.var("cts", joined.type)
        return [(v, joined)], {k: [Get(n, v)] for n, k in enumerate(keys)}

    def backward_inner(self, lets: list[Let], pending: dict, local: list) -> dict:
        """Process the linear-map bindings of a chain bottom-up: each map's waiting
        cotangents are summed and pushed through its definition once. What waits at maps
        bound outside the chain stays pending for the enclosing one."""
        for lt in reversed(lets):
            v = lt.var
            if not has_lm(v.type):
                continue
            if isinstance(v.type, LinMap):
                got = pending.pop((v,), None)
                if got is not None:
                    self._merge(pending, self.push(sum_tangents(got, v.type.tgt), lt.rhs, local))
            else:
                for key in [k for k in pending if k != "result" and k[0] == v]:
                    self._merge(pending, self.compound(lt.rhs, key, pending.pop(key), local))
        left = [k for k in pending if k != "result"]
        if left:  # (the set of the chain's variables made only then: most chains leave none)
            bound = {lt.var for lt in lets}
            assert not any(k[0] in bound for k in left)
        return pending

    def merged(self, primal: list, cts: list) -> list:
        """primal + cts, where a build's primal version pP = build(n, \\i. let B in e) and the
        build of its cotangent contributions c = build(n, \\i. let B; C in r), which copies B
        (a build body's primal bindings, see `inner`), are made by one build that runs B once:
        both = build(n, \\i. let B; p = e; C in (p, r)), then pP and c read its components
        (B's checks run first in it, as in pP: c's copy runs none). Where nothing between them,
        nor c, reads pP but for its size (n, known >= 0), and pP or what runs between cannot
        fail (pP, moved past what runs between, would raise after it where Python raises pP's
        error first). The reverse program of a chain of elementwise statements, fused into one
        build, is then a third smaller. (A binding between that reads pP's values, a sum bound
        before the cotangents, keeps them apart.)"""
        if not self.copies:
            return primal + cts
        out = primal + cts
        at = {b[0]: k for k, b in enumerate(out)}
        pairs = self.copies
        first: dict = {}  # pP -> where it is first read, but for its size
        root: dict = {pP: pP for pP in pairs}  # pP and the variables only naming it again -> pP
        aliases: dict = {}  # pP -> the positions of its aliases
        for k, b in enumerate(out):
            rhs = b[1]
            if type(rhs) is Var and rhs in root:  # x = pP: moved with pP, its reads pP's
                root[b[0]] = root[rhs]
                aliases.setdefault(root[rhs], []).append(k)
                continue
            fv = self.fv(rhs)
            for u in ([u for u in root if u in fv] if len(root) < len(fv) else [u for u in fv if u in root]):
                if root[u] not in first and _reads_beyond_size(rhs, u):
                    first[root[u]] = k
        moved: dict = {}  # position -> the bindings that replace it
        sizes: dict = {}  # pP and its aliases -> n, for size(pP) in what runs between
        ints = {b[0]: b[1] for b in out if b[0].type == Int}
        for pP, c in pairs.items():
            a, b = at.get(pP), at.get(c)
            if a is None or b is None or not a < b < first.get(pP, len(out)):
                continue
            between = (out[k][1] for k in range(a + 1, b) if k not in aliases.get(pP, ()))
            names = {pP} | {out[k][0] for k in aliases.get(pP, ())}
            made = self._one_build(out[a][1], out[b][1], c, pP, names, ints, between)
            if made is not None:
                moved[a] = []
                moved[b] = made[:2] + [out[k] for k in aliases.get(pP, ())] + made[2:]
                for k in aliases.get(pP, ()):
                    moved[k] = []
                sizes.update((u, out[a][1].size) for u in names)
        if not moved:
            return out
        sized = lambda n: sizes.get(n.args[0]) if type(n) is Call and n.fn == "size" else None
        res = []
        for k, b in enumerate(out):
            if k in moved:
                res.extend(moved[k])
            elif sizes and not sizes.keys().isdisjoint(self.fv(b[1])):
                res.append((b[0], substitute(b[1], {u: u for u in sizes}, sized)) + tuple(b[2:]))
            else:
                res.append(b)
        return res

    def _one_build(self, p: Term, c: Term, cv: Var, pv: Var, names: set, ints: dict, between):
        """[both, pv, cv] (see `merged`) for the primal build p and the build c of its cotangent
        contributions, or None. `names`: pv and its aliases, which c must not read (pv is bound
        after both); `ints`: the chain's Int bindings (n bound to a size is known >= 0);
        `between`: the right sides between p and c."""
        if type(p) is not Build or type(c) is not Build or p.size != c.size or p.var != c.var:
            return None
        # (p's error was raised first; p, a whole build whose walk is long, is asked last)
        if any(may_fail(t) for t in between) and may_fail(p):
            return None
        n = p.size
        known = ints.get(n, n) if type(n) is Var and n not in self.nonneg else n
        if not (type(known) is Var and known in self.nonneg or _nonneg_size(known)):
            return None
        lets_p, e = let_chain(p.body)
        lets_c, r = let_chain(c.body)
        in_p = {lt.var: lt.rhs for lt in lets_p}
        in_c = {lt.var: lt.rhs for lt in lets_c}
        only_c = [lt for lt in lets_c if lt.var not in in_p]
        if len(in_p) < len(lets_p) or len(in_c) < len(lets_c) or len(only_c) == len(lets_c) or any(
                v in in_p and not (in_p[v] is rhs or in_p[v] == rhs) for v, rhs in in_c.items()):
            return None  # (a name bound twice, nothing shared, or a name bound to two values)
        # p's bindings (with their checks: c's copy runs none), then c's others: c reads none of
        # p's others, p none of c's others
        read_by_c = set(self.fv(c.body))
        read_by_p = set(self.fv(p.body))
        if (any(v in read_by_c for v in in_p if v not in in_c) or any(u in in_c for u in read_by_p)
                or not names.isdisjoint(read_by_c)):
            return None
        pe = self.names.var("p", e.type)
        both_body = self.rw.normalize(Tuple((pe, r)))
        # each chain normal and all it binds read: its lets remade around what follows
        for lt in reversed(only_c):
            both_body = _normal_let(Let(lt.var, lt.rhs, both_body, lt.loc), self.rw.normal)
        both_body = _normal_let(Let(pe, e, both_body), self.rw.normal)
        for lt in reversed(lets_p):
            both_body = _normal_let(Let(lt.var, lt.rhs, both_body, lt.loc), self.rw.normal)
        self.fv.remember(both_body, read_by_c | read_by_p)
        both = self.names.var("both", Vec(both_body.type))
        j, j2 = self.names.var("j", Int), self.names.var("j", Int)
        return [(both, Build(n, p.var, both_body)),
                (pv, Build(n, j, Get(0, prim("index", j, both)))),
                (cv, Build(n, j2, Get(1, prim("index", j2, both))))]

    def key_type(self, k) -> Type:
        return self.src if k == "result" else _location_type(k)

    def collect_build(self, size: Term, i: Var, per_elem, cts: list, primal: Var | None = None) -> dict:
        """The contributions of each element of a build, summed over the elements. `primal`:
        the build's primal version, whose body's bindings the contributions' copy."""
        local, parts = per_elem
        keys = list(parts)
        elem = Tuple(tuple(sum_tangents(parts[k], self.key_type(k)) for k in keys))
        vec = Build(self.subst(size), i, self.chain(local, elem))
        v = self.names.var("cts", vec.type)
        cts.append((v, vec))
        if primal is not None:
            self.copies.setdefault(primal, v)
        j = self.names.var("j", Int)
        out = {}
        for n, k in enumerate(keys):
            total = prim("tsum", Build(prim("size", v), j, Get(n, prim("index", j, v))))
            out[k] = [self.rw.normalize(total)]
        return out


_UNIT = Tuple(())  # the value of a check


def _normal_let(t: Let, marks: NormalMarks) -> Let:
    _set_normal(t, marks)
    return t


def _reads_beyond_size(t: Term, v: Var) -> bool:
    """Whether t reads v other than as size(v)."""
    seen: set[int] = set()
    stack = [t]
    while stack:
        n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if n == v:
            return True
        if type(n) is Call and n.fn == "size" and n.args[0] == v:
            continue
        stack.extend(term_children(n))
    return False


def _location_type(k) -> Type:
    """The type of the cotangents waiting at a location: its map's target."""
    t = k[0].type
    if len(k) == 1:
        return t.tgt
    if len(k) == 2:
        return t.items[k[1]].tgt
    return Vec(t.elem.items[k[2]].tgt)


def _maps_in(t: Type) -> list[LinMap]:
    if isinstance(t, LinMap):
        return [t]
    if isinstance(t, TupleT):
        return [m for x in t.items for m in _maps_in(x)]
    if isinstance(t, Vec):
        return _maps_in(t.elem)
    return []


def _local_jacobian(m: Term) -> bool:
    """A let chain ending in a map that binds maps, all from that map's source: the shape of
    a fold's step Jacobian e' (catad.ad's fold), which the nested sweeps sweep (their patterns
    match only a let: Named("m", Let, _local_jacobian))."""
    if not isinstance(m.type, LinMap):
        return False
    lets, _ = let_chain(m)
    maps = [x for lt in lets for x in _maps_in(lt.var.type)]
    return bool(maps) and all(x.src == m.type.src for x in maps)


def _summands(t: Term, bindings: list) -> list[Term]:
    """The terms of a sum; lets on the way (arguments bound by fwd-bind/rev-bind, whose
    names are unique) are hoisted into `bindings`, in order."""
    out, stack = [], [t]
    while stack:
        x = stack.pop()
        if isinstance(x, Call) and x.fn == "tadd":
            stack.extend(reversed(x.args))
        elif isinstance(x, Let):
            lets, body = let_chain(x)
            bindings.extend((lt.var, lt.rhs) for lt in lets)
            stack.append(body)
        else:
            out.append(x)
    return out


def _is_zero(c: Const) -> bool:
    from ..tangents import ZERO
    return c.value is ZERO


def _atoms(t: Term) -> bool:
    """A tuple of atoms (or of such tuples)."""
    return isinstance(t, Tuple) and all(isinstance(x, (Var, Const)) or _atoms(x) for x in t.items)


def _strip_type(t: Type) -> Type:
    """The type of strip's result: a (t, Dt) pair's t; a value with no linear map inside as it
    is (a 1-tuple of values stays one: a reverse program's cotangents, differentiated again)."""
    if not has_lm(t):
        return t
    if isinstance(t, TupleT):
        keep = [_strip_type(x) for x in t.items if not isinstance(x, LinMap)]
        return keep[0] if len(keep) == 1 else TupleT(tuple(keep))
    if isinstance(t, Vec):
        return Vec(_strip_type(t.elem))
    return t
