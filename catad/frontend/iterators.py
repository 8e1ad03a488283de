"""map, filter, list, tuple and functools.reduce: Python's iterators where something takes their
items at once.

A map or filter object is an iterator: each item is computed when it is taken, and taken once.
catad has no iterators. Where one is consumed as it is made, it is the generator expression
that computes the same items in the same order, when they are taken:

    map(f, a)          (f(x) for x in a)
    map(f, a, b)       (f(x, y) for x, y in zip(a, b))       (zip stops at the shortest, as map)
    filter(p, a)       (x for x in a if p(x))
    filter(None, a)    (x for x in a if x)

That is where it is the argument of a call that runs over it (sum, max, min, any, all, list,
sorted: calls.call asks `consumed` of each argument), and what a for loop runs over (`for_over`:
the loop runs over the arguments and computes the item first in its body). list(it) is the
list comprehension [x for x in it], and of a generator its list comprehension. Anywhere else
(a map stored in a variable, whose second reading is empty in Python) a map or filter is refused.
tuple(t) is t's items where their number is known while compiling; `t = functools.reduce(f, xs,
init)` is the loop Python's reduce runs (`reduce_statement`).

The syntax made here is made again at each compile (its fresh names are the compile's own) and
kept on the lowerer until the compile ends (other parts key what they know of syntax by id).
"""
from __future__ import annotations

import ast
import builtins
import functools

from ..errors import CatadTypeError

ITERATORS = (builtins.map, builtins.filter)
_NAMES = {"map", "filter"}


def _at(node: ast.AST, at: ast.AST) -> ast.AST:
    ast.copy_location(node, at)
    node.end_lineno, node.end_col_offset = at.end_lineno, at.end_col_offset
    return node


def _kept(lw, node: ast.AST) -> ast.AST:
    lw.made_syntax.append(node)
    return node


def iterator_of(lw, node) -> object | None:
    """map or filter where node calls it (the name read as Python reads it), else None."""
    return called(lw, node, _NAMES, ITERATORS)


def called(lw, node, names: set[str], functions: tuple) -> object | None:
    """The one of `functions` that node calls, named by one of `names` (the name read as Python
    reads it, so a function of the user's of that name is not one of them), else None."""
    if not isinstance(node, ast.Call) or not (isinstance(node.func, ast.Name) and node.func.id in names
                                              or isinstance(node.func, ast.Attribute) and node.func.attr in names):
        return None
    obj = lw.static(node.func)
    return obj if any(obj is f for f in functions) else None


def _parts(lw, node: ast.Call, fn) -> tuple[ast.expr, list[ast.expr]]:
    """(the function or predicate, the iterables) of a map or filter call, its arity checked."""
    name = fn.__name__
    if node.keywords:
        lw.fail(node.keywords[0], "keyword argument", f"{name}() takes no keyword arguments", CatadTypeError)
    if any(isinstance(a, ast.Starred) for a in node.args):
        lw.fail(node, name, f"{name}(*...) is not supported; pass the iterables one by one")
    if fn is builtins.map and len(node.args) < 2:
        lw.fail(node, "map", "map() must have at least two arguments.", CatadTypeError)
    if fn is builtins.filter and len(node.args) != 2:
        lw.fail(node, "filter", f"filter expected 2 arguments, got {len(node.args)}", CatadTypeError)
    return node.args[0], node.args[1:]


def _items(lw, node: ast.Call, fn) -> tuple[ast.expr, list[ast.comprehension]]:
    """(the element, the one for clause) of the comprehension computing node's items."""
    f, its = _parts(lw, node, fn)
    names = [lw.names.syntax("_item") for _ in its]
    load = [_at(ast.Name(id=n, ctx=ast.Load()), node) for n in names]
    if len(its) == 1:
        target, it = _at(ast.Name(id=names[0], ctx=ast.Store()), node), its[0]
    else:
        target = _at(ast.Tuple(elts=[_at(ast.Name(id=n, ctx=ast.Store()), node) for n in names], ctx=ast.Store()), node)
        it = _at(ast.Call(func=_at(ast.Name(id="zip", ctx=ast.Load()), node), args=list(its), keywords=[]), node)
        it.catad_zip = True  # (zip is Python's builtin here, whatever the name zip denotes: see is_builtin_zip)
    ifs = []
    if fn is builtins.map:
        elt = _at(ast.Call(func=f, args=load, keywords=[]), node)
    else:
        elt = load[0]
        keep = load[0] if isinstance(f, ast.Constant) and f.value is None else \
            _at(ast.Call(func=f, args=[load[0]], keywords=[]), node)
        ifs.append(keep)
    return elt, [ast.comprehension(target=target, iter=it, ifs=ifs, is_async=0)]


