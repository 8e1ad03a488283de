"""The pipeline: every stage from a Python function to NumPy code, each made when first
asked for and kept per function and signature (docs/design.md).

    Python ─frontend→ core ─anf→ anf               (shown by explain only)
                      core ─to_cl→ cl               (notes Fig. 9-10)
                      core ─inline, to_cl, ad→ jacobian ─optimise→ jacobian-optimised
        jacobian-optimised ─transposed→ jacobian-transposed
        jacobian-optimised ─forward sweep, finish→ forward
        jacobian-optimised ─reverse sweep, finish→ reverse
      core, forward, reverse ─backend→ code

User functions are inlined before differentiating (notes Section 5.4), so the Jacobian is
one definition whose let-bound linear maps are all shared. Each stage is a pure function
of the ones it is made from, so the order they are asked for changes nothing: grad asks
for the reverse program only, and never makes the ANF, the forward program or the
transposed Jacobian.

:func:`bind` finds the :class:`Pipeline` of a function for its arguments' signature and
for what it reads from globals and closures now (catad.frontend.reads), compiling it
again when none of its pipelines for that signature reads what Python would read now.
"""
from __future__ import annotations

import functools
import weakref
from typing import Any, Callable

import numpy as np

from . import backend, composite, frontend  # their functions looked up when called, so tests can count compiles
from ._node import paused_gc
from .ad import jacobian_program
from .backend import Compiled
from .combinators import CLProgram, check_cl_program, to_cl_program
from .errors import ArgumentError, CatadError, Loc
from .lang.anf import anf_program
from .lang.fusion import fuse_program
from .lang.inline import inline_program
from .lang.names import FreshNames
from .lang.structure import band_offsets
from .lang.terms import Call, Def, Program, compound_subterms
from .lang.typecheck import check_program
from .lang.types import Float, Tuple as TupleT, python_numbers, scalar_of, type_of_value, units_of_value
from .transforms import Transformation, innermost, key_of, mark, transformation_of
from .trees import flat, tree_of
from .rewrite.sweeps import forward_derivative, reverse_derivative, sweep_names
from .rewrite.engine import NormalMarks
from .rewrite.stages import StepCount, finish, optimised, transposed

# The stages of catad.explain, in order; "code" is the backend's output.
STAGES = ("source", "core", "anf", "cl", "fused", "jacobian", "jacobian-optimised", "jacobian-transposed",
          "forward", "reverse", "code")
TRACED = ("jacobian-optimised", "jacobian-transposed", "forward", "reverse")  # the stages that rewrite

# the products of a tangent and a coefficient, which derivative programs hold
_TANGENT_PRODUCTS = frozenset({"tscale", "tmul", "touter", "tdot", "tprod"})

# fn -> signature -> its pipelines, newest first
_CACHE: "weakref.WeakKeyDictionary[Callable, dict]" = weakref.WeakKeyDictionary()
_ENTRIES = 8  # per signature: a global that flips between a few types does not recompile each time


def signature(fn: Callable, args: tuple, trees: tuple = ()) -> tuple:
    """The compile cache's key for these arguments (lists and dicts made tuples, see
    catad.trees): their types, which axes of their arrays have length 1 (NumPy's broadcasting
    depends on it; lengths otherwise do not matter), their trees, and which are Python's own
    numbers (Python's 1.0 / 0.0 raises where NumPy's gives inf)."""
    names = _param_names(fn)
    types = tuple(type_of_value(a, f"argument {names[i]!r}" if i < len(names) else f"argument {i}")
                  for i, a in enumerate(args))
    return types, tuple(units_of_value(a) for a in args), trees, tuple(python_numbers(a) for a in args)


def _param_names(fn: Callable) -> list[str]:
    fn = innermost(fn)  # a function made by a transformation takes f's arguments
    code = getattr(fn, "__code__", None)
    names = list(code.co_varnames[:code.co_argcount]) if code else []
    return names[1:] if getattr(fn, "__self__", None) is not None else names  # a bound method: after self


def _stage(make):
    """A stage made when first read, then kept; with the cyclic garbage collector paused
    (see catad._node.paused_gc)."""
    @functools.wraps(make)
    def get(self):
        with paused_gc():
            return make(self)
    return functools.cached_property(get)


