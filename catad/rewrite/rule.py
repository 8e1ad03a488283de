"""Rewrite rules as data.

A :class:`Rule` names a law, says where it comes from (``law``), shows its two sides
in the notes' notation (``lhs``, ``rhs``) and in LaTeX, states its side condition,
and carries a matcher: a pattern over term nodes (:class:`P`, :class:`V`) plus a
function building the right-hand side from the pattern's bindings. The catalogue
(:mod:`catad.rewrite.catalogue`) is a list of such objects; the engine
(:mod:`catad.rewrite.engine`) applies them and records which fired where.
"""
from __future__ import annotations

import functools
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
    rules out: a subclass may demand more than P.match, never less.) A subclass that only
    also binds the node it matches names that binding in `binds_as` (compile_pattern reads
    it); any other subclass is matched by calling its own match."""

    binds_as = None  # type: str | None

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


class Named(P):
    """P(cls, when, **fields) that also binds the node it matches as `name`: a pattern variable
    whose class the engine's rule index reads (a V's it cannot), so the rule is not tried where
    the field holds another class of node."""

    def __init__(self, name: str, cls: type, when: Callable[[Any], bool] | None = None, **fields: Any):
        super().__init__(cls, when, **fields)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "binds_as", name)

    def match(self, t: Any, b: dict) -> bool:
        if P.match(self, t, b):
            b[self.name] = t
            return True
        return False


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

    @functools.cached_property
    def _match(self) -> Callable[[Any, dict], bool]:
        return compile_pattern(self.pattern)

    def apply(self, t: Any, free_vars: Callable[[Any], Any] | None = None) -> Any:
        """The rewritten term, or None when the rule does not apply to t (at its root).
        `free_vars` answers the side conditions that ask for free variables (default:
        computed afresh, lang.terms.free_vars)."""
        b = self._match(t)
        if b is None:
            return None
        b.free_vars = free_vars or _free_vars
        out = self.build(b)
        if out is None or out is t:
            return None
        return out

    def describe(self) -> dict:
        return {"name": self.name, "group": self.group, "law": self.law, "lhs": self.lhs, "rhs": self.rhs,
                "condition": self.condition, "doc": self.doc, "latex": self.latex}


def compile_pattern(pattern: Pat) -> Callable[[Any], Bindings | None]:
    """The bindings of pattern.match(t, b) for a fresh b, or None where it does not match, as one
    generated function: the pattern's tree unrolled into straight-line tests (no call per
    sub-pattern; a pattern variable met a second time is compared with its first binding,
    known while compiling). The bindings are held in locals and put in a Bindings only once
    every test has passed: most tries fail. The rewrite engine tries a rule at every node a
    stage visits, so this is its inner loop. (A pattern of its own kind, matched by its own
    match, may bind anything: from there on the bindings go into the Bindings at once.)"""
    env: dict[str, Any] = {"Bindings": Bindings}
    lines: list[str] = []
    local: dict[str, str] = {}  # pattern variable -> the local holding it, while no opaque pattern was met
    opaque = False  # after a pattern of its own kind: what b holds is not known here

    def const(value: Any) -> str:
        name = f"k{len(env)}"
        env[name] = value
        return name

    def go_opaque() -> None:
        nonlocal opaque
        if not opaque:
            opaque = True
            lines.append("    b = Bindings()")
            lines.extend(f"    b[{name!r}] = {v}" for name, v in local.items())

    def emit(p: Any, x: str, depth: int) -> None:
        if type(p) is V:
            if p.when is not None:
                lines.append(f"    if not {const(p.when)}({x}): return None")
            if opaque:
                lines.append(f"    if {p.name!r} in b and b[{p.name!r}] != {x}: return None")
                lines.append(f"    b[{p.name!r}] = {x}")
            elif p.name in local:
                lines.append(f"    if {local[p.name]} != {x}: return None")
            else:
                local[p.name] = f"v{len(local)}"
                lines.append(f"    {local[p.name]} = {x}")
        elif isinstance(p, P) and (type(p) is P or type(p).match is P.match or p.binds_as is not None):
            lines.append(f"    if not isinstance({x}, {const(p.cls)}): return None")
            if p.when is not None:
                lines.append(f"    if not {const(p.when)}({x}): return None")
            for k, (name, sub) in enumerate(p.fields.items()):
                y = f"x{depth}_{k}"
                lines.append(f"    {y} = {x}.{name}")
                if isinstance(sub, Pat):
                    emit(sub, y, depth + 1)
                else:
                    lines.append(f"    if {y} != {const(sub)}: return None")
            if p.binds_as is not None:
                if opaque:
                    lines.append(f"    b[{p.binds_as!r}] = {x}")
                else:
                    local[p.binds_as] = f"v{len(local)}"
                    lines.append(f"    {local[p.binds_as]} = {x}")
        else:  # a pattern of its own kind: its own match (it may bind anything)
            go_opaque()
            lines.append(f"    if not {const(p)}.match({x}, b): return None")

    emit(pattern, "t", 0)
    del emit  # (a recursive closure: its own cell holds it, a reference cycle)
    if not opaque:
        lines.append("    b = Bindings()")
        lines.extend(f"    b[{name!r}] = {v}" for name, v in local.items())
    exec("def match(t):\n" + "\n".join(lines + ["    return b"]), env)
    return env.pop("match")  # (its globals are env: a reference cycle while env holds it)
