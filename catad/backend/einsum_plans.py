"""The NumPy calls of an einsum, chosen once per spec and shapes (runtime.contract).

``np.einsum(spec, *ops, optimize=path)`` parses its spec and runs ``einsum_path`` again on
every call, even with the path given, and then drives each pairwise step from Python: about
40 us of Python per call, as much as the arithmetic of GMM's contractions at d = 2. A plan
does that work at the first call of a spec with given shapes and keeps the steps as direct
calls: a pairwise contraction as one batched ``np.matmul`` of transposed and reshaped operands
(what NumPy 2.4's ``bmm_einsum`` does, after Gray's einsum_bmm), anything else (a product,
every summed index of size 1) as one ``c_einsum``. Only float64 arrays take these steps:
other dtypes (booleans, integers, NumPy scalars) take ``np.einsum`` with the same path, whose
dtype rules are einsum's own.

A sum whose summed indices are short (at most SHORT terms, GMM's d = 2), and a product whose
result's last axis is short while an operand lacks that axis, are unrolled instead (_short):
NumPy's ufunc and einsum loops run along the last axis, and a loop of length 2 with a
broadcast (stride 0) operand costs 5-10x a contiguous one; the unrolled terms are products of
basic-index slices, each a loop over the long axes.

The steps compute the same sums in another order (a matmul's, as NumPy 2.4's einsum already
did): equal up to rounding.
"""
from __future__ import annotations

import functools
import itertools
import math

import numpy as np

try:  # the einsum kernel without np.einsum's Python driver (NumPy >= 2: numpy._core)
    from numpy._core.multiarray import c_einsum
except ImportError:  # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import c_einsum

F64 = np.dtype(np.float64)
# _short unrolls a sum of at most SHORT terms, or a short last result axis of at most SHORT
# slices, for results of at least LEAST elements (below that, the unrolled terms' ufunc calls
# cost more Python than one c_einsum call's loop)
SHORT = 4
LEAST = 2048
SMALL = 2048  # an einsum of at most this many terms is one c_einsum pass
SMALL_OPERAND = 16  # a matmul's operand this many times smaller than the other is copied C-ordered


def run(spec: str, ops: list) -> np.ndarray:
    """einsum(spec, *ops) by the plan for their shapes."""
    for o in ops:  # (a loop, not all() of a generator: this runs for every contraction)
        if type(o) is not np.ndarray or o.dtype != F64:
            out = np.einsum(spec, *ops, optimize=path(spec, tuple(np.shape(o) for o in ops)))
            break
    else:
        out = plan(spec, tuple([o.shape for o in ops]))(ops)
    if _sums_apart(spec) and not (np.isfinite(out).all() and products_finite(*ops)):
        return _sum_of_products(spec, ops)
    return out


def products_finite(*xs) -> bool:
    """Whether no product of one element of each x (arrays or numbers), multiplied in any order,
    nor a sum of such products, can overflow: the product of their largest magnitudes, each taken
    as at least 1, times the number of terms, is finite. Only then is a product of sums the sum of
    the products (1e300 and -1e300 times 1e10: NumPy's terms are inf and -inf, their sum NaN; the
    product of sums 0.0). The largest x is read only where the others' bound is past 1 (a
    cotangent, a probability, a scale of 0.5 are within it): the products are then no larger
    than its elements, whose sum in another order is the factored sum's (equal up to rounding)."""
    last = max(range(len(xs)), key=lambda k: np.size(xs[k]))
    bound = 1.0
    for k, x in enumerate(xs):
        if k != last:
            bound *= max(_max_abs(x), 1.0)  # (NaN stays NaN: max(nan, 1.0) is nan)
    if bound == 1.0:
        return True
    terms = math.prod(np.size(x) for x in xs)
    return math.isfinite(bound * max(_max_abs(xs[last]), 1.0) * terms)


def _max_abs(x) -> float:
    if type(x) is not np.ndarray:
        return abs(complex(x)) if isinstance(x, complex) else abs(float(x))
    if x.size == 0:
        return 0.0
    if x.dtype == F64:  # two passes, no temporary
        return max(float(x.max()), -float(x.min()))
    return float(np.max(np.abs(x)))


def _sum_of_products(spec: str, ops: list) -> np.ndarray:
    """The products of the operands formed whole, then summed (np.sum(np.outer(a, b)), np.sum(a *
    b[:, None]): a NaN term stays in the sum, where NumPy's einsum too sums one operand first)."""
    inputs, result = spec.split("->")
    every = "".join(sorted(set(inputs) - {","}))
    return c_einsum(every + "->" + result, outer(inputs.split(","), ops, every))