def _fused(core: Program) -> Program:
    """The program the AD differentiates: core's calls inlined, its chains of builds fused."""
    return fuse_program(inline_program(core))


class Pipeline:
    """One function compiled for one signature and what it read from Python: its core
    program, what must still hold for it to be current (`reads`), and every later stage
    (the attributes below, and :meth:`code`), each made when first asked for.

    The core program's parameters are the function's own, then the hidden ones that carry
    the values it reads from globals and closures (`reads.hidden`)."""

    def __init__(self, core: Program, reads: Any, record: bool = False, trees: tuple = (),
                 result_tree: Any = None):
        self.core, self.reads = core, reads
        # the structure of each list or dict argument and of a list or dict result (catad.trees)
        self.trees, self.result_tree = trees, result_tree
        # Whether the rewriting stages keep their steps. grad has no use for them, and they
        # hold every intermediate term alive (a third of a long program's memory); explain
        # sets it before asking for the stages (see `trace`).
        self.record = record
        self._traces: dict[str, list] = {}  # stage -> its rewrite steps, once the stage is made
        self._code: dict[tuple, Compiled] = {}
        # the front end's program before its independent loops were vectorised (None when
        # none was): the order of its errors is Python's (see `sequential_code`)
        self.sequential: Program | None = None

    @property
    def n_hidden(self) -> int:
        return len(self.reads.hidden)

    @_stage
    def anf(self) -> Program:
        return anf_program(self.core)

    @_stage
    def cl(self) -> CLProgram:
        program = to_cl_program(self.core)
        check_cl_program(program)
        return program

    @_stage
    def fused(self) -> Program:
        """The core program with its calls inlined and its chains of builds fused
        (catad.lang.fusion): the program the AD differentiates."""
        return _fused(self.core)

    def _jacobian_program(self) -> Program:
        # not type-checked here (tests/test_explain.py checks it): grad pays for what it uses,
        # and keeps no fused program it does not ask for again
        names: dict = {}
        fused = self.fused if "fused" in vars(self) else _fused(self.core)
        program = jacobian_program(to_cl_program(fused), names)
        self._jacobian_names = names[program.main.name]  # the same set each time it is made again
        return program

    def _sweep_names(self) -> FreshNames:
        """Names for a sweep of the optimised Jacobian and the finishing of its result: none of
        those the AD handed out, which are all the Jacobian's but those rewriting makes, never a
        sweep's or ANF's (sweeps.sweep_names, without its walk of the Jacobian). The sweep takes
        its names from their set: a copy when recording; else the set itself, let go of with
        the Jacobian after the sweep (both made again if another stage asks)."""
        self.jacobian_optimised
        taken = self.__dict__.get("_jacobian_names") if self.record else self.__dict__.pop("_jacobian_names", None)
        if taken is None:  # a sweep of this Jacobian failed after taking them: walk it for its names
            return sweep_names(self.jacobian_optimised)
        names = FreshNames()
        names.taken = set(taken) if self.record else taken
        return names

    @_stage
    def jacobian_program(self) -> Program:
        """D$f, f's callees inlined: f's value and full Jacobian (reference semantics:
        catad.lang.evaluate gives the Jacobian as a linear-map value)."""
        return self._jacobian_program()

    @property
    def jacobian(self) -> Def:
        return self.jacobian_program.main

    @_stage
    def jacobian_optimised(self) -> Def:
        # grad (not recording) does not keep the Jacobian it optimises: what optimising
        # rewrote would stay alive beside the later stages (made again if asked for)
        jac = (self.jacobian if self.record or "jacobian_program" in vars(self)
               else self._jacobian_program().main)
        def make(trace):
            out, self._normal = optimised(jac, "jacobian-optimised", trace)
            return out
        return self._traced("jacobian-optimised", make)

    def normal(self) -> NormalMarks:
        """Marks for a later stage's rewriting, whose base is the optimising's: the optimised
        Jacobian's terms are known to be normal, so the stage visits only what its sweep
        makes (see catad.rewrite.engine.Rewriter); each stage marks what it makes its own way."""
        self.jacobian_optimised
        return NormalMarks(self._normal)

    @_stage
    def jacobian_transposed(self) -> Def:
        return self._traced("jacobian-transposed", lambda trace: transposed(self.jacobian_optimised, trace,
                                                                            self.normal()))

    @_stage
    def forward(self) -> Def:
        normal = self.normal()

        def make(trace):
            names = self._sweep_names()  # the finishing's too: no walk of its own
            swept = self._let_go_of_jacobian(forward_derivative(self.jacobian_optimised, trace, normal, names))
            return finish(swept.pop(), "forward", trace, normal, names)
        return self._traced("forward", make)

    @_stage
    def reverse(self) -> Def:
        normal = self.normal()

        def make(trace):
            names = self._sweep_names()  # the finishing's too: no walk of its own
            swept = self._let_go_of_jacobian(reverse_derivative(self.jacobian_optimised, trace, normal, names))
            return finish(swept.pop(), "reverse", trace, normal, names)
        return self._traced("reverse", make)

    def _let_go_of_jacobian(self, swept: Def) -> list[Def]:
        """[swept], the program swept from the optimised Jacobian, in a list that finishing
        empties (each pass of `finish` lets go of its input). Not recording (grad, jvp), the
        optimised Jacobian is not kept either: beside the swept program and what finishing
        makes of it, it is about a third of a long program's memory (made again if another
        stage asks for it)."""
        if not self.record:
            self.__dict__.pop("jacobian_optimised", None)
        return [swept]

    def _traced(self, stage: str, make):
        """make(trace); when recording, its steps are kept as the stage's (when it succeeds),
        else only counted (the rewrite engine's step limit reads the count)."""
        trace = [] if self.record else StepCount()
        out = make(trace)
        if self.record:
            self._traces[stage] = trace
        return out

    @property
    def trace(self) -> list:
        """Every rewrite step of every stage, in the order of the stages, as tuples (rule,
        stage, path, before, after) (the stages not made yet are made first). A stage made
        before recording was asked for is made again by a recording twin, whose stages are
        equal to these (each stage is a pure function of the core program)."""
        self.record = True
        for stage in TRACED:
            getattr(self, stage.replace("-", "_"))
        if any(stage not in self._traces for stage in TRACED):
            twin = Pipeline(self.core, self.reads, True, self.trees, self.result_tree)
            twin.trace
            self._traces = twin._traces
        return [step for stage in TRACED for step in self._traces[stage]]

    def code(self, which: str, wrt: tuple[int, ...] | None = None, zero_safe: bool = False,
             checkpoints: int | None = None, tangent_only: bool = False, zero: tuple[int, ...] = ()) -> Compiled:
        """The "primal", "forward" or "reverse" program compiled to NumPy (catad.backend).
        A reverse program with `wrt` computes only the cotangents of those of the user's
        parameters (the others are the zero tangent). Its parameters: the user's, the hidden
        ones, and for forward their tangents and for reverse the output's cotangent. With
        `zero_safe`, the variant whose tangent products are 0 wherever the tangent is 0
        (catad.tangents.times). With `checkpoints` k (a reverse program only: the others have
        no reverse loop and ignore it), each reverse loop keeps at most k of its states and
        recomputes the rest (catad.backend.checkpoint); None keeps them all. A forward program
        with `tangent_only` computes the tangent alone (its output is the zero tangent: what hvp
        needs of the gradient's forward program), and with `zero` (positions of the user's
        parameters) takes those parameters' tangents to be the zero tangent, its products with
        them dropped while compiling (hvp's tangents of the data)."""
        checkpoints = check_checkpoints(checkpoints) if which == "reverse" else None
        if which != "forward":
            tangent_only, zero = False, ()
        key = (which, None if wrt is None else tuple(sorted(set(wrt))), zero_safe, checkpoints, tangent_only,
               tuple(sorted(set(zero))))
        if key not in self._code:
            # the usual variant, if compiled: the zero-safe one may be its code (compile_def's twin)
            twin = self._code.get(key[:2] + (False,) + key[3:]) if zero_safe else None
            # (the transformation's, not a method of the pipeline: its code holding that would be a cycle)
            relocate = functools.partial(_relocated, getattr(self, "transformation", None))
            with paused_gc():
                try:
                    self._code[key] = self._compile(*key, twin=twin)
                except CatadError as e:
                    raise relocate(e) from None
                self._code[key].relocate = relocate
        return self._code[key]

    def _compile(self, which: str, wrt: tuple[int, ...] | None, zero_safe: bool,
                 checkpoints: int | None = None, tangent_only: bool = False, zero: tuple = (),
                 twin: Compiled | None = None) -> Compiled:
        if which == "primal":
            k = getattr(self, "transformation", None)  # a derivative's program: its reverse loops' checkpoints
            # a program holding derivative programs: zero_safe applies to their products
            c = backend.compile_def(inline_program(self.core).main, checkpoints=k and k.checkpoints,
                                    zero_safe=zero_safe and self.holds_derivatives, twin=twin)
            if self.sequential is not None:  # its errors are those of the loops as Python runs them
                c.locate, c.rerun = _weakly(self, lambda p, *a: p.sequential_code(*a)), True
            return c
        n = len(self.core.main.params)
        users = n - self.n_hidden
        if which == "forward":  # the hidden parameters' tangents are zero
            zeros = list(range(n + users, 2 * n)) + [n + k for k in zero]
            c = backend.compile_def(self.forward, n_primal=n, zero_params=zeros, zero_safe=zero_safe,
                                    keep=(False, True) if tangent_only else True, twin=twin)
        else:
            wanted = tuple(k < users and (wrt is None or k in wrt) for k in range(n))
            keep = True if all(wanted) else (True, wanted[0] if n == 1 else wanted)
            c = backend.compile_def(self.reverse, n_primal=n, keep=keep, zero_safe=zero_safe,
                                    checkpoints=checkpoints, twin=twin)
        c.locate = _weakly(self, lambda p, *a: p.code("primal")(*a[:n]))  # the primal program knows the source lines
        c.rerun = self.sequential is not None
        return c

    def band(self, k: int, shapes: tuple) -> frozenset | None:
        """The offsets C of the Jacobian's band with respect to parameter k (a vector), read
        from the forward program (catad.lang.structure): element o of the result's tangent
        reads the tangent of parameter k only at o + c, c in C; None when that cannot be shown.
        `shapes` are those of the parameters at hand (the user's and the hidden ones)."""
        key = (k, shapes)
        bands = self.__dict__.setdefault("_bands", {})
        if key not in bands:
            with paused_gc():
                bands[key] = band_offsets(self.forward, len(self.core.main.params), k, shapes)
        return bands[key]

    @functools.cached_property
    def holds_derivatives(self) -> bool:
        """Whether the program holds a derivative program (a function made by a transformation,
        or one calling catad.grad(f) inside): its tangent products are those of derivatives,
        which have a zero-safe variant (catad.differentiate.primal)."""
        if getattr(self, "transformation", None) is not None:
            return True
        return any(type(t) is Call and t.fn in _TANGENT_PRODUCTS
                   for d in self.core.defs for t in compound_subterms(d.body))

    @_stage
    def sequential_code(self) -> Compiled:
        """The primal program with every loop a fold, as the front end made it: it checks in
        the order Python does, iteration by iteration. Compiled only when a program whose
        loops were vectorised raises, to raise the error Python raises first."""
        return backend.compile_program(self.sequential)


