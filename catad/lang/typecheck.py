"""Type checker of core programs.

Terms carry their types from construction; this pass checks they are consistent:
variables are bound before use at their declared type, calls fit their primitive's
typing rule or the callee's signature, `if` conditions are Bool with equal branch
types, build sizes and indices are Int. Errors carry the nearest source location.
"""
from __future__ import annotations

from ..errors import CatadTypeError, Loc
from ..primitives.registry import PRIMITIVES, PrimitiveTypeError
from .fold import FOLDS, check_fold
from .terms import Build, Call, Const, Def, Get, If, Let, Program, Term, Tuple, Var, let_chain
from .types import Bool, Int, LinMap, Type, Vec


def check_program(program: Program) -> None:
    """Raise CatadTypeError unless every definition of the program is well typed."""
    sigs: dict[str, Def] = {}
    for d in program.defs:
        if d.name in PRIMITIVES:
            raise CatadTypeError(f"function name {d.name!r} clashes with a primitive", d.loc, "def")
        if d.name in sigs:
            raise CatadTypeError(f"function {d.name!r} is defined twice", d.loc, "def")
        _Checker(sigs, d.loc).check(d.body, {p.name: p.type for p in d.params})
        sigs[d.name] = d  # defs come callees first, so no recursion is possible
    if program.lookup(program.entry) is None:
        raise CatadTypeError(f"the program has no function {program.entry!r}")


def check_term(t: Term, env: dict[str, Type] | None = None, defs: dict[str, Def] | None = None) -> Type:
    return _Checker(defs or {}, None).check(t, dict(env or {}))


class _Checker:
    def __init__(self, defs: dict[str, Def], loc: Loc | None):
        self.defs = defs
        self.loc = loc

    def fail(self, t: Term, msg: str, construct: str):
        raise CatadTypeError(msg, getattr(t, "loc", None) or self.loc, construct)

    def check(self, t: Term, env: dict[str, Type]) -> Type:
        if type(t) is not Let:  # most terms checked (a call's arguments): no scope to open
            return self._check_nonlet(t, env)
        lets, body = let_chain(t)
        shadowed = []
        for lt in lets:
            rt = self.check(lt.rhs, env)
            if rt is not lt.var.type:  # (types are interned: == is identity)
                self.fail(lt, f"let {lt.var.name} : {lt.var.type} is bound to a value of type {rt}", "let")
            shadowed.append((lt.var.name, env.get(lt.var.name)))
            env[lt.var.name] = lt.var.type
        try:
            return self._check_nonlet(body, env)
        finally:
            for name, old in reversed(shadowed):
                if old is None:
                    del env[name]
                else:
                    env[name] = old

    def _check_nonlet(self, t: Term, env: dict[str, Type]) -> Type:
        cls = type(t)  # (the core's classes have no subclasses)
        if cls is Var:
            if env.get(t.name) is not t.type:
                if t.name not in env:
                    self.fail(t, f"variable {t.name!r} is not in scope", "variable")
                self.fail(t, f"variable {t.name!r} has type {env[t.name]}, used as {t.type}", "variable")
            return t.type
        if cls is Const:
            return t.type
        if cls is Call:  # (most compound terms)
            return self._check_call(t, env)
        if isinstance(t, Tuple):
            for x in t.items:
                self.check(x, env)
            return t.type
        if isinstance(t, Get):
            self.check(t.tup, env)
            return t.type
        if isinstance(t, Call):
            return self._check_call(t, env)
        if isinstance(t, If):
            if self.check(t.cond, env) != Bool:
                self.fail(t, f"the condition of an if has type {t.cond.type}, not Bool", "if")
            a, b = self.check(t.then, env), self.check(t.orelse, env)
            if a != b:
                self.fail(t, f"the branches of an if have different types {a} and {b}", "if")
            return a
        if isinstance(t, Build):
            if self.check(t.size, env) != Int:
                self.fail(t, f"the size of a build has type {t.size.type}, not Int", "build")
            if t.var.type != Int:
                self.fail(t, "the index variable of a build must be an Int", "build")
            old = env.get(t.var.name)
            env[t.var.name] = Int
            try:
                elem = self.check(t.body, env)
            finally:
                if old is None:
                    del env[t.var.name]
                else:
                    env[t.var.name] = old
            return Vec(elem)
        if isinstance(t, FOLDS):
            return check_fold(t, lambda sub, var: self._check_in(sub, env, var))
        if isinstance(t.type, LinMap) and getattr(t, "LAMBDAS", ()):  # lmFold: its lambdas' binder in scope
            scopes = {b: v for v, b in t.LAMBDAS}
            for f in t._fields:
                sub = getattr(t, f)
                if isinstance(sub, Term) and f not in scopes.values():
                    self._check_in(sub, env, getattr(t, scopes[f]) if f in scopes else None)
            return t.type
        if isinstance(t.type, LinMap):
            for sub in t.children():
                if isinstance(sub, Term):
                    self.check(sub, env)
            return t.type
        self.fail(t, f"not a core term: {type(t).__name__}", "term")

    def _check_in(self, t: Term, env: dict[str, Type], var: Var | None) -> Type:
        """t's type, with var (a lambda's binder) in scope when it is given."""
        if var is None:
            return self.check(t, env)
        old = env.get(var.name)
        env[var.name] = var.type
        try:
            return self.check(t, env)
        finally:
            if old is None:
                del env[var.name]
            else:
                env[var.name] = old

    def _check_call(self, t: Call, env: dict[str, Type]) -> Type:
        arg_types = tuple(self.check(a, env) for a in t.args)
        if t.fn in self.defs:
            d = self.defs[t.fn]
            expected = tuple(p.type for p in d.params)
            if arg_types != expected:
                self.fail(t, f"{t.fn} expects ({', '.join(map(str, expected))}), "
                             f"got ({', '.join(map(str, arg_types))})", "call")
            result = d.result_type
        elif t.fn in PRIMITIVES:
            try:
                result = PRIMITIVES[t.fn].result_type(arg_types)
            except PrimitiveTypeError as e:
                self.fail(t, f"{t.fn}: {e}", t.fn)
        else:
            self.fail(t, f"unknown function {t.fn!r}", "call")
        if result is not t.type:
            self.fail(t, f"call of {t.fn} is annotated {t.type} but returns {result}", "call")
        return result
