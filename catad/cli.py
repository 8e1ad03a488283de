"""The `catad` command."""
from __future__ import annotations

import argparse
import inspect
import sys

from .errors import CatadError


def _demo(args: argparse.Namespace) -> int:
    from . import eval_cl, to_anf, to_cl, to_core
    from .examples import EXAMPLES
    from .lang.evaluate import evaluate

    fn, example = EXAMPLES[args.example]
    stages = [
        ("Original definition (Python)", inspect.getsource(fn).rstrip()),
        ("Core program", str(to_core(fn, *example))),
        ("Anf-ised original definition", str(to_anf(fn, *example))),
        ("Combinator language CL (notes Fig. 9-10, pruned)", str(to_cl(fn, *example))),
    ]
    for title, text in stages:
        print("-" * 60)
        print(title)
        print("-" * 60)
        print(text)
        print()
    shown = ", ".join(map(repr, example))
    print(f"At ({shown}): core evaluator {evaluate(to_core(fn, *example), *example)!r}, "
          f"CL evaluator {eval_cl(to_cl(fn, *example), *example)!r}, Python {fn(*example)!r}")
    return 0


def main(argv: list[str] | None = None) -> int:
    from .examples import EXAMPLES

    parser = argparse.ArgumentParser(prog="catad", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="show each stage of the pipeline on an example (notes Section 9)")
    demo.add_argument("example", nargs="?", default="f2", choices=sorted(EXAMPLES))
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CatadError as e:
        print(f"catad: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
