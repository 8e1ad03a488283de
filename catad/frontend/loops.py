"""Lowering ``for`` statements: a loop becomes a ``fold`` (catad/lang/fold.py) whose accumulator
is the loop-carried state, or is unrolled when it runs over a tuple known while compiling.

    s = 0.0                           let _st = fold (\\t. let s = get$0 t in
    for i in range(n):                                   let i = get$1 t in s + x[i])
        s = s + x[i]                            0.0 (build(n, \\k. k))
                                      in let s = _st ...

What a loop iterates over (``iteration``):

- ``range(a, b, step)``: a fold over ``build(len, \\k. a + k * step)``, len being Python's
  ``len(range(a, b, step))`` (a constant non-zero step; empty and negative ranges included);
- an array (``for x in v``, ``for row in m``): a fold over the array itself, so reverse mode
  collects each element's cotangent instead of scattering into the array;
- ``enumerate(array)``: a fold over the array with a counter in the state;
- ``zip(arrays...)``: a fold over the indices of the shortest, each array read at the index;
- a tuple (``for layer in layers``), ``zip`` or ``enumerate`` of tuples: unrolled, one copy of
  the body per item. A tuple's length is part of the signature, its items may differ in shape
  (the layers of a network) and the state may change shape from one to the next (the
  activations): a fold needs one element type and one state type, unrolling keeps each item's
  shape, and tuples are short.

The state (``state_names``) is every variable the body assigns that is read after the loop or
read in the body before the body assigns it (carried to the next iteration). Its types are found
by lowering the body and joining (an Int state that becomes a Float is a Float from the start,
as the join of an if statement's branches makes it), its shapes by induction: an array keeps the
shape it enters with when the body provably gives it back with that shape, else its lengths are
read from the value.

A loop that breaks, continues or returns is first rewritten into one that does not, with flags
in its state (``_Nest``, below): a break freezes the state for the iterations left, so the fold
still runs every iteration and an iteration after the break is the identity.

A ``while`` loop is the for loop ``for _ in <its steps>: if not cond: break; body``
(``while_as_for``): its trip count is found first by running the loop's step until the break flag
is set (a ``WhileCount``, an Int), then the loop runs as a fold over ``range(count)``. Reverse
mode so runs the reverse loop exactly as many times as the forward one ran, and checkpointing
applies as to any fold; the forward loop runs twice (once to count).

``Loops`` is a part of :class:`catad.frontend.lower.FunctionLowerer`.
"""
from __future__ import annotations

import ast
from typing import Any

from ..errors import CatadTypeError, Loc
from ..lang.fold import Fold, WhileCount
from ..lang.inline import _Renaming
from ..lang.terms import TRUE, Build, Const, Get, If, Term, Tuple, Var, free_vars, is_atom, let_chain, rename, var_names
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Type, Vec, rank
from ..primitives import prim
from .common import FALSE_, ListAndArray, and_, is_array, joined_flags, is_undecided, join_types, or_, reads_undecided, static_int
from .complexes import Complex
from . import int_range
from .freenames import NOT_STATIC
from .int_range import IntBound
from .lists import ListState
from .shapes import Dim, canonical, copyable, fresh, lin_const, simple
from .checks import Statement
from .statements import MaybeBound, Unbound, read_past
from .subscripts import DictKey
from .updates import OWNED

_FIRST_ONLY = ("variable {name!r} is assigned only inside the {kind} at line {line}, which may run zero times, "
               "so it may be undefined here; assign it before the loop")


# ---------------------------------------------------------------- what the body reads and assigns

def _targets(t: ast.expr) -> list[str]:
    """The names an assignment target binds (a, (b, c), but not the v of v[i] = ...)."""
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _targets(e)]
    if isinstance(t, ast.Starred):
        return _targets(t.value)
    return []


def _updated(t: ast.expr) -> list[str]:
    """The arrays an item assignment changes: v in v[i] = ... and v[i][j] = ..., and each one's
    of a tuple of targets (v[i], w[i] = a, b; a[j], a[j + 1] = a[j + 1], a[j])."""
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for e in t.elts for n in _updated(e)]
    if isinstance(t, ast.Starred):
        return _updated(t.value)
    if not isinstance(t, ast.Subscript):
        return []
    while isinstance(t, ast.Subscript):
        t = t.value
    return [t.id] if isinstance(t, ast.Name) else []


def assigned(stmts: list[ast.stmt]) -> list[str]:
    """Names the statements bind or update (in order of first assignment), nested blocks included
    (not those a method changes in place: mutated)."""
    out: dict[str, None] = {}
    for s in stmts:
        for node in _statements(s):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    out.update(dict.fromkeys(_targets(t) + _updated(t)))
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
                out.update(dict.fromkeys(_targets(node.target) + _updated(node.target)))
            elif isinstance(node, ast.For):
                out.update(dict.fromkeys(_targets(node.target)))
    return list(out)


def mutated(stmts: list[ast.stmt]) -> list[str]:
    """The names the statements call a method on that changes a list or an array in place
    (v.sort(), l.pop(): _MUTATORS), in order; a module's function of one of those names too
    (np.sort(x), np.append(a, v): the caller keeps the names of its values)."""
    return list(dict.fromkeys(n for s in stmts for n in _mutated(s)))


def _mutated(s: ast.stmt) -> list[str]:
    """The names s calls a method on that changes its list or array in place (_MUTATORS)."""
    return [node.func.value.id for node in ast.walk(s)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
            isinstance(node.func.value, ast.Name) and node.func.attr in _MUTATORS]


def _statements(s: ast.stmt):
    """s and the statements nested in it (not expressions)."""
    todo = [s]
    while todo:
        s = todo.pop()
        yield s
        for field in ("body", "orelse"):
            todo.extend(reversed(getattr(s, field, None) or []))


# methods that change the list or array they are called on
_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "reverse", "sort", "fill", "resize", "put",
             "itemset"}


def _writes(stmts: list[ast.stmt]) -> tuple[set[str], set[str], set[str]]:
    """Names the statements change in place (v[i] = ..., v[i] += ..., v += ..., v.sort()), bind
    anew (v = ..., for v in ...), and grow (v.append(...)), nested blocks included."""
    updated, rebound, grown = set(), set(), set()
    for s in stmts:
        for node in _statements(s):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    rebound.update(_targets(t))
                    updated.update(_updated(t))
            elif isinstance(node, ast.AugAssign):
                updated.update(_targets(node.target) + _updated(node.target))
            elif isinstance(node, ast.AnnAssign):
                rebound.update(_targets(node.target))
                updated.update(_updated(node.target))
            elif isinstance(node, ast.For):
                rebound.update(_targets(node.target))
        grown.update(_mutated(s))
    return updated, rebound, grown


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _reads(node: ast.AST) -> set[str]:
    """Names node reads (an augmented assignment reads its target); not a comprehension's or a
    lambda's own variables, which are of their own scope (`sum(c[i] for i in r)` reads no i of
    the function's), on an explicit stack (a long expression nests deeply)."""
    out: set[str] = set()
    todo = [(node, frozenset())]
    while todo:
        n, local = todo.pop()
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load) and n.id not in local:
                out.add(n.id)
            continue
        if isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id not in local:
            out.add(n.target.id)
        if isinstance(n, _COMPREHENSIONS):
            inner = local
            for k, g in enumerate(n.generators):  # (the first one's iterable is read outside)
                todo.append((g.iter, local if k == 0 else inner))
                inner = inner | set(_targets(g.target))
                todo.extend((c, inner) for c in g.ifs)
            todo.extend((e, inner) for e in ([n.key, n.value] if isinstance(n, ast.DictComp) else [n.elt]))
            continue
        if isinstance(n, ast.Lambda):
            a = n.args
            names = {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs} | {x.arg for x in (a.vararg, a.kwarg) if x}
            todo.extend((d, local) for d in a.defaults + [d for d in a.kw_defaults if d is not None])
            todo.append((n.body, local | names))
            continue
        todo.extend((c, local) for c in ast.iter_child_nodes(n))
    return out


