"""Reference semantics of linear-map values (notes Fig. 4-5): ``apply`` (m . x),
``apply_reverse`` (r ._R m), ``to_matrix`` and structural ``transpose``.

Tangent and cotangent values: a float for Float, an ndarray for arrays, a tuple for
tuples, :data:`ZERO` for a symbolic zero of any type (Int and Bool components are
always ZERO), and :class:`OneHot` for the sparse cotangent of an indexing.

Scaling maps (``lmScale``, ``lmScaleVec``) multiply by :func:`catad.tangents.times`:
a linear map applied to zero gives zero, so ``S(k) . 0`` is 0 even where k is inf or
NaN (the partial derivative of a branch that a conditional did not take), and so is
every entry of ``to_matrix`` that a basis vector's zeros give.

Linear-map values are DAGs: a let-bound ``Dx`` used twice is one object referenced
twice. Both directions respect that sharing (docs/design.md invariants 1-2):
``apply`` memoises each (node, input) pair; ``apply_reverse`` first sums all the
cotangents arriving at a shared node and only then pushes the sum through it
(Krawiec et al. 2022, Section 5), accumulating sparse index updates in place.
Evaluation runs on an explicit stack of generators, so a 10,000-deep chain of
compositions needs no deep Python recursion.
"""
from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from ..lang.terms import Const
from ..primitives.registry import PRIMITIVES
from ..tangents import ZERO, Acc, OneHot, densify, is_zero, tadd, tget, times, tscale  # noqa: F401
from . import terms as L


def _split(x: Any, n: int) -> tuple:
    return (ZERO,) * n if x is ZERO else tuple(x)


def _stack(items: list) -> Any:
    items = [densify(v) for v in items]
    nonzero = [v for v in items if v is not ZERO]
    if not nonzero:
        return ZERO
    if any(isinstance(v, (tuple, list)) for v in nonzero):  # a vector of tuples: a list of its elements
        return list(items)
    like = np.zeros_like(np.asarray(nonzero[0], dtype=np.float64))
    return np.array([like if v is ZERO else v for v in items], dtype=np.float64)


def _coef(t) -> Any:
    if not isinstance(t, Const):
        raise TypeError(f"linear map is not a value: coefficient {t} is not evaluated")
    return t.py_value


def _maps(ms) -> tuple:
    return _coef(ms)


# ---------------------------------------------------------------- one step of each direction

def _fwd(m: L.LM, x: Any):
    if x is ZERO or isinstance(m, L.Zero):
        return ZERO
    if isinstance(m, L.LMFold):
        return fold_apply(m, x)
    if isinstance(m, L.LMScan):
        return scan_apply(m, x)
    if isinstance(m, L.One):
        return x
    if isinstance(m, L.Scale):
        return tscale(_coef(m.k), x)
    if isinstance(m, L.ScaleVec):
        return times(_coef(m.v), densify(x))
    if isinstance(m, L.Compose):
        y = yield ("fwd", m.m2, x)
        return (yield ("fwd", m.m1, y))
    if isinstance(m, L.VCat):
        out = []
        for item in m.items:
            out.append((yield ("fwd", item, x)))
        return tuple(out)
    if isinstance(m, L.HCat):
        acc = Acc()
        for item, part in zip(m.items, _split(x, len(m.items))):
            acc.add((yield ("fwd", item, part)))
        return acc.value()
    if isinstance(m, L.Plus):
        a = yield ("fwd", m.m1, x)
        return tadd(a, (yield ("fwd", m.m2, x)))
    if isinstance(m, L.VCatV):
        out = []
        for item in _maps(m.ms):
            out.append((yield ("fwd", item, x)))
        return _stack(out)
    if isinstance(m, L.HCatV):
        acc = Acc()
        for i, item in enumerate(_maps(m.ms)):
            acc.add((yield ("fwd", item, tget(x, i))))
        return acc.value()
    if isinstance(m, L.Transpose):
        return (yield ("rev", m.m, x))
    if isinstance(m, L.Index):
        return tget(x, _coef(m.i))
    if isinstance(m, L.IndexUpdate):
        return OneHot(_coef(m.i), x, _coef(m.n))
    if isinstance(m, L.Sum):
        return np.sum(densify(x), axis=0)
    if isinstance(m, L.Broadcast):
        n = _coef(m.n)
        x = np.asarray(x, dtype=np.float64)
        return np.broadcast_to(x, (n,) + x.shape).copy()
    if isinstance(m, L.Linear):
        return _linear(m.fwd, m, x)
    raise TypeError(f"not a linear map: {type(m).__name__}")


