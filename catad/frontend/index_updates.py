"""Assignments through integer index arrays and boolean masks: ``a[idx] = v``, ``m[rows, cols] = v``,
``m[i, cols] = v``, ``a[mask] = v`` and their augmented forms ``a[idx] += v`` (updates.py lowers
the plain ones and decides which arrays may be changed).

NumPy's meaning (the NumPy manual, "Indexing on ndarrays: assigning values to indexed arrays"):
the index arrays, broadcast together, select positions of a's leading axes; v is broadcast to the
shape of ``a[idx]`` and each selected position receives its value. A position selected several
times keeps one write, the last (NumPy does not promise an order; catad keeps the last, which is
what NumPy does). ``a[idx] += v`` is ``a[idx] = a[idx] + v``: each position gets its old value
plus one value of v (not np.add.at's sum of all). A boolean mask of a's shape selects its true
positions in C order, and v holds one value per true position, or one for all.

Either way the new array is one build over a's positions, neither a loop of updates nor a
one-hot matrix:

    a[idx] = v   ~>  let w = last_hit(idx, len(a)) in build(len(a), \\p. if w[p] >= 0 then v[w[p]] else a[p])
    a[mask] = v  ~>  let c = cumsum(mask) in build(len(a), \\p. if mask[p] then v[c[p] - 1] else a[p])

(with positions flattened in C order over the indexed axes). ``last_hit`` (an Int primitive,
catad.primitives.registry) says which write each position keeps; Ints carry no derivative, so
the derivative is a gather's: v's cotangent is a scatter-add through w, each kept write once (a
write that a later one replaced gets none), and a's cotangent is kept where nothing was written.
"""
from __future__ import annotations

from ..errors import CatadTypeError, Loc
from ..lang.terms import Build, If, Term, make_lets
from ..lang.types import Int, rank, scalar_of
from ..primitives import prim
from .common import ONE, ZERO, all_, index_chain, or_
from .numpy_arrays import _flat_index, _flat_reader, builds, scan0
from .shapes import fresh

_CONSTRUCT = "item assignment"


def assign_indexed(lw, arr: Term, items: list, value: Term, op, loc: Loc, node) -> Term:
    """arr with the positions items select (("take", int array), ("index", Int), ("mask", Bool
    array), ("slice", lo, hi)) given value; op(old, v) combines them for an augmented assignment
    (None: v replaces old)."""
    if any(it[0] == "mask" for it in items):
        if len(items) != 1:
            lw.fail(node, _CONSTRUCT, "a boolean mask beside other indices on the left of = is not supported",
                    hint="index with the mask alone, or use np.where(mask, value, a)")
        return _masked(lw, arr, items[0][1], value, op, loc, node)
    while items and items[-1][0] == "slice" and items[-1][1:] == (None, None):
        items = items[:-1]  # a trailing ':' selects the whole axis, as if left out
    if any(it[0] == "slice" for it in items):
        lw.fail(node, _CONSTRUCT, "a slice beside an index array on the left of = is not supported",
                hint="index with arrays and integers only, e.g. m[rows, cols] = v, or assign in a loop")
    if any(it[0] == "take" and rank(it[1].type) != 1 for it in items):
        lw.fail(node, _CONSTRUCT, "an index array of rank 2 or more on the left of = is not supported",
                hint="index with vectors, e.g. a[idx.ravel()] = v.ravel()")
    kinds = [it[0] for it in items]
    return lw.b.share_all([arr, value] + [it[1] for it in items],
                          lambda a, v, *ixs: _scattered(lw, a, kinds, list(ixs), v, op, loc, node), loc)


# ---------------------------------------------------------------- integer index arrays

def _scattered(lw, a: Term, kinds: list, ixs: list, v: Term, op, loc: Loc, node) -> Term:
    b = lw.b
    dims = b.shape(a)
    k_axes = len(kinds)
    binds = []
    takes = [j for j, kind in enumerate(kinds) if kind == "take"]
    members = [(j, b.shape(ixs[j])[0]) for j in takes]
    out_dim, reads, more, conds = b.broadcast_axis(members, loc)  # the index arrays broadcast together
    binds += more
    shown = tuple((d.size,) for _, d in members)
    binds += b.check(all_(conds), shown, loc, "index", "shape mismatch: indexing arrays could not be broadcast "
                     "together with shapes " + " ".join("{%d}" % q for q in range(len(members))), "bounds",
                     equal=tuple(b.equal))
    b.equal.clear()
    scalars = {}
    for j, kind in enumerate(kinds):
        if kind == "index":
            chk, i = b.index(a, ixs[j], j, loc, dim=dims[j])
            binds += chk
            scalars[j] = b.share_atom(i, binds, loc)
    sizes = [fresh(dims[j].size, loc) for j in range(k_axes)]

    def position(k):  # the flat position (over the indexed axes) of write k, checked as NumPy reads it
        chks, parts = [], []
        for j in range(k_axes):
            if j in scalars:
                parts.append(scalars[j])
                continue
            chk, i = b.index(a, prim("index", reads[j](k), ixs[j], loc=loc), j, loc, in_place=True, dim=dims[j])
            chks += chk
            parts.append(i)
        return make_lets(chks, _flat_index(tuple(parts), tuple(sizes), loc))
    k = b.var(Int, loc, "_k")
    positions = Build(fresh(out_dim.size, loc), k, position(k), loc)
    count = sizes[0]
    for n in sizes[1:]:
        count = prim("mul", count, n, loc=loc)
    hits = b.share_atom(prim("last_hit", positions, count, loc=loc), binds, loc)
    target = [out_dim] + list(dims[k_axes:])  # the shape of a[idx], which v is broadcast to
    read, more = _broadcast_reader(lw, v, target, loc, node, "shape mismatch: value array of shape {0} could not "
                                   "be broadcast to indexing result of shape {1}")
    binds += more

    def element(*q):
        lets: list = []
        w = b.share_atom(prim("index", _flat_index(q[:k_axes], tuple(sizes), loc), hits, loc=loc), lets, loc)
        old = index_chain(a, list(q), loc)
        new = read([prim("max", w, ZERO, loc=loc)] + list(q[k_axes:]))  # w < 0 only where nothing is read
        return make_lets(lets, If(prim("le", ZERO, w, loc=loc), _combined(lw, op, old, new, loc, node), old, loc))
    return make_lets(binds, builds(lw, [fresh(d.size, loc) for d in dims], element, loc))


