"""Common subexpression elimination and dead-code elimination on let chains.

Both are single passes (linear in the program): CSE walks each let chain top-down
with a table of the right-hand sides already bound in scope (after ANF every
subexpression is one), replacing a repeated one by the variable that holds it;
dead-code elimination walks each chain bottom-up with the set of variables still
needed. Inner scopes (build bodies, if branches) see the outer table but add to
their own copy, so nothing computed in a branch is reused outside it.
"""
from __future__ import annotations

from collections import ChainMap

from ..lang.anf import anf_def
from ..lang.terms import Build, Call, Const, Def, Get, If, Let, Term, Tuple, Var, free_vars, let_chain, make_lets
from .sweeps import substitute


def cse_def(d: Def, trace: list | None = None, stage: str = "") -> Def:
    d = anf_def(d)
    return Def(d.name, d.params, _cse(d.body, ChainMap(), ChainMap(), trace, stage), d.loc)


def _cse(t: Term, table: dict, env: dict, trace, stage) -> Term:
    lets, body = let_chain(t)
    table, env = table.new_child(), env.new_child()  # O(1): a scope sees its parents' entries
    out = []
    for lt in lets:
        rhs = _cse_inner(substitute(lt.rhs, env), table, env, trace, stage)
        if rhs in table and not isinstance(rhs, (Var, Const)):
            env[lt.var] = table[rhs]
            if trace is not None:
                trace.append(("cse", stage, None, Let(lt.var, rhs, lt.var), table[rhs]))
            continue
        if isinstance(rhs, (Var, Const)):  # an alias: use the atom itself
            env[lt.var] = rhs
            continue
        table[rhs] = lt.var
        out.append((lt.var, rhs, lt.loc))
    return make_lets(out, _cse_inner(substitute(body, env), table, env, trace, stage))


def _cse_inner(t: Term, table: dict, env: dict, trace, stage) -> Term:
    """CSE inside the nested scopes of t (its if branches and build bodies)."""
    if isinstance(t, Let):
        return _cse(t, table, env, trace, stage)
    if isinstance(t, If):
        return If(t.cond, _cse(t.then, table, env, trace, stage), _cse(t.orelse, table, env, trace, stage), t.loc)
    if isinstance(t, Build):
        return Build(t.size, t.var, _cse(t.body, table, env, trace, stage), t.loc)
    return t


def dead_code_def(d: Def) -> Def:
    return Def(d.name, d.params, dead_code(d.body), d.loc)


def dead_code(t: Term) -> Term:
    """t without the let bindings nothing uses (terms are pure)."""
    lets, body = let_chain(t)
    body = _dead_inner(body)
    cache: dict = {}
    live = set(free_vars(body, cache))
    keep = []
    for lt in reversed(lets):
        if lt.var in live:
            rhs = _dead_inner(lt.rhs)
            live.discard(lt.var)
            live |= free_vars(rhs, cache)
            keep.append((lt.var, rhs, lt.loc))
    return make_lets(reversed(keep), body)


def _dead_inner(t: Term) -> Term:
    if isinstance(t, Let):
        return dead_code(t)
    if isinstance(t, If):
        return If(t.cond, dead_code(t.then), dead_code(t.orelse), t.loc)
    if isinstance(t, Build):
        return Build(t.size, t.var, dead_code(t.body), t.loc)
    if isinstance(t, Tuple):
        return Tuple(tuple(_dead_inner(x) for x in t.items), t.loc)
    if isinstance(t, Call) and any(isinstance(a, (Let, If, Build)) for a in t.args):
        return Call(t.fn, tuple(_dead_inner(a) for a in t.args), t.ty, t.loc)
    if isinstance(t, Get):
        return Get(t.index, _dead_inner(t.tup), t.loc)
    return t
