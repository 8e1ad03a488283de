"""value_and_grad and grad of objectives over data too large for one process, split by rows
onto Dask (issue 18; the analysis: catad.distributed.analysis).

With P the per-chunk program and C the combine program of f (f = C(params, sum_c P(params,
x_c, n), n)), reverse mode takes two passes over the chunks:

1. every chunk computes its partial sums s_c = P(params, x_c, n); they are added as a tree
   (dask) into s: only vectors the size of s travel (maxima over the rows and logsumexp's
   stabilised sums combine by max and by rescaling instead: :func:`reduce_results`);
2. the client computes C's value and its cotangents (dC/dparams, dC/ds) by catad's reverse
   program of C; every chunk computes the vector-Jacobian product of P against dC/ds (catad's
   reverse program of P; with maxima, against its own cotangent by the chain rule through the
   reduction, :func:`chunk_cotangent`), added as a tree: only vectors the size of the
   parameters travel.

The gradient is dC/dparams + sum_c (dC/ds)^T dP_c/dparams: the chain rule through the sum
(Griewank and Walther, Evaluating Derivatives, Sec. 3), each piece catad's own compiled code.
Every worker compiles P once (its pipelines are cached per process, keyed by P's text).
"""
from __future__ import annotations

import functools
import hashlib
import math
from typing import Any, Callable, Sequence

import numpy as np

from ..binding import call_args
from ..differentiate import _derivative, _materialize, _user_args
from ..errors import ArgumentError, CatadError
from ..lang.types import Float, coerce_value
from ..pipeline import Bound, Pipeline, bind
from .analysis import Split, data_positions, split
from .wire import decode, encode


class _NoReads:
    """A derived program's reads: its hidden values are ordinary parameters of P and C."""
    hidden: tuple = ()

    def current(self):
        return ()


_PIPELINES: dict[str, Pipeline] = {}  # per process: P's (or C's) text digest -> its pipeline


class _Program:
    """A core program that crosses to workers as its wire form, compiled there once."""

    def __init__(self, program):
        self.wire = encode(program)
        self.key = hashlib.sha256(str(program).encode()).hexdigest()
        _PIPELINES.setdefault(self.key, Pipeline(program, _NoReads()))

    def __getstate__(self):
        return {"wire": self.wire, "key": self.key}

    def __setstate__(self, state):
        self.wire, self.key = state["wire"], state["key"]

    @property
    def pipeline(self) -> Pipeline:
        p = _PIPELINES.get(self.key)
        if p is None:
            p = _PIPELINES[self.key] = Pipeline(decode(self.wire), _NoReads())
        return p

    def bound(self, vals: tuple) -> Bound:
        return Bound(None, vals, self.pipeline, ())


def _chunk_inputs(prog: _Program, spec: tuple, blocks: tuple) -> tuple:
    """P's arguments for one chunk: the parameters with the chunk's rows in the data places."""
    params, data, n, hidden = spec
    types = prog.pipeline.core.main.params
    vals = list(params)
    for k, block in zip(data, blocks):
        vals[k] = coerce_value(np.asarray(block), types[k].type, f"argument {types[k].name!r}")
    return (*vals, n, *hidden)


def _partial_sums(prog: _Program, spec: tuple, index: int, *blocks) -> tuple:
    """Pass 1 on chunk `index`: its results of P (partial sums, maxima, stabilisers), and for
    each the index of the chunk it comes from (a maximum's argmax chunk, after reductions)."""
    out = tuple(prog.pipeline.code("primal")(*_chunk_inputs(prog, spec, blocks)))
    return out, (index,) * len(out)


def _chunk_vjp(prog: _Program, spec: tuple, wrt: tuple, glob: tuple, mine: tuple, *blocks) -> tuple:
    """Pass 2 on one chunk: the cotangents of the parameters wrt of ct^T dP_c, ct being this
    chunk's cotangent of P's results (:func:`chunk_cotangent` of the global ones and its own
    results `mine` from pass 1)."""
    inputs = _chunk_inputs(prog, spec, blocks)
    b = prog.bound(inputs)
    ct = chunk_cotangent(glob, mine)
    _, c = _derivative(b, "reverse", wrt)(*inputs, ct)
    cts = tuple(c) if isinstance(c, tuple) else (c,) * len(inputs)
    return tuple(_materialize(cts[k], inputs[k]) for k in wrt)


