"""Common subexpression elimination and dead-code elimination on let chains.

Both are single passes (linear in the program): CSE walks each let chain top-down
with a table of the right-hand sides already bound in scope (after ANF every
subexpression is one), replacing a repeated one by the variable that holds it;
dead-code elimination walks each chain bottom-up with the set of variables still
needed. Inner scopes (build bodies, if branches) see the outer table, and what they add
is taken back when they end, so nothing computed in a branch is reused outside it.
"""
from __future__ import annotations

from operator import is_not

from ..lang.anf import _anf_value, _Fresh, anf_def
from ..lang.names import FreshNames
from ..lang.fold import lambdas, operands
from ..lang.types import Float
from ..lang.terms import (Build, Call, Const, Def, Get, If, Let, Term, Tuple, Var, is_float_one, let_chain, make_lets,
                          may_fail, remake_lets, subterms, var_names)
from ..tangents import ZERO
from .engine import term_children, with_children
from .sweeps import substitute


def cse_def(d: Def, trace: list | None = None, stage: str = "", names: FreshNames | None = None) -> Def:
    return cse_zero(d, trace, stage, names)[0]


def cse_zero(d: Def, trace: list | None = None, stage: str = "",
             names: FreshNames | None = None) -> tuple[Def, bool]:
    """(d in ANF after CSE, whether CSE wrote the zero tangent where a variable bound to it was
    used: x[i] with x = 0, which the rules would simplify: catad.rewrite.stages.finish).
    Told by the pass itself, which meets every such binding (an alias it replaces by the
    atom), instead of a walk of d looking for them. `names`: as anf_def's.

    One walk (_Cse) does what ANF and then CSE of the ANF did (cse_zero_two_passes, kept as
    the reference tests/test_cleanup_counts.py compares it with): a compound operand is
    looked up in the table where ANF met it, so the bindings ANF made only for CSE to
    replace them are never built."""
    return cse_counted(d, trace, stage, names)[:2]


def cse_counted(d: Def, trace: list | None = None, stage: str = "",
                names: FreshNames | None = None) -> tuple[Def, bool, "_Dead | None"]:
    """cse_zero's (d, zero) and the uses the single-use inliner asks about, counted by CSE's
    walk in what it keeps, as the dead-code pass would count them (a _Dead whose walk is not
    needed: dead_code_inline_redex(d, counts)), or None where that pass must walk d: when CSE
    kept a dead let (one may remain after CSE: its last use CSE'd away), bound a name twice,
    met a fold (whose lambdas it does not walk) or found a scope (a build, an if, a let chain)
    computed already (whose uses it had counted)."""
    fresh = _Fresh(var_names(d.body) | {p.name for p in d.params}) if names is None else _Fresh.sharing(names)
    cse = _Cse(fresh, trace, stage)
    out = Def(d.name, d.params, cse.chain(d.body, True), d.loc)
    return out, bool(cse.zeros), None if cse.uncounted else cse.counts


def cse_zero_two_passes(d: Def, trace: list | None = None, stage: str = "",
                        names: FreshNames | None = None) -> tuple[Def, bool]:
    """cse_zero as two passes: ANF (catad.lang.anf), then CSE of its let chains (_cse)."""
    d = anf_def(d, names)
    zeros: list = []
    return Def(d.name, d.params, _cse(d.body, {}, {}, trace, stage, zeros), d.loc), bool(zeros)


_ZERO_ARGS = {"index": (1,), "size": (0,), "tsum": (0,), "update": (1,), "tadd": (0, 1), "tscale": (1,),
              "touter": (0, 1), "tdot": (0, 1), "tprod": (0, 1), "tmul": (1,), "densify": (0,)}


def zero_redex(d: Def) -> bool:
    """Whether d holds a term the rules would simplify that CSE or the single-use inliner wrote:
    a zero tangent where it is used (x[i] of x = 0, a tuple of zeros, ...), a component of a
    tuple literal (the primal value of `r = rev$f(x, 1.0)` where only its gradient is used) or
    a product by the constant 1.0: what a derivative program differentiated again binds to
    variables (catad.rewrite.stages.finish, which has dead_code_inline_redex tell it instead
    of a walk of its own)."""
    return any(_redex(n) for n in subterms(d.body))


def _zero(x) -> bool:
    return type(x) is Const and x.value is ZERO


_REDEX_FNS = frozenset(_ZERO_ARGS) | {"mul"}  # the calls _redex may find one in