def exposed(stmts: list[ast.stmt], defined: set[str]) -> set[str]:
    """Names read before the statements assign them (upward-exposed reads): with `defined`
    assigned on entry. A branch or nested loop defines only what every path through it does."""
    out: set[str] = set()
    defined = set(defined)
    for s in stmts:
        if isinstance(s, ast.If):
            out |= _reads(s.test) - defined
            a, b = set(defined), set(defined)
            out |= exposed(s.body, a) | exposed(s.orelse, b)
            defined |= _defined_after(s.body, defined) & _defined_after(s.orelse, defined)
        elif isinstance(s, ast.For):  # (its else runs after the last pass, or none)
            out |= _reads(s.iter) - defined
            out |= exposed(s.body, defined | set(_targets(s.target))) | exposed(s.orelse, defined)
        elif isinstance(s, ast.While):  # its test is read first, on every pass
            out |= _reads(s.test) - defined
            out |= exposed(s.body, defined) | exposed(s.orelse, defined)
        elif isinstance(s, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            value = s.value if s.value is not None else None
            if value is not None:
                out |= _reads(value) - defined
            targets = s.targets if isinstance(s, ast.Assign) else [s.target]
            for t in targets:
                # v[i] = e reads v (and i); a, b = ... reads nothing of a and b
                out |= {n for n in _reads(t) if n not in defined}
                if isinstance(s, ast.AugAssign) and isinstance(t, ast.Name) and t.id not in defined:
                    out.add(t.id)
                defined |= set(_targets(t))
        else:
            out |= _reads(s) - defined
    return out


def _defined_after(stmts: list[ast.stmt], defined: set[str]) -> set[str]:
    """What is surely assigned after the statements (a loop may run zero times: nothing)."""
    defined = set(defined)
    for s in stmts:
        if isinstance(s, ast.If):
            defined |= _defined_after(s.body, defined) & _defined_after(s.orelse, defined)
        elif isinstance(s, ast.Assign):
            for t in s.targets:
                defined |= set(_targets(t))
        elif isinstance(s, (ast.AnnAssign, ast.AugAssign)):
            defined |= set(_targets(s.target))
    return defined


def _end(node: ast.AST) -> tuple[int, int]:
    return node.end_lineno, node.end_col_offset


def read_after(fn: ast.AST, loop: ast.For) -> set[str]:
    """Names that may be read after `loop` ends: read anywhere after it in the source, or anywhere
    in a loop around it (which runs its body again). An over-approximation is safe: it only
    carries a variable in the state that nobody reads."""
    out = read_past(fn, loop)
    for node in ast.walk(fn):
        if isinstance(node, (ast.For, ast.While)) and node is not loop and _contains(node, loop):
            out |= _reads(node)
    return out


def _contains(outer: ast.AST, inner: ast.AST) -> bool:
    return (outer.lineno, outer.col_offset) <= (inner.lineno, inner.col_offset) and _end(inner) <= _end(outer)


# ---------------------------------------------------------------- break, continue and return

# A loop that breaks, continues or returns is rewritten (in its syntax tree, before it is lowered)
# into one that does none of these, with Bool flags in its state:
#
#     for x in v:                          _break = False
#         if x < 0.0:                      for _item in v:
#             break                            if not _break:
#         s = s + x                                x = _item
#                                                  if x < 0.0:
#                                                      _break = True
#                                                  if not _break:
#                                                      s = s + x
#
# - break sets the loop's flag; every later iteration leaves the whole state as it was (the fold
#   still runs its full trip count: a frozen iteration is the identity, so values and derivatives
#   are those of the loop Python ran); the loop variable is assigned from a hidden one inside the
#   guard, so after the loop it has the value it had when the loop was left;
# - continue sets a flag reset at the start of each iteration;
# - return e sets a flag shared by the loops around it and carries e in the state (every loop
#   around it stops); after the outermost one, `if _returned: return _return_value`;
# - the statements after one that may have set a flag run under `if not <flag>` (the rest of the
#   block, at every level up to the loop's body).
#
# Break and continue apply to the innermost loop; a while loop in the body stays as it is (and is
# refused when lowered).

_ORIGINAL = "catad_original"        # on a rewritten For: the user's For (read_after looks it up)
_FROZEN = "catad_frozen"            # on a rewritten For: the flags that freeze it (break, return)
_WHILE = "catad_while"              # on the iter of a while loop's For: the loop runs while not frozen
_AS_FOR = "catad_as_for"            # on a While: the For it is lowered as
_PROBE_BODY = "catad_probe_body"    # its body without the guard: the first iteration always runs it
_LIVE = "catad_live"                # hidden names read after it: the return flag and value


def _with_iter(s: ast.For, it: ast.expr) -> ast.For:
    """s running over `it` (made once: its rewritings are cached by the For)."""
    new = getattr(s, _UNREVERSED, None)
    if new is None or new.iter is not it:
        new = ast.copy_location(ast.For(target=s.target, iter=it, body=s.body, orelse=s.orelse, type_comment=None), s)
        new.end_lineno, new.end_col_offset = s.end_lineno, s.end_col_offset
        for attr in (_FROZEN, _LIVE, _PROBE_BODY, _ORIGINAL):
            if hasattr(s, attr):
                setattr(new, attr, getattr(s, attr))
        if not hasattr(s, _ORIGINAL):
            setattr(new, _ORIGINAL, s)
        setattr(s, _UNREVERSED, new)
    return new


def _has_jumps(s: ast.For) -> bool:
    """Does the loop break or continue, or return anywhere inside (nested for loops included)?"""
    def walk(stmts, own):
        for t in stmts:
            if isinstance(t, ast.Return) or own and isinstance(t, (ast.Break, ast.Continue)):
                return True
            if isinstance(t, ast.If) and (walk(t.body, own) or walk(t.orelse, own)):
                return True
            if isinstance(t, (ast.For, ast.While)) and walk(t.body, False):
                return True
        return False
    return walk(s.body, True)


def _located(node: ast.AST, at: ast.AST) -> ast.AST:
    """node and the nodes it holds that have no position yet, at `at`'s position."""
    for n in ast.walk(node):
        if "lineno" in n._attributes and not hasattr(n, "lineno"):
            n.lineno, n.col_offset = at.lineno, at.col_offset
            n.end_lineno, n.end_col_offset = at.end_lineno, at.end_col_offset
    return node


def _flag(name: str, value: bool, at: ast.AST) -> ast.stmt:
    return _located(ast.Assign(targets=[ast.Name(id=name, ctx=ast.Store())], value=ast.Constant(value=value)), at)


def _none_of(flags, at: ast.AST) -> ast.expr:
    names = [ast.Name(id=f, ctx=ast.Load()) for f in sorted(flags)]
    test = names[0] if len(names) == 1 else ast.BoolOp(op=ast.Or(), values=names)
    return _located(ast.UnaryOp(op=ast.Not(), operand=test), at)


class _Frame:
    """The flags of one loop being rewritten (named when first needed)."""

    def __init__(self, nest):
        self.nest, self.brk, self.cnt = nest, None, None

    def break_flag(self) -> str:
        self.brk = self.brk or self.nest.fresh("_break")
        return self.brk

    def continue_flag(self) -> str:
        self.cnt = self.cnt or self.nest.fresh("_continue")
        return self.cnt


class _Nest:
    """Rewrites a loop nest (the outermost loop with a jump and the loops in it)."""

    def __init__(self, lowerer):
        self.lw = lowerer
        self.ret = self.value = None   # the return flag and value, shared by the nest
        self.returns: list[ast.Return] = []

    def fresh(self, base: str) -> str:
        return self.lw.names.syntax(base)

    def loop(self, s: ast.For) -> tuple[list[ast.stmt], set[str]]:
        """The statements replacing s, and the flags of loops around it they may set (the return flag)."""
        frame = _Frame(self)
        body, jumped = self.block(s.body, frame)
        frozen = {f for f in jumped if f in (frame.brk, self.ret)}  # flags that outlive an iteration
        inner = [_flag(frame.cnt, False, s)] if frame.cnt in jumped else []
        target = s.target
        if frozen:  # the loop variable keeps the value it had when the loop was left
            item = self.fresh("_item")
            inner.append(_located(ast.Assign(targets=[s.target], value=ast.Name(id=item, ctx=ast.Load())), s.target))
            target = _located(ast.Name(id=item, ctx=ast.Store()), s.target)
        inner += body
        new = ast.For(target=target, iter=s.iter, orelse=s.orelse, type_comment=None,
                      body=[_located(ast.If(test=_none_of(frozen, s), body=inner, orelse=[]), s)] if frozen else inner)
        new = ast.copy_location(new, s)
        new.end_lineno, new.end_col_offset = s.end_lineno, s.end_col_offset
        setattr(new, _ORIGINAL, getattr(s, _ORIGINAL, s))
        setattr(new, _FROZEN, sorted(frozen))
        setattr(new, _PROBE_BODY, inner)
        setattr(new, _LIVE, getattr(s, _LIVE, set()) | ({self.ret, self.value} if self.ret in jumped else set()))
        prelude = [_flag(frame.brk, False, s)] if frame.brk in jumped else []
        return prelude + [new], jumped & {self.ret}

    def block(self, stmts: list[ast.stmt], frame: _Frame) -> tuple[list[ast.stmt], set[str]]:
        """The statements with their jumps made flags, and the flags they may set; what follows a
        statement that may set one runs only when none is set."""
        out: list[ast.stmt] = []
        for k, s in enumerate(stmts):
            if isinstance(s, ast.Break):
                out.append(_flag(frame.break_flag(), True, s))
                return out, {frame.brk}  # what follows in the block never runs
            if isinstance(s, ast.Continue):
                out.append(_flag(frame.continue_flag(), True, s))
                return out, {frame.cnt}
            if isinstance(s, ast.Return):
                if s.value is None:
                    self.lw.fail(s, "return", "a bare return is not supported; return a value")
                if self.ret is None:
                    self.ret, self.value = self.fresh("_returned"), self.fresh("_return_value")
                self.returns.append(s)
                out += [_located(ast.Assign(targets=[ast.Name(id=self.value, ctx=ast.Store())], value=s.value), s),
                        _flag(self.ret, True, s)]
                return out, {self.ret}
            if isinstance(s, ast.If):
                body, j1 = self.block(s.body, frame)
                orelse, j2 = self.block(s.orelse, frame)
                new = ast.copy_location(ast.If(test=s.test, body=body, orelse=orelse), s)
                new.end_lineno, new.end_col_offset = s.end_lineno, s.end_col_offset
                made, jumped = [new], j1 | j2
            elif isinstance(s, (ast.For, ast.While)):
                made, jumped = self.loop(s if isinstance(s, ast.For) else while_as_for(s, self.lw))
            else:
                made, jumped = [s], set()
            out += made
            if jumped:
                rest, more = self.block(stmts[k + 1:], frame)
                if rest:
                    out.append(_located(ast.If(test=_none_of(jumped, stmts[k + 1]), body=rest, orelse=[]),
                                        stmts[k + 1]))
                return out, jumped | more
        return out, set()


_NO_ELSE = "catad_no_else"          # on a loop with an else clause: the statements it is without


def without_else(s: ast.For | ast.While, lw) -> list[ast.stmt]:
    """``for ...: body`` then ``else: rest`` as ``_nobreak = True``, the loop with each of its own
    breaks clearing the flag first, then ``if _nobreak: rest``: Python runs the else clause when
    the loop ends without a break (a while loop's when its condition is false)."""
    done = getattr(s, _NO_ELSE, None)
    if done is not None:
        return done
    flag = lw.names.syntax("_nobreak")
    loop = ast.copy_location(type(s)(**{f: getattr(s, f) for f in s._fields}), s)
    # (it ends where its body does: what the else clause reads is read after it)
    loop.end_lineno, loop.end_col_offset = s.body[-1].end_lineno, s.body[-1].end_col_offset
    loop.orelse = []
    loop.body = _clearing_breaks(s.body, flag)
    setattr(loop, _LIVE, {flag})
    test = _located(ast.Name(id=flag, ctx=ast.Load()), s.orelse[0])
    after = ast.copy_location(ast.If(test=test, body=s.orelse, orelse=[]), s.orelse[0])
    after.end_lineno, after.end_col_offset = s.orelse[-1].end_lineno, s.orelse[-1].end_col_offset
    done = [_flag(flag, True, s), loop, after]
    setattr(s, _NO_ELSE, done)
    return done


def _clearing_breaks(stmts: list[ast.stmt], flag: str) -> list[ast.stmt]:
    """stmts with `flag = False` before each break of their loop (not of loops inside them)."""
    out = []
    for t in stmts:
        if isinstance(t, ast.Break):
            out += [_flag(flag, False, t), t]
        elif isinstance(t, ast.If):
            new = ast.copy_location(ast.If(test=t.test, body=_clearing_breaks(t.body, flag),
                                           orelse=_clearing_breaks(t.orelse, flag)), t)
            new.end_lineno, new.end_col_offset = t.end_lineno, t.end_col_offset
            out.append(new)
        else:  # (a with or try statement is refused where it is lowered)
            out.append(t)
    return out


def while_as_for(s: ast.While, lw) -> ast.For:
    """``while cond: body`` as ``for _w in <steps>: if not cond: break`` then body (see the module
    docstring); lw is the lowerer (its names, and fail for a while ... else)."""
    done = getattr(s, _AS_FOR, None)
    if done is not None:  # a loop in a loop is lowered several times: the same For each time
        return done
    steps = _located(ast.Name(id="range", ctx=ast.Load()), s)
    setattr(steps, _WHILE, True)
    negated = _located(ast.UnaryOp(op=ast.Not(), operand=s.test), s.test)
    negated.catad_what = "while loop"  # what a condition that is not a Bool is said to belong to
    stop = _located(ast.If(test=negated, body=[_located(ast.Break(), s.test)], orelse=[]), s.test)
    name = lw.names.syntax("_w")
    target = _located(ast.Name(id=name, ctx=ast.Store()), s)
    new = ast.copy_location(ast.For(target=target, iter=steps, body=[stop] + s.body, orelse=[],
                                    type_comment=None), s)
    new.end_lineno, new.end_col_offset = s.end_lineno, s.end_col_offset
    setattr(new, _ORIGINAL, getattr(s, _ORIGINAL, s))
    if hasattr(s, _LIVE):
        setattr(new, _LIVE, getattr(s, _LIVE))
    setattr(s, _AS_FOR, new)
    return new


# ---------------------------------------------------------------- the lowering

class _EnumerateZip:
    """enumerate(zip(a, b, ...)): zip's sequences, each element (count, (a[i], b[i], ...)); the count
    is the index itself (zip runs over range(shortest))."""
    __name__ = "enumerate"


ENUMERATE_ZIP = _EnumerateZip()


def iteration_fn(lw, it: ast.expr):
    """range, zip, enumerate, ENUMERATE_ZIP (enumerate of a zip(...) call) or None: what `for x in
    it` iterates by (identity: it may be a call of an array)."""
    if getattr(it, "catad_zip", False):
        return zip  # iterators.py's zip of a map's iterables: Python's builtin, whatever the name zip denotes
    if getattr(it, "catad_range", False):
        return range  # combinatorics.py's range of indices: Python's builtin
    fn = lw.static(it.func) if isinstance(it, ast.Call) else NOT_STATIC
    fn = next((f for f in (range, zip, enumerate) if f is fn), None)
    if fn is enumerate and it.args and isinstance(it.args[0], ast.Call) and not it.args[0].keywords \
            and lw.static(it.args[0].func) is zip:
        return ENUMERATE_ZIP
    return fn


_UNREVERSED = "catad_unreversed"      # on an iterable (or a For) with reversed(...) in it: it spelled without


def unreversed(lw, it: ast.expr) -> ast.expr:
    """`it` with each reversed(x) that it iterates over (it itself, or an argument of its zip or
    enumerate) spelled as what runs over the same elements in the same order: x[::-1] for a
    sequence (an array's rows, a list's or a tuple's items), and for range(a, b, k) of a constant
    step k, the range of its elements from the last, range(a + m * k, a - k, -k), m = (b - a - 1)
    // k (-(a - b - 1) // k for k < 0): range(n - 1, -1, -1) for range(n). `it` itself where it
    holds none."""
    fn = lw.static(it.func) if isinstance(it, ast.Call) else None  # (each compile reads the name again)
    done = getattr(it, _UNREVERSED, None)
    if done is not None and done[0] is fn:
        return done[1]
    out = it
    if isinstance(it, ast.Call):
        if fn is reversed:
            out = _reversed(lw, it)
        elif fn in (zip, enumerate) and it.args:
            args = [unreversed(lw, a) for a in it.args]
            if any(a is not b for a, b in zip(args, it.args)):
                out = ast.copy_location(ast.Call(func=it.func, args=args, keywords=it.keywords), it)
                out.end_lineno, out.end_col_offset = it.end_lineno, it.end_col_offset
    setattr(it, _UNREVERSED, (fn, out))
    return out


def _reversed(lw, it: ast.Call) -> ast.expr:
    if it.keywords or len(it.args) != 1 or isinstance(it.args[0], ast.Starred):
        lw.fail(it, "reversed", "reversed() takes exactly one positional argument", CatadTypeError)
    x = it.args[0]
    fn = iteration_fn(lw, x)
    if fn is not None and fn is not range:  # Python's TypeError
        lw.fail(it, "reversed", f"'{fn.__name__}' object is not reversible (Python raises TypeError)",
                CatadTypeError, hint="reverse its sequences instead: zip(reversed(a), reversed(b))")
    at = lambda node: _located(node, x)  # noqa: E731
    held = lw.env.get(x.id) if isinstance(x, ast.Name) else None
    if isinstance(held, Term) and getattr(lw.tree(held), "kind", None) == "dict":
        lw.fail(it, "reversed", "reversed() of a dict is not supported",
                hint="write its keys in the order wanted: for k in ('b', 'a')")
    if fn is None:
        return at(ast.Subscript(value=x, slice=ast.Slice(lower=None, upper=None, step=ast.Constant(value=-1)),
                                ctx=ast.Load()))
    if x.keywords or not 1 <= len(x.args) <= 3 or any(isinstance(a, ast.Starred) for a in x.args):
        return x  # range's own refusal
    args = list(x.args)
    start, stop = (ast.Constant(value=0), args[0]) if len(args) == 1 else (args[0], args[1])
    k = _int_literal(args[2]) if len(args) == 3 else 1
    if k is None or k == 0:
        lw.fail(args[2] if len(args) == 3 else x, "range", "the step of a range reversed must be a non-zero "
                "integer constant", hint="compute the bounds instead: reversed(range(a, b, 2)), or index with a * i")
    num = lambda v: ast.Constant(value=v) if v >= 0 else ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=-v))  # noqa: E731
    binop = lambda a, op, b: ast.BinOp(left=a, op=op, right=b)  # noqa: E731
    if k in (1, -1):  # range(b - 1, a - 1, -1); range(b + 1, a + 1, 1)
        op = ast.Sub() if k == 1 else ast.Add()
        new = [binop(stop, op, num(1)), binop(start, op, num(1)), num(-k)]
    else:
        if not _plain(start):  # (read three times)
            lw.fail(start, "range", "reversed(range(a, b, k)) of a step other than 1 or -1 needs a start made of "
                    "names, constants, len() and arithmetic", hint="bind the start to a variable first")
        span = binop(binop(stop, ast.Sub(), start), ast.Sub(), num(1)) if k > 0 else \
            binop(binop(start, ast.Sub(), stop), ast.Sub(), num(1))
        m = binop(span, ast.FloorDiv(), num(abs(k)))
        new = [binop(start, ast.Add(), binop(m, ast.Mult(), num(k))), binop(start, ast.Sub(), num(k)), num(-k)]
    return at(ast.Call(func=x.func, args=new, keywords=[]))


