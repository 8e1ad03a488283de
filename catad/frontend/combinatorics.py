"""itertools.combinations and itertools.product where their items are taken as they are made: as
the for clauses (or nested for loops) over indices they stand for, in Python's order.

    combinations(range(a, b), 2)   for i in range(a, b) for j in range(i + 1, b)
    combinations(xs, 2)            the same over range(len(xs)), then x, y = xs[i], xs[j]
    product(A, B)                  for x in A for y in B         (product(A, repeat=2): A, A)

In a generator expression given to sum, max or min (whose several for clauses catad nests), and
as what a for loop runs over (the loops nested; a break, which would leave only the inner one,
and an else clause are refused). A combinations or product object anywhere else is refused as
before (catad has no iterators). The range's bounds and the sequences are read again by the inner
clauses, so they must be names, constants, len() of a name, or arithmetic of these.
"""
from __future__ import annotations

import ast
import itertools

from ..errors import CatadTypeError

FUNCTIONS = (itertools.combinations, itertools.product)
_NAMES = {"combinations", "product"}


def _at(node: ast.AST, at: ast.AST) -> ast.AST:
    ast.copy_location(node, at)
    node.end_lineno, node.end_col_offset = at.end_lineno, at.end_col_offset
    return node


def itertools_call(lw, node) -> object | None:
    """itertools.combinations or itertools.product where node calls it, else None."""
    if not isinstance(node, ast.Call) or not (isinstance(node.func, ast.Name) and node.func.id in _NAMES
                                              or isinstance(node.func, ast.Attribute) and node.func.attr in _NAMES):
        return None
    obj = lw.static(node.func)
    return obj if any(obj is f for f in FUNCTIONS) else None


def _plain(e: ast.expr) -> bool:
    """An expression read again without a difference: a name, a constant, len(name), arithmetic."""
    if isinstance(e, (ast.Name, ast.Constant)):
        return True
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == "len" and len(e.args) == 1 \
            and not e.keywords and isinstance(e.args[0], ast.Name):
        return True
    if isinstance(e, ast.BinOp):
        return _plain(e.left) and _plain(e.right)
    return isinstance(e, ast.UnaryOp) and _plain(e.operand)


def _targets(lw, target: ast.expr, n: int, what: str) -> list[ast.expr]:
    if not isinstance(target, (ast.Tuple, ast.List)) or len(target.elts) != n:
        lw.fail(target, what, f"unpack {what}'s items into {n} names here (x, y)",
                hint=f"for x, y in itertools.{what}(...)")
    return list(target.elts)