def _redex(n: Term) -> bool:
    """Whether n itself is one of zero_redex's terms."""
    cls = type(n)
    if cls is Call:
        if any(_zero(n.args[k]) for k in _ZERO_ARGS.get(n.fn, ()) if k < len(n.args)):
            return True
        return n.type == Float and (n.fn == "mul" and any(is_float_one(a) for a in n.args) or
                                    n.fn == "tscale" and is_float_one(n.args[1]) or
                                    n.fn in ("touter", "tdot") and is_float_one(n.args[0]))
    if cls is Get:
        return _zero(n.tup) or type(n.tup) is Tuple
    if cls is Build:
        return _zero(n.body)
    return cls is Tuple and bool(n.items) and all(_zero(x) for x in n.items)


_MISSING = object()


def _undo(table: dict, added: list) -> None:
    """Take back a scope's entries (key, the value it had before or _MISSING), newest first.
    One dict per pass with its scopes' entries taken back when they end, where a copy per
    scope would cost the size of the enclosing scopes' entries at every build body."""
    for key, old in reversed(added):
        if old is _MISSING:
            del table[key]
        else:
            table[key] = old


class _Cse:
    """ANF and CSE in one walk: each let chain top-down, as ANF walks it, with the table of
    the right sides bound in scope (by value: the variable holding it) and `env`, the
    variables replaced (by a variable or a constant). Where ANF would bind a compound
    operand to a fresh variable t_k, its flat value (operands atoms, CSE'd) is looked up
    first: a value bound already is read from its variable, and a binding is made only for
    a new one. Names are taken as ANF takes them (one per compound operand, in ANF's order,
    bound or not), so the result is the two passes' (cse_zero_two_passes) term for term.
    `zeros` gets an entry for each variable replaced by the zero tangent."""

    __slots__ = ("table", "env", "fresh", "trace", "stage", "zeros", "counts", "depth", "uncounted", "bound")

    def __init__(self, fresh: _Fresh, trace, stage: str):
        self.table: dict = {}
        self.env: dict = {}
        self.fresh, self.trace, self.stage = fresh, trace, stage
        self.zeros: list = []
        # the uses in what is kept, as _Dead counts them (see cse_counted), at build depth `depth`;
        # `uncounted`: they are not to be trusted, the dead-code pass walks the result instead
        self.counts = _Dead()
        self.depth = 0
        self.uncounted = False
        self.bound: dict = {}  # name -> how many kept lets and builds bind it where CSE is (shadowing)

    def chain(self, t: Term, root: bool = False) -> Term:
        """A let chain (a scope: what it adds to the table and env is taken back at its end).
        `root`: a scope of its own (a build's body, an if's branch, the definition's body),
        whose result is counted here; a let chain standing as a value is counted by its
        binding (which CSE may replace by the value's variable or atom)."""
        lets, body = let_chain(t)
        # the bindings kept (let or None, var, rhs, loc, var's record in counts, uses before); table's
        # and env's entries added
        scope = ([], [], [])
        try:
            for lt in lets:
                self.bind(lt.var, self.value(lt.rhs, scope), scope, lt, lt.loc)
            out = self.value(body, scope)
            if root or scope[0]:
                self.count(out)
            for lt, var, rhs, loc, record, before in reversed(scope[0]):
                self.count_binding(var, rhs, record, before)
                out = lt if lt is not None and rhs is lt.rhs and out is lt.body else Let(var, rhs, out, loc)
                # hashed as made, from its var's, rhs's (the table's look-up hashed it) and
                # body's: a build or an if holding the chain is looked up in the table next,
                # which would otherwise walk the whole chain to hash it
                hash(out)
            return out
        finally:
            _undo(self.table, scope[1])
            _undo(self.env, scope[2])
            for kept in scope[0]:
                self.bound[kept[1].name] -= 1

    def keep(self, scope: tuple, lt: Let | None, var: Var, rhs: Term, loc) -> None:
        """Keep `let var = rhs` in the chain, with the uses of var counted so far: those after it
        are its scope's, unless a name it binds is bound again inside (then they are not told apart)."""
        name = var.name
        if self.bound.get(name):
            self.uncounted = True
        self.bound[name] = self.bound.get(name, 0) + 1
        # its record made here if it has none (a var of no use yet): count_binding reads it, no look-up
        records = self.counts.vars
        record = records.get(var)
        if record is None:
            record = records[var] = [0, None, None]
        scope[0].append((lt, var, rhs, loc, record, record[0]))

    def count(self, t: Term) -> None:
        """Count the uses in t, kept (its operands atoms; a nested scope's counted by its chain),
        as _Dead.expr counts them."""
        counts = self.counts
        cls = type(t)
        if cls is Call:  # most: a call's arguments read directly
            kids = t.args
        elif cls is Var:
            record = counts.vars.get(t)
            if record is None:
                counts.vars[t] = [1, self.depth, None]
            else:
                record[0] += 1
                record[1] = self.depth
            return
        elif cls is Const or cls is Let:
            return
        elif cls is Build:
            self.count(t.size)
            name = t.var.name
            counts.binders[name] = counts.binders.get(name, 0) + 1
            if type(t.body) is Const and t.body.value is ZERO:
                counts.redex = True
            return
        elif cls is If:
            self.count(t.cond)
            return
        elif cls is Tuple:
            kids = t.items
        elif cls is Get:
            kids = (t.tup,)
            if type(t.tup) is Var:
                counts.projected.add(t.tup)
        else:
            kids = term_children(t)
        if not counts.read(kids, self.depth):
            self.uncounted = True  # not ANF's (a fold's own terms): the dead-code pass counts
        if not counts.redex and (cls is Call and t.fn in _REDEX_FNS or cls is Get or cls is Tuple):
            counts.redex = _redex(t)

    def count_binding(self, var: Var, rhs: Term, record: list, before: int) -> None:
        """Count a kept binding, bottom-up along its chain: every use of var in its scope (what
        follows it) is counted by now in its `record` (counts.vars[var]), past the `before`
        counted when it was kept, so a var without one is a dead let, which the dead-code pass
        removes."""
        counts = self.counts
        if record[0] == before and not may_fail(rhs):
            self.uncounted = True
        self.count(rhs)
        name = var.name
        counts.binders[name] = counts.binders.get(name, 0) + 1
        record[2] = self.depth

    def bind(self, var: Var, rhs: Term, scope: tuple, lt: Let | None, loc) -> None:
        """`let var = rhs` (rhs CSE'd): an alias or a value bound already is substituted
        for var (env), a new value is bound."""
        env = self.env
        cls = type(rhs)
        if cls is Var or cls is Const:  # an alias: use the atom itself
            scope[2].append((var, env.get(var, _MISSING)))
            env[var] = rhs
            if cls is Const and rhs.value is ZERO:
                self.zeros.append(var)
            return
        held = self.table.get(rhs)
        if held is not None:
            scope[2].append((var, env.get(var, _MISSING)))
            env[var] = held
            self.step(var, rhs, held)
            if cls is Build or cls is If or cls is Let:  # its scope's uses were counted
                self.uncounted = True
            return
        scope[1].append((rhs, _MISSING))
        self.table[rhs] = var
        self.keep(scope, lt, var, rhs, loc)

    def step(self, var: Var, rhs: Term, held: Var) -> None:
        trace = self.trace
        if trace is not None:  # a trace that only counts (StepCount) gets no term made for it
            trace.append(("cse", self.stage, None, Let(var, rhs, var), held) if type(trace) is list else None)

    def atom(self, t: Term, scope: tuple) -> Term:
        """t as an atom: ANF's binding of a compound t (catad.lang.anf._atom), looked up first."""
        cls = type(t)
        if cls is Var:
            return self.env.get(t, t)
        if cls is Const:
            return t
        v = self.value(t, scope)
        name = self.fresh.name("t", True)  # ANF's t_k, taken whether it is bound or not
        cls = type(v)
        if cls is Var or cls is Const:  # a let chain whose CSE left an atom
            if cls is Const and v.value is ZERO:
                self.zeros.append(v)
            return v
        held = self.table.get(v)
        if held is not None:
            self.step(Var(name, t.type), v, held)
            if cls is Build or cls is If or cls is Let:  # its scope's uses were counted
                self.uncounted = True
            return held
        x = Var(name, t.type)
        scope[1].append((v, _MISSING))
        self.table[v] = x
        self.keep(scope, None, x, v, getattr(t, "loc", None))
        return x

    def value(self, t: Term, scope: tuple) -> Term:
        """t with atomic operands, CSE'd (catad.lang.anf._anf_value, then _cse's work on it)."""
        cls = type(t)
        if cls is Var:
            return self.env.get(t, t)
        if cls is Const:
            return t
        if cls is Call:
            old = t.args
            env = self.env  # (an atom operand, most, read here: no call of atom for it)
            args = tuple([env.get(a, a) if type(a) is Var else a if type(a) is Const else self.atom(a, scope)
                          for a in old])
            return Call(t.fn, args, t.ty, t.loc) if any(map(is_not, args, old)) else t
        if cls is Let:  # a scope of its own (hoisting its bindings could capture a name)
            return self.chain(t)
        if cls is Build:
            size = self.atom(t.size, scope)
            name = t.var.name
            if self.bound.get(name):
                self.uncounted = True  # a name bound again inside: its uses are not told apart
            self.bound[name] = self.bound.get(name, 0) + 1
            self.depth += 1
            try:
                body = self.chain(t.body, True)
            finally:
                self.depth -= 1
                self.bound[name] -= 1
            return t if size is t.size and body is t.body else Build(size, t.var, body, t.loc)
        if cls is If:
            cond = self.atom(t.cond, scope)
            then, orelse = self.chain(t.then, True), self.chain(t.orelse, True)
            return t if cond is t.cond and then is t.then and orelse is t.orelse else If(cond, then, orelse, t.loc)
        if cls is Tuple:
            items = tuple([self.atom(a, scope) for a in t.items])
            return Tuple(items, t.loc) if any(map(is_not, items, t.items)) else t
        if cls is Get:
            tup = self.atom(t.tup, scope)
            return t if tup is t.tup else Get(t.index, tup, t.loc)
        # a fold (or a term ANF refuses): ANF's own work, then CSE of the operand bindings it
        # made, as the two passes do (CSE does not look into a fold's lambdas, which it
        # substitutes in)
        self.uncounted = True  # its lambdas are not walked here: the dead-code pass counts them
        made: list = []
        v = _anf_value(t, self.fresh, made)
        for x, rhs, loc in made:
            self.bind(x, self.value(rhs, scope), scope, None, loc)
        return _outer_subst(v, self.env)