def reduce_results(roles: tuple, a: tuple, b: tuple) -> tuple:
    """Two chunks' (or runs of chunks') results of P combined by their roles (Split.roles), a's
    chunks before b's: sums add; maxima and stabilisers take the larger (a's on a tie: the
    first chunk attaining it, as np.argmax); a scaled sum S with reference r becomes
    S_a exp(r_a - r) + S_b exp(r_b - r) with r = max(r_a, r_b), so that it stays the sum over
    both of exp(x_i - r) (the rescaling of a streaming logsumexp)."""
    (va, ia), (vb, ib) = a, b
    vals, idx = list(va), list(ia)
    for k, role in enumerate(roles):
        if role == "sum":
            vals[k] = _add(va[k], vb[k])
        elif role in ("max", "ref"):
            if not vb[k] <= va[k]:  # b's is larger (or a's is NaN: NumPy's max propagates NaN)
                vals[k], idx[k] = (va[k], ia[k]) if np.isnan(va[k]) else (vb[k], ib[k])
    for k, role in enumerate(roles):
        if isinstance(role, tuple):
            j = role[1]
            vals[k] = va[k] * np.exp(va[j] - vals[j]) + vb[k] * np.exp(vb[j] - vals[j])
    return tuple(vals), tuple(idx)


def chunk_cotangent(glob: tuple, mine: tuple) -> tuple:
    """One chunk's cotangent of P's results, from the cotangents `ct` of the reduced results
    (the combine program's), the reduced results `total`, their argmax chunks `arg`, and the
    chunk's own (value, index). The chain rule through the reduction:

    - a sum: ct;  a maximum: ct on the argmax chunk, 0 elsewhere;
    - a scaled sum S = sum_c S_c exp(r_c - r): ct_S exp(r_c - r), and to the chunk's r_c
      ct_S S_c exp(r_c - r); r = max_c r_c gets ct_r - sum over its scaled sums of ct_S S
      (dS/dr = -S), which goes to the argmax chunk of r."""
    roles, ct, total, arg = glob
    vals, (index, *_) = mine
    if vals is None:  # only sums: every chunk's cotangent is the sums'
        return tuple(ct)
    out = [0.0 * np.asarray(v) if np.ndim(v) else 0.0 for v in vals]
    ref_total = {}
    for k, role in enumerate(roles):
        if role == "sum":
            out[k] = ct[k]
        elif role == "max":
            out[k] = ct[k] if arg[k] == index else 0.0
        elif isinstance(role, tuple):
            j = role[1]
            w = np.exp(vals[j] - total[j])
            out[k] = ct[k] * w
            out[j] = out[j] + ct[k] * vals[k] * w
            ref_total[j] = ref_total.get(j, 0.0) - ct[k] * total[k]
    for k, role in enumerate(roles):
        if role == "ref" and arg[k] == index:
            out[k] = out[k] + ct[k] + ref_total.get(k, 0.0)
    return tuple(float(x) if not np.ndim(x) else x for x in out)


def _tree(parts: list, op, delayed) -> Any:
    """parts combined by op as a balanced tree (depth log2 of their number), in order."""
    while len(parts) > 1:
        parts = [delayed(op)(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k]
                 for k in range(0, len(parts), 2)]
    return parts[0]


def _add(a: Any, b: Any) -> Any:
    """a + b of two values of one type: tuples (a dict's or list's values) by their items."""
    if isinstance(a, tuple):
        return tuple(_add(x, y) for x, y in zip(a, b))
    return a + b


