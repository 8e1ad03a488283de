"""Reference semantics of CL: t <> c (notes Fig. 10). An oracle; kept plain.

The tails of Let bodies, Compose and If run in a loop, so evaluation depth follows
the nesting of builds, tuples and arguments, never the length of a let chain.
"""
from __future__ import annotations

from typing import Any

from ..errors import ArgumentError
from ..lang.evaluate import make_vector
from ..lang.types import Vec, coerce_value
from ..primitives.registry import PRIMITIVES
from . import terms as cl
from .terms import make_context, snoc, split_context


class CLEvaluator:
    def __init__(self, program: cl.CLProgram | None = None):
        self.defs = {d.name: d for d in program.defs} if program else {}

    def call(self, name: str, args: tuple) -> Any:
        d = self.defs[name]
        return self.eval(d.body, make_context(list(args)))

    def eval(self, c: cl.CL, t: Any) -> Any:
        while True:
            if isinstance(c, cl.Let):
                t, c = snoc(t, c.n, self.eval(c.rhs, t)), c.body
            elif isinstance(c, cl.Compose):
                t, c = self.eval(c.first, t), c.second
            elif isinstance(c, cl.If):
                c = c.then if self.eval(c.cond, t) else c.orelse
            else:
                return self.leaf(c, t)

    def leaf(self, c: cl.CL, t: Any) -> Any:
        if isinstance(c, cl.Identity):
            return t
        if isinstance(c, cl.Konst):
            return c.py_value
        if isinstance(c, cl.Prune):
            parts = split_context(t, c.n)
            return make_context([parts[i] for i in c.indices])
        if isinstance(c, cl.Proj):
            return t[c.index]
        if isinstance(c, cl.Call):
            args = (t,) if c.nargs == 1 else tuple(t)
            if c.fn in self.defs:
                return self.call(c.fn, args)
            return PRIMITIVES[c.fn].impl(*args)
        if isinstance(c, cl.Tuple):
            return tuple(self.eval(x, t) for x in c.items)
        if isinstance(c, cl.Build):
            n = self.eval(c.size, t)
            elems = [self.eval(c.body, snoc(t, c.n, i)) for i in range(max(int(n), 0))]
            return make_vector(elems, Vec(c.elem))
        if isinstance(c, (cl.Fold, cl.Scan)):
            acc, v = self.eval(c.acc, t), self.eval(c.vec, t)
            states = [acc]
            for i in range(len(v)):  # a loop: no recursion per element
                acc = self.eval(c.body, snoc(t, c.n, (acc, v[i])))
                if isinstance(c, cl.Scan):
                    states.append(acc)
            return acc if isinstance(c, cl.Fold) else make_vector(states, Vec(c.var.type.items[0]))
        if isinstance(c, cl.WhileCount):
            acc, i = self.eval(c.acc, t), 0
            while self.eval(c.cond, snoc(t, c.n, (acc, i))):
                acc = self.eval(c.body, snoc(t, c.n, (acc, i)))
                i += 1
            return i
        raise TypeError(f"not a CL term: {type(c).__name__}")


def eval_cl_program(program: cl.CLProgram, *args: Any) -> Any:
    d = program.main
    if len(args) != len(d.params):
        raise ArgumentError(f"{d.name} takes {len(d.params)} argument(s), got {len(args)}")
    vals = tuple(coerce_value(a, p.type, f"argument {p.name!r}") for a, p in zip(args, d.params))
    return CLEvaluator(program).call(d.name, vals)