def outer(specs: list, ops: list, every: str):
    """The elementwise product of ops (with einsum specs), broadcastable to the axes `every`
    (sorted letters): size 1 along the letters no operand has."""
    own = "".join(sorted(set("".join(specs))))
    out = np.einsum(",".join(specs) + "->" + own, *ops)
    return np.reshape(out, [out.shape[own.index(c)] if c in own else 1 for c in every])


@functools.lru_cache(maxsize=1024)
def _sums_apart(spec: str) -> bool:
    """Whether a plan may sum an operand over an index of its own before multiplying it by the
    others (np.sum(np.outer(a, b)) as sum(a) * sum(b)): that is the sum of the products up to
    rounding where they are finite, but not where one is inf or NaN (0 * inf is a NaN term; a
    product of sums is -inf there), so a result that is not finite is made again, in one pass."""
    if "." in spec or "->" not in spec:  # an ellipsis, an implicit result: einsum's own
        return False
    inputs, result = spec.split("->")
    ops = inputs.split(",")
    if any(len(set(op)) != len(op) for op in ops):  # a diagonal: summed as einsum's
        return False
    return len(ops) > 1 and any(sum(i in op for op in ops) == 1 and i not in result for i in set(inputs) - {","})


# einsum_path's "optimal" search is exponential in the operands: 15 ms for 6, 0.7 s for 7, 27 s
# for 8 (the Hessian of a product of a few powers makes 9 or 10); beyond this many, "greedy"
_OPTIMAL_UP_TO = 5


@functools.lru_cache(maxsize=1024)
def path(spec: str, shapes: tuple) -> list | bool:
    """The contraction order, or False when one operand has every index: then a single
    einsum pass is the whole work, and pairwise steps only add temporaries (3.5x slower
    for GMM's 'bc,abc,abc->bc')."""
    inputs = spec.split("->")[0].split(",")
    if any(set(op) >= set("".join(inputs)) for op in inputs):
        return False
    how = "optimal" if len(inputs) <= _OPTIMAL_UP_TO else "greedy"
    return np.einsum_path(spec, *(np.empty(s) for s in shapes), optimize=how)[0]


@functools.lru_cache(maxsize=1024)
def plan(spec: str, shapes: tuple):
    """The function computing einsum(spec) of float64 operands of these shapes: pairwise
    steps in einsum_path's optimal order, or one pass when one operand has every index
    (see path), where the operands lacking some index are multiplied together first when
    there are several (c_einsum's loop over four operands is 6x slower than over three);
    unrolled terms (_short) instead where NumPy's loops would run along a short last axis,
    or one c_einsum pass for a small einsum, unless a step is a matmul; and first of all, the
    operands without a summed index taken out of a large sum, to multiply its result
    (_factored)."""
    if "." in spec or "->" not in spec:  # an ellipsis, an implicit result: einsum's own driver
        return functools.partial(_einsum, spec, path(spec, shapes))
    if any(0 in sh for sh in shapes):  # no terms, or an empty result: einsum's single pass is no
        return functools.partial(_c_einsum, spec)  # work, and its empty sums are 0 (a pairwise step's
        # 0 times an inf operand is NaN)
    factored = _factored(spec, shapes)
    if factored is not None:
        return factored
    planned = _planned(spec, shapes)
    if _uses_matmul(planned):  # BLAS runs along the long axis: better than unrolled terms
        return planned  # (GMM's 'cd,bcd,abc->abd' at d = 2: 14 us, unrolled 26); and a @ b is
        # then NumPy's matmul, the same bits (np.linalg.matrix_power's products)
    if _work(spec, shapes) <= SMALL:  # a small einsum: pairwise steps cost more Python than they save
        return functools.partial(_c_einsum, spec)  # (GMM's masked product at 10 points: 7.7 -> 6.7 us)
    short = _short(spec, shapes)
    return planned if short is None else short


def _work(spec: str, shapes: tuple) -> int:
    """The number of terms of a single einsum pass: the product of the letters' sizes."""
    size: dict = {}
    for s, sh in zip(spec.split("->")[0].split(","), shapes):
        for c, n in zip(s, sh):
            size[c] = n if size.get(c, 1) == 1 else size[c]
    return math.prod(size.values())


