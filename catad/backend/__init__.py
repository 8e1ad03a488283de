"""The backend: a linear-map-free core definition to a Python function over NumPy.

    c = compile_def(d)          # d: a core Def (primal, fwd$f or rev$f)
    c(*values)                  # runs it
    print(c.source)             # the generated code (explain's "code" stage)
    c.fallbacks                 # builds compiled as Python loops, and why

A build is not a loop: its body is compiled once, for all its indices at the same time, as
whole-array NumPy code with one more batch axis (values.py describes the representation).
So ``sum(build(n, \\i. v[i] * w[i]))`` becomes a product of two arrays and a reduction, a
conditional becomes ``np.where`` (the untaken branch's values, NaN or inf included, are
discarded by selection, never multiplied by zero), an index update summed over a build
becomes one scatter-add, and a ragged inner range such as ``range(i)`` is padded to its
longest lane and masked. The zero-safe variant of a derivative program (``zero_safe=True``,
run only when the usual one gives a tangent that is not finite: catad.differentiate)
multiplies tangents so that a tangent's 0 gives 0 even where its coefficient is inf or NaN.
Where no whole-array form exists the build becomes a Python loop, and the compiler records
why (``Compiled.fallbacks``). The code is exec'd once; callers cache the result per type
signature.

Where each construct is compiled (the functions take the Compiler, ``c``, first):

    __init__.py      compile_def, compile_program, Compiled: parameters, result, exec
    compiler.py      Compiler, the core: names, lines, memo, constants, moving arrays
                     between depths (lift, insert, drop), elementwise ``op``, ``comp``
    dispatch.py      TERMS (a term's class -> its function) and CODEGEN (a primitive's
                     name -> its function); ``call``, the elementwise primitives (the
                     registry's ``vector`` template, or ``each``); variables, constants,
                     tuples, projections
    values.py        what the compiler knows about a value: Arr, Stacked, Upd, TSum, RT, ZERO
    control.py       let; if (select, masked); build, vectorised or ragged, and the
                     Python-loop fallback (Fallback)
    gathers.py       index (gather, take_iota), size, dim
    scatters.py      update, scatter_add: updates kept symbolic, then one scatter-add, or
                     only moved axes (moved_axes); last_hit (an assignment's kept writes)
    reductions.py    sum, tsum (vsum, reduce, reduce_update); vmax, vmin, argmax, argmin
    contractions.py  a sum of a product as one einsum (factors, contract, einsum)
    tangent_ops.py   tadd, tscale, tmul, and the zero-safe product (times)
    arrays.py        symbolic values made arrays (dense) or run-time values (rt), moved into
                     deeper builds (at); vector literals (vector)
    checks.py        check: a shape or bounds check over all lanes at once
    roots.py         brentq (SciPy's root, one call per root) and stop_gradient
    runtime.py       the helpers the generated code calls
    tidy.py          passes over the generated source (dead code, inlining single uses)
    memory.py        keeping freed memory in the process

A new construct (fold) is a module of its own and one row in dispatch.TERMS or CODEGEN.
"""
from __future__ import annotations

import os
import sys
import threading
import weakref
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np

from .. import tangents as T
from ..errors import CatadError
from ..lang.inline import inline_program
from ..lang.terms import Def, Program
from ..lang.types import Bool, Float, Int, Tuple as TupleT, Type, Vec, rank, scalar_of
from . import arrays, checkpoint, folds, memory, runtime, tidy
from .compiler import Compiler
from .control import Fallback
from .dispatch import CODEGEN
from .values import ZERO, RT, Arr, Stacked, TSum, Unvectorisable, is_zero, tsum_terms

__all__ = ["Compiled", "compile_def", "compile_program", "Fallback", "CODEGEN"]


# What generated code raises when it computes an if's branch not taken on values shaped for the
# other (NumPy's broadcasting and indexing errors; the run-time helpers' AssertionErrors that no
# index is out of range where no mask discards it): the variant running only the branch taken is
# tried (Compiled.blocks); where it raises the same error, so does the computation (np.linalg's
# LinAlgError is a ValueError), and it is raised; where it raises another, that is catad's own.
# OverflowError: int() of an infinite Float (round(inf)) in the branch not taken.
_FAILED = (IndexError, ValueError, AssertionError, OverflowError)


