"""itertools.combinations and itertools.product where their items are taken as they are made: as
the for clauses (or nested for loops) over indices they stand for, in Python's order.

    combinations(range(a, b), 2)   for i in range(a, b) for j in range(i + 1, b): x, y = i, j
    combinations(xs, 2)            the same over range(len(xs)): x, y = xs[i], xs[j]
    product(A, B)                  for i in range(len(A)) for j in range(len(B)): x, y = A[i], B[j]

In a generator expression given to sum, max or min (whose several for clauses catad nests), and
as what a for loop runs over (the loops nested; a break, which would leave only the inner one,
and an else clause are refused). A combinations or product object anywhere else is refused as
before (catad has no iterators). As Python reads the iterables (a range's bounds) once, when the
call runs, they are bound to fresh names first, and the loops' own variables are fresh: the
targets are bound in the body, so that after the loop they hold the last item, or what they held
before where there was none.
"""
from __future__ import annotations

import ast
import itertools

from ..errors import CatadTypeError
from .iterators import _at, called

FUNCTIONS = (itertools.combinations, itertools.product)
_NAMES = {"combinations", "product"}


def itertools_call(lw, node) -> object | None:
    """itertools.combinations or itertools.product where node calls it, else None."""
    return called(lw, node, _NAMES, FUNCTIONS)


def _targets(lw, target: ast.expr, n: int, what: str) -> list[ast.expr]:
    if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != n:
        lw.fail(target, what, f"unpack {what}'s items into {n} names here (x, y)",
                hint=f"for x, y in itertools.{what}(...)")
    return list(target.elts)


def _name(lw, at: ast.AST, ctx=ast.Load) -> ast.Name:
    return _at(ast.Name(id=lw.names.syntax("_c"), ctx=ctx()), at)


def _load(name: ast.Name, at: ast.AST) -> ast.Name:
    return _at(ast.Name(id=name.id, ctx=ast.Load()), at)


def _range(lo, hi, at: ast.AST) -> ast.Call:
    call = _at(ast.Call(func=_at(ast.Name(id="range", ctx=ast.Load()), at), args=[hi] if lo is None else [lo, hi],
                        keywords=[]), at)
    call.catad_range = True  # (range is Python's builtin here, whatever the name denotes)
    return call


def clauses(lw, target: ast.expr, node: ast.Call, fn) -> tuple[list, list, ast.expr]:
    """(the values Python reads once when fn's call runs, as (fresh name, expression) pairs; the
    for clauses (fresh index, range) over their indices, outermost first, in Python's order; the
    tuple of the item at those indices, which target is then bound to)."""
    what = fn.__name__
    once: list[tuple[ast.Name, ast.expr]] = []

    def kept(e: ast.expr) -> ast.Name:  # e read once, when the call runs (Python's iterables are)
        n = _name(lw, e, ast.Store)
        once.append((n, e))
        return n

    def sequence(e: ast.expr):
        """(bounds, or None; the name holding the sequence, or None) of an iterable."""
        bounds = _range_bounds(lw, e) if isinstance(e, ast.Call) else None
        if bounds is not None:
            lo, hi = bounds
            return ((None if lo is None else _load(kept(lo), e)), _load(kept(hi), e)), None
        seq = kept(e)
        n = _at(ast.Call(func=_at(ast.Name(id="len", ctx=ast.Load()), e), args=[_load(seq, e)], keywords=[]), e)
        return (None, n), seq

    def item(seq, index: ast.Name, at) -> ast.expr:
        return _load(index, at) if seq is None else _at(
            ast.Subscript(value=_load(seq, at), slice=_load(index, at), ctx=ast.Load()), at)

    if fn is itertools.product:
        args = list(node.args)
        repeat = [k for k in node.keywords if k.arg == "repeat"]
        if len(repeat) != len(node.keywords) or any(isinstance(a, ast.Starred) for a in args):
            lw.fail(node, what, "product(*iterables, repeat=k) of iterables written out is supported here")
        seqs = [sequence(a) for a in args]
        if repeat:
            k = repeat[0].value
            if not (isinstance(k, ast.Constant) and type(k.value) is int and k.value >= 0):
                lw.fail(k, what, "product's repeat must be an int constant here", CatadTypeError)
            seqs = seqs * k.value
        fors, items = [], []
        for (lo, hi), seq in seqs:
            i = _name(lw, node, ast.Store)
            fors.append((i, _range(lo, hi, node)))
            items.append(item(seq, i, node))
        _targets(lw, target, len(items), what)
        return once, fors, _at(ast.Tuple(elts=items, ctx=ast.Load()), node)
    if node.keywords or len(node.args) != 2 or not (isinstance(node.args[1], ast.Constant)
                                                    and type(node.args[1].value) is int and node.args[1].value >= 1):
        lw.fail(node, what, "combinations(iterable, r) with r an int constant is supported here", CatadTypeError)
    (lo, hi), seq = sequence(node.args[0])
    r = node.args[1].value
    _targets(lw, target, r, what)
    fors, items = [], []
    for k in range(r):
        i = _name(lw, node, ast.Store)
        start = lo if k == 0 else _at(ast.BinOp(left=_load(fors[-1][0], node), op=ast.Add(),
                                                 right=_at(ast.Constant(1), node)), node)
        fors.append((i, _range(start, hi, node)))
        # (a range's item is its lower bound plus the index: range(lo, hi)[i] is i here, as i runs from lo)
        items.append(item(seq, i, node))
    return once, fors, _at(ast.Tuple(elts=items, ctx=ast.Load()), node)