def _cse(t: Term, table: dict, env: dict, trace, stage, zeros: list) -> Term:
    """CSE of a let chain: `table` holds the right sides bound in scope (by value: the
    variable holding it), `env` the variables replaced (by a variable or a constant);
    `zeros` gets an entry for each variable replaced by the zero tangent."""
    lets, body = let_chain(t)
    added_table: list = []
    added_env: list = []
    try:
        out = []
        for lt in lets:
            rhs = _cse_inner(_outer_subst(lt.rhs, env), table, env, trace, stage, zeros)
            atom = type(rhs) is Var or type(rhs) is Const
            held = None if atom else table.get(rhs)
            if held is not None:
                added_env.append((lt.var, env.get(lt.var, _MISSING)))
                env[lt.var] = held
                if trace is not None:
                    trace.append(("cse", stage, None, Let(lt.var, rhs, lt.var), held))
                continue
            if atom:  # an alias: use the atom itself
                added_env.append((lt.var, env.get(lt.var, _MISSING)))
                env[lt.var] = rhs
                if type(rhs) is Const and rhs.value is ZERO:
                    zeros.append(lt.var)
                continue
            added_table.append((rhs, _MISSING))
            table[rhs] = lt.var
            out.append((lt, rhs))
        return remake_lets(out, _cse_inner(_outer_subst(body, env), table, env, trace, stage, zeros))
    finally:
        _undo(table, added_table)
        _undo(env, added_env)


