"""Control flow: let, if (select and mask), build, and the Python-loop fallback (catad.backend).

A build is compiled once for all its indices (one more batch axis, values.py); a ragged range
is padded to its longest lane and masked. A conditional evaluates both branches under their
masks and selects with ``np.where``, so an untaken branch's NaN or inf never reaches a result.
Where a build has no whole-array form (``Unvectorisable``), it is compiled again as a Python
loop and the compiler records why (``Fallback``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import Loc
from ..lang import terms as K
from ..lang.types import Tuple as TupleT, Type, Vec, rank
from . import arrays, scatters, tangent_ops
from .values import ZERO, RT, Arr, Stacked, TSum, Upd, Unvectorisable, depth_of, is_zero, kind_of, tsum_terms

if TYPE_CHECKING:
    from .compiler import Compiler


@dataclass(frozen=True)
class Fallback:
    """A build compiled as a Python loop, and why."""
    reason: str
    loc: Loc | None

    def __str__(self) -> str:
        where = f"{self.loc}: " if self.loc is not None else ""
        return f"{where}Python loop: {self.reason}"


def _components(t: Type) -> list:
    """The component types of a tuple, or of a vector of tuples (a tuple of vectors)."""
    if isinstance(t, TupleT):
        return list(t.items)
    return [Vec(c) for c in _components(t.elem)]


def _rebind(c: Compiler, name: str, old) -> None:
    """Undo a binding of the variable name; old: its value before (None: it had none)."""
    if old is None:
        c.env.pop(name, None)
    else:
        c.env[name] = old


def let(c: Compiler, t: K.Let):
    """A chain of lets, iteratively (a long program must not recurse once per let)."""
    bound = []
    try:
        while isinstance(t, K.Let):
            start = len(c.lines)
            value = c.comp(t.rhs)
            if isinstance(value, Arr):
                value = c.rename_last(value, t.var.name, start)
            bound.append((t.var.name, c.env.get(t.var.name)))
            c.env[t.var.name] = value
            t = t.body
        return c.comp(t)
    finally:  # also when an attempt fails (build): its values name lines that are dropped
        for name, old in reversed(bound):
            _rebind(c, name, old)


def if_(c: Compiler, t: K.If):
    """Both branches, each under its mask (a check in a branch looks only at its lanes), then
    the selection."""
    cond = c.comp(t.cond)
    if isinstance(cond, RT):  # a Bool a run-time value holds (a loop's state read back): a Python bool
        cond = Arr(cond.code, 0, frozenset(), 0, "b")
    if c.branch_blocks and cond.depth == 0 and cond.rank == 0:
        return if_blocks(c, t, cond)
    notc = c.op("np.logical_not({0})", [cond], "b")
    a = _under(c, c.andmask(cond), t.then)
    b = _under(c, c.andmask(notc), t.orelse)
    return select(c, cond, notc, a, b)


def _under(c: Compiler, mask: Arr, t: K.Term):
    """t compiled under mask. The mask is popped even when compiling fails: a build's attempt
    that is Unvectorisable is compiled again as a loop, whose lines must not read a mask made by
    the attempt's lines, which are dropped (a NameError in the generated code)."""
    c.masks.append(mask)
    try:
        return c.comp(t)
    finally:
        c.masks.pop()


def if_blocks(c: Compiler, t: K.If, cond: Arr):
    """The branch taken only, in a Python if statement: the variant a program runs where computing
    both branches failed (Compiled.blocks), because the branch not taken is computed on values
    shaped for the other (the cotangent of `y = x[1:] if c else x` has the length of the branch
    taken). Each component of the result is one name, assigned in both blocks: an array where both
    branches give one of the same rank, a run-time tangent (catad.tangents) otherwise."""
    notc = c.op("np.logical_not({0})", [cond], "b")
    c.emit(f"if {cond.code}:")
    a, at = _block(c, t.then, cond)
    c.emit("else:")
    b, _ = _block(c, t.orelse, notc)
    ends = [at, len(c.lines)]
    out = _merge(c, a, b, ends)
    for (k, lines) in sorted(ends[2:], key=lambda e: -e[0]):  # the later block's first
        c.lines[k:k] = lines
    return out


def _block(c: Compiler, t: K.Term, cond: Arr):
    """t compiled inside a block of an if statement (its lines one level deeper, its memo
    dropped after): its value, as leaves named in the block (_leaf), and where the block ends."""
    c.indent += 1
    c.memo.append({})
    try:
        c.emit("pass")  # a block whose lines are all dead code is still a block
        value = _leaves_in_block(c, _under(c, c.andmask(cond), t), t.type)
        return value, len(c.lines)
    finally:
        c.memo.pop()
        c.indent -= 1


