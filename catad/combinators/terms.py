"""Terms of the combinator language CL (notes Fig. 9).

A CL term c : S => T denotes a function from its input S to its output T; there
are no variables to look up. The input of a term converted under a context
Gamma = (x1, ..., xn) is the tuple of those variables' values, with the
convention of the Knossos implementation that a context of one variable is that
variable's value itself (not a 1-tuple) and the empty context is ().

`Let` and `Build` extend their input context by one variable (``t |> x`` in
Fig. 10), so they record the arity ``n`` of their input context: that is what
tells a one-variable context (a bare value) from an n-tuple.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from .._node import Node, node
from ..lang.terms import ArrayValue, Var
from ..lang.types import Type


class CL(Node):
    __slots__ = ()

    def __str__(self) -> str:
        from .printer import show
        return show(self)


@node
class Identity(CL):
    """I : S => S."""


@node
class Konst(CL):
    """K(k) : S => T, the constant k whatever the input."""

    value: Any
    ty: Type

    def __post_init__(self):  # (Node's does nothing: not called, as a core Const does not)
        if isinstance(self.value, np.ndarray):
            object.__setattr__(self, "value", ArrayValue(self.value))

    @property
    def py_value(self) -> Any:
        return self.value.array if isinstance(self.value, ArrayValue) else self.value


@node
class Prune(CL):
    """P[i1..im/n] : (s1..sn) => (s_i1..s_im); indices are 0-based here, printed 1-based."""

    indices: tuple[int, ...]
    n: int


@node
class Proj(CL):
    """The selection function pi_{i,n} of notes Fig. 2 on a tuple value (0-based index)."""

    index: int
    n: int


@node
class Call(CL):
    """F(f) : S => T, a call of primitive or user function f on its input.

    ``nargs`` says how f takes its input: with two or more arguments the input is
    the tuple of them, with one it is the argument itself, with none it is ().
    """

    fn: str
    nargs: int
    ty: Type


@node
class Compose(CL):
    """c1 ; c2 : S => T, first c1 then c2 (t <> (c1; c2) = (t <> c1) <> c2)."""

    first: CL
    second: CL


@node
class Tuple(CL):
    """(c1, ..., cn) : S => (T1, ..., Tn)."""

    items: tuple[CL, ...]


@node
class If(CL):
    """IF(c1, c2, c3) : S => T."""

    cond: CL
    then: CL
    orelse: CL


@node
class Let(CL):
    """L(x, c_r, c_b) : S => T with c_r : S => R and c_b : (S |> R) => T."""

    var: Var
    rhs: CL
    body: CL
    n: int


@node
class Build(CL):
    """B(c_s, i, c_e) : S => Vec T with c_s : S => Int and c_e : (S |> Int) => T.

    ``elem`` is T, recorded so that an empty build still has its element type."""

    size: CL
    var: Var
    body: CL
    n: int
    elem: Type


@node
class Fold(CL):
    """FOLD(c_a, c_v, t, c_e) : S => A with c_a : S => A, c_v : S => Vec B and
    c_e : (S |> (A, B)) => A: fold (\\t. e) acc v of notes Fig. 12, its lambda's body
    converted under the fold's context extended by t, as a build's is by its index."""

    acc: CL
    vec: CL
    var: Var
    body: CL
    n: int


@node
class Scan(CL):
    """SCAN(c_a, c_v, t, c_e) : S => Vec A, as FOLD but keeping every accumulator (catad.lang.fold's
    Scan: [acc_0, ..., acc_n])."""

    acc: CL
    vec: CL
    var: Var
    body: CL
    n: int


@node
class WhileCount(CL):
    """WHILE(c_a, t, c_c, c_e) : S => Int with c_a : S => A, c_c : (S |> (A, Int)) => Bool and
    c_e : (S |> (A, Int)) => A: the steps of ``while c_c: acc = c_e`` from c_a (catad.lang.fold's
    WhileCount), its lambdas converted under the context extended by t, as FOLD's is."""

    acc: CL
    var: Var
    cond: CL
    body: CL
    n: int


@node
class CLDef(Node):
    """``f : S => T = c`` where S is the context of the parameters."""

    name: str
    params: tuple[Var, ...]
    body: CL
    result_type: Type

    def __str__(self) -> str:
        from .printer import show_def
        return show_def(self)


@node
class CLProgram(Node):
    defs: tuple[CLDef, ...]
    entry: str

    def lookup(self, name: str) -> CLDef | None:
        for d in self.defs:
            if d.name == name:
                return d
        return None

    @property
    def main(self) -> CLDef:
        d = self.lookup(self.entry)
        assert d is not None
        return d

    def __str__(self) -> str:
        return "\n\n".join(str(d) for d in self.defs)


def compose(c1: CL, c2: CL) -> CL:
    """c1 ; c2, dropping identities (as the Knossos mkCLComp does)."""
    if isinstance(c1, Identity):
        return c2
    if isinstance(c2, Identity):
        return c1
    return Compose(c1, c2)


# ---------------------------------------------------------------- contexts at run time

def make_context(values: list | tuple) -> Any:
    """The value of a context of len(values) variables (a bare value when there is one)."""
    return values[0] if len(values) == 1 else tuple(values)


def split_context(t: Any, n: int) -> tuple:
    """The n component values of a context value of arity n."""
    return (t,) if n == 1 else tuple(t)


def snoc(t: Any, n: int, x: Any) -> Any:
    """t |> x: the context t of arity n extended by x (notes Fig. 10)."""
    return make_context(split_context(t, n) + (x,))
