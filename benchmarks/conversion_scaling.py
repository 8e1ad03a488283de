"""Conversion time of straight-line functions: 2,500 vs 10,000 statements.

Each repeat converts a freshly loaded copy of the function (so nothing is cached)
through the front end, the type checker, ANF and CL. Linear growth makes the
10,000 / 2,500 ratio about 4; quadratic growth would make it about 16.

    python benchmarks/conversion_scaling.py [--repeats 5]
"""
from __future__ import annotations

import argparse

from _util import chain_source, load_source, median_time

import catad  # noqa: E402  (after _util puts the checkout on sys.path)


def convert(source: str) -> None:
    f = load_source(source)
    catad.to_anf(f, 1.0)
    catad.to_cl(f, 1.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    rows = []
    for n in (2_500, 10_000):
        src = chain_source(n, "{p} * 1.0001 + 0.5")
        rows.append((n, median_time(lambda: convert(src), args.repeats)))
    print(f"{'statements':>12} {'median s':>10}")
    for n, t in rows:
        print(f"{n:>12} {t:>10.3f}")
    print(f"ratio 10,000 / 2,500 = {rows[1][1] / rows[0][1]:.2f}  (linear: 4, quadratic: 16)")


if __name__ == "__main__":
    main()
