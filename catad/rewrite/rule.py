"""Rewrite rules as data.

A :class:`Rule` names a law, says where it comes from (``law``), shows its two sides
in the notes' notation (``lhs``, ``rhs``) and in LaTeX, states its side condition,
and carries a matcher: a pattern over term nodes (:class:`P`, :class:`V`) plus a
function building the right-hand side from the pattern's bindings. The catalogue
(:mod:`catad.rewrite.catalogue`) is a list of such objects; the engine
(:mod:`catad.rewrite.engine`) applies them and records which fired where.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from ..lang.terms import free_vars as _free_vars


class Bindings(dict):
    """A match's pattern variables, and the free-variable function a rule's side condition
    asks (the engine passes the one memoised for its normalisation; see Rewriter.normalize)."""

    __slots__ = ("free_vars",)


class Pat:
    def match(self, t: Any, b: dict) -> bool:
        raise NotImplementedError


@dataclass(frozen=True)
class V(Pat):
    """A pattern variable: matches anything satisfying `when` (bound consistently)."""

    name: str
    when: Callable[[Any], bool] | None = None

    def match(self, t: Any, b: dict) -> bool:
        if self.when is not None and not self.when(t):
            return False
        if self.name in b:
            return b[self.name] == t
        b[self.name] = t
        return True


@dataclass(frozen=True)
class P(Pat):
    """Matches a node of class `cls` whose fields match the given sub-patterns. (The
    engine skips a rule at a node whose class, or a field's class or name, the pattern
    rules out: a subclass may demand more than P.match, never less.)"""

    cls: type
    fields: dict = field(default_factory=dict)
    when: Callable[[Any], bool] | None = None

    def __init__(self, cls: type, when: Callable[[Any], bool] | None = None, **fields: Any):
        object.__setattr__(self, "cls", cls)
        object.__setattr__(self, "fields", fields)
        object.__setattr__(self, "when", when)

    def match(self, t: Any, b: dict) -> bool:
        if not isinstance(t, self.cls) or (self.when is not None and not self.when(t)):
            return False
        for name, sub in self.fields.items():
            value = getattr(t, name)
            if isinstance(sub, Pat):
                if not sub.match(value, b):
                    return False
            elif value != sub:
                return False
        return True


@dataclass(frozen=True)
class Rule:
    """A named rewrite: lhs -> rhs when `condition` holds."""

    name: str
    group: str
    law: str                       # the law and where it is from, e.g. "notes Fig. 4: 0 o m = 0"
    lhs: str                       # the left side in the notes' notation
    rhs: str                       # the right side
    latex: str                     # the law as LaTeX
    doc: str                       # one line
    pattern: Pat
    build: Callable[[dict], Any]   # bindings -> replacement (None: does not apply after all)
    condition: str = ""            # the side condition, in words ("" when there is none)

    def apply(self, t: Any, free_vars: Callable[[Any], Any] | None = None) -> Any:
        """The rewritten term, or None when the rule does not apply to t (at its root).
        `free_vars` answers the side conditions that ask for free variables (default:
        computed afresh, lang.terms.free_vars)."""
        b = Bindings()
        b.free_vars = free_vars or _free_vars
        if not self.pattern.match(t, b):
            return None
        out = self.build(b)
        if out is None or out is t:
            return None
        return out

    def describe(self) -> dict:
        return {"name": self.name, "group": self.group, "law": self.law, "lhs": self.lhs, "rhs": self.rhs,
                "condition": self.condition, "doc": self.doc, "latex": self.latex}