def _reversed_of(lw, it: ast.expr) -> bool:
    """Is `it` reversed(x) of a sequence x (not of a range)?"""
    return isinstance(it, ast.Call) and lw.static(it.func) is reversed and len(it.args) == 1 and \
        iteration_fn(lw, it.args[0]) is None


def _plain(node: ast.expr) -> bool:
    """Is node made of names, constants, attributes, subscripts, len() and arithmetic (what reads
    the same value each time it is read, and runs nothing of the user's)?"""
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _plain(node.value)
    if isinstance(node, ast.Subscript):
        return _plain(node.value) and _plain(node.slice)
    if isinstance(node, ast.BinOp):
        return _plain(node.left) and _plain(node.right)
    if isinstance(node, ast.UnaryOp):
        return _plain(node.operand)
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len" and \
        len(node.args) == 1 and not node.keywords and _plain(node.args[0])


def _int_literal(node: ast.expr) -> int | None:
    """The int an int literal (or its negation) is, else None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        k = _int_literal(node.operand)
        return None if k is None else -k
    return node.value if isinstance(node, ast.Constant) and type(node.value) is int else None


class _Source:
    """What a folded loop runs over: the vector folded (an atom bound in `outer`), how an
    element becomes the target's value (elem(x, counter)), whether it counts (enumerate), its
    length, and the value of a range's loop variable after the loop (last(n))."""

    def __init__(self, outer, vec, elem=None, counts=False, length=None, last=None, rows_of=None, steps=None,
                 bound=None):
        self.outer, self.vec, self.elem, self.counts = outer, vec, elem, counts
        self.bound = bound  # a range's loop variable's int_range.IntBound
        self.length, self.last, self.rows_of = length, last, rows_of
        self.steps = steps  # a while loop's: the Int variable its trip count is bound to, before vec


