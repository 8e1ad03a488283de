"""A-normal form (notes Section 5.1): every argument of a call, component of a tuple,
projected tuple, condition and build size is an atom (a variable or a constant).

Compound subterms are let-bound to fresh variables just before the term that uses
them. Branches of an `if` and bodies of a `build` get their own bindings, so no
work moves out of a branch or a loop. Let chains are processed iteratively.
"""
from __future__ import annotations

from .fold import FOLDS, lambdas
from .names import FreshNames
from .terms import Build, Call, Def, Get, If, Let, Program, Term, Tuple, Var, is_atom, let_chain, make_lets, var_names


class _Fresh(FreshNames):
    def var(self, ty) -> Var:  # t1, t2, ...: the names the notes' ANF uses
        return super().var("t", ty, numbered=True)

    @classmethod
    def sharing(cls, names: FreshNames) -> "_Fresh":
        """Names not among names.taken, which it shares (so it takes those handed out here too)."""
        fresh = cls()
        fresh.taken = names.taken
        return fresh


def anf_program(program: Program) -> Program:
    return Program(tuple(anf_def(d) for d in program.defs), program.entry)


def anf_def(d: Def, names: FreshNames | None = None) -> Def:
    """d in ANF. `names`, when given, holds every name of d that could be one of ANF's
    (t1, t2, ...), and ANF takes its names from it: no walk of d to find them."""
    fresh = _Fresh(var_names(d.body) | {p.name for p in d.params}) if names is None else _Fresh.sharing(names)
    return Def(d.name, d.params, anf(d.body, fresh), d.loc)


def anf(t: Term, fresh: _Fresh) -> Term:
    lets, body = let_chain(t)
    out: list[tuple] = []
    for lt in lets:
        out.append((lt.var, _anf_value(lt.rhs, fresh, out), lt.loc))
    body = _anf_value(body, fresh, out)
    if len(out) == len(lets) and body is lets[-1].body if lets else body is t:  # nothing changed
        if all(rhs is lt.rhs for (_, rhs, _), lt in zip(out, lets)):
            return t
    return make_lets(out, body)


def _atom(t: Term, fresh: _Fresh, out: list) -> Term:
    """t as an atom, appending to `out` the bindings that make it one."""
    v = _anf_value(t, fresh, out)
    if is_atom(v):
        return v
    x = fresh.var(v.type)
    out.append((x, v, getattr(t, "loc", None)))
    return x


def _anf_value(t: Term, fresh: _Fresh, out: list) -> Term:
    """t with atomic operands (bindings for them appended to `out`)."""
    if is_atom(t):
        return t
    if isinstance(t, Let):
        # hoisting its bindings outwards could capture a same-named variable there
        return anf(t, fresh)
    # a term whose operands are atoms already is kept, not rebuilt (most are, in derivative programs)
    if isinstance(t, Call):
        args = tuple(_atom(a, fresh, out) for a in t.args)
        return t if _same(args, t.args) else Call(t.fn, args, t.ty, t.loc)
    if isinstance(t, Tuple):
        items = tuple(_atom(a, fresh, out) for a in t.items)
        return t if _same(items, t.items) else Tuple(items, t.loc)
    if isinstance(t, Get):
        tup = _atom(t.tup, fresh, out)
        return t if tup is t.tup else Get(t.index, tup, t.loc)
    if isinstance(t, If):
        parts = (_atom(t.cond, fresh, out), anf(t.then, fresh), anf(t.orelse, fresh))
        return t if _same(parts, (t.cond, t.then, t.orelse)) else If(*parts, t.loc)
    if isinstance(t, Build):
        size, body = _atom(t.size, fresh, out), anf(t.body, fresh)
        return t if size is t.size and body is t.body else Build(size, t.var, body, t.loc)
    if isinstance(t, FOLDS):  # operands atoms (bound before the loop), each lambda body its own scope
        bodies = {id(b) for _, b in lambdas(t)}
        kids = [anf(k, fresh) if id(k) in bodies else k if isinstance(k, Var) and _binds(t, k)
                else _atom(k, fresh, out) for k in _term_fields(t)]
        return t if _same(kids, _term_fields(t)) else t.replace(**dict(zip(_term_names(t), kids)))
    raise TypeError(f"not a core term: {type(t).__name__}")


def _term_names(t: Term) -> list[str]:
    return [f for f in t._fields if isinstance(getattr(t, f), Term)]


def _term_fields(t: Term) -> list[Term]:
    return [getattr(t, f) for f in _term_names(t)]


def _binds(t: Term, v: Var) -> bool:
    return any(v is var for var, _ in lambdas(t))


def _same(new: tuple, old: tuple) -> bool:
    return all(a is b for a, b in zip(new, old))


__all__ = ["anf", "anf_def", "anf_program"]
