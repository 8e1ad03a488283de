"""Complexity of catad's compiled programs (issue 5, item 3), measured as a script.

  chains   gradient and primal time of the seeds' 000/001 chain programs at n, 2n, 4n, 8n
           statements (linear: t(2n)/t(n) about 2)
  compile  first-call time of catad.grad on those chains (front end, CL, AD, rewrites,
           reverse sweep and NumPy code generation), and the code generation alone
           (catad.backend.compile_def of the cached reverse program), with doubling ratios
  sum      sum(v[i] * v[i] for i in range(len(v))) at n = 10^3 ... 10^6 against a hand
           NumPy baseline (2*v, np.dot(v, v)) timed in the same run (linear: t(10n)/t(n) about 10);
           `faults` counts the fresh pages the kernel maps per call (large temporaries the allocator
           returned to the OS at the previous call's end, whose first touch costs a page fault)
  memory   tracemalloc peak of the compiled reverse program against the compiled primal
           (NumPy reports its buffers to tracemalloc). The generated code names every
           intermediate and its locals live until it returns, so the primal's peak already
           holds all of its intermediates: the claim is rev peak / primal peak = small constant.

`grad` and `primal` time the compiled programs (catad.pipeline.compiled) on canonical
arguments; `api grad` is catad.grad(f)(x), conversions included. Each time is the median of
--repeats samples after a warm-up call; a sample repeats the call until it lasts 20 ms, with
the garbage collector off (as timeit does). The first-call (compile) time is one call.

    python benchmarks/complexity.py [--only chains,compile,sum,memory] [--repeats 5] [--quick]
"""
from __future__ import annotations

import argparse
import functools
import gc
import os
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc

# single-threaded BLAS (before NumPy loads it), for catad and the NumPy baseline alike: a
# multi-threaded dot waits a scheduler time slice (~8 ms) for a busy core on a shared machine
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from _util import chain_source, load_source

import catad  # noqa: E402  (after _util puts the checkout on sys.path)
from catad.backend import compile_def  # noqa: E402
from catad.pipeline import compiled, pipeline  # noqa: E402

# the seeds' chains, with a factor 0.5 where the plain recurrence would overflow (as in
# gradient_scaling.py): the sharing, each value used twice, is unchanged
CHAINS = {  # name: (right-hand side, x0)
    "x_i = x_{i-1} + x_{i-1}": ("({p} + {p}) * 0.5", 1.5),
    "x_i = x_{i-2} + x_{i-1}": ("({pp} + {p}) * 0.5", 1.5),
    "x_i = x_{i-1} * x_{i-1}": ("{p} * {p}", 1.0),
}
SOURCE = """
def dot(v):
    return sum(v[i] * v[i] for i in range(len(v)))

def matvec(m, v):
    return sum(sum(m[i][j] * v[j] for j in range(len(v))) for i in range(len(m)))

def triangle(v):
    return sum(sum(v[i] * v[j] for j in range(i)) for i in range(len(v)))
"""


def timed(fn, repeats: int, warm_up: bool = True) -> float:
    """Median seconds per call over `repeats` samples of as many calls as last 20 ms
    (found by doubling, as timeit does), the garbage collector off, after a warm-up call."""
    if warm_up:
        fn()
    calls, samples = 1, []
    while len(samples) < repeats:
        was_enabled = gc.isenabled()
        gc.disable()
        t = time.perf_counter()
        for _ in range(calls):
            fn()
        t = time.perf_counter() - t
        if was_enabled:
            gc.enable()
        if t < 0.02 and not samples:
            calls *= 2
        else:
            samples.append(t / calls)
    return statistics.median(samples)


def page_faults(fn, calls: int = 10) -> float:
    """Minor page faults per call (fresh pages the kernel maps for new large arrays)."""
    fn()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(calls):
        fn()
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls


