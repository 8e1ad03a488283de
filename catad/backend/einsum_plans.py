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

The steps compute the same sums in another order (a matmul's, as NumPy 2.4's einsum already
did): equal up to rounding.
"""
from __future__ import annotations

import functools

import numpy as np

try:  # the einsum kernel without np.einsum's Python driver (NumPy >= 2: numpy._core)
    from numpy._core.multiarray import c_einsum
except ImportError:  # pragma: no cover - NumPy 1.x
    from numpy.core.multiarray import c_einsum

F64 = np.dtype(np.float64)


def run(spec: str, ops: list) -> np.ndarray:
    """einsum(spec, *ops) by the plan for their shapes."""
    shapes = tuple(np.shape(o) for o in ops)
    if all(type(o) is np.ndarray and o.dtype == F64 for o in ops):
        return plan(spec, shapes)(ops)
    return np.einsum(spec, *ops, optimize=path(spec, shapes))


@functools.lru_cache(maxsize=1024)
def path(spec: str, shapes: tuple) -> list | bool:
    """The contraction order, or False when one operand has every index: then a single
    einsum pass is the whole work, and pairwise steps only add temporaries (3.5x slower
    for GMM's 'bc,abc,abc->bc')."""
    inputs = spec.split("->")[0].split(",")
    if any(set(op) >= set("".join(inputs)) for op in inputs):
        return False
    return np.einsum_path(spec, *(np.empty(s) for s in shapes), optimize="optimal")[0]


@functools.lru_cache(maxsize=1024)
def plan(spec: str, shapes: tuple):
    """The function computing einsum(spec) of float64 operands of these shapes: pairwise
    steps in einsum_path's optimal order, or one pass when one operand has every index
    (see path), where the operands lacking some index are multiplied together first when
    there are several (c_einsum's loop over four operands is 6x slower than over three)."""
    if "." in spec or "->" not in spec:  # an ellipsis, an implicit result: einsum's own driver
        return functools.partial(_einsum, spec, path(spec, shapes))
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
    return functools.partial(_matmul, _order(a, batch + keep_a + summed), _order(b, batch + summed + keep_b),
                             nb + (m, k), nb + (k, n), nb + tuple(size[c] for c in keep_a + keep_b),
                             None if back == tuple(range(len(out))) else back)


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
    ab = np.matmul(a.transpose(pa).reshape(shape_a), b.transpose(pb).reshape(shape_b)).reshape(shape_ab)
    return ab if back is None else ab.transpose(back)
