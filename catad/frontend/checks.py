"""Where the run-time checks of the front end go.

A ``check`` (the primitive ``check(cond, data, site)``) runs where Python would raise: before
the statement that needs it when it reads only what is known there (the lowerer puts a
:class:`Statement`'s checks before its own bindings); once before a comprehension for an index
linear in the comprehensions' indices that is not proven in range (a :class:`Frame` collects
those, see indexing.py's ``hoist``); otherwise where the operation is. A check that runs
unconditionally makes the sizes it compares equal for the code after it.

``Checks`` is a part of :class:`catad.frontend.build.Builder`.
"""
from __future__ import annotations

from ..errors import Loc, Site as Site_
from ..lang.terms import Const, Term, Tuple, Var, free_vars
from ..lang.types import Site, Unit
from ..primitives import prim
from .shapes import fresh


def _ints(data) -> Term:
    """A check's data (Int, Float or Bool terms in nested Python tuples) as a term."""
    return Tuple(tuple(_ints(x) for x in data)) if isinstance(data, tuple) else data


class Frame:
    """A comprehension being lowered: its index variable, its size, how many conditionals are
    around it, and the bounds checks its body hoists out to run once, before it (see
    Builder.hoist)."""

    def __init__(self, var: Var, size: Term, depth: int):
        self.var, self.size, self.depth = var, size, depth
        self.checks: list[tuple] = []  # (variable, check, location)


class Statement:
    """A statement being lowered: the checks that go before it (see Builder.check).

    `raised` says that something lowered in it so far can raise where it is: a check that
    stays at its operation, or a call of a function (whose checks run in its body). A later
    check of the statement then stays where it is too: moved before the statement, it would
    raise first where Python raises the earlier error."""

    def __init__(self, serial: int, depth: int):
        self.serial, self.depth = serial, depth
        self.checks: list[tuple] = []  # (variable, check, location)
        self.raised = False


class Checks:
    """Uses the Builder's names, shapes, frames, branch_depth, statement and var."""

    def check(self, cond: Term, data: tuple, loc: Loc | None, construct: str, message: str,
              kind: str = "shape", equal: tuple = (), raises: type | None = None) -> list[tuple]:
        """The binding of a run-time check to put before the operation (none when cond is True).
        `equal`: pairs of sizes the check makes equal, known from then on where it runs
        unconditionally. `raises`: the exception class of the user's own raise or assert."""
        if isinstance(cond, Const) and cond.value is True:
            return []
        site = Const(Site_(loc, construct, message, kind, raises=raises), Site)
        binding = (self.var(Unit, loc, "_chk"), fresh(prim("check", cond, _ints(data), site, loc=loc), loc), loc)
        local = self.place([binding])
        if not local and not self.frames:
            for a, b in equal:
                self.shapes.learn(a, b)
        return local

    def place(self, bindings: list[tuple]) -> list[tuple]:
        """The checks of bindings that must stay where they are; the others go before the
        whole statement, where the program reads more plainly: those outside comprehensions
        and conditionals that read only what is known before the statement."""
        st = self.statement
        if st is None:
            return bindings
        if self.frames or self.branch_depth != st.depth or st.raised:
            # one that stays in a branch (a conditional expression's) raises before the later ones
            st.raised = st.raised or bool(bindings) and self.branch_depth != st.depth
            return bindings
        local = []
        for b in bindings:
            if not local and all(self.names.serial.get(v.name, 0) <= st.serial for v in free_vars(b[1])):
                st.checks.append(b)
            else:
                local.append(b)
        st.raised = bool(local)
        return local

    def may_raise_here(self) -> None:
        """What was just lowered can raise where it is (a call): the statement's later checks stay
        where they are (see Statement)."""
        if self.statement is not None:
            self.statement.raised = True