def _own(e: Exception) -> bool:
    """e is one of catad's run-time checks (catad.backend.runtime: "catad: ..."), never the
    user's code's error: where both variants raise it, it is refused, not passed on as Python's."""
    return str(e).startswith("catad:")


def _raised_inside_catad(e: Exception) -> bool:
    """e's innermost frame is in catad's package (NumPy's C code called by a run-time helper, as
    np.array of rows of different shapes in runtime.loop_array): catad's own error too, where the
    user's are raised by NumPy's or SciPy's code or by the generated code itself."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.startswith(_PACKAGE)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep  # catad/


@dataclass
class Compiled:
    name: str
    source: str
    fn: Callable
    fallbacks: list[Fallback] = field(default_factory=list)
    element_loops: list[str] = field(default_factory=list)
    zero_safe: bool = False      # tangent products are 0 wherever the tangent is 0
    checkpoints: int | None = None  # each reverse loop keeps at most this many states (None: all)
    reverse_loops: int = 0       # the RFold loops compiled (explain says how they keep states)
    # whether compiling asked which variant it writes (Compiler.zero_safe): if not, the other
    # variant's code is this code (compile_def's `twin`)
    asked_zero_safe: bool = True

    # Derivative programs lose the user's source locations on the way through CL; the
    # caller may give the primal program (which has them) to name where an error is.
    locate: Callable | None = None
    # Set when this program may raise a different error first than the source does (loops made
    # builds check every iteration at once: catad.frontend.independent): then `locate` runs for
    # every error, a program that raises Python's, and what it raises is raised.
    rerun: bool = False

    # the variant whose scans keep their accumulators as lists (made when first needed: only a
    # program whose loop accumulators change shape needs it; see backend.folds.scan)
    ragged: Callable | None = None
    # the variant whose ifs on one Python bool run only the branch taken (made when first needed:
    # only where computing both branches fails, as where they give arrays of different lengths)
    blocks: Callable | None = None
    # what gives a refusal raised while running a place (the def of the function a transformation
    # transforms: catad.pipeline.located), when the program's own lines name none
    relocate: Callable | None = None

    def __call__(self, *args: Any) -> Any:
        first = None
        try:
            return self.fn(*args)
        except runtime.RaggedStates:
            return self._ragged(args)
        except CatadError as e:
            if self.locate is None or e.loc is not None and not self.rerun:
                raise
            first = e
        except _FAILED as e:  # not a check's (those are CatadErrors): see blocks
            if self.blocks is None:
                if _own(e):
                    raise self._refusal(e, False) from None
                raise
            failed = e
        if first is None:
            return self._blocks(args, failed)
        try:
            self.locate(*args)  # the error the source raises first, where the source says
        except CatadError as e:
            raise e from None
        raise first

    def branch_taken(self, *args: Any) -> Any:
        """The result of the variant whose ifs on one Python bool run only the branch taken (where
        computing both gave a value shaped for the other branch, which raised nothing: see blocks)."""
        if self.blocks is None:  # this is that variant
            raise self._refusal(ValueError("a tangent shaped as the branch not taken"), False)
        return self._blocks(args, None)

    def _blocks(self, args: tuple, failed: Exception | None, ragged: bool = False) -> Any:
        """The variant that runs only the branch an if takes, where computing both raised `failed`
        (the branch not taken computed on values shaped for the other): the values of the branches
        taken are the same, so where this variant runs, its result is the program's. Where it
        raises the same error, the branch taken raised it (np.linalg's LinAlgError, SciPy's
        ValueError of a non-finite input), which is raised, unless it is a run-time check's
        (_own); a different one is catad's own too, and both are refused (`ragged`: where the variant keeping a loop's states as lists failed first)."""
        try:
            return self.blocks()(*args)
        except CatadError:
            raise
        except _FAILED as e:
            if failed is not None and type(e) is type(failed) and str(e) == str(failed) and not _own(e) \
                    and not _raised_inside_catad(e):
                raise failed from None
            raise self._refusal(e, ragged) from None

    def _ragged(self, args: tuple) -> Any:
        """The variant whose scans keep lists (a loop whose accumulator changes shape), where the
        vectors of their cotangents are not supported: an error there is refused, not raised."""
        try:
            return self.ragged()(*args)
        except CatadError:
            raise
        except _FAILED as e:
            if self.blocks is not None:  # its ifs computing both branches may be what failed
                return self._blocks(args, None, ragged=True)
            raise self._refusal(e, ragged=True) from None

    def _refusal(self, e: Exception, ragged: bool) -> CatadError:
        """The CatadError for an error of the generated code, at the def of the function
        transformed where the pipeline knows it."""
        name = self.name.split('$')[-1]
        if ragged:
            refusal = CatadError(f"catad cannot run {name}: a loop whose state changes shape (as np.prod's halving "
                                 f"loop) differentiated twice in reverse mode is not supported ({type(e).__name__}: "
                                 f"{e})", construct="second derivative",
                                 hint="differentiate it by forward over reverse (catad.hessian, catad.hvp, "
                                      "catad.jvp of catad.grad)")
        else:
            refusal = CatadError(f"catad cannot run {name}: its generated code raised {type(e).__name__}: {e} "
                                 "(catad's own error, not your code's)", construct="generated code",
                                 hint="please report it; meanwhile, write the function without the construct "
                                      "involved (an if or loop whose arrays change length, most likely)")
        return refusal if self.relocate is None else self.relocate(refusal)

    def report(self) -> str:
        """Where the code is not whole-array NumPy, one line each ("" when it all is)."""
        lines = [str(f) for f in self.fallbacks]
        lines += [f"element by element: {name} has no whole-array NumPy form" for name in self.element_loops]
        return "\n".join(lines)


def compile_program(program: Program, vectorise: bool = True, inline: bool = True) -> Compiled:
    """The program's entry function, with every user function it calls inlined."""
    return compile_def(inline_program(program).main, vectorise=vectorise, inline=inline)


