"""The rewriting each stage of the pipeline does (catad.pipeline strings them together):

    optimise     the Jacobian simplified by the catalogue's laws (jacobian-optimised)
    transposed   its result map transposed, the transposes pushed inwards (jacobian-transposed)
    finish       a swept program optimised, CSE'd and cleaned up (forward, reverse)

Each records its steps in `trace`.
"""
from __future__ import annotations

from ..lang.terms import Def, Tuple, let_chain, make_lets
from ..linearmaps import terms as L
from .catalogue import RULES
from .cleanup import cse_def, dead_code_def, inline_single_use_def
from .engine import Rewriter


def optimise(d: Def, stage: str, trace: list) -> Def:
    return Def(d.name, d.params, Rewriter(RULES, stage, trace).normalize(d.body), d.loc)


def transposed(d: Def, trace: list) -> Def:
    """R$f: the Jacobian with its result map transposed, the transposes pushed inwards
    by the laws of Fig. 5 (a transposed let-bound map stays a transposed variable)."""
    lets, final = let_chain(d.body)
    t, m = final.items
    body = make_lets([(lt.var, lt.rhs) for lt in lets], Tuple((t, L.Transpose(m))))
    out = Rewriter(RULES, "jacobian-transposed", trace).normalize(body)
    return Def("R$" + d.name.removeprefix("D$"), d.params, out, d.loc)


def finish(d: Def, stage: str, trace: list) -> Def:
    """Optimise, then CSE and dead-code elimination (the notes' last step), then put back
    what ANF bound but is used once, so only shared values stay let-bound."""
    return inline_single_use_def(dead_code_def(cse_def(dead_code_def(optimise(d, stage, trace)), trace, stage)))


__all__ = ["finish", "optimise", "transposed"]