def band_of(b: "Bound", vals: tuple, out: Any, k: int) -> frozenset | None:
    """The offsets of the band of the Jacobian of b's (vector) result with respect to its
    (vector) argument k at these arguments (catad.lang.structure), or None: not a band, or not
    two float vectors."""
    x = vals[k]
    if not (isinstance(x, np.ndarray) and isinstance(out, np.ndarray) and x.ndim == 1 and out.ndim == 1
            and x.dtype.kind == "f" and x.size):
        return None
    shapes = tuple(np.shape(v) if isinstance(v, np.ndarray) else None for v in vals + tuple(b.hidden))
    return b.pipeline.band(k, shapes)


def band_width(offsets: frozenset) -> int:
    """How many seeds (forward passes) recover a band with these offsets: its width."""
    return max(offsets) - min(offsets) + 1 if offsets else 0


def check_checkpoints(k: Any) -> int | None:
    """The `checkpoints` option checked: None (reverse loops keep every state) or an int k >= 1
    (they keep at most k states each)."""
    if k is None:
        return None
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise ArgumentError(f"checkpoints must be None or an int >= 1 (the most states a reverse loop keeps), "
                            f"got {type(k).__name__} {k!r}", construct="checkpoints",
                            hint="e.g. checkpoints=10; None keeps every iteration's state")
    if k < 1:
        raise ArgumentError(f"checkpoints must be at least 1 (a reverse loop keeps at least its initial state), "
                            f"got {int(k)}", construct="checkpoints",
                            hint="e.g. checkpoints=10; None keeps every iteration's state")
    return int(k)


