"""ADBench BA: the Jacobian of the reprojection residual by catad against a hand-written NumPy
residual and the JAX-jit, PyTorch and autograd Jacobians of the same residual.

Each observation has 2 reprojection residuals depending on 15 parameters (camera 11, point 3,
weight 1) and the weight residual 1 - w^2: the Jacobian is p blocks of 2 x 15 and p of 1 x 1
(benchmarks/adbench/ba.py). catad computes them vectorised over all observations with two
vjps of the whole residual, with cotangent ones in residual component 0 and then 1: each
residual row depends only on its own row of the inputs, so row i of the input cotangents is
row 0 (then 1) of observation i's block. JAX uses jax.vmap(jax.jacfwd) of one observation's
residual, PyTorch torch.func.vmap(jacrev), autograd the same two vjps as catad.

Checks: every tool's residuals against the hand-written NumPy ones (rtol 1e-10), catad's
Jacobian against central differences of the NumPy residual (all observations at once), every
other Jacobian against catad's. Times: `objective` computes both residuals, `jacobian` all
blocks (median after a warm-up); `compile` is catad's first Jacobian on fresh copies of its
functions for the first observation alone (the same types, so the same programs): compiling.

Without catad/backend, catad's programs run in the reference interpreter: then truncate with
--obs (e.g. --obs 100). All tools run single-threaded unless OMP_NUM_THREADS (and XLA_FLAGS)
say otherwise.

    python benchmarks/adbench_ba.py [--file ba1_n49_m7776_p31843.txt] [--obs N] [--data-dir DIR]
        [--repeats 5] [--tools catad,numpy,jax,torch,autograd] [--plot out.png]
"""
from __future__ import annotations

import os

# every tool single-threaded unless asked otherwise (ADBench's setting; on a small machine the
# peers' thread pools otherwise compete with each other and with anything else running): set
# before NumPy, JAX and PyTorch start their pools
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")
os.environ.setdefault("XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")

import argparse  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from _util import catad_engine, catad_objective, first_call_time, fresh_function, median_time  # noqa: E402

from adbench import ba, peers  # noqa: E402  (after _util puts the checkout on sys.path)
from adbench.io import DATA_DIR, load_ba  # noqa: E402
from adbench.report import Checks, Row, plot, scaled_atol, table  # noqa: E402

TOOLS = ("catad", "numpy", "jax", "torch", "autograd")
RTOL_VALUE = 1e-10
RTOL_JAC = 1e-9
RTOL_CD = 1e-6  # central differences with relative step 1e-6: rounding error ~ 1e-10 / 1e-6 of the residuals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data-dir", type=Path, default=DATA_DIR / "ba")
    ap.add_argument("--file", default="ba1_n49_m7776_p31843.txt")
    ap.add_argument("--obs", type=int, help="keep the first N observations")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--tools", default=",".join(TOOLS), help="catad,numpy,jax,torch,autograd")
    ap.add_argument("--plot", help="save a plot of the Jacobian times (needs matplotlib)")
    args = ap.parse_args()
    tools = [t for t in args.tools.split(",") if t]
    for t in tools:
        if t not in TOOLS:
            ap.error(f"unknown tool {t!r}; tools: {', '.join(TOOLS)}")

    data = load_ba(args.data_dir / args.file, args.obs)
    inputs = data.gathered()
    label = f"{Path(args.file).stem.split('_')[0]} p={len(data.w)}"
    checks, notes, rows = Checks(), set(), []
    reproj, werr = ba.numpy_residuals(*inputs)
    cd_jac = ba.central_difference_jacobian(*inputs)
    reference = None  # (tool, (J, Jw)) the others are compared with

    def check(tool, residuals, jac):
        nonlocal reference
        checks.close(f"{label} {tool} reprojection residual", residuals[0], reproj, RTOL_VALUE)
        checks.close(f"{label} {tool} weight residual", residuals[1], werr, RTOL_VALUE)
        if reference is None:
            reference = (tool, jac)
            for name, a, b in zip(("J", "Jw"), jac, cd_jac):
                checks.close(f"{label} {tool} {name} vs central differences", a, b, RTOL_CD,
                             scaled_atol([b], RTOL_CD))
            return
        for name, a, b in zip(("J", "Jw"), jac, reference[1]):
            checks.close(f"{label} {tool} {name} vs {reference[0]}", a, b, RTOL_JAC, scaled_atol([b], RTOL_JAC))

    if "numpy" in tools:
        rows.append(Row(label, "numpy", median_time(lambda: ba.numpy_residuals(*inputs), args.repeats), None))
    if "catad" in tools:
        fr, fw = fresh_function(ba.reproj_error), fresh_function(ba.weight_error)
        jac = lambda: ba.catad_jacobian(*inputs, reproj=fr, weight=fw)
        # compiled once per signature of types: the first call, on one observation, is the compile time
        one = tuple(a[:1] for a in inputs)
        compile_time, _ = first_call_time(lambda: ba.catad_jacobian(*one, reproj=fr, weight=fw))
        j = jac()
        obj_r, obj_w = catad_objective(fr, *inputs), catad_objective(fw, inputs[2])
        objective = lambda: (obj_r(), obj_w())
        check("catad", objective(), j)
        rows.append(Row(label, "catad", median_time(objective, args.repeats), median_time(jac, args.repeats),
                        compile_time))
    for tool in tools:
        if tool in ("catad", "numpy"):
            continue
        module, why = peers.load(tool)
        if module is None:
            notes.add(why)
            continue
        objective, jacobian = getattr(peers, f"ba_{tool}")(*inputs)
        check(tool, objective(), jacobian())  # also the warm-up (jit)
        rows.append(Row(label, tool, median_time(objective, args.repeats), median_time(jacobian, args.repeats)))

    print(f"ADBench BA ({args.data_dir / args.file}), median of {args.repeats} after a warm-up, "
          f"{os.environ['OMP_NUM_THREADS']} thread(s); "
          f"catad's programs run in {catad_engine()}")
    print(table(rows, "jacobian", "jac"))
    for note in sorted(notes):
        print(f"skipped: {note}")
    if args.plot:
        plot(rows, args.plot, "ADBench BA Jacobian", "jacobian")
    if checks.failures:
        sys.exit(f"{len(checks.failures)} agreement check(s) failed")
    print("all residuals and Jacobians agree")


if __name__ == "__main__":
    main()