def consumed(lw, node):
    """node as the argument of a call that runs over it: a map or filter call is its generator
    expression; anything else is itself."""
    fn = iterator_of(lw, node)
    if fn is None:
        return node
    elt, gens = _items(lw, node, fn)
    return _kept(lw, _at(ast.GeneratorExp(elt=elt, generators=gens), node))


def as_list_comprehension(lw, node: ast.expr) -> ast.ListComp:
    """[x for x in node] (list(node)), node a generator, map or filter its own comprehension."""
    fn = iterator_of(lw, node)
    if fn is not None:
        elt, gens = _items(lw, node, fn)
    elif isinstance(node, (ast.GeneratorExp, ast.ListComp)):
        elt, gens = node.elt, node.generators
    else:
        name = lw.names.syntax("_item")
        elt = _at(ast.Name(id=name, ctx=ast.Load()), node)
        gens = [ast.comprehension(target=_at(ast.Name(id=name, ctx=ast.Store()), node), iter=node, ifs=[],
                                  is_async=0)]
    return _kept(lw, _at(ast.ListComp(elt=elt, generators=gens), node))


def h_list(lw, obj, node, args, kwargs):
    """list(), list(iterable): [x for x in iterable] (a copy of a list; an array's rows or
    elements, NumPy's numbers; a range's ints; a generator's, map's or filter's items)."""
    if kwargs:
        lw.fail(node, "list", "list() takes no keyword arguments", CatadTypeError)
    if len(args) > 1:
        lw.fail(node, "list", f"list expected at most 1 argument, got {len(args)}", CatadTypeError)
    if not args:
        return lw.expr(_kept(lw, _at(ast.List(elts=[], ctx=ast.Load()), node)))
    return lw.expr(as_list_comprehension(lw, args[0]))


def h_tuple(lw, obj, node, args, kwargs):
    """tuple(), tuple(t) of a tuple, a named tuple or a list of values of a length known while
    compiling: the tuple of its items. Of an array or a list held as one (its length is known only
    when the function runs, a tuple's while compiling) or of a dict, refused."""
    from ..lang.terms import Tuple
    from ..lang.types import Tuple as TupleT
    loc = lw.loc(node)
    if kwargs:
        lw.fail(node, "tuple", "tuple() takes no keyword arguments", CatadTypeError)
    if len(args) > 1:
        lw.fail(node, "tuple", f"tuple expected at most 1 argument, got {len(args)}", CatadTypeError)
    if not args:
        return Tuple((), loc)
    t = lw.arg(args[0]) if not isinstance(args[0], (ast.GeneratorExp, ast.Call)) or iterator_of(lw, args[0]) is None \
        else None
    tree = lw.tree(t) if t is not None else None
    if t is None or not isinstance(t.type, TupleT) or tree is not None and tree.kind not in ("tuple", "list"):
        what = "a map or filter" if t is None else tree.describe() if tree is not None else \
            "a Python list" if lw.is_list(t) else f"a {t.type}"
        lw.fail(node, "tuple", f"tuple() of {what} is not supported: catad's tuples have a length known while "
                "compiling, and this one's is known when the function runs",
                hint="use the array itself, or list(...)")
    return lw.tuple_of([lw.tuple_item(t, k, loc) for k in range(len(t.type.items))], loc)


def h_iterator(lw, obj, node, args, kwargs):
    """map and filter anywhere but where their items are taken at once (see the module's doc)."""
    name = obj.__name__
    lw.fail(node, name, f"{name}() is supported where its items are taken as it makes them: as the argument of "
            "sum, max, min, any, all, sorted or list, or as what a for loop runs over (a map object stored "
            "and read again is empty the second time)", hint=f"e.g. sum({name}(...)) or list({name}(...))")


def for_over(lw, s: ast.For) -> list[ast.stmt] | None:
    """`for target in map(f, a, b): body` as `for x, y in zip(a, b): target = f(x, y); body` (for
    filter: `if p(x):` around the rest); None where s does not run over a map or filter."""
    fn = iterator_of(lw, s.iter)
    if fn is None:
        return None
    elt, (gen,) = _items(lw, s.iter, fn)
    first = [_at(ast.Assign(targets=[s.target], value=elt), s.target)]
    body = first + s.body
    if gen.ifs:
        guard = _at(ast.If(test=gen.ifs[0], body=body, orelse=[]), s)
        body = [guard]
    new = _kept(lw, _at(ast.For(target=gen.target, iter=gen.iter, body=body, orelse=s.orelse, type_comment=None), s))
    return [new]


