"""``catad.explain``: every stage of a derivation, and every rewrite step, for people.

    d = catad.explain(f, 2.0)
    print(d)                      # each stage, as the notes' Section 9 demo prints them
    d.stage("reverse").text       # one stage
    [s.rule for s in d.steps]     # the rules that fired, in order
    d.text(trace=True); d.latex(); d.to_json()   # each also of one stage: d.latex("reverse")

The Derivation renders itself; the ``catad explain`` command prints what it returns.
"""
from __future__ import annotations

import inspect
import json
import re
import textwrap
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from .distributed.analysis import data_positions, split
from .errors import CatadError
import numpy as np

from .pipeline import STAGES, Pipeline, band_of, band_width, bind, check_checkpoints, pipeline
from .rewrite.catalogue import ALL_BY_NAME
from .rewrite.engine import RewriteStep
from .transforms import innermost, transformation_of

TITLES = {
    "source": "Original definition (Python)",
    "core": "Core program",
    "anf": "Anf-ised original definition",
    "cl": "Combinator language CL (notes Fig. 9-10)",
    "fused": "Calls inlined, chains of builds fused (index of build, Ksc/Opt.hs): the program differentiated",
    "jacobian": "The full Jacobian (unoptimised)",
    "jacobian-optimised": "The full Jacobian (optimised)",
    "jacobian-transposed": "Transposed Jacobian (optimised)",
    "forward": "Forward-mode derivative (optimised, CSE'd)",
    "reverse": "Reverse-mode derivative (optimised, CSE'd)",
    "code": "Compiled NumPy code (catad.backend)",
    "per-chunk": "Per-chunk program (catad.distributed: partial sums over a chunk of rows)",
    "combine": "Combine program (catad.distributed: the value from the partial sums added over chunks)",
}
KINDS = {"source": "python", "cl": "cl", "code": "numpy"}  # every other stage is a core program
RULE_WIDTH = 60  # of the lines around a title


@dataclass(frozen=True)
class Stage:
    """One stage: its `name` (one of :data:`catad.pipeline.STAGES`), `title` and `text`;
    its `kind`, what the text is ("python": the user's source, "core": a core program,
    "cl": a CL program, "numpy": generated Python code); and for a core or CL stage the
    `program` itself (a Program or Def; a CLProgram)."""

    name: str
    title: str
    text: str
    kind: str = "core"
    program: Any = field(default=None, compare=False, repr=False)


