"""CPU time of catad's gradient, hvp and full Hessian of the ADBench GMM objective (issue 17):
``time.process_time``, the minimum of repeats, so that two checkouts can be compared on a
machine shared with other work (wall-clock medians, as benchmarks/gmm_hessian.py reports them,
move by 2-5x under a load average of 12 on 2 cores; CPU time much less). Compile times are
the first call of a fresh copy of the function after a warm-up copy has compiled (imports and
first-use tables are not counted against the gradient).

    python benchmarks/hvp_cpu_time.py REPO SIZE [grad,hess,jax]

REPO is the checkout whose catad is measured (e.g. /work/main), SIZE a GMM file (d2_K10).
`jax` adds JAX's jitted hvp (jax.jvp of jax.grad, as benchmarks/gmm_hessian.py makes it) in CPU
time, the same minimum of repeats (run it with an interpreter that has JAX: /tmp/venv-lb here;
JAX is an optional extra, never a test's). Measure it in a process of its own (`jax` alone):
after catad's runs in the same process JAX's hvp took 11 ms of CPU at d10_K25 instead of 6.6.
"""
import os
import sys
import time

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
REPO, SIZE = sys.argv[1], sys.argv[2]
WHAT = (sys.argv[3] if len(sys.argv) > 3 else "grad").split(",")
sys.path[:0] = [REPO, os.path.join(REPO, "benchmarks")]

import numpy as np  # noqa: E402
from _util import fresh_function  # noqa: E402
from adbench import gmm  # noqa: E402
from adbench.gmm import load_gmm  # noqa: E402
from adbench.io import DATA_DIR  # noqa: E402

import catad  # noqa: E402

ARGNUMS = (0, 1, 2, 3)


def cpu(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def first(fn) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def main() -> None:
    data = load_gmm(DATA_DIR / "gmm" / "1k" / f"gmm_{SIZE}.txt", 1000)
    params, rest = data.params(), (data.x, data.wishart)
    zeros = (np.zeros_like(data.x), (0.0, 0))
    t = tuple(np.random.default_rng(0).standard_normal(np.shape(p)) for p in params)
    out = [os.path.basename(os.path.normpath(REPO)), SIZE]
    if "grad" in WHAT:
        warm = fresh_function(gmm.gmm_objective)
        catad.grad(warm, argnums=ARGNUMS)(*params, *rest)
        catad.hvp(warm, (*params, *rest), (*t, *zeros), argnums=ARGNUMS)
        grad = catad.grad(fresh_function(gmm.gmm_objective), argnums=ARGNUMS)
        f = fresh_function(gmm.gmm_objective)
        hvp = lambda: catad.hvp(f, (*params, *rest), (*t, *zeros), argnums=ARGNUMS)  # noqa: E731
        cg, ch = first(lambda: grad(*params, *rest)), first(hvp)
        tg, th = cpu(lambda: grad(*params, *rest), 30), cpu(hvp, 30)
        out += [f"grad {tg * 1e3:.3f} ms", f"hvp {th * 1e3:.3f} ms", f"hvp/grad {th / tg:.2f}",
                f"compile grad {cg:.2f} s hvp {ch:.2f} s ({ch / cg:.2f}x)"]
    if "jax" in WHAT:
        os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")
        from gmm_hessian import jax_tools
        run_hvp, _ = jax_tools(data)
        run_hvp(t)  # compiled (jit) before it is timed
        out.append(f"JAX hvp {cpu(lambda: run_hvp(t), 60) * 1e3:.3f} ms")
    if "hess" in WHAT:
        small = load_gmm(DATA_DIR / "gmm" / "1k" / f"gmm_{SIZE}.txt", 100)
        hess = catad.hessian(fresh_function(gmm.gmm_objective), argnums=ARGNUMS)
        args = (*small.params(), small.x, small.wishart)
        compile_h = first(lambda: hess(*args))
        out.append(f"hessian N=100 {cpu(lambda: hess(*args), 3) * 1e3:.1f} ms (compile {compile_h:.2f} s)")
    print("  ".join(out), flush=True)


if __name__ == "__main__":
    main()