def _broadcast_reader(lw, v: Term, target: list, loc: Loc, node, message: str):
    """(read, bindings): read(idx) is v's element at position idx of the shape `target` (Dims)
    it is broadcast to (a length-1 axis read at 0, an axis whose length is known only at run
    time at min(i, len - 1)); the bindings check v's shape fits, with NumPy's message."""
    b = lw.b
    rv, rt = rank(v.type), len(target)
    if rv > rt:
        lw.fail(node, _CONSTRUCT, f"the value has {rv} dimensions, more than the {rt} of what it is assigned to",
                CatadTypeError, "give the value the shape of what it replaces")
    vdims = b.shape(v)
    conds, how = [], []
    for q, vd in enumerate(vdims):
        td = target[rt - rv + q]
        if b.shapes.same(vd, td):
            how.append(lambda i: i)
        elif vd.one is True:
            how.append(lambda i: ZERO)
        else:
            conds.append(or_(prim("eq", vd.size, td.size, loc=loc), prim("eq", vd.size, ONE, loc=loc)))
            how.append(b.clamp(vd.size, loc))
    binds = b.check(all_(conds), (tuple(d.size for d in vdims), tuple(d.size for d in target)), loc, _CONSTRUCT,
                    message) if conds else []

    def read(idx):
        return index_chain(v, [f(i) for f, i in zip(how, idx[rt - rv:])], loc)
    return read, binds


def _combined(lw, op, old: Term, new: Term, loc: Loc, node) -> Term:
    """What a written position holds: the value, or op(old, value) for an augmented assignment,
    which must keep the array's type (NumPy refuses to cast a Float result into an Int array)."""
    if op is None:
        return new
    out = op(old, new)
    if out.type != old.type:
        lw.fail(node, _CONSTRUCT, f"the augmented assignment gives a {out.type} where the array holds a {old.type} "
                "(NumPy cannot cast it in place)", CatadTypeError, "make the array Float: a = a.astype(float)")
    return out


# ---------------------------------------------------------------- boolean masks

def _masked(lw, arr: Term, mask: Term, value: Term, op, loc: Loc, node) -> Term:
    r, rv = rank(arr.type), rank(value.type)
    if rank(mask.type) != r:
        lw.fail(node, _CONSTRUCT, f"a boolean mask of rank {rank(mask.type)} on an array of rank {r} is not supported "
                "on the left of =", hint="use a mask of the array's shape, or np.where(mask[:, None], value, a)")
    if rv > 1:
        lw.fail(node, _CONSTRUCT, "NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, "
                f"input has {rv} dimensions", CatadTypeError)
    return lw.b.share_all([arr, mask, value], lambda a, m, v: _masked_body(lw, a, m, v, op, loc, node), loc)


def _masked_body(lw, a: Term, m: Term, v: Term, op, loc: Loc, node) -> Term:
    b = lw.b
    dims = b.shape(a)
    binds = b.mask_checks(dims, m, 0, loc)
    sizes = tuple(fresh(d.size, loc) for d in dims)
    count = b.count(m, loc)
    flat = _flat_reader(lw, m, loc)
    k = b.var(Int, loc, "_k")
    ints = b.share_atom(Build(count, k, If(flat(k), ONE, ZERO, loc), loc), binds, loc)
    ranks = b.share_atom(scan0(lw, ints, lambda x, y: prim("add", x, y, loc=loc), loc), binds, loc)  # true ones up to here
    if rank(v.type) == 1:
        n_true, n_values = prim("sum", ints, loc=loc), b.size(v, 0, loc)
        binds += b.check(or_(prim("eq", n_values, n_true, loc=loc), prim("eq", n_values, ONE, loc=loc)),
                         (n_values, n_true), loc, _CONSTRUCT, "NumPy boolean array indexing assignment cannot assign "
                         "{0} input values to the {1} output values where the mask is true")
        last = prim("sub", fresh(n_values, loc), ONE, loc=loc)
        read = lambda p: prim("index", prim("min", prim("max", prim("sub", prim("index", p, ranks, loc=loc), ONE,
                                                                         loc=loc), ZERO, loc=loc), last, loc=loc),
                              v, loc=loc)
    else:
        read = lambda p: v

    def element(*q):
        old = index_chain(a, list(q), loc)
        new = read(_flat_index(q, sizes, loc))
        if scalar_of(new.type) != scalar_of(old.type):
            new = b.to_float(new, loc)
        return If(index_chain(m, list(q), loc), _combined(lw, op, old, new, loc, node), old, loc)
    out = builds(lw, list(sizes), element, loc)
    if binds:  # (a mask not proven of a's shape may be empty, which NumPy takes as selecting nothing)
        out = If(prim("eq", count, ZERO, loc=loc), a, out, loc)
    return make_lets(binds, out)