def _rev(m: L.LM, ct: Any):
    if ct is ZERO or isinstance(m, L.Zero):
        return ZERO
    if isinstance(m, L.LMFold):
        return fold_apply_reverse(m, ct)
    if isinstance(m, L.LMScan):
        return scan_apply_reverse(m, ct)
    if isinstance(m, (L.One,)):
        return ct
    if isinstance(m, L.Scale):
        return tscale(_coef(m.k), ct)
    if isinstance(m, L.ScaleVec):
        return times(_coef(m.v), densify(ct))
    if isinstance(m, L.Compose):
        c = yield ("rev", m.m1, ct)
        return (yield ("rev", m.m2, c))
    if isinstance(m, L.VCat):
        acc = Acc()
        for item, part in zip(m.items, _split(ct, len(m.items))):
            acc.add((yield ("rev", item, part)))
        return acc.value()
    if isinstance(m, L.HCat):
        out = []
        for item in m.items:
            out.append((yield ("rev", item, ct)))
        return tuple(out)
    if isinstance(m, L.Plus):
        a = yield ("rev", m.m1, ct)
        return tadd(a, (yield ("rev", m.m2, ct)))
    if isinstance(m, L.VCatV):
        acc = Acc()
        for i, item in enumerate(_maps(m.ms)):
            acc.add((yield ("rev", item, tget(ct, i))))
        return acc.value()
    if isinstance(m, L.HCatV):
        out = []
        for item in _maps(m.ms):
            out.append((yield ("rev", item, ct)))
        return _stack(out)
    if isinstance(m, L.Transpose):
        return (yield ("fwd", m.m, ct))
    if isinstance(m, L.Index):
        return OneHot(_coef(m.i), ct, _coef(m.n))
    if isinstance(m, L.IndexUpdate):
        return tget(ct, _coef(m.i))
    if isinstance(m, L.Sum):
        n = _coef(m.n)
        c = np.asarray(densify(ct), dtype=np.float64)
        return np.broadcast_to(c, (n,) + c.shape).copy()
    if isinstance(m, L.Broadcast):
        return np.sum(densify(ct), axis=0)
    if isinstance(m, L.Linear):
        return _linear(m.rev, m, ct)
    raise TypeError(f"not a linear map: {type(m).__name__}")


def _linear(action: str, m: L.Linear, x: Any) -> Any:
    """An lmLinear's forward or transposed action: a primitive of its args and the tangent (which
    may be sparse; the kernels densify it)."""
    return PRIMITIVES[action].impl(*(_coef(a) for a in m.args), x)


_STEPS = {"fwd": _fwd, "rev": _rev}


def _drive(kind: str, m: L.LM, x: Any) -> Any:
    """Run step `kind` on (m, x) with an explicit stack; forward results are memoised
    per (node, input) so a shared sub-map is applied to the same input once."""
    memo: dict[tuple[int, int], tuple] = {}
    stack: list[tuple[Iterator, tuple | None]] = []
    pending: tuple = (kind, m, x)
    value: Any = None
    while True:
        if pending is not None:
            k, sub, arg = pending
            pending = None
            key = (id(sub), id(arg)) if k == "fwd" else None
            if key is not None and key in memo:
                value = memo[key][0]
            else:
                gen = _STEPS[k](sub, arg)
                if not hasattr(gen, "send"):  # a step that needed no sub-results
                    value = gen
                    if key is not None:
                        memo[key] = (value, sub, arg)
                else:
                    stack.append((gen, key and (key, sub, arg)))
                    value = None
        if not stack:
            return value
        gen, info = stack[-1]
        try:
            pending = gen.send(value)
        except StopIteration as stop:
            stack.pop()
            value = stop.value
            if info is not None:
                memo[info[0]] = (value, info[1], info[2])