class Loops:
    """for statements to folds. Uses the lowerer's env, b (the Builder), names, src, run and
    assemble, bind, bind_temp and assign (statements.py), expr (expressions.py), static
    (freenames.py) and the marking of Python lists."""

    def for_statement(self, s: ast.For, pieces: list) -> None:
        loc = self.loc(s)
        if unreversed(self, s.iter) is not s.iter:
            indexed = self.written_while_iterated(s, None, reverse=True) if _reversed_of(self, s.iter) else None
            return self.for_statement(indexed or _with_iter(s, unreversed(self, s.iter)), pieces)
        it = s.iter
        if getattr(it, _WHILE, False):
            return self.folded(s, self.while_source(s), pieces)
        fn = iteration_fn(self, it)
        if fn is not range:
            indexed = self.written_while_iterated(s, fn)
            if indexed is not None:
                return self.for_statement(indexed, pieces)
        self.note_iterated(it)  # updates.py: the rows of an array are views of it
        if self.dict_loop(s, pieces):
            return
        if fn is range:
            steps = self.unrolled_range(s.target, it, s.body)
            if steps is not None:
                return self.unrolled(s, [Const(k, Int, self.loc(it)) for k in steps], pieces)
            src = self.range_source(it, s.target)
        else:
            seqs, start = self.iterated(it, fn)
            tuples = [isinstance(a.type, TupleT) for a in seqs]
            if seqs and all(tuples):  # (each computed once, before the loop)
                seqs = [a if is_atom(a) or isinstance(a, Tuple) else self.bind_temp(a, pieces, loc) for a in seqs]
                return self.unrolled(s, self.tuple_items(fn, seqs, self.loc(it), start), pieces)
            if any(tuples):
                self.fail(it, fn.__name__, f"{fn.__name__} of a tuple and an array is not supported in a for loop",
                          hint="make both tuples, or both arrays")
            src = self.iteration_source(it, fn, seqs, start)
        for v, t in src.outer:
            pieces.append(("let", v, t, loc))
        self.folded(s, src, pieces)

    def written_while_iterated(self, s: ast.For, fn, reverse: bool = False) -> ast.For | None:
        """The loop over indices that s is, when its body writes into a vector it iterates over
        (for e in a: ... a[k] = ...): Python's iterator reads a[k] when it gets to step k, so
        later steps see the writes, where a fold runs over the values a had before the loop.
        ``for e in a``, ``enumerate(a)`` and ``zip(a, b)`` of named vectors (or lists) become
        ``for _k in range(len(a)): e = a[_k]``; another iterable whose arrays the body writes
        into, or a body that also rebinds one (a = ..., then a is another array than the one
        iterated) or grows a list it iterates over, is refused. None when the body writes into
        nothing it iterates over. `reverse`: s runs over reversed(it) (for _k in reversed(range(len(a))))."""
        it = s.iter.args[0] if reverse else s.iter
        updated, rebound, grown = _writes(s.body)
        # (the rows of a matrix iterated over are views of it: a write into it is refused as such)
        hit = {n for n in _reads(it) & (updated | grown) if self._vector_or_list(n)}
        if not hit:
            return None
        args = [it] if fn is None else list(it.args) if fn is zip else \
            list(it.args[0].args) if fn is ENUMERATE_ZIP else list(it.args[:1])
        start = None
        if fn is enumerate or fn is ENUMERATE_ZIP:
            start = it.args[1] if len(it.args) > 1 else next((k.value for k in it.keywords if k.arg == "start"), None)
        names = [a.id for a in args if isinstance(a, ast.Name)]
        if len(names) != len(args) or not all(self._vector_or_list(n) for n in names) or hit & (rebound | grown) or \
                start is not None and _reads(start) & (rebound | updated):
            what = ", ".join(sorted(hit))
            self.fail(it, "for loop", f"the loop's body changes {what}, which the loop iterates over: Python's loop "
                      "reads each element when it gets to it, so later steps see the changes, and catad reads them "
                      "before the loop", hint="loop over the indices: for i in range(len(a)): e = a[i]")
        k = self.names.syntax("_k")
        at = lambda node: _located(node, it)  # noqa: E731
        read = lambda n: at(ast.Subscript(value=ast.Name(id=n, ctx=ast.Load()),  # noqa: E731
                                          slice=ast.Name(id=k, ctx=ast.Load()), ctx=ast.Load()))
        lengths = [at(ast.Call(func=ast.Name(id="len", ctx=ast.Load()), args=[ast.Name(id=n, ctx=ast.Load())],
                               keywords=[])) for n in names]
        n = lengths[0] if len(lengths) == 1 else at(ast.Call(func=ast.Name(id="min", ctx=ast.Load()), args=lengths,
                                                             keywords=[]))
        items = read(names[0]) if fn is None or fn is enumerate else at(ast.Tuple(elts=[read(m) for m in names],
                                                                                   ctx=ast.Load()))
        if start is not None or fn is enumerate or fn is ENUMERATE_ZIP:
            count = ast.Name(id=k, ctx=ast.Load())
            if start is not None:
                count = ast.BinOp(left=count, op=ast.Add(), right=start)
            items = at(ast.Tuple(elts=[at(count), items], ctx=ast.Load()))
        element = at(ast.Assign(targets=[s.target], value=items))
        steps = at(ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=[n], keywords=[]))
        if reverse:
            steps = at(ast.Call(func=s.iter.func, args=[steps], keywords=[]))
        new = ast.copy_location(ast.For(target=at(ast.Name(id=k, ctx=ast.Store())), iter=steps,
                                        body=[element] + s.body, orelse=[], type_comment=None), s)
        new.end_lineno, new.end_col_offset = s.end_lineno, s.end_col_offset
        for attr in (_FROZEN, _LIVE):
            if hasattr(s, attr):
                setattr(new, attr, getattr(s, attr))
        setattr(new, _ORIGINAL, getattr(s, _ORIGINAL, s))
        if hasattr(s, _PROBE_BODY):
            setattr(new, _PROBE_BODY, [element] + getattr(s, _PROBE_BODY))
        return new

    def _vector_or_list(self, name: str) -> bool:
        v = self.env.get(name)
        return isinstance(v, Term) and rank(v.type) == 1 or isinstance(v, ListState)

    def never_runs(self, s: ast.stmt) -> bool:
        """s is a for loop with a return in it over a range of int literals that is empty
        (range(2, 0)): Python runs none of its body, which is not lowered (its returns would make
        the function's result one of two kinds where it is one). (Another loop is: what it appends
        to a list gives the list's element type.)"""
        if not isinstance(s, ast.For) or s.orelse or not isinstance(s.iter, ast.Call) or s.iter.keywords:
            return False
        bounds = [_int_literal(a) for a in s.iter.args]
        if not 1 <= len(bounds) <= 3 or None in bounds or len(bounds) == 3 and bounds[2] == 0 or len(range(*bounds)):
            return False
        return iteration_fn(self, s.iter) is range and any(isinstance(n, ast.Return) for n in ast.walk(s))

    def unrolled_range(self, target: ast.expr, it: ast.Call, body: list[ast.AST]) -> range | None:
        """The values of a range loop (or comprehension) to unroll, or None to fold it: a loop whose
        body indexes a tuple or list (of items of different shapes, as a network's layers) by the
        loop variable needs each item's shape, so it runs as Python does, one copy of the body per
        value, when the range's bounds are known while compiling (range(len(layers)))."""
        if not isinstance(target, ast.Name) or it.keywords or not 1 <= len(it.args) <= 3:
            return None
        name = target.id
        if not any(isinstance(n, ast.Subscript) and name in _reads(n.slice) and self._holds_tuple(n.value)
                   for b in body for n in ast.walk(b)):
            return None
        bounds = [static_int(self.expr(a)) for a in it.args]
        if None in bounds or len(bounds) == 3 and bounds[2] == 0:
            return None
        return range(*bounds)

    def _holds_tuple(self, node: ast.expr) -> bool:
        """Is node a name (or an item of one) of a local or global tuple or list?"""
        while isinstance(node, ast.Subscript):
            node = node.value
        if not isinstance(node, ast.Name):
            return False
        v = self.env.get(node.id)
        if isinstance(v, Term):
            return isinstance(v.type, TupleT)
        if v is not None or node.id in self.src.local_names:
            return False
        obj = self.static(node)
        return isinstance(obj, (tuple, list))

    def while_as_for(self, s: ast.While) -> ast.For:
        return while_as_for(s, self)

    def without_else(self, s: ast.For | ast.While) -> list[ast.stmt]:
        return without_else(s, self)

    def loop_with_jumps(self, s: ast.For, pieces: list) -> list[ast.stmt] | None:
        """A loop that breaks, continues or returns (see _Nest): its rewriting lowered into pieces,
        and the statements to run after it (the return, when the loop returned); None for a loop
        without jumps."""
        if not _has_jumps(s):
            return None
        cache = self.__dict__.setdefault("_rewritten_loops", {})
        if s not in cache:  # a loop in a loop is lowered several times: rewrite it once
            nest = _Nest(self)
            cache[s] = (nest, nest.loop(s)[0])
        nest, stmts = cache[s]
        if nest.ret is not None:
            loc = self.loc(nest.returns[0])
            self.bind(nest.ret, Const(False, Bool, loc), pieces, loc)
            self.bind(nest.value, self._return_placeholder(nest, stmts), pieces, loc)
        for t in stmts:
            self.statement(t, pieces)
        if nest.ret is None:
            return []
        at = nest.returns[0]
        ret = ast.Return(value=_located(ast.Name(id=nest.value, ctx=ast.Load()), at))
        return [_located(ast.If(test=ast.Name(id=nest.ret, ctx=ast.Load()), body=[ast.copy_location(ret, at)],
                                orelse=[]), at)]

    def _return_placeholder(self, nest: _Nest, stmts: list[ast.stmt]) -> Term:
        """The return value's value before the loop (never returned: the flag is not set): a zero
        of the type the returns give, found by lowering the loop once without it (thrown away)."""
        loc = self.loc(nest.returns[0])
        saved_env, saved_shapes, saved_statement = dict(self.env), self.b.shapes.saved(), self.b.statement
        self.bound_types = {nest.value: []}
        try:
            self.b.statement = Statement(len(self.names.serial), self.b.branch_depth)
            self.env[nest.ret] = Const(False, Bool, loc)
            for t in stmts:
                self.statement(t, [])
            types = self.bound_types[nest.value]
        finally:
            self.env, self.b.statement, self.bound_types = saved_env, saved_statement, None
            self.b.shapes.restore(saved_shapes)
        ty = types[0] if types else None
        for other in types[1:]:
            ty = join_types(ty, other) if ty is not None else None
        zero = _zero(ty, self.b, loc) if ty is not None else None
        if zero is None:
            what = ", ".join(dict.fromkeys(str(t) for t in types)) or "nothing"
            self.fail(nest.returns[0], "return in a loop", f"the returns inside this for loop give {what}; catad "
                      "carries the returned value out of the loop and needs one type of number, array or tuple",
                      CatadTypeError, "return values of one type")
        return zero

    # ------------------------------------------------------------ what the loop runs over

    def iterated(self, it: ast.expr, fn) -> tuple[list[Term], Term | None]:
        """What a loop or comprehension runs over: the sequences of zip(...) or enumerate(...)
        (or the iterable itself, for fn None), and enumerate's start (None: 0), an atom."""
        if fn is None:
            return [self.expr(it)], None
        args = list(it.args)
        for kw in it.keywords:
            if fn is not enumerate or kw.arg != "start":
                self.fail(kw, "keyword argument", f"{fn.__name__}() takes no keyword argument {kw.arg!r} here")
            if len(args) != 1:
                self.fail(kw, "enumerate", "enumerate() got multiple values for argument 'start'", CatadTypeError)
            args.append(kw.value)
        if fn is not enumerate and fn is not ENUMERATE_ZIP:
            seqs = [self.expr(a) for a in args]
            return (self.lists_beside_arrays(seqs, it) if fn is zip else seqs), None
        if len(args) not in (1, 2):
            self.fail(it, "enumerate", "enumerate takes one tuple or array, and a start", CatadTypeError)
        seqs = self.lists_beside_arrays([self.expr(a) for a in args[0].args], it) if fn is ENUMERATE_ZIP else \
            [self.expr(args[0])]
        start = self.expr(args[1]) if len(args) == 2 else None
        if start is not None and start.type != Int:
            self.fail(args[1], "enumerate", f"enumerate's start must be an Int, got a {start.type}", CatadTypeError)
        if start is not None and not is_atom(start):
            self.fail(args[1], "enumerate", "enumerate's start must be a constant or a variable here",
                      hint="assign it to a variable before the loop")
        return seqs, start

    def lists_beside_arrays(self, seqs: list[Term], it: ast.expr) -> list[Term]:
        """The sequences zip runs over where some are arrays and the others lists or tuples (of a
        length known while compiling) of numbers or of arrays of one shape: each of these as the
        vector list of its items (a display of them, their kinds kept: a list's Python floats stay
        Python's), so that zip(ws, xs) of a list ws and an array xs runs over arrays; else seqs."""
        if not any(is_array(a) for a in seqs) or all(is_array(a) for a in seqs):
            return seqs
        out = []
        for a in seqs:
            if not is_array(a):
                tree = self.tree(a)
                if not isinstance(a.type, TupleT) or not a.type.items or tree is not None and \
                        tree.kind not in ("list", "tuple"):
                    return seqs
                a = self.list_of(self._items(a), it)
                if not is_array(a):  # (values of several types: a tuple still)
                    return seqs
            out.append(a)
        return out

    def counted(self, k: Term, start: Term | None, loc: Loc) -> Term:
        """enumerate's count k from start: one of Python's ints (int_range.py: k is below a length)."""
        if start is None or isinstance(start, Const) and start.value == 0:
            out = k
        elif isinstance(k, Const) and isinstance(start, Const):
            out = Const(k.value + start.value, Int, loc)
        else:
            out = prim("add", start, k, loc=loc)
        b = int_range.bound_of(self, start) if start is not None else None
        static = int_range.SIZE + (b.static if b is not None else 0)
        return self.as_py(self.with_int_bound(out, IntBound(static, nonneg=b is None or b.nonneg)))

    def tuple_items(self, fn, seqs: list[Term], loc: Loc, start: Term | None = None) -> list[Term]:
        """The items of a loop over a tuple, zip or enumerate of tuples."""
        cols = [self._items(a) for a in seqs]
        if fn is ENUMERATE_ZIP:
            return [Tuple((self.counted(Const(k, Int, loc), start, loc), Tuple(tuple(xs), loc)), loc)
                    for k, xs in enumerate(zip(*cols))]
        if fn is enumerate:
            return [Tuple((self.counted(Const(k, Int, loc), start, loc), x), loc) for k, x in enumerate(cols[0])]
        if fn is zip:
            return [Tuple(tuple(xs), loc) for xs in zip(*cols)]
        return cols[0]

    def _items(self, t: Term) -> list[Term]:
        if isinstance(t, Tuple):
            return [self.with_tree(x, self.item_tree(t, k)) for k, x in enumerate(t.items)]
        return [self.with_tree(Get(k, t, t.loc), self.item_tree(t, k)) for k in range(len(t.type.items))]

    # ------------------------------------------------------------ loops over a dict

    def dict_loop(self, s: ast.For, pieces: list) -> bool:
        """``for k in d`` (or d.keys()), ``for v in d.values()``, ``for k, v in d.items()`` over a
        dict known while compiling: unrolled, one copy of the body per key in the dict's order,
        with k a DictKey (it can index the dict) and v the value. False when s is not one."""
        it, method = s.iter, None
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute) and not it.args and not it.keywords \
                and it.func.attr in ("keys", "values", "items"):
            it, method = it.func.value, it.func.attr
        if not isinstance(it, (ast.Name, ast.Attribute, ast.Subscript)):
            return False
        if isinstance(it, ast.Name) and it.id not in self.env:
            return False  # a global: read below (its tree comes with it)
        d = self.expr(it)
        tree = self.tree(d)
        if tree is None or tree.kind != "dict":
            if method is not None:
                self.fail(s.iter, "method", f".{method}() is a dict's method; this is a {d.type}")
            return False
        loc = self.loc(s)
        d = self.bind_temp(d, pieces, loc)
        if method == "items" and not (isinstance(s.target, (ast.Tuple, ast.List)) and len(s.target.elts) == 2):
            self.fail(s.target, "for loop", "unpack a dict's items into two names: for k, v in d.items()")
        for k, key in enumerate(tree.keys):
            value = self.with_tree(d.items[k] if isinstance(d, Tuple) else Get(k, d, loc), tree.items[k])
            if method == "values":
                self.assign(s.target, value, pieces, loc)
            elif method == "items":
                self.env[self.dict_key_target(s.target.elts[0])] = DictKey(key)
                self.assign(s.target.elts[1], value, pieces, loc)
            else:
                self.env[self.dict_key_target(s.target)] = DictKey(key)
            more, _, _ = self.run(s.body)
            pieces.extend(more)
        return True

    def dict_key_target(self, target: ast.expr) -> str:
        if not isinstance(target, ast.Name):
            self.fail(target, "for loop", "a dict's key can only be bound to a name")
        return target.id

    def iteration_source(self, it: ast.expr, fn, seqs: list[Term], start: Term | None = None) -> _Source:
        loc = self.loc(it)
        what = fn.__name__ if fn is not None else "for"
        if not seqs or not all(is_array(a) for a in seqs):
            self.fail(it, "for loop", f"{what} in a for loop needs arrays or tuples, got "
                      f"({', '.join(str(a.type) for a in seqs)}); a for loop runs over range(...), an array, "
                      "a tuple, zip(...) or enumerate(...)", CatadTypeError,
                      "a generator or iterator of unknown length cannot be compiled: make an array or a tuple")
        outer, atoms = [], []
        for a in seqs:
            atom = a
            if not is_atom(a):
                atom = self.b.bound(self.b.var(a.type, loc), a)
                outer.append((atom, a))
            atoms.append(atom)
            if atom is not a:  # a list whose Python numbers are known by their place: the variable is too
                self.mark_rows(self.mark_py_layout(atom, self.laid_out(a)), self.rows_kind(a))
        lists = [self.items_kind(a) for a in seqs]
        if fn is zip or fn is ENUMERATE_ZIP:
            n = self.b.size(atoms[0], 0, loc)
            for a in atoms[1:]:
                n = prim("min", n, self.b.size(a, 0, loc), loc=loc)  # zip stops at the shortest
            k = self.b.var(Int, loc, "_i")
            ks = Build(n, k, k, loc)
            vec = self.b.bound(self.b.var(Vec(Int), loc), ks)
            outer.append((vec, ks))

            def elem(x, counter):
                items = Tuple(tuple(self.mark_item_at(self._mark(prim("index", x, a, loc=loc), l, a), a, x, loc)
                                    for a, l in zip(atoms, lists)), loc)
                return items if fn is zip else Tuple((self.counted(x, start, loc), items), loc)
            return _Source(outer, vec, elem, length=n)

        def row(x, counter):
            out = self._mark(x, lists[0], atoms[0])
            return out if counter is None else self.mark_item_at(out, atoms[0], counter, loc)
        n = self.b.size(atoms[0], 0, loc)
        if fn is enumerate:
            return _Source(outer, atoms[0], lambda x, c: Tuple((self.counted(c, start, loc), row(x, c)), loc),
                           counts=True, length=n, rows_of=atoms[0])
        return _Source(outer, atoms[0], row, counts=self.laid_out(atoms[0]) is not None, length=n, rows_of=atoms[0])

    def _mark(self, t: Term, is_list, seq: Term) -> Term:
        """An item t of the array seq, or of a list (is_list: "py" where every item is Python's number)."""
        if is_array(t):
            return self.list_row(t, seq) if is_list else t  # (a list's row: a list or an array, as it was made)
        if is_list == "py":
            return self.as_py(t)
        return t if is_list else self.as_numpy(t)  # a NumPy array's element: NumPy's number

    def range_source(self, it: ast.Call, target: ast.expr) -> _Source:
        loc = self.loc(it)
        if it.keywords:
            self.fail(it, "keyword argument", "range() takes no keyword arguments")
        args = [self.expr(a) for a in it.args]
        if not 1 <= len(args) <= 3 or any(a.type not in (Int, Bool) for a in args):
            self.fail(it, "range", f"range takes 1 to 3 Ints, got ({', '.join(str(a.type) for a in args)})",
                      CatadTypeError)
        if not isinstance(target, ast.Name):
            self.fail(target, "for loop", "range yields Ints: use a single name as the loop variable")
        outer: list = []
        atoms = []
        statics = [int_range.bound_of(self, a).static for a in args]
        counts_up = len(args) == 1 or int_range.bound_of(self, args[0]).nonneg  # from a start >= 0: >= 0 if step > 0
        for a in args:
            lets, body = let_chain(a)
            outer += [(lt.var, lt.rhs) for lt in lets]
            if not is_atom(body):
                v = self.b.bound(self.b.var(Int, loc), body)
                outer.append((v, body))
                body = v
            atoms.append(body)
        start, stop = (Const(0, Int), atoms[0]) if len(atoms) == 1 else (atoms[0], atoms[1])
        step = atoms[2] if len(atoms) == 3 else Const(1, Int)
        if not isinstance(step, Const) or step.value == 0:
            self.fail(it, "range", "the step of range in a for loop must be a non-zero integer constant",
                      hint="compute the bounds instead: range(a, b, 2), or index with a * i")
        k = int(step.value)
        n = self._range_length(start, stop, k, loc)
        if not is_atom(n):
            nv = self.b.bound(self.b.var(Int, loc, "_n"), n)
            outer.append((nv, n))
            n = nv
        j = self.b.var(Int, loc, "_i")
        zero = isinstance(start, Const) and start.value == 0
        offset = j if k == 1 else prim("mul", Const(k, Int), j, loc=loc)
        body = offset if zero else prim("add", start, offset, loc=loc)
        rng = Build(n, j, body, loc)
        vec = self.b.bound(self.b.var(Vec(Int), loc, "_r"), rng)
        outer.append((vec, rng))

        def last(_):  # start + (n - 1) * step
            off = prim("mul", Const(k, Int), prim("sub", n, Const(1, Int), loc=loc), loc=loc)
            return off if zero else prim("add", start, off, loc=loc)
        # the loop variable lies between start and stop (int_range.py)
        bound = IntBound(max(statics[0], statics[1]) + 1 if len(statics) > 1 else statics[0] + 1,
                         nonneg=counts_up and k > 0)
        return _Source(outer, vec, lambda x, c: x, length=n, last=last, bound=bound)

    def while_source(self, s: ast.For) -> _Source:
        """A while loop's steps: range(count), count and the range bound when the fold is made."""
        loc = self.loc(s)
        return _Source([], self.b.var(Vec(Int), loc, "_r"), lambda x, c: x, steps=self.b.var(Int, loc, "_n"))

    def _steps(self, s: ast.For, src: _Source, names: list[str], acc: Term, body: "_Lambda", pieces: list) -> None:
        """Bind a while loop's trip count and range (src.steps, src.vec): a WhileCount running the
        fold's step, renamed apart, while none of the flags that freeze the loop is set."""
        loc = self.loc(s)
        t = self.b.var(body.var.type, loc, "_s")
        state = Get(0, t, loc)
        flags = [state if len(names) == 1 else Get(names.index(f), state, loc) for f in getattr(s, _FROZEN)]
        frozen = flags[0]
        for f in flags[1:]:
            frozen = If(frozen, Const(True, Bool, loc), f, loc)
        step = self.b.var(body.var.type, loc, "_s")
        copy = _Renaming(_Fresh(self.names)).term(body.body, {body.var: step})
        count = WhileCount(acc, t, prim("not", frozen, loc=loc), step, copy, loc)
        pieces.append(("let", src.steps, count, loc))
        j = self.b.var(Int, loc, "_i")
        rng = Build(src.steps, j, j, loc)
        pieces.append(("let", self.b.bound(src.vec, rng), rng, loc))

    def _range_length(self, start: Term, stop: Term, k: int, loc: Loc) -> Term:
        """len(range(start, stop, k)) for a constant k != 0: max(0, ceil((stop - start) / k))."""
        if isinstance(start, Const) and isinstance(stop, Const):
            return Const(len(range(int(start.value), int(stop.value), k)), Int, loc)
        span = prim("sub", stop, start, loc=loc) if k > 0 else prim("sub", start, stop, loc=loc)
        if k > 0 and isinstance(start, Const) and start.value == 0:
            span = stop
        m = abs(k)
        if m != 1:
            span = prim("floordiv", prim("add", span, Const(m - 1, Int), loc=loc), Const(m, Int), loc=loc)
        return prim("max", span, Const(0, Int), loc=loc)

    # ------------------------------------------------------------ unrolled loops

    def unrolled(self, s: ast.For, items: list[Term], pieces: list) -> None:
        """One copy of the body per item, in order: the loop as Python runs it."""
        loc = self.loc(s)
        for item in items:
            self.assign(s.target, item, pieces, loc)
            more, result, _ = self.run(s.body)
            pieces.extend(more)
        if not items:
            for n in _targets(s.target) + assigned(s.body):
                if n not in self.env:
                    self.env[n] = self._unbound(n, s)

    def _complex_state(self, s: ast.For, name: str) -> None:
        self.fail(s, _kind(s), f"the loop changes the complex value {name!r} from one iteration to the next, which is "
                  "not supported (a loop's state is real)",
                  hint=f"carry its real and imaginary parts as two real variables ({name}_re, {name}_im), or compute "
                       "it outside the loop")

    def _unbound(self, name: str, s: ast.For):
        return Unbound(_FIRST_ONLY.format(name=name, line=self.loc(s).line, kind=_kind(s)))

    # ------------------------------------------------------------ folded loops

    def folded(self, s: ast.For, src: _Source, pieces: list) -> None:
        loc = self.loc(s)
        targets = _targets(s.target)
        changed = assigned(s.body)
        # and the arrays a method changes in place (a.sort()), which are state as an assigned one is
        changed += [n for n in mutated(s.body) if n not in changed and isinstance(self.env.get(n), Term)]
        for n in targets:
            if n in changed:
                self.fail(s.target, "for loop", f"the loop variable {n!r} is assigned in the loop body, which is "
                          "not supported", hint="assign to another name")
        live = read_after(self.src.node, getattr(s, _ORIGINAL, s)) | getattr(s, _LIVE, set())
        live |= self.src.nested_reads  # a def or lambda called in or after the loop reads them then
        exposed_reads = exposed(s.body, set(targets))
        n_const = lin_const(self.b.shapes.lin(src.length)) if src.length is not None else None
        runs = n_const is not None and n_const > 0
        grown = self.grown_lists(s)  # lists.py: lists the body appends to, carried as a buffer and a count
        changed = [n for n in changed if n not in grown]
        state: list[tuple[str, Term]] = []
        first_only: list[str] = []
        placeholders: set[str] = set()  # first assigned in a loop that surely runs: the body says if a list
        for n in changed:
            before = self.env.get(n)
            carried = n in live or n in exposed_reads
            if not carried:
                continue
            if isinstance(before, Complex):
                self._complex_state(s, n)
            if isinstance(before, Term):
                state.append((n, before))
            elif n in exposed_reads:
                self.fail(s, _kind(s), f"variable {n!r} is read in the loop before it is assigned",
                          hint="assign it before the loop")
            else:
                first_only.append(n)
        # first-assigned variables read after the loop: carried when the loop surely runs and they
        # are a number or an array (its first value is a placeholder the first iteration replaces: 0,
        # or an array of length 0); not a tuple or dict of values (nor a list of them), whose keys it would lose
        # A loop that may run zero times carries them too where its body assigns them on every path
        # (the probe gives their type): bound after the loop where it ran (a MaybeBound), the
        # placeholder elsewhere, which a read never gives (Python's UnboundLocalError)
        maybe: list[str] = []
        if not runs:  # (a read in a later iteration of a loop around it is refused: that loop's state)
            later = read_past(self.src.node, getattr(s, _ORIGINAL, s)) if src.length is not None else set()
            first_only = [n for n in first_only if n in later]
        if first_only:
            types = self._probe(s, src, state, first_only)
            for n in first_only:
                ty = types.get(n)
                if ty in (Float, Int, Bool) or isinstance(ty, Vec):
                    state.append((n, _zero(ty, self.b, loc)))
                    placeholders.add(n)
                    if not runs:
                        maybe.append(n)
        exact = {}
        if grown:
            more, exact = self.grown_state(s, src, grown, lambda extra: self._probe(s, src, state, [], extra), pieces)
            state += more
        carried_names = {n for n, _ in state}
        result, out_names = self._fold(s, src, state, pieces, placeholders)
        for k, n in enumerate(out_names):
            self.bind(n, result[k], pieces, loc)
        if maybe:
            ran = self.bind_temp(prim("gt", src.length, Const(0, Int, loc), loc=loc), pieces, loc)
            for n in maybe:
                self.env[n] = MaybeBound(self.env[n], ran, _FIRST_ONLY.format(name=n, line=loc.line, kind=_kind(s)) +
                                         " (catad checks it only where it is read directly)")
        if grown:
            self.grown_after(s, grown, exact, pieces)
        for n in changed:
            if n not in carried_names and n not in targets:
                # assigned in the loop and not carried: unbound after a loop that may not run, an
                # array first made in the loop, or (read_after says) never read again
                if n in first_only:
                    self.env[n] = _FirstInLoop(n, self.loc(s).line, _kind(s)) if runs else self._unbound(n, s)
                else:
                    self.env[n] = self._unbound(n, s) if not isinstance(self.env.get(n), Term) else \
                        _Stale(n, self.loc(s).line, _kind(s))
        self.after_loop_target(s, src, runs, pieces)

    def after_loop_target(self, s: ast.For, src: _Source, runs: bool, pieces: list) -> None:
        """The loop variable after the loop keeps its last value (Python): known for a range
        (start + (n - 1) * step, or what it was before when the range is empty); after a loop
        over an array that may be empty it is refused when read."""
        loc = self.loc(s)
        targets = _targets(s.target)
        if src.last is not None and len(targets) == 1:
            n = targets[0]
            # one of Python's ints, as in the body (i * 0.0 is Python's 0.0: ** -1 raises); a Const
            # folded from the range is made again, as marks go by identity
            last = src.last(None)
            last = self.as_py(self.with_int_bound(last.replace() if is_atom(last) else last, src.bound))
            before = self.env.get(n)
            if runs:
                self.bind(n, last, pieces, loc)
                return
            if isinstance(before, Term) and before.type == Int:
                ran = prim("gt", src.length, Const(0, Int), loc=loc)
                self.bind(n, self.mark_chosen(If(ran, last, before, loc), ran, last, before), pieces, loc)
                return
            if n in self.env:  # bound before (a Float, a list, on some paths only): its kind is not joined
                self.env[n] = Unbound(f"the loop variable {n!r} of the for loop at line {loc.line} is what it was "
                                      "before the loop when the range is empty, which catad joins only for an int; "
                                      "assign it an int before the loop, or a new name after it")
                return
            ran = self.bind_temp(prim("gt", src.length, Const(0, Int, loc), loc=loc), pieces, loc)
            self.bind(n, self.keep_marks(last, If(ran, last, self.placeholder(last, loc), loc)), pieces, loc)
            self.env[n] = MaybeBound(self.env[n], ran, f"the loop variable {n!r} of the for loop at line {loc.line} "
                                     "is undefined after the loop where the range is empty, which catad checks only "
                                     "where it is read directly; assign it before the loop")
            return
        if self._last_item_after(s, src, targets, runs, pieces):
            return
        for n in targets:
            self.env[n] = _LoopVar(n, self.loc(s).line)

    def _last_item_after(self, s: ast.For, src: _Source, targets: list[str], runs: bool, pieces: list) -> bool:
        """The loop variables of `for e in v`, `for i, e in enumerate(v)` or `for a, b in zip(v, w)`
        after the loop: the last item (its count, its elements) where the loop ran; where it ran no
        iteration they are unbound, and reading one raises Python's UnboundLocalError (a MaybeBound).
        Not where one was bound before the loop (Python keeps that value: its kind is not joined
        here), nor a row of a matrix after a loop that may run no iteration."""
        if src.elem is None or src.length is None or not isinstance(src.vec.type, Vec):
            return False
        loc = self.loc(s)
        if not runs and any(isinstance(self.env.get(n), Term) for n in targets):
            return False
        k = self.bind_temp(prim("sub", src.length, Const(1, Int, loc), loc=loc), pieces, loc)
        last = src.elem(prim("index", k, src.vec, loc=loc), k)
        if runs:
            self.assign(s.target, last, pieces, loc)
            return True
        if not _numbers(last):
            return False
        ran = self.bind_temp(prim("gt", src.length, Const(0, Int, loc), loc=loc), pieces, loc)

        def guarded(t):  # (a tuple item by item: each keeps its own kind)
            if isinstance(t, Tuple):
                return Tuple(tuple(guarded(x) for x in t.items), t.loc)
            return self.keep_marks(t, If(ran, t, self.placeholder(t, loc), loc))
        self.assign(s.target, guarded(last), pieces, loc)
        for n in targets:
            self.env[n] = MaybeBound(self.env[n], ran, f"the loop variable {n!r} of the for loop at line {loc.line} "
                                     "is undefined after the loop where it ran no iteration, which catad checks only "
                                     "where it is read directly; assign it before the loop")
        return True

    def _probe(self, s, src, state, extra, overrides: dict | None = None) -> dict[str, Type]:
        """The types the body gives variables first assigned in it (a lowering thrown away), with
        env's entries `overrides` (lists.py's recorders) while it runs. A loop with jumps is probed
        without its guard (_PROBE_BODY): its first iteration always runs it."""
        saved_env, saved = dict(self.env), self.b.shapes.saved()
        self.env.update(overrides or {})
        if src.counts:  # enumerate's count, as _fold carries it
            state = state + [("\0count", Const(0, Int, self.loc(s)))]
        try:
            _, _, env = self._body(s, src, [(n, init.type) for n, init in state],
                                   [self._shape_of(init) for _, init in state], probe=True,
                                   trees=[self._tree_of(init) for _, init in state])
        finally:
            self.env = saved_env
            self.b.shapes.restore(saved)
        return {n: env[n].type for n in extra if isinstance(env.get(n), Term)}

    def _fold(self, s: ast.For, src: _Source, state: list[tuple[str, Term]], pieces: list,
              placeholders: set[str] = frozenset()):
        """Lower the body until the state's types and shapes are a fixed point, then make the fold."""
        loc = self.loc(s)
        if src.counts:
            counter = "\0count"
            state = state + [(counter, Const(0, Int, loc))]
        # A number that is one of Python's own before the loop (or where a condition holds) and
        # that the body makes NumPy's (s = 0.0, then s = s + x[i]) is Python's in the first
        # iteration, and after it where that may not have happened: a Bool state (a flag) says
        # where, read by the body's checks (1.0 / s raises in the first iteration) and after the
        # loop. Where the body reads no flag, it is left out, and after the loop the number is
        # Python's where the loop ran no iteration or where a condition that reads nothing the
        # loop changes holds (an inner loop of no iteration): so sum loops stay vectorised.
        flags: dict[str, tuple[str, Any]] = {}
        after: dict[str, Term] = {}  # a flag left out: where the number stays Python's, or FALSE_
        # A number that is NumPy's before the loop and that the body makes Python's (s = x of a
        # Python float) is NumPy's in the first iteration only: it carries a flag too.
        st = self._settle(s, src, state, flags, placeholders)
        changed = self._kind_changes(st, flags)
        while changed:  # (a flag may make another state Python's: t = s; s = x)
            for n in changed:
                flags[n] = (_FLAG + n, self._python_type(st, n))
            probe = st = self._settle(s, src, state, flags, placeholders)
            changed = self._kind_changes(st, flags)
        if flags:
            for n in list(flags):
                if probe.init_whens[probe.names.index(n)] is None:
                    continue  # NumPy's before the loop: the flag is needed after it
                stays = self._flag_unneeded(probe, n, flags[n][0], src)
                if stays is not None:
                    after[n] = stays
                    del flags[n]
            if after:  # (every flag left out, as for a sum loop: a settling without them)
                st = self._settle(s, src, state, flags, placeholders)
        state, types, shapes, pys, bounds, init_whens = st.state, st.types, st.shapes, st.pys, st.bounds, st.init_whens
        body, body_env = st.body, st.body_env
        # an array the body lets something refer to is not owned after the loop (updates.py)
        self.env[OWNED] = self.owned() & (body_env.get(OWNED) or frozenset())
        inits = [self.b.coerce(init, ty, loc) for (_, init), ty in zip(state, types)]
        inits = [self.bind_temp(t, pieces, loc) for t in inits]
        if not inits:  # nothing carried: the loop still runs, for the checks in its body
            fold = Fold(Const(0, Int, loc), src.vec, body.var, body.body, loc)
            pieces.append(("let", self.b.var(Int, loc), fold, loc))
            return [], []
        acc = inits[0] if len(inits) == 1 else Tuple(tuple(inits), loc)
        if src.steps is not None:
            acc = self.bind_temp(acc, pieces, loc)
            self._steps(s, src, [n for n, _ in state], acc, body, pieces)
        fold = Fold(acc, src.vec, body.var, body.body, loc)
        if len(state) == 1:
            result_atom = self.bind_temp(fold, pieces, loc)
            results = [result_atom]
        else:
            result_atom = self.bind_temp(fold, pieces, loc)
            results = [Get(k, result_atom, loc) for k in range(len(state))]
        names = [n for n, _ in state]
        for n, (flag, python_type) in flags.items():
            k = names.index(n)
            results[k] = self.as_py_when(results[k], results[names.index(flag)], python_type)
        for n, stays in after.items():
            # Python's where the loop ran no iteration (a sum by a loop, then divided by the
            # length), or where `stays` holds
            k = names.index(n)
            when, python_type, known = init_whens[k]
            empty = prim("eq", src.length, Const(0, Int, loc), loc=loc)
            init = state[k][1]
            known = (init if isinstance(init, Const) else known) if stays is FALSE_ else None
            cond = empty if stays is FALSE_ else or_(empty, stays)
            results[k] = self.as_py_when(results[k], cond if when is TRUE else and_(when, cond), python_type, known)
        for k, (_, init) in enumerate(state):  # an array of no axes before the loop or after its body may be one
            if self.is_zero_d(init) or self.is_zero_d(st.outs[k]) or names[k] in self.zero_d_names:
                self.as_zero_d(results[k])
        for k, py in enumerate(pys):
            if py is TRUE:
                results[k] = self.as_py(results[k])
            elif py is not None:  # (its value may change)
                results[k] = self.as_py_when(results[k], py, init_whens[k][1] if init_whens[k] else types[k])
            if bounds[k].big:
                self.with_int_bound(results[k], int_range.BIG)
        for k, (n, sh) in enumerate(zip(names, shapes)):
            if sh is not None and isinstance(types[k], Vec) and isinstance(results[k], Var):
                self.b.shapes.dims[results[k].name] = _filled(sh, results[k])
        keep = [(n, r) for n, r in zip(names, results) if n != "\0count" and not n.startswith(_FLAG)]
        out_results = [r for _, r in keep]
        out_names = [n for n, _ in keep]
        for k, n in enumerate(out_names):  # shapes the body keeps hold after the loop too
            sh = shapes[names.index(n)]
            r = out_results[k]
            if sh is not None and isinstance(r.type, Vec) and not is_atom(r):
                v = self.b.bound(self.b.var(r.type, loc), r)
                pieces.append(("let", v, r, loc))
                self.b.shapes.dims[v.name] = _filled(sh, v)
                out_results[k] = v
            j = names.index(n)
            if st.trees[j] is not None:
                self.with_tree(out_results[k], st.trees[j])
            if st.lists[j] is not None:
                self._as_list_of(out_results[k], st.lists[j])
            if isinstance(st.tuples[j], tuple):
                out_results[k] = self.flagged(out_results[k], st.tuples[j], loc)
        return out_results, out_names

    def _kind_changes(self, st: "_Settled", flags: dict) -> list[str]:
        """The states without a flag whose kind the body changes: Python's before the loop (or
        where a condition holds) and not after the body, or NumPy's before it and Python's
        (somewhere) after it."""
        def changes(n, w, py, out):
            if n.startswith("\0") or n in flags or py is not None and is_undecided(py):
                return False  # (a state whose kind is undecided stays so: FunctionLowerer.undecided)
            return py is None if w is not None else self.py_when(out) is not None
        return [n for n, w, py, out in zip(st.names, st.init_whens, st.pys, st.outs) if changes(n, w, py, out)]

    def _undecided_state(self, s: ast.For, n: str, when: Term) -> Term:
        """when, the Bool of where state n is Python's before the loop, or after its body; one
        undecided mark for the state of this loop where when reads one (where the state's kind is
        undecided somewhere, it is in every iteration and after the loop)."""
        if not reads_undecided(when):
            return when
        key = (id(s), n)
        if key not in self.undecided_states:
            self.undecided_states[key] = self.undecided(self.loc(s))
        return self.undecided_states[key]

    def _py_after(self, s: ast.For, n: str, py: Term | None, out: Term) -> Term | None:
        """State n's Bool of where it is Python's for the next settling: py where the body keeps
        it (None: NumPy's); where either is undecided, the state's undecided mark (undecided
        before the loop, it stays so after a body that makes it NumPy's: where the loop runs no
        iteration, it is what it was)."""
        when = self.where_py(out)
        if reads_undecided(when) or py is not None and is_undecided(py):
            return self._undecided_state(s, n, when if reads_undecided(when) else py)
        return py if py is not None and when is py else None

    def _python_type(self, st: "_Settled", n: str):
        """The Python type of state n where it is Python's: before the loop, else after the body."""
        k = st.names.index(n)
        got = st.init_whens[k] or self.py_when(st.outs[k])
        return got[1]

    def _settle(self, s: ast.For, src: _Source, state: list[tuple[str, Term]], flags: dict,
                placeholders: set[str] = frozenset()) -> "_Settled":
        """Lower the body, with the flags' Bool states, until the state's types, shapes, kinds
        and Int bounds are a fixed point."""
        state = state + [(flag, self.where_py(dict(state)[n])) for n, (flag, _) in flags.items()]
        names = [n for n, _ in state]
        types = [init.type for _, init in state]
        shapes = [self._shape_of(init) for _, init in state]
        # a state that is one of Python's own numbers before the loop (or where a condition
        # holds) and after its body is one throughout (expressions.py: Python's arithmetic
        # raises where NumPy's gives inf); pys: that Bool, or None
        init_whens = [None if n.startswith(_FLAG) else self.py_when(init) for n, init in state]
        pys = [None if w is None or n in flags else self._undecided_state(s, n, w[0]) for n, w in zip(names, init_whens)]
        # an Int state a product updates may leave int64: its products are checked (int_range.py)
        bounds = [int_range.state_bound(n, int_range.bound_of(self, init).big) for n, init in state]
        # a list stays a list (+ joins, * repeats); its items stay Python's numbers where they are
        # before the loop and after its body
        lists = [_ANY if n in placeholders else self.py_items_of(init) or () if self.is_list(init) else None
                 for n, init in state]
        # a tuple's items stay lists and Python's numbers where they are before the loop and after
        # its body (python_flags; undecided where only one says so)
        tuples = [self.python_flags(init) if isinstance(init.type, TupleT) and n not in placeholders else False
                  for n, init in state]
        # a dict (or a list of values of different types) keeps its keys: the body's must be the same
        trees = [None if n in placeholders else self._tree_of(init) for n, init in state]
        for _ in range(6):
            saved_env, saved = dict(self.env), self.b.shapes.saved()
            try:
                body, outs, body_env = self._body(s, src, list(zip(names, types)), shapes,
                                                  pys=[(p, w and w[1]) for p, w in zip(pys, init_whens)],
                                                  bounds=bounds, flags=flags, lists=lists, tuples=tuples,
                                                  trees=trees)
            finally:
                self.env = saved_env
                self.b.shapes.restore(saved)
            # (names multiplied anywhere so far: an inner loop's product of an outer loop's state counts)
            new_bounds = [int_range.state_bound(n, b.big or n in self.multiplied) for n, b in zip(names, bounds)]
            new_pys = [self._py_after(s, n, py, out) for n, py, out in zip(names, pys, outs)]
            new_lists = [self._list_kind(s, n, items, out) for n, items, out in zip(names, lists, outs)]
            new_tuples = [self._tuple_kind(s, n, f, out) for n, f, out in zip(names, tuples, outs)]
            for n, tree, out in zip(names, trees, outs):
                if tree != self._tree_of(out):
                    self.fail(s, _kind(s), f"variable {_shown(n)!r} is {_described(tree)} before the loop and "
                              f"{_described(self._tree_of(out))} after its body; give it one structure", CatadTypeError,
                              hint="give a dict all its keys before the loop")
            new_types, new_shapes = [], []
            for n, ty, sh, out in zip(names, types, shapes, outs):
                joined = join_types(ty, out.type)
                if joined is None:
                    self.fail(s, _kind(s), f"variable {_shown(n)!r} is a {ty} before the loop and a {out.type} "
                              "after its body; give it one type", CatadTypeError)
                new_types.append(joined)
                new_shapes.append(self._kept(sh, out) if joined == ty else None)
            if new_types == types and [_pattern(a) for a in new_shapes] == [_pattern(b) for b in shapes] and \
                    all(a is b for a, b in zip(new_pys, pys)) and new_bounds == bounds and new_lists == lists \
                    and new_tuples == tuples:
                return _Settled(state, names, types, shapes, pys, bounds, init_whens, body, outs, body_env, lists,
                                tuples, trees)
            types, shapes, pys, bounds, lists, tuples = new_types, new_shapes, new_pys, new_bounds, new_lists, new_tuples
        self.fail(s, _kind(s), "the types of the loop's variables do not settle")

    def _tree_of(self, t: Term):
        """The tree of a state (a dict's, a list of values of different types'), or None."""
        return self.tree(t) if isinstance(t.type, TupleT) else None

    def _tuple_kind(self, s: ast.For, n: str, flags, out: Term):
        """python_flags of a tuple state after the body gives it back as out, joined with before."""
        if flags is False and not isinstance(out.type, TupleT):
            return False
        try:
            return joined_flags(flags, self.python_flags(out) if isinstance(out.type, TupleT) else False)
        except ListAndArray:
            self.fail(s, _kind(s), f"an item of {_shown(n)!r} is a list before the loop and an array after its "
                      "body (or the other way round): catad holds both as arrays, but Python's + joins a list",
                      hint="make it np.array(...) before the loop, or a list throughout")

    def _list_kind(self, s: ast.For, n: str, items, out: Term):
        """What a state that is a list (items: py_items_of it, or () where it holds none of Python's
        numbers) or not (None) is after the body gives it back as out: a list before the loop and
        not after its body, or the other way round, is refused (which it is after the loop
        depends on whether the loop runs); a list keeps its marking where out's is the same."""
        if items is _ANY:  # a placeholder's (a loop that surely runs assigns it first): the body's
            return (self.py_items_of(out) or ()) if self.is_list(out) else None
        if (items is not None) != self.is_list(out):
            was, now = ("a list", "an array") if items is not None else ("an array", "a list")
            self.fail(s, _kind(s), f"variable {_shown(n)!r} is {was} before the loop and {now} after its body, "
                      "so which it is after the loop depends on whether the loop runs (a list's + joins, an "
                      "array's adds)", CatadTypeError, "make it one before the loop: np.array(...) or list(...)")
        if items is None:
            return None
        return items if (self.py_items_of(out) or ()) == items else ()

    def _as_list_of(self, t: Term, items: tuple) -> Term:
        """t marked a list, holding Python's numbers as `items` says (see _list_kind)."""
        if items:
            self.mark_py_items(t, *items)
        return self.as_list(t)

    def _flag_unneeded(self, st: "_Settled", n: str, flag: str, src: _Source) -> Term | None:
        """Where the body reads n's flag only to make it again: FALSE_ if n is NumPy's after any
        iteration, the condition that keeps it Python's where that reads nothing the loop
        changes; None where the flag is needed (its checks read it, or it depends on the data)."""
        f, k = st.body_env.get(flag), st.names.index(flag)
        lets, result = let_chain(st.body.body)
        if not isinstance(f, Var) or src.length is None or src.steps is not None or not isinstance(result, Tuple):
            return None
        if f.name in var_names(*[b.rhs for b in lets], *[v for j, v in enumerate(result.items) if j != k]):
            return None
        out = st.outs[k]
        if out == FALSE_:
            return FALSE_
        if not (isinstance(out, If) and out.orelse == FALSE_ and f in (out.cond, out.then)):
            return None
        return _outside(out.then if out.cond == f else out.cond, st.body)

    def _shape_of(self, t: Term):
        """A state's initial shape, per axis its Dim or None (a size that binds: not copied)."""
        if isinstance(t.type, Vec) and is_atom(t):
            dims = tuple(d if simple(d.size) else None for d in self.b.shape(t))
            return dims if any(d is not None for d in dims) else None
        return None

    def _kept(self, dims, out: Term):
        """The axes of a state array the body gives back with the length they entered with: per
        axis its Dim, or None for one that changes (a vector shortened each iteration keeps its
        rows' length); None when no axis is kept."""
        if dims is None:
            return None
        got = self.b.shapes.infer(out) if is_array(out) else None
        if got is None or len(got) != len(dims):
            return None
        kept = tuple(d if d is not None and g is not None and self.b.shapes.same(g, d) and g.one == d.one else None
                     for g, d in zip(got, dims))
        return kept if any(d is not None for d in kept) else None

    def _body(self, s: ast.For, src: _Source, state, shapes, probe: bool = False, pys=None, bounds=None,
              flags=None, lists=None, tuples=None, trees=None):
        """The fold's lambda (as a Fold-less pair: var, body), the state's values after one
        iteration, and env after it. state: (name, type) pairs (or (name, init) for a probe);
        flags: a state's name -> (the name of the Bool state that says where it is one of Python's
        numbers, its Python type there)."""
        loc = self.loc(s)
        types = [ty for _, ty in state]
        acc_ty = types[0] if len(types) == 1 else TupleT(tuple(types)) if types else Int
        elem_ty = src.vec.type.elem
        t = self.b.var(TupleT((acc_ty, elem_ty)), loc)
        pieces: list = []
        acc = Get(0, t, loc)
        if len(types) > 1:
            acc = self.b.bound(self.b.var(acc_ty, loc), acc)
            pieces.append(("let", acc, Get(0, t, loc), loc))
        counter = None
        for k, ((n, ty), sh) in enumerate(zip(state, shapes or [None] * len(state))):
            value = acc if len(types) == 1 else Get(k, acc, loc)
            v = Var(self.names.user(n.strip("\0") or "_c"), ty, loc)
            if sh is not None:
                self.b.shapes.dims[v.name] = _filled(sh, v)
            elif isinstance(ty, Vec):
                self.b.shapes.param(v, None)
            pieces.append(("let", v, value, loc))
            if pys is not None and pys[k][0] is TRUE:
                self.as_py(v)
            elif pys is not None and pys[k][0] is not None:
                self.as_py_when(v, *pys[k])
            if bounds is not None and ty == Int:
                self.with_int_bound(v, bounds[k])
            if lists is not None and lists[k] is not None and lists[k] is not _ANY:
                self._as_list_of(v, lists[k])
            if n in self.zero_d_names:  # an array of no axes before the loop or after an iteration
                self.as_zero_d(v)
            if trees is not None and trees[k] is not None:
                self.with_tree(v, trees[k])
            if n == "\0count":
                counter = v
            else:
                self.env[n] = v
                if tuples is not None and isinstance(tuples[k], tuple):  # (the display of its items, marked)
                    self.env[n] = self.flagged(v, tuples[k], loc)
        for n, (flag, python_type) in (flags or {}).items():
            self.as_py_when(self.env[n], self.env[flag], python_type)
        x = self.b.bound(self.b.var(elem_ty, loc, "_x"), Get(1, t, loc))
        pieces.append(("let", x, Get(1, t, loc), loc))
        if src.rows_of is not None and isinstance(elem_ty, Vec):
            self.b.shapes.dims[x.name] = self.b.shape(src.rows_of)[1:]
        elem = src.elem(x, counter)
        if src.bound is not None:  # a range's variable: one of Python's ints
            elem = self.as_py(self.with_int_bound(elem, src.bound))
        self.assign(s.target, elem, pieces, loc)
        more, result, _ = self.run(getattr(s, _PROBE_BODY, s.body) if probe else s.body)
        pieces += more
        outs = []
        flagged = {flag: n for n, (flag, _) in (flags or {}).items()}
        for n, ty in state:
            if n == "\0count":
                outs.append(prim("add", counter, Const(1, Int), loc=loc))
                continue
            if n in flagged:
                outs.append(fresh(self.where_py(self.env.get(flagged[n])), loc))  # (its own nodes)
                continue
            out = self.env.get(n)
            if isinstance(out, Complex):
                self._complex_state(s, n)
            if not isinstance(out, Term):
                self.fail(s, _kind(s), out.message if hasattr(out, "message") else f"{n!r} is not defined")
            outs.append(out)
        if probe:
            return None, outs, dict(self.env)
        values = [self.b.coerce(o, ty, loc) for o, ty in zip(outs, types)]
        if not values:
            values = [Const(0, Int, loc)]
        result = values[0] if len(values) == 1 else Tuple(tuple(values), loc)
        return _Lambda(t, self.assemble(pieces, result, None)), outs, dict(self.env)


