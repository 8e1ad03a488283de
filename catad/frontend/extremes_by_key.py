"""max(iterable, key=f), min(...), and max(a, b, ..., key=f): the first item whose key is the
largest (smallest), as Python's max keeps its best item and replaces it only by one whose key is
greater (smaller).

Of several arguments, each key is compared in turn, exactly as Python compares them (a NaN key
is never greater, so it never replaces the best; a first NaN key is never replaced). Of one
iterable (a generator, a list, an array's elements or rows, a map), the keys are a vector and the
item is the one at np.argmax (np.argmin) of them: the first of the largest, as Python's. Where a
key is a NaN, Python's choice depends on where it is and np.argmax stops at the first NaN:
catad refuses, by a run-time test of the key chosen. Python's ValueError for an empty iterable;
`default=` is refused.
"""
from __future__ import annotations

import ast

from ..errors import CatadTypeError
from ..lang.terms import TRUE, Const, If, Term, make_lets
from ..lang.types import Bool, Float, Int, Vec
from ..primitives import prim
from .common import is_array
from .iterators import as_list_comprehension
from .freenames import NOT_STATIC
from .shapes import copyable, in_scope


def extreme_by_key(lw, pair: str, node: ast.Call, args: list, key: ast.expr) -> Term:
    loc = lw.loc(node)
    if len(args) == 1:
        return _of_iterable(lw, pair, node, args[0], key, loc)
    items = [lw.arg(a) for a in args]
    chose = []

    def chosen(*xs):
        keys = [_key(lw, key, node, x) for x in xs]

        def fold(*ks):
            best, best_key = xs[0], ks[0]
            for x, k in zip(xs[1:], ks[1:]):
                test = prim("gt" if pair == "max" else "lt", k, best_key, loc=loc)
                best = lw.mark_chosen(If(test, x, best, loc), test, x, best) if not is_array(x) else If(test, x, best, loc)
                best_key = If(test, k, best_key, loc)
            chose.append(best)
            return best
        return lw.b.share_all(keys, fold, loc)
    return _marked_as_chosen(lw, lw.b.share_all(items, chosen, loc), chose[0], loc)


def _marked_as_chosen(lw, out: Term, best: Term, loc) -> Term:
    """out, the item chosen (`best`) under the lets binding the items and their keys, marked as
    best is: Python's where the item chosen is one of Python's numbers. A condition that reads
    those keys (`min(x[0], 0.0, key=abs)`) cannot be read where out is used: undecided there."""
    got = lw.py_when(best)
    if got is None or out is best:
        return out
    when, python_type, value = got
    if when is not TRUE and not (in_scope(when, out) and copyable(when)):
        when, value = lw.undecided(loc), None
    return lw.as_py(out) if when is TRUE else lw.as_py_when(out, when, python_type, value)


def _key(lw, key: ast.expr, node: ast.Call, x: Term) -> Term:
    k = _called(lw, key, node, [x])
    if not isinstance(k, Term) or k.type not in (Int, Float, Bool):
        lw.fail(key, "key", f"a key of max() and min() must give a number here, got a {getattr(k, 'type', k)}",
                CatadTypeError)
    return _numeric(k, k.loc)


def _numeric(k: Term, loc) -> Term:
    """A bool key as the int Python compares it as (False < True), others as they are."""
    return If(k, Const(1, Int, loc), Const(0, Int, loc), loc) if k.type == Bool else k