class Derivation:
    """The stages (``.stages``, in pipeline order) and rewrite steps (``.steps``:
    RewriteStep with ``.rule``, ``.stage``, ``.before``, ``.after``) of one function at one
    signature; ``.pipeline`` holds the programs themselves. It renders itself as text
    (``str``, :meth:`text`, :meth:`trace_text`), LaTeX (:meth:`latex`) and JSON
    (:meth:`to_json`), each of the whole derivation or of one stage."""

    def __init__(self, function: str, stages: list[Stage], steps: list[RewriteStep], pipeline: Pipeline):
        self.function = function
        self.stages = stages
        self.steps = steps
        self.pipeline = pipeline

    def stage(self, name: str) -> Stage:
        """The stage called `name`: exactly, ignoring case and punctuation, or by a unique prefix."""
        for match in (lambda s: s.name == name, lambda s: _norm(s.name) == _norm(name)):
            hits = [s for s in self.stages if match(s)]
            if hits:
                return hits[0]
        hits = [s for s in self.stages if _norm(name) and _norm(s.name).startswith(_norm(name))]
        if len(hits) == 1:
            return hits[0]
        names = ", ".join(repr(s.name) for s in self.stages)
        raise CatadError(f"no stage {name!r} in the derivation of {self.function}; the stages are {names}",
                         construct="stage")

    def steps_of(self, stage: str | None = None) -> list[RewriteStep]:
        """The rewrite steps of one stage (every step names the stage that took it), or all."""
        if stage is None:
            return list(self.steps)
        name = self.stage(stage).name
        return [s for s in self.steps if s.stage == name]

    def __str__(self) -> str:
        return self.text()

    def text(self, stage: str | None = None, trace: bool = False) -> str:
        """Every stage under its title (or one stage's text alone), and with `trace` the
        rewrite steps (of that stage)."""
        if stage is None:
            out = "\n\n".join(f"{_header(s.title)}\n{s.text}" for s in self.stages)
        else:
            out = self.stage(stage).text
        return out.rstrip("\n") + ("\n\n" + self.trace_text(stage) if trace else "")

    def trace_text(self, stage: str | None = None) -> str:
        """The rewrite steps (of one stage), numbered: rule, stage, the term before and after."""
        steps = self.steps_of(stage)
        lines = [_header(f"Rewrite steps ({len(steps)})")]
        if not steps:
            lines.append("(no rewrite steps)")
        width = len(str(len(steps)))
        for k, step in enumerate(steps, 1):
            lines.append(f"{k:>{width}}. {step.rule}  [{step.stage}]")
            lines.extend(" " * (width + 2) + x for x in _before_after(step))
        return "\n".join(lines)

    def latex(self, stage: str | None = None) -> str:
        """A LaTeX fragment: the stages (or one), each verbatim under its title, then their
        rewrite steps, each with its rule's law (as the catalogue states it)."""
        shown = self.stages if stage is None else [self.stage(stage)]
        out = [f"% catad derivation of {self.function}" + ("" if stage is None else f": {shown[0].name}")]
        for s in shown:
            out.append(f"\\subsection*{{{latex_escape(s.title)}}}\n{_verbatim(s.text)}")
        steps = self.steps_of(stage)
        out.append(f"\\subsection*{{Rewrite steps ({len(steps)})}}")
        if not steps:
            out.append("None.")
            return "\n".join(out)
        out.append("\\begin{enumerate}")
        for step in steps:
            rule = ALL_BY_NAME.get(step.rule)
            law = f": \\( {rule.latex} \\)" if rule is not None and rule.latex else ""
            out.append(f"\\item \\texttt{{{latex_escape(step.rule)}}} ({latex_escape(step.stage)}){law}")
            out.append(_verbatim("\n".join(_before_after(step))))
        out.append("\\end{enumerate}")
        return "\n".join(out)

    def to_json(self, stage: str | None = None) -> str:
        """{"function", "stages": [{"name", "title", "text"}], "steps": [{"rule", "stage",
        "before", "after"}]}, of every stage or of one and its steps."""
        shown = self.stages if stage is None else [self.stage(stage)]
        return json.dumps({
            "function": self.function,
            "stages": [{"name": s.name, "title": s.title, "text": s.text} for s in shown],
            "steps": [{"rule": s.rule, "stage": s.stage, "before": one_line(s.before), "after": one_line(s.after)}
                      for s in self.steps_of(stage)],
        }, indent=2, ensure_ascii=False)

    def __repr__(self) -> str:
        return f"<Derivation of {self.function}: {len(self.stages)} stages, {len(self.steps)} steps>"


def _norm(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _header(title: str) -> str:
    return f"{'-' * RULE_WIDTH}\n{title}\n{'-' * RULE_WIDTH}"


def _before_after(step: RewriteStep) -> list[str]:
    """   before
    -> after      (continuation lines of either side indented to match)"""
    before = str(step.before).splitlines() or [""]
    after = str(step.after).splitlines() or [""]
    return ([f"   {before[0]}"] + [f"   {x}" for x in before[1:]]
            + [f"-> {after[0]}"] + [f"   {x}" for x in after[1:]])


def one_line(t: Any) -> str:
    return " ".join(str(t).split())


_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
    "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}",
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}",
}