_FLAG = "\0python "  # the name of the Bool state of a loop's number that may still be Python's
_ANY = "any"  # (_settle's lists) a placeholder's kind: the body's


def _outside(cond: Term, body: "_Lambda") -> Term | None:
    """cond as read before the loop (the body's own lets it reads put in: the length of an inner
    loop's range), or None where it reads what the loop changes."""
    lets, _ = let_chain(body.body)
    defs = {b.var: b.rhs for b in lets}
    inner = var_names(body.body) - {v.name for v in free_vars(body.body)} | {body.var.name}
    for _ in range(len(defs) + 1):
        bound = [v for v in free_vars(cond) if v.name in inner]
        if not bound:
            return cond if copyable(cond) else None  # (read again by each check: no binders)
        if any(v not in defs for v in bound):
            return None
        cond = rename(cond, {v: defs[v] for v in bound})
    return None


def _pattern(dims) -> tuple | None:
    """Which axes of a state's shape are known (for the fixed point of _fold)."""
    return None if dims is None else tuple(d is not None for d in dims)


def _filled(dims: tuple, v: Var) -> tuple:
    """A state's shape for the variable v: the kept axes' Dims, v's own lengths for the others."""
    return tuple(d if d is not None else Dim(canonical(v, k), None) for k, d in enumerate(dims))