def _data_arrays(args: tuple, data: tuple[int, ...], chunks: Any) -> tuple[list, int]:
    """The data arguments as dask arrays sharing their chunks along axis 0 (one chunk along
    every other axis), and the number of rows."""
    import dask.array as da
    arrays = []
    for k in data:
        x = args[k]
        if not isinstance(x, da.Array):
            x = np.asarray(x)
        if x.ndim == 0:
            raise ArgumentError(f"data argument {k} is a scalar: data arguments hold one row per element of "
                                "their leading axis", construct="data", hint="pass an array, or leave it out of data=")
        arrays.append(x)
    ns = {int(x.shape[0]) if not math.isnan(x.shape[0]) else -1 for x in arrays}
    if len(ns) > 1:
        raise ArgumentError(f"the data arguments {data} have different numbers of rows {sorted(ns)}: they are "
                            "split into the same chunks of rows", construct="data",
                            hint="name in data= only the arguments holding the rows, all of one length")
    first = next((x for x in arrays if isinstance(x, da.Array)), None)
    if first is not None:
        if any(math.isnan(c) for c in first.chunks[0]):
            first = first.compute_chunk_sizes()
        row_chunks = first.chunks[0] if chunks is None else chunks
    else:
        row_chunks = "auto" if chunks is None else chunks
    out = []
    for x in arrays:
        spec = {0: row_chunks, **{ax: -1 for ax in range(1, x.ndim)}}
        out.append(da.from_array(x, chunks=spec) if not isinstance(x, da.Array) else x.rechunk(spec))
    chunk_rows = out[0].chunks[0]
    if any(x.chunks[0] != chunk_rows for x in out):
        raise ArgumentError("the data arguments could not be given the same chunks of rows", construct="data")
    return out, int(sum(chunk_rows))


def _template(x, rows: int) -> np.ndarray:
    """An array like a row block of x with `rows` rows (only its type and trailing shape matter)."""
    return np.zeros((rows,) + tuple(int(s) for s in x.shape[1:]), dtype=x.dtype)


class _Plan:
    """f split for one signature: P and C as programs that travel, and where things are."""

    def __init__(self, b: Bound, data: tuple[int, ...]):
        self.split: Split = split(b.core, b.pipeline.n_hidden, data)
        self.chunk = _Program(self.split.chunk)
        self.combine = _Program(self.split.combine)
        self.users = len(b.core.main.params) - b.pipeline.n_hidden


def plan_of(f: Callable, args: tuple, data: tuple[int, ...]) -> tuple[Bound, _Plan]:
    """f bound at args with 2-row templates in the data places (a chunk's types: a chunk of one
    row must not be compiled as a broadcast axis), and its split (kept on its pipeline)."""
    b = bind(f, args)
    plans = b.pipeline.__dict__.setdefault("_dask_plans", {})
    if data not in plans:
        plans[data] = _Plan(b, data)
    return b, plans[data]


def _checked_argnums(argnums, params: tuple, data: tuple[int, ...]) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, (int, np.integer)) else tuple(argnums)
    out = []
    for k in nums:
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not -len(params) <= k < len(params):
            raise ArgumentError(f"argnums {argnums!r} is out of range for {len(params)} argument(s)",
                                construct="argnums")
        k = int(k) % len(params)
        if k in data:
            raise ArgumentError(f"argnums names argument {k}, a data argument: its gradient has a row per row of "
                                "data, which catad.distributed does not gather", construct="argnums",
                                hint="differentiate with respect to the parameters only")
        out.append(k)
    return tuple(out)


def _value_and_grad(f: Callable, argnums, data, chunks, args: tuple, with_value: bool):
    import dask
    data = data_positions(data, len(args))
    arrays, n = _data_arrays(args, data, chunks)
    b, plan = plan_of(f, tuple(_template(a, 2) if k in data else a for k, a in
                               enumerate(_with_data(args, data, arrays))), data)
    if b.core.main.result_type != Float:
        raise CatadError(f"grad needs a function returning a float; {getattr(f, '__name__', 'f')} returns "
                         f"{b.core.main.result_type}", construct="grad")
    params = b.core.main.params[:plan.users]
    nums = _checked_argnums(argnums, params, data)
    # the parameters, and the data arguments with no rows (the combine program reads their shapes)
    vals = tuple(coerce_value(_template(a, 0) if k in data else a, p.type, f"argument {p.name!r}")
                 for k, (a, p) in enumerate(zip(_with_data(b.args, data, arrays), params)))
    run = _Run(plan, (vals, data, n, tuple(b.hidden)), arrays, dask)
    total, arg = run.pass1()
    # the combine program on the client: its value and cotangents of the parameters and of s
    cvals = (*vals, tuple(total), n, *b.hidden)
    out, c = _derivative(plan.combine.bound(cvals), "reverse", nums + (plan.users,))(*cvals, 1.0)
    ccts = tuple(c) if isinstance(c, tuple) else (c,) * len(cvals)
    grads = [_materialize(ccts[k], cvals[k]) for k in nums]
    if nums:
        ds = _materialize(ccts[plan.users], cvals[plan.users])
        grads = [_add(a, x) for a, x in zip(grads, run.pass2(nums, ds, total, arg))]
    grads = _user_args(b, tuple(grads), nums)
    g = grads[0] if isinstance(argnums, (int, np.integer)) else grads
    return (float(out), g) if with_value else g