def first_call(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def peak_bytes(fn) -> int:
    """Peak traced memory of one call above what was allocated before it (the result included)."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = fn()
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    del out
    return peak


def programs(f, args):
    """f's compiled primal and reverse programs (compiled on first use, then cached)."""
    return compiled(f, args, "primal"), compiled(f, args, "reverse")


@functools.cache
def chain(name: str, n: int):
    """(f, args, first-call seconds of catad.grad) for a freshly loaded chain of n statements."""
    rhs, x0 = CHAINS[name]
    f = load_source(chain_source(n, rhs))
    return f, (x0,), first_call(lambda: catad.grad(f)(x0))


def ratio(rows, k, col):
    return f"{rows[k][col] / rows[k - 1][col]:.2f}" if k else "-"


def run_chains(sizes, repeats):
    print(f"{'program':<26} {'n':>6} {'grad s':>10} {'primal s':>10} {'api grad s':>10} "
          f"{'grad/primal':>11} {'grad x2':>8} {'primal x2':>9}")
    for name in CHAINS:
        rows = []
        for n in sizes:
            f, args, _ = chain(name, n)
            prim, rev = programs(f, args)
            rows.append({"grad": timed(lambda: rev(*args, 1.0), repeats), "primal": timed(lambda: prim(*args), repeats),
                         "api": timed(lambda: catad.grad(f)(*args), repeats)})
        for k, (n, r) in enumerate(zip(sizes, rows)):
            print(f"{name:<26} {n:>6} {r['grad']:>10.2e} {r['primal']:>10.2e} {r['api']:>10.2e} "
                  f"{r['grad'] / r['primal']:>11.2f} {ratio(rows, k, 'grad'):>8} {ratio(rows, k, 'primal'):>9}")


def run_compile(sizes, repeats):
    print(f"{'program':<26} {'n':>6} {'first call s':>12} {'x2':>5} {'codegen s':>10} {'x2':>5}")
    for name in CHAINS:
        rows = []
        for n in sizes:
            f, args, t = chain(name, n)
            rev = pipeline(f, *args).reverse  # cached by the first call, which also warmed compile_def
            rows.append({"first": t, "codegen": timed(lambda: compile_def(rev, n_primal=1), repeats, warm_up=False)})
        for k, (n, r) in enumerate(zip(sizes, rows)):
            print(f"{name:<26} {n:>6} {r['first']:>12.2f} {ratio(rows, k, 'first'):>5} "
                  f"{r['codegen']:>10.3f} {ratio(rows, k, 'codegen'):>5}")


def run_sum(sizes, repeats):
    f = load_source(SOURCE, "dot")
    print(f"{'n':>9} {'grad s':>9} {'primal s':>9} {'api grad s':>10} {'np 2*v s':>9} {'np.dot s':>9} "
          f"{'grad/primal':>11} {'grad/np':>7} {'grad x10':>8} {'primal x10':>10} {'np x10':>6} {'faults grad/np':>14}")
    rows = []
    for n in sizes:
        v = np.random.default_rng(0).normal(size=n)
        prim, rev = programs(f, (v,))
        np.testing.assert_allclose(catad.grad(f)(v), 2 * v)
        rows.append({"grad": timed(lambda: rev(v, 1.0), repeats), "primal": timed(lambda: prim(v), repeats),
                     "api": timed(lambda: catad.grad(f)(v), repeats), "np": timed(lambda: 2 * v, repeats),
                     "npdot": timed(lambda: np.dot(v, v), repeats),
                     "faults": f"{page_faults(lambda: rev(v, 1.0)):.0f}/{page_faults(lambda: 2 * v):.0f}"})
    for k, (n, r) in enumerate(zip(sizes, rows)):
        print(f"{n:>9} {r['grad']:>9.2e} {r['primal']:>9.2e} {r['api']:>10.2e} {r['np']:>9.2e} {r['npdot']:>9.2e} "
              f"{r['grad'] / r['primal']:>11.2f} {r['grad'] / r['np']:>7.1f} {ratio(rows, k, 'grad'):>8} "
              f"{ratio(rows, k, 'primal'):>10} {ratio(rows, k, 'np'):>6} {r['faults']:>14}")


def run_memory(n_sum, n_mat, n_tri):
    rng = np.random.default_rng(0)
    cases = [(f"dot       n = {n_sum}", "dot", (rng.normal(size=n_sum),)),
             (f"matvec    {n_mat} x {n_mat}", "matvec", (rng.normal(size=(n_mat, n_mat)), rng.normal(size=n_mat))),
             (f"triangle  n = {n_tri}", "triangle", (rng.normal(size=n_tri),))]
    mb = 1 / 2**20
    print(f"{'program':<22} {'inputs MB':>9} {'primal MB':>9} {'rev MB':>8} {'rev/primal':>10} "
          f"{'primal+in MB':>12} {'rev+in MB':>9} {'ratio':>6}")
    for label, name, args in cases:
        prim, rev = programs(load_source(SOURCE, name), args)
        prim(*args), rev(*args, 1.0)  # warm-up
        size = sum(a.nbytes for a in args)
        p, r = peak_bytes(lambda: prim(*args)), peak_bytes(lambda: rev(*args, 1.0))
        print(f"{label:<22} {size * mb:>9.2f} {p * mb:>9.2f} {r * mb:>8.2f} {r / max(p, 1):>10.1f} "
              f"{(p + size) * mb:>12.2f} {(r + size) * mb:>9.2f} {(r + size) / (p + size):>6.2f}")


def commit() -> str:
    """The checkout's commit, marked when catad/ has uncommitted changes (read-only git)."""
    here = os.path.dirname(os.path.abspath(__file__))

    def git(*a):
        return subprocess.run(["git", *a], capture_output=True, text=True, cwd=here).stdout.strip()
    changed = " + changes" if git("status", "--porcelain", "../catad") else ""
    return (git("rev-parse", "--short", "HEAD") or "unknown") + changed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="chains,compile,sum,memory", help="comma-separated sections")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="small sizes: a smoke run of a few seconds")
    args = ap.parse_args()
    only = args.only.split(",")
    unknown = set(only) - {"chains", "compile", "sum", "memory"}
    if unknown:
        ap.error(f"unknown section(s): {', '.join(sorted(unknown))}")
    chains = (100, 200, 400) if args.quick else (1_250, 2_500, 5_000, 10_000)
    sums = (10**3, 10**4) if args.quick else (10**3, 10**4, 10**5, 10**6)
    memory = (10**4, 100, 200) if args.quick else (10**6, 1_000, 2_000)

    print(f"$ python benchmarks/complexity.py {' '.join(sys.argv[1:])}".rstrip())
    print(f"catad {commit()}, python {sys.version.split()[0]}, numpy {np.__version__}, "
          f"median of {args.repeats} after a warm-up, load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs, "
          f"OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}")
    if {"chains", "compile"} & set(only):
        catad.grad(load_source(chain_source(50, "{p} * {p}")))(1.0)  # warm up the compiler itself
    sections = {"chains": ("gradient time of the chains (linear: x2 about 2)",
                           lambda: run_chains(chains, args.repeats)),
                "compile": ("compile time of the chains (linear: x2 about 2)",
                            lambda: run_compile(chains, args.repeats)),
                "sum": ("sum(v[i] * v[i]) against NumPy (linear: x10 about 10)",
                        lambda: run_sum(sums, args.repeats)),
                "memory": ("peak memory, reverse against primal (tracemalloc, one call after a warm-up)",
                           lambda: run_memory(*memory))}
    for key in only:
        title, run = sections[key]
        print(f"\n## {key}: {title}")
        t = time.perf_counter()
        run()
        print(f"({time.perf_counter() - t:.0f} s)")


if __name__ == "__main__":
    main()
