"""Reference evaluator of the core language: small and obviously correct, not fast.

Let chains are walked iteratively, so a 10,000-binding function evaluates without
RecursionError; recursion depth follows the nesting of expressions only.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import ArgumentError
from ..tangents import ZERO
from ..primitives.registry import PRIMITIVES
from .fold import EVALUATORS as FOLD_EVALUATORS
from .terms import Build, Call, Const, Get, If, Program, Term, Tuple, Var, let_chain
from .types import Type, coerce_value, dtype_of, is_array_type, rank


def no_rows(ndim: int, dtype) -> np.ndarray:
    """The vector of no elements of rank `ndim`, whose elements' shape nothing says (a build or a
    loop of no step): empty along its first axis, of length 1 along the others. What is made of its
    rows then broadcasts as an element of any shape would: the sum of no rows, zeros of shape (1,
    ...), added to a cotangent of shape (5,), is that cotangent, where the sum of an array empty
    along every axis, of shape (0,), raised NumPy's broadcasting error (np.array([]) would have
    one axis only). Where such a result is the value itself, its shape is checked (the backend's
    shaped_as, differentiate._materialize) and refused as catad's own error."""
    return np.zeros((0,) + (1,) * (ndim - 1), dtype=dtype)


def make_vector(elems: list, t: Type) -> np.ndarray:
    """The run-time value of a Vec of type t from its elements."""
    if not is_array_type(t):
        return list(elems)  # a Vec of tuples or of linear maps (inside Jacobian programs)
    if any(not isinstance(e, (int, float, np.ndarray, np.generic)) for e in elems):
        return _tangent_vector(elems)
    if not elems:
        return no_rows(rank(t), dtype_of(t))
    if len({np.shape(e) for e in elems}) > 1:  # a scan's accumulators that change shape: no array
        return list(elems)
    return np.array(elems, dtype=dtype_of(t))


def _tangent_vector(elems: list):
    """A Vec of tangent values some of which are the symbolic zero or sparse. Sparse
    elements (index updates) stay a list, so summing them is in place and O(n); making
    each a dense row would cost n * size (the one-hot trap of docs/design.md invariant 2)."""
    from ..tangents import ZERO, OneHot, densify
    if any(isinstance(e, OneHot) for e in elems):
        return list(elems)
    dense = [densify(e) for e in elems]
    like = next((np.asarray(e, dtype=np.float64) for e in dense if e is not ZERO), None)
    if like is None:
        return ZERO
    return np.array([np.zeros_like(like) if e is ZERO else e for e in dense], dtype=np.float64)


class Evaluator:
    def __init__(self, program: Program):
        self.defs = {d.name: d for d in program.defs}

    def call(self, name: str, args: tuple) -> Any:
        d = self.defs[name]
        return self.eval(d.body, dict(zip(d.params, args)))

    def eval(self, t: Term, env: dict) -> Any:
        lets, body = let_chain(t)
        saved = []
        for lt in lets:
            value = self.eval(lt.rhs, env)
            saved.append((lt.var, env.get(lt.var, _MISSING)))
            env[lt.var] = value
        try:
            return self._eval_nonlet(body, env)
        finally:
            for var, old in reversed(saved):
                if old is _MISSING:
                    del env[var]
                else:
                    env[var] = old

    def _eval_nonlet(self, t: Term, env: dict) -> Any:
        if isinstance(t, Var):
            return env[t]
        if isinstance(t, Const):
            return t.py_value
        if isinstance(t, Call):
            args = tuple(self.eval(a, env) for a in t.args)
            p = PRIMITIVES.get(t.fn)
            if p is not None and t.fn not in self.defs:
                return p.impl(*args)
            return self.call(t.fn, args)
        if isinstance(t, Tuple):
            return tuple(self.eval(x, env) for x in t.items)
        if isinstance(t, Get):
            value = self.eval(t.tup, env)
            return value if value is ZERO else value[t.index]  # a component of the zero tangent
        if isinstance(t, If):
            return self.eval(t.then if self.eval(t.cond, env) else t.orelse, env)
        if isinstance(t, Build):
            n = self.eval(t.size, env)
            old = env.get(t.var, _MISSING)
            elems = []
            for i in range(max(int(n), 0)):
                env[t.var] = i
                elems.append(self.eval(t.body, env))
            if old is _MISSING:
                env.pop(t.var, None)
            else:
                env[t.var] = old
            return make_vector(elems, t.type)
        fold = FOLD_EVALUATORS.get(type(t))
        if fold is not None:  # a loop: one evaluation of a lambda's body per element
            return fold(t, lambda sub: self.eval(sub, env), lambda body, var, x: self.eval_in(body, env, var, x))
        return t.eval_with(lambda sub: self.eval(sub, env))

    def eval_in(self, body: Term, env: dict, var: Var, value: Any) -> Any:
        """body evaluated with var bound to value (env as it was afterwards)."""
        old = env.get(var, _MISSING)
        env[var] = value
        try:
            return self.eval(body, env)
        finally:
            if old is _MISSING:
                del env[var]
            else:
                env[var] = old


_MISSING = object()


def evaluate(program: Program, *args: Any) -> Any:
    """Run the program's entry function on run-time arguments (checked against its types)."""
    d = program.main
    if len(args) != len(d.params):
        raise ArgumentError(f"{d.name} takes {len(d.params)} argument(s), got {len(args)}")
    vals = tuple(coerce_value(a, p.type, f"argument {p.name!r}") for a, p in zip(args, d.params))
    return Evaluator(program).call(d.name, vals)


def eval_term(t: Term, env: dict | None = None, program: Program | None = None) -> Any:
    return Evaluator(program or Program((), "")).eval(t, dict(env or {}))


__all__ = ["Evaluator", "evaluate", "eval_term", "make_vector"]
