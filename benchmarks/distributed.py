"""catad.distributed (issue 18, item 5): value and gradient of ADBench's GMM objective (d10_K25,
numpy style: benchmarks/adbench/gmm_numpy.py) over N points made lazily by dask.array.random
(each chunk generated on the worker that uses it: never all in one process's memory), on a
LocalCluster of 1 and 2 worker processes (one thread each), against single-process
catad.value_and_grad on the largest N given it here.

Reported: wall time of catad.distributed.value_and_grad (both passes; the workers' compiling
done before, by a warm-up that also checks the result against catad.value_and_grad on the same
20k points), time per point, peak resident memory of each worker (ru_maxrss, since it started),
the overhead of 2 workers (t2 / (t1 / 2), target <= 1.3), and what travels: per chunk one vector
the size of the partial sums (pass 1) and one the size of the parameters (pass 2).

    python benchmarks/distributed.py [--points 2e7] [--chunk 25000] [--workers 1,2]
        [--single-points 250000] [--skip-single]

The single-process run is a subprocess of its own (its peak memory is its own).
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

# this file is named distributed.py: its directory goes after the installed packages, so that
# `import distributed` (Dask's) finds Dask's, here and in the worker processes
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE] + [str(_HERE)]
sys.path.insert(0, str(_HERE.parent))
import catad  # noqa: E402
import catad.distributed as cd  # noqa: E402
from adbench import gmm_numpy  # noqa: E402

D, K = 10, 25
NUMS = (0, 1, 2, 3)  # alphas, means, qs, ls


def params(seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    return (rng.normal(size=K), rng.normal(size=(K, D)), 0.1 * rng.normal(size=(K, D)),
            0.1 * rng.normal(size=(K, D * (D - 1) // 2)))


def args_with(x) -> tuple:
    return (*params(), x, (1.0, 0), gmm_numpy.tril_positions(D))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def single(n: int) -> dict:
    """catad.value_and_grad in this process on n points (NumPy), after a compile on 10."""
    x = np.random.default_rng(1).random((n, D))
    f = catad.value_and_grad(gmm_numpy.gmm_objective, argnums=NUMS)
    f(*args_with(x[:10]))
    t = time.perf_counter()
    f(*args_with(x))
    return {"points": n, "seconds": time.perf_counter() - t, "peak_mb": peak_mb()}


def on_cluster(workers: int, n: int, chunk: int) -> dict:
    import dask.array as da
    import distributed
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0",
                                  memory_limit=None, silence_logs=40) as cluster, distributed.Client(cluster) as client:
        f = cd.value_and_grad(gmm_numpy.gmm_objective, argnums=NUMS, data=(4,))
        # warm-up: every worker compiles the per-chunk program; checked against one process
        x = np.random.default_rng(2).random((20000, D))
        got = cd.value_and_grad(gmm_numpy.gmm_objective, argnums=NUMS, data=(4,), chunks=20000 // (2 * workers))(
            *args_with(x))
        ref = catad.value_and_grad(gmm_numpy.gmm_objective, argnums=NUMS)(*args_with(x))
        assert abs(got[0] - ref[0]) <= 1e-9 * abs(ref[0]), (got[0], ref[0])
        for g, r in zip(got[1], ref[1]):
            np.testing.assert_allclose(g, r, rtol=1e-8, atol=1e-8)
        lazy = da.random.RandomState(0).random_sample((n, D), chunks=(chunk, D))
        t = time.perf_counter()
        value, grads = f(*args_with(lazy))
        seconds = time.perf_counter() - t
        peaks = sorted(client.run(peak_mb).values())
    s_floats = partial_floats()
    p_floats = sum(np.size(a) for a in params())
    chunks = -(-n // chunk)
    return {"workers": workers, "points": n, "chunk": chunk, "chunks": chunks, "seconds": seconds,
            "value": value, "worker_peak_mb": peaks, "partial_floats": s_floats, "param_floats": int(p_floats),
            "bytes_travelling": 8 * chunks * (s_floats + int(p_floats))}


def partial_floats() -> int:
    """The floats of P's results (what pass 1 sends per chunk): P run on a chunk of 2 rows."""
    args = args_with(np.zeros((2, D)))
    b, plan = cd.api.plan_of(gmm_numpy.gmm_objective, args, (4,))
    vals = [catad.lang.types.coerce_value(a, p.type) for a, p in zip(b.args, b.core.main.params)]
    out = cd.api._partial_sums(plan.chunk, (tuple(vals), (4,), 2, tuple(b.hidden)), 0, np.zeros((2, D)))[0]
    return int(sum(np.size(v) for v in out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=float, default=2e7)
    ap.add_argument("--chunk", type=int, default=25000)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--single-points", type=float, default=250000)
    ap.add_argument("--skip-single", action="store_true")
    ap.add_argument("--single", type=int, help=argparse.SUPPRESS)  # the subprocess's own run
    a = ap.parse_args()
    if a.single:
        print(json.dumps(single(a.single)))
        return
    n = int(a.points)
    print(f"GMM d{D}_K{K}, numpy style; N = {n} points from dask.array.random in chunks of {a.chunk} rows")
    rows = {}
    for w in (int(x) for x in a.workers.split(",")):
        r = on_cluster(w, n, a.chunk)
        rows[w] = r
        print(f"  {w} worker(s): {r['seconds']:.1f} s ({1e6 * r['seconds'] / n:.1f} us/point), "
              f"peak RSS per worker {', '.join(f'{m:.0f}' for m in r['worker_peak_mb'])} MB, value {r['value']:.6e}; "
              f"{r['chunks']} chunks, {r['partial_floats']} partial-sum floats and {r['param_floats']} parameter "
              f"floats per chunk: {r['bytes_travelling'] / 1e6:.2f} MB travel in all")
    if 1 in rows and 2 in rows:
        ratio = rows[2]["seconds"] / (rows[1]["seconds"] / 2)
        print(f"  overhead of 2 workers: t2 / (t1 / 2) = {ratio:.2f} (target <= 1.3)")
    if not a.skip_single:
        m = int(a.single_points)
        out = subprocess.run([sys.executable, __file__, "--single", str(m)], capture_output=True, text=True,
                             check=True)
        s = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  single process catad.value_and_grad, N = {m}: {s['seconds']:.1f} s "
              f"({1e6 * s['seconds'] / m:.1f} us/point), peak RSS {s['peak_mb']:.0f} MB "
              f"({1e3 * s['peak_mb'] / m:.1f} KB/point)")


if __name__ == "__main__":
    main()