def _uses_matmul(planned) -> bool:
    """Whether a plan (nested partials) has a matmul step."""
    if isinstance(planned, functools.partial):
        return planned.func in (_matmul, _matmul_into) or any(_uses_matmul(a) for a in planned.args)
    if isinstance(planned, tuple):
        return any(_uses_matmul(a) for a in planned)
    return False


def _planned(spec: str, shapes: tuple):
    """The plan of pairwise steps or single pass (see plan)."""
    pairwise = path(spec, shapes) is not False
    if not pairwise:
        return _single(spec, shapes)
    inputs, out = spec.split("->")[0].split(","), spec.split("->")[1]
    ops, letters = list(shapes), list(inputs)
    _, steps = np.einsum_path(spec, *(np.empty(s) for s in shapes), optimize=path(spec, shapes), einsum_call=True)
    planned = []
    for inds, step_spec, *_ in steps:
        taken = [ops.pop(k) for k in inds]
        specs = [letters.pop(k) for k in inds]
        # einsum_path's intermediates have their letters in an arbitrary order: here in the
        # result's, so that the products and matmuls after them read and write in order
        kept = sorted(step_spec.split("->")[1], key=lambda c: (out.index(c) if c in out else len(out)))
        result = out if len(ops) == 0 else "".join(kept)
        ops.append(_result_shape(specs, taken, result))
        letters.append(result)
        planned.append((inds, _step(",".join(specs) + "->" + result, taken)))
    return functools.partial(_pairwise, tuple(planned))


def _result_shape(specs: list, shapes: list, result: str) -> tuple:
    """The shape of einsum's result: each letter's size, that of its operands' axes that are
    not 1 (einsum broadcasts an axis of size 1, also against 0)."""
    size: dict = {}
    for s, sh in zip(specs, shapes):
        for c, n in zip(s, sh):
            size[c] = n if size.get(c, 1) == 1 else size[c]
    return tuple(size[c] for c in result)


def _einsum(spec: str, optimize, ops: list) -> np.ndarray:
    return np.einsum(spec, *ops, optimize=optimize)


def _pairwise(steps: tuple, ops: list) -> np.ndarray:
    """The steps of a plan, each replacing its operands by its result (einsum's own order:
    the operands it takes are popped, the result appended)."""
    ops = list(ops)
    for inds, call in steps:
        taken = [ops.pop(k) for k in inds]
        ops.append(call(*taken))
    return ops[0]


def _single(spec: str, shapes: tuple):
    """One c_einsum pass; the operands that lack some index (the small ones) multiplied together
    first when there are two or more of them and they do not have every index between them."""
    inputs, out = spec.split("->")
    specs = inputs.split(",")
    every = set(inputs.replace(",", ""))
    small = [k for k, s in enumerate(specs) if set(s) != every]
    joined = "".join(dict.fromkeys("".join(specs[k] for k in small)))
    if len(small) < 2 or len(specs) - len(small) < 1 or set(joined) == every:
        return functools.partial(_c_einsum, spec)
    rest = [k for k in range(len(specs)) if k not in small]
    first = ",".join(specs[k] for k in small) + "->" + joined
    then = ",".join([joined] + [specs[k] for k in rest]) + "->" + out
    return functools.partial(_premultiplied, tuple(small), tuple(rest), first, then)


def _c_einsum(spec: str, ops: list) -> np.ndarray:
    return c_einsum(spec, *ops)


def _premultiplied(small: tuple, rest: tuple, first: str, then: str, ops: list) -> np.ndarray:
    joined = c_einsum(first, *(ops[k] for k in small))
    return c_einsum(then, joined, *(ops[k] for k in rest))


def _step(spec: str, shapes: list):
    """One step of a pairwise plan: a matmul for two operands with no repeated index in either
    and a summed index longer than 1, c_einsum otherwise. An index only one operand has, and the
    result not, is summed out of it first (as bmm_einsum does)."""
    inputs, out = spec.split("->")
    specs = inputs.split(",")
    if len(specs) != 2 or any(len(set(s)) != len(s) for s in specs) or len(set(out)) != len(out):
        return functools.partial(_c_einsum_step, spec)
    a, b = specs
    size_a, size_b = dict(zip(a, shapes[0])), dict(zip(b, shapes[1]))
    if any(size_a[c] != size_b[c] for c in a if c in b):
        return functools.partial(_c_einsum_step, spec)  # a shared axis of size 1 broadcast: einsum's rules
    own_a = tuple(k for k, c in enumerate(a) if c not in b and c not in out)
    own_b = tuple(k for k, c in enumerate(b) if c not in a and c not in out)
    a, b = (_without(a, own_a), _without(b, own_b))
    size = {**size_a, **size_b}
    core = _two(a, b, out, size)
    if own_a or own_b:
        return functools.partial(_summed_first, own_a, own_b, core)
    return core