def compile_def(d: Def, n_primal: int | None = None, vectorise: bool = True, keep: Any = True,
                inline: bool = True, zero_params: Any = (), zero_safe: bool = False,
                checkpoints: int | None = None, scan_lists: bool = False, branch_blocks: bool = False,
                twin: Compiled | None = None) -> Compiled:
    """Compile d; parameters from index n_primal on are tangents (Int and Bool parts of
    a tangent are the zero tangent, whatever value is passed), and so are the parameters
    at the indices in `zero_params` (the tangents of the hidden parameters that carry
    globals, which are never differentiated: catad.pipeline). `keep` says which parts
    of the result are wanted: True, or per component of a tuple result a nested keep;
    a part not wanted is returned as the zero tangent and nothing computes it (grad
    with argnums needs no cotangent for the other arguments). With `inline`, arrays used
    once are written into the expression that uses them (tidy.inline_single_use). With
    `zero_safe`, a tangent times a coefficient is 0 wherever the tangent is 0, even where
    the coefficient is inf or NaN (catad.tangents.times; the reference semantics). With
    `checkpoints` k, the reverse loop of each RFold keeps at most k of its states and
    recomputes the others (binomial checkpointing: catad.backend.checkpoint); None keeps all.
    With `branch_blocks`, an if on one Python bool runs its branch taken only (the variant
    Compiled.blocks; `scan_lists`, the variant Compiled.ragged). `twin`: d compiled already
    with all the same but zero_safe (the usual variant, when the zero-safe one is asked for
    where its result was not finite): when its compilation never asked which variant it
    wrote (or wrote this one), its code is this one's too, and is not compiled again (a
    10,000-statement chain's gradient that overflows: half the backend's time)."""
    memory.keep_freed_memory()
    if twin is not None and (twin.zero_safe == zero_safe or not twin.asked_zero_safe):
        c = replace(twin, zero_safe=zero_safe, ragged=None, blocks=None)
    else:
        try:
            c = _deep(lambda: _compile(d, len(d.params) if n_primal is None else n_primal, vectorise, keep,
                                       inline, frozenset(zero_params), zero_safe, checkpoints, scan_lists,
                                       branch_blocks))
        except Unvectorisable as e:  # a form the code generator has no loop for either: refused, not a crash
            raise CatadError(f"catad cannot generate NumPy code for {d.name.split('$')[-1]}: {e} (a limitation of "
                             "catad's code generator, not of your code)", construct="code generation",
                             hint="write the loop or comprehension that involves it another way (for example as "
                                  "whole-array NumPy), and please report it") from None
        except CatadError:
            raise
        except (AssertionError, AttributeError, IndexError, KeyError, TypeError, ValueError) as e:
            # a case the code generator does not handle (a bug of catad's): refused, never a raw traceback
            raise CatadError(f"catad's code generator failed on {d.name.split('$')[-1]}: {type(e).__name__}: {e} "
                             "(catad's own error, not your code's)", construct="code generation",
                             hint="please report it; meanwhile, write the function another way (the loop or "
                                  "comprehension involved as whole-array NumPy, for example)") from e

    def variant(**flags) -> Callable[[], Compiled]:
        made: list = []
        ref = weakref.ref(c)  # (c holds get: no reference cycle, so c is freed with what holds it)

        def get() -> Compiled:
            if not made:
                made.append(compile_def(d, n_primal, vectorise, keep, inline, zero_params, zero_safe, checkpoints,
                                        **{"scan_lists": scan_lists, "branch_blocks": branch_blocks, **flags}))
                made[0].relocate = ref().relocate  # (get is reached only through c: c is alive)
            return made[0]
        return get
    if not scan_lists:
        c.ragged = variant(scan_lists=True)
    if not branch_blocks and not scan_lists:  # (the variant keeping lists: the program's own runs it)
        c.blocks = variant(branch_blocks=True)
    return c