def _zero(ty: Type, b, loc: Loc) -> Term | None:
    """A value of type ty (zeros; arrays of length 0), or None for a type without one."""
    if ty in (Float, Int, Bool):
        return Const({Float: 0.0, Int: 0, Bool: False}[ty], ty, loc)
    if isinstance(ty, Vec):
        elem = _zero(ty.elem, b, loc)
        return None if elem is None else Build(Const(0, Int, loc), b.var(Int, loc, "_i"), elem, loc)
    if isinstance(ty, TupleT):
        items = [_zero(t, b, loc) for t in ty.items]
        return None if any(i is None for i in items) else Tuple(tuple(items), loc)
    return None


class _Fresh:
    """catad.lang.names.FreshNames' interface (rename, taken) over the front end's Names."""

    def __init__(self, names):
        self.names, self.taken = names, names.taken

    def rename(self, v: Var) -> Var:
        return Var(self.names.temp(v.name.rstrip("0123456789_") or "_v"), v.type, v.loc)


def _described(tree) -> str:
    """What a state's tree says it is, for a message."""
    if tree is None:
        return "a value without keys"
    if tree.kind == "dict":
        return f"a dict of keys {', '.join(map(repr, tree.keys))}"
    return f"a {tree.kind}"


class _Settled:
    """A loop's state after _settle: its (name, init) pairs, names, types, shapes, kinds, Int
    bounds and initial kinds, the body's lambda, its outputs and env, and which states are lists
    (with the marking of their Python numbers, as py_items_of gives it)."""
    def __init__(self, state, names, types, shapes, pys, bounds, init_whens, body, outs, body_env, lists, tuples,
                 trees):
        self.state, self.names, self.types, self.shapes, self.pys = state, names, types, shapes, pys
        self.bounds, self.init_whens, self.body, self.outs, self.body_env = bounds, init_whens, body, outs, body_env
        self.lists, self.tuples = lists, tuples  # (tuples: python_flags of each tuple state, else False)
        self.trees = trees  # (the tree of each state that has one: a dict's keys, else None)


