"""Writing vectors: index updates and scatter-adds (catad.backend).

The cotangent of ``v[i]`` is ``update(i, r, n)``, kept symbolic (values.Upd) until an array
is needed; a sum over a build of updates then becomes one scatter-add (``runtime.scatter``,
``np.bincount``), or, when each index is its own summed build's index, only moves axes: an
einsum of the value's factors (``moved_axes``).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import arrays, contractions, control, reductions, tangent_ops
from .contractions import LETTERS
from .values import ZERO, RT, Arr, Stacked, TSum, Upd, Unvectorisable, is_scalar0, is_zero, tsum_terms

if TYPE_CHECKING:
    from .compiler import Compiler


def p_update(c: Compiler, t, i: Arr, r, n: Arr):
    """update(i, r, n): the vector of length n that is r at i and zero elsewhere."""
    return update(c, i, r, n)


def p_last_hit(c: Compiler, t, idx, n: Arr):
    """last_hit(idx, n) (catad.primitives.registry.last_hit_kernel) for all the lanes at once:
    idx's batch axes lead, each lane's positions along its last axis. A ragged idx (padded
    lanes would be read as writes) or a length n that varies with the lane has no whole-array
    form here."""
    if isinstance(idx, Stacked) and idx.mask is not None:
        raise Unvectorisable("the writes of an assignment through an index array of a ragged length")
    if not isinstance(n, Arr) or n.deps:
        raise Unvectorisable("an assignment through an index array into arrays of lengths that vary")
    a = arrays.dense(c, idx)
    n_code = n.code if n.depth == 0 else f"{n.code}.reshape(-1)[0]"
    return Arr(c.assign(f"last_hit({a.code}, {n_code})", "hit"), a.depth, a.deps, 1, "i")


def update(c: Compiler, i: Arr, r, n: Arr):
    """update(i, r, n), kept symbolic (an Upd) until it is summed or an array is needed. An
    update of a zero tangent, or of a vector of them (a row's cotangent that is zero), is zero."""
    if is_zero(r):
        return ZERO
    if isinstance(r, TSum):
        return tangent_ops.sum_all(c, [update(c, i, v, n) for v in tsum_terms(r)])
    if isinstance(r, tuple):  # a vector of tuples is a tuple of vectors
        return tuple(update(c, i, x, n) for x in r)
    if isinstance(r, RT):
        if c.depth > 0 or i.depth > 0 or n.depth > 0:  # a run-time tangent holds one lane's value
            raise Unvectorisable("a loop's tangents used inside a vectorised build")
        return RT(c.assign(f"rt_update({i.code}, {r.code}, {n.code})"))
    if isinstance(r, Upd):
        r = settle(c, r, max(i.depth, n.depth))
    return Upd(i, r, n)


def settle(c: Compiler, u: Upd, depth: int):
    """u, made an array if it sums over axes that a value of this depth uses."""
    if u.extra and depth > u.idx.depth - u.extra:
        return scatter(c, u, set(), c.sizes)
    return u


def scatter(c: Compiler, u: Upd, axes: set, sizes: list[str]) -> Arr:
    """An index update (possibly nested: a row's update) summed over the batch axes
    `axes` and its pending ones, as one dense array, by a single scatter-add."""
    chain = []
    v = u
    while isinstance(v, Upd):
        chain.append(v)
        v = v.val
    if isinstance(v, Stacked):
        v = arrays.dense(c, v, sizes)
    if not isinstance(v, Arr):
        raise Unvectorisable("a scatter of a value that is not an array")
    d = max([v.depth] + [up.idx.depth for up in chain])
    cover = v.deps.union(*(up.idx.deps for up in chain))
    summed = set(axes)
    for up in chain:
        summed |= set(range(up.idx.depth - up.extra, up.idx.depth))
    kept = [b for b in range(d) if b not in summed]
    sizes = _sizes(c, sizes, d, [v] + [up.idx for up in chain])
    shape = [sizes[b] if b in cover else "1" for b in kept]
    index = [c.lift(iotas_for(c, b, sizes), d).code if b in cover else "0" for b in kept]
    for up in chain:
        nn = up.n.code if not up.n.deps else c.assign(f"maxlen({up.n.code})", "N")
        shape.append(nn)
        index.append(c.lift(up.idx, d).code)
    moved = moved_axes(c, chain, v, d, summed, kept, cover, sizes)
    if moved is not None:
        return moved
    up = chain[0]
    if len(chain) == 1 and up.idx.clamp is not None and up.idx.deps == {up.idx.clamp[0]} and \
            up.idx.clamp[0] in summed and not up.n.deps and not is_scalar0(v):
        # (a number the same in every lane has no batch axes to sum: the general scatter broadcasts it)
        # the cotangent of take_clamped (gathers.gather): a sum over the broadcast axis, or v
        a, hi, N = up.idx.clamp
        other = tuple(sorted(b for b in summed if b != a))
        code = f"scatter_clamped({c.lift(v, d).code}, {N}, {a}, {other}, {up.n.code}, {hi}, " \
            f"{len(kept)})"
        deps = frozenset(k for k, b in enumerate(kept) if b in cover)
        return Arr(c.assign(code, "ct"), len(kept), deps, 1 + v.rank, "f")
    vl = c.lift(v, d)
    value = vl.code
    slices = _slices(c, chain, d, summed, kept, sizes)
    if slices is not None:
        shape_code = "(" + ", ".join(shape) + ("," if len(shape) == 1 else "") + ")"
        if v.rank:
            shape_code += f" + {vl.code}.shape[{d}:]"
        code = f"scatter_slices({shape_code}, ({', '.join(slices)},), {value}, {d})"
        return Arr(c.assign(code, "ct"), 0, frozenset(), len(chain) + v.rank, "f")
    if d and not cover:
        # every index is a number, so the scattered values have no batch axes: v's are all of
        # length 1 (it varies along none), and the run-time scatter wants them gone
        value = c.assign(f"{vl.code}.reshape({vl.code}.shape[{d}:])")
    shape_code = "(" + ", ".join(shape) + ("," if len(shape) == 1 else "") + ")"
    if v.rank:
        shape_code += f" + {value}.shape[0:]" if d and not cover else f" + {vl.code}.shape[{d}:]"
    code = f"scatter({shape_code}, ({', '.join(index)},), {value})"
    deps = frozenset(k for k, b in enumerate(kept) if b in cover)
    return Arr(c.assign(code, "ct"), len(kept), deps, len(chain) + v.rank, "f")


def _slices(c: Compiler, chain: list, d: int, summed: set, kept: list, sizes: list[str]) -> list[str] | None:
    """The codes of the positions (runtime.scatter_slices) that place the summed value when
    every batch axis is summed and each is the axis of exactly one update whose index is
    s + j over it, j the axis's index or min(j, hi) (Arr.shift: a slice v[s:e] read in the
    primal, or the index itself; Arr.clamp), in the order of the axes: (axis, s, N, hi or None); the
    other updates at one number each. Else None. The index arrays themselves are not read
    (the scatter makes them only when it falls back to the general one)."""
    if kept or d != len(summed):
        return None
    out, axes = [], []
    for up in chain:
        i = up.idx
        if up.n.deps:
            return None
        if i.depth == 0 and i.rank == 0 and i.kind == "i":
            out.append(i.code)
            continue
        if i.shift is not None and i.deps == {i.shift[0]}:
            (a, s, n), hi = i.shift, "None"
        elif i.clamp is not None and i.deps == {i.clamp[0]}:
            (a, hi, n), s = i.clamp, "0"
        else:
            return None
        axes.append(a)
        out.append(f"({a}, {s}, {n}, {hi})")  # n: the size of axis a when the index was made
    return out if axes == sorted(summed) else None


def _sizes(c: Compiler, sizes: list[str], d: int, arrays_: list[Arr]) -> list[str]:
    """The sizes of batch axes 0 .. d-1: `sizes`, and past its end (the axes of a row's update
    that the outer update sums lazily: reductions.reduce_update) read from an array of the chain
    that has that axis at full size."""
    if len(sizes) >= d:
        return sizes
    out = list(sizes)
    for b in range(len(sizes), d):
        full_ = next((a for a in arrays_ if b in a.deps), None)
        out.append(c.assign(f"{c.lift(full_, d).code}.shape[{b}]", "n") if full_ is not None else "1")
    return out


def moved_axes(c: Compiler, chain: list, v: Arr, d: int, summed: set, kept: list, cover: frozenset,
               sizes: list[str]) -> Arr | None:
    """The scatter when each update's index is the index of its own summed batch axis
    (the reverse of a transposition, as in x @ L.T): it only moves those axes to the
    element axes and sums the others, so it is an einsum of v's factors, with nothing
    scattered and no product formed. Or None. The einsum is kept in `defs` so that a
    later sum over a kept axis (the points of x) joins it (contractions.contract)."""
    moved = [up.idx.iota for up in chain]
    own_axis = all(a is not None and up.idx.deps == {a} and not up.n.deps for a, up in zip(moved, chain))
    if not own_axis or len(set(moved)) < len(moved) or not set(moved) <= summed:
        return None
    if v.kind != "f" or not summed <= v.deps or d + v.rank > len(LETTERS):
        return None  # v must vary along every axis that is summed or moved
    out = [LETTERS[b] if b in cover else None for b in kept] + [LETTERS[a] for a in moved] \
        + list(LETTERS[d:d + v.rank])
    pads = {len(kept) + k: up.n.code for k, up in enumerate(chain) if up.n.code != sizes[up.idx.iota]}
    how = contractions.einsum_of(c, contractions.factors(c, v) if v.rank == 0 else [v], d, out, pads)
    deps = frozenset(k for k, b in enumerate(kept) if b in cover)
    return contractions.einsum(c, how, len(kept), deps, len(chain) + v.rank)


def iotas_for(c: Compiler, b: int, sizes: list[str]) -> Arr:
    """The index of batch axis b, of size sizes[b] (the enclosing build's own, if it is that)."""
    if b < len(c.iotas) and sizes[b] == c.sizes[b]:
        return c.iotas[b]
    shape = f"({', '.join(['1'] * b + ['-1'])})"
    return Arr(c.assign(f"np.arange({sizes[b]}).reshape({shape})", "i"), b + 1, frozenset({b}), 0, "i", b)


def p_scatter_add(c: Compiler, t, idx, vals, n: Arr):
    """scatter_add(idx, vals, n): the sum over k of update(idx[k], vals[k], n)."""
    if vals is ZERO:
        return ZERO
    if isinstance(idx, Arr):
        idx = arrays.as_stacked(c, idx)
    if isinstance(vals, Arr):
        vals = arrays.as_stacked(c, vals)
    if not isinstance(idx, Stacked) or not isinstance(vals, Stacked):
        raise Unvectorisable("scatter_add of run-time tangents")
    d = max(idx.depth, vals.depth)
    idx, vals = arrays.at(c, idx, d), arrays.at(c, vals, d)
    body = update(c, idx.body, vals.body, n)
    if idx.mask is not None:
        body = control.masked(c, idx.mask, body)
    return reductions.reduce(c, body, d, idx.N, c.sizes[:d] + [idx.N])
