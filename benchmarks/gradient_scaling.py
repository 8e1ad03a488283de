"""Gradient time of the complexity programs of Smeding and Vakar (seeds 000/001).

Each program is differentiated at two sizes n and 4n; linear growth makes the time
ratio about 4, while losing sharing would make the chains exponential and one-hot
index cotangents would make the dot product quadratic (ratio 16). `compile` is the
first call of catad.grad on a freshly loaded function (front end, CL, AD, the rewrite
stages and the reverse sweep); `grad` is a later call, which runs the reverse
derivative program in catad's reference interpreter; `grad/primal` divides it by the
same interpreter's time for the function itself: the constant factor of reverse mode.

    python benchmarks/gradient_scaling.py [--repeats 3] [--scale 1]
"""
from __future__ import annotations

import argparse

import numpy as np
from _util import chain_source, load_source, median_time

import catad  # noqa: E402  (after _util puts the checkout on sys.path)
from catad.lang.evaluate import evaluate  # noqa: E402

# the seeds' programs, with a factor 0.5 where the plain recurrence would overflow:
# the sharing (each previous value used twice) is what matters, and it is unchanged
PROGRAMS = {
    "x_i = x_{i-1} + x_{i-1}": lambda n: (chain_source(n, "({p} + {p}) * 0.5"), (1.5,)),
    "x_i = x_{i-2} + x_{i-1}": lambda n: (chain_source(n, "({pp} + {p}) * 0.5"), (1.5,)),
    "x_i = x_{i-1} * x_{i-1}": lambda n: (chain_source(n, "{p} * {p}"), (1.0,)),
    "sum(v[i] * v[i])": lambda n: ("def f(v):\n    return sum(v[i] * v[i] for i in range(len(v)))\n",
                                   (np.random.default_rng(0).normal(size=n),)),
}
SIZES = {"sum(v[i] * v[i])": (25_000, 100_000)}


def measure(name: str, n: int, repeats: int) -> dict:
    source, args = PROGRAMS[name](n)
    f = load_source(source)
    compile_time = median_time(lambda: catad.grad(f)(*args), 1)  # the first call compiles
    core = catad.to_core(f, *args)
    return {"compile": compile_time,
            "grad": median_time(lambda: catad.grad(f)(*args), repeats),
            "primal": median_time(lambda: evaluate(core, *args), repeats)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the sizes (e.g. 0.1 for a quick run)")
    args = ap.parse_args()
    print(f"{'program':<26} {'n':>8} {'compile s':>10} {'grad s':>9} {'primal s':>9} {'grad/primal':>12}")
    for name in PROGRAMS:
        small, large = (int(s * args.scale) for s in SIZES.get(name, (2_500, 10_000)))
        rows = [(n, measure(name, n, args.repeats)) for n in (small, large)]
        for n, r in rows:
            print(f"{name:<26} {n:>8} {r['compile']:>10.3f} {r['grad']:>9.4f} {r['primal']:>9.4f} "
                  f"{r['grad'] / r['primal']:>12.1f}")
        (_, a), (_, b) = rows
        print(f"{'':<26} {'ratio x4':>8} {b['compile'] / a['compile']:>10.2f} {b['grad'] / a['grad']:>9.2f} "
              f"{b['primal'] / a['primal']:>9.2f}")


if __name__ == "__main__":
    main()
