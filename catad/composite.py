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

from typing import Any, Sequence

import numpy as np

from .errors import ArgumentError, CatadError
from .lang.names import FreshNames
from .lang.terms import Build, Call, Const, Def, Get, If, Program, Term, Tuple, Var, fconst, iconst, make_lets
from .lang.types import Float, Int, Tuple as TupleT, Type, Vec, is_differentiable, rank, scalar_of
from .primitives import prim
from .transforms import Transformation
from .trees import Tree


def argnums_of(argnums: Any, params: Sequence[Var]) -> tuple[int, ...]:
    """argnums (an int or a non-empty tuple or list of ints, negative ones from the end) as
    positions of params, each checked to be differentiable."""
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
        if not is_differentiable(params[k].type):
            raise CatadError(f"cannot differentiate with respect to argument {params[k].name!r} of type "
                             f"{params[k].type}: catad differentiates with respect to floats and float arrays",
                             construct="argnums")
    return nums


def single(argnums: Any) -> bool:
    """Whether argnums names one argument (the result is that argument's, not a tuple)."""
    return isinstance(argnums, (int, np.integer))


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
        return self.params[:len(self.params) - self.n_hidden]

    @property
    def name(self) -> str:
        return self.core.entry

    def forward(self) -> Def:
        return self._forward()

    def reverse(self) -> Def:
        return self._reverse()


def program(t: Transformation, inner: Inner) -> Program:
    """The core program of t applied to the function whose stages `inner` holds."""
    users = inner.users
    nums = argnums_of(t.argnums, users)
    make = _MAKERS[t.kind]
    names = FreshNames(p.name for p in inner.params)
    body, deriv = make(t, inner, nums, names)
    name = f"{t.kind}${inner.name}"
    main = Def(name, inner.params, body)
    return Program((deriv, main), name)


def result_tree(t: Transformation, inner: Inner) -> Any:
    """The structure (catad.trees) of what t's function returns."""
    users = inner.users
    nums = argnums_of(t.argnums, users)
    trees = inner.trees or (None,) * len(users)
    grads = trees[nums[0]] if single(t.argnums) else _tuple_tree([trees[k] for k in nums])
    if t.kind == "value_and_grad":
        return _tuple_tree([inner.result_tree, grads])
    return grads


def _tuple_tree(items: list) -> Tree | None:
    return Tree("tuple", tuple(items)) if any(x is not None for x in items) else None


# ---------------------------------------------------------------- grad and value_and_grad

def _float_result(t: Transformation, inner: Inner) -> None:
    result = inner.core.main.result_type
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
    rev = inner.reverse()
    params = inner.params
    r = names.var("r", rev.result_type)
    call = Call(rev.name, tuple(params) + (fconst(1.0),), rev.result_type)
    cts = _cotangents(r, len(params))
    grads = [prim("densify", cts[k], params[k]) for k in nums]
    g = grads[0] if single(t.argnums) else Tuple(tuple(grads))
    out = Tuple((Get(0, r), g)) if t.kind == "value_and_grad" else g
    return make_lets([(r, call)], out), rev


_MAKERS = {"grad": _grad, "value_and_grad": _grad}


__all__ = ["Inner", "argnums_of", "program", "result_tree", "single"]