def _deep(fn: Callable) -> Any:
    """Run fn with a deep stack: compiling recurses on nested (non-let) terms."""
    result: list = []
    error: list = []

    def run():
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 200_000))
        try:
            result.append(fn())
        except BaseException as e:  # re-raised in the caller's thread
            error.append(e)
        finally:
            sys.setrecursionlimit(old)

    size = threading.stack_size()
    threading.stack_size(512 * 1024 * 1024)
    try:
        t = threading.Thread(target=run)
        t.start()
        t.join()
    finally:
        threading.stack_size(size)
    if error:
        raise error[0]
    return result[0]


def _compile(d: Def, n_primal: int, vectorise: bool, keep: Any, inline: bool, zero_params: frozenset,
             zero_safe: bool, checkpoints: int | None = None, scan_lists: bool = False,
             branch_blocks: bool = False) -> Compiled:
    c = Compiler(vectorise, zero_safe, checkpoints, scan_lists, branch_blocks)
    c.find_reversed_folds = lambda: folds.reversed_folds(d.body)  # when a fold asks
    params = []
    for k, p in enumerate(d.params):
        name = c.name(p.name)
        params.append(name)
        c.env[p.name] = _zero(p.type) if k in zero_params else _param(c, name, p.type, tangent=k >= n_primal)
    value = c.comp(d.body)
    c.params = params
    out = _output(c, _wanted(value, keep), d.result_type)
    fname = c.name(d.name)
    lines = c.lines
    if c.tapes:  # the values the reverse steps still read, once dead code is gone
        lines = folds.finish_tapes(c, out)
    if inline:  # (which takes the dead code out first)
        lines, out = tidy.inline_single_use(lines, out, params, c.kept)
    else:
        lines = tidy.dead_code(lines, out, c.kept)
    body = "\n".join(lines)
    source = (f"def {fname}({', '.join(params)}):\n"
              f"    with np.errstate(all='ignore'):\n"
              f"{body + chr(10) if body else ''}"
              f"        return {out}\n")
    namespace = {k: getattr(runtime, k) for k in dir(runtime) if not k.startswith("_")}
    namespace.update(np=np, T_tadd=T.tadd, T_tscale=T.tscale, T_Acc=T.Acc, reverse_loop=checkpoint.reverse_loop)
    namespace.update(c.consts)
    fallbacks, element_loops, reverse_loops = c.fallbacks, sorted(c.element_loops), c.reverse_loops
    asked_zero_safe = c.asked_zero_safe
    # Python's compiler holds the whole function's syntax tree at once (for a long program,
    # the compile's peak of memory): the compilation's own state goes first
    del c, value, lines, body
    code = compile(source, f"<catad {d.name}>", "exec")
    exec(code, namespace)
    # the function's globals are the namespace: taken out of it, they make no reference cycle
    # (the code, consts and all are freed with the Compiled, by their count of references)
    return Compiled(d.name, source, namespace.pop(fname), fallbacks, element_loops, zero_safe, checkpoints,
                    reverse_loops, asked_zero_safe)