def _without(spec: str, axes: tuple) -> str:
    return "".join(c for k, c in enumerate(spec) if k not in axes)


def _summed_first(own_a: tuple, own_b: tuple, core, a, b) -> np.ndarray:
    return core(a.sum(axis=own_a) if own_a else a, b.sum(axis=own_b) if own_b else b)


def _two(a: str, b: str, out: str, size: dict):
    """The product (every summed index of size 1) or matmul of a and b, each index of the
    result in one of them or in both; the matmul's operands are ordered so that the result
    is contiguous when the result's last index is one operand's own."""
    summed = [c for c in a if c in b and c not in out]
    if all(size[c] == 1 for c in summed):  # a product: c_einsum's loop is 1.5-2x faster than
        return functools.partial(_c_einsum_step, f"{a},{b}->{out}")  # np.multiply's broadcast
    if out and out[-1] in a and out[-1] not in b:  # the result's last axis from the right operand: a
        return _swapped(_two(b, a, out, size))  # contiguous result, not a transposed one
    batch = [c for c in out if c in a and c in b]
    keep_a = [c for c in out if c in a and c not in b]
    keep_b = [c for c in out if c in b and c not in a]
    nb = tuple(size[c] for c in batch)
    m, k, n = (int(np.prod([size[c] for c in g], dtype=np.int64)) for g in (keep_a, summed, keep_b))
    produced = "".join(batch + keep_a + keep_b)
    back = tuple(produced.index(c) for c in out)
    pa, pb = _order(a, batch + keep_a + summed), _order(b, batch + summed + keep_b)
    if back != tuple(range(len(out))) and len(keep_a) == len(keep_b) == 1:  # (a view of the result
        # in (batch, m, n) order is then a transposition of it: no reshape)
        return functools.partial(_matmul_into, pa, pb, nb + (m, k), nb + (k, n), tuple(size[c] for c in out),
                                 functools.partial(_transposed, tuple(out.index(c) for c in produced)))
    return functools.partial(_matmul, pa, pb, nb + (m, k), nb + (k, n), nb + tuple(size[c] for c in keep_a + keep_b),
                             None if back == tuple(range(len(out))) else back)


def _transposed(axes: tuple, x: np.ndarray) -> np.ndarray:
    return x.transpose(axes)


def _swapped(call):
    return functools.partial(_swap, call)


def _swap(call, a, b) -> np.ndarray:
    return call(b, a)


def _order(spec: str, letters: list) -> tuple:
    return tuple(spec.index(c) for c in letters)


def _c_einsum_step(spec: str, *ops) -> np.ndarray:
    return c_einsum(spec, *ops)


def _matmul(pa, pb, shape_a, shape_b, shape_ab, back, a, b) -> np.ndarray:
    """The contraction as one batched matmul: (batch, m, k) @ (batch, k, n)."""
    ab = np.matmul(*_operands(a.transpose(pa).reshape(shape_a), b.transpose(pb).reshape(shape_b))).reshape(shape_ab)
    return ab if back is None else ab.transpose(back)


def _operands(a: np.ndarray, b: np.ndarray) -> tuple:
    """A matmul's operands, the small one C-ordered: OpenBLAS multiplies by a transposed small
    matrix at half the speed (GMM's (25, 1000, 9) @ (25, 9, 10), the per-component L
    transposed: 370 us, 190 us with L's 2,250 elements copied first). A large operand is
    left as it is: its copy would cost more than it saves."""
    if a.size * SMALL_OPERAND <= b.size:
        return np.ascontiguousarray(a), b
    if b.size * SMALL_OPERAND <= a.size:
        return a, np.ascontiguousarray(b)
    return a, b


def _matmul_into(pa, pb, shape_a, shape_b, shape_out, into, a, b) -> np.ndarray:
    """_matmul whose result is C-contiguous in the result's order (einsum's): the matmul
    writes through `into`, a transposed view of it in the matmul's (batch, m, n) order.
    A result left in the matmul's order is a transposed array, and every elementwise pass
    mixing it with C-ordered ones then runs along a short strided axis (4x slower for GMM's
    (1000, 25, 10) arrays at d = 10); writing through the view costs far less."""
    out = np.empty(shape_out)
    np.matmul(*_operands(a.transpose(pa).reshape(shape_a), b.transpose(pb).reshape(shape_b)), out=into(out))
    return out