def h_reduce(lw, obj, node, args, kwargs):
    """functools.reduce anywhere but as the whole value of an assignment or a return."""
    lw.fail(node, "functools.reduce", "functools.reduce is supported as the whole value of an assignment or a "
            "return statement: t = functools.reduce(f, xs, init), return functools.reduce(...)",
            hint="assign its result to a name first")


TABLE = [((builtins.list,), h_list, ()), ((builtins.tuple,), h_tuple, ()), (ITERATORS, h_iterator, ()),
         ((functools.reduce,), h_reduce, ())]


def reduce_statement(lw, s: ast.stmt) -> list[ast.stmt] | None:
    """`t = functools.reduce(f, it[, init])` (or `return ...`) as the loop Python's reduce runs:
    `acc = init; for x in it: acc = f(acc, x)`, then `t = acc`; without init the first item starts
    (`items = [x for x in it]; acc = items[0]; for x in items[1:]`), and an empty iterable raises
    Python's TypeError. None where s is not such a statement. (A reduce elsewhere in an expression
    is refused as a function catad does not know.)"""
    value = s.value if isinstance(s, (ast.Assign, ast.Return)) else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute)) and
            getattr(value.func, "attr", getattr(value.func, "id", None)) == "reduce" and
            lw.static(value.func) is functools.reduce):
        return None
    if value.keywords or not 2 <= len(value.args) <= 3 or any(isinstance(a, ast.Starred) for a in value.args):
        lw.fail(value, "functools.reduce", "functools.reduce takes a function, an iterable and an initial value, by "
                "position", CatadTypeError)
    f, it = value.args[0], value.args[1]
    acc, item, items = (lw.names.syntax(b) for b in ("_acc", "_item", "_items"))
    name = lambda n, ctx: _at(ast.Name(id=n, ctx=ctx), value)  # noqa: E731
    step = _at(ast.Call(func=f, args=[name(acc, ast.Load()), name(item, ast.Load())], keywords=[]), value)
    body = [_at(ast.Assign(targets=[name(acc, ast.Store())], value=step), value)]
    if len(value.args) == 3:
        out = []
        if not isinstance(it, ast.GeneratorExp) and iterator_of(lw, it) is None:  # (Python's order: it, then init)
            out.append(_at(ast.Assign(targets=[name(items, ast.Store())], value=it), value))
            it = name(items, ast.Load())
        out += [_at(ast.Assign(targets=[name(acc, ast.Store())], value=value.args[2]), value),
                _at(ast.For(target=name(item, ast.Store()), iter=it, body=body, orelse=[], type_comment=None), value)]
    else:  # the first item starts: `items = list(it)` (read once), then items[0] and the rest
        for builtin in ("len", "TypeError"):  # (the names the check below is written with)
            if builtin in lw.src.local_names or lw.static(_at(ast.Name(id=builtin, ctx=ast.Load()), value)) is not \
                    getattr(builtins, builtin):
                lw.fail(value, "functools.reduce", f"functools.reduce without an initial value, where {builtin} "
                        "means something else than Python's builtin, is not supported", hint="pass an initial value")
        listed = as_list_comprehension(lw, it)  # (list(it), whatever the name list denotes)
        empty = _at(ast.Compare(left=_at(ast.Call(func=_at(ast.Name(id="len", ctx=ast.Load()), value),
                                                  args=[name(items, ast.Load())], keywords=[]), value),
                                ops=[ast.Eq()], comparators=[_at(ast.Constant(0), value)]), value)
        error = _at(ast.Raise(exc=_at(ast.Call(func=_at(ast.Name(id="TypeError", ctx=ast.Load()), value),
                                               args=[_at(ast.Constant("reduce() of empty iterable with no initial "
                                                                      "value"), value)], keywords=[]), value),
                              cause=None), value)
        first = _at(ast.Subscript(value=name(items, ast.Load()), slice=_at(ast.Constant(0), value), ctx=ast.Load()),
                    value)
        rest = _at(ast.Subscript(value=name(items, ast.Load()), slice=_at(ast.Slice(lower=_at(ast.Constant(1), value),
                                                                                     upper=None, step=None), value),
                                 ctx=ast.Load()), value)
        out = [_at(ast.Assign(targets=[name(items, ast.Store())], value=listed), value),
               _at(ast.If(test=empty, body=[error], orelse=[]), value),
               _at(ast.Assign(targets=[name(acc, ast.Store())], value=first), value),
               _at(ast.For(target=name(item, ast.Store()), iter=rest, body=body, orelse=[], type_comment=None), value)]
    if isinstance(s, ast.Return):
        out.append(_at(ast.Return(value=name(acc, ast.Load())), s))
    else:
        out.append(_at(ast.Assign(targets=s.targets, value=name(acc, ast.Load())), s))
    lw.made_syntax.append(out)
    return out