def apply(m: L.LM, x: Any) -> Any:
    """m . x (notes Fig. 4)."""
    return _drive("fwd", m, x)


def _spine_children(m: L.LM) -> list:
    if isinstance(m, L.Compose):
        return [m.m2]
    if isinstance(m, (L.VCat,)):
        return list(m.items)
    if isinstance(m, L.Plus):
        return [m.m1, m.m2]
    if isinstance(m, L.VCatV):
        return list(_maps(m.ms))
    return []


def apply_reverse(m: L.LM, ct: Any) -> Any:
    """ct ._R m (notes Fig. 5), in time linear in the size of the DAG m.

    The *spine* of m is what is reachable through the second half of compositions,
    the parts of vcats and vcatvs, and both sides of a plus: along those edges a
    node's result is added, unchanged, into the final result. So instead of
    reverse-applying a shared spine node once per parent we sum the cotangents of
    all its parents first (visiting nodes in topological order) and push the sum
    through it once. Everything off the spine is reverse-applied directly.
    """
    indegree: dict[int, int] = {id(m): 0}
    order = [m]
    for node in order:  # grows while we walk it: a breadth-first enumeration
        for child in _spine_children(node):
            if id(child) not in indegree:
                indegree[id(child)] = 0
                order.append(child)
            indegree[id(child)] += 1
    pending: dict[int, Acc] = {id(m): Acc(ct)}
    result = Acc()
    ready = [m]
    while ready:
        node = ready.pop()
        acc = pending.pop(id(node), None)
        c = acc.value() if acc is not None else ZERO
        children = _spine_children(node)
        if children:
            for child, part in zip(children, _spine_parts(node, c, len(children))):
                if part is not ZERO:
                    pending.setdefault(id(child), Acc()).add(part)
                indegree[id(child)] -= 1
                if indegree[id(child)] == 0:
                    ready.append(child)
        elif c is not ZERO:
            result.add(_drive("rev", node, c))
    return result.value()


def _spine_parts(m: L.LM, c: Any, n: int) -> list:
    if isinstance(m, L.Compose):
        return [_drive("rev", m.m1, c)]
    if isinstance(m, L.VCat):
        return list(_split(c, n))
    if isinstance(m, L.Plus):
        return [c, c]
    return [tget(c, i) for i in range(n)]  # VCatV


# ---------------------------------------------------------------- lmFold (notes Fig. 13-15)

def _fold_steps(m: L.LMFold):
    """(evaluate a lambda's body at element i's step, the number of elements, the
    accumulators): each step's Jacobian is evaluated from the closure when it is needed."""
    from ..lang.evaluate import Evaluator
    from ..lang.terms import Program
    if m.closure is None:
        raise TypeError("lmFold is not a value: its closure is not evaluated")
    ev, env, c = Evaluator(Program((), "")), dict(m.closure.env), m.closure

    def at(body, acc, i):
        env[m.var] = (acc, c.vec[i])
        return ev.eval(body, env)
    return at, len(c.vec), c.acc


def fold_apply(m: L.LMFold, x: Any) -> Any:
    """lmFold . (ds, (dacc, dv)): the tangent of the accumulator carried along the loop
    (FFold, Fig. 14), one step Jacobian applied per element. A loop, not a recursion."""
    at, n, acc = _fold_steps(m)
    ds, rest = _split(x, 2)
    dacc, dv = _split(rest, 2)
    for i in range(n):
        dacc = apply(at(m.dbody, acc, i), (ds, (dacc, tget(dv, i))))
        acc = at(m.body, acc, i)
    return dacc


