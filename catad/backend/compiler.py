"""The compiler's core: the state of one compilation and the emission of code.

A ``Compiler`` holds what is being written (lines, the names taken, a memo of the
expressions already assigned, constants) and where it is (the enclosing vectorised builds:
their sizes, indices and masks; the variables in scope), and the few operations every
construct uses: naming and assigning an expression, constants, moving an array to another
depth (``lift``, ``insert``, ``drop``, ``expand``) and elementwise operations (``op``).
``comp`` compiles a term by its class through ``dispatch.TERMS``; the constructs themselves
are compiled in the modules the package docstring lists (catad/backend/__init__.py).
"""
from __future__ import annotations

import keyword
import re
from operator import attrgetter
from typing import TYPE_CHECKING

import math

import numpy as np

from ..errors import CatadError
from ..lang.types import Bool, Float, Int, Site, Type
from ..primitives.fft import KERNELS as FFT_KERNELS
from ..primitives.linalg import KERNELS as LINALG_KERNELS
from ..primitives.spectral import KERNELS as SPECTRAL_KERNELS
from ..primitives.triangular import KERNELS as TRIANGULAR_KERNELS
from .dispatch import TERMS
from .values import Arr, index_code, is_scalar0, kind_of

if TYPE_CHECKING:
    from ..lang import terms as K
    from .control import Fallback

# Names the generated code uses from its namespace (runtime.py, NumPy, catad.tangents): no
# variable is given one of them.
_BASES: dict[str, str] = {}  # a name's hint -> the name it gives (Compiler.name)
RUNTIME_NAMES = {"np", "ZERO", "OneHot", "f64", "to_float", "each", "power", "first_max", "first_min", "sel",
                 "safe_index", "idle_index", "take_iota", "take_shift", "take_clamped", "scatter_clamped", "maxlen", "stack", "full", "vreduce", "vreduce2", "one_hot", "scatter", "scatter_slices", "tmul0", "tmul00",
                 "dense_tangent", "rt_mask", "rt_sum", "rt_index", "rt_len", "out_array", "T_tadd", "T_tscale", "T_Acc",
                 "scatter_add_rt", "update_vector", "rt_update", "contract", "spread", "sum0", "sum_rows", "all_finite", "products_finite", "nonempty", "check_ok", "check_range", "loop_array", "dense_like", "shaped_as",
                 "reverse_loop", "batch_full", "batch_add", "batch_add_at", "batch_steps", "sf",
                 "stack_states", "tangent_dot", "tangent_outer", "tangent_prod", "zero_tangent_length", "last_hit", "brentq"}
RUNTIME_NAMES |= {"int64_times", "np_power", "to_int", "round_digits", "fsum"}
RUNTIME_NAMES |= set(LINALG_KERNELS)  # la_det, la_solve, ... (catad/backend/linalg.py)
RUNTIME_NAMES |= set(FFT_KERNELS)  # dft_fft, dft_fft_vjp, ... (catad/backend/fft.py)
RUNTIME_NAMES |= set(SPECTRAL_KERNELS) | set(TRIANGULAR_KERNELS) | {"lexsort_keys", "lexsort_rows"}


_MUL = "({0} * {1})"  # op's template of a product of scalars (see reassociate)
_ADD = "({0} + {1})"  # and of a sum of them: summed over an axis, each term is (contractions.contract)
_RANK = attrgetter("rank")