def _leaves_in_block(c: Compiler, x, ty: Type):
    """x with each leaf an Arr at depth 0, ZERO, or the code of a run-time value (a str)."""
    if isinstance(ty, TupleT):
        if isinstance(x, RT) and not x.is_list:
            x = tuple(RT(c.assign(f"rt_index({x.code}, {k})")) for k in range(len(ty.items)))
        elif is_zero(x):
            x = (ZERO,) * len(ty.items)
        if isinstance(x, tuple):
            return tuple(_leaves_in_block(c, v, s) for v, s in zip(x, ty.items))
    if is_zero(x):
        return ZERO
    if isinstance(x, Arr):
        return x
    if c.depth > 0:  # in a vectorised build: arrays only (else Unvectorisable, and a loop)
        return arrays.dense(c, x)
    if isinstance(x, Stacked):
        try:
            x = arrays.dense(c, x)
        except Unvectorisable:  # copies of a run-time tangent (no array: its shape is known at run time)
            return arrays.rt(c, x)
    if isinstance(x, Arr):
        return x
    try:
        return arrays.rt(c, x)
    except Unvectorisable:  # an update whose sums over a build are pending: the array it makes
        return arrays.dense(c, x)


def _merge(c: Compiler, a, b, ends: list):
    """One value for the two blocks' a and b: ends[0] and ends[1] are where the blocks end,
    and (position, lines) to insert there are appended to ends."""
    if isinstance(a, tuple):
        return tuple(_merge(c, x, y, ends) for x, y in zip(a, b))
    if a is ZERO and b is ZERO:
        return ZERO
    if c.depth > 0 and not (isinstance(a, Arr) and isinstance(b, Arr)):
        raise Unvectorisable("an if whose branches give values of different forms, in a vectorised build")
    name = c.name("br")
    code = lambda v: "ZERO" if v is ZERO else v.code if isinstance(v, Arr) else v
    for k, v in ((0, a), (1, b)):
        ends.append((ends[k], ["    " * (c.indent + 1) + f"{name} = {code(v)}"]))
    if isinstance(a, Arr) and isinstance(b, Arr) and a.rank == b.rank and a.kind == b.kind and \
            (a.depth, a.deps) == (b.depth, b.deps):
        return Arr(name, a.depth, a.deps, a.rank, a.kind)
    if c.depth > 0:  # no run-time tangents in a vectorised build
        raise Unvectorisable("an if whose branches give values of different forms, in a vectorised build")
    return RT(name)


def select(c: Compiler, cond: Arr, notc: Arr, a, b):
    """a where cond holds, else b (notc: not cond), by selection, never by multiplying."""
    if a is b:
        return a
    if is_zero(a):
        return masked(c, notc, b)
    if is_zero(b):
        return masked(c, cond, a)
    if isinstance(a, tuple):
        return tuple(select(c, cond, notc, x, y) for x, y in zip(a, b))
    if isinstance(a, RT) or isinstance(b, RT):
        return RT(c.assign(f"({arrays.rt_or_dense(c, a)} if {cond.code} else {arrays.rt_or_dense(c, b)})"))
    if isinstance(a, Stacked) and isinstance(b, Stacked) and arrays.same_axis(a, b) and \
            isinstance(a.body, Arr) and isinstance(b.body, Arr):
        d = max(a.depth, b.depth, cond.depth)
        a, b = arrays.at(c, a, d), arrays.at(c, b, d)
        return Stacked(select(c, cond, notc, a.body, b.body), d, a.n, a.N, a.mask)
    if isinstance(a, Stacked):
        a = arrays.dense(c, a)
    if isinstance(b, Stacked):
        b = arrays.dense(c, b)
    if isinstance(a, Arr) and isinstance(b, Arr):
        d = max(a.depth, b.depth, cond.depth)
        if d == 0:
            out = Arr(c.assign(f"({a.code} if {cond.code} else {b.code})"), 0, frozenset(), a.rank, a.kind)
        else:
            cc = c.expand(cond, d, a.rank)
            code = f"np.where({cc}, {c.lift(a, d).code}, {c.lift(b, d).code})"
            out = Arr(c.assign(code), d, a.deps | b.deps | cond.deps, a.rank, a.kind)
        if b.code == "False" and a.kind == "b" and not a.rank:  # cond and a (checks.overflow_test)
            c.logic[out.code] = ("and", cond, a)
        return out
    return tangent_ops.tadd(c, masked(c, cond, a), masked(c, notc, b))