def _letter_sizes(specs: list, shapes) -> dict | None:
    """Each letter's length over the operands (axes of length 1 broadcast), or None where two
    operands give a letter different lengths (einsum's error, raised by its general path)."""
    size: dict = {}
    for s, sh in zip(specs, shapes):
        for c, n in zip(s, sh):
            if n != 1 and size.setdefault(c, n) != n:
                return None
    return size

def _short(spec: str, shapes: tuple, least: int = LEAST):
    """The einsum as a few products of slices, when NumPy's own loops would run along a short
    last axis: a sum over summed indices of at most SHORT terms in all (sum_s prod_k op_k[s]),
    or a product (nothing summed) whose result's last axis, at most SHORT long, some operand
    lacks (out[..., j] = prod_k op_k[..., j or 0]). None for any other spec, a spec with a
    repeated index, an empty axis or sizes that do not broadcast (einsum's own error), or a
    result of fewer than `least` elements.

    Axes of size 1 are read at 0 (einsum broadcasts them), every operand is seen with its
    axes in the order result-then-summed, and when there are three or more operands all but
    the largest are multiplied first (the small factors of GMM's L x: once, not once per
    term). 'abc,abc->ab' at (1000, 10, 2): 13 us instead of c_einsum's 46 (NumPy 2.3)."""
    inputs, out = spec.split("->")
    specs = inputs.split(",")
    if any(len(set(s)) != len(s) for s in specs + [out]) or not set(out) <= set(inputs):
        return None
    size = _letter_sizes(specs, shapes)
    if size is None:
        return None
    if 0 in size.values():
        return None
    kept = ["".join(c for c, n in zip(s, sh) if n != 1) for s, sh in zip(specs, shapes)]
    result = "".join(c for c in out if c in size)
    summed = "".join(dict.fromkeys(c for s in kept for c in s if c not in out))
    if math.prod(size[c] for c in result) < least or math.prod(size[c] for c in summed) > SHORT:
        return None
    order = result + summed
    aligned = [tuple(size[c] if c in s else 1 for c in order) for s in kept]
    last = len(result) - 1
    sliced = not summed and last >= 0 and size[result[-1]] <= SHORT and any(a[last] == 1 for a in aligned)
    if not summed and not sliced:
        return None  # a product along a long (or shared) last axis: NumPy's loop is contiguous
    by_size = sorted(range(len(aligned)), key=lambda k: math.prod(aligned[k]))
    factors = [by_size[:-1], by_size[-1:]] if len(aligned) >= 3 else [[k] for k in range(len(aligned))]
    shape = [tuple(max(aligned[k][i] for k in group) for i in range(len(order))) for group in factors]
    if len(aligned) >= 3 and math.prod(shape[0]) > math.prod(size[c] for c in result):
        return None  # the small operands' product would be larger than the result
    views = tuple(_aligner(sh, k, order) for sh, k in zip(shapes, kept))
    terms = tuple(_terms(shape, len(result), [size[c] for c in summed], sliced))
    full = tuple(size.get(c, 1) for c in out)
    reduced = tuple(size[c] for c in result)
    # two factors of one shape summed over short axes: their product first, in one contiguous
    # pass, then its slices added ('abc,abc->ab' at (1000, 10, 2): 10 us, each slice's product 16)
    whole = bool(summed) and len(shape) == 2 and shape[0] == shape[1]
    return functools.partial(_unrolled, views, tuple(map(tuple, factors)), terms, reduced, full, whole)


def _aligner(shape: tuple, kept: str, order: str) -> tuple:
    """How an operand is seen in the letter order `order`: its axes of size 1 read at 0, the
    others transposed into that order, and axes of size 1 (None) for the letters it lacks."""
    drop = tuple(0 if n == 1 else slice(None) for n in shape)
    perm = tuple(kept.index(c) for c in sorted(kept, key=order.index))
    expand = tuple(slice(None) if c in kept else None for c in order)
    return (drop if 1 in shape else None, perm if perm != tuple(range(len(perm))) else None, expand)