def _range_bounds(lw, node: ast.Call) -> tuple | None:
    """(start or None, stop) of range(stop) or range(start, stop) written out, else None."""
    if not (isinstance(node.func, ast.Name) and lw.static(node.func) is range) or node.keywords \
            or not 1 <= len(node.args) <= 2 or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return (None, node.args[0]) if len(node.args) == 1 else (node.args[0], node.args[1])


def comprehension_over(lw, node: ast.ListComp | ast.GeneratorExp):
    """node with a for clause over combinations or product made the clauses it stands for (its
    filters after the last), or node itself. The values Python reads once are read where the
    clause is, by a clause over a one-item tuple of them (a comprehension has no statements); a
    clause other than the first may not be one (its values could read the earlier clauses' names)."""
    gens, changed = [], False
    for k, g in enumerate(node.generators):
        fn = itertools_call(lw, g.iter)
        if fn is None:
            gens.append(g)
            continue
        if k > 0:
            lw.fail(g.iter, fn.__name__, f"itertools.{fn.__name__} in a for clause after the first is not supported "
                    "here", hint="make it the first for clause, or use nested ranges")
        changed = True
        once, fors, items = clauses(lw, g.target, g.iter, fn)
        if once:
            names = _at(ast.Tuple(elts=[n for n, _ in once], ctx=ast.Store()), g.iter)
            values = _at(ast.Tuple(elts=[_at(ast.Tuple(elts=[e for _, e in once], ctx=ast.Load()), g.iter)],
                                   ctx=ast.Load()), g.iter)
            gens.append(ast.comprehension(target=names, iter=values, ifs=[], is_async=0))
        gens += [ast.comprehension(target=i, iter=it, ifs=[], is_async=0) for i, it in fors]
        one = _at(ast.Tuple(elts=[items], ctx=ast.Load()), g.iter)
        gens.append(ast.comprehension(target=g.target, iter=one, ifs=list(g.ifs), is_async=0))
    if not changed:
        return node
    out = _at(type(node)(elt=node.elt, generators=gens), node)
    lw.made_syntax.append(out)
    return out


def for_over(lw, s: ast.For) -> list[ast.stmt] | None:
    """`for x, y in combinations(...): body` as the values Python reads once, assigned first, then
    the nested loops over indices, x, y bound from them first in the body; None where s runs over
    neither."""
    fn = itertools_call(lw, s.iter)
    if fn is None:
        return None
    if s.orelse or _breaks(s.body):
        lw.fail(s, fn.__name__, f"a loop over itertools.{fn.__name__} with a break or an else clause is not "
                "supported here (catad runs it as nested loops)", hint="use a flag and a condition instead")
    once, fors, items = clauses(lw, s.target, s.iter, fn)
    body = [_at(ast.Assign(targets=[s.target], value=items, type_comment=None), s.target)] + list(s.body)
    for i, it in reversed(fors):
        body = [_at(ast.For(target=i, iter=it, body=body, orelse=[], type_comment=None), s)]
    first = [_at(ast.Assign(targets=[n], value=e, type_comment=None), e) for n, e in once]
    out = first + body
    lw.made_syntax.extend(out)
    return out


def _breaks(stmts: list[ast.stmt]) -> bool:
    """Whether a break in stmts leaves their loop (not one of a loop or def inside)."""
    todo = list(stmts)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Break):
            return True
        if isinstance(n, (ast.For, ast.While)):
            todo.extend(n.orelse)
            continue
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, ast.stmt))
    return False