def fold_apply_reverse(m: L.LMFold, ct: Any) -> Any:
    """ct ._R lmFold = (ds, (dacc, dv)) (RFold, Fig. 15): the accumulators of the forward
    loop kept, then the steps reverse-applied from the last, ds summed, dv[i] collected."""
    from ..lang.evaluate import make_vector
    at, n, acc = _fold_steps(m)
    accs = []
    for i in range(n):
        accs.append(acc)
        acc = at(m.body, acc, i)
    ds, dbs = Acc(), [ZERO] * n
    for i in reversed(range(n)):
        step_ds, rest = _split(apply_reverse(at(m.dbody, accs[i], i), ct), 2)
        ct, dbs[i] = _split(rest, 2)
        ds.add(step_ds)
    return ds.value(), (ct, make_vector(dbs, m.vec.type))


def _scan_steps(m: L.LMScan):
    """(the step Jacobian at step j, the number of steps, the accumulators)."""
    from ..lang.evaluate import Evaluator
    from ..lang.terms import Program
    if m.closure is None:
        raise TypeError("lmScan is not a value: its closure is not evaluated")
    ev, env, c = Evaluator(Program((), "")), dict(m.closure.env), m.closure

    def at(j):
        env[m.var] = (c.acc[j], c.vec[j])
        return ev.eval(m.dbody, env)
    return at, len(c.vec), c.acc


def scan_apply(m: L.LMScan, x: Any) -> Any:
    """lmScan . (ds, (dacc, dv)): the tangents of every accumulator, carried along the loop."""
    from ..lang.evaluate import make_vector
    at, n, _ = _scan_steps(m)
    ds, rest = _split(x, 2)
    dacc, dv = _split(rest, 2)
    out = [dacc]
    for j in range(n):
        out.append(apply(at(j), (ds, (out[-1], tget(dv, j)))))
    return make_vector(out, m.states.type)


def scan_apply_reverse(m: L.LMScan, ct: Any) -> Any:
    """ct ._R lmScan = (ds, (dacc, dv)) for ct the cotangents of every accumulator: backwards from
    the last, the cotangent of S[j] is ct[j] plus what step j's transposed Jacobian gives it."""
    from ..lang.evaluate import make_vector
    at, n, _ = _scan_steps(m)
    c = tget(ct, n)
    ds, dbs = Acc(), [ZERO] * n
    for j in reversed(range(n)):
        step_ds, rest = _split(apply_reverse(at(j), c), 2)
        da, dbs[j] = _split(rest, 2)
        ds.add(step_ds)
        c = tadd(tget(ct, j), da)
    return ds.value(), (c, make_vector(dbs, m.vec.type))


# ---------------------------------------------------------------- matrices

def flatten(x: Any, template: Any) -> np.ndarray:
    """A tangent value as a flat float vector, laid out like the primal `template`
    (Float components count, Int and Bool ones do not)."""
    if isinstance(template, tuple):
        parts = _split(x, len(template)) if not isinstance(x, tuple) else x
        chunks = [flatten(p, t) for p, t in zip(parts, template)]
        return np.concatenate(chunks) if chunks else np.zeros(0)
    n = tangent_size(template)
    x = densify(x)
    if x is ZERO or n == 0:  # (a list of zero tangents, a loop's, densifies to ZERO)
        return np.zeros(n)
    return np.asarray(x, dtype=np.float64).reshape(n)


def unflatten(v: np.ndarray, template: Any) -> Any:
    """The inverse of :func:`flatten`: a tangent value shaped like `template`."""
    out, _ = _unflatten(np.asarray(v, dtype=np.float64), template, 0)
    return out


def _unflatten(v, template, at):
    if isinstance(template, tuple):
        parts = []
        for t in template:
            p, at = _unflatten(v, t, at)
            parts.append(p)
        return tuple(parts), at
    n = tangent_size(template)
    if n == 0 and not _is_float(template):
        return ZERO, at
    if isinstance(template, np.ndarray):
        return v[at:at + n].reshape(template.shape).copy(), at + n
    return float(v[at]), at + 1