def latex_escape(text: str) -> str:
    """text for LaTeX's text mode (the notes' ASCII notation included: |><|, <, >)."""
    return "".join(_LATEX_SPECIALS.get(c, c) for c in str(text))


def _verbatim(text: str) -> str:
    return "\\begin{verbatim}\n" + str(text).rstrip("\n") + "\n\\end{verbatim}"


def code_text(p: Pipeline, checkpoints: int | None = None) -> str:
    """The generated NumPy source of the function and of its forward and reverse derivatives,
    every place where it is not whole-array code (a Python loop, with its source line), and
    for a reverse derivative with loops, how they keep their states (`checkpoints`)."""
    parts, notes = [], []
    for which, title in (("primal", "the function"), ("forward", "its forward derivative (jvp)"),
                         ("reverse", "its reverse derivative (vjp, grad)")):
        c = p.code(which, checkpoints=checkpoints)
        parts.append(f"# {title}\n{c.source}")
        notes += [f"# {which}: {line}" for line in c.report().splitlines()]
        if which == "reverse" and c.reverse_loops:
            notes.append(f"# reverse: {memory_policy(c.checkpoints)}")
    notes = notes or ["# every build, sum and index is whole-array NumPy: no Python loops"]
    notes += [f"# {line}" for line in getattr(p, "loop_notes", ())]  # which loops were vectorised
    return "\n".join(parts) + "\n" + "\n".join(notes)


def memory_policy(checkpoints: int | None) -> str:
    """What a reverse loop keeps, in words."""
    if checkpoints is None:
        return "reverse loops store every iteration's state (memory grows with the iterations; checkpoints=k bounds it)"
    return (f"reverse loops keep at most {checkpoints} state{'s' if checkpoints > 1 else ''} per loop "
            "(binomial checkpointing: the others are recomputed)")


def transformation_text(fn: Callable, p: Pipeline) -> list[str]:
    """What a function made by catad's transformations is, outermost first, in words: the
    function explained is a derivative program (its core stage), whose derivatives (forward,
    reverse) are second derivatives (issue 17); for jacobian, which mode it runs and why."""
    lines, t, q = [], transformation_of(fn), p
    while t is not None:
        name = getattr(innermost(t.fn), "__name__", "f")
        inner = " of a derivative" if transformation_of(t.fn) is not None else ""
        line = f"catad.{t.kind}(..., argnums={t.argnums!r}){inner} of {name}: {_KIND_TEXT[t.kind]}"
        mode = getattr(q, "mode", None)
        if t.kind == "jacobian" and mode is not None:
            line += (f"; here by {mode} mode: one {mode} pass per element of the "
                     f"{'result' if mode == 'reverse' else 'arguments differentiated'}, the fewer passes "
                     f"at these arguments' lengths")
        lines.append(line)
        t, q = transformation_of(t.fn), getattr(q, "inner", None)
    lines.append("the core stage is the derivative program as a program; the forward and reverse stages "
                 "differentiate it again")
    return lines