class Bound:
    """fn called on args now: its pipeline for them and the hidden values read now, which
    follow the user's arguments in every compiled program's parameters. `args` are the
    arguments with their lists and dicts made tuples (catad.trees), as compiled code takes
    them; `trees` their structures (None for an argument with no list or dict)."""

    __slots__ = ("fn", "args", "pipeline", "hidden")

    def __init__(self, fn: Callable, args: tuple, pipeline: Pipeline, hidden: tuple):
        self.fn, self.args, self.pipeline, self.hidden = fn, args, pipeline, hidden

    @property
    def trees(self) -> tuple:
        return self.pipeline.trees or (None,) * len(self.args)

    @property
    def core(self) -> Program:
        return self.pipeline.core


def bind(fn: Callable, args: tuple) -> Bound:
    """fn's pipeline for args and the globals and closures as they are now (compiled again
    when none of its pipelines for this signature read what Python would read now)."""
    if not callable(fn):
        raise ArgumentError(f"expected a Python function, got {type(fn).__name__}")
    given = args  # a transformed function binds its function to them as they are
    fast = _plain_key(args)
    known = _PLAIN.get(fast) if fast is not None else None
    if known is not None:
        trees, key = known
    else:
        names = _param_names(fn)
        trees = tuple(tree_of(a, f"argument {names[i]!r}" if i < len(names) else f"argument {i}")
                      for i, a in enumerate(args))
        if any(t is not None for t in trees):
            args = tuple(flat(a, t) for a, t in zip(args, trees))
        else:
            trees = ()
        key = signature(fn, args, trees)
        if fast is not None:
            if len(_PLAIN) > 4096:
                _PLAIN.clear()
            _PLAIN[fast] = trees, key
    t = transformation_of(fn)
    mode = _jacobian_mode(t, given) if t is not None and t.kind == "jacobian" else None
    if mode is not None:
        key = key + (mode,)
    owner, path = key_of(fn)
    if path:  # grad(f) made twice is one function: its pipelines are kept with f's
        key = (path,) + key
    try:
        table = _CACHE.setdefault(owner, {})
    except TypeError:  # not weak-referenceable: do not cache
        table = {}
    pipelines = table.setdefault(key, [])
    for p in pipelines:
        hidden = p.reads.current()
        if hidden is not None:
            return Bound(fn, args, p, hidden)
    p = _compile(fn, args, trees) if t is None else _compile_transformed(t, given, mode)
    hidden = p.reads.current()
    if hidden is None:
        raise CatadError(f"what {getattr(fn, '__name__', 'f')} reads from globals or closures changed while it "
                         "was compiled (a property or a descriptor that gives a new object each time?)",
                         construct="global", hint="read it into a variable and pass it as an argument")
    pipelines.insert(0, p)
    del pipelines[_ENTRIES:]
    return Bound(fn, args, p, hidden)


