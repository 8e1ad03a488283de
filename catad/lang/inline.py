"""Inlining user functions (notes Section 5.4: "If we inline everything we'll eliminate
all intermediate linear maps").

Every call of a user function is replaced by the callee's body, its parameters
let-bound to the arguments and all its binders renamed apart, so no name is
captured. Definitions are processed callees first, so one pass suffices.
"""
from __future__ import annotations

from .fold import FOLDS
from .names import FreshNames
from .terms import CHILDREN, Build, Call, Const, Def, Get, If, Let, Program, Term, Tuple, Var, let_chain, make_lets




_MISSING = object()


def _restore(env: dict, saved: list) -> None:
    """Take back a scope's entries (variable, the value it had before or _MISSING), newest first."""
    for var, old in reversed(saved):
        if old is _MISSING:
            del env[var]
        else:
            env[var] = old


def inline_program(program: Program) -> Program:
    """The program's entry function with every user call inlined (a single definition). A
    program of one definition whose binders all have distinct names is its own: it calls no
    user function, and no name needs renaming apart (the front end's names are distinct)."""
    if len(program.defs) == 1 and _binders_distinct(program.main.body):
        return program
    done: dict[str, Def] = {}
    for d in program.defs:
        names = FreshNames.avoiding(d.body, params=d.params)
        done[d.name] = Def(d.name, d.params, _Inliner(done, names).term(d.body, {}), d.loc)
    return Program((done[program.entry],), program.entry)


def _binders_distinct(t: Term) -> bool:
    """Whether the names t's lets, builds and folds bind are all distinct (each distinct node
    looked at once; a walk of its own, not compound_subterms': a generator's step per node was
    a third of the time it took)."""
    bound: set[str] = set()
    seen: set[int] = set()
    stack = [t]
    while stack:
        n = stack.pop()
        cls = type(n)
        if cls is Var or cls is Const or id(n) in seen:
            continue
        seen.add(id(n))
        if cls is Call:  # (most nodes)
            stack.extend(n.args)
        elif cls is Let or cls is Build:
            name = n.var.name
            if name in bound:
                return False
            bound.add(name)
            stack.append(n.rhs if cls is Let else n.size)
            stack.append(n.body)
        else:
            if isinstance(n, FOLDS):
                for v, _ in cls.LAMBDAS:
                    name = getattr(n, v).name
                    if name in bound:
                        return False
                    bound.add(name)
            stack.extend(CHILDREN[cls](n))
    return True


