"""The core program of a function made by a catad transformation (issue 17).

``catad.grad(f)`` at arguments of some types is the program

    fun grad$f(x1, ..., xn, h1, ..., hm) =
        let r = rev$f(x1, ..., xn, h1, ..., hm, 1.0)
        densify(cotangent k of r, xk)

made from f's reverse derivative program rev$f (catad.pipeline: the pipeline's "reverse"
stage), an ordinary program of the core language; the h are the values f reads from globals
and closures, hidden parameters as in f's own program. ``densify`` gives the cotangent as a
value (the zero tangent as zeros, an index update as an array) to whatever uses it. So the
gradient is differentiated again by the same pipeline, as any program is: grad(grad(f)),
jvp(grad(f)) (forward over reverse), a function that calls catad.grad(f) inside, to any depth.

The Jacobians are builds over the basis of the output (jacrev: one reverse pass per element,
the cotangent an index update) or of the input (jacfwd), which the backend runs for all
elements at once; jacobian chooses between the two by their lengths, at run time.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import numpy as np

from .errors import ArgumentError, CatadError
from .lang.names import FreshNames
from .lang.terms import (Build, Call, Const, Def, Get, If, Program, Term, Tuple, Var, fconst, iconst, let_chain,
                         make_lets, rename)
from .lang.types import Float, Int, Tuple as TupleT, Type, Vec, is_differentiable, rank, scalar_of
from .primitives import prim
from .transforms import Transformation
from .trees import Tree, of_leaves


def argnums_of(argnums: Any, params: Sequence[Var], empty_ok: bool = False) -> tuple[int, ...]:
    """argnums (an int or a non-empty tuple or list of ints, negative ones from the end) as
    positions of params, each checked to be differentiable (or, with empty_ok, an argument
    with no entries: None, [], {}, whose gradient is itself)."""
    def is_int(k):
        return isinstance(k, (int, np.integer)) and not isinstance(k, bool)
    if is_int(argnums):
        nums = (int(argnums),)
    elif isinstance(argnums, (tuple, list)) and argnums and all(is_int(k) for k in argnums):
        nums = tuple(int(k) for k in argnums)
    else:
        raise ArgumentError(f"argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    for k in nums:
        if not -len(params) <= k < len(params):
            raise ArgumentError(f"argnums {argnums!r} is out of range for a function of {len(params)} argument(s)")
    nums = tuple(k % len(params) for k in nums)
    for k in nums:
        if not is_differentiable(params[k].type) and not (empty_ok and params[k].type == TupleT(())):
            raise CatadError(f"cannot differentiate with respect to argument {params[k].name!r} of type "
                             f"{params[k].type}: catad differentiates with respect to floats and float arrays",
                             construct="argnums")
    return nums


def single(argnums: Any) -> bool:
    """Whether argnums names one argument (the result is that argument's, not a tuple)."""
    return isinstance(argnums, (int, np.integer))


def users(core: Program, n_hidden: int) -> tuple[Var, ...]:
    """The user's parameters of a core program whose last n_hidden are hidden ones."""
    params = core.main.params
    return params[:len(params) - n_hidden]


class Inner:
    """What a composite program needs of the function transformed, for one signature: its core
    program (its parameters: the user's, then the hidden ones), its derivative programs, and
    the structures of its arguments and result (catad.trees). catad.pipeline makes it from
    the function's pipeline."""

    def __init__(self, core: Program, n_hidden: int, forward, reverse, trees: tuple, result_tree: Any):
        self.core, self.n_hidden = core, n_hidden
        self._forward, self._reverse = forward, reverse  # made when first asked for
        self.trees, self.result_tree = trees, result_tree

    @property
    def params(self) -> tuple[Var, ...]:
        return self.core.main.params

    @property
    def users(self) -> tuple[Var, ...]:
        return users(self.core, self.n_hidden)

    @property
    def name(self) -> str:
        return self.core.entry

    def forward(self) -> Def:
        return self._forward()

    def reverse(self) -> Def:
        return self._reverse()


def program(t: Transformation, inner: Inner, mode: str | None = None) -> Program:
    """The core program of t applied to the function whose stages `inner` holds; `mode`
    ("forward" or "reverse") is how a "jacobian" computes (catad.pipeline chooses it by the
    lengths of the arguments and of the result)."""
    names = FreshNames(p.name for p in inner.params)
    if t.kind == "jvp":
        return _jvp(t, inner, names)
    nums = argnums_of(t.argnums, inner.users)
    kind = {"hessian": "jacfwd", "jacobian": "jacfwd" if mode == "forward" else "jacrev"}.get(t.kind, t.kind)
    chunk = (names.var("start", Int), names.var("count", Int)) if t.chunked else None
    body, defs = _MAKERS[kind](t, inner, nums, names, chunk) if chunk else _MAKERS[kind](t, inner, nums, names)
    name = f"{t.kind}${inner.name}"
    main = Def(name, inner.params + (chunk or ()), body)
    return Program(tuple(defs) + (main,), name)


def result_tree(t: Transformation, inner: Inner) -> Any:
    """The structure (catad.trees) of what t's function returns."""
    if t.kind == "jvp":
        return _tuple_tree([inner.result_tree, inner.result_tree])
    users = inner.users
    nums = argnums_of(t.argnums, users)
    trees = inner.trees or (None,) * len(users)
    grads = trees[nums[0]] if single(t.argnums) else _tuple_tree([trees[k] for k in nums])
    if t.kind == "value_and_grad":
        return _tuple_tree([inner.result_tree, grads])
    if t.kind == "grad" and t.has_aux:  # (the gradient, aux)
        return _tuple_tree([grads, inner.result_tree.items[1] if inner.result_tree is not None else None])
    if t.kind == "grad":
        return grads
    # a Jacobian: the result's structure of the arguments' structures (JAX's pytrees); a list or
    # dict result's trees are not kept (its Jacobian is refused), an argument's are
    out = inner.core.main.result_type
    if isinstance(out, TupleT):
        tree = of_leaves(inner.result_tree)  # a dict of arrays: a dict of blocks (as differentiate's)
        if tree is not None:
            return dataclasses.replace(tree, items=(grads,) * len(out.items))
        return _tuple_tree([grads] * len(out.items))
    return grads


def _tuple_tree(items: list) -> Tree | None:
    return Tree("tuple", tuple(items)) if any(x is not None for x in items) else None


# ---------------------------------------------------------------- grad and value_and_grad

def _float_result(t: Transformation, inner: Inner) -> None:
    result = inner.core.main.result_type
    if t.has_aux:
        if not (isinstance(result, TupleT) and len(result.items) == 2 and result.items[0] == Float):
            name = getattr(t.fn, "__name__", "f")
            raise CatadError(f"{t.kind} with has_aux=True needs a function returning a pair: a float, then the "
                             f"auxiliary data; {name} returns {result}", construct=t.kind,
                             hint="return (loss, aux), with aux a value or a tuple, list or dict of values")
        return
    if result != Float:
        name = getattr(t.fn, "__name__", "f")
        ints = [p.name for p in inner.users if p.type == Int]
        hint = (f"; it does with the Int argument(s) {', '.join(map(repr, ints))}: pass floats (e.g. 3.0, not 3)"
                if result == Int and ints else " (use jacobian or vjp instead)")
        raise CatadError(f"{t.kind} needs a function returning a float; {name} returns {result}{hint}",
                         construct=t.kind)


def _cotangents(r: Term, n: int) -> list[Term]:
    """The parameters' cotangents in the result r of a reverse program (one per parameter)."""
    c = Get(1, r)
    return [c] if n == 1 else [Get(k, c) for k in range(n)]


def _grad(t: Transformation, inner: Inner, nums: tuple[int, ...], names: FreshNames):
    _float_result(t, inner)
    rev = _returning(t, inner.reverse(), nums)
    return Call(rev.name, tuple(inner.params), rev.result_type), (rev,)


def _returning(t: Transformation, rev: Def, nums: tuple[int, ...]) -> Def:
    """rev$f(x, 1.0) returning what t's function returns of (f(x), cotangents): the densified
    cotangents of the parameters nums, after f(x) for value_and_grad. The parts t drops are
    never in a tuple: once forward-differentiated (hvp), a tuple bound to a variable whose
    components are dropped is taken apart only after the single-use inliner writes it where
    it is used, a second round of optimising, CSE and dead code (catad.rewrite.stages.finish:
    a fifth of hvp's compile time for GMM)."""
    lets, final = let_chain(rev.body)
    value, c = _item(final, 0), _item(final, 1)
    cts = [c] if len(rev.params) == 2 else [_item(c, k) for k in range(len(rev.params) - 1)]
    grads = [prim("densify", cts[k], rev.params[k]) for k in nums]
    g = grads[0] if single(t.argnums) else Tuple(tuple(grads))
    # (with has_aux, value is the pair (f's float, aux): the gradient's is (g, aux))
    out = Tuple((value, g)) if t.kind == "value_and_grad" else Tuple((g, _item(value, 1))) if t.has_aux else g
    body = make_lets([(lt.var, lt.rhs, lt.loc) for lt in lets], out)
    # the output's cotangent is the constant 1.0, written where it is used: bound to a variable
    # (a parameter, inlined), it reaches its products only after the single-use inliner; aux's
    # is the zero tangent
    seed = fconst(1.0)
    if t.has_aux:
        seed = Tuple((seed, _zero_tangent(rev.params[-1].type.items[1])))
    return Def(rev.name, rev.params[:-1], rename(body, {rev.params[-1]: seed}), rev.loc)


def _zero_tangent(ty: Type) -> Term:
    """The zero tangent of a value of type ty: a tuple's, a tuple of its items'."""
    return Tuple(tuple(_zero_tangent(x) for x in ty.items)) if isinstance(ty, TupleT) else _zero(ty)


def _item(t: Term, k: int) -> Term:
    """Component k of a tuple: of a tuple literal, its item."""
    return t.items[k] if type(t) is Tuple else Get(k, t)


def _jvp(t: Transformation, inner: Inner, names: FreshNames) -> Program:
    """(f(x), J dx) as a function of the primals x, then the tangents dx, then the hidden
    parameters (which the front end passes last): catad.jvp inside a compiled function."""
    fwd = inner.forward()
    users, hidden = inner.users, inner.params[len(inner.users):]
    dxs = tuple(names.var("d" + p.name, p.type) for p in users)
    r = names.var("r", fwd.result_type)
    call = Call(fwd.name, tuple(users) + tuple(hidden) + dxs + tuple(_zero(h.type) for h in hidden),
                fwd.result_type)
    body = make_lets([(r, call)], Tuple((Get(0, r), prim("densify", Get(1, r), Get(0, r)))))
    name = f"jvp${inner.name}"
    return Program((fwd, Def(name, tuple(users) + dxs + tuple(hidden), body)), name)


# ---------------------------------------------------------------- Jacobians
# The Jacobian of f with respect to x, shaped f(x).shape + x.shape, is the array of its rows
# (jacrev: one reverse pass per element of the output, whose cotangent is the index update
# that is 1 there) or of its columns (jacfwd: one forward pass per element of x, transposed
# into place). The passes are the body of builds over the basis, which the backend runs for
# all elements at once (what does not depend on the element is computed once). A tuple
# result has a Jacobian per component; a tuple of argnums a block per argument; an argument
# that is a tuple, one per item (JAX's pytrees).

def _leaves(ty: Type, path: tuple = ()) -> list[tuple[tuple, Type]]:
    """The (path, type) of each leaf of a value of type ty (tuples walked)."""
    if isinstance(ty, TupleT):
        return [leaf for k, x in enumerate(ty.items) for leaf in _leaves(x, path + (k,))]
    return [(path, ty)]


def _at(t: Term, path: tuple) -> Term:
    for k in path:
        t = t.items[k] if isinstance(t, Tuple) else Get(k, t)
    return t


def _differentiable_leaves(t: Transformation, inner: Inner, k: int) -> list[tuple[tuple, Type]]:
    p = inner.users[k]
    leaves = _leaves(p.type)
    bad = [ty for _, ty in leaves if scalar_of(ty) != Float]
    if bad:
        raise CatadError(f"{t.kind} with respect to argument {p.name!r} of type {p.type}: its Int or Bool parts have "
                         "no Jacobian block", construct=t.kind,
                         hint="pass the float parts as an argument of their own, and the others apart")
    return leaves


def _result_leaves(t: Transformation, inner: Inner) -> list[tuple[tuple, Type]]:
    out = inner.core.main.result_type
    items = [((k,), x) for k, x in enumerate(out.items)] if isinstance(out, TupleT) else [((), out)]
    for _, ty in items:
        if isinstance(ty, TupleT) or scalar_of(ty) != Float:
            name = getattr(t.fn, "__name__", "f")
            raise CatadError(f"{t.kind} needs a function returning a float, a float array or a tuple of them; "
                             f"{name} returns {out}", construct=t.kind)
    return items


def _dims(x: Term, ty: Type, names: FreshNames, lets: list) -> list[Term]:
    """The lengths of the axes of x (a Vec of rank r), let-bound."""
    out = []
    for axis in range(rank(ty)):
        n = names.var("n", Int)
        lets.append((n, prim("size", x) if axis == 0 else prim("dim", x, iconst(axis))))
        out.append(n)
    return out


def _over_basis(dims: list[Term], names: FreshNames, body, chunk: tuple | None = None) -> Term:
    r"""build(n1, \k1. ... build(nr, \kr. body(e, (k1, ..., kr)))), e the basis element that
    is 1 at (k1, ..., kr): nested index updates (kept sparse). With `chunk` (start, count), the
    first axis is only its elements start, ..., start + count - 1."""
    ks = [names.var("k", Int) for _ in dims]
    at = list(ks)
    if chunk is not None:  # k1 counts the slice; the element is start + k1
        at[0] = prim("add", chunk[0], ks[0])
    e: Term = fconst(1.0)
    for k, n in reversed(list(zip(at, dims))):
        e = prim("update", k, e, n)
    out = body(e, at)
    sizes = [chunk[1]] + list(dims[1:]) if chunk is not None else dims
    for k, n in reversed(list(zip(ks, sizes))):
        out = Build(n, k, out)
    return out


def _sliced(dims: list[Term], chunk: tuple | None) -> list[Term]:
    """The lengths of a table made by _over_basis: the slice's count first."""
    return [chunk[1]] + list(dims[1:]) if chunk is not None else dims


def _read(t: Term, ks: list[Term]) -> Term:
    for k in ks:
        t = prim("index", k, t)
    return t


def _zero(ty: Type) -> Term:
    from .tangents import ZERO
    return Const(ZERO, ty)


def _one_hot(ty: Type, path: tuple, e: Term) -> Term:
    """The tangent of a value of type ty that is e at path and the zero tangent elsewhere."""
    if not path:
        return e
    assert isinstance(ty, TupleT)
    return Tuple(tuple(_one_hot(x, path[1:], e) if k == path[0] else _zero(x) for k, x in enumerate(ty.items)))


def _primal(inner: Inner, names: FreshNames, lets: list) -> Term:
    y = names.var("y", inner.core.main.result_type)
    lets.append((y, Call(inner.name, tuple(inner.params), y.type)))
    return y


def _blocks(t: Transformation, nums, per_argument) -> Term:
    """The Jacobian of one result: a block per argument in argnums (one when argnums is an int)."""
    blocks = [per_argument(k) for k in nums]
    return blocks[0] if single(t.argnums) else Tuple(tuple(blocks))


def _jacrev(t: Transformation, inner: Inner, nums, names: FreshNames, chunk: tuple | None = None):
    """Rows: for each element of the result, the cotangents of the arguments (one reverse pass);
    with `chunk`, the rows of a slice of the result's first axis (one result, see program)."""
    rev = inner.reverse()
    params = inner.params
    out_ty = inner.core.main.result_type
    results = _result_leaves(t, inner)
    leaves = {k: _differentiable_leaves(t, inner, k) for k in nums}
    lets: list = []
    y = _primal(inner, names, lets) if any(rank(ty) for _, ty in results) else None
    per_result = []
    for path, ty in results:
        dims = _dims(_at(y, path), ty, names, lets) if rank(ty) else []

        def row(e, ks, path=path):
            r = names.var("r", rev.result_type)
            cts = _cotangents(r, len(params))
            body = Tuple(tuple(prim("densify", _at(cts[k], lp), _at(params[k], lp))
                               for k in nums for lp, _ in leaves[k]))
            ct = _one_hot(out_ty, path, e)
            return make_lets([(r, Call(rev.name, tuple(params) + (ct,), rev.result_type))], body)
        table = _over_basis(dims, names, row, chunk)
        rows = names.var("rows", table.type)
        lets.append((rows, table))
        dims = _sliced(dims, chunk)
        where = {}
        for k in nums:
            for lp, _ in leaves[k]:
                where[(k, lp)] = len(where)

        def per_argument(k, dims=dims, rows=rows):
            items = []
            for lp, lty in leaves[k]:
                column = where[(k, lp)]
                items.append(_unzipped(rows, dims, column, names))
            return _nest(inner.users[k].type, items)
        per_result.append(_blocks(t, nums, per_argument))
    body = per_result[0] if not isinstance(out_ty, TupleT) else Tuple(tuple(per_result))
    return make_lets(lets, body), inner.core.defs + (rev,)


def _unzipped(table: Term, dims: list[Term], column: int, names: FreshNames) -> Term:
    """Component `column` of every element of a nested build of tuples, as a nested build."""
    if not dims:
        return Get(column, table)
    ks = [names.var("j", Int) for _ in dims]
    out: Term = Get(column, _read(table, ks))
    for k, n in reversed(list(zip(ks, dims))):
        out = Build(n, k, out)
    return out


def _nest(ty: Type, items: list[Term]) -> Term:
    """The leaves' blocks, in the order of _leaves(ty), nested as ty's tuples are."""
    it = iter(items)

    def go(t: Type) -> Term:
        return Tuple(tuple(go(x) for x in t.items)) if isinstance(t, TupleT) else next(it)
    return go(ty)


def _jacfwd(t: Transformation, inner: Inner, nums, names: FreshNames, chunk: tuple | None = None):
    """Columns: for each element of an argument, the tangent of the result (one forward pass),
    transposed so that the result's axes come first; with `chunk`, the columns of a slice of
    the argument's first axis (one argument, an array)."""
    fwd = inner.forward()
    params = inner.params
    out_ty = inner.core.main.result_type
    results = _result_leaves(t, inner)
    lets: list = []
    y = _primal(inner, names, lets) if any(rank(ty) for _, ty in results) else None
    out_dims = {path: (_dims(_at(y, path), ty, names, lets) if rank(ty) else []) for path, ty in results}
    blocks: dict = {}
    for k in nums:
        p = params[k]
        for lp, lty in _differentiable_leaves(t, inner, k):
            in_dims = _dims(_at(p, lp), lty, names, lets) if rank(lty) else []

            def column(e, ks, k=k, lp=lp):
                r = names.var("r", fwd.result_type)
                tangents = tuple(_one_hot(q.type, lp, e) if j == k else _zero(q.type) for j, q in enumerate(params))
                call = Call(fwd.name, tuple(params) + tangents, fwd.result_type)
                dy = prim("densify", Get(1, r), Get(0, r))
                return make_lets([(r, call)], dy)
            table = _over_basis(in_dims, names, column, chunk)
            cols = names.var("cols", table.type)
            lets.append((cols, table))
            in_dims = _sliced(in_dims, chunk)
            for path, ty in results:
                blocks[(path, k, lp)] = _transposed(cols, in_dims, path, out_dims[path], names)
    per_result = []
    for path, ty in results:
        def per_argument(k, path=path):
            return _nest(params[k].type, [blocks[(path, k, lp)] for lp, _ in _leaves(params[k].type)])
        per_result.append(_blocks(t, nums, per_argument))
    body = per_result[0] if not isinstance(out_ty, TupleT) else Tuple(tuple(per_result))
    return make_lets(lets, body), inner.core.defs + (fwd,)


def _transposed(cols: Term, in_dims: list[Term], path: tuple, out_dims: list[Term], names: FreshNames) -> Term:
    """J[o..., i...] = cols[i...] at path, then [o...]: the result's axes first."""
    js = [names.var("i", Int) for _ in in_dims]
    os_ = [names.var("o", Int) for _ in out_dims]
    out = _read(_at(_read(cols, js), path), os_)
    for k, n in reversed(list(zip(os_ + js, out_dims + in_dims))):
        out = Build(n, k, out)
    return out


_MAKERS = {"grad": _grad, "value_and_grad": _grad, "jacrev": _jacrev, "jacfwd": _jacfwd}


__all__ = ["Inner", "argnums_of", "program", "result_tree", "single"]