# the trees and signature of arguments of the plain kinds, by _plain_key (bind: signature's types,
# unit axes and Python numbers cost 11 us at each call of GMM's hvp)
_PLAIN: dict = {}
_INT64_RANGE = range(-2 ** 63, 2 ** 63)


def _plain_key(args: tuple):
    """A key that determines the trees (none) and the signature of arguments that are float64
    arrays of rank 1 or more (by their shape), Python or NumPy floats, Python ints within
    int64, bools, and tuples of these; None when an argument is anything else."""
    out = []
    for a in args:
        ty = type(a)
        if ty is np.ndarray:
            if a.dtype != _F64 or not a.ndim:
                return None
            out.append(a.shape)
        elif ty is float or ty is bool or ty is np.float64 or (ty is int and a in _INT64_RANGE):
            out.append(ty)
        elif ty is tuple:
            inner = _plain_key(a)
            if inner is None:
                return None
            out.append((tuple, inner))
        else:
            return None
    return tuple(out)


_F64 = np.dtype(np.float64)


def _compile(fn: Callable, args: tuple, trees: tuple = ()) -> Pipeline:
    with paused_gc():
        program, reads, result_tree = frontend.compile_with_reads(fn, tuple(args), trees, with_tree=True)
        sequential = program
        program, loops = frontend.vectorise_loops(program)  # independent iterations: builds and sums
        check_program(program)
    p = Pipeline(program, reads, trees=trees, result_tree=result_tree)
    p.loop_notes = loops
    p.sequential = sequential if program is not sequential else None
    return p