def _of_iterable(lw, pair: str, node: ast.Call, it: ast.expr, key: ast.expr, loc) -> Term:
    items = it if isinstance(it, Term) else lw.expr(as_list_comprehension(lw, it))  # (a list or array: a term)
    if not isinstance(items.type, Vec):
        lw.fail(node, pair, f"{pair}(..., key=...) of a {items.type} is not supported; of a list, an array or a "
                "generator it is", CatadTypeError)
    numpy_items(lw, items, node, f"{pair}(..., key=...)")
    holder, at = lw.names.syntax("_items"), lw.names.syntax("_best")

    def body(v):
        lw.env[holder] = v
        keys = keys_of(lw, node, key, holder, pair)

        def pick(ks):
            ks_num = lw.b.elementwise(lambda e: _numeric(e, loc), [ks], loc) if keys.type.elem == Bool else ks
            empty = lw.b.check(prim("gt", lw.b.size(ks_num, 0, loc), Const(0, Int), loc=loc), (), loc, f"{pair}()",
                               f"{pair}() arg is an empty sequence")
            i = prim("argmax" if pair == "max" else "argmin", ks_num, loc=loc)

            def checked(j):
                lw.env[at] = j
                out = lw.expr(lw_node(ast.Subscript(value=ast.Name(id=holder, ctx=ast.Load()),
                                                    slice=ast.Name(id=at, ctx=ast.Load()), ctx=ast.Load()), node, lw))
                if keys.type.elem != Float:
                    return out
                k = prim("index", j, ks_num, loc=loc)
                nan = lw.b.check(prim("eq", k, k, loc=loc), (), loc, f"{pair}()",
                                 f"{pair}(..., key=...) with a key that is a NaN: Python's {pair} passes over a NaN "
                                 "after the first item, where np.argmax stops at it; catad refuses it", "unsupported")
                return make_lets(nan, out)
            return make_lets(empty, lw.b.share(i, checked, loc))
        return lw.b.share(keys, pick, loc)
    return lw.b.share(items, body, loc)


def numpy_items(lw, items: Term, node: ast.AST, what: str) -> None:
    """Refuses items that are (or may be) Python's own numbers (a list display of floats, a range's
    ints): the key would compute with them as NumPy's (1.0 / 0.0 is inf there, Python raises), and
    the item chosen would lose its kind. An array's elements and rows are NumPy's."""
    if lw.is_list(items) and lw.item_kind(items) != "numpy":
        lw.fail(node, what, f"{what} of a list holding Python's own numbers is not supported: catad would compute the "
                "key with NumPy's numbers, where Python's division by zero raises",
                hint="make it an array first: np.array(xs)")


def keys_of(lw, node: ast.Call, key: ast.expr, holder: str, what: str) -> Term:
    """[key(x) for x in <holder>], the keys of the items a name of the environment holds: a vector
    of numbers (of bools, ints)."""
    name = lw.names.syntax("_item")
    keys_node = lw_node(ast.ListComp(elt=ast.Call(func=key, args=[ast.Name(id=name, ctx=ast.Load())], keywords=[]),
                                     generators=[ast.comprehension(target=ast.Name(id=name, ctx=ast.Store()),
                                                                   iter=ast.Name(id=holder, ctx=ast.Load()), ifs=[],
                                                                   is_async=0)]), node, lw, keep=key)
    keys = lw.expr(keys_node)
    if not isinstance(keys.type, Vec) or keys.type.elem not in (Int, Float, Bool):
        lw.fail(key, "key", f"a key of {what}() must give a number here", CatadTypeError)
    return keys


def lw_node(n: ast.AST, at: ast.AST, lw, keep: ast.AST | None = None) -> ast.AST:
    """n (syntax made here) located at `at`, but for the nodes of `keep` (the user's own), kept
    alive until the compile ends."""
    mine = {id(m) for m in ast.walk(keep)} if keep is not None else set()
    for m in ast.walk(n):
        if isinstance(m, (ast.expr, ast.comprehension)) and id(m) not in mine:
            ast.copy_location(m, at)
            m.end_lineno, m.end_col_offset = at.end_lineno, at.end_col_offset
    lw.made_syntax.append(n)
    return n


def _called(lw, fnode: ast.expr, node: ast.Call, args: list) -> Term:
    """fnode(*args), args terms: a lambda, a def of the function, a function of yours or one catad
    knows (as expressions.x_Call dispatches a call)."""
    from . import calls
    from .statements import LocalFunction
    fake = ast.copy_location(ast.Call(func=fnode, args=[], keywords=[]), node)
    lw.made_syntax.append(fake)
    if isinstance(fnode, ast.Lambda):
        return lw.call_local(lw.local_function(fnode, None), fake, args)
    obj = lw.static(fnode)
    if obj is NOT_STATIC:
        lw.fail(fnode, "key", "a key is a function named directly (a def, a lambda, a function of yours or "
                "NumPy's) here")
    if isinstance(obj, LocalFunction):
        return lw.call_local(obj, fake, args)
    user = calls.user_function(obj)
    if user is not None:
        return lw.call_user(user, fake, args)
    return calls.call(lw, obj, fake, args)