def one_hot(c: Compiler, cond: Arr, x: Arr, d: int) -> Arr | None:
    """x where cond holds, 0 elsewhere, for cond made as j == i (c.logic), j the index of the
    innermost batch axis at depth d and x and i not varying along it: runtime.one_hot, zeros
    with x written at i (the derivative of a max, at its argmax); None otherwise."""
    how = c.logic.get(cond.code)
    if how is None or how[0] != "eq" or x.rank or x.kind != "f" or d < 1:
        return None
    for j, i in ((how[1], how[2]), (how[2], how[1])):
        ax = d - 1
        if j.iota == ax and (j.shift is None or j.shift[1] == "0") and j.clamp is None and j.depth == d and \
                not j.rank and \
                i.kind == "i" and not i.rank and ax not in i.deps and ax not in x.deps:
            code = f"one_hot({c.lift(x, d).code}, {c.lift(i, d).code}, {j.code})"
            return Arr(c.assign(code), d, x.deps | cond.deps, 0, "f")
    return None


def masked(c: Compiler, cond: Arr, x):
    """x where cond holds, zero elsewhere (selection: NaN and inf where cond fails vanish)."""
    if is_zero(x):
        return x
    if isinstance(x, tuple):
        return tuple(masked(c, cond, v) for v in x)
    if isinstance(x, Arr):
        d = max(cond.depth, x.depth)
        if d == 0 and x.rank == 0:
            zero = {"f": "0.0", "i": "0", "b": "False"}[x.kind]
            return Arr(c.assign(f"({x.code} if {cond.code} else {zero})"), 0, frozenset(), 0, x.kind)
        hot = one_hot(c, cond, x, d)
        if hot is not None:
            return hot
        code = f"np.where({c.expand(cond, d, x.rank)}, {c.lift(x, d).code}, 0)"
        out = Arr(c.assign(code), d, x.deps | cond.deps, x.rank, x.kind)
        if cond.code in c.ragged_masks and x.rank == 0 and x.kind == "f":
            c.defs[out.code] = ("where0", cond, x)
        return out
    if isinstance(x, Upd):
        # an iota stays an iota (scatter and update_vector skip zero values out of range)
        in_range = x.idx.iota is not None
        x = scatters.settle(c, x, cond.depth)
        if not isinstance(x, Upd):
            return masked(c, cond, x)
        idx = x.idx if in_range else c.op("np.where({0}, {1}, 0)", [cond, x.idx], "i")
        return Upd(idx, masked(c, cond, x.val), x.n, x.extra)
    if isinstance(x, TSum):
        return tangent_ops.sum_all(c, [masked(c, cond, v) for v in tsum_terms(x)])
    if isinstance(x, Stacked):
        s = arrays.at(c, x, max(x.depth, cond.depth))
        return Stacked(masked(c, cond, s.body), s.depth, s.n, s.N, s.mask)
    if isinstance(x, RT):
        if cond.depth > 0:  # a condition per lane: rt_mask would ask one array for its truth
            raise Unvectorisable("a run-time tangent selected lane by lane")
        return RT(c.assign(f"rt_mask({cond.code}, {x.code})"), x.is_list)
    raise AssertionError(x)


def build(c: Compiler, t: K.Build):
    """A build vectorised, or at depth 0, if it has no whole-array form, a Python loop."""
    n = c.comp(t.size)
    if not c.vectorise or c.depth == 0:
        # an attempt: its lines, fallbacks and memo entries are dropped if it fails
        # (the names it took stay taken, which is harmless)
        start, nfb = len(c.lines), len(c.fallbacks)
        c.memo.append({})
        try:
            if not c.vectorise:
                raise Unvectorisable("vectorisation is off")
            result = build_vector(c, t, n)
            attempt = c.memo.pop()
            c.memo[-1].update(attempt)
            return result
        except Unvectorisable as e:
            c.memo.pop()
            if c.depth > 0:
                raise
            del c.lines[start:]
            del c.fallbacks[nfb:]
            if c.vectorise:
                c.fallbacks.append(Fallback(str(e), t.loc))
            return build_loop(c, t, n)
    return build_vector(c, t, n)


def build_vector(c: Compiler, t: K.Build, n: Arr) -> Stacked:
    """The body compiled once for every index: at one more batch axis, k (values.py)."""
    k = c.depth
    n, N, iota, mask = lanes(c, t, n)
    c.sizes.append(N)
    c.lengths.append(n.code)
    c.iotas.append(iota)
    c.ragged.append(mask is not None)
    c.masks.append(c.andmask(mask) if mask is not None else c.mask)
    old = c.env.get(t.var.name)
    c.env[t.var.name] = iota
    try:
        body = c.comp(t.body)
    finally:
        c.sizes.pop()
        c.lengths.pop()
        c.iotas.pop()
        c.ragged.pop()
        c.masks.pop()
        _rebind(c, t.var.name, old)
    if depth_of(body) > k + 1:
        raise AssertionError("a build body escaped its depth")
    return stacked(c, body, k, n, N, mask)