def clauses(lw, target: ast.expr, node: ast.Call, fn) -> list[tuple[ast.expr, ast.expr]]:
    """The for clauses (target, iterable), outermost first, that bind target to each item of the
    call node of fn, in Python's order."""
    what = fn.__name__
    if fn is itertools.product:
        args = list(node.args)
        repeat = [k for k in node.keywords if k.arg == "repeat"]
        if len(repeat) != len(node.keywords) or any(isinstance(a, ast.Starred) for a in args):
            lw.fail(node, what, "product(*iterables, repeat=k) of iterables written out is supported here")
        if repeat:
            k = repeat[0].value
            if not (isinstance(k, ast.Constant) and type(k.value) is int and k.value >= 0):
                lw.fail(k, what, "product's repeat must be an int constant here", CatadTypeError)
            args = args * k.value
        if not all(_plain(a) or isinstance(a, ast.Call) and _range_bounds(lw, a) is not None for a in args):
            lw.fail(node, what, "product's iterables are read again for each item: give them as names or "
                    "range(...) of names", hint="assign them to names first")
        return list(zip(_targets(lw, target, len(args), what), args))
    if node.keywords or len(node.args) != 2 or not (isinstance(node.args[1], ast.Constant)
                                                    and type(node.args[1].value) is int and node.args[1].value >= 1):
        lw.fail(node, what, "combinations(iterable, r) with r an int constant is supported here", CatadTypeError)
    seq, r = node.args[0], node.args[1].value
    names = _targets(lw, target, r, what)
    bounds = _range_bounds(lw, seq) if isinstance(seq, ast.Call) else None
    if bounds is None and not isinstance(seq, ast.Name):
        lw.fail(seq, what, "combinations of a range(...) or of a named sequence is supported here",
                hint="assign the sequence to a name first")
    lo, hi = bounds if bounds is not None else (None, _at(ast.Call(func=_at(ast.Name(id="len", ctx=ast.Load()), seq),
                                                                   args=[seq], keywords=[]), seq))
    if not all(e is None or _plain(e) for e in (lo, hi)):
        lw.fail(seq, what, "the range's bounds are read again for each item: give them as names or constants",
                hint="assign them to names first")
    index = [t if bounds is not None and isinstance(t, ast.Name) else
             _at(ast.Name(id=lw.names.syntax("_c"), ctx=ast.Store()), t) for t in names]
    out = []
    for k, t in enumerate(index):
        start = lo if k == 0 else _at(ast.BinOp(left=_at(ast.Name(id=index[k - 1].id, ctx=ast.Load()), node),
                                                 op=ast.Add(), right=_at(ast.Constant(1), node)), node)
        args = [hi] if start is None else [start, hi]
        out.append((t, _at(ast.Call(func=_at(ast.Name(id="range", ctx=ast.Load()), node), args=args, keywords=[]),
                           node)))
        out[-1][1].catad_range = True  # (range is Python's builtin here, whatever the name denotes)
    if all(t is i for t, i in zip(names, index)):
        return out
    # the items of a sequence (or targets that are not names): bound from the indices last
    items = [_at(ast.Subscript(value=seq, slice=_at(ast.Name(id=i.id, ctx=ast.Load()), node), ctx=ast.Load()), node)
             if bounds is None else _at(ast.Name(id=i.id, ctx=ast.Load()), node) for i in index]
    one = _at(ast.Tuple(elts=[_at(ast.Tuple(elts=items, ctx=ast.Load()), node)], ctx=ast.Load()), node)
    return out + [(_at(ast.Tuple(elts=names, ctx=ast.Store()), target), one)]


def _range_bounds(lw, node: ast.Call) -> tuple | None:
    """(start or None, stop) of range(stop) or range(start, stop) written out, else None."""
    if not (isinstance(node.func, ast.Name) and lw.static(node.func) is range) or node.keywords \
            or not 1 <= len(node.args) <= 2 or any(isinstance(a, ast.Starred) for a in node.args):
        return None
    return (None, node.args[0]) if len(node.args) == 1 else (node.args[0], node.args[1])


def comprehension_over(lw, node: ast.ListComp | ast.GeneratorExp):
    """node with each for clause over combinations or product made the clauses it stands for
    (its filters after the last), or node itself."""
    gens, changed = [], False
    for g in node.generators:
        fn = itertools_call(lw, g.iter)
        if fn is None:
            gens.append(g)
            continue
        changed = True
        made = clauses(lw, g.target, g.iter, fn)
        gens += [ast.comprehension(target=t, iter=it, ifs=[], is_async=0) for t, it in made[:-1]]
        gens.append(ast.comprehension(target=made[-1][0], iter=made[-1][1], ifs=list(g.ifs), is_async=0))
    if not changed:
        return node
    out = _at(type(node)(elt=node.elt, generators=gens), node)
    lw.made_syntax.append(out)
    return out


def for_over(lw, s: ast.For) -> list[ast.stmt] | None:
    """`for x, y in combinations(...): body` as the nested loops it stands for; None where s runs
    over neither."""
    fn = itertools_call(lw, s.iter)
    if fn is None:
        return None
    if s.orelse or _breaks(s.body):
        lw.fail(s, fn.__name__, f"a loop over itertools.{fn.__name__} with a break or an else clause is not "
                "supported here (catad runs it as nested loops)", hint="use a flag and a condition instead")
    made = clauses(lw, s.target, s.iter, fn)
    body = list(s.body)
    for t, it in reversed(made):
        if isinstance(it, ast.Tuple):  # (the items bound from the indices)
            body = [_at(ast.Assign(targets=[t], value=it.elts[0], type_comment=None), t)] + body
            continue
        body = [_at(ast.For(target=t, iter=it, body=body, orelse=[], type_comment=None), s)]
    lw.made_syntax.append(body[0])
    return body


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