def _is_float(x: Any) -> bool:
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "f"
    return isinstance(x, (float, np.floating))


def tangent_size(template: Any) -> int:
    if isinstance(template, tuple):
        return sum(tangent_size(t) for t in template)
    if isinstance(template, np.ndarray):
        return template.size if template.dtype.kind == "f" else 0
    return 1 if isinstance(template, (float, np.floating)) and not isinstance(template, bool) else 0


def to_matrix(m: L.LM, src_template: Any, tgt_template: Any) -> np.ndarray:
    """The dense matrix of m (rows: flattened target, columns: flattened source), by
    applying m to each basis vector. For tests and users who ask; never in generated code."""
    n_src, n_tgt = tangent_size(src_template), tangent_size(tgt_template)
    out = np.zeros((n_tgt, n_src))
    for j in range(n_src):
        e = np.zeros(n_src)
        e[j] = 1.0
        out[:, j] = flatten(apply(m, unflatten(e, src_template)), tgt_template)
    return out


# ---------------------------------------------------------------- transposition (Fig. 5)

def transpose(m: L.LM) -> L.LM:
    """m^T by the laws of notes Fig. 5, pushed to the leaves; shared sub-maps are
    transposed once, so sharing survives. Iterative (post-order over an explicit stack)."""
    memo: dict[int, L.LM] = {}
    stack = [(m, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in memo:
            continue
        subs = _sub_maps(node)
        if not done and any(id(s) not in memo for s in subs):
            stack.append((node, True))
            stack.extend((s, False) for s in subs if id(s) not in memo)
            continue
        memo[id(node)] = _transpose_node(node, memo)
    return memo[id(m)]


def _sub_maps(m: L.LM) -> list:
    if isinstance(m, (L.Compose, L.Plus)):
        return [m.m1, m.m2]
    if isinstance(m, (L.VCat, L.HCat)):
        return list(m.items)
    if isinstance(m, (L.VCatV, L.HCatV)) and isinstance(m.ms, Const):
        return list(m.ms.py_value)
    return []


def _transpose_node(m: L.LM, memo: dict) -> L.LM:
    T = lambda x: memo[id(x)]  # noqa: E731
    if isinstance(m, L.Zero):
        return L.Zero(m.t, m.s)
    if isinstance(m, (L.One, L.Scale, L.ScaleVec)):
        return m
    if isinstance(m, L.Compose):
        return L.Compose(T(m.m2), T(m.m1))
    if isinstance(m, L.VCat):
        return L.HCat(tuple(T(x) for x in m.items))
    if isinstance(m, L.HCat):
        return L.VCat(tuple(T(x) for x in m.items))
    if isinstance(m, L.Plus):
        return L.Plus(T(m.m1), T(m.m2))
    if isinstance(m, L.Transpose):
        return m.m
    if isinstance(m, L.Index):
        return L.IndexUpdate(m.i, m.n, m.s)
    if isinstance(m, L.IndexUpdate):
        return L.Index(m.i, m.n, m.s)
    if isinstance(m, L.Sum):
        return L.Broadcast(m.n, m.s)
    if isinstance(m, L.Broadcast):
        return L.Sum(m.n, m.s)
    if isinstance(m, L.Linear):
        return L.Linear(m.rev, m.fwd, m.args, m.t, m.s)
    if isinstance(m, (L.VCatV, L.HCatV)) and isinstance(m.ms, Const):
        from ..lang.types import LinMap, Vec
        e = m.ms.type.elem
        ms = Const(tuple(T(x) for x in m.ms.py_value), Vec(LinMap(e.tgt, e.src)))
        return L.HCatV(ms) if isinstance(m, L.VCatV) else L.VCatV(ms)
    return L.Transpose(m)  # a symbolic family of maps: transposed when evaluated
