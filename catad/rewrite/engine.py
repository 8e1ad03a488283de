"""The rewrite engine: rules applied innermost-first to a fixpoint, with a trace.

Strategy. A term is normalised bottom-up: first its children, then rules are tried
at its root in catalogue order (only those whose pattern the node's class and fields
allow); when one fires, its result is normalised in turn (its new parts may admit
rules). Terms already normal are remembered by identity and not visited again. The
traversal runs on an explicit stack of frames, so a 10,000-binding let chain needs no
deep Python recursion. The dead-let rule asks for the free variables of each let's
body, innermost first; they are kept per normalisation (:class:`ChainFreeVars`) so
that a whole chain costs linear time.

Termination. Every rule either removes a constructor (zeros, ones, identities,
projections of tuples, dead lets, constant folding), or moves an application
(``lmApply``, ``lmApplyR``, ``lmTranspose``) strictly closer to the leaves of the
linear map it applies, which is finite; compositions only re-associate to the
right. A step limit (a multiple of the nodes left normal) turns a bug in a rule into
an error instead of a hang.

Trace. Every step records the rule's name, the position (a path of child
indices from the root), and the subterms before and after; :func:`replay`
applies the recorded steps to the original term and must reproduce the result.
"""
from __future__ import annotations

from operator import is_not
from typing import Any, Iterable

from .._node import Node, _set_normal
from ..errors import CatadError
from ..lang import terms as lang_terms
from ..lang.terms import ChainFreeVars, Const, Term, Var, term_children, with_children
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


class NormalMarks:
    """Which terms are known to be normal, marked on the terms themselves (Node._normal, no
    table of them): the terms a rewriting with these marks left normal, and those of `base`,
    the marks of the stage before. A term marked by another rewriting (other rules, another
    stage) is not taken to be normal here. Marks cost no memory of their own and keep no
    term alive."""

    __slots__ = ("base",)

    def __init__(self, base: "NormalMarks | None" = None):
        # without a base, one no term is marked with (not itself: a reference cycle)
        self.base = _NO_MARKS if base is None else base


_NO_MARKS = object()


