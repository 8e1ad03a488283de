"""The rewrite engine: rules applied innermost-first to a fixpoint, with a trace.

Strategy. A term is normalised bottom-up: first its children, then rules are tried
at its root in catalogue order; when one fires, its result is normalised in turn
(its new parts may admit rules). Terms already normal are remembered by identity
and not visited again. The traversal runs on an explicit stack of generators, so
a 10,000-binding let chain needs no deep Python recursion.

Termination. Every rule either removes a constructor (zeros, ones, identities,
projections of tuples, dead lets, constant folding), or moves an application
(``lmApply``, ``lmApplyR``, ``lmTranspose``) strictly closer to the leaves of the
linear map it applies, which is finite; compositions only re-associate to the
right. A step limit (a multiple of the term's size) turns a bug in a rule into an
error instead of a hang.

Trace. Every step records the rule's name, the position (a path of child
indices from the root), and the subterms before and after; :func:`replay`
applies the recorded steps to the original term and must reproduce the result.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Iterator

from .._node import Node, walk
from ..errors import CatadError
from ..lang.terms import Term
from .rule import P, Rule


class RewriteStep:
    """One rewrite: `rule` turned `before` into `after` at `position` (a path of child
    indices from the root of the term being rewritten; computed when first read, as
    paths into long let chains are long)."""

    __slots__ = ("rule", "stage", "_path", "_position", "before", "after")

    def __init__(self, rule: str, stage: str, path, before: Term, after: Term):
        self.rule, self.stage, self.before, self.after = rule, stage, before, after
        self._path, self._position = path, None

    @property
    def position(self) -> tuple[int, ...]:
        if self._position is None:
            self._position = _materialize(self._path)
        return self._position

    def __repr__(self) -> str:
        return f"RewriteStep({self.rule!r}, {self.stage!r}, {self.position}, {self.before}, {self.after})"


def term_children(t: Node) -> list[Term]:
    out = []
    for f in t._fields:
        v = getattr(t, f)
        if isinstance(v, Term):
            out.append(v)
        elif isinstance(v, tuple):
            out.extend(x for x in v if isinstance(x, Term))
    return out


def with_children(t: Node, kids: list[Term]) -> Node:
    """t with its term children replaced, in the order of :func:`term_children`."""
    changes, k = {}, 0
    for f in t._fields:
        v = getattr(t, f)
        if isinstance(v, Term):
            if kids[k] is not v:
                changes[f] = kids[k]
            k += 1
        elif isinstance(v, tuple) and any(isinstance(x, Term) for x in v):
            new = []
            for x in v:
                if isinstance(x, Term):
                    new.append(kids[k])
                    k += 1
                else:
                    new.append(x)
            if any(a is not b for a, b in zip(new, v)):
                changes[f] = tuple(new)
    return dataclasses.replace(t, **changes) if changes else t


class Rewriter:
    def __init__(self, rules: Iterable[Rule], stage: str = "", trace: list | None = None):
        self.rules = list(rules)
        self.stage = stage
        self.trace = trace if trace is not None else []
        self.by_class: dict[type, list[Rule]] = {}
        self.normal: dict[int, Node] = {}  # id -> term known to be normal (kept alive here)

    def _rules_for(self, cls: type) -> list[Rule]:
        if cls not in self.by_class:
            self.by_class[cls] = [r for r in self.rules if not isinstance(r.pattern, P) or issubclass(cls, r.pattern.cls)]
        return self.by_class[cls]

    def normalize(self, t: Term) -> Term:
        from .catalogue import FV_CACHE
        FV_CACHE.append(({}, []))
        try:
            return self._normalize(t)
        finally:
            FV_CACHE.pop()

    def _normalize(self, t: Term) -> Term:
        budget = 50 * sum(1 for _ in walk(t)) + 10_000
        stack: list[Iterator] = [self._step(t, None)]
        value: Any = None
        steps_before = len(self.trace)
        while stack:
            try:
                request = stack[-1].send(value)
            except StopIteration as stop:
                stack.pop()
                value = stop.value
                continue
            sub, path = request
            if id(sub) in self.normal:
                value = sub
                continue
            stack.append(self._step(sub, path))
            value = None
            if len(self.trace) - steps_before > budget:
                raise CatadError("rewriting did not terminate within its step budget (a rule loops)",
                                 construct="rewrite")
        return value

    def _step(self, t: Term, path):
        kids = term_children(t)
        new = []
        for k, c in enumerate(kids):
            new.append((yield (c, (k, path))))
        t = with_children(t, new)
        for r in self._rules_for(type(t)):
            out = r.apply(t)
            if out is not None:
                self.trace.append((r.name, self.stage, path, t, out))
                return (yield (out, path))
        self.normal[id(t)] = t
        return t

    def steps(self) -> list[RewriteStep]:
        return [RewriteStep(name, stage, path, before, after) for name, stage, path, before, after in self.trace]


def _materialize(path) -> tuple[int, ...]:
    out = []
    while path is not None:
        k, path = path
        out.append(k)
    return tuple(reversed(out))


def rewrite(t: Term, rules: Iterable[Rule], stage: str = "") -> tuple[Term, list[RewriteStep]]:
    """t normalised by `rules`, with the steps taken."""
    rw = Rewriter(rules, stage)
    out = rw.normalize(t)
    return out, rw.steps()


def subterm(t: Term, position: tuple[int, ...]) -> Term:
    for k in position:
        t = term_children(t)[k]
    return t


def replace_at(t: Term, position: tuple[int, ...], new: Term) -> Term:
    """t with the subterm at `position` replaced (ancestors rebuilt), iteratively."""
    spine = [t]
    for k in position:
        spine.append(term_children(spine[-1])[k])
    out = new
    for parent, k in zip(reversed(spine[:-1]), reversed(position)):
        kids = term_children(parent)
        kids[k] = out
        out = with_children(parent, kids)
    return out


def replay(t: Term, steps: Iterable[RewriteStep]) -> Term:
    """Apply recorded steps in order; each must find its `before` at its position."""
    for s in steps:
        found = subterm(t, s.position)
        if found != s.before:
            raise AssertionError(f"step {s.rule} at {s.position}: the term there is not its `before`")
        t = replace_at(t, s.position, s.after)
    return t
