"""value_and_grad and grad of objectives over data too large for one process, split by rows
onto Dask (issue 18; the analysis: catad.distributed.analysis).

With P the per-chunk program and C the combine program of f (f = C(params, sum_c P(params,
x_c, n), n)), reverse mode takes two passes over the chunks:

1. every chunk computes its partial sums s_c = P(params, x_c, n); they are added as a tree
   (dask) into s: only vectors the size of s travel;
2. the client computes C's value and its cotangents (dC/dparams, dC/ds) by catad's reverse
   program of C; every chunk computes the vector-Jacobian product of P against dC/ds (catad's
   reverse program of P), added as a tree: only vectors the size of the parameters travel.

The gradient is dC/dparams + sum_c (dC/ds)^T dP_c/dparams: the chain rule through the sum
(Griewank and Walther, Evaluating Derivatives, Sec. 3), each piece catad's own compiled code.
Every worker compiles P once (its pipelines are cached per process, keyed by P's text).
"""
from __future__ import annotations

import hashlib
import math
from typing import Any, Callable, Sequence

import numpy as np

from ..binding import call_args
from ..differentiate import _derivative, _materialize, _tangent_value, _user_args
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


def _partial_sums(prog: _Program, spec: tuple, *blocks) -> tuple:
    """Pass 1 on one chunk: its partial sums (a tuple of floats and arrays)."""
    out = prog.pipeline.code("primal")(*_chunk_inputs(prog, spec, blocks))
    return tuple(out)


def _chunk_vjp(prog: _Program, spec: tuple, wrt: tuple, ct: tuple, *blocks) -> tuple:
    """Pass 2 on one chunk: the cotangents of the parameters wrt of (dC/ds)^T dP_c."""
    inputs = _chunk_inputs(prog, spec, blocks)
    b = prog.bound(inputs)
    _, c = _derivative(b, "reverse", wrt)(*inputs, ct)
    cts = tuple(c) if isinstance(c, tuple) else (c,) * len(inputs)
    return tuple(_materialize(cts[k], inputs[k]) for k in wrt)


def _add(a: tuple, b: tuple) -> tuple:
    return tuple(x + y for x, y in zip(a, b))


def _tree_sum(parts: list, delayed) -> Any:
    """The sum of delayed tuples as a balanced tree of additions (depth log2 of their number)."""
    while len(parts) > 1:
        parts = [delayed(_add)(parts[k], parts[k + 1]) if k + 1 < len(parts) else parts[k]
                 for k in range(0, len(parts), 2)]
    return parts[0]


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


def _value_and_grad(f: Callable, argnums, data, chunks, args: tuple, with_value: bool):
    import dask
    data = data_positions(data, len(args))
    arrays, n = _data_arrays(args, data, chunks)
    example = list(args)
    for k, x in zip(data, arrays):
        example[k] = _template(x, 2)
    b, plan = plan_of(f, tuple(example), data)
    if b.core.main.result_type != Float:
        raise CatadError(f"grad needs a function returning a float; {getattr(f, '__name__', 'f')} returns "
                         f"{b.core.main.result_type}", construct="grad")
    params = b.core.main.params[:plan.users]
    nums = (argnums,) if isinstance(argnums, (int, np.integer)) else tuple(argnums)
    nums = tuple(int(k) % len(params) if -len(params) <= k < len(params) else k for k in nums)
    for k in nums:
        if not isinstance(k, int) or not 0 <= k < len(params):
            raise ArgumentError(f"argnums {argnums!r} is out of range for {len(params)} argument(s)",
                                construct="argnums")
        if k in data:
            raise ArgumentError(f"argnums names argument {k}, a data argument: its gradient has a row per row of "
                                "data, which catad.distributed does not gather", construct="argnums",
                                hint="differentiate with respect to the parameters only")
    vals = [coerce_value(a, p.type, f"argument {p.name!r}") if k not in data else None
            for k, (a, p) in enumerate(zip(b.args, params))]
    for k, x in zip(data, arrays):
        vals[k] = coerce_value(_template(x, 0), params[k].type, f"argument {params[k].name!r}")
    spec = (tuple(vals), data, n, tuple(b.hidden))
    blocks = [x.to_delayed().ravel() for x in arrays]
    chunk = dask.delayed(plan.chunk, traverse=False)
    shared = dask.delayed(spec, traverse=False)
    # pass 1: the partial sums
    sums = [dask.delayed(_partial_sums, pure=True)(chunk, shared, *bs) for bs in zip(*blocks)]
    (s,) = dask.compute(_tree_sum(sums, dask.delayed))
    # the combine program on the client: its value and cotangents of the parameters and of s
    cvals = (*vals, tuple(s), n, *b.hidden)
    cb = plan.combine.bound(cvals)
    s_pos = plan.users
    out, c = _derivative(cb, "reverse", nums + (s_pos,))(*cvals, 1.0)
    ccts = tuple(c) if isinstance(c, tuple) else (c,) * len(cvals)
    grads = [_materialize(ccts[k], cvals[k]) for k in nums]
    ds = _tangent_value(_materialize(ccts[s_pos], cvals[s_pos]), cvals[s_pos], cb.core.main.params[s_pos].type,
                        "the partial sums' cotangent")
    # pass 2: the chunks' vector-Jacobian products against dC/ds
    if nums:
        vjps = [dask.delayed(_chunk_vjp, pure=True)(chunk, shared, nums, ds, *bs) for bs in zip(*blocks)]
        (g,) = dask.compute(_tree_sum(vjps, dask.delayed))
        grads = [a + x for a, x in zip(grads, g)]
    grads = _user_args(b, tuple(grads), nums)
    g = grads[0] if isinstance(argnums, (int, np.integer)) else grads
    return (float(out), g) if with_value else g


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