class _Lambda:
    def __init__(self, var: Var, body: Term):
        self.var, self.body = var, body


def _numbers(t: Term) -> bool:
    """t is a number, or a tuple display of numbers (an item of zip or enumerate)."""
    if isinstance(t, Tuple):
        return all(_numbers(x) for x in t.items)
    return not isinstance(t.type, (Vec, TupleT))


def _kind(s: ast.For) -> str:
    """What the user wrote: a for loop, or a while loop lowered as one."""
    return "while loop" if isinstance(getattr(s, _ORIGINAL, s), ast.While) else "for loop"


def _shown(n: str) -> str:
    return "the loop's counter" if n == "\0count" else n


class _FirstInLoop(Unbound):
    def __init__(self, name: str, line: int, kind: str = "for loop"):
        super().__init__(f"variable {name!r} is first assigned inside the {kind} at line {line} and is not a "
                         "number or an array, so catad does not carry it out of the loop; assign it before the loop")


class _Stale(Unbound):
    """A variable the loop assigns whose value after the loop was not carried (it is never read
    there, as far as the front end can tell): reading it is catad's own mistake, not a value."""

    def __init__(self, name: str, line: int, kind: str = "for loop"):
        self.message = (f"variable {name!r} changed in the {kind} at line {line} is read after it, which catad "
                        "did not foresee; assign it to another variable after the loop")


class _LoopVar(Unbound):
    def __init__(self, name: str, line: int):
        self.message = (f"the loop variable {name!r} of the for loop at line {line} is read after the loop, "
                        "which is supported after a loop over a range, the numbers of an array or list, zip or "
                        "enumerate of them (not after a loop over rows that may run no iteration, nor where it "
                        "was bound before such a loop); keep the value you need in a variable assigned in the "
                        "loop (assigned before the loop too)")
