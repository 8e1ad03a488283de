"""The stages of notes Section 3, from a Python function to derivative programs.

    source -> core -> anf -> cl -> jacobian -> jacobian-optimised -> jacobian-transposed
           -> forward (lmApply pushed through, optimised, CSE'd)
           -> reverse (lmApplyR pushed through, optimised, CSE'd)

User functions are inlined before differentiating (notes Section 5.4), so the
Jacobian is one definition whose let-bound linear maps are all shared.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..ad import jacobian_program
from ..combinators import to_cl_program
from ..lang.inline import inline_program
from ..lang.terms import Def, Program, Tuple, let_chain, make_lets
from ..linearmaps import terms as L
from .catalogue import RULES
from .cleanup import cse_def, dead_code_def, inline_single_use_def
from .engine import Rewriter
from .sweeps import forward_derivative, reverse_derivative

# The stages of catad.explain, in order; the last, "code", is the backend's output.
STAGES = ("source", "core", "anf", "cl", "jacobian", "jacobian-optimised", "jacobian-transposed",
          "forward", "reverse", "code")


@dataclass
class Pipeline:
    """Every stage's program for one function and signature, and the rewrite trace."""

    core: Program
    anf: Program
    cl: object
    jacobian: Def
    jacobian_optimised: Def
    jacobian_transposed: Def
    forward: Def
    reverse: Def
    trace: list = field(default_factory=list)


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


def run_pipeline(core: Program, anf: Program) -> Pipeline:
    trace: list = []
    inlined = inline_program(core)
    cl = to_cl_program(inlined)
    jac = jacobian_program(cl).main
    jac_opt = optimise(jac, "jacobian-optimised", trace)
    jac_t = transposed(jac_opt, trace)
    fwd = finish(forward_derivative(jac_opt, trace), "forward", trace)
    rev = finish(reverse_derivative(jac_opt, trace), "reverse", trace)
    return Pipeline(core, anf, to_cl_program(core), jac, jac_opt, jac_t, fwd, rev, trace)


__all__ = ["Pipeline", "STAGES", "run_pipeline"]