def _terms(shapes: list, n_result: int, summed: list, sliced: bool):
    """Per term: whether it is the first written to its part of the result, that part's index,
    and each factor's index (each summed index's value, and the last result axis's j where the
    result is sliced; 0 along an axis the factor lacks)."""
    lead = (slice(None),) * (n_result - 1 if sliced else n_result)
    lasts = range(max(sh[n_result - 1] for sh in shapes)) if sliced else [None]
    for j in lasts:
        target = lead + (() if j is None else (j,)) + (Ellipsis,)  # a view, also of a 0-d result
        for t, values in enumerate(itertools.product(*map(range, summed))):
            yield t == 0, target, tuple(
                lead + (() if j is None else (j if sh[n_result - 1] > 1 else 0,)) +
                tuple(v if sh[n_result + i] > 1 else 0 for i, v in enumerate(values)) for sh in shapes)


def _unrolled(views: tuple, factors: tuple, terms: tuple, reduced: tuple, full: tuple, whole: bool,
              ops: list) -> np.ndarray:
    """_short's plan: the operands aligned, the factors multiplied, then each term written into
    (or added to) its part of the result; with `whole`, the two factors' product first."""
    seen = []
    for op, (drop, perm, expand) in zip(ops, views):
        if drop is not None:
            op = op[drop]
        if perm is not None:
            op = op.transpose(perm)
        seen.append(op[expand])
    parts = []
    for group in factors:
        part = seen[group[0]]
        for k in group[1:]:
            part = part * seen[k]
        parts.append(part)
    out = np.empty(reduced)
    if whole:
        parts = [np.multiply(*parts)]
    if len(parts) == 1:  # one operand: a sum of its slices
        _slices_summed(parts[0], terms, out)
        return out.reshape(full)
    a, b = parts
    for first, target, (at_a, at_b) in terms:
        if first:
            np.multiply(a[at_a], b[at_b], out=out[target])
        else:
            np.add(out[target], np.multiply(a[at_a], b[at_b]), out=out[target])
    return out.reshape(full)


def _slices_summed(x: np.ndarray, terms: tuple, out: np.ndarray) -> None:
    """Each part of out the sum of x's slices its terms name, in their order: the first two
    added into it (x0 + x1, not a copy of x0 then x1 added), then the others; one copied."""
    pending = None  # the first term of a part, until its second is seen
    for first, target, ats in terms:
        at = ats[0]
        if first:
            if pending is not None:
                np.copyto(out[pending[0]], x[pending[1]])
            pending = (target, at)
        elif pending is not None:
            np.add(x[pending[1]], x[at], out=out[target])
            pending = None
        else:
            np.add(out[target], x[at], out=out[target])
    if pending is not None:
        np.copyto(out[pending[0]], x[pending[1]])


def _factored(spec: str, shapes: tuple):
    """sum_S prod_k op_k as (prod of the operands without a summed index) times (sum_S of the
    product of the others), for a sum whose work (the largest operand with a summed index)
    is at least LEAST elements: the factors that do not vary along the sum multiply its
    result once, not each of its terms (GMM's 'bc,bc,abc,abc->bc' at (1000, 10, 2): 36 us in
    one pass, 11 as c_einsum('abc,abc->bc') times the product of the two (10, 2)). None
    where no operand, or every operand, lacks the summed indices, or with a repeated index."""
    inputs, out = spec.split("->")
    specs = inputs.split(",")
    if any(len(set(s)) != len(s) for s in specs + [out]):
        return None
    summed = set(inputs.replace(",", "")) - set(out)
    outer = [k for k, s in enumerate(specs) if not set(s) & summed]
    inner = [k for k, s in enumerate(specs) if set(s) & summed]
    if not summed or not outer or not inner or max(math.prod(shapes[k]) for k in inner) < LEAST:
        return None
    kept = "".join(c for c in out if any(c in specs[k] for k in inner))
    inner_spec = ",".join(specs[k] for k in inner) + "->" + kept
    sub = plan(inner_spec, tuple(shapes[k] for k in inner))
    views = tuple(_expander(specs[k], out) for k in outer) + (_expander(kept, out),)
    return functools.partial(_times_outer, tuple(inner), tuple(outer), sub, views)


def _expander(spec: str, out: str) -> tuple:
    """An operand with letters `spec` (a subset of out) seen in out's order: its transposition
    (None if none) and the index inserting axes of size 1 for the letters it lacks."""
    perm = tuple(spec.index(c) for c in sorted(spec, key=out.index))
    return (perm if perm != tuple(range(len(perm))) else None,
            tuple(slice(None) if c in spec else None for c in out))


