"""ADBench LSTM: catad's objective and gradient of the loss written as a user would (a Python
loop over the characters and one over the layers inside it: benchmarks/adbench/lstm.py) against
a hand-written NumPy objective and the JAX-jit and PyTorch gradients of the loss with the same
loops (benchmarks/adbench/peers.py): PyTorch eager runs them as written; `jax` is jax.jit with
the loop over the characters a jax.lax.scan and the loop over the layers a Python loop in its
step; `jax-unrolled` (not run unless asked for) is jax.jit of the Python loops as written,
which traces (c - 1) l layer steps: with --chars 32 its gradient took 234 s to compile, and on
the whole of lstm_l2_c1024 we stopped it after 10 minutes and 4 GB, so use it with a small
--chars (e.g. 16).

catad styles: `rows` (lstm_objective_rows: the gates as rows of main_params.reshape(-1, b))
and `adbench` (lstm_objective: ADBench's layout, each gate a slice of a row). A catad failure
is reported in the table's note and the script goes on.

Each tool's objective is checked against the NumPy one (rtol 1e-10), each gradient (with
respect to main_params and extra_params, ADBench's) against the first tool's, and the first's
against central differences of the NumPy objective on a few coordinates. Then the median times
after a warm-up call: `objective`, `gradient` (value and gradient), their ratio, catad's
gradient time over JAX's and PyTorch's; `compile`: catad's first gradient call on a fresh copy
of the function, on the first 3 characters (the same types, so the same program), all of which
is compiling; for JAX, its first (jit) calls, in the note. As benchmarks/compile_time.py, catad
is first warmed up on a small unrelated function with the same primitives (a loop of exp, tanh
and log), so that what a process pays once (SymPy's derivation of each primitive's derivative on
its first use, the handler tables) is not counted against the LSTM: the note says what that
warm-up took, and --cold skips it. All tools run single-threaded unless OMP_NUM_THREADS (and XLA_FLAGS) say otherwise.

    python benchmarks/adbench_lstm.py [--file PATH] [--chars N] [--repeats 5]
        [--styles rows,adbench] [--tools catad,numpy,jax,torch,jax-unrolled]

Targets (issue 15, item 6): catad's gradient at or below the best peer's time, and at most 4x
catad's own objective; compile time at most 1 s.
"""
from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from _util import catad_engine, catad_objective, first_call_time, fresh_function, load_source, median_time  # noqa: E402

import catad  # noqa: E402  (after _util puts the checkout on sys.path)
from adbench import lstm, peers  # noqa: E402
from adbench.io import DATA_DIR  # noqa: E402
from adbench.report import Checks, Row, central_differences, scaled_atol, table  # noqa: E402

TOOLS = ("catad", "numpy", "jax", "torch", "jax-unrolled")
STYLES = ("rows", "adbench")
RTOL_VALUE = 1e-10
RTOL_GRAD = 1e-9


def catad_function(style: str, data) -> tuple:
    """(catad's function of this style, its arguments, a map of its gradients to ADBench's)."""
    b = data.sequence.shape[1]
    if style == "rows":
        return (lstm.lstm_objective_rows, data.args_rows(),
                lambda g: (g[0].reshape(-1, 4 * b), g[1]))
    return lstm.lstm_objective, data.args(), lambda g: tuple(g)


WARM_UP = """
import numpy as np

def f(w, x):
    h = np.zeros(3)
    total = 0.0
    for t in range(2):
        g = 1.0 / (1.0 + np.exp(-(w * x[t] + h)))
        h = g * np.tanh(w + h)
        total += float(np.dot(x[t], h - np.log(np.sum(np.exp(h)) + 2.0)))
    return total
"""


def warm_up() -> float:
    """Seconds of catad's first gradient of an unrelated function with the LSTM's primitives."""
    f = load_source(WARM_UP)
    t, _ = first_call_time(lambda: catad.value_and_grad(f)(np.full(3, 0.5), np.ones((2, 3))))
    return t