def _cse_inner(t: Term, table: dict, env: dict, trace, stage, zeros: list) -> Term:
    """CSE inside the nested scopes of t (its if branches and build bodies)."""
    if isinstance(t, Let):
        return _cse(t, table, env, trace, stage, zeros)
    if isinstance(t, If):
        return _if(t, _cse(t.then, table, env, trace, stage, zeros), _cse(t.orelse, table, env, trace, stage, zeros))
    if isinstance(t, Build):
        return _build(t, _cse(t.body, table, env, trace, stage, zeros))
    return t


def _if(t: If, then: Term, orelse: Term) -> Term:
    """t with these branches (t itself when they are its own)."""
    return t if then is t.then and orelse is t.orelse else If(t.cond, then, orelse, t.loc)


def _build(t: Build, body: Term) -> Term:
    """t with this body (t itself when it is its own)."""
    return t if body is t.body else Build(t.size, t.var, body, t.loc)


def _outer_subst(t: Term, env: dict) -> Term:
    """t with env's variables replaced outside its nested scopes (a let chain's, an if's
    branches, a build's body), which the passes then walk themselves with env: each node is
    visited once, not once per enclosing scope."""
    if not env or isinstance(t, Let):
        return t
    if isinstance(t, If):
        return If(substitute(t.cond, env, None, True), t.then, t.orelse, t.loc)
    if isinstance(t, Build):
        return Build(substitute(t.size, env, None, True), t.var, t.body, t.loc)
    return substitute(t, env, None, True)