def _wanted(value, keep):
    """value with the parts `keep` marks False made the zero tangent."""
    if keep is True or value is ZERO:
        return value
    if keep is False:
        return ZERO
    if not isinstance(value, tuple) or len(value) != len(keep):
        raise ValueError(f"keep {keep!r} does not match the result's structure")
    return tuple(_wanted(v, k) for v, k in zip(value, keep))


def _zero(ty: Type):
    return tuple(_zero(t) for t in ty.items) if isinstance(ty, TupleT) else ZERO


def _param(c: Compiler, name: str, ty: Type, tangent: bool):
    if isinstance(ty, TupleT):
        names = [c.name(f"{name}_{k}") for k in range(len(ty.items))]
        if names:
            c.emit(f"{', '.join(names)}{',' if len(names) == 1 else ''} = {name}")
        return tuple(_param(c, n, t, tangent) for n, t in zip(names, ty.items))
    kind = {Int: "i", Bool: "b"}.get(scalar_of(ty), "f")
    if tangent and kind != "f":
        return ZERO
    if ty == Float:
        c.emit(f"{name} = f64({name})")
        return Arr(name)
    if isinstance(ty, Vec):
        c.emit(f"{name} = np.asarray({name})")
        return Arr(name, 0, frozenset(), rank(ty), kind)
    return Arr(name, kind=kind)


def _copies_of_rt(x) -> bool:
    """x is a build of one run-time tangent (rt_repeat), or a sum with one among its terms (a
    loop's cotangent of an invariant vector, added to another): it has no shape to make an
    array of where that tangent is the zero tangent."""
    if isinstance(x, TSum):
        return any(_copies_of_rt(v) for v in tsum_terms(x))
    return isinstance(x, Stacked) and isinstance(x.body, RT)


def _output(c: Compiler, x, ty: Type) -> str:
    if isinstance(ty, TupleT):
        if x is ZERO:
            x = (ZERO,) * len(ty.items)
        return "(" + "".join(_output(c, v, t) + ", " for v, t in zip(x, ty.items)) + ")"
    if is_zero(x):
        return "ZERO"
    if isinstance(x, RT):
        return x.code
    if isinstance(ty, Vec) and scalar_of(ty) == Float and _copies_of_rt(x):
        return arrays.rt(c, x)  # copies of one run-time tangent (rt_repeat: a new array, or the zero tangent)
    if isinstance(ty, Vec):
        a = arrays.dense(c, x)
        dtype = {Int: "np.int64", Bool: "np.bool_"}.get(scalar_of(ty), "np.float64")
        return f"out_array({a.code}, {dtype}, ({''.join(p + ', ' for p in c.params)}))"
    if not isinstance(x, Arr):
        x = arrays.scalar(c, x)
    conv = {Float: "float", Int: "int", Bool: "bool"}[ty]
    return f"{conv}({x.code})"
