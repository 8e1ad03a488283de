"""Second derivatives of the ADBench GMM objective (issue 17, item 6): catad's Hessian-vector
product and full Hessian against JAX's (``jax.jvp(jax.grad(f), ...)`` and ``jax.hessian``, both
jitted) and PyTorch's (``torch.func``), all with respect to alphas, means, qs and ls.

For each GMM file, in one run: catad's gradient (the baseline of the ratios), catad's hvp
(``catad.hvp``: forward mode over the reverse program) and the peers' hvps, after a warm-up,
each called in turn in every round: the times are medians of the rounds, the ratios medians of
the rounds' ratios (a drift of the machine's speed then slows every tool alike); then the full
Hessian on the first ``--hessian-points`` points (catad's: forward passes of the reverse
program, for each parameter array one vectorised program over slices of its basis; JAX's:
``jax.hessian``). Checks:
catad's hvp against central differences of catad's gradient and against JAX's hvp; catad's
Hessian is symmetric, agrees with JAX's, and ``H @ t`` is the hvp. ``compile`` is the first
call of a fresh copy of the function (front end, AD twice, rewriting, code generation), after a
warm-up copy has compiled both: the least of three copies.

    python benchmarks/gmm_hessian.py [--sizes d2_K10,d10_K25] [--points 1000]
        [--hessian-points 100] [--repeats 5] [--tools catad,jax,torch] [--all-cores]

The process runs on one core (--all-cores: on every core), as the issue's targets are set.

Targets (issue 17): hvp <= 4x catad's own gradient and at or below JAX's hvp; the compile time
of an hvp <= 3x the gradient's.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from _util import first_call_time, fresh_function, interleaved_times, median_time, ratio  # noqa: E402

import catad  # noqa: E402
from adbench import gmm, gmm_xp, peers  # noqa: E402
from adbench.gmm import load_gmm  # noqa: E402
from adbench.io import DATA_DIR  # noqa: E402
from adbench.report import Checks, scaled_atol  # noqa: E402

ARGNUMS = (0, 1, 2, 3)  # alphas, means, qs, ls
RTOL = 1e-8
COMPILES = 3


def gmm_file(data_dir: Path, size: str) -> Path:
    for name in (f"gmm_{size}.txt", f"{size}.txt"):
        if (data_dir / name).exists():
            return data_dir / name
    sys.exit(f"no GMM file for size {size!r} in {data_dir}")


def flat(parts) -> np.ndarray:
    return np.concatenate([np.ravel(p) for p in parts])


def catad_tools(fn, data):
    """(gradient(), hvp(t)) of catad on the data, each returning NumPy arrays per parameter."""
    params, rest = data.params(), (data.x, data.wishart)
    zero_rest = (np.zeros_like(data.x), (0.0, 0))
    grad = catad.grad(fn, argnums=ARGNUMS)
    return (lambda: grad(*params, *rest),
            lambda t: catad.hvp(fn, (*params, *rest), (*t, *zero_rest), argnums=ARGNUMS))


def jax_tools(data):
    """(hvp(t), hessian()) of JAX, jitted, in float64 as catad computes (peers.load enables
    JAX's 64-bit mode; without it JAX computes in float32, half the memory traffic)."""
    jax, why = peers.load("jax")
    if jax is None:
        raise SystemExit(why)
    import jax.numpy as jnp
    c = gmm_xp.Constants(data.x, len(data.alphas), data.wishart)
    x = jnp.asarray(data.x)
    f = lambda *ps: gmm_xp.gmm_objective(jnp, c, x, *ps)
    g = jax.grad(f, argnums=ARGNUMS)
    hvp = jax.jit(lambda ps, ts: jax.jvp(lambda *q: g(*q), ps, ts)[1])
    hess = jax.jit(jax.hessian(f, argnums=ARGNUMS))
    params = tuple(jnp.asarray(p) for p in data.params())

    def run_hvp(t):
        return tuple(np.asarray(a) for a in jax.block_until_ready(hvp(params, tuple(jnp.asarray(a) for a in t))))

    def run_hessian():
        return jax.block_until_ready(hess(*params))
    return run_hvp, run_hessian


def torch_tools(data):
    import torch
    from torch.func import grad, jvp
    c = gmm_xp.Constants(data.x, len(data.alphas), data.wishart)
    c.lower, c.pos = torch.from_numpy(c.lower), torch.from_numpy(c.pos)
    x = torch.from_numpy(data.x)
    f = lambda *ps: gmm_xp.gmm_objective(torch, c, x, *ps)
    params = tuple(torch.from_numpy(np.array(p)) for p in data.params())

    def run_hvp(t):
        out = jvp(grad(f, argnums=ARGNUMS), params, tuple(torch.from_numpy(np.array(a)) for a in t))[1]
        return tuple(a.numpy() for a in out)
    return run_hvp


def hessian_matrix(blocks, sizes) -> np.ndarray:
    """A tuple-of-tuples Hessian (block [i][j]: argument i's shape then argument j's) as one matrix."""
    return np.block([[np.reshape(blocks[i][j], (sizes[i], sizes[j])) for j in range(len(sizes))]
                     for i in range(len(sizes))])


def run_size(size: str, path: Path, args, checks: Checks) -> list[str]:
    data = load_gmm(path, args.points)
    params = data.params()
    n, d = data.x.shape
    label = f"{size} N={n}"
    rng = np.random.default_rng(0)
    t = tuple(rng.standard_normal(np.shape(p)) for p in params)
    lines = []
    # What a process pays once (SymPy's derivations, handler tables) is paid by a warm-up copy,
    # as benchmarks/compile_time.py does, so that neither compile time below carries it.
    warm_grad, warm_hvp = catad_tools(fresh_function(gmm.gmm_objective), data)
    warm_grad(), warm_hvp(t)
    # each compile time the least of COMPILES fresh copies, the gradient's and the hvp's in turn
    # (one first call is one sample of a machine whose speed drifts: 2.5-3.2x in five runs)
    compile_grad = compile_hvp = float("inf")
    for _ in range(COMPILES):
        fn = fresh_function(gmm.gmm_objective)
        gradient, hvp = catad_tools(fn, data)
        seconds, g0 = first_call_time(gradient)
        compile_grad = min(compile_grad, seconds)
        _, hvp_fresh = catad_tools(fresh_function(gmm.gmm_objective), data)
        seconds, hv = first_call_time(lambda: hvp_fresh(t))
        compile_hvp = min(compile_hvp, seconds)
    # central differences of catad's gradient along t
    eps = 1e-6
    plus = catad.grad(fn, argnums=ARGNUMS)(*(p + eps * s for p, s in zip(params, t)), data.x, data.wishart)
    minus = catad.grad(fn, argnums=ARGNUMS)(*(p - eps * s for p, s in zip(params, t)), data.x, data.wishart)
    cd = (flat(plus) - flat(minus)) / (2 * eps)
    checks.close(f"{label} catad hvp vs central differences of its gradient", flat(hv), cd, 0.0,
                 1e-5 * float(np.max(np.abs(cd))))
    # every tool timed in turn in each round (interleaved_times): the ratios are round by round
    timed = {"gradient": gradient, "hvp": lambda: hvp(t)}
    peer_lines = []
    if "jax" in args.tools:
        module, why = peers.load("jax")
        if module is None:
            peer_lines.append(f"{label:<18} {why}")
        else:
            jax_hvp, _ = jax_tools(data)
            want = jax_hvp(t)  # also the warm-up (jit)
            checks.close(f"{label} catad hvp vs JAX's", flat(hv), flat(want), RTOL, scaled_atol(want, RTOL))
            timed["JAX"] = lambda: jax_hvp(t)
    if "torch" in args.tools:
        module, why = peers.load("torch")
        if module is None:
            peer_lines.append(f"{label:<18} {why}")
        else:
            torch_hvp = torch_tools(data)
            want = torch_hvp(t)
            checks.close(f"{label} catad hvp vs PyTorch's", flat(hv), flat(want), RTOL, scaled_atol(want, RTOL))
            timed["PyTorch"] = lambda: torch_hvp(t)
    times = interleaved_times(timed, args.repeats)
    t_grad, t_hvp = statistics.median(times["gradient"]), statistics.median(times["hvp"])
    lines.append(f"{label:<18} catad gradient {t_grad * 1e3:9.3f} ms   hvp {t_hvp * 1e3:9.3f} ms   hvp/gradient "
                 f"{ratio(times['hvp'], times['gradient']):5.2f}   compile: gradient {compile_grad:.2f} s, hvp "
                 f"{compile_hvp:.2f} s ({compile_hvp / compile_grad:.2f}x)")
    for peer in ("JAX", "PyTorch"):
        if peer in times:
            lines.append(f"{label:<18} {peer} hvp {statistics.median(times[peer]) * 1e3:9.3f} ms   "
                         f"catad/{peer} {ratio(times['hvp'], times[peer]):5.2f}")
    lines += peer_lines
    if args.hessian_points > 0:
        lines += full_hessian(size, path, args, checks)
    return lines


def full_hessian(size: str, path: Path, args, checks: Checks) -> list[str]:
    data = load_gmm(path, args.hessian_points)
    params = data.params()
    sizes = [int(np.size(p)) for p in params]
    label = f"{size} N={data.x.shape[0]}"
    fn = fresh_function(gmm.gmm_objective)
    hess = catad.hessian(fn, argnums=ARGNUMS)
    compile_h, blocks = first_call_time(lambda: hess(*params, data.x, data.wishart))
    h = hessian_matrix(blocks, sizes)
    scale = float(np.max(np.abs(h)))
    checks.close(f"{label} catad Hessian symmetric", h, h.T, 0.0, 1e-10 * scale)
    t = np.random.default_rng(1).standard_normal(h.shape[0])
    parts = np.split(t, np.cumsum(sizes)[:-1])
    ts = tuple(p.reshape(np.shape(q)) for p, q in zip(parts, params))
    hv = catad.hvp(fn, (*params, data.x, data.wishart), (*ts, np.zeros_like(data.x), (0.0, 0)), argnums=ARGNUMS)
    checks.close(f"{label} catad H @ t vs its hvp", h @ t, flat(hv), RTOL, RTOL * scale)
    t_h = median_time(lambda: hess(*params, data.x, data.wishart), max(1, args.repeats // 2))
    lines = [f"{label:<18} catad hessian ({h.shape[0]} x {h.shape[1]}) {t_h * 1e3:10.1f} ms   compile {compile_h:.2f} s"]
    if "jax" in args.tools and peers.load("jax")[0] is not None:
        _, jax_hessian = jax_tools(data)
        want = hessian_matrix(jax_hessian(), sizes)
        checks.close(f"{label} catad Hessian vs JAX's", h, want, RTOL, RTOL * scale)
        t_jax = median_time(jax_hessian, max(1, args.repeats // 2))
        lines.append(f"{label:<18} JAX hessian {t_jax * 1e3:10.1f} ms   catad/JAX {t_h / t_jax:5.2f}")
    if "torch" in args.tools and peers.load("torch")[0] is not None:
        import torch
        from torch.func import hessian
        c = gmm_xp.Constants(data.x, len(data.alphas), data.wishart)
        c.lower, c.pos = torch.from_numpy(c.lower), torch.from_numpy(c.pos)
        x = torch.from_numpy(data.x)
        tp = tuple(torch.from_numpy(np.array(p)) for p in params)
        th = hessian(lambda *ps: gmm_xp.gmm_objective(torch, c, x, *ps), argnums=ARGNUMS)
        want = hessian_matrix([[b.numpy() for b in row] for row in th(*tp)], sizes)
        checks.close(f"{label} catad Hessian vs PyTorch's", h, want, RTOL, RTOL * scale)
        t_torch = median_time(lambda: th(*tp), max(1, args.repeats // 2))
        lines.append(f"{label:<18} PyTorch hessian {t_torch * 1e3:10.1f} ms   catad/PyTorch {t_h / t_torch:5.2f}")
    return lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="d2_K10,d10_K25")
    ap.add_argument("--points", type=int, default=1000)
    ap.add_argument("--hessian-points", type=int, default=100, help="0: no full Hessian")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tools", default="catad,jax,torch")
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR / "gmm" / "1k")
    ap.add_argument("--all-cores", action="store_true",
                    help="let the tools run on every core (by default the process is pinned to one)")
    args = ap.parse_args()
    args.tools = args.tools.split(",")
    checks = Checks()
    cores = "every core"
    if not args.all_cores and hasattr(os, "sched_setaffinity"):
        # one core for every tool: with its intra-op threads at 1, JAX's runtime still runs
        # parts of a program on other threads (18 threads: in a process of its own, its GMM
        # hvp at d10_K25 took 7.9-9.2 ms of CPU in 4.7-5.8 ms of wall time on two cores, 7.1
        # ms pinned to one); pinned before any tool starts a thread (JAX and PyTorch are
        # imported when first used)
        os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
        cores = "one core"
    print(f"catad {catad.__file__}; median of {args.repeats} rounds; one thread per tool, {cores}; load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    for size in args.sizes.split(","):
        for line in run_size(size, gmm_file(args.data_dir, size), args, checks):
            print(line, flush=True)
    print(f"load average at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if checks.failures:
        sys.exit(f"{len(checks.failures)} check(s) failed")


if __name__ == "__main__":
    main()
