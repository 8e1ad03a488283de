"""The stages of notes Section 3, from a Python function to derivative programs.

    source -> core -> anf -> cl -> jacobian -> jacobian-optimised -> jacobian-transposed
           -> forward (lmApply pushed through, optimised, CSE'd)
           -> reverse (lmApplyR pushed through, optimised, CSE'd)

User functions are inlined before differentiating (notes Section 5.4), so the
Jacobian is one definition whose let-bound linear maps are all shared.
"""
from __future__ import annotations

import functools

from .._node import paused_gc, walk
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
_TRACED = ("jacobian-optimised", "jacobian-transposed", "forward", "reverse")  # the stages that rewrite


def _lazy_stage(compute):
    """A stage computed when first read, then kept; with the cyclic garbage collector
    paused, as for the stages computed at once (catad.api)."""
    @functools.wraps(compute)
    def get(self):
        with paused_gc():
            return compute(self)
    return functools.cached_property(get)


class Pipeline:
    """Every stage's program for one function and signature, and the rewrite trace.

    The stages up to the optimised Jacobian are computed at once; the CL of the
    un-inlined program, the transposed Jacobian and the forward and reverse programs
    when first read (each a pure function of the optimised Jacobian, so the order they
    are computed in changes nothing): grad needs only the reverse program, and the
    forward one costs about as much again.
    """

    def __init__(self, core: Program, anf: Program):
        self.core, self.anf = core, anf
        self._traces: dict[str, list] = {}  # stage -> its steps, once the stage is computed
        self.jacobian: Def = jacobian_program(to_cl_program(inline_program(core))).main
        self.jacobian_optimised: Def = self._traced("jacobian-optimised", lambda trace: optimise(
            self.jacobian, "jacobian-optimised", trace))
        # what the optimised Jacobian holds is normal: the later stages visit only what they make
        self._normal = _normal_memo(self.jacobian_optimised.body)

    def _traced(self, stage: str, compute):
        """compute(trace), its steps kept as the stage's only when it succeeds."""
        trace: list = []
        out = compute(trace)
        self._traces[stage] = trace
        return out

    @_lazy_stage
    def cl(self):
        return to_cl_program(self.core)

    @_lazy_stage
    def jacobian_transposed(self) -> Def:
        return self._traced("jacobian-transposed", lambda trace: transposed(self.jacobian_optimised, trace,
                                                                            dict(self._normal)))

    @_lazy_stage
    def forward(self) -> Def:
        normal = dict(self._normal)  # each stage adds to its own copy
        return self._traced("forward", lambda trace: finish(
            forward_derivative(self.jacobian_optimised, trace, normal), "forward", trace, normal))

    @_lazy_stage
    def reverse(self) -> Def:
        normal = dict(self._normal)
        return self._traced("reverse", lambda trace: finish(
            reverse_derivative(self.jacobian_optimised, trace, normal), "reverse", trace, normal))

    @property
    def trace(self) -> list:
        """Every rewrite step of every stage, in the order of the stages (the stages not
        computed yet are computed first)."""
        for stage in _TRACED[1:]:
            getattr(self, stage.replace("-", "_"))
        return [step for stage in _TRACED for step in self._traces[stage]]


def optimise(d: Def, stage: str, trace: list, normal: dict | None = None) -> Def:
    return Def(d.name, d.params, Rewriter(RULES, stage, trace, normal).normalize(d.body), d.loc)


def _normal_memo(t) -> dict:
    """Every subterm of t (the output of a normalisation: all of them normal), by id."""
    return {id(n): n for n in walk(t)}


def transposed(d: Def, trace: list, normal: dict | None = None) -> Def:
    """R$f: the Jacobian with its result map transposed, the transposes pushed inwards
    by the laws of Fig. 5 (a transposed let-bound map stays a transposed variable)."""
    lets, final = let_chain(d.body)
    t, m = final.items
    body = make_lets([(lt.var, lt.rhs) for lt in lets], Tuple((t, L.Transpose(m))))
    out = Rewriter(RULES, "jacobian-transposed", trace, normal).normalize(body)
    return Def("R$" + d.name.removeprefix("D$"), d.params, out, d.loc)


def finish(d: Def, stage: str, trace: list, normal: dict | None = None) -> Def:
    """Optimise (visiting only what is not known normal), then CSE and dead-code elimination
    (the notes' last step), then put back what ANF bound but is used once, so only shared
    values stay let-bound."""
    return inline_single_use_def(dead_code_def(cse_def(dead_code_def(optimise(d, stage, trace, normal)),
                                                       trace, stage)))


def run_pipeline(core: Program, anf: Program) -> Pipeline:
    return Pipeline(core, anf)


__all__ = ["Pipeline", "STAGES", "run_pipeline"]