def _times_outer(inner: tuple, outer: tuple, sub, views: tuple, ops: list) -> np.ndarray:
    """_factored's plan: the inner sum, then times each outer factor (the outer ones first:
    they are small)."""
    summed = sub([ops[k] for k in inner])
    factors = [ops[k] for k in outer] + [summed]
    acc = None
    for x, (perm, expand) in zip(factors, views):
        if perm is not None:
            x = x.transpose(perm)
        x = x[expand]
        acc = x if acc is None else acc * x
    return acc


# masked() takes a ragged mask's True entries one by one while there are at most this many of
# them and the mask has at most MASK_SIZE elements (GMM's (d, d - 1) triangle: 1 entry at d = 2,
# 3 at d = 3; at d = 10 its 45 entries are one einsum's, not 45)
MASKED_TERMS = 4
MASK_SIZE = 64


def masked(spec: str, ops: tuple, w: int):
    """einsum(spec, *ops) of the terms where ops[w], a small Bool mask (a ragged build's), is
    True, as the sum over its True entries of the einsum of the other operands' slices there
    (sum_{v: mask[v]} einsum(spec without the mask's letters, *(op[v] ...)), written into the
    result's part at v): a masked term is left out, not multiplied by 0, so the result is the
    selection's whatever the masked lanes hold (inf, NaN), without the product by the mask and
    its finiteness test (runtime.contract). GMM's 'cd,bcd,abd->abc' at d = 2 (mask
    [[False], [True]]) is then the one product 'b,ab->ab' of L[:, 1, 0] and x[:, :, 0] written
    into the result's c = 1 half. None (runtime.contract's general path) for another mask, more
    than MASKED_TERMS True entries, an operand that is not a float64 array, or a spec the
    slices do not fit (see _mask_plan)."""
    mask = ops[w]
    if type(mask) is not np.ndarray or mask.dtype != np.bool_ or mask.size > MASK_SIZE:
        return None
    shapes = []
    for k, o in enumerate(ops):
        if type(o) is not np.ndarray or o.dtype != F64 and k != w:
            return None
        shapes.append(o.shape)
    key = (spec, w, tuple(shapes), mask.tobytes())  # (0.2 us; np.flatnonzero's 1.3 only when new)
    try:
        entries = _MASKED[key]
    except KeyError:
        if len(_MASKED) > 1024:
            _MASKED.clear()
        planned = _mask_plan(spec, key[2], w)
        entries = _MASKED[key] = None if planned is None else planned.at(tuple(np.flatnonzero(mask).tolist()))
    if entries is None or entries.count > MASKED_TERMS:
        return None
    return entries(ops)


_MASKED: dict = {}  # (spec, the mask's position, the shapes, the mask's bytes) -> its _Entries


@functools.lru_cache(maxsize=1024)
def _mask_plan(spec: str, shapes: tuple, w: int):
    """masked()'s plan for these shapes: None for an ellipsis, an implicit result, a repeated
    index, fewer than two operands besides the mask, or sizes that do not broadcast (einsum's
    error, raised by the general path)."""
    if "." in spec or "->" not in spec:
        return None
    inputs, out = spec.split("->")
    specs = inputs.split(",")
    if len(specs) != len(shapes) or len(specs) < 3 or any(len(set(s)) != len(s) for s in specs + [out]) or \
            any(len(s) != len(sh) for s, sh in zip(specs, shapes)):
        return None
    size = _letter_sizes(specs, shapes)
    if size is None:
        return None
    # the mask's letters along which it is longer than 1; along the others it is read at 0
    # (broadcast), so that it is one Bool per value of these
    fixed = "".join(c for c, n in zip(specs[w], shapes[w]) if n != 1)
    others = set("".join(s for k, s in enumerate(specs) if k != w))
    if not set(out) <= others | set(fixed):
        return None  # a result's letter only the mask has, of size 1: einsum's own path
    return _MaskPlan(specs, shapes, out, w, fixed, {c: size.get(c, 1) for c in inputs if c != ","})


