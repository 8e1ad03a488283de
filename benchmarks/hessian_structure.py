"""The cost of a Hessian whose structure is diagonal (issue 17, item 3): sum(v[i] ** 4) over n.

For each n: catad's gradient, one Hessian-vector product (forward over reverse), the dense
Hessian by catad.hessian, and the same Hessian by n separate calls of catad.hvp (one pass each,
as a user would loop). Each the median of --repeats runs after a warm-up call; the Hessian is
checked against diag(12 v**2).

What it shows: catad.hessian reads the band of the gradient's forward program (here the
diagonal: element i of the gradient reads v at i only; catad/lang/structure.py) and runs one
O(n) forward pass seeded with ones, then fills the dense n x n result: its cost over the
gradient's grows as the n^2 fill does, not as n passes of O(n) (issue 17, item 3).

    python benchmarks/hessian_structure.py [--sizes 250,500,1000,2000,4000] [--repeats 5]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import catad  # noqa: E402


def quartic(v):
    s = 0.0
    for i in range(len(v)):
        s = s + v[i] ** 4
    return s


def median_time(fn, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times))


def by_hvps(v):
    eye = np.eye(len(v))
    return np.array([catad.hvp(quartic, (v,), (eye[j],)) for j in range(len(v))])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="250,500,1000,2000,4000")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    grad, hessian = catad.grad(quartic), catad.hessian(quartic)
    print(f"{'n':>6} {'grad ms':>9} {'hvp ms':>8} {'hessian ms':>11} {'n hvps ms':>10} {'hessian/grad':>13}")
    for n in map(int, args.sizes.split(",")):
        v = np.random.default_rng(0).normal(size=n)
        t = np.ones(n)
        H = hessian(v)
        assert np.allclose(H, np.diag(12 * v ** 2), rtol=1e-12, atol=0), "wrong Hessian"
        tg = median_time(lambda: grad(v), args.repeats)
        th = median_time(lambda: catad.hvp(quartic, (v,), (t,)), args.repeats)
        tH = median_time(lambda: hessian(v), args.repeats)
        tn = median_time(lambda: by_hvps(v), max(1, args.repeats // 2)) if n <= 2000 else float("nan")
        print(f"{n:>6} {tg * 1e3:>9.3f} {th * 1e3:>8.3f} {tH * 1e3:>11.2f} {tn * 1e3:>10.1f} {tH / tg:>13.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
