"""The rewriting each stage of the pipeline does (catad.pipeline strings them together):

    optimise     the Jacobian simplified by the catalogue's laws (jacobian-optimised)
    transposed   its result map transposed, the transposes pushed inwards (jacobian-transposed)
    finish       a swept program optimised, CSE'd and cleaned up (forward, reverse)

Each records its steps in `trace`.
"""
from __future__ import annotations

from ..lang.names import FreshNames
from ..lang.terms import Def, Tuple, let_chain, make_lets
from ..linearmaps import terms as L
from .catalogue import RULES
from .cleanup import cse_counted, cse_def, cse_zero, dead_code_inline_def, dead_code_inline_redex
from .engine import NormalMarks, Rewriter


def optimise(d: Def, stage: str, trace: list, normal: NormalMarks | None = None) -> Def:
    return optimised(d, stage, trace, normal)[0]


def optimised(d: Def, stage: str, trace: list, normal: NormalMarks | None = None) -> tuple[Def, NormalMarks]:
    """optimise's result and the marks of the terms the rewriting left normal (every term of
    the result among them): a later stage's rewriting starts from them (NormalMarks(base=...))."""
    rw = Rewriter(RULES, stage, trace, normal)
    return Def(d.name, d.params, rw.normalize(d.body), d.loc), rw.normal


def transposed(d: Def, trace: list, normal: NormalMarks | None = None) -> Def:
    """R$f: the Jacobian with its result map transposed, the transposes pushed inwards
    by the laws of Fig. 5 (a transposed let-bound map stays a transposed variable)."""
    lets, final = let_chain(d.body)
    t, m = final.items
    body = make_lets([(lt.var, lt.rhs) for lt in lets], Tuple((t, L.Transpose(m))))
    out = Rewriter(RULES, "jacobian-transposed", trace, normal).normalize(body)
    return Def("R$" + d.name.removeprefix("D$"), d.params, out, d.loc)


def finish(d: Def, stage: str, trace: list, normal: NormalMarks | None = None,
           names: FreshNames | None = None) -> Def:
    """Optimise (visiting only what is not known normal), then CSE and dead-code elimination
    (the notes' last step), then put back what ANF bound but is used once, so only shared
    values stay let-bound. (Optimising leaves no dead let: the let-dead rule is tried at
    every let it makes, bottom-up, and a let it does not make was left normal, so without
    one, by an earlier normalisation; only CSE can make more.)

    `names` (the sweep's, sweeps.sweep_names) holds every name of d, so CSE's ANF takes its
    names (t1, t2, ...) from it without a walk of d: the names the rules make on the way
    (fresh_index's i0, i1, ...; names with a '$') are never ANF's."""
    d = optimise(d, stage, trace, normal)
    for _ in range(ROUNDS):  # a derivative program differentiated again binds zero tangents to variables:
        d, zero, counts = cse_counted(d, trace, stage, names)  # CSE writes them where they are used,
        if not zero:                                            # where the rules remove them
            break
        d = optimise(d, stage, trace, normal)
    else:
        d, _, counts = cse_counted(d, trace, stage, names)
    # redex: zero_redex(d), told by the passes; counts: CSE's of the uses (no dead-code walk)
    d, redex = dead_code_inline_redex(d, counts)
    for _ in range(ROUNDS):  # the inliner wrote one where it is used: the rules remove it, and the
        if not redex:        # inliner may write another (a zero's build whose size reads the zero),
            break            # as many rounds as the program nests them (five, a random program's)
        before = d
        d, redex = dead_code_inline_redex(cse_def(optimise(d, stage, trace, normal), trace, stage, names))
        if d.body == before.body:  # one the rules do not remove: no round will
            break
    return d


# rounds of each of finish's loops at most (a program needs as many as it nests what they remove)
ROUNDS = 64


class StepCount:
    """A trace that keeps no steps, only their number: the rewriting of a stage whose
    derivation nobody will read (grad's), which must not keep every intermediate term alive."""

    __slots__ = ("n",)

    def __init__(self) -> None:
        self.n = 0

    def append(self, step) -> None:
        self.n += 1

    def __len__(self) -> int:
        return self.n


__all__ = ["StepCount", "finish", "optimise", "optimised", "transposed"]