class Rewriter:
    """Normalises terms by `rules`. `normal` (NormalMarks) says which terms are known to be
    normal; a stage passes marks whose base is the stage before it, so what that one left
    normal is not visited again (only the parts a sweep made are). That is sound when a
    term normal under the earlier rules is normal under these: the sweeps' own rules
    (fwd-let-bound, rev-let-bound) match only lmApply and lmApplyR, which no earlier stage
    leaves in a program, and every stage uses the whole catalogue."""

    def __init__(self, rules: Iterable[Rule], stage: str = "", trace: list | None = None,
                 normal: "NormalMarks | None" = None):
        self.rules = list(rules)
        self.stage = stage
        self.trace = trace if trace is not None else []
        # class -> (the fields its rules ask about, the key function of those fields, key -> the
        # rules that may match there, key -> those rules' (matcher, build, name)): see _rules_for
        self.indexed: dict[type, tuple] = {}
        self.normal = NormalMarks() if normal is None else normal
        # the step limit reads these two, its own (not the trace's length: a rule may sweep a
        # subterm with a rewriter of its own, fwd-sweep-nested's, whose steps join the trace)
        self.marked = 0  # terms this rewriter marked normal
        self.taken = 0  # rewrites this rewriter made
        self.free_vars: ChainFreeVars | None = None  # the rules' free variables, during normalize
        # Whether no rule can match a variable or a constant (true of the catalogue): then an
        # atom met as a child is recorded normal where it is met, without a visit of its own.
        self.atoms_normal = not any(_may_match(r.pattern, cls, {}) or not isinstance(r.pattern, P)
                                    for r in self.rules for cls in (Var, Const))

    def _rules_for(self, t: Node) -> list[Rule]:
        """The rules that can match at t, in catalogue order. Most patterns ask a field of
        the node for a class of node (the map of an lmApplyR) or a name (the function of a
        call); the rules whose demands t's fields do not meet would fail to match, so they
        are left out, by a table keyed by t's class and what is in those fields."""
        cls = type(t)
        keyed = self.indexed.get(cls)
        if keyed is None:
            fields = _indexed_fields(self.rules, cls)
            keyed = self.indexed[cls] = (fields, _compile_key(fields), {}, {})
        fields, key_of, table, tries = keyed
        key = key_of(t)
        rules = table.get(key)
        if rules is None:
            parts = dict(zip(fields, key))
            rules = table[key] = [r for r in self.rules if _may_match(r.pattern, cls, parts)]
            tries[key] = tuple((r._match, r.build, r.name) for r in rules)
        return rules

    def normalize(self, t: Term) -> Term:
        """t's normal form. The rules' free-variable questions (Rule.apply's `free_vars`)
        are answered by one ChainFreeVars for this call: asked at a chain's lets innermost
        first, it answers in linear time where fresh sets per let would be quadratic. A rule
        that normalises a subterm meanwhile gets a memo of its own, restored afterwards."""
        m = t._normal
        if m is self.normal or m is self.normal.base:  # known normal (a sweep marks what it makes so)
            return t
        outer, self.free_vars = self.free_vars, ChainFreeVars()
        try:
            return self._normalize(t)
        finally:
            self.free_vars = outer

    def _normalize(self, t: Term) -> Term:
        """Innermost first, on an explicit stack of frames (term, path, its children, the
        normal forms of those done so far). A frame whose children are all done tries the
        rules at its term; a rewrite's result takes the frame's place, as its normal form
        is the frame's."""
        marks, trace, atoms = self.normal, self.trace, self.atoms_normal
        base = marks.base
        # (a rule's normalising of a subterm meanwhile restores free_vars: see normalize)
        indexed, free_vars, stage = self.indexed, self.free_vars, self.stage
        # A rule that loops takes steps without making any node normal, where a terminating
        # rewrite takes a few per node it leaves normal: past 10,000 steps, more than 50 per
        # new normal node is a loop (counting t's nodes instead would walk all of t).
        steps_before, marked_before = self.taken, self.marked
        # term_children's and with_children's tables, read here: a call fewer at every node
        children, rebuilt = lang_terms.CHILDREN, lang_terms.WITH_CHILDREN
        stack = [(t, None, children[type(t)](t), [])]
        frames = 0
        while True:
            node, path, kids, new = stack[-1]
            k, n = len(new), len(kids)
            while k < n:
                kid = kids[k]
                m = kid._normal
                if m is not marks and m is not base:
                    if not atoms or (type(kid) is not Var and type(kid) is not Const):
                        break
                    _set_normal(kid, marks)  # an atom no rule matches: normal, no frame needed
                    self.marked += 1
                new.append(kid)
                k += 1
            if k < n:
                sub, sub_path = kids[k], (k, path)
            else:
                stack.pop()
                if any(map(is_not, new, kids)):  # (C's loop: met at every frame)
                    node = rebuilt[type(node)](node, new)
                # The first rule's rewrite of node, normalised in its place; or node is normal
                # (its children are). This runs at every node: _rules_for's table is read here,
                # and each rule tried as Rule.apply tries it, without a call of apply (most fail).
                keyed = indexed.get(type(node))
                tries = keyed[3].get(keyed[1](node)) if keyed is not None else None
                if tries is None:
                    self._rules_for(node)
                    keyed = indexed[type(node)]
                    tries = keyed[3][keyed[1](node)]
                for match, build, name in tries:
                    b = match(node)
                    if b is None:
                        continue
                    b.free_vars = free_vars
                    sub = build(b)
                    if sub is not None and sub is not node:
                        trace.append((name, stage, path, node, sub))
                        self.taken += 1
                        break
                else:
                    _set_normal(node, marks)
                    self.marked += 1
                    sub = node
                sub_path = path
                m = sub._normal
                if m is marks or m is base:
                    if not stack:
                        return sub
                    stack[-1][3].append(sub)
                    continue
            stack.append((sub, sub_path, children[type(sub)](sub), []))
            frames += 1
            if not frames & 255:  # now and then
                taken = self.taken - steps_before
                if taken > 10_000 and taken > 50 * (self.marked - marked_before) + 10_000:
                    raise CatadError("rewriting did not terminate within its step budget (a rule loops)",
                                     construct="rewrite")

    def steps(self) -> list[RewriteStep]:
        return [RewriteStep(name, stage, path, before, after) for name, stage, path, before, after in self.trace]


def _demand(sub: Any) -> type | str | None:
    """What a field pattern demands of the field: a class of node (a P), a name, or
    nothing the rule index looks at (None)."""
    if isinstance(sub, P):
        return sub.cls
    return sub if isinstance(sub, str) else None


def _indexed_fields(rules: list[Rule], cls: type) -> tuple[str, ...]:
    """The fields of a cls node that some rule for cls makes a demand of."""
    out: dict[str, None] = {}
    for r in rules:
        p = r.pattern
        if isinstance(p, P) and issubclass(cls, p.cls):
            out.update((f, None) for f, sub in p.fields.items() if _demand(sub) is not None)
    return tuple(out)


def _key_part(v: Any) -> Any:
    """A field's part of the rule-table key: a name itself, else the class of the value."""
    return v if isinstance(v, str) else type(v)


def _compile_key(fields: tuple[str, ...]):
    """The function from a node to the key parts (_key_part) of these fields, as a tuple."""
    parts = "".join(f"(t.{f} if isinstance(t.{f}, str) else type(t.{f})), " for f in fields)
    env: dict = {}
    exec(f"def key(t):\n    return ({parts})", env)
    return env.pop("key")  # (its globals are env: a reference cycle while env holds it)


def _may_match(p: Any, cls: type, parts: dict) -> bool:
    """Whether pattern p may match a node of class cls whose fields have the key parts
    `parts` (P.match, and so its subclasses, checks these demands first)."""
    if not isinstance(p, P):
        return True
    if not issubclass(cls, p.cls):
        return False
    for f, sub in p.fields.items():
        want, have = _demand(sub), parts.get(f)
        if isinstance(want, type) and not (isinstance(have, type) and issubclass(have, want)):
            return False
        if isinstance(want, str) and have != want:
            return False
    return True


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