def _with_data(args: tuple, data: tuple[int, ...], arrays: list) -> tuple:
    """args with the data arguments replaced by their dask arrays."""
    out = list(args)
    for k, x in zip(data, arrays):
        out[k] = x
    return tuple(out)


class _Run:
    """The two passes over the chunks of one call (see the module's doc)."""

    def __init__(self, plan: _Plan, spec: tuple, arrays: list, dask):
        self.plan, self.dask, self.roles = plan, dask, plan.split.roles
        self.blocks = list(zip(*(x.to_delayed().ravel() for x in arrays)))
        sizes = arrays[0].chunks[0]
        self.used = [c for c in range(len(self.blocks)) if sizes[c] > 0] or [0]  # an empty chunk adds nothing
        self.chunk = dask.delayed(plan.chunk, traverse=False)
        self.spec = dask.delayed(spec, traverse=False)
        self.mine: list = []

    def pass1(self) -> tuple:
        """Every chunk's results of P, reduced as a tree: (reduced results, their argmax chunks).
        With maxima, each chunk's results stay where they are (persisted) for its pass 2."""
        d = self.dask
        mine = [d.delayed(_partial_sums, pure=True)(self.chunk, self.spec, c, *self.blocks[c]) for c in self.used]
        if all(r == "sum" for r in self.roles):
            self.mine = [(None, (c,)) for c in self.used]  # pass 2 needs only the chunk's index
        else:
            mine = self.mine = list(d.persist(*mine))
        return d.compute(_tree(mine, functools.partial(reduce_results, self.roles), d.delayed))[0]

    def pass2(self, nums: tuple, ds: tuple, total: tuple, arg: tuple) -> tuple:
        """The chunks' vector-Jacobian products against their cotangents, reduced as a tree."""
        d = self.dask
        glob = d.delayed((self.roles, ds, total, arg), traverse=False)
        vjps = [d.delayed(_chunk_vjp, pure=True)(self.chunk, self.spec, nums, glob, m, *self.blocks[c])
                for c, m in zip(self.used, self.mine)]
        return d.compute(_tree(vjps, _add, d.delayed))[0]


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0, data: int | Sequence[int] = (1,), *,
                   chunks: Any = None) -> Callable:
    """``(f(*args), gradient)`` with the rows of the arguments named by ``data`` split into chunks
    run on the active Dask scheduler (a dask.distributed Client when one is active, else Dask's
    threads). Data arguments: dask arrays chunked along axis 0 (rechunked to one chunk on the
    other axes, and to the first's row chunks), or NumPy arrays chunked with ``chunks=`` (rows
    per chunk, or a tuple of chunk lengths; Dask's "auto" by default). f must have the form
    F(params, sum over rows of h(params, x[i]), len(x)) (catad.distributed.analysis); equal to
    catad.value_and_grad on the whole data to rounding."""
    def run(*args, **kwargs):
        return _value_and_grad(f, argnums, data, chunks, call_args(f, args, kwargs), True)
    return run


def grad(f: Callable, argnums: int | Sequence[int] = 0, data: int | Sequence[int] = (1,), *,
         chunks: Any = None) -> Callable:
    """The gradient part of :func:`value_and_grad`."""
    def run(*args, **kwargs):
        return _value_and_grad(f, argnums, data, chunks, call_args(f, args, kwargs), False)
    return run


def explain(f: Callable, *args: Any, data: int | Sequence[int] = (1,)) -> Split:
    """f's split at args: ``str`` of it prints the per-chunk and the combine programs."""
    data = data_positions(data, len(args))
    example = list(args)
    for k in data:
        example[k] = _template(np.asarray(args[k]) if not hasattr(args[k], "chunks") else args[k], 2)
    return plan_of(f, tuple(example), data)[1].split
