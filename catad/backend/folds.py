"""fold, FFold and RFold as Python loops over vectorised bodies (catad.backend); a while
loop's trip count (WhileCount) as a Python while loop.

A fold has no whole-array form: each step needs the accumulator of the one before. So it is
a ``for`` loop, whose body is compiled once (its builds, sums and indexing vectorised as
anywhere else) and reads the accumulator from loop-carried names, one per leaf of its type
(a tuple's components, a vector of tuples' component vectors). RFold runs the forward loop
keeping each accumulator in a list, then the reverse loop (notes Fig. 15), whose step reads
the forward step's values from a tape where that is cheaper than computing them (Tape).

Inside vectorised builds (depth d > 0) a fold whose vector, and so its trip count, is the
same in every lane is *batched*: one loop for all the lanes, whose state leaves carry the d
batch axes at full size (``batch_full``), so every step's state has one shape and the body is
compiled once at depth d. Its RFold keeps the batched states, carries a batched cotangent
state, and sums the environment's cotangent per lane in a dense array (``batch_add``; with no
steps, zeros shaped by one masked reverse step, compiled for that case only); with
checkpoints, its closures are batched alike. A fold whose vector varies with the lane, and a
while loop's count, raise ``Unvectorisable`` there: the build becomes a Python loop
(control.Fallback, reported by explain), in whose body the fold is a loop again.

Tangent state is kept dense: a leaf of Float or array type is an array (its zero is zeros
shaped like the primal leaf, ``dense_like``), an Int or Bool leaf the symbolic zero. The
cotangent of the fold's environment is summed in place as a run-time tangent (a
``catad.tangents.Acc``), which keeps index updates sparse, needs no shape, and adds an index
update in O(1).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..lang.fold import Fold, RFold
from ..lang.inline import canonical
from ..lang.terms import Term, Var, free_vars, subterms
from ..lang.types import Bool, Float, Tuple as TupleT, Type, Vec, is_differentiable, rank
from . import arrays, control, gathers, tangent_ops
from .control import _components
from .values import ZERO, RT, Arr, Stacked, TSum, Unvectorisable, Upd, depth_of, is_zero, kind_of, tsum_terms

if TYPE_CHECKING:
    from .compiler import Compiler

_DTYPE = {"f": "np.float64", "i": "np.int64", "b": "np.bool_"}


# ---------------------------------------------------------------- values as leaves

def leaf_types(t: Type) -> list[Type]:
    """The leaves of a value of type t as the backend holds it (a vector of tuples is a
    tuple of vectors)."""
    if isinstance(t, TupleT) or isinstance(t, Vec) and isinstance(_inner(t), TupleT):
        return [x for c in _components(t) for x in leaf_types(c)]
    return [t]


def _inner(t: Type) -> Type:
    while isinstance(t, Vec):
        t = t.elem
    return t


def leaves(x, t: Type) -> list:
    if len(leaf_types(t)) == 1 and not isinstance(t, TupleT):
        return [x]
    parts = (ZERO,) * len(_components(t)) if x is ZERO else x
    return [y for p, c in zip(parts, _components(t)) for y in leaves(p, c)]


def rebuild(xs: list, t: Type):
    """The value of type t whose leaves are xs (in order)."""
    it = iter(xs)

    def go(t):
        if len(leaf_types(t)) == 1 and not isinstance(t, TupleT):
            return next(it)
        return tuple(go(c) for c in _components(t))
    return go(t)


def primal_leaf(c: Compiler, x, t: Type) -> Arr:
    """A primal leaf as a depth-0 array."""
    a = arrays.dense(c, x) if not isinstance(x, Arr) else x
    if a.depth:
        raise Unvectorisable("a fold's value inside a vectorised build")
    return a


def tangent_leaf(c: Compiler, x, t: Type, like: Arr):
    """A tangent leaf as a dense depth-0 array (zeros shaped like the primal leaf `like`),
    or ZERO when t has no tangent (Int, Bool)."""
    if not is_differentiable(t):
        return ZERO
    if isinstance(x, Arr) and x.depth == 0:
        return x
    if is_zero(x):
        return Arr(c.assign(f"dense_like(ZERO, {like.code})"), 0, frozenset(), rank(t), "f")
    if depth_of(x) == 0 and _vectorised_parts(x):
        # an update whose value is a vectorised build (its sums over batch axes pending):
        # no run-time value holds it, so it is scattered into an array here
        return Arr(c.assign(f"dense_like({arrays.dense(c, x).code}, {like.code})"), 0, frozenset(), rank(t), "f")
    return Arr(c.assign(f"dense_like({arrays.rt(c, x)}, {like.code})"), 0, frozenset(), rank(t), "f")


def _runtime_tangent(c: Compiler, x) -> str:
    """A depth-0 tangent as a run-time value; one with vectorised parts (an update whose index
    or value has batch axes: the sum of a build of updates, as a slice's cotangent) is
    scattered into an array first, which no run-time update can hold."""
    return arrays.dense(c, x).code if _vectorised_parts(x) else arrays.rt(c, x)


def _vectorised_parts(x) -> bool:
    """Whether a depth-0 tangent has a part with batch axes (an update's pending sums)."""
    if isinstance(x, Upd):
        return depth_of(x.val) > 0 or depth_of(x.idx) > 0 or _vectorised_parts(x.val)
    if isinstance(x, TSum):
        return _vectorised_parts(x.a) or _vectorised_parts(x.b)
    if isinstance(x, tuple):
        return any(_vectorised_parts(v) for v in x)
    return isinstance(x, (Arr, Stacked)) and x.depth > 0


def _state(c: Compiler, values: list, hint: str) -> list:
    """Loop-carried names initialised to values (ZERO leaves stay symbolic)."""
    out = []
    for v in values:
        if v is ZERO:
            out.append(ZERO)
            continue
        name = c.name(hint)
        c.emit(f"{name} = {v.code}")
        out.append(Arr(name, v.depth, v.deps, v.rank, v.kind))
    return out


def _carry(c: Compiler, state: list, new: list) -> None:
    """state = new, at once (a tuple assignment: tidy never drops it)."""
    pairs = [(s.code, n.code) for s, n in zip(state, new) if s is not ZERO]
    if pairs:
        c.emit(", ".join(s for s, _ in pairs) + ", = " + ", ".join(n for _, n in pairs) + ",")


class _Range:
    """The vector 0, 1, ..., n - 1 (a range(n) loop's build(n, \\k. k)), never made: its
    element i is i, so a loop of a million steps keeps no array of a million indices."""

    def __init__(self, n: Arr):
        self.n = n


def _vector(c: Compiler, x, t: Type) -> list:
    """The leaves of the vector fold runs over, as depth-0 arrays (or a _Range); inside
    vectorised builds only a vector that is the same in every lane (else Unvectorisable)."""
    if isinstance(x, Stacked) and x.mask is None and isinstance(x.body, Arr) \
            and x.body.iota == x.depth and x.body.rank == 0:
        return [_Range(_unbatched(c, x.n))]
    if c.depth == 0:
        return [primal_leaf(c, v, lt) for v, lt in zip(leaves(x, t), leaf_types(t))]
    return [_unbatched(c, _dense_uniform(c, v, "vector")) for v in leaves(x, t)]


def _length(vec: list) -> str:
    v = vec[0]
    return f"max({v.n.code}, 0)" if isinstance(v, _Range) else f"len({v.code})"


def _element(c: Compiler, vec: list, t: Type, i: Arr):
    return rebuild([i if isinstance(v, _Range) else gathers.index(c, v, i) for v in vec], t.elem)


def _bind(c: Compiler, var, value):
    old = c.env.get(var.name)
    c.env[var.name] = value
    return old


def _unbind(c: Compiler, var, old) -> None:
    if old is None:
        c.env.pop(var.name, None)
    else:
        c.env[var.name] = old


def _comp_in(c: Compiler, body, var, value):
    """body compiled with var bound to value."""
    old = _bind(c, var, value)
    try:
        return c.comp(body)
    finally:
        _unbind(c, var, old)


class _Block:
    """A loop's header, then the lines written inside at one more indentation, their memo
    dropped after (names assigned in the loop change at each pass)."""

    def __init__(self, c: Compiler, header: str):
        self.c, self.header = c, header

    def __enter__(self) -> None:
        self.c.emit(self.header)
        self.c.indent += 1
        self.c.memo.append({})

    def __exit__(self, *exc) -> None:
        self.c.memo.pop()
        self.c.indent -= 1


class _Loop(_Block):
    """for i in range(n) (or range(start, n), or backwards) as a _Block."""

    def __init__(self, c: Compiler, n: str, hint: str = "i", reverse: bool = False, start: str | None = None):
        self.i = c.name(hint)
        rng = f"range({n} - 1, {'-1' if start is None else f'{start} - 1'}, -1)" if reverse else \
            f"range({start}, {n})" if start is not None else f"range({n})"
        super().__init__(c, f"for {self.i} in {rng}:")

    def __enter__(self) -> Arr:
        super().__enter__()
        return Arr(self.i, 0, frozenset(), 0, "i")


def _check_depth(c: Compiler, what: str) -> None:
    if c.depth > 0:
        raise Unvectorisable(f"{what} inside a vectorised build")


# ---------------------------------------------------------------- batched: inside builds
# At depth d > 0 a state leaf is an array with all d batch axes of full size, so that each
# step's state has the shape of the one before whatever the body reads; the vector is the
# same in every lane (a depth-0 array), so the loop's trip count is one number.

def _batch(c: Compiler) -> str:
    """The code of the enclosing builds' batch shape, a tuple."""
    return "(" + "".join(s + ", " for s in c.sizes) + ")"


def _uniform(x) -> bool:
    """Whether every lane's value has the same shape: a ragged build (one whose length
    varies with the lane) would be padded by arrays.dense, and a loop over it, or a state
    holding it, would see the padding."""
    if isinstance(x, Stacked):
        return x.mask is None and not x.n.deps and _uniform(x.body)
    if isinstance(x, Upd):
        return not x.n.deps and _uniform(x.val)
    if isinstance(x, TSum):
        return _uniform(x.a) and _uniform(x.b)
    if isinstance(x, tuple):
        return all(_uniform(v) for v in x)
    return not isinstance(x, RT)


_VARYING_VECTOR = "a loop whose vector (or trip count) varies with the index of the build around it"


def _dense_uniform(c: Compiler, x, what: str = "state") -> Arr:
    """x (a loop's state, its vector or a cotangent) as an array, refusing a value whose shape
    varies with the lane (see _uniform)."""
    if not _uniform(x):
        raise Unvectorisable(_VARYING_VECTOR if what == "vector" else
                             f"a loop whose {what} varies in length with the index of the build around it")
    return arrays.dense(c, x)


def _full(c: Compiler, a: Arr) -> Arr:
    """a with every batch axis of the enclosing builds at full size (a view)."""
    d = c.depth
    if a.depth == d and a.deps == frozenset(range(d)):
        return a
    code = c.assign(f"batch_full({c.lift(a, d).code}, {_batch(c)})", "b")
    return Arr(code, d, frozenset(range(d)), a.rank, a.kind)


def _unbatched(c: Compiler, a: Arr) -> Arr:
    """a, which must not vary along any batch axis, as a depth-0 value."""
    if a.deps:
        raise Unvectorisable(_VARYING_VECTOR)
    if a.depth == 0:
        return a
    return Arr(c.assign(f"{a.code}[{', '.join(['0'] * a.depth)}]"), 0, frozenset(), a.rank, a.kind)


def _zeros_full(c: Compiler, like: Arr) -> Arr:
    """Float zeros shaped like `like` with every batch axis at full size."""
    f = _full(c, like)
    return Arr(c.assign(f"np.zeros(np.shape({f.code}))"), f.depth, f.deps, f.rank, "f")


def acc_leaf(c: Compiler, x, t: Type) -> Arr:
    """A state leaf: a depth-0 array outside builds, a full-batch array inside them."""
    if c.depth == 0:
        return primal_leaf(c, x, t)
    return _full(c, _dense_uniform(c, x))


def dacc_leaf(c: Compiler, x, t: Type, like: Arr):
    """A tangent state leaf, dense and shaped like the primal leaf `like` (tangent_leaf;
    inside builds, with every batch axis at full size), or ZERO when t has no tangent."""
    if c.depth == 0:
        return tangent_leaf(c, x, t, like)
    if not is_differentiable(t):
        return ZERO
    if is_zero(x):
        return _zeros_full(c, like)
    return _full(c, _dense_uniform(c, x))


# ---------------------------------------------------------------- the three loops

def fold(c: Compiler, t):
    """fold (\\t. e) acc v: the accumulator's leaves carried by the loop (batched inside
    vectorised builds)."""
    at = t.acc.type
    key = _fold_key(c, t)
    done = _recall(c, key)
    if done is not None:  # its RFold ran this loop already (a reverse program's value)
        return rebuild(done.acc, at)
    acc = _state(c, [acc_leaf(c, x, lt) for x, lt in zip(leaves(c.comp(t.acc), at), leaf_types(at))], "acc")
    vec = _vector(c, c.comp(t.vec), t.vec.type)
    keep = key is not None and _reversed(c, t) and c.checkpoints is None  # with checkpoints the RFold keeps its own
    kept = _kept_lists(c, acc) if keep else []
    tape = Tape(c, acc) if keep and c.depth == 0 else None
    with _Loop(c, _length(vec)) as i:
        for k, a in zip(kept, acc):
            c.emit(f"{k}.append({a.code})")
        new = _comp_in(c, t.body, t.var, (rebuild(acc, at), _element(c, vec, t.vec.type, i)))
        new = [acc_leaf(c, x, lt) for x, lt in zip(leaves(new, at), leaf_types(at))]
        if tape is not None:
            tape.record(c, i)
        _carry(c, acc, new)
    if key is not None:
        _remember(c, key, _Ran(acc, kept if keep else None, tape))
    return rebuild(acc, at)


def scan(c: Compiler, t):
    """scan (\\t. e) acc v: fold's loop, each accumulator appended to a list per leaf, the lists made
    arrays (a vector of the accumulators). Only outside vectorised builds (a build holding one is a
    Python loop): a scan is what a loop's derivatives become when differentiated again (issue 17).
    Accumulators whose shapes differ (a loop that halves an array) make no array: stack_states
    raises RaggedStates, and the program runs its variant compiled with `scan_lists` (Compiled),
    where they stay lists, read one at a time."""
    _check_depth(c, "a scan (a loop's derivative, differentiated again)")
    at = t.acc.type
    types = leaf_types(at)
    acc = _state(c, [ZERO if is_zero(x) else primal_leaf(c, x, lt) for x, lt in zip(leaves(c.comp(t.acc), at), types)],
                 "acc")
    vec = _vector(c, c.comp(t.vec), t.vec.type)
    kept = []
    for a in acc:
        k = None if a is ZERO else c.name("states")
        if k is not None:
            c.emit(f"{k} = [{a.code}]")
        kept.append(k)
    with _Loop(c, _length(vec)) as i:
        new = _comp_in(c, t.body, t.var, (rebuild(acc, at), _element(c, vec, t.vec.type, i)))
        _carry(c, acc, [ZERO if a is ZERO else primal_leaf(c, x, lt) for a, x, lt in zip(acc, leaves(new, at), types)])
        for k, a in zip(kept, acc):
            if k is not None:
                c.emit(f"{k}.append({a.code})")
    if c.scan_lists:  # read one at a time (a build reading them is a Python loop)
        return rebuild([ZERO if k is None else RT(k, True) for k in kept], Vec(at))
    out = [ZERO if k is None else Arr(c.assign(f"stack_states({k}, {_DTYPE[kind_of(lt)]})"), 0, frozenset(),
                                      rank(lt) + 1, kind_of(lt))
           for k, lt in zip(kept, types)]
    return rebuild(out, Vec(at))


# ---------------------------------------------------------------- one forward loop per fold
# A reverse program computes a fold's value (its primal) and applies the fold's RFold, whose
# forward loop runs the same steps again to keep the states. The two are found equal up to
# the names of their binders (catad.lang.inline.canonical) while compiling: the first of them
# to be compiled keeps the states (when an RFold will want them) and the final accumulator,
# and the other reads them instead of looping again.

class _Ran:
    """A fold's loop already written in scope: its final accumulator's leaves, and the lists
    of its states when it kept them (None when it did not)."""

    def __init__(self, acc: list, kept: list | None, tape: Tape | None = None):
        self.acc, self.kept, self.tape = acc, kept, tape


# ---------------------------------------------------------------- tapes
# A reverse step computes the primal values of its step again (the reverse body holds the
# body's primal computation as well as its cotangents). Where the forward loop is written in
# the same program, the step's values are the forward step's: the forward body's memo (the
# expressions it assigned, by their code) is replayed in the reverse step with the forward's
# names translated (the loop's index and state to the reverse step's, each value the body
# named to a name of its own). An expression of the reverse step that is one of them (the same
# code) is then read from a tape, the list of the values the forward step kept, instead of
# being computed again, and a check the forward step made is not made again. Which values are
# read is known only once every reverse step is compiled: the forward step appends, and the
# reverse step unpacks, through marker lines that finish_tapes writes at the end.

_TAPE_NAME = __import__("re").compile(r"'[^']*'|\"[^\"]*\"|(?<![\w.])([A-Za-z_]\w*)(?!\w|\s*=(?!=))")
_NOT_TAPED = (".value()", "T_Acc", ".pop()")  # reads of mutable run-time objects: computed again
_CALL = __import__("re").compile(r"[\w\])]\s*\(")  # an expression that calls a function


class Tape:
    """The values one forward loop's step may hand its reverse steps (see above)."""

    def __init__(self, c: Compiler, state: list):
        self.list = c.name("tape")
        c.emit(f"{self.list} = []")
        self.state = [a.code for a in state]
        self.i: str | None = None
        self.entries: dict = {}
        self.append_marker: str | None = None
        self.loads: list[tuple[str, str, dict, set]] = []  # (marker, index, forward -> reverse name, used)
        c.tapes.append(self)

    def record(self, c: Compiler, i: Arr) -> None:
        """At the end of the forward step (before the state is carried): what it assigned."""
        self.i = i.code
        self.entries = {k: v for k, v in c.memo[-1].items() if isinstance(k, str)
                        and not any(x in k for x in _NOT_TAPED)}
        self.append_marker = f"#tape-append {self.list}"
        c.emit(self.append_marker)

    def replay(self, c: Compiler, i: Arr, state: list) -> None:
        """At the start of a reverse step of index i and state `state`: the forward step's
        expressions, translated, in its memo, their values to be read from the tape."""
        if self.append_marker is None or len(state) != len(self.state):
            return
        names = {v: c.name(v) for v in self.entries.values() if v is not None}
        mapping = {**names, self.i: i.code, **{f: a.code for f, a in zip(self.state, state)}}
        scope, translated = c.memo[-1], {}
        for expr, v in self.entries.items():
            key = _TAPE_NAME.sub(lambda m: mapping.get(m.group(1), m.group(1)) if m.group(1) else m.group(0), expr)
            translated[expr] = key
            if key not in scope:
                scope[key] = None if v is None else mapping[v]
        for f, r in names.items():
            if f in c.nonneg:
                c.nonneg.add(r)
        for expr, v in self.entries.items():  # a Python operator on scalars: computed again
            if v is not None and (v in c.scalars or v in c.nonneg) and not _CALL.search(expr):
                c.recompute[names[v]] = (translated[expr], len(c.memo))
                if v in c.scalars:
                    c.scalars.add(names[v])
        marker = f"#tape-load {self.list} {len(self.loads)}"
        used: set = set()
        self.loads.append((marker, i.code, names, used))
        for r in names.values():
            c.taped[r] = used
        c.emit(marker)


def finish_tapes(c: Compiler, out: str) -> list[str]:
    """The program's lines with each tape's appends and loads written in place of their marker
    lines: the values its reverse steps read that are still used by the lines that dead code
    elimination keeps for the result `out`; a tape no reverse step reads is written nowhere.
    A value an inner loop's tape keeps may read one of an outer loop's tape (a loop run again in
    a reverse step): what the appends keep is found again until it no longer grows."""
    from . import tidy
    used: dict[str, list[str]] = {}  # tape -> the forward step's names it keeps
    while True:
        lines = _tapes_written(c, used)
        live = tidy.dead_code(lines, out, c.kept)
        named = set(_TAPE_NAME.findall("\n".join(line for line in live if not line.lstrip().startswith("#tape-"))))
        kept = {tape.list: sorted({f for _, _, names, u in tape.loads for f, r in names.items()
                                   if r in u and r in named}) for tape in c.tapes}
        if kept == used:
            return lines
        used = kept


def _tapes_written(c: Compiler, used: dict[str, list[str]]) -> list[str]:
    """c's lines with each tape's marker lines written for the forward names it keeps (`used`)."""
    lines = list(c.lines)
    where = {line.strip(): k for k, line in enumerate(lines) if line.lstrip().startswith("#tape-")}
    drop = set()
    for tape in c.tapes:
        keep = used.get(tape.list, [])
        for marker, i, names, _ in tape.loads:
            k = where.get(marker)
            if k is not None:
                if keep:
                    lines[k] = _indent(lines[k]) + f"{', '.join(names[f] for f in keep)}, = {tape.list}[{i}]"
                else:
                    drop.add(k)
        k = where.get(tape.append_marker)
        if k is not None:
            if keep:
                lines[k] = _indent(lines[k]) + f"{tape.list}.append({_tuple(keep)})"
            else:
                drop.add(k)
    return [line for k, line in enumerate(lines) if k not in drop]


def _indent(line: str) -> str:
    return line[:len(line) - len(line.lstrip())]


def reversed_folds(body: Term) -> frozenset:
    """The canonical forms of the folds an RFold in body runs backwards (and their skeletons,
    free variables anonymised: _reversed)."""
    out = set()
    for t in subterms(body):
        if isinstance(t, RFold):
            f = Fold(t.acc, t.vec, t.var, t.body)
            out.add(canonical(f))
            out.add(("skeleton", _skeleton(f)))  # for folds inside builds (_reversed)
    return frozenset(out)


def _fold_key(c: Compiler, t):
    """The canonical form of t's fold (of Fold t, or of RFold t's primal), None when the
    program has no RFold. With checkpoints only the final accumulator is shared: the RFold's
    schedule computes it (checkpoint.reverse_loop), and a fold keeps no states for it. Inside
    vectorised builds, the fold with each free variable standing for its compiled value (a
    build's index or a size has one name in the primal and another in the reverse pass, or one
    name in two builds), and the lanes it runs over (batch sizes, mask); outside them, the branch's
    mask it runs under."""
    if not c.reversed_folds:
        return None
    term = canonical(Fold(t.acc, t.vec, t.var, t.body))
    if c.depth == 0:  # (under a branch's mask: the same loop in the other branch runs other lanes)
        return term if c.mask is None else (term, c.mask.code)
    sigs = {v: repr(_signature(c.env.get(v.name))) for v in free_vars(term)}
    order = sorted(set(sigs.values()))
    values = {v: Var(f"%{order.index(sig)}", v.type) for v, sig in sigs.items()}
    return (canonical(term, values), tuple(order), tuple(c.sizes), None if c.mask is None else c.mask.code)


def _skeleton(f: Fold) -> Term:
    """f's canonical form with every free variable anonymised (its type kept)."""
    return canonical(f, {v: Var("%", v.type) for v in free_vars(f)})


def _reversed(c: Compiler, t) -> bool:
    """Whether an RFold of the program may run t's fold backwards (so that its loop keeps
    its states): the same fold up to binder names, or inside builds, up to the names of its
    free variables too (their values decide whether the states are used: _fold_key)."""
    f = Fold(t.acc, t.vec, t.var, t.body)
    if c.depth == 0:
        return canonical(f) in c.reversed_folds
    return ("skeleton", _skeleton(f)) in c.reversed_folds


def _signature(x):
    """A compiled value as a hashable description (its code names are its identity)."""
    if isinstance(x, Arr):
        return ("A", x.code, x.depth, tuple(sorted(x.deps)), x.rank, x.kind, x.iota)
    if isinstance(x, tuple):
        return ("T",) + tuple(_signature(v) for v in x)
    if isinstance(x, Stacked):
        return ("S", _signature(x.body), x.depth, _signature(x.n), x.N, _signature(x.mask))
    if isinstance(x, Upd):
        return ("U", _signature(x.idx), _signature(x.val), _signature(x.n), x.extra)
    if isinstance(x, TSum):
        return ("+", _signature(x.a), _signature(x.b))
    if isinstance(x, RT):
        return ("R", x.code, x.is_list)
    return repr(x)


def _recall(c: Compiler, key) -> _Ran | None:
    if key is None:
        return None
    for scope in reversed(c.memo):
        if ("fold", key) in scope:
            return scope[("fold", key)]
    return None


def _remember(c: Compiler, key, ran: _Ran) -> None:
    c.memo[-1][("fold", key)] = ran


def _kept_lists(c: Compiler, acc: list) -> list[str]:
    kept = [c.name("accs") for _ in acc]
    for k in kept:
        c.emit(f"{k} = []")
    return kept


def while_count(c: Compiler, t):
    """count (\\t. cond) (\\t. e) acc: a Python while loop counting its steps (the step's body
    compiled once, as a fold's is)."""
    _check_depth(c, "a while loop's count")
    at = t.acc.type
    lts = leaf_types(at)
    # in a branch (an if's both branches are computed, then one selected) the loop runs only when
    # the branch is taken: a loop Python never enters may never end
    guard = c.mask
    acc = _state(c, [primal_leaf(c, x, lt) for x, lt in zip(leaves(c.comp(t.acc), at), lts)], "acc")
    n = c.name("steps")  # not assign: its memo would hand this changing name out for any 0
    c.emit(f"{n} = 0")
    i = Arr(n, 0, frozenset(), 0, "i")
    with _Block(c, "while True:"):
        go = primal_leaf(c, _comp_in(c, t.cond, t.cvar, (rebuild(acc, at), i)), Bool)
        c.emit(f"if not {go.code}:" if guard is None else f"if not ({guard.code} and {go.code}):")
        c.emit("    break")
        new = _comp_in(c, t.body, t.var, (rebuild(acc, at), i))
        _carry(c, acc + [i], [primal_leaf(c, y, lt) for y, lt in zip(leaves(new, at), lts)]
               + [Arr(f"{n} + 1", 0, frozenset(), 0, "i")])
    return i


def ffold(c: Compiler, t):
    """FFold (notes Fig. 14): the accumulator and its tangent carried by one loop."""
    at, vt = t.acc.type, t.vec.type
    lts = leaf_types(at)
    acc0 = [acc_leaf(c, x, lt) for x, lt in zip(leaves(c.comp(t.acc), at), lts)]
    dacc0 = [dacc_leaf(c, x, lt, a) for x, lt, a in zip(leaves(c.comp(t.dacc), at), lts, acc0)]
    acc, dacc = _state(c, acc0, "acc"), _state(c, dacc0, "dacc")
    vec = _vector(c, c.comp(t.vec), vt)
    # inside builds the vector's tangent may still vary with the lane: read at its own depth
    dv = [ZERO if not is_differentiable(lt) or is_zero(x) else
          tangent_leaf(c, x, lt, v) if c.depth == 0 else _dense_uniform(c, x, "vector")
          for x, lt, v in zip(leaves(c.comp(t.dvec), vt), leaf_types(vt), vec)]
    with _Loop(c, _length(vec)) as i:
        x = (rebuild(acc, at), _element(c, vec, vt, i))
        dx = (rebuild(dacc, at), _element(c, dv, vt, i))
        dnew = _comp_in(c, t.dbody, t.dvar, (x, dx))
        dnew = [dacc_leaf(c, y, lt, a) for y, lt, a in zip(leaves(dnew, at), lts, acc)]
        new = _comp_in(c, t.body, t.var, x)
        new = [acc_leaf(c, y, lt) for y, lt in zip(leaves(new, at), lts)]
        _carry(c, acc + dacc, new + dnew)
    return rebuild(dacc, at)


def rfold(c: Compiler, t):
    """RFold (notes Fig. 15): the forward loop keeps each accumulator in lists, the reverse
    loop carries the accumulator's cotangent, sums the environment's and fills dv's lists."""
    at, vt = t.acc.type, t.vec.type
    lts = leaf_types(at)
    acc = _state(c, [acc_leaf(c, x, lt) for x, lt in zip(leaves(c.comp(t.acc), at), lts)], "acc")
    vec = _vector(c, c.comp(t.vec), vt)
    n = c.assign(_length(vec), "n")
    c.reverse_loops += 1
    if c.checkpoints is not None:
        return _rfold_checkpointed(c, t, acc, vec, n)
    key = _fold_key(c, t)
    done = _recall(c, key)
    if done is not None and done.kept is not None:  # the fold's value kept its states
        kept, acc, tape = done.kept, done.acc, done.tape
    else:
        kept = _kept_lists(c, acc)
        tape = Tape(c, acc) if c.depth == 0 else None
        with _Loop(c, n) as i:
            for k, a in zip(kept, acc):
                c.emit(f"{k}.append({a.code})")
            new = _comp_in(c, t.body, t.var, (rebuild(acc, at), _element(c, vec, vt, i)))
            new = [acc_leaf(c, y, lt) for y, lt in zip(leaves(new, at), lts)]
            if tape is not None:
                tape.record(c, i)
            _carry(c, acc, new)
        if key is not None:
            _remember(c, key, _Ran(acc, kept, tape))
    dr0 = [dacc_leaf(c, x, lt, a) for x, lt, a in zip(leaves(c.comp(t.dr), at), lts, acc)]
    dacc = _state(c, dr0, "dacc")
    if c.depth > 0:
        return _rfold_batched(c, t, vec, n, kept, acc, dacc)
    ds, dbs = _cotangent_sums(c, t, n, scalars=True)
    with _Loop(c, n, reverse=True) as i:
        acc_i = [Arr(c.assign(f"{k}[{i.code}]", "acc"), 0, frozenset(), a.rank, a.kind) for k, a in zip(kept, acc)]
        if tape is not None:
            tape.replay(c, i, acc_i)
        _carry(c, dacc, _reverse_step(c, t, vec, ds, dbs, i, acc_i, dacc))
    return _rfold_result(c, t, ds, dbs, dacc, vec)


def _rfold_batched(c: Compiler, t, vec: list, n: str, kept: list, acc: list, dacc: list):
    """RFold's reverse loop inside vectorised builds (depth d), from the kept states: the
    cotangent state has every batch axis at full size (see _batched_sums for the rest)."""
    ds, dbs = _batched_sums(c, t, n)
    summed = [False] * len(ds)
    with _Loop(c, n, reverse=True) as i:
        acc_i = [Arr(c.assign(f"{k}[{i.code}]", "acc"), a.depth, a.deps, a.rank, a.kind) for k, a in zip(kept, acc)]
        _carry(c, dacc, _batched_reverse_step(c, t, vec, ds, dbs, summed, i, acc_i, dacc))
    return _batched_result(c, t, vec, n, acc, dacc, ds, dbs, summed)


def _batched_sums(c: Compiler, t, n: str) -> tuple[list, list]:
    """The names that sum, inside vectorised builds, each lane's cotangent of the environment
    (a dense array per leaf, None until the first step: ``batch_add``; it is the lane's own,
    so the builds' reverse sums it over the lanes as it would any value of the body's) and
    the lists of the elements' cotangents per lane (``batch_steps`` makes each a vector at
    axis d). None for a leaf without tangent."""
    ds = [c.name("ds") if is_differentiable(lt) else None for lt in leaf_types(t.type.items[0])]
    dbs = [c.name("dv") if is_differentiable(lt) else None for lt in leaf_types(t.vec.type)]
    for s_ in ds:
        if s_ is not None:
            c.emit(f"{s_} = None")
    for db in dbs:
        if db is not None:
            c.emit(f"{db} = [None] * {n}")
    return ds, dbs


def _batched_reverse_step(c: Compiler, t, vec: list, ds: list, dbs: list, summed: list, i: Arr, acc_i: list,
                          dacc: list) -> list:
    """_reverse_step inside vectorised builds: adds each lane's cotangent of the environment
    (marking in `summed` the leaves a step adds to), writes element i's, gives state i's."""
    at, vt, ds_t = t.acc.type, t.vec.type, t.type.items[0]
    step_ds, da, db, elem = _reverse_step_parts(c, t, vec, i, acc_i, dacc)
    for k, (s_, y) in enumerate(zip(ds, leaves(step_ds, ds_t))):
        if s_ is not None and not is_zero(y):
            _accumulate(c, s_, y)
            summed[k] = True
    for v_, y, lt, e in zip(dbs, leaves(db, vt.elem), leaf_types(vt.elem), leaves(elem, vt.elem)):
        if v_ is not None:
            c.emit(f"{v_}[{i.code}] = {dacc_leaf(c, y, lt, e).code}")
    return [dacc_leaf(c, y, lt, a) for y, lt, a in zip(leaves(da, at), leaf_types(at), acc_i)]


def _accumulate(c: Compiler, name: str, y) -> None:
    """Add a step's cotangent y of a leaf of the environment to its per-lane sum `name`: an
    index update at an index that is the same in every lane (v[k] read in the loop's body)
    in place (batch_add_at: no array of v's shape per step), anything else made dense."""
    if not _uniform(y):
        raise Unvectorisable("a loop whose environment's cotangent varies in length with the index of the build "
                             "around it")
    batch, rest = _batch(c), []
    for term in tsum_terms(y):
        chain = _lane_invariant_update(term)
        if chain is None:
            rest.append(term)
            continue
        idx, val, ns = chain
        c.emit(f"{name}, = batch_add_at({name}, {batch}, {_tuple([i.code for i in idx])}, "
               f"{c.lift(val, c.depth).code}, {_tuple([m.code for m in ns])}),")  # tidy keeps a tuple assignment
    if rest:
        dense = c.lift(arrays.dense(c, tangent_ops.sum_all(c, rest)), c.depth)
        c.emit(f"{name}, = batch_add({name}, {batch}, {dense.code}),")


def _lane_invariant_update(y):
    """(indices, value, lengths) when y is an index update (or an update of rows) whose
    indices and lengths are the same in every lane and whose value is an array; else None."""
    idx, ns = [], []
    while isinstance(y, Upd):
        if y.extra or y.idx.depth or y.n.depth:
            return None
        idx.append(y.idx)
        ns.append(y.n)
        y = y.val
    return (idx, y, ns) if idx and isinstance(y, Arr) else None


def _batched_result(c: Compiler, t, vec: list, n: str, acc: list, dacc: list, ds: list, dbs: list, summed: list):
    """RFold's value inside vectorised builds once its reverse loop ran; `acc` and `dacc` hold
    the initial state and its cotangent."""
    at, vt, ds_t = t.acc.type, t.vec.type, t.type.items[0]
    d = c.depth
    if any(summed):
        _empty_sums(c, t, vec, n, acc, dacc, [s_ if k else None for s_, k in zip(ds, summed)])
    batch = _batch(c)
    full = frozenset(range(d))
    ds_out = [ZERO if s_ is None or not k else Arr(c.assign(f"batch_full({s_}, {batch})", "ds"), d, full, rank(lt), "f")
              for s_, k, lt in zip(ds, summed, leaf_types(ds_t))]
    dv = [ZERO if v_ is None else Arr(c.assign(f"batch_steps({v_}, {d}, {batch} + np.shape({v.code}))", "dv"),
                                      d, full, rank(lt) + 1, "f")
          for v_, lt, v in zip(dbs, leaf_types(vt.elem), vec)]
    return rebuild(ds_out, ds_t), (rebuild(dacc, at), rebuild(dv, vt))


def _empty_sums(c: Compiler, t, vec: list, n: str, acc: list, dacc: list, ds: list) -> None:
    """With no steps, each summed leaf of the environment's cotangent is zeros of the shape a
    step's would have, which only a step can tell (it is the shape of a variable of the
    environment, which RFold does not name): so a reverse step is compiled once more, for
    `n == 0` only, under a mask that no lane passes (its checks and reads are guarded as in an
    untaken branch), and its cotangents, selected away, give the zeros."""
    at, vt, ds_t = t.acc.type, t.vec.type, t.type.items[0]
    never = Arr("False", 0, frozenset(), 0, "b")
    with _Block(c, f"if {n} == 0:"):
        c.masks.append(never)
        try:
            step_ds, _, _, _ = _reverse_step_parts(c, t, vec, Arr("0", 0, frozenset(), 0, "i"), acc, dacc)
            for s_, y in zip(ds, leaves(step_ds, ds_t)):
                if s_ is None:
                    continue
                if is_zero(y):
                    raise Unvectorisable("a reverse loop inside a vectorised build whose cotangent has no shape")
                zero = c.lift(_dense_uniform(c, control.masked(c, never, y)), c.depth)
                c.emit(f"{s_} = np.zeros(np.shape({zero.code}))")
        finally:
            c.masks.pop()


def _reverse_step_parts(c: Compiler, t, vec: list, i: Arr, acc_i: list, dacc: list):
    """One step backwards compiled at the current depth: (the environment's cotangent, the
    state's, the element's, the element)."""
    at, vt = t.acc.type, t.vec.type
    elem = _element(c, vec, vt, i)
    out = _comp_in(c, t.rbody, t.rvar, ((rebuild(acc_i, at), elem), rebuild(dacc, at)))
    step_ds, rest = (ZERO, ZERO) if out is ZERO else out
    da, db = (ZERO, ZERO) if rest is ZERO else rest
    return step_ds, da, db, elem


def _cotangent_sums(c: Compiler, t, n: str, scalars: bool = False) -> tuple[list, list]:
    """The names that sum the environment's cotangent (one catad.tangents.Acc per leaf, None
    for a leaf without tangent) and the lists of the elements' cotangents. The sum is made in
    place: a sum made anew at each step copies the dense part every time (an index update of
    a vector read as v[i] would cost the vector's length per step, n^2 for the loop). With
    `scalars`, a Float leaf is summed in a plain number (a _Scalar): an Acc's method call
    per step was half the reverse loop of a scalar recurrence."""
    ds = [None if not is_differentiable(lt) else _Scalar(c.name("ds")) if scalars and lt == Float
          else c.name("ds") for lt in leaf_types(t.type.items[0])]
    for s_ in ds:
        if s_ is not None:
            c.emit(f"{s_} = 0.0" if isinstance(s_, _Scalar) else f"{s_} = T_Acc()")
    dbs = [c.name("dv") if is_differentiable(lt) else None for lt in leaf_types(t.vec.type)]
    for d in dbs:
        if d is not None:
            c.emit(f"{d} = [None] * {n}")
    return ds, dbs


class _Scalar(str):
    """The name of a Float cotangent summed in a plain number (see _cotangent_sums)."""


_NUMBER = Arr("0.0", 0, frozenset(), 0, "f")  # what a scalar zero tangent is shaped like


def _reverse_step(c: Compiler, t, vec: list, ds: list, dbs: list, i: Arr, acc_i: list, dacc: list) -> list:
    """One step of the reverse loop, from state i (acc_i) and the cotangent of state i + 1:
    it adds to the environment's cotangent, writes element i's, and gives state i's."""
    at, vt, ds_t = t.acc.type, t.vec.type, t.type.items[0]
    elem = _element(c, vec, vt, i)
    out = _comp_in(c, t.rbody, t.rvar, ((rebuild(acc_i, at), elem), rebuild(dacc, at)))
    step_ds, rest = (ZERO, ZERO) if out is ZERO else out
    da, db = (ZERO, ZERO) if rest is ZERO else rest
    new_da = [tangent_leaf(c, y, lt, a) for y, lt, a in zip(leaves(da, at), leaf_types(at), acc_i)]
    for s_, y in zip(ds, leaves(step_ds, ds_t)):
        if isinstance(s_, _Scalar) and y is not ZERO:
            c.emit(f"{s_}, = {s_} + {tangent_leaf(c, y, Float, _NUMBER).code},")  # tidy keeps a tuple assignment
        elif s_ is not None and y is not ZERO:
            # a sum of index updates (the rows a step read) added term by term: each lands in
            # the sum's buffer in place, where their sum made first is a new dense array
            terms = tsum_terms(y) if isinstance(y, TSum) and not _vectorised_parts(y) else [y]
            for term in terms:
                c.emit(f"{s_}.add({_runtime_tangent(c, term)})")
    elems = leaves(elem, vt.elem)
    for d, y, lt, e in zip(dbs, leaves(db, vt.elem), leaf_types(vt.elem), elems):
        if d is not None:
            c.emit(f"{d}[{i.code}] = {tangent_leaf(c, y, lt, e).code}")
    return new_da


def _rfold_result(c: Compiler, t, ds: list, dbs: list, dacc: list, vec: list | None = None):
    """(`vec`: the leaves of the vector folded over, whose shapes the cotangents of their rows take
    when there is none)"""
    at, vt, ds_t = t.acc.type, t.vec.type, t.type.items[0]
    likes = [f", {v.code}" if isinstance(v, Arr) and v.depth == 0 else "" for v in vec] \
        if vec is not None and len(vec) == len(dbs) else [""] * len(dbs)
    dv = [ZERO if d is None else Arr(c.assign(f"loop_array({d}, np.float64, {rank(lt) + 1}{like})", "dv"), 0,
                                     frozenset(), rank(lt) + 1, "f")
          for d, lt, like in zip(dbs, leaf_types(vt.elem), likes)]
    ds_out = [ZERO if s_ is None else Arr(str(s_), 0, frozenset(), 0, "f") if isinstance(s_, _Scalar)
              else RT(c.assign(f"{s_}.value()", "ds")) for s_ in ds]
    return rebuild(ds_out, ds_t), (rebuild(dacc, at), rebuild(dv, vt))


# ---------------------------------------------------------------- checkpointed RFold

class _Def:
    """def name(params): the lines written inside at one more indentation (a closure of the
    generated function, compiled once), their memo dropped after."""

    def __init__(self, c: Compiler, hint: str, params: list[str]):
        self.c, self.hint, self.params = c, hint, params

    def __enter__(self) -> str:
        c = self.c
        name = c.name(self.hint)
        c.emit(f"def {name}({', '.join(self.params)}):")
        c.indent += 1
        c.memo.append({})
        self.name = name
        return name

    def __exit__(self, *exc) -> None:
        self.c.memo.pop()
        self.c.indent -= 1


def _tuple(codes: list[str]) -> str:
    return "(" + "".join(x + ", " for x in codes) + ")"


def _unpack(c: Compiler, like: list, packed: str, hint: str) -> list:
    """The leaves of the tuple named `packed` (ZERO leaves of `like` are not in it) as names."""
    out, names = [], []
    for v in like:
        if v is ZERO:
            out.append(ZERO)
            continue
        names.append(c.name(hint))
        out.append(Arr(names[-1], v.depth, v.deps, v.rank, v.kind))
    if names:
        c.emit(", ".join(names) + ", = " + packed)
    return out


def _rfold_checkpointed(c: Compiler, t, acc: list, vec: list, n: str):
    """RFold keeping at most c.checkpoints states: a run of steps, a sweep (a run of steps
    keeping their states, then their reverse steps) and the step and the first cotangent for
    the loop's end, compiled once each as closures, which catad.backend.checkpoint.reverse_loop
    calls on its schedule (it recomputes the states it did not keep). `acc` is the initial
    state, `vec` the vector's leaves and `n` its length. The final state it computes on the
    way is the fold's value: the program's own fold reads it rather than looping again.
    Inside vectorised builds the states and cotangents are batched as in rfold, and the same
    reverse step sums them, in the same order."""
    at = t.acc.type
    lts = leaf_types(at)
    batched = c.depth > 0
    ds, dbs = _batched_sums(c, t, n) if batched else _cotangent_sums(c, t, n, scalars=True)
    summed = [False] * len(ds)
    dr = leaves(c.comp(t.dr), at)
    i_p, acc_p = c.name("i"), c.name("acc_in")
    with _Def(c, "step", [i_p, acc_p]) as step:
        i = Arr(i_p, 0, frozenset(), 0, "i")
        state = _unpack(c, acc, acc_p, "acc")
        new = _comp_in(c, t.body, t.var, (rebuild(state, at), _element(c, vec, t.vec.type, i)))
        c.emit("return " + _tuple([acc_leaf(c, y, lt).code for y, lt in zip(leaves(new, at), lts)]))
    i0_p, i1_p, acc_p = c.name("i0"), c.name("i1"), c.name("acc_in")
    with _Def(c, "advance", [i0_p, i1_p, acc_p]) as advance:  # a run of steps in one call
        state = _state(c, _unpack(c, acc, acc_p, "acc"), "acc")
        _steps(c, t, vec, state, i0_p, i1_p, [])
        c.emit("return " + _tuple([s.code for s in state]))
    dacc_like = [a if is_differentiable(lt) else ZERO for lt, a in zip(lts, acc)]  # the leaves with a tangent
    last_p = c.name("acc_last")
    with _Def(c, "start", [last_p]) as start:  # the cotangent of the final state, shaped like it
        last = _unpack(c, acc, last_p, "acc")
        dr0 = [dacc_leaf(c, x, lt, a) for x, lt, a in zip(dr, lts, last)]
        c.emit("return " + _tuple([d.code for d in dr0 if d is not ZERO]))
    sweep = _sweep(c, t, vec, acc, dacc_like, ds, dbs, summed, step, start)
    dacc = [ZERO if d is ZERO else Arr(c.name("dacc"), d.depth, d.deps, d.rank, "f") for d in dacc_like]
    final = [Arr(c.name("acc"), a.depth, a.deps, a.rank, a.kind) for a in acc]
    call = f"reverse_loop({n}, {int(c.checkpoints)}, {_tuple([a.code for a in acc])}, {advance}, {sweep}, {start})"
    c.emit(f"{_tuple([d.code for d in dacc if d is not ZERO])}, {_tuple([a.code for a in final])} = {call}")
    key = _fold_key(c, t)
    if key is not None:
        _remember(c, key, _Ran(final, None))
    if batched:  # with no steps, `acc` is the final state too, and dacc the final cotangent
        return _batched_result(c, t, vec, n, acc, dacc, ds, dbs, summed)
    return _rfold_result(c, t, ds, dbs, dacc, vec)


def _steps(c: Compiler, t, vec: list, state: list, i0: str, i1: str, kept: list) -> None:
    """for i in range(i0, i1): the fold's step on the loop-carried `state`, appending each
    state to the lists named `kept` first (none: keeping nothing)."""
    at = t.acc.type
    with _Loop(c, i1, start=i0) as i:
        for k, a in zip(kept, state):
            c.emit(f"{k}.append({a.code})")
        new = _comp_in(c, t.body, t.var, (rebuild(state, at), _element(c, vec, t.vec.type, i)))
        _carry(c, state, [acc_leaf(c, y, lt) for y, lt in zip(leaves(new, at), leaf_types(at))])


def _sweep(c: Compiler, t, vec: list, acc: list, dacc_like: list, ds: list, dbs: list, summed: list, step: str,
           start: str) -> str:
    """def sweep(i0, i1, acc_in, dacc_in): steps i0 .. i1 - 2 keeping their states, then
    reverse steps i1 - 1 .. i0; with dacc_in None (the loop's end), step i1 - 1 first, whose
    state is the final one and gives the first cotangent. Returns (the cotangent of state i0,
    the final state or None). See checkpoint.reverse_loop. Inside vectorised builds the
    reverse steps are rfold's batched ones (marking in `summed` what they add to)."""
    batched = c.depth > 0
    i0_p, i1_p, acc_p, dacc_p = c.name("i0"), c.name("i1"), c.name("acc_in"), c.name("dacc_in")
    with _Def(c, "sweep", [i0_p, i1_p, acc_p, dacc_p]) as sweep:
        # summed in the generated function's own names (batched: each rebinds its array)
        rebound = [s_ for s_ in ds if s_ is not None] if batched else [s_ for s_ in ds if isinstance(s_, _Scalar)]
        if rebound:
            c.emit("nonlocal " + ", ".join(rebound))
        state = _state(c, _unpack(c, acc, acc_p, "acc"), "acc")
        kept = _kept_lists(c, state)
        _steps(c, t, vec, state, i0_p, f"{i1_p} - 1", kept)
        for k, a in zip(kept, state):
            c.emit(f"{k}.append({a.code})")
        last = c.name("last")
        c.emit(f"{last} = None")
        c.emit(f"if {dacc_p} is None:")
        c.emit(f"    {last} = {step}({i1_p} - 1, {_tuple([a.code for a in state])})")
        c.emit(f"    {dacc_p} = {start}({last})")
        dacc = _state(c, _unpack(c, dacc_like, dacc_p, "dacc"), "dacc")
        with _Loop(c, i1_p, reverse=True, start=i0_p) as i:
            acc_i = [Arr(c.assign(f"{k}.pop()", "acc"), a.depth, a.deps, a.rank, a.kind) for k, a in zip(kept, acc)]
            _carry(c, dacc, _batched_reverse_step(c, t, vec, ds, dbs, summed, i, acc_i, dacc) if batched
                   else _reverse_step(c, t, vec, ds, dbs, i, acc_i, dacc))
        c.emit(f"return {_tuple([d.code for d in dacc if d is not ZERO])}, {last}")
    return sweep