def run(args, checks: Checks, notes: set) -> list[Row]:
    data = lstm.load_lstm(args.file, args.chars)
    l, c, b = data.state.shape[0] // 2, data.sequence.shape[0], data.sequence.shape[1]
    label = f"l={l} c={c} b={b}"
    value = lstm.numpy_objective(*data.args())
    rows: list[Row] = []
    reference = None

    def check_gradient(tool, v, g):
        nonlocal reference
        checks.close(f"{tool} objective", v, value, RTOL_VALUE)
        if reference is None:
            reference = (tool, g)
            rng = np.random.default_rng(0)
            coords = [(a, int(i)) for a in (0, 1) for i in rng.choice(data.args()[a].size, 4, replace=False)]
            cd, bound = central_differences(lstm.numpy_objective, data.args(), coords)
            got = np.array([g[a].flat[i] for a, i in coords])
            checks.close(f"{tool} gradient vs central differences", got, cd, 0.0, bound)
            return
        for name, x, y in zip(("main_params", "extra_params"), g, reference[1]):
            checks.close(f"{tool} gradient of {name} vs {reference[0]}", x, y, RTOL_GRAD,
                         scaled_atol(reference[1], RTOL_GRAD))

    if "numpy" in args.tools:
        rows.append(Row(label, "numpy", median_time(lambda: lstm.numpy_objective(*data.args()), args.repeats), None))
    if "catad" in args.tools:
        args.warmed = None if args.cold else warm_up()
        for style in args.styles:
            fn, fargs, to_adbench = catad_function(style, data)
            fn = fresh_function(fn)
            vg = catad.value_and_grad(fn, argnums=(0, 1))
            short = fargs[:3] + (fargs[3][:3],)
            try:
                compile_time, _ = first_call_time(lambda: vg(*short))
            except Exception as e:  # noqa: BLE001  (a catad failure is a result to report)
                obj = catad_objective(fn, *fargs)
                checks.close(f"catad/{style} objective program", obj(), value, RTOL_VALUE)
                rows.append(Row(label, f"catad/{style}", median_time(obj, args.repeats), None,
                                note=f"gradient fails: {type(e).__name__}: {e}"))
                continue
            v, g = vg(*fargs)
            check_gradient(f"catad/{style}", v, to_adbench(g))
            obj = catad_objective(fn, *fargs)
            checks.close(f"catad/{style} objective program", obj(), value, RTOL_VALUE)
            rows.append(Row(label, f"catad/{style}", median_time(obj, args.repeats),
                            median_time(lambda: vg(*fargs), args.repeats), compile_time))
    for tool in args.tools:
        if tool in ("catad", "numpy"):
            continue
        module, why = peers.load(tool.split("-")[0])
        if module is None:
            notes.add(why)
            continue
        objective, gradient = getattr(peers, f"lstm_{tool.replace('-', '_')}")(data)
        t_obj, v = first_call_time(objective)
        checks.close(f"{tool} objective", v, value, RTOL_VALUE)
        t_grad, (v, g) = first_call_time(gradient)
        check_gradient(tool, v, g)
        note = f"first calls (jit): objective {t_obj:.1f} s, gradient {t_grad:.1f} s" if tool.startswith("jax") else ""
        rows.append(Row(label, tool, median_time(objective, args.repeats), median_time(gradient, args.repeats),
                        note=note))
        print(f"done {tool}", file=sys.stderr, flush=True)
    return rows


def targets(rows: list[Row]) -> list[str]:
    out = []
    peer_times = [r.gradient for r in rows if r.tool in ("jax", "torch", "jax-unrolled") and r.gradient]
    best = min(peer_times) if peer_times else None
    for r in rows:
        if not r.tool.startswith("catad") or r.gradient is None:
            continue
        out.append(f"{r.tool}: gradient/objective {r.gradient / r.objective:.2f} (target <= 4), "
                   + (f"gradient/best peer's {r.gradient / best:.2f} (target <= 1), " if best else "no peer run, ")
                   + f"compile {r.compile:.2f} s (target <= 1 s)")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", type=Path, default=DATA_DIR / "lstm" / "lstm_l2_c1024.txt")
    ap.add_argument("--chars", type=int, help="keep the first N characters")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--styles", default=",".join(STYLES), help="catad's styles: rows,adbench")
    ap.add_argument("--tools", default="catad,numpy,jax,torch", help=",".join(TOOLS))
    ap.add_argument("--cold", action="store_true", help="no warm-up before catad's compile times")
    args = ap.parse_args()
    args.styles = [s for s in args.styles.split(",") if s]
    args.tools = [t for t in args.tools.split(",") if t]
    for s in args.styles:
        if s not in STYLES:
            ap.error(f"unknown style {s!r}; styles: {', '.join(STYLES)}")
    for t in args.tools:
        if t not in TOOLS:
            ap.error(f"unknown tool {t!r}; tools: {', '.join(TOOLS)}")
    checks, notes = Checks(), set()
    rows = run(args, checks, notes)
    print(f"ADBench LSTM ({args.file.name}), median of {args.repeats} after a warm-up, "
          f"{os.environ['OMP_NUM_THREADS']} thread(s); catad's programs run in {catad_engine()}")
    print(table(rows))
    if "catad" in args.tools:
        print("catad's compile times: " + ("cold (--cold)" if args.cold else
              f"after a warm-up on an unrelated function, which took {args.warmed:.2f} s (--cold: without)"))
    for line in targets(rows):
        print(line)
    for note in sorted(notes):
        print(f"skipped: {note}")
    if checks.failures:
        sys.exit(f"{len(checks.failures)} agreement check(s) failed")
    print("all objectives and gradients agree")


if __name__ == "__main__":
    main()