def _jacobian_mode(t: Transformation, args: tuple) -> str:
    """How catad.jacobian(f) computes at args: "reverse" (a pass per element of the result) when
    the result has no more elements than the arguments differentiated, else "forward" (a pass
    per element of those arguments). The result's length is known by running f."""
    from .linearmaps.semantics import tangent_size
    b = bind(t.fn, args)
    out = b.pipeline.code("primal")(*b.args, *b.hidden)
    nums = composite.argnums_of(t.argnums, composite.users(b.pipeline.core, b.pipeline.n_hidden))
    return "reverse" if tangent_size(out) <= tangent_size(tuple(b.args[k] for k in nums)) else "forward"


def _compile_transformed(t: Transformation, args: tuple, mode: str | None = None) -> Pipeline:
    """The pipeline of a function made by a catad transformation at args (see _transformed)."""
    return _transformed(t, bind(t.fn, args).pipeline, mode)


def _transformed(t: Transformation, inner: Pipeline, mode: str | None = None) -> Pipeline:
    """The pipeline of t applied to the function whose pipeline is `inner`: its core program is
    made from inner's derivative program (catad.composite), and what that function reads from
    globals and closures is what this one reads (the same hidden values, the same guards: when
    they no longer hold, both are compiled again)."""
    refusal = jacobian_refusal(t.kind, t.fn, inner.core.main.result_type,
                               getattr(inner, "inner", None) and inner.inner.core.main.result_type)
    if refusal is not None:  # (what catad.hessian and catad.jacobian refuse when Python calls them)
        raise located(CatadError(refusal, construct=t.kind), t.fn)
    spec = composite.Inner(inner.core, inner.n_hidden, lambda: inner.forward, lambda: inner.reverse,
                           inner.trees, inner.result_tree)
    with paused_gc():
        try:
            program = composite.program(t, spec, mode)
        except CatadError as e:
            raise located(e, t.fn) from None
        check_program(program)
    p = Pipeline(program, inner.reads, trees=inner.trees, result_tree=composite.result_tree(t, spec))
    p.loop_notes, p.transformation, p.inner, p.mode = [], t, inner, mode
    return p


def jacobian_refusal(kind: str, fn: Callable, result: Any, under: Any = None) -> str | None:
    """Why catad's function `kind` refuses fn, whose result has type `result` (for a Hessian, fn
    is the gradient of the function whose result has type `under`), or None where it does not:
    a Jacobian is of numbers and arrays of floats (jacfwd's, jacrev's and a Hessian's of a tuple of
    them too), not of lists, dicts or nested tuples; a Hessian's function returns a float."""
    if kind == "hessian" and under is not None and under != Float:
        return (f"hessian needs a function returning a float; {getattr(innermost(fn), '__name__', 'f')} returns "
                f"{under} (use jacfwd(jacrev(f)) for the second derivative of a function returning an array)")
    if kind not in ("jacobian", "jacfwd", "jacrev", "hessian"):
        return None
    parts = result.items if isinstance(result, TupleT) else (result,)
    if any(isinstance(x, TupleT) or scalar_of(x) != Float for x in parts) or (kind == "jacobian" and
                                                                               isinstance(result, TupleT)):
        hint = " (differentiate each component, or use vjp)" if isinstance(result, TupleT) else ""
        return (f"{kind} needs a function returning a float or a float array"
                f"{', or a tuple of them' if kind != 'jacobian' else ''}; "
                f"{getattr(fn, '__name__', 'f')} returns {result}{hint}")
    return None