class _MaskPlan:
    """The slices, sub-einsum and result part of each True entry of a mask (see masked), made
    once per set of True entries (a mask's entries are the same at every call of a program).
    Letters of size 1 are read at 0 and left out of the sub-einsums too: einsum's loops along
    an axis of length 1 are slow (GMM's 'bd,abd->ab' with d = 1: 12.7 us, 'b,ab->ab' 5)."""

    def __init__(self, specs: list, shapes: tuple, out: str, w: int, fixed: str, size: dict):
        self.specs, self.shapes, self.out, self.w, self.fixed = specs, shapes, out, w, fixed
        self.dims = tuple(size[c] for c in fixed)  # the mask's axes longer than 1, in its order
        self.ones = {c: 0 for c, n in size.items() if n == 1}
        self.full = tuple(size[c] for c in out)
        # no letter of the mask in the result: every entry's einsum is the whole result's
        self.whole = not set(fixed) & set(out)

    def at(self, hits: tuple) -> "_Entries":
        """The plan for a mask whose True entries are `hits` (flat positions)."""
        return _Entries(self._steps(hits), self.whole, self.full, len(hits))

    def _steps(self, hits: tuple) -> tuple:
        """Per True entry: each other operand's index (its value at the entry along the mask's
        letters, 0 along a letter of size 1 and where the operand's axis is 1), the plan of the
        einsum of those slices, the result's part it is written to, and whether it is the first
        written there."""
        steps, seen = [], set()
        for flat in hits:
            value = dict(self.ones)
            value.update(zip(self.fixed, (int(v) for v in np.unravel_index(flat, self.dims))))
            views, specs, shapes = [], [], []
            for k, (s, sh) in enumerate(zip(self.specs, self.shapes)):
                if k == self.w:
                    continue
                views.append((k, tuple((value[c] if n != 1 else 0) if c in value else slice(None) for c, n in zip(s, sh))))
                specs.append("".join(c for c in s if c not in value))
                shapes.append(tuple(n for c, n in zip(s, sh) if c not in value))
            rest = "".join(c for c in self.out if c not in value)
            target = tuple(value[c] if c in value else slice(None) for c in self.out) + (Ellipsis,)  # a view
            at = tuple(value[c] for c in self.out if c in value)  # (slices are not hashable)
            steps.append((tuple(views), _writer(specs, tuple(shapes), rest), target, at not in seen))
            seen.add(at)
        return tuple(steps)


class _Entries:
    """masked()'s plan for one mask: each True entry's operand slices, sub-einsum and part of
    the result (see _MaskPlan._steps)."""
    __slots__ = ("steps", "whole", "full", "count")

    def __init__(self, steps: tuple, whole: bool, full: tuple, count: int):
        self.steps, self.whole, self.full, self.count = steps, whole, full, count

    def __call__(self, ops: tuple) -> np.ndarray:
        steps = self.steps
        if not steps:
            return np.zeros(self.full)
        if self.whole:  # (each sub-einsum's result is an array of its own: added into in place)
            out = None
            for views, call, _, _ in steps:
                part = call([ops[k][at] for k, at in views], None)
                out = part if out is None else np.add(out, part, out=out) if type(out) is np.ndarray else out + part
            return out.reshape(self.full) if self.full else out  # (a scalar result: einsum's own type)
        out = np.zeros(self.full)
        for views, call, target, first in steps:
            if first:  # written, not added to 0.0: a -0.0 stays one
                call([ops[k][at] for k, at in views], out[target])
            else:
                np.add(out[target], call([ops[k][at] for k, at in views], None), out=out[target])
        return out


def _writer(specs: list, shapes: tuple, out: str):
    """A sub-einsum of _MaskPlan as a function of its operands and the array it is written to
    (None: a new one): a product of two operands (nothing summed) one np.multiply of their
    views aligned to the result, written in place (GMM's L[:, 1, 0] * x[:, :, 0] into half of a
    (1000, 10, 2) result: 9 us, c_einsum's 'b,ab->ab' 13 and its copy 4 more); any other, its
    plan's result (copied there)."""
    if len(specs) == 2 and set("".join(specs)) == set(out):
        return functools.partial(_product, tuple(_expander(s, out) for s in specs))
    return functools.partial(_written, plan(",".join(specs) + "->" + out, shapes))


def _product(views: tuple, ops: list, out) -> np.ndarray:
    a, b = ops
    (pa, ea), (pb, eb) = views
    if pa is not None:
        a = a.transpose(pa)
    if pb is not None:
        b = b.transpose(pb)
    # (an operand with every letter of the result is read as it is)
    return np.multiply(a if None not in ea else a[ea], b if None not in eb else b[eb], out=out)


def _written(call, ops: list, out) -> np.ndarray:
    part = call(ops)
    if out is None:
        return part
    np.copyto(out, part)
    return out