def structure_text(fn: Callable, args: tuple) -> list[str]:
    """For a Jacobian by columns (hessian, jacfwd, jacobian) of one vector argument and a vector
    result: the band that the forward program shows at these arguments' shapes, and so how many
    forward passes compute it (catad.lang.structure; catad.differentiate fills the dense result)."""
    t = transformation_of(fn)
    if t is None or t.kind not in ("hessian", "jacfwd", "jacobian") or not isinstance(t.argnums, int) \
            or t.checkpoints is not None:
        return []
    b = bind(t.fn, args)
    k = t.argnums % max(1, len(b.args))
    vals = tuple(b.args)
    x = vals[k] if vals else None
    try:  # the band is per shape: the result's is known by running it
        out = b.pipeline.code("primal")(*b.args, *b.hidden)
    except CatadError:  # the function raises at these arguments: explain says so elsewhere
        return []
    if not all(isinstance(a, np.ndarray) and a.ndim == 1 for a in (x, out)):
        return []
    offsets = band_of(b, vals, out, k)
    if offsets is None:
        return ["structure: not shown to be a band (an element of the forward derivative reads the tangent at "
                "an index other than its own plus a constant): one forward pass per element of the basis"]
    w, n = band_width(offsets), np.size(x)
    form = ("zero" if not offsets else "diagonal" if offsets == {0} else
            f"banded, offsets {sorted(offsets)}")
    seeds = "seeded with ones" if w == 1 else f"seeds s_r[j] = [j mod {w} == r]"
    passes = (f"{w} forward pass{'es' if w != 1 else ''} of {t.fn.__name__}'s forward derivative ({seeds}) "
              f"instead of {n}, then the dense result filled"
              if w < n else f"no fewer passes than the basis ({n}): one forward pass per element")
    return [f"structure: the forward derivative's element o reads the tangent only at o + c, c in "
            f"{sorted(offsets)}: the Jacobian is {form}; {passes}"]


_KIND_TEXT = {"grad": "its reverse derivative with the output's cotangent 1.0",
              "value_and_grad": "its value and its reverse derivative with the output's cotangent 1.0",
              "jacrev": "the Jacobian by rows, a reverse pass per element of the result",
              "jacfwd": "the Jacobian by columns, a forward pass per element of the arguments",
              "jacobian": "the Jacobian, by rows or by columns, whichever are fewer",
              "hessian": "jacfwd of jacrev: the Hessian by forward passes over the gradient (forward over "
                         "reverse)",
              "jvp": "its forward derivative"}


def explain(fn: Callable, *example_args: Any, checkpoints: int | None = None,
            data: int | Sequence[int] | None = None) -> Derivation:
    """The derivation of fn's derivatives at the types of example_args, stage by stage; the
    code stage's reverse derivative is compiled with `checkpoints` (as for catad.grad). With
    `data` (the positions of the arguments holding rows of data, as for
    catad.distributed.value_and_grad), two more stages: the per-chunk and combine programs of
    the split by rows (catad.distributed.analysis)."""
    checkpoints = check_checkpoints(checkpoints)
    p = pipeline(fn, *example_args)
    p.record = True  # the stages made from now on keep their rewrite steps (see Pipeline.trace)
    try:
        source = textwrap.dedent(inspect.getsource(innermost(fn))).rstrip()
    except (OSError, TypeError):
        source = "(source not available)"
    if transformation_of(fn) is not None:  # a derivative differentiated again: say which
        lines = transformation_text(fn, p) + structure_text(fn, example_args)
        source = "\n".join(f"# {line}" for line in lines) + "\n" + source
    programs = {"core": p.core, "anf": p.anf, "cl": p.cl, "fused": p.fused, "jacobian": p.jacobian,
                "jacobian-optimised": p.jacobian_optimised, "jacobian-transposed": p.jacobian_transposed,
                "forward": p.forward, "reverse": p.reverse}
    texts = {"source": source, "code": code_text(p, checkpoints), **{name: str(x) for name, x in programs.items()}}
    stages = [Stage(name, TITLES[name], texts[name], KINDS.get(name, "core"), programs.get(name))
              for name in STAGES]
    if data is not None:
        stages += _split_stages(p, data, len(example_args))
    steps = [RewriteStep(name, stage, path, before, after) for name, stage, path, before, after in p.trace]
    return Derivation(getattr(fn, "__name__", "f"), stages, steps, p)


def _split_stages(p: Pipeline, data: Any, nargs: int) -> list[Stage]:
    """The per-chunk and combine programs of p's core program split by the rows of `data`."""
    s = split(p.core, p.n_hidden, data_positions(data, nargs))
    return [Stage("per-chunk", TITLES["per-chunk"], str(s.chunk), "core", s.chunk),
            Stage("combine", TITLES["combine"], str(s.combine), "core", s.combine)]