def dead_code_def(d: Def) -> Def:
    return Def(d.name, d.params, dead_code(d.body), d.loc)


def dead_code(t: Term) -> Term:
    """t without the let bindings nothing uses (terms are pure, but for checks: a binding
    that may fail a shape or bounds check is kept, as Python would have raised there)."""
    return _Dead().chain(t, 0)[0]


class _Dead:
    """Dead-code elimination that also counts, for the single-use inliner, the uses of the
    variables in what it keeps (so the inliner needs no walk of its own to count them).

    `vars[v]` is v's record [the number of v's occurrences in the kept program, the build
    depth of the last one (a build body or a fold's lambda is one level deeper), the depth of
    the let binding v (None: none)], one list, so that a use costs one look-up of v (a
    variable's hash is a Python call); `binders[name]` is the number of lets and builds binding
    the name. A let variable is used once in the inliner's sense (inline_single_use) when
    it occurs exactly once, at the depth of its let (a use inside a build body would
    repeat the work for every element), and its name is bound once."""

    __slots__ = ("vars", "binders", "redex", "projected")

    def __init__(self) -> None:
        self.vars: dict = {}
        self.binders: dict = {}
        # whether what it keeps holds one of zero_redex's terms (every kept node is met here),
        # and the variables read as a projection's tuple (inlining a tuple there makes one)
        self.redex = False
        self.projected: set = set()

    def read(self, kids, depth: int, free: set | None = None) -> bool:
        """Count the variables among kids as used at build depth `depth` (each added to `free`,
        if given); whether every kid is an atom (a compound one is not counted). One call per
        node, not per use: most terms are calls of atoms."""
        records, atoms = self.vars, True
        for k in kids:
            kind = type(k)
            if kind is Var:
                record = records.get(k)
                if record is None:
                    records[k] = [1, depth, None]
                else:
                    record[0] += 1
                    record[1] = depth
                if free is not None:
                    free.add(k)
            elif kind is not Const:
                atoms = False
        return atoms

    def single(self) -> set:
        binders = self.binders
        return {v for v, r in self.vars.items() if r[0] == 1 and r[2] == r[1] and binders[v.name] == 1}

    def chain(self, t: Term, depth: int) -> tuple[Term, set]:
        """(t without its dead lets, its free variables), in one pass: each let chain bottom-up
        with the set of variables still needed, which a nested scope hands up to its let (so a
        nested chain is not walked again for its free variables). Where nothing below changed,
        a let is kept as it is (usually all of them)."""
        lets, body = let_chain(t)
        out, live = self.expr(body, depth)
        binders, records = self.binders, self.vars
        for lt in reversed(lets):
            if lt.var in live or may_fail(lt.rhs):
                rhs, used = self.expr(lt.rhs, depth)
                live.discard(lt.var)
                live |= used
                name = lt.var.name
                binders[name] = binders.get(name, 0) + 1
                record = records.get(lt.var)
                if record is None:
                    records[lt.var] = [0, None, depth]
                else:
                    record[2] = depth
                out = lt if rhs is lt.rhs and out is lt.body else Let(lt.var, rhs, out, lt.loc)
        return out, live

    def expr(self, t: Term, depth: int) -> tuple[Term, set]:
        """(t with dead code removed in its nested scopes, t's free variables); t itself where
        nothing changed (with_children keeps a node whose children are unchanged)."""
        cls = type(t)
        if cls is Var:
            record = self.vars.get(t)
            if record is None:
                self.vars[t] = [1, depth, None]
            else:
                record[0] += 1
                record[1] = depth
            return t, {t}
        if cls is Const:
            return t, set()
        if cls is Let:
            return self.chain(t, depth)
        if cls is Build:
            body, used = self.chain(t.body, depth + 1)
            used.discard(t.var)
            self.binders[t.var.name] = self.binders.get(t.var.name, 0) + 1
            size, more = self.expr(t.size, depth)
            if type(body) is Const and body.value is ZERO:
                self.redex = True
            return with_children(t, [size, t.var, body]), used | more
        if cls is Get and type(t.tup) is Var:
            self.projected.add(t.tup)
        kids = term_children(t)
        lam = getattr(cls, "LAMBDAS", ())
        if cls is not If and not lam:  # most terms have atoms for children (ANF): counted here, no call per child
            for k in kids:
                if type(k) is not Var and type(k) is not Const:
                    break
            else:
                free = set()
                self.read(kids, depth, free)
                if not self.redex and (cls is Call and t.fn in _REDEX_FNS or cls is Get or cls is Tuple):
                    self.redex = _redex(t)
                return t, free
        if cls is If:
            parts = [self.expr(t.cond, depth), self.chain(t.then, depth), self.chain(t.orelse, depth)]
        elif lam:
            parts = self._fold(t, kids, depth)
        else:
            parts = [self.expr(k, depth) for k in kids]
        used = set().union(*(u for _, u in parts))
        out = with_children(t, [k for k, _ in parts])
        if not self.redex and (cls is Get or cls is Tuple or cls is Call and t.fn in _REDEX_FNS):
            self.redex = _redex(out)
        return out, used

    def _fold(self, t: Term, kids: list, depth: int) -> list:
        """A fold's children: its lambdas' binders are no uses (but free in the answer, as
        dead_code has always said), its lambdas' bodies run once per element (one level
        deeper, as a build's body)."""
        binders = {v for v, _ in type(t).LAMBDAS}
        bodies = {b for _, b in type(t).LAMBDAS}
        fields = [f for f in t._fields if isinstance(getattr(t, f), Term)]  # one term each: term_children's order
        return [(k, {k}) if f in binders else self.expr(k, depth + 1 if f in bodies else depth)
                for f, k in zip(fields, kids)]