class Compiler:
    """One compilation: the code written so far and where it is being written."""

    def __init__(self, vectorise: bool = True, zero_safe: bool = False, checkpoints: int | None = None,
                 scan_lists: bool = False, branch_blocks: bool = False):
        self.vectorise = vectorise
        # an if whose condition is one Python bool (outside vectorised builds) runs only its branch
        # taken, in a Python if statement (control.if_blocks); else both are computed, then selected
        self.branch_blocks = branch_blocks
        # a scan's accumulators kept as Python lists (they may differ in shape: np.prod's halving
        # loop), read one at a time; else stacked into arrays (folds.scan)
        self.scan_lists = scan_lists
        # reverse loops (RFold) keep every state (None) or at most this many (catad.backend.checkpoint)
        self.checkpoints = checkpoints
        # what finds the folds an RFold of the program runs backwards (reversed_folds: their
        # loops are written once, keeping states for the RFold), and what it found
        self.find_reversed_folds = frozenset
        self._reversed_folds: frozenset | None = None
        self.reverse_loops = 0  # RFolds compiled
        # tangent products (tscale, tmul) are 0 wherever the tangent is 0 (catad.tangents.times)
        self._zero_safe = zero_safe
        self.asked_zero_safe = False  # see zero_safe
        self.lines: list[str] = []
        self.indent = 2
        self.memo: list[dict[str, str]] = [{}]
        self.taken: set[str] = set(RUNTIME_NAMES)
        # the forward loops' tapes (folds.Tape), and the names of the values reverse steps may
        # read from one: a name -> the set of those read, which assign fills when it hands one out
        self.tapes: list = []
        self.taped: dict[str, set] = {}
        # names of a reverse step's values that are cheaper to compute again than to read from a
        # tape (a Python operator on scalars): name -> (its expression, the memo depth to write it at)
        self.recompute: dict[str, tuple[str, int]] = {}
        self.scalars: set[str] = set()  # depth-0 scalars made by an elementwise operation (op)
        self.recomputed: set[str] = set()
        self.consts: dict[str, object] = {}
        self.const_names: dict[tuple, str] = {}
        self.fallbacks: list[Fallback] = []
        self.element_loops: set[str] = set()
        self.env: dict[str, object] = {}
        # the enclosing vectorised builds, outermost first
        self.sizes: list[str] = []       # padded size of each batch axis
        self.lengths: list[str] = []     # the code of the build's own size
        self.iotas: list[Arr] = []
        self.ragged: list[bool] = []
        self.masks: list[Arr | None] = [None]
        # how some arrays were made, so that a sum of a product becomes one einsum
        self.defs: dict[str, tuple] = {}
        self.scaled: dict[str, tuple] = {}  # name -> (k, a) of the scaled arrays k * a (op's reassociation)
        # how some Bool arrays were made (abs, gt, le, not, and of them): checks.p_check sees
        # math's overflow test in them (checks.overflow_test)
        self.logic: dict[str, tuple] = {}
        self.ragged_masks: set[str] = set()
        self.nonneg: set[str] = set()  # Int codes known to be >= 0 (lengths read from shapes)
        # the names of values of primitives that may raise (np.linalg.inv's LinAlgError): dead code
        # elimination keeps their lines, read or not, as Python raises there too
        self.kept: set[str] = set()
        self._n = 0

    @property
    def zero_safe(self) -> bool:
        """Whether this is the zero-safe variant. Asking is noted (`asked_zero_safe`): a
        compilation that never asked writes the same code in either variant, so the other
        variant need not be compiled (catad.backend.compile_def's `twin`)."""
        self.asked_zero_safe = True
        return self._zero_safe

    @property
    def reversed_folds(self) -> frozenset:
        """The folds an RFold of the program runs backwards (catad.backend.folds.reversed_folds),
        found when first asked: by the first fold compiled (most programs have none, and are
        not walked for them then)."""
        if self._reversed_folds is None:
            self._reversed_folds = self.find_reversed_folds()
        return self._reversed_folds

    # ------------------------------------------------------------ emission

    @property
    def depth(self) -> int:
        """The number of enclosing vectorised builds: the batch axes of a value here."""
        return len(self.sizes)

    @property
    def mask(self) -> Arr | None:
        """The lanes that the enclosing branches and ragged ranges keep (None: all)."""
        return self.masks[-1]

    def name(self, hint: str = "t") -> str:
        """A fresh Python name after hint (never a keyword or a name of the namespace)."""
        base = _BASES.get(hint)
        if base is None:  # a few hints, met over and over: each made a name once per process
            base = re.sub(r"\W", "_", hint) or "t"
            if base[0].isdigit() or keyword.iskeyword(base) or base in RUNTIME_NAMES:
                base = "v_" + base
            if len(_BASES) >= 100_000:  # (bounded, however much a process compiles)
                _BASES.clear()
            _BASES[hint] = base
        name = base
        while name in self.taken:
            self._n += 1
            name = f"{base}_{self._n}"
        self.taken.add(name)
        return name

    def emit(self, line: str) -> None:
        """Write a statement at the current indentation."""
        self.lines.append("    " * self.indent + line)

    def assign(self, expr: str, hint: str = "t") -> str:
        """The name of expr's value: the same expression assigned before in scope (memo), or a
        new assignment."""
        for scope in reversed(self.memo):
            if expr in scope:
                name = scope[expr]
                if name in self.taped:  # a forward step's value (folds.Tape): read, or computed again
                    again = self.recompute.pop(name, None)
                    if again is not None and again[1] == len(self.memo):
                        self.emit(f"{name} = {again[0]}")
                        self.taped.pop(name)
                        self.recomputed.add(name)  # its name is kept (rename_last): later reads use it
                    else:
                        self.taped[name].add(name)
                return name
        name = self.name(hint)
        self.lines.append("    " * self.indent + f"{name} = {expr}")  # (emit's, without its call)
        self.memo[-1][expr] = name
        return name

    def keep_lines(self, start: int) -> None:
        """Keep the lines from `start` on, read or not (`kept`): they compute a primitive that
        may raise (its parts too, where it gives a tuple: cheap projections)."""
        for line in self.lines[start:]:
            target, sep, _ = line.lstrip(" ").partition(" = ")
            if sep and target.isidentifier():
                self.kept.add(target)

    def rename_last(self, value: Arr, hint: str, start: int) -> Arr:
        """Name the line that computed a let-bound value after the variable."""
        if len(self.lines) <= start or value.code in self.recomputed:
            return value
        line = self.lines[-1]
        prefix = "    " * self.indent + value.code + " = "
        if not line.startswith(prefix):
            return value
        expr = line[len(prefix):]
        if self.memo[-1].get(expr) != value.code:
            return value
        new = self.name(hint)
        self.lines[-1] = "    " * self.indent + f"{new} = {expr}"
        self.memo[-1][expr] = new
        self.taken.add(new)
        if value.code in self.defs:
            self.defs[new] = self.defs[value.code]
        if value.code in self.logic:
            self.logic[new] = self.logic[value.code]
        if value.code in self.nonneg:
            self.nonneg.add(new)
        if value.code in self.kept:
            self.kept.add(new)
        if value.code in self.scalars:
            self.scalars.add(new)
        return Arr(new, value.depth, value.deps, value.rank, value.kind, value.iota, value.clamp, value.shift)

    def const(self, value, ty: Type) -> Arr:
        """A constant: Ints and Bools are literals; Floats, arrays and check sites are names
        in the generated code's namespace, each Float and site once."""
        if ty == Site:  # a check's place and message: an object in the namespace, once
            key = ("site", value)
            if key not in self.const_names:
                self.const_names[key] = self.name("site")
                self.consts[self.const_names[key]] = value
            return Arr(self.const_names[key], kind="o")
        if isinstance(value, bool) or ty == Bool:
            return Arr(repr(bool(value)), kind="b")
        if ty == Int:
            return Arr(repr(int(value)), kind="i")
        if isinstance(value, float) or ty == Float:
            key = ("f", float(value), math.copysign(1.0, float(value)))  # -0.0 is not 0.0 (1 / -0.0)
            if key not in self.const_names:
                name = self.name("K")
                self.consts[name] = np.float64(value)
                self.const_names[key] = name
            return Arr(self.const_names[key])
        arr = np.asarray(value)
        name = self.name("A")
        self.consts[name] = arr
        return Arr(name, 0, frozenset(), arr.ndim, kind_of(ty))

    def lanes_exist(self, depth: int = 0) -> str | None:
        """Code that is True where every enclosing build from batch axis `depth` on has a lane
        (None when there is none): a value the same in all their lanes is computed once, even for
        no lane, where what it raises must not be raised."""
        inner = self.sizes[depth:]
        return f"all(({''.join(n + ', ' for n in inner)}))" if inner else None

    def float_constant(self, a: Arr) -> float | None:
        """The value of a, where a is a Float constant (const's name for it), else None."""
        value = self.consts.get(a.code)
        return float(value) if isinstance(value, np.float64) else None

    # ------------------------------------------------------------ axes

    def lift(self, a: Arr, k: int) -> Arr:
        """a as a value at depth k (size-1 batch axes appended): a view."""
        if a.depth >= k or is_scalar0(a):
            return a
        code = f"{a.code}[{index_code(a.depth, ['None'] * (k - a.depth))}]"
        return Arr(code, k, a.deps, a.rank, a.kind, a.iota, a.clamp, a.shift)

    def insert(self, a: Arr, pos: int, count: int) -> Arr:
        """a with `count` size-1 batch axes inserted at position pos."""
        if a.depth <= pos or count == 0:
            return a
        code = f"{a.code}[{index_code(pos, ['None'] * count)}]"
        shift = (lambda b: b if b < pos else b + count)
        return Arr(code, a.depth + count, frozenset(map(shift, a.deps)), a.rank, a.kind,
                   None if a.iota is None else shift(a.iota))

    def drop(self, a: Arr, ax: int) -> Arr:
        """a without batch axis ax, along which it does not vary."""
        if a.depth <= ax:
            return a
        assert ax not in a.deps
        code = self.assign(f"{a.code}[{index_code(ax, ['0'])}]")
        shift = (lambda b: b if b < ax else b - 1)
        return Arr(code, a.depth - 1, frozenset(map(shift, a.deps)), a.rank, a.kind,
                   None if a.iota is None else shift(a.iota))

    def expand(self, c: Arr, d: int, r: int) -> str:
        """c (a scalar per lane) lifted to depth d with r trailing axes for an element."""
        c = self.lift(c, d)
        if r == 0 or is_scalar0(c):
            return c.code
        return f"{c.code}[..., {', '.join(['None'] * r)}]"

    # ------------------------------------------------------------ elementwise

    def op(self, template: str, args: list[Arr], kind: str, rnk: int = 0, hint: str = "t",
           reassociate: bool = True) -> Arr:
        """template (code over {0}, {1}, ...) of args, broadcast at their common depth: an
        array of this kind and rank. A product of scalars is kept in defs, so that a sum
        of it becomes an einsum of its factors (contractions.py)."""
        # a product or a sum of scalars per lane (its args' ranks all 0): see the end
        scalars = kind == "f" and rnk == 0 and (template == _MUL or template == _ADD) and not any(map(_RANK, args))
        if reassociate and scalars and template == _MUL:
            split = self.reassociate(*args)
            if split is not None:
                small, large = split
                sp = self.op(_MUL, small, "f", reassociate=False)
                out = self.op(_MUL, [sp, large], "f", hint=hint, reassociate=False)
                if not (out.deps > sp.deps and out.deps > large.deps):
                    # a scaled array, not an outer product: einsums take it whole (it is
                    # often shared by several), not as more operands; a sum of it is the
                    # scale times the sum (contractions.scaled_sum)
                    self.defs.pop(out.code, None)
                    self.scaled[out.code] = (sp, large)
                return out
        if len(args) == 2:  # most operations: binary
            a, b = args
            d = a.depth if a.depth >= b.depth else b.depth
            # (the deps of one where they include the other's: no new set, most often)
            deps = a.deps if b.deps <= a.deps else b.deps if a.deps <= b.deps else a.deps | b.deps
        else:
            d = max((a.depth for a in args), default=0)
            deps = frozenset().union(*(a.deps for a in args))
        codes = [self.lift(a, d).code for a in args]
        if d >= 2 and rnk == 0 and len(args) >= 2 and not template.startswith("each("):
            codes = [self.spread(a, code, deps, d) for a, code in zip(args, codes)]
        out = Arr(self.assign(template.format(*codes), hint), d, deps, rnk, kind)
        if d == 0 and rnk == 0:
            self.scalars.add(out.code)
        if scalars:
            # a sum of a product: an einsum of its factors; of a sum: the sum of each (contractions)
            self.defs[out.code] = ("mul" if template == _MUL else "add", args[0], args[1])
        return out

    def spread(self, a: Arr, code: str, deps: frozenset, d: int) -> str:
        """The code of a, an operand at depth d of an elementwise operation whose result varies
        along the batch axes `deps`, made contiguous where it is broadcast along a short last
        axis (runtime.spread decides from the sizes; it is a itself otherwise)."""
        if a.rank or not a.deps or a.deps >= deps or d > len(self.sizes):
            # a scalar per lane varying along every axis the result does, or a constant; or
            # a build's own lanes, compared before its size is known here (control.lanes)
            return code
        shape = "".join((self.sizes[i] if i in deps else "1") + ", " for i in range(d))
        return self.assign(f"spread({code}, ({shape}))", "s")

    def reassociate(self, a: Arr, b: Arr):
        """For s * (p * q) with s * p varying along fewer batch axes than p * q:
        ([s, p], q), so that s multiplies the small array, not the large product
        (which is then often dead: 2 * (x * c) over (N, K, D) becomes (2 * c) * x)."""
        best = None
        for s, prod in ((a, b), (b, a)):
            how = self.defs.get(prod.code)
            if how is None or how[0] != "mul":
                continue
            for p, q in ((how[1], how[2]), (how[2], how[1])):
                axes = len(s.deps | p.deps)
                if axes < len(prod.deps) and (best is None or axes < best[0]):
                    best = (axes, [s, p], q)
        return None if best is None else best[1:]

    def andmask(self, c: Arr) -> Arr:
        """c and the current mask (the lanes that the enclosing branches and ragged ranges keep)."""
        m = self.mask
        return c if m is None else self.op("({0} & {1})", [m, c], "b")

    def length(self, code: str) -> Arr:
        """An Int read from a shape (never negative), named."""
        name = self.assign(code, "n")
        self.nonneg.add(name)
        return Arr(name, 0, frozenset(), 0, "i")

    # ------------------------------------------------------------ terms

    def comp(self, t: K.Term):
        """Compile t: the value it has, for all the lanes of the enclosing builds at once
        (values.py). How each kind of term is compiled: dispatch.TERMS."""
        compile_term = TERMS.get(type(t))
        if compile_term is None:
            raise CatadError(f"the backend cannot compile a {type(t).__name__} term", getattr(t, "loc", None),
                             "backend")
        return compile_term(self, t)