def lanes(c: Compiler, t: K.Build, n: Arr):
    """(n, N, the index, the ragged mask or None) of a build of size n at the next batch
    axis: N lanes, n <= N of them elements (N is n unless n varies: a ragged range, as
    range(i), is padded to its longest lane and the rest masked)."""
    k = c.depth
    if n.deps:
        m = c.mask
        N = c.assign(f"maxlen({c.lift(n, max(n.depth, m.depth if m else 0)).code}"
                     f"{', ' + c.lift(m, n.depth).code if m is not None else ''})", "N")
    else:
        n = at_least_zero(c, n)
        N = n.code if n.depth == 0 else c.assign(f"int(np.reshape({n.code}, -1)[0])", "N")
    shape = f"({', '.join(['1'] * k + ['-1'])})" if k else ""
    i = c.assign(f"np.arange({N}){'.reshape(' + shape + ')' if k else ''}", t.var.name)
    iota = Arr(i, k + 1, frozenset({k}), 0, "i", k, None, (k, "0", N))  # j + 0 over N lanes (Arr.shift)
    mask = None
    if n.deps:
        mask = c.op("({0} < {1})", [iota, c.lift(n, k + 1)], "b", hint="m")
        c.ragged_masks.add(mask.code)
    return n, N, iota, mask


def at_least_zero(c: Compiler, n: Arr) -> Arr:
    """A build's size as range(n) has it: a negative n is no elements (summing a constant
    over such a build would otherwise multiply it by n)."""
    if n.code in c.nonneg or n.code.isdigit():
        return n
    code = f"max({n.code}, 0)" if n.depth == 0 else f"np.maximum({n.code}, 0)"
    out = Arr(c.assign(code, "n"), n.depth, n.deps, n.rank, n.kind)
    c.nonneg.add(out.code)
    return out


def stacked(c: Compiler, body, k: int, n: Arr, N: str, mask):
    """A vector of tuples is a tuple of vectors; a vector of zero tangents is zero."""
    if isinstance(body, tuple):
        return tuple(stacked(c, b, k, n, N, mask) for b in body)
    return Stacked(body, k, n, N, mask)


def build_loop(c: Compiler, t: K.Build, n: Arr):
    """The fallback: a Python loop over the body compiled for one index at a time."""
    assert c.depth == 0
    at = len(c.lines)
    i = c.name(t.var.name)
    c.emit(f"for {i} in range({n.code}):")
    c.indent += 1
    c.memo.append({})
    old = c.env.get(t.var.name)
    c.env[t.var.name] = Arr(i, 0, frozenset(), 0, "i")
    body = c.comp(t.body)
    if _zero(body):
        # a vector of zero tangents (in a derivative program: the primal's checks in it have run
        # already): zero itself, and no loop over a length that generated code never reads
        c.memo.pop()
        c.indent -= 1
        _rebind(c, t.var.name, old)
        del c.lines[at:]
        return body
    leaves = []
    loop_collect(c, body, leaves)
    for acc, code, _ in leaves:
        c.emit(f"{acc}.append({code})")
    c.memo.pop()
    c.indent -= 1
    _rebind(c, t.var.name, old)
    c.lines[at:at] = ["    " * c.indent + f"{acc} = []" for acc, _, _ in leaves]
    return loop_result(c, body, iter(leaves), t.body.type)


def _zero(x) -> bool:
    """x is the zero tangent, or a tuple of them, known while compiling."""
    return is_zero(x) or isinstance(x, tuple) and all(_zero(y) for y in x)


def loop_collect(c: Compiler, body, leaves: list) -> None:
    """(a list to append to, the code of the value, whether it is an array) for each component
    of the loop's body."""
    if isinstance(body, tuple):
        for b in body:
            loop_collect(c, b, leaves)
        return
    array = isinstance(body, (Arr, Stacked))
    if isinstance(body, Stacked):
        try:
            body = arrays.dense(c, body)
        except Unvectorisable:  # a vector of run-time tangents (of a shape known at run time only)
            leaves.append((c.name("acc"), arrays.rt(c, body), False))
            return
    # (an update whose value has batch axes, a build inside the loop: scattered)
    code = body.code if isinstance(body, Arr) else arrays.rt_terms(c, body)
    leaves.append((c.name("acc"), code, array))


def loop_result(c: Compiler, body, leaves, ty: Type):
    """The loop's value from its lists: arrays, or lists of run-time tangents."""
    if isinstance(body, tuple):
        return tuple(loop_result(c, b, leaves, t) for b, t in zip(body, _components(ty)))
    acc, _, array = next(leaves)
    if array:
        dtype = {"f": "np.float64", "i": "np.int64", "b": "np.bool_"}[kind_of(ty)]
        code = f"loop_array({acc}, {dtype}, {rank(ty) + 1})"
        return Arr(c.assign(code), 0, frozenset(), rank(ty) + 1, kind_of(ty))
    return RT(acc, is_list=True)