class _Inliner:
    def __init__(self, defs: dict[str, Def], names: FreshNames):
        self.defs = defs
        self.names = names

    def term(self, t: Term, env: dict[Var, Term]) -> Term:
        """t with its calls inlined; `env` maps the variables in scope to their new names.
        A scope adds its binders to env and takes them back when it ends (_scoped): a copy
        of env per let chain and per build body was quadratic in a chain of builds."""
        if type(t) is not Let:  # most terms (a call's arguments): no scope to open
            return self.nonlet(t, env)
        lets, body = let_chain(t)
        saved: list = []
        try:
            out = []
            for lt in lets:
                rhs = self.term(lt.rhs, env)
                v = self.binder(lt.var, env)
                saved.append((lt.var, env.get(lt.var, _MISSING)))
                env[lt.var] = v
                out.append((v, rhs, lt.loc))
            return make_lets(out, self.nonlet(body, env))
        finally:
            _restore(env, saved)

    def _scoped(self, t: Term, env: dict[Var, Term], var: Var, new: Var) -> Term:
        """self.term(t, env with var renamed new), env as it was afterwards."""
        old = env.get(var, _MISSING)
        env[var] = new
        try:
            return self.term(t, env)
        finally:
            _restore(env, [(var, old)])

    def binder(self, var: Var, env: dict[Var, Term]) -> Var:
        """The name a let binds: renamed only if it would shadow a name in scope."""
        v = self.names.rename(var) if var.name in self.names.taken and var in env else var
        self.names.taken.add(v.name)
        return v

    def nonlet(self, t: Term, env: dict[Var, Term]) -> Term:
        cls = type(t)  # (no class derives from a core term's)
        if cls is Var:
            return env.get(t, t)
        if cls is Const:
            return t
        if cls is Call:  # (its atoms renamed here: most arguments are, and a call per atom was most of the time)
            args = tuple([env.get(a, a) if type(a) is Var else a if type(a) is Const else self.term(a, env)
                          for a in t.args])
            if t.fn in self.defs:
                return self.call(self.defs[t.fn], args)
            return Call(t.fn, args, t.ty, t.loc)
        if cls is Tuple:
            return Tuple(tuple([self.term(x, env) for x in t.items]), t.loc)
        if cls is Get:
            return Get(t.index, self.term(t.tup, env), t.loc)
        if cls is If:
            return If(self.term(t.cond, env), self.term(t.then, env), self.term(t.orelse, env), t.loc)
        if cls is Build:
            size = self.term(t.size, env)
            i = self.names.rename(t.var)
            return Build(size, i, self._scoped(t.body, env, t.var, i), t.loc)
        if isinstance(t, FOLDS):  # each lambda's binder renamed apart, like a build's index
            changes = {}
            scopes = {b: v for v, b in type(t).LAMBDAS}
            binders = {v for v, _ in type(t).LAMBDAS}
            for f in t._fields:
                k = getattr(t, f)
                if f in scopes:
                    var = getattr(t, scopes[f])
                    new = self.names.rename(var)
                    changes[scopes[f]], changes[f] = new, self._scoped(k, env, var, new)
                elif f not in binders and isinstance(k, Term):
                    changes[f] = self.term(k, env)
            return t.replace(**changes)
        raise TypeError(f"not a core term: {type(t).__name__}")

    def call(self, d: Def, args: tuple[Term, ...]) -> Term:
        """let p1' = a1; ...; pk' = ak in body' (everything in the callee renamed apart)."""
        env: dict[Var, Term] = {}
        bindings = []
        for p, a in zip(d.params, args):
            v = self.names.rename(p)
            env[p] = v
            bindings.append((v, a))
        return make_lets(bindings, _Renaming(self.names).term(d.body, env))


def canonical(t: Term, free: dict[Var, Term] | None = None) -> Term:
    """t with its binders renamed @0, @1, ... in the order they appear (its free variables
    kept, or replaced as `free` says): two terms are equal up to the names of their binders
    iff their canonical forms are."""
    return _Renaming(_Numbered()).term(t, dict(free or {}))


def renamed_apart(t: Term, names: FreshNames, free: dict[Var, Term] | None = None, calls=None) -> Term:
    """t with every binder given a fresh name from names (its free variables kept, or
    replaced as `free` says), and with each call c for which calls(c) gives a term replaced by
    that term (as it is: its variables are free in t's context)."""
    return (_Renaming(names) if calls is None else _Replacing(names, calls)).term(t, dict(free or {}))


class _Numbered:
    """Binder names @0, @1, ... (no source name starts with @)."""

    def __init__(self):
        self.taken: set[str] = set()
        self.count = 0

    def rename(self, v: Var) -> Var:
        self.count += 1
        return Var(f"@{self.count - 1}", v.type)


class _Renaming(_Inliner):
    """Copies an (already inlined) body with every binder given a fresh name."""

    def __init__(self, names: FreshNames):
        super().__init__({}, names)

    def binder(self, var: Var, env: dict[Var, Term]) -> Var:
        return self.names.rename(var)


class _Replacing(_Renaming):
    """A renaming apart that also replaces calls (see renamed_apart)."""

    def __init__(self, names: FreshNames, calls):
        super().__init__(names)
        self.calls = calls

    def nonlet(self, t: Term, env: dict[Var, Term]) -> Term:
        if type(t) is Call:
            hit = self.calls(t)
            if hit is not None:
                return hit
        return super().nonlet(t, env)