def inline_single_use_def(d: Def) -> Def:
    return Def(d.name, d.params, inline_single_use(d.body), d.loc)


def inline_single_use(t: Term) -> Term:
    """Let-bound values used exactly once are put back where they are used (the inverse
    of ANF, after CSE has bound what is shared), never into a build body, where the
    work would be repeated for every element. Names bound more than once are left alone."""
    uses, binders = _count_uses(t)
    single = {v for v, n in uses.items() if n == 1 and binders.get(v.name) == 1}
    return _inline(t, single, {}, {})


def dead_code_inline_def(d: Def) -> Def:
    """inline_single_use_def(dead_code_def(d)), the uses counted by the dead-code pass (_Dead)
    instead of a walk of the inliner's own."""
    return dead_code_inline_redex(d)[0]


def dead_code_inline_redex(d: Def, counted: "_Dead | None" = None) -> tuple[Def, bool]:
    """(dead_code_inline_def(d), zero_redex of it), told by the two passes instead of a walk:
    the dead-code pass meets every node it keeps, and inlining makes only one of zero_redex's
    terms, a projection of a tuple literal (the others have a constant where the rules
    simplify, and the inliner moves no constant: CSE did). `counted`: the counts CSE made of
    d, which has no dead let (cse_counted), so the dead-code pass need not walk it."""
    dead = counted
    if dead is None:
        dead = _Dead()
        body = dead.chain(d.body, 0)[0]
    else:
        body = d.body
    made: list = []
    body = _inline(body, dead.single(), {}, {}, (dead.projected, made))
    return Def(d.name, d.params, body, d.loc), dead.redex or bool(made)


MAX_DEPTH = 32  # inlining a chain of single uses must not build one deep expression


def _depth(t: Term, memo: dict) -> int:
    """Nesting depth of an expression (let chains count as one level), memoised by id."""
    known = memo.get(id(t))
    if known is not None:
        return known[1]
    kids = term_children(t) if not isinstance(t, Let) else [t.rhs]
    best = 0  # most right sides: children atoms (depth 1) or values inlined already (memoised)
    for k in kids:
        m = memo.get(id(k))
        if m is not None:
            best = max(best, m[1])
        elif type(k) is Var or type(k) is Const:
            best = max(best, 1)
        else:
            return _depth_walk(t, memo)
    memo[id(t)] = (t, 1 + best)
    return 1 + best


