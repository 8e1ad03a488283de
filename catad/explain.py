"""``catad.explain``: every stage of a derivation, and every rewrite step, for people.

    d = catad.explain(f, 2.0)
    print(d)                      # each stage, as the notes' Section 9 demo prints them
    d.stage("reverse").text       # one stage
    [s.rule for s in d.steps]     # the rules that fired, in order
    d.latex(); d.to_json()
"""
from __future__ import annotations

import inspect
import json
import textwrap
from dataclasses import dataclass
from typing import Any, Callable

from .errors import CatadError
from .pipeline import STAGES, Pipeline, pipeline
from .rewrite.engine import RewriteStep

TITLES = {
    "source": "Original definition (Python)",
    "core": "Core program",
    "anf": "Anf-ised original definition",
    "cl": "Combinator language CL (notes Fig. 9-10)",
    "jacobian": "The full Jacobian (unoptimised)",
    "jacobian-optimised": "The full Jacobian (optimised)",
    "jacobian-transposed": "Transposed Jacobian (optimised)",
    "forward": "Forward-mode derivative (optimised, CSE'd)",
    "reverse": "Reverse-mode derivative (optimised, CSE'd)",
    "code": "Compiled NumPy code (catad.backend)",
}


@dataclass(frozen=True)
class Stage:
    name: str
    title: str
    text: str


class Derivation:
    """The stages (``.stages``, in pipeline order; names in :data:`STAGES`) and rewrite
    steps (``.steps``: RewriteStep with ``.rule``, ``.stage``, ``.before``, ``.after``)."""

    def __init__(self, function: str, stages: list[Stage], steps: list[RewriteStep], pipeline: Pipeline):
        self.function = function
        self.stages = stages
        self.steps = steps
        self.pipeline = pipeline

    def stage(self, name: str) -> Stage:
        for s in self.stages:
            if s.name == name:
                return s
        raise CatadError(f"no stage {name!r}; the stages are {', '.join(s.name for s in self.stages)}",
                         construct="stage")

    def __str__(self) -> str:
        parts = []
        for s in self.stages:
            parts.append(f"{'-' * 60}\n{s.title}\n{'-' * 60}\n{s.text}\n")
        return "\n".join(parts)

    def trace_text(self) -> str:
        lines = []
        for k, s in enumerate(self.steps, 1):
            lines.append(f"{k:4}. [{s.stage}] {s.rule}: {_one_line(s.before)}  ==>  {_one_line(s.after)}")
        return "\n".join(lines)

    def latex(self) -> str:
        out = [f"% catad derivation of {self.function}"]
        for s in self.stages:
            out.append(f"\\subsection*{{{_tex_escape(s.title)}}}")
            out.append("\\begin{verbatim}\n" + s.text + "\n\\end{verbatim}")
        if self.steps:
            out.append("\\subsection*{Rewrite steps}")
            out.append("\\begin{enumerate}")
            for s in self.steps:
                out.append(f"\\item \\texttt{{{_tex_escape(s.rule)}}} ({_tex_escape(s.stage)}): "
                           f"\\verb|{_one_line(s.before)}| $\\Rightarrow$ \\verb|{_one_line(s.after)}|")
            out.append("\\end{enumerate}")
        return "\n".join(out)

    def to_json(self) -> str:
        return json.dumps({
            "function": self.function,
            "stages": [{"name": s.name, "title": s.title, "text": s.text} for s in self.stages],
            "steps": [{"rule": s.rule, "stage": s.stage, "before": _one_line(s.before), "after": _one_line(s.after)}
                      for s in self.steps],
        }, indent=1)

    def __repr__(self) -> str:
        return f"<Derivation of {self.function}: {len(self.stages)} stages, {len(self.steps)} steps>"


def _one_line(t: Any) -> str:
    return " ".join(str(t).split())


def _tex_escape(s: str) -> str:
    return s.replace("\\", r"\textbackslash{}").replace("_", r"\_").replace("$", r"\$").replace("&", r"\&")


def code_text(p: Pipeline) -> str:
    """The generated NumPy source of the function and of its forward and reverse derivatives,
    and every place where it is not whole-array code (a Python loop, with its source line)."""
    parts, notes = [], []
    for which, title in (("primal", "the function"), ("forward", "its forward derivative (jvp)"),
                         ("reverse", "its reverse derivative (vjp, grad)")):
        c = p.code(which)
        parts.append(f"# {title}\n{c.source}")
        notes += [f"# {which}: {line}" for line in c.report().splitlines()]
    notes = notes or ["# every build, sum and index is whole-array NumPy: no Python loops"]
    return "\n".join(parts) + "\n" + "\n".join(notes)


def explain(fn: Callable, *example_args: Any) -> Derivation:
    """The derivation of fn's derivatives at the types of example_args, stage by stage."""
    pl = pipeline(fn, *example_args)
    try:
        source = textwrap.dedent(inspect.getsource(fn)).rstrip()
    except (OSError, TypeError):
        source = "(source not available)"
    texts = {"source": source, "core": str(pl.core), "anf": str(pl.anf), "cl": str(pl.cl),
             "jacobian": str(pl.jacobian), "jacobian-optimised": str(pl.jacobian_optimised),
             "jacobian-transposed": str(pl.jacobian_transposed), "forward": str(pl.forward),
             "reverse": str(pl.reverse), "code": code_text(pl)}
    stages = [Stage(name, TITLES[name], texts[name]) for name in STAGES]
    steps = [RewriteStep(name, stage, path, before, after) for name, stage, path, before, after in pl.trace]
    return Derivation(getattr(fn, "__name__", "f"), stages, steps, pl)