def _relocated(t: Transformation | None, e: CatadError) -> CatadError:
    """e, at the def of the function t transforms (a Compiled's relocate: see Pipeline.code)."""
    return e if t is None else located(e, t.fn)


def _weakly(p: Pipeline, call: Callable) -> Callable:
    """call(p, *args) as a function of the args that refers to p weakly (doing nothing once p is
    gone): what a pipeline's compiled code holds of it, so that the two make no reference cycle
    and a pipeline let go of is freed at once by its count of references, with its programs,
    not at the cyclic collector's next full collection."""
    ref = weakref.ref(p)

    def through(*args):
        q = ref()
        return None if q is None else call(q, *args)
    return through


def located(e: CatadError, fn: Callable) -> CatadError:
    """e at the def of the function a transformation transforms (fn, or the function under fn's
    transformations) when it names no place: derivative programs lose the source's places on
    the way to CL."""
    code = getattr(innermost(fn), "__code__", None)
    if e.loc is not None or code is None:
        return e
    return type(e)(e.message, Loc(code.co_filename, code.co_firstlineno), e.construct, e.hint)


def _typed(fn: Callable, types: tuple, units: tuple, trees: tuple, pys: tuple | None = None) -> Pipeline:
    """fn's pipeline for arguments known by their types and which axes have length 1 (None where
    that is not known): a function the front end finds called inside the one it compiles; `pys`
    says which of them are Python's own numbers (as the front end's python_flags)."""
    t = transformation_of(fn)
    if t is not None:
        return _transformed(t, _typed(t.fn, types, units, trees, pys), "reverse" if t.kind == "jacobian" else None)
    with paused_gc():
        program, reads, result_tree = frontend.compile_with_reads(fn, (None,) * len(types), trees, with_tree=True,
                                                                  signature=(types, units, pys))
        sequential = program
        program, loops = frontend.vectorise_loops(program)
        check_program(program)
    p = Pipeline(program, reads, trees=trees, result_tree=result_tree)
    p.loop_notes = loops
    p.sequential = sequential if program is not sequential else None
    return p


def derived_def(t: Transformation, types: tuple, units: tuple, trees: tuple, pys: tuple | None = None):
    """(Def, Reads, result tree) of the function t makes, for the front end, which compiles a
    call of it inside a function (catad.grad(f)(x) @ v): one definition (its callees inlined),
    whose parameters are f's, then its hidden ones (catad.frontend.program.ProgramCompiler)."""
    trees = trees if any(x is not None for x in trees) else ()
    p = _typed(mark_of(t), types, units, trees, pys)
    return inline_program(p.core).main, p.reads, p.result_tree


def mark_of(t: Transformation) -> Callable:
    """A callable carrying t (what catad.grad returns), for a transformation the front end made."""
    def made(*args):
        raise CatadError("a derivative the front end made is called by compiled code only")
    return mark(made, t)


frontend.program.DERIVED = derived_def


def pipeline(fn: Callable, *example_args: Any) -> Pipeline:
    """fn's pipeline at the argument types of example_args (and the globals read now)."""
    return bind(fn, example_args).pipeline


def compiled(fn: Callable, args: tuple, which: str, wrt: tuple[int, ...] | None = None,
             zero_safe: bool = False, checkpoints: int | None = None) -> Compiled:
    """fn's "primal", "forward" or "reverse" program for args compiled to NumPy
    (:meth:`Pipeline.code`)."""
    return pipeline(fn, *args).code(which, wrt, zero_safe, checkpoints)


__all__ = ["STAGES", "TRACED", "Bound", "Pipeline", "band_of", "band_width", "bind", "check_checkpoints", "compiled", "jacobian_refusal", "pipeline", "signature"]