def _depth_walk(t: Term, memo: dict) -> int:
    stack = [(t, False)]
    while stack:
        n, done = stack.pop()
        if id(n) in memo:
            continue
        kids = term_children(n) if not isinstance(n, Let) else [n.rhs]
        if not done and any(id(k) not in memo for k in kids):
            stack.append((n, True))
            stack.extend((k, False) for k in kids if id(k) not in memo)
            continue
        memo[id(n)] = (n, 1 + max((memo[id(k)][1] for k in kids), default=0))
    return memo[id(t)][1]


def _count_uses(t: Term) -> tuple[dict, dict]:
    uses: dict = {}
    binders: dict = {}
    depth_of: dict = {}
    kinds = _KINDS
    stack = [(t, 0)]
    while stack:
        n, depth = stack.pop()
        kind = kinds.get(type(n))
        if kind is None:
            kind = kinds[type(n)] = _kind(n)
        if kind == "var":
            same_level = depth_of.get(n, depth) == depth
            uses[n] = uses.get(n, 0) + (1 if same_level else 2)
        elif kind == "let":
            binders[n.var.name] = binders.get(n.var.name, 0) + 1
            depth_of[n.var] = depth
            stack.append((n.rhs, depth))
            stack.append((n.body, depth))
        elif kind == "build":
            binders[n.var.name] = binders.get(n.var.name, 0) + 1
            stack.append((n.size, depth))
            stack.append((n.body, depth + 1))
        elif kind == "fold":  # a fold's lambdas run once per element, as a build's body
            bodies = {id(body) for _, body in lambdas(n)}
            stack.extend((k, depth + 1 if id(k) in bodies else depth) for k in operands(n) + [b for _, b in lambdas(n)])
        else:
            stack.extend((k, depth) for k in term_children(n))
    return uses, binders


_KINDS: dict = {}  # class -> how _count_uses treats its nodes (decided once per class)


def _kind(n: Term) -> str:
    if isinstance(n, Var):
        return "var"
    if isinstance(n, Let):
        return "let"
    if isinstance(n, Build):
        return "build"
    return "fold" if getattr(n, "LAMBDAS", ()) else "other"


def _inline(t: Term, single: set, env: dict, memo: dict, tell=None) -> Term:
    """`tell`, when given, is (the variables read as a projection's tuple, a list): a tuple
    literal inlined where one of those is read is appended to the list (a get-tuple redex)."""
    lets, body = let_chain(t)
    added: list = []
    try:
        out = []
        for lt in lets:
            rhs = lt.rhs
            if type(rhs) is not Call:
                rhs = _inline_nested(_outer_subst(rhs, env), single, env, memo, tell)
                fails = rhs
            else:  # most right sides (ANF's calls of atoms): no nested scope to inline in
                if env:
                    rhs = _subst_call(rhs, env)
                # the values env holds fail no check (see below), so a call reading them fails
                # where its own right side does (a call of atoms: answered without a walk)
                fails = lt.rhs
            # a value that may fail a check stays where it is: moved into a branch, it would
            # not raise when the branch is not taken, where Python raises
            var = lt.var
            if var in single and _depth(rhs, memo) <= MAX_DEPTH and not may_fail(fails):
                # (a variable used once has one binder: env holds no other value of it to restore)
                added.append(var)
                env[var] = rhs
                if tell is not None and type(rhs) is Tuple and var in tell[0]:
                    tell[1].append(var)
            else:
                out.append((lt, rhs))
        return remake_lets(out, _inline_nested(_outer_subst(body, env), single, env, memo, tell))
    finally:
        for var in added:
            del env[var]


def _subst_call(t: Call, env: dict) -> Term:
    """substitute(t, env, None, True) for a call and a non-empty env, without its dispatch
    (the inliner meets one at most lets)."""
    args = t.args
    for a in args:
        if type(a) is not Var and type(a) is not Const:
            return substitute(t, env, None, True)
    new = tuple([env.get(a, a) if type(a) is Var else a for a in args])
    return Call(t.fn, new, t.ty, t.loc) if any(map(is_not, new, args)) else t


def _inline_nested(t: Term, single: set, env: dict, memo: dict, tell=None) -> Term:
    if isinstance(t, Let):
        return _inline(t, single, env, memo, tell)
    if isinstance(t, If):
        return _if(t, _inline(t.then, single, env, memo, tell), _inline(t.orelse, single, env, memo, tell))
    if isinstance(t, Build):
        return _build(t, _inline(t.body, single, env, memo, tell))
    return t
