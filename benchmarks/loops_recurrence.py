"""A scalar recurrence as a Python for loop (catad compiles it to a fold): the logistic map
`x = r * x * (1 - x)` for n steps, differentiated with respect to x0 and r.

For each n: the time of the plain Python function, of catad's compiled primal (its objective
program, benchmarks/_util.py: catad_objective), of catad's gradient storing every state, and of
its gradient with `checkpoints=K` (default 20; Revolve, at most K states kept); their ratios;
the peak memory (tracemalloc, in a separate call from the timed ones) of each; the compile
time of the gradient (first call of a fresh copy of the function at n = 1). Both gradients
are checked against a hand-written forward-mode loop (rtol 1e-10) and each other (equal).

    python benchmarks/loops_recurrence.py [--steps 10000,100000,1000000] [--repeats 5] [--checkpoints 20]

Targets (issue 15, item 6): gradient <= 4x the compiled primal; time and memory linear in the
steps (x10 steps: x10 time and memory); with checkpoints=20, memory O(20) states (flat in n)
and time <= 3x storing all; compile time <= 1 s.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import sys  # noqa: E402
import tracemalloc  # noqa: E402

import numpy as np  # noqa: E402
from _util import catad_engine, catad_objective, first_call_time, fresh_function, median_time  # noqa: E402

import catad  # noqa: E402

X0, R = 0.3, 3.2   # a stable period-2 orbit: no overflow, and d x_n / d r does not vanish


def logistic(x, r, n: int):
    for i in range(n):
        x = r * x * (1.0 - x)
    return x


def forward_derivatives(x, r, n):
    """(x_n, d x_n / d x0, d x_n / d r) by a hand-written forward-mode loop."""
    dx, dr = 1.0, 0.0
    for _ in range(n):
        dx, dr = r * (1.0 - 2.0 * x) * dx, x * (1.0 - x) + r * (1.0 - 2.0 * x) * dr
        x = r * x * (1.0 - x)
    return x, dx, dr


def peak_memory(fn) -> int:
    """Peak bytes traced while fn runs, above what was traced before."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def close(a, b, rtol=1e-10) -> bool:
    return abs(a - b) <= rtol * max(abs(b), 1e-300)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", default="10000,100000,1000000")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--checkpoints", type=int, default=20)
    args = ap.parse_args()
    k = args.checkpoints
    failures = []
    fn = fresh_function(logistic)
    vg = catad.value_and_grad(fn, argnums=(0, 1))
    vg_k = catad.value_and_grad(fn, argnums=(0, 1), checkpoints=k)
    compile_time, _ = first_call_time(lambda: vg(X0, R, 1))
    compile_time_k, _ = first_call_time(lambda: vg_k(X0, R, 1))
    head = ["steps", "python ms", "primal ms", "grad ms", f"grad k={k} ms", "grad/primal", f"k={k}/grad",
            "primal KiB", "grad KiB", f"k={k} KiB"]
    lines, results = [head], []
    for n in (int(s) for s in args.steps.split(",")):
        want = forward_derivatives(X0, R, n)
        v, g = vg(X0, R, n)
        vk, gk = vg_k(X0, R, n)
        for what, got, ref in (("value", v, want[0]), ("d/dx0", g[0], want[1]), ("d/dr", g[1], want[2])):
            if not close(got, ref):
                failures.append(f"n={n} {what}: catad {got!r}, forward loop {ref!r}")
        if (vk, gk[0], gk[1]) != (v, g[0], g[1]):
            failures.append(f"n={n}: checkpoints={k} gives {(vk, gk)}, storing all {(v, g)}")
        obj = catad_objective(fn, X0, R, n)
        if not close(obj(), want[0]):
            failures.append(f"n={n} primal program: {obj()!r} vs {want[0]!r}")
        t_py = median_time(lambda: logistic(X0, R, n), args.repeats)
        t_obj = median_time(obj, args.repeats)
        t_g = median_time(lambda: vg(X0, R, n), args.repeats)
        t_k = median_time(lambda: vg_k(X0, R, n), args.repeats)
        m_obj, m_g, m_k = (peak_memory(f) for f in (obj, lambda: vg(X0, R, n), lambda: vg_k(X0, R, n)))
        results.append((n, t_obj, t_g, t_k, m_obj, m_g, m_k))
        lines.append([str(n), f"{t_py * 1e3:.1f}", f"{t_obj * 1e3:.1f}", f"{t_g * 1e3:.1f}", f"{t_k * 1e3:.1f}",
                      f"{t_g / t_obj:.2f}", f"{t_k / t_g:.2f}", f"{m_obj / 1024:.0f}", f"{m_g / 1024:.0f}",
                      f"{m_k / 1024:.0f}"])
        print(f"done {n}", file=sys.stderr, flush=True)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    print(f"Logistic map x = r x (1 - x), gradient w.r.t. (x0, r); median of {args.repeats}; "
          f"catad's programs run in {catad_engine()}; peak memory by tracemalloc")
    print("\n".join("  ".join(c.rjust(w) for c, w in zip(line, widths)) for line in lines))
    print(f"compile: grad {compile_time:.2f} s, grad checkpoints={k} {compile_time_k:.2f} s (target <= 1 s)")
    for a, b in zip(results, results[1:]):
        s = b[0] / a[0]
        print(f"x{s:g} steps ({a[0]} -> {b[0]}): primal time x{b[1] / a[1]:.1f}, grad time x{b[2] / a[2]:.1f}, "
              f"k={k} time x{b[3] / a[3]:.1f}; grad memory x{b[5] / a[5]:.1f}, k={k} memory x{b[6] / a[6]:.1f}")
    for n, t_obj, t_g, t_k, *_ in results:
        print(f"n={n}: grad/primal {t_g / t_obj:.2f} (target <= 4), k={k}/storing all {t_k / t_g:.2f} (target <= 3)")
    for f in failures:
        print(f"MISMATCH {f}")
    if failures:
        sys.exit(f"{len(failures)} check(s) failed")
    print("all values and gradients agree")


if __name__ == "__main__":
    main()
